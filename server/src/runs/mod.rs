//! Benchmark runs: the same engine from the CLI (`scorebench run …`) and from the HTTP API
//! (`/api/v1/runs`). What a run does (dataset → requests, reply → record, records → the
//! official files) is its benchmark's, in the workbench (`workbench::runs`, a `run` module
//! beside each benchmark's scoring); here it is executed: every reply through the
//! [`crate::gateway::Gateway`] (so it is cached and a killed run resumes without asking
//! again), progress (done/total, rate, ETA, tokens, cost) reported as it goes.
//!
//! - [`registry`]: the run kinds, from the workbench registry (the one list);
//!   [`kind`]: a run kind as the server starts it, its [`kind::Plan`]
//! - [`form`]: a run's params as flags (clap) and as the JSON body
//! - [`host`]: the one executor — [`host::ServerHost`] (gateway, usage, progress, pause, files)
//!   and [`host::SandboxHost`] (model code in the [`crate::sandbox`])
//! - [`engine`]: [`engine::Llm`], launching, pausing, resuming, cancelling runs;
//!   [`progress`]: progress, states, errors
//! - [`http`]: the `/api/v1/runs` routes; [`cli`]: `scorebench run`

pub mod cli;
pub mod engine;
pub mod form;
pub mod host;
pub mod http;
pub mod kind;
pub mod progress;
pub mod registry;
