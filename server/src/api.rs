//! The bottom of the HTTP layer: the state every route shares and the one error type of the
//! JSON API. Everything may import this module; it imports no route module.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// Shared state of the running server.
#[derive(Clone)]
pub struct AppState {
    /// The built app (`trunk build` output).
    pub dist: PathBuf,
    /// The SQLite connection (rusqlite is synchronous; requests are short).
    pub db: Arc<Mutex<rusqlite::Connection>>,
    /// Upstreams, cache and runs; `None` when served without `--config` (the proxy and run
    /// routes then answer 503).
    pub llm: Option<Arc<crate::runs::Llm>>,
}

impl AppState {
    /// The configured services, or 503.
    pub fn services(&self) -> Result<Arc<crate::runs::Llm>, ApiError> {
        self.llm.clone().ok_or_else(|| {
            ApiError::Unavailable(
                "no upstream is configured: start the server with --config".into(),
            )
        })
    }
}

/// Errors of the JSON API: a status and a message the client may show.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("not found: {0}")]
    NotFound(String),
    #[error("bad request: {0}")]
    BadRequest(String),
    #[error("conflict: {0}")]
    Conflict(String),
    #[error("bad gateway: {0}")]
    BadGateway(String),
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// An upstream's own non-success reply, passed through (status and JSON body).
    #[error("upstream answered {status}")]
    Upstream { status: u16, body: bytes::Bytes },
    #[error("internal error")]
    Internal(String),
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ApiError::Upstream { status, body } = self {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
            return (
                status,
                [(axum::http::header::CONTENT_TYPE, "application/json")],
                body,
            )
                .into_response();
        }
        let status = match &self {
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::BadGateway(_) => StatusCode::BAD_GATEWAY,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Upstream { .. } => StatusCode::BAD_GATEWAY,
            ApiError::Internal(detail) => {
                tracing::error!("internal error: {detail}");
                StatusCode::INTERNAL_SERVER_ERROR
            }
        };
        (status, Json(json!({ "error": self.to_string() }))).into_response()
    }
}
