//! # metrics-core
//!
//! Every scorebench metric, every benchmark's file format and scoring rules, and the
//! [`Report`](report::Report) the CLI prints and the browser renders. Pure computation: no IO,
//! no async, no clock, no unseeded randomness; builds for native targets and
//! `wasm32-unknown-unknown`.
//!
//! ## Conventions
//! - Formats turn text into typed records and report problems as [`InputError`] with the file
//!   name and 1-based line/record; scorers take typed records only.
//! - **NaN policy**: no public function returns NaN to mean "undefined". Where the official code
//!   produces NaN, the Rust function returns [`MetricError::Undefined`] and reports carry `null`.
//!   Benchmarks whose official code *replaces* NaN by a number (SAS-Bench ECS tiers) do the same
//!   replacement explicitly, documented in their module.
//! - Default scoring reproduces the official code (quirks included); corrected variants carry
//!   their own names.

pub mod accuracy;
pub mod agreement;
pub mod confusion;
pub mod error;
pub mod f1;
pub mod imports;
pub mod json_array;
pub mod kendall_tau_b;
pub mod numpy_sum;
pub mod pairs;
pub mod pearson;
pub mod python;
pub mod qwk;
pub mod report;
pub mod spearman;
pub mod spec;
pub mod text;

pub mod asap_aes;
pub mod eotgc;
pub mod msqa;
pub mod sasbench;
pub mod sgibench;

pub use error::{InputError, MetricError};
pub use text::Text;

/// Largest input file scorebench reads, in the browser and on the command line alike.
pub const MAX_FILE_BYTES: u64 = 1 << 30;
pub use report::{InputFile, MetricValue, Metrics, Overall, Report, Subset, Warning};
