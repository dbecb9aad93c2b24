//! The webhook deliveries of one server process: claim a due delivery, POST it signed, record
//! the attempt (`super::hooks` has the rules: allowed hosts, signature, backoff).

use std::sync::Arc;
use std::time::Duration;

use super::dates::now_ms;
use super::hooks::signature;
use super::service::Boards;
use crate::store::{Attempt, DueDelivery};

/// Deliveries one server makes at once.
const PARALLEL: usize = 4;

/// Deliver due events until the process ends: claim, POST, record; woken by new events or
/// every second (other servers' events, retries coming due).
/// A server that allows no host delivers nothing: it leaves the store's deliveries to the
/// servers that do (servers sharing a store should share `--webhook-hosts`).
pub fn start(boards: Arc<Boards>) {
    if boards.hooks.allowed_hosts.is_empty() {
        return;
    }
    tokio::spawn(async move {
        // No idle connections kept: deliveries are few and go to other people's servers.
        let client = match reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .pool_max_idle_per_host(0)
            .timeout(boards.hooks.timeout)
            .build()
        {
            Ok(c) => c,
            Err(e) => {
                tracing::error!("webhooks: no HTTP client: {e}");
                return;
            }
        };
        let slots = Arc::new(tokio::sync::Semaphore::new(PARALLEL));
        loop {
            let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
                return;
            };
            let lease = boards.hooks.timeout + Duration::from_secs(5);
            let now = now_ms();
            match boards
                .store
                .claim_delivery(now, now + lease.as_millis() as i64)
                .await
            {
                Ok(Some(due)) => {
                    let (boards, client) = (Arc::clone(&boards), client.clone());
                    tokio::spawn(async move {
                        let _slot = slot;
                        deliver(&boards, &client, due).await;
                    });
                }
                Ok(None) => {
                    drop(slot);
                    let _ =
                        tokio::time::timeout(Duration::from_secs(1), boards.hook_notify.notified())
                            .await;
                }
                Err(e) => {
                    drop(slot);
                    tracing::warn!("webhooks: {e}");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    });
}

/// One attempt of `due`, recorded.
async fn deliver(boards: &Boards, client: &reqwest::Client, due: DueDelivery) {
    let config = &boards.hooks;
    let attempt_no = due.attempts + 1;
    let (status, error) = match config.refusal(&due.url) {
        Some(why) => (None, Some(why)),
        None => {
            let sent = client
                .post(&due.url)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .header(
                    reqwest::header::USER_AGENT,
                    concat!("scorebench/", env!("CARGO_PKG_VERSION")),
                )
                .header("X-Scorebench-Event", &due.event)
                .header("X-Scorebench-Delivery", due.id.to_string())
                .header(
                    "X-Scorebench-Signature-256",
                    signature(&due.secret, due.body.as_bytes()),
                )
                .body(due.body.clone())
                .send()
                .await;
            match sent {
                Ok(r) if r.status().is_success() => (Some(r.status().as_u16() as i64), None),
                Ok(r) => (
                    Some(r.status().as_u16() as i64),
                    Some(format!("answered {}", r.status())),
                ),
                // The error without the URL (it may carry a secret path).
                Err(e) => (None, Some(transport_error(&e))),
            }
        }
    };
    let delivered = error.is_none();
    let now = now_ms();
    let retry_at_ms = (!delivered && attempt_no < config.max_attempts)
        .then(|| now + config.backoff(attempt_no).as_millis() as i64);
    let attempt = Attempt {
        delivered,
        status,
        error,
        retry_at_ms,
    };
    // A store error is retried a little; else the claim lapses and the attempt is made again.
    for wait in [0, 200, 1000] {
        tokio::time::sleep(Duration::from_millis(wait)).await;
        match boards
            .store
            .record_delivery(due.id, attempt.clone(), now)
            .await
        {
            Ok(()) => return,
            Err(e) => tracing::warn!(
                delivery = due.id,
                "webhooks: cannot record the attempt: {e}"
            ),
        }
    }
}

fn transport_error(e: &reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "cannot connect"
    } else if e.is_redirect() {
        "redirected (not followed)"
    } else {
        "failed"
    };
    format!("the request {kind}")
}
