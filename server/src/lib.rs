//! The scorebench server and command line, as a library so tests drive it without a socket.
//!
//! - [`score`]: `scorebench score …` (reads files, calls metrics-core, prints the report)
//! - [`serve`]: `scorebench serve` (process lifecycle: database, socket, shutdown)
//! - [`http`]: the axum router: `/api/*` and the built app with an `index.html` fallback
//! - [`db`]: the SQLite database and its migrations
//! - [`config`]: the upstream configuration (`--config FILE`); keys redacted in `Debug`
//! - [`upstream`], [`gateway`], [`cache`]: calling models (routing, limits, retries, cache, tokens)
//! - [`proxy`]: `/api/v1/chat/completions`, `/api/v1/embeddings`, `/api/v1/models`
//! - [`runs`]: benchmark runs (MSQA, EOTGC) from the CLI (`scorebench run`) and `/api/v1/runs`
//! - [`leaderboard`], [`store`]: shareable leaderboards (`/api/v1/leaderboards`, `/leaderboard/…`,
//!   `scorebench leaderboard …`) over SQLite or PostgreSQL

pub mod cache;
pub mod config;
pub mod db;
pub mod gateway;
pub mod http;
pub mod leaderboard;
pub mod proxy;
pub mod runs;
pub mod score;
pub mod serve;
pub mod store;
pub mod upstream;
