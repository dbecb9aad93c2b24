//! The same checks natively and under `wasm32-unknown-unknown` (wasm-bindgen-test in node):
//! the browser must compute exactly what the CLI computes.
//!
//! `scripts/test.sh` runs this file with `--target wasm32-unknown-unknown`; plain `cargo test`
//! runs it natively.

use metrics_core::confusion::ConfusionMatrix;
use metrics_core::pairs::{PairsOptions, parse_pairs, score_pairs};
use metrics_core::pearson::pearson;
use metrics_core::qwk::quadratic_weighted_kappa;
use metrics_core::sasbench::{NamedText, SasInputs, Variant, score_predictions};
use metrics_core::{InputFile, MetricValue};

/// Golden SAS-Bench case_10 (three files with their own taxonomies), embedded so the same
/// bytes are scored natively and in wasm.
const TAXONOMY: &str =
    include_str!("../../tests/golden/sasbench/case_10/datasets/error_type.jsonl");
const PREDICTIONS: [(&str, &str); 3] = [
    (
        "7_Math_ShortAns_prediction.jsonl",
        include_str!(
            "../../tests/golden/sasbench/case_10/datasets_GoldenModel_Scored/7_Math_ShortAns_prediction.jsonl"
        ),
    ),
    (
        "10_Math_gapfilling_prediction.jsonl",
        include_str!(
            "../../tests/golden/sasbench/case_10/datasets_GoldenModel_Scored/10_Math_gapfilling_prediction.jsonl"
        ),
    ),
    (
        "11_Chemistry_gapfilling_prediction.jsonl",
        include_str!(
            "../../tests/golden/sasbench/case_10/datasets_GoldenModel_Scored/11_Chemistry_gapfilling_prediction.jsonl"
        ),
    ),
];
const EXPECTED: &str = include_str!("../../tests/golden/sasbench/case_10/expected.json");

macro_rules! both {
    ($(fn $name:ident() $body:block)*) => {$(
        #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
        #[cfg_attr(not(target_arch = "wasm32"), test)]
        fn $name() $body
    )*};
}

fn repeat(parts: &[(i64, usize)]) -> Vec<f64> {
    parts
        .iter()
        .flat_map(|&(v, n)| std::iter::repeat_n(v as f64, n))
        .collect()
}

both! {
    fn qwk_matches_scikit_learn_bit_for_bit() {
        // sklearn 1.9.1: cohen_kappa_score([0]*46+[1]*44+[2]*10, [0]*50+[1]*40+[2]*10,
        //                                  weights="quadratic") -> 0.9541284403669725
        let y1 = repeat(&[(0, 46), (1, 44), (2, 10)]);
        let y2 = repeat(&[(0, 50), (1, 40), (2, 10)]);
        assert_eq!(quadratic_weighted_kappa(&y1, &y2), Ok(0.9541284403669725));
    }

    fn pearson_matches_scipy() {
        // scipy.stats.pearsonr([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]).statistic -> 0.8320502943378437
        let r = pearson(&[1.0, 2.0, 3.0, 4.0, 5.0], &[5.0, 6.0, 7.0, 8.0, 7.0]).unwrap();
        assert!((r - 0.8320502943378437).abs() < 1e-15);
    }

    fn a_dropped_file_scores_like_the_cli() {
        let text = "{\"gold\":0,\"pred\":0}\n{\"gold\":1,\"pred\":2}\n{\"gold\":2,\"pred\":2}\n{\"gold\":3,\"pred\":2}\n";
        let pairs = parse_pairs("p.jsonl", text).unwrap();
        let report = score_pairs(InputFile::from_bytes("p.jsonl", text.as_bytes()), &pairs, &PairsOptions::default());
        // sklearn: cohen_kappa_score([0,1,2,3], [0,2,2,2], weights="quadratic") -> 0.75
        assert_eq!(report.metric("overall", "qwk"), Some(&MetricValue::Scalar(Some(0.75))));
        assert_eq!(report.inputs[0].sha256.len(), 64);
        let cm = ConfusionMatrix::new(&pairs.gold, &pairs.pred);
        assert_eq!(cm.count(3, 2), 1);
    }

    fn sasbench_golden_case_10_is_bit_exact() {
        let inputs = SasInputs {
            taxonomy: NamedText { name: "error_type.jsonl", text: TAXONOMY },
            predictions: PREDICTIONS.iter().map(|&(name, text)| NamedText { name, text }).collect(),
        };
        let report = score_predictions(&inputs, Variant::Official).unwrap();
        let expected: serde_json::Value = serde_json::from_str(EXPECTED).unwrap();
        let files = expected["files"].as_object().unwrap();
        assert_eq!(report.subsets.len(), files.len());
        for (subset, (file, want)) in report.subsets.iter().zip(files) {
            assert_eq!(format!("{}_prediction.jsonl", subset.name), *file, "numeric file order");
            for key in ["qwk", "ccs"] {
                let got = subset.metrics[key].as_scalar();
                assert_eq!(got, want[key].as_f64(), "{file} {key} bit for bit");
            }
            let ecs = subset.metrics["ecs"].as_scalar().unwrap();
            assert!((ecs - want["ecs"].as_f64().unwrap()).abs() <= 1e-12, "{file} ecs");
        }
    }

    fn bad_lines_are_located() {
        let e = parse_pairs("bad.jsonl", "{\"gold\":0,\"pred\":0}\nnot json\n").unwrap_err();
        assert_eq!((e.path.as_str(), e.line), ("bad.jsonl", Some(2)));
    }
}
