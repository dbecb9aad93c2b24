//! SGI-Bench Deep Research: exact match and step-level accuracy from the official logs.
//!
//! Matches `task_1_deep_research/step_1_get_answer.py` (`get_answer`),
//! `utils.extract_final_answer` and `task_1_deep_research/step_2_score.py`
//! (`eval_model_output` and the printed summary).
//!
//! ```text
//! extracted  = reply[last "<answer>" + 8 .. first "</answer>" after it].strip()
//!              no closing tag after the last "<answer>" (or no tag) → the whole reply
//!              reply.lower() == "none" or reply == ""  → "None"
//!              reply starts with "[Error]" (an API error) → "None"
//! EM         = 1 if gold == extracted or gold == parsed else 0        (plain string equality)
//! SLA        = #(entries with judge == "correct") / #entries          (o4-mini judge list)
//! aggregates = sum(values) / len(values)
//! ```
//!
//! `extracted` is re-derived from `model_answer_with_thinking`; `parsed` is the parser model's
//! stored output `model_answer_after_llm_paser` (sic) and `gold` is `answer`. When the stored
//! `model_answer` differs from the re-extraction, a warning says so and the re-extraction counts.
//!
//! Step-level accuracy needs the step-2 log's `llm_judge` lists. Official quirks reproduced as
//! per-item errors (the official run crashes on them: `step_level_acc` is never assigned):
//! an empty list (ZeroDivisionError), a list entry that is not an object with `judge`
//! (KeyError/TypeError), a non-list value, and `null` (the judge reply could not be read or the
//! call raised). Such an item keeps its exact match and is left out of step-level accuracy,
//! with a warning naming it. A `null` record (the official thread pool's mark of a crashed item)
//! is left out entirely.

use serde_json::Value;

use super::log::{
    ItemResult, build_report, discipline_of, for_each_record, idx_of, mean_metrics,
    null_record_warning, string_field, warn,
};
use super::py_strip;
use crate::error::InputError;
use crate::report::Report;
use crate::text::Text;

/// `utils.extract_final_answer`: the stripped text between the last `<answer>` and the first
/// `</answer>` after it; `None` without such a pair.
pub fn extract_final_answer(reply: &str) -> Option<&str> {
    const START: &str = "<answer>";
    let start = reply.rfind(START)?;
    let end = reply[start..].find("</answer>")? + start;
    Some(py_strip(&reply[start + START.len()..end]))
}

/// The answer step 1 stores as `model_answer` for a raw reply (`get_answer`).
pub fn model_answer(reply: &str) -> &str {
    if reply.is_empty() || reply.to_lowercase() == "none" || reply.starts_with("[Error]") {
        return "None";
    }
    extract_final_answer(reply).unwrap_or(reply)
}

/// Exact match: `gold == extracted or gold == parsed`.
pub fn exact_match(gold: &str, extracted: &str, parsed: &str) -> bool {
    gold == extracted || gold == parsed
}

/// Why a stored judge list cannot give a step-level accuracy.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JudgeError {
    #[error(
        "judge unreadable: `llm_judge` is null (the judge reply could not be read or the call failed)"
    )]
    Null,
    #[error(
        "judge unreadable: `llm_judge` is an empty list (the official run crashes: ZeroDivisionError)"
    )]
    Empty,
    #[error("judge unreadable: entry {0} of `llm_judge` is not an object with `judge`")]
    BadEntry(usize),
    #[error("judge unreadable: `llm_judge` is not a list")]
    NotAList,
}

/// Step-level accuracy from a stored `llm_judge` value.
pub fn step_level_accuracy(llm_judge: &Value) -> Result<f64, JudgeError> {
    let entries = match llm_judge {
        Value::Array(entries) => entries,
        Value::Null => return Err(JudgeError::Null),
        _ => return Err(JudgeError::NotAList),
    };
    if entries.is_empty() {
        return Err(JudgeError::Empty);
    }
    let mut correct = 0usize;
    for (i, entry) in entries.iter().enumerate() {
        let verdict = entry
            .as_object()
            .and_then(|e| e.get("judge"))
            .ok_or(JudgeError::BadEntry(i + 1))?;
        if verdict.as_str() == Some("correct") {
            correct += 1;
        }
    }
    Ok(correct as f64 / entries.len() as f64)
}

/// The metric keys of a deep-research report.
pub const KEYS: [&str; 2] = ["exact_match", "step_level_accuracy"];

/// Score a step-1 or step-2 deep-research log.
pub fn score_log<'t>(name: &str, text: impl Into<Text<'t>>) -> Result<Report, InputError> {
    let text = text.into();
    let inputs = text.input_file(name).into_iter().collect();
    // One record at a time: only the per-item results are kept.
    let mut items = Vec::new();
    let mut warnings = Vec::new();
    let mut any_judge = false;
    for_each_record(name, text, |record| {
        let Some(fields) = record.fields else {
            warnings.push(null_record_warning(name, record.number));
            return Ok(());
        };
        let number = record.number;
        let idx = idx_of(number, fields);
        let gold = string_field(name, number, fields, "answer")?;
        let reply = string_field(name, number, fields, "model_answer_with_thinking")?;
        let parsed = string_field(name, number, fields, "model_answer_after_llm_paser")?;
        let extracted = model_answer(reply);
        if let Some(Value::String(stored)) = fields.get("model_answer")
            && stored != extracted
        {
            warnings.push(warn(
                name,
                number,
                format!("{idx}: stored `model_answer` {stored:?} differs from the re-extracted {extracted:?}; using the re-extraction"),
            ));
        }
        let em = if exact_match(gold, extracted, parsed) {
            1.0
        } else {
            0.0
        };
        let mut extra = Vec::new();
        let sla = match fields.get("llm_judge") {
            None => None,
            Some(judge) => {
                any_judge = true;
                match step_level_accuracy(judge) {
                    Ok(v) => Some(v),
                    Err(e) => {
                        warnings.push(warn(
                            name,
                            number,
                            format!("{idx}: {e}; left out of step_level_accuracy"),
                        ));
                        extra.push(("step_level_accuracy_error", Value::String(e.to_string())));
                        None
                    }
                }
            }
        };
        items.push(ItemResult {
            idx,
            discipline: discipline_of(fields),
            values: vec![("exact_match", Some(em)), ("step_level_accuracy", sla)],
            extra,
            error: None,
        });
        Ok(())
    })?;
    if !any_judge && !items.is_empty() {
        warnings.push(crate::report::Warning {
            path: name.into(),
            line: None,
            message:
                "no record has `llm_judge` (a step-1 log): step_level_accuracy needs the step-2 log"
                    .into(),
        });
    }
    Ok(build_report(
        "sgi-deep-research",
        inputs,
        items,
        warnings,
        |scored| mean_metrics(&KEYS, scored),
        true,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_tag_wins_and_unclosed_falls_back() {
        assert_eq!(
            extract_final_answer("<answer>3</answer> x <answer> 7 </answer>"),
            Some("7")
        );
        assert_eq!(
            extract_final_answer("<answer>5</answer> then <answer>6"),
            None
        );
        assert_eq!(
            model_answer("<answer>5</answer> then <answer>6"),
            "<answer>5</answer> then <answer>6"
        );
        assert_eq!(model_answer("NoNe"), "None");
        assert_eq!(model_answer(""), "None");
        assert_eq!(model_answer("[Error][boom]"), "None");
        assert_eq!(model_answer("<answer></answer>"), "");
    }

    #[test]
    fn judge_lists() {
        let list =
            serde_json::json!([{"judge": "correct"}, {"judge": "Correct"}, {"judge": "incorrect"}]);
        assert_eq!(step_level_accuracy(&list), Ok(1.0 / 3.0));
        assert_eq!(
            step_level_accuracy(&serde_json::json!([])),
            Err(JudgeError::Empty)
        );
        assert_eq!(step_level_accuracy(&Value::Null), Err(JudgeError::Null));
        assert_eq!(
            step_level_accuracy(&serde_json::json!([{"j": 1}])),
            Err(JudgeError::BadEntry(1))
        );
        assert_eq!(
            step_level_accuracy(&serde_json::json!({"judge": "correct"})),
            Err(JudgeError::NotAList)
        );
    }
}
