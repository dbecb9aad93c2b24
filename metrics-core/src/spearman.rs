//! Spearman rank correlation.
//!
//! Reference: `scipy.stats.spearmanr(x, y).statistic` (two 1-D inputs).
//!
//! ```text
//! rank(v)  = average ranks, 1-based (scipy.stats.rankdata(v, method="average"))
//! ρ        = pearson_sums(rank(x), rank(y))   (ranks are moderate: no scaling needed)
//! ```
//! Undefined (scipy returns NaN): fewer than 2 observations, a constant input (all ranks
//! equal), a NaN (scipy's default `nan_policy` propagates it). Infinities rank like any value. scipy correlates the ranks with `np.corrcoef`, whose BLAS
//! dot product orders the sums differently, so agreement is to ~1e-15, not bit for bit.

use crate::error::MetricError;
use crate::pearson::pearson_sums;

/// Average ranks (1-based), ties share the mean of the ranks they span.
pub fn average_ranks(v: &[f64]) -> Vec<f64> {
    // Positions as u32 when they fit: half the memory of usize ones on big inputs.
    match u32::try_from(v.len()) {
        Ok(n) => ranks_in_order(v, (0..n).collect(), |i| i as usize),
        Err(_) => ranks_in_order(v, (0..v.len()).collect(), |i| i),
    }
}

/// [`average_ranks`] with `order` the positions `0..v.len()` (`at` reads one as an index).
fn ranks_in_order<T: Copy>(v: &[f64], mut order: Vec<T>, at: impl Fn(T) -> usize) -> Vec<f64> {
    order.sort_by(|&a, &b| v[at(a)].total_cmp(&v[at(b)]));
    let mut ranks = vec![0.0; v.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && v[at(order[end])] == v[at(order[start])] {
            end += 1;
        }
        // Ranks start + 1 ..= end share their mean.
        let rank = (start + 1 + end) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[at(i)] = rank;
        }
        start = end;
    }
    ranks
}

/// Spearman's ρ of `x` and `y`.
pub fn spearman(x: &[f64], y: &[f64]) -> Result<f64, MetricError> {
    if x.len() != y.len() {
        return Err(MetricError::LengthMismatch {
            left: x.len(),
            right: y.len(),
        });
    }
    if x.is_empty() {
        return Err(MetricError::Empty);
    }
    if x.iter().chain(y).any(|v| v.is_nan()) {
        return Err(MetricError::undefined("input contains NaN"));
    }
    pearson_sums(&average_ranks(x), &average_ranks(y))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scipy_reference_values() {
        // scipy.stats.spearmanr([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]).statistic == 0.8207826816681233
        let r = spearman(&[1.0, 2.0, 3.0, 4.0, 5.0], &[5.0, 6.0, 7.0, 8.0, 7.0]).unwrap();
        assert!((r - 0.8207826816681233).abs() < 1e-15, "{r}");
        // scipy.stats.spearmanr([2, 8, 5, 1, 8, 2, 0], [1, 1, 3, 0, 2, 2, 9]).statistic
        //   == -0.11111111111111113
        let r = spearman(
            &[2.0, 8.0, 5.0, 1.0, 8.0, 2.0, 0.0],
            &[1.0, 1.0, 3.0, 0.0, 2.0, 2.0, 9.0],
        )
        .unwrap();
        assert!((r - -0.11111111111111113).abs() < 1e-15, "{r}");
        // scipy.stats.spearmanr([1, 2], [5, 3]).statistic == -0.9999999999999999
        let r = spearman(&[1.0, 2.0], &[5.0, 3.0]).unwrap();
        assert!((r - -0.9999999999999999).abs() < 1e-15, "{r}");
    }

    #[test]
    fn ranks_average_ties() {
        // scipy.stats.rankdata([3, 1, 3, 2, 3]) == [4., 1., 4., 2., 4.]
        assert_eq!(
            average_ranks(&[3.0, 1.0, 3.0, 2.0, 3.0]),
            vec![4.0, 1.0, 4.0, 2.0, 4.0]
        );
    }

    #[test]
    fn undefined_cases() {
        assert!(matches!(
            spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]),
            Err(MetricError::Undefined { .. })
        ));
        assert!(matches!(
            spearman(&[1.0], &[2.0]),
            Err(MetricError::Undefined { .. })
        ));
        assert!(matches!(
            spearman(&[f64::NAN, 1.0], &[2.0, 3.0]),
            Err(MetricError::Undefined { .. })
        ));
        assert_eq!(spearman(&[], &[]), Err(MetricError::Empty));
        assert_eq!(
            spearman(&[1.0], &[]),
            Err(MetricError::LengthMismatch { left: 1, right: 0 })
        );
    }

    #[test]
    fn infinities_rank_like_values() {
        // scipy.stats.spearmanr([1, inf, 3, -inf], [1, 2, 3, 5]).statistic == -0.39999999999999997
        let r = spearman(
            &[1.0, f64::INFINITY, 3.0, f64::NEG_INFINITY],
            &[1.0, 2.0, 3.0, 5.0],
        )
        .unwrap();
        assert!((r - -0.39999999999999997).abs() < 1e-15, "{r}");
        assert!(spearman(&[1.0, f64::NAN, 3.0], &[1.0, 2.0, 3.0]).is_err());
    }
}
