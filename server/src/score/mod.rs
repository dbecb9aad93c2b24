//! `scorebench score <benchmark> …`: read files, hand their text to metrics-core, print the report.
//!
//! Each benchmark has one module here with its clap arguments and a `report(args)` function;
//! this file only dispatches and prints. Bad input exits with status 2, nothing on stdout and
//! a `file:line: message` on stderr. A report that cannot be written exits 1 saying why (141,
//! silently, when the reader closed the pipe).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{ArgMatches, Args, FromArgMatches};
use metrics_core::{InputError, InputFile, Report};

pub mod asap_aes;
pub mod eotgc;
pub mod imports;
pub mod msqa;
pub mod pairs;
pub mod sasbench;
pub mod sgibench;
pub mod table;

/// `scorebench score <key> …`: one subcommand per entry of [`COMMANDS`].
pub struct ScoreArgs {
    /// The subcommand (a benchmark key) and its own arguments.
    benchmark: (String, ArgMatches),
    /// Print the report as JSON (the contract in specs/report.md); same as `--format json`
    json: bool,
    format: Format,
    samples: bool,
}

/// The options every `score` subcommand takes.
#[derive(Args)]
struct CommonArgs {
    /// Print the report as JSON (the contract in specs/report.md); same as `--format json`
    #[arg(long, global = true)]
    json: bool,
    /// Output: a readable table, the JSON report, or the page's exports (csv, markdown, latex)
    #[arg(long, global = true, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Include per-record results (`samples`) in the JSON report
    #[arg(long, global = true)]
    samples: bool,
}

impl FromArgMatches for ScoreArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let common = CommonArgs::from_arg_matches(matches)?;
        let (name, sub) = matches.subcommand().ok_or_else(|| {
            clap::Error::raw(
                clap::error::ErrorKind::MissingSubcommand,
                "name a benchmark: scorebench score <benchmark> …",
            )
        })?;
        Ok(Self {
            benchmark: (name.to_string(), sub.clone()),
            json: common.json,
            format: common.format,
            samples: common.samples,
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Args for ScoreArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        COMMANDS
            .iter()
            .fold(CommonArgs::augment_args(cmd), |cmd, c| {
                cmd.subcommand(c.command())
            })
            .subcommand_required(true)
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Table,
    Json,
    Csv,
    Markdown,
    Latex,
}

/// A benchmark's `score` subcommand: its key (the benchmark's key in the workbench registry),
/// its clap arguments and how they become a report.
pub trait ScoreCommand: Sync {
    fn key(&self) -> &'static str;
    /// The subcommand with its arguments.
    fn command(&self) -> clap::Command;
    /// Read the files the arguments name and score them.
    fn report(&self, matches: &ArgMatches) -> Result<Report, ScoreError>;
}

/// A [`ScoreCommand`] from a clap `Args` type and the function that scores it.
pub struct Command<A> {
    pub key: &'static str,
    pub about: &'static str,
    pub run: fn(A) -> Result<Report, ScoreError>,
}

impl<A: Args + FromArgMatches> ScoreCommand for Command<A> {
    fn key(&self) -> &'static str {
        self.key
    }

    fn command(&self) -> clap::Command {
        A::augment_args(clap::Command::new(self.key).about(self.about))
    }

    fn report(&self, matches: &ArgMatches) -> Result<Report, ScoreError> {
        let args = A::from_arg_matches(matches).map_err(|e| ScoreError::Usage(e.to_string()))?;
        (self.run)(args)
    }
}

/// Every `score` subcommand, one line per benchmark (the workbench registry's keys; a test
/// checks both lists agree).
pub static COMMANDS: &[&dyn ScoreCommand] = &[
    &pairs::COMMAND,
    &sasbench::COMMAND,
    &eotgc::COMMAND,
    &msqa::COMMAND,
    &sgibench::WET,
    &sgibench::DRY,
    &sgibench::DEEP_RESEARCH,
    &sgibench::IDEA,
    &sgibench::REASONING,
    &sgibench::SGI_SCORE,
    &asap_aes::COMMAND,
    &imports::LM_EVAL,
    &imports::INSPECT,
    &imports::EVALSCOPE,
];

/// `scorebench benchmarks [--json]`.
#[derive(Args)]
pub struct BenchmarksArgs {
    /// Print the registry as JSON: [{key, label, metrics, variants, roles: [{key, label, shared}]}]
    #[arg(long)]
    json: bool,
}

/// Print what the registry holds.
pub fn list_benchmarks(args: &BenchmarksArgs) -> ExitCode {
    let listing = workbench::registry::listing();
    let text = if args.json {
        match serde_json::to_string_pretty(&listing) {
            Ok(text) => format!("{text}\n"),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        }
    } else {
        listing
            .iter()
            .map(|b| {
                let roles: Vec<&str> = b.roles.iter().map(|r| r.key).collect();
                format!(
                    "{:<18} {}\n{:<18} metrics: {}\n{:<18} variants: {}\n{:<18} files: {}\n",
                    b.key,
                    b.label,
                    "",
                    b.metrics.join(", "),
                    "",
                    b.variants.join(", "),
                    "",
                    roles.join(", ")
                )
            })
            .collect()
    };
    match crate::output::write_stdout(&text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => crate::output::write_failed(&e),
    }
}

/// Why scoring stopped. Every variant is the user's input, so the exit status is 2.
#[derive(Debug, thiserror::Error)]
pub enum ScoreError {
    #[error("{}: {message}", path.display())]
    Io { path: PathBuf, message: String },
    #[error(transparent)]
    Input(#[from] InputError),
    #[error("{0}")]
    Usage(String),
}

/// A file read into memory: its name as given (for messages and the report), bytes and text.
pub struct LoadedFile {
    pub name: String,
    pub bytes: Vec<u8>,
}

impl LoadedFile {
    /// The file's text; invalid UTF-8 is an input error naming the file.
    pub fn text(&self) -> Result<&str, ScoreError> {
        std::str::from_utf8(&self.bytes).map_err(|e| {
            ScoreError::Input(InputError::whole_file(
                &self.name,
                format!("not UTF-8 text: {e}"),
            ))
        })
    }

    pub fn input_file(&self) -> InputFile {
        InputFile::from_bytes(self.name.clone(), &self.bytes)
    }
}

pub use metrics_core::MAX_FILE_BYTES;

/// Read a file of at most [`MAX_FILE_BYTES`]. The limit is on the bytes read, not on the size
/// the file system reports: a FIFO, `/dev/zero` or a file that grows while it is read reports
/// a size of 0 and must not be read forever.
pub fn load(path: &Path) -> Result<LoadedFile, ScoreError> {
    load_with_limit(path, MAX_FILE_BYTES)
}

/// [`load`] with another limit (tests use a small one).
pub fn load_with_limit(path: &Path, max_bytes: u64) -> Result<LoadedFile, ScoreError> {
    use std::io::Read;
    let io = |message: String| ScoreError::Io {
        path: path.to_path_buf(),
        message,
    };
    let too_big = || {
        io(format!(
            "file is larger than the limit of {max_bytes} bytes"
        ))
    };
    let meta = std::fs::metadata(path).map_err(|e| io(describe_io(&e)))?;
    if meta.is_dir() {
        return Err(io("is a directory, expected a file".into()));
    }
    if meta.len() > max_bytes {
        return Err(io(format!(
            "file is {} bytes, the limit is {max_bytes} bytes",
            meta.len()
        )));
    }
    let file = std::fs::File::open(path).map_err(|e| io(describe_io(&e)))?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| io(describe_io(&e)))?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_big());
    }
    Ok(LoadedFile {
        name: path.display().to_string(),
        bytes,
    })
}

fn describe_io(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

pub fn run(args: ScoreArgs) -> ExitCode {
    let (key, matches) = &args.benchmark;
    let result = match COMMANDS.iter().find(|c| c.key() == key) {
        Some(command) => command.report(matches),
        None => Err(ScoreError::Usage(format!("no benchmark `{key}`"))),
    };
    match result {
        Ok(mut report) => {
            if !args.samples {
                report.samples = None;
            }
            let format = if args.json { Format::Json } else { args.format };
            // The exports are the page's: same view model, same text (the workbench crate).
            let view = || workbench::table(&report);
            let text = match format {
                Format::Json => format!("{}\n", report.to_json_pretty()),
                Format::Table => table::render(&report),
                Format::Csv => workbench::to_csv(&view()),
                Format::Markdown => workbench::to_markdown(&view()),
                Format::Latex => workbench::to_latex(&view()),
            };
            let written = crate::output::write_stdout(&text);
            for w in &report.warnings {
                let at = w.line.map(|l| format!(":{l}")).unwrap_or_default();
                eprintln!("warning: {}{at}: {}", w.path, w.message);
            }
            match written {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => crate::output::write_failed(&e),
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_registered_benchmark_has_one_score_command() {
        let mut commands: Vec<&str> = super::COMMANDS.iter().map(|c| c.key()).collect();
        commands.sort_unstable();
        let mut registered: Vec<&str> =
            workbench::registry::all().iter().map(|b| b.key()).collect();
        registered.sort_unstable();
        assert_eq!(commands, registered);
    }
}
