//! lm-evaluation-harness (EleutherAI) output: `results_<date>.json` and, with `--log_samples`,
//! one `samples_<task>_<date>.jsonl` per task (format of lm-eval 0.4.x).
//!
//! ```text
//! results JSON   results.{task|group}.{"<metric>,<filter>", "<metric>_stderr,<filter>",
//!                sample_len, alias}; group_subtasks.{group: [tasks]}; n-samples
//! samples JSONL  one record per (doc_id, filter): doc_id, target, filtered_resps, filter,
//!                metrics (the metric names) and one value per metric name
//! report         a subset per task and group, its metrics under the harness's own keys
//!                ("acc,none", "acc_stderr,none"), exactly as the results file has them;
//!                overall = the one top-level task or group (none when there are several)
//! recomputed     per task, metric and filter from the sample rows (lm_eval.api.metrics):
//!                  mean   = sum(arr) / len(arr)                      (Python's left-to-right sum)
//!                  stderr = math.sqrt(sum([(x - mu) ** 2 for x in arr]) / (n - 1)) / math.sqrt(n)
//!                per group (aggregate_metric_list, weight_by_size: true, the default):
//!                  value  = sum([m * size ...]) / sum(sizes)
//!                  stderr = np.sqrt(sum([(size - 1) * se**2 * size ...]) / (Σsize − k) / Σsize)
//!                without a results file the recomputed task numbers are the report's
//! ```
//! A recomputed number that differs from the results file (a metric that is not a mean, a
//! group aggregated unweighted) is a warning naming both. Metrics whose per-sample values are
//! not numbers (corpus-level BLEU, F1 pairs) are reported, not recomputed.

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{NamedBytes, finite, lenient_json, py_mean, py_mean_stderr, py_sum};
use crate::error::InputError;
use crate::report::{InputFile, MetricValue, Metrics, Overall, Report, Subset, Warning};

/// The benchmark key in reports.
pub const BENCHMARK: &str = "lm-eval";

/// One sample row: a document of a task under one filter.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub task: String,
    pub doc_id: String,
    pub filter: String,
    pub target: String,
    /// What the model answered: for multiple choice the choice with the highest log-likelihood
    /// (`choice 2 of 4`, first of equals as `np.argmax`), for generation the filtered text.
    pub response: String,
    /// `filtered_resps` as compact JSON (what the metrics were computed from).
    pub filtered_resps: String,
    /// Metric name → the per-sample value (`None` when not a number).
    pub values: Vec<(String, Option<f64>)>,
    /// The file and 1-based line it came from.
    pub path: String,
    pub line: usize,
}

impl Sample {
    /// The key two runs align on: task, doc_id, filter.
    pub fn key(&self) -> String {
        format!("{}\u{1f}{}\u{1f}{}", self.task, self.doc_id, self.filter)
    }

    pub fn value(&self, metric: &str) -> Option<f64> {
        self.values
            .iter()
            .find(|(m, _)| m == metric)
            .and_then(|(_, v)| *v)
    }
}

/// A run: the results file's numbers (when given) and the sample rows of every samples file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Run {
    pub results: Option<ResultsFile>,
    pub samples: Vec<Sample>,
    /// Tasks of the samples files, in file order.
    pub tasks: Vec<String>,
}

/// What a results file says.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ResultsFile {
    pub path: String,
    /// Task or group → its entries (metric keys with their values, in file order).
    pub results: IndexMap<String, Vec<(String, Option<f64>)>>,
    /// `sample_len` per task or group.
    pub sizes: IndexMap<String, usize>,
    pub group_subtasks: IndexMap<String, Vec<String>>,
    pub model: Option<String>,
}

#[derive(Deserialize)]
struct RawResults {
    results: IndexMap<String, IndexMap<String, Value>>,
    #[serde(default)]
    group_subtasks: IndexMap<String, Vec<String>>,
    #[serde(default, rename = "n-samples")]
    n_samples: IndexMap<String, RawNSamples>,
    #[serde(default)]
    model_name: Option<String>,
}

#[derive(Deserialize)]
struct RawNSamples {
    effective: Option<usize>,
}

/// Which lm-eval file this is: a samples JSONL (its first record has `doc_id`) or a results JSON.
pub fn is_samples_file(file: NamedBytes<'_>) -> bool {
    let text = String::from_utf8_lossy(&file.bytes[..file.bytes.len().min(1 << 16)]);
    let first = text.trim_start().lines().next().unwrap_or("");
    first.starts_with('{') && first.contains("\"doc_id\"")
}

/// The task of `samples_<task>_<date>.jsonl` (lm-eval's file name); the file stem otherwise.
pub fn task_of_file_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let stem = base.strip_suffix(".jsonl").unwrap_or(base);
    let stem = stem.strip_prefix("samples_").unwrap_or(stem);
    // The date lm-eval appends: _YYYY-MM-DDTHH-MM-SS.ffffff
    match stem.rfind('_') {
        Some(at) => {
            let date = &stem.as_bytes()[at + 1..];
            if date.len() >= 19 && date.get(4) == Some(&b'-') && date.get(10) == Some(&b'T') {
                stem[..at].to_string()
            } else {
                stem.to_string()
            }
        }
        None => stem.to_string(),
    }
}

/// The answer in `filtered_resps`: `[[loglik, is_greedy], …]` (multiple choice, numbers or their
/// strings) → the first choice with the highest log-likelihood; `["text"]` → the text.
fn response_of(v: Option<&Value>) -> String {
    let Some(Value::Array(items)) = v else {
        return v.map(Value::to_string).unwrap_or_default();
    };
    let number = |x: &Value| match x {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    let lls: Option<Vec<f64>> = items
        .iter()
        .map(|c| c.as_array().and_then(|pair| pair.first()).and_then(number))
        .collect();
    match lls {
        Some(lls) if !lls.is_empty() => {
            let mut best = 0;
            for (i, ll) in lls.iter().enumerate() {
                if *ll > lls[best] {
                    best = i;
                }
            }
            format!("choice {best} of {}", lls.len())
        }
        _ => match items.as_slice() {
            [Value::String(text)] => text.clone(),
            _ => Value::Array(items.clone()).to_string(),
        },
    }
}

/// Read a results JSON.
pub fn parse_results(file: NamedBytes<'_>) -> Result<ResultsFile, InputError> {
    let text = crate::text::from_utf8(file.bytes)
        .map_err(|e| InputError::whole_file(file.name, format!("not UTF-8 text: {e}")))?;
    let raw: RawResults = serde_json::from_str(&lenient_json(text)).map_err(|e| {
        InputError::at_line(
            file.name,
            e.line(),
            format!("not an lm-eval results JSON (an object with `results`): {e}"),
        )
    })?;
    let mut results = IndexMap::new();
    let mut sizes = IndexMap::new();
    for (task, entries) in raw.results {
        let mut metrics = Vec::new();
        for (key, value) in &entries {
            if !key.contains(',') {
                continue; // alias, name, sample_len, sample_count
            }
            let v = match value {
                Value::Number(n) => n.as_f64().and_then(finite),
                _ => None, // "N/A", null (NaN)
            };
            metrics.push((key.clone(), v));
        }
        let size = entries
            .get("sample_len")
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .or_else(|| raw.n_samples.get(&task).and_then(|n| n.effective));
        if let Some(size) = size {
            sizes.insert(task.clone(), size);
        }
        results.insert(task, metrics);
    }
    Ok(ResultsFile {
        path: file.name.to_string(),
        results,
        sizes,
        group_subtasks: raw.group_subtasks,
        model: raw.model_name.filter(|m| !m.is_empty()),
    })
}

/// Read one samples JSONL of `task`.
pub fn parse_samples(file: NamedBytes<'_>, task: &str) -> Result<Vec<Sample>, InputError> {
    let text = crate::text::from_utf8(file.bytes)
        .map_err(|e| InputError::whole_file(file.name, format!("not UTF-8 text: {e}")))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let record: Map<String, Value> = serde_json::from_str(&lenient_json(line))
            .map_err(|e| InputError::at_line(file.name, n, format!("not a JSON object: {e}")))?;
        let doc_id = match record.get("doc_id") {
            Some(Value::Number(x)) => x.to_string(),
            Some(Value::String(s)) => s.clone(),
            _ => {
                return Err(InputError::at_line(
                    file.name,
                    n,
                    "an lm-eval sample needs a `doc_id`",
                ));
            }
        };
        let names: Vec<String> = match record.get("metrics") {
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(|m| m.as_str().map(str::to_string))
                .collect(),
            _ => {
                return Err(InputError::at_line(
                    file.name,
                    n,
                    "an lm-eval sample needs `metrics` (the list of its metric names)",
                ));
            }
        };
        let values = names
            .iter()
            .map(|m| {
                let v = match record.get(m) {
                    Some(Value::Number(x)) => x.as_f64(),
                    Some(Value::Bool(b)) => Some(f64::from(u8::from(*b))),
                    _ => None,
                };
                (m.clone(), v)
            })
            .collect();
        let text_of = |v: Option<&Value>| match v {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        out.push(Sample {
            task: task.to_string(),
            doc_id,
            filter: record
                .get("filter")
                .and_then(Value::as_str)
                .unwrap_or("none")
                .to_string(),
            target: text_of(record.get("target")),
            response: response_of(record.get("filtered_resps")),
            filtered_resps: text_of(record.get("filtered_resps")),
            values,
            path: file.name.to_string(),
            line: n,
        });
    }
    Ok(out)
}

/// Read the files of one run: at most one results JSON and any samples JSONL.
pub fn parse(files: &[NamedBytes<'_>]) -> Result<Run, InputError> {
    let mut run = Run::default();
    for f in files {
        if is_samples_file(*f) {
            let task = task_of_file_name(f.name);
            run.samples.extend(parse_samples(*f, &task)?);
            if !run.tasks.contains(&task) {
                run.tasks.push(task);
            }
        } else {
            if let Some(previous) = &run.results {
                return Err(InputError::whole_file(
                    f.name,
                    format!(
                        "a second results JSON for one run (the first is {}): score each run on its own",
                        previous.path
                    ),
                ));
            }
            run.results = Some(parse_results(*f)?);
        }
    }
    if run.results.is_none() && run.samples.is_empty() {
        return Err(InputError::whole_file(
            files.first().map_or("", |f| f.name),
            "no lm-eval results JSON or samples JSONL",
        ));
    }
    Ok(run)
}

/// `(metric, filter)` of a results key `"<metric>,<filter>"`.
fn split_key(key: &str) -> (&str, &str) {
    key.split_once(',').unwrap_or((key, "none"))
}

/// The recomputed mean and stderr of every numeric metric of `task`, under the harness's keys.
pub fn recompute_task(samples: &[Sample], task: &str) -> (Vec<(String, Option<f64>)>, usize) {
    let rows: Vec<&Sample> = samples.iter().filter(|s| s.task == task).collect();
    let mut keys: Vec<(String, String)> = Vec::new();
    for s in &rows {
        for (m, _) in &s.values {
            let k = (m.clone(), s.filter.clone());
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    let mut out = Vec::new();
    let mut size = 0;
    for (metric, filter) in keys {
        let values: Option<Vec<f64>> = rows
            .iter()
            .filter(|s| s.filter == filter)
            .map(|s| s.value(&metric))
            .collect();
        let Some(values) = values else { continue };
        size = size.max(values.len());
        out.push((format!("{metric},{filter}"), py_mean(&values)));
        out.push((format!("{metric}_stderr,{filter}"), py_mean_stderr(&values)));
    }
    (out, size)
}

/// A group's value and pooled stderr from its subtasks' (value, stderr, size), weighted by size.
pub fn aggregate_group(parts: &[(f64, Option<f64>, usize)]) -> (f64, Option<f64>) {
    let sizes: Vec<f64> = parts.iter().map(|p| p.2 as f64).collect();
    let total = py_sum(&sizes);
    let weighted: Vec<f64> = parts.iter().map(|p| p.0 * p.2 as f64).collect();
    let value = py_sum(&weighted) / total;
    let stderr = parts
        .iter()
        .map(|p| p.1.map(|se| (p.2 as f64 - 1.0) * (se * se) * p.2 as f64))
        .collect::<Option<Vec<f64>>>()
        .map(|terms| (py_sum(&terms) / (total - parts.len() as f64) / total).sqrt());
    (value, stderr)
}

fn metrics_of(entries: &[(String, Option<f64>)]) -> Metrics {
    entries
        .iter()
        .map(|(k, v)| (k.clone(), MetricValue::Scalar(*v)))
        .collect()
}

/// Metric keys with their values (`None` = undefined), in the harness's order.
pub type Entries = Vec<(String, Option<f64>)>;

/// The recomputed numbers per task and group: tasks from the samples, groups from the results
/// file's `group_subtasks` over the recomputed tasks.
pub fn recompute(run: &Run) -> IndexMap<String, (Entries, usize)> {
    let mut out: IndexMap<String, (Entries, usize)> = IndexMap::new();
    for task in &run.tasks {
        out.insert(task.clone(), recompute_task(&run.samples, task));
    }
    let Some(results) = &run.results else {
        return out;
    };
    // Innermost groups first: a group of groups needs its subgroups. An entry without subtasks
    // is a task run on its own (lm-eval lists every top-level task, `{"hellaswag": []}`), not
    // a group: its numbers are the task's.
    let mut pending: Vec<(&String, &Vec<String>)> = results
        .group_subtasks
        .iter()
        .filter(|(_, subtasks)| !subtasks.is_empty())
        .collect();
    while !pending.is_empty() {
        let before = pending.len();
        pending.retain(|(group, subtasks)| {
            if !subtasks.iter().all(|t| out.contains_key(t)) {
                return true;
            }
            let keys: Vec<String> = results
                .results
                .get(*group)
                .map(|e| e.iter().map(|(k, _)| k.clone()).collect())
                .unwrap_or_default();
            let mut entries = Vec::new();
            let mut size = 0;
            for key in keys.iter().filter(|k| !split_key(k).0.ends_with("_stderr")) {
                let (metric, filter) = split_key(key);
                let stderr_key = format!("{metric}_stderr,{filter}");
                let parts: Option<Vec<(f64, Option<f64>, usize)>> = subtasks
                    .iter()
                    .map(|t| {
                        let (entries, n) = &out[t];
                        let get = |k: &str| entries.iter().find(|(x, _)| x == k).and_then(|e| e.1);
                        Some((get(key)?, get(&stderr_key), *n))
                    })
                    .collect();
                let Some(parts) = parts else { continue };
                size = parts.iter().map(|p| p.2).sum();
                let (value, stderr) = aggregate_group(&parts);
                entries.push((key.clone(), finite(value)));
                entries.push((stderr_key, stderr.and_then(finite)));
            }
            out.insert((*group).clone(), (entries, size));
            false
        });
        if pending.len() == before {
            break; // subtasks without samples: those groups are not recomputed
        }
    }
    out
}

/// The report of a run: the results file's numbers (or the recomputed ones without it), the
/// sample rows when `samples`, and a warning for every recomputed number that differs.
pub fn report(run: &Run, inputs: Vec<InputFile>, samples: bool) -> Report {
    let recomputed = recompute(run);
    let mut warnings = Vec::new();
    let mut subsets = Vec::new();
    match &run.results {
        Some(results) => {
            for (task, entries) in &results.results {
                let n = results
                    .sizes
                    .get(task)
                    .copied()
                    .or_else(|| recomputed.get(task).map(|r| r.1))
                    .unwrap_or(0);
                if let Some((mine, _)) = recomputed.get(task) {
                    for (key, reported) in entries {
                        let Some((_, ours)) = mine.iter().find(|(k, _)| k == key) else {
                            continue;
                        };
                        if reported.map(f64::to_bits) != ours.map(f64::to_bits) {
                            warnings.push(Warning {
                                path: results.path.clone(),
                                line: None,
                                message: format!(
                                    "{task} {key}: the results file has {}, the samples give {}",
                                    show(*reported),
                                    show(*ours)
                                ),
                            });
                        }
                    }
                }
                subsets.push(Subset {
                    name: task.clone(),
                    n,
                    metrics: metrics_of(entries),
                });
            }
            for task in &run.tasks {
                if !results.results.contains_key(task) {
                    warnings.push(Warning {
                        path: results.path.clone(),
                        line: None,
                        message: format!("task {task} has samples but no results entry"),
                    });
                }
            }
        }
        None => {
            for (task, (entries, n)) in &recomputed {
                subsets.push(Subset {
                    name: task.clone(),
                    n: *n,
                    metrics: metrics_of(entries),
                });
            }
        }
    }
    // Overall: the one task or group that is no other group's subtask.
    let inner: Vec<&String> = run
        .results
        .iter()
        .flat_map(|r| r.group_subtasks.values().flatten())
        .collect();
    let top: Vec<&Subset> = subsets
        .iter()
        .filter(|s| !inner.contains(&&s.name))
        .collect();
    let overall = match top.as_slice() {
        [one] => Overall {
            n: one.n,
            metrics: one.metrics.clone(),
        },
        _ => Overall {
            n: run.samples.len(),
            metrics: Metrics::new(),
        },
    };
    Report {
        benchmark: BENCHMARK.into(),
        variant: "official".into(),
        inputs,
        overall,
        subsets,
        samples: samples.then(|| run.samples.iter().map(sample_json).collect()),
        warnings,
    }
}

fn show(v: Option<f64>) -> String {
    v.map_or_else(|| "null".into(), crate::python::py_float_repr)
}

/// One sample row of the report's `samples` (the browser builds each when it is shown).
pub fn sample_json(s: &Sample) -> Value {
    let mut o = Map::new();
    o.insert("subset".into(), json!(s.task));
    o.insert("id".into(), json!(s.doc_id));
    o.insert("filter".into(), json!(s.filter));
    o.insert("target".into(), json!(s.target));
    o.insert("response".into(), json!(s.response));
    o.insert("filtered_resps".into(), json!(s.filtered_resps));
    for (m, v) in &s.values {
        o.insert(m.clone(), json!(v));
    }
    Value::Object(o)
}

/// Score files of one run (the CLI and the workbench).
pub fn score(files: &[NamedBytes<'_>], samples: bool) -> Result<Report, InputError> {
    let run = parse(files)?;
    let inputs = files.iter().map(NamedBytes::input).collect();
    Ok(report(&run, inputs, samples))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_names_come_from_lm_evals_file_names() {
        assert_eq!(
            task_of_file_name("out/samples_arith_mc_easy_2026-11-23T14-44-24.106629.jsonl"),
            "arith_mc_easy"
        );
        assert_eq!(task_of_file_name("mine.jsonl"), "mine");
    }

    #[test]
    fn a_sample_without_doc_id_names_the_line() {
        let f = NamedBytes {
            name: "s.jsonl",
            bytes: b"{\"doc_id\": 0, \"metrics\": [\"acc\"], \"acc\": 1.0}\n{\"metrics\": []}\n",
        };
        let e = parse_samples(f, "t").unwrap_err();
        assert_eq!(e.line, Some(2));
    }

    #[test]
    fn a_task_run_on_its_own_is_not_an_empty_group() {
        // lm-eval 0.4 lists a top-level task in group_subtasks with no subtasks. Its numbers
        // (Python: mean of [1, 0, 1] = 0.6666666666666666, mean_stderr = 0.33333333333333337)
        // are the task's, recomputed from its rows: no warning.
        let results = br#"{"results": {"t": {"alias": "t", "acc,none": 0.6666666666666666,
            "acc_stderr,none": 0.33333333333333337}}, "group_subtasks": {"t": []}}"#;
        let rows = b"{\"doc_id\": 0, \"filter\": \"none\", \"metrics\": [\"acc\"], \"acc\": 1.0}\n\
            {\"doc_id\": 1, \"filter\": \"none\", \"metrics\": [\"acc\"], \"acc\": 0.0}\n\
            {\"doc_id\": 2, \"filter\": \"none\", \"metrics\": [\"acc\"], \"acc\": 1.0}\n";
        let files = [
            NamedBytes {
                name: "results_x.json",
                bytes: results,
            },
            NamedBytes {
                name: "samples_t_2026-11-23T14-44-24.106629.jsonl",
                bytes: rows,
            },
        ];
        let report = score(&files, false).unwrap();
        assert_eq!(report.warnings, vec![]);
        assert_eq!(
            report.overall.metrics["acc,none"],
            MetricValue::Scalar(Some(0.6666666666666666))
        );
        let run = parse(&files).unwrap();
        assert_eq!(
            recompute(&run)["t"].0,
            vec![
                ("acc,none".to_string(), Some(0.6666666666666666)),
                ("acc_stderr,none".to_string(), Some(0.33333333333333337)),
            ]
        );
    }

    #[test]
    fn pooled_stderr_matches_the_harness_formula() {
        // lm_eval.api.metrics.pooled_sample_stderr([0.1, 0.2], [10, 30]) =
        // np.sqrt(((9 * 0.01 * 10) + (29 * 0.04 * 30)) / (40 - 2) / 40)
        let (v, se) = aggregate_group(&[(0.5, Some(0.1), 10), (0.25, Some(0.2), 30)]);
        assert_eq!(v, (0.5 * 10.0 + 0.25 * 30.0) / 40.0);
        let expected =
            ((9.0 * (0.1 * 0.1) * 10.0 + 29.0 * (0.2 * 0.2) * 30.0) / 38.0 / 40.0f64).sqrt();
        assert_eq!(se, Some(expected));
    }
}
