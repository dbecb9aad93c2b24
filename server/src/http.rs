//! The HTTP surface: `/api/*` first, then the built app (`dist/`) with an `index.html`
//! fallback so deep links such as `/leaderboard/abc` load the app.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;
use tower_http::services::{ServeDir, ServeFile};

/// Largest request body the API accepts.
pub const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;

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

pub fn app(state: AppState) -> Router {
    let api = Router::new()
        .route("/health", get(health))
        .merge(crate::proxy::routes())
        .merge(crate::runs::http::routes())
        .fallback(|uri: axum::http::Uri| async move { ApiError::NotFound(uri.path().to_string()) })
        .layer(DefaultBodyLimit::max(MAX_REQUEST_BYTES))
        .with_state(state.clone());
    Router::new()
        .nest("/api", api)
        .fallback_service(static_files(&state.dist))
}

async fn health(
    axum::extract::State(state): axum::extract::State<AppState>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let schema = {
        let conn = state
            .db
            .lock()
            .map_err(|_| ApiError::Internal("database lock poisoned".into()))?;
        crate::db::schema_version(&conn).map_err(|e| ApiError::Internal(e.to_string()))?
    };
    Ok(Json(
        json!({ "status": "ok", "version": env!("CARGO_PKG_VERSION"), "schema": schema }),
    ))
}

fn static_files(dist: &Path) -> Router {
    let index = dist.join("index.html");
    if index.is_file() {
        Router::new().fallback_service(ServeDir::new(dist).fallback(ServeFile::new(index)))
    } else {
        let message = format!(
            "<!doctype html><title>scorebench</title><p>The workbench app is not built: no {}. \
             Run <code>scripts/run.sh</code>, which builds it, or <code>trunk build --release</code>.</p>",
            index.display()
        );
        Router::new().fallback(move || {
            let message = message.clone();
            async move { (StatusCode::SERVICE_UNAVAILABLE, Html(message)) }
        })
    }
}
