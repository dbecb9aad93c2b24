//! The one executor of every run's plan: [`ServerHost`] is what a [`workbench::runs::RunPlan`]
//! asks, reads and writes through — the gateway (upstreams and reply cache), the run's
//! progress and usage, pause, the files.

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use metrics_core::python::py_repr_str;
use workbench::runs::{
    Accept, Answer, AskError, CodeHost, CodeJob, CodeOutcome, Counters, Endpoint, LineLog, Request,
    RunError, RunHost, Spender,
};

use super::progress::Progress;
use crate::cache::{Role, UsageTotals};
use crate::gateway::{Call, CallError, Gateway, Sample};
use crate::sandbox::{Job, Outcome, Sandbox};
use crate::upstream::{self, RetryPolicy, UpstreamError};

/// A run's host: its gateway and its progress.
pub struct ServerHost<'a> {
    gateway: &'a Gateway,
    progress: Arc<Progress>,
    started: Instant,
    code: Option<SandboxHost>,
}

impl<'a> ServerHost<'a> {
    pub fn new(gateway: &'a Gateway, progress: Arc<Progress>) -> Self {
        Self {
            gateway,
            progress,
            started: Instant::now(),
            code: None,
        }
    }

    /// The host of a run of model code, in `sandbox`.
    pub fn with_code(self, sandbox: SandboxHost) -> Self {
        Self {
            code: Some(sandbox),
            ..self
        }
    }

    async fn record_usage(&self, role: Role, delta: &UsageTotals) {
        self.progress.add_usage(role, delta);
        if let Err(e) = self
            .gateway
            .cache
            .add_usage(self.progress.id.clone(), role, *delta)
            .await
        {
            tracing::warn!(run = %self.progress.id, "cannot record token use: {e}");
        }
    }
}

fn role(spender: Spender) -> Role {
    match spender {
        Spender::Model => Role::Model,
        Spender::Judge => Role::Judge,
    }
}

impl RunHost for ServerHost<'_> {
    fn ask<'a>(
        &'a self,
        request: Request,
        accept: Accept<'a>,
    ) -> BoxFuture<'a, Result<Answer, AskError>> {
        Box::pin(async move {
            let role = role(request.spender);
            let call = Call {
                endpoint: match request.endpoint {
                    Endpoint::ChatCompletions => upstream::Endpoint::ChatCompletions,
                    Endpoint::Embeddings => upstream::Endpoint::Embeddings,
                },
                body: request.body,
                sample: Sample::Fixed(request.sample),
                use_cache: request.use_cache,
                policy: request.single_attempt.map(|timeout| RetryPolicy {
                    max_attempts: 1,
                    backoff_ms: 0,
                    timeout_secs: Some(timeout),
                }),
            };
            match self.gateway.call_json(call, accept).await {
                Ok(answer) => {
                    self.record_usage(role, &answer.usage).await;
                    Ok(Answer {
                        json: answer.json,
                        cached: answer.cached,
                    })
                }
                Err(e @ (CallError::UnknownModel(_) | CallError::NoModel)) => {
                    Err(AskError::UnknownModel(e.to_string()))
                }
                Err(CallError::Cache(e)) => Err(AskError::Cache(e.to_string())),
                Err(e) => {
                    // Failed attempts reached the upstream: count them (no tokens, no cost).
                    let calls = match &e {
                        CallError::Status { attempts, .. }
                        | CallError::Upstream(UpstreamError::Transport { attempts, .. }) => {
                            *attempts
                        }
                        CallError::NotJson { .. } | CallError::Refused { .. } => 1,
                        _ => 0,
                    };
                    if calls > 0 {
                        let failed = UsageTotals {
                            upstream_calls: u64::from(calls),
                            ..UsageTotals::default()
                        };
                        self.record_usage(role, &failed).await;
                    }
                    Err(AskError::Failed(e.to_string()))
                }
            }
        })
    }

    fn upstream_name(&self, model: &str) -> Option<String> {
        self.gateway
            .upstreams
            .route(model)
            .map(|u| u.config.name.clone())
    }

    fn counters(&self) -> &Counters {
        &self.progress.counts
    }

    fn unpaused(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.progress.wait_if_paused())
    }

    fn sleep(&self, ms: u64) -> BoxFuture<'_, ()> {
        Box::pin(tokio::time::sleep(Duration::from_millis(ms)))
    }

    fn warn(&self, message: &str) {
        tracing::warn!(run = %self.progress.id, "{message}");
    }

    fn read(&self, path: &Path) -> Result<String, RunError> {
        std::fs::read_to_string(path)
            .map_err(|e| RunError::Input(format!("{}: cannot read: {e}", path.display())))
    }

    fn is_file(&self, path: &Path) -> bool {
        path.is_file()
    }

    fn list(&self, dir: &Path) -> Result<Vec<String>, RunError> {
        let entries = std::fs::read_dir(dir).map_err(|e| {
            RunError::Input(format!("{}: cannot read the folder: {e}", dir.display()))
        })?;
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| RunError::io(dir, e))?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        Ok(names)
    }

    fn create_dir_all(&self, path: &Path) -> Result<(), RunError> {
        std::fs::create_dir_all(path).map_err(|e| RunError::io(path, e))
    }

    fn write(
        &self,
        path: &Path,
        body: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<(), RunError> {
        let file = std::fs::File::create(path).map_err(|e| RunError::io(path, e))?;
        let mut out = std::io::BufWriter::new(file);
        body(&mut out).map_err(|e| RunError::io(path, e))?;
        out.flush().map_err(|e| RunError::io(path, e))
    }

    fn replace(&self, path: &Path, bytes: &[u8]) -> Result<(), RunError> {
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".part");
        std::fs::write(&tmp, bytes)
            .and_then(|_| std::fs::rename(&tmp, path))
            .map_err(|e| RunError::io(path, e))
    }

    fn millis(&self) -> f64 {
        self.started.elapsed().as_secs_f64() * 1000.0
    }

    fn code(&self) -> Option<&dyn CodeHost> {
        self.code.as_ref().map(|c| c as &dyn CodeHost)
    }

    fn log(&self, path: &Path) -> Result<Box<dyn LineLog + '_>, RunError> {
        let file = std::fs::File::create(path).map_err(|e| RunError::io(path, e))?;
        Ok(Box::new(FileLog {
            path: path.to_path_buf(),
            file: Mutex::new(file),
        }))
    }
}

/// An append-only file, flushed per line (what survives a kill).
struct FileLog {
    path: std::path::PathBuf,
    file: Mutex<std::fs::File>,
}

impl LineLog for FileLog {
    fn line(&self, line: &str) -> Result<(), RunError> {
        let mut file = self
            .file
            .lock()
            .map_err(|_| RunError::Internal("log lock poisoned".into()))?;
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        file.write_all(&bytes)
            .and_then(|_| file.flush())
            .map_err(|e| RunError::io(&self.path, e))
    }
}

/// Runs model code in the [`crate::sandbox`].
pub struct SandboxHost {
    sandbox: Sandbox,
}

impl SandboxHost {
    pub fn new(sandbox: Sandbox) -> Self {
        Self { sandbox }
    }
}

impl CodeHost for SandboxHost {
    fn run<'a>(&'a self, job: CodeJob) -> BoxFuture<'a, Result<CodeOutcome, String>> {
        Box::pin(async move {
            let shown = job.folder.display().to_string();
            // The official `os.chdir(folder_path)` inside the try block.
            match std::fs::metadata(&job.folder) {
                Err(e) => return Err(python_os_error(&e, &shown)),
                Ok(m) if !m.is_dir() => {
                    return Err(python_os_error(
                        &std::io::Error::from_raw_os_error(20),
                        &shown,
                    ));
                }
                Ok(_) => {}
            }
            let run = Job {
                input: Some(&job.folder),
                files: job.files,
                script: job.script,
            };
            match self.sandbox.run(&run).await {
                Ok(Outcome::Exited {
                    returncode,
                    stdout,
                    stderr,
                    elapsed_s,
                }) => Ok(CodeOutcome::Exited {
                    returncode,
                    stdout,
                    stderr,
                    elapsed_s,
                }),
                Ok(Outcome::TimedOut { elapsed_s }) => Ok(CodeOutcome::TimedOut { elapsed_s }),
                // The official run's launcher failing (`conda` missing) is an exception too.
                Err(e) => Err(format!("cannot start the sandbox: {e}")),
            }
        })
    }

    fn timeout_s(&self) -> u64 {
        self.sandbox.limits().wall.as_secs()
    }
}

/// `str(e)` of the `OSError` Python raises for `filename` (`[Errno 2] No such file or
/// directory: 'path'`).
pub fn python_os_error(e: &std::io::Error, filename: &str) -> String {
    match e.raw_os_error() {
        Some(code) => {
            let text = e.to_string();
            let strerror = text
                .strip_suffix(&format!(" (os error {code})"))
                .unwrap_or(&text);
            format!("[Errno {code}] {strerror}: {}", py_repr_str(filename))
        }
        None => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_errors_read_like_python() {
        let e = std::io::Error::from_raw_os_error(2);
        assert_eq!(
            python_os_error(&e, "conda"),
            "[Errno 2] No such file or directory: 'conda'"
        );
    }
}
