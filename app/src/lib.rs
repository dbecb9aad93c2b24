//! The scorebench workbench in the browser.
//!
//! Six wasm binaries share this library: `app` (the workbench page, `src/main.rs`), `boards`
//! (the leaderboard pages, `src/bin/boards.rs`), `worker` (a Web Worker, `src/bin/worker.rs`)
//! that parses and scores off the main thread, so big files never freeze the page, `xlsx` (the
//! class workbook, loaded on export), `spectoml` (benchmark specs' TOML, started by the worker
//! when a spec comes) and `charts` (plotters, started on the page's thread when charts are
//! first shown). They talk through [`protocol`]. No formula lives here: every
//! number comes from metrics-core. [`share`] seals private share links (AES-256-GCM in the browser).

pub mod adjustments;
pub mod api;
pub mod charts;
pub mod components;
pub mod download;
pub mod files;
pub mod i18n;
pub mod leaderboard;
pub mod pages;
pub mod protocol;
pub mod share;
pub mod spectoml;
pub mod webcrypto;
pub mod worker;
pub mod worker_client;
pub mod xlsx;

/// Mount the workbench, except on a server-rendered leaderboard page (it has its own binary,
/// `src/bin/boards.rs`; the server-rendered board stays as it is should the workbench's assets
/// ever land on one).
pub fn mount() {
    console_error_panic_hook::set_once();
    let on_board_page = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("leaderboard-ssr"))
        .is_some();
    if on_board_page {
        return;
    }
    leptos::mount::mount_to_body(pages::workbench::Workbench);
}
