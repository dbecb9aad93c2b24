//! Logs made by the real tools (`tests/imports/`, `scripts/make-import-fixtures.sh`) through the
//! real CLI: every number equals, bit for bit, the one the tool wrote (its `numbers.json`), both
//! as read from the tool's results file and as recomputed from the per-sample rows.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{score_fails, score_json};

fn imports() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/imports")
}

fn numbers(tool: &str) -> Value {
    let text = std::fs::read_to_string(imports().join(tool).join("numbers.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn files_in(dir: &Path, prefix: &str, suffix: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_str().unwrap();
            name.starts_with(prefix) && name.ends_with(suffix)
        })
        .map(|p| p.to_str().unwrap().to_string())
        .collect();
    out.sort();
    out
}

/// The f64 of a JSON number, compared by bits.
fn bits(v: &Value) -> Option<u64> {
    v.as_f64().map(f64::to_bits)
}

fn subset<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["subsets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no subset {name} in {report}"))
}

fn no_warnings(report: &Value) {
    assert_eq!(report["warnings"], Value::Array(vec![]), "{report}");
}

#[test]
fn lm_eval_runs_give_the_harness_numbers_from_results_and_from_samples() {
    let expected = numbers("lm-eval");
    let runs = expected["runs"].as_object().unwrap();
    assert_eq!(runs.len(), 2);
    for (run, tasks) in runs {
        let dir = imports().join("lm-eval").join(run);
        let results = files_in(&dir, "results_", ".json");
        let samples = files_in(&dir, "samples_", ".jsonl");
        assert_eq!((results.len(), samples.len()), (1, 2));
        let mut args = vec!["score", "lm-eval", "--json"];
        args.extend(results.iter().map(String::as_str));
        args.extend(samples.iter().map(String::as_str));
        let report = score_json(&args);
        no_warnings(&report); // every task and group number recomputed from the samples agrees
        let mut checked = 0;
        for (task, metrics) in tasks.as_object().unwrap() {
            for (key, value) in metrics.as_object().unwrap() {
                assert_eq!(
                    bits(&subset(&report, task)["metrics"][key]),
                    bits(value),
                    "{run} {task} {key}"
                );
                checked += 1;
            }
        }
        assert_eq!(checked, 12); // 3 entries × acc, acc_norm × value, stderr
        // The group is the overall row.
        assert_eq!(
            bits(&report["overall"]["metrics"]["acc,none"]),
            bits(&tasks["arith_mc"]["acc,none"])
        );
        // Samples only: the tasks recomputed from the rows are the harness's numbers.
        let mut args = vec!["score", "lm-eval", "--json"];
        args.extend(samples.iter().map(String::as_str));
        let report = score_json(&args);
        for task in ["arith_mc_easy", "arith_mc_hard"] {
            for (key, value) in tasks[task].as_object().unwrap() {
                assert_eq!(
                    bits(&subset(&report, task)["metrics"][key]),
                    bits(value),
                    "{run} {task} {key} from samples"
                );
            }
            assert_eq!(subset(&report, task)["n"], 18);
        }
    }
}

#[test]
fn inspect_logs_give_inspects_numbers_for_eval_and_json() {
    let expected = numbers("inspect");
    let logs = expected["logs"].as_object().unwrap();
    assert_eq!(logs.len(), 3);
    for (file, scorers) in logs {
        let path = imports().join("inspect").join(file);
        let report = score_json(&[
            "score",
            "inspect",
            path.to_str().unwrap(),
            "--json",
            "--samples",
        ]);
        no_warnings(&report); // accuracy, mean and stderr recomputed from the reductions agree
        for (scorer, metrics) in scorers.as_object().unwrap() {
            for (metric, value) in metrics.as_object().unwrap() {
                assert_eq!(
                    bits(&subset(&report, scorer)["metrics"][metric]),
                    bits(value),
                    "{file} {scorer} {metric}"
                );
            }
        }
        // The headline (first) scorer is the overall row; samples per id and epoch.
        assert_eq!(
            bits(&report["overall"]["metrics"]["accuracy"]),
            bits(&scorers["match"]["accuracy"])
        );
        let samples = report["samples"].as_array().unwrap().len();
        assert_eq!(samples, if file.ends_with(".eval") { 32 } else { 6 });
        // abs_error is NaN (unscored) where the reply has no number: left out, as Inspect does.
        let unscored = report["samples"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["abs_error_value"].is_null())
            .count();
        assert!(unscored > 0, "{file}");
    }
}

#[test]
fn evalscope_runs_give_evalscopes_numbers_from_report_and_from_reviews() {
    let expected = numbers("evalscope");
    let runs = expected["runs"].as_object().unwrap();
    assert_eq!(runs.len(), 2);
    for (model, metrics) in runs {
        let dir = imports().join("evalscope").join(model);
        let report_file = dir.join(format!("reports/{model}/general_mcq.json"));
        let reviews = files_in(
            &dir.join(format!("reviews/{model}")),
            "general_mcq_",
            ".jsonl",
        );
        assert_eq!(reviews.len(), 2);
        let mut args = vec![
            "score",
            "evalscope",
            "--json",
            report_file.to_str().unwrap(),
        ];
        args.extend(reviews.iter().map(String::as_str));
        let with_report = score_json(&args);
        no_warnings(&with_report); // subsets, category and metric recomputed from the reviews agree
        let mut args = vec!["score", "evalscope", "--json"];
        args.extend(reviews.iter().map(String::as_str));
        let from_reviews = score_json(&args);
        for metric in metrics.as_array().unwrap() {
            let name = metric["name"].as_str().unwrap();
            for report in [&with_report, &from_reviews] {
                assert_eq!(
                    bits(&report["overall"]["metrics"][name]),
                    bits(&metric["score"]),
                    "{model} {name}"
                );
                assert_eq!(
                    bits(&report["overall"]["metrics"][format!("{name}_macro")]),
                    bits(&metric["macro_score"]),
                    "{model} {name} macro"
                );
                for s in metric["categories"][0]["subsets"].as_array().unwrap() {
                    let subset_name = s["name"].as_str().unwrap();
                    let got = subset(report, subset_name);
                    assert_eq!(
                        bits(&got["metrics"][name]),
                        bits(&s["score"]),
                        "{model} {subset_name}"
                    );
                    assert_eq!(got["n"], s["num"]);
                }
            }
        }
    }
}

#[test]
fn broken_import_files_name_the_file_and_line() {
    let dir = tempdir();
    let bad = dir.join("samples_t_2026-01-01T00-00-00.000000.jsonl");
    std::fs::write(
        &bad,
        "{\"doc_id\": 0, \"metrics\": [\"acc\"], \"acc\": 1}\n{\"doc_id\": \n",
    )
    .unwrap();
    let stderr = score_fails(&["score", "lm-eval", bad.to_str().unwrap()]);
    assert!(stderr.contains(".jsonl:2:"), "{stderr}");
    let cut = dir.join("cut.eval");
    let whole = std::fs::read(imports().join("inspect/model-a.eval")).unwrap();
    std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
    let stderr = score_fails(&["score", "inspect", cut.to_str().unwrap()]);
    assert!(
        stderr.contains("cut.eval") && stderr.contains("ZIP"),
        "{stderr}"
    );
    let not_report = dir.join("general_mcq.json");
    std::fs::write(&not_report, "{\"metrics\": 3}").unwrap();
    let stderr = score_fails(&["score", "evalscope", not_report.to_str().unwrap()]);
    assert!(stderr.contains("general_mcq.json:1:"), "{stderr}");
}

/// A 64 KB `.eval` whose `header.json` inflates to 64 MiB (`tests/hostile/bomb.eval`): refused
/// before anything is inflated, the message naming the file and the entry.
#[test]
fn a_zip_bomb_is_refused_naming_the_entry() {
    let bomb = imports().join("../hostile/bomb.eval");
    let stderr = score_fails(&["score", "inspect", bomb.to_str().unwrap()]);
    assert!(
        stderr.contains("bomb.eval")
            && stderr.contains("ZIP entry header.json: inflates to 67108939 bytes")
            && stderr.contains("zip bomb"),
        "{stderr}"
    );
}

fn tempdir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("scorebench-imports-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
