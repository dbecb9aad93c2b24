//! EvalScope (ModelScope) outputs of `evalscope eval` (1.x): the report
//! `reports/<model>/<dataset>.json` and the reviews `reviews/<model>/<dataset>_<subset>.jsonl`.
//!
//! ```text
//! report   model_name, dataset_name, metrics[]: name (legacy_name, identity.name or name),
//!          num, score, macro_score, categories[]: name, num, score, macro_score,
//!          subsets[]: name, num, score (every score already rounded to 4 places)
//! reviews  one record per sample (and generation): sample_score.{sample_id,
//!          generation_index, score.value.{metric: value}, score.extracted_prediction,
//!          score.prediction}, target, messages
//! report   a subset per report subset with each metric's score as EvalScope wrote it;
//!          overall = each metric's score and `<metric>_macro` (macro_score), n = num
//! recomputed (evalscope.report, evalscope.metrics: mean = sum(arr) / len(arr)):
//!          subset   = round(mean(values), 4)
//!          category = round(sum([s.score * s.num ...]) / sum([s.num ...]), 4) over the rounded
//!                     subsets (micro_mean); macro = round(sum(scores) / len, 4)
//!          metric   = the same over the categories
//!          subsets come from the reviews, the category layout from the report
//! ```
//! Only metrics aggregated by `mean` are recomputed (pass@k and the like are reported only).

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{NamedBytes, lenient_json, py_mean, py_round, py_sum};
use crate::error::InputError;
use crate::report::{InputFile, MetricValue, Metrics, Overall, Report, Subset, Warning};

/// The benchmark key in reports.
pub const BENCHMARK: &str = "evalscope";

#[derive(Deserialize)]
struct RawReport {
    #[serde(default)]
    model_name: Option<String>,
    #[serde(default)]
    dataset_name: Option<String>,
    metrics: Vec<RawMetric>,
}

#[derive(Deserialize)]
struct RawIdentity {
    name: String,
    #[serde(default)]
    aggregation: Option<String>,
}

#[derive(Deserialize)]
struct RawMetric {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    legacy_name: Option<String>,
    #[serde(default)]
    identity: Option<RawIdentity>,
    #[serde(default)]
    num: usize,
    score: f64,
    #[serde(default)]
    macro_score: Option<f64>,
    #[serde(default)]
    categories: Vec<RawCategory>,
}

#[derive(Deserialize)]
struct RawCategory {
    #[serde(default)]
    name: Value,
    #[serde(default)]
    num: usize,
    score: f64,
    #[serde(default)]
    macro_score: Option<f64>,
    #[serde(default)]
    subsets: Vec<RawSubset>,
}

#[derive(Deserialize)]
struct RawSubset {
    name: String,
    score: f64,
    num: usize,
    #[serde(default)]
    is_aggregate: bool,
}

/// One metric of a report.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportMetric {
    pub name: String,
    /// Aggregated by `mean` (recomputable).
    pub mean: bool,
    pub num: usize,
    pub score: f64,
    pub macro_score: Option<f64>,
    pub categories: Vec<Category>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Category {
    pub name: String,
    pub num: usize,
    pub score: f64,
    pub macro_score: Option<f64>,
    /// (name, num, score, is_aggregate)
    pub subsets: Vec<(String, usize, f64, bool)>,
}

/// A report file.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportFile {
    pub path: String,
    pub model: Option<String>,
    pub dataset: Option<String>,
    pub metrics: Vec<ReportMetric>,
}

/// One review row.
#[derive(Debug, Clone, PartialEq)]
pub struct Review {
    pub subset: String,
    pub sample_id: String,
    pub generation: u64,
    pub target: String,
    pub prediction: String,
    pub extracted: String,
    pub model: Option<String>,
    /// Metric → value (`None` when not a number).
    pub values: Vec<(String, Option<f64>)>,
}

impl Review {
    pub fn key(&self) -> String {
        format!(
            "{}\u{1f}{}\u{1f}{}",
            self.subset, self.sample_id, self.generation
        )
    }

    pub fn value(&self, metric: &str) -> Option<f64> {
        self.values
            .iter()
            .find(|(m, _)| m == metric)
            .and_then(|(_, v)| *v)
    }
}

/// A run: the report (when given) and the review rows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Run {
    pub report: Option<ReportFile>,
    pub reviews: Vec<Review>,
    /// Subsets of the review files, in file order.
    pub subsets: Vec<String>,
}

fn utf8<'a>(file: NamedBytes<'a>) -> Result<&'a str, InputError> {
    crate::text::from_utf8(file.bytes)
        .map_err(|e| InputError::whole_file(file.name, format!("not UTF-8 text: {e}")))
}

/// Whether this is a reviews JSONL (a first record with `sample_score`).
pub fn is_reviews_file(file: NamedBytes<'_>) -> bool {
    let text = String::from_utf8_lossy(&file.bytes[..file.bytes.len().min(1 << 16)]);
    let first = text.trim_start().lines().next().unwrap_or("");
    first.starts_with('{') && first.contains("\"sample_score\"")
}

/// Read a report JSON.
pub fn parse_report(file: NamedBytes<'_>) -> Result<ReportFile, InputError> {
    let raw: RawReport = serde_json::from_str(&lenient_json(utf8(file)?)).map_err(|e| {
        InputError::at_line(
            file.name,
            e.line(),
            format!("not an EvalScope report (an object with `metrics`): {e}"),
        )
    })?;
    let metrics = raw
        .metrics
        .into_iter()
        .map(|m| {
            let name = m
                .legacy_name
                .or_else(|| m.identity.as_ref().map(|i| i.name.clone()))
                .or(m.name)
                .unwrap_or_else(|| "score".into());
            let mean = m
                .identity
                .as_ref()
                .and_then(|i| i.aggregation.as_deref())
                .is_none_or(|a| a == "mean");
            ReportMetric {
                name,
                mean,
                num: m.num,
                score: m.score,
                macro_score: m.macro_score,
                categories: m
                    .categories
                    .into_iter()
                    .map(|c| Category {
                        name: match &c.name {
                            Value::Array(parts) => parts
                                .iter()
                                .map(|p| p.as_str().unwrap_or_default())
                                .collect::<Vec<_>>()
                                .join("/"),
                            Value::String(s) => s.clone(),
                            _ => String::new(),
                        },
                        num: c.num,
                        score: c.score,
                        macro_score: c.macro_score,
                        subsets: c
                            .subsets
                            .into_iter()
                            .map(|s| (s.name, s.num, s.score, s.is_aggregate))
                            .collect(),
                    })
                    .collect(),
            }
        })
        .collect();
    Ok(ReportFile {
        path: file.name.to_string(),
        model: raw.model_name,
        dataset: raw.dataset_name,
        metrics,
    })
}

/// The subset of a reviews file `<dataset>_<subset>.jsonl`; the stem without a known dataset.
pub fn subset_of_file_name(name: &str, dataset: Option<&str>) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let stem = base.strip_suffix(".jsonl").unwrap_or(base);
    dataset
        .and_then(|d| stem.strip_prefix(d))
        .and_then(|s| s.strip_prefix('_'))
        .unwrap_or(stem)
        .to_string()
}

/// Without a report: the dataset the review files' names share (`general_mcq_easy`,
/// `general_mcq_hard` → `general_mcq`); none for a single file.
fn common_dataset(files: &[&NamedBytes<'_>]) -> Option<String> {
    let stems: Vec<&str> = files
        .iter()
        .map(|f| {
            let base = f.name.rsplit(['/', '\\']).next().unwrap_or(f.name);
            base.strip_suffix(".jsonl").unwrap_or(base)
        })
        .collect();
    let (first, rest) = stems.split_first()?;
    if rest.is_empty() {
        return None;
    }
    let mut common = first.len();
    for s in rest {
        common = common.min(
            first
                .bytes()
                .zip(s.bytes())
                .take_while(|(a, b)| a == b)
                .count(),
        );
    }
    while !first.is_char_boundary(common) {
        common -= 1;
    }
    let prefix = &first[..common];
    prefix.rfind('_').map(|at| prefix[..at].to_string())
}

/// Read a reviews JSONL of `subset`.
pub fn parse_reviews(file: NamedBytes<'_>, subset: &str) -> Result<Vec<Review>, InputError> {
    let text = utf8(file)?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let bad = |m: String| InputError::at_line(file.name, n, m);
        let record: Map<String, Value> = serde_json::from_str(&lenient_json(line))
            .map_err(|e| bad(format!("not a JSON object: {e}")))?;
        let Some(Value::Object(ss)) = record.get("sample_score") else {
            return Err(bad("an EvalScope review needs `sample_score`".into()));
        };
        let score = ss.get("score").and_then(Value::as_object);
        let values = match score.and_then(|s| s.get("value")) {
            Some(Value::Object(v)) => v
                .iter()
                .map(|(k, x)| {
                    let f = match x {
                        Value::Number(n) => n.as_f64(),
                        Value::Bool(b) => Some(f64::from(u8::from(*b))),
                        _ => None,
                    };
                    (k.clone(), f)
                })
                .collect(),
            _ => return Err(bad("`sample_score.score.value` must be an object".into())),
        };
        let text_of = |v: Option<&Value>| match v {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(Value::Array(a)) if a.iter().all(Value::is_string) => a
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(", "),
            Some(other) => other.to_string(),
        };
        let model = record
            .get("messages")
            .and_then(Value::as_array)
            .and_then(|m| m.iter().rev().find_map(|m| m.get("model")?.as_str()))
            .map(str::to_string);
        let sample_id = match ss.get("sample_id").or_else(|| record.get("index")) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(x)) => x.to_string(),
            _ => format!("#{n}"),
        };
        out.push(Review {
            subset: subset.to_string(),
            sample_id,
            generation: ss
                .get("generation_index")
                .and_then(Value::as_u64)
                .unwrap_or(0),
            target: text_of(record.get("target")),
            prediction: text_of(score.and_then(|s| s.get("prediction"))),
            extracted: text_of(score.and_then(|s| s.get("extracted_prediction"))),
            model,
            values,
        });
    }
    Ok(out)
}

/// Read the files of one run: at most one report and any reviews.
pub fn parse(files: &[NamedBytes<'_>]) -> Result<Run, InputError> {
    let mut run = Run::default();
    for f in files.iter().filter(|f| !is_reviews_file(**f)) {
        if let Some(previous) = &run.report {
            return Err(InputError::whole_file(
                f.name,
                format!(
                    "a second EvalScope report for one run (the first is {}): score each on its own",
                    previous.path
                ),
            ));
        }
        run.report = Some(parse_report(*f)?);
    }
    let reviews: Vec<&NamedBytes<'_>> = files.iter().filter(|f| is_reviews_file(**f)).collect();
    let dataset = run
        .report
        .as_ref()
        .and_then(|r| r.dataset.clone())
        .or_else(|| common_dataset(&reviews));
    for f in reviews {
        let subset = subset_of_file_name(f.name, dataset.as_deref());
        run.reviews.extend(parse_reviews(*f, &subset)?);
        if !run.subsets.contains(&subset) {
            run.subsets.push(subset);
        }
    }
    if run.report.is_none() && run.reviews.is_empty() {
        return Err(InputError::whole_file(
            files.first().map_or("", |f| f.name),
            "no EvalScope report or reviews",
        ));
    }
    Ok(run)
}

/// `round(sum(values) / len(values), 4)`, EvalScope's subset score; `None` for no values.
pub fn subset_score(values: &[f64]) -> Option<f64> {
    py_mean(values).map(|m| py_round(m, 4))
}

/// `(round(micro_mean, 4), round(macro_mean, 4))` of `(score, num)` parts, 0.0 when empty or
/// when the sizes add up to 0 (EvalScope catches the ZeroDivisionError).
pub fn aggregate(parts: &[(f64, usize)]) -> (f64, f64) {
    if parts.is_empty() {
        return (0.0, 0.0);
    }
    let weighted: Vec<f64> = parts.iter().map(|(s, n)| s * *n as f64).collect();
    let total: usize = parts.iter().map(|p| p.1).sum();
    let micro = if total == 0 {
        0.0
    } else {
        py_sum(&weighted) / total as f64
    };
    let scores: Vec<f64> = parts.iter().map(|p| p.0).collect();
    let macro_ = py_sum(&scores) / parts.len() as f64;
    (py_round(micro, 4), py_round(macro_, 4))
}

/// The per-sample values of `metric` in `subset`, when all are numbers.
fn subset_values(run: &Run, subset: &str, metric: &str) -> Option<Vec<f64>> {
    run.reviews
        .iter()
        .filter(|r| r.subset == subset)
        .map(|r| r.value(metric))
        .collect()
}

/// Recomputed (what, reported, recomputed) for every number of the report whose subsets all
/// have reviews.
pub fn recompute(run: &Run) -> Vec<(String, f64, f64)> {
    let Some(report) = &run.report else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for m in report.metrics.iter().filter(|m| m.mean) {
        let mut categories = Vec::new();
        for c in &m.categories {
            let mut parts = Vec::new();
            for (name, _, reported, aggregate_row) in &c.subsets {
                if *aggregate_row {
                    continue;
                }
                let Some(values) = subset_values(run, name, &m.name).filter(|v| !v.is_empty())
                else {
                    return out; // a subset without reviews: nothing above it is recomputable
                };
                let Some(score) = subset_score(&values) else {
                    return out;
                };
                out.push((format!("{} {name}", m.name), *reported, score));
                parts.push((score, values.len()));
            }
            let (micro, macro_) = aggregate(&parts);
            out.push((format!("{} category {}", m.name, c.name), c.score, micro));
            if let Some(reported) = c.macro_score {
                out.push((
                    format!("{} category {} macro", m.name, c.name),
                    reported,
                    macro_,
                ));
            }
            categories.push((micro, parts.iter().map(|p| p.1).sum::<usize>()));
        }
        let (micro, macro_) = aggregate(&categories);
        out.push((m.name.clone(), m.score, micro));
        if let Some(reported) = m.macro_score {
            out.push((format!("{} macro", m.name), reported, macro_));
        }
    }
    out
}

/// The report of a run.
pub fn report(run: &Run, inputs: Vec<InputFile>, samples: bool) -> Report {
    let mut warnings = Vec::new();
    let path = run
        .report
        .as_ref()
        .map(|r| r.path.clone())
        .unwrap_or_default();
    for (what, reported, ours) in recompute(run) {
        if reported.to_bits() != ours.to_bits() {
            warnings.push(Warning {
                path: path.clone(),
                line: None,
                message: format!(
                    "{what}: the report has {}, the reviews give {}",
                    crate::python::py_float_repr(reported),
                    crate::python::py_float_repr(ours)
                ),
            });
        }
    }
    let mut subsets: Vec<Subset> = Vec::new();
    let mut overall = Overall {
        n: 0,
        metrics: Metrics::new(),
    };
    match &run.report {
        Some(report) => {
            for m in &report.metrics {
                for c in &m.categories {
                    for (name, num, score, _) in &c.subsets {
                        let label = if report.metrics[0].categories.len() > 1 {
                            format!("{}/{name}", c.name)
                        } else {
                            name.clone()
                        };
                        let at = match subsets.iter().position(|s| s.name == label) {
                            Some(at) => at,
                            None => {
                                subsets.push(Subset {
                                    name: label,
                                    n: *num,
                                    metrics: Metrics::new(),
                                });
                                subsets.len() - 1
                            }
                        };
                        subsets[at]
                            .metrics
                            .insert(m.name.clone(), MetricValue::Scalar(Some(*score)));
                    }
                }
                overall.n = overall.n.max(m.num);
                overall
                    .metrics
                    .insert(m.name.clone(), MetricValue::Scalar(Some(m.score)));
                if let Some(macro_) = m.macro_score {
                    overall.metrics.insert(
                        format!("{}_macro", m.name),
                        MetricValue::Scalar(Some(macro_)),
                    );
                }
            }
        }
        None => {
            let mut names: Vec<String> = Vec::new();
            for r in &run.reviews {
                for (m, _) in &r.values {
                    if !names.contains(m) {
                        names.push(m.clone());
                    }
                }
            }
            let mut per_metric: Vec<Vec<(f64, usize)>> = vec![Vec::new(); names.len()];
            for subset in &run.subsets {
                let mut metrics = Metrics::new();
                let mut n = 0;
                for (k, m) in names.iter().enumerate() {
                    let values = subset_values(run, subset, m).unwrap_or_default();
                    n = n.max(values.len());
                    let score = subset_score(&values);
                    if let Some(s) = score {
                        per_metric[k].push((s, values.len()));
                    }
                    metrics.insert(m.clone(), MetricValue::Scalar(score));
                }
                subsets.push(Subset {
                    name: subset.clone(),
                    n,
                    metrics,
                });
            }
            overall.n = run.reviews.len();
            for (k, m) in names.iter().enumerate() {
                // One category holding every subset: the metric is its micro mean.
                let (micro, macro_) = aggregate(&per_metric[k]);
                overall
                    .metrics
                    .insert(m.clone(), MetricValue::Scalar(Some(micro)));
                overall
                    .metrics
                    .insert(format!("{m}_macro"), MetricValue::Scalar(Some(macro_)));
            }
        }
    }
    Report {
        benchmark: BENCHMARK.into(),
        variant: "official".into(),
        inputs,
        overall,
        subsets,
        samples: samples.then(|| run.reviews.iter().map(review_json).collect()),
        warnings,
    }
}

fn review_json(r: &Review) -> Value {
    let mut o = Map::new();
    o.insert("subset".into(), json!(r.subset));
    o.insert("id".into(), json!(r.sample_id));
    o.insert("generation".into(), json!(r.generation));
    o.insert("target".into(), json!(r.target));
    o.insert("extracted".into(), json!(r.extracted));
    o.insert("prediction".into(), json!(r.prediction));
    for (m, v) in &r.values {
        o.insert(m.clone(), json!(v));
    }
    Value::Object(o)
}

/// Score the files of one run (the CLI and the workbench).
pub fn score(files: &[NamedBytes<'_>], samples: bool) -> Result<Report, InputError> {
    let run = parse(files)?;
    let inputs = files.iter().map(NamedBytes::input).collect();
    Ok(report(&run, inputs, samples))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_overall_is_the_rounded_mean_of_rounded_subsets() {
        // 14/18 and 15/18 → 0.7778 and 0.8333 → round(0.80555, 4) = 0.8055, not round(29/36, 4)
        let easy = subset_score(&[vec![1.0; 14], vec![0.0; 4]].concat()).unwrap();
        let hard = subset_score(&[vec![1.0; 15], vec![0.0; 3]].concat()).unwrap();
        assert_eq!((easy, hard), (0.7778, 0.8333));
        assert_eq!(aggregate(&[(easy, 18), (hard, 18)]).0, 0.8055);
    }

    #[test]
    fn subsets_come_from_evalscopes_file_names() {
        assert_eq!(
            subset_of_file_name("r/general_mcq_easy.jsonl", Some("general_mcq")),
            "easy"
        );
        assert_eq!(subset_of_file_name("x.jsonl", None), "x");
    }
}
