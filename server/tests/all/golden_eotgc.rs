//! EOTGC golden vectors (`tests/golden/eotgc/`) through the real CLI, at abs tolerance 1e-12.

// Test helpers panic to report a failure, like the #[test] functions they serve.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{close, golden_dir, score_fails, score_json, scorebench};

const TOL: f64 = 1e-12;

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn cases() -> Vec<PathBuf> {
    testkit::case_dirs("eotgc")
}

fn metric(report: &Value, subset: &str, key: &str) -> Option<f64> {
    let metrics = if subset == "overall" {
        &report["overall"]["metrics"]
    } else {
        let subsets = report["subsets"].as_array().unwrap();
        &subsets
            .iter()
            .find(|s| s["name"] == subset)
            .unwrap_or_else(|| panic!("no subset {subset}"))["metrics"]
    };
    assert!(
        metrics.get(key).is_some(),
        "no metric {key} in {subset}: {metrics}"
    );
    metrics[key].as_f64()
}

/// Track 1 cases: the CLI's `acc_a`, `pearson`, `score` (and the r = 0 alternative) equal
/// `expected.json`; error cases exit 2 naming the id.
fn check_track1(case: &Path) {
    let expected = read_json(&case.join("expected.json"));
    let gold = case.join("gold.json");
    let pred = case.join("pred.json");
    let args = [
        "score",
        "eotgc",
        "--gold",
        gold.to_str().unwrap(),
        pred.to_str().unwrap(),
        "--json",
    ];
    if let Some(error) = expected["error"].as_str() {
        let stderr = score_fails(&args);
        // The golden message names the offending id: `unknown label 'Great'` is id 1 of pred.json,
        // `missing prediction for id(s) [7]` is id 7.
        let (id, word) = if error.starts_with("unknown label") {
            ("id 1", "Great")
        } else {
            ("7", "missing prediction")
        };
        assert!(
            stderr.contains(id) && stderr.contains(word),
            "{}: {stderr}",
            case.display()
        );
        assert!(stderr.contains("pred.json"), "{stderr}");
        return;
    }
    let report = score_json(&args);
    assert_eq!(report["benchmark"], "eotgc");
    assert_eq!(report["overall"]["n"], expected["n"]);
    let pairs = [
        ("acc_a", "acc_a"),
        ("pearson", "pearson_r"),
        ("score", "score"),
    ];
    for (ours, theirs) in pairs {
        let got = metric(&report, "overall", ours);
        let want = expected[theirs].as_f64();
        assert!(
            close(got, want, TOL),
            "{}: {ours} = {got:?}, expected {want:?}",
            case.display()
        );
    }
    let alternative = expected["score_if_undefined_r_taken_as_0"].as_f64();
    let got = report["overall"]["metrics"]
        .get("score_if_undefined_r_taken_as_0")
        .and_then(Value::as_f64);
    assert!(
        close(got, alternative, TOL),
        "{}: r=0 alternative {got:?} vs {alternative:?}",
        case.display()
    );
    if alternative.is_some() {
        assert!(
            !report["warnings"].as_array().unwrap().is_empty(),
            "undefined r must warn"
        );
    }

    // Samples carry the numeric labels the reference used, in gold order.
    let report = score_json(&[&args[..], &["--samples"]].concat());
    let samples = report["samples"].as_array().unwrap();
    let gold_values: Vec<f64> = samples
        .iter()
        .map(|s| s["gold_value"].as_f64().unwrap())
        .collect();
    let pred_values: Vec<f64> = samples
        .iter()
        .map(|s| s["pred_value"].as_f64().unwrap())
        .collect();
    let numbers = |key: &str| -> Vec<f64> {
        expected[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect()
    };
    assert_eq!(gold_values, numbers("y_numeric"), "{}", case.display());
    assert_eq!(pred_values, numbers("yhat_numeric"), "{}", case.display());

    // Per-grade subsets partition the essays, in numeric grade order.
    let subsets = report["subsets"].as_array().unwrap();
    let total: u64 = subsets.iter().map(|s| s["n"].as_u64().unwrap()).sum();
    assert_eq!(Some(total), expected["n"].as_u64());
    let grades: Vec<u64> = subsets
        .iter()
        .map(|s| {
            s["name"]
                .as_str()
                .unwrap()
                .strip_prefix("grade ")
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    assert!(grades.windows(2).all(|w| w[0] < w[1]), "{grades:?}");
}

/// Track 2 and totals: every `track2_score` and `total` of `expected.json`.
fn check_track2(case: &Path) {
    let expected = read_json(&case.join("expected.json"));
    let input = case.join("input.json");
    let report = score_json(&[
        "score",
        "eotgc",
        "--track2",
        input.to_str().unwrap(),
        "--json",
    ]);
    for (i, row) in expected["track2"].as_array().unwrap().iter().enumerate() {
        let name = format!("track2 #{}", i + 1);
        let got = metric(&report, &name, "track2_score");
        assert!(
            close(got, row["track2_score"].as_f64(), TOL),
            "{name}: {got:?} vs {}",
            row["track2_score"]
        );
    }
    for row in expected["totals"].as_array().unwrap() {
        let name = format!("total: {}", row["team"].as_str().unwrap());
        let got = metric(&report, &name, "total");
        assert!(
            close(got, row["total"].as_f64(), TOL),
            "{name}: {got:?} vs {}",
            row["total"]
        );
        // The published total is reproduced to 1e-4 from the unrounded combination.
        assert!(
            close(got, row["published_total"].as_f64(), 1e-4 + 1e-12),
            "{name}"
        );
    }
}

#[test]
fn every_golden_case() {
    let cases = cases();
    assert_eq!(cases.len(), 8, "golden eotgc cases: {cases:?}");
    for case in &cases {
        if case.join("input.json").exists() {
            check_track2(case);
        } else {
            check_track1(case);
        }
    }
}

fn temp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("scorebench-eotgc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn duplicate_and_unknown_ids_exit_2_naming_the_id() {
    let gold = golden_dir().join("eotgc/eotgc_02_english_guideline_names/gold.json");
    let gold = gold.to_str().unwrap();
    let dup = temp(
        "dup.json",
        r#"[{"id": 0, "classification": "good"}, {"id": 0, "classification": "good"}]"#,
    );
    let stderr = score_fails(&[
        "score",
        "eotgc",
        "--gold",
        gold,
        dup.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        stderr.contains("dup.json:2: id 0: duplicate id"),
        "{stderr}"
    );
    let stray = temp("stray.json", r#"[{"id": 4242, "classification": "good"}]"#);
    let stderr = score_fails(&[
        "score",
        "eotgc",
        "--gold",
        gold,
        stray.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        stderr.contains("stray.json:1: id 4242: no essay with this id"),
        "{stderr}"
    );
    let stderr = score_fails(&["score", "eotgc", "--json"]);
    assert!(stderr.contains("--gold"), "{stderr}");
}

#[test]
fn comments_over_250_characters_warn_with_the_id() {
    let long = "好".repeat(251);
    let comments = temp(
        "comments.json",
        &format!(r#"[{{"id": 1, "comment": "{long}"}}, {{"id": 2, "comment": "好文章"}}]"#),
    );
    let out = scorebench(&[
        "score",
        "eotgc",
        "--comments",
        comments.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success());
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["overall"]["n"], 2);
    assert_eq!(report["overall"]["metrics"]["comments_over_limit"], 1.0);
    assert_eq!(report["warnings"].as_array().unwrap().len(), 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("id 1: comment has 251 characters"));

    let input = golden_dir().join("eotgc/eotgc_12_track2_and_total/input.json");
    let report = score_json(&[
        "score",
        "eotgc",
        "--track2",
        input.to_str().unwrap(),
        "--comments",
        comments.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(report["inputs"].as_array().unwrap().len(), 2);
    assert_eq!(report["warnings"].as_array().unwrap().len(), 1);
}
