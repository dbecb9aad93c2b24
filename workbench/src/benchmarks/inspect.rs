//! Inspect AI logs: one `.eval` archive or `.json` log per run.
//!
//! ```text
//! roles     inspect-log (a .eval archive, by name; a JSON object with `eval` and `results`)
//! jobs      one per log
//! table     a row per scorer with its metrics as logged; overall = the headline scorer
//! samples   id, epoch, target, the first scorer's answer; disagreement = 1 − the first
//!           scorer's value
//! bootstrap samples aligned on id, each scorer's reduced value (after the epoch reducer;
//!           unscored left out); per scorer the mean (accuracy / mean)
//! ```

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::imports::{MeanPaired, inputs, intern, named, score_row, short};
use crate::benchmark::{Benchmark, Paired};
use crate::compare::{CompareError, align_ids};
use crate::detect::{Confidence, Detected, Role, RoleInfo, Shape, Sniff};
use crate::drill::{self, Fields, SampleRow, StepComparison, text_of};
use crate::session::{Job, Outcome, PlanFile, Scored, Variant, WorkFile};
use metrics_core::InputError;
use metrics_core::imports::inspect::{self, Log, Reduced};

pub struct Inspect;

static LOG_INFO: RoleInfo = RoleInfo {
    key: "inspect-log",
    label: "Inspect AI log (.eval / .json)",
    shared: false,
};
static ROLES: [&RoleInfo; 1] = [&LOG_INFO];
const LOG: Role = Role(&LOG_INFO);

impl Benchmark for Inspect {
    #[cfg(feature = "cli")]
    fn command(&self) -> &'static crate::cli::Command {
        &super::imports::cli::INSPECT
    }
    fn key(&self) -> &'static str {
        inspect::BENCHMARK
    }

    fn label(&self) -> &'static str {
        "Inspect AI"
    }

    fn metrics(&self) -> &'static [&'static str] {
        &["accuracy", "mean", "stderr"]
    }

    fn roles(&self) -> &'static [&'static RoleInfo] {
        &ROLES
    }

    fn recognise(&self, sniff: &Sniff<'_>) -> Option<Detected> {
        if sniff.lower.ends_with(".eval") {
            return Some(Detected::new(
                LOG,
                Confidence::High,
                "a `.eval` file (an Inspect AI log archive)",
            ));
        }
        if matches!(sniff.shape, Shape::Object { .. })
            && sniff.has("eval")
            && sniff.has_any(&["results", "samples", "plan"])
            && sniff.has("status")
        {
            return Some(Detected::new(
                LOG,
                sniff.confidence(),
                "a JSON object with `eval`, `status` and `results` (an Inspect AI log)",
            ));
        }
        None
    }

    fn plan(&self, files: &[PlanFile<'_>]) -> Vec<Job> {
        Job::one_per_file(self, files, LOG, "Inspect")
    }

    fn score(
        &self,
        files: &[WorkFile],
        job: &Job,
        _variant: Variant,
    ) -> Result<Scored, InputError> {
        let named = named(files, job)?;
        let file = named
            .first()
            .copied()
            .ok_or_else(|| InputError::whole_file(&job.title, "no log file"))?;
        let log = inspect::parse(file)?;
        let mut inputs = inputs(files, job)?;
        inputs.truncate(1);
        // The samples are built from the records when shown (`sample_at`), not held as JSON.
        let report = inspect::report(&log, inputs, false);
        Ok(Scored::with_records(report, log))
    }

    fn sample_count(&self, scored: &Scored) -> Option<usize> {
        scored.records::<Log>().map(|r| r.samples.len())
    }

    fn sample_at(&self, scored: &Scored, index: usize) -> Option<Map<String, Value>> {
        match inspect::sample_json(scored.records::<Log>()?.samples.get(index)?) {
            Value::Object(sample) => Some(sample),
            _ => None,
        }
    }

    fn sample_row(&self, index: usize, s: &Map<String, Value>) -> SampleRow {
        let value = s
            .iter()
            .find(|(k, _)| k.ends_with("_value"))
            .and_then(|(_, v)| v.as_f64());
        let scores = s.get("scores").map(|v| v.to_string()).unwrap_or_default();
        let detail = vec![short(&text_of(s.get("input")), 200), scores];
        score_row(index, s, "answer", value, detail)
    }

    fn detail(
        &self,
        files: &[WorkFile],
        outcome: &Outcome,
        _index: usize,
        s: &Map<String, Value>,
    ) -> Result<(Fields, Vec<StepComparison>), InputError> {
        let mut fields = drill::string_fields(
            s,
            &[
                ("input", "Input"),
                ("target", "Target"),
                ("answer", "Answer"),
                ("completion", "Model output"),
            ],
        );
        // A .eval archive keeps the reply in the sample's own entry: read that one entry.
        if !s.contains_key("completion")
            && let Some(file) = named(files, &outcome.job)?.into_iter().next()
        {
            let (id, epoch) = id_epoch(s);
            if let Some(reply) = inspect::sample_completion(file, &id, epoch)? {
                fields.push(("Model output".into(), reply));
            }
        }
        if let Some(Value::Object(scores)) = s.get("scores") {
            for (name, value) in scores {
                fields.push((format!("Score: {name}"), text_of(Some(value))));
            }
        }
        Ok((fields, Vec::new()))
    }

    fn archive_entries(&self, names: &[&str]) -> Option<Vec<String>> {
        inspect::entries_to_score(names)
    }

    fn reads_archives_in_part(&self) -> bool {
        true
    }

    fn detail_entries(&self, s: &Map<String, Value>) -> Vec<String> {
        match s.contains_key("completion") {
            true => Vec::new(),
            false => {
                let (id, epoch) = id_epoch(s);
                vec![inspect::sample_entry(&id, epoch)]
            }
        }
    }

    fn paired(
        &self,
        a: &Scored,
        b: &Scored,
        _variant: Variant,
    ) -> Result<Box<dyn Paired>, CompareError> {
        let (Some(la), Some(lb)) = (a.records::<Log>(), b.records::<Log>()) else {
            return Err(CompareError("Inspect log records are missing".into()));
        };
        let scorers: Vec<&str> = la
            .scorers
            .iter()
            .map(|s| s.name.as_str())
            .filter(|n| {
                !la.complex.iter().any(|c| c == n) && lb.scorers.iter().any(|s| s.name == *n)
            })
            .collect();
        if scorers.is_empty() {
            return Err(CompareError("the two logs have no scorer in common".into()));
        }
        let reduced_a: Vec<Reduced> = scorers
            .iter()
            .map(|s| inspect::reduced(la, s, None))
            .collect();
        let reduced_b: Vec<Reduced> = scorers
            .iter()
            .map(|s| inspect::reduced(lb, s, None))
            .collect();
        let ids =
            |r: &Vec<(String, Option<f64>)>| r.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>();
        let (ids_a, ids_b) = (ids(&reduced_a[0]), ids(&reduced_b[0]));
        let pairs = align_ids(
            ids_a.iter().map(String::as_str),
            ids_b.iter().map(String::as_str),
        );
        if pairs.is_empty() {
            return Err(CompareError(
                "no sample ids in common: nothing to compare".into(),
            ));
        }
        // Per scorer, sample id → reduced value (the first occurrence of an id).
        let index = |reduced: &[Vec<(String, Option<f64>)>]| -> Vec<HashMap<String, Option<f64>>> {
            reduced
                .iter()
                .map(|r| {
                    let mut m = HashMap::new();
                    for (id, v) in r {
                        m.entry(id.clone()).or_insert(*v);
                    }
                    m
                })
                .collect()
        };
        let (by_a, by_b) = (index(&reduced_a), index(&reduced_b));
        let rows = pairs
            .iter()
            .map(|&(i, _)| {
                let id = &ids_a[i];
                let side = |by: &[HashMap<String, Option<f64>>]| {
                    by.iter().map(|m| m.get(id).copied().flatten()).collect()
                };
                (side(&by_a), side(&by_b))
            })
            .collect();
        Ok(Box::new(MeanPaired {
            keys: scorers.iter().map(|s| intern(s)).collect(),
            strata: vec![rows],
        }))
    }
}

/// A sample's id and epoch (1 when it has none).
fn id_epoch(s: &Map<String, Value>) -> (String, u32) {
    let epoch = s
        .get("epoch")
        .and_then(Value::as_u64)
        .and_then(|e| u32::try_from(e).ok())
        .unwrap_or(1);
    (text_of(s.get("id")), epoch)
}
