//! SGI-Score: the five headline numbers and their mean.
//!
//! Matches `evaluation/sgi_score.py` with `utils.show_results` / `utils.mean` (commit 8268d43).
//!
//! ```text
//! show_results(log, key, scale) = round(mean(float(item[key]) for item in log) × scale, 2)
//!                                 Python round: half to even on the exact binary value
//! printed, task by task, key by key (the order decides which crash comes first):
//!   Deep Research          exact_match ×100 (headline), step_level_acc ×100
//!   Idea Generation        effectiveness, novelty, detailedness, feasibility, final_score (headline) ×1
//!   Dry Experiment         PassAll@5 ×100 (headline), PassAll@3 ×100, PassAll@1 ×100, AET ×1, SER ×100
//!   Wet Experiment         action_sequence_similarity ×100, parameter_accuracy ×100, final_score ×100 (headline)
//!   Experimental Reasoning MCA ×100 (headline), RV ×100
//! SGI_Score = (DR + IG + DE + WE + ER) / 5   (left-to-right float sum of the five headlines;
//!             printed with :.2f, kept at full precision in the report)
//! ```
//!
//! Official crashes reproduced as errors naming the file and record (the script dies on them): a
//! `null` (or non-object) record (TypeError), a record without a printed key, e.g. an idea
//! generation error record `{"error", "final_score"}` asked for `effectiveness` (KeyError), a
//! value `float()` cannot read (TypeError/ValueError), and an empty log (`category_dict['default']`,
//! KeyError).

use std::fmt;

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::log::{for_each_value, kind, parse_array, python_mean};
use crate::error::InputError;
use crate::report::{InputFile, MetricValue, Metrics, Overall, Report};
use crate::text::Text;

/// Python's `round(x, ndigits)` for floats: the correctly rounded decimal (ties to even on the
/// exact binary value), read back as the nearest float.
pub fn python_round(x: f64, ndigits: usize) -> f64 {
    if !x.is_finite() {
        return x;
    }
    format!("{x:.ndigits$}").parse().unwrap_or(x)
}

/// `round(mean(values) × scale, 2)`; `None` for no values.
pub fn headline(values: &[f64], scale: f64) -> Option<f64> {
    python_mean(values).map(|m| python_round(m * scale, 2))
}

/// `(a + b + c + d + e) / 5` over the five headline numbers (a left-to-right float sum), at full
/// precision: `sgi_score.py` only formats it with `:.2f` when printing, so it is shown with two
/// decimals (the table) and never rounded in the report.
pub fn sgi_score(headlines: &[f64; 5]) -> f64 {
    let sum = headlines.iter().fold(0.0, |acc, h| acc + h);
    sum / 5.0
}

/// One task's log and the key and scale of its headline.
#[derive(Debug, Clone, Copy)]
pub struct TaskLog<'a> {
    pub name: &'a str,
    pub text: &'a str,
    pub key: &'a str,
    pub scale: f64,
}

/// The five tasks' keys and scales, in the official order.
pub const TASKS: [(&str, &str, f64); 5] = [
    ("deep_research", "exact_match", 100.0),
    ("idea_generation", "final_score", 1.0),
    ("dry_experiment", "PassAll@5", 100.0),
    ("wet_experiment", "final_score", 100.0),
    ("experimental_reasoning", "MCA", 100.0),
];

/// `show_results(log, key, scale=scale)`: the headline of one task's log.
pub fn task_headline(log: &TaskLog<'_>) -> Result<f64, InputError> {
    let items = parse_array(log.name, log.text)?;
    task_headline_of_values(log.name, &items, log.key, log.scale)
}

/// The same over an already-parsed log (errors located by record number in `name`).
pub fn task_headline_of_values(
    name: &str,
    items: &[Value],
    key: &str,
    scale: f64,
) -> Result<f64, InputError> {
    show_results(items, key, scale).map_err(|e| match e.record {
        Some(number) => InputError::at_line(name, number, e.message),
        None => InputError::whole_file(name, e.message),
    })
}

/// Why `show_results` raised: the 1-based record (none for an empty log) and the message,
/// which names the Python exception.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShowError {
    pub record: Option<usize>,
    pub message: String,
}

/// `show_results(log, key, scale=scale)` with `float(item[key])` read as Python does.
pub fn show_results(items: &[Value], key: &str, scale: f64) -> Result<f64, ShowError> {
    let values = items
        .iter()
        .enumerate()
        .map(|(i, item)| show_value(i + 1, item, key))
        .collect::<Result<Vec<f64>, ShowError>>()?;
    headline(&values, scale).ok_or_else(empty_log)
}

/// `float(item[key])` of record `number` (1-based), or why `show_results` raises there.
fn show_value(number: usize, item: &Value, key: &str) -> Result<f64, ShowError> {
    let fail = |message: String| ShowError {
        record: Some(number),
        message,
    };
    let record = match item {
        Value::Object(map) => map,
        Value::Null => {
            return Err(fail(format!(
                "record {number} is null (the official run crashed on it; sgi_score.py raises TypeError: 'NoneType' object is not subscriptable)"
            )));
        }
        other => {
            return Err(fail(format!(
                "record {number} is {}, not an object (sgi_score.py raises TypeError)",
                kind(other)
            )));
        }
    };
    let value = match record.get(key) {
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::Bool(b)) => Some(f64::from(u8::from(*b))),
        Some(Value::String(s)) => super::py_strip(s).parse().ok(),
        Some(other) => {
            return Err(fail(format!(
                "record {number}: `{key}` is {} (sgi_score.py raises TypeError in float())",
                kind(other)
            )));
        }
        None => {
            return Err(fail(format!(
                "record {number} has no `{key}` (sgi_score.py raises KeyError: '{key}')"
            )));
        }
    };
    value.ok_or_else(|| {
        fail(format!(
            "record {number}: `{key}` is not a number (sgi_score.py raises ValueError in float())"
        ))
    })
}

fn empty_log() -> ShowError {
    ShowError {
        record: None,
        message: "empty log (sgi_score.py raises KeyError: 'default')".into(),
    }
}

/// One task's log as [`show_results`] reads it for every number printed of the task, reduced
/// record by record (a log is read one record at a time and kept as these numbers only).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskValues {
    records: usize,
    /// Per printed key of the task ([`PRINTED`] order): the values of the records so far, or
    /// the first record's failure.
    keys: Vec<(&'static str, Result<Vec<f64>, ShowError>)>,
}

impl TaskValues {
    /// An empty log of task `task` (index into [`TASKS`]).
    pub fn new(task: usize) -> Self {
        Self {
            records: 0,
            keys: PRINTED
                .iter()
                .filter(|p| p.0 == task)
                .map(|p| (p.1, Ok(Vec::new())))
                .collect(),
        }
    }

    /// Add the log's next record.
    pub fn push(&mut self, item: &Value) {
        self.records += 1;
        for (key, state) in &mut self.keys {
            if let Ok(values) = state
                && let Err(e) = show_value(self.records, item, key).map(|v| values.push(v))
            {
                *state = Err(e);
            }
        }
    }

    /// The number of records (`null` ones included).
    pub fn records(&self) -> usize {
        self.records
    }

    /// [`show_results`] over the records pushed, for one of the task's printed keys.
    fn show_results(&self, key: &str, scale: f64) -> Result<f64, ShowError> {
        match self.keys.iter().find(|(k, _)| *k == key).map(|(_, s)| s) {
            Some(Ok(values)) => headline(values, scale).ok_or_else(empty_log),
            Some(Err(e)) => Err(e.clone()),
            None => Err(empty_log()),
        }
    }
}

/// Read one task's log (a JSON array of records, `task` an index into [`TASKS`]) one record at
/// a time into the numbers SGI-Score prints of it.
pub fn read_task_log<'t>(
    name: &str,
    text: impl Into<Text<'t>>,
    task: usize,
) -> Result<TaskValues, InputError> {
    let mut values = TaskValues::new(task);
    for_each_value(name, text, |item| values.push(&item))?;
    Ok(values)
}

/// One printed number: the task (index into [`TASKS`]), the log key, the scale and the report key.
const PRINTED: [(usize, &str, f64, &str); 17] = [
    (0, "exact_match", 100.0, "deep_research"),
    (0, "step_level_acc", 100.0, "deep_research_sla"),
    (1, "effectiveness", 1.0, "idea_effectiveness"),
    (1, "novelty", 1.0, "idea_novelty"),
    (1, "detailedness", 1.0, "idea_detailedness"),
    (1, "feasibility", 1.0, "idea_feasibility"),
    (1, "final_score", 1.0, "idea_generation"),
    (2, "PassAll@5", 100.0, "dry_experiment"),
    (2, "PassAll@3", 100.0, "dry_pass_all_3"),
    (2, "PassAll@1", 100.0, "dry_pass_all_1"),
    (2, "AET", 1.0, "dry_aet"),
    (2, "SER", 100.0, "dry_ser"),
    (
        3,
        "action_sequence_similarity",
        100.0,
        "wet_action_sequence_similarity",
    ),
    (3, "parameter_accuracy", 100.0, "wet_parameter_accuracy"),
    (3, "final_score", 100.0, "wet_experiment"),
    (4, "MCA", 100.0, "experimental_reasoning"),
    (4, "RV", 100.0, "reasoning_rv"),
];

/// The report's metric keys: SGI-Score, the five headlines (task order), then the other printed
/// numbers.
pub const KEYS: [&str; 18] = [
    "sgi_score",
    "deep_research",
    "idea_generation",
    "dry_experiment",
    "wet_experiment",
    "experimental_reasoning",
    "deep_research_sla",
    "idea_effectiveness",
    "idea_novelty",
    "idea_detailedness",
    "idea_feasibility",
    "dry_pass_all_3",
    "dry_pass_all_1",
    "dry_aet",
    "dry_ser",
    "wet_action_sequence_similarity",
    "wet_parameter_accuracy",
    "reasoning_rv",
];

/// The keys of the combined input (`input.json` of the golden cases): the official log folders,
/// in task order.
pub const INPUT_KEYS: [&str; 5] = [
    "task_1_deep_research/logs",
    "task_2_idea_generation/logs (_evaluation.json)",
    "task_3_dry_experiment/logs",
    "task_3_wet_experiment/logs",
    "task_4_experimental_reasoning/logs",
];

/// One task's log, read, and how to name its records in errors.
struct Source<'a> {
    values: TaskValues,
    /// `(file, Some(task key))` for a log inside the combined file, `(file, None)` for a log file.
    file: &'a str,
    within: Option<&'static str>,
}

impl Source<'_> {
    fn error(&self, e: ShowError) -> InputError {
        match (self.within, e.record) {
            (Some(task), _) => InputError::whole_file(self.file, format!("`{task}` {}", e.message)),
            (None, Some(number)) => InputError::at_line(self.file, number, e.message),
            (None, None) => InputError::whole_file(self.file, e.message),
        }
    }
}

/// SGI-Score from the combined input: a JSON object holding the five logs under
/// [`INPUT_KEYS`] (or the short task names of [`TASKS`]).
pub fn score_input(name: &str, text: &str) -> Result<Report, InputError> {
    score_input_from(name, text)
}

/// [`score_input`] over a [`Text`] (a stream, for the command line): the object is read entry by
/// entry and each log record by record, keeping only the numbers SGI-Score prints. The report's
/// input is the text's record when the text is whole (none for a stream).
pub fn score_input_from<'t>(name: &str, text: impl Into<Text<'t>>) -> Result<Report, InputError> {
    let text = text.into();
    let inputs = text.input_file(name).into_iter().collect();
    let text = text
        .strip_bom()
        .map_err(|e| crate::text::read_error(name, &e))?;
    let not_json = |e: serde_json::Error| {
        InputError::new(name, Some(e.line()), format!("not valid JSON: {e}"))
    };
    let top = match text {
        Text::Whole(text) => read_input(serde_json::Deserializer::from_str(text)),
        Text::Stream(reader) => read_input(serde_json::Deserializer::from_reader(reader)),
    }
    .map_err(not_json)?;
    let mut slots = match top {
        Input::Object(slots) => slots,
        Input::Other(found) => {
            return Err(InputError::whole_file(
                name,
                format!(
                    "expected a JSON object {{\"{}\": [...], …}}, found {found}",
                    INPUT_KEYS[0]
                ),
            ));
        }
    };
    let mut sources = Vec::with_capacity(5);
    for (i, key) in INPUT_KEYS.iter().enumerate() {
        let log = slots[i]
            .take()
            .or_else(|| slots[i + 5].take())
            .ok_or_else(|| {
                InputError::whole_file(
                    name,
                    format!("no `{key}` log (sgi_score.py needs all five task logs)"),
                )
            })?;
        let values = log.map_err(|found| {
            InputError::whole_file(
                name,
                format!("`{key}` must be a JSON array of log records, found {found}"),
            )
        })?;
        sources.push(Source {
            values,
            file: name,
            within: Some(key),
        });
    }
    let n = sources.iter().map(|s| s.values.records()).sum();
    let (metrics, samples) = score_sources(&sources)?;
    Ok(report(inputs, n, metrics, samples))
}

/// SGI-Score from the five task logs as separate files (`(name, text)` in [`TASKS`] order).
pub fn score_logs(logs: &[(&str, &str); 5]) -> Result<Report, InputError> {
    let mut values = Vec::with_capacity(5);
    for (task, (name, text)) in logs.iter().enumerate() {
        values.push(read_task_log(name, *text, task)?);
    }
    let inputs = logs
        .iter()
        .map(|(name, text)| InputFile::from_bytes(*name, text.as_bytes()))
        .collect();
    let names = logs.map(|(name, _)| name);
    let Ok(values) = <[TaskValues; 5]>::try_from(values) else {
        unreachable!("five logs give five values")
    };
    score_task_logs(&names, values, inputs)
}

/// SGI-Score from the five task logs already read ([`read_task_log`], [`TASKS`] order), named
/// `names` in errors; `inputs` are the report's input records.
pub fn score_task_logs(
    names: &[&str; 5],
    values: [TaskValues; 5],
    inputs: Vec<InputFile>,
) -> Result<Report, InputError> {
    let sources: Vec<Source<'_>> = values
        .into_iter()
        .zip(names)
        .map(|(values, file)| Source {
            values,
            file,
            within: None,
        })
        .collect();
    let n = sources.iter().map(|s| s.values.records()).sum();
    let (metrics, samples) = score_sources(&sources)?;
    Ok(report(inputs, n, metrics, samples))
}

fn score_sources(sources: &[Source<'_>]) -> Result<(Metrics, Vec<Value>), InputError> {
    let mut printed = Vec::with_capacity(PRINTED.len());
    for (task, key, scale, report_key) in PRINTED {
        let source = &sources[task];
        let value = source
            .values
            .show_results(key, scale)
            .map_err(|e| source.error(e))?;
        printed.push((report_key, value));
    }
    let get = |k: &str| {
        printed
            .iter()
            .find(|(key, _)| *key == k)
            .map_or(f64::NAN, |(_, v)| *v)
    };
    let headlines = [
        get(KEYS[1]),
        get(KEYS[2]),
        get(KEYS[3]),
        get(KEYS[4]),
        get(KEYS[5]),
    ];
    let mut metrics = Metrics::new();
    metrics.insert(
        KEYS[0].into(),
        MetricValue::Scalar(Some(sgi_score(&headlines)).filter(|v| v.is_finite())),
    );
    for key in &KEYS[1..] {
        metrics.insert(
            (*key).into(),
            MetricValue::Scalar(Some(get(key)).filter(|v| v.is_finite())),
        );
    }
    let samples = TASKS
        .iter()
        .zip(sources)
        .zip(&headlines)
        .map(|(((task, key, scale), source), headline)| {
            serde_json::json!({
                "idx": task,
                "metric": key,
                "scale": scale,
                "records": source.values.records(),
                "headline": headline,
            })
        })
        .collect();
    Ok((metrics, samples))
}

/// A log as read from the combined input: its numbers, or the kind of the non-array value.
type Slot = Option<Result<TaskValues, &'static str>>;

/// The combined input's top level: per log (slots 0–4 under [`INPUT_KEYS`], 5–9 under the
/// short task names; the last entry of a repeated key wins, as in a parsed object), or the
/// kind of a top level that is not an object.
enum Input {
    Object(Vec<Slot>),
    Other(&'static str),
}

/// Parse the combined input as `serde_json::from_str::<Value>` would (the same parser, so the
/// same syntax errors), keeping of the five logs only their numbers and dropping the rest.
fn read_input<'de, R: serde_json::de::Read<'de>>(
    mut de: serde_json::Deserializer<R>,
) -> serde_json::Result<Input> {
    use serde::Deserializer as _;
    let top = de.deserialize_any(InputVisitor)?;
    de.end()?;
    Ok(top)
}

struct InputVisitor;

impl<'de> Visitor<'de> for InputVisitor {
    type Value = Input;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object of task logs")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Input, A::Error> {
        let mut slots: Vec<Slot> = vec![None; 10];
        while let Some(key) = map.next_key::<String>()? {
            let slot = INPUT_KEYS
                .iter()
                .position(|k| *k == key)
                .or_else(|| TASKS.iter().position(|t| t.0 == key).map(|i| i + 5));
            match slot {
                Some(slot) => slots[slot] = Some(map.next_value_seed(LogSeed(slot % 5))?),
                None => drop(map.next_value::<Value>()?),
            }
        }
        Ok(Input::Object(slots))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Input, A::Error> {
        while seq.next_element::<Value>()?.is_some() {}
        Ok(Input::Other("an array"))
    }

    fn visit_unit<E>(self) -> Result<Input, E> {
        Ok(Input::Other("null"))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Input, E> {
        Ok(Input::Other("a boolean"))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Input, E> {
        Ok(Input::Other("a number"))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Input, E> {
        Ok(Input::Other("a number"))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Input, E> {
        Ok(Input::Other("a number"))
    }

    fn visit_str<E>(self, _: &str) -> Result<Input, E> {
        Ok(Input::Other("a string"))
    }
}

/// One log of the combined input (the task's index): an array read record by record into its
/// [`TaskValues`], or the kind of any other value (read whole, as `Value` would, and dropped).
struct LogSeed(usize);

impl<'de> DeserializeSeed<'de> for LogSeed {
    type Value = Result<TaskValues, &'static str>;

    fn deserialize<D: serde::Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for LogSeed {
    type Value = Result<TaskValues, &'static str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON array of log records")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut values = TaskValues::new(self.0);
        while let Some(item) = seq.next_element::<Value>()? {
            values.push(&item);
        }
        Ok(Ok(values))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<String, Value>()?.is_some() {}
        Ok(Err("an object"))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Err("null"))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Err("a boolean"))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Err("a number"))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Err("a number"))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Err("a number"))
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Err("a string"))
    }
}

fn report(inputs: Vec<InputFile>, n: usize, metrics: Metrics, samples: Vec<Value>) -> Report {
    Report {
        benchmark: "sgi-score".into(),
        variant: "official".into(),
        inputs,
        overall: Overall { n, metrics },
        subsets: Vec::new(),
        samples: Some(samples),
        warnings: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_half_to_even_on_the_binary_value() {
        assert_eq!(python_round(3.125, 2), 3.12); // exact tie → even
        assert_eq!(python_round(0.375, 2), 0.38);
        assert_eq!(python_round(2.675, 2), 2.67); // 2.67499999… in binary
        assert_eq!(headline(&[1.0, 0.0, 0.0], 100.0), Some(33.33));
        assert_eq!(headline(&[], 100.0), None);
        assert_eq!(sgi_score(&[10.0, 20.0, 30.0, 40.0, 50.0]), 30.0);
    }

    #[test]
    fn sgi_score_is_the_unrounded_mean() {
        // Python 3.11: (3.12 + 45.12 + 37.5 + 58.33 + 66.67) / 5 == 42.148, printed "42.15".
        let score = sgi_score(&[3.12, 45.12, 37.5, 58.33, 66.67]);
        assert_eq!(score, 42.148);
        assert_eq!(format!("{score:.2}"), "42.15");
        // Python: (1.11 + 45.12 + 3.33 + 4.44 + 5.56) / 5 == 11.911999999999999 (not 11.91).
        assert_eq!(
            sgi_score(&[1.11, 45.12, 3.33, 4.44, 5.56]),
            11.911999999999999
        );
    }
}
