//! The drill-down: one flat row per sample for a virtualised table, filtering, and the detail
//! of one sample.
//!
//! ```text
//! row            subset, id, gold, pred (as shown), gold/pred values when numeric — each
//!                benchmark builds its rows from its samples (Benchmark::sample_row)
//! disagreement   |gold − pred| when both are numeric; otherwise the benchmark's (MSQA 0 when
//!                correct else 1; SGI-Bench 1 − the item's headline value, 1 on error)
//! error types    the benchmark's (SAS-Bench error names, MSQA outcomes, "error")
//! filter         subset = , error type ∈ , disagreement ≥ , every query word in the row text
//!                (case-insensitive)
//! ```
//! Rows come from the job's samples ([`crate::samples::Samples`]: the report's, or built one at a time from the
//! scored records); the detail is the benchmark's (Benchmark::detail): the source record
//! (question, reference, reply) behind one sample.

use serde::Serialize;

use serde_json::{Map, Value};

use metrics_core::InputError;

use metrics_core::sasbench::python::py_str;

/// One sample as a table row.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct SampleRow {
    /// Index into `report.samples`.
    pub index: usize,
    pub subset: String,
    pub id: String,
    /// Gold and predicted values as shown.
    pub gold: String,
    pub pred: String,
    /// Gold and predicted values when numeric (charts read these).
    pub gold_value: Option<f64>,
    pub pred_value: Option<f64>,
    pub disagreement: f64,
    pub error_types: Vec<String>,
    /// Lower-cased text the query searches (id, subset, labels, error names, titles).
    pub search_text: String,
}

pub fn text_of(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

pub fn number_of(v: Option<&Value>) -> Option<f64> {
    v.and_then(Value::as_f64)
}

pub fn names(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().map(|n| text_of(Some(n))).collect())
        .unwrap_or_default()
}

pub fn display_number(v: Option<f64>) -> String {
    match v {
        Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => format!("{x:.0}"),
        Some(x) => format!("{x}"),
        None => "—".into(),
    }
}

/// A row with the fields every benchmark's samples share (`gold`, `pred`, and an id from
/// `idx`/`id`/`record`/`line`); `headline` = the per-sample metric key (and its scale) whose
/// shortfall from 1 is the disagreement, for benchmarks without gold/pred values.
pub fn generic_row(
    index: usize,
    s: &Map<String, Value>,
    headline: Option<(&str, f64)>,
) -> SampleRow {
    let get = |k: &str| s.get(k);
    let mut row = empty_row(index, s);
    row.id = ["idx", "id", "record", "line"]
        .iter()
        .find_map(|k| get(k).map(|v| text_of(Some(v))))
        .unwrap_or_else(|| format!("#{}", index + 1));
    if let Some(Value::String(d)) = get("discipline") {
        row.subset = d.clone();
    }
    if let Some((key, scale)) = headline {
        let value = number_of(get(key));
        row.pred = display_number(value);
        row.pred_value = value;
        row.disagreement = match (value, get("error")) {
            (Some(v), None) => 1.0 - v / scale,
            _ => 1.0,
        };
        if get("error").is_some() {
            row.error_types.push("error".into());
        }
    }
    finish_row(row, Vec::new())
}

/// A row with `gold`/`pred` as text and nothing else filled in.
pub fn empty_row(index: usize, s: &Map<String, Value>) -> SampleRow {
    SampleRow {
        index,
        subset: crate::table::OVERALL.into(),
        id: String::new(),
        gold: text_of(s.get("gold")),
        pred: text_of(s.get("pred")),
        gold_value: None,
        pred_value: None,
        disagreement: 0.0,
        error_types: Vec::new(),
        search_text: String::new(),
    }
}

/// Set the disagreement of numeric gold/pred values (|gold − pred|) and the search text (the
/// row's fields, its error types and `extra` texts, lower-cased).
pub fn finish_row(mut row: SampleRow, extra: Vec<String>) -> SampleRow {
    if let (Some(g), Some(p)) = (row.gold_value, row.pred_value) {
        row.disagreement = (g - p).abs();
    }
    let mut search = vec![
        row.id.clone(),
        row.subset.clone(),
        row.gold.clone(),
        row.pred.clone(),
    ];
    search.extend(row.error_types.iter().cloned());
    search.extend(extra);
    row.search_text = search.join(" ").to_lowercase();
    row
}

/// The drill-down filter; empty fields do not filter.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct Filter {
    pub subset: Option<String>,
    pub error_type: Option<String>,
    pub min_disagreement: Option<f64>,
    /// Words that must all occur in the row's text (case-insensitive).
    pub query: String,
}

/// Indices (into `rows`) of the rows that pass the filter, in row order.
pub fn filter(rows: &[SampleRow], filter: &Filter) -> Vec<usize> {
    let words = query_words(filter);
    rows.iter()
        .enumerate()
        .filter(|(_, r)| passes(r, filter, &words))
        .map(|(i, _)| i)
        .collect()
}

pub(crate) fn query_words(filter: &Filter) -> Vec<String> {
    filter
        .query
        .split_whitespace()
        .map(str::to_lowercase)
        .collect()
}

pub(crate) fn passes(r: &SampleRow, filter: &Filter, words: &[String]) -> bool {
    filter.subset.as_ref().is_none_or(|s| &r.subset == s)
        && filter
            .error_type
            .as_ref()
            .is_none_or(|e| r.error_types.contains(e))
        && filter.min_disagreement.is_none_or(|m| r.disagreement >= m)
        && words.iter().all(|w| r.search_text.contains(w.as_str()))
}

/// Distinct subsets of the rows, in order of appearance (for the subset dropdown).
pub fn subsets(rows: &[SampleRow]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in rows {
        if !out.contains(&r.subset) {
            out.push(r.subset.clone());
        }
    }
    out
}

/// Distinct error types with their row counts, most frequent first (for the dropdown).
pub fn error_types(rows: &[SampleRow]) -> Vec<(String, usize)> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for r in rows {
        count_error_types(&mut counts, r);
    }
    sort_error_types(&mut counts);
    counts
}

pub(crate) fn count_error_types(counts: &mut Vec<(String, usize)>, row: &SampleRow) {
    for e in &row.error_types {
        match counts.iter_mut().find(|(name, _)| name == e) {
            Some((_, n)) => *n += 1,
            None => counts.push((e.clone(), 1)),
        }
    }
}

pub(crate) fn sort_error_types(counts: &mut [(String, usize)]) {
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
}

/// Labelled texts of a detail pane.
pub type Fields = Vec<(String, String)>;

/// One step, gold and predicted side by side (SAS-Bench).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct StepComparison {
    /// 1-based.
    pub step: usize,
    /// The student's answer for this step.
    pub response: String,
    pub gold_score: String,
    pub pred_score: String,
    pub gold_errors: Vec<String>,
    pub pred_errors: Vec<String>,
}

/// Everything about one sample for the detail pane.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct SampleDetail {
    pub row: SampleRow,
    /// Labelled texts in display order (question, reference, model reply, …).
    pub fields: Fields,
    /// SAS-Bench steps (empty for other benchmarks).
    pub steps: Vec<StepComparison>,
}

pub fn line_of(text: &str, line: usize) -> Option<&str> {
    text.strip_prefix('\u{feff}')
        .unwrap_or(text)
        .lines()
        .nth(line.checked_sub(1)?)
}

pub fn object_at_line(
    name: &str,
    text: &str,
    line: usize,
) -> Result<Map<String, Value>, InputError> {
    let raw = line_of(text, line).ok_or_else(|| InputError::at_line(name, line, "no such line"))?;
    match serde_json::from_str(raw) {
        Ok(Value::Object(o)) => Ok(o),
        _ => Err(InputError::at_line(name, line, "expected a JSON object")),
    }
}

pub fn step_errors(step: Option<&Value>) -> Vec<String> {
    match step.and_then(|s| s.get("errors")) {
        Some(Value::Array(items)) => items.iter().map(py_str).collect(),
        Some(other) => vec![py_str(other)],
        None => Vec::new(),
    }
}

pub fn step_score(step: Option<&Value>, key: &str) -> String {
    step.and_then(|s| s.get(key))
        .map_or_else(|| "—".into(), py_str)
}

pub fn string_fields(o: &Map<String, Value>, keys: &[(&str, &str)]) -> Vec<(String, String)> {
    keys.iter()
        .filter_map(|(k, label)| {
            o.get(*k)
                .filter(|v| !v.is_null())
                .map(|v| (label.to_string(), text_of(Some(v))))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::{filter_report, page, row_at, sample_rows, summarize};
    use crate::session::Scored;
    use metrics_core::report::Report;

    fn rows() -> Vec<SampleRow> {
        let report: Report = serde_json::from_value(serde_json::json!({
            "benchmark": "sasbench", "variant": "official", "inputs": [],
            "overall": {"n": 3, "metrics": {}}, "subsets": [], "warnings": [],
            "samples": [
                {"subset": "7_Math", "line": 1, "id": "a1", "total": 5, "gold_total": 3, "pred_total": 3,
                 "gold_steps": [3], "pred_steps": [3], "gold_errors": ["步骤正确"], "pred_errors": ["计算错误"]},
                {"subset": "7_Math", "line": 2, "id": "a2", "total": 5, "gold_total": 5, "pred_total": 1,
                 "gold_steps": [5], "pred_steps": [1], "gold_errors": ["公式错误"], "pred_errors": []},
                {"subset": "0_Physics", "line": 1, "id": "b1", "total": 5, "gold_total": 0, "pred_total": 2,
                 "gold_steps": [0], "pred_steps": null, "gold_errors": null, "pred_errors": ["公式错误"]}
            ]
        }))
        .unwrap();
        sample_rows(&Scored::report_only(report))
    }

    #[test]
    fn sasbench_rows() {
        let rows = rows();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[1].disagreement, 4.0);
        assert_eq!(rows[0].error_types, vec!["计算错误".to_string()]);
        assert_eq!((rows[1].gold.as_str(), rows[1].pred.as_str()), ("5", "1"));
        assert_eq!(
            subsets(&rows),
            vec!["7_Math".to_string(), "0_Physics".into()]
        );
        assert_eq!(error_types(&rows)[0], ("公式错误".to_string(), 2));
    }

    #[test]
    fn summary_and_pages_equal_the_held_rows() {
        let report: Report = serde_json::from_value(serde_json::json!({
            "benchmark": "pairs", "variant": "official", "inputs": [],
            "overall": {"n": 4, "metrics": {}}, "subsets": [], "warnings": [],
            "samples": [
                {"line": 1, "gold": 1, "pred": 2}, {"line": 2, "gold": 3, "pred": 3},
                {"line": 3, "gold": 0, "pred": 2}, {"line": 5, "gold": 2, "pred": 2}
            ]
        }))
        .unwrap();
        let report = Scored::report_only(report);
        let held = sample_rows(&report);
        let summary = summarize(&report);
        assert_eq!(summary.total, 4);
        assert_eq!(summary.subsets, subsets(&held));
        assert_eq!(summary.error_types, error_types(&held));
        assert_eq!(summary.charts.confusion, crate::charts::confusion(&held));
        assert_eq!(
            summary.charts.histogram,
            Some(crate::charts::histogram(&held))
        );
        let f = Filter {
            min_disagreement: Some(1.0),
            ..Filter::default()
        };
        let indices = filter_report(&report, &f);
        assert_eq!(indices, filter(&held, &f));
        let p = page(&report, &indices, 1, 5);
        assert_eq!((p.offset, p.total), (1, 2));
        assert_eq!(p.rows, vec![held[2].clone()]);
        assert_eq!(page(&report, &indices, 9, 5).rows, Vec::new());
        assert_eq!(row_at(&report, 3), Some(held[3].clone()));
        assert_eq!(row_at(&report, 4), None);
    }

    #[test]
    fn filters_combine() {
        let rows = rows();
        assert_eq!(filter(&rows, &Filter::default()), vec![0, 1, 2]);
        let f = Filter {
            subset: Some("7_Math".into()),
            ..Filter::default()
        };
        assert_eq!(filter(&rows, &f), vec![0, 1]);
        let f = Filter {
            error_type: Some("公式错误".into()),
            min_disagreement: Some(3.0),
            ..Filter::default()
        };
        assert_eq!(filter(&rows, &f), vec![1]);
        let f = Filter {
            query: "A2 math".into(),
            ..Filter::default()
        };
        assert_eq!(filter(&rows, &f), vec![1]);
        let f = Filter {
            query: "nothing-like-this".into(),
            ..Filter::default()
        };
        assert!(filter(&rows, &f).is_empty());
    }
}
