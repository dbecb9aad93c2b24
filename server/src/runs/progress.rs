//! What a run reports and how it fails: [`RunState`], [`Progress`] (done/total, rate, ETA,
//! tokens, cost), [`RunError`], new run ids. A leaf of `runs` (the files a plan reads and
//! writes go through [`super::host::ServerHost`]).

use crate::cache::{Role, RunRecord, UsageTotals};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;
use tokio::sync::watch;
use workbench::runs::Counters;
use workbench::wire::runs::{RunProgress, RunUsage};

pub use workbench::wire::runs::RunState;

/// The live state of one run, shared by its workers, the terminal display and the API.
#[derive(Debug)]
pub struct Progress {
    pub id: String,
    pub benchmark: String,
    /// The files of this run a client may download (its kind's).
    files: &'static [&'static str],
    pub model: String,
    pub out_dir: PathBuf,
    /// Items: total, done, reused (from an earlier run's files or the cache), failed (no usable
    /// answer); `progress.total` etc. reach them.
    pub counts: Counters,
    started: Instant,
    usage: Mutex<[UsageTotals; 2]>,
    state: Mutex<RunState>,
    error: Mutex<Option<String>>,
    paused: watch::Sender<bool>,
}

impl std::ops::Deref for Progress {
    type Target = Counters;
    fn deref(&self) -> &Counters {
        &self.counts
    }
}

impl Progress {
    /// A run of `benchmark` whose downloadable files are `files`.
    pub fn new(
        id: String,
        benchmark: &str,
        files: &'static [&'static str],
        model: &str,
        out_dir: PathBuf,
    ) -> Progress {
        Progress {
            id,
            benchmark: benchmark.to_string(),
            files,
            model: model.to_string(),
            out_dir,
            counts: Counters::default(),
            started: Instant::now(),
            usage: Mutex::new([UsageTotals::default(); 2]),
            state: Mutex::new(RunState::Running),
            error: Mutex::new(None),
            paused: watch::channel(false).0,
        }
    }

    /// A stored run this process is not executing, as the API shows it: its state, error and
    /// token totals from the store; counters of items are not stored (0). `files`: its kind's.
    pub fn from_record(
        record: &RunRecord,
        files: &'static [&'static str],
        usage: &[(Role, UsageTotals)],
    ) -> Progress {
        let progress = Progress::new(
            record.id.clone(),
            &record.kind,
            files,
            &record.model,
            PathBuf::from(&record.out_dir),
        );
        progress.set_state(RunState::parse(&record.state));
        progress.set_error(record.error.clone());
        for (role, totals) in usage {
            progress.add_usage(*role, totals);
        }
        progress
    }

    pub fn add_usage(&self, role: Role, delta: &UsageTotals) {
        if let Ok(mut u) = self.usage.lock() {
            u[role as usize].add(delta);
        }
    }

    pub fn usage(&self, role: Role) -> UsageTotals {
        self.usage
            .lock()
            .map(|u| u[role as usize])
            .unwrap_or_default()
    }

    pub fn state(&self) -> RunState {
        self.state.lock().map(|s| *s).unwrap_or(RunState::Failed)
    }

    pub fn set_state(&self, state: RunState) {
        if let Ok(mut s) = self.state.lock() {
            *s = state;
        }
    }

    /// Move from `from` to `to` atomically; false when the state was not `from`.
    fn transition(&self, from: &[RunState], to: RunState) -> bool {
        let Ok(mut state) = self.state.lock() else {
            return false;
        };
        if !from.contains(&state) {
            return false;
        }
        *state = to;
        true
    }

    /// End a live run in `state` (failed, cancelled); false when it had already ended.
    pub fn end(&self, state: RunState) -> bool {
        let ended = self.transition(&[RunState::Running, RunState::Paused], state);
        if ended {
            // Nothing waits for a resume any more.
            self.paused.send_replace(false);
        }
        ended
    }

    /// Fail a live run with `message`; false when it had already ended.
    pub fn fail(&self, message: String) -> bool {
        if !self.end(RunState::Failed) {
            return false;
        }
        if let Ok(mut e) = self.error.lock() {
            *e = Some(message);
        }
        true
    }

    /// The run's work is done: mark it finished, but not while it is paused (a run paused with
    /// its last items in flight stays paused until resumed, then finishes). False when it was
    /// ended meanwhile (cancelled).
    pub async fn finish(&self) -> bool {
        loop {
            self.wait_if_paused().await;
            match self.state() {
                RunState::Running => {
                    if self.transition(&[RunState::Running], RunState::Finished) {
                        return true;
                    }
                }
                RunState::Paused => {}
                _ => return false,
            }
        }
    }

    /// Pause: workers finish the item they hold and take no new one.
    pub fn pause(&self) -> bool {
        if !self.transition(&[RunState::Running], RunState::Paused) {
            return false;
        }
        self.paused.send_replace(true);
        true
    }

    pub fn resume(&self) -> bool {
        if !self.transition(&[RunState::Paused], RunState::Running) {
            return false;
        }
        self.paused.send_replace(false);
        true
    }

    /// The error a failed run ended with.
    pub fn set_error(&self, message: Option<String>) {
        if let Ok(mut e) = self.error.lock() {
            *e = message;
        }
    }

    /// Wait while paused.
    pub async fn wait_if_paused(&self) {
        let mut rx = self.paused.subscribe();
        let _ = rx.wait_for(|paused| !paused).await;
    }

    /// Items done per second since the start, counting only items that needed the model.
    pub fn rate_per_s(&self) -> f64 {
        let elapsed = self.started.elapsed().as_secs_f64();
        let fresh = self
            .done
            .load(Ordering::Relaxed)
            .saturating_sub(self.reused.load(Ordering::Relaxed));
        if elapsed > 0.0 {
            fresh as f64 / elapsed
        } else {
            0.0
        }
    }

    pub fn eta_s(&self) -> Option<f64> {
        let left = self
            .total
            .load(Ordering::Relaxed)
            .saturating_sub(self.done.load(Ordering::Relaxed));
        let rate = self.rate_per_s();
        if left == 0 {
            Some(0.0)
        } else if rate > 0.0 {
            Some(left as f64 / rate)
        } else {
            None
        }
    }

    /// The files of this run a client may download (its kind's).
    pub fn files(&self) -> &'static [&'static str] {
        self.files
    }

    /// What the API answers for `GET /api/v1/runs/{id}`.
    pub fn snapshot(&self) -> RunProgress {
        let files: Vec<String> = std::fs::read_dir(&self.out_dir)
            .map(|dir| {
                let mut names: Vec<String> = dir
                    .filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| self.files().contains(&n.as_str()))
                    .collect();
                names.sort();
                names
            })
            .unwrap_or_default();
        RunProgress {
            id: self.id.clone(),
            benchmark: self.benchmark.clone(),
            model: self.model.clone(),
            state: self.state(),
            done: self.done.load(Ordering::Relaxed),
            total: self.total.load(Ordering::Relaxed),
            reused: self.reused.load(Ordering::Relaxed),
            failed: self.failed.load(Ordering::Relaxed),
            elapsed_s: self.started.elapsed().as_secs_f64(),
            rate_per_s: Some(self.rate_per_s()),
            eta_s: self.eta_s(),
            usage: RunUsage {
                model: self.usage(Role::Model),
                judge: self.usage(Role::Judge),
            },
            error: self.error.lock().ok().and_then(|e| e.clone()),
            files,
        }
    }

    /// One line for the terminal.
    pub fn line(&self) -> String {
        let done = self.done.load(Ordering::Relaxed);
        let total = self.total.load(Ordering::Relaxed);
        let model = self.usage(Role::Model);
        let eta = self
            .eta_s()
            .map(|s| format!("{:.0}s", s))
            .unwrap_or_else(|| "?".into());
        let cost = model
            .cost
            .map(|c| format!(", cost {c:.4}"))
            .unwrap_or_default();
        let judge = self.usage(Role::Judge);
        let judge_part = if judge.upstream_calls + judge.cache_hits > 0 {
            let cost = judge
                .cost
                .map(|c| format!(", cost {c:.4}"))
                .unwrap_or_default();
            format!(
                "; judge: {} calls, {} cache hits, {} tokens in, {} tokens out{cost}",
                judge.upstream_calls,
                judge.cache_hits,
                judge.prompt_tokens,
                judge.completion_tokens
            )
        } else {
            String::new()
        };
        format!(
            "{}: {done}/{total} ({} reused, {} failed), {:.2}/s, ETA {eta}, {} calls, {} cache hits, {} tokens out{cost}{judge_part}",
            self.benchmark,
            self.reused.load(Ordering::Relaxed),
            self.failed.load(Ordering::Relaxed),
            self.rate_per_s(),
            model.upstream_calls,
            model.cache_hits,
            model.completion_tokens,
        )
    }
}

pub use workbench::runs::RunError;

/// A fresh run id: 16 hex characters from the clock, the process and a counter.
pub fn new_run_id() -> String {
    use sha2::{Digest, Sha256};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let material = format!(
        "{nanos}-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    hex::encode(&Sha256::digest(material.as_bytes())[..8])
}
