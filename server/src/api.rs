//! The state every route shares and the JSON body extractor. Route modules import this module;
//! it imports no route module (the error type is [`crate::error`]).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use tokio::sync::OwnedSemaphorePermit;

use crate::error::ApiError;
use crate::guard::{BodyError, Guard, MAX_REQUEST_BYTES};

/// Shared state of the running server.
#[derive(Clone)]
pub struct AppState {
    /// The built app (`trunk build` output).
    pub dist: PathBuf,
    /// The SQLite connection (rusqlite is synchronous; requests are short).
    pub db: Arc<Mutex<rusqlite::Connection>>,
    /// Upstreams, cache and runs; `None` when served without `--config` (the proxy and run
    /// routes then answer 503, `/api/v1/models` an empty list).
    pub llm: Option<Arc<crate::runs::engine::Llm>>,
    /// Who may call (Host, Origin, token) and the request-body budget.
    pub guard: Arc<Guard>,
}

impl AppState {
    /// The configured services, or 503.
    pub fn services(&self) -> Result<Arc<crate::runs::engine::Llm>, ApiError> {
        self.llm.clone().ok_or_else(|| {
            ApiError::Unavailable(
                "no upstream is configured: start the server with --config".into(),
            )
        })
    }
}

/// A JSON request body: `Content-Type: application/json` (else `415`), at most
/// [`MAX_REQUEST_BYTES`] (else `413`), sent within the guard's body timeout (else `408`). Its
/// size is reserved from the guard's body budget before it is read and stays reserved while
/// this value lives, so the bodies held at once stay within the budget (a request waits for
/// room, `503` after the body timeout).
pub struct JsonBody {
    pub bytes: Bytes,
    _reserved: OwnedSemaphorePermit,
}

impl FromRequest<AppState> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, ApiError> {
        let (bytes, reserved) = state
            .guard
            .read_body(request, "application/json", MAX_REQUEST_BYTES)
            .await
            .map_err(|e| match e {
                BodyError::MediaType(got) => ApiError::UnsupportedMediaType(format!(
                    "the body must be sent as Content-Type: application/json, got {got:?}"
                )),
                BodyError::TooLarge => ApiError::PayloadTooLarge(MAX_REQUEST_BYTES),
                BodyError::Busy => ApiError::Unavailable(
                    "too many large request bodies in flight: try again shortly".into(),
                ),
                BodyError::ShuttingDown => ApiError::Unavailable("shutting down".into()),
                BodyError::Late(s) => ApiError::RequestTimeout(format!(
                    "the request body did not arrive within {s} s"
                )),
                BodyError::Bad(message) => ApiError::BadRequest(message),
            })?;
        Ok(JsonBody {
            bytes,
            _reserved: reserved,
        })
    }
}
