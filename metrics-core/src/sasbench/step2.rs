//! Step 2 of the official pipeline: a raw model reply → `pred_label` and `pred_steps`.
//!
//! Reference: `sas_pipelines/2_process_prediction.py` (`unwrap_score_item` and its caller).
//!
//! ```text
//! text   = str(json.loads(field_2))              Python str(): False/True/None, dict repr
//! if "{'total'" in text and '{"total"' not in text: text = text.replace("'", '"')
//! i      = text.find('{"total"')
//! i < 0  → {pred_score: 0, steps: n × {step_score: 0, errors: []}}
//! else   → text[i:], "}```" → "}", drop //… to end of line and /*…*/,
//!          json_repair.loads (see lenient_json), a list → its first element
//! steps missing / not a list → n zero steps; pred_score missing → 0
//! each step: non-object → {}; step_score = int(step_score) or 0; errors not a list → []
//! pred_label = int(pred_score), 0 when int() raises
//! pred_steps = steps[:n] padded with {step_score: 0, errors: []}
//! ```
//! Quirks kept: replies pair with gold records by POSITION (not id); the first `{"total"`
//! wins even inside a `<think>` block; `//` stripping also cuts URLs (`http://…`).

use indexmap::IndexMap;
use serde_json::{Value, json};

use super::format::{JsonRecord, Prediction, ScoredLine};
use super::lenient_json::repair_loads;
use super::lite::{self, Lite, LiteSeed};
use crate::error::InputError;
use crate::python::{IntError, PyValue, py_str};

/// The processed prediction of one reply.
#[derive(Debug, Clone, PartialEq)]
pub struct Step2Output {
    pub pred_label: i64,
    /// Exactly `n_steps` objects, each with at least `step_score` (int) and `errors` (list).
    /// Values Python has and JSON numbers have not (NaN, infinities, integers beyond 64 bits)
    /// in keys step 2 copies without reading become `null` / the nearest float.
    pub pred_steps: Vec<Value>,
}

fn zero_py_step() -> PyValue {
    PyValue::Dict(IndexMap::from([
        ("step_score".to_string(), PyValue::Int(0)),
        ("errors".to_string(), PyValue::List(Vec::new())),
    ]))
}

/// Delete `//` comments (to the end of each line) and `/* … */` comments, as the official
/// regexes `//.*$` (MULTILINE) and `/\*[\s\S]*?\*/` do, in that order.
fn strip_comments(text: &str) -> String {
    let mut no_line_comments = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            no_line_comments.push('\n');
        }
        match line.find("//") {
            Some(p) => no_line_comments.push_str(&line[..p]),
            None => no_line_comments.push_str(line),
        }
    }
    let mut out = String::with_capacity(no_line_comments.len());
    let mut rest = no_line_comments.as_str();
    while let Some(start) = rest.find("/*") {
        match rest[start + 2..].find("*/") {
            Some(end) => {
                out.push_str(&rest[..start]);
                rest = &rest[start + 2 + end + 2..];
            }
            None => break,
        }
    }
    out.push_str(rest);
    out
}

/// The text the official step 2 hands to `json_repair.loads`: from the first `{"total"` on,
/// `}```` → `}`, comments deleted; `None` when there is no `{"total"`.
pub fn cleaned_reply(reply_text: &str) -> Option<String> {
    let quoted;
    let mut text = reply_text;
    if text.contains("{'total'") && !text.contains("{\"total\"") {
        quoted = text.replace('\'', "\"");
        text = &quoted;
    }
    let i = text.find("{\"total\"")?;
    let sliced = &text[i..];
    let sliced = if sliced.contains("}```") {
        sliced.replace("}```", "}")
    } else {
        sliced.to_string()
    };
    Some(if sliced.contains("//") || sliced.contains("/*") {
        strip_comments(&sliced)
    } else {
        sliced
    })
}

/// `int(x)` where the official code catches the exception (0), refusing values Python keeps
/// but an `i64` cannot hold.
fn int_or_zero(what: &str, value: Option<Result<i64, IntError>>) -> Result<i64, String> {
    match value {
        None
        | Some(Err(IntError {
            out_of_range: false,
            ..
        })) => Ok(0),
        Some(Ok(v)) => Ok(v),
        Some(Err(e)) => Err(format!("{what}: {e}")),
    }
}

/// `unwrap_score_item` after json_repair, on the repaired value: `pred_label` and the first
/// `n_steps` steps (padded), each with `step_score` an int and `errors` a list. `Err` where
/// the official code raises (the value is not an object or an empty list).
fn unwrap_item(value: PyValue, n_steps: usize) -> Result<(i64, Vec<PyValue>), String> {
    let value = match value {
        PyValue::List(items) => items
            .into_iter()
            .next()
            .ok_or("the repaired reply is an empty list (IndexError)")?,
        other => other,
    };
    let PyValue::Dict(mut item) = value else {
        return Err(format!(
            "the repaired reply is a {}, not an object (TypeError): {}",
            value.type_name(),
            value.py_repr()
        ));
    };
    let steps = match item.get_mut("steps") {
        Some(PyValue::List(steps)) => std::mem::take(steps),
        _ => (0..n_steps).map(|_| zero_py_step()).collect(),
    };
    let pred_label = int_or_zero("pred_score", item.get("pred_score").map(PyValue::py_int))?;
    let mut pred_steps = Vec::with_capacity(n_steps);
    for (k, step) in steps.into_iter().take(n_steps).enumerate() {
        let mut step = match step {
            PyValue::Dict(m) => m,
            _ => IndexMap::new(),
        };
        let score = int_or_zero(
            &format!("steps[{k}].step_score"),
            step.get("step_score").map(PyValue::py_int),
        )?;
        step.insert("step_score".into(), PyValue::Int(score));
        if !matches!(step.get("errors"), Some(PyValue::List(_))) {
            step.insert("errors".into(), PyValue::List(Vec::new()));
        }
        pred_steps.push(PyValue::Dict(step));
    }
    pred_steps.resize_with(n_steps, zero_py_step);
    Ok((pred_label, pred_steps))
}

/// Process one decoded reply for a gold record with `n_steps` steps. `Err` where the official
/// code raises, and for integers beyond 64 bits (Python keeps them; scorebench cannot).
///
/// `reply` as serde_json decoded it; [`process_reply_text`] takes Python's `str()` of the
/// decoded reply, exact also for replies that are not strings and hold integers beyond 64 bits.
pub fn process_reply(reply: &Value, n_steps: usize) -> Result<Step2Output, String> {
    process_reply_text(&py_str(reply), n_steps)
}

/// [`process_reply`] of the reply's text (`str(json.loads(field))`).
pub fn process_reply_text(reply_text: &str, n_steps: usize) -> Result<Step2Output, String> {
    let (pred_label, pred_steps) = match cleaned_reply(reply_text) {
        None => (0, (0..n_steps).map(|_| zero_py_step()).collect()),
        Some(text) => unwrap_item(repair_loads(&text).map_err(|e| e.to_string())?, n_steps)?,
    };
    Ok(Step2Output {
        pred_label,
        pred_steps: pred_steps.iter().map(PyValue::to_value).collect(),
    })
}

/// [`process_reply`] for the scorers: the reply's text (`str()` of the decoded reply) →
/// `pred_label`, and the `step_score`s and error names of the `n_steps` predicted steps,
/// without building the processed record.
pub fn predict(reply_text: &str, n_steps: usize) -> Result<Prediction, String> {
    let Some(cleaned) = cleaned_reply(reply_text) else {
        return Ok(Prediction {
            label: 0,
            step_scores: vec![0; n_steps],
            errors: Vec::new(),
        });
    };
    // Valid JSON (almost every reply) takes the borrowed fast path: what serde_json accepts,
    // Python's json.loads (json_repair's first try) accepts with the same value, except
    // integers beyond 64 bits and `-0` (serde_json reads them as floats).
    if !serde_reads_an_int_as_float(&cleaned)
        && let Ok(value) = lite::parse(&cleaned, LiteSeed::ALL)
    {
        return predict_from(&value, n_steps);
    }
    let (label, steps) = unwrap_item(repair_loads(&cleaned).map_err(|e| e.to_string())?, n_steps)?;
    let mut step_scores = Vec::with_capacity(n_steps);
    let mut errors = Vec::new();
    for step in &steps {
        if let PyValue::Dict(m) = step {
            step_scores.push(match m.get("step_score") {
                Some(PyValue::Int(v)) => *v,
                _ => 0,
            });
            if let Some(PyValue::List(items)) = m.get("errors") {
                errors.extend(items.iter().map(PyValue::py_str));
            }
        }
    }
    Ok(Prediction {
        label,
        step_scores,
        errors,
    })
}

/// Whether `text` may hold an integer literal serde_json reads as a float: 20 or more
/// consecutive digits (beyond `u64`) or `-0` not followed by a digit, `.` or an exponent.
fn serde_reads_an_int_as_float(text: &str) -> bool {
    let b = text.as_bytes();
    let mut run = 0;
    b.iter().enumerate().any(|(i, &c)| {
        run = if c.is_ascii_digit() { run + 1 } else { 0 };
        run >= 20
            || (c == b'-'
                && b.get(i + 1) == Some(&b'0')
                && !b
                    .get(i + 2)
                    .is_some_and(|n| n.is_ascii_digit() || matches!(n, b'.' | b'e' | b'E')))
    })
}

fn predict_from(value: &Lite, n_steps: usize) -> Result<Prediction, String> {
    let item = match value {
        Lite::Array(items) => items
            .first()
            .ok_or("the repaired reply is an empty list (IndexError)")?,
        other => other,
    };
    if item.as_object().is_none() {
        return Err(format!(
            "the repaired reply is not an object (TypeError): {}",
            item.py_str()
        ));
    }
    let label = int_or_zero("pred_score", item.get("pred_score").map(Lite::py_int))?;
    let steps = match item.get("steps") {
        Some(Lite::Array(steps)) => steps.as_slice(),
        _ => &[],
    };
    let mut step_scores = Vec::with_capacity(n_steps);
    let mut errors = Vec::new();
    for (k, step) in steps.iter().take(n_steps).enumerate() {
        let score = match step {
            Lite::Object(_) => int_or_zero(
                &format!("steps[{k}].step_score"),
                step.get("step_score").map(Lite::py_int),
            )?,
            _ => 0,
        };
        step_scores.push(score);
        if let Some(Lite::Array(items)) = step.get("errors") {
            errors.extend(items.iter().map(Lite::py_str));
        }
    }
    step_scores.resize(n_steps, 0);
    Ok(Prediction {
        label,
        step_scores,
        errors,
    })
}

/// The error for a gold record whose `steps` is not a list (step 2 takes `len(steps)`).
pub fn steps_not_a_list(dataset_name: &str, line: usize) -> InputError {
    InputError::at_line(
        dataset_name,
        line,
        "`steps` must be a list (step 2 reads len(steps) of every gold record)",
    )
}

/// The error for an empty gold dataset file (the official steps 3 and 4 raise IndexError).
pub fn no_gold_records(dataset_name: &str) -> InputError {
    InputError::whole_file(
        dataset_name,
        "no records: the gold dataset file needs at least one record (the official steps 3 and 4 raise IndexError)",
    )
}

/// Step 2 for a whole file: pairs gold records and reply lines BY POSITION (extra lines on
/// either side are ignored, as `zip` does) and returns the prediction records (the gold
/// object plus `pred_label` and `pred_steps`; records without a reply get neither).
pub fn process_file(
    dataset_name: &str,
    scored_name: &str,
    gold: &[JsonRecord],
    replies: &[ScoredLine],
) -> Result<Vec<JsonRecord>, InputError> {
    let mut out = Vec::with_capacity(gold.len());
    for (k, record) in gold.iter().enumerate() {
        let mut object = record.object.clone();
        if let Some(reply) = replies.get(k) {
            let n_steps = match object.get("steps") {
                Some(Value::Array(s)) => s.len(),
                _ => return Err(steps_not_a_list(dataset_name, record.line)),
            };
            let processed = process_reply_text(&reply.reply_text, n_steps)
                .map_err(|e| InputError::at_line(scored_name, reply.line, e))?;
            object.insert("pred_label".into(), json!(processed.pred_label));
            object.insert("pred_steps".into(), Value::Array(processed.pred_steps));
        }
        out.push(JsonRecord {
            line: record.line,
            object,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zero_step() -> Value {
        json!({"step_score": 0, "errors": []})
    }

    #[test]
    fn no_total_gives_zeros() {
        let out = process_reply(&json!(false), 2).unwrap();
        assert_eq!(out.pred_label, 0);
        assert_eq!(out.pred_steps, vec![zero_step(), zero_step()]);
    }

    #[test]
    // Expected values: the official `unwrap_score_item` and its caller run in Python
    // (json_repair 0.64.5) on the same replies.
    fn python_int_rules_and_padding() {
        let reply = json!(
            r#"<think>…</think>```json{"total":6,"pred_score":"2.5","steps":[{"step_score":1.9,"errors":"x"},"bad",{"step_score":"2"},{"step_score":3}]}```"#
        );
        let out = process_reply(&reply, 3).unwrap();
        assert_eq!(out.pred_label, 0);
        assert_eq!(
            out.pred_steps,
            vec![
                json!({"step_score": 1, "errors": []}),
                json!({"step_score": 0, "errors": []}),
                json!({"step_score": 2, "errors": []}),
            ]
        );
    }

    #[test]
    fn single_quoted_dict_reply_and_comments() {
        // A reply that is itself a JSON object: str() gives a Python dict repr with quotes '.
        let reply =
            json!({"total": 4, "pred_score": 3, "steps": [{"step_score": 3, "errors": ["a"]}]});
        let out = process_reply(&reply, 1).unwrap();
        assert_eq!(out.pred_label, 3);
        assert_eq!(
            out.pred_steps,
            vec![json!({"step_score": 3, "errors": ["a"]})]
        );
        let reply = json!("{\"total\":4,// a comment\n\"pred_score\":2 /* note */,\"steps\":[]}");
        let out = process_reply(&reply, 1).unwrap();
        assert_eq!(out.pred_label, 2);
    }

    #[test]
    // Python: the official step 2 keeps int(1e20) == 100000000000000000000 as pred_label,
    // which no i64 holds: an error naming the value, not a silent 0.
    fn integers_beyond_64_bits_are_errors() {
        for reply in [
            r#"{"total":5,"pred_score":1e20,"steps":[]}"#,
            r#"{"total":5,"pred_score":1,"steps":[{"step_score":"99999999999999999999"}]}"#,
        ] {
            let err = process_reply_text(reply, 1).unwrap_err();
            assert!(err.contains("64-bit"), "{err}");
            assert_eq!(predict(reply, 1).unwrap_err(), err);
        }
    }

    #[test]
    // Expected values: str(json.loads(field)) and the official step 2 (json_repair 0.64.5).
    fn reply_fields_are_decoded_as_python_does() {
        // A dict reply with NaN and an integer beyond 64 bits: serde_json rejects the first and
        // rounds the second; Python's str() prints both.
        let line = "id\t{\"total\": 3, \"pred_score\": NaN, \"steps\": [{\"step_score\": 2, \"errors\": [12345678901234567890123]}]}\n";
        let replies = super::super::format::parse_scored("scored.jsonl", line).unwrap();
        assert_eq!(
            replies[0].reply_text,
            "{'total': 3, 'pred_score': nan, 'steps': [{'step_score': 2, 'errors': [12345678901234567890123]}]}"
        );
        let p = predict(&replies[0].reply_text, 1).unwrap();
        assert_eq!(
            (p.label, p.step_scores, p.errors),
            (0, vec![2], vec!["12345678901234567890123".to_string()])
        );
        // Python: str(json.loads("-0")) == '0' (serde_json reads -0 as the float -0.0).
        let reply = r#"{"total":1,"pred_score":1,"steps":[{"errors":[-0, -0.0]}]}"#;
        assert_eq!(predict(reply, 1).unwrap().errors, vec!["0", "-0.0"]);
        // Python: json_repair gives the two surrogates of "\ud83c\udf89" (the emoji once
        // encoded); the missing comma splits the list.
        let reply =
            "{\"total\":1,\"pred_score\":1,\"steps\":[{\"errors\":[\"\\ud83c\\udf89\" \"x\"]}]";
        assert_eq!(
            predict(reply, 1).unwrap().errors,
            vec!["🎉".to_string(), "x".to_string()]
        );
    }
}
