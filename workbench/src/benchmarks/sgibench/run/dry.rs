//! SGI-Bench dry experiment (`task_3_dry_experiment/step_4_score.py`): one judge call per unit
//! that needs a verdict ([`dry::unit_outcome`] = `NeedsJudge`) with the official
//! output-comparison prompt; the step-4 log adds per unit `exact_match`, `llm_judge`
//! ({judgment, reason}) and `pass`, per item `pass_nums`, `PassAll@5/3/1`, `AET`, `SER`.

use std::path::Path;

use metrics_core::sgibench::dry::{self, UnitOutcome, UnitRun};
use serde_json::{Map, Value, json};

use super::judge::{
    JudgeOptions, JudgeSummary, LogInput, ask_all, idx_text, judge_params, judge_plan, mean,
    raw_reply,
};
use crate::runs::{Executes, PageForm, RunError, RunHost, RunPlan, RunSpec, RunValues, write_json};

/// `scorebench run sgi-dry`, `{"benchmark": "sgi-dry"}`.
pub static RUN: RunSpec = RunSpec {
    key: "sgi-dry",
    label: "SGI-Bench dry experiment: judge the units that need a verdict, write the step-4 log",
    files: &["judge_replies.json", "step4_log.json"],
    params: &judge_params(
        "The official log the judge reads (deep research: step 1; dry: step 3)",
        "step-3 log (JSON)",
    ),
    page: Some(PageForm {
        open: &["step4_log.json"],
        open_inputs: &[],
    }),
    executes: Executes::Models,
    plan,
};

fn plan(values: RunValues) -> Result<Box<dyn RunPlan>, RunError> {
    judge_plan(
        &values,
        "step4_log.json",
        "SGI dry experiment",
        |host, options, log, out_dir| Box::pin(run_dry(host, options, log, out_dir)),
    )
}

/// The official dry-experiment judge prompt (`step_4_score.py`, `eval_model_output`); the two
/// outputs as Python's `str()` shows them (see [`python_str`]).
pub fn dry_prompt(reference: &str, model_output: &str) -> String {
    let mut p = String::with_capacity(DRY_0.len() + DRY_2.len() + 512);
    p.push_str(DRY_0);
    p.push_str(reference);
    p.push_str(DRY_1);
    p.push_str(model_output);
    p.push_str(DRY_2);
    p
}

/// Python `str()` of a scalar JSON value (strings as is, null → `None`, booleans `True`/`False`,
/// numbers as Python prints them for the common cases); lists and dicts are refused.
pub fn python_str(value: &Value) -> Option<String> {
    Some(match value {
        Value::String(s) => s.clone(),
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) if n.is_i64() || n.is_u64() => n.to_string(),
        Value::Number(n) => {
            let x = n.as_f64()?;
            if x.fract() == 0.0 && x.abs() < 1e16 {
                format!("{x:.1}")
            } else {
                format!("{x}")
            }
        }
        Value::Array(_) | Value::Object(_) => return None,
    })
}

/// The stored `llm_judge` of a judged unit: the reply's dict, or null when it cannot be read.
pub fn dry_verdict_dict(reply: &str) -> Value {
    if let Err(dry::VerdictError::Unreadable(_)) = dry::read_judge_reply(reply) {
        return Value::Null;
    }
    let (Some(start), Some(end)) = (reply.find('{'), reply.rfind('}')) else {
        return Value::Null;
    };
    let cut = &reply[start..=end];
    serde_json::from_str::<Value>(cut)
        .ok()
        .filter(Value::is_object)
        .or_else(|| {
            serde_json::from_str::<Value>(&super::judge::repair(cut))
                .ok()
                .filter(Value::is_object)
        })
        .unwrap_or(Value::Null)
}

struct DryItem {
    runs: [UnitRun; 5],
    references: [Value; 5],
    outcomes: [UnitOutcome; 5],
}

fn dry_item(name: &str, number: usize, fields: &Map<String, Value>) -> Result<DryItem, RunError> {
    let idx = idx_text(fields);
    let bad =
        |what: String| RunError::Input(format!("{name}: record {number} (idx {idx:?}): {what}"));
    let units = fields
        .get("unit_test")
        .and_then(Value::as_array)
        .filter(|u| u.len() >= 5)
        .ok_or_else(|| bad("`unit_test` must be a list of five runs".into()))?;
    let mut runs = Vec::with_capacity(5);
    let mut references = Vec::with_capacity(5);
    for (k, unit) in units.iter().take(5).enumerate() {
        let unit = unit
            .as_object()
            .ok_or_else(|| bad(format!("unit_test[{k}] must be an object")))?;
        let number_of = |key: &str| {
            unit.get(key)
                .and_then(Value::as_f64)
                .ok_or_else(|| bad(format!("unit_test[{k}]: `{key}` must be a number")))
        };
        runs.push(UnitRun {
            error: unit
                .get("model_error")
                .and_then(Value::as_str)
                .ok_or_else(|| bad(format!("unit_test[{k}]: `model_error` must be a string")))?
                .to_string(),
            runtime_s: number_of("model_runtime")?,
            returncode: number_of("model_returncode")?,
            output: unit
                .get("model_code_output")
                .cloned()
                .ok_or_else(|| bad(format!("unit_test[{k}]: missing `model_code_output`")))?,
        });
        references.push(
            fields
                .get(&format!("unit_test_{k}_output"))
                .cloned()
                .ok_or_else(|| bad(format!("missing `unit_test_{k}_output`")))?,
        );
    }
    let outcomes: Vec<UnitOutcome> = runs
        .iter()
        .zip(&references)
        .map(|(r, reference)| dry::unit_outcome(r, reference))
        .collect();
    let runs: [UnitRun; 5] = runs
        .try_into()
        .map_err(|_| bad("five unit runs expected".into()))?;
    let references: [Value; 5] = references
        .try_into()
        .map_err(|_| bad("five references expected".into()))?;
    let outcomes: [UnitOutcome; 5] = outcomes
        .try_into()
        .map_err(|_| bad("five unit outcomes expected".into()))?;
    Ok(DryItem {
        runs,
        references,
        outcomes,
    })
}

/// Judge a dry-experiment step-3 log (`log`) and write the step-4 log under the same file
/// name in `out_dir`, plus `judge_replies.json` ({idx: {"k": raw reply or null}}).
pub async fn run_dry(
    host: &dyn RunHost,
    options: &JudgeOptions,
    mut log: LogInput,
    out_dir: &Path,
) -> Result<JudgeSummary, RunError> {
    let name = log.name();
    let records = log.take_records(host)?;
    let mut items = Vec::with_capacity(records.len());
    let mut prompts = Vec::new();
    for (i, record) in records.iter().enumerate() {
        let item = match record {
            Value::Null => None,
            Value::Object(fields) => Some(dry_item(&name, i + 1, fields)?),
            _ => {
                return Err(RunError::Input(format!(
                    "{name}: record {}: expected an object or null",
                    i + 1
                )));
            }
        };
        if let (Some(item), Value::Object(fields)) = (&item, record) {
            for k in 0..5 {
                if item.outcomes[k] != UnitOutcome::NeedsJudge {
                    continue;
                }
                let shown = |v: &Value, what: &str| {
                    python_str(v).ok_or_else(|| {
                        RunError::Input(format!(
                            "{name}: record {} (idx {:?}): unit {k}: {what} is a list or dict, which scorebench does not render as Python would",
                            i + 1,
                            idx_text(fields)
                        ))
                    })
                };
                prompts.push(dry_prompt(
                    &shown(&item.references[k], "the reference output")?,
                    &shown(&item.runs[k].output, "`model_code_output`")?,
                ));
            }
        }
        items.push(item);
    }
    let out = log.out_path(host, out_dir)?;
    let replies = ask_all(host, options, prompts).await?;
    let mut replies = replies.into_iter();
    let mut summary = JudgeSummary {
        records: records.len(),
        ..JudgeSummary::default()
    };
    let mut raw = Map::new();
    let mut written = Vec::with_capacity(records.len());
    let mut totals: [Vec<f64>; 5] = Default::default();
    for (record, item) in records.into_iter().zip(items) {
        let (Value::Object(mut fields), Some(item)) = (record, item) else {
            written.push(Value::Null);
            continue;
        };
        let idx = idx_text(&fields);
        let mut units: Vec<Value> = fields
            .get("unit_test")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut item_raw = Map::new();
        let mut verdicts: [Value; 5] = Default::default();
        for (k, stored) in verdicts.iter_mut().enumerate() {
            let Some(Value::Object(unit)) = units.get_mut(k) else {
                continue;
            };
            let (exact, llm_judge, pass) = match &item.outcomes[k] {
                UnitOutcome::Decided { exact_match, pass } => {
                    let verdict = match (exact_match, pass) {
                        (true, _) => json!({"judgment": "correct", "reason": "Exact match."}),
                        _ => {
                            json!({"judgment": "incorrect", "reason": "There are problems running the completed code."})
                        }
                    };
                    (*exact_match, verdict, Some(*pass))
                }
                UnitOutcome::NeedsJudge => {
                    let reply = replies
                        .next()
                        .ok_or_else(|| RunError::Internal("judge replies out of step".into()))?;
                    summary.asked += 1;
                    item_raw.insert(k.to_string(), raw_reply(&reply));
                    let verdict = reply.text().map(dry_verdict_dict).unwrap_or(Value::Null);
                    let pass = dry::read_stored_verdict(&verdict).ok();
                    if verdict.is_null() {
                        summary.unreadable += 1;
                    }
                    (false, verdict, pass)
                }
            };
            unit.insert("exact_match".into(), json!(u8::from(exact)));
            unit.insert("llm_judge".into(), llm_judge.clone());
            if let Some(pass) = pass {
                unit.insert("pass".into(), json!(u8::from(pass)));
            }
            *stored = llm_judge;
        }
        if !item_raw.is_empty() {
            raw.insert(idx.clone(), Value::Object(item_raw));
        }
        let scored = dry::score_item(&item.runs, &item.references, |k| {
            dry::read_stored_verdict(&verdicts[k])
        });
        let units_len = units.len();
        if units_len > 0 {
            fields.insert("unit_test".into(), Value::Array(units));
        }
        if let Ok(s) = scored {
            let aet = if s.aet_s > 0.0 {
                json!(s.aet_s)
            } else {
                json!(-1)
            };
            fields.insert("pass_nums".into(), json!(s.pass_nums));
            fields.insert("PassAll@5".into(), json!(s.pass_all_5 as u8));
            fields.insert("PassAll@3".into(), json!(s.pass_all_3 as u8));
            fields.insert("PassAll@1".into(), json!(s.pass_all_1 as u8));
            fields.insert("AET".into(), aet);
            fields.insert("SER".into(), json!(s.ser));
            totals[0].push(s.pass_all_5);
            totals[1].push(s.pass_all_3);
            totals[2].push(s.pass_all_1);
            if s.aet_s > 0.0 {
                totals[3].push(s.aet_s);
            }
            totals[4].push(s.ser);
        }
        written.push(Value::Object(fields));
    }
    write_json(host, &out, &Value::Array(written))?;
    write_json(
        host,
        &out_dir.join("judge_replies.json"),
        &Value::Object(raw),
    )?;
    summary.metrics = dry::KEYS
        .iter()
        .zip(&totals)
        .map(|(k, v)| (*k, mean(v)))
        .collect();
    summary.log = out;
    Ok(summary)
}

const DRY_0: &str = concat!(
    "\n",
    "You are an expert in evaluating model output accuracy. Your task is to precisely determine whether the model output matches the reference output and provide a brief explanation.\n",
    "\n",
    "## Instructions\n",
    "1. Check all numerical values and ensure strict accuracy—every digit must match exactly. Any inconsistency should be considered incorrect.\n",
    "2. For training-related loss values or metrics, if the difference between model output and reference output loss or metric values is greater than 2%, consider it incorrect.\n",
    "3. The output should be a dictionary without any other text in the following format:\n",
    "example = {\n",
    "    \"judgment\": \"Placeholder, use 'correct' if outputs match, 'incorrect' otherwise\",\n",
    "    \"reason\": \"Brief explanation placeholder\"\n",
    "}\n",
    "\n",
    "## Reference Output\n",
);
const DRY_1: &str = concat!("\n", "\n", "## Model Output\n",);
const DRY_2: &str = "\n";

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    fn sha(text: &str) -> String {
        hex::encode(Sha256::digest(text.as_bytes()))
    }

    #[test]
    fn dry_prompt_is_the_official_text() {
        // Hash of the official f-string rendered by Python with these values.
        let p = dry_prompt("REF", "OUT");
        assert!(p.ends_with("## Reference Output\nREF\n\n## Model Output\nOUT\n"));
        assert_eq!(
            sha(&p),
            "4d96252fe6b0432bf05447e4bda6ec803f2a928c6e1ba152b60a1e725137b013"
        );
    }

    #[test]
    fn dry_verdicts_and_python_str() {
        assert_eq!(
            dry_verdict_dict("ok {'judgment': 'correct', 'reason': 'python dict'} done"),
            json!({"judgment": "correct", "reason": "python dict"})
        );
        assert_eq!(
            dry_verdict_dict("{\"judgment\": \"Correct\", \"reason\": \"c\"}"),
            json!({"judgment": "Correct", "reason": "c"})
        );
        assert_eq!(dry_verdict_dict("{\"judgment\": true}"), Value::Null);
        assert_eq!(dry_verdict_dict("no dict"), Value::Null);
        assert_eq!(python_str(&json!(null)).as_deref(), Some("None"));
        assert_eq!(python_str(&json!(2.0)).as_deref(), Some("2.0"));
        assert_eq!(python_str(&json!(3)).as_deref(), Some("3"));
        assert_eq!(python_str(&json!([1])), None);
    }
}
