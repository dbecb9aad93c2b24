//! Summation in numpy's order, so that sums match the official Python code bit for bit.
//!
//! ```text
//! np.sum(a) for a contiguous float64 array (numpy ≥ 1.9, `DOUBLE_pairwise_sum`):
//!   n < 8         left to right from 0.0
//!   8 ≤ n ≤ 128   eight interleaved accumulators r0..r7 over the largest multiple of 8,
//!                 combined ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), then the rest left to right
//!   n > 128       split at n2 = n/2 rounded down to a multiple of 8, sum both halves
//! ```
//! A C-order matrix counts as its flat row-major sequence: numpy coalesces the contiguous
//! dimensions and hands the whole run to one pairwise sum. Verified against numpy 2.4.6:
//! `np.sum` of random (300, 300), (646, 646), (3000, 100) and 1-D arrays of 9,000 to 300,000
//! elements equals [`pairwise_sum`] of the flat array bit for bit, while summing 8192-element
//! chunks (numpy's buffer size, used only when a cast forces buffering) differs in 11 of 12
//! such arrays. The golden SAS-Bench CCS sums (case_17: 646 × 646, case_24) agree.
//! A left-to-right loop differs from this by a few 1e-15, enough to break bit-for-bit CCS/QWK.

/// numpy's pairwise summation of one contiguous run (`DOUBLE_pairwise_sum`).
pub fn pairwise_sum(a: &[f64]) -> f64 {
    if a.len() <= BLOCK {
        slice_block_sum(a)
    } else {
        let mut n2 = a.len() / 2;
        n2 -= n2 % 8;
        pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
    }
}

/// [`block_sum`] of a slice (the same additions, written so that they vectorise).
fn slice_block_sum(a: &[f64]) -> f64 {
    if a.len() < 8 {
        return a.iter().fold(0.0, |res, x| res + x);
    }
    let mut r = [0.0f64; 8];
    r.copy_from_slice(&a[..8]);
    let whole = a.len() - a.len() % 8;
    for chunk in a[8..whole].chunks_exact(8) {
        for (acc, x) in r.iter_mut().zip(chunk) {
            *acc += x;
        }
    }
    let res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    a[whole..].iter().fold(res, |res, x| res + x)
}

/// [`pairwise_sum`] of the virtual array `element(0), …, element(n − 1)`, without storing it
/// (used for the rows of the CCS weight matrix).
#[inline]
pub fn pairwise_sum_by(n: usize, element: impl Fn(usize) -> f64) -> f64 {
    if n <= BLOCK {
        block_sum(0, n, &element)
    } else {
        pairwise_range(0, n, &element)
    }
}

/// numpy's block size: runs up to this length are summed without splitting.
const BLOCK: usize = 128;

/// One run of at most [`BLOCK`] elements.
#[inline]
fn block_sum(start: usize, n: usize, element: &impl Fn(usize) -> f64) -> f64 {
    if n < 8 {
        let mut res = 0.0;
        for i in start..start + n {
            res += element(i);
        }
        res
    } else {
        let mut r = [0.0f64; 8];
        for (j, acc) in r.iter_mut().enumerate() {
            *acc = element(start + j);
        }
        let whole = n - n % 8;
        let mut i = 8;
        while i < whole {
            for (j, acc) in r.iter_mut().enumerate() {
                *acc += element(start + i + j);
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for k in whole..n {
            res += element(start + k);
        }
        res
    }
}

fn pairwise_range(start: usize, n: usize, element: &impl Fn(usize) -> f64) -> f64 {
    if n <= BLOCK {
        block_sum(start, n, element)
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_range(start, n2, element) + pairwise_range(start + n2, n - n2, element)
    }
}

/// [`pairwise_sum`] of an `n`-element array that is `+0.0` except at `entries` (`(index,
/// value)`, strictly increasing indices, values never `-0.0`), visiting only the parts of
/// numpy's summation tree that hold an entry. Bit for bit the dense sum: adding `+0.0` to a
/// partial sum leaves it unchanged, so the zeros can be dropped without changing any rounding.
pub fn pairwise_sum_sparse(n: usize, entries: &[(usize, f64)]) -> f64 {
    sparse_range(0, n, entries)
}

fn sparse_range(start: usize, n: usize, entries: &[(usize, f64)]) -> f64 {
    if entries.is_empty() {
        0.0
    } else if n < 8 {
        entries.iter().fold(0.0, |res, &(_, v)| res + v)
    } else if n <= BLOCK {
        let whole = start + n - n % 8;
        let split = entries.partition_point(|&(i, _)| i < whole);
        let mut r = [0.0f64; 8];
        for &(i, v) in &entries[..split] {
            r[(i - start) % 8] += v;
        }
        let res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        entries[split..].iter().fold(res, |res, &(_, v)| res + v)
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        let split = entries.partition_point(|&(i, _)| i < start + n2);
        sparse_range(start, n2, &entries[..split])
            + sparse_range(start + n2, n - n2, &entries[split..])
    }
}

/// `np.sum(a)` over a whole contiguous float64 array (a C-order matrix counts as its flat
/// row-major sequence): the reduction starts from the identity 0.0 and adds the pairwise sum
/// of the whole run (no 8192-element chunking: see the module doc).
pub fn numpy_sum(a: &[f64]) -> f64 {
    0.0 + pairwise_sum(a)
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

    #[test]
    fn large_arrays_are_not_chunked() {
        // np.sum(np.array([1.0 / (i + 1) for i in range(20000)])) == 10.480728217229327
        // (numpy 2.4.6); 8192-element chunks would give a different last bit.
        let a: Vec<f64> = (0..20000).map(|i| 1.0 / (i as f64 + 1.0)).collect();
        assert_eq!(numpy_sum(&a), 10.480728217229327);
        assert_eq!(pairwise_sum_by(a.len(), |i| a[i]), numpy_sum(&a));
        for n in [0, 3, 8, 13, 128, 129, 1000, 4099] {
            let b = &a[..n];
            assert_eq!(
                pairwise_sum(b).to_bits(),
                pairwise_sum_by(n, |i| b[i]).to_bits(),
                "{n}"
            );
        }
    }

    #[test]
    fn sparse_sum_equals_the_dense_sum() {
        // Deterministic pseudo-random arrays, 0 to ~90% zeros, lengths around the block sizes.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for n in [
            0, 1, 7, 8, 9, 15, 16, 127, 128, 129, 255, 256, 1000, 4097, 20000,
        ] {
            for density in [0, 1, 10, 50, 100] {
                let dense: Vec<f64> = (0..n)
                    .map(|_| {
                        if next() % 100 < density {
                            (next() % 1_000_000) as f64 / 7.0
                        } else {
                            0.0
                        }
                    })
                    .collect();
                let entries: Vec<(usize, f64)> = dense
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| **v != 0.0)
                    .map(|(i, v)| (i, *v))
                    .collect();
                let expected = pairwise_sum(&dense);
                let got = pairwise_sum_sparse(n, &entries);
                assert_eq!(got.to_bits(), expected.to_bits(), "n {n} density {density}");
            }
        }
    }
}
