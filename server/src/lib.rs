//! The scorebench server and command line, as a library so tests drive it without a socket.
//!
//! - [`score`]: `scorebench score …` (reads files, calls metrics-core, prints the report)
//! - [`serve`]: `scorebench serve` (process lifecycle: database, socket, shutdown)
//! - [`http`]: the axum router: `/api/*` and the built app with an `index.html` fallback
//! - [`db`]: the SQLite database and its migrations

pub mod db;
pub mod http;
pub mod score;
pub mod serve;
