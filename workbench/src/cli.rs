//! The command line a benchmark offers, `scorebench score <key> …`, as part of its adapter:
//! the arguments as data ([`Command`], [`Arg`]) and the function that reads the files they name
//! and scores them ([`Command::run`]), through a [`Host`] that opens files.
//!
//! ```text
//! adapter   Command { about, args, run }      (benchmarks/<key>/cli.rs)
//! server    clap from `args`, Host over the file system, prints the report
//! run       Values (what the user gave) + Host → Report | ScoreError
//! ```
//! Big inputs are read as streams ([`Host::open`] → [`Opened::read`]): metrics-core parses
//! them record by record, so a file is never held whole; small side files (a taxonomy, judge
//! replies) are [`Host::load`]ed. Only with the `cli` feature: the page's worker does not carry
//! it (the browser reads files its own way, through [`crate::scoring`]).

use std::path::{Path, PathBuf};

use serde::Serialize;

use metrics_core::{InputError, InputFile, Report, Text};

/// A benchmark's `score` subcommand.
#[derive(Serialize)]
pub struct Command {
    /// One line for `scorebench score --help`.
    pub about: &'static str,
    /// Its arguments, in the order `--help` lists them.
    pub args: &'static [Arg],
    /// Read the files the values name and score them.
    #[serde(skip)]
    pub run: fn(&Values, &dyn Host) -> Result<Report, ScoreError>,
}

/// One argument of a `score` subcommand.
#[derive(Debug, Serialize)]
pub struct Arg {
    /// Its id: `track2_scores` is the option `--track2-scores`, a positional's value name is
    /// the id in capitals (`<PRED>`).
    pub name: &'static str,
    /// The `--help` line.
    pub help: &'static str,
    pub kind: Kind,
    /// The value's name in usage lines (`--track2-scores <SCORES>`) when it is not the id's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_name: Option<&'static str>,
    /// Arguments it needs.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub requires: &'static [&'static str],
    /// Arguments it cannot be given with.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub conflicts: &'static [&'static str],
    /// Required unless all of these are given.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub required_unless_all: &'static [&'static str],
}

/// What an [`Arg`] takes.
#[derive(Debug, Serialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum Kind {
    /// A file path: positional (`FILE`) or an option (`--gold FILE`); `many` takes one or more.
    File {
        positional: bool,
        required: bool,
        many: bool,
    },
    /// One of `values` (name, help; an empty help shows the name alone), `default` unless given.
    Choice {
        values: &'static [(&'static str, &'static str)],
        default: &'static str,
    },
    /// A switch.
    Flag,
    /// Comma-separated numbers (`--labels 0,1,2`).
    Numbers,
}

impl Arg {
    /// An argument with no relations to others.
    pub const fn new(name: &'static str, help: &'static str, kind: Kind) -> Self {
        Self {
            name,
            help,
            kind,
            value_name: None,
            requires: &[],
            conflicts: &[],
            required_unless_all: &[],
        }
    }

    /// A positional file argument, required.
    pub const fn file(name: &'static str, help: &'static str) -> Self {
        Self::positional(name, help, false)
    }

    /// One or more positional files.
    pub const fn files(name: &'static str, help: &'static str) -> Self {
        Self::positional(name, help, true)
    }

    const fn positional(name: &'static str, help: &'static str, many: bool) -> Self {
        Self::new(
            name,
            help,
            Kind::File {
                positional: true,
                required: true,
                many,
            },
        )
    }

    /// An optional `--name FILE`.
    pub const fn option(name: &'static str, help: &'static str) -> Self {
        Self::new(
            name,
            help,
            Kind::File {
                positional: false,
                required: false,
                many: false,
            },
        )
    }

    /// A required `--name FILE`.
    pub const fn required_option(name: &'static str, help: &'static str) -> Self {
        Self::new(
            name,
            help,
            Kind::File {
                positional: false,
                required: true,
                many: false,
            },
        )
    }

    /// A `--name` switch.
    pub const fn flag(name: &'static str, help: &'static str) -> Self {
        Self::new(name, help, Kind::Flag)
    }

    /// `--variant`, one of the benchmark's variant names, `official` by default.
    pub const fn variant(
        help: &'static str,
        values: &'static [(&'static str, &'static str)],
    ) -> Self {
        Self::new(
            "variant",
            help,
            Kind::Choice {
                values,
                default: "official",
            },
        )
    }
}

/// What the user gave a subcommand, by argument id.
#[derive(Debug, Default)]
pub struct Values {
    values: Vec<(&'static str, Value)>,
    /// `score --samples`: keep what the per-record samples need.
    pub samples: bool,
}

/// The value of one argument.
#[derive(Debug)]
pub enum Value {
    Paths(Vec<PathBuf>),
    Choice(String),
    Flag(bool),
    Numbers(Vec<f64>),
}

impl Values {
    /// Values with `samples` set as given.
    pub fn new(samples: bool) -> Self {
        Self {
            values: Vec::new(),
            samples,
        }
    }

    /// Set argument `name`'s value.
    pub fn set(&mut self, name: &'static str, value: Value) {
        self.values.push((name, value));
    }

    fn get(&self, name: &str) -> Option<&Value> {
        self.values.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// The files given for `name` (none when it was not given).
    pub fn paths(&self, name: &str) -> &[PathBuf] {
        match self.get(name) {
            Some(Value::Paths(paths)) => paths,
            _ => &[],
        }
    }

    /// The one file given for `name`.
    pub fn path(&self, name: &str) -> Option<&Path> {
        self.paths(name).first().map(PathBuf::as_path)
    }

    /// The file given for a required argument (the parser has checked it is there).
    pub fn required(&self, name: &str) -> Result<&Path, ScoreError> {
        self.path(name)
            .ok_or_else(|| ScoreError::Usage(format!("missing <{}>", name.to_uppercase())))
    }

    /// The choice given for `name` (or its default).
    pub fn choice(&self, name: &str) -> &str {
        match self.get(name) {
            Some(Value::Choice(c)) => c,
            _ => "",
        }
    }

    /// Whether switch `name` was given.
    pub fn flag(&self, name: &str) -> bool {
        matches!(self.get(name), Some(Value::Flag(true)))
    }

    /// The numbers given for `name`.
    pub fn numbers(&self, name: &str) -> Option<&[f64]> {
        match self.get(name) {
            Some(Value::Numbers(n)) => Some(n),
            _ => None,
        }
    }
}

/// Why scoring stopped. Every variant is the user's input, so the CLI's exit status is 2.
#[derive(Debug, thiserror::Error)]
pub enum ScoreError {
    #[error("{}: {message}", path.display())]
    Io { path: PathBuf, message: String },
    #[error(transparent)]
    Input(#[from] InputError),
    #[error("{0}")]
    Usage(String),
}

/// Where a command runs: its files, a clock, a place for notes (the server: the file system,
/// `Instant`, stderr).
pub trait Host {
    /// A file opened to be read once as a stream: missing, a directory or over the size limit
    /// is an error here, before anything is parsed.
    fn open(&self, path: &Path) -> Result<Opened, ScoreError>;
    /// A small file read whole.
    fn load(&self, path: &Path) -> Result<Loaded, ScoreError>;
    /// Milliseconds since some fixed moment (for `--timing`).
    fn millis(&self) -> f64;
    /// A line for the user beside the report (stderr).
    fn note(&self, line: &str);
}

/// A file read into memory: its name as given (for messages and the report) and its bytes.
pub struct Loaded {
    pub name: String,
    pub bytes: Vec<u8>,
}

impl Loaded {
    /// The file's text; invalid UTF-8 is an input error naming the file.
    pub fn text(&self) -> Result<&str, ScoreError> {
        std::str::from_utf8(&self.bytes).map_err(|e| {
            ScoreError::Input(InputError::whole_file(
                &self.name,
                format!("not UTF-8 text: {e}"),
            ))
        })
    }

    /// The file's record in the report (name, SHA-256).
    pub fn input_file(&self) -> InputFile {
        InputFile::from_bytes(self.name.clone(), &self.bytes)
    }
}

/// A parser of a file's text, handed to [`Stream::read`].
pub type Parse<'p> = dyn for<'t> FnMut(&str, Text<'t>) -> Result<(), InputError> + 'p;

/// A file a [`Host`] opened, read once by a parser.
pub trait Stream {
    /// The path it was opened at.
    fn path(&self) -> PathBuf;
    /// Whether it can be read a second time (a regular file; a FIFO cannot).
    fn is_regular(&self) -> bool;
    /// Run `parse` over the file's text. The outer error is the file's own (read, limit and,
    /// for `text`, invalid UTF-8), the inner the parser's; as reading the whole file first,
    /// then checking it, then parsing would give them. `Ok(Ok(_))` is the file's record.
    fn read(
        self: Box<Self>,
        text: bool,
        parse: &mut Parse<'_>,
    ) -> Result<Result<InputFile, InputError>, ScoreError>;
}

/// A file opened by a [`Host`], with its name as given.
pub struct Opened {
    pub name: String,
    stream: Box<dyn Stream>,
}

impl Opened {
    pub fn new(name: String, stream: Box<dyn Stream>) -> Self {
        Self { name, stream }
    }

    /// The path it was opened at.
    pub fn path(&self) -> PathBuf {
        self.stream.path()
    }

    /// Whether it can be read a second time (a FIFO cannot).
    pub fn is_regular(&self) -> bool {
        self.stream.is_regular()
    }

    /// Parse the file's text; returns the parsed value and the file's record in the report.
    pub fn read<T>(
        self,
        parse: impl FnMut(&str, Text<'_>) -> Result<T, InputError>,
    ) -> Result<(T, InputFile), ScoreError> {
        Ok(self.read_apart(parse)??)
    }

    /// [`Opened::read`] with the file's own errors (the outer result) kept apart from the
    /// parser's (the inner one), for a caller that reads several files and reports any file's
    /// own error before a parser's, as loading them all first would.
    pub fn read_apart<T>(
        self,
        parse: impl FnMut(&str, Text<'_>) -> Result<T, InputError>,
    ) -> Result<Result<(T, InputFile), InputError>, ScoreError> {
        self.read_as(true, parse)
    }

    /// [`Opened::read`] for a file read as bytes (no UTF-8 check).
    pub fn read_bytes<T>(
        self,
        parse: impl FnMut(&str, Text<'_>) -> Result<T, InputError>,
    ) -> Result<(T, InputFile), ScoreError> {
        Ok(self.read_as(false, parse)??)
    }

    fn read_as<T>(
        self,
        text: bool,
        mut parse: impl FnMut(&str, Text<'_>) -> Result<T, InputError>,
    ) -> Result<Result<(T, InputFile), InputError>, ScoreError> {
        let name = self.name;
        let mut parsed = None;
        let read = self.stream.read(text, &mut |name, text| {
            parsed = Some(parse(name, text)?);
            Ok(())
        })?;
        Ok(read.and_then(|input| match parsed {
            Some(value) => Ok((value, input)),
            None => Err(InputError::whole_file(&name, "the file was not read")),
        }))
    }
}
