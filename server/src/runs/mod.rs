//! Benchmark runs: the same engine from the CLI (`scorebench run …`) and from the HTTP API
//! (`/api/v1/runs`). A run turns a dataset into model calls through the [`crate::gateway::Gateway`] (so every
//! reply is cached and a killed run resumes without asking again), writes the benchmark's
//! output files, and reports progress (done/total, rate, ETA, tokens, cost) as it goes.
//!
//! - [`engine`]: [`engine::Llm`], launching, pausing, resuming, cancelling runs;
//!   [`progress`]: progress, states, errors, the shared file helpers
//! - [`kind`]: the [`kind::RunKind`] trait and [`registry::REGISTRY`], the one list both front
//!   ends dispatch through; each benchmark implements it once in its own module:
//!   - [`msqa`]: MSQA_Short, the official `run.py` procedure (evaluation.json, score.json)
//!   - [`eotgc`]: EOTGC Track 1 (levels) and Track 2 (comments) submission files
//!   - [`sgi`]: the SGI-Bench judges (deep research, dry experiment, idea generation)
//!   - [`sasbench`]: SAS-Bench step 1, the official prediction prompt (`_scored.jsonl` files)
//! - [`http`]: the `/api/v1/runs` routes; [`cli`]: `scorebench run`
//! - [`judge`]: judge calls counted apart (role `judge`) and the judge-list reading

pub mod cli;
pub mod engine;
pub mod form;
pub mod host;
pub mod http;
pub mod kind;
pub mod progress;
pub mod registry;
pub mod sgi;
pub mod spec;
