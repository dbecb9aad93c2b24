//! The scorebench server and command line, as a library so tests drive it without a socket.
//!
//! - [`score`]: `scorebench score …` (reads files, calls metrics-core, prints the report)
//! - [`serve`]: `scorebench serve` (process lifecycle: database, socket, shutdown)
//! - [`api`]: the state every route shares and the JSON body (imports no route)
//! - [`error`]: the API's one error type (OpenAI shape), a leaf
//! - [`http`]: the axum router: `/api/*` and the built app with an `index.html` fallback
//! - [`db`]: the SQLite database and its migrations
//! - [`config`]: the upstream configuration (`--config FILE`); keys redacted in `Debug`
//! - [`upstream`], [`gateway`], [`cache`]: calling models (routing, limits, retries, cache, tokens)
//! - [`sampling`]: the k-th identical proxy request of a session gets the k-th sample
//! - [`proxy`]: `/api/v1/chat/completions`, `/api/v1/embeddings`, `/api/v1/models`
//! - [`runs`]: benchmark runs (MSQA, EOTGC) from the CLI (`scorebench run`) and `/api/v1/runs`
//! - [`sandbox`]: untrusted code (SGI-Bench dry experiments) under bubblewrap and limits
//! - [`guard`]: who may call (Host, Origin, content type, token) and the request-body budget
//! - [`redact`]: keys masked out of everything upstreams send back
//! - [`output`]: stdout writes that report a full disk or a closed pipe instead of panicking
//! - [`leaderboard`], [`store`]: shareable leaderboards (`/api/v1/leaderboards`, `/leaderboard/…`,
//!   `scorebench leaderboard …`) over SQLite or PostgreSQL
//! - [`share`]: private share links (`/api/v1/shares`, `/s/<id>`): ciphertext in, ciphertext out

// `print!` panics on a failed write: stdout goes through `output::write_stdout`.
#![deny(clippy::print_stdout)]

pub mod api;
pub mod cache;
pub mod config;
pub mod db;
pub mod error;
pub mod files;
pub mod gateway;
pub mod guard;
pub mod http;
pub mod leaderboard;
pub mod output;
pub mod proxy;
pub mod redact;
pub mod runs;
pub mod sampling;
pub mod sandbox;
pub mod score;
pub mod serve;
pub mod share;
pub mod store;
pub mod upstream;
