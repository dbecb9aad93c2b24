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

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Model {
    pub id: String,
    pub owned_by: String,
}

#[derive(Debug, Clone, Deserialize)]
struct ModelList {
    data: Vec<Model>,
}

#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
pub struct Usage {
    pub upstream_calls: u64,
    pub cache_hits: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cost: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
pub struct RunUsage {
    pub model: Usage,
    pub judge: Usage,
}

/// A run's progress object.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RunProgress {
    pub id: String,
    pub benchmark: String,
    pub model: String,
    pub state: String,
    pub done: u64,
    pub total: u64,
    pub reused: u64,
    pub failed: u64,
    pub elapsed_s: f64,
    pub rate_per_s: Option<f64>,
    pub eta_s: Option<f64>,
    pub error: Option<String>,
    pub files: Vec<String>,
    #[serde(default)]
    pub usage: RunUsage,
}

/// The body of `POST /api/v1/runs`.
#[derive(Debug, Clone, Serialize)]
pub struct StartRun {
    pub benchmark: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub track: Option<u8>,
    pub model: String,
    pub dataset: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub n: Option<u32>,
    pub workers: u32,
}

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

/// One field of a run kind's form (`GET /api/v1/runs/kinds`, server/API.md).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct FormField {
    pub name: String,
    /// `records`, `model`, `models`, `optional_model`, `integer` or `choice`.
    #[serde(rename = "type")]
    pub kind: String,
    pub label: String,
    pub required: bool,
    #[serde(default)]
    pub default: Option<i64>,
    #[serde(default)]
    pub choices: Vec<i64>,
}

/// A kind of run the server starts over HTTP, with its form.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RunKind {
    pub key: String,
    pub label: String,
    pub files: Vec<String>,
    pub fields: Vec<FormField>,
    /// Files of the finished run the workbench opens.
    pub open: Vec<String>,
    /// Record fields handed to the workbench too.
    pub open_inputs: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
struct RunKinds {
    kinds: Vec<RunKind>,
}

pub async fn run_kinds() -> Result<Vec<RunKind>, ApiError> {
    let response = checked(Request::get("/api/v1/runs/kinds").send().await).await?;
    Ok(json::<RunKinds>(response).await?.kinds)
}

/// Start a run: `body` is a [`StartRun`] or a request built from a kind's form.
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
