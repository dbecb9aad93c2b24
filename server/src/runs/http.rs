//! `/api/v1/runs`: start a run (any kind of [`super::registry::REGISTRY`] that runs over HTTP),
//! watch it, pause and resume it, fetch its files (documented in `server/API.md`).

use std::sync::Arc;
use workbench::wire::runs::RunProgress;

use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::Value;

use super::engine::Llm;
use super::progress::{Progress, RunError, RunState, new_run_id};
use super::registry::{self, kind_of_body};
use crate::api::AppState;
use crate::cache::{RunRecord, is_run_id};
use crate::error::ApiError;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/v1/runs", post(start))
        .route("/v1/runs/kinds", get(kinds))
        .route("/v1/runs/{id}", get(status))
        .route("/v1/runs/{id}/pause", post(pause))
        .route("/v1/runs/{id}/resume", post(resume))
        .route("/v1/runs/{id}/cancel", post(cancel))
        .route("/v1/runs/{id}/files/{name}", get(file))
}

fn run_error(e: RunError) -> ApiError {
    match e {
        RunError::Input(m) => ApiError::BadRequest(m),
        RunError::Conflict(m) => ApiError::Conflict(m),
        RunError::NotFound(m) => ApiError::NotFound(m),
        other => ApiError::Internal(other.to_string()),
    }
}

fn internal(e: impl std::fmt::Display) -> ApiError {
    ApiError::Internal(e.to_string())
}

/// A run this process executes, else the store's record of it.
async fn find(llm: &Llm, id: &str) -> Result<Arc<Progress>, ApiError> {
    if let Some(progress) = llm.progress(id) {
        return Ok(progress);
    }
    let record = stored(llm, id).await?;
    let usage = llm
        .gateway
        .cache
        .usage(id.to_string())
        .await
        .map_err(internal)?;
    let files = registry::find(&record.kind).map_or(&[][..], |k| k.files());
    Ok(Arc::new(Progress::from_record(&record, files, &usage)))
}

async fn stored(llm: &Llm, id: &str) -> Result<RunRecord, ApiError> {
    let not_found = || ApiError::NotFound(format!("run {id}"));
    if !is_run_id(id) {
        return Err(not_found());
    }
    llm.gateway
        .cache
        .run(id.to_string())
        .await
        .map_err(internal)?
        .ok_or_else(not_found)
}

async fn start(
    State(state): State<AppState>,
    body: crate::api::JsonBody,
) -> Result<Response, ApiError> {
    let llm = state.services()?;
    let kind = kind_of_body(&body.bytes)
        .map_err(|e| ApiError::BadRequest(format!("not a run request: {e}")))?;
    let request: Value = serde_json::from_slice(&body.bytes)
        .map_err(|e| ApiError::BadRequest(format!("not a run request: {e}")))?;
    // Checked before answering, so mistakes are a 400 and not a failed run.
    let plan = kind
        .plan_from_body(request, &llm.gateway)
        .map_err(run_error)?;
    let id = new_run_id();
    let out_dir = llm.runs_dir.join(&id);
    let progress = llm
        .launch(kind, id, out_dir, plan, body.bytes.to_vec())
        .await
        .map_err(run_error)?;
    Ok((StatusCode::ACCEPTED, Json(progress.snapshot())).into_response())
}

/// The kinds the page can start, with their forms.
async fn kinds(State(state): State<AppState>) -> Json<workbench::wire::runs::RunKinds> {
    Json(registry::kinds(state.llm.as_ref().map(|l| &l.gateway)))
}

async fn status(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<RunProgress>, ApiError> {
    let llm = state.services()?;
    Ok(Json(find(&llm, &id).await?.snapshot()))
}

async fn pause(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<RunProgress>, ApiError> {
    let llm = state.services()?;
    let run = find(&llm, &id).await?;
    if !run.pause() {
        return Err(ApiError::Conflict(format!(
            "run {id} is not running (state {:?})",
            run.state()
        )));
    }
    llm.gateway
        .cache
        .set_run_state(id, RunState::Paused.as_str(), None)
        .await
        .map_err(internal)?;
    Ok(Json(run.snapshot()))
}

/// Go on: a paused run takes items again; a run that ended without finishing (failed,
/// cancelled, interrupted by a stopped server) starts again from its stored request under the
/// same id and folder, the cache answering every reply it already had.
async fn resume(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let llm = state.services()?;
    let run = find(&llm, &id).await?;
    match run.state() {
        RunState::Paused => {
            if !run.resume() {
                return Err(ApiError::Conflict(format!(
                    "run {id} is not paused (state {:?})",
                    run.state()
                )));
            }
            llm.gateway
                .cache
                .set_run_state(id, RunState::Running.as_str(), None)
                .await
                .map_err(internal)?;
            Ok(Json(run.snapshot()).into_response())
        }
        RunState::Failed | RunState::Cancelled | RunState::Interrupted => {
            let record = stored(&llm, &id).await?;
            let (Some(kind), Some(request), "http") = (
                registry::find(&record.kind),
                record.request.as_ref(),
                record.origin.as_str(),
            ) else {
                return Err(ApiError::Conflict(format!(
                    "run {id} was started from the command line: resume it with `scorebench run resume {id}`"
                )));
            };
            let body: Value = serde_json::from_slice(request).map_err(internal)?;
            let plan = kind.plan_from_body(body, &llm.gateway).map_err(run_error)?;
            let progress = llm
                .launch(
                    kind,
                    id,
                    std::path::PathBuf::from(&record.out_dir),
                    plan,
                    request.clone(),
                )
                .await
                .map_err(run_error)?;
            Ok((StatusCode::ACCEPTED, Json(progress.snapshot())).into_response())
        }
        other => Err(ApiError::Conflict(format!(
            "run {id} is not paused (state {other:?})"
        ))),
    }
}

async fn cancel(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<RunProgress>, ApiError> {
    let llm = state.services()?;
    if llm.progress(&id).is_none() {
        let run = find(&llm, &id).await?;
        return Err(ApiError::Conflict(format!(
            "run {id} is not running here (state {:?})",
            run.state()
        )));
    }
    let run = llm.cancel(&id).await.map_err(run_error)?;
    Ok(Json(run.snapshot()))
}

async fn file(
    State(state): State<AppState>,
    Path((id, name)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let llm = state.services()?;
    let run = find(&llm, &id).await?;
    if !run.files().contains(&name.as_str()) {
        return Err(ApiError::NotFound(format!("run {id} has no file {name:?}")));
    }
    let path = run.out_dir.join(&name);
    let bytes = tokio::fs::read(&path)
        .await
        .map_err(|_| ApiError::NotFound(format!("run {id} has no {name} (yet)")))?;
    let content_type = if name.ends_with(".json") {
        "application/json"
    } else {
        "application/x-ndjson"
    };
    Ok(([(header::CONTENT_TYPE, content_type)], bytes).into_response())
}
