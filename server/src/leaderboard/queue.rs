//! The scoring queue's workers: each claims a queued competition submission with a lease that it
//! renews while scoring, so a worker that dies loses its job to another worker or process after
//! the lease expires.

use std::sync::Arc;
use std::time::Duration;

use super::dates::now_ms;
use super::service::Boards;
use crate::store::Job;

/// How long a claimed job is held without renewal.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// The queue's settings of one server process.
#[derive(Debug, Clone)]
pub struct QueueConfig {
    pub workers: usize,
    pub lease: Duration,
    /// Sleep this long inside each job before scoring (tests: kill a server mid-job).
    pub job_delay: Duration,
}

impl Default for QueueConfig {
    fn default() -> Self {
        Self {
            workers: 1,
            lease: DEFAULT_LEASE,
            job_delay: Duration::ZERO,
        }
    }
}

/// Start `config.workers` workers scoring the store's queue.
pub fn start(boards: Arc<Boards>, config: QueueConfig) {
    let process = super::token::new_token("w").unwrap_or_else(|_| format!("w{}", now_ms()));
    for i in 0..config.workers {
        let boards = Arc::clone(&boards);
        let config = config.clone();
        let worker = format!("{process}-{i}");
        tokio::spawn(async move { worker_loop(boards, config, worker).await });
    }
}

async fn worker_loop(boards: Arc<Boards>, config: QueueConfig, worker: String) {
    let lease_ms = config.lease.as_millis() as i64;
    loop {
        let claimed = boards.store.claim_job(&worker, now_ms(), lease_ms).await;
        match claimed {
            Ok(Some(job)) => run_job(&boards, &config, &worker, job).await,
            Ok(None) => {
                // Woken by a submission to this process, or poll for other processes' work and
                // expired leases.
                let _ = tokio::time::timeout(
                    Duration::from_millis(500),
                    boards.queue_notify.notified(),
                )
                .await;
            }
            Err(e) => {
                tracing::warn!("scoring queue: {e}");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

async fn run_job(boards: &Arc<Boards>, config: &QueueConfig, worker: &str, job: Job) {
    let lease_ms = config.lease.as_millis() as i64;
    // Renew the lease at a third of its length while the job runs.
    let renew = {
        let (boards, job, worker) = (Arc::clone(boards), job.clone(), worker.to_string());
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(config_third(lease_ms)).await;
                match boards
                    .store
                    .renew_lease(&job, &worker, now_ms() + lease_ms)
                    .await
                {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(e) => tracing::warn!("scoring queue: lease renewal: {e}"),
                }
            }
        })
    };
    if !config.job_delay.is_zero() {
        tokio::time::sleep(config.job_delay).await;
    }
    let scored = boards.score_job(&job).await;
    renew.abort();
    let (result, held) = match scored {
        Ok(r) => r,
        Err(e) => {
            // The store failed: leave the job to expire and be claimed again (it fails after
            // MAX_ATTEMPTS claims).
            tracing::warn!(
                slug = job.slug,
                entry = job.entry,
                "scoring queue: {e}; the job is retried"
            );
            return;
        }
    };
    let finished = boards.store.finish_job(&job, worker, result).await;
    boards
        .release_result(held, matches!(finished, Ok(true)))
        .await;
    match finished {
        Ok(true) => boards.changed(&job.slug, Some(job.entry)),
        Ok(false) => tracing::warn!(
            slug = job.slug,
            entry = job.entry,
            "scoring queue: the lease was lost before the result; another worker scores it"
        ),
        Err(e) => tracing::warn!(slug = job.slug, entry = job.entry, "scoring queue: {e}"),
    }
}

fn config_third(lease_ms: i64) -> Duration {
    Duration::from_millis((lease_ms / 3).max(50) as u64)
}
