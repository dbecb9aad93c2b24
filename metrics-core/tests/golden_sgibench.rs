//! SGI-Bench golden vectors (`tests/golden/sgibench`, produced by the official code) through
//! the metrics-core API: unit vectors and whole logs.

// Helpers outside #[test] fns unwrap too: a failed unwrap here is a failed golden test.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use metrics_core::sgibench::{deep_research, dry, reasoning, sgi_score, wet};
use serde_json::Value;

const EXACT: f64 = 1e-12;

fn golden(rel: &str) -> PathBuf {
    testkit::path("sgibench").join(rel)
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(golden(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn json(rel: &str) -> Value {
    serde_json::from_str(&read(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn cases(dir: &str) -> Vec<String> {
    testkit::case_dirs(&format!("sgibench/{dir}"))
        .iter()
        .map(|p| testkit::name(p))
        .filter(|n| !n.contains("_units_"))
        .collect()
}

fn assert_close(actual: f64, expected: f64, tol: f64, what: &str) {
    assert!(
        (actual - expected).abs() <= tol,
        "{what}: got {actual:?}, expected {expected:?}"
    );
}

fn sample<'a>(report: &'a metrics_core::Report, idx: &str) -> &'a Value {
    report
        .samples
        .as_ref()
        .unwrap()
        .iter()
        .find(|s| s["idx"] == idx)
        .unwrap_or_else(|| panic!("no sample {idx}"))
}

#[test]
fn wet_units_parser_matches_official() {
    let input = json("wet_experiment/wet_units_parser_and_comparator/input.json");
    let expected = json("wet_experiment/wet_units_parser_and_comparator/expected.json");
    let texts = input["texts"].as_object().unwrap();
    for (name, text) in texts {
        let parsed = wet::parse_steps(text.as_str().unwrap());
        let want: Vec<wet::Step> =
            serde_json::from_value(expected["parsed"][name].clone()).unwrap();
        assert_eq!(parsed, want, "parse {name}");
        // Key order is part of the official dict.
        for (p, w) in parsed.iter().zip(&want) {
            assert!(p.input.keys().eq(w.input.keys()), "key order {name}");
        }
    }
    for cmp in expected["comparisons"].as_array().unwrap() {
        let (g, p) = (cmp["gt"].as_str().unwrap(), cmp["pred"].as_str().unwrap());
        let result = wet::compare_steps(
            &wet::parse_steps(texts[g].as_str().unwrap()),
            &wet::parse_steps(texts[p].as_str().unwrap()),
        );
        let what = format!("{g} vs {p}");
        assert_close(
            result.action_similarity,
            cmp["order_similarity"].as_f64().unwrap(),
            EXACT,
            &what,
        );
        assert_close(
            result.parameter_accuracy.unwrap(),
            cmp["parameter_acc"].as_f64().unwrap(),
            EXACT,
            &what,
        );
        let statuses: Vec<bool> = cmp["step_status"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s[1].as_str().unwrap().contains("success"))
            .collect();
        let ours: Vec<bool> = result
            .details
            .iter()
            .map(|s| *s == wet::StepStatus::Success)
            .collect();
        assert_eq!(ours, statuses, "{what}");
    }
}

#[test]
fn wet_logs_match_official() {
    for case in cases("wet_experiment") {
        let dir = format!("wet_experiment/{case}");
        let expected = json(&format!("{dir}/expected.json"));
        let report = wet::score_log("log.json", &read(&format!("{dir}/step2_input.json"))).unwrap();
        if expected["step2_returncode"] != 0 {
            // The official run crashed: every item must carry a clear error and a warning.
            for s in report.samples.as_ref().unwrap() {
                let err = s["error"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{case}: no error in {s}"));
                assert!(err.contains("zero steps"), "{case}: {err}");
                assert!(
                    report
                        .warnings
                        .iter()
                        .any(|w| w.message.contains(s["idx"].as_str().unwrap()))
                );
            }
            assert_eq!(report.overall.n, 0, "{case}");
            continue;
        }
        for item in expected["step2_items"].as_array().unwrap() {
            let s = sample(&report, item["idx"].as_str().unwrap());
            for (ours, theirs) in [
                ("action_similarity", "action_sequence_similarity"),
                ("parameter_accuracy", "parameter_accuracy"),
                ("final", "final_score"),
            ] {
                assert_close(
                    s[ours].as_f64().unwrap(),
                    item[theirs].as_f64().unwrap(),
                    EXACT,
                    &format!("{case} {ours}"),
                );
            }
        }
        let agg = &expected["aggregate"];
        for (ours, theirs) in [
            ("action_similarity", "action_sequence_similarity_mean"),
            ("parameter_accuracy", "parameter_accuracy_mean"),
            ("final", "final_score_mean"),
        ] {
            let got = report.metric("overall", ours).unwrap().as_scalar().unwrap();
            assert_close(
                got,
                agg[theirs].as_f64().unwrap(),
                EXACT,
                &format!("{case} overall {ours}"),
            );
        }
        // Printed values are Python reprs: bit-for-bit.
        let ss = report
            .metric("overall", "action_similarity")
            .unwrap()
            .as_scalar()
            .unwrap();
        assert_eq!(
            format!("{ss:?}"),
            agg["action_sequence_similarity_printed"].as_str().unwrap(),
            "{case}"
        );
        let pa = report
            .metric("overall", "parameter_accuracy")
            .unwrap()
            .as_scalar()
            .unwrap();
        assert_eq!(
            format!("{pa:?}"),
            agg["parameter_accuracy_printed"].as_str().unwrap(),
            "{case}"
        );
        assert_eq!(report.subsets.len(), 1, "{case}: one discipline");
    }
}

/// The step-2 log the official run writes: the step-1 records with the expected step-2 fields
/// merged in, `null` where the official thread pool lost the item. With `judge_null_items`, a
/// lost item is instead kept with `"llm_judge": null` (what its record held when it crashed).
fn deep_research_step2_log(dir: &str, judge_null_items: bool) -> String {
    let input = json(&format!("{dir}/step2_input.json"));
    let expected = json(&format!("{dir}/expected.json"));
    let merged: Vec<Value> = input
        .as_array()
        .unwrap()
        .iter()
        .zip(expected["step2_items"].as_array().unwrap())
        .map(|(record, out)| match out {
            Value::Object(out) => {
                let mut record = record.as_object().unwrap().clone();
                record.extend(out.clone());
                Value::Object(record)
            }
            _ if judge_null_items => {
                let mut record = record.as_object().unwrap().clone();
                record.insert("llm_judge".into(), Value::Null);
                Value::Object(record)
            }
            _ => Value::Null,
        })
        .collect();
    serde_json::to_string(&merged).unwrap()
}

#[test]
fn deep_research_logs_match_official() {
    for case in cases("deep_research") {
        let dir = format!("deep_research/{case}");
        let expected = json(&format!("{dir}/expected.json"));
        let crashed = expected["step2_returncode"] != 0;
        let items = expected["step2_items"].as_array().unwrap();

        // Step-1 log: exact match only.
        let report =
            deep_research::score_log("step1.json", &read(&format!("{dir}/step2_input.json")))
                .unwrap();
        assert!(
            report
                .warnings
                .iter()
                .any(|w| w.message.contains("step-2 log")),
            "{case}"
        );
        assert_eq!(
            report
                .metric("overall", "step_level_accuracy")
                .unwrap()
                .as_scalar(),
            None,
            "{case}"
        );
        for item in items.iter().filter(|i| i.is_object()) {
            let s = sample(&report, item["idx"].as_str().unwrap());
            assert_eq!(
                s["exact_match"].as_f64().unwrap(),
                item["exact_match"].as_f64().unwrap(),
                "{case}"
            );
        }

        // Step-2 log, as written by the official run.
        let report =
            deep_research::score_log("step2.json", &deep_research_step2_log(&dir, false)).unwrap();
        for item in items.iter().filter(|i| i.is_object()) {
            let s = sample(&report, item["idx"].as_str().unwrap());
            assert_eq!(
                s["exact_match"].as_f64().unwrap(),
                item["exact_match"].as_f64().unwrap(),
                "{case}"
            );
            assert_close(
                s["step_level_accuracy"].as_f64().unwrap(),
                item["step_level_acc"].as_f64().unwrap(),
                EXACT,
                &format!("{case} sla"),
            );
        }
        let nulls = items.iter().filter(|i| i.is_null()).count();
        assert_eq!(report.overall.n, items.len() - nulls, "{case}");
        assert_eq!(
            report
                .warnings
                .iter()
                .filter(|w| w.message.contains("is null"))
                .count(),
            nulls,
            "{case}"
        );
        if !crashed {
            let agg = &expected["aggregate"];
            let em = report
                .metric("overall", "exact_match")
                .unwrap()
                .as_scalar()
                .unwrap();
            let sla = report
                .metric("overall", "step_level_accuracy")
                .unwrap()
                .as_scalar()
                .unwrap();
            assert_eq!(
                format!("{em:?}"),
                agg["exact_match_printed"].as_str().unwrap(),
                "{case}"
            );
            assert_eq!(
                format!("{sla:?}"),
                agg["step_level_acc_printed"].as_str().unwrap(),
                "{case}"
            );
            assert!(report.warnings.is_empty(), "{case}: {:?}", report.warnings);
        }

        // The crashed items kept with `llm_judge: null`: a warning names each one.
        if crashed {
            let report =
                deep_research::score_log("step2.json", &deep_research_step2_log(&dir, true))
                    .unwrap();
            let input = json(&format!("{dir}/step2_input.json"));
            for (record, out) in input.as_array().unwrap().iter().zip(items) {
                if out.is_null() {
                    let idx = record["idx"].as_str().unwrap();
                    assert!(
                        report.warnings.iter().any(|w| w.message.starts_with(idx)
                            && w.message.contains("judge unreadable")),
                        "{case}: {idx}: {:?}",
                        report.warnings
                    );
                    assert_eq!(sample(&report, idx)["step_level_accuracy"], Value::Null);
                }
            }
        }
    }
}

#[test]
fn dry_logs_match_official() {
    for case in cases("dry_experiment") {
        let dir = format!("dry_experiment/{case}");
        let expected = json(&format!("{dir}/expected.json"));
        let replies = read(&format!("{dir}/mock_judge.json"));
        let report = dry::score_log(
            "step3.json",
            &read(&format!("{dir}/step4_input.json")),
            Some(("judge.json", &replies)),
        )
        .unwrap();
        let input = json(&format!("{dir}/step4_input.json"));
        for (record, item) in input
            .as_array()
            .unwrap()
            .iter()
            .zip(expected["items"].as_array().unwrap())
        {
            let idx = record["idx"].as_str().unwrap();
            let s = sample(&report, idx);
            if item.is_null() {
                // The official run crashed on this item: a clear per-item error.
                let err = s["error"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{case} {idx}: no error"));
                assert!(err.contains("judge"), "{case}: {err}");
                assert!(
                    report.warnings.iter().any(|w| w.message.starts_with(idx)),
                    "{case}"
                );
                continue;
            }
            assert_eq!(s["pass_nums"], item["pass_nums"], "{case} {idx}");
            for (ours, theirs) in [
                ("pass_all_5", "PassAll@5"),
                ("pass_all_3", "PassAll@3"),
                ("pass_all_1", "PassAll@1"),
                ("aet", "AET"),
                ("ser", "SER"),
            ] {
                assert_close(
                    s[ours].as_f64().unwrap(),
                    item[theirs].as_f64().unwrap(),
                    EXACT,
                    &format!("{case} {idx} {ours}"),
                );
            }
            let units = item["unit_test"].as_array().unwrap();
            for (k, u) in units.iter().enumerate() {
                assert_eq!(s["unit_pass"][k], u["pass"], "{case} {idx} unit {k}");
                assert_eq!(
                    s["unit_exact_match"][k], u["exact_match"],
                    "{case} {idx} unit {k}"
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
                let v = report.metric("overall", ours).unwrap().as_scalar().unwrap();
                assert_eq!(
                    format!("{v:?}"),
                    expected["printed"][theirs].as_str().unwrap(),
                    "{case} {ours}"
                );
            }
        }

        // The step-4 log: the official per-unit verdicts stored in the log, no replies file.
        let merged: Vec<Value> = input
            .as_array()
            .unwrap()
            .iter()
            .zip(expected["items"].as_array().unwrap())
            .map(|(record, item)| {
                if item.is_null() {
                    return Value::Null;
                }
                let mut record = record.clone();
                for (k, u) in item["unit_test"].as_array().unwrap().iter().enumerate() {
                    record["unit_test"][k]["llm_judge"] = u["llm_judge"].clone();
                }
                record
            })
            .collect();
        let step4 =
            dry::score_log("step4.json", &serde_json::to_string(&merged).unwrap(), None).unwrap();
        for item in expected["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i.is_object())
        {
            let s = sample(&step4, item["idx"].as_str().unwrap());
            assert_eq!(s["pass_nums"], item["pass_nums"], "{case} step-4");
        }
    }
}

#[test]
fn reasoning_mca_and_rv_match_er_01() {
    let dir = "experimental_reasoning/er_01_mca_rv_extraction";
    let input = json(&format!("{dir}/step2_input.json"));
    let judge = json(&format!("{dir}/mock_judge.json"));
    let expected = json(&format!("{dir}/expected.json"));
    let (mut mca, mut rv) = (Vec::new(), Vec::new());
    for (record, item) in input
        .as_array()
        .unwrap()
        .iter()
        .zip(expected["items"].as_array().unwrap())
    {
        let idx = record["idx"].as_str().unwrap();
        let answer = u32::try_from(record["answer"].as_u64().unwrap()).unwrap();
        let m =
            reasoning::multiple_choice_correct(record["model_answer"].as_str().unwrap(), answer);
        assert_eq!(u64::from(m), item["MCA"].as_u64().unwrap(), "{idx}");
        let r = reasoning::reasoning_validity(judge[idx].as_str());
        assert_close(r, item["RV"].as_f64().unwrap(), EXACT, idx);
        mca.push(f64::from(u8::from(m)));
        rv.push(r);
    }
    let mean = |v: &[f64]| metrics_core::sgibench::python_sum(v) / v.len() as f64;
    assert_eq!(
        format!("{:?}", mean(&mca)),
        expected["printed"]["MCA"].as_str().unwrap()
    );
    assert_eq!(
        format!("{:?}", mean(&rv)),
        expected["printed"]["RV"].as_str().unwrap()
    );
}

#[test]
fn sgi_score_cases_report_the_official_crash_per_record() {
    // sgi_02: Deep Research prints EM 3.12 (3.125 rounds half to even) and SLA 32.29, then the idea
    // error record raises KeyError.
    let input = json("sgi_score/sgi_02_idea_error_record_crash/input.json");
    let expected = json("sgi_score/sgi_02_idea_error_record_crash/expected.json");
    let dr = input["task_1_deep_research/logs"].as_array().unwrap();
    let em = sgi_score::task_headline_of_values("dr.json", dr, "exact_match", 100.0).unwrap();
    let sla = sgi_score::task_headline_of_values("dr.json", dr, "step_level_acc", 100.0).unwrap();
    assert_eq!(
        format!("{em:.2}"),
        expected["printed"]["Exact Match (EM)"][0].as_str().unwrap()
    );
    assert_eq!(
        format!("{sla:.2}"),
        expected["printed"]["Step Level Acc (SLA)"][0]
            .as_str()
            .unwrap()
    );
    let idea = input["task_2_idea_generation/logs (_evaluation.json)"]
        .as_array()
        .unwrap();
    let e =
        sgi_score::task_headline_of_values("idea.json", idea, "effectiveness", 1.0).unwrap_err();
    assert_eq!(e.line, Some(3));
    assert!(
        e.message.contains("effectiveness") && e.message.contains("KeyError"),
        "{e}"
    );
    // The other tasks' headlines are well defined.
    let wet = input["task_3_wet_experiment/logs"].as_array().unwrap();
    assert_eq!(
        sgi_score::task_headline_of_values("wet.json", wet, "final_score", 100.0).unwrap(),
        58.33
    );

    // sgi_03: a null record.
    let input = json("sgi_score/sgi_03_null_item_crash/input.json");
    for (task, items) in input.as_object().unwrap() {
        for (i, item) in items.as_array().unwrap().iter().enumerate() {
            if item.is_null() {
                let key = if task.starts_with("task_1") {
                    "exact_match"
                } else {
                    "final_score"
                };
                let e =
                    sgi_score::task_headline_of_values(task, items.as_array().unwrap(), key, 100.0)
                        .unwrap_err();
                assert_eq!(e.line, Some(i + 1), "{task}");
                assert!(e.message.contains("null"), "{e}");
            }
        }
    }
}

#[test]
fn idea_units_graph_similarity_and_votes() {
    use metrics_core::sgibench::idea;
    let input = json("idea_generation/idea_units_graph_parse_votes/input.json");
    let expected = json("idea_generation/idea_units_graph_parse_votes/expected.json");
    for case in input["graph_similarity"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let got = idea::graph_similarity(
            &case["dict1"],
            &case["dict2"],
            case["alpha"].as_f64().unwrap(),
        );
        assert_close(
            got,
            expected["graph_similarity"][name].as_f64().unwrap(),
            EXACT,
            name,
        );
    }
    for (name, text) in input["extract_win_lose_novelty"].as_object().unwrap() {
        let got = idea::extract_win_lose(text.as_str().unwrap(), "Novelty");
        let want = match expected["extract_win_lose_novelty"][name].as_str() {
            Some("win_A") => Some(idea::Vote::WinA),
            Some("win_B") => Some(idea::Vote::WinB),
            _ => None,
        };
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn idea_cases_gates_and_dimension_scores() {
    use metrics_core::sgibench::idea;
    for case in cases("idea_generation") {
        let expected = json(&format!("idea_generation/{case}/expected.json"));
        for item in expected["items"].as_array().unwrap() {
            let Some(idx) = item["idx"].as_str() else {
                continue;
            };
            let Some(raw) = expected["raw_subscores_0_10"].get(idx) else {
                continue;
            };
            let mut dims = Vec::new();
            for dim in ["effectiveness", "novelty", "detailedness", "feasibility"] {
                let Some(votes) = raw["votes"][dim]["generated_votes"].as_u64() else {
                    continue;
                };
                let gate = idea::vote_gate(dim, u32::try_from(votes).unwrap());
                let res = raw["votes"][dim]["res"].as_str().unwrap();
                assert_eq!(
                    format!("{gate:?}").to_lowercase(),
                    res,
                    "{case} {idx} {dim}"
                );
                let sub = idea::subjective_score(gate);
                assert_eq!(
                    Some(sub),
                    item[format!("{dim}_subjective")].as_f64(),
                    "{case} {idx} {dim}"
                );
                let objective = item[format!("{dim}_objective")].as_f64().unwrap();
                let d = idea::dimension_score(objective, sub);
                assert_close(
                    d,
                    item[dim].as_f64().unwrap(),
                    EXACT,
                    &format!("{case} {idx} {dim}"),
                );
                dims.push(d);
            }
            if dims.len() == 4 {
                let final_score = metrics_core::sgibench::python_sum(&dims) / 4.0;
                assert_close(
                    final_score,
                    item["final_score"].as_f64().unwrap(),
                    EXACT,
                    &format!("{case} {idx} final"),
                );
            }
        }
    }
}

/// Embedding-derived values (novelty, effectiveness, repetition and what depends on them).
const EMBEDDING: f64 = 1e-9;

#[test]
fn idea_units_parse_generated_idea() {
    use metrics_core::sgibench::idea;
    let input = json("idea_generation/idea_units_graph_parse_votes/input.json");
    let expected = json("idea_generation/idea_units_graph_parse_votes/expected.json");
    for (name, text) in input["parse_generated_idea"].as_object().unwrap() {
        let got = idea::parse_generated_idea(text.as_str().unwrap());
        let want = &expected["parse_generated_idea"][name];
        assert_eq!(&got, want, "{name}");
        // Key order is the official dict's.
        if let (Value::Object(g), Value::Object(w)) = (&got, want) {
            assert!(g.keys().eq(w.keys()), "key order {name}");
        }
    }
}

/// The step-2 evaluation log the official run writes: each step-1 record updated with the
/// expected scores; an error item is the official `{"error": …, "final_score": 0.0}` alone.
fn idea_step2_log(dir: &str) -> String {
    let input = json(&format!("{dir}/step2_input.json"));
    let expected = json(&format!("{dir}/expected.json"));
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
    serde_json::to_string(&merged).unwrap()
}

const IDEA_DIMS: [&str; 4] = ["effectiveness", "novelty", "detailedness", "feasibility"];

/// Tolerance for an item value: 1e-9 where embeddings enter (`recomputed`), else exact.
fn idea_tol(key: &str, recomputed: bool) -> f64 {
    if recomputed && !key.starts_with("feasibility") {
        EMBEDDING
    } else {
        EXACT
    }
}

/// Every per-item score of `expected.json` against the report's samples; error items must be
/// warnings naming their idx (or record number) and left out.
fn check_idea_report(
    case: &str,
    report: &metrics_core::Report,
    expected: &Value,
    input: &Value,
    recomputed: bool,
    errors_name_idx: bool,
) {
    let items = expected["items"].as_array().unwrap();
    let mut finals = Vec::new();
    for (n, (item, record)) in items.iter().zip(input.as_array().unwrap()).enumerate() {
        if let Some(err) = item.get("error") {
            let err = err.as_str().unwrap();
            let idx = record["idx"].as_str().unwrap();
            let w = report
                .warnings
                .iter()
                .find(|w| w.line == Some(n + 1))
                .unwrap_or_else(|| panic!("{case}: no warning for record {}", n + 1));
            assert!(w.message.contains(err), "{case}: {}", w.message);
            if errors_name_idx {
                assert!(w.message.starts_with(idx), "{case}: {}", w.message);
                assert!(sample(report, idx)["error"].is_string());
            }
            continue;
        }
        let idx = item["idx"].as_str().unwrap();
        let s = sample(report, idx);
        for dim in IDEA_DIMS {
            for key in [
                format!("{dim}_objective"),
                format!("{dim}_subjective"),
                dim.to_owned(),
            ] {
                assert_close(
                    s[&key]
                        .as_f64()
                        .unwrap_or_else(|| panic!("{case} {idx} {key}: {s}")),
                    item[&key].as_f64().unwrap(),
                    idea_tol(&key, recomputed),
                    &format!("{case} {idx} {key}"),
                );
            }
        }
        assert_close(
            s["final"].as_f64().unwrap(),
            item["final_score"].as_f64().unwrap(),
            idea_tol("final", recomputed),
            &format!("{case} {idx} final"),
        );
        finals.push(item["final_score"].as_f64().unwrap());
    }
    assert_eq!(report.overall.n, finals.len(), "{case}");
    let avg = &expected["meta_evaluation"]["average_scores"];
    for (key, official) in [
        ("final", "final_score"),
        ("effectiveness", "effectiveness"),
        ("novelty", "novelty"),
        ("detailedness", "detailedness"),
        ("feasibility", "feasibility"),
    ] {
        let got = report.metric("overall", key).unwrap().as_scalar().unwrap();
        assert_close(
            got,
            avg[official].as_f64().unwrap(),
            idea_tol(key, recomputed),
            &format!("{case} overall {key}"),
        );
    }
}

#[test]
fn idea_step2_logs_match_official() {
    use metrics_core::sgibench::idea;
    for case in cases("idea_generation") {
        let dir = format!("idea_generation/{case}");
        let expected = json(&format!("{dir}/expected.json"));
        let input = json(&format!("{dir}/step2_input.json"));
        let log = idea_step2_log(&dir);
        // The log's own scores.
        let report = idea::score_log("eval.json", &log, None).unwrap();
        check_idea_report(&case, &report, &expected, &input, false, false);
        // The same log with the embedding-derived objectives recomputed.
        let table = idea::EmbeddingTable::from_json(
            "t.json",
            &read(&format!("{dir}/embedding_table.json")),
        )
        .unwrap();
        let report = idea::score_log("eval.json", &log, Some(&table)).unwrap();
        check_idea_report(&case, &report, &expected, &input, true, false);
    }
}

#[test]
fn idea_step1_logs_with_embeddings_and_judges_match_official() {
    use metrics_core::sgibench::idea;
    for case in cases("idea_generation") {
        let dir = format!("idea_generation/{case}");
        let expected = json(&format!("{dir}/expected.json"));
        let input = json(&format!("{dir}/step2_input.json"));
        let table = idea::EmbeddingTable::from_json(
            "t.json",
            &read(&format!("{dir}/embedding_table.json")),
        )
        .unwrap();
        let replies = read(&format!("{dir}/mock_llm.json"));
        let sources = idea::IdeaSources {
            embeddings: Some(&table),
            judge_replies: Some(("mock_llm.json", &replies)),
        };
        let report = idea::score_log_with(
            "step1.json",
            &read(&format!("{dir}/step2_input.json")),
            &sources,
        )
        .unwrap();
        check_idea_report(&case, &report, &expected, &input, true, true);

        // Raw 0–10 sub-scores and votes, for items the official run scored.
        for (idx, raw) in expected["raw_subscores_0_10"].as_object().unwrap() {
            let s = sample(&report, idx);
            if s.get("error").is_some() {
                continue;
            }
            for (key, want) in raw["raw_scores"].as_object().unwrap() {
                if key.ends_with("_objective") {
                    continue; // placeholders in the official raw_scores
                }
                let tol = if matches!(key.as_str(), "completeness" | "length_penalty") {
                    EXACT
                } else {
                    EMBEDDING
                };
                assert_close(
                    s["raw_scores"][key].as_f64().unwrap(),
                    want.as_f64().unwrap(),
                    tol,
                    &format!("{case} {idx} {key}"),
                );
            }
            for (key, want) in raw["scores_objective_0_10"].as_object().unwrap() {
                assert_close(
                    s[key.as_str()].as_f64().unwrap() / 10.0,
                    want.as_f64().unwrap(),
                    idea_tol(key, true),
                    &format!("{case} {idx} {key} (0-10)"),
                );
            }
            assert_eq!(
                s["valid_judge_calls"], raw["valid_judge_calls"],
                "{case} {idx}"
            );
            for (dim, votes) in raw["votes"].as_object().unwrap() {
                for key in ["res", "original_votes", "generated_votes"] {
                    assert_eq!(s["votes"][dim][key], votes[key], "{case} {idx} {dim} {key}");
                }
            }
        }
        // The step-1 records parse to the logged generated_data.
        for record in input.as_array().unwrap() {
            if let Some(Value::String(text)) = record.get("generated_idea_text") {
                assert_eq!(
                    idea::parse_generated_idea(text),
                    record["generated_data"],
                    "{case} {}",
                    record["idx"]
                );
            }
        }
    }
}
