//! MSQA golden vectors (`tests/golden/msqa/`) through the real CLI.
//!
//! Toolkit cases: the official `evaluation_json` is written to a temp file and scored; the
//! report must equal the official `score_json` (accuracy, coverage counts, average tokens) and
//! every re-derived `pred`/`result` must equal the official record's. The crash case is rebuilt
//! as the evaluation.json the toolkit would have written, had it not crashed.

// Test helpers panic to report a failure, like the #[test] functions they serve.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::{close, golden_dir, score_fails, score_json};

const TOL: f64 = 1e-12;

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn temp_dir(case: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("scorebench-msqa-{}", std::process::id()))
        .join(case);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn cases() -> Vec<PathBuf> {
    testkit::case_dirs("msqa")
}

fn name(case: &Path) -> String {
    case.file_name().unwrap().to_string_lossy().into_owned()
}

fn metric(report: &Value, key: &str) -> Option<f64> {
    let m = &report["overall"]["metrics"];
    assert!(m.get(key).is_some(), "no metric {key}: {m}");
    m[key].as_f64()
}

fn check_toolkit_case(case: &Path) {
    let expected = read_json(&case.join("expected.json"));
    let evaluation = &expected["evaluation_json"];
    let path = temp_dir(&name(case)).join("evaluation.json");
    std::fs::write(&path, serde_json::to_string_pretty(evaluation).unwrap()).unwrap();
    let report = score_json(&[
        "score",
        "msqa",
        path.to_str().unwrap(),
        "--json",
        "--samples",
    ]);
    let score = &expected["score_json"];
    let coverage = &score["answer_coverage"];
    let generated = &coverage["generated_answers"];

    assert_eq!(report["benchmark"], "msqa");
    assert_eq!(report["variant"], "official");
    assert_eq!(report["overall"]["n"], score["dataset"]["total_questions"]);
    let at = name(case);
    assert!(
        close(
            metric(&report, "accuracy"),
            score["evaluation"]["overall_score"].as_f64(),
            TOL
        ),
        "{at}"
    );
    assert!(
        close(
            metric(&report, "accuracy"),
            score["evaluation"]["score_by_task"]["Material"].as_f64(),
            TOL
        ),
        "{at}"
    );
    let average = metric(&report, "average_completion_tokens");
    assert!(
        close(average, score["average_completion_tokens"].as_f64(), TOL),
        "{at}: {average:?}"
    );
    let counts = [
        ("no_generation", &coverage["no_generation"]),
        ("generated_answers", &generated["total"]),
        ("truncated", &generated["by_truncation"]["truncated"]),
        (
            "not_truncated",
            &generated["by_truncation"]["not_truncated"],
        ),
        ("extraction_success", &generated["by_extraction"]["success"]),
        ("extraction_failure", &generated["by_extraction"]["failure"]),
    ];
    for (key, want) in counts {
        assert_eq!(metric(&report, key), want.as_f64(), "{at}: {key}");
    }
    let coverage_ratio = generated["total"].as_f64().unwrap() / coverage["total"].as_f64().unwrap();
    assert!(
        close(
            metric(&report, "answer_coverage"),
            Some(coverage_ratio),
            TOL
        ),
        "{at}"
    );

    // Every re-derived pred/result equals the official record's; no warning about differences.
    let samples = report["samples"].as_array().unwrap();
    let records = evaluation.as_array().unwrap();
    assert_eq!(samples.len(), records.len());
    for (sample, record) in samples.iter().zip(records) {
        assert_eq!(sample["id"], record["id"], "{at}");
        assert_eq!(sample["pred"], record["pred"], "{at}: {record}");
        assert_eq!(sample["result"], record["result"], "{at}: {record}");
    }
    assert_eq!(report["warnings"], json!([]), "{at}");

    // Subsets partition the records by subtask, in order of first appearance.
    let subsets = report["subsets"].as_array().unwrap();
    let mut order: Vec<&str> = Vec::new();
    for r in records {
        let s = r["subtask"].as_str().unwrap();
        if !order.contains(&s) {
            order.push(s);
        }
    }
    let names: Vec<&str> = subsets
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, order, "{at}");
    let correct: f64 = subsets
        .iter()
        .map(|s| s["metrics"]["correct"].as_f64().unwrap())
        .sum();
    assert_eq!(Some(correct), metric(&report, "correct"));
}

/// `msqa_08_all_failed_crash`: the toolkit crashes before writing evaluation.json. Rebuild the
/// records it held (every request failed: generation and usage null) and check scorebench
/// reports it: accuracy 0, average_completion_tokens null, a warning naming ZeroDivisionError.
fn check_crash_case(case: &Path) {
    let expected = read_json(&case.join("expected.json"));
    assert!(
        expected["error"]
            .as_str()
            .unwrap()
            .contains("ZeroDivisionError")
    );
    let args = read_json(&case.join("args.json"));
    let dataset = read_json(&case.join("dataset/MSQA_Dataset.json"));
    let n = args["n"].as_u64().unwrap();
    let mut records = Vec::new();
    for _ in 0..n {
        for row in dataset.as_array().unwrap() {
            let question = format!(
                "{}\nYou must answer the question with YES or NO. Do not include other words.",
                row["true_false_question"].as_str().unwrap()
            );
            records.push(json!({
                "id": format!("q{}", records.len()), "task": "Material", "subtask": row["question_type"],
                "question": question, "generation": {"reasoning_content": null, "content": null},
                "gold": row["true_false_question_answer"], "pred": null, "result": null, "usage": null
            }));
        }
    }
    let path = temp_dir(&name(case)).join("evaluation.json");
    std::fs::write(&path, serde_json::to_string(&records).unwrap()).unwrap();
    let report = score_json(&["score", "msqa", path.to_str().unwrap(), "--json"]);
    assert_eq!(metric(&report, "accuracy"), Some(0.0));
    assert_eq!(metric(&report, "average_completion_tokens"), None);
    assert_eq!(metric(&report, "no_generation"), Some(records.len() as f64));
    let warnings = report["warnings"].to_string();
    assert!(warnings.contains("ZeroDivisionError"), "{warnings}");
}

/// The paper authors' rule on `input.json`, for each file name of the case: judgments and the
/// printed percentage of `compute_metrics`.
fn check_paper_case(case: &Path) {
    let input = read_json(&case.join("input.json"));
    let expected = read_json(&case.join("expected.json"));
    let dir = temp_dir(&name(case));
    let good = dir.join("final_dataset_filtered.json");
    let good_questions: Vec<Value> = input["good_questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| json!({"question": q}))
        .collect();
    std::fs::write(&good, serde_json::to_string(&good_questions).unwrap()).unwrap();
    for file_name in input["file_names"].as_array().unwrap() {
        let file_name = file_name.as_str().unwrap();
        let path = dir.join(file_name);
        std::fs::write(
            &path,
            serde_json::to_string(&input["inference_results"]).unwrap(),
        )
        .unwrap();
        let report = score_json(&[
            "score",
            "msqa",
            path.to_str().unwrap(),
            "--variant",
            "paper",
            "--good-questions",
            good.to_str().unwrap(),
            "--json",
            "--samples",
        ]);
        let want = &expected["results"][file_name];
        let judgments: Vec<&Value> = report["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| &s["judgment"])
            .collect();
        let wanted: Vec<&Value> = want["judgments"].as_array().unwrap().iter().collect();
        assert_eq!(judgments, wanted, "{file_name}");
        // "6/0/3 -> 66.67%": correct / mostly correct / incorrect -> printed percentage
        let printed = want["compute_metrics"].as_str().unwrap();
        let (counts, percent) = printed.split_once(" -> ").unwrap();
        let counts: Vec<f64> = counts.split('/').map(|c| c.parse().unwrap()).collect();
        assert_eq!(metric(&report, "correct"), Some(counts[0]), "{file_name}");
        assert_eq!(metric(&report, "incorrect"), Some(counts[2]), "{file_name}");
        let percent: f64 = percent.trim_end_matches('%').parse().unwrap();
        assert_eq!(
            metric(&report, "accuracy_percent_as_printed"),
            Some(percent),
            "{file_name}"
        );
        assert_eq!(
            report["overall"]["metrics"]["accuracy_percent_as_printed"].to_string(),
            percent.to_string()
        );
        let expected_variant = if file_name.contains("Reasoning") {
            "paper-last-5"
        } else {
            "paper"
        };
        assert_eq!(report["variant"], expected_variant);
    }
}

#[test]
fn every_golden_case() {
    let cases = cases();
    assert_eq!(cases.len(), 7, "golden msqa cases: {cases:?}");
    for case in &cases {
        let expected = read_json(&case.join("expected.json"));
        if case.join("input.json").exists() {
            check_paper_case(case);
        } else if expected["score_json"].is_null() {
            check_crash_case(case);
        } else {
            check_toolkit_case(case);
        }
    }
}

#[test]
fn paper_variant_scores_an_evaluation_json() {
    let expected = read_json(&golden_dir().join("msqa/msqa_01_basic_yes_no/expected.json"));
    let path = temp_dir("paper-on-evaluation").join("evaluation.json");
    std::fs::write(&path, expected["evaluation_json"].to_string()).unwrap();
    let report = score_json(&[
        "score",
        "msqa",
        path.to_str().unwrap(),
        "--variant",
        "paper",
        "--json",
    ]);
    // Contents "YES","NO","Yes.","no","YES","yes" with gold YES,NO,YES,NO,NO,YES: only the two
    // upper-case right answers count under the case-sensitive rule.
    assert_eq!(metric(&report, "correct"), Some(2.0));
    assert_eq!(report["overall"]["n"], 6);
}

#[test]
fn bad_evaluation_files_exit_2_with_record() {
    let dir = temp_dir("bad");
    let path = dir.join("evaluation.json");
    std::fs::write(&path, r#"[{"id": "abc", "gold": "YES", "generation": {"reasoning_content": "YES", "content": null}, "usage": {"completion_tokens": 1, "finish_reason": "stop"}}]"#).unwrap();
    let stderr = score_fails(&["score", "msqa", path.to_str().unwrap(), "--json"]);
    assert!(stderr.contains("evaluation.json:1: id abc:"), "{stderr}");
    std::fs::write(&path, "[]").unwrap();
    let stderr = score_fails(&["score", "msqa", path.to_str().unwrap(), "--json"]);
    assert!(stderr.contains("no records"), "{stderr}");
    std::fs::write(
        &path,
        r#"[{"id": "abc", "gold": "YES", "usage": {"completion_tokens": -3}}]"#,
    )
    .unwrap();
    let stderr = score_fails(&["score", "msqa", path.to_str().unwrap(), "--json"]);
    assert!(
        stderr.contains("evaluation.json:1: id abc: not an evaluation record"),
        "{stderr}"
    );
}

#[test]
fn edited_stored_results_are_rescored_with_a_warning() {
    let expected = read_json(&golden_dir().join("msqa/msqa_01_basic_yes_no/expected.json"));
    let mut records = expected["evaluation_json"].clone();
    records[4]["result"] = json!(true); // the official record says false
    let path = temp_dir("edited").join("evaluation.json");
    std::fs::write(&path, records.to_string()).unwrap();
    let report = score_json(&["score", "msqa", path.to_str().unwrap(), "--json"]);
    assert!(close(
        metric(&report, "accuracy"),
        expected["score_json"]["evaluation"]["overall_score"].as_f64(),
        TOL
    ));
    let warnings = report["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0]["line"], 5);
}
