//! ASAP-AES (the Hewlett Foundation Automated Essay Scoring prize, Kaggle 2012): quadratic
//! weighted kappa per essay set and Kaggle's Fisher-z mean over sets.
//!
//! Matches benhamner/Metrics `Python/ml_metrics/quadratic_weighted_kappa.py` (commit 9a637aea):
//!
//! ```text
//! per set      essays in gold-file order; g = domain1_score; p = int(prediction), truncated
//!              toward zero (2.999 → 2, −0.6 → 0) — the official `np.array(p, dtype=int)`
//! range        min/max of g and p together (observed, not the set's declared range); N ratings
//! qwk          O = confusion counts, a/b = histograms, n = essays;
//!              for i in 0..N: for j in 0..N:                      (Python float order)
//!                  E = a_i·b_j / n;  d = (i−j)² / (N−1)²
//!                  num += d·O_ij / n;  den += d·E / n
//!              qwk = 1 − num/den; N = 1 or den = 0 → ZeroDivisionError officially: `null` here,
//!              with a warning naming the set, and both means `null`
//! mean_qwk_fisher  κ clipped to [−0.999, 0.999], z = ½·ln((1+κ)/(1−κ)), numpy mean of z,
//!              (e^{2z} − 1)/(e^{2z} + 1) — equal weights, sets present in ascending order
//! mean_qwk     numpy mean of the per-set κ (what most papers print)
//! ```
//! `corrected` (the research convention): predictions rounded half to even (`np.rint`) and
//! clipped to the set's declared range, QWK over the declared range. Declared ranges: set 1
//! 2–12, 2 1–6, 3 0–3, 4 0–3, 5 0–4, 6 0–4, 7 0–30, 8 0–60.

pub mod format;

use std::collections::HashMap;

use serde_json::json;

use crate::error::InputError;
use crate::numpy_sum::pairwise_sum;
use crate::report::{InputFile, MetricValue, Metrics, Overall, Report, Subset, Warning};
pub use format::{GoldEssay, Prediction, parse_gold, parse_predictions};

/// Which rules to score with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Variant {
    /// The official Kaggle metric.
    #[default]
    Official,
    /// Rounded, clipped predictions over the declared range.
    Corrected,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Self::Official => "official",
            Self::Corrected => "corrected",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        [Self::Official, Self::Corrected]
            .into_iter()
            .find(|v| v.name() == name)
    }
}

/// The declared score range of essay set `set` (1–8).
pub fn declared_range(set: u8) -> (i64, i64) {
    match set {
        1 => (2, 12),
        2 => (1, 6),
        3 | 4 => (0, 3),
        5 | 6 => (0, 4),
        7 => (0, 30),
        _ => (0, 60),
    }
}

/// One essay with its gold score and prediction (the page's samples and the bootstrap read these).
#[derive(Debug, Clone, PartialEq)]
pub struct Essay {
    pub id: String,
    pub set: u8,
    pub gold: i64,
    /// The prediction as read.
    pub pred: f64,
    /// 1-based line in the gold file.
    pub line: usize,
}

/// Pair every gold essay with its prediction: each gold essay needs exactly one prediction and
/// each prediction a gold essay.
pub fn join(
    gold_file: &str,
    gold: &[GoldEssay],
    pred_file: &str,
    predictions: &[Prediction],
) -> Result<Vec<Essay>, InputError> {
    let mut by_id: HashMap<&str, &Prediction> = HashMap::with_capacity(predictions.len());
    for p in predictions {
        if let Some(first) = by_id.insert(p.id.as_str(), p) {
            return Err(InputError::at_line(
                pred_file,
                p.line,
                format!(
                    "essay_id {} is predicted twice (lines {} and {})",
                    p.id, first.line, p.line
                ),
            ));
        }
    }
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(gold.len());
    let mut out = Vec::with_capacity(gold.len());
    for g in gold {
        if let Some(first) = seen.insert(g.id.as_str(), g.line) {
            return Err(InputError::at_line(
                gold_file,
                g.line,
                format!(
                    "essay_id {} appears twice (lines {first} and {})",
                    g.id, g.line
                ),
            ));
        }
        let p = by_id.get(g.id.as_str()).ok_or_else(|| {
            InputError::at_line(
                gold_file,
                g.line,
                format!("essay_id {} has no prediction in {pred_file}", g.id),
            )
        })?;
        out.push(Essay {
            id: g.id.clone(),
            set: g.set,
            gold: g.score,
            pred: p.score,
            line: g.line,
        });
    }
    if let Some(p) = predictions
        .iter()
        .find(|p| !seen.contains_key(p.id.as_str()))
    {
        return Err(InputError::at_line(
            pred_file,
            p.line,
            format!("essay_id {} is not in the gold file {gold_file}", p.id),
        ));
    }
    Ok(out)
}

/// The integer rating a prediction becomes under `variant` in essay set `set`.
pub fn rating(pred: f64, set: u8, variant: Variant) -> i64 {
    match variant {
        // `np.array(p, dtype=int)`: truncation toward zero.
        Variant::Official => pred.trunc() as i64,
        Variant::Corrected => {
            let (lo, hi) = declared_range(set);
            (pred.round_ties_even() as i64).clamp(lo, hi)
        }
    }
}

/// The official `quadratic_weighted_kappa(a, b, min_rating, max_rating)`; `None` where it raises
/// ZeroDivisionError (one rating only, or no expected disagreement).
pub fn quadratic_weighted_kappa(a: &[i64], b: &[i64], range: Option<(i64, i64)>) -> Option<f64> {
    let (min, max) = range.or_else(|| {
        let lo = a.iter().chain(b).min()?;
        let hi = a.iter().chain(b).max()?;
        Some((*lo, *hi))
    })?;
    let n_ratings = usize::try_from(max - min + 1).ok()?;
    if a.is_empty() || n_ratings < 2 || a.len() != b.len() {
        return None;
    }
    let index = |r: i64| usize::try_from(r - min).ok().filter(|&i| i < n_ratings);
    let mut confusion = vec![0u64; n_ratings * n_ratings];
    let (mut hist_a, mut hist_b) = (vec![0u64; n_ratings], vec![0u64; n_ratings]);
    for (&x, &y) in a.iter().zip(b) {
        let (i, j) = (index(x)?, index(y)?);
        confusion[i * n_ratings + j] += 1;
        hist_a[i] += 1;
        hist_b[j] += 1;
    }
    let n = a.len() as f64;
    let last = ((n_ratings - 1) as f64).powf(2.0);
    let (mut numerator, mut denominator) = (0.0f64, 0.0f64);
    for i in 0..n_ratings {
        for j in 0..n_ratings {
            let expected = (hist_a[i] * hist_b[j]) as f64 / n;
            let d = (i as f64 - j as f64).powf(2.0) / last;
            numerator += d * confusion[i * n_ratings + j] as f64 / n;
            denominator += d * expected / n;
        }
    }
    (denominator != 0.0).then(|| 1.0 - numerator / denominator)
}

/// numpy's mean: the pairwise sum divided by the count.
pub fn numpy_mean(values: &[f64]) -> f64 {
    pairwise_sum(values) / values.len() as f64
}

/// The official `mean_quadratic_weighted_kappa(kappas)` (equal weights).
pub fn mean_quadratic_weighted_kappa(kappas: &[f64]) -> f64 {
    let z: Vec<f64> = kappas
        .iter()
        .map(|&k| {
            let k = k.clamp(-0.999, 0.999);
            0.5 * ((1.0 + k) / (1.0 - k)).ln() * 1.0
        })
        .collect();
    let z = numpy_mean(&z);
    ((2.0 * z).exp() - 1.0) / ((2.0 * z).exp() + 1.0)
}

/// Score joined essays: per-set QWK, `mean_qwk_fisher` and `mean_qwk`.
pub fn score(
    inputs: Vec<InputFile>,
    gold_file: &str,
    essays: &[Essay],
    variant: Variant,
    with_samples: bool,
) -> Report {
    let mut sets: Vec<u8> = essays.iter().map(|e| e.set).collect();
    sets.sort_unstable();
    sets.dedup();
    let mut warnings = Vec::new();
    let mut subsets = Vec::new();
    let mut kappas: Vec<Option<f64>> = Vec::new();
    for &set in &sets {
        let members: Vec<&Essay> = essays.iter().filter(|e| e.set == set).collect();
        let gold: Vec<i64> = members.iter().map(|e| e.gold).collect();
        let pred: Vec<i64> = members
            .iter()
            .map(|e| rating(e.pred, set, variant))
            .collect();
        let range = (variant == Variant::Corrected).then(|| declared_range(set));
        let name = format!("set_{set}");
        let kappa = quadratic_weighted_kappa(&gold, &pred, range);
        if kappa.is_none() {
            let why = if range.is_some()
                && gold.iter().any(|g| {
                    let (lo, hi) = declared_range(set);
                    !(lo..=hi).contains(g)
                }) {
                "a gold score lies outside the set's declared range"
            } else {
                "one rating only, or no expected disagreement (the official code raises ZeroDivisionError)"
            };
            warnings.push(Warning {
                path: gold_file.to_string(),
                line: None,
                message: format!("{name}: qwk is undefined: {why}"),
            });
        }
        kappas.push(kappa);
        let mut metrics = Metrics::new();
        metrics.insert("qwk".into(), MetricValue::Scalar(kappa));
        subsets.push(Subset {
            name,
            n: members.len(),
            metrics,
        });
    }
    let all: Option<Vec<f64>> = kappas.iter().copied().collect();
    let all = all.filter(|k| !k.is_empty());
    let mut metrics = Metrics::new();
    metrics.insert(
        "mean_qwk_fisher".into(),
        MetricValue::Scalar(all.as_deref().map(mean_quadratic_weighted_kappa)),
    );
    metrics.insert(
        "mean_qwk".into(),
        MetricValue::Scalar(all.as_deref().map(numpy_mean)),
    );
    if all.is_none() && !essays.is_empty() {
        warnings.push(Warning {
            path: gold_file.to_string(),
            line: None,
            message: "overall: mean_qwk_fisher and mean_qwk are undefined because a set's qwk is"
                .into(),
        });
    }
    let samples = with_samples.then(|| {
        essays
            .iter()
            .map(|e| {
                json!({
                    "id": e.id, "set": e.set, "line": e.line, "gold": e.gold,
                    "pred": e.pred, "rating": rating(e.pred, e.set, variant),
                })
            })
            .collect()
    });
    Report {
        benchmark: "asap-aes".into(),
        variant: variant.name().into(),
        inputs,
        overall: Overall {
            n: essays.len(),
            metrics,
        },
        subsets,
        samples,
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_and_rounding() {
        assert_eq!(rating(2.999, 1, Variant::Official), 2);
        assert_eq!(rating(-0.6, 3, Variant::Official), 0);
        assert_eq!(rating(2.5, 3, Variant::Corrected), 2);
        assert_eq!(rating(3.5, 3, Variant::Corrected), 3);
        assert_eq!(rating(-0.6, 3, Variant::Corrected), 0);
        assert_eq!(rating(70.0, 8, Variant::Corrected), 60);
    }

    #[test]
    fn constant_ratings_are_undefined() {
        assert_eq!(quadratic_weighted_kappa(&[2, 2], &[2, 2], None), None);
        assert_eq!(
            quadratic_weighted_kappa(&[1, 2, 3], &[1, 2, 3], None),
            Some(1.0)
        );
        assert_eq!(
            quadratic_weighted_kappa(&[0, 0], &[0, 0], Some((0, 3))),
            None
        );
    }
}
