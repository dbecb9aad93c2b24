//! The HTTP surface: `/api/*` first, then the built app (`dist/`) with an `index.html`
//! fallback so deep links such as `/leaderboard/abc` load the app.

use std::path::Path;

use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::response::Html;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;
use tower_http::services::{ServeDir, ServeFile};

pub use crate::api::{ApiError, AppState};

/// Largest request body the API accepts.
pub const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;

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
