//! Runs: a benchmark's procedure that asks a model (or runs a model's code) and writes the
//! official files, described and planned here, executed by the server.
//!
//! ```text
//! RunSpec (in the benchmark's module, listed by its adapter's `runs()`)
//!   params ──▶ `scorebench run <key>` flags (server, clap)
//!          ──▶ the JSON body of POST /api/v1/runs (server, read field by field)
//!          ──▶ the page's form (GET /api/v1/runs/kinds) and `scorebench benchmarks --json`
//!   plan(RunValues) ──▶ RunPlan::execute(&dyn RunHost, out_dir)
//!                          asks models, reads inputs, writes files — only through the host
//! ```
//! A plan does no IO of its own (this crate does none): the server's one host asks the
//! configured upstreams through its cache, counts usage and progress, honours pause, and reads
//! and writes the files. So every run's rules (dataset → requests, reply → record, records →
//! the official files) live beside the benchmark's scoring and are tested natively.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use futures_util::future::BoxFuture;
use serde::Serialize;
use serde_json::Value;

use crate::wire::runs::{Field, FieldKind};

/// Why a run stopped (or could not be started, paused, resumed or cancelled).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    Input(String),
    /// The run is not in a state that allows this.
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("{0}")]
    Internal(String),
    /// The run finished but the official code would have crashed here (no score file).
    #[error("{0}")]
    NoScore(String),
}

impl RunError {
    pub fn io(path: &Path, e: impl std::fmt::Display) -> RunError {
        RunError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        }
    }
}

/// One kind of run: `scorebench run <key>`, `{"benchmark": key}`.
pub struct RunSpec {
    /// The name in `scorebench run <key>`, in `{"benchmark": key}` and in the run records.
    pub key: &'static str,
    /// One line for `scorebench run --help`.
    pub label: &'static str,
    /// The files a run writes into its output folder that a client may download (the only
    /// names `GET /api/v1/runs/{id}/files/{name}` serves).
    pub files: &'static [&'static str],
    /// Every input, in `--help` order: the one description the flags, the HTTP body and the
    /// page's form come from.
    pub params: &'static [Param],
    /// Started over HTTP by the page: which files it opens afterwards. `None`: command line
    /// only.
    pub page: Option<PageForm>,
    /// What executes it.
    pub executes: Executes,
    /// The plan of the values given (checked here; files are read when it executes).
    pub plan: fn(RunValues) -> Result<Box<dyn RunPlan>, RunError>,
}

impl std::fmt::Debug for RunSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunSpec").field("key", &self.key).finish()
    }
}

/// What a run needs from the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Executes {
    /// Models, through the upstreams of a configuration (`--config`, required).
    Models,
    /// The model's code, in the sandbox (over HTTP only when the server's config allows it; the
    /// server then gives the [`Param::server`] values itself).
    Code,
}

/// The page's side of a run started over HTTP.
#[derive(Debug, Clone, Copy)]
pub struct PageForm {
    /// Files of the finished run handed to the workbench, when the run has them.
    pub open: &'static [&'static str],
    /// Inputs (records or files params) handed to the workbench too.
    pub open_inputs: &'static [&'static str],
}

/// One input of a run.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// The key in the HTTP body and the id of the flag (`retry_wait_ms` is `--retry-wait-ms`).
    pub name: &'static str,
    /// The flag when it is not the name's (`timeout_secs` is `--timeout`).
    pub flag: Option<&'static str>,
    /// The value's name in usage lines, when it is not the flag's in capitals.
    pub value_name: Option<&'static str>,
    /// The `--help` line ("" for none).
    pub help: &'static str,
    pub kind: ParamKind,
    /// Where it is given.
    pub on: On,
    /// Its label in the page's form (English; the page translates known names); `None`: not
    /// in the form.
    pub label: Option<&'static str>,
    /// A run over HTTP takes this value from the server's configuration, never from the body.
    pub server: bool,
}

/// Where a [`Param`] is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum On {
    /// A flag and a body field.
    Both,
    /// A flag only (paths on this machine, switches of the command line).
    Cli,
    /// A body field only.
    Http,
}

/// What a [`Param`] takes.
#[derive(Debug, Clone, Copy)]
pub enum ParamKind {
    /// A path on this machine.
    Path {
        required: bool,
        default: Option<&'static str>,
    },
    /// Several paths (a repeatable flag).
    Paths,
    /// The records of a JSON array: a file on the command line, the array in a body.
    Records,
    /// A folder's text files: a folder on the command line, `[{"name", "text"}]` in a body.
    Files,
    /// A model an upstream serves.
    Model,
    /// Models an upstream serves: comma-separated on the command line, a list in a body.
    Models,
    /// A model an upstream serves, or none.
    OptionalModel,
    /// A line of text.
    Text,
    /// Several texts (a repeatable flag).
    Texts,
    /// A whole number, `default` unless given; a flag given without a value is `missing`.
    Count {
        default: u64,
        missing: Option<u64>,
        /// The values the page offers (a choice field); empty: any.
        choices: &'static [u64],
    },
    /// A whole number that may be left out.
    OptionalCount { required: bool },
    /// A whole number that must be given, one of `choices` (the page offers them, `shown`
    /// first; the plan refuses others).
    Pick { choices: &'static [u64], shown: u64 },
    /// A number: `default` unless given (`None`: none). In a body, `null` is none too.
    Number { default: Option<f64> },
    /// A switch of the command line; `default` in a body.
    Switch { default: bool },
}

impl Param {
    const fn of(name: &'static str, help: &'static str, kind: ParamKind, on: On) -> Param {
        Param {
            name,
            flag: None,
            value_name: None,
            help,
            kind,
            on,
            label: None,
            server: false,
        }
    }

    /// A flag and a body field.
    pub const fn new(name: &'static str, help: &'static str, kind: ParamKind) -> Param {
        Param::of(name, help, kind, On::Both)
    }

    /// A flag only.
    pub const fn cli(name: &'static str, help: &'static str, kind: ParamKind) -> Param {
        Param::of(name, help, kind, On::Cli)
    }

    /// A body field only.
    pub const fn http(name: &'static str, kind: ParamKind) -> Param {
        Param::of(name, "", kind, On::Http)
    }

    /// Shown in the page's form with `label`.
    pub const fn label(mut self, label: &'static str) -> Param {
        self.label = Some(label);
        self
    }

    /// Given on the command line as `--flag`.
    pub const fn flag(mut self, flag: &'static str) -> Param {
        self.flag = Some(flag);
        self
    }

    /// Shown in usage lines as `<NAME>`.
    pub const fn value_name(mut self, name: &'static str) -> Param {
        self.value_name = Some(name);
        self
    }

    /// Taken from the server's configuration over HTTP.
    pub const fn server(mut self) -> Param {
        self.server = true;
        self
    }

    /// The flag, without its dashes.
    pub fn long(&self) -> String {
        self.flag
            .map_or_else(|| self.name.replace('_', "-"), str::to_string)
    }

    /// Whether the body of a run over HTTP reads it.
    pub fn in_body(&self) -> bool {
        self.on != On::Cli && !self.server
    }

    /// Its field in the page's form, when it has a label.
    pub fn field(&self) -> Option<Field> {
        let label = self.label?;
        let (kind, required, default, choices): (FieldKind, bool, Option<i64>, &[u64]) = match self
            .kind
        {
            ParamKind::Records => (FieldKind::Records, true, None, &[]),
            ParamKind::Files => (FieldKind::Files, true, None, &[]),
            ParamKind::Model => (FieldKind::Model, true, None, &[]),
            ParamKind::Models => (FieldKind::Models, true, None, &[]),
            ParamKind::OptionalModel => (FieldKind::OptionalModel, false, None, &[]),
            ParamKind::Text => (FieldKind::Text, true, None, &[]),
            ParamKind::Count {
                default, choices, ..
            } if !choices.is_empty() => (FieldKind::Choice, false, Some(default as i64), choices),
            ParamKind::Count { default, .. } => {
                (FieldKind::Integer, false, Some(default as i64), &[])
            }
            ParamKind::OptionalCount { required } => (FieldKind::Integer, required, None, &[]),
            ParamKind::Pick { choices, shown } => {
                (FieldKind::Choice, true, Some(shown as i64), choices)
            }
            _ => return None,
        };
        Some(Field {
            name: self.name.into(),
            kind,
            label: label.into(),
            required,
            default,
            choices: choices.iter().map(|&c| c as i64).collect(),
        })
    }
}

/// The page's form of `params`: the fields with a label, in the order a person answers them —
/// which kind of run (a choice that must be made), on what (records, files), with whom
/// (models, a name), how (the rest), and `workers` last.
pub fn page_fields(params: &[Param]) -> Vec<Field> {
    let rank = |p: &Param| match p.kind {
        _ if p.name == WORKERS.name => 4,
        ParamKind::Pick { .. } => 0,
        ParamKind::Records | ParamKind::Files => 1,
        ParamKind::Model | ParamKind::Models | ParamKind::OptionalModel | ParamKind::Text => 2,
        _ => 3,
    };
    let mut shown: Vec<&Param> = params.iter().filter(|p| p.label.is_some()).collect();
    shown.sort_by_key(|p| rank(p));
    shown.into_iter().filter_map(Param::field).collect()
}

/// `workers`, as every model run takes it: concurrent requests, 8 unless given.
pub const WORKERS: Param = Param::new(
    "workers",
    "Concurrent requests",
    ParamKind::Count {
        default: 8,
        missing: None,
        choices: &[],
    },
)
.label("workers");

/// `--config`: the upstream configuration every model run reads.
pub const CONFIG: Param = Param::cli(
    "config",
    "The upstream configuration (TOML; see server/API.md)",
    ParamKind::Path {
        required: true,
        default: None,
    },
);

/// Where runs keep their records and the reply cache unless told.
pub const DEFAULT_DB: &str = "data/scorebench.sqlite3";

/// Most concurrent requests one run makes.
pub const MAX_WORKERS: usize = 4096;

/// `workers` of every run: between 1 and [`MAX_WORKERS`].
pub fn check_workers(workers: usize) -> Result<(), RunError> {
    if workers == 0 || workers > MAX_WORKERS {
        return Err(RunError::Input(format!(
            "workers must be between 1 and {MAX_WORKERS}"
        )));
    }
    Ok(())
}

/// The values of a run's params, from the command line or a body (the server reads both
/// against the [`RunSpec::params`]; a param not given holds its default).
#[derive(Debug, Clone, Default)]
pub struct RunValues {
    values: BTreeMap<&'static str, RunValue>,
    /// Whether they came from `POST /api/v1/runs`.
    pub over_http: bool,
}

/// One param's value.
#[derive(Debug, Clone, PartialEq)]
pub enum RunValue {
    /// Not given, with no default.
    Absent,
    Path(PathBuf),
    Paths(Vec<PathBuf>),
    Records(Vec<Value>),
    Files(Vec<NamedFile>),
    Text(String),
    Texts(Vec<String>),
    Count(u64),
    /// A number, or none (`null` in a body, no default).
    Number(Option<f64>),
    Switch(bool),
}

/// A text file sent in a request: `{"name": "7_Math_ShortAns.jsonl", "text": "…"}`.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, Serialize)]
pub struct NamedFile {
    pub name: String,
    pub text: String,
}

/// Records or files: from a path on this machine, or sent in the request.
#[derive(Debug, Clone)]
pub enum Input<T> {
    Path(PathBuf),
    Given(T),
}

impl RunValues {
    pub fn new(over_http: bool) -> Self {
        Self {
            values: BTreeMap::new(),
            over_http,
        }
    }

    pub fn set(&mut self, name: &'static str, value: RunValue) {
        self.values.insert(name, value);
    }

    pub fn get(&self, name: &str) -> &RunValue {
        self.values.get(name).unwrap_or(&RunValue::Absent)
    }

    fn wrong(name: &str, what: &str, value: &RunValue) -> RunError {
        RunError::Internal(format!(
            "run param {name}: expected {what}, holds {value:?}"
        ))
    }

    /// A path param (required ones are always there).
    pub fn path(&self, name: &str) -> Result<PathBuf, RunError> {
        self.optional_path(name)?
            .ok_or_else(|| Self::wrong(name, "a path", &RunValue::Absent))
    }

    pub fn optional_path(&self, name: &str) -> Result<Option<PathBuf>, RunError> {
        match self.get(name) {
            RunValue::Path(p) => Ok(Some(p.clone())),
            RunValue::Absent => Ok(None),
            other => Err(Self::wrong(name, "a path", other)),
        }
    }

    pub fn paths(&self, name: &str) -> Result<Vec<PathBuf>, RunError> {
        match self.get(name) {
            RunValue::Paths(p) => Ok(p.clone()),
            RunValue::Absent => Ok(Vec::new()),
            other => Err(Self::wrong(name, "paths", other)),
        }
    }

    pub fn text(&self, name: &str) -> Result<String, RunError> {
        self.optional_text(name)?
            .ok_or_else(|| Self::wrong(name, "a text", &RunValue::Absent))
    }

    pub fn optional_text(&self, name: &str) -> Result<Option<String>, RunError> {
        match self.get(name) {
            RunValue::Text(t) => Ok(Some(t.clone())),
            RunValue::Absent => Ok(None),
            other => Err(Self::wrong(name, "a text", other)),
        }
    }

    pub fn texts(&self, name: &str) -> Result<Vec<String>, RunError> {
        match self.get(name) {
            RunValue::Texts(t) => Ok(t.clone()),
            RunValue::Absent => Ok(Vec::new()),
            other => Err(Self::wrong(name, "texts", other)),
        }
    }

    pub fn count(&self, name: &str) -> Result<u64, RunError> {
        self.optional_count(name)?
            .ok_or_else(|| Self::wrong(name, "a count", &RunValue::Absent))
    }

    pub fn optional_count(&self, name: &str) -> Result<Option<u64>, RunError> {
        match self.get(name) {
            RunValue::Count(n) => Ok(Some(*n)),
            RunValue::Absent => Ok(None),
            other => Err(Self::wrong(name, "a count", other)),
        }
    }

    /// `workers`, checked.
    pub fn workers(&self) -> Result<usize, RunError> {
        let workers = usize::try_from(self.count("workers")?).unwrap_or(usize::MAX);
        check_workers(workers)?;
        Ok(workers)
    }

    pub fn number(&self, name: &str) -> Result<Option<f64>, RunError> {
        match self.get(name) {
            RunValue::Number(n) => Ok(*n),
            RunValue::Absent => Ok(None),
            other => Err(Self::wrong(name, "a number", other)),
        }
    }

    pub fn switch(&self, name: &str) -> Result<bool, RunError> {
        match self.get(name) {
            RunValue::Switch(b) => Ok(*b),
            RunValue::Absent => Ok(false),
            other => Err(Self::wrong(name, "a switch", other)),
        }
    }

    /// A records param: the file named on the command line, or the records sent.
    pub fn records(&self, name: &str) -> Result<Input<Vec<Value>>, RunError> {
        match self.get(name) {
            RunValue::Path(p) => Ok(Input::Path(p.clone())),
            RunValue::Records(r) => Ok(Input::Given(r.clone())),
            other => Err(Self::wrong(name, "records", other)),
        }
    }

    /// A files param: the folder named on the command line, or the files sent.
    pub fn files(&self, name: &str) -> Result<Input<Vec<NamedFile>>, RunError> {
        match self.get(name) {
            RunValue::Path(p) => Ok(Input::Path(p.clone())),
            RunValue::Files(f) => Ok(Input::Given(f.clone())),
            other => Err(Self::wrong(name, "files", other)),
        }
    }

    /// A number param with the command line's `--no-<name>` switch: none when it is given.
    pub fn number_unless(&self, name: &str, switch: &str) -> Result<Option<f64>, RunError> {
        if self.switch(switch)? {
            return Ok(None);
        }
        self.number(name)
    }
}

/// Work ready to run.
pub trait RunPlan: Send {
    /// The model asked (judge models joined by `,`), as the run records it.
    fn model(&self) -> String;
    /// The output folder of a command line that names none (`None`: `--out` is required).
    fn default_out(&self) -> Option<PathBuf> {
        None
    }
    /// Read the input files a command-line plan names (before the progress display starts; an
    /// error here is reported alone). Plans from HTTP bodies hold their input already.
    fn load(&mut self, _host: &dyn RunHost, _out_dir: &Path) -> Result<(), RunError> {
        Ok(())
    }
    /// Ask the model(s) through `host`, write the files into `out_dir`; the line the CLI prints
    /// when done.
    fn execute<'a>(
        self: Box<Self>,
        host: &'a dyn RunHost,
        out_dir: &'a Path,
    ) -> BoxFuture<'a, Result<String, RunError>>;
}

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
    fn log(&self, path: &Path) -> Result<Box<dyn LineLog>, RunError>;
    /// Run the model's code (runs that [`Executes::Code`]).
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

/// Runs model code in the server's sandbox (runs that [`Executes::Code`]).
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

/// The records of a records param: read and parsed from the file, or as sent (then named
/// `sent`).
pub fn read_records(
    host: &dyn RunHost,
    input: Input<Vec<Value>>,
    sent: &str,
    what: &str,
) -> Result<(String, Vec<Value>), RunError> {
    match input {
        Input::Path(path) => {
            let name = path.display().to_string();
            let values = parse_json_array(&name, &host.read(&path)?, what)?;
            Ok((name, values))
        }
        Input::Given(values) => Ok((sent.to_string(), values)),
    }
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

/// `--db` with its help line.
pub const fn db(help: &'static str) -> Param {
    Param::cli(
        "db",
        help,
        ParamKind::Path {
            required: false,
            default: Some(DEFAULT_DB),
        },
    )
}

/// `--model`/`model`: the model a run asks.
pub const MODEL: Param = Param::new(
    "model",
    "The model to run, as listed by an upstream",
    ParamKind::Model,
)
.label("model");

/// `--out`: the output folder (command line; a run over HTTP writes into its own folder).
pub const fn out(help: &'static str) -> Param {
    Param::cli(
        "out",
        help,
        ParamKind::Path {
            required: true,
            default: None,
        },
    )
}

/// `--max-tokens`, `--temperature`, `--top-p`: sent only when given.
pub const MAX_TOKENS: Param = Param::new(
    "max_tokens",
    "",
    ParamKind::OptionalCount { required: false },
);
pub const TEMPERATURE: Param = Param::new("temperature", "", ParamKind::Number { default: None });
pub const TOP_P: Param = Param::new("top_p", "", ParamKind::Number { default: None });

/// `--timeout` (`timeout_secs` in a body): seconds per request, `default` unless given.
pub const fn timeout(default: u64) -> Param {
    Param::new(
        "timeout_secs",
        "Per-request timeout in seconds",
        ParamKind::Count {
            default,
            missing: None,
            choices: &[],
        },
    )
    .flag("timeout")
    .value_name("TIMEOUT")
}

/// `--retry-wait-ms`: the wait between the attempts of a failed request.
pub const fn retry_wait(default: u64) -> Param {
    Param::new(
        "retry_wait_ms",
        "Wait between the attempts of a failed request, in milliseconds",
        ParamKind::Count {
            default,
            missing: None,
            choices: &[],
        },
    )
}
