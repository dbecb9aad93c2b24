//! A run's inputs, described once: [`Param`] is at the same time a flag of `scorebench run`,
//! a field of the `POST /api/v1/runs` body and a field of the page's form; [`RunValues`] are
//! the values the server read from either, as a plan takes them.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use super::error::RunError;
use crate::wire::runs::{Field, FieldKind};

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
