//! Summation in numpy's order, so that sums match the official Python code bit for bit.
//!
//! ```text
//! np.sum(a) for a contiguous float64 array (numpy ≥ 1.9, `DOUBLE_pairwise_sum`):
//!   n < 8         left to right from 0.0
//!   8 ≤ n ≤ 128   eight interleaved accumulators r0..r7 over the largest multiple of 8,
//!                 combined ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), then the rest left to right
//!   n > 128       split at n2 = n/2 rounded down to a multiple of 8, sum both halves
//! ```
//! A left-to-right loop differs from this by a few 1e-15, enough to break bit-for-bit CCS/QWK.

/// numpy's pairwise summation of one contiguous run (`DOUBLE_pairwise_sum`).
pub fn pairwise_sum(a: &[f64]) -> f64 {
    const BLOCK: usize = 128;
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for &x in a {
            res += x;
        }
        res
    } else if n <= BLOCK {
        let mut r = [0.0f64; 8];
        r.copy_from_slice(&a[..8]);
        let whole = n - n % 8;
        let mut i = 8;
        while i < whole {
            for (j, acc) in r.iter_mut().enumerate() {
                *acc += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &x in &a[whole..] {
            res += x;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
    }
}

/// `np.sum(a)` over a whole contiguous float64 array (a C-order matrix counts as its flat
/// row-major sequence): the reduction starts from the identity 0.0 and adds the pairwise sum
/// of each buffer-sized chunk (numpy's default buffer holds 8192 elements).
pub fn numpy_sum(a: &[f64]) -> f64 {
    const BUFSIZE: usize = 8192;
    let mut acc = 0.0;
    for chunk in a.chunks(BUFSIZE) {
        acc += pairwise_sum(chunk);
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_arrays_sum_left_to_right() {
        assert_eq!(pairwise_sum(&[]), 0.0);
        assert_eq!(pairwise_sum(&[0.1, 0.2, 0.3]), (0.1 + 0.2) + 0.3);
    }

    #[test]
    fn blocks_use_eight_accumulators() {
        // 0.1 repeated 10 times: numpy gives 1.0 (np.sum(np.full(10, 0.1)) == 1.0),
        // a left-to-right loop gives 0.9999999999999999.
        let a = [0.1; 10];
        assert_eq!(pairwise_sum(&a), 1.0);
        assert_ne!(a.iter().fold(0.0, |s, x| s + x), 1.0);
    }
}
