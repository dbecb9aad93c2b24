//! The benchmark registry: every benchmark is one type implementing [`Benchmark`], listed once in
//! [`REGISTRY`]. The CLI's `score <key>` subcommands, file recognition, job planning, the table,
//! charts, samples and the paired bootstrap all go through this list; nothing outside a
//! benchmark's own module matches on which benchmark it is.
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

use crate::benchmarks;
use crate::charts::Chart;
use crate::class::ClassView;
use crate::compare::CompareError;
use crate::detect::{Detected, RoleInfo, Sniff};
use crate::drill::{self, Fields, SampleRow, StepComparison};
use crate::session::{Job, Outcome, PlanFile, Scored, Variant, WorkFile};
use crate::table::{self, Table};
use metrics_core::{InputError, Report};

/// Every registered benchmark, in recognition order (the first that recognises a file wins;
/// generic gold/pred files last).
pub static REGISTRY: &[&dyn Benchmark] = &[
    &benchmarks::sasbench::SasBench,
    &benchmarks::eotgc::Eotgc,
    &benchmarks::msqa::Msqa,
    &benchmarks::sgibench::SgiDry,
    &benchmarks::sgibench::SgiIdea,
    &benchmarks::sgibench::SgiDeepResearch,
    &benchmarks::sgibench::SgiWet,
    &benchmarks::sgibench::SgiReasoning,
    &benchmarks::sgibench::SgiScore,
    &benchmarks::asap_aes::AsapAes,
    &benchmarks::lm_eval::LmEval,
    &benchmarks::inspect::Inspect,
    &benchmarks::evalscope::EvalScope,
    &benchmarks::pairs::PairsBenchmark,
];

/// Every registered benchmark.
pub fn all() -> &'static [&'static dyn Benchmark] {
    REGISTRY
}

/// The benchmark with this key (`sasbench`, `eotgc`, …).
pub fn get(key: &str) -> Option<&'static dyn Benchmark> {
    REGISTRY.iter().copied().find(|b| b.key() == key)
}

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
    /// The metric a leaderboard ranks by unless its owner names another: the benchmark's own
    /// ranking metric (EOTGC's official `score`), by default the first of [`Self::metrics`].
    fn primary_metric(&self) -> &'static str {
        self.metrics().first().copied().unwrap_or("")
    }
    /// The variants it offers, official first.
    fn variants(&self) -> &'static [VariantInfo] {
        OFFICIAL_ONLY
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

/// What `scorebench benchmarks --json` prints for one benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct Listing {
    pub key: &'static str,
    pub label: &'static str,
    pub metrics: &'static [&'static str],
    pub variants: Vec<&'static str>,
    pub roles: Vec<ListedRole>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ListedRole {
    pub key: &'static str,
    pub label: &'static str,
    /// Gold data shared by every model's predictions (a gold file, a taxonomy).
    pub shared: bool,
}

/// The registry as `scorebench benchmarks` lists it.
pub fn listing() -> Vec<Listing> {
    REGISTRY
        .iter()
        .map(|b| Listing {
            key: b.key(),
            label: b.label(),
            metrics: b.metrics(),
            variants: b.variants().iter().map(|v| v.report_name).collect(),
            roles: b
                .roles()
                .iter()
                .map(|r| ListedRole {
                    key: r.key,
                    label: r.label,
                    shared: r.shared,
                })
                .collect(),
        })
        .collect()
}

/// Records parsed from a file's pieces as they are read (see [`Benchmark::prepare`]).
pub trait Prepare {
    /// The next piece: whole lines ending with a line break, except the file's last piece.
    /// An error gives up (scoring then reads the whole text, and names the error).
    fn push(&mut self, piece: &str) -> Result<(), InputError>;
    /// The records of the whole file, as `score` takes them from [`WorkFile::prepared`].
    fn finish(self: Box<Self>) -> Result<crate::session::Prepared, InputError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_role_keys_are_unique() {
        let mut keys: Vec<&str> = all().iter().map(|b| b.key()).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), all().len());
        let mut roles: Vec<&str> = all()
            .iter()
            .flat_map(|b| b.roles().iter().map(|r| r.key))
            .collect();
        let n = roles.len();
        roles.sort_unstable();
        roles.dedup();
        assert_eq!(roles.len(), n);
        for b in all() {
            assert_eq!(b.variants()[0].variant, Variant::Official, "{}", b.key());
            assert!(get(b.key()).is_some());
        }
    }
}
