//! SGI-Bench golden cases through the real CLI (`scorebench score sgi-… --json --samples`).

// Helpers outside #[test] fns unwrap too: a failed unwrap here is a failed golden test.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{close, golden_dir, score_fails, score_json};

const EXACT: f64 = 1e-12;

fn dir(task: &str) -> PathBuf {
    golden_dir().join("sgibench").join(task)
}

fn cases(task: &str) -> Vec<PathBuf> {
    testkit::case_dirs(&format!("sgibench/{task}"))
        .into_iter()
        .filter(|p| !testkit::name(p).contains("_units_"))
        .collect()
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn sample<'a>(report: &'a Value, idx: &str) -> &'a Value {
    report["samples"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["idx"] == idx)
        .unwrap_or_else(|| panic!("no sample {idx}"))
}

fn overall(report: &Value, key: &str) -> Option<f64> {
    report["overall"]["metrics"][key].as_f64()
}

/// A temporary file holding `value` as JSON, removed on drop.
struct TempJson(PathBuf);

impl TempJson {
    fn new(tag: &str, value: &Value) -> Self {
        let path =
            std::env::temp_dir().join(format!("scorebench-sgi-{}-{tag}.json", std::process::id()));
        std::fs::write(&path, serde_json::to_vec(value).unwrap()).unwrap();
        Self(path)
    }
}

impl Drop for TempJson {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn wet_cases() {
    for case in cases("wet_experiment") {
        let expected = json(&case.join("expected.json"));
        let log = case.join("step2_input.json");
        let report = score_json(&["score", "sgi-wet", s(&log), "--json", "--samples"]);
        assert_eq!(report["benchmark"], "sgi-wet");
        assert_eq!(report["inputs"][0]["path"], s(&log));
        if expected["step2_returncode"] != 0 {
            for item in report["samples"].as_array().unwrap() {
                assert!(
                    item["error"].as_str().unwrap().contains("zero steps"),
                    "{case:?}"
                );
                let idx = item["idx"].as_str().unwrap();
                assert!(
                    report["warnings"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|w| w["message"].as_str().unwrap().contains(idx))
                );
            }
            assert_eq!(report["overall"]["metrics"]["final"], Value::Null);
            continue;
        }
        for item in expected["step2_items"].as_array().unwrap() {
            let got = sample(&report, item["idx"].as_str().unwrap());
            for (ours, theirs) in [
                ("action_similarity", "action_sequence_similarity"),
                ("parameter_accuracy", "parameter_accuracy"),
                ("final", "final_score"),
            ] {
                assert!(
                    close(got[ours].as_f64(), item[theirs].as_f64(), EXACT),
                    "{case:?} {ours}"
                );
            }
        }
        let agg = &expected["aggregate"];
        assert!(close(
            overall(&report, "action_similarity"),
            agg["action_sequence_similarity_mean"].as_f64(),
            EXACT
        ));
        assert!(close(
            overall(&report, "parameter_accuracy"),
            agg["parameter_accuracy_mean"].as_f64(),
            EXACT
        ));
        assert!(close(
            overall(&report, "final"),
            agg["final_score_mean"].as_f64(),
            EXACT
        ));
        assert_eq!(report["subsets"][0]["name"], "life");
    }
}

#[test]
fn deep_research_cases() {
    for case in cases("deep_research") {
        let expected = json(&case.join("expected.json"));
        let items = expected["step2_items"].as_array().unwrap();
        let input = json(&case.join("step2_input.json"));
        // The step-2 log as the official run writes it (null where it lost the item).
        let step2: Vec<Value> = input
            .as_array()
            .unwrap()
            .iter()
            .zip(items)
            .map(|(record, out)| match out {
                Value::Object(out) => {
                    let mut record = record.as_object().unwrap().clone();
                    record.extend(out.clone());
                    Value::Object(record)
                }
                _ => Value::Null,
            })
            .collect();
        let tag = case.file_name().unwrap().to_string_lossy().into_owned();
        let file = TempJson::new(&tag, &Value::Array(step2));
        let report = score_json(&[
            "score",
            "sgi-deep-research",
            s(&file.0),
            "--json",
            "--samples",
        ]);
        for item in items.iter().filter(|i| i.is_object()) {
            let got = sample(&report, item["idx"].as_str().unwrap());
            assert!(
                close(
                    got["exact_match"].as_f64(),
                    item["exact_match"].as_f64(),
                    EXACT
                ),
                "{case:?}"
            );
            assert!(
                close(
                    got["step_level_accuracy"].as_f64(),
                    item["step_level_acc"].as_f64(),
                    EXACT
                ),
                "{case:?}"
            );
        }
        let warnings = report["warnings"].as_array().unwrap();
        let nulls = items.iter().filter(|i| i.is_null()).count();
        assert_eq!(
            warnings
                .iter()
                .filter(|w| w["message"].as_str().unwrap().contains("is null"))
                .count(),
            nulls
        );
        if expected["step2_returncode"] == 0 {
            let agg = &expected["aggregate"];
            assert!(
                close(
                    overall(&report, "exact_match"),
                    agg["exact_match_mean"].as_f64(),
                    EXACT
                ),
                "{case:?}"
            );
            assert!(
                close(
                    overall(&report, "step_level_accuracy"),
                    agg["step_level_acc_mean"].as_f64(),
                    EXACT
                ),
                "{case:?}"
            );
        }

        // The step-1 log: exact match only, step-level accuracy null with a warning.
        let report = score_json(&[
            "score",
            "sgi-deep-research",
            s(&case.join("step2_input.json")),
            "--json",
        ]);
        assert_eq!(
            report["overall"]["metrics"]["step_level_accuracy"],
            Value::Null
        );
        assert!(
            report["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|w| w["message"].as_str().unwrap().contains("step-2 log"))
        );
    }
}

#[test]
fn dry_cases() {
    for case in cases("dry_experiment") {
        let expected = json(&case.join("expected.json"));
        let log = case.join("step4_input.json");
        let replies = case.join("mock_judge.json");
        let report = score_json(&[
            "score",
            "sgi-dry",
            s(&log),
            "--judge-replies",
            s(&replies),
            "--json",
            "--samples",
        ]);
        assert_eq!(report["inputs"].as_array().unwrap().len(), 2);
        let input = json(&log);
        for (record, item) in input
            .as_array()
            .unwrap()
            .iter()
            .zip(expected["items"].as_array().unwrap())
        {
            let idx = record["idx"].as_str().unwrap();
            let got = sample(&report, idx);
            if item.is_null() {
                assert!(got["error"].as_str().unwrap().contains("judge"), "{case:?}");
                assert!(
                    report["warnings"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|w| w["message"].as_str().unwrap().starts_with(idx))
                );
                continue;
            }
            assert_eq!(got["pass_nums"], item["pass_nums"], "{case:?} {idx}");
            for (ours, theirs) in [("pass_all_5", "PassAll@5"), ("aet", "AET"), ("ser", "SER")] {
                assert!(
                    close(got[ours].as_f64(), item[theirs].as_f64(), EXACT),
                    "{case:?} {idx} {ours}"
                );
            }
        }
        if expected["returncode"] == 0 {
            for (ours, theirs) in [
                ("pass_all_5", "PassAll@5"),
                ("pass_all_3", "PassAll@3"),
                ("pass_all_1", "PassAll@1"),
                ("aet", "AET"),
                ("ser", "SER"),
            ] {
                let printed: f64 = expected["printed"][theirs]
                    .as_str()
                    .unwrap()
                    .parse()
                    .unwrap();
                assert_eq!(overall(&report, ours), Some(printed), "{case:?} {ours}");
            }
            assert_eq!(report["subsets"][0]["name"], "chemistry");
        }

        // Without the replies, units that need a verdict are reported, never guessed.
        let report = score_json(&["score", "sgi-dry", s(&log), "--json", "--samples"]);
        let needs_judge = std::fs::read_to_string(&replies).unwrap().trim() != "{}";
        let errors = report["samples"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["error"].is_string())
            .count();
        assert_eq!(errors > 0, needs_judge, "{case:?}");
    }
}

#[test]
fn bad_logs_exit_2_naming_the_file() {
    let file = TempJson::new("bad", &serde_json::json!([{"idx": "WE_1", "answer": "x"}]));
    let stderr = score_fails(&["score", "sgi-wet", s(&file.0), "--json"]);
    assert!(
        stderr.contains(s(&file.0)) && stderr.contains("WE_1") && stderr.contains("model_answer"),
        "{stderr}"
    );
    let file = TempJson::new("notarray", &serde_json::json!({"a": 1}));
    let stderr = score_fails(&["score", "sgi-deep-research", s(&file.0), "--json"]);
    assert!(stderr.contains("expected a JSON array"), "{stderr}");
    let stderr = score_fails(&["score", "sgi-dry", "/nonexistent/log.json", "--json"]);
    assert!(stderr.contains("no such file"), "{stderr}");
}

const EMBEDDING: f64 = 1e-9;

/// Per-item and overall scores of `expected.json` against a `sgi-idea` report; `tol_of(key)`.
fn check_idea(case: &Path, report: &Value, expected: &Value, tol_of: impl Fn(&str) -> f64) {
    assert_eq!(report["benchmark"], "sgi-idea");
    let warnings = report["warnings"].as_array().unwrap();
    let mut scored = 0;
    for (n, item) in expected["items"].as_array().unwrap().iter().enumerate() {
        if let Some(err) = item.get("error") {
            let w = warnings
                .iter()
                .find(|w| w["line"] == n + 1)
                .unwrap_or_else(|| panic!("{case:?}: no warning for record {}", n + 1));
            assert!(
                w["message"]
                    .as_str()
                    .unwrap()
                    .contains(err.as_str().unwrap()),
                "{case:?}: {w}"
            );
            continue;
        }
        scored += 1;
        let idx = item["idx"].as_str().unwrap();
        let got = sample(report, idx);
        for dim in ["effectiveness", "novelty", "detailedness", "feasibility"] {
            for key in [
                format!("{dim}_objective"),
                format!("{dim}_subjective"),
                dim.into(),
            ] {
                assert!(
                    close(got[&key].as_f64(), item[&key].as_f64(), tol_of(&key)),
                    "{case:?} {idx} {key}: {} vs {}",
                    got[&key],
                    item[&key]
                );
            }
        }
        assert!(
            close(
                got["final"].as_f64(),
                item["final_score"].as_f64(),
                tol_of("final")
            ),
            "{case:?} {idx} final"
        );
    }
    assert_eq!(report["overall"]["n"], scored, "{case:?}");
    let avg = &expected["meta_evaluation"]["average_scores"];
    for (ours, theirs) in [
        ("final", "final_score"),
        ("effectiveness", "effectiveness"),
        ("novelty", "novelty"),
        ("detailedness", "detailedness"),
        ("feasibility", "feasibility"),
    ] {
        assert!(
            close(overall(report, ours), avg[theirs].as_f64(), tol_of(ours)),
            "{case:?} overall {ours}"
        );
    }
}

#[test]
fn idea_cases() {
    let embedding_tol = |key: &str| {
        if key.starts_with("feasibility") || key.ends_with("_subjective") {
            EXACT
        } else {
            EMBEDDING
        }
    };
    for case in cases("idea_generation") {
        let expected = json(&case.join("expected.json"));
        let step1 = case.join("step2_input.json");
        let table = case.join("embedding_table.json");
        let judges = case.join("mock_llm.json");

        // The step-1 log, recomputed end to end from the embedding table and the judge replies.
        let report = score_json(&[
            "score",
            "sgi-idea",
            s(&step1),
            "--embeddings",
            s(&table),
            "--judge-replies",
            s(&judges),
            "--json",
            "--samples",
        ]);
        check_idea(&case, &report, &expected, embedding_tol);
        let paths: Vec<&str> = report["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["path"].as_str().unwrap())
            .collect();
        assert_eq!(paths, [s(&step1), s(&table), s(&judges)]);
        // Official crashes name the idx.
        let input = json(&step1);
        for (item, record) in expected["items"]
            .as_array()
            .unwrap()
            .iter()
            .zip(input.as_array().unwrap())
        {
            if item.get("error").is_some() {
                let idx = record["idx"].as_str().unwrap();
                assert!(
                    report["warnings"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|w| w["message"].as_str().unwrap().starts_with(idx)),
                    "{case:?} {idx}"
                );
            }
        }

        // The step-2 evaluation log as the official run writes it: its own scores, exactly.
        let merged: Vec<Value> = input
            .as_array()
            .unwrap()
            .iter()
            .zip(expected["items"].as_array().unwrap())
            .map(|(record, out)| {
                if out.get("error").is_some() {
                    return out.clone();
                }
                let mut record = record.as_object().unwrap().clone();
                record.extend(out.as_object().unwrap().clone());
                Value::Object(record)
            })
            .collect();
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let step2 = TempJson::new(&format!("idea-{name}"), &Value::Array(merged));
        let report = score_json(&["score", "sgi-idea", s(&step2.0), "--json", "--samples"]);
        check_idea(&case, &report, &expected, |_| EXACT);
        // With the table, the embedding-derived objectives are recomputed (to 1e-9).
        let report = score_json(&[
            "score",
            "sgi-idea",
            s(&step2.0),
            "--embeddings",
            s(&table),
            "--json",
            "--samples",
        ]);
        check_idea(&case, &report, &expected, embedding_tol);

        // The step-1 log alone: no subjective scores, no embeddings → no final score, warnings say why.
        let report = score_json(&["score", "sgi-idea", s(&step1), "--json"]);
        assert_eq!(
            report["overall"]["metrics"]["final"],
            Value::Null,
            "{case:?}"
        );
        let messages: Vec<&str> = report["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["message"].as_str().unwrap())
            .collect();
        assert!(
            messages.iter().any(|m| m.contains("no embedding table")),
            "{messages:?}"
        );
        assert!(
            messages.iter().any(|m| m.contains("no subjective scores")),
            "{messages:?}"
        );
    }
}

#[test]
fn idea_bad_inputs_exit_2() {
    let case = dir("idea_generation").join("idea_01_json_full_win");
    let step1 = case.join("step2_input.json");
    let bad = TempJson::new(
        "idea-bad-table",
        &serde_json::json!({"text": "not a vector"}),
    );
    let stderr = score_fails(&[
        "score",
        "sgi-idea",
        s(&step1),
        "--embeddings",
        s(&bad.0),
        "--json",
    ]);
    assert!(
        stderr.contains(s(&bad.0)) && stderr.contains("array of numbers"),
        "{stderr}"
    );
    let stderr = score_fails(&[
        "score",
        "sgi-idea",
        s(&step1),
        "--judge-replies",
        "/nonexistent/judges.json",
        "--json",
    ]);
    assert!(stderr.contains("no such file"), "{stderr}");
}

#[test]
fn reasoning_case_mca_and_rv_per_item_and_overall() {
    for case in cases("experimental_reasoning") {
        let expected = json(&case.join("expected.json"));
        let log = case.join("step2_input.json");
        let replies = case.join("mock_judge.json");
        let report = score_json(&[
            "score",
            "sgi-reasoning",
            s(&log),
            "--judge-replies",
            s(&replies),
            "--json",
            "--samples",
        ]);
        assert_eq!(report["benchmark"], "sgi-reasoning");
        assert_eq!(report["subsets"].as_array().unwrap().len(), 0, "{case:?}");
        let items = expected["items"].as_array().unwrap();
        assert_eq!(report["samples"].as_array().unwrap().len(), items.len());
        for item in items {
            let idx = item["idx"].as_str().unwrap();
            let got = sample(&report, idx);
            for (key, ours) in [("MCA", "mca"), ("RV", "rv")] {
                assert!(
                    close(got[ours].as_f64(), item[key].as_f64(), EXACT),
                    "{case:?} {idx} {key}: {} vs {}",
                    got[ours],
                    item[key]
                );
            }
        }
        // The official prints full-precision Python floats: compare them bit for bit.
        for (key, ours) in [("MCA", "mca"), ("RV", "rv")] {
            let printed: f64 = expected["printed"][key].as_str().unwrap().parse().unwrap();
            assert_eq!(overall(&report, ours), Some(printed), "{case:?} {key}");
        }

        // Without the judge's replies RV is not computed, and the report says why.
        let report = score_json(&["score", "sgi-reasoning", s(&log), "--json"]);
        assert_eq!(report["overall"]["metrics"]["rv"], Value::Null);
        let printed: f64 = expected["printed"]["MCA"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(overall(&report, "mca"), Some(printed));
        assert!(
            report["warnings"][0]["message"]
                .as_str()
                .unwrap()
                .contains("judge"),
            "{report}"
        );
    }
}

#[test]
fn reasoning_bad_logs_exit_2_naming_the_record() {
    let file = TempJson::new(
        "er-bad",
        &serde_json::json!([{"idx": "ER_9", "answer": "x", "options": [], "model_answer": "\\boxed{A}"}]),
    );
    let stderr = score_fails(&["score", "sgi-reasoning", s(&file.0), "--json"]);
    assert!(
        stderr.contains(s(&file.0)) && stderr.contains("ER_9") && stderr.contains("answer"),
        "{stderr}"
    );
}

#[test]
fn sgi_score_crash_cases_exit_2_naming_the_record() {
    for case in cases("sgi_score") {
        let expected = json(&case.join("expected.json"));
        assert_ne!(expected["returncode"], 0, "{case:?}");
        // "KeyError: 'effectiveness'" → "KeyError"; "TypeError: …" → "TypeError".
        let error = expected["error"].as_str().unwrap();
        let kind = error.split(':').next().unwrap();
        let input = case.join("input.json");
        let stderr = score_fails(&["score", "sgi-score", s(&input), "--json"]);
        assert!(
            stderr.contains(s(&input)) && stderr.contains(kind) && stderr.contains("record"),
            "{case:?}: {stderr}"
        );
        assert!(
            stderr.contains(error.split(": ").nth(1).unwrap()),
            "{case:?}: {stderr}"
        );
    }
    // The record each case breaks on.
    let stderr = score_fails(&[
        "score",
        "sgi-score",
        s(&dir("sgi_score").join("sgi_02_idea_error_record_crash/input.json")),
    ]);
    assert!(
        stderr.contains("task_2_idea_generation") && stderr.contains("record 3"),
        "{stderr}"
    );
    let stderr = score_fails(&[
        "score",
        "sgi-score",
        s(&dir("sgi_score").join("sgi_03_null_item_crash/input.json")),
    ]);
    assert!(
        stderr.contains("task_1_deep_research") && stderr.contains("record 33"),
        "{stderr}"
    );
}

/// What the official `evaluation/sgi_score.py` (InternScience/SGI-Bench 8268d43, run unmodified,
/// Python 3.11 with a stand-in `tqdm`) printed for `sgi_02`'s input without its idea error record
/// (record 3). Every mean involved but SLA has `sum == math.fsum`; SLA prints 32.29 as in the
/// golden case's own (Python 3.13) stdout.
const SGI_SCORE_STDOUT: &str = "Evaluating test-model in ['all']
Deep Research
Exact Match (EM): 3.12
Step Level Acc (SLA): 32.29

Idea Generation
Effectiveness: 40.5
Novelty: 52.75
Detailedness: 65.12
Feasibility: 36.65
Final Score: 45.12

Dry Experiment
PassAll@5: 37.5
PassAll@3: 62.5
PassAll@1: 87.5
Average Execution Time (AET): 2.41
Smooth Execution Rate (SER): 50.0

Wet Experiment
Action Sequence Similarity (SS): 55.56
Parameter Accuracy (PA): 61.11
Final Score: 58.33

Experimental Reasoning
Multi-Choice Accuracy (MCA): 66.67
Reasoning Validity (RV): 50.0

SGI_Score: 42.15
";

#[test]
fn sgi_score_matches_the_official_print_from_one_input_or_five_logs() {
    // The printed numbers in print order, and the report keys they belong to.
    let keys = [
        "deep_research",
        "deep_research_sla",
        "idea_effectiveness",
        "idea_novelty",
        "idea_detailedness",
        "idea_feasibility",
        "idea_generation",
        "dry_experiment",
        "dry_pass_all_3",
        "dry_pass_all_1",
        "dry_aet",
        "dry_ser",
        "wet_action_sequence_similarity",
        "wet_parameter_accuracy",
        "wet_experiment",
        "experimental_reasoning",
        "reasoning_rv",
        "sgi_score",
    ];
    let printed: Vec<f64> = SGI_SCORE_STDOUT
        .lines()
        .skip(1)
        .filter_map(|l| l.rsplit_once(": "))
        .map(|(_, v)| v.parse().unwrap())
        .collect();
    assert_eq!(printed.len(), keys.len());

    let mut input = json(&dir("sgi_score").join("sgi_02_idea_error_record_crash/input.json"));
    let idea_key = "task_2_idea_generation/logs (_evaluation.json)";
    input[idea_key].as_array_mut().unwrap().truncate(2);
    let file = TempJson::new("sgi-score-ok", &input);
    let report = score_json(&["score", "sgi-score", s(&file.0), "--json", "--samples"]);
    assert_eq!(report["benchmark"], "sgi-score");
    for (key, want) in keys.iter().zip(&printed) {
        if *key == "sgi_score" {
            // sgi_score.py keeps the mean and only formats it with `:.2f`: the report holds the
            // mean itself, what Python computes for the five printed headlines.
            let mean = overall(&report, key).unwrap();
            assert_eq!(
                mean, 42.148,
                "Python: (3.12 + 45.12 + 37.5 + 58.33 + 66.67) / 5"
            );
            assert_eq!(
                format!("{mean:.2}"),
                format!("{want:.2}"),
                "{key} as printed"
            );
            continue;
        }
        assert_eq!(overall(&report, key), Some(*want), "{key}");
    }
    assert_eq!(report["samples"].as_array().unwrap().len(), 5);

    // The same logs as five files.
    let tasks = [
        ("deep-research", "task_1_deep_research/logs"),
        ("idea", idea_key),
        ("dry", "task_3_dry_experiment/logs"),
        ("wet", "task_3_wet_experiment/logs"),
        ("reasoning", "task_4_experimental_reasoning/logs"),
    ];
    let files: Vec<(String, TempJson)> = tasks
        .iter()
        .map(|(opt, key)| (format!("--{opt}"), TempJson::new(opt, &input[*key])))
        .collect();
    let mut args = vec!["score", "sgi-score", "--json"];
    for (opt, file) in &files {
        args.push(opt);
        args.push(s(&file.0));
    }
    let from_logs = score_json(&args);
    assert_eq!(from_logs["overall"], report["overall"]);
    assert_eq!(from_logs["inputs"].as_array().unwrap().len(), 5);

    // A null record in a separate log: exit 2 naming that file and record number.
    let mut dr = input["task_1_deep_research/logs"].clone();
    dr.as_array_mut().unwrap().push(Value::Null);
    let bad = TempJson::new("dr-null", &dr);
    args[4] = s(&bad.0);
    let stderr = score_fails(&args);
    assert!(
        stderr.contains(&format!("{}:33:", s(&bad.0))) && stderr.contains("TypeError"),
        "{stderr}"
    );
}

/// Five logs instead of one input: a missing flag is said before any file is opened (even a
/// missing one), and a file that cannot be opened comes before another log's syntax error.
#[test]
fn sgi_score_five_logs_report_the_usage_then_the_files_own_errors_first() {
    let dir = std::env::temp_dir().join(format!("scorebench-sgi5-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let broken = dir.join("broken.json");
    std::fs::write(&broken, "[{\"a\": ").unwrap();
    let missing = dir.join("missing.json");
    let (b, m) = (s(&broken), s(&missing));
    let stderr = score_fails(&[
        "score",
        "sgi-score",
        "--deep-research",
        m,
        "--idea",
        b,
        "--dry",
        b,
        "--wet",
        b,
    ]);
    assert!(stderr.contains("--reasoning"), "{stderr}");
    assert!(!stderr.contains("missing.json"), "nothing opened: {stderr}");
    let stderr = score_fails(&[
        "score",
        "sgi-score",
        "--deep-research",
        b,
        "--idea",
        b,
        "--dry",
        b,
        "--wet",
        b,
        "--reasoning",
        m,
    ]);
    assert!(
        stderr.contains("missing.json"),
        "the file that cannot be opened first: {stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
