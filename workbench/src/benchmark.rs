//! The [`Benchmark`] trait: everything scorebench knows about one benchmark, implemented once
//! in each module of [`crate::benchmarks`] and listed once in [`crate::registry`].
//!
//! ```text
//! recognise   name + head of a file            → Detected { role, confidence, why }
//! plan        the files with their roles       → jobs (or "unusable because …")
//! score       a job's files, a variant         → Scored { Report, typed records }
//! table       a report                         → Table (layout, scale, decimals)
//! charts      a scored job                     → benchmark-specific charts (generic ones are free)
//! sample_row  one report sample                → SampleRow (the samples tab)
//! detail      one sample                       → the texts behind it (question, reply, steps)
//! paired      two scored jobs                  → the paired resampling unit of the bootstrap
//! prepare     a role                           → a reader fed the file while it is read
//! samples     scored records                   → sample rows, built after the table in the browser
//! ```
//! Defaults cover a benchmark with nothing special: a subset × metric table, no extra charts,
//! generic sample rows, no detail, no bootstrap.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::charts::Chart;
use crate::class::ClassView;
use crate::compare::CompareError;
use crate::detect::{Detected, Role, RoleInfo, Sniff};
use crate::drill::{self, Fields, SampleRow, StepComparison};
use crate::session::{Job, Outcome, PlanFile, Scored, Variant, WorkFile};
use crate::table::{self, Table};
use metrics_core::{InputError, Report};

/// One variant a benchmark offers: the page's toggle position, the name its reports carry and
/// the toggle's label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct VariantInfo {
    pub variant: Variant,
    pub report_name: &'static str,
    pub label: &'static str,
}

/// The official variant alone (most benchmarks).
pub const OFFICIAL_ONLY: &[VariantInfo] = &[VariantInfo {
    variant: Variant::Official,
    report_name: "official",
    label: "Official",
}];

/// Official and a `corrected` variant (SAS-Bench, ASAP-AES).
pub const OFFICIAL_AND_CORRECTED: &[VariantInfo] = &[
    OFFICIAL_ONLY[0],
    VariantInfo {
        variant: Variant::Corrected,
        report_name: "corrected",
        label: "Corrected",
    },
];

/// The paired resampling unit of the bootstrap: two models' records aligned, in strata (SAS-Bench
/// files; one stratum otherwise), and the metrics of both on a draw of record indices.
pub trait Paired: Send + Sync {
    /// The metric keys, in the order [`Paired::metrics`] returns them.
    fn keys(&self) -> Vec<&'static str>;
    /// Sizes of the strata.
    fn strata(&self) -> Vec<usize>;
    /// The metrics of both models on the records `draw` (one index list per stratum).
    fn metrics(&self, draw: &[Vec<usize>]) -> Vec<(Option<f64>, Option<f64>)>;
}

/// A benchmark: everything scorebench knows about it, behind one trait.
pub trait Benchmark: Send + Sync + 'static {
    /// The key the CLI (`score <key>`), reports (`benchmark`) and URLs use.
    fn key(&self) -> &'static str;
    /// A display name.
    fn label(&self) -> &'static str;
    /// The headline metrics of its reports, in table order.
    fn metrics(&self) -> &'static [&'static str];
    /// Metrics some of its reports add to the headline ones, which a board may show and rank
    /// by (EOTGC's `track2` and `total` when a submission carries its Track 2 numbers).
    fn more_metrics(&self) -> &'static [&'static str] {
        &[]
    }
    /// Other names of its metrics in published results tables (`track1` → EOTGC's `score`),
    /// for importing them: (other name, metric).
    fn metric_aliases(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }
    /// Metrics a reported entry's numbers imply, computed by the benchmark's own rule from the
    /// numbers it has (`get`): EOTGC's `total` from `score` and `track2`. The caller keeps a
    /// number the entry reports itself.
    fn derived_metrics(&self, _get: &dyn Fn(&str) -> Option<f64>) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
    /// The metric a leaderboard ranks by unless its owner names another: the benchmark's own
    /// ranking metric (EOTGC's official `score`), by default the first of [`Self::metrics`].
    fn primary_metric(&self) -> &'static str {
        self.metrics().first().copied().unwrap_or("")
    }
    /// The variants it offers, official first.
    fn variants(&self) -> &'static [VariantInfo] {
        OFFICIAL_ONLY
    }
    /// The name of `variant` in its reports, `None` when it has no such variant.
    fn report_name(&self, variant: Variant) -> Option<&'static str> {
        self.variants()
            .iter()
            .find(|v| v.variant == variant)
            .map(|v| v.report_name)
    }
    /// A toggle label for `variant` (`Official` / `Corrected` / `Paper rule`).
    fn variant_label(&self, variant: Variant) -> &'static str {
        self.variants()
            .iter()
            .find(|v| v.variant == variant)
            .map_or("Official", |v| v.label)
    }
    /// The variants it offers (the page shows a toggle when there are two).
    fn available_variants(&self) -> Vec<Variant> {
        self.variants().iter().map(|v| v.variant).collect()
    }
    /// The variant its reports name `name` (`official`, `corrected`, `paper`).
    fn variant_named(&self, name: &str) -> Option<Variant> {
        self.variants()
            .iter()
            .find(|v| v.report_name == name)
            .map(|v| v.variant)
    }
    /// `scorebench score <key>`: its arguments and how they become a report (only with the
    /// `cli` feature; the page reads files its own way).
    #[cfg(feature = "cli")]
    fn command(&self) -> &'static crate::cli::Command;
    /// Its runs (`scorebench run <key>`, `POST /api/v1/runs`): what asks a model and writes
    /// the files it scores.
    #[cfg(feature = "cli")]
    fn runs(&self) -> &'static [&'static crate::runs::RunSpec] {
        &[]
    }
    /// The roles its files play.
    fn roles(&self) -> &'static [&'static RoleInfo];
    /// The role of a file recognised by content (and names that say it all); `None` = not ours.
    fn recognise(&self, sniff: &Sniff<'_>) -> Option<Detected>;
    /// A weaker guess from the name alone, tried after every benchmark's [`Self::recognise`].
    fn recognise_by_name(&self, _sniff: &Sniff<'_>) -> Option<Detected> {
        None
    }
    /// Group the files of this benchmark's roles into jobs.
    fn plan(&self, files: &[PlanFile<'_>]) -> Vec<Job>;
    /// Score one job (never an unusable one: the session reports those).
    fn score(&self, files: &[WorkFile], job: &Job, variant: Variant) -> Result<Scored, InputError>;
    /// For a benchmark whose `score` leaves the report's samples out: how many samples its
    /// scored records make ([`Self::sample_at`] builds each when it is asked for, so the browser
    /// sends the table first and never holds a million samples as JSON values).
    fn sample_count(&self, _scored: &Scored) -> Option<usize> {
        None
    }
    /// Sample `index` (`< sample_count`) built from the scored records, as the report's
    /// `samples` would hold it.
    fn sample_at(&self, _scored: &Scored, _index: usize) -> Option<Map<String, Value>> {
        None
    }
    /// A reader of a file of `role` fed piece by piece while the browser reads the file
    /// ([`crate::prepare`]); `score` then takes its records from [`WorkFile::prepared`].
    fn prepare(
        &self,
        _name: &str,
        _role: crate::detect::Role,
        _head: &str,
    ) -> Option<Box<dyn Prepare>> {
        None
    }
    /// Score a scored job again with another variant; by default from its files.
    fn rescore(
        &self,
        files: &[WorkFile],
        outcome: &Outcome,
        variant: Variant,
    ) -> Result<Scored, InputError> {
        self.score(files, &outcome.job, variant)
    }
    /// The report's table; by default subsets × scalar metrics, 4 decimals.
    fn table(&self, report: &Report) -> Table {
        table::subset_table(report, self.table_style())
    }
    /// How undefined cells are explained (see [`table::TableStyle`]).
    fn table_style(&self) -> table::TableStyle {
        table::TableStyle::default()
    }
    /// The teacher's class view of a scored job (essays with levels and comments), when the
    /// benchmark has one.
    fn class(&self, _scored: &Scored) -> Option<ClassView> {
        None
    }
    /// Charts beyond the generic ones (confusion, distributions, per-subset bars).
    fn charts(&self, _scored: &Scored, _variant: Variant) -> Vec<Chart> {
        Vec::new()
    }
    /// One report sample as a row of the samples tab.
    fn sample_row(&self, index: usize, sample: &Map<String, Value>) -> SampleRow {
        drill::generic_row(index, sample, None)
    }
    /// Sample `index`'s row built straight from the scored records (the row
    /// [`Self::sample_row`] makes of [`Self::sample_at`]'s sample, without building the
    /// sample: the summary and each filter build every row); `None` to go through the sample.
    fn row_at(&self, _scored: &Scored, _index: usize) -> Option<SampleRow> {
        None
    }
    /// The texts behind one sample (question, reference, reply, …) and, where the benchmark has
    /// them, per-step comparisons. By default none.
    fn detail(
        &self,
        _files: &[WorkFile],
        _outcome: &Outcome,
        _index: usize,
        _sample: &Map<String, Value>,
    ) -> Result<(Fields, Vec<StepComparison>), InputError> {
        Ok((Vec::new(), Vec::new()))
    }
    /// The entries of an archive of this benchmark's that its `score` reads, given the names in
    /// the archive's directory; `None` (the default): the whole file. The browser reads only
    /// these of a big archive ([`crate::prepare::archive_entries`]).
    fn archive_entries(&self, _names: &[&str]) -> Option<Vec<String>> {
        None
    }
    /// Whether this benchmark's files recognised by their name may be archives read in part
    /// ([`Self::archive_entries`]): the browser then reads their directory first.
    fn reads_archives_in_part(&self) -> bool {
        false
    }
    /// The archive entries [`Self::detail`] reads for this sample, beyond those `score` read.
    fn detail_entries(&self, _sample: &Map<String, Value>) -> Vec<String> {
        Vec::new()
    }
    /// The paired resampling unit for comparing two scored jobs of this benchmark.
    fn paired(
        &self,
        _a: &Scored,
        _b: &Scored,
        _variant: Variant,
    ) -> Result<Box<dyn Paired>, CompareError> {
        Err(CompareError(format!(
            "{}: the bootstrap needs per-sample records, which this benchmark's jobs do not keep",
            self.label()
        )))
    }
}

/// Records parsed from a file's pieces as they are read (see [`Benchmark::prepare`]).
pub trait Prepare {
    /// The next piece: whole lines ending with a line break, except the file's last piece.
    /// An error gives up (scoring then reads the whole text, and names the error).
    fn push(&mut self, piece: &str) -> Result<(), InputError>;
    /// The records of the whole file, as `score` takes them from [`WorkFile::prepared`].
    fn finish(self: Box<Self>) -> Result<crate::session::Prepared, InputError>;
}

/// The jobs a benchmark plans (with its key and label).
impl Job {
    /// A job of `benchmark` reading `files`.
    pub fn new(benchmark: &dyn Benchmark, title: String, files: Vec<(Role, usize)>) -> Self {
        Self {
            benchmark: benchmark.key(),
            title,
            files,
            unusable: None,
        }
    }

    /// A file of `benchmark` that cannot be scored as it is, and why.
    pub fn unusable(benchmark: &dyn Benchmark, file: &PlanFile<'_>, why: String) -> Self {
        Self {
            benchmark: benchmark.key(),
            title: format!("{}: {}", benchmark.label(), file.name),
            files: vec![(file.role, file.index)],
            unusable: Some(why),
        }
    }

    /// One job per file of `role`, titled "<label>: <file name>".
    pub fn one_per_file(
        benchmark: &dyn Benchmark,
        files: &[PlanFile<'_>],
        role: Role,
        label: &str,
    ) -> Vec<Job> {
        files
            .iter()
            .filter(|f| f.role == role)
            .map(|f| {
                Job::new(
                    benchmark,
                    format!("{label}: {}", f.name),
                    vec![(role, f.index)],
                )
            })
            .collect()
    }
}
