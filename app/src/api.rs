//! Typed client of the server's JSON API (`server/API.md`): models and runs. Every non-2xx
//! answer becomes one `ApiError` with the server's message. The browser never sees a key or an
//! upstream URL: it only names models.

use gloo_net::http::{Request, Response};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub struct ApiError(pub String);

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

pub use workbench::wire::runs::{
    Field as FormField, Model, ModelList, RunKindInfo as RunKind, RunKinds, RunProgress, RunState,
    Usage,
};

/// The response when it is a success, else its error: the server's errors are
/// `{"error": "message"}` (leaderboards) or the OpenAI shape `{"error": {"message", …}}`.
pub(crate) async fn checked(
    response: Result<Response, gloo_net::Error>,
) -> Result<Response, ApiError> {
    let response = response.map_err(|e| ApiError(format!("cannot reach the server: {e}")))?;
    if response.ok() {
        return Ok(response);
    }
    let status = response.status();
    let message = match response.json::<Value>().await {
        Ok(body) => body["error"]
            .as_str()
            .or_else(|| body["error"]["message"].as_str())
            .map(str::to_string)
            .unwrap_or_else(|| body.to_string()),
        Err(_) => String::new(),
    };
    Err(ApiError(format!("{status}: {message}")))
}

pub(crate) async fn json<T: for<'de> Deserialize<'de>>(response: Response) -> Result<T, ApiError> {
    response
        .json::<T>()
        .await
        .map_err(|e| ApiError(format!("unexpected answer: {e}")))
}

pub async fn models() -> Result<Vec<Model>, ApiError> {
    let response = checked(Request::get("/api/v1/models").send().await).await?;
    Ok(json::<ModelList>(response).await?.data)
}

pub async fn run_kinds() -> Result<Vec<RunKind>, ApiError> {
    let response = checked(Request::get("/api/v1/runs/kinds").send().await).await?;
    Ok(json::<RunKinds>(response).await?.kinds)
}

/// Start a run: `body` is an [`workbench::benchmarks::eotgc::RunRequest`] or a request built from a kind's form.
pub async fn start_run(body: &impl Serialize) -> Result<RunProgress, ApiError> {
    let request = Request::post("/api/v1/runs")
        .json(body)
        .map_err(|e| ApiError(e.to_string()))?;
    json(checked(request.send().await).await?).await
}

pub async fn run(id: &str) -> Result<RunProgress, ApiError> {
    json(checked(Request::get(&format!("/api/v1/runs/{id}")).send().await).await?).await
}

pub async fn pause(id: &str) -> Result<(), ApiError> {
    checked(
        Request::post(&format!("/api/v1/runs/{id}/pause"))
            .send()
            .await,
    )
    .await
    .map(|_| ())
}

pub async fn resume(id: &str) -> Result<(), ApiError> {
    checked(
        Request::post(&format!("/api/v1/runs/{id}/resume"))
            .send()
            .await,
    )
    .await
    .map(|_| ())
}

/// An output file of a run, as bytes.
pub async fn run_file(id: &str, name: &str) -> Result<Vec<u8>, ApiError> {
    let response = checked(
        Request::get(&format!("/api/v1/runs/{id}/files/{name}"))
            .send()
            .await,
    )
    .await?;
    response
        .binary()
        .await
        .map_err(|e| ApiError(format!("cannot read {name}: {e}")))
}
