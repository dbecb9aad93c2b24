//! `scorebench score lm-eval|inspect|evalscope FILE…`: logs of other evaluation tools
//! (metrics-core `imports`), each a registered benchmark.

use std::path::PathBuf;

use clap::Args;
use metrics_core::Report;
use metrics_core::imports::{NamedBytes, evalscope, inspect, lm_eval};

use super::files::{LoadedFile, ScoreError, load};

#[derive(Args)]
pub struct LmEvalArgs {
    /// One run's `results_<date>.json` and/or its `samples_<task>_<date>.jsonl` files
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// `score --samples` (global): per-sample rows in the report
    #[arg(from_global)]
    samples: bool,
}

#[derive(Args)]
pub struct InspectArgs {
    /// An Inspect AI log: a `.eval` archive or a `.json` log
    log: PathBuf,
    /// `score --samples` (global): per-sample rows in the report
    #[arg(from_global)]
    samples: bool,
}

#[derive(Args)]
pub struct EvalScopeArgs {
    /// One run's `reports/<model>/<dataset>.json` and/or its `reviews/<model>/<dataset>_<subset>.jsonl`
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// `score --samples` (global): per-sample rows in the report
    #[arg(from_global)]
    samples: bool,
}

fn load_all(paths: &[PathBuf]) -> Result<Vec<LoadedFile>, ScoreError> {
    paths.iter().map(|p| load(p)).collect()
}

fn named(files: &[LoadedFile]) -> Vec<NamedBytes<'_>> {
    files
        .iter()
        .map(|f| NamedBytes {
            name: &f.name,
            bytes: &f.bytes,
        })
        .collect()
}

pub fn lm_eval_report(args: LmEvalArgs) -> Result<Report, ScoreError> {
    let files = load_all(&args.files)?;
    Ok(lm_eval::score(&named(&files), args.samples)?)
}

pub fn inspect_report(args: InspectArgs) -> Result<Report, ScoreError> {
    let file = load(&args.log)?;
    let named = NamedBytes {
        name: &file.name,
        bytes: &file.bytes,
    };
    Ok(inspect::score(named, args.samples)?)
}

pub fn evalscope_report(args: EvalScopeArgs) -> Result<Report, ScoreError> {
    let files = load_all(&args.files)?;
    Ok(evalscope::score(&named(&files), args.samples)?)
}

pub const LM_EVAL: super::command::Command<LmEvalArgs> = super::command::Command {
    key: "lm-eval",
    about: "lm-evaluation-harness output: per-task and group metrics as the results JSON has them, recomputed from the samples JSONL",
    run: lm_eval_report,
};

pub const INSPECT: super::command::Command<InspectArgs> = super::command::Command {
    key: "inspect",
    about: "An Inspect AI log (.eval or .json): each scorer's metrics as logged, recomputed from the per-sample scores",
    run: inspect_report,
};

pub const EVALSCOPE: super::command::Command<EvalScopeArgs> = super::command::Command {
    key: "evalscope",
    about: "EvalScope output: per-subset scores of the report JSON, recomputed from the reviews JSONL",
    run: evalscope_report,
};
