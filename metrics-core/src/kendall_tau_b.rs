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
//! (`xtie == tot` or `ytie == tot`), a NaN (scipy's default `nan_policy` propagates it).
//! Infinities rank like any value.

use crate::error::MetricError;

/// An order-preserving integer key of a non-NaN float (`-0.0` counts as `0.0`, as `==` does):
/// `a < b ⇔ key(a) < key(b)` and `a == b ⇔ key(a) == key(b)`.
fn key(v: f64) -> u64 {
    let bits = if v == 0.0 { 0 } else { v.to_bits() };
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

/// Stable LSD radix sort of `order` (positions in `values`) by `key(values[i])`, one byte per
/// pass; passes where every key has the same byte are skipped. `buffer` is scratch. Only the
/// positions move (4 bytes each), not the keys: big inputs sort in a third of the memory. Each
/// pass reads its byte of every key from a byte array filled in value order (a small array the
/// scattered reads find in cache).
fn radix_sort(order: &mut Vec<u32>, buffer: &mut Vec<u32>, values: &[f64]) {
    let n = order.len();
    // The byte counts do not depend on the order: read the values in place.
    let mut counts = vec![[0usize; 256]; 8];
    for &v in values {
        let k = key(v);
        for (d, count) in counts.iter_mut().enumerate() {
            count[((k >> (8 * d)) & 0xff) as usize] += 1;
        }
    }
    buffer.clear();
    buffer.resize(n, 0);
    let mut digits = Vec::new();
    for (d, count) in counts.iter().enumerate() {
        if count.contains(&n) {
            continue;
        }
        digits.clear();
        digits.extend(values.iter().map(|&v| (key(v) >> (8 * d)) as u8));
        let mut offsets = [0usize; 256];
        let mut sum = 0;
        for (offset, &c) in offsets.iter_mut().zip(count) {
            *offset = sum;
            sum += c;
        }
        for &i in order.iter() {
            let digit = usize::from(digits[i as usize]);
            buffer[offsets[digit]] = i;
            offsets[digit] += 1;
        }
        std::mem::swap(order, buffer);
    }
}

/// Pairs among runs of equal values: Σ t(t − 1)/2.
fn tied_pairs<T: PartialEq>(values: impl Iterator<Item = T>) -> u64 {
    let mut total = 0u64;
    let mut run = 0u64;
    let mut previous: Option<T> = None;
    for v in values {
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
    if n <= 24 {
        // Insertion sort: each shift is one inversion.
        let mut inversions = 0;
        for i in 1..n {
            let x = v[i];
            let mut j = i;
            while j > 0 && v[j - 1] > x {
                v[j] = v[j - 1];
                j -= 1;
            }
            v[j] = x;
            inversions += (i - j) as u64;
        }
        return inversions;
    }
    let mid = n / 2;
    let mut inversions = {
        let (left, right) = v.split_at_mut(mid);
        count_inversions(left, &mut buffer[..mid]) + count_inversions(right, &mut buffer[mid..])
    };
    if v[mid - 1] <= v[mid] {
        return inversions; // already in order (common: runs of tied x are sorted by y)
    }
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

/// Number of pairs i < j with `ranks[i] > ranks[j]` for ranks below `levels`, with a Fenwick
/// tree over the ranks (for few distinct ranks: the tree stays in cache).
fn count_inversions_by_rank(ranks: &[u32], levels: usize) -> u64 {
    let mut tree = vec![0u32; levels + 1];
    let mut inversions = 0u64;
    for (seen, &r) in ranks.iter().enumerate() {
        // Earlier ranks ≤ r.
        let mut not_greater = 0u64;
        let mut i = r as usize + 1;
        while i > 0 {
            not_greater += u64::from(tree[i]);
            i &= i - 1;
        }
        inversions += seen as u64 - not_greater;
        let mut i = r as usize + 1;
        while i <= levels {
            tree[i] += 1;
            i += i & i.wrapping_neg();
        }
    }
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
    if x.iter().chain(y).any(|v| v.is_nan()) {
        return Err(MetricError::undefined("input contains NaN"));
    }
    if n < 2 {
        return Err(MetricError::undefined(
            "kendall's tau needs at least 2 observations",
        ));
    }
    // u32 indices and ranks keep the sorts and the inversion count cache-friendly.
    if u32::try_from(n).is_err() {
        return Err(MetricError::undefined("more than 2^32 observations"));
    }
    // Sort by y once: dense y ranks and the y ties.
    let mut order: Vec<u32> = (0..n as u32).collect();
    let mut buffer = Vec::with_capacity(n);
    radix_sort(&mut order, &mut buffer, y);
    let y_key = |i: u32| key(y[i as usize]);
    let ytie = tied_pairs(order.iter().map(|&i| y_key(i)));
    let mut y_rank = vec![0u32; n];
    let mut rank = 0u32;
    let mut previous = y_key(order[0]);
    for &i in &order {
        if y_key(i) != previous {
            rank += 1;
            previous = y_key(i);
        }
        y_rank[i as usize] = rank;
    }
    let levels = rank as usize + 1;
    // A stable sort by x of the y order is the order by (x, y rank), so ties in x are sorted
    // by y and never count as discordant.
    radix_sort(&mut order, &mut buffer, x);
    let x_key = |i: u32| key(x[i as usize]);
    let xtie = tied_pairs(order.iter().map(|&i| x_key(i)));
    let ntie = tied_pairs(order.iter().map(|&i| (x_key(i), y_rank[i as usize])));
    // The y ranks in that order (in the buffer's memory; `order` is the scratch after).
    let mut ys = buffer;
    ys.clear();
    ys.extend(order.iter().map(|&i| y_rank[i as usize]));
    drop(y_rank);
    let dis = if levels <= 1 << 16 {
        count_inversions_by_rank(&ys, levels)
    } else {
        count_inversions(&mut ys, &mut order)
    };
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

    /// τ-b from an O(n²) count over all pairs (scipy's definition).
    fn brute_force(x: &[f64], y: &[f64]) -> f64 {
        let (mut c, mut d, mut tx, mut ty) = (0i64, 0i64, 0i64, 0i64);
        for i in 0..x.len() {
            for j in i + 1..x.len() {
                let (dx, dy) = (x[i] - x[j], y[i] - y[j]);
                if dx == 0.0 && dy == 0.0 {
                } else if dx == 0.0 {
                    tx += 1;
                } else if dy == 0.0 {
                    ty += 1;
                } else if (dx > 0.0) == (dy > 0.0) {
                    c += 1;
                } else {
                    d += 1;
                }
            }
        }
        (c - d) as f64 / (((c + d + tx) * (c + d + ty)) as f64).sqrt()
    }

    #[test]
    fn matches_brute_force_on_random_data() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        // Few and many distinct values (both inversion counters), negatives, ±0.0.
        for (n, spread) in [
            (50, 3),
            (200, 10),
            (300, 1_000_000),
            (500, 100_000),
            (70_000, 100_000),
        ] {
            let mut value = |_| {
                let v = (next() % spread) as f64 - (spread / 2) as f64;
                if v == 0.0 && next() % 2 == 0 {
                    -0.0
                } else {
                    v * 0.5
                }
            };
            let x: Vec<f64> = (0..n).map(&mut value).collect();
            let y: Vec<f64> = (0..n).map(&mut value).collect();
            let tau = kendall_tau_b(&x, &y).unwrap();
            if n <= 500 {
                let expected = brute_force(&x, &y);
                assert!((tau - expected).abs() < 1e-14, "n {n}: {tau} vs {expected}");
            }
            // The two inversion counters agree.
            let levels = 1 << 17;
            let ranks: Vec<u32> = x.iter().map(|v| (v.abs() * 2.0) as u32 % levels).collect();
            let mut sorted = ranks.clone();
            let mut scratch = vec![0; n];
            assert_eq!(
                count_inversions_by_rank(&ranks, levels as usize),
                count_inversions(&mut sorted, &mut scratch)
            );
        }
    }

    #[test]
    fn negative_zero_ties_with_zero() {
        // scipy.stats.kendalltau([-0.0, 0.0, 1.0], [2.0, 1.0, 3.0]).statistic == 0.816496580927726
        assert_eq!(
            kendall_tau_b(&[-0.0, 0.0, 1.0], &[2.0, 1.0, 3.0]),
            Ok(0.816496580927726)
        );
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

    #[test]
    fn infinities_rank_like_values() {
        // scipy.stats.kendalltau([1, inf, 3, -inf], [1, 2, 3, 5]).statistic == -0.3333333333333334
        let t = kendall_tau_b(
            &[1.0, f64::INFINITY, 3.0, f64::NEG_INFINITY],
            &[1.0, 2.0, 3.0, 5.0],
        )
        .unwrap();
        assert!((t - -0.3333333333333334).abs() < 1e-15, "{t}");
        assert!(kendall_tau_b(&[1.0, f64::NAN, 3.0], &[1.0, 2.0, 3.0]).is_err());
    }
}
