//! One definition per benchmark run: the [`RunKind`] trait, implemented once in each benchmark's
//! module, and [`super::registry::REGISTRY`], the one list `scorebench run <key>` and `POST /api/v1/runs
//! {"benchmark": key}` dispatch through. Nothing outside a benchmark's module and its registry
//! line names a benchmark.
//!
//! ```text
//! CLI:  argv ──clap (RunKind::args)──▶ ArgMatches ──RunKind::plan_from_args──▶ CliPlan ─┐
//! HTTP: body ──RunKind::plan_from_body (validated, model served)──────────▶ Box<dyn Plan> ─┴▶ Plan::execute
//! ```

use std::path::{Path, PathBuf};

use clap::Args;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde::de;

use super::progress::{Progress, RunError};
use crate::gateway::Gateway;

/// A benchmark that scorebench can run against a model.
pub trait RunKind: Sync {
    /// The name in `scorebench run <key>`, in `{"benchmark": key}` and in the run records.
    fn key(&self) -> &'static str;
    /// One line for `scorebench run --help`.
    fn label(&self) -> &'static str;
    /// The registered benchmark whose files the run writes (`scorebench benchmarks` lists the
    /// run under it); its own key by default.
    fn benchmark(&self) -> &'static str {
        self.key()
    }
    /// The files a run writes into its output folder that a client may download (the only
    /// names `GET /api/v1/runs/{id}/files/{name}` serves).
    fn files(&self) -> &'static [&'static str];
    /// Add the arguments of `scorebench run <key>` (a clap `Args` derive) to `command`.
    fn args(&self, command: clap::Command) -> clap::Command;
    /// The validated plan of parsed arguments (no IO: files are read when the plan executes).
    fn plan_from_args(&self, matches: &clap::ArgMatches) -> Result<CliPlan, RunError>;
    /// Whether `POST /api/v1/runs` starts this kind (then it implements [`Self::plan_from_body`]
    /// and [`Self::form`]).
    fn over_http(&self) -> bool {
        false
    }
    /// Whether this server can start it over HTTP now (`gateway`: the server's upstreams and
    /// settings, `None` without `--config`); the page lists only the kinds that are.
    fn available(&self, _gateway: Option<&Gateway>) -> bool {
        true
    }
    /// The form the page's Run panel renders for this kind (`GET /api/v1/runs/kinds`).
    fn form(&self) -> Option<&Form> {
        None
    }
    /// The validated plan of a `POST /api/v1/runs` body (the whole JSON object, `benchmark`
    /// included): every input problem is a [`RunError::Input`] here, before the run starts.
    fn plan_from_body(
        &self,
        _body: serde_json::Value,
        _gateway: &Gateway,
    ) -> Result<Box<dyn Plan>, RunError> {
        Err(RunError::Input(format!(
            "{} runs are started from the command line only",
            self.key()
        )))
    }
}

/// Work ready to run: the same for both front ends.
pub trait Plan: Send {
    /// The model asked (judge models joined by `,`), as the run records it.
    fn model(&self) -> String;
    /// Read the input files a command-line plan names (before the progress display starts;
    /// an error here is reported alone). Plans from HTTP bodies hold their input already.
    fn load(
        &mut self,
        _gateway: &Gateway,
        _progress: &Arc<Progress>,
        _out_dir: &Path,
    ) -> Result<(), RunError> {
        Ok(())
    }
    /// Ask the model(s) through `gateway`, write the files into `out_dir`, keep `progress`
    /// current; the line the CLI prints when done.
    fn execute<'a>(
        self: Box<Self>,
        gateway: &'a Gateway,
        out_dir: &'a Path,
        progress: Arc<Progress>,
    ) -> BoxFuture<'a, Result<String, RunError>>;
}

/// A plan from the command line, with where it runs.
pub struct CliPlan {
    /// The upstream configuration file (`None`: a run that calls no model).
    pub config: Option<PathBuf>,
    /// The SQLite database (reply cache, runs).
    pub db: PathBuf,
    /// The output folder.
    pub out: PathBuf,
    pub plan: Box<dyn Plan>,
}

/// What the page needs to start a kind over HTTP: the request's fields and which files of the
/// finished run (and which of its own inputs) the workbench opens.
#[derive(Debug, serde::Serialize)]
pub struct Form {
    pub fields: &'static [Field],
    /// Files of the finished run handed to the workbench, when the run has them.
    pub open: &'static [&'static str],
    /// Inputs (record or files fields) handed to the workbench too (a gold file, a dataset
    /// folder's files).
    pub open_inputs: &'static [&'static str],
}

pub use workbench::wire::runs::{Field, FieldKind};

/// `workers` of every run: between 1 and 4096.
pub fn check_workers(workers: usize) -> Result<(), RunError> {
    if workers == 0 || workers > MAX_WORKERS {
        return Err(RunError::Input(format!(
            "workers must be between 1 and {MAX_WORKERS}"
        )));
    }
    Ok(())
}

/// Most concurrent requests one run makes.
pub const MAX_WORKERS: usize = 4096;

/// The model of an HTTP run request must be served by a configured upstream.
pub fn check_served(gateway: &Gateway, model: &str) -> Result<(), RunError> {
    if gateway.upstreams.route(model).is_none() {
        return Err(RunError::Input(format!(
            "model {model:?} is not served here: GET /api/v1/models lists the allowed models"
        )));
    }
    Ok(())
}

/// The parsed arguments of a kind's clap `Args`.
pub fn parsed<T: clap::FromArgMatches>(matches: &clap::ArgMatches) -> Result<T, RunError> {
    T::from_arg_matches(matches).map_err(|e| RunError::Input(e.to_string()))
}

/// A run request body as the kind's own type (`serde_json::from_value`, so messages carry no
/// position, as they did for the tagged enum).
pub fn body_as<T: de::DeserializeOwned>(body: serde_json::Value) -> Result<T, RunError> {
    serde_json::from_value(body).map_err(|e| RunError::Input(format!("not a run request: {e}")))
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
