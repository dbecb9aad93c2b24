//! A borrowed JSON value for the hot parsing path: strings borrow from the input text when
//! they have no escapes, objects are small vectors, and the parts of a record the official
//! scripts never read (`question`, `reference`, `analysis`, a step's `response`, …) are
//! skipped while parsing instead of being built.
//!
//! Semantics are those of `serde_json::Value` (and of Python's `json.loads`): the same
//! numbers (`i64`/`u64`/`f64` as serde_json reads them), and a repeated key keeps its first
//! position and its LAST value. Anything rare (error messages, `repr` of a non-string) goes
//! through [`Lite::to_value`], so it prints exactly as the `Value` path would.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::python::{self, IntError};

/// The keys of a gold/prediction record that step 2, 3 and 4 read; the others (`question`,
/// `reference`, `analysis`, …) are skipped while parsing, which is most of the bytes.
pub const RECORD_KEYS: [&str; 6] = [
    "id",
    "total",
    "manual_label",
    "steps",
    "pred_label",
    "pred_steps",
];

/// A decoded JSON value, borrowing from the text where it can.
#[derive(Debug, Clone, PartialEq)]
pub enum Lite<'a> {
    Null,
    Bool(bool),
    Number(Number),
    Str(Cow<'a, str>),
    Array(Vec<Lite<'a>>),
    /// Keys in first-seen order, each once (the last value wins).
    Object(Vec<(Cow<'a, str>, Lite<'a>)>),
}

impl<'a> Lite<'a> {
    /// The value of `key` in an object.
    pub fn get(&self, key: &str) -> Option<&Lite<'a>> {
        match self {
            Self::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&[(Cow<'a, str>, Lite<'a>)]> {
        match self {
            Self::Object(entries) => Some(entries),
            _ => None,
        }
    }

    /// The same value as a `serde_json::Value` (for messages and `repr`).
    pub fn to_value(&self) -> Value {
        match self {
            Self::Null => Value::Null,
            Self::Bool(b) => Value::Bool(*b),
            Self::Number(n) => Value::Number(n.clone()),
            Self::Str(s) => Value::String(s.to_string()),
            Self::Array(items) => Value::Array(items.iter().map(Lite::to_value).collect()),
            Self::Object(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_value()))
                    .collect::<Map<String, Value>>(),
            ),
        }
    }

    /// Python `int(self)` (see [`python::py_int`]).
    pub fn py_int(&self) -> Result<i64, IntError> {
        match self {
            Self::Bool(b) => Ok(i64::from(*b)),
            Self::Number(n) => python::number_to_int(n),
            Self::Str(s) => python::str_to_int(s),
            Self::Null | Self::Array(_) | Self::Object(_) => python::py_int(&self.to_value()),
        }
    }

    /// Python `str(self)`.
    pub fn py_str(&self) -> String {
        match self {
            Self::Str(s) => s.to_string(),
            other => python::py_repr(&other.to_value()),
        }
    }

    /// A view of a `serde_json::Value`, borrowing its strings.
    pub fn from_value(value: &'a Value) -> Self {
        match value {
            Value::Null => Self::Null,
            Value::Bool(b) => Self::Bool(*b),
            Value::Number(n) => Self::Number(n.clone()),
            Value::String(s) => Self::Str(Cow::Borrowed(s)),
            Value::Array(items) => Self::Array(items.iter().map(Lite::from_value).collect()),
            Value::Object(map) => Self::Object(
                map.iter()
                    .map(|(k, v)| (Cow::Borrowed(k.as_str()), Lite::from_value(v)))
                    .collect(),
            ),
        }
    }
}

impl fmt::Display for Lite<'_> {
    /// As `serde_json::Value` displays (compact JSON).
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.to_value().fmt(f)
    }
}

/// Which parts of a value to keep while parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Everything.
    All,
    /// A gold/prediction record: only [`RECORD_KEYS`]; `steps` and
    /// `pred_steps` as [`Keep::Steps`].
    Record,
    /// A list of steps: each element as [`Keep::Step`] (anything else kept whole).
    Steps,
    /// One step: an object keeps only `label`, `step_score` and `errors` (anything else
    /// kept whole).
    Step,
}

const STEP_KEYS: [&str; 3] = ["label", "step_score", "errors"];

impl Keep {
    fn keeps(self, key: &str) -> bool {
        match self {
            Self::All | Self::Steps => true,
            Self::Record => RECORD_KEYS.contains(&key),
            Self::Step => STEP_KEYS.contains(&key),
        }
    }

    fn of_key(self, key: &str) -> Self {
        match self {
            Self::Record if key == "steps" || key == "pred_steps" => Self::Steps,
            _ => Self::All,
        }
    }

    fn of_item(self) -> Self {
        match self {
            Self::Steps => Self::Step,
            _ => Self::All,
        }
    }
}

/// Deserialises a [`Lite`] keeping what `keep` says (`object_only`: fail unless the value is
/// an object, with serde_json's message "invalid type: …, expected a JSON object").
#[derive(Debug, Clone, Copy)]
pub struct LiteSeed {
    pub keep: Keep,
    pub object_only: bool,
}

impl LiteSeed {
    pub const ALL: Self = Self {
        keep: Keep::All,
        object_only: false,
    };
    pub const RECORD: Self = Self {
        keep: Keep::Record,
        object_only: true,
    };

    fn child(keep: Keep) -> Self {
        Self {
            keep,
            object_only: false,
        }
    }
}

impl<'de> DeserializeSeed<'de> for LiteSeed {
    type Value = Lite<'de>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Lite<'de>, D::Error> {
        if self.object_only {
            deserializer.deserialize_map(self)
        } else {
            deserializer.deserialize_any(self)
        }
    }
}

/// Objects this long get a key index for the repeated-key check.
const INDEXED_OBJECT: usize = 16;

impl<'de> Visitor<'de> for LiteSeed {
    type Value = Lite<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(if self.object_only {
            "a JSON object"
        } else {
            "any valid JSON value"
        })
    }

    fn visit_bool<E>(self, v: bool) -> Result<Lite<'de>, E> {
        Ok(Lite::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Lite<'de>, E> {
        Ok(Lite::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Lite<'de>, E> {
        Ok(Lite::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Lite<'de>, E> {
        // As serde_json's Value: a non-finite float (never produced by its parser) is null.
        Ok(Number::from_f64(v).map_or(Lite::Null, Lite::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Lite<'de>, E> {
        Ok(Lite::Str(Cow::Owned(v.to_string())))
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Lite<'de>, E> {
        Ok(Lite::Str(Cow::Borrowed(v)))
    }

    fn visit_string<E>(self, v: String) -> Result<Lite<'de>, E> {
        Ok(Lite::Str(Cow::Owned(v)))
    }

    fn visit_none<E>(self) -> Result<Lite<'de>, E> {
        Ok(Lite::Null)
    }

    fn visit_unit<E>(self) -> Result<Lite<'de>, E> {
        Ok(Lite::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Lite<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(4));
        let item = Self::child(self.keep.of_item());
        while let Some(v) = seq.next_element_seed(item)? {
            items.push(v);
        }
        Ok(Lite::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Lite<'de>, A::Error> {
        let mut entries: Vec<(Cow<'de, str>, Lite<'de>)> = Vec::with_capacity(match self.keep {
            Keep::Record => RECORD_KEYS.len(),
            Keep::Step => STEP_KEYS.len(),
            Keep::All | Keep::Steps => 4,
        });
        let mut index: Option<HashMap<Cow<'de, str>, usize>> = None;
        while let Some(key) = map.next_key_seed(KeySeed)? {
            if !self.keep.keeps(&key) {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            let value = map.next_value_seed(Self::child(self.keep.of_key(&key)))?;
            let existing = match &index {
                Some(index) => index.get(&key).copied(),
                None => entries.iter().position(|(k, _)| *k == key),
            };
            match existing {
                Some(i) => entries[i].1 = value,
                None => {
                    if let Some(index) = &mut index {
                        index.insert(key.clone(), entries.len());
                    }
                    entries.push((key, value));
                    if index.is_none() && entries.len() >= INDEXED_OBJECT {
                        index = Some(
                            entries
                                .iter()
                                .enumerate()
                                .map(|(i, (k, _))| (k.clone(), i))
                                .collect(),
                        );
                    }
                }
            }
        }
        Ok(Lite::Object(entries))
    }
}

/// An object key, borrowed from the text when it has no escapes (serde's own `Cow<str>`
/// always copies).
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Cow<'de, str>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v))
    }
}

/// Parse one whole JSON text (trailing whitespace only) as `seed` says.
pub fn parse(text: &str, seed: LiteSeed) -> Result<Lite<'_>, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = seed.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_as_value_for_kept_keys() {
        let text = r#"{"id": "a\"b", "question": "long", "total": 7, "steps": [{"response": "r", "label": "1", "errors": ["x", {"y": [1.5, null]}]}, 3], "manual_label": "1", "total": 8.0, "pred_steps": {"a": 1}}"#;
        let lite = parse(text, LiteSeed::RECORD).unwrap();
        let expected = serde_json::json!({
            "id": "a\"b", "total": 8.0, "manual_label": "1",
            "steps": [{"label": "1", "errors": ["x", {"y": [1.5, null]}]}, 3],
            "pred_steps": {"a": 1},
        });
        assert_eq!(lite.to_value(), expected);
        // Key order: first position, last value (as Python dicts and serde_json's Map).
        let keys: Vec<&str> = lite
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, _)| k.as_ref())
            .collect();
        assert_eq!(keys, ["id", "total", "steps", "manual_label", "pred_steps"]);
        let all = parse(text, LiteSeed::ALL).unwrap();
        assert_eq!(all.to_value(), serde_json::from_str::<Value>(text).unwrap());
    }

    #[test]
    fn repeated_keys_in_long_objects() {
        let mut text = String::from("{");
        for i in 0..40 {
            text.push_str(&format!("\"k{}\": {i}, ", i % 25));
        }
        text.push_str("\"end\": true}");
        let lite = parse(&text, LiteSeed::ALL).unwrap();
        assert_eq!(
            lite.to_value(),
            serde_json::from_str::<Value>(&text).unwrap()
        );
    }

    #[test]
    fn errors_as_serde_json() {
        for text in ["[1]", "\"x\"", "{\"a\": 1} x", "{\"a\": }", "3"] {
            let ours = parse(text, LiteSeed::RECORD).unwrap_err().to_string();
            let theirs = {
                let mut de = serde_json::Deserializer::from_str(text);
                let r: Result<Map<String, Value>, _> = serde::Deserialize::deserialize(&mut de);
                r.and_then(|_| de.end()).unwrap_err().to_string()
            };
            // Same position; the "expected" wording is ours ("a JSON object").
            assert_eq!(
                ours.rsplit(" at ").next(),
                theirs.rsplit(" at ").next(),
                "{text}"
            );
        }
    }
}
