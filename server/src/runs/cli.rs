//! `scorebench run <benchmark> --config FILE …`: one run in the foreground, with a progress
//! line on the terminal (redrawn when stderr is a TTY, else a line every 10 seconds).
//! Exit status: 0 done, 1 the run failed (upstream, files, or no score), 2 bad input.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::eotgc::{EotgcOptions, Track};
use super::msqa::MsqaOptions;
use super::sgi::{IdeaOptions, JudgeOptions};
use super::{Progress, RunError, new_run_id};
use crate::config::Config;
use crate::gateway::Gateway;

#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(subcommand)]
    benchmark: RunBenchmark,
}

/// Arguments every run takes.
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
    fn options(&self) -> JudgeOptions {
        JudgeOptions {
            model: self.judge_model.clone(),
            workers: self.workers,
            temperature: (!self.no_temperature).then_some(self.temperature),
        }
    }
}

/// Arguments of the SGI-Bench idea-generation judge run.
#[derive(Args, Debug)]
pub struct IdeaArgs {
    /// The upstream configuration (TOML; see server/API.md)
    #[arg(long)]
    pub config: PathBuf,
    /// SQLite database holding the reply cache
    #[arg(long, default_value = "data/scorebench.sqlite3")]
    pub db: PathBuf,
    /// The step-1 log (dataset rows with `generated_data`)
    #[arg(long)]
    pub log: PathBuf,
    /// The judge models, comma-separated (official: gpt-5.1-2025-11-13,gemini-3-pro-preview,anthropic/claude-sonnet-4.5)
    #[arg(long, value_delimiter = ',', required = true)]
    pub judge_models: Vec<String>,
    /// Output folder (created): judge_replies.json
    #[arg(long)]
    pub out: PathBuf,
    /// Concurrent judge calls
    #[arg(long, default_value_t = 8)]
    pub workers: usize,
    /// Judge temperature (official: 0.1); `--no-temperature` sends none
    #[arg(long, default_value_t = 0.1)]
    pub temperature: f64,
    #[arg(long)]
    pub no_temperature: bool,
}

#[derive(Subcommand, Debug)]
enum RunBenchmark {
    /// MSQA_Short, the official procedure: evaluation.json, score.json, subtasks.json
    Msqa {
        #[command(flatten)]
        common: Common,
        /// Samples per question (records in sample-major order)
        #[arg(long, default_value_t = 1)]
        n: u64,
        #[arg(long)]
        presence_penalty: Option<f64>,
        /// An earlier run's folder to resume from (default: --out itself)
        #[arg(long)]
        resume: Option<PathBuf>,
    },
    /// EOTGC: Track 1 levels or Track 2 comments, written as the shared task's submission file
    Eotgc {
        #[command(flatten)]
        common: Common,
        /// 1: relevance level per essay; 2: a comment of at most 250 characters
        #[arg(long)]
        track: u8,
    },
    /// SGI-Bench deep research: judge each step-1 record's steps, write the step-2 log
    SgiDeepResearch {
        #[command(flatten)]
        judge: JudgeCommon,
    },
    /// SGI-Bench dry experiment: judge the units that need a verdict, write the step-4 log
    SgiDry {
        #[command(flatten)]
        judge: JudgeCommon,
    },
    /// SGI-Bench idea generation: each judge votes twice per item (both orders), judge_replies.json
    SgiIdea {
        #[command(flatten)]
        idea: IdeaArgs,
    },
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

fn read(path: &std::path::Path) -> Result<String, RunError> {
    std::fs::read_to_string(path)
        .map_err(|e| RunError::Input(format!("{}: cannot read: {e}", path.display())))
}

async fn run_async(args: RunArgs) -> Result<(), RunError> {
    let (config_path, db, model, out) = match &args.benchmark {
        RunBenchmark::Msqa { common, .. } | RunBenchmark::Eotgc { common, .. } => (
            &common.config,
            &common.db,
            common.model.clone(),
            &common.out,
        ),
        RunBenchmark::SgiDeepResearch { judge } | RunBenchmark::SgiDry { judge } => (
            &judge.config,
            &judge.db,
            judge.judge_model.clone(),
            &judge.out,
        ),
        RunBenchmark::SgiIdea { idea } => (
            &idea.config,
            &idea.db,
            idea.judge_models.join(","),
            &idea.out,
        ),
    };
    let model = &model;
    let config = Config::load(config_path).map_err(|e| RunError::Input(e.to_string()))?;
    let gateway = Gateway::open(&config, db).map_err(|e| RunError::Internal(format!("{e:#}")))?;
    let benchmark = match &args.benchmark {
        RunBenchmark::Msqa { .. } => "msqa",
        RunBenchmark::Eotgc { .. } => "eotgc",
        RunBenchmark::SgiDeepResearch { .. } => "sgi-deep-research",
        RunBenchmark::SgiDry { .. } => "sgi-dry",
        RunBenchmark::SgiIdea { .. } => "sgi-idea",
    };
    let progress = Arc::new(Progress::new(new_run_id(), benchmark, model, out.clone()));
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
    let display = tokio::spawn(show_progress(progress.clone()));
    let outcome = match &args.benchmark {
        RunBenchmark::Msqa {
            common,
            n,
            presence_penalty,
            resume,
        } => {
            let rows = super::msqa::parse_dataset(
                &common.dataset.display().to_string(),
                &read(&common.dataset)?,
            )?;
            let previous = super::msqa::read_previous(resume.as_ref().unwrap_or(&common.out))?;
            let options = MsqaOptions {
                model: common.model.clone(),
                n: *n,
                workers: common.workers,
                max_tokens: common.max_tokens,
                temperature: common.temperature,
                top_p: common.top_p,
                presence_penalty: *presence_penalty,
                timeout_secs: common.timeout,
                attempts: 3,
                retry_wait_ms: common.retry_wait_ms,
            };
            super::msqa::run(
                &gateway,
                &options,
                rows,
                previous,
                &common.out,
                progress.clone(),
            )
            .await
            .map(|summary| {
                format!(
                    "MSQA_short: overall_score {} over {} records; files in {}",
                    summary.score["evaluation"]["overall_score"],
                    summary.tally.total,
                    common.out.display()
                )
            })
        }
        RunBenchmark::Eotgc { common, track } => {
            let track = Track::from_number(*track)?;
            let essays = super::eotgc::parse_essays(
                &common.dataset.display().to_string(),
                &read(&common.dataset)?,
            )?;
            let options = EotgcOptions {
                model: common.model.clone(),
                track,
                workers: common.workers,
                max_tokens: common.max_tokens,
                temperature: common.temperature,
                top_p: common.top_p,
                timeout_secs: common.timeout,
                attempts: 3,
                retry_wait_ms: common.retry_wait_ms,
            };
            super::eotgc::run(&gateway, &options, essays, &common.out, progress.clone())
                .await
                .map(|s| {
                    format!(
                        "EOTGC track {}: {} essays, {} without a usable answer; {}",
                        track.number(),
                        s.total,
                        s.unparsed,
                        common.out.join(track.file_name()).display()
                    )
                })
        }
        RunBenchmark::SgiDeepResearch { judge } => super::sgi::run_deep_research(
            &gateway,
            &judge.options(),
            &judge.log,
            &judge.out,
            progress.clone(),
        )
        .await
        .map(|s| judge_summary("SGI deep research", &s)),
        RunBenchmark::SgiDry { judge } => super::sgi::run_dry(
            &gateway,
            &judge.options(),
            &judge.log,
            &judge.out,
            progress.clone(),
        )
        .await
        .map(|s| judge_summary("SGI dry experiment", &s)),
        RunBenchmark::SgiIdea { idea } => super::sgi::run_idea(
            &gateway,
            &IdeaOptions {
                judges: idea.judge_models.clone(),
                workers: idea.workers,
                temperature: (!idea.no_temperature).then_some(idea.temperature),
            },
            &idea.log,
            &idea.out,
            progress.clone(),
        )
        .await
        .map(|s| idea_summary(&idea.log, &s)),
    };
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
    crate::output::write_stdout(&format!("{summary}\n"))
        .map_err(|e| RunError::io(std::path::Path::new("stdout"), e))
}

fn judge_summary(what: &str, s: &super::sgi::JudgeSummary) -> String {
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

fn idea_summary(log: &std::path::Path, s: &super::sgi::IdeaSummary) -> String {
    let skipped = if s.skipped.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = s
            .skipped
            .iter()
            .map(|(idx, why)| format!("{idx:?}: {why}"))
            .collect();
        format!(
            "; not judged (the official evaluator raises first): {}",
            list.join("; ")
        )
    };
    format!(
        "SGI idea generation: {} records, {} judged, {} judge calls ({} attempts), {} without a verdict after {} attempts{skipped}; replies {}\n\
         score with: scorebench score sgi-idea {} [--embeddings TABLE.json] --judge-replies {}",
        s.records,
        s.judged,
        s.calls,
        s.attempts,
        s.unreadable,
        super::sgi::IDEA_ATTEMPTS,
        s.replies.display(),
        log.display(),
        s.replies.display()
    )
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
