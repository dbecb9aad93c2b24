//! Quadratic weighted kappa (Cohen's κ with quadratic weights).
//!
//! Reference: scikit-learn `cohen_kappa_score(y1, y2, weights="quadratic", labels=None)`.
//!
//! ```text
//! labels   L = sorted distinct values of y1 ∪ y2     (or the declared `labels`)
//! O[i,j]   = #{r : y1_r = L_i, y2_r = L_j}          (pairs with a value outside L are dropped)
//! E[i,j]   = colsum(O)_i · rowsum(O)_j / N           (np.outer(sum0, sum1) / N)
//! w[i,j]   = (i − j)²                                (over label RANKS, not label values)
//! κ        = 1 − Σ w∘O / Σ w∘E
//! ```
//! Quirks kept from scikit-learn: weights use label ranks, so labels {0, 5, 6} are spaced as
//! {0, 1, 2}; one observed label gives 0/0 (NaN there, [`MetricError::Undefined`] here).
//! Sums follow numpy's order ([`crate::numpy_sum`]), so results match bit for bit.

use crate::error::MetricError;
use crate::numpy_sum::numpy_sum;

/// Quadratic weighted kappa of `gold` vs `pred`, labels = sorted distinct observed values.
pub fn quadratic_weighted_kappa(gold: &[f64], pred: &[f64]) -> Result<f64, MetricError> {
    kappa(gold, pred, None)
}

/// Quadratic weighted kappa over a declared label set (scikit-learn's `labels=`): pairs where
/// either side is outside `labels` are left out, and the weights use ranks within `labels`.
pub fn quadratic_weighted_kappa_with_labels(
    gold: &[f64],
    pred: &[f64],
    labels: &[f64],
) -> Result<f64, MetricError> {
    kappa(gold, pred, Some(labels))
}

fn sorted_distinct(values: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    v
}

fn kappa(gold: &[f64], pred: &[f64], declared: Option<&[f64]>) -> Result<f64, MetricError> {
    if gold.len() != pred.len() {
        return Err(MetricError::LengthMismatch {
            left: gold.len(),
            right: pred.len(),
        });
    }
    if gold.is_empty() {
        return Err(MetricError::Empty);
    }
    if let Some(bad) = gold.iter().chain(pred).find(|v| !v.is_finite()) {
        return Err(MetricError::undefined(format!("non-finite label {bad}")));
    }
    let labels = match declared {
        None => sorted_distinct(gold.iter().chain(pred).copied()),
        Some(declared) => {
            if declared.is_empty() {
                return Err(MetricError::undefined("the declared label set is empty"));
            }
            let labels = declared.to_vec();
            if !gold.iter().any(|g| labels.contains(g)) {
                return Err(MetricError::undefined(
                    "none of the declared labels occurs in the gold values",
                ));
            }
            labels
        }
    };
    let rank = |v: f64| labels.iter().position(|&l| l == v);
    let k = labels.len();
    let mut confusion = vec![0u64; k * k];
    for (&g, &p) in gold.iter().zip(pred) {
        if let (Some(i), Some(j)) = (rank(g), rank(p)) {
            confusion[i * k + j] += 1;
        }
    }
    let n: u64 = confusion.iter().sum();
    if n == 0 {
        return Err(MetricError::undefined(
            "no pair has both values among the declared labels",
        ));
    }
    // sum0 = column sums (predicted counts), sum1 = row sums (gold counts), as in scikit-learn.
    let sum0: Vec<u64> = (0..k)
        .map(|j| (0..k).map(|i| confusion[i * k + j]).sum())
        .collect();
    let sum1: Vec<u64> = (0..k)
        .map(|i| confusion[i * k..(i + 1) * k].iter().sum())
        .collect();
    let weight = |i: usize, j: usize| (i.abs_diff(j) * i.abs_diff(j)) as u64;
    let mut observed: u64 = 0;
    let mut weighted_expected = Vec::with_capacity(k * k);
    for i in 0..k {
        for j in 0..k {
            observed += weight(i, j) * confusion[i * k + j];
            let expected = (sum0[i] * sum1[j]) as f64 / n as f64;
            weighted_expected.push(weight(i, j) as f64 * expected);
        }
    }
    let denominator = numpy_sum(&weighted_expected);
    let kappa = 1.0 - observed as f64 / denominator;
    if kappa.is_finite() {
        Ok(kappa)
    } else {
        Err(MetricError::undefined(if k == 1 {
            "only one distinct label observed (0/0)".to_string()
        } else {
            "zero expected disagreement (0/0)".to_string()
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i64]) -> Vec<f64> {
        v.iter().map(|&x| x as f64).collect()
    }

    fn repeat(parts: &[(i64, usize)]) -> Vec<f64> {
        parts
            .iter()
            .flat_map(|&(v, n)| std::iter::repeat_n(v as f64, n))
            .collect()
    }

    #[test]
    fn sklearn_reference_quadratic() {
        // scikit-learn test_cohen_kappa:
        // y1 = [0]*46 + [1]*44 + [2]*10; y2 = [0]*50 + [1]*40 + [2]*10
        // cohen_kappa_score(y1, y2, weights="quadratic") -> 0.9541284403669725 (scikit-learn 1.9.1)
        let y1 = repeat(&[(0, 46), (1, 44), (2, 10)]);
        let y2 = repeat(&[(0, 50), (1, 40), (2, 10)]);
        assert_eq!(quadratic_weighted_kappa(&y1, &y2), Ok(0.9541284403669725));
        // cohen_kappa_score([0, 1, 2, 3], [0, 2, 2, 2], weights="quadratic") -> 0.75
        assert_eq!(
            quadratic_weighted_kappa(&ints(&[0, 1, 2, 3]), &ints(&[0, 2, 2, 2])),
            Ok(0.75)
        );
    }

    #[test]
    fn perfect_agreement_is_one_and_single_label_is_undefined() {
        let y = ints(&[0, 1, 2, 2, 3]);
        assert_eq!(quadratic_weighted_kappa(&y, &y), Ok(1.0));
        assert!(matches!(
            quadratic_weighted_kappa(&ints(&[3, 3]), &ints(&[3, 3])),
            Err(MetricError::Undefined { .. })
        ));
    }

    #[test]
    fn declared_labels_drop_other_pairs() {
        // sklearn: adding pairs (2, 2) and passing labels=[0, 1] leaves kappa unchanged.
        let mut y1 = repeat(&[(0, 40), (1, 60)]);
        let mut y2 = repeat(&[(0, 20), (1, 20), (0, 10), (1, 50)]);
        let base = quadratic_weighted_kappa(&y1, &y2).unwrap();
        y1.extend([2.0; 4]);
        y2.extend([2.0; 4]);
        assert_eq!(
            quadratic_weighted_kappa_with_labels(&y1, &y2, &[0.0, 1.0]),
            Ok(base)
        );
    }

    #[test]
    fn weights_use_ranks_not_values() {
        let a = quadratic_weighted_kappa(&ints(&[0, 5, 6, 0]), &ints(&[5, 5, 6, 0])).unwrap();
        let b = quadratic_weighted_kappa(&ints(&[0, 1, 2, 0]), &ints(&[1, 1, 2, 0])).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn bad_shapes() {
        assert_eq!(quadratic_weighted_kappa(&[], &[]), Err(MetricError::Empty));
        assert_eq!(
            quadratic_weighted_kappa(&[1.0], &[]),
            Err(MetricError::LengthMismatch { left: 1, right: 0 })
        );
    }
}
