//! Runs: a benchmark's procedure that asks a model (or runs a model's code) and writes the
//! official files, described and planned here, executed by the server.
//!
//! ```text
//! RunSpec (in the benchmark's module, listed by its adapter's `runs()`)
//!   params ──▶ `scorebench run <key>` flags (server, clap)
//!          ──▶ the JSON body of POST /api/v1/runs (server, read field by field)
//!          ──▶ the page's form (GET /api/v1/runs/kinds) and `scorebench benchmarks --json`
//!   plan(RunValues) ──▶ RunPlan::execute(&dyn RunHost, out_dir)
//!                          asks models, reads inputs, writes files — only through the host
//! ```
//! A plan does no IO of its own (this crate does none): the server's one host asks the
//! configured upstreams through its cache, counts usage and progress, honours pause, and reads
//! and writes the files. So every run's rules (dataset → requests, reply → record, records →
//! the official files) live beside the benchmark's scoring and are tested natively.

mod error;
mod host;
mod params;

use std::path::{Path, PathBuf};

use futures_util::future::BoxFuture;

pub use error::RunError;
pub use host::*;
pub use params::*;

/// One kind of run: `scorebench run <key>`, `{"benchmark": key}`.
pub struct RunSpec {
    /// The name in `scorebench run <key>`, in `{"benchmark": key}` and in the run records.
    pub key: &'static str,
    /// One line for `scorebench run --help`.
    pub label: &'static str,
    /// The files a run writes into its output folder that a client may download (the only
    /// names `GET /api/v1/runs/{id}/files/{name}` serves).
    pub files: &'static [&'static str],
    /// Every input, in `--help` order: the one description the flags, the HTTP body and the
    /// page's form come from.
    pub params: &'static [Param],
    /// Started over HTTP by the page: which files it opens afterwards. `None`: command line
    /// only.
    pub page: Option<PageForm>,
    /// What executes it.
    pub executes: Executes,
    /// The plan of the values given (checked here; files are read when it executes).
    pub plan: fn(RunValues) -> Result<Box<dyn RunPlan>, RunError>,
}

impl std::fmt::Debug for RunSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunSpec").field("key", &self.key).finish()
    }
}

/// What a run needs from the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Executes {
    /// Models, through the upstreams of a configuration (`--config`, required).
    Models,
    /// The model's code, in the sandbox (over HTTP only when the server's config allows it; the
    /// server then gives the [`Param::server`] values itself).
    Code,
}

/// The page's side of a run started over HTTP.
#[derive(Debug, Clone, Copy)]
pub struct PageForm {
    /// Files of the finished run handed to the workbench, when the run has them.
    pub open: &'static [&'static str],
    /// Inputs (records or files params) handed to the workbench too.
    pub open_inputs: &'static [&'static str],
}

/// Work ready to run.
pub trait RunPlan: Send {
    /// The model asked (judge models joined by `,`), as the run records it.
    fn model(&self) -> String;
    /// The output folder of a command line that names none (`None`: `--out` is required).
    fn default_out(&self) -> Option<PathBuf> {
        None
    }
    /// Read the input files a command-line plan names (before the progress display starts; an
    /// error here is reported alone). Plans from HTTP bodies hold their input already.
    fn load(&mut self, _host: &dyn RunHost, _out_dir: &Path) -> Result<(), RunError> {
        Ok(())
    }
    /// Ask the model(s) through `host`, write the files into `out_dir`; the line the CLI prints
    /// when done.
    fn execute<'a>(
        self: Box<Self>,
        host: &'a dyn RunHost,
        out_dir: &'a Path,
    ) -> BoxFuture<'a, Result<String, RunError>>;
}
