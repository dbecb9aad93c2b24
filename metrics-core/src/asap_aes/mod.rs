//! ASAP-AES — the Hewlett Foundation Automated Essay Scoring prize (Kaggle, 2012): 8 essay sets,
//! one holistic score per essay (`domain1_score`), QWK per set and the mean over sets.
//!
//! Reference: benhamner/Metrics `Python/ml_metrics/quadratic_weighted_kappa.py` at commit
//! 9a637aea (`quadratic_weighted_kappa`, `mean_quadratic_weighted_kappa`; the same code as
//! PyPI `ml_metrics` 0.1.4). Rules in `shared/specs/asap-aes.md`; file formats in [`format`].
//!
//! ```text
//! per essay set s (essays in gold-file order), official variant:
//!   g_k      = domain1_score;  p_k = int(predicted_score)      np.array(p, dtype=int): truncation
//!                                                              toward zero, 2.999 → 2, −0.6 → 0
//!   lo, hi   = min(g ∪ p), max(g ∪ p)                          observed, not the declared range
//!   N        = hi − lo + 1;  n = number of essays
//!   O_ij     = #{k : g_k = lo + i, p_k = lo + j};  a_i, b_j = histograms of g and p
//!   d_ij     = (i − j)² / (N − 1)²
//!   num     += d_ij · O_ij / n;  den += d_ij · (a_i · b_j / n) / n     Python floats, i outer, j inner
//!   qwk_s    = 1 − num / den
//! overall over the sets present, ascending:
//!   mean_qwk_fisher = tanh(mean_s z_s),  z_s = ½ · ln((1 + κ_s) / (1 − κ_s)),  κ_s clipped to ±0.999
//!                     (computed as (e^{2z} − 1) / (e^{2z} + 1); mean = numpy's pairwise np.mean)
//!   mean_qwk        = np.mean(qwk_s)                           what most papers print
//! ```
//! Quirks reproduced: float predictions are truncated, not rounded; the range is the observed one,
//! so the weights of a set change with the scores that happen to occur; sets weigh equally
//! whatever their size. The sums skip the cells whose term is `+0.0` (empty cells, the diagonal),
//! which leaves every partial sum, and so the result, bit for bit the same as the official
//! double loop, without its (hi − lo + 1)² cells. The means sum in numpy's order
//! ([`crate::numpy_sum`]: from 8 sets on, numpy's pairwise sum is not left to right). Every QWK
//! and `mean_qwk` is bit for bit the official value; `mean_qwk_fisher` can differ in the last
//! bits, since numpy's `log`/`exp` are its own vector kernels and Rust's are the platform's libm
//! (3 of the 441 Fisher means in the differential test, by about 1e-16; the spec's tolerance is
//! 1e-12).
//!
//! Where the official code raises: a set whose scores are all one value (N = 1, or den = 0 in the
//! corrected variant) is `ZeroDivisionError` there; here that set's `qwk` is `null` with a
//! warning naming the set, and both overall means are `null` (a mean over fewer sets would not be
//! the official number). Missing, duplicate or unknown essay ids are input errors naming the id.
//!
//! The `corrected` variant ([`Variant::Corrected`]) is the research convention: predictions
//! rounded half to even (`np.rint`), clipped to the set's declared range ([`declared_range`]),
//! and QWK over the declared range (`min_rating`, `max_rating` = declared); same means. A gold
//! score outside the declared range makes that set's corrected `qwk` `null` with a warning (the
//! official function would index outside its matrix).

pub mod format;

use std::collections::{BTreeMap, HashMap};

use serde_json::json;

pub use format::{GoldEssay, MAX_ABS_SCORE, Prediction, parse_gold, parse_predictions};

use crate::error::{InputError, MetricError};
use crate::numpy_sum::numpy_sum;
use crate::report::{InputFile, MetricValue, Metrics, Overall, Report, Subset, Warning};

/// The benchmark key in reports.
pub const BENCHMARK: &str = "asap-aes";

/// The declared `domain1_score` range of each essay set (index 0 = set 1).
pub const DECLARED_RANGES: [(i64, i64); 8] = [
    (2, 12),
    (1, 6),
    (0, 3),
    (0, 3),
    (0, 4),
    (0, 4),
    (0, 30),
    (0, 60),
];

/// The declared score range `(min, max)` of essay set `set` (1–8), `None` for other numbers.
pub fn declared_range(set: u8) -> Option<(i64, i64)> {
    DECLARED_RANGES
        .get(usize::from(set).checked_sub(1)?)
        .copied()
}

/// The subset name of essay set `set`: `set_1` … `set_8`.
pub fn subset_name(set: u8) -> String {
    format!("set_{set}")
}

/// Which scoring rules to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Variant {
    /// Kaggle's metric code: truncated predictions, observed range.
    #[default]
    Official,
    /// Predictions rounded half to even and clipped to the declared range; QWK over it.
    Corrected,
}

impl Variant {
    /// The name in reports: `official` / `corrected`.
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

    /// The integer score a prediction counts as in essay set `set`: truncated toward zero
    /// (official), or rounded half to even and clipped to the declared range (corrected).
    pub fn scored_pred(self, set: u8, pred: f64) -> i64 {
        match (self, declared_range(set)) {
            (Self::Corrected, Some((lo, hi))) => (pred.round_ties_even() as i64).clamp(lo, hi),
            // `as` truncates toward zero, as numpy's float → int cast; the readers bound |pred|.
            _ => pred as i64,
        }
    }

    /// The range QWK runs over: the declared one (corrected), `None` = observed (official).
    fn range(self, set: u8) -> Option<(i64, i64)> {
        match self {
            Self::Official => None,
            Self::Corrected => declared_range(set),
        }
    }
}

/// One gold essay with its prediction: the typed record behind a report (the per-essay sample,
/// and the unit a paired bootstrap resamples).
#[derive(Debug, Clone, PartialEq)]
pub struct Essay {
    pub id: u64,
    /// Essay set (prompt), 1–8.
    pub set: u8,
    /// `domain1_score`.
    pub gold: i64,
    /// `predicted_score` as read.
    pub pred: f64,
    /// The essay text (Latin-1 decoded), for the detail view.
    pub text: String,
    /// 1-based line in the gold file.
    pub line: usize,
    /// 1-based line in the predictions file.
    pub pred_line: usize,
}

impl Essay {
    /// The integer score the prediction counts as under `variant`.
    pub fn pred_used(&self, variant: Variant) -> i64 {
        variant.scored_pred(self.set, self.pred)
    }
}

/// Pair every gold essay with its prediction, in gold order. A prediction whose id is not in the
/// gold file, or a gold essay without a prediction, is an error naming the essay_id.
pub fn join(
    gold_file: &str,
    gold: Vec<GoldEssay>,
    pred_file: &str,
    predictions: &[Prediction],
) -> Result<Vec<Essay>, InputError> {
    let gold_ids: HashMap<u64, usize> = gold.iter().map(|e| (e.id, e.line)).collect();
    if let Some(stray) = predictions.iter().find(|p| !gold_ids.contains_key(&p.id)) {
        return Err(InputError::at_line(
            pred_file,
            stray.line,
            format!("essay_id {} is not in {gold_file}", stray.id),
        ));
    }
    let by_id: HashMap<u64, &Prediction> = predictions.iter().map(|p| (p.id, p)).collect();
    let missing: Vec<(String, usize)> = gold
        .iter()
        .filter(|e| !by_id.contains_key(&e.id))
        .map(|e| (e.id.to_string(), e.line))
        .collect();
    if !missing.is_empty() {
        return Err(crate::error::no_prediction(
            pred_file, "essay_id", gold_file, &missing,
        ));
    }
    Ok(gold
        .into_iter()
        .filter_map(|e| {
            by_id.get(&e.id).map(|p| Essay {
                id: e.id,
                set: e.set,
                gold: e.score,
                pred: p.score,
                text: e.text,
                line: e.line,
                pred_line: p.line,
            })
        })
        .collect())
}

/// Kaggle's `quadratic_weighted_kappa(gold, pred, min_rating, max_rating)` on integer scores:
/// `range = None` takes the observed min and max, `Some((lo, hi))` a declared range (every score
/// must lie in it). Undefined where the official code raises `ZeroDivisionError`.
pub fn quadratic_weighted_kappa(
    gold: &[i64],
    pred: &[i64],
    range: Option<(i64, i64)>,
) -> Result<f64, MetricError> {
    if gold.len() != pred.len() {
        return Err(MetricError::LengthMismatch {
            left: gold.len(),
            right: pred.len(),
        });
    }
    let all = || gold.iter().chain(pred).copied();
    let (Some(min), Some(max)) = (all().min(), all().max()) else {
        return Err(MetricError::Empty);
    };
    let (lo, hi) = range.unwrap_or((min, max));
    if lo < -MAX_ABS_SCORE || hi > MAX_ABS_SCORE {
        return Err(MetricError::undefined(format!(
            "the rating range {lo}–{hi} goes beyond ±{MAX_ABS_SCORE}"
        )));
    }
    if min < lo || max > hi {
        return Err(MetricError::undefined(format!(
            "a score ({}) is outside the range {lo}–{hi}",
            if min < lo { min } else { max }
        )));
    }
    if lo == hi {
        return Err(MetricError::undefined(format!(
            "every score is {lo}, so (N − 1)² = 0 (the official code raises ZeroDivisionError)"
        )));
    }
    let n = gold.len() as f64;
    let mut confusion: BTreeMap<(i64, i64), u64> = BTreeMap::new();
    let mut hist_gold: BTreeMap<i64, u64> = BTreeMap::new();
    let mut hist_pred: BTreeMap<i64, u64> = BTreeMap::new();
    for (&g, &p) in gold.iter().zip(pred) {
        *confusion.entry((g - lo, p - lo)).or_default() += 1;
        *hist_gold.entry(g - lo).or_default() += 1;
        *hist_pred.entry(p - lo).or_default() += 1;
    }
    // pow(i − j, 2.0) / pow(N − 1, 2.0): both squares are exact (|scores| ≤ MAX_ABS_SCORE).
    let span = (hi - lo) as f64;
    let span2 = span * span;
    let d = |i: i64, j: i64| {
        let diff = (i - j) as f64;
        diff * diff / span2
    };
    // The official double loop adds d·O/n and d·E/n for every cell, i outer, j inner; a cell
    // whose term is +0.0 leaves the (non-negative) partial sum unchanged, so only the non-zero
    // cells are visited, in the same row-major order.
    let mut numerator = 0.0;
    for (&(i, j), &count) in &confusion {
        numerator += d(i, j) * count as f64 / n;
    }
    let mut denominator = 0.0;
    for (&i, &a) in &hist_gold {
        for (&j, &b) in &hist_pred {
            let expected = (a * b) as f64 / n;
            denominator += d(i, j) * expected / n;
        }
    }
    if denominator == 0.0 {
        return Err(MetricError::undefined(format!(
            "gold and predicted scores are all {}: zero expected disagreement \
             (the official code raises ZeroDivisionError)",
            lo + hist_gold.keys().next().copied().unwrap_or(0)
        )));
    }
    Ok(1.0 - numerator / denominator)
}

/// Kaggle's `mean_quadratic_weighted_kappa(kappas)` (equal weights): each κ clipped to
/// [−0.999, 0.999], Fisher z = ½·ln((1 + κ)/(1 − κ)), numpy mean, back-transformed.
pub fn mean_qwk_fisher(kappas: &[f64]) -> Result<f64, MetricError> {
    if kappas.is_empty() {
        return Err(MetricError::Empty);
    }
    let z: Vec<f64> = kappas
        .iter()
        .map(|&k| {
            // Python's min(κ, .999) then max(κ, −.999); κ is never NaN here.
            let k = k.clamp(-0.999, 0.999);
            0.5 * ((1.0 + k) / (1.0 - k)).ln() * 1.0
        })
        .collect();
    let z = numpy_sum(&z) / z.len() as f64;
    Ok(((2.0 * z).exp() - 1.0) / ((2.0 * z).exp() + 1.0))
}

/// `np.mean(kappas)`.
pub fn mean_qwk(kappas: &[f64]) -> Result<f64, MetricError> {
    if kappas.is_empty() {
        return Err(MetricError::Empty);
    }
    Ok(numpy_sum(kappas) / kappas.len() as f64)
}

/// One essay set's result.
#[derive(Debug, Clone, PartialEq)]
pub struct SetScore {
    pub set: u8,
    pub n: usize,
    pub qwk: Result<f64, MetricError>,
}

/// Every number of a report.
#[derive(Debug, Clone, PartialEq)]
pub struct Scores {
    /// Essays over all sets.
    pub n: usize,
    /// The sets present, ascending.
    pub sets: Vec<SetScore>,
    pub mean_qwk_fisher: Result<f64, MetricError>,
    pub mean_qwk: Result<f64, MetricError>,
}

/// Score essays (any selection, e.g. a bootstrap resample): QWK per set present, both means.
pub fn score_essays<'a>(essays: impl IntoIterator<Item = &'a Essay>, variant: Variant) -> Scores {
    /// One set's scores, and its first gold score outside the range QWK runs over.
    #[derive(Default)]
    struct SetEssays<'a> {
        gold: Vec<i64>,
        pred: Vec<i64>,
        outside: Option<&'a Essay>,
    }
    let mut by_set: BTreeMap<u8, SetEssays<'a>> = BTreeMap::new();
    let mut n = 0;
    for essay in essays {
        n += 1;
        let entry = by_set.entry(essay.set).or_default();
        entry.gold.push(essay.gold);
        entry.pred.push(essay.pred_used(variant));
        if let Some((lo, hi)) = variant.range(essay.set)
            && entry.outside.is_none()
            && !(lo..=hi).contains(&essay.gold)
        {
            entry.outside = Some(essay);
        }
    }
    let sets: Vec<SetScore> = by_set
        .into_iter()
        .map(
            |(
                set,
                SetEssays {
                    gold,
                    pred,
                    outside,
                },
            )| {
                let qwk = match (outside, variant.range(set)) {
                    (Some(e), Some((lo, hi))) => Err(MetricError::undefined(format!(
                        "essay_id {}: gold score {} is outside the declared range {lo}–{hi}",
                        e.id, e.gold
                    ))),
                    _ => quadratic_weighted_kappa(&gold, &pred, variant.range(set)),
                };
                SetScore {
                    set,
                    n: gold.len(),
                    qwk,
                }
            },
        )
        .collect();
    let kappas: Result<Vec<f64>, MetricError> = sets
        .iter()
        .map(|s| {
            s.qwk.clone().map_err(|_| {
                MetricError::undefined(format!("{}'s qwk is undefined", subset_name(s.set)))
            })
        })
        .collect();
    let (mean_qwk_fisher, mean_qwk) = match kappas {
        Ok(k) => (mean_qwk_fisher(&k), mean_qwk(&k)),
        Err(e) => (Err(e.clone()), Err(e)),
    };
    Scores {
        n,
        sets,
        mean_qwk_fisher,
        mean_qwk,
    }
}

/// A file's name (as the user gave it) and its bytes.
#[derive(Debug, Clone, Copy)]
pub struct NamedBytes<'a> {
    pub name: &'a str,
    pub bytes: &'a [u8],
}

/// What a report carries besides the metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReportOptions {
    /// Per-essay `samples`.
    pub samples: bool,
    /// `inputs` with each file's SHA-256; without, `inputs` is empty and the caller fills it.
    pub input_hashes: bool,
}

impl Default for ReportOptions {
    fn default() -> Self {
        Self {
            samples: true,
            input_hashes: true,
        }
    }
}

/// Read both files and pair them: the typed essays, in gold order.
pub fn parse(gold: NamedBytes, predictions: NamedBytes) -> Result<Vec<Essay>, InputError> {
    let gold_essays = parse_gold(gold.name, gold.bytes)?;
    let preds = parse_predictions(predictions.name, predictions.bytes)?;
    join(gold.name, gold_essays, predictions.name, &preds)
}

/// The report of paired essays. `pred_file` is the file warnings refer to.
pub fn report(
    essays: &[Essay],
    inputs: Vec<InputFile>,
    pred_file: &str,
    variant: Variant,
    with_samples: bool,
) -> Report {
    let scores = score_essays(essays, variant);
    let mut warnings = Vec::new();
    let subsets = scores
        .sets
        .iter()
        .map(|s| {
            let name = subset_name(s.set);
            if let Err(e) = &s.qwk {
                warnings.push(Warning {
                    path: pred_file.to_string(),
                    line: None,
                    message: format!(
                        "{name}: qwk is null ({e}), so mean_qwk_fisher and mean_qwk are null"
                    ),
                });
            }
            let mut metrics = Metrics::new();
            metrics.insert("qwk".into(), MetricValue::from_result(s.qwk.clone()));
            Subset {
                name,
                n: s.n,
                metrics,
            }
        })
        .collect();
    let mut metrics = Metrics::new();
    metrics.insert(
        "mean_qwk_fisher".into(),
        MetricValue::from_result(scores.mean_qwk_fisher),
    );
    metrics.insert("mean_qwk".into(), MetricValue::from_result(scores.mean_qwk));
    let samples = with_samples.then(|| {
        essays
            .iter()
            .map(|e| {
                json!({
                    "id": e.id,
                    "subset": subset_name(e.set),
                    "set": e.set,
                    "line": e.line,
                    "gold": e.gold,
                    "pred": e.pred,
                    "pred_used": e.pred_used(variant),
                })
            })
            .collect()
    });
    Report {
        benchmark: BENCHMARK.into(),
        variant: variant.name().into(),
        inputs,
        overall: Overall {
            n: scores.n,
            metrics,
        },
        subsets,
        samples,
        warnings,
    }
}

/// Score a gold TSV and a predictions file (`inputs` with each file's SHA-256, samples included).
pub fn score(
    gold: NamedBytes,
    predictions: NamedBytes,
    variant: Variant,
) -> Result<Report, InputError> {
    score_with(gold, predictions, variant, ReportOptions::default())
}

/// [`score`] with a choice of what the report carries.
pub fn score_with(
    gold: NamedBytes,
    predictions: NamedBytes,
    variant: Variant,
    options: ReportOptions,
) -> Result<Report, InputError> {
    let essays = parse(gold, predictions)?;
    let inputs = if options.input_hashes {
        vec![
            InputFile::from_bytes(gold.name, gold.bytes),
            InputFile::from_bytes(predictions.name, predictions.bytes),
        ]
    } else {
        Vec::new()
    };
    Ok(report(
        &essays,
        inputs,
        predictions.name,
        variant,
        options.samples,
    ))
}

#[cfg(test)]
mod tests;
