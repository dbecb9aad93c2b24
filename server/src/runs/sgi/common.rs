//! What the SGI-Bench judge runs share: the judge options and arguments, reading the step log,
//! asking in order with `workers` at a time, and the summary.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use clap::Args;
use futures_util::StreamExt;
use serde_json::{Map, Value};

use crate::gateway::Gateway;
use crate::runs::judge::{self, JudgeReply};
use crate::runs::progress::{Progress, RunError};

/// Arguments of an SGI-Bench judge run.
#[derive(Args, Debug)]
pub struct JudgeCommon {
    /// The upstream configuration (TOML; see server/API.md)
    #[arg(long)]
    pub config: PathBuf,
    /// SQLite database holding the reply cache
    #[arg(long, default_value = "data/scorebench.sqlite3")]
    pub db: PathBuf,
    /// The official log the judge reads (deep research: step 1; dry: step 3)
    #[arg(long)]
    pub log: PathBuf,
    /// The judge model, as listed by an upstream (official: o4-mini)
    #[arg(long)]
    pub judge_model: String,
    /// Output folder (created): the judged log under the input's file name, judge_replies.json
    #[arg(long)]
    pub out: PathBuf,
    /// Concurrent judge calls
    #[arg(long, default_value_t = 8)]
    pub workers: usize,
    /// Judge temperature (official: 0); `--no-temperature` sends none
    #[arg(long, default_value_t = 0.0)]
    pub temperature: f64,
    #[arg(long)]
    pub no_temperature: bool,
}

impl JudgeCommon {
    pub fn options(&self) -> JudgeOptions {
        JudgeOptions {
            model: self.judge_model.clone(),
            workers: self.workers,
            temperature: (!self.no_temperature).then_some(self.temperature),
        }
    }
}

/// The line `scorebench run sgi-deep-research|sgi-dry` prints when done.
pub fn judge_summary(what: &str, s: &JudgeSummary) -> String {
    let metrics: Vec<String> = s
        .metrics
        .iter()
        .map(|(k, v)| match v {
            Some(v) => format!("{k} {v}"),
            None => format!("{k} null"),
        })
        .collect();
    format!(
        "{what}: {} records, {} judge calls, {} unreadable (llm_judge null); {}; log {}",
        s.records,
        s.asked,
        s.unreadable,
        metrics.join(", "),
        s.log.display()
    )
}

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
    pub(crate) fn check(&self) -> Result<(), RunError> {
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

pub(crate) fn parse_log(name: &str, text: &str) -> Result<Vec<Value>, RunError> {
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

pub(crate) fn idx_text(fields: &Map<String, Value>) -> String {
    match fields.get("idx") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

pub(crate) fn str_field<'a>(
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

pub(crate) fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Ask every prompt (in order), `workers` at a time, honouring pause; progress counts each.
pub(crate) async fn ask_all(
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

pub(crate) fn raw_reply(reply: &JudgeReply) -> Value {
    reply
        .text()
        .map(|t| Value::String(t.to_string()))
        .unwrap_or(Value::Null)
}

/// The log a judge run reads: a file named on the command line, or the records of a
/// `POST /api/v1/runs` body (then the judged log is written as `out_name`).
#[derive(Debug, Clone)]
pub enum LogInput {
    File(PathBuf),
    Records {
        records: Vec<Value>,
        out_name: &'static str,
    },
}

impl LogInput {
    /// The name messages give the log.
    pub fn name(&self) -> String {
        match self {
            LogInput::File(path) => path.display().to_string(),
            LogInput::Records { .. } => "log".into(),
        }
    }

    /// The log's records (a file is read and parsed here; request records are taken, so a
    /// second call gives none).
    pub fn take_records(&mut self) -> Result<Vec<Value>, RunError> {
        match self {
            LogInput::File(path) => {
                let name = path.display().to_string();
                let text = std::fs::read_to_string(&*path)
                    .map_err(|e| RunError::Input(format!("{name}: cannot read: {e}")))?;
                parse_log(&name, &text)
            }
            LogInput::Records { records, .. } => Ok(std::mem::take(records)),
        }
    }

    /// Where the judged log goes in `out_dir` (created): the input's file name, or `out_name`.
    pub fn out_path(&self, out_dir: &Path) -> Result<PathBuf, RunError> {
        match self {
            LogInput::File(path) => out_paths(path, out_dir),
            LogInput::Records { out_name, .. } => {
                std::fs::create_dir_all(out_dir).map_err(|e| RunError::io(out_dir, e))?;
                Ok(out_dir.join(out_name))
            }
        }
    }
}

/// The `POST /api/v1/runs` body of a deep-research or dry-experiment judge run (`benchmark`
/// aside): the log's records and how the judge is asked.
#[derive(serde::Deserialize)]
pub(crate) struct JudgeBody {
    pub log: Vec<Value>,
    pub judge_model: String,
    #[serde(default = "eight")]
    pub workers: usize,
    /// Absent: the official 0; `null`: none sent.
    #[serde(default = "zero")]
    pub temperature: Option<f64>,
}

fn eight() -> usize {
    8
}

fn zero() -> Option<f64> {
    Some(0.0)
}

impl JudgeBody {
    /// The judge options, checked (the judge model must be served, workers in range).
    pub(crate) fn options(&self, gateway: &Gateway) -> Result<JudgeOptions, RunError> {
        crate::runs::kind::check_served(gateway, &self.judge_model)?;
        crate::runs::kind::check_workers(self.workers)?;
        if self.log.is_empty() {
            return Err(RunError::Input("log: no records".into()));
        }
        Ok(JudgeOptions {
            model: self.judge_model.clone(),
            workers: self.workers,
            temperature: self.temperature,
        })
    }
}

pub(crate) fn out_paths(log_path: &Path, out_dir: &Path) -> Result<PathBuf, RunError> {
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
