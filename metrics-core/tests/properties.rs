//! Property tests of the statistics and of the corrected CCS.

// proptest is a native-only dev-dependency (it needs OS randomness).
#![cfg(not(target_arch = "wasm32"))]
// Test helpers: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use metrics_core::kendall_tau_b::kendall_tau_b;
use metrics_core::pearson::pearson;
use metrics_core::qwk::quadratic_weighted_kappa;
use metrics_core::sasbench::{ScoreVectors, Variant, ccs, format};
use metrics_core::spearman::spearman;
use proptest::prelude::*;

fn small_ints(n: std::ops::Range<usize>) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec((0i32..6).prop_map(f64::from), n)
}

proptest! {
    #[test]
    fn kappa_is_one_on_perfect_agreement(y in small_ints(2..40)) {
        prop_assume!(y.iter().any(|&v| v != y[0]));
        prop_assert_eq!(quadratic_weighted_kappa(&y, &y), Ok(1.0));
    }

    #[test]
    fn pearson_and_spearman_are_symmetric(pairs in prop::collection::vec((-1e3f64..1e3, -1e3f64..1e3), 3..50)) {
        let (x, y): (Vec<f64>, Vec<f64>) = pairs.into_iter().unzip();
        prop_assert_eq!(pearson(&x, &y), pearson(&y, &x));
        prop_assert_eq!(spearman(&x, &y), spearman(&y, &x));
    }

    #[test]
    fn tau_b_is_bounded_and_symmetric(x in small_ints(2..60), y in small_ints(2..60)) {
        let n = x.len().min(y.len());
        let (x, y) = (&x[..n], &y[..n]);
        if let Ok(t) = kendall_tau_b(x, y) {
            prop_assert!((-1.0..=1.0).contains(&t), "{}", t);
            let back = kendall_tau_b(y, x).unwrap();
            prop_assert!((t - back).abs() < 1e-15);
        }
    }

    #[test]
    fn corrected_ccs_ignores_record_order(
        records in prop::collection::vec((0usize..4, prop::collection::vec((0i64..4, 0i64..4), 0..4)), 2..25),
        seed in any::<u64>(),
    ) {
        let line = |(q, steps): &(usize, Vec<(i64, i64)>)| {
            let gold: i64 = steps.iter().map(|s| s.0).sum::<i64>() + *q as i64 % 2;
            let pred: i64 = steps.iter().map(|s| s.1).sum();
            let gs: Vec<String> = steps.iter().map(|s| format!("{{\"label\":{},\"errors\":[]}}", s.0)).collect();
            let ps: Vec<String> = steps.iter().map(|s| format!("{{\"step_score\":{},\"errors\":[]}}", s.1)).collect();
            format!(
                "{{\"id\":\"q{q}\",\"total\":12,\"manual_label\":{gold},\"steps\":[{}],\"pred_label\":{pred},\"pred_steps\":[{}]}}",
                gs.join(","), ps.join(",")
            )
        };
        let mut lines: Vec<String> = records.iter().map(line).collect();
        let text = lines.join("\n");
        // A seeded Fisher–Yates shuffle.
        let mut state = seed | 1;
        for i in (1..lines.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            lines.swap(i, (state % (i as u64 + 1)) as usize);
        }
        let shuffled = lines.join("\n");
        let a = ScoreVectors::from_responses(&format::parse_predictions("a", &text).unwrap()).unwrap();
        let b = ScoreVectors::from_responses(&format::parse_predictions("b", &shuffled).unwrap()).unwrap();
        let (ca, cb) = (ccs::ccs(&a, Variant::Corrected), ccs::ccs(&b, Variant::Corrected));
        match (ca.ccs, cb.ccs) {
            (Ok(x), Ok(y)) => prop_assert!((x - y).abs() < 1e-12, "{} vs {}", x, y),
            (x, y) => prop_assert_eq!(x.is_err(), y.is_err()),
        }
    }
}
