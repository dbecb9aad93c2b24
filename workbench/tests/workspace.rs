//! The page's workspace rules (`workbench::workspace`), natively: model groups by drop, each
//! model scored with the shared files, hashes that come after the numbers, restored shares,
//! the job views and the bootstrap between two models.

// Test helpers panic to report a failure, like the #[test] functions they serve.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use workbench::bootstrap::MetricInterval;
use workbench::detect::Role;
use workbench::session::Variant;
use workbench::workspace::Workspace;
use workbench::{WorkFile, table};

fn golden(path: &str) -> WorkFile {
    let path = testkit::path(path);
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    WorkFile::new(name, std::fs::read(&path).unwrap())
}

fn eotgc(file: &str) -> WorkFile {
    golden(&format!("eotgc/eotgc_11_full_size_185/{file}"))
}

/// The finished bootstrap of scored jobs 0 and 1 (seed 7, 1,000 resamples).
fn intervals(ws: &Workspace) -> Vec<MetricInterval> {
    let mut b = ws.bootstrap(0, 1, 7, 1000).unwrap();
    while !b.is_done() {
        b.step(100);
    }
    b.finish()
}

/// `pred.json` under another name (a second model's predictions).
fn renamed(file: &WorkFile, name: &str) -> WorkFile {
    WorkFile::new(name, file.bytes.to_vec())
}

#[test]
fn a_drop_with_predictions_is_a_model_and_gold_is_shared() {
    let mut ws = Workspace::default();
    ws.add(vec![eotgc("gold.json")]);
    ws.add(vec![eotgc("pred.json")]);
    ws.add(vec![renamed(&eotgc("pred.json"), "pred2.json")]);
    assert_eq!(ws.models, ["model 1", "model 2", "model 3"]);
    let shown: Vec<&str> = ws.files.iter().map(|h| ws.model_of(h)).collect();
    assert_eq!(shown, ["shared", "model 2", "model 3"]);
    // A later drop of gold data alone joins the first model.
    ws.add(vec![renamed(&eotgc("gold.json"), "gold-copy.json")]);
    assert_eq!(ws.models.len(), 3);
    assert_eq!(ws.files[3].model, 0);

    ws.score(false);
    // Model 1 has no files of its own: models 2 and 3 are scored, each with the shared gold.
    let jobs: Vec<(usize, &str)> = ws
        .scored
        .iter()
        .map(|s| (s.model, s.outcome.job.title.as_str()))
        .collect();
    assert_eq!(
        jobs.iter().map(|(m, _)| *m).collect::<Vec<_>>(),
        [1, 2],
        "{jobs:?}"
    );
    let names: Vec<&str> = ws.scored[0].files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["gold.json", "pred.json", "gold-copy.json"]);
    // Two golds for one submission: the job says why it cannot be scored.
    assert!(ws.scored[0].outcome.result.is_err());
}

#[test]
fn only_shared_files_score_as_the_first_model() {
    let mut ws = Workspace::default();
    ws.add(vec![golden("asap_aes/asap_01_basic/training_set_rel3.tsv")]);
    ws.score(false);
    assert!(ws.scored.iter().all(|s| s.model == 0));
    ws.add(vec![golden("asap_aes/asap_01_basic/predictions.csv")]);
    ws.score(false);
    assert_eq!(ws.scored.len(), 1);
    assert_eq!(ws.scored[0].model, 1);
    assert_eq!(ws.scored[0].outcome.report().unwrap().benchmark, "asap-aes");
}

#[test]
fn a_hash_that_comes_later_reaches_every_copy_and_the_report() {
    let mut ws = Workspace::default();
    let gold = eotgc("gold.json");
    let pred = eotgc("pred.json").with_sha256(String::new());
    let sha256 = metrics_core::InputFile::from_bytes("", &pred.bytes).sha256;
    let bytes = Arc::clone(&pred.bytes);
    ws.add(vec![gold, pred]);
    ws.score(false);
    assert_eq!(ws.unhashed().len(), 1);
    // The class view is keyed by its file's hash: the numbers wait for it.
    assert!(ws.class_waits_for_hash());
    let input = |ws: &Workspace| {
        let report = ws.scored[0].outcome.report().unwrap();
        report
            .inputs
            .iter()
            .find(|i| i.path == "pred.json")
            .unwrap()
            .sha256
            .clone()
    };
    assert_eq!(input(&ws), "");
    ws.fill_hash(&bytes, "pred.json", &sha256);
    assert_eq!(input(&ws), sha256);
    assert!(ws.unhashed().is_empty());
    assert!(!ws.class_waits_for_hash());
    assert_eq!(
        ws.scored[0].files[1].sha256.as_deref(),
        Some(sha256.as_str())
    );
}

#[test]
fn a_restored_workspace_keeps_roles_and_bounds_its_models() {
    let pred = eotgc("pred.json");
    let submission = Role::from_key("eotgc-submission").unwrap();
    let ws = Workspace::restore(
        vec![
            (eotgc("gold.json"), None, 0),
            (renamed(&pred, "p.json"), Some(submission), 7),
        ],
        2,
        Variant::Official,
    );
    assert_eq!(ws.models, ["model 1", "model 2"]);
    assert_eq!(ws.files[1].model, 1, "a group past the last is the last");
    assert_eq!(ws.files[1].file.role, submission);
    let none = Workspace::restore(Vec::new(), 0, Variant::Corrected);
    assert_eq!(none.models.len(), 1);
    let many = Workspace::restore(Vec::new(), usize::MAX, Variant::Official);
    assert_eq!(many.models.len(), workbench::workspace::MAX_MODELS);
    let mut cleared = many.clone();
    cleared.variant = Variant::Corrected;
    cleared.clear();
    assert!(cleared.models.is_empty() && cleared.files.is_empty());
    assert_eq!(
        cleared.variant,
        Variant::Corrected,
        "clearing keeps the variant"
    );
}

#[test]
fn job_views_and_the_bootstrap_between_two_models() {
    let mut ws = Workspace::default();
    ws.add(vec![eotgc("gold.json"), eotgc("pred.json")]);
    ws.add(vec![renamed(&eotgc("pred.json"), "pred2.json")]);
    ws.score(false);
    assert_eq!(ws.scored.len(), 2);
    let view = ws.job_view(0).unwrap();
    assert_eq!(view.files, ["gold.json", "pred.json"]);
    assert_eq!(view.variants, [Variant::Official]);
    assert!(view.changed.is_empty());
    let t = view.table.unwrap();
    let score = t.cell(table::OVERALL, "score").unwrap().value;
    assert_eq!(score, Some(0.8835026811829132), "the golden case's score");
    // The class view carries the job's numbers against the gold, so the page shows them
    // without linking the benchmarks.
    let class = view.class.unwrap();
    let scores: Vec<(&str, Option<f64>)> = class
        .scores
        .iter()
        .map(|c| (c.metric.as_str(), c.value))
        .collect();
    assert_eq!(scores.len(), 3);
    assert_eq!(scores[2], ("score", Some(0.8835026811829132)));
    assert!(ws.job_view(2).is_none());

    let score = intervals(&ws)
        .into_iter()
        .find(|m| m.metric == "score")
        .unwrap();
    // The same predictions: every resampled difference is 0.
    assert_eq!(
        (score.difference, score.low, score.high),
        (Some(0.0), Some(0.0), Some(0.0))
    );
    let missing = ws.bootstrap(0, 5, 7, 1000).err().unwrap();
    assert!(missing.contains("no scored job 5"), "{missing}");
}

/// Two submissions with their Track 2 numbers: the bootstrap resamples the leaderboard total
/// too (the essays drawn, Track 2 fixed), so a board ranking by it has rank ranges.
#[test]
fn the_bootstrap_resamples_the_total_with_track2_fixed() {
    let scores = |name: &str, text: &str| WorkFile::new(name, text.as_bytes().to_vec());
    let mut ws = Workspace::default();
    ws.add(vec![
        eotgc("gold.json"),
        eotgc("pred.json"),
        scores(
            "t2a.json",
            r#"{"ppl": 5.0, "bertscore": 0.7, "human": 80.0}"#,
        ),
    ]);
    ws.add(vec![
        renamed(&eotgc("pred.json"), "pred2.json"),
        scores(
            "t2b.json",
            r#"{"ppl": 12.3, "bertscore": 0.681, "human": 75.5}"#,
        ),
    ]);
    ws.score(false);
    assert_eq!(ws.scored.len(), 2);
    let total = intervals(&ws)
        .into_iter()
        .find(|m| m.metric == "total")
        .expect("a total interval");
    // The golden case's score, with Track 2 scores 0.78 and 0.683956007226739 (both from
    // Python): the same predictions, so the difference is Track 2's alone on every draw.
    // Python: 0.4*0.8835026811829132 + 0.6*0.78, and + 0.6*0.683956007226739
    assert_eq!(total.a, Some(0.8214010724731653));
    assert_eq!(total.b, Some(0.7637746768092086));
    let d = total.difference.unwrap();
    assert!((d - 0.6 * (0.78 - 0.683956007226739)).abs() < 1e-12, "{d}");
    assert!((total.low.unwrap() - d).abs() < 1e-12 && (total.high.unwrap() - d).abs() < 1e-12);
    // Without Track 2 numbers on one side there is no total to compare.
    let mut ws = Workspace::default();
    ws.add(vec![eotgc("gold.json"), eotgc("pred.json")]);
    ws.add(vec![
        renamed(&eotgc("pred.json"), "pred2.json"),
        scores(
            "t2b.json",
            r#"{"ppl": 12.3, "bertscore": 0.681, "human": 75.5}"#,
        ),
    ]);
    ws.score(false);
    assert!(intervals(&ws).iter().all(|m| m.metric != "total"));
}
