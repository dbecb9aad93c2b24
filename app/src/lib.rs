//! The scorebench workbench in the browser.
//!
//! Two wasm binaries share this library: `app` (the page, `src/main.rs`) and `worker` (a Web
//! Worker, `src/bin/worker.rs`) that parses and scores off the main thread, so big files never
//! freeze the page. They talk through [`protocol`]. No formula lives here: every number comes
//! from metrics-core. [`share`] seals private share links (AES-256-GCM in the browser).

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
pub mod webcrypto;
pub mod worker;
pub mod worker_client;
pub mod xlsx;

/// Mount the page.
pub fn mount() {
    console_error_panic_hook::set_once();
    if leaderboard::mount_if_routed() {
        return;
    }
    leptos::mount::mount_to_body(pages::workbench::Workbench);
}
