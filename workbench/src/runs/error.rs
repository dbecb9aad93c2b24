//! Why a run stopped: [`RunError`] (a leaf of `runs`).

use std::path::Path;

/// Why a run stopped (or could not be started, paused, resumed or cancelled).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    Input(String),
    /// The run is not in a state that allows this.
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("{0}")]
    Internal(String),
    /// The run finished but the official code would have crashed here (no score file).
    #[error("{0}")]
    NoScore(String),
}

impl RunError {
    pub fn io(path: &Path, e: impl std::fmt::Display) -> RunError {
        RunError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        }
    }
}
