//! Calling the configured OpenAI-compatible upstreams: routing by model, the per-upstream
//! concurrency limit (a tokio `Semaphore`), the per-request timeout and bounded retries.
//!
//! The URL called is always `{base_url}/{endpoint}` of the upstream that lists the model; a
//! request can name neither a URL nor an upstream. The `Authorization` header is set here from
//! the configured key, and nothing a client sent is forwarded except the JSON body.
//! **Invariant:** no error or log line built here contains the key (it only ever goes into the
//! header) or the upstream's URL path beyond `base_url`.
//!
//! Redirects are never followed (`redirect::Policy::none()`): a `3xx` reply comes back like any
//! other status and the callers treat it as an upstream error, so a prompt never goes to a host
//! the config does not name and another host's reply is never cached.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::config::{Config, UpstreamConfig};
use crate::redact::Redactor;

/// The two proxied endpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    ChatCompletions,
    Embeddings,
}

impl Endpoint {
    pub fn path(self) -> &'static str {
        match self {
            Endpoint::ChatCompletions => "chat/completions",
            Endpoint::Embeddings => "embeddings",
        }
    }
}

/// One configured upstream and its concurrency limit.
#[derive(Debug)]
pub struct Upstream {
    pub config: UpstreamConfig,
    semaphore: Arc<Semaphore>,
}

/// All upstreams, routed by model name.
#[derive(Debug)]
pub struct Upstreams {
    client: reqwest::Client,
    list: Vec<Upstream>,
    by_model: HashMap<String, usize>,
    /// Every configured key, to mask in what upstreams send back.
    redactor: Redactor,
}

/// Why an upstream call gave no usable reply.
#[derive(Debug, Clone, thiserror::Error)]
pub enum UpstreamError {
    /// No reply: connection refused or reset, timeout, unreadable body.
    #[error("upstream {upstream}: {message} (after {attempts} attempt(s))")]
    Transport {
        upstream: String,
        message: String,
        attempts: u32,
    },
}

/// A reply with a status (any status) and the permit, which the caller holds while it reads
/// the body so the concurrency limit covers streamed bodies too.
pub struct UpstreamReply {
    pub response: reqwest::Response,
    pub permit: OwnedSemaphorePermit,
    pub attempts: u32,
}

/// How many attempts and how long to wait between them.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    pub max_attempts: u32,
    pub backoff_ms: u64,
    /// Per-request timeout; `None`: the upstream's `request_timeout_secs`.
    pub timeout_secs: Option<u64>,
}

impl Upstreams {
    pub fn new(config: &Config) -> Result<Upstreams, reqwest::Error> {
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(256)
            .tcp_nodelay(true)
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        let redactor = Redactor::new(config.upstreams.iter().filter_map(|u| u.api_key.expose()));
        let mut by_model = HashMap::new();
        let list = config
            .upstreams
            .iter()
            .enumerate()
            .map(|(index, u)| {
                for m in &u.models {
                    by_model.insert(m.clone(), index);
                }
                Upstream {
                    config: u.clone(),
                    semaphore: Arc::new(Semaphore::new(u.max_concurrency)),
                }
            })
            .collect();
        Ok(Upstreams {
            client,
            list,
            by_model,
            redactor,
        })
    }

    /// Masks the configured keys in upstream replies (see [`crate::redact`]).
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// The upstream that lists `model`.
    pub fn route(&self, model: &str) -> Option<&Upstream> {
        self.by_model.get(model).map(|&i| &self.list[i])
    }

    /// Every allowed model with its upstream's name, in config order.
    pub fn models(&self) -> Vec<(&str, &str)> {
        self.list
            .iter()
            .flat_map(|u| {
                u.config
                    .models
                    .iter()
                    .map(move |m| (m.as_str(), u.config.name.as_str()))
            })
            .collect()
    }

    /// The upstream's own retry policy (used by the proxy).
    pub fn policy(upstream: &Upstream) -> RetryPolicy {
        RetryPolicy {
            max_attempts: upstream.config.max_retries + 1,
            backoff_ms: upstream.config.retry_backoff_ms,
            timeout_secs: None,
        }
    }

    /// POST `body` to the upstream's endpoint. 429 and 5xx replies and transport errors are
    /// retried with doubling backoff up to `policy.max_attempts`; the last reply is returned
    /// whatever its status.
    pub async fn post(
        &self,
        upstream: &Upstream,
        endpoint: Endpoint,
        body: Bytes,
        policy: RetryPolicy,
    ) -> Result<UpstreamReply, UpstreamError> {
        let url = format!("{}/{}", upstream.config.base_url, endpoint.path());
        let timeout = Duration::from_secs(
            policy
                .timeout_secs
                .unwrap_or(upstream.config.request_timeout_secs)
                .max(1),
        );
        let max_attempts = policy.max_attempts.max(1);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let permit = upstream
                .semaphore
                .clone()
                .acquire_owned()
                .await
                .map_err(|_| UpstreamError::Transport {
                    upstream: upstream.config.name.clone(),
                    message: "shutting down".into(),
                    attempts: attempt,
                })?;
            let mut request = self
                .client
                .post(&url)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .timeout(timeout)
                .body(body.clone());
            if let Some(key) = upstream.config.api_key.expose() {
                request = request.bearer_auth(key);
            }
            let outcome = request.send().await;
            let retryable = match &outcome {
                Ok(r) => r.status().as_u16() == 429 || r.status().is_server_error(),
                Err(_) => true,
            };
            if !retryable || attempt >= max_attempts {
                return match outcome {
                    Ok(response) => Ok(UpstreamReply {
                        response,
                        permit,
                        attempts: attempt,
                    }),
                    Err(e) => Err(UpstreamError::Transport {
                        upstream: upstream.config.name.clone(),
                        message: describe(&e),
                        attempts: attempt,
                    }),
                };
            }
            drop(permit);
            match &outcome {
                Ok(r) => {
                    tracing::debug!(upstream = %upstream.config.name, status = %r.status(), attempt, "retrying")
                }
                Err(e) => {
                    tracing::debug!(upstream = %upstream.config.name, error = %describe(e), attempt, "retrying")
                }
            }
            let wait = policy.backoff_ms.saturating_mul(1 << (attempt - 1).min(10));
            tokio::time::sleep(Duration::from_millis(wait)).await;
        }
    }
}

/// A transport error without the URL.
pub fn describe(e: &reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "cannot connect"
    } else if e.is_body() || e.is_decode() {
        "the reply body broke off"
    } else {
        "request failed"
    };
    let detail = std::error::Error::source(e)
        .map(|s| format!(": {s}"))
        .unwrap_or_default();
    format!("{kind}{detail}")
}
