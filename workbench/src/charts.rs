//! Chart data: numbers only; the app draws them (plotters) and computes nothing.
//!
//! ```text
//! confusion      gold × predicted counts of the numeric sample values (confusion.rs)
//! histogram      gold and predicted value counts: one bin per distinct value when there are
//!                at most MAX_DISCRETE_BINS of them, else HISTOGRAM_BINS equal-width bins over
//!                [min, max] (the last bin closed), as numpy.histogram
//! subset bars    per scalar metric, its value per subset (and overall)
//! benchmark's    [`Chart`]s a benchmark adds through the registry: error counts per tier
//!                (SAS-Bench ECS), level counts per group (EOTGC)
//! ```

use serde::Serialize;

use crate::drill::SampleRow;
use metrics_core::confusion::ConfusionMatrix;
use metrics_core::report::{MetricValue, Report};

/// At most this many distinct values get one bin each.
pub const MAX_DISCRETE_BINS: usize = 30;
/// Bins of a continuous histogram.
pub const HISTOGRAM_BINS: usize = 20;

/// The confusion matrix of the rows' numeric gold × predicted values (rows without both are
/// left out); `None` when no row has both.
pub fn confusion(rows: &[SampleRow]) -> Option<ConfusionMatrix> {
    confusion_of(rows.iter().map(|r| (r.gold_value, r.pred_value)))
}

fn confusion_of(
    values: impl Iterator<Item = (Option<f64>, Option<f64>)>,
) -> Option<ConfusionMatrix> {
    let (gold, pred): (Vec<f64>, Vec<f64>) = values.filter_map(|(g, p)| Some((g?, p?))).unzip();
    (!gold.is_empty()).then(|| ConfusionMatrix::new(&gold, &pred))
}

/// The charts drawn from every sample: the confusion matrix and the histogram, computed where
/// the rows are (the worker) so that only these numbers travel to the page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct SampleCharts {
    /// [`confusion`] of the rows.
    pub confusion: Option<ConfusionMatrix>,
    /// [`histogram`] of the rows; `None` when there are no rows.
    pub histogram: Option<Histogram>,
}

/// [`SampleCharts`] of the rows' (gold value, predicted value), in row order.
pub fn sample_charts(values: &[(Option<f64>, Option<f64>)]) -> SampleCharts {
    if values.is_empty() {
        return SampleCharts::default();
    }
    let gold: Vec<f64> = values.iter().filter_map(|v| v.0).collect();
    let pred: Vec<f64> = values.iter().filter_map(|v| v.1).collect();
    SampleCharts {
        confusion: confusion_of(values.iter().copied()),
        histogram: Some(histogram_of(gold, pred)),
    }
}

/// Gold and predicted value counts over the same bins.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Histogram {
    /// One label per bin (the value, or `[a, b)`).
    pub labels: Vec<String>,
    /// Bin edges (`bins + 1`) for continuous data; empty for one bin per value.
    pub edges: Vec<f64>,
    pub gold: Vec<u64>,
    pub pred: Vec<u64>,
}

/// A score as a chart label: integers without decimals (`3`), others as Rust prints them.
pub fn value_label(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

/// Histogram of the rows' numeric gold and predicted values.
pub fn histogram(rows: &[SampleRow]) -> Histogram {
    histogram_of(
        rows.iter().filter_map(|r| r.gold_value).collect(),
        rows.iter().filter_map(|r| r.pred_value).collect(),
    )
}

fn histogram_of(gold: Vec<f64>, pred: Vec<f64>) -> Histogram {
    let mut distinct: Vec<f64> = gold.iter().chain(&pred).copied().collect();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    if distinct.len() <= MAX_DISCRETE_BINS {
        let count = |values: &[f64]| -> Vec<u64> {
            let mut counts = vec![0u64; distinct.len()];
            for v in values {
                if let Ok(i) = distinct.binary_search_by(|d| d.total_cmp(v)) {
                    counts[i] += 1;
                }
            }
            counts
        };
        return Histogram {
            labels: distinct.iter().map(|&v| value_label(v)).collect(),
            edges: Vec::new(),
            gold: count(&gold),
            pred: count(&pred),
        };
    }
    let (low, high) = (distinct[0], distinct[distinct.len() - 1]);
    let width = (high - low) / HISTOGRAM_BINS as f64;
    let edges: Vec<f64> = (0..=HISTOGRAM_BINS)
        .map(|i| low + width * i as f64)
        .collect();
    let count = |values: &[f64]| -> Vec<u64> {
        let mut counts = vec![0u64; HISTOGRAM_BINS];
        for &v in values {
            // numpy.histogram: bins are [e_i, e_i+1), the last one closed.
            let i = edges[1..HISTOGRAM_BINS].partition_point(|&e| e <= v);
            counts[i] += 1;
        }
        counts
    };
    Histogram {
        labels: edges
            .windows(2)
            .map(|w| format!("[{:.3}, {:.3})", w[0], w[1]))
            .collect(),
        gold: count(&gold),
        pred: count(&pred),
        edges,
    }
}

/// One metric's value per subset.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Bars {
    pub metric: String,
    /// Subset names, then `overall`.
    pub labels: Vec<String>,
    /// Full-precision values; `None` = undefined (draw no bar).
    pub values: Vec<Option<f64>>,
}

/// Per-subset bars for every scalar metric of the report.
pub fn subset_bars(report: &Report) -> Vec<Bars> {
    crate::table::scalar_keys(report)
        .into_iter()
        .map(|metric| {
            let mut labels: Vec<String> = report.subsets.iter().map(|s| s.name.clone()).collect();
            labels.push(crate::table::OVERALL.into());
            let values = report
                .subsets
                .iter()
                .map(|s| &s.metrics)
                .chain(std::iter::once(&report.overall.metrics))
                .map(|m| m.get(&metric).and_then(MetricValue::as_scalar))
                .collect();
            Bars {
                metric,
                labels,
                values,
            }
        })
        .collect()
}

/// Error counts of one score tier.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct TierErrors {
    /// 0 = low, 1 = middle, 2 = high.
    pub tier: usize,
    pub label: String,
    /// Counts per slot (same order as [`EcsErrors::errors`]).
    pub gold: Vec<f64>,
    pub pred: Vec<f64>,
    /// The tier's Spearman correlation as ECS uses it (undefined → 0, as the official code).
    pub correlation: f64,
}

/// The ECS error matrices of one SAS-Bench file.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct EcsErrors {
    pub subset: String,
    /// Taxonomy slot names (the last one is 步骤正确, never counted).
    pub errors: Vec<String>,
    /// Tier thresholds τ1, τ2 on gold score / total.
    pub thresholds: [f64; 2],
    pub tiers: Vec<TierErrors>,
}

/// EOTGC level counts of one grade.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct LevelDistribution {
    /// `grade <g>` or `overall`.
    pub grade: String,
    /// Level names, best first (优秀 … 不合格).
    pub levels: Vec<String>,
    pub gold: Vec<u64>,
    pub pred: Vec<u64>,
}

/// A benchmark's own chart, by shape (the app has one renderer per shape).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Chart {
    /// Per file and score tier, the gold and predicted error counts (SAS-Bench ECS); `Err` with
    /// the reason for a file whose matrices are not computed.
    TierErrors {
        files: Vec<(String, Result<EcsErrors, String>)>,
    },
    /// Per group (grade) and overall, how many items have each level, gold and predicted.
    Levels { groups: Vec<LevelDistribution> },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(g: f64, p: f64) -> SampleRow {
        SampleRow {
            index: 0,
            subset: "s".into(),
            id: String::new(),
            gold: String::new(),
            pred: String::new(),
            gold_value: Some(g),
            pred_value: Some(p),
            disagreement: (g - p).abs(),
            error_types: vec![],
            search_text: String::new(),
        }
    }

    #[test]
    fn discrete_histogram_counts_each_value() {
        let rows = [row(0.0, 1.0), row(1.0, 1.0), row(2.0, 0.0)];
        let h = histogram(&rows);
        assert_eq!(h.labels, ["0", "1", "2"]);
        assert_eq!(h.gold, [1, 1, 1]);
        assert_eq!(h.pred, [1, 2, 0]);
        let cm = confusion(&rows).unwrap();
        assert_eq!(cm.counts, vec![0, 1, 0, 0, 1, 0, 1, 0, 0]);
    }

    #[test]
    fn continuous_histogram_matches_numpy() {
        // numpy: np.histogram(np.arange(41) / 4, bins=20) → counts [2]*19 + [3];
        // same for pred = gold.
        let rows: Vec<SampleRow> = (0..41)
            .map(|i| row(i as f64 / 4.0, i as f64 / 4.0))
            .collect();
        let h = histogram(&rows);
        assert_eq!(h.edges.len(), 21);
        let mut expected = vec![2u64; 19];
        expected.push(3);
        assert_eq!(h.gold, expected);
        assert_eq!(h.pred, expected);
    }

    #[test]
    fn sample_charts_equal_the_row_charts() {
        let rows = [row(0.0, 1.0), row(1.0, 1.0), row(2.0, 0.0)];
        let values: Vec<_> = rows.iter().map(|r| (r.gold_value, r.pred_value)).collect();
        let charts = sample_charts(&values);
        assert_eq!(charts.confusion, confusion(&rows));
        assert_eq!(charts.histogram, Some(histogram(&rows)));
        assert_eq!(sample_charts(&[]), SampleCharts::default());
    }
}
