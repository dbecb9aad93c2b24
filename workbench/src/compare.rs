//! Several models on the same benchmark: a metrics-per-model table and a per-sample diff.
//!
//! The paired bootstrap itself is [`crate::bootstrap`]; [`Xoshiro256StarStar`] and [`percentile`]
//! are its PRNG and interval rule.

use serde::Serialize;

use crate::drill::SampleRow;

use crate::table::{Cell, Column, OVERALL, Row, Table, scalar_keys};

use metrics_core::report::{MetricValue, Report};

/// The metrics-per-model table: one row per model, one column per overall scalar metric, shown
/// as each model's own table shows it (its scale and decimals; the reason of an undefined value
/// from its table's overall cell).
pub fn metrics_table(models: &[(String, &Report, &Table)]) -> Table {
    let mut keys: Vec<String> = Vec::new();
    for (_, r, _) in models {
        for k in scalar_keys(r) {
            if !keys.contains(&k) && r.overall.metrics.contains_key(&k) {
                keys.push(k);
            }
        }
    }
    let (scale, decimals) = models
        .first()
        .map_or((1.0, 4), |(_, _, t)| (t.scale, t.decimals));
    let rows = models
        .iter()
        .map(|(model, r, t)| Row {
            key: model.clone(),
            label: model.clone(),
            n: Some(r.overall.n),
            cells: keys
                .iter()
                .map(|k| {
                    let value = r.overall.metrics.get(k).and_then(MetricValue::as_scalar);
                    Cell {
                        subset: OVERALL.into(),
                        metric: k.clone(),
                        value,
                        display: value
                            .map_or_else(|| "—".into(), |v| format!("{:.*}", decimals, v * scale)),
                        undefined_reason: value.is_none().then(|| {
                            t.cell(OVERALL, k)
                                .and_then(|c| c.undefined_reason.clone())
                                .unwrap_or_else(|| "undefined (null in the report)".into())
                        }),
                    }
                })
                .collect(),
        })
        .collect();
    Table {
        benchmark: models
            .first()
            .map(|(_, r, _)| r.benchmark.clone())
            .unwrap_or_default(),
        variant: models
            .first()
            .map(|(_, r, _)| r.variant.clone())
            .unwrap_or_default(),
        scale,
        decimals,
        corner: "model".into(),
        columns: keys
            .iter()
            .map(|k| Column {
                key: k.clone(),
                label: k.clone(),
                n: None,
            })
            .collect(),
        rows,
        caption: "overall metrics per model".into(),
    }
}

/// xoshiro256** seeded by splitmix64: a small, fast, well-tested PRNG with no OS entropy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Xoshiro256StarStar {
    s: [u64; 4],
}

impl Xoshiro256StarStar {
    /// The state is four successive splitmix64 outputs of `seed` (the authors' recommendation).
    pub fn seed_from_u64(seed: u64) -> Self {
        let mut x = seed;
        let mut splitmix = || {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        Self {
            s: [splitmix(), splitmix(), splitmix(), splitmix()],
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// A uniform integer in `0..n` (Lemire's multiply-shift with rejection; `n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let mut m = u128::from(self.next_u64()) * u128::from(n);
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = u128::from(self.next_u64()) * u128::from(n);
            }
        }
        (m >> 64) as u64
    }
}

/// numpy.percentile(values, q) with the default linear rule; `None` for no values.
pub fn percentile(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let position = q / 100.0 * last as f64;
    let below = position.floor() as usize;
    let above = (below + 1).min(last);
    let t = position - below as f64;
    let (a, b) = (sorted[below], sorted[above]);
    // numpy's _lerp: from the upper end when t ≥ 0.5.
    Some(if t >= 0.5 {
        b - (b - a) * (1.0 - t)
    } else {
        a + (b - a) * t
    })
}

/// Why two models cannot be compared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CompareError(pub String);

/// Positions of `b`'s ids in `a`'s order: `(index in a, index in b)` for ids in both (the first
/// occurrence of a repeated id).
pub fn align_ids<'x>(
    a: impl Iterator<Item = &'x str>,
    b: impl Iterator<Item = &'x str>,
) -> Vec<(usize, usize)> {
    let mut index = std::collections::HashMap::new();
    for (j, id) in b.enumerate() {
        index.entry(id).or_insert(j);
    }
    let mut seen = std::collections::HashSet::new();
    a.enumerate()
        .filter(|(_, id)| seen.insert(*id))
        .filter_map(|(i, id)| index.get(id).map(|&j| (i, j)))
        .collect()
}

pub fn pick<T: Clone>(items: &[T], indices: &[usize]) -> Vec<T> {
    indices.iter().map(|&i| items[i].clone()).collect()
}

/// One sample of two models side by side.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct SampleDiff {
    pub subset: String,
    pub id: String,
    pub gold: String,
    pub pred_a: String,
    pub pred_b: String,
    /// |pred_a − pred_b| when numeric, else 0 (same) or 1 (different).
    pub disagreement: f64,
    /// Indices into each report's samples.
    pub index_a: usize,
    pub index_b: usize,
}

/// The sample rows of two models aligned on (subset, id), most disagreeing first (ties in `a`'s
/// order).
pub fn sample_diff(ra: &[SampleRow], rb: &[SampleRow]) -> Vec<SampleDiff> {
    let keys_a: Vec<String> = ra
        .iter()
        .map(|r| format!("{}\u{0}{}", r.subset, r.id))
        .collect();
    let keys_b: Vec<String> = rb
        .iter()
        .map(|r| format!("{}\u{0}{}", r.subset, r.id))
        .collect();
    let mut out: Vec<SampleDiff> = align_ids(
        keys_a.iter().map(String::as_str),
        keys_b.iter().map(String::as_str),
    )
    .into_iter()
    .map(|(i, j)| {
        let (x, y) = (&ra[i], &rb[j]);
        let disagreement = match (x.pred_value, y.pred_value) {
            (Some(p), Some(q)) => (p - q).abs(),
            _ => f64::from(u8::from(x.pred != y.pred)),
        };
        SampleDiff {
            subset: x.subset.clone(),
            id: x.id.clone(),
            gold: x.gold.clone(),
            pred_a: x.pred.clone(),
            pred_b: y.pred.clone(),
            disagreement,
            index_a: x.index,
            index_b: y.index,
        }
    })
    .collect();
    out.sort_by(|p, q| q.disagreement.total_cmp(&p.disagreement));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xoshiro_matches_the_reference() {
        // Python port of splitmix64 + xoshiro256** (prng.di.unimi.it), seed 42: the first three
        // outputs.
        let mut rng = Xoshiro256StarStar::seed_from_u64(42);
        let first: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
        assert_eq!(first, REFERENCE_SEED_42);
        let mut rng = Xoshiro256StarStar::seed_from_u64(7);
        for _ in 0..1000 {
            assert!(rng.below(3) < 3);
        }
    }

    // M = 2**64 - 1; rotl = lambda x, k: ((x << k) | (x >> (64 - k))) & M
    // state: x = 42; 4 × {x = (x + 0x9e3779b97f4a7c15) & M; z = x;
    //   z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M; z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M;
    //   z ^ (z >> 31)}
    // next: r = rotl(s1 * 5 & M, 7) * 9 & M; t = s1 << 17 & M; s2 ^= s0; s3 ^= s1; s1 ^= s2;
    //   s0 ^= s3; s2 ^= t; s3 = rotl(s3, 45)
    const REFERENCE_SEED_42: [u64; 3] = [
        1_546_998_764_402_558_742,
        6_990_951_692_964_543_102,
        12_544_586_762_248_559_009,
    ];

    #[test]
    fn percentile_is_numpys() {
        // numpy: np.percentile([3.0, 1.0, 4.0, 1.5, 9.0, 2.6], [2.5, 97.5]) → [1.0625, 8.375]
        let mut v = vec![3.0, 1.0, 4.0, 1.5, 9.0, 2.6];
        v.sort_by(f64::total_cmp);
        assert!((percentile(&v, 2.5).unwrap() - 1.0625).abs() < 1e-12);
        assert!((percentile(&v, 97.5).unwrap() - 8.375).abs() < 1e-12);
        assert_eq!(percentile(&[], 50.0), None);
    }
}
