//! "Define a benchmark from these files", the page's form: the fields of files no benchmark
//! recognised, with sample values ([`fields_of`]); what the user maps each field to and which
//! metrics they pick (a [`Draft`], first guessed by [`first_draft`]); the spec the draft makes
//! ([`Draft::spec`], checked by [`Spec::validate`]) and its report on the files
//! ([`Draft::preview`]). The browser worker answers the form with these; the spec's TOML is
//! written by `spec_toml::write` (in the browser, a module of its own the worker starts).
//!
//! ```text
//! one file    role `records`: it maps gold and pred (id, subset, text fields optional)
//! two files   role `gold` (the file that maps gold) and `predictions` (the one that maps
//!             pred), joined by id when both map one, else by position
//! weight      a field the user marks `weight` (accuracy, exact match, MAE, RMSE weighted)
//! values      integer when every gold sample is a whole number, number when a number,
//!             else label; the first metric is the primary (mae and rmse: lower is better)
//! ```

use metrics_core::Report;
use metrics_core::error::InputError;
use metrics_core::spec::read::decode;
use metrics_core::spec::score::score;
use metrics_core::spec::{
    Encoding, FileSpec, Format, Join, MetricKind, MetricSpec, Names, Scope, Spec, ValueType, Values,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::benchmarks::spec::spec_table;
use crate::table::Table;

/// Sample values shown per field.
pub const SAMPLES: usize = 3;

/// Most fields listed per file (a wider file lists its first ones).
pub const MAX_FIELDS: usize = 64;

/// Bytes of a file read for its fields and samples.
const HEAD_BYTES: usize = 256 * 1024;

/// A sample value is cut to this many characters.
const SAMPLE_CHARS: usize = 60;

/// The metrics the form offers, in its order (`mean` needs a named number: specs by hand).
pub const METRICS: [MetricKind; 10] = [
    MetricKind::Qwk,
    MetricKind::Pearson,
    MetricKind::Spearman,
    MetricKind::KendallTauB,
    MetricKind::Accuracy,
    MetricKind::F1Macro,
    MetricKind::F1Micro,
    MetricKind::ExactMatch,
    MetricKind::Mae,
    MetricKind::Rmse,
];

/// [`METRICS`]' names, in its order (what the page's form lists).
pub const METRIC_NAMES: [&str; 10] = [
    "qwk",
    "pearson",
    "spearman",
    "kendall_tau_b",
    "accuracy",
    "f1_macro",
    "f1_micro",
    "exact_match",
    "mae",
    "rmse",
];

/// The value types' names (`values` in a draft), in the form's order.
pub const VALUE_TYPES: [&str; 3] = ["integer", "number", "label"];

/// Whether a file is a spec file (by its name: `*.toml`), read and registered before the
/// files dropped with it.
pub fn is_spec_file(name: &str) -> bool {
    name.to_ascii_lowercase().ends_with(".toml")
}

/// A field of a file and its first values as text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldSample {
    pub name: String,
    pub samples: Vec<String>,
}

/// What a field is in the spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Use {
    Unused,
    Id,
    Gold,
    Pred,
    Subset,
    /// Shown with each sample.
    Text,
    /// The record's weight.
    Weight,
}

impl Use {
    /// Every use, in the form's order.
    pub const ALL: [Use; 7] = [
        Use::Unused,
        Use::Id,
        Use::Gold,
        Use::Pred,
        Use::Subset,
        Use::Text,
        Use::Weight,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Use::Unused => "unused",
            Use::Id => "id",
            Use::Gold => "gold",
            Use::Pred => "pred",
            Use::Subset => "subset",
            Use::Text => "text",
            Use::Weight => "weight",
        }
    }
}

/// One file of a draft.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DraftFile {
    /// The file's index among the files the worker holds.
    pub index: usize,
    pub name: String,
    pub format: Format,
    pub encoding: Encoding,
    pub fields: Vec<FieldSample>,
    /// What each field is, in `fields`' order.
    pub uses: Vec<Use>,
}

/// The form's state: what the spec will say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Draft {
    pub name: String,
    pub key: String,
    pub files: Vec<DraftFile>,
    /// The type of the gold and predicted values.
    pub values: ValueType,
    /// The metrics, the first the primary.
    pub metrics: Vec<MetricKind>,
}

/// A file's format from its first character and header line, its fields and sample values (of
/// its first [`SAMPLES`] records), read from its first 256 KiB. UTF-8, else Latin-1.
pub fn fields_of(
    name: &str,
    bytes: &[u8],
) -> Result<(Format, Encoding, Vec<FieldSample>), InputError> {
    let head = &bytes[..bytes.len().min(HEAD_BYTES)];
    // A head cut short: up to its last whole line, else its last whole character.
    let head = match head.iter().rposition(|&b| b == b'\n') {
        Some(end) if head.len() < bytes.len() => &head[..end],
        _ => match std::str::from_utf8(head) {
            Err(e) if e.error_len().is_none() => &head[..e.valid_up_to()],
            _ => head,
        },
    };
    let (text, encoding) = match decode(name, head, Encoding::Utf8) {
        Ok(text) => (text, Encoding::Utf8),
        Err(_) => (decode(name, head, Encoding::Latin1)?, Encoding::Latin1),
    };
    let trimmed = text.trim_start();
    let (format, mut fields) = if trimmed.starts_with('{') {
        let objects = trimmed
            .lines()
            .filter(|l| !l.trim().is_empty())
            .take(SAMPLES)
            .map_while(|l| serde_json::from_str::<Value>(l).ok());
        (Format::Jsonl, object_fields(objects))
    } else if let Some(rest) = trimmed.strip_prefix('[') {
        (Format::Json, object_fields(array_objects(rest).into_iter()))
    } else {
        let header = trimmed.lines().next().unwrap_or("");
        let format = if header.contains('\t') {
            Format::Tsv
        } else {
            Format::Csv
        };
        (format, delimited_fields(trimmed, format))
    };
    if fields.is_empty() {
        return Err(InputError::whole_file(
            name,
            "no fields found: a benchmark is defined from a CSV or TSV file with a header row, JSONL, or a JSON array of objects",
        ));
    }
    fields.truncate(MAX_FIELDS);
    Ok((format, encoding, fields))
}

/// A value as the form shows it (a string as it is, anything else as JSON), cut short.
fn sample_text(value: &Value) -> String {
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    cut(&text)
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(SAMPLE_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// The keys of JSON objects in order of first appearance, each with its values.
fn object_fields(objects: impl Iterator<Item = Value>) -> Vec<FieldSample> {
    let mut fields: Vec<FieldSample> = Vec::new();
    for object in objects {
        let Value::Object(map) = object else { break };
        for (key, value) in &map {
            let at = match fields.iter().position(|f| &f.name == key) {
                Some(at) => at,
                None => {
                    fields.push(FieldSample {
                        name: key.clone(),
                        samples: Vec::new(),
                    });
                    fields.len() - 1
                }
            };
            fields[at].samples.push(sample_text(value));
        }
    }
    fields
}

/// The first [`SAMPLES`] elements of a JSON array whose text starts after its `[`.
fn array_objects(rest: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut rest = rest;
    while out.len() < SAMPLES {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        match stream.next() {
            Some(Ok(value)) => {
                out.push(value);
                rest = &rest[stream.byte_offset()..];
            }
            _ => break,
        }
    }
    out
}

/// A CSV's or TSV's header and its first records' cells (TSV without quoting, as a spec reads
/// it by default).
fn delimited_fields(text: &str, format: Format) -> Vec<FieldSample> {
    let tsv = format == Format::Tsv;
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(if tsv { b'\t' } else { b',' })
        .quoting(!tsv)
        .flexible(true)
        .from_reader(text.as_bytes());
    let Ok(headers) = reader.headers().cloned() else {
        return Vec::new();
    };
    let mut fields: Vec<FieldSample> = headers
        .iter()
        .map(|h| FieldSample {
            name: h.trim().to_string(),
            samples: Vec::new(),
        })
        .collect();
    for record in reader.records().take(SAMPLES).map_while(Result::ok) {
        for (field, cell) in fields.iter_mut().zip(record.iter()) {
            field.samples.push(cut(cell));
        }
    }
    fields.retain(|f| !f.name.is_empty());
    fields
}

const ID_NAMES: &[&str] = &[
    "id",
    "essay_id",
    "sample_id",
    "question_id",
    "qid",
    "uid",
    "idx",
    "index",
    "doc_id",
];
const GOLD_NAMES: &[&str] = &[
    "gold",
    "label",
    "answer",
    "target",
    "reference",
    "truth",
    "y_true",
    "expected",
    "human_score",
];
const PRED_NAMES: &[&str] = &[
    "pred",
    "prediction",
    "predicted",
    "y_pred",
    "model_score",
    "output",
    "response",
];
/// Gold in a file of its own or beside predictions, the prediction in a file of its own.
const SCORE_NAMES: &[&str] = &["score", "rating"];
const SUBSET_NAMES: &[&str] = &[
    "subset",
    "set",
    "essay_set",
    "category",
    "task",
    "split",
    "group",
    "domain",
];
const TEXT_NAMES: &[&str] = &["text", "essay", "question", "prompt", "input", "comment"];

fn named(field: &str, names: &[&str]) -> bool {
    names.iter().any(|n| field.eq_ignore_ascii_case(n))
}

/// A file name that says gold (`gold.csv`, `test_labels.jsonl`, `answers.tsv`).
fn gold_file(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    ["gold", "label", "answer", "truth", "reference", "ref."]
        .iter()
        .any(|w| lower.contains(w))
}

/// The form's first guess for these files (name, format, encoding, fields; at most two files:
/// more are left out): ids, gold, pred, subset and text fields by their names, the value type
/// from the gold samples, metrics that suit it.
pub fn first_draft(files: Vec<(usize, String, Format, Encoding, Vec<FieldSample>)>) -> Draft {
    let mut files: Vec<DraftFile> = files
        .into_iter()
        .take(2)
        .map(|(index, name, format, encoding, fields)| DraftFile {
            index,
            name,
            format,
            encoding,
            uses: vec![Use::Unused; fields.len()],
            fields,
        })
        .collect();
    // The gold file first.
    if files.len() == 2 && gold_file(&files[1].name) && !gold_file(&files[0].name) {
        files.swap(0, 1);
    }
    let two = files.len() == 2;
    for (i, file) in files.iter_mut().enumerate() {
        let (wants_gold, wants_pred) = (!two || i == 0, !two || i == 1);
        let mut gold = false;
        let mut pred = false;
        let mut id = false;
        for (at, field) in file.fields.iter().enumerate() {
            let f = field.name.as_str();
            // In a predictions file of its own, `score` or `rating` is the prediction.
            let is_pred = named(f, PRED_NAMES) || (two && named(f, SCORE_NAMES));
            file.uses[at] = if !id && named(f, ID_NAMES) {
                id = true;
                Use::Id
            } else if wants_pred && !pred && is_pred {
                pred = true;
                Use::Pred
            } else if wants_gold && !gold && (named(f, GOLD_NAMES) || named(f, SCORE_NAMES)) {
                gold = true;
                Use::Gold
            } else if named(f, SUBSET_NAMES) {
                Use::Subset
            } else if named(f, TEXT_NAMES) {
                Use::Text
            } else {
                Use::Unused
            };
        }
        // No field by name: the first unused one whose samples are numbers, else the first
        // unused one.
        for (wanted, found, role) in [(wants_gold, gold, Use::Gold), (wants_pred, pred, Use::Pred)]
        {
            if !wanted || found {
                continue;
            }
            let unused = |at: &usize| file.uses[*at] == Use::Unused;
            let numeric = |at: &usize| {
                let samples: Vec<&str> = file.fields[*at]
                    .samples
                    .iter()
                    .map(String::as_str)
                    .collect();
                value_type(&samples) != ValueType::Label
            };
            let at = (0..file.uses.len())
                .find(|at| unused(at) && numeric(at))
                .or_else(|| (0..file.uses.len()).find(unused));
            if let Some(at) = at {
                file.uses[at] = role;
            }
        }
    }
    let gold_samples: Vec<&str> = files
        .iter()
        .flat_map(|f| {
            f.fields
                .iter()
                .zip(&f.uses)
                .filter(|(_, u)| **u == Use::Gold)
                .flat_map(|(field, _)| field.samples.iter().map(String::as_str))
        })
        .collect();
    let values = value_type(&gold_samples);
    let metrics = match values {
        ValueType::Integer => vec![
            MetricKind::Qwk,
            MetricKind::Accuracy,
            MetricKind::Pearson,
            MetricKind::Spearman,
            MetricKind::Mae,
        ],
        ValueType::Number => vec![
            MetricKind::Pearson,
            MetricKind::Spearman,
            MetricKind::Mae,
            MetricKind::Rmse,
        ],
        ValueType::Label => vec![
            MetricKind::Accuracy,
            MetricKind::F1Macro,
            MetricKind::F1Micro,
        ],
    };
    let stem = files.first().map_or("", |f| stem_of(&f.name));
    Draft {
        name: if stem.is_empty() {
            "My benchmark".into()
        } else {
            stem.to_string()
        },
        key: key_of(stem),
        files,
        values,
        metrics,
    }
}

/// A file name without its folders and extension.
fn stem_of(name: &str) -> &str {
    let base = crate::detect::base_name(name);
    base.rsplit_once('.').map_or(base, |(stem, _)| stem)
}

/// A spec key from a name: lowercase ASCII letters and digits, `-` for the rest, at most 40
/// characters; one a loaded benchmark has gets `-spec` (then `-spec2`, …).
pub fn key_of(name: &str) -> String {
    let mut key = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            key.push(c.to_ascii_lowercase());
        } else if !key.is_empty() && !key.ends_with('-') {
            key.push('-');
        }
    }
    let mut key: String = key.trim_end_matches('-').chars().take(33).collect();
    key = key.trim_end_matches('-').to_string();
    if key.is_empty() {
        key = "my-benchmark".into();
    }
    let base = key.clone();
    let mut n = 1;
    while crate::registry::get(&key).is_some() {
        key = if n == 1 {
            format!("{base}-spec")
        } else {
            format!("{base}-spec{n}")
        };
        n += 1;
    }
    key
}

/// Integer when every sample is a whole number, number when every one is a number, else label.
fn value_type(samples: &[&str]) -> ValueType {
    let numbers: Vec<Option<f64>> = samples
        .iter()
        .map(|s| s.trim().parse::<f64>().ok().filter(|n| n.is_finite()))
        .collect();
    if samples.is_empty() || numbers.iter().any(Option::is_none) {
        ValueType::Label
    } else if numbers.iter().flatten().all(|n| n.fract() == 0.0) {
        ValueType::Integer
    } else {
        ValueType::Number
    }
}

impl Draft {
    /// The role key each file has in the spec, in `files`' order.
    pub fn roles(&self) -> Vec<&'static str> {
        match self.files.len() {
            1 => vec!["records"],
            _ => self
                .files
                .iter()
                .map(|f| {
                    if f.uses.contains(&Use::Gold) {
                        "gold"
                    } else {
                        "predictions"
                    }
                })
                .collect(),
        }
    }

    /// The spec this draft says, checked (its key one no loaded benchmark has).
    pub fn spec(&self) -> Result<Spec, String> {
        if self.files.is_empty() || self.files.len() > 2 {
            return Err("a benchmark is defined from one file (gold and predictions) or two (gold, predictions)".into());
        }
        let roles = self.roles();
        if roles.len() == 2 && roles[0] == roles[1] {
            return Err("one file maps `gold`, the other `pred`".into());
        }
        let mut files = indexmap::IndexMap::new();
        for (file, role) in self.files.iter().zip(&roles) {
            let one = |u: Use| -> Result<Option<String>, String> {
                let mut fields = file
                    .fields
                    .iter()
                    .zip(&file.uses)
                    .filter(|(_, used)| **used == u)
                    .map(|(f, _)| f.name.clone());
                let first = fields.next();
                match fields.next() {
                    Some(second) => Err(format!(
                        "{}: both `{}` and `{second}` are `{}`: choose one",
                        file.name,
                        first.unwrap_or_default(),
                        u.as_str()
                    )),
                    None => Ok(first),
                }
            };
            files.insert(
                role.to_string(),
                FileSpec {
                    label: file.name.clone(),
                    format: file.format,
                    encoding: file.encoding,
                    id: one(Use::Id)?.map(Names::One),
                    gold: one(Use::Gold)?,
                    pred: one(Use::Pred)?,
                    subset: one(Use::Subset)?,
                    weight: one(Use::Weight)?,
                    text: file
                        .fields
                        .iter()
                        .zip(&file.uses)
                        .filter(|(_, u)| **u == Use::Text)
                        .map(|(f, _)| f.name.clone())
                        .collect(),
                    ..FileSpec::default()
                },
            );
        }
        let join = if files.values().all(|f| f.id.is_some()) {
            Join::Id
        } else {
            Join::Position
        };
        let metrics: Vec<MetricSpec> = self
            .metrics
            .iter()
            .map(|&m| MetricSpec {
                key: m.name().to_string(),
                metric: m,
                scope: Scope::Both,
                formula: None,
                labels: None,
                range: None,
                ranges: Default::default(),
                pred: None,
                clip: None,
                normalize: None,
                of: None,
            })
            .collect();
        let spec = Spec {
            name: self.name.trim().to_string(),
            key: self.key.trim().to_string(),
            version: "1".into(),
            description: String::new(),
            files,
            join,
            values: Values {
                gold: self.values,
                pred: self.values,
            },
            subsets: Default::default(),
            lower_is_better: matches!(
                self.metrics.first(),
                Some(MetricKind::Mae | MetricKind::Rmse)
            ),
            metrics,
            aggregates: Vec::new(),
            primary: None,
            display: Default::default(),
            variants: Vec::new(),
        };
        spec.validate().map_err(|e| e.to_string())?;
        if crate::registry::get(&spec.key).is_some() {
            return Err(format!(
                "key: `{}` is a benchmark this page knows already: choose another key",
                spec.key
            ));
        }
        Ok(spec)
    }

    /// The spec's report on the draft's files (`bytes` in `files`' order) and its table.
    pub fn preview(&self, spec: &Spec, bytes: &[&[u8]]) -> Result<(Report, Table), String> {
        let roles = self.roles();
        let given: Vec<(&str, &str, &[u8])> = self
            .files
            .iter()
            .zip(&roles)
            .zip(bytes)
            .map(|((f, role), b)| (*role, f.name.as_str(), *b))
            .collect();
        let scored = score(spec, &given, "official", false).map_err(|e| e.to_string())?;
        let table = spec_table(spec, &scored.report);
        Ok((scored.report, table))
    }
}

#[cfg(test)]
mod tests;
