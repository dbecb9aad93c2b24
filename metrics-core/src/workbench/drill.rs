//! The drill-down: one flat row per sample for a virtualised table, filtering, and the detail
//! of one sample.
//!
//! ```text
//! row            subset, id, gold, pred (as shown), gold/pred values when numeric
//! disagreement   SAS-Bench |gold total − predicted total|; EOTGC |gold level − predicted level|;
//!                pairs |gold − pred|; MSQA 0 when correct else 1;
//!                SGI-Bench 1 − the item's headline value (wet/idea `final`, dry `pass_all_5`,
//!                deep research `exact_match`; idea's 0–100 scale divided by 100), 1 on error
//! error types    SAS-Bench: the gold and predicted error names (步骤正确 left out);
//!                MSQA: the outcome when not correct; SGI-Bench: "error" for an item left out
//! filter         subset = , error type ∈ , disagreement ≥ , every query word in the row text
//!                (case-insensitive)
//! ```
//! Rows come from `report.samples`, so every benchmark's drill-down works the same way; the
//! detail re-reads the one source record (question, reference, reply) from the dropped file.

use serde::Serialize;
use serde_json::{Map, Value};

use super::session::{JobKind, Outcome, WorkFile};
use crate::error::InputError;
use crate::report::Report;
use crate::sasbench::format::CORRECT_NAME;
use crate::sasbench::{python::py_str, step2, subset_name};

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

fn text_of(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

fn number_of(v: Option<&Value>) -> Option<f64> {
    v.and_then(Value::as_f64)
}

fn names(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().map(|n| text_of(Some(n))).collect())
        .unwrap_or_default()
}

fn display_number(v: Option<f64>) -> String {
    match v {
        Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => format!("{x:.0}"),
        Some(x) => format!("{x}"),
        None => "—".into(),
    }
}

/// The SGI-Bench headline key of a benchmark and its scale.
fn sgi_headline(benchmark: &str) -> Option<(&'static str, f64)> {
    match benchmark {
        "sgi-wet" => Some(("final", 1.0)),
        "sgi-dry" => Some(("pass_all_5", 1.0)),
        "sgi-deep-research" => Some(("exact_match", 1.0)),
        "sgi-idea" => Some(("final", 100.0)),
        _ => None,
    }
}

fn row_of(benchmark: &str, index: usize, s: &Map<String, Value>) -> SampleRow {
    let get = |k: &str| s.get(k);
    let mut row = SampleRow {
        index,
        subset: super::table::OVERALL.into(),
        id: String::new(),
        gold: text_of(get("gold")),
        pred: text_of(get("pred")),
        gold_value: None,
        pred_value: None,
        disagreement: 0.0,
        error_types: Vec::new(),
        search_text: String::new(),
    };
    let mut extra = Vec::new();
    match benchmark {
        "sasbench" => {
            row.subset = text_of(get("subset"));
            row.id = text_of(get("id"));
            row.gold_value = number_of(get("gold_total"));
            row.pred_value = number_of(get("pred_total"));
            row.gold = display_number(row.gold_value);
            row.pred = display_number(row.pred_value);
            let mut errors = names(get("gold_errors"));
            errors.extend(names(get("pred_errors")));
            errors.retain(|e| e != CORRECT_NAME);
            errors.sort();
            errors.dedup();
            row.error_types = errors;
        }
        "eotgc" => {
            row.subset = format!("grade {}", text_of(get("grade")));
            row.id = text_of(get("id"));
            row.gold_value = number_of(get("gold_value"));
            row.pred_value = number_of(get("pred_value"));
            extra.push(text_of(get("title")));
            extra.push(text_of(get("requirement")));
        }
        "msqa" => {
            row.subset = match get("subtask") {
                Some(Value::String(s)) => s.clone(),
                _ => crate::msqa::NO_SUBTASK.into(),
            };
            if let Some(judgment) = get("judgment") {
                // The paper rule's samples.
                row.id = format!("record {}", text_of(get("record")));
                row.pred = text_of(get("raw"));
                let correct = judgment.as_str() == Some("correct");
                row.disagreement = if correct { 0.0 } else { 1.0 };
                if !correct {
                    row.error_types.push(text_of(Some(judgment)));
                }
                extra.push(text_of(get("question")));
            } else {
                row.id = text_of(get("id"));
                let correct = get("result") == Some(&Value::Bool(true));
                row.disagreement = if correct { 0.0 } else { 1.0 };
                if !correct {
                    row.error_types.push(text_of(get("outcome")));
                }
            }
        }
        "pairs" => {
            row.id = format!("line {}", text_of(get("line")));
            row.gold_value = number_of(get("gold"));
            row.pred_value = number_of(get("pred"));
            row.gold = display_number(row.gold_value);
            row.pred = display_number(row.pred_value);
        }
        other => {
            row.id = ["idx", "id", "record", "line"]
                .iter()
                .find_map(|k| get(k).map(|v| text_of(Some(v))))
                .unwrap_or_else(|| format!("#{}", index + 1));
            if let Some(Value::String(d)) = get("discipline") {
                row.subset = d.clone();
            }
            if let Some((key, scale)) = sgi_headline(other) {
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
        }
    }
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

/// The report's samples as rows (empty when the report has none).
pub fn sample_rows(report: &Report) -> Vec<SampleRow> {
    let empty = Map::new();
    report
        .samples
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, s)| row_of(&report.benchmark, i, s.as_object().unwrap_or(&empty)))
        .collect()
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
    let words: Vec<String> = filter
        .query
        .split_whitespace()
        .map(str::to_lowercase)
        .collect();
    rows.iter()
        .enumerate()
        .filter(|(_, r)| filter.subset.as_ref().is_none_or(|s| &r.subset == s))
        .filter(|(_, r)| {
            filter
                .error_type
                .as_ref()
                .is_none_or(|e| r.error_types.contains(e))
        })
        .filter(|(_, r)| filter.min_disagreement.is_none_or(|m| r.disagreement >= m))
        .filter(|(_, r)| words.iter().all(|w| r.search_text.contains(w.as_str())))
        .map(|(i, _)| i)
        .collect()
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
    for e in rows.iter().flat_map(|r| &r.error_types) {
        match counts.iter_mut().find(|(name, _)| name == e) {
            Some((_, n)) => *n += 1,
            None => counts.push((e.clone(), 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    counts
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

fn line_of(text: &str, line: usize) -> Option<&str> {
    text.strip_prefix('\u{feff}')
        .unwrap_or(text)
        .lines()
        .nth(line.checked_sub(1)?)
}

fn object_at_line(name: &str, text: &str, line: usize) -> Result<Map<String, Value>, InputError> {
    let raw = line_of(text, line).ok_or_else(|| InputError::at_line(name, line, "no such line"))?;
    match serde_json::from_str(raw) {
        Ok(Value::Object(o)) => Ok(o),
        _ => Err(InputError::at_line(name, line, "expected a JSON object")),
    }
}

fn step_errors(step: Option<&Value>) -> Vec<String> {
    match step.and_then(|s| s.get("errors")) {
        Some(Value::Array(items)) => items.iter().map(py_str).collect(),
        Some(other) => vec![py_str(other)],
        None => Vec::new(),
    }
}

fn step_score(step: Option<&Value>, key: &str) -> String {
    step.and_then(|s| s.get(key))
        .map_or_else(|| "—".into(), py_str)
}

fn string_fields(o: &Map<String, Value>, keys: &[(&str, &str)]) -> Vec<(String, String)> {
    keys.iter()
        .filter_map(|(k, label)| {
            o.get(*k)
                .filter(|v| !v.is_null())
                .map(|v| (label.to_string(), text_of(Some(v))))
        })
        .collect()
}

fn sas_detail(
    files: &[WorkFile],
    kind: &JobKind,
    report: &Report,
    index: usize,
    sample: &Map<String, Value>,
) -> Result<(Fields, Vec<StepComparison>), InputError> {
    let subset = text_of(sample.get("subset"));
    let line = sample.get("line").and_then(Value::as_u64).unwrap_or(0) as usize;
    let named = |i: usize| files.get(i).filter(|f| subset_name(&f.name) == subset);
    // The gold record (with predictions for a prediction file) and, for raw jobs, the reply.
    let (source, reply) = match kind {
        JobKind::SasPredictions { predictions, .. } => {
            let f = predictions
                .iter()
                .find_map(|&i| named(i))
                .ok_or_else(|| InputError::whole_file(&subset, "the prediction file is gone"))?;
            (f, None)
        }
        JobKind::SasRaw { files: pairs, .. } => {
            let &(d, s) = pairs
                .iter()
                .find(|&&(_, s)| named(s).is_some())
                .ok_or_else(|| InputError::whole_file(&subset, "the raw file is gone"))?;
            let dataset = files
                .get(d)
                .ok_or_else(|| InputError::whole_file(&subset, "the dataset file is gone"))?;
            // Replies pair with gold records by position (step 2's rule).
            let position = report
                .samples
                .iter()
                .flatten()
                .take(index)
                .filter(|s| s.get("subset").and_then(Value::as_str) == Some(subset.as_str()))
                .count();
            let scored = &files[s];
            let replies = crate::sasbench::format::parse_scored(&scored.name, scored.text()?)?;
            (dataset, replies.into_iter().nth(position))
        }
        _ => return Err(InputError::whole_file(&subset, "not a SAS-Bench job")),
    };
    let record = object_at_line(&source.name, source.text()?, line)?;
    let mut fields = string_fields(
        &record,
        &[
            ("question", "Question"),
            ("reference", "Reference answer"),
            ("analysis", "Analysis"),
        ],
    );
    let gold_steps: Vec<Value> = match record.get("steps") {
        Some(Value::Array(s)) => s.clone(),
        _ => Vec::new(),
    };
    let student: Vec<String> = gold_steps
        .iter()
        .map(|s| text_of(s.get("response")))
        .collect();
    fields.push(("Student answer".into(), student.join("\n")));
    let pred_steps: Vec<Value> = match &reply {
        Some(reply) => {
            fields.push(("Model reply".into(), py_str(&reply.reply)));
            step2::process_reply(&reply.reply, gold_steps.len())
                .map(|o| o.pred_steps)
                .unwrap_or_default()
        }
        None => match record.get("pred_steps") {
            Some(Value::Array(p)) => p.clone(),
            _ => Vec::new(),
        },
    };
    let steps = gold_steps
        .iter()
        .enumerate()
        .map(|(k, g)| StepComparison {
            step: k + 1,
            response: text_of(g.get("response")),
            gold_score: step_score(Some(g), "label"),
            pred_score: step_score(pred_steps.get(k), "step_score"),
            gold_errors: step_errors(Some(g)),
            pred_errors: step_errors(pred_steps.get(k)),
        })
        .collect();
    Ok((fields, steps))
}

/// The source record of a non-SAS sample, when the file holds one to find.
fn source_fields(
    files: &[WorkFile],
    outcome: &Outcome,
    sample: &Map<String, Value>,
) -> Result<Vec<(String, String)>, InputError> {
    let job = &outcome.job;
    let main = files
        .get(job.prediction_file())
        .ok_or_else(|| InputError::whole_file(&job.title, "the file is gone"))?;
    let array = |f: &WorkFile| -> Result<Vec<Value>, InputError> {
        serde_json::from_str(f.text()?)
            .map_err(|e| InputError::whole_file(&f.name, format!("expected a JSON array: {e}")))
    };
    match &job.kind {
        JobKind::EotgcTrack1 { gold, .. } => {
            let gold = files
                .get(*gold)
                .ok_or_else(|| InputError::whole_file(&job.title, "the gold file is gone"))?;
            let id = text_of(sample.get("id"));
            let record = array(gold)?.into_iter().find(|r| {
                let rid = r.get("id").map(|v| text_of(Some(v)));
                rid.as_deref() == Some(id.as_str())
            });
            Ok(record
                .as_ref()
                .and_then(Value::as_object)
                .map(|o| {
                    string_fields(
                        o,
                        &[
                            ("title", "Title"),
                            ("requirement", "Requirement"),
                            ("content", "Essay"),
                            ("comment", "Gold comment"),
                        ],
                    )
                })
                .unwrap_or_default())
        }
        JobKind::Msqa { .. } | JobKind::MsqaInference { .. } => {
            let number = sample.get("record").and_then(Value::as_u64).unwrap_or(0) as usize;
            let text = main.text()?;
            let record = if text.trim_start().starts_with('[') {
                array(main)?.into_iter().nth(number.saturating_sub(1))
            } else {
                object_at_line(&main.name, text, number)
                    .ok()
                    .map(Value::Object)
            };
            let Some(record) = record else {
                return Ok(Vec::new());
            };
            let mut fields = Vec::new();
            for (path, label) in [
                (&["question"][..], "Question"),
                (&["dataset_item", "question"][..], "Question"),
                (&["generation", "reasoning_content"][..], "Reasoning"),
                (&["generation", "content"][..], "Model reply"),
                (&["inference_result"][..], "Model reply"),
            ] {
                let v = path.iter().try_fold(&record, |v, k| v.get(*k));
                if let Some(v) = v.filter(|v| !v.is_null()) {
                    fields.push((label.to_string(), text_of(Some(v))));
                }
            }
            Ok(fields)
        }
        JobKind::SgiLog { .. } => {
            let idx = text_of(sample.get("idx"));
            let record = array(main)?
                .into_iter()
                .find(|r| r.get("idx").map(|v| text_of(Some(v))).as_deref() == Some(idx.as_str()));
            Ok(record
                .as_ref()
                .and_then(Value::as_object)
                .map(|o| {
                    string_fields(
                        o,
                        &[
                            ("question", "Question"),
                            ("answer", "Gold answer"),
                            ("model_answer", "Model answer"),
                            ("model_answer_with_thinking", "Model reply"),
                            ("generated_idea_text", "Generated idea"),
                        ],
                    )
                })
                .unwrap_or_default())
        }
        JobKind::Pairs { .. } => {
            let line = sample.get("line").and_then(Value::as_u64).unwrap_or(0) as usize;
            Ok(line_of(main.text()?, line)
                .map(|l| vec![("Line".to_string(), l.to_string())])
                .unwrap_or_default())
        }
        _ => Ok(Vec::new()),
    }
}

/// The detail of sample `index` of a scored job, re-reading its source record from `files`.
pub fn sample_detail(
    files: &[WorkFile],
    outcome: &Outcome,
    index: usize,
) -> Result<SampleDetail, InputError> {
    let scored = outcome.result.as_ref().map_err(Clone::clone)?;
    let report = &scored.report;
    let sample = report
        .samples
        .as_ref()
        .and_then(|s| s.get(index))
        .and_then(Value::as_object)
        .ok_or_else(|| {
            InputError::whole_file(&outcome.job.title, format!("no sample #{}", index + 1))
        })?;
    let row = row_of(&report.benchmark, index, sample);
    let (mut fields, steps) = if report.benchmark == "sasbench" {
        sas_detail(files, &outcome.job.kind, report, index, sample)?
    } else {
        (source_fields(files, outcome, sample)?, Vec::new())
    };
    // Everything the sample itself says, after the source texts.
    for (k, v) in sample {
        if !matches!(v, Value::Array(_) | Value::Object(_)) {
            fields.push((k.clone(), text_of(Some(v))));
        }
    }
    Ok(SampleDetail { row, fields, steps })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        sample_rows(&report)
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
