//! SGI-Bench Experimental Reasoning: multiple-choice accuracy (MCA) and reasoning validity (RV).
//!
//! Matches `task_4_experimental_reasoning/step_2_score.py` (`extract_answer_from_response`,
//! `mm_reasoning_is_correct`, the RV part of `eval_model_output`).
//!
//! ```text
//! letter = first match of  \\boxed\{([A-Z])\}  in the model answer     (re.search)
//! MCA    = 1 if letter.lower() == chr(65 + answer).lower() else 0       (no letter → 0)
//! RV     = float(first run of digits in judge_reply.strip()) / 10       (no digits or judge error → 0.0)
//! ```
//!
//! Official quirks reproduced: only a single CAPITAL letter counts (`\boxed{b}`, `\boxed{ C }`,
//! `\boxed{AB}` and a bare `boxed{D}` give 0); the first box wins; RV is not clamped (a reply
//! "100" gives 10.0) and "6.5" gives 0.6 (digits stop at the point). Digits are ASCII here; Python's
//! `\d` also takes other Unicode decimal digits, which judge replies do not use.
//!
//! [`score_log`] reads the step-2 input log (records with `answer`, `options`, `model_answer`)
//! and, for RV, the stored judge replies (`{"<idx>": "<reply>" | {"raise": "…"}}`; a missing
//! reply or a `raise` is a failed call, RV 0.0 as the official code). Without replies RV is
//! taken from the records' stored `RV` (a step-2 output log) when every record has one, else it
//! is `null` with a warning. Overall `mca` and `rv` are the means the official script prints
//! (`sum(...)/len(...)`); it prints no per-discipline numbers, so the report has no subsets.
//! A `null` record is left out with a warning; a record without a usable `answer` or
//! `model_answer` stops scoring (the official run crashes on it).

use serde_json::{Map, Value};

use super::log::{
    ItemResult, build_report, discipline_of, for_each_record, idx_of, kind, mean_metrics,
    null_record_warning,
};
use crate::error::InputError;
use crate::report::{Report, Warning};
use crate::text::Text;

/// The report's metric keys.
pub const KEYS: [&str; 2] = ["mca", "rv"];

/// The letter of the first `\boxed{X}` with `X` in `A`–`Z`.
pub fn extract_boxed_letter(answer: &str) -> Option<char> {
    const OPEN: &str = "\\boxed{";
    let mut from = 0;
    while let Some(pos) = answer[from..].find(OPEN) {
        let after = from + pos + OPEN.len();
        let mut rest = answer[after..].chars();
        if let (Some(letter), Some('}')) = (rest.next(), rest.next())
            && letter.is_ascii_uppercase()
        {
            return Some(letter);
        }
        from = after;
    }
    None
}

/// MCA of one item: `answer_index` is the dataset's 0-based `answer`.
pub fn multiple_choice_correct(model_answer: &str, answer_index: u32) -> bool {
    let Some(gold) = char::from_u32(65 + answer_index) else {
        return false;
    };
    correct_against(model_answer, gold)
}

/// MCA of one item against the gold letter `chr(65 + answer)` (any code point, as Python).
pub fn correct_against(model_answer: &str, gold: char) -> bool {
    extract_boxed_letter(model_answer)
        .is_some_and(|letter| letter.to_lowercase().eq(gold.to_lowercase()))
}

/// RV of one item from the judge's reply (`None` = the judge call failed).
pub fn reasoning_validity(judge_reply: Option<&str>) -> f64 {
    let Some(reply) = judge_reply else {
        return 0.0;
    };
    let reply = super::py_strip(reply);
    let Some(start) = reply.find(|c: char| c.is_ascii_digit()) else {
        return 0.0;
    };
    let digits = &reply[start..];
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    digits[..end].parse::<f64>().map_or(0.0, |v| v / 10.0)
}

/// `chr(ord('A') + int(answer))`: the gold letter, or why the official code raises.
fn gold_letter(value: Option<&Value>) -> Result<char, String> {
    let n = match value {
        Some(Value::Number(n)) => n
            .as_i64()
            .ok_or_else(|| format!("`answer` {n} is not an integer"))?,
        Some(Value::String(s)) => super::py_strip(s)
            .parse::<i64>()
            .map_err(|_| format!("`answer` {s:?} is not an integer (int() raises ValueError)"))?,
        Some(other) => {
            return Err(format!(
                "`answer` must be an integer, found {}",
                kind(other)
            ));
        }
        None => return Err("missing `answer` (KeyError)".into()),
    };
    u32::try_from(65 + i128::from(n))
        .ok()
        .and_then(char::from_u32)
        .ok_or_else(|| format!("`answer` {n} has no letter (chr() raises ValueError)"))
}

/// The stored judge replies: idx → reply text, or `None` for a failed call (`{"raise": …}` or
/// anything that is not a string).
fn parse_replies(name: &str, text: &str) -> Result<Map<String, Value>, InputError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(InputError::whole_file(
            name,
            format!(
                "expected a JSON object {{idx: reply}}, found {}",
                kind(&other)
            ),
        )),
        Err(e) => Err(InputError::new(
            name,
            Some(e.line()),
            format!("not valid JSON: {e}"),
        )),
    }
}

/// Score a step-2 input log (or the step-2 output log), with optional stored judge replies
/// (`(file name, text)`).
pub fn score_log<'t>(
    name: &str,
    text: impl Into<Text<'t>>,
    judge_replies: Option<(&str, &str)>,
) -> Result<Report, InputError> {
    let text = text.into();
    let inputs = text.input_file(name).into_iter().collect();
    let replies = judge_replies
        .map(|(n, t)| parse_replies(n, t).map(|map| (n, map)))
        .transpose()?;
    let mut items = Vec::new();
    let mut warnings = Vec::new();
    let mut no_reply = Vec::new();
    // Each record's stored `RV` when it is a number (`None` when it is not); used only when
    // every record has one.
    let mut stored = Vec::new();
    // One record at a time: of each only its numbers are kept, never the texts.
    for_each_record(name, text, |record| {
        let Some(fields) = record.fields else {
            warnings.push(null_record_warning(name, record.number));
            return Ok(());
        };
        let number = record.number;
        let idx = idx_of(number, fields);
        let fail = |e: String| {
            InputError::at_line(
                name,
                number,
                format!("{idx}: {e} (the official step 2 crashes on this item)"),
            )
        };
        let gold = gold_letter(fields.get("answer")).map_err(fail)?;
        let model_answer = match fields.get("model_answer") {
            Some(Value::String(s)) => s.as_str(),
            Some(other) => {
                return Err(fail(format!(
                    "`model_answer` must be a string, found {}",
                    kind(other)
                )));
            }
            None => return Err(fail("missing `model_answer` (KeyError)".into())),
        };
        let mca = f64::from(u8::from(correct_against(model_answer, gold)));
        let rv = match &replies {
            Some((_, map)) => {
                let reply = map.get(&idx);
                if reply.is_none() {
                    no_reply.push(idx.clone());
                }
                Some(reasoning_validity(reply.and_then(Value::as_str)))
            }
            None => None,
        };
        stored.push(match fields.get("RV") {
            Some(Value::Number(n)) => Some(n.as_f64()),
            _ => None,
        });
        items.push(ItemResult {
            idx,
            discipline: discipline_of(fields),
            values: vec![("mca", Some(mca)), ("rv", rv)],
            extra: Vec::new(),
            error: None,
        });
        Ok(())
    })?;
    let stored_rv = replies.is_none() && !stored.is_empty() && stored.iter().all(Option::is_some);
    if stored_rv {
        for (item, rv) in items.iter_mut().zip(stored) {
            item.values[1].1 = rv.flatten();
        }
    }
    match &replies {
        Some((replies_name, _)) if !no_reply.is_empty() => warnings.push(Warning {
            path: (*replies_name).into(),
            line: None,
            message: format!(
                "no judge reply for {} item(s) ({}): scored as a failed judge call, RV 0.0",
                no_reply.len(),
                no_reply.join(", ")
            ),
        }),
        Some(_) => {}
        None if stored_rv => warnings.push(Warning {
            path: name.into(),
            line: None,
            message: "rv is the mean of the records' stored `RV` (a step-2 output log); pass the judge replies to recompute it"
                .into(),
        }),
        None => warnings.push(Warning {
            path: name.into(),
            line: None,
            message: "rv is null: reasoning validity needs the o4-mini judge's replies (--judge-replies {idx: reply})"
                .into(),
        }),
    }
    let mut report = build_report(
        "sgi-reasoning",
        inputs,
        items,
        warnings,
        |items| mean_metrics(&KEYS, items),
        true,
    );
    // The official script prints overall numbers only.
    report.subsets.clear();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxed_letters() {
        assert_eq!(extract_boxed_letter("x \\boxed{B}"), Some('B'));
        assert_eq!(extract_boxed_letter("\\boxed{AB} \\boxed{C}"), Some('C'));
        assert_eq!(extract_boxed_letter("\\boxed{b}"), None);
        assert!(multiple_choice_correct("$\\boxed{E}$.", 4));
        assert!(!multiple_choice_correct("\\boxed{E}", 3));
    }

    #[test]
    fn rv_takes_the_first_digit_run() {
        assert_eq!(reasoning_validity(Some("Score: 7/10")), 0.7);
        assert_eq!(reasoning_validity(Some("100")), 10.0);
        assert_eq!(reasoning_validity(Some("none")), 0.0);
        assert_eq!(reasoning_validity(None), 0.0);
    }
}
