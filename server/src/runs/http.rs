//! `/api/v1/runs`: start a run, watch it, pause and resume it, fetch its files
//! (documented in `server/API.md`).

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::Value;

use super::eotgc::{EotgcOptions, Track};
use super::msqa::MsqaOptions;
use super::{Llm, Progress, RunError, RunState, new_run_id};
use crate::http::{ApiError, AppState};
use crate::proxy::llm;

/// The only files a client may fetch from a run's folder.
pub const ALLOWED_FILES: &[&str] = &[
    "evaluation.json",
    "evaluation.log",
    "score.json",
    "subtasks.json",
    "track1.json",
    "track2.json",
    "unparsed.json",
    "replies.log",
];

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/v1/runs", post(start))
        .route("/v1/runs/{id}", get(status))
        .route("/v1/runs/{id}/pause", post(pause))
        .route("/v1/runs/{id}/resume", post(resume))
        .route("/v1/runs/{id}/files/{name}", get(file))
}

/// `POST /api/v1/runs` body.
#[derive(Debug, Deserialize)]
#[serde(tag = "benchmark", rename_all = "snake_case")]
pub enum StartRun {
    Msqa {
        /// The rows of `MSQA_Dataset.json`.
        dataset: Vec<Value>,
        #[serde(flatten)]
        options: MsqaOptions,
    },
    Eotgc {
        track: u8,
        /// The test essays `[{id, grade, requirement, title, content}]`.
        dataset: Vec<Value>,
        model: String,
        #[serde(default = "eight")]
        workers: usize,
        #[serde(default)]
        max_tokens: Option<u64>,
        #[serde(default)]
        temperature: Option<f64>,
        #[serde(default)]
        top_p: Option<f64>,
        #[serde(default = "hour")]
        timeout_secs: u64,
        #[serde(default = "ten_s")]
        retry_wait_ms: u64,
    },
}

fn eight() -> usize {
    8
}
fn hour() -> u64 {
    3600
}
fn ten_s() -> u64 {
    10_000
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
    body: crate::http::JsonBody,
) -> Result<Response, ApiError> {
    let llm = llm(&state)?;
    let request: StartRun = serde_json::from_slice(&body.bytes)
        .map_err(|e| ApiError::BadRequest(format!("not a run request: {e}")))?;
    let id = new_run_id();
    let out_dir = llm.runs_dir.join(&id);
    let (benchmark, model) = match &request {
        StartRun::Msqa { options, .. } => ("msqa", options.model.clone()),
        StartRun::Eotgc { model, .. } => ("eotgc", model.clone()),
    };
    if llm.gateway.upstreams.route(&model).is_none() {
        return Err(ApiError::BadRequest(format!(
            "model {model:?} is not served here: GET /api/v1/models lists the allowed models"
        )));
    }
    // Check the input before answering, so mistakes are a 400 and not a failed run.
    enum Job {
        Msqa(Vec<super::msqa::Row>, MsqaOptions),
        Eotgc(Vec<super::eotgc::Essay>, EotgcOptions),
    }
    let job = match request {
        StartRun::Msqa { dataset, options } => {
            options.check().map_err(run_error)?;
            let rows = super::msqa::rows_from_values("dataset", dataset).map_err(run_error)?;
            Job::Msqa(rows, options)
        }
        StartRun::Eotgc {
            track,
            dataset,
            model,
            workers,
            max_tokens,
            temperature,
            top_p,
            timeout_secs,
            retry_wait_ms,
        } => {
            let track = Track::from_number(track).map_err(run_error)?;
            let essays = super::eotgc::essays_from_values("dataset", dataset).map_err(run_error)?;
            Job::Eotgc(
                essays,
                EotgcOptions {
                    model,
                    track,
                    workers,
                    max_tokens,
                    temperature,
                    top_p,
                    timeout_secs,
                    attempts: 3,
                    retry_wait_ms,
                },
            )
        }
    };
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
        let outcome = match job {
            Job::Msqa(rows, options) => super::msqa::run(
                gateway,
                &options,
                rows,
                None,
                &out_dir,
                task_progress.clone(),
            )
            .await
            .map(|_| ()),
            Job::Eotgc(essays, options) => {
                super::eotgc::run(gateway, &options, essays, &out_dir, task_progress.clone())
                    .await
                    .map(|_| ())
            }
        };
        let state = match outcome {
            Ok(()) => {
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
    let llm = llm(&state)?;
    Ok(Json(find(&llm, &id)?.snapshot()))
}

async fn pause(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let llm = llm(&state)?;
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
    let llm = llm(&state)?;
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
    let llm = llm(&state)?;
    let run = find(&llm, &id)?;
    if !ALLOWED_FILES.contains(&name.as_str()) {
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
