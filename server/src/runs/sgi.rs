//! SGI-Bench LLM judges, run through the gateway and its cache (judge calls count under role
//! `judge`), writing the logs the official scorers write so `scorebench score sgi-…` reads them.
//!
//! - Deep research (`task_1_deep_research/step_2_score.py`): one judge call per step-1 record
//!   with the official step-verification prompt; the reply is read by the official rule
//!   ([`read_step_list`]); the step-2 log adds `exact_match`, `llm_judge` and `step_level_acc`.
//! - Dry experiment (`task_3_dry_experiment/step_4_score.py`): one judge call per unit that needs
//!   a verdict ([`dry::unit_outcome`] = `NeedsJudge`) with the official output-comparison
//!   prompt; the step-4 log adds per unit `exact_match`, `llm_judge` ({judgment, reason}) and
//!   `pass`, per item `pass_nums`, `PassAll@5/3/1`, `AET`, `SER`.
//! - Idea generation (`task_2_idea_generation/step_2_score.py`): each judge model twice per
//!   step-1 record (dataset idea as A, then generated idea as A) with the official
//!   `get_evaluation_prompt_modified` prompt, temperature 0.1, up to 5 attempts per call until the
//!   reply has a verdict on every dimension; writes `judge_replies.json`, the shape
//!   `scorebench score sgi-idea --judge-replies` reads (which applies the vote gates).
//!
//! ```text
//! deep research: llm_judge = reply[first "[" ..= last "]"] (judge::cut_list) when it is a
//!                non-empty list of objects with "judge" and holds no JSON true/false/null
//!                (Python eval of the repaired text cannot read them), else null;
//!                step_level_acc = #(judge == "correct") / #entries, absent when llm_judge is null;
//!                exact_match = 1 if answer == model_answer or answer == model_answer_after_llm_paser
//! dry unit:      reply[first "{" ..= last "}"] read as a dict (dry::read_judge_reply);
//!                llm_judge = that dict, or null when the call failed or the reply is unreadable
//! ```
//!
//! Where the official run loses an item (a null judge: its `step_level_acc` is never assigned,
//! or `None["judgment"]`), scorebench keeps the item with `llm_judge: null` (and, for dry, no
//! `pass` and no item totals), which the scorers report per item instead of crashing. The raw
//! judge replies are also written (`judge_replies.json`, the `--judge-replies` shape for dry).

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures_util::StreamExt;
use metrics_core::sgibench::dry::{self, UnitOutcome, UnitRun};
use metrics_core::sgibench::{idea, idea_parse};
use serde_json::{Map, Value, json};

use super::judge::{self, JudgeReply};
use super::{Progress, RunError, write_json};
use crate::gateway::Gateway;

/// How the judge is asked.
#[derive(Debug, Clone)]
pub struct JudgeOptions {
    pub model: String,
    /// Concurrent judge calls.
    pub workers: usize,
    /// Official: 0. `None` sends no temperature (for models that refuse one).
    pub temperature: Option<f64>,
}

impl JudgeOptions {
    fn check(&self) -> Result<(), RunError> {
        if self.workers == 0 {
            return Err(RunError::Input("--workers must be at least 1".into()));
        }
        Ok(())
    }
}

/// What a judge run reports.
#[derive(Debug, Clone, Default)]
pub struct JudgeSummary {
    /// Records in the log (null records included).
    pub records: usize,
    /// Judge calls made (or answered from the cache).
    pub asked: usize,
    /// Judge calls that failed or whose reply could not be read.
    pub unreadable: usize,
    /// Headline means over the records the official summary would count (see each run).
    pub metrics: Vec<(&'static str, Option<f64>)>,
    /// The log written.
    pub log: std::path::PathBuf,
}

fn parse_log(name: &str, text: &str) -> Result<Vec<Value>, RunError> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(items)) => Ok(items),
        Ok(_) => Err(RunError::Input(format!(
            "{name}: expected a JSON array of records"
        ))),
        Err(e) => Err(RunError::Input(format!(
            "{name}: not valid JSON (line {}): {e}",
            e.line()
        ))),
    }
}

fn idx_text(fields: &Map<String, Value>) -> String {
    match fields.get("idx") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

fn str_field<'a>(
    name: &str,
    number: usize,
    fields: &'a Map<String, Value>,
    key: &str,
) -> Result<&'a str, RunError> {
    fields.get(key).and_then(Value::as_str).ok_or_else(|| {
        RunError::Input(format!(
            "{name}: record {number} (idx {:?}): `{key}` must be a string",
            idx_text(fields)
        ))
    })
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Ask every prompt (in order), `workers` at a time, honouring pause; progress counts each.
async fn ask_all(
    gateway: &Gateway,
    options: &JudgeOptions,
    prompts: Vec<String>,
    progress: &Arc<Progress>,
) -> Result<Vec<JudgeReply>, RunError> {
    progress
        .total
        .store(prompts.len() as u64, Ordering::Relaxed);
    let calls = prompts.into_iter().map(|prompt| {
        let progress = progress.clone();
        async move {
            progress.wait_if_paused().await;
            let before = progress.usage(crate::cache::Role::Judge).cache_hits;
            let reply = judge::ask(
                gateway,
                &progress,
                &options.model,
                options.temperature,
                &prompt,
                0,
            )
            .await?;
            if progress.usage(crate::cache::Role::Judge).cache_hits > before {
                progress.reused.fetch_add(1, Ordering::Relaxed);
            }
            if matches!(reply, JudgeReply::Failed(_)) {
                progress.failed.fetch_add(1, Ordering::Relaxed);
            }
            progress.done.fetch_add(1, Ordering::Relaxed);
            Ok::<JudgeReply, RunError>(reply)
        }
    });
    futures_util::stream::iter(calls)
        .buffered(options.workers)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect()
}

fn raw_reply(reply: &JudgeReply) -> Value {
    reply
        .text()
        .map(|t| Value::String(t.to_string()))
        .unwrap_or(Value::Null)
}

fn out_paths(log_path: &Path, out_dir: &Path) -> Result<std::path::PathBuf, RunError> {
    std::fs::create_dir_all(out_dir).map_err(|e| RunError::io(out_dir, e))?;
    let file = log_path
        .file_name()
        .ok_or_else(|| RunError::Input(format!("{}: not a file", log_path.display())))?;
    let out = out_dir.join(file);
    if out == log_path {
        return Err(RunError::Input(format!(
            "{}: --out would overwrite the input log; choose another folder",
            log_path.display()
        )));
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Deep research

/// The official deep-research judge prompt (`step_2_score.py`, `eval_model_output`).
pub fn deep_research_prompt(
    question: &str,
    steps: &[&str],
    answer: &str,
    with_thinking: &str,
    model_answer: &str,
) -> String {
    let mut p = String::with_capacity(DR_0.len() + DR_5.len() + 1024);
    p.push_str(DR_0);
    p.push_str(question);
    p.push_str(DR_1);
    p.push_str(&steps.join("\n"));
    p.push_str(DR_2);
    p.push_str(answer);
    p.push_str(DR_3);
    p.push_str(with_thinking);
    p.push_str(DR_4);
    p.push_str(model_answer);
    p.push_str(DR_5);
    p
}

fn has_json_literal(v: &Value) -> bool {
    match v {
        Value::Null | Value::Bool(_) => true,
        Value::Array(a) => a.iter().any(has_json_literal),
        Value::Object(o) => o.values().any(has_json_literal),
        _ => false,
    }
}

/// A deep-research judge reply read by the official rule (module doc): the list, or `None` where
/// the official `try` falls to `except` (no list, unreadable, empty, an entry without `judge`,
/// a JSON `true`/`false`/`null` inside).
pub fn read_step_list(reply: &str) -> Option<Vec<Value>> {
    let value = judge::cut_list(reply)?;
    if has_json_literal(&value) {
        return None;
    }
    let Value::Array(entries) = value else {
        return None;
    };
    let ok = !entries.is_empty()
        && entries
            .iter()
            .all(|e| e.as_object().is_some_and(|o| o.contains_key("judge")));
    ok.then_some(entries)
}

/// Step-level accuracy of a list from [`read_step_list`].
pub fn step_level_acc(entries: &[Value]) -> f64 {
    let correct = entries
        .iter()
        .filter(|e| e["judge"].as_str() == Some("correct"))
        .count();
    correct as f64 / entries.len() as f64
}

/// The prompt of one step-1 record.
fn deep_research_record_prompt(
    name: &str,
    number: usize,
    fields: &Map<String, Value>,
) -> Result<String, RunError> {
    let steps = match fields.get("steps") {
        Some(Value::Array(steps)) => steps
            .iter()
            .map(Value::as_str)
            .collect::<Option<Vec<&str>>>(),
        _ => None,
    }
    .ok_or_else(|| {
        RunError::Input(format!(
            "{name}: record {number} (idx {:?}): `steps` must be a list of strings",
            idx_text(fields)
        ))
    })?;
    Ok(deep_research_prompt(
        str_field(name, number, fields, "question")?,
        &steps,
        str_field(name, number, fields, "answer")?,
        str_field(name, number, fields, "model_answer_with_thinking")?,
        str_field(name, number, fields, "model_answer")?,
    ))
}

/// Judge a deep-research step-1 log (`log_path`) and write the step-2 log under the same file
/// name in `out_dir`, plus `judge_replies.json` ({idx: raw reply or null}).
pub async fn run_deep_research(
    gateway: &Gateway,
    options: &JudgeOptions,
    log_path: &Path,
    out_dir: &Path,
    progress: Arc<Progress>,
) -> Result<JudgeSummary, RunError> {
    options.check()?;
    let name = log_path.display().to_string();
    let text = std::fs::read_to_string(log_path)
        .map_err(|e| RunError::Input(format!("{name}: cannot read: {e}")))?;
    let records = parse_log(&name, &text)?;
    let mut prompts = Vec::new();
    for (i, record) in records.iter().enumerate() {
        match record {
            Value::Null => {}
            Value::Object(fields) => {
                str_field(&name, i + 1, fields, "model_answer_after_llm_paser")?;
                prompts.push(deep_research_record_prompt(&name, i + 1, fields)?);
            }
            _ => {
                return Err(RunError::Input(format!(
                    "{name}: record {}: expected an object or null",
                    i + 1
                )));
            }
        }
    }
    let out = out_paths(log_path, out_dir)?;
    let replies = ask_all(gateway, options, prompts, &progress).await?;
    let mut replies = replies.into_iter();
    let mut written = Vec::with_capacity(records.len());
    let mut raw = Map::new();
    let mut summary = JudgeSummary {
        records: records.len(),
        ..JudgeSummary::default()
    };
    let (mut em_values, mut sla_values) = (Vec::new(), Vec::new());
    for record in records {
        let Value::Object(mut fields) = record else {
            written.push(Value::Null);
            continue;
        };
        let reply = replies
            .next()
            .ok_or_else(|| RunError::Internal("judge replies out of step".into()))?;
        summary.asked += 1;
        let gold = fields.get("answer").cloned().unwrap_or(Value::Null);
        let em = gold == fields["model_answer"] || gold == fields["model_answer_after_llm_paser"];
        let em = u8::from(em);
        em_values.push(f64::from(em));
        let list = reply.text().and_then(read_step_list);
        fields.insert("exact_match".into(), json!(em));
        match list {
            Some(entries) => {
                let sla = step_level_acc(&entries);
                sla_values.push(sla);
                fields.insert("llm_judge".into(), Value::Array(entries));
                fields.insert("step_level_acc".into(), json!(sla));
            }
            None => {
                summary.unreadable += 1;
                fields.insert("llm_judge".into(), Value::Null);
            }
        }
        raw.insert(idx_text(&fields), raw_reply(&reply));
        written.push(Value::Object(fields));
    }
    write_json(&out, &Value::Array(written))?;
    write_json(&out_dir.join("judge_replies.json"), &Value::Object(raw))?;
    summary.metrics = vec![
        ("exact_match", mean(&em_values)),
        ("step_level_accuracy", mean(&sla_values)),
    ];
    summary.log = out;
    Ok(summary)
}

// ---------------------------------------------------------------------------------------------
// Dry experiment

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
            serde_json::from_str::<Value>(&judge::repair(cut))
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

/// Judge a dry-experiment step-3 log (`log_path`) and write the step-4 log under the same file
/// name in `out_dir`, plus `judge_replies.json` ({idx: {"k": raw reply or null}}).
pub async fn run_dry(
    gateway: &Gateway,
    options: &JudgeOptions,
    log_path: &Path,
    out_dir: &Path,
    progress: Arc<Progress>,
) -> Result<JudgeSummary, RunError> {
    options.check()?;
    let name = log_path.display().to_string();
    let text = std::fs::read_to_string(log_path)
        .map_err(|e| RunError::Input(format!("{name}: cannot read: {e}")))?;
    let records = parse_log(&name, &text)?;
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
    let out = out_paths(log_path, out_dir)?;
    let replies = ask_all(gateway, options, prompts, &progress).await?;
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
    write_json(&out, &Value::Array(written))?;
    write_json(&out_dir.join("judge_replies.json"), &Value::Object(raw))?;
    summary.metrics = dry::KEYS
        .iter()
        .zip(&totals)
        .map(|(k, v)| (*k, mean(v)))
        .collect();
    summary.log = out;
    Ok(summary)
}

// ---------------------------------------------------------------------------------------------
// Idea generation

/// How the idea-generation judges are asked.
#[derive(Debug, Clone)]
pub struct IdeaOptions {
    /// The judge models (official: three), each asked twice per item.
    pub judges: Vec<String>,
    /// Concurrent judge calls.
    pub workers: usize,
    /// Official: 0.1. `None` sends no temperature.
    pub temperature: Option<f64>,
}

/// Attempts per judge call (official `MAX_RETRIES`): a failed call or a reply without a verdict
/// on every dimension is asked again, attempt `k` with cache sample index `k`.
pub const IDEA_ATTEMPTS: u64 = 5;

/// What an idea-generation judge run reports.
#[derive(Debug, Clone, Default)]
pub struct IdeaSummary {
    /// Records in the log (null records included).
    pub records: usize,
    /// Records judged.
    pub judged: usize,
    /// Records not judged: (idx, why the official evaluator raises before its judges are asked).
    pub skipped: Vec<(String, String)>,
    /// Judge calls (item × judge × order), and the attempts they took (retries included).
    pub calls: usize,
    pub attempts: u64,
    /// Judge calls with no readable verdict after every attempt (the official vote is dropped).
    pub unreadable: usize,
    /// The replies file written.
    pub replies: std::path::PathBuf,
}

/// The official idea-comparison prompt (`utils.get_evaluation_prompt_modified`).
pub fn idea_prompt(hypothesis_a: &str, hypothesis_b: &str, context: &str) -> String {
    let mut p = String::with_capacity(
        IDEA_0.len() + IDEA_3.len() + hypothesis_a.len() + hypothesis_b.len() + context.len() + 64,
    );
    p.push_str(IDEA_0);
    if !context.is_empty() {
        p.push_str("Context:\n");
        p.push_str(context);
        p.push_str("\n\n");
    }
    p.push_str(IDEA_1);
    p.push_str(hypothesis_a);
    p.push_str(IDEA_2);
    p.push_str(hypothesis_b);
    p.push_str(IDEA_3);
    p
}

use metrics_core::python::{strip as py_strip, truthy as py_truthy};

/// `"{field}: {value}\n\n"` for each truthy field, stripped (`format_idea_data`,
/// `get_context_from_data`).
fn py_fields(data: &Map<String, Value>, fields: &[&str]) -> String {
    let mut text = String::new();
    for field in fields {
        if let Some(value) = data.get(*field).filter(|v| py_truthy(v)) {
            text.push_str(field);
            text.push_str(": ");
            text.push_str(&idea_parse::py_str(value));
            text.push_str("\n\n");
        }
    }
    py_strip(&text).to_string()
}

/// `utils.format_idea_data`.
pub fn format_idea(idea: &Map<String, Value>) -> String {
    py_fields(
        idea,
        &[
            "Idea",
            "ImplementationSteps",
            "ImplementationOrder",
            "Dataset",
            "EvaluationMetrics",
            "ExpectedOutcome",
        ],
    )
}

/// `utils.get_context_from_data` (of the step-1 record's own fields).
pub fn idea_context(record: &Map<String, Value>) -> String {
    py_fields(
        record,
        &[
            "related_work",
            "challenge",
            "limitation",
            "motivation",
            "task_objective",
            "existing_solutions",
        ],
    )
}

/// Python `list(value)`.
fn py_list(value: &Value) -> Result<Value, String> {
    match value {
        Value::Array(_) => Ok(value.clone()),
        Value::String(s) => Ok(Value::Array(
            s.chars().map(|c| Value::String(c.to_string())).collect(),
        )),
        Value::Object(o) => Ok(Value::Array(
            o.keys().map(|k| Value::String(k.clone())).collect(),
        )),
        other => Err(format!(
            "TypeError: {} object is not iterable",
            match other {
                Value::Null => "'NoneType'",
                Value::Bool(_) => "'bool'",
                _ => "a number",
            }
        )),
    }
}

/// The two prompts of one step-1 record, as `ImprovedIdeaEvaluator` builds them: `[original as
/// A, generated as B]` (swap=False) and `[generated as A, original as B]` (swap=True); or why the
/// official constructor raises (then no judge is asked).
///
/// Known difference: `ast.literal_eval` results are shown through JSON values, so a dataset
/// literal holding tuples, sets or non-string dict keys is shown as lists / string keys.
pub fn idea_record_prompts(record: &Map<String, Value>) -> Result<[String; 2], String> {
    let field = |key: &str, default: Value| record.get(key).cloned().unwrap_or(default);
    let eval = |key: &str, default: Value| {
        idea_parse::literal_eval(&field(key, default)).map_err(|e| format!("{key}: {}", e.0))
    };
    eval("related_work", json!({}))?;
    eval("existing_solutions", json!({}))?;
    let mut original = Map::new();
    original.insert("Idea".into(), field("core_idea", json!("")));
    original.insert(
        "ImplementationSteps".into(),
        eval("implementation_steps", json!("{}"))?,
    );
    original.insert(
        "ImplementationOrder".into(),
        py_list(&field("implementation_order", json!("[]")))
            .map_err(|e| format!("implementation_order: {e}"))?,
    );
    original.insert(
        "EvaluationMetrics".into(),
        eval("evaluation_metrics", json!("{}"))?,
    );
    original.insert("Dataset".into(), field("data", json!("")));
    original.insert(
        "ExpectedOutcome".into(),
        field("expected_outcome", json!("")),
    );
    let generated = match record.get("generated_data") {
        Some(Value::Object(g)) => g,
        Some(_) => return Err("`generated_data` is not a dict".into()),
        None => return Err("KeyError: 'generated_data'".into()),
    };
    let (original, generated) = (format_idea(&original), format_idea(generated));
    let context = idea_context(record);
    Ok([
        idea_prompt(&original, &generated, &context),
        idea_prompt(&generated, &original, &context),
    ])
}

/// The `--judge-replies` key of one call.
pub fn idea_reply_key(model: &str, swapped: bool) -> String {
    format!("{model}|swap={}", if swapped { "True" } else { "False" })
}

/// One judge call with the official retries: (last reply, attempts, whether it has a verdict).
async fn ask_idea_judge(
    gateway: &Gateway,
    progress: &Progress,
    model: &str,
    temperature: Option<f64>,
    prompt: &str,
) -> Result<(JudgeReply, u64, bool), RunError> {
    let mut last = JudgeReply::NoContent;
    for attempt in 0..IDEA_ATTEMPTS {
        let reply = judge::ask(gateway, progress, model, temperature, prompt, attempt).await?;
        let readable = reply
            .text()
            .is_some_and(|t| idea::parse_judge_reply(t).is_some());
        last = reply;
        if readable {
            return Ok((last, attempt + 1, true));
        }
    }
    Ok((last, IDEA_ATTEMPTS, false))
}

/// Ask each judge twice (both orders) about every step-1 record of an idea-generation log
/// (`log_path`) and write `judge_replies.json` in `out_dir`
/// ({idx: {"<model>|swap=False": reply or null, "<model>|swap=True": …}}, the
/// `scorebench score sgi-idea --judge-replies` shape).
pub async fn run_idea(
    gateway: &Gateway,
    options: &IdeaOptions,
    log_path: &Path,
    out_dir: &Path,
    progress: Arc<Progress>,
) -> Result<IdeaSummary, RunError> {
    if options.workers == 0 {
        return Err(RunError::Input("--workers must be at least 1".into()));
    }
    if options.judges.is_empty() {
        return Err(RunError::Input("give at least one judge model".into()));
    }
    for (i, model) in options.judges.iter().enumerate() {
        if model.trim().is_empty() || options.judges[..i].contains(model) {
            return Err(RunError::Input(format!(
                "judge models must be distinct and non-empty: {:?}",
                options.judges
            )));
        }
    }
    let name = log_path.display().to_string();
    let text = std::fs::read_to_string(log_path)
        .map_err(|e| RunError::Input(format!("{name}: cannot read: {e}")))?;
    let records = parse_log(&name, &text)?;
    let mut summary = IdeaSummary {
        records: records.len(),
        ..IdeaSummary::default()
    };
    let mut judged: Vec<(String, [String; 2])> = Vec::new();
    for (i, record) in records.iter().enumerate() {
        let fields = match record {
            Value::Null => continue,
            Value::Object(fields) => fields,
            _ => {
                return Err(RunError::Input(format!(
                    "{name}: record {}: expected an object or null",
                    i + 1
                )));
            }
        };
        let idx = idx_text(fields);
        match idea_record_prompts(fields) {
            Ok(prompts) => {
                if idx.is_empty() {
                    return Err(RunError::Input(format!(
                        "{name}: record {}: no `idx` (judge replies are keyed by idx)",
                        i + 1
                    )));
                }
                if judged.iter().any(|(seen, _)| *seen == idx) {
                    return Err(RunError::Input(format!(
                        "{name}: record {}: idx {idx:?} appears twice",
                        i + 1
                    )));
                }
                judged.push((idx, prompts));
            }
            Err(why) => summary.skipped.push((idx, why)),
        }
    }
    std::fs::create_dir_all(out_dir).map_err(|e| RunError::io(out_dir, e))?;
    let mut calls = Vec::new();
    for (item, (_, prompts)) in judged.iter().enumerate() {
        for model in &options.judges {
            for (swapped, prompt) in [(false, &prompts[0]), (true, &prompts[1])] {
                calls.push((item, model.as_str(), swapped, prompt.as_str()));
            }
        }
    }
    progress.total.store(calls.len() as u64, Ordering::Relaxed);
    let asks = calls.iter().map(|&(_, model, _, prompt)| {
        let progress = progress.clone();
        async move {
            progress.wait_if_paused().await;
            let before = progress.usage(crate::cache::Role::Judge).cache_hits;
            let asked =
                ask_idea_judge(gateway, &progress, model, options.temperature, prompt).await?;
            if progress.usage(crate::cache::Role::Judge).cache_hits > before {
                progress.reused.fetch_add(1, Ordering::Relaxed);
            }
            if !asked.2 {
                progress.failed.fetch_add(1, Ordering::Relaxed);
            }
            progress.done.fetch_add(1, Ordering::Relaxed);
            Ok::<_, RunError>(asked)
        }
    });
    let replies: Vec<(JudgeReply, u64, bool)> = futures_util::stream::iter(asks)
        .buffered(options.workers)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<Result<_, _>>()?;
    let mut raw: Vec<Map<String, Value>> = vec![Map::new(); judged.len()];
    for (&(item, model, swapped, _), (reply, attempts, readable)) in calls.iter().zip(&replies) {
        summary.calls += 1;
        summary.attempts += attempts;
        if !readable {
            summary.unreadable += 1;
        }
        raw[item].insert(idea_reply_key(model, swapped), raw_reply(reply));
    }
    summary.judged = judged.len();
    let out: Map<String, Value> = judged
        .into_iter()
        .zip(raw)
        .map(|((idx, _), replies)| (idx, Value::Object(replies)))
        .collect();
    summary.replies = out_dir.join("judge_replies.json");
    write_json(&summary.replies, &Value::Object(out))?;
    Ok(summary)
}

// ---------------------------------------------------------------------------------------------
// The official prompt texts (f-string literal parts, `{{`/`}}` already single), reproduced
// exactly: trailing double spaces included.

const DR_0: &str = concat!(
    "\n",
    "You are an expert in systematically validating and evaluating LLM-generated solutions. Your task is to rigorously analyze the correctness of a provided solution by comparing it step-by-step against the reference solution, and output **only** a structured verification list—with no additional text.\n",
    "\n",
    "## Instructions  \n",
    "1. Break down the given LLM solution into individual steps and evaluate each one against the corresponding reference solution steps.  \n",
    "2. For each step, include the following three components:  \n",
    "   - **solution_step**: The specific part of the LLM solution being evaluated.  \n",
    "   - **reason**: A clear, critical explanation of whether the step contains errors, omissions, or deviations from the reference approach. Be stringent in your assessment.  \n",
    "   - **judge**: Your verdict: either `\"correct\"` or `\"incorrect\"`.  \n",
    "3. If the final LLM answer is incorrect, you must identify at least one step in your analysis as incorrect.  \n",
    "4. Justify your judgments rigorously, pointing out even minor inaccuracies or logical flaws.  \n",
    "5. Do not attempt to answer the original question—your role is strictly to evaluate.  \n",
    "6. Output **only** a list of dictionaries in the exact format provided below. Do not include any other text or comments.\n",
    "\n",
    "## Question  \n",
);
const DR_1: &str = concat!("\n", "\n", "## Reference Solution Steps  \n",);
const DR_2: &str = concat!("\n", "\n", "## Reference Answer  \n",);
const DR_3: &str = concat!("\n", "\n", "## LLM Solution Steps\n",);
const DR_4: &str = concat!("\n", "\n", "## LLM Answer\n",);
const DR_5: &str = concat!(
    "\n",
    "\n",
    "## Output Example  \n",
    "[  \n",
    "    {\"solution_step\": \"step content\", \"reason\": \"reason of the judgement\", \"judge\": \"correct or incorrect\"},  \n",
    "    {\"solution_step\": \"step content\", \"reason\": \"reason of the judgement\", \"judge\": \"correct or incorrect\"},\n",
    "]\n",
);
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

// `utils.get_evaluation_prompt_modified`: before the context, after it, after A, after B.
const IDEA_0: &str = concat!(
    "\n",
    "You are assisting researchers tasked with comparing TWO research hypotheses (Hypothesis A and Hypothesis B).\n",
    "Your job is to evaluate both hypotheses across five separate dimensions defined below, and to choose a winner (either Hypothesis A or Hypothesis B) for each dimension. Ties are NOT allowed — you MUST pick one winner per dimension. Base your judgments on scientific principles and the provided context only.\n",
    "\n",
    "##Background context:\n",
);
const IDEA_1: &str = concat!("\n", "\n", "##Hypothesis A:\n",);
const IDEA_2: &str = concat!("\n", "\n", "##Hypothesis B:\n",);
const IDEA_3: &str = concat!(
    "\n",
    "\n",
    "##Definition of each dimension:\n",
    "###1) Effectiveness\n",
    "Which hypothesis is more likely to produce a successful experimental or empirical outcome in service of the stated research objective? Evaluate the likelihood that, if implemented using standard practices in the relevant discipline, the hypothesis will achieve the intended measurable result. Focus on mechanistic plausibility, causal logic, and whether the hypothesis addresses the core problem directly.\n",
    "\n",
    "###2)Novelty\n",
    "Novelty: Which hypothesis presents more innovative or original approaches? Compare the similarity between the idea and the related work and existing solutions in the background to assess its novelty. A lower similarity to the core idea indicates greater novelty.\n",
    "\n",
    "###3) Detailedness (Level of Specification)\n",
    "Which hypothesis provides clearer, more actionable, and more complete specification of mechanisms, assumptions, experimental steps, required variables, and dependencies? Detailedness rewards clarity that would enable a competent researcher to design an experiment or implementation with minimal ambiguity.\n",
    "\n",
    "###4) Feasibility\n",
    "Which hypothesis presents a more realistic and implementable solution given current technological constraints?\n",
    "\n",
    "###5) Overall\n",
    "Considering the overall aspects together but emphasizing conceptual coherence and scientific grounding, which hypothesis is superior overall? This is a synthesis judgment: prefer the hypothesis that is logically consistent, grounded in accepted principles, avoids critical unstated assumptions or contradictions, and is most defensible as a scientific proposition.\n",
    "\n",
    "Unified constraints:\n",
    "- Use only the provided context and widely accepted scientific principles in the relevant discipline. Do NOT invent facts external to the context unless they are broadly standard domain knowledge.\n",
    "- When a dimension explicitly says to ignore other factors (e.g., Novelty should ignore feasibility), strictly follow that guidance for that dimension. When evaluating a certain dimension, it should focus on this dimension itself and ignore the influence of other dimensions.\n",
    "- Be concise but specific: for each dimension provide a short judgment line (exact format below) plus 1–3 sentences of succinct reasoning grounded in the definitions above.\n",
    "- Format must match exactly (case-insensitive for \"Win A/Win B\") and include a reason after \"because\".\n",
    "\n",
    "\n",
    "##Output format (MUST FOLLOW EXACTLY)\n",
    "\n",
    "Format your response exactly as follows:\n",
    "Effectiveness: [Win A/Win B] because ...\n",
    "Novelty: [Win A/Win B] because ...\n",
    "Detailedness: [Win A/Win B] because ...\n",
    "Feasibility: [Win A/Win B] because ...\n",
    "Overall: [Win A/Win B] because ...\n",
);

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    fn sha(text: &str) -> String {
        hex::encode(Sha256::digest(text.as_bytes()))
    }

    #[test]
    fn prompts_are_the_official_texts() {
        // Hashes of the official f-strings rendered by Python with these values.
        let p = deep_research_prompt("Q?", &["s1", "s2"], "A", "W", "M");
        assert!(p.starts_with("\nYou are an expert in systematically validating"));
        assert!(p.contains("## Reference Solution Steps  \ns1\ns2\n\n## Reference Answer  \nA\n"));
        assert_eq!(
            sha(&p),
            "fedfcdec495ea22be90951858b19972e16abc9721446d6019363e8246ba8d847"
        );
        let p = dry_prompt("REF", "OUT");
        assert!(p.ends_with("## Reference Output\nREF\n\n## Model Output\nOUT\n"));
        assert_eq!(
            sha(&p),
            "4d96252fe6b0432bf05447e4bda6ec803f2a928c6e1ba152b60a1e725137b013"
        );
    }

    #[test]
    fn idea_prompt_is_the_official_text() {
        // Hashes of the official `get_evaluation_prompt_modified`, `format_idea_data` and
        // `get_context_from_data` rendered by Python with these values.
        let p = idea_prompt("HA", "HB", "CTX");
        assert!(p.contains("##Background context:\nContext:\nCTX\n\n\n\n##Hypothesis A:\nHA\n\n##Hypothesis B:\nHB\n\n##Definition"));
        assert_eq!(
            sha(&p),
            "d631d21fb4a69577f5d29346a774c3006b3da439d9f78d87c38d1c9536b8d75b"
        );
        assert_eq!(
            sha(&idea_prompt("HA", "HB", "")),
            "069ee38620a14fb909c48a625234dc7e95daf43b498369762a96acb771e5255a"
        );
        let idea = json!({"Idea": "I", "ImplementationSteps": {"1": "a", "2": "it's"},
            "ImplementationOrder": ["1-2"], "Dataset": "",
            "EvaluationMetrics": {"m": 1.5, "n": null, "t": true}, "ExpectedOutcome": "E"});
        let text = format_idea(idea.as_object().unwrap());
        assert!(text.starts_with("Idea: I\n\nImplementationSteps: {'1': 'a', '2': \"it's\"}\n\n"));
        assert_eq!(
            sha(&text),
            "34fd6e20002369df3cacaaaf5faed6ca51a849ca8ca646ebda18ee0964ca1517"
        );
        let record = json!({"related_work": "{'A': 'x'}", "challenge": "", "motivation": "M",
            "existing_solutions": "{}"});
        assert_eq!(
            sha(&idea_context(record.as_object().unwrap())),
            "ebdf0babbcfee4742e6819d5d4b28a52f21336ec424c953af8b6c38b36c08791"
        );
    }

    #[test]
    fn idea_records_that_the_official_constructor_rejects() {
        let base = json!({"idx": "I", "related_work": "{}", "existing_solutions": "{}",
            "implementation_steps": "{'1': 'a'}", "implementation_order": ["1"],
            "generated_data": {"Idea": "g"}});
        let with = |key: &str, value: Value| {
            let mut r = base.as_object().unwrap().clone();
            r.insert(key.into(), value);
            r
        };
        let [a, b] = idea_record_prompts(base.as_object().unwrap()).unwrap();
        assert!(a.contains("##Hypothesis A:\nImplementationSteps: {'1': 'a'}\n\nImplementationOrder: ['1']\n\n##Hypothesis B:\nIdea: g\n\n"));
        assert!(b.contains("##Hypothesis A:\nIdea: g\n\n##Hypothesis B:\nImplementationSteps"));
        let mut no_related = base.as_object().unwrap().clone();
        no_related.remove("related_work");
        assert!(
            idea_record_prompts(&no_related)
                .unwrap_err()
                .contains("malformed node")
        );
        assert!(idea_record_prompts(&with("implementation_order", Value::Null)).is_err());
        assert!(idea_record_prompts(&with("generated_data", json!("text"))).is_err());
        assert!(idea_record_prompts(&with("evaluation_metrics", json!("{'a': "))).is_err());
        // `list("1-2")` is its characters.
        let [a, _] = idea_record_prompts(&with("implementation_order", json!("1-2"))).unwrap();
        assert!(a.contains("ImplementationOrder: ['1', '-', '2']"));
        assert_eq!(idea_reply_key("m", true), "m|swap=True");
    }

    #[test]
    fn step_lists_read_as_the_official_try_block() {
        let ok = read_step_list("x [{\"judge\": \"correct\"}, {'judge': 'incorrect',}] y").unwrap();
        assert_eq!(step_level_acc(&ok), 0.5);
        assert_eq!(read_step_list("[]"), None, "ZeroDivisionError");
        assert_eq!(
            read_step_list("[{\"judge\": \"correct\", \"final\": true}]"),
            None
        );
        assert_eq!(read_step_list("[{'judge': 'correct', 'ok': True}]"), None);
        assert_eq!(read_step_list("[\"correct\"]"), None);
        assert_eq!(read_step_list("[{\"reason\": \"r\"}]"), None);
        assert_eq!(read_step_list("no list"), None);
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
