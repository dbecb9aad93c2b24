//! A run described in the workbench ([`RunSpec`]) as the server's run kind: its flags and body
//! read through [`super::form`], its plan executed through [`super::host::ServerHost`].

use std::path::Path;
use std::sync::{Arc, OnceLock};

use futures_util::future::BoxFuture;
use workbench::runs::{Executes, RunPlan, RunSpec};

use super::form;
use super::host::ServerHost;
use super::kind::{CliPlan, Form, Plan, RunKind};
use super::progress::{Progress, RunError};
use crate::gateway::Gateway;

/// The server's side of one workbench run.
pub struct SpecKind {
    pub spec: &'static RunSpec,
    pub benchmark: &'static str,
    form: OnceLock<Option<Form>>,
}

impl SpecKind {
    pub const fn new(spec: &'static RunSpec, benchmark: &'static str) -> Self {
        Self {
            spec,
            benchmark,
            form: OnceLock::new(),
        }
    }
}

impl RunKind for SpecKind {
    fn key(&self) -> &'static str {
        self.spec.key
    }

    fn label(&self) -> &'static str {
        self.spec.label
    }

    fn benchmark(&self) -> &'static str {
        self.benchmark
    }

    fn files(&self) -> &'static [&'static str] {
        self.spec.files
    }

    fn args(&self, command: clap::Command) -> clap::Command {
        form::clap_args(self.spec, command)
    }

    fn plan_from_args(&self, matches: &clap::ArgMatches) -> Result<CliPlan, RunError> {
        let values = form::from_matches(self.spec, matches);
        let config = values.optional_path("config")?;
        let db = values.path("db")?;
        let out = values.optional_path("out")?;
        let plan = (self.spec.plan)(values)?;
        let out = match out.or_else(|| plan.default_out()) {
            Some(out) => out,
            None => return Err(RunError::Internal("the run has no output folder".into())),
        };
        Ok(CliPlan {
            config,
            db,
            out,
            plan: Box::new(SpecPlan(plan)),
        })
    }

    fn over_http(&self) -> bool {
        self.spec.page.is_some()
    }

    fn available(&self, gateway: Option<&Gateway>) -> bool {
        match self.spec.executes {
            Executes::Models => true,
            Executes::Code => gateway.is_some_and(|g| g.dry_exec.is_some()),
        }
    }

    fn form(&self) -> Option<&Form> {
        self.form
            .get_or_init(|| {
                self.spec.page.map(|page| Form {
                    // Made once per kind (the kinds are statics).
                    fields: Vec::leak(workbench::runs::page_fields(self.spec.params)),
                    open: page.open,
                    open_inputs: page.open_inputs,
                })
            })
            .as_ref()
    }

    fn plan_from_body(
        &self,
        body: serde_json::Value,
        gateway: &Gateway,
    ) -> Result<Box<dyn Plan>, RunError> {
        let values = form::from_body(self.spec, &body, &form::served_by(gateway))?;
        Ok(Box::new(SpecPlan((self.spec.plan)(values)?)))
    }
}

/// A workbench plan run by the server's host.
struct SpecPlan(Box<dyn RunPlan>);

impl Plan for SpecPlan {
    fn model(&self) -> String {
        self.0.model()
    }

    fn load(
        &mut self,
        gateway: &Gateway,
        progress: &Arc<Progress>,
        out_dir: &Path,
    ) -> Result<(), RunError> {
        let host = ServerHost::new(gateway, progress.clone());
        self.0.load(&host, out_dir)
    }

    fn execute<'a>(
        self: Box<Self>,
        gateway: &'a Gateway,
        out_dir: &'a Path,
        progress: Arc<Progress>,
    ) -> BoxFuture<'a, Result<String, RunError>> {
        Box::pin(async move {
            let host = ServerHost::new(gateway, progress);
            self.0.execute(&host, out_dir).await
        })
    }
}
