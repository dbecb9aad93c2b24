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

use super::kind::{CliPlan, REGISTRY, RunKind};
use super::{Progress, RunError, new_run_id};
use crate::config::Config;
use crate::gateway::Gateway;

/// `scorebench run <key> …`: the kind chosen and its parsed arguments.
#[derive(Debug)]
pub struct RunArgs {
    kind: &'static str,
    matches: ArgMatches,
}

impl FromArgMatches for RunArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let (name, sub) = matches.subcommand().ok_or_else(|| {
            clap::Error::raw(
                clap::error::ErrorKind::MissingSubcommand,
                "a benchmark is required",
            )
        })?;
        let kind = find(name)?;
        Ok(RunArgs {
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
            .subcommand_required(true)
            .arg_required_else_help(true)
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        RunArgs::augment_args(command)
    }
}

fn find(key: &str) -> Result<&'static dyn RunKind, clap::Error> {
    super::kind::find(key).ok_or_else(|| {
        clap::Error::raw(
            clap::error::ErrorKind::InvalidSubcommand,
            format!("unrecognized subcommand '{key}'"),
        )
    })
}

/// Arguments every model run takes.
#[derive(Args, Debug)]
pub struct Common {
    /// The upstream configuration (TOML; see server/API.md)
    #[arg(long)]
    pub config: PathBuf,
    /// SQLite database holding the reply cache (what makes a killed run resume for free)
    #[arg(long, default_value = "data/scorebench.sqlite3")]
    pub db: PathBuf,
    /// The model to run, as listed by an upstream
    #[arg(long)]
    pub model: String,
    /// The dataset file
    #[arg(long)]
    pub dataset: PathBuf,
    /// Output folder (created); an earlier run's files there are reused
    #[arg(long)]
    pub out: PathBuf,
    /// Concurrent requests
    #[arg(long, default_value_t = 8)]
    pub workers: usize,
    #[arg(long)]
    pub max_tokens: Option<u64>,
    #[arg(long)]
    pub temperature: Option<f64>,
    #[arg(long)]
    pub top_p: Option<f64>,
    /// Per-request timeout in seconds
    #[arg(long, default_value_t = 3600)]
    pub timeout: u64,
    /// Wait between the attempts of a failed request, in milliseconds
    #[arg(long, default_value_t = 10_000)]
    pub retry_wait_ms: u64,
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
    let kind = find(args.kind).map_err(|e| RunError::Input(e.to_string()))?;
    let CliPlan {
        config,
        db,
        out,
        plan,
    } = kind
        .plan_from_args(&args.matches)
        .map_err(|e| RunError::Input(e.to_string()))?;
    let mut plan = plan;
    let model = plan.model();
    let config = Config::load(&config).map_err(|e| RunError::Input(e.to_string()))?;
    let gateway = Gateway::open(&config, &db).map_err(|e| RunError::Internal(format!("{e:#}")))?;
    let benchmark = kind.key();
    let progress = Arc::new(Progress::new(new_run_id(), benchmark, &model, out.clone()));
    let _ = gateway
        .cache
        .save_run(
            progress.id.clone(),
            benchmark.into(),
            model.clone(),
            "running".into(),
            out.display().to_string(),
        )
        .await;
    if let Err(e) = plan.load(&out) {
        // Unreadable input: reported alone, before any progress.
        let _ = gateway
            .cache
            .save_run(
                progress.id.clone(),
                benchmark.into(),
                model.clone(),
                "failed".into(),
                out.display().to_string(),
            )
            .await;
        return Err(e);
    }
    let display = tokio::spawn(show_progress(progress.clone()));
    let outcome = plan.execute(&gateway, &out, progress.clone()).await;
    display.abort();
    let state = if outcome.is_ok() {
        "finished"
    } else {
        "failed"
    };
    let _ = gateway
        .cache
        .save_run(
            progress.id.clone(),
            benchmark.into(),
            model.clone(),
            state.into(),
            out.display().to_string(),
        )
        .await;
    let line = progress.line();
    if std::io::stderr().is_terminal() {
        eprintln!("\r\x1b[K{line}");
    } else {
        eprintln!("{line}");
    }
    let summary = outcome?;
    println!("{summary}");
    Ok(())
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
