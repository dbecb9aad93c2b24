//! `scorebench run sgi-deep-research|sgi-dry` (the real binary) against the mock upstream
//! answering each golden case's judge replies (keyed by the official prompt): the written log,
//! scored by `scorebench score sgi-…`, gives the case's expected values; a second run answers
//! every readable reply from the cache; judge usage is reported under role judge.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};
use workbench::benchmarks::sgibench::run as sgi;

use crate::mock_upstream::MockUpstream;
use crate::proxy::temp_dir;
use crate::run_msqa::{scorebench_cmd, write_config};
use crate::support::{close, score_json};

const EXACT: f64 = 1e-12;

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn cases(task: &str) -> Vec<PathBuf> {
    testkit::case_dirs(&format!("sgibench/{task}"))
        .into_iter()
        .filter(|p| !testkit::name(p).contains("_units_"))
        .collect()
}

/// A golden judge reply as a mock table entry.
fn entry(reply: &Value) -> Value {
    match reply {
        Value::String(text) => {
            json!({"content": text, "reasoning_content": null, "finish_reason": "stop", "completion_tokens": 5})
        }
        Value::Object(o) if o.contains_key("raise") => reply.clone(),
        Value::Object(o) => {
            json!({"content": o.get("content").cloned().unwrap_or(Value::Null), "reasoning_content": null, "finish_reason": "stop", "completion_tokens": 5})
        }
        other => panic!("unexpected mock reply {other}"),
    }
}

fn run(task: &str, log: &Path, mock: &MockUpstream, dir: &Path) -> Output {
    let config = write_config(dir, mock);
    let db = dir.join("db.sqlite3");
    let out = dir.join("out");
    let output = scorebench_cmd(&[
        "run",
        task,
        "--config",
        config.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--log",
        log.to_str().unwrap(),
        "--judge-model",
        "judge-model",
        "--out",
        out.to_str().unwrap(),
        "--workers",
        "3",
    ])
    .output()
    .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn last_progress_line(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .rfind(|l| l.starts_with("sgi-"))
        .unwrap()
        .to_string()
}

fn sample<'a>(report: &'a Value, idx: &str) -> &'a Value {
    report["samples"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["idx"] == idx)
        .unwrap_or_else(|| panic!("no sample {idx}"))
}

/// Run twice: (the first run's output, the table keys that must not be asked again).
fn run_twice(task: &str, log: &Path, table: HashMap<String, Value>, tag: &str) -> PathBuf {
    let answered: Vec<String> = table
        .iter()
        .filter(|(_, v)| v.get("raise").is_none())
        .map(|(k, _)| k.clone())
        .collect();
    let n = table.len();
    let mock = MockUpstream::start(table);
    let dir = temp_dir(tag);
    let first = run(task, log, &mock, &dir);
    let line = last_progress_line(&first);
    assert!(
        line.contains(", 0 calls, 0 cache hits"),
        "model usage: {line}"
    );
    if n > 0 {
        assert!(line.contains("; judge: "), "judge usage apart: {line}");
    }
    for key in &answered {
        assert_eq!(mock.calls_for(key), 1, "{tag}");
    }
    let out_log = dir.join("out").join(log.file_name().unwrap());
    let written = std::fs::read(&out_log).unwrap();
    let second = run(task, log, &mock, &dir);
    for key in &answered {
        assert_eq!(mock.calls_for(key), 1, "{tag}: asked again");
    }
    if !answered.is_empty() {
        let line = last_progress_line(&second);
        assert!(
            line.contains(&format!("{} cache hits", answered.len())),
            "{line}"
        );
    }
    assert_eq!(std::fs::read(&out_log).unwrap(), written, "{tag}");
    out_log
}

#[test]
fn deep_research_judged_through_the_gateway() {
    for case in cases("deep_research") {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let log = case.join("step2_input.json");
        let mock_llm = read_json(&case.join("mock_llm.json"));
        let mut table = HashMap::new();
        for record in read_json(&log).as_array().unwrap() {
            let steps: Vec<&str> = record["steps"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap())
                .collect();
            let prompt = sgi::deep_research_prompt(
                record["question"].as_str().unwrap(),
                &steps,
                record["answer"].as_str().unwrap(),
                record["model_answer_with_thinking"].as_str().unwrap(),
                record["model_answer"].as_str().unwrap(),
            );
            let idx = record["idx"].as_str().unwrap();
            table.insert(prompt, entry(&mock_llm[idx]["judge_output"]));
        }
        let out_log = run_twice("sgi-deep-research", &log, table, &format!("sgi-dr-{name}"));
        let written = read_json(&out_log);
        let expected = read_json(&case.join("expected.json"));
        let report = score_json(&[
            "score",
            "sgi-deep-research",
            out_log.to_str().unwrap(),
            "--json",
            "--samples",
        ]);
        let items = expected["step2_items"].as_array().unwrap();
        for (ours, theirs) in written.as_array().unwrap().iter().zip(items) {
            let idx = ours["idx"].as_str().unwrap();
            let got = sample(&report, idx);
            if theirs.is_null() {
                // The official run lost the item: ours keeps it with a null judge.
                assert_eq!(ours["llm_judge"], Value::Null, "{name} {idx}");
                assert_eq!(got["step_level_accuracy"], Value::Null, "{name} {idx}");
                continue;
            }
            for key in ["exact_match", "step_level_acc", "llm_judge"] {
                assert_eq!(ours[key], theirs[key], "{name} {idx} {key}");
            }
            assert!(close(
                got["step_level_accuracy"].as_f64(),
                theirs["step_level_acc"].as_f64(),
                EXACT
            ));
        }
        if expected["step2_returncode"] == 0 {
            let agg = &expected["aggregate"];
            for (ours, theirs) in [
                ("exact_match", "exact_match_mean"),
                ("step_level_accuracy", "step_level_acc_mean"),
            ] {
                assert!(
                    close(
                        report["overall"]["metrics"][ours].as_f64(),
                        agg[theirs].as_f64(),
                        EXACT
                    ),
                    "{name} {ours}"
                );
            }
        }
    }
}

#[test]
fn dry_units_judged_through_the_gateway() {
    for case in cases("dry_experiment") {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let log = case.join("step4_input.json");
        let mock_judge = read_json(&case.join("mock_judge.json"));
        let records = read_json(&log);
        let mut table = HashMap::new();
        for record in records.as_array().unwrap() {
            let idx = record["idx"].as_str().unwrap();
            let Some(units) = mock_judge.get(idx).and_then(Value::as_object) else {
                continue;
            };
            for (k, reply) in units {
                let k: usize = k.parse().unwrap();
                let prompt = sgi::dry_prompt(
                    &sgi::python_str(&record[format!("unit_test_{k}_output")]).unwrap(),
                    &sgi::python_str(&record["unit_test"][k]["model_code_output"]).unwrap(),
                );
                table.insert(prompt, entry(reply));
            }
        }
        let out_log = run_twice("sgi-dry", &log, table, &format!("sgi-dry-{name}"));
        let written = read_json(&out_log);
        let expected = read_json(&case.join("expected.json"));
        let report = score_json(&[
            "score",
            "sgi-dry",
            out_log.to_str().unwrap(),
            "--json",
            "--samples",
        ]);
        for (ours, theirs) in written
            .as_array()
            .unwrap()
            .iter()
            .zip(expected["items"].as_array().unwrap())
        {
            let idx = ours["idx"].as_str().unwrap();
            let got = sample(&report, idx);
            if theirs.is_null() {
                assert!(
                    got["error"].as_str().unwrap().contains("judge"),
                    "{name} {idx}"
                );
                assert!(ours.get("pass_nums").is_none(), "{name} {idx}");
                continue;
            }
            for k in 0..5 {
                for key in ["exact_match", "pass", "llm_judge"] {
                    assert_eq!(
                        ours["unit_test"][k][key], theirs["unit_test"][k][key],
                        "{name} {idx} unit {k} {key}"
                    );
                }
            }
            for key in [
                "pass_nums",
                "PassAll@5",
                "PassAll@3",
                "PassAll@1",
                "AET",
                "SER",
            ] {
                assert_eq!(ours[key], theirs[key], "{name} {idx} {key}");
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
                assert_eq!(
                    report["overall"]["metrics"][ours].as_f64(),
                    Some(printed),
                    "{name} {ours}"
                );
            }
        }
        // The raw replies file reads the same through `--judge-replies`.
        let replies = out_log.parent().unwrap().join("judge_replies.json");
        let again = score_json(&[
            "score",
            "sgi-dry",
            log.to_str().unwrap(),
            "--judge-replies",
            replies.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(again["overall"], report["overall"], "{name}");
    }
}
