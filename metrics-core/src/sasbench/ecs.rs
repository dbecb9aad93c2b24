//! ECS (error consistency score), per prediction file.
//!
//! Reference: `utils/errors_consistency_score.py::compute_ecs` as called by
//! `sas_pipelines/4_compute_ecs.py` (SAS-Bench commit 4ef718b).
//!
//! ```text
//! slots   = taxonomy names of the file's q_id, then 步骤正确 (none when no line matches);
//!           unknown names count in slot len(dict) − 1 (the 步骤正确 slot); 步骤正确 is skipped
//! x_r     = G_r / (total_r + 1e-10);  s = sorted(x)
//! τ1 = s[int(N·0.33)],  τ2 = s[int(N·0.67)]
//! tier(x) = 0 if x ≤ τ1, 1 if x < τ2, else 2
//! gold counts of r → tier(x_r); predicted counts of r → tier(P_r / (total_r + 1e-10))
//! ρ_i     = spearman(pred_row_i, gold_row_i) over the slots, NaN → 0
//! ECS     = (ρ_0 + ρ_1 + ρ_2) / 3
//! ```
//! Quirks reproduced: crude quantile indices; predictions binned by the GOLD thresholds;
//! undefined tiers (constant row, fewer than 2 slots) count as 0 and still divide by 3;
//! unknown names land in the 步骤正确 slot; the 1e-10 epsilons (they change results).
//! Where the official code raises — no records (IndexError), an error name while the
//! taxonomy has no line for the file (IndexError), a step without `errors` — the scorer
//! returns a [`RecordError`].
//!
//! Corrected variant: thresholds are proper quantiles, numpy's default linear interpolation
//! `np.quantile(x, 1/3)` and `np.quantile(x, 2/3)`; everything else as above.

use super::Variant;
use super::ccs::RecordError;
use super::format::{CORRECT_NAME, ErrorSlots, Response};
use crate::error::MetricError;
use crate::spearman::spearman;

/// ECS with its parts.
#[derive(Debug, Clone, PartialEq)]
pub struct Ecs {
    pub ecs: f64,
    /// Tier correlations after NaN → 0 (low, middle, high).
    pub tiers: [f64; 3],
    /// Tier correlations before the replacement.
    pub tiers_raw: [Result<f64, MetricError>; 3],
    pub range1: f64,
    pub range2: f64,
    /// 3 × slots error counts.
    pub pred_matrix: Vec<Vec<f64>>,
    pub gold_matrix: Vec<Vec<f64>>,
}

fn tier(x: f64, range1: f64, range2: f64) -> usize {
    if x <= range1 {
        0
    } else if x < range2 {
        1
    } else {
        2
    }
}

/// numpy's default (`linear`) quantile of sorted values.
fn linear_quantile(sorted: &[f64], q: f64) -> f64 {
    let position = q * (sorted.len() - 1) as f64;
    let below = position.floor() as usize;
    let above = (below + 1).min(sorted.len() - 1);
    let fraction = position - below as f64;
    // numpy's _lerp: a + (b − a)·t, computed from the other end when t ≥ 0.5.
    let (a, b) = (sorted[below], sorted[above]);
    let diff = b - a;
    if fraction >= 0.5 {
        b - diff * (1.0 - fraction)
    } else {
        a + diff * fraction
    }
}

fn count(
    names: &Result<Vec<super::format::Name>, String>,
    slots: &ErrorSlots,
    row: &mut [f64],
    line: usize,
) -> Result<(), RecordError> {
    let names = names.as_ref().map_err(|m| RecordError {
        line,
        message: m.clone(),
    })?;
    for name in names {
        if name.as_ref() == CORRECT_NAME {
            continue;
        }
        let slot = slots.slot(name).ok_or_else(|| RecordError {
            line,
            message: format!(
                "error name {name:?} but the taxonomy has no line for this file (the official step 4 raises IndexError)"
            ),
        })?;
        row[slot] += 1.0;
    }
    Ok(())
}

pub fn ecs(
    responses: &[Response],
    slots: &ErrorSlots,
    variant: Variant,
) -> Result<Ecs, RecordError> {
    let n = responses.len();
    if n == 0 {
        return Err(RecordError {
            line: 0,
            message: "no records (the official step 4 raises IndexError)".into(),
        });
    }
    let norm: Vec<f64> = responses
        .iter()
        .map(|r| r.gold_total as f64 / (r.total + 1e-10))
        .collect();
    let mut sorted = norm.clone();
    sorted.sort_by(f64::total_cmp);
    let (range1, range2) = match variant {
        Variant::Official => (
            sorted[(n as f64 * 0.33) as usize],
            sorted[(n as f64 * 0.67) as usize],
        ),
        Variant::Corrected => (
            linear_quantile(&sorted, 1.0 / 3.0),
            linear_quantile(&sorted, 2.0 / 3.0),
        ),
    };
    let width = slots.len();
    let mut pred_matrix = vec![vec![0.0f64; width]; 3];
    let mut gold_matrix = vec![vec![0.0f64; width]; 3];
    for (r, resp) in responses.iter().enumerate() {
        let mut p_row = vec![0.0; width];
        let mut g_row = vec![0.0; width];
        count(&resp.gold_errors, slots, &mut g_row, resp.line)?;
        count(&resp.pred_errors, slots, &mut p_row, resp.line)?;
        let pred_x = resp.pred_total as f64 / (resp.total + 1e-10);
        let pt = tier(pred_x, range1, range2);
        let gt = tier(norm[r], range1, range2);
        for j in 0..width {
            pred_matrix[pt][j] += p_row[j];
            gold_matrix[gt][j] += g_row[j];
        }
    }
    let tiers_raw: [Result<f64, MetricError>; 3] = std::array::from_fn(|i| {
        spearman(&pred_matrix[i], &gold_matrix[i]).and_then(|v| {
            if v.is_finite() {
                Ok(v)
            } else {
                Err(MetricError::undefined("non-finite correlation"))
            }
        })
    });
    let tiers: [f64; 3] = std::array::from_fn(|i| tiers_raw[i].clone().unwrap_or(0.0));
    // np.mean of three values: pairwise sum (left to right for n < 8) divided by 3.
    let ecs = (0.0 + tiers[0] + tiers[1] + tiers[2]) / 3.0;
    Ok(Ecs {
        ecs,
        tiers,
        tiers_raw,
        range1,
        range2,
        pred_matrix,
        gold_matrix,
    })
}
