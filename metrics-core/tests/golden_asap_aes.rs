//! ASAP-AES against the official Kaggle metric code, through the library:
//! - every golden case in `tests/golden/asap_aes` (both variants), at the spec's 1e-12;
//! - a differential test over seeded random cases in `tests/data/asap_aes_reference.json`,
//!   written by `scripts/asap_aes_reference.py` with PyPI `ml_metrics` 0.1.4 (benhamner/Metrics'
//!   `quadratic_weighted_kappa.py`, the same code as commit 9a637aea). Each case is turned into a
//!   gold TSV and a predictions CSV and read through the real readers.

#![allow(clippy::unwrap_used)] // a panic is how these tests report a mismatch

use std::path::{Path, PathBuf};

use metrics_core::MetricValue;
use metrics_core::asap_aes::{self, NamedBytes, Variant};
use metrics_core::report::Report;
use serde_json::Value;

const TOLERANCE: f64 = 1e-12;

fn cases() -> Vec<PathBuf> {
    testkit::case_dirs("asap_aes")
}

fn score(dir: &Path, variant: Variant) -> Result<Report, metrics_core::InputError> {
    let gold = std::fs::read(dir.join("training_set_rel3.tsv")).unwrap();
    let preds = std::fs::read(dir.join("predictions.csv")).unwrap();
    asap_aes::score(
        NamedBytes {
            name: "training_set_rel3.tsv",
            bytes: &gold,
        },
        NamedBytes {
            name: "predictions.csv",
            bytes: &preds,
        },
        variant,
    )
}

/// `actual` equals `expected` (a JSON number, or null for an undefined value) within 1e-12.
fn check(what: &str, actual: Option<&MetricValue>, expected: &Value) {
    let actual = actual.and_then(MetricValue::as_scalar);
    match (actual, expected.as_f64()) {
        (Some(a), Some(e)) => assert!((a - e).abs() <= TOLERANCE, "{what}: {a} vs {e}"),
        (None, None) => assert!(expected.is_null(), "{what}: expected {expected}"),
        _ => panic!("{what}: {actual:?} vs {expected}"),
    }
}

#[test]
fn golden_cases_pass_in_both_variants() {
    let mut checked = 0;
    for dir in cases() {
        let case = dir.file_name().unwrap().to_string_lossy().to_string();
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap())
                .unwrap();
        if let Some(error) = expected["error"].as_str() {
            for variant in [Variant::Official, Variant::Corrected] {
                let e = score(&dir, variant).unwrap_err();
                assert!(e.to_string().contains(error), "{case}: {e}");
            }
            checked += 1;
            continue;
        }
        let sets = expected["sets"].as_object().unwrap();
        let names: Vec<String> = sets.keys().map(|s| format!("set_{s}")).collect();
        for (variant, qwk_key, means) in [
            (Variant::Official, "qwk", &expected),
            (Variant::Corrected, "qwk_corrected", &expected["corrected"]),
        ] {
            let report = score(&dir, variant).unwrap();
            let what = |key: &str| format!("{case} {} {key}", variant.name());
            assert_eq!(report.benchmark, "asap-aes");
            assert_eq!(report.variant, variant.name());
            let subsets: Vec<&String> = report.subsets.iter().map(|s| &s.name).collect();
            assert_eq!(subsets, names.iter().collect::<Vec<_>>(), "{case}");
            for (set, values) in sets {
                let name = format!("set_{set}");
                let subset = report.subsets.iter().find(|s| s.name == name).unwrap();
                assert_eq!(
                    subset.n as u64,
                    values["n"].as_u64().unwrap(),
                    "{}",
                    what(&name)
                );
                check(
                    &what(&format!("{name} qwk")),
                    report.metric(&name, "qwk"),
                    &values[qwk_key],
                );
            }
            for key in ["mean_qwk_fisher", "mean_qwk"] {
                check(&what(key), report.metric("overall", key), &means[key]);
            }
            let n: u64 = sets.values().map(|v| v["n"].as_u64().unwrap()).sum();
            assert_eq!(report.overall.n as u64, n, "{case}");
            assert!(report.warnings.is_empty(), "{case}: {:?}", report.warnings);
        }
        checked += 1;
    }
    assert_eq!(checked, 4);
}

#[test]
fn missing_prediction_names_the_essay_id() {
    let e = score(
        &testkit::path("asap_aes/asap_04_missing_prediction"),
        Variant::Official,
    )
    .unwrap_err();
    assert_eq!(e.path, "predictions.csv");
    assert!(e.message.starts_with("essay_id 4 has no prediction"), "{e}");
}

/// One seeded random case of the reference fixture.
struct Case {
    seed: u64,
    /// `(essay_set, domain1_score, predicted_score cell as written in the CSV)`.
    essays: Vec<(u8, i64, String)>,
    expected: [Value; 2],
}

fn reference_cases() -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/asap_aes_reference.json");
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    fixture["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Case {
            seed: c["seed"].as_u64().unwrap(),
            essays: c["essays"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| {
                    (
                        e[0].as_u64().unwrap() as u8,
                        e[1].as_i64().unwrap(),
                        e[2].as_str().unwrap().to_string(),
                    )
                })
                .collect(),
            expected: [c["official"].clone(), c["corrected"].clone()],
        })
        .collect()
}

#[test]
fn random_cases_match_the_official_code() {
    let cases = reference_cases();
    assert!(cases.len() >= 300, "{}", cases.len());
    let (mut values, mut nulls, mut bit_exact) = (0, 0, 0);
    for case in &cases {
        // Essay ids in a shuffled-looking order; gold rows grouped as the generator wrote them.
        let mut gold = String::from("essay_id\tessay_set\tessay\tdomain1_score\r\n");
        let mut preds = String::from("essay_id,predicted_score\n");
        for (k, (set, score, cell)) in case.essays.iter().enumerate() {
            let id = 1000 + (k * 7919) % 100_003;
            gold.push_str(&format!("{id}\t{set}\tessay {k} caf\u{e9}\t{score}\r\n"));
            preds.push_str(&format!("{id},{cell}\n"));
        }
        let gold = gold.chars().map(|c| c as u8).collect::<Vec<u8>>(); // Latin-1 bytes
        for (variant, expected) in [Variant::Official, Variant::Corrected]
            .into_iter()
            .zip(&case.expected)
        {
            let report = asap_aes::score(
                NamedBytes {
                    name: "gold.tsv",
                    bytes: &gold,
                },
                NamedBytes {
                    name: "pred.csv",
                    bytes: preds.as_bytes(),
                },
                variant,
            )
            .unwrap();
            let what = |key: &str| format!("seed {} {} {key}", case.seed, variant.name());
            let sets = expected["sets"].as_object().unwrap();
            assert_eq!(report.subsets.len(), sets.len(), "{}", what("sets"));
            let mut pairs: Vec<(String, Option<&MetricValue>, &Value)> = sets
                .iter()
                .map(|(set, value)| {
                    let name = format!("set_{set}");
                    let actual = report.metric(&name, "qwk");
                    (name, actual, value)
                })
                .collect();
            for key in ["mean_qwk_fisher", "mean_qwk"] {
                pairs.push((key.into(), report.metric("overall", key), &expected[key]));
            }
            for (key, actual, value) in pairs {
                check(&what(&key), actual, value);
                match (actual.and_then(MetricValue::as_scalar), value.as_f64()) {
                    (Some(a), Some(e)) => {
                        values += 1;
                        bit_exact += usize::from(a.to_bits() == e.to_bits());
                    }
                    _ => nulls += 1,
                }
            }
        }
    }
    println!("{values} values within 1e-12 ({bit_exact} bit for bit), {nulls} nulls");
    assert!(nulls > 0 && values > 1000);
}
