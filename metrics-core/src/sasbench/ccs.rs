//! CCS (collaborative consistency score) and the QWK of the totals, per prediction file.
//!
//! Reference: `utils/collaborative_consistency_score.py::adjusted_qwk` as called by
//! `sas_pipelines/3_compute_ccs.py` (SAS-Bench commit 4ef718b).
//!
//! ```text
//! per record r (file order): g_r = (G_r, gold step 1..n_r), p_r = (P_r, pred step 1..n_r),
//!     weight row w_r = [0.5] + [0.5/n_r] × n_r, all zero-padded to L = 1 + max n_r
//! M_0 = max(0, largest total); M_k = largest value at position k over all g_r and p_r
//! U   = sorted distinct vectors of {g_r} ∪ {p_r};  T = |U|
//! O[a,b] = #{r : g_r = U_a, p_r = U_b};  E = outer(rowsum O, colsum O) / N
//! W[a,b] = Σ_k w_a[k] · ((U_a[k] − U_b[k]) / (M_k + 1e-10))²     (np.sum over k)
//! CCS = 1 − Σ O∘W / Σ E∘W                                          (np.sum over T×T)
//! ```
//! Official quirks reproduced ([`Variant::Official`](super::Variant)):
//! - `w_a` is the weight row of the a-th RECORD in file order, not of vector a (so CCS
//!   depends on record order), and `W[a,b] = 0` for `a ≥ N` (more vectors than records);
//! - all vectors identical → 0/0 (NaN there, [`MetricError::Undefined`] here);
//! - every sum is numpy's pairwise sum ([`crate::numpy_sum`]), so `Σ O∘W`, `Σ E∘W` and CCS
//!   match bit for bit.
//!
//! QWK: `cohen_kappa_score(gold_totals, pred_totals, weights="quadratic")` ([`crate::qwk`]):
//! weights over the RANKS of the observed totals, pooled across questions.
//!
//! Corrected variant ([`Variant::Corrected`](super::Variant)):
//! - CCS: the weight row of vector a is the mean weight row of the records whose GOLD vector is
//!   a (rows of vectors that are never gold have no observed or expected mass), for every a —
//!   no zeroed rows, and the result does not depend on record order;
//! - QWK on the declared scale: labels 0, 1, …, ⌈max total⌉ (integer steps), predicted totals
//!   clamped into that range, so weights are score distances and not observed ranks.

use super::Variant;
use super::format::Response;
use crate::error::MetricError;
use crate::numpy_sum::{pairwise_sum, pairwise_sum_by, pairwise_sum_sparse};
use crate::qwk::{quadratic_weighted_kappa, quadratic_weighted_kappa_with_labels};

/// Where a scorer hit a value the official code crashes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordError {
    pub line: usize,
    pub message: String,
}

/// The score vectors of one file, as step 3 builds them.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreVectors {
    /// L = 1 + most steps.
    pub tuple_length: usize,
    /// Row-major N × L.
    pub gold: Vec<i64>,
    pub pred: Vec<i64>,
    pub weights: Vec<f64>,
    /// M_k.
    pub max_scores: Vec<f64>,
}

impl ScoreVectors {
    pub fn n(&self) -> usize {
        self.gold.len() / self.tuple_length.max(1)
    }

    pub fn from_responses(responses: &[Response]) -> Result<Self, RecordError> {
        if responses.is_empty() {
            return Err(RecordError {
                line: 0,
                message: "no records (the official step 3 raises IndexError)".into(),
            });
        }
        let tuple_length = 1 + responses
            .iter()
            .map(|r| r.gold_steps.len())
            .max()
            .unwrap_or(0);
        let n = responses.len();
        let mut gold = vec![0i64; n * tuple_length];
        let mut pred = vec![0i64; n * tuple_length];
        let mut weights = vec![0.0f64; n * tuple_length];
        let mut max_total = 0.0f64;
        for (r, resp) in responses.iter().enumerate() {
            if max_total < resp.total {
                max_total = resp.total;
            }
            let pred_steps = resp.pred_steps.as_ref().map_err(|m| RecordError {
                line: resp.line,
                message: m.clone(),
            })?;
            let row = r * tuple_length;
            gold[row] = resp.gold_total;
            pred[row] = resp.pred_total;
            weights[row] = 0.5;
            let n_steps = resp.gold_steps.len();
            for k in 0..n_steps {
                gold[row + 1 + k] = resp.gold_steps[k];
                pred[row + 1 + k] = pred_steps[k];
                weights[row + 1 + k] = 0.5 / n_steps as f64;
            }
        }
        let mut max_scores: Vec<f64> = (0..tuple_length)
            .map(|k| {
                (0..n)
                    .flat_map(|r| [gold[r * tuple_length + k], pred[r * tuple_length + k]])
                    .max()
                    .unwrap_or(0) as f64
            })
            .collect();
        max_scores[0] = max_total;
        Ok(Self {
            tuple_length,
            gold,
            pred,
            weights,
            max_scores,
        })
    }

    fn gold_row(&self, r: usize) -> &[i64] {
        &self.gold[r * self.tuple_length..(r + 1) * self.tuple_length]
    }

    fn pred_row(&self, r: usize) -> &[i64] {
        &self.pred[r * self.tuple_length..(r + 1) * self.tuple_length]
    }
}

/// CCS with the two sums of its ratio.
#[derive(Debug, Clone, PartialEq)]
pub struct Ccs {
    pub ccs: Result<f64, MetricError>,
    pub sum_o_times_w: f64,
    pub sum_e_times_w: f64,
    /// T, the number of distinct vectors.
    pub n_levels: usize,
}

/// CCS of the score vectors.
///
/// Only the entries that can be non-zero are computed: `O[a,b]` at the N observed pairs and
/// `E[a,b]` where vector a is some record's gold vector and b some record's prediction
/// (elsewhere a row or column sum is 0). The sums run over numpy's pairwise tree of the whole
/// T × T array with the zeros left out ([`pairwise_sum_sparse`]), which is bit for bit numpy's
/// sum; each `W[a,b]` is computed once, as numpy computes it.
pub fn ccs(v: &ScoreVectors, variant: Variant) -> Ccs {
    let l = v.tuple_length;
    let n = v.n();
    let mut levels: Vec<&[i64]> = (0..n)
        .flat_map(|r| [v.gold_row(r), v.pred_row(r)])
        .collect();
    levels.sort_unstable();
    levels.dedup();
    let t = levels.len();
    let index = |row: &[i64]| levels.binary_search(&row).unwrap_or(0);
    let mut row_sums = vec![0u64; t];
    let mut col_sums = vec![0u64; t];
    let gold_index: Vec<usize> = (0..n).map(|r| index(v.gold_row(r))).collect();
    // The observed cells a·T + b, sorted; a run of equal cells is O[a,b].
    let mut cells: Vec<usize> = Vec::with_capacity(n);
    for (r, &a) in gold_index.iter().enumerate() {
        let b = index(v.pred_row(r));
        cells.push(a * t + b);
        row_sums[a] += 1;
        col_sums[b] += 1;
    }
    cells.sort_unstable();
    // The weight row used for vector a (`None`: W[a, ·] = 0).
    let weight_rows: Vec<Option<Vec<f64>>> = match variant {
        Variant::Official => (0..t)
            .map(|a| (a < n).then(|| v.weights[a * l..(a + 1) * l].to_vec()))
            .collect(),
        Variant::Corrected => {
            let mut sums = vec![vec![0.0f64; l]; t];
            for (r, &a) in gold_index.iter().enumerate() {
                for (sum, w) in sums[a].iter_mut().zip(&v.weights[r * l..(r + 1) * l]) {
                    *sum += w;
                }
            }
            sums.into_iter()
                .enumerate()
                .map(|(a, row)| {
                    Some(
                        row.into_iter()
                            .map(|s| {
                                if row_sums[a] > 0 {
                                    s / row_sums[a] as f64
                                } else {
                                    0.0
                                }
                            })
                            .collect(),
                    )
                })
                .collect()
        }
    };
    // ((U_a[k] − U_b[k]) / (M_k + 1e-10))², tabulated per position k and integer difference:
    // the same doubles numpy computes, without a division per matrix entry.
    let lows: Vec<i64> = (0..l)
        .map(|k| levels.iter().map(|u| u[k]).min().unwrap_or(0))
        .collect();
    let highs: Vec<i64> = (0..l)
        .map(|k| levels.iter().map(|u| u[k]).max().unwrap_or(0))
        .collect();
    let squares: Vec<Vec<f64>> = (0..l)
        .map(|k| {
            let span = highs[k] - lows[k];
            let denominator = v.max_scores[k] + 1e-10;
            (-span..=span)
                .map(|delta| {
                    let diff = delta as f64 / denominator;
                    diff * diff
                })
                .collect()
        })
        .collect();
    // All tables in one array: squares[k] starts at starts[k]. For vector a, the entry for
    // U_a[k] − U_b[k] is at bases_a[k] − (U_b[k] − low_k), bases_a[k] = starts[k] + span_k +
    // U_a[k] − low_k.
    let mut starts = Vec::with_capacity(l);
    let mut table = Vec::new();
    for row in &squares {
        starts.push(table.len());
        table.extend_from_slice(row);
    }
    let spans: Vec<usize> = (0..l).map(|k| (highs[k] - lows[k]) as usize).collect();
    let total = n as f64;
    // The predicted vectors (columns with mass); position by position (k-major), each value
    // as U_b[k] − low_k.
    let pred_levels: Vec<usize> = (0..t).filter(|&b| col_sums[b] > 0).collect();
    let np = pred_levels.len();
    let mut pred_shifted: Vec<usize> = Vec::with_capacity(l * np);
    for k in 0..l {
        pred_shifted.extend(
            pred_levels
                .iter()
                .map(|&b| (levels[b][k] - lows[k]) as usize),
        );
    }
    let pred_mass: Vec<f64> = pred_levels.iter().map(|&b| col_sums[b] as f64).collect();
    let mut o_entries: Vec<(usize, f64)> = Vec::with_capacity(cells.len());
    // E∘W, dense (numpy sums the whole T × T array; the cells left 0 are 0 there too).
    let mut e_times_w = vec![0.0f64; t * t];
    let mut cell = 0;
    let mut terms = vec![0.0f64; l * np];
    let mut w_row = vec![0.0f64; np];
    let mut lanes = vec![0.0f64; 8 * np];
    for a in 0..t {
        let Some(wa) = &weight_rows[a] else { continue };
        if row_sums[a] == 0 {
            continue;
        }
        // terms[k][j] = w_a[k] · ((U_a[k] − U_b[k]) / (M_k + 1e-10))² for b = pred_levels[j].
        for k in 0..l {
            let base = starts[k] + spans[k] + (levels[a][k] - lows[k]) as usize;
            let (w, tab) = (wa[k], &table[..=base]);
            for (term, &sb) in terms[k * np..(k + 1) * np]
                .iter_mut()
                .zip(&pred_shifted[k * np..(k + 1) * np])
            {
                *term = w * tab[base - sb];
            }
        }
        // W[a,b] as numpy computes it: np.sum(w_a * diff ** 2), for every b at once.
        column_pairwise_sums(&terms, l, &mut w_row, &mut lanes);
        let row_mass = row_sums[a] as f64;
        let row = &mut e_times_w[a * t..(a + 1) * t];
        for ((&b, &w), &col_mass) in pred_levels.iter().zip(&w_row).zip(&pred_mass) {
            let e = (row_mass * col_mass) / total;
            row[b] = e * w;
        }
        // O∘W at the observed cells of this row (pred_levels is sorted, cells too).
        let mut j = 0;
        while cell < cells.len() && cells[cell] < (a + 1) * t {
            let i = cells[cell];
            let first = cell;
            while cell < cells.len() && cells[cell] == i {
                cell += 1;
            }
            let b = i - a * t;
            while pred_levels[j] < b {
                j += 1;
            }
            o_entries.push((i, (cell - first) as f64 * w_row[j]));
        }
    }
    let sum_o_times_w = 0.0 + pairwise_sum_sparse(t * t, &o_entries);
    let sum_e_times_w = 0.0 + pairwise_sum(&e_times_w);
    let value = 1.0 - sum_o_times_w / sum_e_times_w;
    let ccs = if value.is_finite() {
        Ok(value)
    } else {
        Err(MetricError::undefined(
            "every score vector is the same (0/0)",
        ))
    };
    Ccs {
        ccs,
        sum_o_times_w,
        sum_e_times_w,
        n_levels: t,
    }
}

/// For each column j of the k-major `l × m` array `terms` (`m = out.len()`), numpy's
/// pairwise sum of `terms[0][j], …, terms[l − 1][j]` ([`crate::numpy_sum`]), bit for bit;
/// the columns are summed side by side so that the additions vectorise. `lanes`: scratch of
/// `8 m`.
fn column_pairwise_sums(terms: &[f64], l: usize, out: &mut [f64], lanes: &mut [f64]) {
    let m = out.len();
    let column = |k: usize| &terms[k * m..(k + 1) * m];
    if l < 8 {
        // Left to right from 0.0.
        out.fill(0.0);
        for k in 0..l {
            for (o, x) in out.iter_mut().zip(column(k)) {
                *o += x;
            }
        }
    } else if l <= 128 {
        // Eight accumulators over the largest multiple of 8, combined pairwise, then the rest.
        for r in 0..8 {
            lanes[r * m..(r + 1) * m].copy_from_slice(column(r));
        }
        let whole = l - l % 8;
        for i in (8..whole).step_by(8) {
            for r in 0..8 {
                for (acc, x) in lanes[r * m..(r + 1) * m].iter_mut().zip(column(i + r)) {
                    *acc += x;
                }
            }
        }
        let lane = |r: usize| &lanes[r * m..(r + 1) * m];
        for (j, o) in out.iter_mut().enumerate() {
            *o = ((lane(0)[j] + lane(1)[j]) + (lane(2)[j] + lane(3)[j]))
                + ((lane(4)[j] + lane(5)[j]) + (lane(6)[j] + lane(7)[j]));
        }
        for k in whole..l {
            for (o, x) in out.iter_mut().zip(column(k)) {
                *o += x;
            }
        }
    } else {
        // More than 128 positions (127 steps): one column at a time.
        for (j, o) in out.iter_mut().enumerate() {
            *o = pairwise_sum_by(l, |k| terms[k * m + j]);
        }
    }
}

/// QWK of the integer totals.
pub fn qwk(responses: &[Response], variant: Variant) -> Result<f64, MetricError> {
    let gold: Vec<f64> = responses.iter().map(|r| r.gold_total as f64).collect();
    let pred: Vec<f64> = responses.iter().map(|r| r.pred_total as f64).collect();
    match variant {
        Variant::Official => quadratic_weighted_kappa(&gold, &pred),
        Variant::Corrected => {
            let top = responses
                .iter()
                .map(|r| r.total)
                .fold(0.0f64, f64::max)
                .ceil();
            let top = gold.iter().copied().fold(top, f64::max);
            let labels: Vec<f64> = (0..=top as i64).map(|v| v as f64).collect();
            let pred: Vec<f64> = pred.iter().map(|p| p.clamp(0.0, top)).collect();
            let gold: Vec<f64> = gold.iter().map(|g| g.max(0.0)).collect();
            quadratic_weighted_kappa_with_labels(&gold, &pred, &labels)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_sums_are_numpy_sums_of_each_column() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 1_000_003) as f64 / 997.0
        };
        for l in [0, 1, 5, 7, 8, 9, 15, 16, 17, 64, 127, 128, 129, 300] {
            let m = 5;
            let terms: Vec<f64> = (0..l * m).map(|_| next()).collect();
            let mut out = vec![f64::NAN; m];
            let mut lanes = vec![0.0; 8 * m];
            column_pairwise_sums(&terms, l, &mut out, &mut lanes);
            for (j, o) in out.iter().enumerate() {
                let expected = pairwise_sum_by(l, |k| terms[k * m + j]);
                assert_eq!(o.to_bits(), expected.to_bits(), "l {l} column {j}");
            }
        }
    }
}
