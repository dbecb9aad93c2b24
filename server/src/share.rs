//! Private share links (issue 14): the browser encrypts the files, view state and teacher
//! adjustments with AES-256-GCM under a random key, uploads only the ciphertext here, and
//! gives the link `/s/<id>#<key>`. The key stays in the URL fragment, which browsers never send,
//! so this server stores and serves bytes it cannot read. `/s/<id>` itself is the app (the
//! `index.html` fallback of [`crate::http`]), which fetches and decrypts.
//!
//! - `POST /api/v1/shares[?expires_in_days=N]`: body `application/octet-stream`, at most
//!   [`MAX_SHARE_BYTES`]; `201` with the id, the expiry and the delete token (shown once,
//!   stored as its SHA-256 only, [`crate::leaderboard::token`]).
//! - `GET /api/v1/shares/{id}`: the ciphertext; `404` unknown or deleted, `410` expired.
//! - `DELETE /api/v1/shares/{id}` with `X-Delete-Token: <delete token>` (or `Authorization:
//!   Bearer …`): `204`; `403` without the right token (nothing changes).
//!
//! Expired shares are deleted when asked for and by a task every [`PURGE_EVERY`]. Every route
//! is behind [`crate::guard::check`]: an upload from another site's page is refused.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::Engine;
use serde::Deserialize;

use crate::error::{error_response, kind_of};
use crate::guard::{BodyError, Guard};
use crate::leaderboard::token;
use crate::store::{ShareRow, Store, StoreError};

/// Largest share (ciphertext) the server stores: 32 MiB.
pub use crate::guard::MAX_SHARE_BYTES;
/// How long a share lives unless the upload asks otherwise.
pub const DEFAULT_EXPIRY_DAYS: u32 = 30;
/// The longest a share may live.
pub const MAX_EXPIRY_DAYS: u32 = 365;
/// Prefix of delete tokens.
pub const DELETE_PREFIX: &str = "sbs_";
/// How often expired shares are purged.
pub const PURGE_EVERY: Duration = Duration::from_secs(3600);
/// Random bytes in a share id (128 bits, 22 base64url characters).
const ID_BYTES: usize = 16;
const DAY_MS: i64 = 86_400_000;

/// The time in milliseconds since the Unix epoch (a function, so tests can move it).
pub type Clock = Arc<dyn Fn() -> i64 + Send + Sync>;

#[derive(Clone)]
pub struct ShareState {
    store: Arc<dyn Store>,
    guard: Arc<Guard>,
    now_ms: Clock,
}

#[derive(Debug, thiserror::Error)]
pub enum ShareError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Gone(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    BadRequest(String),
    #[error("the share is larger than {MAX_SHARE_BYTES} bytes (32 MiB), the limit")]
    TooLarge,
    #[error("{0}")]
    UnsupportedMediaType(String),
    #[error("{0}")]
    RequestTimeout(String),
    #[error("{0}")]
    Unavailable(String),
    #[error("internal error")]
    Internal(String),
}

impl From<StoreError> for ShareError {
    fn from(e: StoreError) -> Self {
        ShareError::Internal(e.to_string())
    }
}

impl IntoResponse for ShareError {
    fn into_response(self) -> Response {
        let (status, code) = match &self {
            ShareError::NotFound(_) => (StatusCode::NOT_FOUND, "not_found"),
            ShareError::Gone(_) => (StatusCode::GONE, "expired"),
            ShareError::Forbidden(_) => (StatusCode::FORBIDDEN, "forbidden"),
            ShareError::BadRequest(_) => (StatusCode::BAD_REQUEST, "bad_request"),
            ShareError::TooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large"),
            ShareError::UnsupportedMediaType(_) => {
                (StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type")
            }
            ShareError::RequestTimeout(_) => (StatusCode::REQUEST_TIMEOUT, "request_timeout"),
            ShareError::Unavailable(_) => (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
            ShareError::Internal(detail) => {
                tracing::error!("share: {detail}");
                (StatusCode::INTERNAL_SERVER_ERROR, "internal_error")
            }
        };
        // Not kept by the browser: a share deleted or expired answers otherwise next time.
        let mut response = error_response(status, &self.to_string(), kind_of(status), Some(code));
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        response
    }
}

/// The share routes over `store`, and a task that purges expired shares every
/// [`PURGE_EVERY`] (inside a tokio runtime).
pub fn router(store: Arc<dyn Store>, guard: Arc<Guard>) -> Router {
    let now_ms: Clock = Arc::new(crate::leaderboard::dates::now_ms);
    start_purging(Arc::clone(&store), Arc::clone(&now_ms));
    router_with(store, guard, now_ms)
}

/// The share routes with a given clock and no purge task (tests).
pub fn router_with(store: Arc<dyn Store>, guard: Arc<Guard>, now_ms: Clock) -> Router {
    Router::new()
        .route("/api/v1/shares", post(upload))
        .route("/api/v1/shares/{id}", get(fetch).delete(remove))
        .layer(DefaultBodyLimit::max(MAX_SHARE_BYTES))
        .with_state(ShareState {
            store,
            guard,
            now_ms,
        })
}

/// Purge expired shares now and every [`PURGE_EVERY`].
pub fn start_purging(store: Arc<dyn Store>, now_ms: Clock) {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(PURGE_EVERY);
        loop {
            every.tick().await;
            match store.purge_shares(now_ms()).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(shares = n, "purged expired shares"),
                Err(e) => tracing::warn!("cannot purge expired shares: {e}"),
            }
        }
    });
}

/// A new share id: 16 bytes of OS randomness, base64url without padding.
fn new_id() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; ID_BYTES];
    getrandom::fill(&mut bytes)?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// Whether `id` has the shape of a share id (anything else is not looked up).
fn is_share_id(id: &str) -> bool {
    id.len() == 22
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn not_found(id: &str) -> ShareError {
    ShareError::NotFound(format!(
        "no share `{id}`: the link is wrong, or the share was deleted or has expired"
    ))
}

fn gone(id: &str) -> ShareError {
    ShareError::Gone(format!("the share `{id}` has expired and was deleted"))
}

#[derive(Debug, Deserialize)]
struct UploadQuery {
    expires_in_days: Option<u32>,
}

async fn upload(
    State(s): State<ShareState>,
    query: Result<Query<UploadQuery>, QueryRejection>,
    request: Request,
) -> Result<Response, ShareError> {
    let Query(query) = query.map_err(|e| ShareError::BadRequest(e.body_text()))?;
    let days = query.expires_in_days.unwrap_or(DEFAULT_EXPIRY_DAYS);
    if !(1..=MAX_EXPIRY_DAYS).contains(&days) {
        return Err(ShareError::BadRequest(format!(
            "expires_in_days must be between 1 and {MAX_EXPIRY_DAYS}, got {days}"
        )));
    }
    let (bytes, _reserved) = read_body(&s, request).await?;
    if bytes.is_empty() {
        return Err(ShareError::BadRequest("the share is empty".into()));
    }
    let token = token::new_token(DELETE_PREFIX)
        .map_err(|e| ShareError::Internal(format!("randomness: {e}")))?;
    let now = (s.now_ms)();
    let expires_ms = now + i64::from(days) * DAY_MS;
    let size_bytes = bytes.len();
    // 128 random bits do not collide in practice; a second draw covers the impossible.
    let mut attempt = 0;
    let id = loop {
        let id = new_id().map_err(|e| ShareError::Internal(format!("randomness: {e}")))?;
        let row = ShareRow {
            id: id.clone(),
            bytes: bytes.to_vec(),
            created_ms: now,
            expires_ms,
            delete_token_sha256: token::hash(&token),
        };
        match s.store.put_share(row).await {
            Ok(()) => break id,
            Err(StoreError::Conflict(_)) if attempt < 2 => attempt += 1,
            Err(e) => return Err(e.into()),
        }
    };
    let body = workbench::wire::ShareCreated {
        path: format!("/s/{id}"),
        id,
        delete_token: token,
        created_ms: now,
        expires_ms,
        expires_in_days: days,
        size_bytes,
        max_bytes: MAX_SHARE_BYTES,
    };
    Ok((StatusCode::CREATED, no_store(), Json(body)).into_response())
}

fn no_store() -> [(header::HeaderName, HeaderValue); 1] {
    [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))]
}

/// The body: `application/octet-stream` (else `415`), at most [`MAX_SHARE_BYTES`] (else
/// `413`), within the guard's body timeout; its size reserved from the guard's body budget
/// while the returned permit lives (as [`crate::api::JsonBody`] does).
async fn read_body(
    s: &ShareState,
    request: Request,
) -> Result<(Bytes, tokio::sync::OwnedSemaphorePermit), ShareError> {
    s.guard
        .read_body(request, "application/octet-stream", MAX_SHARE_BYTES)
        .await
        .map_err(|e| match e {
            BodyError::MediaType(got) => ShareError::UnsupportedMediaType(format!(
                "a share is sent as Content-Type: application/octet-stream, got {got:?}"
            )),
            BodyError::TooLarge => ShareError::TooLarge,
            BodyError::Busy => ShareError::Unavailable(
                "too many large request bodies in flight: try again shortly".into(),
            ),
            BodyError::ShuttingDown => ShareError::Unavailable("shutting down".into()),
            BodyError::Late(secs) => {
                ShareError::RequestTimeout(format!("the share did not arrive within {secs} s"))
            }
            BodyError::Bad(message) => ShareError::BadRequest(message),
        })
}

async fn fetch(
    State(s): State<ShareState>,
    Path(id): Path<String>,
) -> Result<Response, ShareError> {
    if !is_share_id(&id) {
        return Err(not_found(&id));
    }
    let Some(share) = s.store.share(&id).await? else {
        return Err(not_found(&id));
    };
    if share.expires_ms <= (s.now_ms)() {
        s.store.delete_share(&id).await?;
        return Err(gone(&id));
    }
    let expires = HeaderValue::from(share.expires_ms);
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/octet-stream"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            (
                header::HeaderName::from_static("x-share-expires-ms"),
                expires,
            ),
        ],
        share.bytes,
    )
        .into_response())
}

async fn remove(
    State(s): State<ShareState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ShareError> {
    if !is_share_id(&id) {
        return Err(not_found(&id));
    }
    let Some(info) = s.store.share_info(&id).await? else {
        return Err(not_found(&id));
    };
    let Some(candidate) = delete_token(&headers) else {
        return Err(ShareError::Forbidden(
            "deleting a share needs its delete token: X-Delete-Token: sbs_… (or Authorization: \
             Bearer sbs_…)"
                .into(),
        ));
    };
    if !token::matches(&candidate, &info.delete_token_sha256) {
        return Err(ShareError::Forbidden(
            "this is not the share's delete token".into(),
        ));
    }
    s.store.delete_share(&id).await?;
    Ok((StatusCode::NO_CONTENT, no_store()).into_response())
}

/// The delete token from `X-Delete-Token` (what the page sends: the browser code never builds
/// an `Authorization` header, `scripts/check-invariants.sh`) or `Authorization: Bearer`.
fn delete_token(headers: &HeaderMap) -> Option<String> {
    if let Some(token) = headers.get("x-delete-token").and_then(|v| v.to_str().ok()) {
        return Some(token.trim().to_string());
    }
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_128_random_bits_in_base64url() {
        let a = new_id().unwrap();
        let b = new_id().unwrap();
        assert_ne!(a, b);
        assert!(is_share_id(&a) && is_share_id(&b), "{a} {b}");
        assert!(!is_share_id("short"));
        assert!(!is_share_id("aaaaaaaaaaaaaaaaaaaa/."));
        assert!(!is_share_id("aaaaaaaaaaaaaaaaaaaaaaa"));
    }
}
