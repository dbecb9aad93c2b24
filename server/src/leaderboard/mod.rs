//! Shareable leaderboards (issue 10): boards of one registered benchmark, entries scored by the
//! server from their prediction files with the same crates as `scorebench score` and the page,
//! ranked at full precision with paired-bootstrap rank ranges, server-rendered pages that unfurl
//! without JavaScript, and the `scorebench leaderboard …` command line.
//!
//! - [`service`]: the operations (create, submit, show, edit, hide/restore/withdraw/delete,
//!   import, audit), no HTTP types
//! - [`scoring`]: files → roles → one workbench job → `Report` (shared with `verify`), the
//!   bit-for-bit comparison and the bootstrap against the leader
//! - [`rank`]: ranking and rank ranges, pure
//! - [`dates`]: ISO 8601 times in and out (the `time` crate)
//! - [`token`]: owner and entry tokens (OS randomness, stored as SHA-256, constant-time check)
//! - [`import`]: CSV / Markdown tables → reported entries
//! - [`api`]: `/api/v1/leaderboards…` and the pages (`server/API.md`)
//! - [`html`]: the pages, the SVG badge, the export table
//! - [`cli`]: `scorebench leaderboard …`
//! - [`competition`]: hidden-gold boards, phases, public/private shares, the scoring queue's
//!   workers (issue 14)
//!
//! Storage is [`crate::store`] (SQLite or PostgreSQL behind one trait).

pub mod api;
pub mod cli;
pub mod competition;
pub mod dates;
pub mod delivery;
pub mod error;
pub mod feeds;
pub mod hooks;
pub mod html;
pub mod import;
pub mod input;
pub mod limits;
pub mod markup;
pub mod pages;
pub mod queue;
pub mod rank;
pub mod scoring;
pub mod service;
pub mod token;
pub mod views;

use std::sync::Arc;

/// The leaderboard routes (API and pages) over `store`, ready to merge into the server's router;
/// starts the competition queue's workers (inside a tokio runtime).
pub fn router(
    store: Arc<dyn crate::store::Store>,
    files: Arc<crate::files::Files>,
    guard: Arc<crate::guard::Guard>,
    limits: limits::SubmitLimits,
    queue: queue::QueueConfig,
    hooks: hooks::HookConfig,
    embed_ancestors: &str,
) -> axum::Router {
    let hooks = hooks::HookConfig {
        public_url: guard.public_url.clone(),
        ..hooks
    };
    let boards = Arc::new(service::Boards::new(store, files, limits).with_hooks(hooks));
    queue::start(Arc::clone(&boards), queue);
    collect_files_now_and_then(Arc::clone(&boards));
    delivery::start(Arc::clone(&boards));
    let state = api::LbState {
        boards,
        guard,
        embed_ancestors: embed_ancestors.into(),
    };
    api::router(state.clone()).merge(pages::router(state))
}

/// Every ten minutes, delete the files nothing refers to that no delete collected at once: those
/// of writers that died holding them (their holds expire after `crate::files::HOLD_MS`).
fn collect_files_now_and_then(boards: Arc<service::Boards>) {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(600));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            boards.collect_files().await;
        }
    });
}
