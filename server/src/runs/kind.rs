//! A run as the server starts it: [`RunKind`] is a benchmark's [`RunSpec`] (described and
//! planned in the workbench, listed by its adapter), its flags and body read through
//! [`super::form`], its plan executed through the one host, [`super::host::ServerHost`] (and,
//! for runs of model code, the sandbox).
//!
//! ```text
//! CLI:  argv ──clap (form::clap_args)──▶ ArgMatches ──form::from_matches──▶ RunValues ─┐
//! HTTP: body ──form::from_body (fields typed, models served)──────────────▶ RunValues ─┴▶ spec.plan
//!       ──▶ Plan::execute(gateway, out_dir, progress)  (ServerHost [+ SandboxHost])
//! ```

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use futures_util::future::BoxFuture;
use workbench::runs::{Executes, RunPlan, RunSpec, RunValue, RunValues};

use super::form;
use super::host::{SandboxHost, ServerHost};
use super::progress::{Progress, RunError};
use crate::config::unit_limits;
use crate::gateway::Gateway;
use crate::sandbox::{MAX_JOBS, Sandbox, SandboxConfig};

pub use workbench::wire::runs::{Field, FieldKind};

/// One kind of run: a workbench [`RunSpec`] and the benchmark that lists it.
pub struct RunKind {
    pub spec: &'static RunSpec,
    benchmark: &'static str,
    form: OnceLock<Option<Form>>,
}

/// A plan from the command line, with where it runs.
pub struct CliPlan {
    /// The upstream configuration file (`None`: a run that calls no model).
    pub config: Option<PathBuf>,
    /// The SQLite database (reply cache, runs).
    pub db: PathBuf,
    /// The output folder.
    pub out: PathBuf,
    pub plan: Plan,
}

/// What the page needs to start a kind over HTTP: the request's fields and which files of the
/// finished run (and which of its own inputs) the workbench opens.
#[derive(Debug, serde::Serialize)]
pub struct Form {
    pub fields: Vec<Field>,
    /// Files of the finished run handed to the workbench, when the run has them.
    pub open: &'static [&'static str],
    /// Inputs (record or files fields) handed to the workbench too (a gold file, a dataset
    /// folder's files).
    pub open_inputs: &'static [&'static str],
}

impl RunKind {
    pub fn new(spec: &'static RunSpec, benchmark: &'static str) -> Self {
        Self {
            spec,
            benchmark,
            form: OnceLock::new(),
        }
    }

    /// The name in `scorebench run <key>`, in `{"benchmark": key}` and in the run records.
    pub fn key(&self) -> &'static str {
        self.spec.key
    }

    /// One line for `scorebench run --help`.
    pub fn label(&self) -> &'static str {
        self.spec.label
    }

    /// The registered benchmark whose files the run writes (`scorebench benchmarks` lists the
    /// run under it).
    pub fn benchmark(&self) -> &'static str {
        self.benchmark
    }

    /// The files a run writes that a client may download.
    pub fn files(&self) -> &'static [&'static str] {
        self.spec.files
    }

    /// Add the arguments of `scorebench run <key>` to `command`.
    pub fn args(&self, command: clap::Command) -> clap::Command {
        form::clap_args(self.spec, command)
    }

    /// Whether `POST /api/v1/runs` starts this kind.
    pub fn over_http(&self) -> bool {
        self.spec.page.is_some()
    }

    /// Whether this server can start it over HTTP now (`gateway`: the server's upstreams and
    /// settings, `None` without `--config`); the page lists only the kinds that are. A run of
    /// model code needs the config's `[sgi_dry_exec]`.
    pub fn available(&self, gateway: Option<&Gateway>) -> bool {
        match self.spec.executes {
            Executes::Models => true,
            Executes::Code => gateway.is_some_and(|g| g.dry_exec.is_some()),
        }
    }

    /// The form the page's Run panel renders for this kind (`GET /api/v1/runs/kinds`).
    pub fn form(&self) -> Option<&Form> {
        self.form
            .get_or_init(|| {
                self.spec.page.map(|page| Form {
                    fields: workbench::runs::page_fields(self.spec.params),
                    open: page.open,
                    open_inputs: page.open_inputs,
                })
            })
            .as_ref()
    }

    /// The plan of parsed arguments (files are read when the plan executes).
    pub fn plan_from_args(&self, matches: &clap::ArgMatches) -> Result<CliPlan, RunError> {
        let values = form::from_matches(self.spec, matches);
        let config = values.optional_path("config")?;
        let db = values.path("db")?;
        let out = values.optional_path("out")?;
        let sandbox = match self.spec.executes {
            Executes::Models => None,
            Executes::Code => {
                let code = Code {
                    sandbox: sandbox_of(&values)?,
                    max_workers: MAX_JOBS,
                    flag: true,
                };
                code.check_workers(&values)?;
                Some(code)
            }
        };
        let plan = (self.spec.plan)(values)?;
        let out = out
            .or_else(|| plan.default_out())
            .ok_or_else(|| RunError::Internal("the run has no output folder".into()))?;
        Ok(CliPlan {
            config,
            db,
            out,
            plan: Plan { plan, sandbox },
        })
    }

    /// The validated plan of a `POST /api/v1/runs` body (the whole JSON object, `benchmark`
    /// included): every input problem is a [`RunError::Input`] here, before the run starts.
    pub fn plan_from_body(
        &self,
        body: serde_json::Value,
        gateway: &Gateway,
    ) -> Result<Plan, RunError> {
        if !self.over_http() {
            return Err(RunError::Input(format!(
                "{} runs are started from the command line only",
                self.key()
            )));
        }
        let mut values = form::from_body(self.spec, &body, &form::served_by(gateway))?;
        let sandbox = match self.spec.executes {
            Executes::Models => None,
            Executes::Code => {
                let Some(config) = &gateway.dry_exec else {
                    return Err(RunError::Input(
                        "this server runs no code: its config has no [sgi_dry_exec] section (server/API.md)"
                            .into(),
                    ));
                };
                // The folders, interpreter and limits are the server's, never the request's.
                values.set("codes", RunValue::Path(config.codes.clone()));
                Some(Code {
                    sandbox: config.sandbox.clone(),
                    max_workers: config.max_workers,
                    flag: false,
                })
            }
        };
        if let Some(code) = &sandbox {
            code.check_workers(&values)?;
        }
        Ok(Plan {
            plan: (self.spec.plan)(values)?,
            sandbox,
        })
    }
}

/// How a run of model code is sandboxed.
#[derive(Debug, Clone)]
struct Code {
    sandbox: SandboxConfig,
    /// The most units at once.
    max_workers: usize,
    /// Whether `workers` was a flag (its message names `--workers`).
    flag: bool,
}

impl Code {
    fn check_workers(&self, values: &RunValues) -> Result<(), RunError> {
        let workers = values.count("workers")?;
        if workers == 0 || workers > self.max_workers as u64 {
            return Err(RunError::Input(if self.flag {
                format!("--workers must be between 1 and {}", self.max_workers)
            } else {
                format!(
                    "workers must be between 1 and {} (this server's [sgi_dry_exec] workers)",
                    self.max_workers
                )
            }));
        }
        Ok(())
    }
}

/// The sandbox a command line asks for (`--python`, the limits, `--read-only`).
fn sandbox_of(values: &RunValues) -> Result<SandboxConfig, RunError> {
    Ok(SandboxConfig {
        python: values.path("python")?,
        extra_ro: values.paths("read_only")?,
        limits: unit_limits(
            values.count("timeout_s")?,
            values.count("cpu_s")?,
            values.count("memory_mb")?,
            values.count("processes")?,
            values.count("scratch_mb")?,
        ),
    })
}

/// Work ready to run: the same for both front ends.
pub struct Plan {
    plan: Box<dyn RunPlan>,
    sandbox: Option<Code>,
}

impl Plan {
    /// The model asked (judge models joined by `,`), as the run records it.
    pub fn model(&self) -> String {
        self.plan.model()
    }

    /// Read the input files a command-line plan names (before the progress display starts;
    /// an error here is reported alone). Plans from HTTP bodies hold their input already.
    pub fn load(
        &mut self,
        gateway: &Gateway,
        progress: &Arc<Progress>,
        out_dir: &Path,
    ) -> Result<(), RunError> {
        let host = ServerHost::new(gateway, progress.clone());
        self.plan.load(&host, out_dir)
    }

    /// Ask the model(s) (or run the code), write the files into `out_dir`, keep `progress`
    /// current; the line the CLI prints when done.
    pub fn execute<'a>(
        self,
        gateway: &'a Gateway,
        out_dir: &'a Path,
        progress: Arc<Progress>,
    ) -> BoxFuture<'a, Result<String, RunError>> {
        Box::pin(async move {
            let mut host = ServerHost::new(gateway, progress);
            if let Some(code) = self.sandbox {
                let sandbox = Sandbox::new(code.sandbox)
                    .await
                    .map_err(|e| RunError::Input(e.to_string()))?;
                host = host.with_code(SandboxHost::new(sandbox));
            }
            self.plan.execute(&host, out_dir).await
        })
    }
}
