//! The JSON of the server's model API that the page reads: the models it serves
//! (`GET /api/v1/models`), the kinds of run it starts with their forms (`GET
//! /api/v1/runs/kinds`) and a run's progress (`GET /api/v1/runs/{id}`). Built by the server
//! (`server/src/proxy.rs`, `server/src/runs`), read by `app/src/api.rs`.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// `GET /api/v1/models`: the OpenAI list shape, and whether upstreams are configured at all.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelList {
    /// `list`.
    pub object: String,
    pub data: Vec<Model>,
    #[serde(default)]
    pub configured: bool,
}

/// A model the server serves (never its upstream's URL or key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Model {
    pub id: String,
    /// `model`.
    #[serde(default)]
    pub object: String,
    /// The upstream's name in the server's configuration.
    pub owned_by: String,
}

/// Token use and cost of some calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// Calls that reached an upstream (each retry counts).
    pub upstream_calls: u64,
    /// Replies answered from the cache.
    pub cache_hits: u64,
    /// Tokens of all replies, cached ones included.
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Price of the upstream (not cached) replies; `None` when no price is configured.
    pub cost: Option<f64>,
}

impl Usage {
    /// Add `other`'s calls, tokens and cost.
    pub fn add(&mut self, other: &Usage) {
        self.upstream_calls += other.upstream_calls;
        self.cache_hits += other.cache_hits;
        self.prompt_tokens = self.prompt_tokens.saturating_add(other.prompt_tokens);
        self.completion_tokens = self
            .completion_tokens
            .saturating_add(other.completion_tokens);
        self.cost = match (self.cost, other.cost) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
        };
    }
}

/// A run's use of the model it runs and of its judge.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct RunUsage {
    pub model: Usage,
    pub judge: Usage,
}

/// Where a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    Running,
    Paused,
    Finished,
    Failed,
    /// Stopped by `POST /api/v1/runs/{id}/cancel`.
    Cancelled,
    /// Its process stopped while it ran (found at start-up); resumable.
    Interrupted,
}

impl RunState {
    /// Its name in the API.
    pub fn as_str(self) -> &'static str {
        match self {
            RunState::Running => "running",
            RunState::Paused => "paused",
            RunState::Finished => "finished",
            RunState::Failed => "failed",
            RunState::Cancelled => "cancelled",
            RunState::Interrupted => "interrupted",
        }
    }

    /// The state a stored name means (unknown names read as failed).
    pub fn parse(name: &str) -> RunState {
        [
            RunState::Running,
            RunState::Paused,
            RunState::Finished,
            RunState::Cancelled,
            RunState::Interrupted,
        ]
        .into_iter()
        .find(|s| s.as_str() == name)
        .unwrap_or(RunState::Failed)
    }

    /// Still working (running or paused).
    pub fn is_live(self) -> bool {
        matches!(self, RunState::Running | RunState::Paused)
    }

    /// Stopped before it finished, and can be resumed.
    pub fn is_resumable(self) -> bool {
        matches!(
            self,
            RunState::Failed | RunState::Cancelled | RunState::Interrupted
        )
    }
}

/// `GET /api/v1/runs/{id}`: a run's progress.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunProgress {
    pub id: String,
    pub benchmark: String,
    pub model: String,
    pub state: RunState,
    pub done: u64,
    pub total: u64,
    pub reused: u64,
    pub failed: u64,
    pub elapsed_s: f64,
    pub rate_per_s: Option<f64>,
    pub eta_s: Option<f64>,
    #[serde(default)]
    pub usage: RunUsage,
    pub error: Option<String>,
    /// The files of the run written so far (of those its kind offers).
    pub files: Vec<String>,
}

/// `GET /api/v1/runs/kinds`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunKinds {
    pub kinds: Vec<RunKindInfo>,
}

/// A kind of run the server starts over HTTP, with the form the page renders for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunKindInfo {
    pub key: String,
    pub label: String,
    /// The files a run writes (the only names its files endpoint serves).
    pub files: Vec<String>,
    pub fields: Vec<Field>,
    /// Files of the finished run the workbench opens.
    pub open: Vec<String>,
    /// Inputs (record or files fields) handed to the workbench too.
    pub open_inputs: Vec<String>,
}

/// One field of a run request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Field {
    /// The request key.
    pub name: Cow<'static, str>,
    #[serde(rename = "type")]
    pub kind: FieldKind,
    /// English label (the page translates known names).
    pub label: Cow<'static, str>,
    pub required: bool,
    /// The default of an integer or choice field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<i64>,
    /// The values a choice field takes.
    #[serde(default, skip_serializing_if = "<[_]>::is_empty")]
    pub choices: Cow<'static, [i64]>,
}

/// How the page asks for a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldKind {
    /// A JSON file holding an array of records, sent as that array.
    Records,
    /// Several text files (a dataset folder's), sent as `[{"name", "text"}]`.
    Files,
    /// One model the server serves.
    Model,
    /// Several models the server serves (a list).
    Models,
    /// A model the server serves, or none.
    OptionalModel,
    /// A line of text (a name).
    Text,
    /// A whole number of at least 1.
    Integer,
    /// One of `choices`.
    Choice,
}

impl FieldKind {
    /// Its name in the API (`records`, `optional_model`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            FieldKind::Records => "records",
            FieldKind::Files => "files",
            FieldKind::Model => "model",
            FieldKind::Models => "models",
            FieldKind::OptionalModel => "optional_model",
            FieldKind::Text => "text",
            FieldKind::Integer => "integer",
            FieldKind::Choice => "choice",
        }
    }
}

impl Field {
    /// A field with everything said.
    pub const fn with(
        name: &'static str,
        kind: FieldKind,
        label: &'static str,
        required: bool,
        default: Option<i64>,
        choices: &'static [i64],
    ) -> Field {
        Field {
            name: Cow::Borrowed(name),
            kind,
            label: Cow::Borrowed(label),
            required,
            default,
            choices: Cow::Borrowed(choices),
        }
    }

    /// A required field.
    pub const fn new(name: &'static str, kind: FieldKind, label: &'static str) -> Field {
        Field::with(name, kind, label, true, None, &[])
    }

    /// A field that may be left out.
    pub const fn optional(name: &'static str, kind: FieldKind, label: &'static str) -> Field {
        Field::with(name, kind, label, false, None, &[])
    }

    /// An integer field with a default (not required).
    pub const fn integer(name: &'static str, label: &'static str, default: i64) -> Field {
        Field::with(name, FieldKind::Integer, label, false, Some(default), &[])
    }

    /// `workers` (default 8), as every kind takes it.
    pub const WORKERS: Field = Field::integer("workers", "workers", 8);
}
