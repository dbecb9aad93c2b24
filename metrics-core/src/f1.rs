//! F1 over the classes of single-label classification: macro (each class alike) and micro (each
//! record alike).
//!
//! Reference: scikit-learn `f1_score(y_true, y_pred, average="macro" | "micro")` (1.9.1:
//! `_precision_recall_fscore_support`, `zero_division="warn"`).
//!
//! ```text
//! labels   L = sorted distinct values of gold ∪ pred      (unique_labels)
//! per c∈L  tp = #{gold = pred = c}, t = #{gold = c}, p = #{pred = c}
//!          f_c = 2·tp / (t + p)                            ((1 + β²)·tp / (β²·t + p), β = 1)
//! macro    np.mean(f_c)                                    (numpy's pairwise sum / |L|)
//! micro    2·Σtp / (Σt + Σp) = 2·hits / 2n                 (= accuracy, bit for bit)
//! ```
//! Every class of L occurs in gold or pred, so t + p ≥ 1 and no division is by zero. Numbers are
//! classes only when they are integers (scikit-learn refuses continuous targets, as for QWK and
//! accuracy: undefined here); labels compare as text.

use std::collections::{BTreeMap, HashMap};

use crate::error::MetricError;
use crate::numpy_sum::numpy_sum;

/// Macro-averaged F1 of numeric classes.
pub fn f1_macro(gold: &[f64], pred: &[f64]) -> Result<f64, MetricError> {
    crate::qwk::check_classification_targets(gold)?;
    crate::qwk::check_classification_targets(pred)?;
    // −0.0 and 0.0 are one class (as `==` says); integers up to 2^63 order as their i64.
    let key = |v: f64| v as i64;
    f1_macro_by(gold.iter().map(|&v| key(v)), pred.iter().map(|&v| key(v)))
}

/// Macro-averaged F1 of text labels.
pub fn f1_macro_labels(gold: &[&str], pred: &[&str]) -> Result<f64, MetricError> {
    f1_macro_by(gold.iter().copied(), pred.iter().copied())
}

/// Micro-averaged F1 of numeric classes (equal to accuracy for single-label data).
pub fn f1_micro(gold: &[f64], pred: &[f64]) -> Result<f64, MetricError> {
    crate::accuracy::accuracy(gold, pred)
}

fn f1_macro_by<K: Ord + std::hash::Hash + Copy>(
    gold: impl ExactSizeIterator<Item = K>,
    pred: impl ExactSizeIterator<Item = K>,
) -> Result<f64, MetricError> {
    if gold.len() != pred.len() {
        return Err(MetricError::LengthMismatch {
            left: gold.len(),
            right: pred.len(),
        });
    }
    if gold.len() == 0 {
        return Err(MetricError::Empty);
    }
    // (tp, t, p) per class, classes sorted.
    let mut counts: BTreeMap<K, (u64, u64, u64)> = BTreeMap::new();
    let mut hits: HashMap<K, u64> = HashMap::new();
    for (g, p) in gold.zip(pred) {
        counts.entry(g).or_default().1 += 1;
        counts.entry(p).or_default().2 += 1;
        if g == p {
            *hits.entry(g).or_default() += 1;
        }
    }
    let f: Vec<f64> = counts
        .iter()
        .map(|(class, &(_, t, p))| {
            let tp = hits.get(class).copied().unwrap_or(0);
            2.0 * tp as f64 / (t + p) as f64
        })
        .collect();
    Ok(numpy_sum(&f) / f.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sklearn_reference() {
        // f1_score([0, 1, 2, 0, 1, 2], [0, 2, 1, 0, 0, 1], average="macro") == 0.26666666666666666
        let (g, p) = (
            [0.0, 1.0, 2.0, 0.0, 1.0, 2.0],
            [0.0, 2.0, 1.0, 0.0, 0.0, 1.0],
        );
        assert_eq!(f1_macro(&g, &p), Ok(0.26666666666666666));
        // average="micro" == 0.3333333333333333
        assert_eq!(f1_micro(&g, &p), Ok(0.3333333333333333));
        // f1_score(["a", "b", "b"], ["b", "b", "c"], average="macro") == 0.16666666666666666
        assert_eq!(
            f1_macro_labels(&["a", "b", "b"], &["b", "b", "c"]),
            Ok(0.16666666666666666)
        );
    }

    #[test]
    fn refusals() {
        assert_eq!(f1_macro(&[], &[]), Err(MetricError::Empty));
        assert!(f1_macro(&[1.5], &[1.5]).is_err());
        assert!(f1_macro(&[1.0], &[]).is_err());
    }
}
