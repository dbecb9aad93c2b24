//! EOTGC's leaderboard total (0.4·Track 1 + 0.6·Track 2) on every surface: `score eotgc
//! --track2-scores` (the CLI), the workbench job the page scores from the same files (the same
//! report), and a board that ranks by `total` with Track 1 from files, Track 2's numbers as the
//! entry's file, and the organisers' published Results.md imported.

use serde_json::{Value, json};

use crate::leaderboard::{Server, create_args, lb, lb_json, p, slug, stores, temp};
use crate::support::{golden_dir, score_json};

/// The organisers' Results.md (cubenlp/EOTGC-2025NLPCC), whole (notes, formula, table), as published
/// (`tests/published/SOURCES.md`).
const RESULTS_MD: &str = include_str!("../../../tests/published/eotgc-Results.md");

fn overall(report: &Value, key: &str) -> Option<f64> {
    report["overall"]["metrics"][key].as_f64()
}

#[test]
fn the_cli_and_the_page_add_track2_and_the_total() {
    let case = golden_dir().join("eotgc/eotgc_11_full_size_185");
    let (gold, pred) = (case.join("gold.json"), case.join("pred.json"));
    let scores = temp("eotgc-total-cli").join("scores.json");
    std::fs::write(
        &scores,
        r#"{"team": "A", "ppl": 12.3, "bertscore": 0.681, "human": 75.5}"#,
    )
    .unwrap();
    let args = [
        "score",
        "eotgc",
        "--gold",
        p(&gold),
        p(&pred),
        "--track2-scores",
        p(&scores),
        "--json",
    ];
    let cli = score_json(&args);
    // Python: 0.10*((1/12.3-0.02)/0.18) + 0.40*0.681 + 0.5*75.5/100 == 0.683956007226739
    assert_eq!(overall(&cli, "track2"), Some(0.683956007226739));
    // The golden case's Track 1 score, then the organisers' total of the unrounded scores.
    assert_eq!(overall(&cli, "score"), Some(0.8835026811829132));
    // Python: 0.4*0.8835026811829132 + 0.6*0.683956007226739 == 0.7637746768092086
    assert_eq!(overall(&cli, "total"), Some(0.7637746768092086));
    assert_eq!(cli["inputs"].as_array().unwrap().len(), 3);

    // The page: the same three files dropped make one job with the same report.
    let files: Vec<workbench::WorkFile> = [&gold, &pred, &scores]
        .iter()
        .map(|f| workbench::WorkFile::new(p(f), std::fs::read(f).unwrap()))
        .collect();
    let outcomes = workbench::score_files(&files, &workbench::ScoreOptions::default());
    assert_eq!(
        outcomes.len(),
        1,
        "{:?}",
        outcomes.iter().map(|o| &o.job.title).collect::<Vec<_>>()
    );
    let mut page = serde_json::to_value(outcomes[0].report().unwrap()).unwrap();
    page.as_object_mut().unwrap().remove("samples");
    assert_eq!(page, cli);

    // The scores alone: the Track 2 score; a Track 1 run without them has no total.
    let alone = workbench::score_files(&files[2..], &workbench::ScoreOptions::default());
    let alone = serde_json::to_value(alone[0].report().unwrap()).unwrap();
    assert_eq!(overall(&alone, "track2"), Some(0.683956007226739));
    let track1 = score_json(&["score", "eotgc", "--gold", p(&gold), p(&pred), "--json"]);
    assert_eq!(track1["overall"]["metrics"].get("total"), None);

    // Bad scores name the file; scores need the gold and a submission.
    std::fs::write(&scores, r#"{"ppl": 0, "bertscore": 0.6, "human": 60}"#).unwrap();
    let out = crate::support::scorebench(&args);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("scores.json") && stderr.contains("perplexity"),
        "{stderr}"
    );
    let out = crate::support::scorebench(&["score", "eotgc", "--track2-scores", p(&scores)]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_eotgc_board_ranks_the_published_results_and_file_entries_by_the_total() {
    let case = golden_dir().join("eotgc/eotgc_11_full_size_185");
    let (gold, pred) = (case.join("gold.json"), case.join("pred.json"));
    let dir = temp("eotgc-total-board");
    let scores = dir.join("track2.json");
    std::fs::write(&scores, r#"{"ppl": 20, "bertscore": 0.6, "human": 55}"#).unwrap();
    let results = dir.join("Results.md");
    std::fs::write(&results, RESULTS_MD).unwrap();
    for db in stores() {
        let server = Server::start(&db);
        let s = slug("eotgc-total");
        let made = lb_json(
            &server,
            &create_args(&s, "eotgc", &["--primary", "total", p(&gold)]),
        );
        let owner = made["owner_token"].as_str().unwrap().to_string();
        // Track 1 from the files, Track 2's numbers as the entry's file; one entry without them.
        lb_json(
            &server,
            &[
                "submit",
                "--slug",
                &s,
                "--model",
                "files+track2",
                p(&pred),
                p(&scores),
            ],
        );
        lb_json(
            &server,
            &["submit", "--slug", &s, "--model", "track1-only", p(&pred)],
        );
        lb_json(
            &server,
            &["import", "--slug", &s, "--token", &owner, p(&results)],
        );
        let shown = lb_json(&server, &["show", "--slug", &s, "--json"]);
        assert_eq!(shown["board"]["primary"], "total", "{}", shown["board"]);
        assert_eq!(
            shown["board"]["metrics"],
            json!(["acc_a", "pearson", "score", "track2", "total"])
        );
        let entries = shown["entries"].as_array().unwrap();
        let models: Vec<&str> = entries
            .iter()
            .map(|e| e["model"].as_str().unwrap())
            .collect();
        // Python: 0.10*((1/20-0.02)/0.18) + 0.40*0.6 + 0.5*55/100 == 0.5316666666666667
        //         0.4*0.8835026811829132 + 0.6*0.5316666666666667 == 0.6724010724731653
        // between zzunlp (0.6734) and 炼丹师_zzunlp (0.6636); Track 1 alone has no total.
        assert_eq!(
            models,
            [
                "ZZUNLP_Han",
                "TW-NLP",
                "liberty",
                "Prompt",
                "Fighting!",
                "DUFL2025",
                "zzunlp",
                "files+track2",
                "炼丹师_zzunlp",
                "YNU-HPCC",
                "track1-only",
            ]
        );
        let ours = &entries[7];
        assert_eq!(ours["status"], "verified");
        assert_eq!(ours["metrics"]["track2"], json!(0.5316666666666667));
        assert_eq!(ours["metrics"]["total"], json!(0.6724010724731653));
        assert_eq!(ours["rank"], 8);
        assert_eq!(entries[10]["rank"], Value::Null);
        assert_eq!(entries[0]["metrics"]["total"], json!(0.715));
        assert_eq!(entries[0]["metrics"]["score"], json!(0.7822));
        // Anyone re-scores the file entries, the Track 2 file included.
        let verify = lb(&server, &["verify", "--slug", &s]);
        assert!(
            verify.status.success(),
            "{}",
            String::from_utf8_lossy(&verify.stderr)
        );
        assert!(String::from_utf8_lossy(&verify.stdout).contains("9 reported entries skipped"));
    }
}
