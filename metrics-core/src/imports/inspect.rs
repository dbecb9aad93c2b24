//! Inspect AI (UK AISI) evaluation logs: the `.eval` archive (a ZIP of JSON entries) and the
//! `.json` log, as `inspect_ai` 0.3 writes them.
//!
//! ```text
//! .eval   header.json (eval, results), reductions.json, summaries.json (per sample and epoch:
//!         id, epoch, input, target, scores); without summaries.json, samples/*.json
//! .json   one object: eval, results, samples[], reductions[] — Python's json, so NaN and
//!         Infinity may stand bare: they are read as null (unscored)
//! report  a subset per scorer (results.scores[]) with its metrics exactly as logged;
//!         overall = the headline scorer's metrics; samples per (id, epoch)
//! values  value_to_float(): "C" 1, "P" 0.5, "I"/"N" 0, numbers, booleans, "yes"/"true" 1,
//!         "no"/"false" 0, numeric strings; NaN (null) = unscored, left out of the metrics
//! recomputed from the reduced per-sample scores (reductions: one value per sample id after the
//!         epoch reducer), unscored left out:
//!           accuracy = Python loop sum / n (0 for none)
//!           mean     = np.mean (numpy's pairwise sum; 0 for none)
//!           stderr   = np.std(values, ddof=1) / np.sqrt(n)   (0 below two values)
//!         other metrics, and these with parameters (clustered stderr), are reported only
//! ```

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::zip::{Archive, is_zip};
use super::{NamedBytes, finite, lenient_json, numpy_mean, numpy_stderr, py_mean};
use crate::error::InputError;
use crate::report::{InputFile, MetricValue, Metrics, Overall, Report, Subset, Warning};

/// The benchmark key in reports.
pub const BENCHMARK: &str = "inspect";

#[derive(Debug, Clone, Deserialize)]
struct RawEval {
    task: String,
    model: String,
}

#[derive(Debug, Clone, Deserialize, Default)]
struct RawResults {
    #[serde(default)]
    scores: Vec<RawEvalScore>,
}

#[derive(Debug, Clone, Deserialize)]
struct RawEvalScore {
    name: String,
    #[serde(default)]
    reducer: Option<String>,
    #[serde(default)]
    scored_samples: Option<usize>,
    #[serde(default)]
    metrics: IndexMap<String, RawMetric>,
}

#[derive(Debug, Clone, Deserialize)]
struct RawMetric {
    value: Value,
    #[serde(default)]
    params: Map<String, Value>,
}

#[derive(Debug, Clone, Deserialize)]
struct RawSample {
    id: Value,
    #[serde(default)]
    epoch: u32,
    #[serde(default)]
    input: Value,
    #[serde(default)]
    target: Value,
    #[serde(default)]
    scores: Option<IndexMap<String, RawScore>>,
    #[serde(default)]
    output: Option<RawOutput>,
}

#[derive(Debug, Clone, Deserialize)]
struct RawOutput {
    #[serde(default)]
    completion: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
struct RawScore {
    #[serde(default)]
    value: Value,
    #[serde(default)]
    answer: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
struct RawReduction {
    scorer: String,
    #[serde(default)]
    reducer: Option<String>,
    samples: Vec<RawReduced>,
}

#[derive(Debug, Clone, Deserialize)]
struct RawReduced {
    #[serde(default)]
    value: Value,
    sample_id: Value,
}

#[derive(Deserialize)]
struct RawHeader {
    #[serde(default)]
    status: Option<String>,
    eval: RawEval,
    #[serde(default)]
    results: Option<RawResults>,
}

#[derive(Deserialize)]
struct RawJsonLog {
    #[serde(default)]
    status: Option<String>,
    eval: RawEval,
    #[serde(default)]
    results: Option<RawResults>,
    #[serde(default)]
    samples: Vec<RawSample>,
    #[serde(default)]
    reductions: Vec<RawReduction>,
}

/// One scorer's result as logged.
#[derive(Debug, Clone, PartialEq)]
pub struct ScorerResult {
    pub name: String,
    pub reducer: Option<String>,
    pub scored_samples: Option<usize>,
    /// Metric name → value (`None` for NaN/null), and whether it has parameters.
    pub metrics: Vec<(String, Option<f64>, bool)>,
}

/// One sample in one epoch.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub id: String,
    pub epoch: u32,
    pub input: String,
    pub target: String,
    /// Scorer → (value as logged, its float, answer).
    pub scores: Vec<(String, Value, Option<f64>, Option<String>)>,
    /// The model's final reply, when the log holds it with the sample (`.json` logs; a `.eval`
    /// keeps it in `samples/<id>_epoch_<n>.json`, see [`sample_completion`]).
    pub completion: Option<String>,
}

/// Per sample id, a reduced value's float (`None` = unscored).
pub type Reduced = Vec<(String, Option<f64>)>;

/// One scorer's per-sample values after an epoch reducer.
#[derive(Debug, Clone, PartialEq)]
pub struct Reduction {
    pub scorer: String,
    pub reducer: Option<String>,
    pub values: Reduced,
}

/// A log, as scorebench keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct Log {
    pub path: String,
    pub task: String,
    pub model: String,
    pub status: Option<String>,
    pub scorers: Vec<ScorerResult>,
    pub samples: Vec<Sample>,
    /// Scorer → per sample id, the reduced value's float (`None` = unscored), in log order.
    pub reductions: Vec<Reduction>,
    /// Scorers whose values are lists or dicts (their metrics are per key: reported only).
    pub complex: Vec<String>,
}

/// `value_to_float()` with Inspect's defaults (a string it cannot read is 0.0, as Inspect
/// returns after a warning); `None` for NaN (null), lists and dicts (see [`is_complex`]).
pub fn value_to_float(value: &Value) -> Option<f64> {
    match value {
        Value::String(s) => Some(match s.as_str() {
            "C" => 1.0,
            "P" => 0.5,
            "I" | "N" => 0.0,
            other => {
                let lower = other.to_lowercase();
                match lower.as_str() {
                    "yes" | "true" => 1.0,
                    "no" | "false" => 0.0,
                    _ => lower
                        .trim()
                        .parse::<f64>()
                        .ok()
                        .filter(|x| x.is_finite())
                        .unwrap_or(0.0),
                }
            }
        }),
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

/// A list or dict score value.
pub fn is_complex(value: &Value) -> bool {
    matches!(value, Value::Array(_) | Value::Object(_))
}

fn id_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Text of an input or target: a string, a list of strings (joined by newlines) or chat
/// messages (their `content`s).
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|m| match m {
                Value::Object(o) => o.get("content").map(text_of).unwrap_or_default(),
                other => text_of(other),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn sample_of(raw: RawSample) -> Sample {
    Sample {
        id: id_text(&raw.id),
        epoch: raw.epoch,
        input: text_of(&raw.input),
        target: text_of(&raw.target),
        completion: raw.output.and_then(|o| o.completion),
        scores: raw
            .scores
            .unwrap_or_default()
            .into_iter()
            .map(|(name, s)| {
                let f = value_to_float(&s.value);
                (name, s.value, f, s.answer)
            })
            .collect(),
    }
}

fn log_of(
    path: &str,
    status: Option<String>,
    eval: RawEval,
    results: Option<RawResults>,
    samples: Vec<RawSample>,
    reductions: Vec<RawReduction>,
) -> Log {
    let scorers = results
        .unwrap_or_default()
        .scores
        .into_iter()
        .map(|s| ScorerResult {
            name: s.name,
            reducer: s.reducer,
            scored_samples: s.scored_samples,
            metrics: s
                .metrics
                .into_iter()
                .map(|(k, m)| (k, m.value.as_f64().and_then(finite), !m.params.is_empty()))
                .collect(),
        })
        .collect();
    let mut complex: Vec<String> = Vec::new();
    let mut note = |scorer: &str, v: &Value| {
        if is_complex(v) && !complex.iter().any(|c| c == scorer) {
            complex.push(scorer.to_string());
        }
    };
    for r in &reductions {
        for s in &r.samples {
            note(&r.scorer, &s.value);
        }
    }
    for s in &samples {
        for (name, score) in s.scores.iter().flatten() {
            note(name, &score.value);
        }
    }
    Log {
        path: path.to_string(),
        complex,
        task: eval.task,
        model: eval.model,
        status,
        scorers,
        samples: samples.into_iter().map(sample_of).collect(),
        reductions: reductions
            .into_iter()
            .map(|r| Reduction {
                values: r
                    .samples
                    .iter()
                    .map(|s| (id_text(&s.sample_id), value_to_float(&s.value)))
                    .collect(),
                scorer: r.scorer,
                reducer: r.reducer,
            })
            .collect(),
    }
}

fn json_error(path: &str, what: &str, e: &serde_json::Error) -> InputError {
    InputError::at_line(path, e.line(), format!("{what}: {e}"))
}

/// Read an Inspect log: a `.eval` archive or a `.json` log.
pub fn parse(file: NamedBytes<'_>) -> Result<Log, InputError> {
    if is_zip(file.bytes) {
        return parse_eval(file);
    }
    let text = crate::text::from_utf8(file.bytes)
        .map_err(|e| InputError::whole_file(file.name, format!("not UTF-8 text: {e}")))?;
    let raw: RawJsonLog = serde_json::from_str(&lenient_json(text))
        .map_err(|e| json_error(file.name, "not an Inspect log (an object with `eval`)", &e))?;
    Ok(log_of(
        file.name,
        raw.status,
        raw.eval,
        raw.results,
        raw.samples,
        raw.reductions,
    ))
}

fn parse_eval(file: NamedBytes<'_>) -> Result<Log, InputError> {
    let whole = |m: String| InputError::whole_file(file.name, m);
    let archive = Archive::new(file.bytes).map_err(whole)?;
    let entry = |name: &str| -> Result<Option<String>, InputError> {
        let Some(bytes) = archive.read_name(name).map_err(whole)? else {
            return Ok(None);
        };
        let text =
            String::from_utf8(bytes).map_err(|e| whole(format!("{name}: not UTF-8 text: {e}")))?;
        // A copy only when there is a bare NaN to replace (summaries.json can be gigabytes).
        let fixed = match lenient_json(&text) {
            std::borrow::Cow::Owned(fixed) => Some(fixed),
            std::borrow::Cow::Borrowed(_) => None,
        };
        Ok(Some(fixed.unwrap_or(text)))
    };
    let at = |name: &str, e: serde_json::Error| {
        InputError::at_line(&format!("{}:{name}", file.name), e.line(), e.to_string())
    };
    let header_text = entry("header.json")?.ok_or_else(|| {
        whole("an Inspect .eval archive needs header.json (the log is unfinished?)".into())
    })?;
    let header: RawHeader = serde_json::from_str(&header_text).map_err(|e| at("header.json", e))?;
    let reductions: Vec<RawReduction> = match entry("reductions.json")? {
        Some(t) => serde_json::from_str(&t).map_err(|e| at("reductions.json", e))?,
        None => Vec::new(),
    };
    let samples: Vec<RawSample> = match entry("summaries.json")? {
        Some(t) => serde_json::from_str(&t).map_err(|e| at("summaries.json", e))?,
        None => {
            let mut out = Vec::new();
            for e in archive
                .entries
                .iter()
                .filter(|e| e.name.starts_with("samples/") && e.name.ends_with(".json"))
            {
                let t = entry(&e.name)?.unwrap_or_default();
                out.push(serde_json::from_str(&t).map_err(|x| at(&e.name, x))?);
            }
            out
        }
    };
    Ok(log_of(
        file.name,
        header.status,
        header.eval,
        header.results,
        samples,
        reductions,
    ))
}

/// The entries [`parse`] reads of a `.eval` archive whose directory has these `names`:
/// header.json, reductions.json and summaries.json (the browser reads only these of a big
/// archive); `None` without summaries.json (every sample entry is read then).
pub fn entries_to_score(names: &[&str]) -> Option<Vec<String>> {
    if !names.contains(&"summaries.json") {
        return None;
    }
    let wanted = ["header.json", "reductions.json", "summaries.json"];
    Some(
        wanted
            .into_iter()
            .filter(|w| names.contains(w))
            .map(String::from)
            .collect(),
    )
}

/// The entry of a `.eval` archive that holds sample `id` in `epoch`, whole.
pub fn sample_entry(id: &str, epoch: u32) -> String {
    format!("samples/{id}_epoch_{epoch}.json")
}

/// The model's final reply to sample `id` in `epoch` of a `.eval` archive (its
/// [`sample_entry`]); `None` for a `.json` log or a missing entry.
pub fn sample_completion(
    file: NamedBytes<'_>,
    id: &str,
    epoch: u32,
) -> Result<Option<String>, InputError> {
    if !is_zip(file.bytes) {
        return Ok(None);
    }
    let whole = |m: String| InputError::whole_file(file.name, m);
    let archive = Archive::new(file.bytes).map_err(whole)?;
    let name = sample_entry(id, epoch);
    let Some(bytes) = archive.read_name(&name).map_err(whole)? else {
        return Ok(None);
    };
    let text =
        String::from_utf8(bytes).map_err(|e| whole(format!("{name}: not UTF-8 text: {e}")))?;
    let sample: RawSample = serde_json::from_str(&lenient_json(&text)).map_err(|e| {
        InputError::at_line(&format!("{}:{name}", file.name), e.line(), e.to_string())
    })?;
    Ok(sample.output.and_then(|o| o.completion))
}

/// The reduced per-sample floats of `scorer` (`None` = unscored): from the reductions (those of
/// `reducer` when the results name one), else from the samples of the first epoch.
pub fn reduced(log: &Log, scorer: &str, reducer: Option<&str>) -> Reduced {
    let of_scorer = || log.reductions.iter().filter(|r| r.scorer == scorer);
    let found = of_scorer()
        .find(|r| reducer.is_some() && r.reducer.as_deref() == reducer)
        .or_else(|| of_scorer().next());
    if let Some(r) = found {
        return r.values.clone();
    }
    log.samples
        .iter()
        .filter(|s| s.epoch <= 1)
        .filter_map(|s| {
            let (_, _, f, _) = s.scores.iter().find(|(n, ..)| n == scorer)?;
            Some((s.id.clone(), *f))
        })
        .collect()
}

/// A metric recomputed from scored values, for the metrics whose rule is known.
pub fn recompute_metric(metric: &str, values: &[f64]) -> Option<f64> {
    match metric {
        "accuracy" => Some(py_mean(values).unwrap_or(0.0)),
        "mean" => Some(numpy_mean(values).unwrap_or(0.0)),
        "stderr" => Some(numpy_stderr(values)),
        _ => None,
    }
}

/// Per scorer, per recomputable metric: (scorer, metric, logged, recomputed).
pub fn recompute(log: &Log) -> Vec<(String, String, Option<f64>, f64)> {
    let mut out = Vec::new();
    for s in log
        .scorers
        .iter()
        .filter(|s| !log.complex.contains(&s.name))
    {
        let values: Vec<f64> = reduced(log, &s.name, s.reducer.as_deref())
            .into_iter()
            .filter_map(|(_, v)| v)
            .collect();
        for (metric, logged, has_params) in &s.metrics {
            if *has_params {
                continue;
            }
            if let Some(v) = recompute_metric(metric, &values) {
                out.push((s.name.clone(), metric.clone(), *logged, v));
            }
        }
    }
    out
}

fn metrics_of(s: &ScorerResult) -> Metrics {
    s.metrics
        .iter()
        .map(|(k, v, _)| (k.clone(), MetricValue::Scalar(*v)))
        .collect()
}

/// The report of a log.
pub fn report(log: &Log, inputs: Vec<InputFile>, samples: bool) -> Report {
    let mut warnings = Vec::new();
    if log.status.as_deref().is_some_and(|s| s != "success") {
        warnings.push(Warning {
            path: log.path.clone(),
            line: None,
            message: format!(
                "the log's status is {}: its numbers cover the samples it finished",
                log.status.as_deref().unwrap_or("")
            ),
        });
    }
    for (scorer, metric, logged, ours) in recompute(log) {
        if logged.map(f64::to_bits) != Some(ours.to_bits()) {
            warnings.push(Warning {
                path: log.path.clone(),
                line: None,
                message: format!(
                    "{scorer} {metric}: the log has {}, the samples give {}",
                    logged.map_or_else(|| "null".into(), crate::python::py_float_repr),
                    crate::python::py_float_repr(ours)
                ),
            });
        }
    }
    let mut ids: Vec<&str> = log.samples.iter().map(|s| s.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    let subsets: Vec<Subset> = log
        .scorers
        .iter()
        .map(|s| Subset {
            name: s.name.clone(),
            n: s.scored_samples.unwrap_or(ids.len()),
            metrics: metrics_of(s),
        })
        .collect();
    let overall = Overall {
        n: ids.len(),
        metrics: log.scorers.first().map(metrics_of).unwrap_or_default(),
    };
    Report {
        benchmark: BENCHMARK.into(),
        variant: "official".into(),
        inputs,
        overall,
        subsets,
        samples: samples.then(|| log.samples.iter().map(sample_json).collect()),
        warnings,
    }
}

/// One sample row of the report's `samples` (the browser builds each when it is shown).
pub fn sample_json(s: &Sample) -> Value {
    let mut o = Map::new();
    o.insert("subset".into(), json!(format!("epoch {}", s.epoch)));
    o.insert("id".into(), json!(s.id));
    o.insert("epoch".into(), json!(s.epoch));
    o.insert("target".into(), json!(s.target));
    o.insert("input".into(), json!(s.input));
    let answer = s.scores.iter().find_map(|(_, _, _, a)| a.clone());
    o.insert("answer".into(), json!(answer));
    if let Some(c) = &s.completion {
        o.insert("completion".into(), json!(c));
    }
    let mut scores = Map::new();
    for (name, value, f, _) in &s.scores {
        scores.insert(name.clone(), value.clone());
        o.insert(format!("{name}_value"), json!(f));
    }
    o.insert("scores".into(), Value::Object(scores));
    Value::Object(o)
}

/// Score one log (the CLI and the workbench).
pub fn score(file: NamedBytes<'_>, samples: bool) -> Result<Report, InputError> {
    let log = parse(file)?;
    Ok(report(&log, vec![file.input()], samples))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_read_in_part_scores_as_the_whole() {
        // The real log of tests/imports (inspect_ai 0.3.285, Zstandard entries): its summaries,
        // reductions and header alone, read from their ranges as the browser does, give the
        // same report; the samples' replies come from their own entries.
        use super::super::zip::{compact, directory, directory_at, record_range};
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/imports/inspect/model-a.eval");
        let whole = std::fs::read(path).unwrap();
        let at = directory_at(&whole, 0).unwrap();
        let cd = &whole[at.offset as usize..(at.offset + at.len) as usize];
        let entries = directory(cd, at.count).unwrap();
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        let read = |wanted: &[String]| {
            let records: Vec<_> = wanted
                .iter()
                .map(|w| {
                    let e = entries.iter().find(|e| &e.name == w).unwrap();
                    let (start, end) = record_range(&entries, e, at.offset);
                    (e, &whole[start as usize..end as usize])
                })
                .collect();
            compact(&records).unwrap()
        };
        let wanted = entries_to_score(&names).unwrap();
        assert_eq!(wanted, ["header.json", "reductions.json", "summaries.json"]);
        let part = read(&wanted);
        assert!(
            part.len() * 10 < whole.len(),
            "{} of {}",
            part.len(),
            whole.len()
        );
        let named = |bytes| NamedBytes {
            name: "model-a.eval",
            bytes,
        };
        let (a, b) = (
            score(named(&whole), true).unwrap(),
            score(named(&part), true).unwrap(),
        );
        assert_eq!(
            (a.overall, a.subsets, a.samples, a.warnings),
            (b.overall, b.subsets, b.samples, b.warnings)
        );
        let one = read(&[sample_entry("q03", 2)]);
        assert_eq!(
            sample_completion(named(&one), "q03", 2).unwrap(),
            sample_completion(named(&whole), "q03", 2).unwrap()
        );
        assert!(
            sample_completion(named(&whole), "q03", 2)
                .unwrap()
                .is_some()
        );
        // Without summaries.json every sample entry is read: no part to read.
        assert_eq!(
            entries_to_score(&["header.json", "samples/a_epoch_1.json"]),
            None
        );
    }

    #[test]
    fn values_map_as_inspect_maps_them() {
        assert_eq!(value_to_float(&json!("C")), Some(1.0));
        assert_eq!(value_to_float(&json!("P")), Some(0.5));
        assert_eq!(value_to_float(&json!("N")), Some(0.0));
        assert_eq!(value_to_float(&json!("Yes")), Some(1.0));
        assert_eq!(value_to_float(&json!("0.25")), Some(0.25));
        assert_eq!(value_to_float(&json!(true)), Some(1.0));
        assert_eq!(value_to_float(&Value::Null), None);
    }

    #[test]
    fn a_json_log_with_bare_nan_is_read() {
        let text = br#"{"status": "success", "eval": {"task": "t", "model": "m"},
            "results": {"scores": [{"name": "s", "metrics": {"mean": {"name": "mean", "value": NaN}}}]},
            "samples": [{"id": 1, "epoch": 1, "input": "q", "target": "a", "scores": {"s": {"value": NaN}}}]}"#;
        let log = parse(NamedBytes {
            name: "x.json",
            bytes: text,
        })
        .unwrap();
        assert_eq!(log.scorers[0].metrics[0].1, None);
        assert_eq!(log.samples[0].scores[0].2, None);
    }

    #[test]
    fn not_a_log_names_the_file() {
        let e = parse(NamedBytes {
            name: "x.json",
            bytes: b"{\"a\": 1}",
        })
        .unwrap_err();
        assert_eq!(e.path, "x.json");
    }
}
