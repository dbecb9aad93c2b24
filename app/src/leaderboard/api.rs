//! Typed client of the leaderboard API (`server/API.md`, "Leaderboards"): boards, entries,
//! their files, and publishing. Errors are the server's `{"error": "…"}` message; a refused
//! publish also carries the values that differ.

use gloo_net::http::Request;
use js_sys::Uint8Array;
use metrics_core::Report;
use serde_json::Value;
use workbench::verify::Difference;

use super::tokens::with_token;
use crate::api::{ApiError, checked, json};

pub use workbench::wire::{
    AuditLine, AuditLog, BoardInfo, BoardList, BoardSummary, BoardView, BootstrapInfo, Display,
    EditBoard, EditEntry, EntryOut, FileIn, FileOut, LeaderInterval, OwnerToken, State, Status,
    Submit, Submitted,
};

/// An entry with its stored report (`GET …/entries/{id}`), the report read as a [`Report`].
pub type EntryDetail = workbench::wire::EntryDetail<Report>;

/// Why a publish failed: the message, and the values that differ when the server's numbers are
/// not the page's.
#[derive(Debug, Clone, PartialEq)]
pub struct PublishError {
    pub message: String,
    pub differences: Vec<Difference>,
}

fn path_part(s: &str) -> String {
    String::from(js_sys::encode_uri_component(s))
}

pub async fn boards() -> Result<Vec<BoardSummary>, ApiError> {
    let response = checked(Request::get("/api/v1/leaderboards").send().await).await?;
    Ok(json::<BoardList>(response).await?.leaderboards)
}

pub async fn board(slug: &str) -> Result<BoardView, ApiError> {
    let url = format!("/api/v1/leaderboards/{}", path_part(slug));
    json(checked(Request::get(&url).send().await).await?).await
}

pub async fn entry(slug: &str, id: i64) -> Result<EntryDetail, ApiError> {
    let url = format!("/api/v1/leaderboards/{}/entries/{id}", path_part(slug));
    json(checked(Request::get(&url).send().await).await?).await
}

/// A board's file (gold or an entry's) by its download path, as a JS byte array.
pub async fn file(f: &FileOut) -> Result<Uint8Array, ApiError> {
    let response = checked(Request::get(&f.url).send().await).await?;
    let bytes = response
        .binary()
        .await
        .map_err(|e| ApiError(format!("cannot read {}: {e}", f.name)))?;
    Ok(Uint8Array::from(bytes.as_slice()))
}

pub async fn publish(slug: &str, body: &Submit) -> Result<Submitted, PublishError> {
    let plain = |message: String| PublishError {
        message,
        differences: Vec::new(),
    };
    let url = format!("/api/v1/leaderboards/{}/entries", path_part(slug));
    let request = Request::post(&url)
        .json(body)
        .map_err(|e| plain(e.to_string()))?;
    let response = request
        .send()
        .await
        .map_err(|e| plain(format!("cannot reach the server: {e}")))?;
    if response.ok() {
        return response
            .json::<Submitted>()
            .await
            .map_err(|e| plain(format!("unexpected answer: {e}")));
    }
    let status = response.status();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    Err(PublishError {
        message: format!(
            "{status}: {}",
            body["error"]
                .as_str()
                .unwrap_or("the server refused the entry")
        ),
        differences: serde_json::from_value(body["differences"].clone()).unwrap_or_default(),
    })
}

// The owner's calls: each sends the owner token (`super::tokens`).

fn board_url(slug: &str, rest: &str) -> String {
    format!("/api/v1/leaderboards/{}{rest}", path_part(slug))
}

/// The board as its owner sees it (hidden and withdrawn entries too); `403` for another token.
pub async fn owner_board(slug: &str, token: &str) -> Result<BoardView, ApiError> {
    let request = with_token(Request::get(&board_url(slug, "")), token);
    json(checked(request.send().await).await?).await
}

pub async fn audit(slug: &str, token: &str) -> Result<AuditLog, ApiError> {
    let request = with_token(Request::get(&board_url(slug, "/audit")), token);
    json(checked(request.send().await).await?).await
}

pub async fn edit_board(slug: &str, token: &str, edit: &EditBoard) -> Result<(), ApiError> {
    let request = with_token(Request::patch(&board_url(slug, "")), token)
        .json(edit)
        .map_err(|e| ApiError(e.to_string()))?;
    checked(request.send().await).await.map(|_| ())
}

/// Edit an entry's model name and metadata (its entry token).
pub async fn edit_entry(
    slug: &str,
    token: &str,
    id: i64,
    edit: &EditEntry,
) -> Result<(), ApiError> {
    let request = with_token(
        Request::patch(&board_url(slug, &format!("/entries/{id}"))),
        token,
    )
    .json(edit)
    .map_err(|e| ApiError(e.to_string()))?;
    checked(request.send().await).await.map(|_| ())
}

/// `hide`, `restore` (owner token) or `withdraw` (entry token) an entry.
pub async fn entry_action(slug: &str, token: &str, id: i64, action: &str) -> Result<(), ApiError> {
    let request = with_token(
        Request::post(&board_url(slug, &format!("/entries/{id}/{action}"))),
        token,
    );
    checked(request.send().await).await.map(|_| ())
}

pub async fn delete_entry(slug: &str, token: &str, id: i64) -> Result<(), ApiError> {
    let request = with_token(
        Request::delete(&board_url(slug, &format!("/entries/{id}"))),
        token,
    );
    checked(request.send().await).await.map(|_| ())
}

pub async fn rotate_owner_token(slug: &str, token: &str) -> Result<OwnerToken, ApiError> {
    let request = with_token(Request::post(&board_url(slug, "/owner-token")), token);
    json(checked(request.send().await).await?).await
}

pub async fn delete_board(slug: &str, token: &str) -> Result<(), ApiError> {
    let request = with_token(Request::delete(&board_url(slug, "")), token);
    checked(request.send().await).await.map(|_| ())
}

// Boards and competitions made from the page.

pub use workbench::wire::{
    AddTeam, BenchmarkInfo, Benchmarks, BoardCreated, CompetitionInfo, Counts, CreateBoard,
    ImportColumn, ImportPreview, ImportRequest, PhaseSettings, Submission, Submissions, Team,
    TeamCreated, Teams,
};

/// The benchmarks a board can be made of.
pub async fn benchmarks() -> Result<Vec<BenchmarkInfo>, ApiError> {
    let response = checked(Request::get("/api/v1/benchmarks").send().await).await?;
    Ok(json::<Benchmarks>(response).await?.benchmarks)
}

pub async fn create_board(body: &CreateBoard) -> Result<BoardCreated, ApiError> {
    let request = Request::post("/api/v1/leaderboards")
        .json(body)
        .map_err(|e| ApiError(e.to_string()))?;
    json(checked(request.send().await).await?).await
}

pub async fn teams(slug: &str, token: &str) -> Result<Vec<Team>, ApiError> {
    let request = with_token(Request::get(&board_url(slug, "/teams")), token);
    Ok(json::<Teams>(checked(request.send().await).await?)
        .await?
        .teams)
}

pub async fn add_team(slug: &str, token: &str, name: &str) -> Result<TeamCreated, ApiError> {
    let request = with_token(Request::post(&board_url(slug, "/teams")), token)
        .json(&AddTeam { name: name.into() })
        .map_err(|e| ApiError(e.to_string()))?;
    json(checked(request.send().await).await?).await
}

pub async fn set_phase(slug: &str, token: &str, settings: &PhaseSettings) -> Result<(), ApiError> {
    let request = with_token(Request::post(&board_url(slug, "/phase")), token)
        .json(settings)
        .map_err(|e| ApiError(e.to_string()))?;
    checked(request.send().await).await.map(|_| ())
}

/// A competition's submissions: every one with the owner token, the team's with a team token.
pub async fn submissions(slug: &str, token: &str) -> Result<Vec<Submission>, ApiError> {
    let request = with_token(Request::get(&board_url(slug, "/submissions")), token);
    Ok(json::<Submissions>(checked(request.send().await).await?)
        .await?
        .submissions)
}

/// Submit prediction files to a competition with a team token: queued, scored by the server.
pub async fn submit_to_competition(
    slug: &str,
    token: &str,
    body: &Submit,
) -> Result<Submitted, ApiError> {
    let request = with_token(Request::post(&board_url(slug, "/entries")), token)
        .json(body)
        .map_err(|e| ApiError(e.to_string()))?;
    json(checked(request.send().await).await?).await
}

/// What importing a published table would make (owner; nothing stored).
pub async fn import_preview(
    slug: &str,
    token: &str,
    body: &ImportRequest,
) -> Result<ImportPreview, ApiError> {
    let request = with_token(Request::post(&board_url(slug, "/import/preview")), token)
        .json(body)
        .map_err(|e| ApiError(e.to_string()))?;
    json(checked(request.send().await).await?).await
}

/// Import a published table as reported entries (owner); the new entries' ids.
pub async fn import_table(
    slug: &str,
    token: &str,
    body: &ImportRequest,
) -> Result<Vec<i64>, ApiError> {
    let request = with_token(Request::post(&board_url(slug, "/import")), token)
        .json(body)
        .map_err(|e| ApiError(e.to_string()))?;
    let answer: Value = json(checked(request.send().await).await?).await?;
    Ok(serde_json::from_value(answer["entries"].clone()).unwrap_or_default())
}

pub use workbench::wire::{Delivery, Webhook, WebhookCreated, WebhookIn, Webhooks};

/// The board's webhooks and the latest deliveries (owner).
pub async fn webhooks(slug: &str, token: &str) -> Result<Webhooks, ApiError> {
    let request = with_token(Request::get(&board_url(slug, "/webhooks")), token);
    json(checked(request.send().await).await?).await
}

pub async fn add_webhook(slug: &str, token: &str, url: &str) -> Result<WebhookCreated, ApiError> {
    let request = with_token(Request::post(&board_url(slug, "/webhooks")), token)
        .json(&WebhookIn { url: url.into() })
        .map_err(|e| ApiError(e.to_string()))?;
    json(checked(request.send().await).await?).await
}

pub async fn delete_webhook(slug: &str, token: &str, id: i64) -> Result<(), ApiError> {
    let request = with_token(
        Request::delete(&board_url(slug, &format!("/webhooks/{id}"))),
        token,
    );
    checked(request.send().await).await.map(|_| ())
}
