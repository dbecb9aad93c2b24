//! A scored job's samples as rows: the report's own, or built one at a time from the scored
//! records by the benchmark that left them out ([`Samples`]); the one-pass summary, filtered
//! pages and the detail of one sample. Above the [`crate::registry`].

use std::borrow::Cow;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::benchmark::Benchmark;
use crate::charts::{SampleCharts, sample_charts};
use crate::drill::{
    Filter, SampleDetail, SampleRow, count_error_types, generic_row, passes, query_words,
    sort_error_types, text_of,
};
use crate::registry;
use crate::session::{Outcome, Scored, WorkFile};
use metrics_core::InputError;

/// A scored job's samples: the report's own, or built one at a time from the scored records by
/// the benchmark that left them out of the report ([`Benchmark::sample_at`]).
///
/// [`Benchmark::sample_at`]: crate::benchmark::Benchmark::sample_at
#[derive(Clone, Copy)]
pub struct Samples<'a> {
    scored: &'a Scored,
    benchmark: Option<&'static dyn Benchmark>,
}

impl<'a> Samples<'a> {
    pub fn of(scored: &'a Scored) -> Self {
        Self {
            scored,
            benchmark: registry::get(&scored.report.benchmark),
        }
    }

    /// Samples in all (0 when the report has none).
    pub fn len(&self) -> usize {
        match (&self.scored.report.samples, self.benchmark) {
            (Some(samples), _) => samples.len(),
            (None, Some(b)) => b.sample_count(self.scored).unwrap_or(0),
            (None, None) => 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sample `index`, `None` past the last (a sample that is not an object reads as empty).
    pub fn get(&self, index: usize) -> Option<Cow<'a, Map<String, Value>>> {
        match &self.scored.report.samples {
            Some(samples) => Some(match samples.get(index)? {
                Value::Object(sample) => Cow::Borrowed(sample),
                _ => Cow::Owned(Map::new()),
            }),
            None => self
                .benchmark?
                .sample_at(self.scored, index)
                .map(Cow::Owned),
        }
    }

    /// Sample `index` as a row.
    pub fn row(&self, index: usize) -> Option<SampleRow> {
        if self.scored.report.samples.is_none()
            && let Some(row) = self.benchmark.and_then(|b| b.row_at(self.scored, index))
        {
            return Some(row);
        }
        let sample = self.get(index)?;
        Some(match self.benchmark {
            Some(b) => b.sample_row(index, &sample),
            None => generic_row(index, &sample, None),
        })
    }
}

/// The job's samples as rows (empty when it has none).
pub fn sample_rows(scored: &Scored) -> Vec<SampleRow> {
    rows(scored).collect()
}

/// The job's samples as rows, built one at a time (a million rows are never held at once).
pub fn rows(scored: &Scored) -> impl Iterator<Item = SampleRow> + '_ {
    let samples = Samples::of(scored);
    (0..samples.len()).filter_map(move |i| samples.row(i))
}

/// Sample `index` of the job as a row, `None` when there is no such sample.
pub fn row_at(scored: &Scored, index: usize) -> Option<SampleRow> {
    Samples::of(scored).row(index)
}

/// What the samples and charts views need of all the rows, gathered in one pass over them
/// (the rows themselves stay with the report and are built again a window at a time).
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct RowsSummary {
    /// Rows (samples) in all.
    pub total: usize,
    /// As [`crate::drill::subsets`].
    pub subsets: Vec<String>,
    /// As [`crate::drill::error_types`].
    pub error_types: Vec<(String, usize)>,
    /// Not sent in this form: the worker sends the chart data as JSON text, which the page hands
    /// to its chart module unread (it keeps no reader of them).
    #[serde(skip)]
    pub charts: SampleCharts,
}

/// The [`RowsSummary`] of the job's samples.
pub fn summarize(scored: &Scored) -> RowsSummary {
    let mut summary = RowsSummary::default();
    let mut values = Vec::with_capacity(Samples::of(scored).len());
    for row in rows(scored) {
        summary.total += 1;
        if !summary.subsets.contains(&row.subset) {
            summary.subsets.push(row.subset.clone());
        }
        count_error_types(&mut summary.error_types, &row);
        values.push((row.gold_value, row.pred_value));
    }
    sort_error_types(&mut summary.error_types);
    summary.charts = sample_charts(&values);
    summary
}

/// A window of the filtered rows: `rows` are rows `offset..` of the `total` that pass.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct RowPage {
    pub offset: usize,
    pub total: usize,
    pub rows: Vec<SampleRow>,
}

/// Indices (into the report's samples) of the rows that pass the filter, in row order; the
/// rows are built one at a time.
pub fn filter_report(scored: &Scored, filter: &Filter) -> Vec<usize> {
    let words = query_words(filter);
    rows(scored)
        .filter(|r| passes(r, filter, &words))
        .map(|r| r.index)
        .collect()
}

/// Rows `offset..offset + limit` of `indices` (a [`filter_report`] result) as a page.
pub fn page(scored: &Scored, indices: &[usize], offset: usize, limit: usize) -> RowPage {
    let samples = Samples::of(scored);
    let offset = offset.min(indices.len());
    RowPage {
        offset,
        total: indices.len(),
        rows: indices[offset..]
            .iter()
            .take(limit)
            .filter_map(|&i| samples.row(i))
            .collect(),
    }
}

/// The archive entries the detail of sample `index` of a scored job reads beyond those its
/// scoring read (for a file read in part: [`crate::prepare::archive_entries`]).
pub fn detail_entries(outcome: &Outcome, index: usize) -> Vec<String> {
    let (Ok(scored), Some(benchmark)) = (&outcome.result, outcome.job.benchmark()) else {
        return Vec::new();
    };
    Samples::of(scored)
        .get(index)
        .map(|sample| benchmark.detail_entries(&sample))
        .unwrap_or_default()
}

/// The detail of sample `index` of a scored job: the sample's row, the texts its benchmark finds
/// behind it, then every scalar field of the sample itself.
pub fn sample_detail(
    files: &[WorkFile],
    outcome: &Outcome,
    index: usize,
) -> Result<SampleDetail, InputError> {
    let scored = outcome.result.as_ref().map_err(Clone::clone)?;
    let samples = Samples::of(scored);
    let sample = samples.get(index).ok_or_else(|| {
        InputError::whole_file(&outcome.job.title, format!("no sample #{}", index + 1))
    })?;
    let row = samples
        .row(index)
        .unwrap_or_else(|| generic_row(index, &sample, None));
    let (mut fields, steps) = match outcome.job.benchmark() {
        Some(b) => b.detail(files, outcome, index, &sample)?,
        None => (Vec::new(), Vec::new()),
    };
    // Everything the sample itself says, after the source texts.
    for (k, v) in sample.iter() {
        if !matches!(v, Value::Array(_) | Value::Object(_)) {
            fields.push((k.clone(), text_of(Some(v))));
        }
    }
    Ok(SampleDetail { row, fields, steps })
}
