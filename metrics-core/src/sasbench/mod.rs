//! SAS-Bench: QWK, CCS and ECS per prediction file, as the official scripts compute them.
//!
//! Reference: PKU-DAIR/SAS-Bench at commit 4ef718b, `sas_pipelines/2_process_prediction.py`,
//! `3_compute_ccs.py`, `4_compute_ecs.py`; the rules and quirks are in
//! `shared/specs/sasbench.md`, the formulas in the submodules:
//!
//! ```text
//! step 2   raw reply → pred_label, pred_steps               step2, lenient_json
//! QWK      cohen_kappa_score(G, P, weights="quadratic")      ccs::qwk
//! CCS      1 − Σ O∘W / Σ E∘W over distinct score vectors     ccs::ccs
//! ECS      mean over 3 score tiers of spearman(pred, gold)   ecs::ecs
//!          error counts per taxonomy slot
//! overall  plain mean of the per-file values (the paper's "Avg."); null when any file's
//!          value is null (an average over fewer files would not be the paper's number)
//! ```
//! Parsing ([`format`]) is separate from scoring: files become typed [`Response`]s, scorers
//! take those. This module does no IO: callers pass file names and texts.
//!
//! Official crashes: values that make both official steps 3 and 4 raise (`manual_label`
//! "2.5", a null `pred_label`, an empty file, …) are an [`InputError`] naming the file and
//! line. A value that makes only one step raise (the taxonomy has no line for the file but
//! errors are present; an unparseable predicted `step_score`) leaves that step's metrics
//! `null` and adds a [`Warning`] naming the file and line; the other metrics are reported.
//!
//! Variants ([`Variant`]): `official` (default) reproduces the official numbers, quirks
//! included; `corrected` uses the corrected CCS, QWK and ECS documented in [`ccs`] and
//! [`ecs`].

pub mod ccs;
pub mod ecs;
pub mod format;
pub mod lenient_json;
pub mod lite;
/// The Python semantics now live in [`crate::python`] (this path stays for old callers).
pub use crate::python;
pub mod step2;

use serde_json::json;

pub use ccs::{Ccs, RecordError, ScoreVectors};
pub use ecs::Ecs;
pub use format::{ErrorSlots, Response, Taxonomy};

use crate::error::{InputError, MetricError};
use crate::report::{InputFile, MetricValue, Metrics, Overall, Report, Subset, Warning};
use crate::text::Text;

/// Which scoring rules to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Variant {
    /// The official code's numbers, quirks included.
    #[default]
    Official,
    /// Order-independent CCS, QWK on the declared scale, ECS with proper quantiles.
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
        match name {
            "official" => Some(Self::Official),
            "corrected" => Some(Self::Corrected),
            _ => None,
        }
    }
}

/// A file's name (as the user gave it) and its text.
#[derive(Debug, Clone, Copy)]
pub struct NamedText<'a> {
    pub name: &'a str,
    pub text: &'a str,
}

/// Processed prediction files (`*_prediction.jsonl`) and the taxonomy.
#[derive(Debug, Clone)]
pub struct SasInputs<'a> {
    pub taxonomy: NamedText<'a>,
    pub predictions: Vec<NamedText<'a>>,
}

/// One raw reply file with its gold dataset file.
#[derive(Debug, Clone, Copy)]
pub struct RawFile<'a> {
    pub dataset: NamedText<'a>,
    pub scored: NamedText<'a>,
}

/// Raw reply files (`*_scored.jsonl`), their gold dataset files and the taxonomy.
#[derive(Debug, Clone)]
pub struct RawInputs<'a> {
    pub taxonomy: NamedText<'a>,
    pub files: Vec<RawFile<'a>>,
}

/// The subset name of a file: its base name without `.jsonl` and `_prediction`/`_scored`.
pub fn subset_name(file_name: &str) -> String {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    let stem = base.strip_suffix(".jsonl").unwrap_or(base);
    let stem = stem
        .strip_suffix("_prediction")
        .or_else(|| stem.strip_suffix("_scored"))
        .unwrap_or(stem);
    stem.to_string()
}

/// The official sort key: the numeric prefix, 0 when it is not an integer.
fn sort_key(subset: &str) -> i64 {
    format::file_id(subset).parse::<i64>().unwrap_or(0)
}

/// Everything computed for one file.
#[derive(Debug, Clone, PartialEq)]
pub struct FileScore {
    pub name: String,
    pub n: usize,
    pub qwk: Result<f64, MetricError>,
    pub ccs: Result<Ccs, RecordError>,
    pub ecs: Result<Ecs, RecordError>,
}

/// Score one file's responses (`slots`: the file's ECS slots from the taxonomy).
pub fn score_file(
    name: &str,
    responses: &[Response],
    slots: &ErrorSlots,
    variant: Variant,
) -> FileScore {
    let ccs = ScoreVectors::from_responses(responses).map(|v| ccs::ccs(&v, variant));
    FileScore {
        name: subset_name(name),
        n: responses.len(),
        qwk: ccs::qwk(responses, variant),
        ccs,
        ecs: ecs::ecs(responses, slots, variant),
    }
}

/// What a report carries besides the metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReportOptions {
    /// Per-record `samples`.
    pub samples: bool,
    /// `inputs` with each file's SHA-256; without, `inputs` is empty and the caller fills it
    /// (the CLI hashes on another thread while scoring).
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

/// Score processed prediction files.
pub fn score_predictions(inputs: &SasInputs, variant: Variant) -> Result<Report, InputError> {
    score_predictions_with(inputs, variant, ReportOptions::default())
}

/// [`score_predictions`] with a choice of what the report carries.
pub fn score_predictions_with(
    inputs: &SasInputs,
    variant: Variant,
    options: ReportOptions,
) -> Result<Report, InputError> {
    let taxonomy = Taxonomy::parse(inputs.taxonomy.name, inputs.taxonomy.text)?;
    let mut files = Vec::new();
    for file in &inputs.predictions {
        files.push((
            file.name.to_string(),
            format::parse_predictions(file.name, file.text)?,
        ));
    }
    let report_inputs = if options.input_hashes {
        std::iter::once(&inputs.taxonomy)
            .chain(&inputs.predictions)
            .map(|f| InputFile::from_bytes(f.name, f.text.as_bytes()))
            .collect()
    } else {
        Vec::new()
    };
    let files: Vec<(&str, &[Response])> = files
        .iter()
        .map(|(name, responses)| (name.as_str(), responses.as_slice()))
        .collect();
    build_report(&taxonomy, files, report_inputs, variant, options.samples)
}

/// Step 2 for one raw file: the prediction records it produces, read as responses.
///
/// The same results and errors as [`format::parse_records`] + [`format::parse_scored`] +
/// [`step2::process_file`] + [`Response::from_record`], in that order, without building the
/// processed records; an empty gold file is an error naming it (scoring would fail anyway).
/// It runs as three steps a streaming caller can take one file at a time: [`gold_steps`]
/// (the dataset file), [`predict_replies`] (the raw file), [`responses_with`] (the dataset
/// file again).
pub fn process_raw_file(file: &RawFile) -> Result<Vec<Response>, InputError> {
    let gold = gold_steps(file.dataset.name, file.dataset.text)?;
    let predictions = predict_replies(&gold, file.scored.name, file.scored.text)?;
    responses_with(file.dataset.name, file.dataset.text, &predictions)
}

/// What step 2 needs of a gold dataset file: per record, its line and its number of steps
/// (`None` when `steps` is not a list).
#[derive(Debug, Clone)]
pub struct GoldSteps {
    name: String,
    records: Vec<(usize, Option<usize>)>,
}

/// Read a gold dataset file (whole or streamed) for [`predict_replies`]; its parse errors.
pub fn gold_steps<'t>(name: &str, text: impl Into<Text<'t>>) -> Result<GoldSteps, InputError> {
    let mut records = Vec::new();
    format::for_each_record(name, text, |line, entries| {
        let n_steps = match entries.iter().find(|(k, _)| k == "steps") {
            Some((_, lite::Lite::Array(s))) => Some(s.len()),
            _ => None,
        };
        records.push((line, n_steps));
    })?;
    Ok(GoldSteps {
        name: name.to_string(),
        records,
    })
}

/// Step 2 over a raw reply file (whole or streamed) against its gold records: one prediction
/// per paired record, made as each reply is read (no reply text is kept). Errors in the order
/// of the whole-file reading: the reply file's format, an empty gold file, then step 2's in
/// record order.
pub fn predict_replies<'t>(
    gold: &GoldSteps,
    scored_name: &str,
    text: impl Into<Text<'t>>,
) -> Result<Vec<format::Prediction>, InputError> {
    let mut predictions = Vec::with_capacity(gold.records.len());
    let mut first_error = None;
    let mut k = 0;
    format::for_each_scored(scored_name, text, |reply_line, reply_text| {
        if first_error.is_none()
            && let Some(&(gold_line, n_steps)) = gold.records.get(k)
        {
            match n_steps {
                None => first_error = Some(step2::steps_not_a_list(&gold.name, gold_line)),
                Some(n_steps) => match step2::predict(&reply_text, n_steps) {
                    Ok(p) => predictions.push(p),
                    Err(message) => {
                        first_error = Some(InputError::at_line(scored_name, reply_line, message));
                    }
                },
            }
        }
        k += 1;
    })?;
    if gold.records.is_empty() {
        return Err(step2::no_gold_records(&gold.name));
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(predictions),
    }
}

/// The gold dataset file read again (whole or streamed), each record with step 2's
/// prediction for it: the responses, or the first record's error.
pub fn responses_with<'t>(
    name: &str,
    text: impl Into<Text<'t>>,
    predictions: &[format::Prediction],
) -> Result<Vec<Response>, InputError> {
    let mut responses = Vec::with_capacity(predictions.len());
    let mut first_error = None;
    let mut known = format::Names::default();
    format::for_each_record(name, text, |line, entries| {
        if first_error.is_none() {
            let prediction = predictions.get(responses.len());
            match Response::from_lite(name, line, &entries, prediction, &mut known) {
                Ok(r) => responses.push(r),
                Err(e) => first_error = Some(e),
            }
        }
    })?;
    match first_error {
        Some(e) => Err(e),
        None => Ok(responses),
    }
}

/// Score raw reply files: step 2 first, then as [`score_predictions`].
pub fn score_raw(inputs: &RawInputs, variant: Variant) -> Result<Report, InputError> {
    score_raw_with(inputs, variant, ReportOptions::default())
}

/// [`score_raw`] with a choice of what the report carries.
pub fn score_raw_with(
    inputs: &RawInputs,
    variant: Variant,
    options: ReportOptions,
) -> Result<Report, InputError> {
    let taxonomy = Taxonomy::parse(inputs.taxonomy.name, inputs.taxonomy.text)?;
    let mut files = Vec::new();
    for file in &inputs.files {
        files.push((file.scored.name.to_string(), process_raw_file(file)?));
    }
    let report_inputs = if options.input_hashes {
        std::iter::once(&inputs.taxonomy)
            .chain(inputs.files.iter().flat_map(|f| [&f.dataset, &f.scored]))
            .map(|f| InputFile::from_bytes(f.name, f.text.as_bytes()))
            .collect()
    } else {
        Vec::new()
    };
    let files: Vec<(&str, &[Response])> = files
        .iter()
        .map(|(name, responses)| (name.as_str(), responses.as_slice()))
        .collect();
    build_report(&taxonomy, files, report_inputs, variant, options.samples)
}

/// The report of already-parsed files `(file name, responses)`, as [`score_predictions`] and
/// [`score_raw`] build it, with or without the per-record `samples` (for callers that keep the
/// responses: the command line reads its files as streams, the workbench keeps them and builds
/// each sample when it is asked for, with [`sample`]).
pub fn report_from_responses(
    taxonomy: &Taxonomy,
    files: &[(&str, &[Response])],
    inputs: Vec<InputFile>,
    variant: Variant,
    with_samples: bool,
) -> Result<Report, InputError> {
    build_report(taxonomy, files.to_vec(), inputs, variant, with_samples)
}

/// One response of the file whose subset (file stem) is `subset`, as the report's `samples`
/// hold it.
pub fn sample(subset: &str, r: &Response) -> serde_json::Value {
    let scores =
        |s: &Result<Vec<i64>, String>| s.as_ref().map_or(serde_json::Value::Null, |v| json!(v));
    let names = |s: &Result<Vec<format::Name>, String>| {
        s.as_ref().map_or(serde_json::Value::Null, |v| {
            json!(v.iter().map(|n| display_name(n)).collect::<Vec<_>>())
        })
    };
    json!({
        "subset": subset,
        "line": r.line,
        "id": r.id,
        "total": r.total,
        "gold_total": r.gold_total,
        "pred_total": r.pred_total,
        "gold_steps": r.gold_steps,
        "pred_steps": scores(&r.pred_steps),
        "gold_errors": names(&r.gold_errors),
        "pred_errors": names(&r.pred_errors),
    })
}

/// An error name as reports show it (a non-string name is kept with a `\0` tag, see
/// [`format::Names`]).
pub fn display_name(key: &str) -> &str {
    key.strip_prefix('\u{0}').unwrap_or(key)
}

fn build_report(
    taxonomy: &Taxonomy,
    mut files: Vec<(&str, &[Response])>,
    inputs: Vec<InputFile>,
    variant: Variant,
    with_samples: bool,
) -> Result<Report, InputError> {
    files.sort_by_key(|(name, _)| sort_key(&subset_name(name)));
    let mut subsets = Vec::new();
    let mut warnings = Vec::new();
    let mut samples = Vec::new();
    let mut total_n = 0;
    for &(path, responses) in &files {
        if responses.is_empty() {
            return Err(InputError::whole_file(
                path,
                "no records: a prediction file needs at least one record (the official steps 3 and 4 raise IndexError)",
            ));
        }
        let subset = subset_name(path);
        let slots = taxonomy.slots(format::file_id(&subset));
        let score = score_file(path, responses, &slots, variant);
        total_n += score.n;
        let mut warn = |line: usize, message: String| {
            warnings.push(Warning {
                path: path.to_string(),
                line: (line > 0).then_some(line),
                message,
            });
        };
        let mut metrics = Metrics::new();
        if let Err(e) = &score.qwk {
            warn(0, format!("qwk: {e}"));
        }
        metrics.insert("qwk".into(), MetricValue::from_result(score.qwk.clone()));
        let ccs_value = match &score.ccs {
            Ok(c) => c.ccs.clone(),
            Err(e) => {
                warn(
                    e.line,
                    format!(
                        "ccs not computed: {} (the official step 3 raises here)",
                        e.message
                    ),
                );
                Err(MetricError::undefined("the official step 3 raises"))
            }
        };
        if let (Ok(_), Err(e)) = (&score.ccs, &ccs_value) {
            warn(0, format!("ccs: {e}"));
        }
        metrics.insert("ccs".into(), MetricValue::from_result(ccs_value));
        match &score.ecs {
            Ok(e) => {
                metrics.insert("ecs".into(), MetricValue::Scalar(Some(e.ecs)));
                metrics.insert(
                    "ecs_tiers".into(),
                    MetricValue::Vector(e.tiers.iter().map(|&t| Some(t)).collect()),
                );
            }
            Err(e) => {
                warn(e.line, format!("ecs not computed: {}", e.message));
                metrics.insert("ecs".into(), MetricValue::Scalar(None));
                metrics.insert("ecs_tiers".into(), MetricValue::Vector(vec![None; 3]));
            }
        }
        if with_samples {
            samples.extend(responses.iter().map(|r| sample(&subset, r)));
        }
        subsets.push(Subset {
            name: subset,
            n: score.n,
            metrics,
        });
    }
    Ok(Report {
        benchmark: "sasbench".into(),
        variant: variant.name().into(),
        inputs,
        overall: Overall {
            n: total_n,
            metrics: overall_metrics(&subsets),
        },
        subsets,
        samples: with_samples.then_some(samples),
        warnings,
    })
}

/// Plain mean of each metric over the files; `null` when any file's value is `null`.
fn overall_metrics(subsets: &[Subset]) -> Metrics {
    let mean = |values: Vec<Option<f64>>| -> Option<f64> {
        let values: Option<Vec<f64>> = values.into_iter().collect();
        let values = values?;
        if values.is_empty() {
            return None;
        }
        Some(values.iter().sum::<f64>() / values.len() as f64)
    };
    let mut metrics = Metrics::new();
    for key in ["qwk", "ccs", "ecs"] {
        let values = subsets
            .iter()
            .map(|s| s.metrics.get(key).and_then(MetricValue::as_scalar))
            .collect();
        metrics.insert(key.into(), MetricValue::Scalar(mean(values)));
    }
    let tiers = (0..3)
        .map(|i| {
            mean(
                subsets
                    .iter()
                    .map(|s| match s.metrics.get("ecs_tiers") {
                        Some(MetricValue::Vector(v)) => v.get(i).copied().flatten(),
                        _ => None,
                    })
                    .collect(),
            )
        })
        .collect();
    metrics.insert("ecs_tiers".into(), MetricValue::Vector(tiers));
    metrics
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `Value`-based reading of a raw file: parse_records, parse_scored, step 2's
    /// processed records, from_record (the definition the fast path must reproduce).
    fn process_raw_file_by_value(file: &RawFile) -> Result<Vec<Response>, InputError> {
        let gold = format::parse_records(file.dataset.name, file.dataset.text)?;
        let replies = format::parse_scored(file.scored.name, file.scored.text)?;
        if gold.is_empty() {
            return Err(step2::no_gold_records(file.dataset.name));
        }
        let records = step2::process_file(file.dataset.name, file.scored.name, &gold, &replies)?;
        records
            .iter()
            .map(|r| Response::from_record(file.dataset.name, r))
            .collect()
    }

    fn parse_predictions_by_value(name: &str, text: &str) -> Result<Vec<Response>, InputError> {
        format::parse_records(name, text)?
            .iter()
            .map(|r| Response::from_record(name, r))
            .collect()
    }

    #[test]
    fn fast_reading_equals_the_value_reading_on_every_golden_file() {
        let golden =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/sasbench");
        let read = |p: &std::path::Path| std::fs::read_to_string(p).unwrap_or_default();
        let mut files = 0;
        for case in std::fs::read_dir(golden).into_iter().flatten().flatten() {
            let scored_dir = case.path().join("datasets_GoldenModel_Scored");
            for entry in std::fs::read_dir(&scored_dir)
                .into_iter()
                .flatten()
                .flatten()
            {
                let path = entry.path();
                let name = path.display().to_string();
                if name.ends_with("_prediction.jsonl") {
                    let text = read(&path);
                    assert_eq!(
                        format::parse_predictions(&name, &text),
                        parse_predictions_by_value(&name, &text),
                        "{name}"
                    );
                    files += 1;
                } else if name.ends_with("_scored.jsonl") {
                    let dataset = case
                        .path()
                        .join("datasets")
                        .join(format!("{}.jsonl", subset_name(&name)));
                    let (dataset_text, scored_text) = (read(&dataset), read(&path));
                    let dataset_name = dataset.display().to_string();
                    let file = RawFile {
                        dataset: NamedText {
                            name: &dataset_name,
                            text: &dataset_text,
                        },
                        scored: NamedText {
                            name: &name,
                            text: &scored_text,
                        },
                    };
                    assert_eq!(
                        process_raw_file(&file),
                        process_raw_file_by_value(&file),
                        "{name}"
                    );
                    files += 1;
                }
            }
        }
        assert!(files > 40, "{files}");
    }

    #[test]
    fn fast_reading_equals_the_value_reading_on_odd_records() {
        let gold = [
            r#"{"id": 5, "total": true, "manual_label": 2.9, "steps": [{"label": "3", "errors": "ab"}, 7, {"label": [1], "errors": {"k": 1, "j": 2}}], "pred_label": "", "pred_steps": [{"step_score": "2", "errors": [1.5, null, "x", ["y"]]}]}"#,
            r#"{"id": "x", "total": 4, "manual_label": "1", "steps": [{"errors": [1, 2.0, true, null]}]}"#,
            r#"{"id": "y", "total": 4, "manual_label": "1", "steps": [{"errors": [[1]]}], "pred_steps": [{"step_score": "2.5", "errors": {"a": 1}}]}"#,
            r#"{"id": "z", "total": 4, "manual_label": "1", "steps": [{"label": 1}], "pred_steps": 3}"#,
            r#"{"id": "w", "total": "4", "manual_label": "1", "steps": []}"#,
            r#"{"id": "v", "total": 4, "manual_label": "2.5", "steps": []}"#,
            r#"{"id": "u", "total": 4, "manual_label": 1, "steps": {"a": 1}}"#,
            r#"{"id": "t", "total": 4, "manual_label": 1, "steps": [{"errors": 3}, {"errors": 3.5}], "total": 5, "id": "t2"}"#,
        ];
        let replies = [
            r#"{"total":4,"pred_score":"3","steps":[{"step_score":1.9,"errors":["a",{"b":[1,"c"]}, 2]},{"step_score":"x"},"bad"]}"#,
            r#"<think>{'total': 4, 'pred_score': 2, 'steps': [{'step_score': 1, 'errors': ['q']}]}"#,
            r#"```json{"total":4,"pred_score":1,"steps":[{"step_score":1,"errors":["a"]}]}```trailing // c"#,
            r#"{"total":4,"pred_score":3,"steps":[{"step_score":4,"err"#,
            r#"no json here"#,
            r#"{"total":4,"pred_score":3,"steps":"oops"}"#,
            r#"{"total"#,
        ];
        for (k, line) in gold.iter().enumerate() {
            for reply in replies.iter().chain([&r#"[]"#]) {
                let dataset = format!("{line}\n");
                let scored = format!("id\t{}\n", serde_json::json!(reply));
                let file = RawFile {
                    dataset: NamedText {
                        name: "d.jsonl",
                        text: &dataset,
                    },
                    scored: NamedText {
                        name: "s.jsonl",
                        text: &scored,
                    },
                };
                assert_eq!(
                    process_raw_file(&file),
                    process_raw_file_by_value(&file),
                    "gold {k} reply {reply}"
                );
            }
            assert_eq!(
                format::parse_predictions("p.jsonl", line),
                parse_predictions_by_value("p.jsonl", line),
                "gold {k}"
            );
        }
        // A non-string reply (str() of a dict), a reply line without TAB, more replies than
        // records, an invalid line.
        let dataset = format!("{}\n\n{}\n", gold[1], gold[0]);
        for scored in [
            "a\t{\"total\": 4, \"pred_score\": 1, \"steps\": [{\"step_score\": 1, \"errors\": [\"it's\"]}]}\nb\tnull\nc\t3\n",
            "a\t\"x\"\nno tab\n",
            "a\t\"x\"\nb\t{bad\n",
        ] {
            let file = RawFile {
                dataset: NamedText {
                    name: "d.jsonl",
                    text: &dataset,
                },
                scored: NamedText {
                    name: "s.jsonl",
                    text: scored,
                },
            };
            assert_eq!(
                process_raw_file(&file),
                process_raw_file_by_value(&file),
                "{scored}"
            );
        }
        for text in [
            "[1]\n",
            "{\"a\": 1} x\n",
            "\u{feff}{\"total\": 1}\n",
            "{} \n{",
        ] {
            assert_eq!(
                format::parse_predictions("p.jsonl", text),
                parse_predictions_by_value("p.jsonl", text),
                "{text}"
            );
        }
    }

    #[test]
    fn a_broken_gold_file_is_named_in_raw_scoring() {
        let raw = |dataset: &'static str| RawFile {
            dataset: NamedText {
                name: "7_Math_ShortAns.jsonl",
                text: dataset,
            },
            scored: NamedText {
                name: "7_Math_ShortAns_scored.jsonl",
                text: "a\t\"{\\\"total\\\": 1}\"\n",
            },
        };
        // An empty gold file: the error names it, not the reply file.
        let e = process_raw_file(&raw("")).unwrap_err();
        assert_eq!((e.path.as_str(), e.line), ("7_Math_ShortAns.jsonl", None));
        // A gold record without a `steps` list: the gold file and its line.
        let e = process_raw_file(&raw(
            "\n{\"id\": \"a\", \"total\": 1, \"manual_label\": 1}\n",
        ))
        .unwrap_err();
        assert_eq!(
            (e.path.as_str(), e.line),
            ("7_Math_ShortAns.jsonl", Some(2))
        );
    }
}
