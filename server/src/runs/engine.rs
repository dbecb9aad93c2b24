//! The run engine: [`Llm`], what the proxy and the runs share (the gateway, the runs this
//! process started, where they write), and how a run is launched, paused, resumed, cancelled.

use crate::cache::RunRecord;
use crate::gateway::Gateway;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::kind;
use super::progress::{Progress, RunError, RunState};

/// Everything the proxy and the runs share.
#[derive(Debug)]
pub struct Llm {
    pub gateway: Gateway,
    /// Runs this process started over HTTP (or resumed), by id; the store keeps all runs.
    runs: Mutex<HashMap<String, RunEntry>>,
    /// Where HTTP-started runs write their files (`{runs_dir}/{id}/`).
    pub runs_dir: PathBuf,
    /// Which sample each proxy request is (`crate::sampling`).
    pub sampler: crate::sampling::Sampler,
}

#[derive(Debug)]
struct RunEntry {
    progress: Arc<Progress>,
    /// The task executing it, until it ends or is cancelled.
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Llm {
    pub fn new(gateway: Gateway, runs_dir: PathBuf) -> Llm {
        Llm {
            gateway,
            runs: Mutex::new(HashMap::new()),
            runs_dir,
            sampler: crate::sampling::Sampler::default(),
        }
    }

    fn table(&self) -> Result<std::sync::MutexGuard<'_, HashMap<String, RunEntry>>, RunError> {
        self.runs
            .lock()
            .map_err(|_| RunError::Internal("run table lock poisoned".into()))
    }

    /// The progress of a run this process started, if it did.
    pub fn progress(&self, id: &str) -> Option<Arc<Progress>> {
        self.table().ok()?.get(id).map(|e| e.progress.clone())
    }

    /// Execute `plan` as run `id` in its own task, writing into `out_dir`. The run is stored
    /// (state `running`, `request` = how to start it again) and holds its liveness lock while
    /// it executes. `Conflict` when a live process already runs `id`.
    pub async fn launch(
        self: &Arc<Self>,
        kind: &'static kind::RunKind,
        id: String,
        out_dir: PathBuf,
        plan: kind::Plan,
        request: Vec<u8>,
    ) -> Result<Arc<Progress>, RunError> {
        let cache = &self.gateway.cache;
        let lock = cache
            .lock_run(&id)
            .map_err(|e| RunError::Internal(e.to_string()))?
            .ok_or_else(|| RunError::Conflict(format!("run {id} is running in another process")))?;
        let model = plan.model();
        let progress = Arc::new(Progress::new(
            id.clone(),
            kind.key(),
            kind.files(),
            &model,
            out_dir.clone(),
        ));
        // Proxy calls counted to this run replay their samples from the first again.
        self.sampler
            .reset(&crate::sampling::SessionKey::Run(id.clone()));
        cache
            .start_run(RunRecord {
                id: id.clone(),
                kind: kind.key().into(),
                model,
                state: "running".into(),
                out_dir: out_dir.display().to_string(),
                origin: "http".into(),
                request: Some(request),
                error: None,
            })
            .await
            .map_err(|e| RunError::Internal(e.to_string()))?;
        let llm = self.clone();
        let task_progress = progress.clone();
        let mut table = self.table()?;
        let task = tokio::spawn(async move {
            let _lock = lock;
            let outcome = plan
                .execute(&llm.gateway, &out_dir, task_progress.clone())
                .await;
            let ended = match outcome {
                Ok(_) => task_progress.finish().await.then_some(("finished", None)),
                Err(e) => {
                    tracing::warn!(run = %task_progress.id, "run failed: {e}");
                    task_progress
                        .fail(e.to_string())
                        .then(|| ("failed", Some(e.to_string())))
                }
            };
            if let Some((state, error)) = ended {
                let id = task_progress.id.clone();
                if let Err(e) = llm.gateway.cache.set_run_state(id, state, error).await {
                    tracing::error!(run = %task_progress.id, "cannot store the run's end: {e}");
                }
            }
        });
        table.insert(
            id,
            RunEntry {
                progress: progress.clone(),
                task: Some(task),
            },
        );
        Ok(progress)
    }

    /// The run a proxy call is counted to (`x-scorebench-run`): only a run id of this store
    /// (started by `POST /api/v1/runs` or `scorebench run` on this database). Anything else is
    /// refused before the call, so nothing is stored for it.
    pub async fn run_of_header(&self, value: Option<&str>) -> Result<Option<String>, RunError> {
        let Some(value) = value else {
            return Ok(None);
        };
        if !crate::cache::is_run_id(value) {
            return Err(RunError::Input(
                "x-scorebench-run must be the id of a run on this server (16 hex digits)".into(),
            ));
        }
        let exists = self
            .gateway
            .cache
            .run_exists(value.to_string())
            .await
            .map_err(|e| RunError::Internal(e.to_string()))?;
        if !exists {
            return Err(RunError::Input(format!(
                "x-scorebench-run: no run {value} on this server"
            )));
        }
        Ok(Some(value.to_string()))
    }

    /// Stop a running or paused run: its task is dropped (with its plan, items and replies in
    /// memory) before this returns; the files written so far and the cache stay.
    pub async fn cancel(&self, id: &str) -> Result<Arc<Progress>, RunError> {
        let (progress, task) = {
            let mut table = self.table()?;
            let entry = table
                .get_mut(id)
                .ok_or_else(|| RunError::NotFound(format!("run {id} is not running here")))?;
            (entry.progress.clone(), entry.task.take())
        };
        if !progress.end(RunState::Cancelled) {
            return Err(RunError::Conflict(format!(
                "run {id} is not running (state {:?})",
                progress.state()
            )));
        }
        if let Some(task) = task {
            task.abort();
            let _ = task.await;
        }
        self.gateway
            .cache
            .set_run_state(id.to_string(), "cancelled", None)
            .await
            .map_err(|e| RunError::Internal(e.to_string()))?;
        Ok(progress)
    }
}
