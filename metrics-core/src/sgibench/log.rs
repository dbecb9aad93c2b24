//! Reading the official JSON logs and turning per-item results into a [`Report`].
//!
//! ```text
//! mean(values) = sum(values) / len(values)      Python ≥ 3.12 `sum`: Neumaier-compensated
//! ```

use serde_json::{Map, Value};

use super::DISCIPLINES;
use crate::error::InputError;
use crate::json_array::{self, ArrayError};
use crate::report::{InputFile, MetricValue, Metrics, Overall, Report, Subset, Warning};
use crate::text::Text;

/// Python ≥ 3.12 `sum(values)` over floats (`builtin_sum_impl`): Neumaier's compensated sum,
/// the compensation added once at the end when it is non-zero and finite.
///
/// Integer-valued items (0/1 flags) sum exactly either way, as in Python's integer fast path.
pub fn python_sum(values: &[f64]) -> f64 {
    let mut sum = 0.0f64;
    let mut c = 0.0f64;
    for &x in values {
        let t = sum + x;
        if sum.abs() >= x.abs() {
            c += (sum - t) + x;
        } else {
            c += (x - t) + sum;
        }
        sum = t;
    }
    if c != 0.0 && c.is_finite() {
        sum += c;
    }
    sum
}

/// `sum(values) / len(values)`; `None` for no values (the official code divides by zero).
pub(crate) fn python_mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| python_sum(values) / values.len() as f64)
}

/// One record of a log: its 1-based number in the array and its fields (`None` = `null`).
#[derive(Debug)]
pub(crate) struct Record<'a> {
    pub number: usize,
    pub fields: Option<&'a Map<String, Value>>,
}

/// Parse a log: a JSON array whose entries are objects or `null` (read one entry at a time, so
/// no second copy of the file's structure is built).
pub(crate) fn parse_array<'t>(
    name: &str,
    text: impl Into<Text<'t>>,
) -> Result<Vec<Value>, InputError> {
    let mut items = Vec::new();
    for_each_value(name, text, |item| items.push(item))?;
    Ok(items)
}

/// Read a log (a JSON array) one entry at a time, handing each to `each` and keeping nothing,
/// with the errors of [`parse_array`].
pub(crate) fn for_each_value<'t>(
    name: &str,
    text: impl Into<Text<'t>>,
    mut each: impl FnMut(Value),
) -> Result<(), InputError> {
    let text = text
        .into()
        .strip_bom()
        .map_err(|e| crate::text::read_error(name, &e))?;
    json_array::for_each(text, |_, item| {
        each(item);
        Ok::<(), InputError>(())
    })
    .map_err(|e| read_error(name, e))
}

fn read_error(name: &str, error: ArrayError<InputError>) -> InputError {
    match error {
        ArrayError::Json(e) => {
            InputError::new(name, Some(e.line()), format!("not valid JSON: {e}"))
        }
        ArrayError::NotArray(found) => InputError::whole_file(
            name,
            format!("expected a JSON array of log records, found {found}"),
        ),
        ArrayError::Element(e) => e,
    }
}

/// The error for record `number`, which is neither an object nor `null`.
fn not_a_record(name: &str, number: usize, found: &str) -> InputError {
    InputError::at_line(
        name,
        number,
        format!("record {number}: expected an object or null, found {found}"),
    )
}

/// Read a log one record at a time, handing each to `each` and keeping nothing, with the
/// outcome of parsing the whole log, then checking every entry, then `each` over the records in
/// order: a syntax error wins over an entry that is neither an object nor `null`, which wins
/// over the first error `each` returns.
pub(crate) fn for_each_record<'t>(
    name: &str,
    text: impl Into<Text<'t>>,
    mut each: impl FnMut(Record<'_>) -> Result<(), InputError>,
) -> Result<(), InputError> {
    let text = text
        .into()
        .strip_bom()
        .map_err(|e| crate::text::read_error(name, &e))?;
    let mut bad_entry = None;
    let mut first_error = None;
    let read = json_array::for_each(text, |number, item| {
        let fields = match &item {
            Value::Object(map) => Some(map),
            Value::Null => None,
            other => {
                bad_entry.get_or_insert_with(|| not_a_record(name, number, kind(other)));
                return Ok(());
            }
        };
        if bad_entry.is_none()
            && first_error.is_none()
            && let Err(e) = each(Record { number, fields })
        {
            first_error = Some(e);
        }
        Ok(())
    });
    read.map_err(|e| read_error(name, e))?;
    match bad_entry.or(first_error) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The record's `idx` as text (a string, or a number printed as JSON), or `record N`.
pub(crate) fn idx_of(number: usize, fields: &Map<String, Value>) -> String {
    match fields.get("idx") {
        Some(Value::String(s)) => s.clone(),
        Some(v @ Value::Number(_)) => v.to_string(),
        _ => format!("record {number}"),
    }
}

/// A required string field.
pub(crate) fn string_field<'a>(
    name: &str,
    number: usize,
    fields: &'a Map<String, Value>,
    key: &str,
) -> Result<&'a str, InputError> {
    match fields.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(InputError::at_line(
            name,
            number,
            format!(
                "{}: `{key}` must be a string, found {}",
                idx_of(number, fields),
                kind(other)
            ),
        )),
        None => Err(InputError::at_line(
            name,
            number,
            format!("{}: missing `{key}`", idx_of(number, fields)),
        )),
    }
}

/// A required number field.
pub(crate) fn number_field(
    name: &str,
    number: usize,
    fields: &Map<String, Value>,
    key: &str,
) -> Result<f64, InputError> {
    match fields.get(key) {
        Some(Value::Number(n)) => n.as_f64().ok_or_else(|| {
            InputError::at_line(
                name,
                number,
                format!("{}: `{key}` is out of range", idx_of(number, fields)),
            )
        }),
        Some(other) => Err(InputError::at_line(
            name,
            number,
            format!(
                "{}: `{key}` must be a number, found {}",
                idx_of(number, fields),
                kind(other)
            ),
        )),
        None => Err(InputError::at_line(
            name,
            number,
            format!("{}: missing `{key}`", idx_of(number, fields)),
        )),
    }
}

/// The record's `discipline`, when it is a string.
pub(crate) fn discipline_of(fields: &Map<String, Value>) -> Option<String> {
    fields
        .get("discipline")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// One scored item: its metric values (in the benchmark's key order; `None` = not available for
/// this item) or the error that kept it out of every mean.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ItemResult {
    pub idx: String,
    pub discipline: Option<String>,
    pub values: Vec<(&'static str, Option<f64>)>,
    /// Extra per-item fields shown in `samples` only (e.g. `pass_nums`).
    pub extra: Vec<(&'static str, Value)>,
    pub error: Option<String>,
}

impl ItemResult {
    /// Record `number`'s item before it is scored: its idx and discipline, no values yet.
    pub fn of_record(number: usize, fields: &Map<String, Value>) -> Self {
        Self {
            idx: idx_of(number, fields),
            discipline: discipline_of(fields),
            values: Vec::new(),
            extra: Vec::new(),
            error: None,
        }
    }

    pub fn value(&self, key: &str) -> Option<f64> {
        if self.error.is_some() {
            return None;
        }
        self.values
            .iter()
            .find(|(k, _)| *k == key)
            .and_then(|(_, v)| *v)
    }

    fn sample(&self) -> Value {
        let mut map = Map::new();
        map.insert("idx".into(), Value::String(self.idx.clone()));
        if let Some(d) = &self.discipline {
            map.insert("discipline".into(), Value::String(d.clone()));
        }
        for (k, v) in &self.values {
            map.insert((*k).into(), v.map_or(Value::Null, |x| serde_json::json!(x)));
        }
        for (k, v) in &self.extra {
            map.insert((*k).into(), v.clone());
        }
        if let Some(e) = &self.error {
            map.insert("error".into(), Value::String(e.clone()));
        }
        Value::Object(map)
    }
}

/// The default aggregate: per key, the Python mean over items that have a value.
pub(crate) fn mean_metrics(keys: &[&'static str], items: &[&ItemResult]) -> Metrics {
    let mut metrics = Metrics::new();
    for key in keys {
        let values: Vec<f64> = items.iter().filter_map(|i| i.value(key)).collect();
        metrics.insert((*key).into(), MetricValue::Scalar(python_mean(&values)));
    }
    metrics
}

/// Build the report: overall over every scored item, one subset per discipline, samples for all
/// (`with_samples`; else `samples` is `None`).
pub(crate) fn build_report(
    benchmark: &str,
    inputs: Vec<InputFile>,
    items: Vec<ItemResult>,
    warnings: Vec<Warning>,
    aggregate: impl Fn(&[&ItemResult]) -> Metrics,
    with_samples: bool,
) -> Report {
    let scored: Vec<&ItemResult> = items.iter().filter(|i| i.error.is_none()).collect();
    let overall = Overall {
        n: scored.len(),
        metrics: aggregate(&scored),
    };

    let mut names: Vec<String> = Vec::new();
    for item in &scored {
        if let Some(d) = &item.discipline
            && !names.contains(d)
        {
            names.push(d.clone());
        }
    }
    names.sort_by_key(|d| {
        DISCIPLINES
            .iter()
            .position(|k| k == d)
            .unwrap_or(DISCIPLINES.len())
    });
    let subsets = names
        .into_iter()
        .map(|d| {
            let members: Vec<&ItemResult> = scored
                .iter()
                .copied()
                .filter(|i| i.discipline.as_deref() == Some(d.as_str()))
                .collect();
            Subset {
                n: members.len(),
                metrics: aggregate(&members),
                name: d,
            }
        })
        .collect();

    Report {
        benchmark: benchmark.into(),
        variant: "official".into(),
        inputs,
        overall,
        subsets,
        samples: with_samples.then(|| items.iter().map(ItemResult::sample).collect()),
        warnings,
    }
}

/// A warning about record `number` of file `name`.
pub(crate) fn warn(name: &str, number: usize, message: impl Into<String>) -> Warning {
    Warning {
        path: name.into(),
        line: Some(number),
        message: message.into(),
    }
}

/// The warning for a `null` record.
pub(crate) fn null_record_warning(name: &str, number: usize) -> Warning {
    warn(
        name,
        number,
        format!(
            "record {number} is null: the official scoring raised on this item (its idx is not in the log); left out"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_sum_is_compensated() {
        // Python 3.12+: sum([0.1] * 10) == 1.0 (3.11 and a plain loop give 0.9999999999999999).
        assert_eq!(python_sum(&[0.1; 10]), 1.0);
        assert_eq!(python_sum(&[]), 0.0);
        assert_eq!(python_sum(&[1.0, 0.0, 1.0]), 2.0);
        // sum([1e100, 1.0, -1e100]) == 1.0 in Python 3.12+.
        assert_eq!(python_sum(&[1e100, 1.0, -1e100]), 1.0);
    }

    #[test]
    fn logs_must_be_arrays_of_objects_or_null() {
        assert!(parse_array("a.json", "{}").is_err());
        let e = parse_array("a.json", "[1,").unwrap_err();
        assert_eq!(e.path, "a.json");
        let mut n = 0;
        for_each_record("a.json", "[{}, null]", |_| {
            n += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(n, 2);
        let e = for_each_record("a.json", "[{}, 3]", |_| Ok(())).unwrap_err();
        assert_eq!(e.line, Some(2));
    }

    #[test]
    fn records_one_at_a_time_report_what_the_whole_file_reading_reports() {
        // The scorer's error on record 1 loses to a non-object entry later (as when every entry
        // is checked first), which loses to a syntax error anywhere.
        let fail_on_first = |text: &str| {
            for_each_record("a.json", text, |r| {
                Err(InputError::at_line("a.json", r.number, "scorer"))
            })
            .unwrap_err()
        };
        let e = fail_on_first("[{}, null, 3]");
        assert_eq!(
            e.to_string(),
            "a.json:3: record 3: expected an object or null, found a number"
        );
        assert_eq!(fail_on_first("[{}, {}]").to_string(), "a.json:1: scorer");
        assert!(
            fail_on_first("[{}, 3,")
                .message
                .starts_with("not valid JSON")
        );
        let e = fail_on_first("{}");
        assert_eq!(
            e.to_string(),
            "a.json: expected a JSON array of log records, found an object"
        );
        let mut seen = Vec::new();
        for_each_record("a.json", "[{\"idx\": 1}, null]", |r| {
            seen.push((r.number, r.fields.is_some()));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, [(1, true), (2, false)]);
    }
}
