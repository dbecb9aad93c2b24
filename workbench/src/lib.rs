//! # workbench
//!
//! What scorebench shows, as view models: the benchmark [`registry`], file recognition, scoring
//! jobs, tables and exports, charts, samples and model comparison. Pure like `metrics-core`
//! (which computes every number): no IO, builds for wasm32. The CLI, the page's Web Worker and
//! the server call it; the Leptos app holds no formula and renders what comes back. Flow:
//!
//! ```text
//! bytes ─ detect ─▶ WorkFile{role} ─ scoring::score_files ─▶ Outcome{Report + typed records}
//!   Report ─▶ table (view model + CSV/Markdown/LaTeX/JSON exports)
//!   Report/Records ─▶ charts (confusion, histograms, bars, ECS error frequencies, EOTGC levels)
//!   Report ─▶ drill (flat sample rows, filter, sample detail)
//!   Records × Records ─▶ compare (per-model table, paired bootstrap in chunks, sample diff)
//!   view state ⇄ URL query (url_state)
//! ```
//! Like the rest of the crate: no IO, no clock, randomness only from a seeded PRNG.

pub mod benchmark;
pub mod benchmarks;
pub mod bootstrap;
pub mod charts;
pub mod class;
#[cfg(feature = "cli")]
pub mod cli;
pub mod compare;
pub mod detect;
pub mod drill;
pub mod norming;
pub mod order;
pub mod prepare;
pub mod receipt;
pub mod registry;
#[cfg(feature = "cli")]
pub mod runs;
pub mod samples;
pub mod scoring;
pub mod session;
pub mod spec_form;
#[cfg(feature = "toml")]
pub mod spec_toml;
pub mod table;
pub mod url_state;
pub mod verify;
pub mod wire;
pub mod workspace;

pub use benchmark::{Benchmark, Paired};
pub use bootstrap::{Bootstrap, MetricInterval, Progress};
pub use charts::{Bars, Chart, EcsErrors, Histogram, LevelDistribution};
pub use compare::{SampleDiff, metrics_table, sample_diff};
pub use detect::{Confidence, Detected, Role};
pub use drill::{Filter, SampleDetail, SampleRow, filter};
pub use registry::{detect, table};
pub use samples::{sample_detail, sample_rows};
pub use scoring::{plan, rescore, score_files, score_job};
pub use session::{Outcome, Records, ScoreOptions, Scored, Variant, WorkFile};
pub use table::{Table, changed_cells, to_csv, to_json, to_latex, to_markdown};
pub use url_state::{Tab, ViewState};
