//! Every SAS-Bench golden case (`tests/golden/sasbench/case_*`) through the library:
//! CCS, QWK and the CCS sums bit for bit, ECS, tiers and thresholds to 1e-12, error matrices
//! exactly, step 2 equal to the official `_prediction.jsonl`, crash cases as errors.

// Test helpers: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use metrics_core::sasbench::{
    self, NamedText, RawFile, RawInputs, SasInputs, Taxonomy, Variant, format, step2, subset_name,
};
use serde_json::Value;

fn cases() -> Vec<PathBuf> {
    testkit::case_dirs("sasbench")
        .into_iter()
        .filter(|p| testkit::name(p).starts_with("case_"))
        .collect()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

/// A number of expected.json (`"NaN"` strings → NaN).
fn num(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().unwrap(),
        Value::String(s) if s == "NaN" => f64::NAN,
        other => panic!("not a number: {other}"),
    }
}

fn same_bits(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

fn files_with(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().path())
                .filter(|p| p.to_str().unwrap().ends_with(suffix))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn every_case_matches_the_official_numbers() {
    let mut checked = 0;
    for case in cases() {
        let expected: Value = serde_json::from_str(&read(&case.join("expected.json"))).unwrap();
        let taxonomy_text = read(&case.join("datasets/error_type.jsonl"));
        let taxonomy = Taxonomy::parse("error_type.jsonl", &taxonomy_text).unwrap();
        let scored_dir = case.join("datasets_GoldenModel_Scored");
        let crashes = !expected["official_exceptions"].is_null();
        for pred_path in files_with(&scored_dir, "_prediction.jsonl") {
            let file_name = pred_path.file_name().unwrap().to_str().unwrap().to_string();
            let text = read(&pred_path);
            let parsed = format::parse_predictions(&file_name, &text);
            if crashes {
                let stderr = match parsed {
                    Err(e) => e.to_string(),
                    Ok(responses) => {
                        assert!(responses.is_empty(), "{case:?}: expected a crash");
                        continue;
                    }
                };
                assert!(stderr.contains(&file_name), "{stderr}");
                continue;
            }
            let responses = parsed.unwrap_or_else(|e| panic!("{case:?}: {e}"));
            let exp = &expected["files"][&file_name];
            let slots = taxonomy.slots(format::file_id(&subset_name(&file_name)));
            let score = sasbench::score_file(&file_name, &responses, &slots, Variant::Official);
            let ctx = format!("{} {file_name}", case.display());
            // QWK and CCS bit for bit.
            let qwk = score.qwk.clone().unwrap_or(f64::NAN);
            assert!(
                same_bits(qwk, num(&exp["qwk"])),
                "{ctx}: qwk {qwk} vs {}",
                exp["qwk"]
            );
            let ccs = score.ccs.as_ref().unwrap();
            let d = &exp["ccs_detail"];
            assert!(
                same_bits(ccs.sum_o_times_w, num(&d["sum_O_times_W"])),
                "{ctx}: ΣO∘W {} vs {}",
                ccs.sum_o_times_w,
                d["sum_O_times_W"]
            );
            assert!(
                same_bits(ccs.sum_e_times_w, num(&d["sum_E_times_W"])),
                "{ctx}: ΣE∘W {} vs {}",
                ccs.sum_e_times_w,
                d["sum_E_times_W"]
            );
            let c = ccs.ccs.clone().unwrap_or(f64::NAN);
            assert!(
                same_bits(c, num(&exp["ccs"])),
                "{ctx}: ccs {c} vs {}",
                exp["ccs"]
            );
            assert_eq!(
                ccs.n_levels as u64,
                d["n_levels"].as_u64().unwrap(),
                "{ctx}"
            );
            // ECS to 1e-12; thresholds and matrices exactly.
            let ecs = score.ecs.as_ref().unwrap();
            assert!(
                (ecs.ecs - num(&exp["ecs"])).abs() <= 1e-12,
                "{ctx}: ecs {} vs {}",
                ecs.ecs,
                exp["ecs"]
            );
            for (i, t) in exp["ecs_tiers"].as_array().unwrap().iter().enumerate() {
                assert!(
                    (ecs.tiers[i] - num(t)).abs() <= 1e-12,
                    "{ctx}: tier {i} {} vs {t}",
                    ecs.tiers[i]
                );
            }
            let ed = &exp["ecs_detail"];
            assert!(same_bits(ecs.range1, num(&ed["range1"])), "{ctx}: range1");
            assert!(same_bits(ecs.range2, num(&ed["range2"])), "{ctx}: range2");
            let matrix = |m: &Value| -> Vec<Vec<f64>> {
                m.as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r.as_array().unwrap().iter().map(num).collect())
                    .collect()
            };
            assert_eq!(
                ecs.pred_matrix,
                matrix(&ed["pred_error_matrix"]),
                "{ctx}: pred matrix"
            );
            assert_eq!(
                ecs.gold_matrix,
                matrix(&ed["gold_error_matrix"]),
                "{ctx}: gold matrix"
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} files checked");
}

#[test]
fn step2_reproduces_the_official_prediction_files() {
    let mut lines = 0;
    for case in cases() {
        let scored_dir = case.join("datasets_GoldenModel_Scored");
        for scored in files_with(&scored_dir, "_scored.jsonl") {
            let stem = subset_name(scored.to_str().unwrap());
            let prediction = scored_dir.join(format!("{stem}_prediction.jsonl"));
            let dataset = case.join("datasets").join(format!("{stem}.jsonl"));
            let gold = format::parse_records("gold", &read(&dataset)).unwrap();
            let replies = format::parse_scored("scored", &read(&scored)).unwrap();
            let ours = step2::process_file("gold", "scored", &gold, &replies).unwrap();
            let official = format::parse_records("pred", &read(&prediction)).unwrap();
            assert_eq!(ours.len(), official.len(), "{scored:?}");
            for (a, b) in ours.iter().zip(&official) {
                for key in ["pred_label", "pred_steps"] {
                    assert_eq!(
                        a.object.get(key),
                        b.object.get(key),
                        "{scored:?} line {}: {key}",
                        b.line
                    );
                }
                lines += 1;
            }
        }
    }
    assert!(lines > 5000, "{lines}");
}

/// One reply read alone (a sample's detail) is the reply of the whole file's reading, at every
/// position of every golden raw file; past the last there is none.
#[test]
fn a_reply_read_alone_is_the_whole_files() {
    let mut checked = 0;
    for case in cases() {
        for scored in files_with(&case.join("datasets_GoldenModel_Scored"), "_scored.jsonl") {
            let text = read(&scored);
            let all = format::parse_scored("scored", &text).unwrap();
            for (i, reply) in all.iter().enumerate() {
                let alone = format::scored_line_at("scored", &text, i).unwrap();
                assert_eq!(alone.as_ref(), Some(reply), "{scored:?} #{i}");
                checked += 1;
            }
            assert_eq!(
                format::scored_line_at("scored", &text, all.len()).unwrap(),
                None
            );
        }
    }
    assert!(checked > 5000, "{checked}");
    // Blank lines are not counted; a bad line is an error naming its line.
    let text = "\u{feff}a\t\"x\"\n\n  \nb\t\"y\"\nc no tab\n";
    let b = format::scored_line_at("f", text, 1).unwrap().unwrap();
    assert_eq!(
        (b.line, b.id.as_str(), b.reply_text.as_str()),
        (4, "b", "y")
    );
    let e = format::scored_line_at("f", text, 2).unwrap_err();
    assert_eq!(e.line, Some(5), "{e}");
}

#[test]
fn raw_and_prediction_modes_agree_and_crash_cases_fail() {
    for case in cases() {
        let expected: Value = serde_json::from_str(&read(&case.join("expected.json"))).unwrap();
        let crashes = !expected["official_exceptions"].is_null();
        let taxonomy_text = read(&case.join("datasets/error_type.jsonl"));
        let taxonomy = NamedText {
            name: "error_type.jsonl",
            text: &taxonomy_text,
        };
        let scored_dir = case.join("datasets_GoldenModel_Scored");
        let preds: Vec<(String, String)> = files_with(&scored_dir, "_prediction.jsonl")
            .iter()
            .map(|p| (p.to_str().unwrap().to_string(), read(p)))
            .collect();
        let inputs = SasInputs {
            taxonomy,
            predictions: preds
                .iter()
                .map(|(n, t)| NamedText { name: n, text: t })
                .collect(),
        };
        let from_predictions = sasbench::score_predictions(&inputs, Variant::Official);
        let raw: Vec<(String, String, String, String)> = files_with(&scored_dir, "_scored.jsonl")
            .iter()
            .map(|p| {
                let stem = subset_name(p.to_str().unwrap());
                let d = case.join("datasets").join(format!("{stem}.jsonl"));
                (
                    d.to_str().unwrap().to_string(),
                    read(&d),
                    p.to_str().unwrap().to_string(),
                    read(p),
                )
            })
            .collect();
        if crashes {
            let e = from_predictions.unwrap_err();
            assert!(e.path.ends_with("_prediction.jsonl"), "{e}");
            continue;
        }
        let from_predictions = from_predictions.unwrap();
        if raw.is_empty() {
            continue;
        }
        let raw_inputs = RawInputs {
            taxonomy,
            files: raw
                .iter()
                .map(|(dn, dt, sn, st)| RawFile {
                    dataset: NamedText { name: dn, text: dt },
                    scored: NamedText { name: sn, text: st },
                })
                .collect(),
        };
        let from_raw = sasbench::score_raw(&raw_inputs, Variant::Official).unwrap();
        assert_eq!(from_raw.subsets, from_predictions.subsets, "{case:?}");
    }
}
