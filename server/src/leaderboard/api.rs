//! The HTTP adapters: `/api/v1/leaderboards…` (JSON, documented in `server/API.md`) and the
//! server-rendered pages (`/leaderboards`, `/leaderboard/{slug}`, entry pages, SVG badges).
//! Tokens come in `Authorization: Bearer …`.

use std::sync::Arc;

use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::json;
use tokio::sync::OwnedSemaphorePermit;
use workbench::wire::{
    BoardCreated, Status, Submissions, Submitted, TeamCreated, Teams, WebhookIn,
};

use super::error::{LbError, internal};
use super::html;
use super::import::{self, ImportRequest};
use super::input::{
    AddTeam, CreateBoard, EditBoard, EditEntry, EntryAction, PhaseSettings, Submit, check_slug,
};
use super::limits::Client;
use super::service::Boards;
use crate::guard::BodyError;

/// Bodies larger than this are parsed on a blocking thread, off the runtime's.
const PARSE_INLINE_BYTES: usize = 1 << 20;

#[derive(Clone)]
pub struct LbState {
    pub boards: Arc<Boards>,
    /// The body budget, timeout and upload limit every route shares.
    pub guard: Arc<crate::guard::Guard>,
    /// Who may frame the embed page: a CSP `frame-ancestors` source list (`serve
    /// --embed-ancestors`, default `*`).
    pub embed_ancestors: Arc<str>,
}

/// A leaderboard request's JSON body, read as every route's body is
/// ([`crate::guard::Guard::read_body`]): `application/json` (else `415`), at most the upload
/// limit (`413`, before reading when `Content-Length` says so), within the body timeout
/// (`408`), its size reserved from the shared budget (`503` when it stays full) for as long
/// as this value lives — the handler keeps it until its reply, so decoding and scoring the
/// files count against the budget too.
pub struct LbJson<T> {
    pub value: T,
    pub reserved: OwnedSemaphorePermit,
}

impl<T: DeserializeOwned + Send + 'static> FromRequest<LbState> for LbJson<T> {
    type Rejection = LbError;

    async fn from_request(request: Request, state: &LbState) -> Result<Self, LbError> {
        let limit = state.guard.upload_limit;
        let (bytes, reserved) = state
            .guard
            .read_body(request, "application/json", limit)
            .await
            .map_err(|e| match e {
                BodyError::MediaType(got) => LbError::UnsupportedMediaType(format!(
                    "the body must be sent as Content-Type: application/json, got {got:?}"
                )),
                BodyError::TooLarge => LbError::TooLarge(format!(
                    "the request body is larger than {limit} bytes (the server's --max-upload-mb)"
                )),
                BodyError::Busy => LbError::Unavailable(
                    "too many large request bodies in flight: try again shortly".into(),
                ),
                BodyError::ShuttingDown => LbError::Unavailable("shutting down".into()),
                BodyError::Late(s) => {
                    LbError::Timeout(format!("the request body did not arrive within {s} s"))
                }
                BodyError::Bad(message) => LbError::BadRequest(format!("request body: {message}")),
            })?;
        let small = bytes.len() <= PARSE_INLINE_BYTES;
        let parse = move |reserved: OwnedSemaphorePermit| {
            let value = serde_json::from_slice::<T>(&bytes)
                .map_err(|e| LbError::BadRequest(format!("request body: {e}")));
            (value, reserved)
        };
        // A large body is parsed on a blocking thread that holds its budget until it is done,
        // even when the client hangs up meanwhile.
        let (value, reserved) = if small {
            parse(reserved)
        } else {
            tokio::task::spawn_blocking(move || parse(reserved))
                .await
                .map_err(|e| LbError::Internal(e.to_string()))?
        };
        Ok(LbJson {
            value: value?,
            reserved,
        })
    }
}

/// Who sent the request ([`Client`]): the peer's address, or the trusted proxy's
/// `X-Forwarded-For` ([`crate::guard::Guard::client_address`]).
struct Sender(Client);

impl FromRequestParts<LbState> for Sender {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &LbState,
    ) -> Result<Self, Self::Rejection> {
        let peer = parts
            .extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|c| c.0);
        Ok(Sender(Client(
            state.guard.client_address(&parts.headers, peer),
        )))
    }
}

impl IntoResponse for LbError {
    fn into_response(self) -> Response {
        let status = match &self {
            LbError::NotFound(_) => StatusCode::NOT_FOUND,
            LbError::BadRequest(_) => StatusCode::BAD_REQUEST,
            LbError::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            LbError::Mismatch { .. } | LbError::Conflict(_) => StatusCode::CONFLICT,
            LbError::Forbidden(_) => StatusCode::FORBIDDEN,
            LbError::Quota(_) => StatusCode::TOO_MANY_REQUESTS,
            LbError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            LbError::Full(_) => StatusCode::INSUFFICIENT_STORAGE,
            LbError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            LbError::Timeout(_) => StatusCode::REQUEST_TIMEOUT,
            LbError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            LbError::Internal(detail) => {
                tracing::error!("leaderboard: {detail}");
                StatusCode::INTERNAL_SERVER_ERROR
            }
        };
        let body = match &self {
            LbError::Mismatch {
                message,
                differences,
            } => json!({"error": message, "differences": differences}),
            other => json!({"error": other.to_string()}),
        };
        (status, Json(body)).into_response()
    }
}

/// The API routes (`/api/v1/leaderboards…`), with their state; `super::pages` has the pages.
pub fn router(state: LbState) -> Router {
    let api = Router::new()
        .route("/api/v1/leaderboards", post(create).get(list))
        .route(
            "/api/v1/leaderboards/{slug}",
            get(show).patch(edit_board).delete(delete_board),
        )
        .route(
            "/api/v1/leaderboards/{slug}/owner-token",
            post(rotate_owner_token),
        )
        .route("/api/v1/leaderboards/{slug}/audit", get(audit))
        .route("/api/v1/leaderboards/{slug}/export", get(export))
        .route("/api/v1/leaderboards/{slug}/import", post(import_table))
        .route(
            "/api/v1/leaderboards/{slug}/import/preview",
            post(import_preview),
        )
        .route("/api/v1/leaderboards/{slug}/entries", post(submit))
        .route(
            "/api/v1/leaderboards/{slug}/entries/{id}",
            get(entry).patch(edit_entry).delete(remove),
        )
        .route("/api/v1/leaderboards/{slug}/entries/{id}/hide", post(hide))
        .route(
            "/api/v1/leaderboards/{slug}/entries/{id}/restore",
            post(restore),
        )
        .route(
            "/api/v1/leaderboards/{slug}/entries/{id}/withdraw",
            post(withdraw),
        )
        .route("/api/v1/leaderboards/{slug}/files/{sha256}", get(file))
        .route("/api/v1/leaderboards/{slug}/uploads", post(upload))
        .route(
            "/api/v1/leaderboards/{slug}/uploads/{sha256}",
            get(uploaded),
        )
        .route("/api/v1/benchmarks", get(benchmarks))
        .route(
            "/api/v1/leaderboards/{slug}/teams",
            post(add_team).get(teams),
        )
        .route("/api/v1/leaderboards/{slug}/phase", post(set_phase))
        .route(
            "/api/v1/leaderboards/{slug}/webhooks",
            post(add_webhook).get(webhooks),
        )
        .route(
            "/api/v1/leaderboards/{slug}/webhooks/{id}",
            axum::routing::delete(delete_webhook),
        )
        .route("/api/v1/leaderboards/{slug}/submissions", get(submissions))
        .route(
            "/api/v1/leaderboards/{slug}/entries/{id}/cancel",
            post(cancel),
        )
        .route(
            "/api/v1/leaderboards/{slug}/entries/{id}/choose",
            post(choose),
        );
    api.layer(axum::middleware::from_fn(json_errors))
        .with_state(state)
}

/// The framework's own refusals on the API (`405`, a bad query string) in the API's error
/// shape `{"error": "…"}`, as every other error.
async fn json_errors(request: Request, next: axum::middleware::Next) -> Response {
    let (mut parts, message) = match crate::error::framework_refusal(next.run(request).await).await
    {
        Ok(refusal) => refusal,
        Err(response) => return response,
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static("application/json"),
    );
    Response::from_parts(
        parts,
        axum::body::Body::from(json!({ "error": message }).to_string()),
    )
}

fn bearer(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))?;
    Some(token.trim().to_string())
}

pub(super) fn entry_id(id: &str) -> Result<i64, LbError> {
    id.parse()
        .map_err(|_| LbError::NotFound(format!("no entry `{id}`")))
}

async fn create(
    State(s): State<LbState>,
    headers: HeaderMap,
    Sender(sender): Sender,
    body: LbJson<CreateBoard>,
) -> Result<Response, LbError> {
    let (slug, owner_token) = s.boards.create(body.value, sender).await?;
    let url = format!("{}/leaderboard/{slug}", s.guard.public_origin(&headers));
    Ok((
        StatusCode::CREATED,
        Json(BoardCreated {
            slug,
            owner_token,
            url,
        }),
    )
        .into_response())
}

async fn list(State(s): State<LbState>) -> Result<Response, LbError> {
    let boards = s.boards.store.boards().await?;
    Ok(Json(workbench::wire::BoardList {
        leaderboards: boards,
    })
    .into_response())
}

async fn show(
    State(s): State<LbState>,
    Path(slug): Path<String>,
    headers: HeaderMap,
) -> Result<Response, LbError> {
    let view = s.boards.show(&slug, bearer(&headers).as_deref()).await?;
    Ok(Json(view).into_response())
}

async fn edit_board(
    State(s): State<LbState>,
    Path(slug): Path<String>,
    headers: HeaderMap,
    body: LbJson<EditBoard>,
) -> Result<Response, LbError> {
    let edit = body.value;
    s.boards
        .edit_board(&slug, bearer(&headers).as_deref(), edit)
        .await?;
    s.boards.changed(&slug, None);
    Ok(Json(json!({"slug": slug, "edited": true})).into_response())
}

async fn audit(
    State(s): State<LbState>,
    Path(slug): Path<String>,
    headers: HeaderMap,
) -> Result<Response, LbError> {
    let rows = s
        .boards
        .audit_log(&slug, bearer(&headers).as_deref())
        .await?;
    let audit = rows
        .into_iter()
        .map(|r| workbench::wire::AuditLine {
            at: super::dates::iso8601(r.at_ms),
            at_ms: r.at_ms,
            actor: r.actor,
            action: r.action,
            entry: r.entry,
            detail: r.detail,
        })
        .collect();
    Ok(Json(workbench::wire::AuditLog { audit }).into_response())
}

/// `POST …/owner-token` (owner): a new owner token; the old one is refused from then on.
async fn rotate_owner_token(
    State(s): State<LbState>,
    Path(slug): Path<String>,
    headers: HeaderMap,
) -> Result<Response, LbError> {
    let owner_token = s
        .boards
        .rotate_owner_token(&slug, bearer(&headers).as_deref())
        .await?;
    Ok(Json(workbench::wire::OwnerToken { slug, owner_token }).into_response())
}

/// `DELETE /api/v1/leaderboards/{slug}` (owner): the board and everything of it.
async fn delete_board(
    State(s): State<LbState>,
    Path(slug): Path<String>,
    headers: HeaderMap,
) -> Result<Response, LbError> {
    s.boards
        .delete_board(&slug, bearer(&headers).as_deref())
        .await?;
    Ok(Json(json!({"slug": slug, "deleted": true})).into_response())
}

#[derive(Deserialize)]
struct ExportQuery {
    format: Option<String>,
}

async fn export(
    State(s): State<LbState>,
    Path(slug): Path<String>,
    Query(q): Query<ExportQuery>,
) -> Result<Response, LbError> {
    let view = s.boards.show(&slug, None).await?;
    let format = q.format.unwrap_or_else(|| "csv".into());
    let (text, content_type, ext) = match format.as_str() {
        "csv" => (
            workbench::to_csv(&html::export_table(&view)),
            "text/csv; charset=utf-8",
            "csv",
        ),
        "markdown" | "md" => (
            workbench::to_markdown(&html::export_table(&view)),
            "text/markdown; charset=utf-8",
            "md",
        ),
        "latex" | "tex" => (
            workbench::to_latex(&html::export_table(&view)),
            "application/x-latex; charset=utf-8",
            "tex",
        ),
        "json" => (
            {
                // The board as shown, with each verified entry's receipt and the key they are
                // signed with: the file can be checked offline later.
                let mut value = serde_json::to_value(&view).map_err(internal)?;
                value["receipts"] =
                    serde_json::to_value(s.boards.receipts(&slug).await?).map_err(internal)?;
                value["receipt_key"] =
                    serde_json::to_value(s.boards.public_key().await?).map_err(internal)?;
                serde_json::to_string_pretty(&value).map_err(internal)?
            },
            "application/json",
            "json",
        ),
        other => {
            return Err(LbError::BadRequest(format!(
                "format `{other}`: expected csv, markdown, latex or json"
            )));
        }
    };
    Ok((
        [
            (header::CONTENT_TYPE, content_type.to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("inline; filename=\"{slug}.{ext}\""),
            ),
        ],
        text,
    )
        .into_response())
}

async fn import_preview(
    State(s): State<LbState>,
    Path(slug): Path<String>,
    headers: HeaderMap,
    body: LbJson<ImportRequest>,
) -> Result<Response, LbError> {
    let token = bearer(&headers);
    s.boards.audit_log(&slug, token.as_deref()).await?;
    let board = s.boards.board(&slug).await?;
    let bench = super::scoring::benchmark(&board.benchmark)?;
    Ok(Json(import::preview(&body.value, bench, "table")).into_response())
}

async fn import_table(
    State(s): State<LbState>,
    Path(slug): Path<String>,
    headers: HeaderMap,
    body: LbJson<ImportRequest>,
) -> Result<Response, LbError> {
    let req = body.value;
    let token = bearer(&headers);
    // Refuse a wrong token before reading the table.
    s.boards.audit_log(&slug, token.as_deref()).await?;
    let board = s.boards.board(&slug).await?;
    let bench = super::scoring::benchmark(&board.benchmark)?;
    let rows = import::parse(&req, bench, "table").map_err(LbError::Unprocessable)?;
    let ids = s.boards.import(&slug, token.as_deref(), rows).await?;
    s.boards.changed(&slug, None);
    Ok((StatusCode::CREATED, Json(json!({"entries": ids}))).into_response())
}

async fn submit(
    State(s): State<LbState>,
    Path(slug): Path<String>,
    headers: HeaderMap,
    Sender(sender): Sender,
    body: LbJson<Submit>,
) -> Result<Response, LbError> {
    check_slug(&slug).map_err(|_| LbError::NotFound(format!("no leaderboard `{slug}`")))?;
    let LbJson {
        value: req,
        reserved,
    } = body;
    if s.boards.board(&slug).await?.competition.is_some() {
        let (id, entry_token, team, inputs) = s
            .boards
            .submit_competition(&slug, bearer(&headers).as_deref(), req, sender, reserved)
            .await?;
        let url = format!(
            "{}/leaderboard/{slug}/entry/{id}",
            s.guard.public_origin(&headers)
        );
        return Ok((
            StatusCode::ACCEPTED,
            Json(Submitted {
                entry: id,
                entry_token,
                report: None,
                url,
                status: Some(Status::Queued),
                team: Some(team),
                inputs: Some(inputs),
            }),
        )
            .into_response());
    }
    let (id, entry_token, report) = s.boards.submit(&slug, req, sender, reserved).await?;
    s.boards.changed(&slug, Some(id));
    let url = format!(
        "{}/leaderboard/{slug}/entry/{id}",
        s.guard.public_origin(&headers)
    );
    Ok((
        StatusCode::CREATED,
        Json(Submitted {
            entry: id,
            entry_token,
            report: Some(report),
            url,
            status: None,
            team: None,
            inputs: None,
        }),
    )
        .into_response())
}

#[derive(Deserialize)]
struct EntryQuery {
    #[serde(default)]
    samples: bool,
}

async fn entry(
    State(s): State<LbState>,
    Path((slug, id)): Path<(String, String)>,
    Query(q): Query<EntryQuery>,
    headers: HeaderMap,
) -> Result<Response, LbError> {
    let detail = s
        .boards
        .entry(
            &slug,
            entry_id(&id)?,
            q.samples,
            bearer(&headers).as_deref(),
        )
        .await?;
    Ok(Json(detail).into_response())
}

async fn edit_entry(
    State(s): State<LbState>,
    Path((slug, id)): Path<(String, String)>,
    headers: HeaderMap,
    body: LbJson<EditEntry>,
) -> Result<Response, LbError> {
    let id = entry_id(&id)?;
    let edit = body.value;
    s.boards
        .edit_entry(&slug, id, bearer(&headers).as_deref(), edit)
        .await?;
    Ok(Json(json!({"entry": id, "edited": true})).into_response())
}

async fn action(
    s: LbState,
    slug: String,
    id: String,
    headers: HeaderMap,
    what: EntryAction,
) -> Result<Response, LbError> {
    let id = entry_id(&id)?;
    let state = s
        .boards
        .entry_action(&slug, id, bearer(&headers).as_deref(), what)
        .await?;
    s.boards.changed(&slug, None);
    Ok(Json(json!({"entry": id, "state": state})).into_response())
}

async fn remove(
    State(s): State<LbState>,
    Path((slug, id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, LbError> {
    action(s, slug, id, headers, EntryAction::Remove).await
}

async fn hide(
    State(s): State<LbState>,
    Path((slug, id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, LbError> {
    action(s, slug, id, headers, EntryAction::Hide).await
}

async fn restore(
    State(s): State<LbState>,
    Path((slug, id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, LbError> {
    action(s, slug, id, headers, EntryAction::Restore).await
}

async fn withdraw(
    State(s): State<LbState>,
    Path((slug, id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, LbError> {
    action(s, slug, id, headers, EntryAction::Withdraw).await
}

/// A path's SHA-256 (64 hex digits, any case) in lower case; else `404` naming `what`.
fn sha256_param(sha256: &str, what: &str) -> Result<String, LbError> {
    if sha256.len() == 64 && sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(sha256.to_ascii_lowercase())
    } else {
        Err(LbError::NotFound(format!("no {what} `{sha256}`")))
    }
}

/// A stored file's reply, streamed from the file store (a large file never sits whole in
/// memory); `immutable`: cached for a year (content-addressed URLs).
fn file_response(file: crate::files::FileStream, immutable: bool) -> Response {
    let mut headers = vec![
        (header::CONTENT_TYPE, "application/octet-stream".to_string()),
        (header::CONTENT_LENGTH, file.size.to_string()),
    ];
    if immutable {
        headers.push((
            header::CACHE_CONTROL,
            "public, max-age=31536000, immutable".to_string(),
        ));
    }
    let mut response = axum::body::Body::from_stream(file.stream).into_response();
    for (name, value) in headers {
        if let Ok(value) = value.parse() {
            response.headers_mut().insert(name, value);
        }
    }
    response
}

async fn file(
    State(s): State<LbState>,
    Path((slug, sha256)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, LbError> {
    let sha256 = sha256_param(&sha256, "file")?;
    let file = s
        .boards
        .file(&slug, &sha256, bearer(&headers).as_deref())
        .await?;
    Ok(file_response(file, true))
}

/// `POST …/uploads` (owner or team token): a file on its own, `application/octet-stream`,
/// streamed to the file store (at most `--max-file-mb`; a pause of `--body-timeout-secs`
/// between chunks ends it); `201 {"sha256", "size_bytes", "kept_until"}`. Submissions name it
/// by its SHA-256 (`{"name", "sha256"}`) within the hour.
async fn upload(
    State(s): State<LbState>,
    Path(slug): Path<String>,
    request: axum::extract::Request,
) -> Result<Response, LbError> {
    check_slug(&slug).map_err(|_| LbError::NotFound(format!("no leaderboard `{slug}`")))?;
    let headers = request.headers().clone();
    let limit = s.boards.limits.max_file_bytes;
    crate::guard::check_head(&headers, "application/octet-stream", limit).map_err(|e| match e {
        BodyError::MediaType(got) => LbError::UnsupportedMediaType(format!(
            "an upload is sent as Content-Type: application/octet-stream, got {got:?}"
        )),
        _ => LbError::TooLarge(format!(
            "the file is larger than {limit} bytes, the limit (the server's --max-file-mb)"
        )),
    })?;
    let body = request.into_body().into_data_stream();
    let (sha256, size_bytes, kept_until_ms) = s
        .boards
        .upload(
            &slug,
            bearer(&headers).as_deref(),
            body,
            s.guard.body_timeout,
        )
        .await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({
            "sha256": sha256,
            "size_bytes": size_bytes,
            "kept_until": super::dates::iso8601(kept_until_ms),
        })),
    )
        .into_response())
}

/// `GET …/uploads/{sha256}` (owner or team token): the upload as stored, while it is kept.
async fn uploaded(
    State(s): State<LbState>,
    Path((slug, sha256)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, LbError> {
    let sha256 = sha256_param(&sha256, "upload")?;
    let file = s
        .boards
        .uploaded(&slug, &sha256, bearer(&headers).as_deref())
        .await?;
    Ok(file_response(file, false))
}

async fn add_team(
    State(s): State<LbState>,
    Path(slug): Path<String>,
    headers: HeaderMap,
    body: LbJson<AddTeam>,
) -> Result<Response, LbError> {
    let req = body.value;
    let name = req.name.clone();
    let token = s
        .boards
        .add_team(&slug, bearer(&headers).as_deref(), req)
        .await?;
    Ok((
        StatusCode::CREATED,
        Json(TeamCreated {
            team: name,
            team_token: token,
        }),
    )
        .into_response())
}

async fn teams(
    State(s): State<LbState>,
    Path(slug): Path<String>,
    headers: HeaderMap,
) -> Result<Response, LbError> {
    let teams = s.boards.teams(&slug, bearer(&headers).as_deref()).await?;
    Ok(Json(Teams { teams }).into_response())
}

/// The benchmarks a board can be made of, with their variants and metrics (the create form).
async fn benchmarks() -> Response {
    use workbench::wire::{BenchmarkInfo, BenchmarkRole, Benchmarks};
    let benchmarks = workbench::registry::listing()
        .into_iter()
        .map(|b| BenchmarkInfo {
            key: b.key.into(),
            label: b.label.into(),
            variants: b.variants.iter().map(|v| (*v).into()).collect(),
            metrics: [b.metrics, b.more_metrics]
                .concat()
                .iter()
                .map(|m| (*m).into())
                .collect(),
            roles: b
                .roles
                .iter()
                .map(|r| BenchmarkRole {
                    key: r.key.into(),
                    label: r.label.into(),
                    shared: r.shared,
                })
                .collect(),
        })
        .collect();
    Json(Benchmarks { benchmarks }).into_response()
}

async fn add_webhook(
    State(s): State<LbState>,
    Path(slug): Path<String>,
    headers: HeaderMap,
    body: LbJson<WebhookIn>,
) -> Result<Response, LbError> {
    let made = s
        .boards
        .add_webhook(&slug, bearer(&headers).as_deref(), &body.value.url)
        .await?;
    Ok((StatusCode::CREATED, Json(made)).into_response())
}

async fn webhooks(
    State(s): State<LbState>,
    Path(slug): Path<String>,
    headers: HeaderMap,
) -> Result<Response, LbError> {
    let hooks = s
        .boards
        .webhooks(&slug, bearer(&headers).as_deref())
        .await?;
    Ok(Json(hooks).into_response())
}

async fn delete_webhook(
    State(s): State<LbState>,
    Path((slug, id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, LbError> {
    let id = id
        .parse::<i64>()
        .map_err(|_| LbError::NotFound(format!("no webhook `{id}`")))?;
    s.boards
        .delete_webhook(&slug, bearer(&headers).as_deref(), id)
        .await?;
    Ok(Json(json!({"webhook": id, "deleted": true})).into_response())
}

async fn set_phase(
    State(s): State<LbState>,
    Path(slug): Path<String>,
    headers: HeaderMap,
    body: LbJson<PhaseSettings>,
) -> Result<Response, LbError> {
    let info = s
        .boards
        .set_phase(&slug, bearer(&headers).as_deref(), body.value)
        .await?;
    Ok(Json(json!({"competition": info})).into_response())
}

async fn submissions(
    State(s): State<LbState>,
    Path(slug): Path<String>,
    headers: HeaderMap,
) -> Result<Response, LbError> {
    let rows = s
        .boards
        .submissions(&slug, bearer(&headers).as_deref())
        .await?;
    Ok(Json(Submissions { submissions: rows }).into_response())
}

async fn cancel(
    State(s): State<LbState>,
    Path((slug, id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, LbError> {
    let id = entry_id(&id)?;
    s.boards
        .cancel(&slug, id, bearer(&headers).as_deref())
        .await?;
    Ok(Json(json!({"entry": id, "status": "cancelled"})).into_response())
}

async fn choose(
    State(s): State<LbState>,
    Path((slug, id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, LbError> {
    let id = entry_id(&id)?;
    s.boards
        .choose(&slug, id, bearer(&headers).as_deref())
        .await?;
    Ok(Json(json!({"entry": id, "chosen": true})).into_response())
}
