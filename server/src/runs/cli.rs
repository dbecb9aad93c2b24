//! `scorebench run <benchmark> --config FILE …`: one run in the foreground, with a progress
//! line on the terminal (redrawn when stderr is a TTY, else a line every 10 seconds). The
//! subcommands are the run kinds of [`REGISTRY`], in its order.
//! Exit status: 0 done, 1 the run failed (upstream, files, or no score), 2 bad input.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{ArgMatches, Args, FromArgMatches};

use super::kind::{CliPlan, RunKind};
use super::progress::{Progress, RunError, RunState, new_run_id};
use super::registry::{self, REGISTRY};
use crate::cache::RunRecord;
use crate::config::Config;
use crate::gateway::Gateway;

/// `scorebench run <key> …`: the kind chosen and its parsed arguments, or `scorebench run
/// resume <ID>`.
#[derive(Debug)]
pub enum RunArgs {
    Kind {
        kind: &'static str,
        matches: ArgMatches,
    },
    Resume(ResumeArgs),
}

/// `scorebench run resume`.
#[derive(Args, Debug)]
pub struct ResumeArgs {
    /// The run's id, or its output folder (the newest unfinished run writing there)
    run: String,
    /// SQLite database holding the run and the reply cache
    #[arg(long, default_value = "data/scorebench.sqlite3")]
    db: PathBuf,
}

/// Not a benchmark: resumes a stopped run of any kind.
const RESUME: &str = "resume";

impl FromArgMatches for RunArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let (name, sub) = matches.subcommand().ok_or_else(|| {
            clap::Error::raw(
                clap::error::ErrorKind::MissingSubcommand,
                "a benchmark is required",
            )
        })?;
        if name == RESUME {
            return Ok(RunArgs::Resume(ResumeArgs::from_arg_matches(sub)?));
        }
        let kind = find(name)?;
        Ok(RunArgs::Kind {
            kind: kind.key(),
            matches: sub.clone(),
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = RunArgs::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Args for RunArgs {
    fn augment_args(command: clap::Command) -> clap::Command {
        REGISTRY
            .iter()
            .fold(command, |command, kind| {
                // The label after the arguments: an `Args` derive sets its own doc as `about`.
                let sub = kind.args(clap::Command::new(kind.key()));
                command.subcommand(sub.about(kind.label()).long_about(None))
            })
            .subcommand(
                ResumeArgs::augment_args(clap::Command::new(RESUME))
                    .about(
                        "Resume a run that stopped before it finished (interrupted, failed): same id, \
                         same folder; the cache answers every reply it already had",
                    )
                    .long_about(None),
            )
            .subcommand_required(true)
            .arg_required_else_help(true)
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        RunArgs::augment_args(command)
    }
}

fn find(key: &str) -> Result<&'static RunKind, clap::Error> {
    registry::find(key).ok_or_else(|| {
        clap::Error::raw(
            clap::error::ErrorKind::InvalidSubcommand,
            format!("unrecognized subcommand '{key}'"),
        )
    })
}

pub fn run(args: RunArgs) -> ExitCode {
    let Some(runtime) = crate::serve::start_runtime("error") else {
        return ExitCode::FAILURE;
    };
    match runtime.block_on(run_async(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(RunError::Input(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run_async(args: RunArgs) -> Result<(), RunError> {
    match args {
        RunArgs::Kind { kind, matches } => {
            let cwd = std::env::current_dir()
                .map(|d| d.display().to_string())
                .unwrap_or_default();
            // How to start this run again: `scorebench run resume <id>` re-reads these.
            let argv: Vec<String> = std::env::args().skip(2).collect();
            let request = serde_json::json!({"cwd": cwd, "args": argv}).to_string();
            execute(kind, &matches, None, request.into_bytes()).await
        }
        RunArgs::Resume(args) => resume(args).await,
    }
}

/// `scorebench run resume <id>`: the stored command line of a run that stopped, run again
/// under the same id from the same working folder.
async fn resume(args: ResumeArgs) -> Result<(), RunError> {
    let cache = crate::cache::Cache::open(&args.db)
        .map_err(|e| RunError::Internal(format!("{}: {e}", args.db.display())))?;
    let internal = |e: crate::cache::CacheError| RunError::Internal(e.to_string());
    let record = if crate::cache::is_run_id(&args.run) {
        cache.run(args.run.clone()).await.map_err(internal)?
    } else {
        let wanted = std::fs::canonicalize(&args.run).ok();
        cache
            .unfinished_cli_runs()
            .await
            .map_err(internal)?
            .into_iter()
            .find(|r| r.out_dir == args.run || (wanted.is_some() && stored_out_dir(r) == wanted))
    }
    .ok_or_else(|| {
        RunError::Input(format!(
            "no run {:?} to resume in {}",
            args.run,
            args.db.display()
        ))
    })?;
    drop(cache);
    let id = record.id.clone();
    if record.origin != "cli" {
        return Err(RunError::Input(format!(
            "run {id} was started over HTTP: resume it with POST /api/v1/runs/{id}/resume"
        )));
    }
    match RunState::parse(&record.state) {
        RunState::Finished => {
            return Err(RunError::Input(format!("run {id} has finished")));
        }
        RunState::Running | RunState::Paused => {
            return Err(RunError::Conflict(format!(
                "run {id} is running in another process"
            )));
        }
        _ => {}
    }
    let request = record.request.unwrap_or_default();
    let stored: serde_json::Value = serde_json::from_slice(&request)
        .map_err(|e| RunError::Internal(format!("run {id}: stored command line: {e}")))?;
    let (Some(cwd), Some(argv)) = (stored["cwd"].as_str(), stored["args"].as_array()) else {
        return Err(RunError::Internal(format!(
            "run {id}: no stored command line"
        )));
    };
    let argv: Vec<&str> = argv.iter().filter_map(|a| a.as_str()).collect();
    std::env::set_current_dir(cwd)
        .map_err(|e| RunError::Input(format!("run {id}: cannot enter {cwd}: {e}")))?;
    let command = RunArgs::augment_args(clap::Command::new("run"));
    let matches = command
        .try_get_matches_from(std::iter::once("run").chain(argv))
        .map_err(|e| RunError::Input(format!("run {id}: stored command line: {e}")))?;
    let RunArgs::Kind { kind, matches } = RunArgs::from_arg_matches(&matches)
        .map_err(|e| RunError::Input(format!("run {id}: stored command line: {e}")))?
    else {
        return Err(RunError::Internal(format!(
            "run {id}: stored command line resumes a run"
        )));
    };
    eprintln!("resuming run {id} ({kind}) in {cwd}");
    execute(kind, &matches, Some(id), request).await
}

/// A stored command-line run's output folder, absolute (relative ones are relative to the
/// folder it was started in).
fn stored_out_dir(record: &RunRecord) -> Option<PathBuf> {
    let request: serde_json::Value = serde_json::from_slice(record.request.as_deref()?).ok()?;
    let cwd = PathBuf::from(request["cwd"].as_str()?);
    std::fs::canonicalize(cwd.join(&record.out_dir)).ok()
}

/// Run one plan in the foreground under a new id (or `resumed`'s).
async fn execute(
    kind: &str,
    matches: &ArgMatches,
    resumed: Option<String>,
    request: Vec<u8>,
) -> Result<(), RunError> {
    let kind = find(kind).map_err(|e| RunError::Input(e.to_string()))?;
    let CliPlan {
        config,
        db,
        out,
        plan,
    } = kind.plan_from_args(matches)?;
    let mut plan = plan;
    let model = plan.model();
    let config = match config {
        Some(config) => Config::load(&config).map_err(|e| RunError::Input(e.to_string()))?,
        None => Config {
            upstreams: vec![],
            dry_exec: None,
        },
    };
    let gateway = Gateway::open(&config, &db).map_err(|e| RunError::Internal(format!("{e:#}")))?;
    let benchmark = kind.key();
    let id = resumed.unwrap_or_else(new_run_id);
    let _lock = gateway
        .cache
        .lock_run(&id)
        .map_err(|e| RunError::Internal(e.to_string()))?
        .ok_or_else(|| RunError::Conflict(format!("run {id} is running in another process")))?;
    let progress = Arc::new(Progress::new(
        id.clone(),
        benchmark,
        kind.files(),
        &model,
        out.clone(),
    ));
    let _ = gateway
        .cache
        .start_run(RunRecord {
            id: id.clone(),
            kind: benchmark.into(),
            model: model.clone(),
            state: "running".into(),
            out_dir: out.display().to_string(),
            origin: "cli".into(),
            request: Some(request),
            error: None,
        })
        .await;
    if let Err(e) = plan.load(&gateway, &progress, &out) {
        // Unreadable input: reported alone, before any progress.
        let _ = gateway
            .cache
            .set_run_state(id, "failed", Some(e.to_string()))
            .await;
        return Err(e);
    }
    let display = tokio::spawn(show_progress(progress.clone()));
    let outcome = plan.execute(&gateway, &out, progress.clone()).await;
    display.abort();
    let (state, error) = match &outcome {
        Ok(_) => ("finished", None),
        Err(e) => ("failed", Some(e.to_string())),
    };
    let _ = gateway.cache.set_run_state(id, state, error).await;
    let line = progress.line();
    if std::io::stderr().is_terminal() {
        eprintln!("\r\x1b[K{line}");
    } else {
        eprintln!("{line}");
    }
    let summary = outcome?;
    crate::output::write_stdout(&format!("{summary}\n"))
        .map_err(|e| RunError::io(std::path::Path::new("stdout"), e))
}

async fn show_progress(progress: Arc<Progress>) {
    let tty = std::io::stderr().is_terminal();
    let every = if tty {
        Duration::from_millis(250)
    } else {
        Duration::from_secs(10)
    };
    loop {
        tokio::time::sleep(every).await;
        if tty {
            eprint!("\r\x1b[K{}", progress.line());
        } else {
            eprintln!("{}", progress.line());
        }
    }
}
