//! The official SAS-Bench file formats → typed records.
//!
//! - gold dataset `<id>_<Course>_<type>.jsonl` and processed predictions `*_prediction.jsonl`:
//!   one JSON object per line ([`parse_records`], then [`Response::from_record`]);
//! - taxonomy `error_type.jsonl` ([`Taxonomy::parse`]);
//! - raw replies `*_scored.jsonl`: `id<TAB>json-string-literal` ([`parse_scored`]).
//!
//! Whitespace-only lines are skipped (the official scripts would crash on them). Every value
//! is read with the Python semantics the official scripts apply ([`crate::python`]). A value
//! that makes BOTH official scoring steps crash (a non-numeric `total`, `manual_label` "2.5",
//! `pred_label` null, `steps` not a list) is an [`InputError`] here; a value that crashes only
//! one step is kept as an `Err` in the record, and that step's scorer reports it.

use serde_json::{Map, Value};

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

use super::lenient_json::json_loads;
use super::lite::{self, Lite, LiteSeed};
use crate::error::InputError;
use crate::python::{PyValue, py_str};
use crate::text::Text;

/// The error name that marks a correct step (skipped by ECS).
pub const CORRECT_NAME: &str = "步骤正确";

/// One JSON object of a JSONL file, with its 1-based line.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonRecord {
    pub line: usize,
    pub object: Map<String, Value>,
}

pub use super::lite::RECORD_KEYS;

/// Parse a JSONL file of objects (gold dataset or predictions), keeping only [`RECORD_KEYS`].
pub fn parse_records(name: &str, text: &str) -> Result<Vec<JsonRecord>, InputError> {
    parse_objects(name, text, Some(&RECORD_KEYS))
}

/// Parse a JSONL file of objects, keeping the keys in `keep` (all keys with `None`).
pub fn parse_objects(
    name: &str,
    text: &str,
    keep: Option<&[&str]>,
) -> Result<Vec<JsonRecord>, InputError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let object = parse_object_line(name, line, raw, keep)?;
        out.push(JsonRecord { line, object });
    }
    Ok(out)
}

/// One line of a JSONL file of objects (line `line` of `name`, without its line break and, on
/// line 1, without the file's byte-order mark), keeping the keys in `keep`.
fn parse_object_line(
    name: &str,
    line: usize,
    raw: &str,
    keep: Option<&[&str]>,
) -> Result<Map<String, Value>, InputError> {
    let mut de = serde_json::Deserializer::from_str(raw);
    serde::de::DeserializeSeed::deserialize(KeptObject { keep }, &mut de)
        .and_then(|o| de.end().map(|()| o))
        .map_err(|e| InputError::at_line(name, line, format!("expected a JSON object: {e}")))
}

/// Deserialises a JSON object keeping only some keys (later duplicates win, as in Python).
struct KeptObject<'k> {
    keep: Option<&'k [&'k str]>,
}

impl<'de> serde::de::DeserializeSeed<'de> for KeptObject<'_> {
    type Value = Map<String, Value>;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for KeptObject<'_> {
    type Value = Map<String, Value>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut access: A,
    ) -> Result<Self::Value, A::Error> {
        let mut map = Map::new();
        while let Some(key) = access.next_key::<std::borrow::Cow<'de, str>>()? {
            if self.keep.is_none_or(|keep| keep.contains(&key.as_ref())) {
                map.insert(key.into_owned(), access.next_value::<Value>()?);
            } else {
                access.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(map)
    }
}

/// One raw reply line of a `*_scored.jsonl` file.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredLine {
    pub line: usize,
    pub id: String,
    /// The decoded second field (`json.loads(line.split('\t')[1])`), as serde_json holds it
    /// (NaN/infinities → null, integers beyond 64 bits → floats).
    pub reply: Value,
    /// Python's `str()` of the decoded field, exactly: the text step 2 reads.
    pub reply_text: String,
}

/// Decode the reply field of a `_scored.jsonl` line as Python's `json.loads` does.
fn decode_reply(name: &str, line: usize, field: &str) -> Result<PyValue, InputError> {
    json_loads(field).map_err(|_| {
        let detail = serde_json::from_str::<serde::de::IgnoredAny>(field)
            .err()
            .map_or_else(String::new, |e| format!(": {e}"));
        InputError::at_line(
            name,
            line,
            format!("the reply after the TAB is not valid JSON{detail}"),
        )
    })
}

/// Parse a raw reply file: `id<TAB>json-value` per line (the second TAB-separated field is
/// decoded as JSON, as the official step 2 does).
pub fn parse_scored(name: &str, text: &str) -> Result<Vec<ScoredLine>, InputError> {
    reply_lines(text)
        .map(|(line, raw)| scored_line(name, line, raw))
        .collect()
}

/// Reply `position` (0-based, blank lines not counted) of a raw reply file, as
/// [`parse_scored`] reads it, without reading the others; `None` past the last.
pub fn scored_line_at(
    name: &str,
    text: &str,
    position: usize,
) -> Result<Option<ScoredLine>, InputError> {
    reply_lines(text)
        .nth(position)
        .map(|(line, raw)| scored_line(name, line, raw))
        .transpose()
}

/// The non-blank lines of a raw reply file with their 1-based numbers.
fn reply_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines()
        .enumerate()
        .map(|(index, raw)| (index + 1, raw))
        .filter(|(_, raw)| !raw.trim().is_empty())
}

fn scored_line(name: &str, line: usize, raw: &str) -> Result<ScoredLine, InputError> {
    let mut fields = raw.split('\t');
    let id = fields.next().unwrap_or("").to_string();
    let field = fields.next().ok_or_else(|| {
        InputError::at_line(name, line, "expected `id<TAB>json-string`, found no TAB")
    })?;
    let reply = decode_reply(name, line, field)?;
    Ok(ScoredLine {
        line,
        id,
        reply: reply.to_value(),
        reply_text: reply.py_str(),
    })
}

/// [`parse_scored`] without building `Value`s: `each(line, reply_text)` per reply line, in
/// order (`reply_text` as [`ScoredLine::reply_text`], borrowed when the field is a JSON
/// string without escapes).
pub fn for_each_scored<'t>(
    name: &str,
    text: impl Into<Text<'t>>,
    mut each: impl FnMut(usize, Cow<'_, str>),
) -> Result<(), InputError> {
    let text = text
        .into()
        .strip_bom()
        .map_err(|e| crate::text::read_error(name, &e))?;
    text.for_each_line(name, |line, raw| {
        if raw.trim().is_empty() {
            return Ok(());
        }
        let field = raw.split('\t').nth(1).ok_or_else(|| {
            InputError::at_line(name, line, "expected `id<TAB>json-string`, found no TAB")
        })?;
        match lite::parse(field, LiteSeed::ALL) {
            Ok(Lite::Str(reply)) => each(line, reply),
            _ => each(line, Cow::Owned(decode_reply(name, line, field)?.py_str())),
        }
        Ok(())
    })
}

/// The error taxonomy (`error_type.jsonl`): per line, `q_id` (as Python `str()`) and names.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Taxonomy {
    pub entries: Vec<(String, Vec<String>)>,
}

/// The ECS slots of one dataset file.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorSlots {
    /// Slot names in order (taxonomy names, then [`CORRECT_NAME`]); empty when no line matched.
    pub names: Vec<String>,
    index: std::collections::HashMap<String, usize>,
}

impl ErrorSlots {
    pub fn new(names: Vec<String>) -> Self {
        // A Python dict: a repeated name keeps its LAST index.
        let index = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i))
            .collect();
        Self { names, index }
    }

    /// The official `err2idx`: the slot of `name`; unknown names go to `len(dict) − 1`
    /// (the last slot when names are distinct). `None` when there are no slots.
    pub fn slot(&self, name: &str) -> Option<usize> {
        match self.index.get(name) {
            Some(&i) => Some(i),
            None => self.index.len().checked_sub(1),
        }
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// A name as a lookup key: strings as themselves, other JSON values as a tagged repr (never
/// equal to a string, as in Python).
fn name_key(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => format!("\u{0}{}", crate::python::py_repr(other)),
    }
}

impl Taxonomy {
    pub fn parse(name: &str, text: &str) -> Result<Self, InputError> {
        let mut entries = Vec::new();
        for record in parse_objects(name, text, Some(&["q_id", "errors"]))? {
            let q_id = record
                .object
                .get("q_id")
                .ok_or_else(|| InputError::at_line(name, record.line, "missing `q_id`"))?;
            let errors = match record.object.get("errors") {
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|e| match e.get("name") {
                        Some(n) => Ok(name_key(n)),
                        None => Err(InputError::at_line(
                            name,
                            record.line,
                            "every entry of `errors` needs a `name`",
                        )),
                    })
                    .collect::<Result<Vec<_>, _>>()?,
                _ => {
                    return Err(InputError::at_line(
                        name,
                        record.line,
                        "expected `errors` to be a list",
                    ));
                }
            };
            entries.push((py_str(q_id), errors));
        }
        Ok(Self { entries })
    }

    /// The slots of the file whose numeric prefix is `file_id`: the first line with
    /// `str(q_id) == file_id`, plus [`CORRECT_NAME`]; no slots when no line matches.
    pub fn slots(&self, file_id: &str) -> ErrorSlots {
        match self.entries.iter().find(|(q, _)| q == file_id) {
            Some((_, names)) => {
                let mut names = names.clone();
                names.push(CORRECT_NAME.to_string());
                ErrorSlots::new(names)
            }
            None => ErrorSlots::new(Vec::new()),
        }
    }
}

/// The dataset id of a file name: the part before the first `_` (`7_Math_ShortAns` → `7`).
pub fn file_id(stem: &str) -> &str {
    stem.split('_').next().unwrap_or(stem)
}

/// One scored response: the gold record plus the prediction, read as the official steps 3
/// and 4 read them.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// 1-based line in the file.
    pub line: usize,
    pub id: String,
    /// `total` (maximum score).
    pub total: f64,
    /// `int(manual_label)`.
    pub gold_total: i64,
    /// `int(pred_label)`; 0 when missing or `""`.
    pub pred_total: i64,
    /// Whether the record carries `pred_label` / `pred_steps`.
    pub has_prediction: bool,
    /// `int(steps[k].label)`, 0 on failure.
    pub gold_steps: Vec<i64>,
    /// Step 3's view: `int(pred_steps[k].step_score)` for k < len(steps) (0 when the entry is
    /// missing, not an object, or has no `step_score`); `Err` when `int()` raises.
    pub pred_steps: Result<Vec<i64>, String>,
    /// Step 4's view: every error name of every gold step (keys: strings as is, other values
    /// tagged); `Err` when a step is not an object, lacks `errors` or a name is unhashable.
    pub gold_errors: Result<Vec<Name>, String>,
    /// Every error name of ALL predicted steps, as Python `str()`; `Err` as for gold.
    pub pred_errors: Result<Vec<Name>, String>,
}

/// One error name as Python's iteration yields it: an item of a list, or a character of a
/// string / key of a dict (always a string).
enum ErrorItem<'v, 'a> {
    Item(&'v Lite<'a>),
    Text(&'v str),
}

/// Python's iteration over an `errors` value: list items, string characters, dict keys.
fn iterate_errors<'v, 'a>(
    errors: &'v Lite<'a>,
    mut each: impl FnMut(ErrorItem<'v, 'a>) -> Result<(), String>,
) -> Result<(), String> {
    match errors {
        Lite::Array(items) => items.iter().try_for_each(|e| each(ErrorItem::Item(e))),
        Lite::Str(s) => s
            .char_indices()
            .try_for_each(|(i, c)| each(ErrorItem::Text(&s[i..i + c.len_utf8()]))),
        Lite::Object(entries) => entries
            .iter()
            .try_for_each(|(k, _)| each(ErrorItem::Text(k))),
        Lite::Null => Err("'NoneType' object is not iterable".into()),
        Lite::Bool(_) => Err("'bool' object is not iterable".into()),
        Lite::Number(n) => Err(format!(
            "'{}' object is not iterable",
            if n.is_f64() { "float" } else { "int" }
        )),
    }
}

/// The value of `key` in an object's entries.
fn get<'v, 'a>(entries: &'v [(Cow<'a, str>, Lite<'a>)], key: &str) -> Option<&'v Lite<'a>> {
    entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// Error names, each distinct one stored once: a file's responses repeat the few dozen names of
/// the taxonomy hundreds of thousands of times (as strings of their own they took more memory
/// than the file: 1.5× for 1 GB of predictions).
#[derive(Debug, Default)]
pub struct Names(HashSet<Name>);

impl Names {
    /// The one stored copy of `name`.
    pub fn of(&mut self, name: &str) -> Name {
        if let Some(known) = self.0.get(name) {
            return known.clone();
        }
        let new = Name(Arc::new(name.to_string()));
        self.0.insert(new.clone());
        new
    }
}

/// An error name as a response keeps it: a thin pointer to the one copy of [`Names`] (a
/// response holds ~11 of them; `Arc<str>` is twice the size).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name(Arc<String>);

impl std::ops::Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// Lookups by `&str` ([`Names::of`]): a `Name` hashes and compares as its text.
impl std::borrow::Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.0.as_str(), f)
    }
}

fn step_errors(
    steps: &[Lite],
    which: &str,
    gold: bool,
    known: &mut Names,
) -> Result<Vec<Name>, String> {
    let mut names = Vec::new();
    for (k, step) in steps.iter().enumerate() {
        let errors = step
            .as_object()
            .and_then(|o| get(o, "errors"))
            .ok_or_else(|| format!("{which}[{k}] has no `errors`"))?;
        iterate_errors(errors, |e| {
            names.push(match e {
                ErrorItem::Text(t) => known.of(t),
                ErrorItem::Item(e) if !gold => known.of(&e.py_str()),
                ErrorItem::Item(Lite::Str(s)) => known.of(s),
                ErrorItem::Item(e @ (Lite::Array(_) | Lite::Object(_))) => {
                    return Err(format!("unhashable error name {e}"));
                }
                ErrorItem::Item(e) => known.of(&name_key(&e.to_value())),
            });
            Ok(())
        })
        .map_err(|m| format!("{which}[{k}].errors: {m}"))?;
    }
    // Kept for every response of the file: without the growth's spare room (~40% of it).
    names.shrink_to_fit();
    Ok(names)
}

/// A reply as step 2 turns it into `pred_label` and `pred_steps` (see [`super::step2`]),
/// read as steps 3 and 4 read them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prediction {
    /// `pred_label`.
    pub label: i64,
    /// `step_score` of each of the record's steps.
    pub step_scores: Vec<i64>,
    /// Every error name of every predicted step, as Python `str()`.
    pub errors: Vec<String>,
}

impl Response {
    /// Read one prediction record (`name` and `record.line` locate errors).
    pub fn from_record(name: &str, record: &JsonRecord) -> Result<Self, InputError> {
        let entries: Vec<(Cow<str>, Lite)> = record
            .object
            .iter()
            .map(|(k, v)| (Cow::Borrowed(k.as_str()), Lite::from_value(v)))
            .collect();
        Self::from_lite(name, record.line, &entries, None, &mut Names::default())
    }

    /// Read one record (an object's entries) at `line`; `prediction`: step 2's output for it
    /// (then the record's own `pred_label`/`pred_steps` are not read, as step 2 replaces them);
    /// its error names are stored once per `known` (one for a file).
    pub fn from_lite(
        name: &str,
        line: usize,
        o: &[(Cow<str>, Lite)],
        prediction: Option<&Prediction>,
        known: &mut Names,
    ) -> Result<Self, InputError> {
        let at = |message: String| InputError::at_line(name, line, message);
        let id = get(o, "id").map(Lite::py_str).unwrap_or_default();
        let total = match get(o, "total") {
            Some(Lite::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
            Some(Lite::Bool(b)) => f64::from(u8::from(*b)),
            Some(other) => {
                return Err(at(format!(
                    "record {id:?}: `total` must be a number, found {other}"
                )));
            }
            None => return Err(at(format!("record {id:?}: missing `total`"))),
        };
        let gold_total = match get(o, "manual_label") {
            Some(v) => v.py_int().map_err(|e| at(format!("record {id:?}: `manual_label` {v} is not an integer (the official int() raises: {e})")))?,
            None => return Err(at(format!("record {id:?}: missing `manual_label`"))),
        };
        let pred_total = match (prediction, get(o, "pred_label")) {
            (Some(p), _) => p.label,
            (None, None) => 0,
            (None, Some(Lite::Str(s))) if s.is_empty() => 0,
            (None, Some(v)) => v.py_int().map_err(|e| at(format!("record {id:?}: `pred_label` {v} is not an integer (the official int() raises: {e})")))?,
        };
        let steps = match get(o, "steps") {
            Some(Lite::Array(steps)) => steps.as_slice(),
            Some(other) => {
                return Err(at(format!(
                    "record {id:?}: `steps` must be a list, found {other}"
                )));
            }
            None => return Err(at(format!("record {id:?}: missing `steps`"))),
        };
        let gold_steps = steps
            .iter()
            .map(|s| {
                s.as_object()
                    .and_then(|o| get(o, "label"))
                    .and_then(|l| l.py_int().ok())
                    .unwrap_or(0)
            })
            .collect();
        let has_prediction = prediction.is_some()
            || get(o, "pred_label").is_some()
            || get(o, "pred_steps").is_some();
        let (pred_steps, pred_errors) = match (prediction, get(o, "pred_steps")) {
            (Some(p), _) => (
                Ok(p.step_scores.clone()),
                Ok(p.errors.iter().map(|e| known.of(e)).collect()),
            ),
            // The official default: one {"step_score": 0, "errors": []} per step.
            (None, None) => (Ok(vec![0; steps.len()]), Ok(Vec::new())),
            (None, Some(Lite::Array(p))) => {
                let scores = (0..steps.len())
                    .map(|k| {
                        match p
                            .get(k)
                            .and_then(Lite::as_object)
                            .and_then(|s| get(s, "step_score"))
                        {
                            Some(v) => v.py_int().map_err(|e| {
                                format!("record {id:?}: pred_steps[{k}].step_score {v}: {e}")
                            }),
                            None => Ok(0),
                        }
                    })
                    .collect();
                let errors = step_errors(p, "pred_steps", false, known)
                    .map_err(|e| format!("record {id:?}: {e}"));
                (scores, errors)
            }
            (None, Some(other)) => {
                return Err(at(format!(
                    "record {id:?}: `pred_steps` must be a list, found {other}"
                )));
            }
        };
        let gold_errors =
            step_errors(steps, "steps", true, known).map_err(|e| format!("record {id:?}: {e}"));
        Ok(Self {
            line,
            id,
            total,
            gold_total,
            pred_total,
            has_prediction,
            gold_steps,
            pred_steps,
            gold_errors,
            pred_errors,
        })
    }
}

/// Parse a JSONL file of records (gold dataset or predictions) into [`Lite`] objects keeping
/// only [`RECORD_KEYS`], calling `each(line, entries)` in order. A line that is not a JSON
/// object stops the parse with its error.
pub fn for_each_record<'t>(
    name: &str,
    text: impl Into<Text<'t>>,
    mut each: impl FnMut(usize, Vec<(Cow<'_, str>, Lite<'_>)>),
) -> Result<(), InputError> {
    let text = text
        .into()
        .strip_bom()
        .map_err(|e| crate::text::read_error(name, &e))?;
    text.for_each_line(name, |line, raw| {
        if raw.trim().is_empty() {
            return Ok(());
        }
        match lite::parse(raw, LiteSeed::RECORD) {
            // RECORD only accepts objects.
            Ok(value) => each(
                line,
                match value {
                    Lite::Object(entries) => entries,
                    _ => Vec::new(),
                },
            ),
            // The message of the `Value` reading ([`parse_records`]): serde_json places some
            // errors one column apart when it skips a value instead of building it.
            // The line is read as it is (a second byte-order mark is not stripped again).
            Err(e) => {
                return Err(parse_object_line(name, line, raw, Some(&RECORD_KEYS))
                    .err()
                    .unwrap_or_else(|| {
                        InputError::at_line(name, line, format!("expected a JSON object: {e}"))
                    }));
            }
        }
        Ok(())
    })
}

/// Read a whole prediction file into responses.
pub fn parse_predictions<'t>(
    name: &str,
    text: impl Into<Text<'t>>,
) -> Result<Vec<Response>, InputError> {
    // As the official order: every line is parsed (a parse error anywhere wins), then the
    // records are read (the first bad record's error).
    let text: Text<'t> = text.into();
    // A text in memory has at most a record a line: one allocation of the right size (growing
    // by doubling held up to 2× the responses; 1 GB of predictions are 1.15M of 184 bytes).
    let mut responses = match &text {
        Text::Whole(whole) => {
            Vec::with_capacity(memchr::memchr_iter(b'\n', whole.as_bytes()).count() + 1)
        }
        Text::Stream(_) => Vec::new(),
    };
    let mut first_error = None;
    let mut known = Names::default();
    for_each_record(name, text, |line, entries| {
        if first_error.is_none() {
            match Response::from_lite(name, line, &entries, None, &mut known) {
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
