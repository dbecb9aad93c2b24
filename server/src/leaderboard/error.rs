//! Why a leaderboard operation failed; `api.rs` turns each into an HTTP status.

use crate::leaderboard::scoring::{Difference, ScoringError};
use crate::store::StoreError;

/// Why an operation failed; `api.rs` turns it into a status.
#[derive(Debug, thiserror::Error)]
pub enum LbError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    BadRequest(String),
    /// Files that cannot be scored as this board's benchmark (names the file).
    #[error("{0}")]
    Unprocessable(String),
    /// The client's numbers differ from the server's.
    #[error("{message}")]
    Mismatch {
        message: String,
        differences: Vec<Difference>,
    },
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    Conflict(String),
    /// A team's quota is used up.
    #[error("{0}")]
    Quota(String),
    /// The board's files would pass its bytes cap.
    #[error("{0}")]
    Full(String),
    /// The request body is over the upload limit.
    #[error("{0}")]
    TooLarge(String),
    /// The request body is not `application/json`.
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// The request body did not arrive within the body timeout.
    #[error("{0}")]
    Timeout(String),
    /// The body budget stayed full, or the server is shutting down: try again.
    #[error("{0}")]
    Unavailable(String),
    #[error("internal error")]
    Internal(String),
}

impl From<StoreError> for LbError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Conflict(m) => LbError::Conflict(m),
            StoreError::NotFound(m) => LbError::NotFound(m),
            StoreError::Quota(m) => LbError::Quota(m),
            StoreError::Full(m) => LbError::Full(m),
            StoreError::Backend(m) => LbError::Internal(m),
        }
    }
}

impl From<crate::files::FilesError> for LbError {
    fn from(e: crate::files::FilesError) -> Self {
        match e {
            crate::files::FilesError::Db(e) => e.into(),
            other => LbError::Internal(other.to_string()),
        }
    }
}

impl From<ScoringError> for LbError {
    fn from(e: ScoringError) -> Self {
        LbError::Unprocessable(e.0)
    }
}

/// An internal error (the store, a blocking task) with its message.
pub fn internal(e: impl std::fmt::Display) -> LbError {
    LbError::Internal(e.to_string())
}
