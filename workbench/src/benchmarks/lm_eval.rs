//! lm-evaluation-harness logs: the results JSON and the `samples_<task>_<date>.jsonl` files of
//! one run (`lm_eval … --log_samples --output_path`).
//!
//! ```text
//! roles     lm-eval-results (results_<date>.json), lm-eval-samples (samples_<task>_<date>.jsonl)
//! jobs      one per run: a results file with the samples files of the same date; samples
//!           files without a results file form their own run (recomputed numbers)
//! table     a row per task and group, the harness's metric keys ("acc,none", "acc_stderr,none")
//! samples   task, doc_id, target, filtered response; disagreement = 1 − the first metric
//! bootstrap records aligned on task + doc_id + filter, resampled within each task; per
//!           metric and filter the mean over all tasks (the size-weighted group value)
//! ```

use serde_json::{Map, Value};

use super::imports::{MeanPaired, first_score, inputs, intern, named, score_row, strata_of};
use crate::benchmark::{Benchmark, Paired};
use crate::compare::{CompareError, align_ids};
use crate::detect::{Detected, Role, RoleInfo, Sniff};
use crate::drill::{self, Fields, SampleRow, StepComparison, text_of};
use crate::session::{Job, Outcome, PlanFile, Scored, Variant, WorkFile};
use metrics_core::InputError;
use metrics_core::imports::lm_eval::{self, Run};

pub struct LmEval;

/// A run being planned: the date in its file names, its files, the name for its title.
struct Planned {
    date: String,
    files: Vec<(Role, usize)>,
    name: String,
}

static RESULTS_INFO: RoleInfo = RoleInfo {
    key: "lm-eval-results",
    label: "lm-evaluation-harness results (JSON)",
    shared: false,
};
static SAMPLES_INFO: RoleInfo = RoleInfo {
    key: "lm-eval-samples",
    label: "lm-evaluation-harness samples (JSONL)",
    shared: false,
};
static ROLES: [&RoleInfo; 2] = [&RESULTS_INFO, &SAMPLES_INFO];
const RESULTS: Role = Role(&RESULTS_INFO);
const SAMPLES: Role = Role(&SAMPLES_INFO);

/// The date lm-eval puts at the end of its file names (`…_2026-11-23T14-44-24.106629`), or "".
fn run_date(name: &str) -> &str {
    let stem = super::imports::stem(name);
    match stem.rfind('_') {
        Some(at) if stem.as_bytes().get(at + 11) == Some(&b'T') => &stem[at + 1..],
        _ => "",
    }
}

impl Benchmark for LmEval {
    #[cfg(feature = "cli")]
    fn command(&self) -> &'static crate::cli::Command {
        &super::imports::cli::LM_EVAL
    }
    fn key(&self) -> &'static str {
        lm_eval::BENCHMARK
    }

    fn label(&self) -> &'static str {
        "lm-evaluation-harness"
    }

    fn metrics(&self) -> &'static [&'static str] {
        &["acc,none", "acc_norm,none", "exact_match,none"]
    }

    fn roles(&self) -> &'static [&'static RoleInfo] {
        &ROLES
    }

    fn recognise(&self, sniff: &Sniff<'_>) -> Option<Detected> {
        if sniff.is_jsonl()
            && sniff.has("doc_id")
            && sniff.has_any(&["filtered_resps", "resps", "arguments"])
        {
            return Some(Detected::new(
                SAMPLES,
                sniff.confidence(),
                "JSONL records with `doc_id` and `filtered_resps` (lm-eval --log_samples)",
            ));
        }
        if matches!(sniff.shape, crate::detect::Shape::Object { .. })
            && sniff.has("results")
            && sniff.has_any(&["group_subtasks", "n-shot", "lm_eval_version", "n-samples"])
        {
            return Some(Detected::new(
                RESULTS,
                sniff.confidence(),
                "a JSON object with `results` and `n-shot` (an lm-eval results file)",
            ));
        }
        None
    }

    fn plan(&self, files: &[PlanFile<'_>]) -> Vec<Job> {
        let mut runs: Vec<Planned> = files
            .iter()
            .filter(|f| f.role == RESULTS)
            .map(|r| Planned {
                date: run_date(r.name).to_string(),
                files: vec![(RESULTS, r.index)],
                name: r.name.to_string(),
            })
            .collect();
        for s in files.iter().filter(|f| f.role == SAMPLES) {
            let date = run_date(s.name);
            let at = runs.iter().position(|r| r.date == date).or_else(|| {
                // Renamed files: the one results file takes every samples file.
                (date.is_empty() && runs.len() == 1).then_some(0)
            });
            match at {
                Some(at) => runs[at].files.push((SAMPLES, s.index)),
                None => runs.push(Planned {
                    date: date.to_string(),
                    files: vec![(SAMPLES, s.index)],
                    name: s.name.to_string(),
                }),
            }
        }
        runs.into_iter()
            .map(|run| {
                let n = run.files.len();
                let title = if n > 1 {
                    format!("lm-eval: {} (+{} samples files)", run.name, n - 1)
                } else {
                    format!("lm-eval: {}", run.name)
                };
                Job::new(self, title, run.files)
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
        let run = lm_eval::parse(&named)?;
        // The samples are built from the records when shown (`sample_at`), not held as JSON.
        let report = lm_eval::report(&run, inputs(files, job)?, false);
        Ok(Scored::with_records(report, run))
    }

    fn sample_count(&self, scored: &Scored) -> Option<usize> {
        scored.records::<Run>().map(|r| r.samples.len())
    }

    fn sample_at(&self, scored: &Scored, index: usize) -> Option<Map<String, Value>> {
        match lm_eval::sample_json(scored.records::<Run>()?.samples.get(index)?) {
            Value::Object(sample) => Some(sample),
            _ => None,
        }
    }

    fn sample_row(&self, index: usize, s: &Map<String, Value>) -> SampleRow {
        let reserved = [
            "subset",
            "id",
            "filter",
            "target",
            "response",
            "filtered_resps",
        ];
        let value = first_score(s, &reserved);
        score_row(index, s, "response", value, vec![text_of(s.get("filter"))])
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
                    ("response", "Answer"),
                    ("filtered_resps", "Filtered responses"),
                    ("filter", "Filter"),
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
                "lm-eval: the bootstrap needs the samples files (--log_samples) of both runs"
                    .into(),
            ));
        };
        let keys_a: Vec<String> = ra.samples.iter().map(|s| s.key()).collect();
        let keys_b: Vec<String> = rb.samples.iter().map(|s| s.key()).collect();
        let pairs = align_ids(
            keys_a.iter().map(String::as_str),
            keys_b.iter().map(String::as_str),
        );
        if pairs.is_empty() {
            return Err(CompareError(
                "no samples in common (task, doc_id and filter): nothing to compare".into(),
            ));
        }
        // Metric keys: "<metric>,<filter>" as the harness names them.
        let mut keys: Vec<(String, String)> = Vec::new();
        for &(i, _) in &pairs {
            let s = &ra.samples[i];
            for (m, _) in &s.values {
                let k = (m.clone(), s.filter.clone());
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
        }
        let value = |s: &lm_eval::Sample, (m, f): &(String, String)| {
            if s.filter == *f { s.value(m) } else { None }
        };
        let strata = strata_of(
            &pairs,
            |i| ra.samples[i].task.clone(),
            |i, j| {
                (
                    keys.iter().map(|k| value(&ra.samples[i], k)).collect(),
                    keys.iter().map(|k| value(&rb.samples[j], k)).collect(),
                )
            },
        );
        Ok(Box::new(MeanPaired {
            keys: keys
                .iter()
                .map(|(m, f)| intern(&format!("{m},{f}")))
                .collect(),
            strata,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::run_date;

    #[test]
    fn runs_are_told_apart_by_the_date_in_the_names() {
        assert_eq!(
            run_date("results_2026-11-23T14-44-24.106629.json"),
            "2026-11-23T14-44-24.106629"
        );
        assert_eq!(
            run_date("x/samples_arith_mc_easy_2026-11-23T14-44-24.106629.jsonl"),
            "2026-11-23T14-44-24.106629"
        );
        assert_eq!(run_date("mine.jsonl"), "");
    }
}
