//! Quadratic weighted kappa (Cohen's κ with quadratic weights).
//!
//! Reference: scikit-learn `cohen_kappa_score(y1, y2, weights="quadratic", labels=None)`.
//! Like scikit-learn it refuses ("continuous is not supported") values that are not integers,
//! and values from 2^63 on in magnitude (numpy's cast to int64 fails there): undefined here.
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
//! Sums follow numpy's order ([`crate::numpy_sum`]), so results match bit for bit. More than
//! [`MAX_LABELS`] distinct labels is undefined (the k × k matrices would not fit in memory).

use std::collections::HashMap;

use crate::error::MetricError;
use crate::numpy_sum::pairwise_sum_by;

/// Most distinct labels QWK accepts (scikit-learn builds k × k float matrices).
pub const MAX_LABELS: usize = 10_000;

/// Whether scikit-learn's `type_of_target` calls a float `continuous`: not an integer, or not
/// representable as an int64 (numpy's cast of such a value gives -2^63).
pub(crate) fn is_continuous(v: f64) -> bool {
    const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
    v.fract() != 0.0 || !(-TWO_POW_63..TWO_POW_63).contains(&v)
}

/// scikit-learn's refusal of non-finite and continuous targets (`_check_targets`).
pub(crate) fn check_classification_targets(values: &[f64]) -> Result<(), MetricError> {
    if let Some(bad) = values.iter().find(|v| !v.is_finite()) {
        return Err(MetricError::undefined(format!(
            "non-finite label {bad} (scikit-learn raises)"
        )));
    }
    if let Some(bad) = values.iter().find(|v| is_continuous(**v)) {
        return Err(MetricError::undefined(format!(
            "label {bad} is not an integer: scikit-learn's classification metrics refuse continuous targets"
        )));
    }
    Ok(())
}

/// A hash key for a label: `-0.0` and `0.0` are one label, as `==` says.
fn label_key(v: f64) -> u64 {
    if v == 0.0 { 0 } else { v.to_bits() }
}

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

/// The distinct values in `total_cmp` order (`-0.0` and `0.0` are one label, as `==` says).
/// Up to [`MAX_LABELS`] of them are gathered as the values pass (a sorted list of their keys),
/// so a big input is not copied; past that (QWK refuses them, naming how many) every value is
/// sorted.
fn sorted_distinct(values: impl Iterator<Item = f64> + Clone) -> Vec<f64> {
    let mut seen: Vec<u64> = Vec::new();
    let mut last = None;
    for v in values.clone() {
        let key = label_key(v);
        if last == Some(key) {
            continue;
        }
        last = Some(key);
        if let Err(at) = seen.binary_search(&key) {
            if seen.len() == MAX_LABELS {
                let mut all: Vec<f64> = values.collect();
                all.sort_by(f64::total_cmp);
                all.dedup();
                return all;
            }
            seen.insert(at, key);
        }
    }
    let mut distinct: Vec<f64> = seen.into_iter().map(f64::from_bits).collect();
    distinct.sort_by(f64::total_cmp);
    distinct
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
    check_classification_targets(gold)?;
    check_classification_targets(pred)?;
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
    if labels.len() > MAX_LABELS {
        return Err(MetricError::undefined(format!(
            "{} distinct labels: more than the {MAX_LABELS} QWK handles (k × k matrices)",
            labels.len()
        )));
    }
    // A label's rank: its position; a repeated declared label keeps its LAST position, as
    // scikit-learn's `{label: index}` dict does.
    let mut index: HashMap<u64, usize> = HashMap::with_capacity(labels.len());
    for (i, &l) in labels.iter().enumerate() {
        index.insert(label_key(l), i);
    }
    let rank = |v: f64| index.get(&label_key(v)).copied();
    let k = labels.len();
    // sum0 = column sums (predicted counts), sum1 = row sums (gold counts), as in scikit-learn.
    let mut sum0 = vec![0u64; k];
    let mut sum1 = vec![0u64; k];
    let mut n: u64 = 0;
    let mut observed: u128 = 0;
    for (&g, &p) in gold.iter().zip(pred) {
        if let (Some(i), Some(j)) = (rank(g), rank(p)) {
            sum1[i] += 1;
            sum0[j] += 1;
            n += 1;
            let d = i.abs_diff(j) as u128;
            observed += d * d;
        }
    }
    if n == 0 {
        return Err(MetricError::undefined(
            "no pair has both values among the declared labels",
        ));
    }
    let weight = |i: usize, j: usize| (i.abs_diff(j) * i.abs_diff(j)) as f64;
    // Σ w∘E over the flattened k × k matrix, in numpy's order, without storing it.
    let denominator = pairwise_sum_by(k * k, |c| {
        let (i, j) = (c / k, c % k);
        weight(i, j) * ((sum0[i] * sum1[j]) as f64 / n as f64)
    });
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

    #[test]
    fn continuous_targets_are_undefined_as_in_sklearn() {
        // sklearn: cohen_kappa_score([2.5, 3, 1], [2.5, 3, 2], weights="quadratic") and
        // cohen_kappa_score([1e300, 0, 1], [1e300, 1, 0], ...) raise "continuous is not supported"
        for (g, p) in [
            (vec![2.5, 3.0, 1.0], vec![2.5, 3.0, 2.0]),
            (vec![1e300, 0.0, 1.0], vec![1e300, 1.0, 0.0]),
            (vec![0.0, 1.0, 1e-300], vec![0.0, 1.0, 1.0]),
        ] {
            assert!(matches!(
                quadratic_weighted_kappa(&g, &p),
                Err(MetricError::Undefined { .. })
            ));
        }
        // cohen_kappa_score([2**62, 0, 1], [0, 1, 1], weights="quadratic") == -0.6666666666666667
        let k = quadratic_weighted_kappa(&[2f64.powi(62), 0.0, 1.0], &[0.0, 1.0, 1.0]).unwrap();
        assert!((k - -0.6666666666666667).abs() < 1e-15, "{k}");
    }

    #[test]
    fn many_distinct_labels_stay_fast_and_bounded() {
        // 200,000 pairs over 5,000 labels: no k × k matrix is stored, ranks are looked up.
        let gold: Vec<f64> = (0..200_000).map(|i| f64::from(i % 5_000)).collect();
        let pred: Vec<f64> = gold.iter().map(|g| (g + 1.0) % 5_000.0).collect();
        assert!(quadratic_weighted_kappa(&gold, &pred).is_ok());
        let many: Vec<f64> = (0..20_000).map(f64::from).collect();
        assert!(matches!(
            quadratic_weighted_kappa(&many, &many),
            Err(MetricError::Undefined { .. })
        ));
    }
}
