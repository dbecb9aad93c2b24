//! `/api/v1/runs`: start a run (any kind of [`super::kind::REGISTRY`] that runs over HTTP),
//! watch it, pause and resume it, fetch its files (documented in `server/API.md`).

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::Value;

use super::kind::kind_of_body;
use super::{Llm, Progress, RunError, RunState, new_run_id};
use crate::api::{ApiError, AppState};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/v1/runs", post(start))
        .route("/v1/runs/{id}", get(status))
        .route("/v1/runs/{id}/pause", post(pause))
        .route("/v1/runs/{id}/resume", post(resume))
        .route("/v1/runs/{id}/files/{name}", get(file))
}

fn run_error(e: RunError) -> ApiError {
    match e {
        RunError::Input(m) => ApiError::BadRequest(m),
        other => ApiError::Internal(other.to_string()),
    }
}

fn find(llm: &Llm, id: &str) -> Result<Arc<Progress>, ApiError> {
    llm.runs
        .lock()
        .map_err(|_| ApiError::Internal("run table lock poisoned".into()))?
        .get(id)
        .cloned()
        .ok_or_else(|| ApiError::NotFound(format!("run {id}")))
}

async fn start(
    State(state): State<AppState>,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    let llm = state.services()?;
    let kind =
        kind_of_body(&body).map_err(|e| ApiError::BadRequest(format!("not a run request: {e}")))?;
    let body: Value = serde_json::from_slice(&body)
        .map_err(|e| ApiError::BadRequest(format!("not a run request: {e}")))?;
    // Checked before answering, so mistakes are a 400 and not a failed run.
    let plan = kind.plan_from_body(body, &llm.gateway).map_err(run_error)?;
    let id = new_run_id();
    let out_dir = llm.runs_dir.join(&id);
    let benchmark = kind.key();
    let model = plan.model();
    let progress = Arc::new(Progress::new(
        id.clone(),
        benchmark,
        &model,
        out_dir.clone(),
    ));
    llm.runs
        .lock()
        .map_err(|_| ApiError::Internal("run table lock poisoned".into()))?
        .insert(id.clone(), progress.clone());
    llm.gateway
        .cache
        .save_run(
            id.clone(),
            benchmark.into(),
            model.clone(),
            "running".into(),
            out_dir.display().to_string(),
        )
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    let task_llm = llm.clone();
    let task_progress = progress.clone();
    tokio::spawn(async move {
        let gateway = &task_llm.gateway;
        let outcome = plan.execute(gateway, &out_dir, task_progress.clone()).await;
        let state = match outcome {
            Ok(_) => {
                task_progress.set_state(RunState::Finished);
                "finished"
            }
            Err(e) => {
                tracing::warn!(run = %task_progress.id, "run failed: {e}");
                task_progress.fail(e.to_string());
                "failed"
            }
        };
        let _ = gateway
            .cache
            .save_run(
                task_progress.id.clone(),
                task_progress.benchmark.clone(),
                task_progress.model.clone(),
                state.into(),
                out_dir.display().to_string(),
            )
            .await;
    });
    Ok((StatusCode::ACCEPTED, Json(progress.snapshot())).into_response())
}

async fn status(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let llm = state.services()?;
    Ok(Json(find(&llm, &id)?.snapshot()))
}

async fn pause(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let llm = state.services()?;
    let run = find(&llm, &id)?;
    if !run.pause() {
        return Err(ApiError::Conflict(format!(
            "run {id} is not running (state {:?})",
            run.state()
        )));
    }
    Ok(Json(run.snapshot()))
}

async fn resume(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let llm = state.services()?;
    let run = find(&llm, &id)?;
    if !run.resume() {
        return Err(ApiError::Conflict(format!(
            "run {id} is not paused (state {:?})",
            run.state()
        )));
    }
    Ok(Json(run.snapshot()))
}

async fn file(
    State(state): State<AppState>,
    Path((id, name)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let llm = state.services()?;
    let run = find(&llm, &id)?;
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
