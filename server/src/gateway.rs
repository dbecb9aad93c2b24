//! The one way scorebench calls a model: route by `model`, answer from the cache when it can,
//! else call the upstream (bounded, retried), store a successful reply, and count tokens and
//! cost. The HTTP proxy and the benchmark runs both go through [`Gateway::call_json`].

use std::path::Path;

use bytes::Bytes;
use serde_json::Value;

use crate::cache::{
    Cache, CacheError, UsageTotals, canonical_request, key_of_canonical, request_digest,
};
use crate::config::Config;
use crate::upstream::{Endpoint, RetryPolicy, Upstream, UpstreamError, Upstreams};

/// Largest upstream reply read into memory (non-streaming).
pub const MAX_REPLY_BYTES: usize = 64 * 1024 * 1024;

/// What runs reach outside the process: the upstreams, the cache, and (when the config allows
/// it) where `sgi-dry-exec` runs code.
#[derive(Debug)]
pub struct Gateway {
    pub upstreams: Upstreams,
    pub cache: Cache,
    /// `[sgi_dry_exec]` of the config: step 3 may run over HTTP.
    pub dry_exec: Option<crate::config::DryExecConfig>,
}

/// Which sample of a request a call is (part of the cache key: n samples of one prompt are n
/// cache entries).
#[derive(Debug, Clone)]
pub enum Sample {
    /// This index (runs know theirs: MSQA's sample number, a judge's attempt).
    Fixed(u64),
    /// The next one of this request in a session (the proxy without `x-scorebench-sample`;
    /// see [`crate::sampling`]).
    Next(std::sync::Arc<crate::sampling::Session>),
}

/// One call: the JSON body (holding `model`), the sample, whether the cache may answer, and
/// the retry policy (`None`: the upstream's configured one).
pub struct Call {
    pub endpoint: Endpoint,
    pub body: Value,
    pub sample: Sample,
    pub use_cache: bool,
    pub policy: Option<RetryPolicy>,
}

/// A successful reply.
#[derive(Debug, Clone)]
pub struct Answer {
    pub json: Value,
    pub bytes: Bytes,
    pub cached: bool,
    /// The sample index answered.
    pub sample: u64,
    /// Calls, tokens and cost of this one answer.
    pub usage: UsageTotals,
}

#[derive(Debug, thiserror::Error)]
pub enum CallError {
    #[error("the request body has no \"model\" string")]
    NoModel,
    #[error("model {0:?} is not served here: GET /api/v1/models lists the allowed models")]
    UnknownModel(String),
    #[error(transparent)]
    Upstream(#[from] UpstreamError),
    /// The upstream answered with a non-success status (after retries); `3xx` included,
    /// since redirects are not followed.
    #[error("upstream {upstream} answered {status} after {attempts} attempt(s)")]
    Status {
        upstream: String,
        status: u16,
        body: ErrorReply,
        attempts: u32,
    },
    #[error("upstream {upstream}: the reply is not JSON: {message}")]
    NotJson { upstream: String, message: String },
    #[error("upstream {upstream}: the reply was refused: {why}")]
    Refused { upstream: String, why: String },
    #[error(transparent)]
    Cache(#[from] CacheError),
}

/// An upstream's error reply, read and with every key and bearer token masked: what may be
/// shown to a client. Nothing else of the reply (headers, other JSON fields) is kept.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorReply {
    /// The upstream's own message (`error.message`, `error`, `message` or `detail` of a JSON
    /// body), or a note saying what kind of body was not shown.
    pub message: String,
    /// `error.type` of a JSON body.
    pub kind: Option<String>,
    /// `error.code` of a JSON body, as text.
    pub code: Option<String>,
}

/// Longest upstream message passed on, in characters.
const MAX_ERROR_MESSAGE_CHARS: usize = 2000;

impl ErrorReply {
    /// Read an error body: JSON is searched for a message; any other body (an HTML error
    /// page, text) is not shown, only its type and size.
    pub fn parse(
        content_type: Option<&str>,
        body: &[u8],
        redactor: &crate::redact::Redactor,
    ) -> ErrorReply {
        let text_of = |v: &Value| match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        };
        let mask = |s: String| {
            let masked = redactor.error_text(&s);
            match masked.char_indices().nth(MAX_ERROR_MESSAGE_CHARS) {
                Some((cut, _)) => format!("{}…", &masked[..cut]),
                None => masked,
            }
        };
        if let Ok(json) = serde_json::from_slice::<Value>(body) {
            let error = &json["error"];
            let message = [&error["message"], error, &json["message"], &json["detail"]]
                .into_iter()
                .find_map(|v| v.as_str().map(str::to_string))
                .unwrap_or_else(|| json.to_string());
            return ErrorReply {
                message: mask(message),
                kind: text_of(&error["type"]).map(mask),
                code: text_of(&error["code"]).map(mask),
            };
        }
        let kind = content_type
            .and_then(|c| c.split(';').next())
            .map(|c| mask(c.trim().to_string()))
            .filter(|c| !c.is_empty())
            .unwrap_or_else(|| "untyped".into());
        ErrorReply {
            message: format!("a {kind} body of {} bytes (not shown)", body.len()),
            kind: None,
            code: None,
        }
    }
}

/// `usage.prompt_tokens` and `usage.completion_tokens` of a reply (0 when absent).
pub fn reply_tokens(reply: &Value) -> (u64, u64) {
    let get = |k: &str| reply["usage"][k].as_u64().unwrap_or(0);
    (get("prompt_tokens"), get("completion_tokens"))
}

/// The price of some tokens on an upstream, `None` when it has no price.
pub fn cost(upstream: &Upstream, prompt_tokens: u64, completion_tokens: u64) -> Option<f64> {
    let c = &upstream.config;
    if c.price_per_million_input_tokens.is_none() && c.price_per_million_output_tokens.is_none() {
        return None;
    }
    Some(
        (prompt_tokens as f64 * c.price_per_million_input_tokens.unwrap_or(0.0)
            + completion_tokens as f64 * c.price_per_million_output_tokens.unwrap_or(0.0))
            / 1e6,
    )
}

impl Gateway {
    pub fn open(config: &Config, db: &Path) -> anyhow::Result<Gateway> {
        Ok(Gateway {
            upstreams: Upstreams::new(config)
                .map_err(|e| anyhow::anyhow!("cannot build the HTTP client: {e}"))?,
            cache: Cache::open(db)?,
            dry_exec: config.dry_exec.clone(),
        })
    }

    /// The upstream serving the body's `model`.
    pub fn route(&self, body: &Value) -> Result<&Upstream, CallError> {
        let model = body["model"].as_str().ok_or(CallError::NoModel)?;
        self.upstreams
            .route(model)
            .ok_or_else(|| CallError::UnknownModel(model.to_string()))
    }

    /// Call with the cache. `accept` checks a reply before it is returned or stored: a refused
    /// upstream reply is an error and is not cached; a refused cached reply is ignored and the
    /// upstream is asked.
    pub async fn call_json(
        &self,
        call: Call,
        accept: impl Fn(&Value) -> Result<(), String>,
    ) -> Result<Answer, CallError> {
        let upstream = self.route(&call.body)?;
        let name = upstream.config.name.clone();
        let canonical = canonical_request(&call.body);
        // A session's sample is taken for good only when the call answers; a failed call
        // (an early return below drops the claim) gives it back for the retry.
        let (sample, claim) = match &call.sample {
            Sample::Fixed(sample) => (*sample, None),
            Sample::Next(session) => {
                let claim = session.claim(request_digest(&name, call.endpoint, &canonical));
                (claim.index(), Some(claim))
            }
        };
        let key = key_of_canonical(&name, call.endpoint, &canonical, sample);
        drop(canonical);
        if call.use_cache
            && let Some(bytes) = self.cache.get(key.clone()).await?
            && let Ok(json) = serde_json::from_slice::<Value>(&bytes)
            && accept(&json).is_ok()
        {
            let (prompt_tokens, completion_tokens) = reply_tokens(&json);
            if let Some(claim) = claim {
                claim.keep();
            }
            return Ok(Answer {
                json,
                bytes,
                cached: true,
                sample,
                usage: UsageTotals {
                    cache_hits: 1,
                    prompt_tokens,
                    completion_tokens,
                    ..UsageTotals::default()
                },
            });
        }
        let body = Bytes::from(call.body.to_string());
        let policy = call.policy.unwrap_or_else(|| Upstreams::policy(upstream));
        let reply = self
            .upstreams
            .post(upstream, call.endpoint, body, policy)
            .await?;
        let status = reply.response.status();
        let attempts = reply.attempts;
        let content_type = content_type(&reply.response);
        let bytes = read_limited(reply.response, &name, attempts).await?;
        drop(reply.permit);
        let redactor = self.upstreams.redactor();
        if !status.is_success() {
            return Err(CallError::Status {
                upstream: name,
                status: status.as_u16(),
                body: ErrorReply::parse(content_type.as_deref(), &bytes, redactor),
                attempts,
            });
        }
        let bytes = redactor.reply(bytes);
        let json: Value = serde_json::from_slice(&bytes).map_err(|e| CallError::NotJson {
            upstream: name.clone(),
            message: e.to_string(),
        })?;
        accept(&json).map_err(|why| CallError::Refused {
            upstream: name.clone(),
            why,
        })?;
        let model = call.body["model"].as_str().unwrap_or_default().to_string();
        self.cache
            .put(key, name, model, call.endpoint, bytes.clone())
            .await?;
        let (prompt_tokens, completion_tokens) = reply_tokens(&json);
        if let Some(claim) = claim {
            claim.keep();
        }
        Ok(Answer {
            json,
            bytes,
            cached: false,
            sample,
            usage: UsageTotals {
                upstream_calls: u64::from(attempts),
                cache_hits: 0,
                prompt_tokens,
                completion_tokens,
                cost: cost(upstream, prompt_tokens, completion_tokens),
            },
        })
    }
}

/// The reply's `Content-Type`, when it is text.
pub fn content_type(response: &reqwest::Response) -> Option<String> {
    response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// Read a reply body of at most [`MAX_REPLY_BYTES`].
pub async fn read_limited(
    mut response: reqwest::Response,
    upstream: &str,
    attempts: u32,
) -> Result<Bytes, CallError> {
    let mut out = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if out.len() + chunk.len() > MAX_REPLY_BYTES {
                    return Err(CallError::Upstream(UpstreamError::Transport {
                        upstream: upstream.to_string(),
                        message: format!("the reply is larger than {MAX_REPLY_BYTES} bytes"),
                        attempts,
                    }));
                }
                out.extend_from_slice(&chunk);
            }
            Ok(None) => return Ok(Bytes::from(out)),
            Err(e) => {
                return Err(CallError::Upstream(UpstreamError::Transport {
                    upstream: upstream.to_string(),
                    message: crate::upstream::describe(&e),
                    attempts,
                }));
            }
        }
    }
}
