//! Messages between the page and the Web Worker, as JSON text (file bytes travel beside the
//! JSON as transferred `Uint8Array`s, so a 100 MB file is never copied through JSON). Sample
//! rows stay in the worker: the page gets their summary (chart data included) and asks for
//! the window it shows.
//!
//! The enums are externally tagged (serde's default, `{"scored": {…}}`): an internally tagged
//! enum makes serde buffer each message as `Content` and instantiate every nested type's reader
//! a second time, which cost the page ~30 KB gzip.

use metrics_core::{InputError, Report};
use serde::{Deserialize, Serialize};
use workbench::bootstrap::MetricInterval;
use workbench::class::ClassView;
use workbench::compare::SampleDiff;
use workbench::drill::{Filter, SampleDetail};
use workbench::norming::NormingRequest;
use workbench::samples::{RowPage, RowsSummary};
use workbench::table::Table;
use workbench::{Confidence, Variant};

/// Page → worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToWorker {
    /// New files; their bytes (or, for dropped files, their `File`s, which the worker reads in
    /// chunks with progress) follow the JSON in the same order. A batch that brings its own
    /// predictions becomes a new model; gold files, datasets and taxonomies are shared by all.
    AddFiles { names: Vec<String> },
    /// The user corrected a file's role: re-plan and re-score.
    SetRole { index: usize, role: String },
    /// Forget a file.
    Remove { index: usize },
    /// Score again with another variant (official / corrected / paper).
    SetVariant { variant: Variant },
    /// One sample's full detail (question, reference, reply, steps).
    Detail { outcome: usize, index: usize },
    /// A window of an outcome's sample rows that pass `filter` (filtered in the worker, which
    /// holds the samples; the page only ever holds the rows it shows).
    Rows {
        outcome: usize,
        filter: Filter,
        offset: usize,
        limit: usize,
    },
    /// The per-sample diff of two outcomes: how many samples align, and the `limit` that
    /// differ most.
    Diff { a: usize, b: usize, limit: usize },
    /// Paired bootstrap between two outcomes of the same benchmark.
    Compare {
        a: usize,
        b: usize,
        seed: u64,
        resamples: usize,
    },
    /// The norming panel of an outcome's class (the teacher's and colleagues' ratings).
    Norming {
        outcome: usize,
        request: NormingRequest,
    },
    /// Forget everything.
    Clear,
    /// Send back every held file with its role and drop (a private share link is made of
    /// them); the worker keeps its own copies.
    Snapshot,
    /// Replace everything with these files (bytes follow the JSON in the same order), their
    /// roles and drops as they were shared, scored with `variant`.
    Restore {
        files: Vec<HeldFile>,
        models: usize,
        variant: Variant,
    },
    /// Benchmark specs kept in this browser, registered before the files that follow.
    AddSpecs { specs: Vec<SavedSpec> },
    /// Open the "define a benchmark" form on these held files (at most two): `SpecForm`.
    DefineSpec { files: Vec<usize> },
    /// The form changed: check the draft (a `workbench::spec_form::Draft`) and preview its
    /// report (`SpecForm`).
    PreviewSpec { draft: serde_json::Value },
    /// Save the draft's spec: written as TOML, registered, the held files recognised again
    /// (`SpecAdded` with `download`).
    SaveSpec { draft: serde_json::Value },
}

/// A spec file as the page keeps it: its name and TOML text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedSpec {
    pub name: String,
    pub toml: String,
}

/// A draft spec's report on the form's files, as the report table draws it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SpecPreview {
    pub report: Report,
    pub table: Table,
}

/// A held file without its bytes: its name, the role it has (detected or corrected) and the
/// drop (model group, index into the worker's models) it came in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeldFile {
    pub name: String,
    pub role: String,
    pub model: usize,
}

/// Worker → page.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FromWorker {
    /// The worker is alive and its wasm is loaded: it takes requests.
    Ready,
    /// The worker's warm-up is over (`worker::warm_up`; done, or given way to a request): the
    /// page's `data-ready`.
    Warm,
    /// Work in progress: `done` of `total` steps of `stage`.
    Progress {
        stage: String,
        done: usize,
        total: usize,
    },
    /// The files the worker holds, with what was recognised.
    Files {
        files: Vec<FileView>,
        /// Every role a file can be given (the registry's, then "Not used").
        roles: Vec<RoleView>,
    },
    /// One result per scoring job.
    Scored {
        variant: Variant,
        outcomes: Vec<OutcomeView>,
        elapsed_ms: f64,
        /// When each step of this scoring ended (`Date.now()` ms; the bench prints them).
        #[serde(default)]
        phases: Vec<(String, f64)>,
    },
    /// A dropped file's SHA-256, computed after the first numbers: it fills the reports' inputs
    /// (and a class view's file) named `name` whose hash is still empty.
    Hashed { name: String, sha256: String },
    /// What the charts and samples views need of an outcome's samples (the filter choices,
    /// the count; `charts`: a `crate::charts::ChartData` as JSON text, which the page hands to
    /// the chart module unread — it keeps no reader of chart data: first paint), sent after
    /// `Scored` (the table comes first).
    Summary {
        outcome: usize,
        summary: RowsSummary,
        charts: String,
    },
    /// The answer to [`ToWorker::Rows`].
    Rows {
        outcome: usize,
        filter: Filter,
        page: RowPage,
    },
    /// The answer to [`ToWorker::Diff`].
    Diff {
        a: usize,
        b: usize,
        result: Result<(usize, Vec<SampleDiff>), String>,
    },
    Detail {
        outcome: usize,
        index: usize,
        detail: Result<SampleDetail, String>,
    },
    Compared {
        a: usize,
        b: usize,
        result: Result<CompareView, String>,
    },
    /// The answer to [`ToWorker::Norming`].
    /// A `workbench::norming::NormingAnswer` as a JSON value: the page reads the few fields
    /// it needs and keeps no typed reader of the answer (first paint).
    Norming {
        outcome: usize,
        answer: serde_json::Value,
    },
    /// Something went wrong outside any file (a bug or a message the worker could not read).
    Failed { message: String },
    /// The "define a benchmark" form: the draft (a `workbench::spec_form::Draft` as a JSON
    /// value: the page edits the few fields the form shows and keeps no typed reader of it —
    /// first paint) and the report its spec gives on the files, or why it gives none.
    SpecForm {
        draft: serde_json::Value,
        preview: Result<SpecPreview, String>,
    },
    /// A spec was registered (a dropped `.toml`, a kept one, the form's): the page keeps it
    /// in this browser, and saves the file when `download` (the form's).
    SpecAdded {
        spec: SavedSpec,
        key: String,
        download: bool,
    },
    /// The answer to [`ToWorker::Snapshot`]; the files' bytes follow the JSON in order.
    Snapshot { files: Vec<HeldFile>, models: usize },
}

/// A role as the page shows it (the page does not link the benchmark registry).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoleView {
    pub key: String,
    pub label: String,
}

/// What detection said about a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DetectedView {
    pub benchmark: String,
    pub role: String,
    pub confidence: Confidence,
    pub why: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileView {
    pub index: usize,
    pub name: String,
    pub size_bytes: usize,
    pub detected: DetectedView,
    /// The role's key.
    pub role: String,
    /// The model group (drop batch) the file belongs to; shared files say "shared".
    pub model: String,
    /// The SHA-256 of its bytes (`None` until computed: a dropped file is hashed after the
    /// numbers).
    pub sha256: Option<String>,
}

/// One scoring job's result, as the page renders it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutcomeView {
    pub id: usize,
    pub model: String,
    pub title: String,
    /// The benchmark key.
    pub benchmark: String,
    pub variant: Variant,
    /// Variants this benchmark offers (the toggle shows only these).
    pub variants: Vec<Variant>,
    /// The files the job read.
    pub files: Vec<String>,
    /// The report, without its samples (they stay in the worker).
    pub result: Result<Report, InputError>,
    /// The report's table in its benchmark's layout.
    pub table: Option<Table>,
    /// Cells (subset, metric) that differ from the official variant's, to highlight.
    pub changed: Vec<(String, String)>,
    /// What the charts and samples draw of the samples: `None` in `Scored`, filled by the
    /// `Summary` message after it.
    pub summary: Option<RowsSummary>,
    /// The teacher's class view (essays with levels and comments), when the job has one.
    pub class: Option<ClassView>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareView {
    pub seed: u64,
    pub resamples: usize,
    pub aligned_records: usize,
    pub intervals: Vec<MetricInterval>,
}
