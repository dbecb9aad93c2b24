//! EvalScope outputs: `reports/<model>/<dataset>.json` and `reviews/<model>/<dataset>_<subset>.jsonl`.
//!
//! ```text
//! roles     evalscope-report (a JSON object with `metrics` and `dataset_name`),
//!           evalscope-reviews (JSONL records with `sample_score`)
//! jobs      one per report, with the reviews of its dataset (and model folder when the names
//!           carry one); a second model's files of the same names go to the second report
//! table     a row per subset with each metric's score as EvalScope wrote it (4 places)
//! samples   subset, sample id, target, extracted answer; disagreement = 1 − the first metric
//! bootstrap reviews aligned on subset + sample id + generation, resampled within each subset;
//!           per metric the mean over all subsets
//! ```

use serde_json::{Map, Value};

use super::imports::{
    MeanPaired, first_score, inputs, intern, named, score_row, short, stem, strata_of,
};
use crate::benchmark::{Benchmark, Paired};
use crate::compare::{CompareError, align_ids};
use crate::detect::{Detected, Role, RoleInfo, Shape, Sniff, base_name};
use crate::drill::{self, Fields, SampleRow, StepComparison, text_of};
use crate::session::{Job, Outcome, PlanFile, Scored, Variant, WorkFile};
use metrics_core::InputError;
use metrics_core::imports::evalscope::{self, Run};

pub struct EvalScope;

/// A run being planned: its dataset (the report's stem), the folder it sits in, its files.
struct Planned {
    dataset: String,
    folder: String,
    files: Vec<(Role, usize)>,
    name: String,
}

static REPORT_INFO: RoleInfo = RoleInfo {
    key: "evalscope-report",
    label: "EvalScope report (JSON)",
    shared: false,
};
static REVIEWS_INFO: RoleInfo = RoleInfo {
    key: "evalscope-reviews",
    label: "EvalScope reviews (JSONL)",
    shared: false,
};
static ROLES: [&RoleInfo; 2] = [&REPORT_INFO, &REVIEWS_INFO];
const REPORT: Role = Role(&REPORT_INFO);
const REVIEWS: Role = Role(&REVIEWS_INFO);

/// The folder a file sits in (`reviews/model-a/x.jsonl` → `model-a`), "" for a bare name.
fn folder(name: &str) -> &str {
    let trimmed = &name[..name.len() - base_name(name).len()];
    base_name(trimmed.trim_end_matches(['/', '\\']))
}

impl Benchmark for EvalScope {
    #[cfg(feature = "cli")]
    fn command(&self) -> &'static crate::cli::Command {
        &super::imports::cli::EVALSCOPE
    }
    fn key(&self) -> &'static str {
        evalscope::BENCHMARK
    }

    fn label(&self) -> &'static str {
        "EvalScope"
    }

    fn metrics(&self) -> &'static [&'static str] {
        &["acc", "accuracy", "mean_acc"]
    }

    fn roles(&self) -> &'static [&'static RoleInfo] {
        &ROLES
    }

    fn recognise(&self, sniff: &Sniff<'_>) -> Option<Detected> {
        if sniff.is_jsonl() && sniff.has("sample_score") {
            return Some(Detected::new(
                REVIEWS,
                sniff.confidence(),
                "JSONL records with `sample_score` (EvalScope reviews)",
            ));
        }
        if matches!(sniff.shape, Shape::Object { .. })
            && sniff.has("metrics")
            && sniff.has("dataset_name")
            && sniff.has("model_name")
        {
            return Some(Detected::new(
                REPORT,
                sniff.confidence(),
                "a JSON object with `metrics`, `dataset_name` and `model_name` (an EvalScope report)",
            ));
        }
        None
    }

    fn plan(&self, files: &[PlanFile<'_>]) -> Vec<Job> {
        let mut runs: Vec<Planned> = files
            .iter()
            .filter(|f| f.role == REPORT)
            .map(|f| Planned {
                dataset: stem(f.name).to_string(),
                folder: folder(f.name).to_string(),
                files: vec![(REPORT, f.index)],
                name: f.name.to_string(),
            })
            .collect();
        for f in files.iter().filter(|f| f.role == REVIEWS) {
            let (s, dir) = (stem(f.name), folder(f.name));
            let fits = |run: &Planned| {
                s.strip_prefix(run.dataset.as_str())
                    .is_some_and(|r| r.starts_with('_'))
                    && (dir.is_empty() || run.folder.is_empty() || dir == run.folder)
                    && !run.files.iter().any(|&(_, i)| {
                        files
                            .iter()
                            .any(|g| g.index == i && base_name(g.name) == base_name(f.name))
                    })
            };
            match runs.iter().position(fits) {
                Some(at) => runs[at].files.push((REVIEWS, f.index)),
                // Reviews without a report: the dataset is the name before the last `_`.
                None => runs.push(Planned {
                    dataset: s.rsplit_once('_').map_or(s, |(d, _)| d).to_string(),
                    folder: dir.to_string(),
                    files: vec![(REVIEWS, f.index)],
                    name: f.name.to_string(),
                }),
            }
        }
        runs.into_iter()
            .map(|run| {
                let model = if run.folder.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", run.folder)
                };
                Job::new(
                    self,
                    format!(
                        "EvalScope: {}{model}, {} files",
                        base_name(&run.name),
                        run.files.len()
                    ),
                    run.files,
                )
            })
            .collect()
    }

    fn score(
        &self,
        files: &[WorkFile],
        job: &Job,
        _variant: Variant,
    ) -> Result<Scored, InputError> {
        let named = named(files, job)?;
        let run = evalscope::parse(&named)?;
        let report = evalscope::report(&run, inputs(files, job)?, true);
        Ok(Scored::with_records(report, run))
    }

    fn sample_row(&self, index: usize, s: &Map<String, Value>) -> SampleRow {
        let reserved = [
            "subset",
            "id",
            "generation",
            "target",
            "extracted",
            "prediction",
        ];
        let value = first_score(s, &reserved);
        let detail = vec![short(&text_of(s.get("prediction")), 200)];
        score_row(index, s, "extracted", value, detail)
    }

    fn detail(
        &self,
        _files: &[WorkFile],
        _outcome: &Outcome,
        _index: usize,
        s: &Map<String, Value>,
    ) -> Result<(Fields, Vec<StepComparison>), InputError> {
        Ok((
            drill::string_fields(
                s,
                &[
                    ("target", "Target"),
                    ("prediction", "Reply"),
                    ("extracted", "Extracted answer"),
                ],
            ),
            Vec::new(),
        ))
    }

    fn paired(
        &self,
        a: &Scored,
        b: &Scored,
        _variant: Variant,
    ) -> Result<Box<dyn Paired>, CompareError> {
        let (Some(ra), Some(rb)) = (a.records::<Run>(), b.records::<Run>()) else {
            return Err(CompareError(
                "EvalScope: the bootstrap needs the reviews of both runs".into(),
            ));
        };
        let keys_a: Vec<String> = ra.reviews.iter().map(|r| r.key()).collect();
        let keys_b: Vec<String> = rb.reviews.iter().map(|r| r.key()).collect();
        let pairs = align_ids(
            keys_a.iter().map(String::as_str),
            keys_b.iter().map(String::as_str),
        );
        if pairs.is_empty() {
            return Err(CompareError(
                "no reviewed samples in common (subset and sample id): nothing to compare".into(),
            ));
        }
        let mut metrics: Vec<String> = Vec::new();
        for &(i, _) in &pairs {
            for (m, _) in &ra.reviews[i].values {
                if !metrics.contains(m) {
                    metrics.push(m.clone());
                }
            }
        }
        let strata = strata_of(
            &pairs,
            |i| ra.reviews[i].subset.clone(),
            |i, j| {
                (
                    metrics.iter().map(|m| ra.reviews[i].value(m)).collect(),
                    metrics.iter().map(|m| rb.reviews[j].value(m)).collect(),
                )
            },
        );
        Ok(Box::new(MeanPaired {
            keys: metrics.iter().map(|m| intern(m)).collect(),
            strata,
        }))
    }
}
