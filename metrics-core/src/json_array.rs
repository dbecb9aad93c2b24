//! Reading a JSON array one element at a time, so a big file never exists as one
//! `serde_json::Value` tree: each element is parsed into a `Value`, handed to the caller (who
//! keeps a compact typed record) and dropped before the next one is read.
//!
//! The outcome is the one of parsing the whole text first: a syntax error anywhere wins over a
//! bad element, and the first bad element (in file order) wins over later ones. The same parser
//! runs as for `serde_json::from_str::<Value>` / `::<Vec<Value>>`, so its messages (and their
//! line and column) are the same, whether the text is whole in memory or a stream
//! ([`Text`]).

use std::fmt;

use serde::Deserializer as _;
use serde::de::{MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::text::Text;

/// Why [`for_each`] / [`for_each_in_seq`] stopped.
#[derive(Debug)]
pub(crate) enum ArrayError<E> {
    /// Not valid JSON; for [`for_each_in_seq`] also a top level that is not an array (serde's
    /// "invalid type: …, expected a sequence", as for `Vec<Value>`).
    Json(serde_json::Error),
    /// Valid JSON whose top level is not an array ([`for_each`] only): "null", "a boolean",
    /// "a number", "a string" or "an object".
    NotArray(&'static str),
    /// The first error the callback returned.
    Element(E),
}

/// Parse `text` as JSON (any top level, as `Value` does) and call `each(number, element)` for
/// every element of a top-level array, `number` 1-based.
pub(crate) fn for_each<E>(
    text: Text<'_>,
    each: impl FnMut(usize, Value) -> Result<(), E>,
) -> Result<(), ArrayError<E>> {
    run(text, each, false)
}

/// As [`for_each`], but the top level must be an array (as `Vec<Value>` requires).
pub(crate) fn for_each_in_seq<E>(
    text: Text<'_>,
    each: impl FnMut(usize, Value) -> Result<(), E>,
) -> Result<(), ArrayError<E>> {
    run(text, each, true)
}

/// The first element of the top-level array `text` for which `wanted(number, &element)` holds
/// (`number` 1-based), read one element at a time: a detail view of a gigabyte file does not
/// build its tree. The whole text is still checked, so the errors are those of
/// `serde_json::from_str::<Vec<Value>>`.
pub fn find(
    text: &str,
    mut wanted: impl FnMut(usize, &Value) -> bool,
) -> Result<Option<Value>, serde_json::Error> {
    let mut found = None;
    let read = for_each_in_seq(Text::Whole(text), |number, value| {
        if found.is_none() && wanted(number, &value) {
            found = Some(value);
        }
        Ok::<(), std::convert::Infallible>(())
    });
    match read {
        Ok(()) => Ok(found),
        Err(ArrayError::Json(e)) => Err(e),
        // (for_each_in_seq reports a non-array as `Json`; kept total all the same)
        Err(ArrayError::NotArray(kind)) => Err(serde::de::Error::custom(format!(
            "invalid type: {kind}, expected a sequence"
        ))),
        Err(ArrayError::Element(never)) => match never {},
    }
}

fn run<E, F: FnMut(usize, Value) -> Result<(), E>>(
    text: Text<'_>,
    each: F,
    seq_only: bool,
) -> Result<(), ArrayError<E>> {
    let read = match text {
        Text::Whole(text) => run_with(serde_json::Deserializer::from_str(text), each, seq_only),
        Text::Stream(reader) => run_with(
            serde_json::Deserializer::from_reader(reader),
            each,
            seq_only,
        ),
    };
    read.unwrap_or_else(|e| Err(ArrayError::Json(e)))
}

/// The outer error is serde_json's (to be placed by the caller), the inner the rest.
fn run_with<'de, R, E, F>(
    mut de: serde_json::Deserializer<R>,
    each: F,
    seq_only: bool,
) -> Result<Result<(), ArrayError<E>>, serde_json::Error>
where
    R: serde_json::de::Read<'de>,
    F: FnMut(usize, Value) -> Result<(), E>,
{
    let mut elements = Elements {
        each,
        first_error: None,
    };
    let top = if seq_only {
        de.deserialize_seq(&mut elements)
    } else {
        de.deserialize_any(&mut elements)
    }
    .and_then(|top| de.end().map(|()| top))?;
    if let Some(kind) = top {
        return Ok(Err(ArrayError::NotArray(kind)));
    }
    Ok(match elements.first_error {
        Some(e) => Err(ArrayError::Element(e)),
        None => Ok(()),
    })
}

struct Elements<F, E> {
    each: F,
    first_error: Option<E>,
}

/// `None` for an array, else the kind of the top-level value.
type Top = Option<&'static str>;

impl<'de, E, F: FnMut(usize, Value) -> Result<(), E>> Visitor<'de> for &mut Elements<F, E> {
    type Value = Top;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        // The words `Vec<Value>` uses, so a non-array reads the same.
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Top, A::Error> {
        let mut number = 0;
        while let Some(value) = seq.next_element::<Value>()? {
            number += 1;
            if self.first_error.is_none()
                && let Err(e) = (self.each)(number, value)
            {
                self.first_error = Some(e);
            }
        }
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top, A::Error> {
        // Read (and check) the whole object entry by entry, as `Value` would, keeping nothing.
        while map.next_entry::<String, Value>()?.is_some() {}
        Ok(Some("an object"))
    }

    fn visit_unit<X>(self) -> Result<Top, X> {
        Ok(Some("null"))
    }

    fn visit_bool<X>(self, _: bool) -> Result<Top, X> {
        Ok(Some("a boolean"))
    }

    fn visit_i64<X>(self, _: i64) -> Result<Top, X> {
        Ok(Some("a number"))
    }

    fn visit_u64<X>(self, _: u64) -> Result<Top, X> {
        Ok(Some("a number"))
    }

    fn visit_f64<X>(self, _: f64) -> Result<Top, X> {
        Ok(Some("a number"))
    }

    fn visit_str<X>(self, _: &str) -> Result<Top, X> {
        Ok(Some("a string"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect_from(text: Text, seq_only: bool) -> Result<Vec<Value>, ArrayError<String>> {
        let mut out = Vec::new();
        let each = |n: usize, v: Value| {
            if v == "bad" {
                return Err(format!("bad at {n}"));
            }
            out.push(v);
            Ok(())
        };
        run(text, each, seq_only).map(|()| out)
    }

    /// The outcome for the whole text, checked to be the same for the text as a stream.
    fn collect(text: &str, seq_only: bool) -> Result<Vec<Value>, ArrayError<String>> {
        let whole = collect_from(Text::Whole(text), seq_only);
        let streamed = collect_from(
            Text::stream(std::io::BufReader::with_capacity(3, text.as_bytes())),
            seq_only,
        );
        assert_eq!(format!("{whole:?}"), format!("{streamed:?}"), "{text:?}");
        whole
    }

    /// `find` gives the element `Vec<Value>` has at that place, and its errors.
    #[test]
    fn find_is_the_whole_arrays_element() {
        let text = "[1, {\"id\": \"a\"}, {\"id\": \"b\", \"x\": [2]}, null]";
        let whole = serde_json::from_str::<Vec<Value>>(text).unwrap();
        for n in 1..=5 {
            assert_eq!(
                find(text, |i, _| i == n).unwrap(),
                whole.get(n - 1).cloned(),
                "{n}"
            );
        }
        let by_id = find(text, |_, v| v.get("id").is_some_and(|id| id == "b")).unwrap();
        assert_eq!(by_id, Some(whole[2].clone()));
        for broken in ["[1, 2", "[1, 2] x", "{\"a\": 1}", "3", "", "[{\"a\" 1}]"] {
            let want = serde_json::from_str::<Vec<Value>>(broken)
                .unwrap_err()
                .to_string();
            let got = find(broken, |_, _| true).unwrap_err().to_string();
            assert_eq!(got, want, "{broken:?}");
        }
    }

    #[test]
    fn same_outcome_as_parsing_the_whole_value() {
        assert_eq!(
            collect("[1, {\"a\": [2]}, null]", false).unwrap(),
            serde_json::from_str::<Vec<Value>>("[1, {\"a\": [2]}, null]").unwrap()
        );
        for text in [
            "[1,",
            "[1, 2] x",
            "[\n1,\n{\"a\" 1}\n]",
            "[1e400]",
            "[1e999",
            "[\"\\ud800\"]",
            "",
            "{\"a\": }",
        ] {
            // The same as a stream, but for an error found after peeking at the next byte
            // (see crate::text).
            let ours = match if text == "[1e400]" {
                collect_from(Text::Whole(text), false)
            } else {
                collect(text, false)
            } {
                Err(ArrayError::Json(e)) => e.to_string(),
                other => panic!("{text:?}: {other:?}"),
            };
            let theirs = serde_json::from_str::<Value>(text).unwrap_err().to_string();
            assert_eq!(ours, theirs, "{text:?}");
        }
        // (A stream places "invalid type" one column later: the command line reports a file
        // that fails with the whole text's message.)
        for text in ["{\"a\": 1}", "3", "\"s\"", "null"] {
            let ours = match collect_from(Text::Whole(text), true) {
                Err(ArrayError::Json(e)) => e.to_string(),
                other => panic!("{text:?}: {other:?}"),
            };
            let theirs = serde_json::from_str::<Vec<Value>>(text)
                .unwrap_err()
                .to_string();
            assert_eq!(ours, theirs, "{text:?}");
        }
    }

    #[test]
    fn kinds_of_non_arrays_and_the_first_bad_element() {
        for (text, kind) in [
            ("{\"a\": [1]}", "an object"),
            ("null", "null"),
            ("true", "a boolean"),
            ("-1", "a number"),
            ("1.5", "a number"),
            ("\"s\"", "a string"),
        ] {
            assert!(
                matches!(collect(text, false), Err(ArrayError::NotArray(k)) if k == kind),
                "{text}"
            );
        }
        assert!(
            matches!(collect("[1, \"bad\", \"bad\"]", false), Err(ArrayError::Element(e)) if e == "bad at 2")
        );
        // A syntax error later in the file wins over a bad element before it.
        assert!(matches!(
            collect("[\"bad\", 1,", false),
            Err(ArrayError::Json(_))
        ));
    }
}
