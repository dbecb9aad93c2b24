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

use serde_json::{Map, Value, json};

use super::format::{JsonRecord, Prediction, ScoredLine};
use super::lenient_json::repair_loads;
use super::lite::{self, Lite, LiteSeed};
use super::python::{py_int, py_int_lite, py_str, py_str_lite};
use crate::error::InputError;

/// The processed prediction of one reply.
#[derive(Debug, Clone, PartialEq)]
pub struct Step2Output {
    pub pred_label: i64,
    /// Exactly `n_steps` objects, each with at least `step_score` (int) and `errors` (list).
    pub pred_steps: Vec<Value>,
}

fn zero_step() -> Value {
    json!({"step_score": 0, "errors": []})
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

/// Process one decoded reply for a gold record with `n_steps` steps. `Err` only where the
/// official code raises (the repaired value is not an object).
pub fn process_reply(reply: &Value, n_steps: usize) -> Result<Step2Output, String> {
    let mut text = py_str(reply);
    if text.contains("{'total'") && !text.contains("{\"total\"") {
        text = text.replace('\'', "\"");
    }
    let mut item: Map<String, Value> = match text.find("{\"total\"") {
        None => {
            let mut m = Map::new();
            m.insert("total".into(), json!(0));
            m.insert("pred_score".into(), json!(0));
            m.insert(
                "steps".into(),
                Value::Array((0..n_steps).map(|_| zero_step()).collect()),
            );
            m
        }
        Some(i) => {
            let sliced = text[i..].replace("}```", "}");
            let mut value = repair_loads(&strip_comments(&sliced));
            if let Value::Array(items) = value {
                value = items
                    .into_iter()
                    .next()
                    .ok_or("the repaired reply is an empty list")?;
            }
            match value {
                Value::Object(m) => m,
                other => return Err(format!("the repaired reply is not an object: {other}")),
            }
        }
    };
    if !matches!(item.get("steps"), Some(Value::Array(_))) {
        item.insert(
            "steps".into(),
            Value::Array((0..n_steps).map(|_| zero_step()).collect()),
        );
    }
    let pred_label = item.get("pred_score").map_or(Ok(0), py_int).unwrap_or(0);
    let steps = match item.remove("steps") {
        Some(Value::Array(steps)) => steps,
        _ => Vec::new(),
    };
    let mut pred_steps: Vec<Value> = steps
        .into_iter()
        .take(n_steps)
        .map(|step| {
            let mut step = match step {
                Value::Object(m) => m,
                _ => Map::new(),
            };
            let score = step.get("step_score").map_or(Ok(0), py_int).unwrap_or(0);
            step.insert("step_score".into(), json!(score));
            if !matches!(step.get("errors"), Some(Value::Array(_))) {
                step.insert("errors".into(), json!([]));
            }
            Value::Object(step)
        })
        .collect();
    while pred_steps.len() < n_steps {
        pred_steps.push(zero_step());
    }
    Ok(Step2Output {
        pred_label,
        pred_steps,
    })
}

/// [`process_reply`] for the scorers: the reply's text (`str()` of the decoded reply) →
/// `pred_label`, and the `step_score`s and error names of the `n_steps` predicted steps,
/// without building the processed record.
pub fn predict(reply_text: &str, n_steps: usize) -> Result<Prediction, String> {
    let quoted;
    let mut text = reply_text;
    if text.contains("{'total'") && !text.contains("{\"total\"") {
        quoted = text.replace('\'', "\"");
        text = &quoted;
    }
    let Some(i) = text.find("{\"total\"") else {
        return Ok(Prediction {
            label: 0,
            step_scores: vec![0; n_steps],
            errors: Vec::new(),
        });
    };
    // The same text as strip_comments(text[i..].replace("}```", "}")), copied only when
    // something changes.
    let sliced = &text[i..];
    let replaced;
    let sliced = if sliced.contains("}```") {
        replaced = sliced.replace("}```", "}");
        replaced.as_str()
    } else {
        sliced
    };
    let stripped;
    let cleaned = if sliced.contains("//") || sliced.contains("/*") {
        stripped = strip_comments(sliced);
        stripped.as_str()
    } else {
        sliced
    };
    // repair_loads parses strict JSON first: the same acceptance as this parse.
    match lite::parse(cleaned, LiteSeed::ALL) {
        Ok(value) => predict_from(&value, n_steps),
        Err(_) => predict_from(&Lite::from_value(&repair_loads(cleaned)), n_steps),
    }
}

fn predict_from(value: &Lite, n_steps: usize) -> Result<Prediction, String> {
    let item = match value {
        Lite::Array(items) => items.first().ok_or("the repaired reply is an empty list")?,
        other => other,
    };
    if item.as_object().is_none() {
        return Err(format!("the repaired reply is not an object: {item}"));
    }
    let label = item
        .get("pred_score")
        .map_or(Ok(0), py_int_lite)
        .unwrap_or(0);
    let steps = match item.get("steps") {
        Some(Lite::Array(steps)) => steps.as_slice(),
        _ => &[],
    };
    let mut step_scores = Vec::with_capacity(n_steps);
    let mut errors = Vec::new();
    for step in steps.iter().take(n_steps) {
        let score = match step {
            Lite::Object(_) => step
                .get("step_score")
                .map_or(Ok(0), py_int_lite)
                .unwrap_or(0),
            _ => 0,
        };
        step_scores.push(score);
        if let Some(Lite::Array(items)) = step.get("errors") {
            errors.extend(items.iter().map(py_str_lite));
        }
    }
    step_scores.resize(n_steps, 0);
    Ok(Prediction {
        label,
        step_scores,
        errors,
    })
}

/// Step 2 for a whole file: pairs gold records and reply lines BY POSITION (extra lines on
/// either side are ignored, as `zip` does) and returns the prediction records (the gold
/// object plus `pred_label` and `pred_steps`; records without a reply get neither).
pub fn process_file(
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
                _ => {
                    return Err(InputError::at_line(
                        scored_name,
                        reply.line,
                        "the gold record's `steps` is not a list",
                    ));
                }
            };
            let processed = process_reply(&reply.reply, n_steps)
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
}
