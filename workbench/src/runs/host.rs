//! What a plan executes through: [`RunHost`] (models, progress, pause, files) and [`CodeHost`]
//! (model code in a sandbox), both the server's, and the helpers every plan shares on top of
//! them (asking with the official runners' attempts, writing JSON, reading records).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use futures_util::future::BoxFuture;
use serde::Serialize;
use serde_json::Value;

use super::error::RunError;

/// The API a request goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    ChatCompletions,
    Embeddings,
}

/// Whose tokens a request spends (reported apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spender {
    Model,
    Judge,
}

/// One request to a model.
#[derive(Debug, Clone)]
pub struct Request {
    pub endpoint: Endpoint,
    /// The OpenAI-style body, `model` included.
    pub body: Value,
    /// Which sample of the same body this is (the cache keeps each).
    pub sample: u64,
    /// Whether a cached reply answers it.
    pub use_cache: bool,
    /// `Some(seconds)`: one attempt with this timeout (the plan retries itself); `None`: the
    /// upstream's own retry policy.
    pub single_attempt: Option<u64>,
    pub spender: Spender,
}

/// A model's reply.
#[derive(Debug, Clone)]
pub struct Answer {
    pub json: Value,
    /// Whether the cache answered.
    pub cached: bool,
}

/// Why a request has no reply (calls that reached the upstream are counted already).
#[derive(Debug, Clone, thiserror::Error)]
pub enum AskError {
    /// No upstream serves the model.
    #[error("{0}")]
    UnknownModel(String),
    /// The reply cache failed.
    #[error("{0}")]
    Cache(String),
    /// The upstream failed or answered what `accept` refused, after its retries.
    #[error("{0}")]
    Failed(String),
}

/// A reply's check: what a request accepts (a refused reply is not cached).
pub type Accept<'a> = &'a (dyn Fn(&Value) -> Result<(), String> + Sync);

/// How many items a run has and how they went (what its progress shows).
#[derive(Debug, Default)]
pub struct Counters {
    pub total: AtomicU64,
    pub done: AtomicU64,
    /// Answered from an earlier run's files or the cache.
    pub reused: AtomicU64,
    /// Ended without a usable answer.
    pub failed: AtomicU64,
}

impl Counters {
    /// One item finished.
    pub fn finished(&self, reused: bool, failed: bool) {
        if reused {
            self.reused.fetch_add(1, Ordering::Relaxed);
        }
        if failed {
            self.failed.fetch_add(1, Ordering::Relaxed);
        }
        self.done.fetch_add(1, Ordering::Relaxed);
    }

    pub fn set_total(&self, total: u64) {
        self.total.store(total, Ordering::Relaxed);
    }
}

/// What a plan executes through: the server's models, progress and files.
pub trait RunHost: Sync {
    /// Ask a model; its usage is counted (to the run and its spender) before this returns.
    fn ask<'a>(
        &'a self,
        request: Request,
        accept: Accept<'a>,
    ) -> BoxFuture<'a, Result<Answer, AskError>>;
    /// The name of the upstream serving `model` (never its URL); `None` when none does.
    fn upstream_name(&self, model: &str) -> Option<String>;
    /// The run's counters.
    fn counters(&self) -> &Counters;
    /// Resolves when the run is not paused.
    fn unpaused(&self) -> BoxFuture<'_, ()>;
    /// Resolves after `ms` milliseconds.
    fn sleep(&self, ms: u64) -> BoxFuture<'_, ()>;
    /// A warning for the server's log.
    fn warn(&self, message: &str);
    /// A text file, whole; unreadable is an input error naming it.
    fn read(&self, path: &Path) -> Result<String, RunError>;
    /// Whether `path` is a file.
    fn is_file(&self, path: &Path) -> bool;
    /// The names of the files in a folder, sorted.
    fn list(&self, dir: &Path) -> Result<Vec<String>, RunError>;
    /// Create a folder and its parents.
    fn create_dir_all(&self, path: &Path) -> Result<(), RunError>;
    /// Write a file (replacing it) through `body`.
    fn write(
        &self,
        path: &Path,
        body: &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> Result<(), RunError>;
    /// Replace a file whole: written beside it, then renamed over it (a reader never sees half
    /// of it).
    fn replace(&self, path: &Path, bytes: &[u8]) -> Result<(), RunError>;
    /// Milliseconds since some fixed moment (for pacing writes).
    fn millis(&self) -> f64;
    /// A new append-only log at `path`, each line flushed (what a killed run leaves).
    fn log(&self, path: &Path) -> Result<Box<dyn LineLog + '_>, RunError>;
    /// Run the model's code (runs that [`super::Executes::Code`]).
    fn code(&self) -> Option<&dyn CodeHost> {
        None
    }
}

/// An append-only log.
pub trait LineLog: Send + Sync {
    /// Append one line (a newline is added).
    fn line(&self, line: &str) -> Result<(), RunError>;
}

impl dyn LineLog + '_ {
    /// Append `value` as one JSON line.
    pub fn append(&self, value: &impl Serialize) -> Result<(), RunError> {
        let line = serde_json::to_string(value).map_err(|e| RunError::Internal(e.to_string()))?;
        self.line(&line)
    }
}

/// Runs model code in the server's sandbox (runs that [`super::Executes::Code`]).
pub trait CodeHost: Sync {
    /// Run `job`: how it ended, or the exception the official runner records instead (the
    /// folder missing, the launcher failing), as Python's `str(e)`.
    fn run<'a>(&'a self, job: CodeJob) -> BoxFuture<'a, Result<CodeOutcome, String>>;
    /// The wall-clock limit of a job, in seconds.
    fn timeout_s(&self) -> u64;
}

/// One job: `python <script>` in a copy of `folder`, with `files` written into the copy.
#[derive(Debug, Clone)]
pub struct CodeJob {
    pub folder: PathBuf,
    pub files: Vec<(String, Vec<u8>)>,
    pub script: String,
}

/// How a job ended.
#[derive(Debug, Clone, PartialEq)]
pub enum CodeOutcome {
    /// The interpreter exited: `returncode` as Python's `subprocess` reports it (negative: the
    /// signal that killed it).
    Exited {
        returncode: i64,
        stdout: Vec<u8>,
        stderr: Vec<u8>,
        elapsed_s: f64,
    },
    /// Killed at the wall-clock limit.
    TimedOut { elapsed_s: f64 },
}

/// Write `value` as pretty JSON (the official files' `json.dump(indent=…)` shape is each
/// run's own; this is serde_json's pretty form).
pub fn write_json(host: &dyn RunHost, path: &Path, value: &impl Serialize) -> Result<(), RunError> {
    host.write(path, &mut |out| {
        let mut out = std::io::BufWriter::new(out);
        serde_json::to_writer_pretty(&mut out, value).map_err(std::io::Error::other)?;
        std::io::Write::flush(&mut out)
    })
}

/// A dataset file that must be a JSON array (a UTF-8 BOM is allowed); an error names the file,
/// the line and `what` the array should hold.
pub fn parse_json_array(file: &str, text: &str, what: &str) -> Result<Vec<Value>, RunError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    serde_json::from_str(text).map_err(|e| {
        RunError::Input(format!(
            "{file}:{}: expected a JSON array of {what}: {e}",
            e.line()
        ))
    })
}

/// The first choice of a chat completion: its message and finish reason.
pub fn first_choice(reply: &Value) -> Result<(&Value, Option<&str>), String> {
    let choice = reply["choices"]
        .get(0)
        .ok_or_else(|| "the reply has no choices[0]".to_string())?;
    Ok((&choice["message"], choice["finish_reason"].as_str()))
}

/// How a model run retries a request itself (the official runners' loops): `attempts` tries of
/// one call each, the cache asked on the first only, `wait_ms` between them.
#[derive(Debug, Clone, Copy)]
pub struct Attempts {
    pub attempts: u32,
    pub timeout_secs: u64,
    pub wait_ms: u64,
}

/// Ask a chat completion under `attempts`: the accepted answer, or `None` after the last failed
/// attempt (each failure is logged as a warning naming `what`). Only a cache failure is an
/// error.
pub async fn ask_with_attempts(
    host: &dyn RunHost,
    body: &Value,
    sample: u64,
    attempts: Attempts,
    accept: Accept<'_>,
    what: &str,
) -> Result<Option<Answer>, RunError> {
    for attempt in 1..=attempts.attempts.max(1) {
        let request = Request {
            endpoint: Endpoint::ChatCompletions,
            body: body.clone(),
            sample,
            use_cache: attempt == 1,
            single_attempt: Some(attempts.timeout_secs),
            spender: Spender::Model,
        };
        match host.ask(request, accept).await {
            Ok(answer) => return Ok(Some(answer)),
            Err(AskError::Cache(e)) => return Err(RunError::Internal(e)),
            Err(e) => {
                host.warn(&format!("{what}: attempt {attempt} failed: {e}"));
                if attempt < attempts.attempts && attempts.wait_ms > 0 {
                    host.sleep(attempts.wait_ms).await;
                }
            }
        }
    }
    Ok(None)
}

/// A chat body: `model`, one user message, and the sampling options that are set, in this
/// order.
pub fn chat_body(model: &str, prompt: &str, options: &[(&str, Option<Value>)]) -> Value {
    let mut body = serde_json::json!({
        "model": model,
        "messages": [{"role": "user", "content": prompt}],
    });
    if let Some(map) = body.as_object_mut() {
        for (name, value) in options {
            if let Some(v) = value {
                map.insert((*name).to_string(), v.clone());
            }
        }
    }
    body
}
