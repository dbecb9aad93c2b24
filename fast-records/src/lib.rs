//! # fast-records
//!
//! Readers of the records a big input file repeats line after line, in a crate of their own so
//! that the browser's scoring worker builds them for speed while `metrics-core` is built for
//! size. The code serde generates for a record type (serde_json's parser specialised to it) is
//! compiled in the crate that asks for it, at that crate's optimisation level, not serde_json's:
//! the worker's profile (`[profile.wasm-worker]` in the workspace's Cargo.toml) builds this crate
//! at `opt-level = 3` and `metrics-core` at `"z"`. Measured 2026-11-28 in V8 on a 100,000-record,
//! 97 MB gold/pred file: the parse (with the UTF-8 check) 91 → 73 ms.
//!
//! Only the record types live here; what a record means (its numbers, its errors with file
//! and line) is `metrics-core`'s.

/// One JSONL line as the scorer needs it: the `gold` and `pred` values of an object (the last
/// one of a repeated key, as a parsed object keeps), any other value checked as JSON but not
/// built. Free-text fields (questions, replies) are most of a real file; skipping them instead
/// of building a `Value` of every record halves the parse.
pub enum GoldPred {
    Object {
        gold: Option<serde_json::Value>,
        pred: Option<serde_json::Value>,
    },
    NotObject,
}

impl GoldPred {
    /// The record on one line of a gold/pred JSONL file. Never inlined: its body is the parser
    /// built for speed here, and a caller built for size would take it over.
    #[inline(never)]
    pub fn parse(line: &str) -> serde_json::Result<Self> {
        serde_json::from_str(line)
    }
}

impl<'de> serde::Deserialize<'de> for GoldPred {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(GoldPredVisitor)
    }
}

struct GoldPredVisitor;

impl<'de> serde::de::Visitor<'de> for GoldPredVisitor {
    type Value = GoldPred;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<GoldPred, A::Error> {
        let (mut gold, mut pred) = (None, None);
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Gold => gold = Some(map.next_value()?),
                Key::Pred => pred = Some(map.next_value()?),
                Key::Other => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(GoldPred::Object { gold, pred })
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<GoldPred, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(GoldPred::NotObject)
    }

    fn visit_bool<E>(self, _: bool) -> Result<GoldPred, E> {
        Ok(GoldPred::NotObject)
    }

    fn visit_i64<E>(self, _: i64) -> Result<GoldPred, E> {
        Ok(GoldPred::NotObject)
    }

    fn visit_u64<E>(self, _: u64) -> Result<GoldPred, E> {
        Ok(GoldPred::NotObject)
    }

    fn visit_f64<E>(self, _: f64) -> Result<GoldPred, E> {
        Ok(GoldPred::NotObject)
    }

    fn visit_str<E>(self, _: &str) -> Result<GoldPred, E> {
        Ok(GoldPred::NotObject)
    }

    fn visit_unit<E>(self) -> Result<GoldPred, E> {
        Ok(GoldPred::NotObject)
    }
}

/// A record's key: one of the two read, or another (not copied).
enum Key {
    Gold,
    Pred,
    Other,
}

impl<'de> serde::Deserialize<'de> for Key {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl serde::de::Visitor<'_> for KeyVisitor {
            type Value = Key;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a key")
            }

            fn visit_str<E>(self, key: &str) -> Result<Key, E> {
                Ok(match key {
                    "gold" => Key::Gold,
                    "pred" => Key::Pred,
                    _ => Key::Other,
                })
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(line: &str) -> (Option<serde_json::Value>, Option<serde_json::Value>) {
        match GoldPred::parse(line).unwrap() {
            GoldPred::Object { gold, pred } => (gold, pred),
            GoldPred::NotObject => panic!("{line:?} read as not an object"),
        }
    }

    /// `gold` and `pred` as a parsed object keeps them (the last of a repeated key), whatever
    /// their type; other keys, however nested, are skipped.
    #[test]
    fn gold_and_pred_are_kept_as_an_object_keeps_them() {
        assert_eq!(
            fields(r#"{"id": "r1", "gold": 3, "x": {"a": [1, {"b": null}]}, "pred": "2.5"}"#),
            (Some(json!(3)), Some(json!("2.5")))
        );
        assert_eq!(
            fields(r#"{"gold": 1, "pred": 1, "gold": [2], "pred": null}"#),
            (Some(json!([2])), Some(json!(null)))
        );
        assert_eq!(fields(r#"{"pred": 1e3}"#), (None, Some(json!(1000.0))));
        assert_eq!(fields("{}"), (None, None));
    }

    #[test]
    fn other_json_values_are_not_objects() {
        for line in [
            "[1, {\"gold\": 1}]",
            "3",
            "-2.5",
            "true",
            "null",
            "\"gold\"",
        ] {
            assert!(
                matches!(GoldPred::parse(line), Ok(GoldPred::NotObject)),
                "{line}"
            );
        }
    }

    /// A skipped value is still checked: the line fails where `serde_json::Value` fails it, for
    /// the same reason (serde_json places a control character in a skipped string one column
    /// earlier than in a string it builds). The whole class, with the few values skipping
    /// accepts or names otherwise, is `metrics_core::pairs`'s differential test against
    /// building every record.
    #[test]
    fn a_skipped_value_is_checked_as_json() {
        for line in [
            r#"{"gold": 1, "pred": 2, "reply": "a\qb"}"#,
            "{\"gold\": 1, \"reply\": \"tab\there\"}",
            r#"{"gold": 1, "x": 01}"#,
            r#"{"gold": 1} trailing"#,
            r#"{"gold": 1"#,
        ] {
            let ours = GoldPred::parse(line).map(|_| ()).unwrap_err();
            let value = serde_json::from_str::<serde_json::Value>(line).unwrap_err();
            let why =
                |e: &serde_json::Error| e.to_string().split(" at line").next().map(str::to_string);
            assert_eq!(why(&ours), why(&value), "{line}");
            assert_eq!(ours.line(), value.line(), "{line}");
            assert!(ours.column().abs_diff(value.column()) <= 1, "{line}");
        }
    }
}
