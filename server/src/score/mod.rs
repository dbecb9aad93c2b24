//! `scorebench score <benchmark> …`: read files, hand their text to metrics-core, print the report.
//!
//! Big inputs are read as streams ([`open`] → [`OpenedFile::read`]): metrics-core parses them
//! line by line or element by element into typed records, so the file is never held whole
//! (`scripts/bench-memory.sh`); small side files (a taxonomy, judge replies) are [`load`]ed.
//!
//! Each benchmark's subcommand is its adapter's ([`workbench::Benchmark::command`]: the
//! arguments as data and the function that reads and scores the files); this module builds
//! clap from the registry, gives the command the file system ([`files::Disk`]) and prints. Bad input exits with status 2, nothing on stdout and
//! a `file:line: message` on stderr. A report that cannot be written exits 1 saying why (141,
//! silently, when the reader closed the pipe).

use std::process::ExitCode;

use clap::{ArgMatches, Args, FromArgMatches};

pub mod command;
pub mod files;
pub mod spec_file;
pub mod table;

pub use files::{
    Disk, LoadedFile, MAX_FILE_BYTES, Opened, ScoreError, load, load_with_limit, open,
    open_with_limit,
};

/// `scorebench score <key> …`: one subcommand per registered benchmark.
pub struct ScoreArgs {
    /// The subcommand (a benchmark key) and its own arguments, or a spec and its files.
    benchmark: Scorer,
    /// The `--samples` flag also reaches the benchmark's command (it keeps what samples need).
    /// Print the report as JSON (the contract in specs/report.md); same as `--format json`
    json: bool,
    format: Format,
    samples: bool,
}

/// The options every `score` subcommand takes.
/// What scores: a registered benchmark's subcommand, or a spec file (`--spec`).
enum Scorer {
    Builtin(String, ArgMatches),
    Spec {
        spec: std::path::PathBuf,
        files: Vec<std::path::PathBuf>,
        variant: String,
    },
}

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
        let spec = matches.get_one::<std::path::PathBuf>("spec").cloned();
        let benchmark = match (matches.subcommand(), spec) {
            (Some((name, _)), Some(_)) => {
                return Err(clap::Error::raw(
                    clap::error::ErrorKind::ArgumentConflict,
                    format!(
                        "--spec scores with a spec file: drop the benchmark `{name}`, or --spec\n"
                    ),
                ));
            }
            (Some((name, sub)), None) => Scorer::Builtin(name.to_string(), sub.clone()),
            (None, Some(spec)) => Scorer::Spec {
                spec,
                files: matches
                    .get_many::<std::path::PathBuf>("spec_files")
                    .map(|f| f.cloned().collect())
                    .unwrap_or_default(),
                variant: matches
                    .get_one::<String>("spec_variant")
                    .cloned()
                    .unwrap_or_else(|| "official".into()),
            },
            (None, None) => {
                return Err(clap::Error::raw(
                    clap::error::ErrorKind::MissingSubcommand,
                    "name a benchmark: scorebench score <benchmark> …, or a spec: scorebench score --spec FILE.toml FILE…\n",
                ));
            }
        };
        Ok(Self {
            benchmark,
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
        workbench::registry::all()
            .iter()
            .fold(CommonArgs::augment_args(cmd), |cmd, b| {
                cmd.subcommand(command::clap_command(b.key(), b.command()))
            })
            .arg(
                clap::Arg::new("spec")
                    .long("spec")
                    .value_name("FILE.toml")
                    .value_parser(clap::value_parser!(std::path::PathBuf))
                    .help("Score with a benchmark spec (docs/benchmark-spec.md) instead of a built-in benchmark: the files follow, one per file role of the spec"),
            )
            .arg(
                clap::Arg::new("spec_files")
                    .value_name("FILE")
                    .num_args(1..)
                    .requires("spec")
                    .value_parser(clap::value_parser!(std::path::PathBuf))
                    .help("With --spec: the files, one per role (matched to roles by their fields, else in the spec's order)"),
            )
            .arg(
                clap::Arg::new("spec_variant")
                    .long("variant")
                    .value_name("NAME")
                    .requires("spec")
                    .help("With --spec: `official` (default) or a variant the spec declares"),
            )
            .subcommand_required(false)
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

/// `scorebench benchmarks [--json]`.
#[derive(Args)]
pub struct BenchmarksArgs {
    /// Print the registry as JSON: [{key, label, metrics, more_metrics, variants, roles: [{key,
    /// label, shared}], command: {about, args: [{name, help, kind, …}]}, runs: [{key, label,
    /// files, over_http, form}]}]
    #[arg(long)]
    json: bool,
    /// Load a benchmark spec (docs/benchmark-spec.md) and list it with the built-in benchmarks
    /// (its entry carries `spec`: name, version, the file's SHA-256); repeatable
    #[arg(long, value_name = "FILE.toml")]
    spec: Vec<std::path::PathBuf>,
}

/// Print what the registry holds.
pub fn list_benchmarks(args: &BenchmarksArgs) -> ExitCode {
    for path in &args.spec {
        if let Err(e) = spec_file::load_registered(path) {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    }
    let listing = workbench::registry::listing();
    let text = if args.json {
        // The registry's listing, and the runs `scorebench run` and the page start for each.
        let described: Result<Vec<serde_json::Value>, serde_json::Error> = listing
            .iter()
            .map(|b| {
                let mut v = serde_json::to_value(b)?;
                if let Some(benchmark) = workbench::registry::get(b.key) {
                    v["command"] = serde_json::to_value(benchmark.command())?;
                }
                v["runs"] = serde_json::Value::Array(crate::runs::registry::runs_of(b.key));
                if let Some(spec) = workbench::registry::spec(b.key) {
                    v["spec"] = serde_json::json!({
                        "name": spec.spec.name,
                        "version": spec.spec.version,
                        "sha256": spec.sha256,
                        "lower_is_better": spec.spec.lower_is_better,
                    });
                }
                Ok(v)
            })
            .collect();
        match described.and_then(|d| serde_json::to_string_pretty(&d)) {
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
                let runs: Vec<String> = crate::runs::registry::runs_of(b.key)
                    .iter()
                    .filter_map(|r| r["key"].as_str().map(|k| format!("scorebench run {k}")))
                    .collect();
                let more = if b.more_metrics.is_empty() {
                    String::new()
                } else {
                    format!(" (and, in some reports, {})", b.more_metrics.join(", "))
                };
                let runs = if runs.is_empty() {
                    String::new()
                } else {
                    format!("{:<18} runs: {}\n", "", runs.join(", "))
                };
                format!(
                    "{:<18} {}\n{:<18} metrics: {}{more}\n{:<18} variants: {}\n{:<18} files: {}\n{runs}",
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

pub fn run(args: ScoreArgs) -> ExitCode {
    let result = match &args.benchmark {
        Scorer::Builtin(key, matches) => match workbench::registry::get(key) {
            Some(benchmark) => {
                let command = benchmark.command();
                (command.run)(
                    &command::values(command, matches, args.samples),
                    &files::Disk::new(),
                )
            }
            None => Err(ScoreError::Usage(format!("no benchmark `{key}`"))),
        },
        Scorer::Spec {
            spec,
            files,
            variant,
        } => spec_file::load_registered(spec)
            .and_then(|loaded| spec_file::score(spec, &loaded.spec, files, variant, args.samples)),
    };
    match result {
        Ok(mut report) => {
            if !args.samples {
                report.samples = None;
            }
            let format = if args.json { Format::Json } else { args.format };
            // The exports are the page's: same view model, same text (the workbench crate).
            let view = || workbench::table(&report);
            let written = match format {
                Format::Json => crate::output::write_json_stdout(&report),
                Format::Table => crate::output::write_stdout(&table::render(&report)),
                Format::Csv => crate::output::write_stdout(&workbench::to_csv(&view())),
                Format::Markdown => crate::output::write_stdout(&workbench::to_markdown(&view())),
                Format::Latex => crate::output::write_stdout(&workbench::to_latex(&view())),
            };
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
