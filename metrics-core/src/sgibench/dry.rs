//! SGI-Bench Dry Experiment: unit-test passes, PassAll@k, AET and SER from the official logs.
//!
//! Matches `task_3_dry_experiment/step_4_score.py` (`eval_model_output` and the printed summary).
//!
//! ```text
//! unit passes ⇔ output == reference                                  (checked first, even with rc ≠ 0)
//!            else fails if error starts with "[WRONG]" or return code ≠ 0
//!            else the judge decides: judgment == "correct"           (exact, lower case)
//! pass_nums  = Σ passes over the 5 units
//! PassAll@5 = [pass_nums == 5], @3 = [pass_nums ≥ 3], @1 = [pass_nums ≥ 1]
//! AET(item)  = mean of unit runtimes > 0, else −1                      (a timeout is stored as 300 s)
//! SER(item)  = #(units with return code 0) / 5
//! overall    = mean over items; AET over items with AET > 0 only
//! ```
//!
//! Judge verdicts are never guessed. A unit that needs one takes it from `--judge-replies`
//! (raw reply text per idx and unit, read by the official rule: cut from the first `{` to the
//! last `}`, read as a dict) or else from the unit's stored `llm_judge` (step-4 log). Official
//! quirks reproduced as per-item errors, because the official run crashes on them (the item
//! becomes `null`, then the summary raises): no verdict, a failed judge call, an unreadable reply,
//! a verdict without `judgment`, a reply that is JSON with `true`/`false`/`null` (Python `eval`
//! cannot read it), a `unit_test` list that does not hold exactly five runs. Such items are left
//! out of every mean, with a warning naming the idx and the unit. When no item has AET > 0 the
//! official summary divides by zero: `aet` is `null` with a warning.

use serde_json::{Map, Value};

use super::log::{
    ItemResult, build_report, for_each_record, kind, null_record_warning, number_field,
    python_mean, string_field, warn,
};
use crate::error::InputError;
use crate::report::{MetricValue, Metrics, Report, Warning};
use crate::text::Text;

/// One unit-test run as step 3 records it.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitRun {
    pub error: String,
    pub runtime_s: f64,
    pub returncode: f64,
    pub output: Value,
}

/// What a unit needs to be decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnitOutcome {
    /// Decided without a judge: exact match passes; `[WRONG]` or a non-zero return code fails.
    Decided { exact_match: bool, pass: bool },
    /// A clean run whose output differs from the reference: a judge verdict decides.
    NeedsJudge,
}

/// The unit rule before the judge.
pub fn unit_outcome(run: &UnitRun, reference: &Value) -> UnitOutcome {
    let exact = match (&run.output, reference) {
        (Value::String(a), Value::String(b)) => a == b,
        (a, b) => a == b,
    };
    if exact {
        UnitOutcome::Decided {
            exact_match: true,
            pass: true,
        }
    } else if run.error.starts_with("[WRONG]") || run.returncode != 0.0 {
        UnitOutcome::Decided {
            exact_match: false,
            pass: false,
        }
    } else {
        UnitOutcome::NeedsJudge
    }
}

/// Why a unit that needs a verdict has none.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerdictError {
    #[error("needs a judge verdict and has none")]
    Missing,
    #[error("the judge call failed")]
    CallFailed,
    #[error("the judge reply is unreadable ({0})")]
    Unreadable(String),
    #[error("the judge verdict has no `judgment`")]
    NoJudgment,
}

/// Read a raw judge reply by the official rule: the text from the first `{` to the last `}`,
/// read as a Python dict (JSON or single-quoted literal); `Ok(true)` when `judgment == "correct"`.
pub fn read_judge_reply(reply: &str) -> Result<bool, VerdictError> {
    let unreadable = |why: &str| VerdictError::Unreadable(why.to_owned());
    let start = reply.find('{').ok_or_else(|| unreadable("no `{`"))?;
    let end = reply
        .rfind('}')
        .filter(|&e| e > start)
        .ok_or_else(|| unreadable("no `}` after `{`"))?;
    let cut = &reply[start..=end];
    let dict = match serde_json::from_str::<Value>(cut) {
        Ok(Value::Object(map)) => {
            if map.values().any(has_json_literal) {
                return Err(unreadable(
                    "JSON true/false/null cannot be read by Python eval",
                ));
            }
            map
        }
        _ => python_dict(cut).ok_or_else(|| unreadable("not a dict"))?,
    };
    verdict_from_dict(&dict)
}

fn has_json_literal(v: &Value) -> bool {
    match v {
        Value::Null | Value::Bool(_) => true,
        Value::Array(a) => a.iter().any(has_json_literal),
        Value::Object(o) => o.values().any(has_json_literal),
        _ => false,
    }
}

fn verdict_from_dict(dict: &Map<String, Value>) -> Result<bool, VerdictError> {
    let judgment = dict.get("judgment").ok_or(VerdictError::NoJudgment)?;
    Ok(judgment.as_str() == Some("correct"))
}

/// A flat Python dict literal of quoted keys and quoted/numeric values (`{'a': 'b', "c": 1}`).
fn python_dict(text: &str) -> Option<Map<String, Value>> {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let skip = |i: &mut usize| {
        while *i < chars.len() && chars[*i].is_whitespace() {
            *i += 1;
        }
    };
    let string = |i: &mut usize| -> Option<String> {
        let quote = *chars.get(*i)?;
        if quote != '\'' && quote != '"' {
            return None;
        }
        *i += 1;
        let mut s = String::new();
        loop {
            let c = *chars.get(*i)?;
            *i += 1;
            match c {
                '\\' => {
                    let e = *chars.get(*i)?;
                    *i += 1;
                    s.push(match e {
                        'n' => '\n',
                        't' => '\t',
                        other => other,
                    });
                }
                c if c == quote => return Some(s),
                c => s.push(c),
            }
        }
    };
    let mut map = Map::new();
    skip(&mut i);
    if chars.get(i) != Some(&'{') {
        return None;
    }
    i += 1;
    loop {
        skip(&mut i);
        if chars.get(i) == Some(&'}') {
            i += 1;
            break;
        }
        let key = string(&mut i)?;
        skip(&mut i);
        if chars.get(i) != Some(&':') {
            return None;
        }
        i += 1;
        skip(&mut i);
        let value = if matches!(chars.get(i), Some('\'' | '"')) {
            Value::String(string(&mut i)?)
        } else {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_digit() || matches!(chars[i], '.' | '-' | '+' | 'e' | 'E'))
            {
                i += 1;
            }
            let n: f64 = chars[start..i].iter().collect::<String>().parse().ok()?;
            serde_json::json!(n)
        };
        map.insert(key, value);
        skip(&mut i);
        match chars.get(i) {
            Some(',') => i += 1,
            Some('}') => {
                i += 1;
                break;
            }
            _ => return None,
        }
    }
    skip(&mut i);
    (i == chars.len()).then_some(map)
}

/// A stored `llm_judge` value from a step-4 log.
pub fn read_stored_verdict(llm_judge: &Value) -> Result<bool, VerdictError> {
    match llm_judge {
        Value::Object(dict) => verdict_from_dict(dict),
        Value::Null => Err(VerdictError::CallFailed),
        other => Err(VerdictError::Unreadable(format!(
            "stored `llm_judge` is {}",
            kind(other)
        ))),
    }
}

/// Per-item numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemScore {
    pub passes: [bool; 5],
    pub exact_matches: [bool; 5],
    pub pass_nums: usize,
    pub pass_all_5: f64,
    pub pass_all_3: f64,
    pub pass_all_1: f64,
    /// Mean runtime of units with runtime > 0, or −1.
    pub aet_s: f64,
    pub ser: f64,
}

/// Score one item from its five runs and the verdict (if any) of each unit.
pub fn score_item(
    runs: &[UnitRun; 5],
    references: &[Value; 5],
    mut verdict: impl FnMut(usize) -> Result<bool, VerdictError>,
) -> Result<ItemScore, (usize, VerdictError)> {
    let mut passes = [false; 5];
    let mut exact_matches = [false; 5];
    for k in 0..5 {
        match unit_outcome(&runs[k], &references[k]) {
            UnitOutcome::Decided { exact_match, pass } => {
                exact_matches[k] = exact_match;
                passes[k] = pass;
            }
            UnitOutcome::NeedsJudge => passes[k] = verdict(k).map_err(|e| (k, e))?,
        }
    }
    let pass_nums = passes.iter().filter(|p| **p).count();
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    let runtimes: Vec<f64> = runs
        .iter()
        .map(|r| r.runtime_s)
        .filter(|t| *t > 0.0)
        .collect();
    Ok(ItemScore {
        passes,
        exact_matches,
        pass_nums,
        pass_all_5: flag(pass_nums == 5),
        pass_all_3: flag(pass_nums >= 3),
        pass_all_1: flag(pass_nums >= 1),
        aet_s: python_mean(&runtimes).unwrap_or(-1.0),
        ser: runs.iter().filter(|r| r.returncode == 0.0).count() as f64 / 5.0,
    })
}

/// The metric keys of a dry-experiment report.
pub const KEYS: [&str; 5] = ["pass_all_5", "pass_all_3", "pass_all_1", "aet", "ser"];

/// Raw judge replies: idx → unit index → reply text (`None` = the call failed).
type Replies = Map<String, Value>;

fn parse_replies(name: &str, text: &str) -> Result<Replies, InputError> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(InputError::whole_file(
            name,
            format!(
                "expected a JSON object {{idx: {{unit: reply}}}}, found {}",
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

fn unit_run(
    name: &str,
    number: usize,
    idx: &str,
    unit: &Value,
    k: usize,
) -> Result<UnitRun, InputError> {
    let fields = unit.as_object().ok_or_else(|| {
        InputError::at_line(
            name,
            number,
            format!(
                "{idx}: unit_test[{k}] must be an object, found {}",
                kind(unit)
            ),
        )
    })?;
    let mut named = fields.clone();
    named.insert("idx".into(), Value::String(format!("{idx} unit_test[{k}]")));
    Ok(UnitRun {
        error: string_field(name, number, &named, "model_error")?.to_owned(),
        runtime_s: number_field(name, number, &named, "model_runtime")?,
        returncode: number_field(name, number, &named, "model_returncode")?,
        output: fields.get("model_code_output").cloned().ok_or_else(|| {
            InputError::at_line(
                name,
                number,
                format!("{idx}: unit_test[{k}]: missing `model_code_output`"),
            )
        })?,
    })
}

/// Score a step-3 or step-4 dry-experiment log, with optional raw judge replies
/// (`(file name, text)` of a JSON object `{idx: {"0": reply, …}}`).
pub fn score_log<'t>(
    name: &str,
    text: impl Into<Text<'t>>,
    judge_replies: Option<(&str, &str)>,
) -> Result<Report, InputError> {
    score_log_with_samples(name, text, judge_replies, true)
}

/// [`score_log`], with or without the per-item `samples` (`None` without). The log is read one
/// record at a time: of each item only its numbers are kept (and, for the samples, its unit
/// flags), never its unit outputs.
pub fn score_log_with_samples<'t>(
    name: &str,
    text: impl Into<Text<'t>>,
    judge_replies: Option<(&str, &str)>,
    with_samples: bool,
) -> Result<Report, InputError> {
    let text = text.into();
    let inputs = text.input_file(name).into_iter().collect();
    let replies = judge_replies
        .map(|(n, t)| parse_replies(n, t))
        .transpose()?;
    let mut items = Vec::new();
    let mut warnings = Vec::new();
    for_each_record(name, text, |record| {
        let Some(fields) = record.fields else {
            warnings.push(null_record_warning(name, record.number));
            return Ok(());
        };
        let mut item = score_record(name, record.number, fields, replies.as_ref(), &mut warnings)?;
        if !with_samples {
            item.extra = Vec::new();
        }
        items.push(item);
        Ok(())
    })?;
    let scored_any_aet = items
        .iter()
        .any(|i| i.value("aet").is_some_and(|a| a > 0.0));
    if !scored_any_aet && items.iter().any(|i| i.error.is_none()) {
        warnings.push(Warning {
            path: name.into(),
            line: None,
            message:
                "no item has a positive AET: the official summary divides by zero; aet is null"
                    .into(),
        });
    }
    Ok(build_report(
        "sgi-dry",
        inputs,
        items,
        warnings,
        aggregate,
        with_samples,
    ))
}

/// One record's result (its unit runs and reference outputs, `unit_test` and
/// `unit_test_{k}_output`, are read and dropped); a record the official scorer crashes on is
/// an item with an error and a warning.
fn score_record(
    name: &str,
    number: usize,
    fields: &Map<String, Value>,
    replies: Option<&Replies>,
    warnings: &mut Vec<Warning>,
) -> Result<ItemResult, InputError> {
    let mut item = ItemResult::of_record(number, fields);
    let idx = item.idx.clone();
    let units = match fields.get("unit_test") {
        Some(Value::Array(units)) => units,
        Some(other) => {
            return Err(InputError::at_line(
                name,
                number,
                format!("{idx}: `unit_test` must be a list, found {}", kind(other)),
            ));
        }
        None => {
            return Err(InputError::at_line(
                name,
                number,
                format!("{idx}: missing `unit_test`"),
            ));
        }
    };
    if units.len() != 5 {
        let e = format!(
            "`unit_test` holds {} runs, the official scorer needs exactly 5 (it crashes on this item)",
            units.len()
        );
        warnings.push(warn(name, number, format!("{idx}: {e}; left out")));
        item.error = Some(e);
        return Ok(item);
    }
    let mut runs = Vec::with_capacity(5);
    let mut references = Vec::with_capacity(5);
    for (k, unit) in units.iter().enumerate() {
        runs.push(unit_run(name, number, &idx, unit, k)?);
        let key = format!("unit_test_{k}_output");
        references.push(
            fields.get(&key).cloned().ok_or_else(|| {
                InputError::at_line(name, number, format!("{idx}: missing `{key}`"))
            })?,
        );
    }
    let (Ok(runs), Ok(references)) = (
        <[UnitRun; 5]>::try_from(runs),
        <[Value; 5]>::try_from(references),
    ) else {
        return Err(InputError::at_line(
            name,
            number,
            format!("{idx}: expected five unit runs"),
        ));
    };
    let verdict = |k: usize| -> Result<bool, VerdictError> {
        let reply = replies
            .and_then(|r| r.get(&idx))
            .and_then(|units| units.get(k.to_string()));
        match reply {
            Some(Value::String(text)) => read_judge_reply(text),
            Some(_) => Err(VerdictError::CallFailed),
            None => match units[k].get("llm_judge") {
                Some(stored) => read_stored_verdict(stored),
                None => Err(VerdictError::Missing),
            },
        }
    };
    match score_item(&runs, &references, verdict) {
        Ok(score) => {
            item.values = vec![
                ("pass_all_5", Some(score.pass_all_5)),
                ("pass_all_3", Some(score.pass_all_3)),
                ("pass_all_1", Some(score.pass_all_1)),
                ("aet", Some(score.aet_s)),
                ("ser", Some(score.ser)),
            ];
            item.extra = vec![
                ("pass_nums", serde_json::json!(score.pass_nums)),
                ("unit_pass", serde_json::json!(score.passes.map(u8::from))),
                (
                    "unit_exact_match",
                    serde_json::json!(score.exact_matches.map(u8::from)),
                ),
            ];
        }
        Err((k, e)) => {
            let e = format!("unit {k} {e} (the official run crashes on this item)");
            warnings.push(warn(name, number, format!("{idx}: {e}; left out")));
            item.error = Some(e);
        }
    }
    Ok(item)
}

fn aggregate(items: &[&ItemResult]) -> Metrics {
    let mut metrics = Metrics::new();
    for key in KEYS {
        let values: Vec<f64> = items
            .iter()
            .filter_map(|i| i.value(key))
            .filter(|v| key != "aet" || *v > 0.0)
            .collect();
        metrics.insert(key.into(), MetricValue::Scalar(python_mean(&values)));
    }
    metrics
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(output: &str, error: &str, rc: f64, t: f64) -> UnitRun {
        UnitRun {
            error: error.into(),
            runtime_s: t,
            returncode: rc,
            output: Value::String(output.into()),
        }
    }

    #[test]
    fn exact_match_is_checked_before_errors() {
        let reference = Value::String("ok".into());
        assert_eq!(
            unit_outcome(&run("ok", "[WRONG]x", 1.0, 1.0), &reference),
            UnitOutcome::Decided {
                exact_match: true,
                pass: true
            }
        );
        assert_eq!(
            unit_outcome(&run("no", "[No Error]", 1.0, 1.0), &reference),
            UnitOutcome::Decided {
                exact_match: false,
                pass: false
            }
        );
        assert_eq!(
            unit_outcome(&run("no", "[No Error]", 0.0, 1.0), &reference),
            UnitOutcome::NeedsJudge
        );
    }

    #[test]
    fn judge_replies_by_the_official_rule() {
        assert_eq!(
            read_judge_reply("x {\"judgment\": \"correct\", \"reason\": \"r\"} y"),
            Ok(true)
        );
        assert_eq!(read_judge_reply("{\"judgment\": \"Correct\"}"), Ok(false));
        assert_eq!(
            read_judge_reply("{'judgment': 'correct', 'reason': 'python dict'}"),
            Ok(true)
        );
        assert_eq!(
            read_judge_reply("{\"reason\": \"r\"}"),
            Err(VerdictError::NoJudgment)
        );
        assert!(matches!(
            read_judge_reply("{\"judgment\": \"correct\", \"ok\": true}"),
            Err(VerdictError::Unreadable(_))
        ));
        assert!(matches!(
            read_judge_reply("correct"),
            Err(VerdictError::Unreadable(_))
        ));
    }
}
