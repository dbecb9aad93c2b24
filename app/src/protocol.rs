//! Messages between the page and the Web Worker, as JSON text (file bytes travel beside the
//! JSON as transferred `Uint8Array`s, so a 100 MB file is never copied through JSON).

use metrics_core::{InputError, Report};
use serde::{Deserialize, Serialize};
use workbench::charts::Chart;
use workbench::compare::MetricInterval;
use workbench::drill::SampleDetail;
use workbench::{Detected, Role, Variant};

/// Page → worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum ToWorker {
    /// New files; their bytes follow the JSON in the same order. A batch that brings its own
    /// predictions becomes a new model; gold files, datasets and taxonomies are shared by all.
    AddFiles { names: Vec<String> },
    /// The user corrected a file's role: re-plan and re-score.
    SetRole { index: usize, role: Role },
    /// Forget a file.
    Remove { index: usize },
    /// Score again with another variant (official / corrected / paper).
    SetVariant { variant: Variant },
    /// One sample's full detail (question, reference, reply, steps).
    Detail { outcome: usize, index: usize },
    /// Paired bootstrap between two outcomes of the same benchmark.
    Compare {
        a: usize,
        b: usize,
        seed: u64,
        resamples: usize,
    },
    /// Forget everything.
    Clear,
}

/// Worker → page.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum FromWorker {
    /// The worker is alive and its wasm is loaded.
    Ready,
    /// Work in progress: `done` of `total` steps of `stage`.
    Progress {
        stage: String,
        done: usize,
        total: usize,
    },
    /// The files the worker holds, with what was recognised.
    Files { files: Vec<FileView> },
    /// One result per scoring job.
    Scored {
        variant: Variant,
        outcomes: Vec<OutcomeView>,
        elapsed_ms: f64,
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
    /// Something went wrong outside any file (a bug or a message the worker could not read).
    Failed { message: String },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileView {
    pub index: usize,
    pub name: String,
    pub size_bytes: usize,
    pub detected: Detected,
    pub role: Role,
    /// The model group (drop batch) the file belongs to; shared files say "shared".
    pub model: String,
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
    pub result: Result<Report, InputError>,
    /// The same job under the official variant when `variant` is not official, so the page can
    /// highlight the cells that change.
    pub official: Option<Report>,
    /// The benchmark's own charts (error counts per tier, levels per grade, …).
    pub charts: Vec<Chart>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareView {
    pub seed: u64,
    pub resamples: usize,
    pub aligned_records: usize,
    pub intervals: Vec<MetricInterval>,
}
