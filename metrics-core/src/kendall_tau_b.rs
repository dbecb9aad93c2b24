//! Kendall's τ-b rank correlation, O(n log n).
//!
//! Reference: `scipy.stats.kendalltau(x, y, variant="b").statistic` (Knight's algorithm,
//! the same counts scipy computes).
//!
//! ```text
//! tot   = n(n − 1)/2                     all pairs
//! xtie  = Σ_groups t(t − 1)/2            pairs tied in x   (ytie likewise in y)
//! ntie  = Σ_groups t(t − 1)/2            pairs tied in both x and y
//! dis   = #{i < j : (x_i − x_j)(y_i − y_j) < 0}
//! con − dis = tot − xtie − ytie + ntie − 2·dis
//! τ_b   = (con − dis) / sqrt(tot − xtie) / sqrt(tot − ytie),   clipped to [−1, 1]
//! ```
//! The division order is scipy's, so results agree bit for bit whenever the counts are below
//! 2^53. Undefined (scipy returns NaN): fewer than 2 observations, all x or all y tied
//! (`xtie == tot` or `ytie == tot`), a non-finite value (scipy's default `nan_policy`
//! propagates NaN).

use crate::error::MetricError;

/// Pairs among groups of equal values in a sorted run: Σ t(t − 1)/2.
fn tied_pairs<T: PartialEq>(sorted: impl Iterator<Item = T>) -> u64 {
    let mut total = 0u64;
    let mut run = 0u64;
    let mut previous: Option<T> = None;
    for v in sorted {
        if previous.as_ref() == Some(&v) {
            run += 1;
        } else {
            total += run * run.saturating_sub(1) / 2;
            run = 1;
        }
        previous = Some(v);
    }
    total + run * run.saturating_sub(1) / 2
}

/// Number of pairs i < j with `v[i] > v[j]`, by merge sort (sorts `v`).
fn count_inversions(v: &mut [u32], buffer: &mut [u32]) -> u64 {
    let n = v.len();
    if n < 2 {
        return 0;
    }
    let mid = n / 2;
    let mut inversions = {
        let (left, right) = v.split_at_mut(mid);
        count_inversions(left, &mut buffer[..mid]) + count_inversions(right, &mut buffer[mid..])
    };
    let (mut i, mut j, mut k) = (0, mid, 0);
    while i < mid && j < n {
        if v[j] < v[i] {
            buffer[k] = v[j];
            inversions += (mid - i) as u64;
            j += 1;
        } else {
            buffer[k] = v[i];
            i += 1;
        }
        k += 1;
    }
    buffer[k..k + mid - i].copy_from_slice(&v[i..mid]);
    k += mid - i;
    buffer[k..k + n - j].copy_from_slice(&v[j..n]);
    v.copy_from_slice(&buffer[..n]);
    inversions
}

/// Kendall's τ-b of `x` and `y`.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Result<f64, MetricError> {
    if x.len() != y.len() {
        return Err(MetricError::LengthMismatch {
            left: x.len(),
            right: y.len(),
        });
    }
    let n = x.len();
    if n == 0 {
        return Err(MetricError::Empty);
    }
    if x.iter().chain(y).any(|v| !v.is_finite()) {
        return Err(MetricError::undefined("input contains a non-finite value"));
    }
    if n < 2 {
        return Err(MetricError::undefined(
            "kendall's tau needs at least 2 observations",
        ));
    }
    // Dense ranks of y (u32 keeps the merge sort cache-friendly; n ≤ 2^32 is checked).
    let Ok(_) = u32::try_from(n) else {
        return Err(MetricError::undefined("more than 2^32 observations"));
    };
    let mut by_y: Vec<usize> = (0..n).collect();
    by_y.sort_unstable_by(|&a, &b| y[a].total_cmp(&y[b]));
    let mut y_rank = vec![0u32; n];
    let mut rank = 0u32;
    for (k, &i) in by_y.iter().enumerate() {
        if k > 0 && y[i] != y[by_y[k - 1]] {
            rank += 1;
        }
        y_rank[i] = rank;
    }
    // Order by (x, y rank): ties in x are then sorted by y and never count as discordant.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_unstable_by(|&a, &b| x[a].total_cmp(&x[b]).then(y_rank[a].cmp(&y_rank[b])));
    let xtie = tied_pairs(order.iter().map(|&i| x[i]));
    let ntie = tied_pairs(order.iter().map(|&i| (x[i], y_rank[i])));
    let ytie = tied_pairs(by_y.iter().map(|&i| y_rank[i]));
    let mut ys: Vec<u32> = order.iter().map(|&i| y_rank[i]).collect();
    let mut buffer = vec![0u32; n];
    let dis = count_inversions(&mut ys, &mut buffer);
    let tot = (n as u64) * (n as u64 - 1) / 2;
    if xtie == tot || ytie == tot {
        return Err(MetricError::undefined(
            "an input is constant (all pairs tied)",
        ));
    }
    let con_minus_dis = tot as i128 - xtie as i128 - ytie as i128 + ntie as i128 - 2 * dis as i128;
    let tau = con_minus_dis as f64 / ((tot - xtie) as f64).sqrt() / ((tot - ytie) as f64).sqrt();
    Ok(tau.clamp(-1.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scipy_reference_values() {
        // scipy.stats.kendalltau([12, 2, 1, 12, 2], [1, 4, 7, 1, 0]).statistic == -0.4714045207910316
        assert_eq!(
            kendall_tau_b(&[12.0, 2.0, 1.0, 12.0, 2.0], &[1.0, 4.0, 7.0, 1.0, 0.0]),
            Ok(-0.4714045207910316)
        );
        // scipy.stats.kendalltau([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]).statistic == 0.7378647873726218
        assert_eq!(
            kendall_tau_b(&[1.0, 2.0, 3.0, 4.0, 5.0], &[5.0, 6.0, 7.0, 8.0, 7.0]),
            Ok(0.7378647873726218)
        );
        // scipy.stats.kendalltau([1, 2], [2, 1]).statistic == -1.0
        assert_eq!(kendall_tau_b(&[1.0, 2.0], &[2.0, 1.0]), Ok(-1.0));
    }

    #[test]
    fn matches_brute_force_pair_count() {
        let x = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0, 5.0];
        let y = [2.0, 7.0, 1.0, 8.0, 2.0, 8.0, 1.0, 8.0, 2.0, 8.0, 4.0];
        let (mut c, mut d, mut tx, mut ty) = (0i64, 0i64, 0i64, 0i64);
        for i in 0..x.len() {
            for j in i + 1..x.len() {
                let s = (x[i] - x[j]) * (y[i] - y[j]);
                if s > 0.0 {
                    c += 1;
                } else if s < 0.0 {
                    d += 1;
                } else if x[i] == x[j] && y[i] != y[j] {
                    tx += 1;
                } else if y[i] == y[j] && x[i] != x[j] {
                    ty += 1;
                }
            }
        }
        let expected = (c - d) as f64 / (((c + d + tx) * (c + d + ty)) as f64).sqrt();
        let tau = kendall_tau_b(&x, &y).unwrap();
        assert!((tau - expected).abs() < 1e-15, "{tau} vs {expected}");
    }

    #[test]
    fn undefined_cases() {
        // scipy.stats.kendalltau([1, 1, 1], [1, 2, 3]).statistic is nan
        assert!(matches!(
            kendall_tau_b(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]),
            Err(MetricError::Undefined { .. })
        ));
        // scipy.stats.kendalltau([1], [2]).statistic is nan
        assert!(matches!(
            kendall_tau_b(&[1.0], &[2.0]),
            Err(MetricError::Undefined { .. })
        ));
        assert_eq!(kendall_tau_b(&[], &[]), Err(MetricError::Empty));
        assert_eq!(
            kendall_tau_b(&[1.0], &[]),
            Err(MetricError::LengthMismatch { left: 1, right: 0 })
        );
    }
}
