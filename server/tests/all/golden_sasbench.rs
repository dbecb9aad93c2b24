//! Every SAS-Bench golden case through the real binary, in both input modes:
//! `--taxonomy error_type.jsonl *_prediction.jsonl` and `--dataset DIR *_scored.jsonl`.
//! QWK and CCS bit for bit, ECS and tiers to 1e-12; crash cases exit 2 naming file and record.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{golden_dir, score_fails, score_json, scorebench};

fn cases() -> Vec<PathBuf> {
    let cases = testkit::case_dirs("sasbench");
    assert!(cases.len() >= 16, "{cases:?}");
    cases
}

fn files_with(dir: &Path, suffix: &str) -> Vec<String> {
    testkit::files_ending(dir, suffix)
        .iter()
        .map(|p| p.to_str().unwrap().to_string())
        .collect()
}

fn num(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) if s == "NaN" => None,
        Value::Null => None,
        other => panic!("not a number: {other}"),
    }
}

fn check_report(case: &Path, expected: &Value, report: &Value) {
    let files = expected["files"].as_object().unwrap();
    let subsets = report["subsets"].as_array().unwrap();
    assert_eq!(subsets.len(), files.len(), "{case:?}");
    // expected.json lists files by numeric id, as the report does.
    for ((file, exp), subset) in files.iter().zip(subsets) {
        let ctx = format!("{} {file}", case.display());
        assert_eq!(
            format!("{}_prediction.jsonl", subset["name"].as_str().unwrap()),
            *file,
            "{ctx}"
        );
        let m = &subset["metrics"];
        let keys: Vec<&String> = m.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["qwk", "ccs", "ecs", "ecs_tiers"], "{ctx}");
        for key in ["qwk", "ccs"] {
            let (ours, theirs) = (num(&m[key]), num(&exp[key]));
            assert_eq!(
                ours.map(f64::to_bits),
                theirs.map(f64::to_bits),
                "{ctx}: {key} {ours:?} vs {theirs:?}"
            );
        }
        let ecs = num(&m["ecs"]).unwrap();
        assert!(
            (ecs - num(&exp["ecs"]).unwrap()).abs() <= 1e-12,
            "{ctx}: ecs {ecs} vs {}",
            exp["ecs"]
        );
        for (ours, theirs) in m["ecs_tiers"]
            .as_array()
            .unwrap()
            .iter()
            .zip(exp["ecs_tiers"].as_array().unwrap())
        {
            assert!(
                (num(ours).unwrap() - num(theirs).unwrap()).abs() <= 1e-12,
                "{ctx}: tiers {ours} vs {theirs}"
            );
        }
        assert_eq!(subset["n"], exp["ccs_detail"]["n_responses"], "{ctx}");
    }
    let total: u64 = subsets.iter().map(|s| s["n"].as_u64().unwrap()).sum();
    assert_eq!(report["overall"]["n"].as_u64(), Some(total));
    assert_eq!(report["benchmark"], "sasbench");
    assert_eq!(report["variant"], "official");
    for input in report["inputs"].as_array().unwrap() {
        assert_eq!(input["sha256"].as_str().unwrap().len(), 64);
    }
}

#[test]
fn every_case_in_both_modes() {
    for case in cases() {
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(case.join("expected.json")).unwrap())
                .unwrap();
        let taxonomy = case.join("datasets/error_type.jsonl");
        let dataset = case.join("datasets");
        let scored_dir = case.join("datasets_GoldenModel_Scored");
        let predictions = files_with(&scored_dir, "_prediction.jsonl");
        let scored = files_with(&scored_dir, "_scored.jsonl");
        let mut pred_args = vec![
            "score",
            "sasbench",
            "--json",
            "--taxonomy",
            taxonomy.to_str().unwrap(),
        ];
        pred_args.extend(predictions.iter().map(String::as_str));
        let mut raw_args = vec![
            "score",
            "sasbench",
            "--json",
            "--dataset",
            dataset.to_str().unwrap(),
        ];
        raw_args.extend(scored.iter().map(String::as_str));
        if expected["official_exceptions"].is_null() {
            check_report(&case, &expected, &score_json(&pred_args));
            if !scored.is_empty() {
                check_report(&case, &expected, &score_json(&raw_args));
            }
        } else {
            for args in [&pred_args, &raw_args] {
                let stderr = score_fails(args);
                assert!(stderr.contains(".jsonl"), "{case:?}: {stderr}");
                let names_record = stderr.contains(".jsonl:") || stderr.contains("no records");
                assert!(names_record, "{case:?}: no file:line or record in {stderr}");
            }
        }
    }
}

#[test]
fn crash_messages_name_file_and_line() {
    let case = golden_dir().join("sasbench/case_19");
    let dir = case.join("datasets_GoldenModel_Scored");
    let pred = files_with(&dir, "_prediction.jsonl");
    let taxonomy = case.join("datasets/error_type.jsonl");
    let stderr = score_fails(&[
        "score",
        "sasbench",
        "--json",
        "--taxonomy",
        taxonomy.to_str().unwrap(),
        &pred[0],
    ]);
    assert!(
        stderr.contains("6_Chinese_ShortAns_prediction.jsonl:") && stderr.contains("manual_label"),
        "{stderr}"
    );
    let case = golden_dir().join("sasbench/case_21");
    let pred = files_with(
        &case.join("datasets_GoldenModel_Scored"),
        "_prediction.jsonl",
    );
    let taxonomy = case.join("datasets/error_type.jsonl");
    let stderr = score_fails(&[
        "score",
        "sasbench",
        "--json",
        "--taxonomy",
        taxonomy.to_str().unwrap(),
        &pred[0],
    ]);
    assert!(
        stderr.contains("5_Chinese_gapfilling_prediction.jsonl") && stderr.contains("no records"),
        "{stderr}"
    );
}

#[test]
fn table_samples_and_corrected_variant() {
    let case = golden_dir().join("sasbench/case_10");
    let taxonomy = case.join("datasets/error_type.jsonl");
    let preds = files_with(
        &case.join("datasets_GoldenModel_Scored"),
        "_prediction.jsonl",
    );
    let mut args = vec![
        "score",
        "sasbench",
        "--taxonomy",
        taxonomy.to_str().unwrap(),
    ];
    args.extend(preds.iter().map(String::as_str));
    let out = scorebench(&args);
    assert!(out.status.success());
    let table = String::from_utf8(out.stdout).unwrap();
    // Leaderboard order: 7 before 10 before 11, then the average.
    let header = table.lines().nth(1).unwrap();
    let (a, b, c) = (
        header.find("7_Math").unwrap(),
        header.find("10_Math").unwrap(),
        header.find("11_Chem").unwrap(),
    );
    assert!(
        a < b && b < c && header.trim_end().ends_with("Avg."),
        "{table}"
    );
    let mut sample_args = args.clone();
    sample_args.extend(["--json", "--samples"]);
    let report = score_json(&sample_args);
    let samples = report["samples"].as_array().unwrap();
    assert_eq!(
        samples.len() as u64,
        report["overall"]["n"].as_u64().unwrap()
    );
    for key in [
        "subset",
        "line",
        "id",
        "gold_total",
        "pred_total",
        "gold_steps",
        "pred_steps",
        "gold_errors",
        "pred_errors",
    ] {
        assert!(samples[0].get(key).is_some(), "{key}");
    }
    let mut corrected = args.clone();
    corrected.extend(["--json", "--variant", "corrected"]);
    let report = score_json(&corrected);
    assert_eq!(report["variant"], "corrected");
    assert!(report.get("samples").is_none());
}
