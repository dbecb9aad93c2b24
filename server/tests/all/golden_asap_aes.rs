//! ASAP-AES golden vectors (`tests/golden/asap_aes/`, the official Kaggle metric) through the
//! real CLI, both variants, at abs tolerance 1e-12.

use std::path::PathBuf;

use serde_json::Value;

use crate::support::{close, score_fails, score_json};

const TOL: f64 = 1e-12;

fn cases() -> Vec<PathBuf> {
    let cases = testkit::case_dirs("asap_aes");
    assert!(cases.len() >= 4);
    cases
}

fn metric(metrics: &Value, key: &str) -> Option<f64> {
    assert!(metrics.get(key).is_some(), "no {key} in {metrics}");
    metrics[key].as_f64()
}

#[test]
fn every_case_gives_the_official_numbers_in_both_variants() {
    let mut checked = 0;
    for case in cases() {
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(case.join("expected.json")).unwrap())
                .unwrap();
        let gold = case.join("training_set_rel3.tsv");
        let pred = case.join("predictions.csv");
        let (gold, pred) = (gold.to_str().unwrap(), pred.to_str().unwrap());
        if let Some(error) = expected["error"].as_str() {
            for variant in ["official", "corrected"] {
                let stderr = score_fails(&[
                    "score",
                    "asap-aes",
                    "--gold",
                    gold,
                    pred,
                    "--variant",
                    variant,
                    "--json",
                ]);
                // The official message names the essay_id ("essay_id 4 has no prediction").
                assert!(stderr.contains(error), "{case:?}: {stderr}");
            }
            continue;
        }
        for (variant, qwk_key, overall) in [
            ("official", "qwk", &expected),
            ("corrected", "qwk_corrected", &expected["corrected"]),
        ] {
            let report = score_json(&[
                "score",
                "asap-aes",
                "--gold",
                gold,
                pred,
                "--variant",
                variant,
                "--json",
            ]);
            assert_eq!(report["variant"], variant);
            let sets = expected["sets"].as_object().unwrap();
            let subsets = report["subsets"].as_array().unwrap();
            assert_eq!(subsets.len(), sets.len(), "{case:?}");
            for (set, values) in sets {
                let subset = subsets
                    .iter()
                    .find(|s| s["name"] == format!("set_{set}"))
                    .unwrap_or_else(|| panic!("{case:?}: no set_{set}"));
                assert_eq!(subset["n"], values["n"], "{case:?} set {set}");
                let got = metric(&subset["metrics"], "qwk");
                assert!(
                    close(got, values[qwk_key].as_f64(), TOL),
                    "{case:?} {variant} set {set}: {got:?} vs {}",
                    values[qwk_key]
                );
            }
            for key in ["mean_qwk_fisher", "mean_qwk"] {
                let got = metric(&report["overall"]["metrics"], key);
                assert!(
                    close(got, overall[key].as_f64(), TOL),
                    "{case:?} {variant} {key}: {got:?} vs {}",
                    overall[key]
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 6, "{checked}");
}
