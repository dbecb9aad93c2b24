//! The one error type of the JSON API, in the OpenAI shape
//! `{"error": {"message", "type", "code"}}`, and the reshaping of framework refusals. A leaf of
//! the HTTP layer: it imports no route module and no state.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::gateway::ErrorReply;

/// Errors of the JSON API: a status and a message the client may show.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("not found: {0}")]
    NotFound(String),
    #[error("bad request: {0}")]
    BadRequest(String),
    #[error("unauthorized: {0}")]
    Unauthorized(String),
    #[error("forbidden: {0}")]
    Forbidden(String),
    #[error("conflict: {0}")]
    Conflict(String),
    #[error("request timeout: {0}")]
    RequestTimeout(String),
    /// The body is over the route's limit (bytes).
    #[error("the request body is larger than {0} bytes")]
    PayloadTooLarge(usize),
    #[error("unsupported media type: {0}")]
    UnsupportedMediaType(String),
    #[error("bad gateway: {0}")]
    BadGateway(String),
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// An upstream's own error reply: its status (a `3xx` becomes `502`) and its message with
    /// keys masked ([`ErrorReply`]).
    #[error("upstream {upstream} answered {status}: {}", .reply.message)]
    Upstream {
        upstream: String,
        status: u16,
        reply: ErrorReply,
    },
    #[error("internal error")]
    Internal(String),
}

/// The OpenAI error body.
pub(crate) fn error_response(
    status: StatusCode,
    message: &str,
    kind: &str,
    code: Option<&str>,
) -> Response {
    (
        status,
        Json(json!({"error": {"message": message, "type": kind, "code": code}})),
    )
        .into_response()
}

/// The OpenAI `type` for a status.
pub(crate) fn kind_of(status: StatusCode) -> &'static str {
    match status.as_u16() {
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        429 => "rate_limit_error",
        400..=499 => "invalid_request_error",
        _ => "server_error",
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ApiError::Upstream {
            upstream,
            status,
            reply,
        } = &self
        {
            let message = self.to_string();
            if (300..400).contains(status) {
                return error_response(
                    StatusCode::BAD_GATEWAY,
                    &format!(
                        "upstream {upstream} answered {status}, a redirect: redirects are not followed"
                    ),
                    "upstream_error",
                    Some("upstream_redirect"),
                );
            }
            let status = StatusCode::from_u16(*status)
                .ok()
                .filter(|s| s.is_client_error() || s.is_server_error())
                .unwrap_or(StatusCode::BAD_GATEWAY);
            return error_response(
                status,
                &message,
                reply.kind.as_deref().unwrap_or("upstream_error"),
                Some(reply.code.as_deref().unwrap_or("upstream_error")),
            );
        }
        let (status, code) = match &self {
            ApiError::NotFound(_) => (StatusCode::NOT_FOUND, "not_found"),
            ApiError::BadRequest(_) => (StatusCode::BAD_REQUEST, "bad_request"),
            ApiError::Unauthorized(_) => (StatusCode::UNAUTHORIZED, "unauthorized"),
            ApiError::Forbidden(_) => (StatusCode::FORBIDDEN, "forbidden"),
            ApiError::Conflict(_) => (StatusCode::CONFLICT, "conflict"),
            ApiError::RequestTimeout(_) => (StatusCode::REQUEST_TIMEOUT, "request_timeout"),
            ApiError::PayloadTooLarge(_) => (StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large"),
            ApiError::UnsupportedMediaType(_) => {
                (StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type")
            }
            ApiError::BadGateway(_) => (StatusCode::BAD_GATEWAY, "bad_gateway"),
            ApiError::Unavailable(_) => (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
            ApiError::Upstream { .. } => (StatusCode::BAD_GATEWAY, "upstream_error"),
            ApiError::Internal(detail) => {
                tracing::error!("internal error: {detail}");
                (StatusCode::INTERNAL_SERVER_ERROR, "internal_error")
            }
        };
        error_response(status, &self.to_string(), kind_of(status), Some(code))
    }
}

/// A framework refusal that is not JSON yet (axum's `405`, a bad path or query string, a body
/// over the limit): its parts and its message (the body's text, else the status's reason), for
/// a route family to answer in its own error shape. `Err` gives back a response with nothing to
/// reshape (a success, or JSON already).
pub async fn framework_refusal(
    response: Response,
) -> Result<(axum::http::response::Parts, String), Response> {
    let status = response.status();
    let is_json = response
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return Err(response);
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 64 * 1024)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    let message = if text.is_empty() {
        status
            .canonical_reason()
            .unwrap_or("error")
            .to_ascii_lowercase()
    } else {
        text
    };
    Ok((parts, message))
}
