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
use crate::numpy_sum::{pairwise_sum, pairwise_sum_sparse};
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
    // Per level and position, the offset of U_a[k] into squares[k] (U_a[k] − low_k + span_k);
    // the entry for U_a[k] − U_b[k] is at offset_a[k] − (U_b[k] − low_k).
    let shifted: Vec<usize> = levels
        .iter()
        .flat_map(|u| u.iter().zip(&lows).map(|(x, low)| (x - low) as usize))
        .collect();
    let spans: Vec<usize> = (0..l).map(|k| (highs[k] - lows[k]) as usize).collect();
    let total = n as f64;
    let pred_levels: Vec<usize> = (0..t).filter(|&b| col_sums[b] > 0).collect();
    let mut o_entries: Vec<(usize, f64)> = Vec::with_capacity(cells.len());
    let mut e_entries: Vec<(usize, f64)> = Vec::new();
    let mut cell = 0;
    let mut terms = vec![0.0f64; l];
    for a in 0..t {
        let Some(wa) = &weight_rows[a] else { continue };
        if row_sums[a] == 0 {
            continue;
        }
        let sa = &shifted[a * l..(a + 1) * l];
        for &b in &pred_levels {
            let sb = &shifted[b * l..(b + 1) * l];
            // W[a,b] as numpy computes it: np.sum(w_a * diff ** 2).
            for k in 0..l {
                terms[k] = wa[k] * squares[k][sa[k] + spans[k] - sb[k]];
            }
            let w = pairwise_sum(&terms);
            let i = a * t + b;
            let e = (row_sums[a] as f64 * col_sums[b] as f64) / total;
            e_entries.push((i, e * w));
            while cell < cells.len() && cells[cell] < i {
                cell += 1;
            }
            let first = cell;
            while cell < cells.len() && cells[cell] == i {
                cell += 1;
            }
            if cell > first {
                o_entries.push((i, (cell - first) as f64 * w));
            }
        }
    }
    let sum_o_times_w = 0.0 + pairwise_sum_sparse(t * t, &o_entries);
    let sum_e_times_w = 0.0 + pairwise_sum_sparse(t * t, &e_entries);
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
