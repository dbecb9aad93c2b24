//! `scorebench score lm-eval|inspect|evalscope FILE…`: logs of other evaluation tools
//! (metrics-core `imports`), each a registered benchmark. The logs are read whole (an Inspect
//! `.eval` is a zip archive; lm-eval and EvalScope pair a summary with per-sample files).

use std::path::PathBuf;

use metrics_core::imports::{NamedBytes, evalscope, inspect, lm_eval};

use crate::cli::{Arg, Command, Host, Loaded, ScoreError};

pub static LM_EVAL: Command = Command {
    about: "lm-evaluation-harness output: per-task and group metrics as the results JSON has them, recomputed from the samples JSONL",
    args: &[Arg::files(
        "files",
        "One run's `results_<date>.json` and/or its `samples_<task>_<date>.jsonl` files",
    )],
    run: |args, host| {
        let files = load_all(host, args.paths("files"))?;
        Ok(lm_eval::score(&named(&files), args.samples)?)
    },
};

pub static INSPECT: Command = Command {
    about: "An Inspect AI log (.eval or .json): each scorer's metrics as logged, recomputed from the per-sample scores",
    args: &[Arg::file(
        "log",
        "An Inspect AI log: a `.eval` archive or a `.json` log",
    )],
    run: |args, host| {
        let file = host.load(args.required("log")?)?;
        let named = NamedBytes {
            name: &file.name,
            bytes: &file.bytes,
        };
        Ok(inspect::score(named, args.samples)?)
    },
};

pub static EVALSCOPE: Command = Command {
    about: "EvalScope output: per-subset scores of the report JSON, recomputed from the reviews JSONL",
    args: &[Arg::files(
        "files",
        "One run's `reports/<model>/<dataset>.json` and/or its `reviews/<model>/<dataset>_<subset>.jsonl`",
    )],
    run: |args, host| {
        let files = load_all(host, args.paths("files"))?;
        Ok(evalscope::score(&named(&files), args.samples)?)
    },
};

fn load_all(host: &dyn Host, paths: &[PathBuf]) -> Result<Vec<Loaded>, ScoreError> {
    paths.iter().map(|p| host.load(p)).collect()
}

fn named(files: &[Loaded]) -> Vec<NamedBytes<'_>> {
    files
        .iter()
        .map(|f| NamedBytes {
            name: &f.name,
            bytes: &f.bytes,
        })
        .collect()
}
