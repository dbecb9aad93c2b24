//! The key-holding proxy: OpenAI-compatible `POST /api/v1/chat/completions` and
//! `POST /api/v1/embeddings`, routed by `model`; `GET /api/v1/models`.
//!
//! Request headers (all optional):
//! - `x-scorebench-sample: N` — the sample index in the cache key, so n samples of one prompt
//!   are n cache entries (default: the k-th identical request of the session is sample k, see
//!   [`crate::sampling`]);
//! - `x-scorebench-cache: off` — do not answer from the cache (the reply is still stored);
//! - `x-scorebench-run: ID` and `x-scorebench-role: model|judge` — count the tokens to a run.
//!
//! Reply header `x-scorebench-cache: hit|miss` (not on streamed replies, which bypass the
//! cache). Nothing the client sends is forwarded but the JSON body: its `Authorization` header
//! is dropped and the upstream's is set from the config. Nothing the upstream sends is passed
//! on but the body (keys masked, [`crate::redact`]) and, for streams, a JSON or event-stream
//! `Content-Type`; an upstream error becomes an OpenAI error with the upstream's status.

use std::sync::Arc;
use workbench::wire::runs::{Model, ModelList};

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::StreamExt;
use serde_json::Value;

use crate::api::AppState;
use crate::api::JsonBody;
use crate::cache::Role;
use crate::error::ApiError;
use crate::gateway::{Call, CallError, ErrorReply, Sample};
use crate::runs::engine::Llm;
use crate::sampling::{ClientAddr, SessionKey};
use crate::upstream::{Endpoint, Upstreams};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/v1/chat/completions", post(chat_completions))
        .route("/v1/embeddings", post(embeddings))
        .route("/v1/models", get(models))
}

/// The configured services, or 503.
pub fn llm(state: &AppState) -> Result<Arc<Llm>, ApiError> {
    state.llm.clone().ok_or_else(|| {
        ApiError::Unavailable("no upstream is configured: start the server with --config".into())
    })
}

/// The allowed models; without `--config` an empty list (the page asks on every load, so this
/// is not an error), with `"configured": false`.
async fn models(State(state): State<AppState>) -> Response {
    let data = match state.llm.clone() {
        Some(llm) => llm
            .gateway
            .upstreams
            .models()
            .into_iter()
            .map(|(model, upstream)| Model {
                id: model.to_string(),
                object: "model".into(),
                owned_by: upstream.to_string(),
            })
            .collect(),
        None => Vec::new(),
    };
    axum::Json(ModelList {
        object: "list".into(),
        configured: state.llm.is_some(),
        data,
    })
    .into_response()
}

async fn chat_completions(
    State(state): State<AppState>,
    client: ClientAddr,
    headers: HeaderMap,
    body: JsonBody,
) -> Result<Response, ApiError> {
    forward(state, client, headers, body, Endpoint::ChatCompletions).await
}

async fn embeddings(
    State(state): State<AppState>,
    client: ClientAddr,
    headers: HeaderMap,
    body: JsonBody,
) -> Result<Response, ApiError> {
    forward(state, client, headers, body, Endpoint::Embeddings).await
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Map a gateway error to the API's: the client's mistakes are 400, upstream trouble 502 (or
/// the upstream's own status and body).
pub fn api_error(e: CallError) -> ApiError {
    match e {
        CallError::NoModel | CallError::UnknownModel(_) => ApiError::BadRequest(e.to_string()),
        CallError::Status {
            upstream,
            status,
            body,
            ..
        } => ApiError::Upstream {
            upstream,
            status,
            reply: body,
        },
        CallError::Upstream(_) | CallError::NotJson { .. } | CallError::Refused { .. } => {
            ApiError::BadGateway(e.to_string())
        }
        CallError::Cache(e) => ApiError::Internal(e.to_string()),
    }
}

async fn forward(
    state: AppState,
    client: ClientAddr,
    headers: HeaderMap,
    body: JsonBody,
    endpoint: Endpoint,
) -> Result<Response, ApiError> {
    let llm = llm(&state)?;
    let json: Value = serde_json::from_slice(&body.bytes)
        .map_err(|e| ApiError::BadRequest(format!("the request body is not JSON: {e}")))?;
    if !json.is_object() {
        return Err(ApiError::BadRequest(
            "the request body must be a JSON object".into(),
        ));
    }
    let upstream = llm.gateway.route(&json).map_err(api_error)?;
    if json["stream"].as_bool() == Some(true) {
        let policy = Upstreams::policy(upstream);
        let reply = llm
            .gateway
            .upstreams
            .post(upstream, endpoint, body.bytes.clone(), policy)
            .await
            .map_err(|e| ApiError::BadGateway(e.to_string()))?;
        let status = reply.response.status();
        let content_type = crate::gateway::content_type(&reply.response);
        let redactor = llm.gateway.upstreams.redactor().clone();
        if !status.is_success() {
            let name = upstream.config.name.clone();
            let bytes = crate::gateway::read_limited(reply.response, &name, reply.attempts)
                .await
                .map_err(api_error)?;
            return Err(ApiError::Upstream {
                upstream: name,
                status: status.as_u16(),
                reply: ErrorReply::parse(content_type.as_deref(), &bytes, &redactor),
            });
        }
        // Only a JSON or event-stream type is passed on; anything else is sent as a stream.
        let content_type = content_type
            .filter(|c| c.starts_with("text/event-stream") || c.starts_with("application/json"))
            .and_then(|c| HeaderValue::from_str(&c).ok())
            .unwrap_or_else(|| HeaderValue::from_static("text/event-stream"));
        let permit = reply.permit;
        // The permit lives as long as the stream: the concurrency limit covers the whole body.
        let stream = redactor
            .stream(reply.response.bytes_stream())
            .map(move |chunk| {
                let _held = &permit;
                chunk
            });
        let mut response = Response::new(Body::from_stream(stream));
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, content_type);
        return Ok(response);
    }
    let sample = match header_str(&headers, "x-scorebench-sample") {
        None => None,
        Some(s) => Some(s.parse().map_err(|_| {
            ApiError::BadRequest(format!(
                "x-scorebench-sample must be a whole number, got {s:?}"
            ))
        })?),
    };
    let use_cache = header_str(&headers, "x-scorebench-cache") != Some("off");
    let role = match header_str(&headers, "x-scorebench-role") {
        None | Some("model") => Role::Model,
        Some("judge") => Role::Judge,
        Some(other) => {
            return Err(ApiError::BadRequest(format!(
                "x-scorebench-role must be model or judge, got {other:?}"
            )));
        }
    };
    let run = llm
        .run_of_header(header_str(&headers, "x-scorebench-run"))
        .await
        .map_err(|e| match e {
            crate::runs::progress::RunError::Input(m) => ApiError::BadRequest(m),
            other => ApiError::Internal(other.to_string()),
        })?;
    let answer = llm
        .gateway
        .call_json(
            Call {
                endpoint,
                body: json,
                // The k-th identical request of the session gets sample k (crate::sampling).
                sample: match sample {
                    Some(n) => Sample::Fixed(n),
                    None => Sample::Next(llm.sampler.session(match &run {
                        Some(id) => SessionKey::Run(id.clone()),
                        None => SessionKey::Client(client.0),
                    })),
                },
                use_cache,
                policy: None,
            },
            |_| Ok(()),
        )
        .await
        .map_err(api_error)?;
    if let Some(run) = run {
        llm.gateway
            .cache
            .add_usage(run, role, answer.usage)
            .await
            .map_err(|e| ApiError::Internal(e.to_string()))?;
    }
    Ok((
        [
            (header::CONTENT_TYPE, "application/json".to_string()),
            (
                header::HeaderName::from_static("x-scorebench-cache"),
                if answer.cached { "hit" } else { "miss" }.to_string(),
            ),
            (
                header::HeaderName::from_static("x-scorebench-sample"),
                answer.sample.to_string(),
            ),
        ],
        answer.bytes,
    )
        .into_response())
}
