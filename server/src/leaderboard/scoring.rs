//! Scoring an entry the way the workbench does, for every registered benchmark: the board's gold
//! files (the benchmark's shared roles) + the submitted files → `WorkFile`s with roles →
//! [`workbench::scoring::plan`] → one job → [`workbench::scoring::score_job`] with the board's
//! variant. The server scores submissions with it and `scorebench leaderboard verify` re-scores
//! downloads with it, so both run the same code as `scorebench score` and the page.

use indexmap::IndexMap;

use metrics_core::Report;
use metrics_core::report::MetricValue;
use workbench::benchmark::Benchmark;
use workbench::bootstrap::Bootstrap;
use workbench::detect::{Role, base_name};
use workbench::registry;
use workbench::scoring::{plan, score_job};
use workbench::session::{ScoreOptions, Scored, Variant, WorkFile};

/// A file as uploaded: its name (reduced to the base name) and bytes.
#[derive(Debug, Clone)]
pub struct Upload {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// Why files cannot make an entry (the user's input; the message names the file).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ScoringError(pub String);

/// The registered benchmark with `key`.
pub fn benchmark(key: &str) -> Result<&'static dyn Benchmark, ScoringError> {
    registry::get(key).ok_or_else(|| {
        let keys: Vec<&str> = registry::all().iter().map(|b| b.key()).collect();
        ScoringError(format!(
            "no benchmark `{key}`; registered: {}",
            keys.join(", ")
        ))
    })
}

/// Register the spec in a file (a board's `.toml` gold file): parsed and checked (errors name
/// the file and line), registered under its key (the same spec again is the entry already
/// registered).
pub fn register_spec_file(
    name: &str,
    bytes: &[u8],
) -> Result<&'static workbench::benchmarks::spec::SpecBenchmark, ScoringError> {
    crate::score::spec_file::register(name, bytes.to_vec()).map_err(|e| ScoringError(e.to_string()))
}

/// A board made from a spec: the `.toml` among the gold uploads is the spec of the board's
/// benchmark. Registered (its key must be `benchmark`, unless `benchmark` is empty: the board's
/// benchmark is then the spec's), taken out of `uploads` and returned as the board's spec file
/// (role `<key>:spec`). `None` when no upload is a `.toml`.
pub fn take_spec(
    benchmark: &str,
    uploads: &mut Vec<Upload>,
) -> Result<Option<WorkFile>, ScoringError> {
    let specs: Vec<usize> = (0..uploads.len())
        .filter(|&i| workbench::spec_form::is_spec_file(base_name(&uploads[i].name)))
        .collect();
    let i = match specs.as_slice() {
        // A benchmark registered from a spec (`serve --spec`): its board publishes that spec.
        [] => {
            return Ok(registry::spec(benchmark).map(|entry| {
                WorkFile::with_role(
                    format!("{benchmark}.toml"),
                    entry.source.clone(),
                    entry.spec_file_role(),
                )
            }));
        }
        [one] => *one,
        _ => {
            return Err(ScoringError(
                "several .toml files: a board has one spec".into(),
            ));
        }
    };
    let upload = uploads.remove(i);
    let name = base_name(&upload.name).to_string();
    let entry = register_spec_file(&name, &upload.bytes)?;
    if !benchmark.is_empty() && entry.spec.key != benchmark {
        return Err(ScoringError(format!(
            "{name}: the spec's key is `{}`, the board's benchmark `{benchmark}`: give them the same key",
            entry.spec.key
        )));
    }
    Ok(Some(WorkFile::with_role(
        name,
        upload.bytes,
        entry.spec_file_role(),
    )))
}

/// The variant with report name `name` (`official`, `corrected`, `paper`) of `benchmark`.
pub fn variant(benchmark: &dyn Benchmark, name: &str) -> Result<Variant, ScoringError> {
    benchmark.variant_named(name).ok_or_else(|| {
        let names: Vec<&str> = benchmark.variants().iter().map(|v| v.report_name).collect();
        ScoringError(format!(
            "{} has no variant `{name}`; it has: {}",
            benchmark.label(),
            names.join(", ")
        ))
    })
}

fn role_list(benchmark: &dyn Benchmark, shared: bool) -> String {
    let roles: Vec<String> = benchmark
        .roles()
        .iter()
        .filter(|r| r.shared == shared)
        .map(|r| format!("{} ({})", r.label, r.key))
        .collect();
    if roles.is_empty() {
        "none".into()
    } else {
        roles.join(", ")
    }
}

/// Give each upload its role in `benchmark`: the detected one when it is one of the benchmark's
/// `shared` (gold) or non-shared (submission) roles; an unrecognised file gets the benchmark's
/// only role of that kind when there is exactly one; anything else is an error naming the file.
pub fn with_roles(
    benchmark: &dyn Benchmark,
    uploads: Vec<Upload>,
    shared: bool,
) -> Result<Vec<WorkFile>, ScoringError> {
    let kind = if shared { "gold" } else { "submission" };
    let candidates: Vec<Role> = benchmark
        .roles()
        .iter()
        .filter(|r| r.shared == shared)
        .filter_map(|r| Role::from_key(r.key))
        .collect();
    uploads
        .into_iter()
        .map(|u| {
            let name = base_name(&u.name).to_string();
            let file = WorkFile::new(name.clone(), u.bytes);
            if candidates.contains(&file.role) {
                return Ok(file);
            }
            if file.role == Role::UNKNOWN {
                if let [only] = candidates.as_slice() {
                    return Ok(WorkFile::with_role(name, file.bytes, *only));
                }
                return Err(ScoringError(format!(
                    "{name}: not recognised ({}); a {} board takes {kind} files: {}",
                    file.detect().why,
                    benchmark.label(),
                    role_list(benchmark, shared)
                )));
            }
            let theirs = file.role.benchmark().map_or_else(
                || file.role.benchmark_key().to_string(),
                |b| b.label().into(),
            );
            Err(ScoringError(format!(
                "{name}: this is a {} file ({theirs}), but a {} board takes {kind} files: {}",
                file.role.label(),
                benchmark.label(),
                role_list(benchmark, shared)
            )))
        })
        .collect()
}

/// Score one entry: `gold` then `submitted` planned together must make exactly one job of
/// `benchmark` that reads every submitted file.
pub fn score_entry(
    benchmark: &dyn Benchmark,
    variant: Variant,
    gold: &[WorkFile],
    submitted: &[WorkFile],
) -> Result<Scored, ScoringError> {
    score(benchmark, variant, gold, submitted, false)
}

/// [`score_entry`] refused when the entry has more than `max_samples` samples: scored without
/// the samples built from records first (the records are small), counted, and only then given
/// its samples — a sample per record is most of the memory a large file costs (a 45 MB pairs
/// file of 2 M records: 1.3 GB with them, 80 MB without).
pub fn score_entry_limited(
    benchmark: &dyn Benchmark,
    variant: Variant,
    gold: &[WorkFile],
    submitted: &[WorkFile],
    max_samples: usize,
) -> Result<Scored, ScoringError> {
    let mut scored = score(benchmark, variant, gold, submitted, true)?;
    let n = workbench::samples::Samples::of(&scored).len();
    if n > max_samples {
        return Err(ScoringError(format!(
            "this entry has {n} samples; this server keeps at most {max_samples} per entry \
             (its --max-entry-samples)"
        )));
    }
    workbench::scoring::fill_scored_samples(benchmark, &mut scored);
    Ok(scored)
}

/// [`score_entry`] for the paired bootstrap, which aligns records: the report leaves out the
/// samples of benchmarks that build them from their records (a sample per record is most of
/// the memory of scoring a large file).
pub fn score_records(
    benchmark: &dyn Benchmark,
    variant: Variant,
    gold: &[WorkFile],
    submitted: &[WorkFile],
) -> Result<Scored, ScoringError> {
    score(benchmark, variant, gold, submitted, true)
}

fn score(
    benchmark: &dyn Benchmark,
    variant: Variant,
    gold: &[WorkFile],
    submitted: &[WorkFile],
    samples_later: bool,
) -> Result<Scored, ScoringError> {
    if submitted.is_empty() {
        return Err(ScoringError("no prediction files".into()));
    }
    let files: Vec<WorkFile> = gold.iter().chain(submitted).cloned().collect();
    let jobs: Vec<_> = plan(&files)
        .into_iter()
        .filter(|j| j.benchmark == benchmark.key())
        .collect();
    let job = match jobs.as_slice() {
        [one] => one,
        [] => {
            return Err(ScoringError(format!(
                "these files make no {} job",
                benchmark.label()
            )));
        }
        several => {
            let titles: Vec<&str> = several.iter().map(|j| j.title.as_str()).collect();
            return Err(ScoringError(format!(
                "one entry is one scoring job, these files make {}: {}; submit them separately",
                several.len(),
                titles.join("; ")
            )));
        }
    };
    if let Some(why) = &job.unusable {
        return Err(ScoringError(format!("{}: {why}", job.title)));
    }
    let used = job.file_indices();
    if let Some(unused) = (gold.len()..files.len()).find(|i| !used.contains(i)) {
        return Err(ScoringError(format!(
            "{}: not read by the {} job ({})",
            files[unused].name,
            benchmark.label(),
            job.title
        )));
    }
    let outcome = score_job(
        &files,
        job,
        &ScoreOptions {
            variant,
            samples_later,
        },
    );
    outcome.result.map_err(|e| ScoringError(e.to_string()))
}

/// The overall scalar metrics of a report, at full precision (vectors left out).
pub fn overall_scalars(report: &Report) -> IndexMap<String, Option<f64>> {
    report
        .overall
        .metrics
        .iter()
        .filter_map(|(k, v)| match v {
            MetricValue::Scalar(x) => Some((k.clone(), *x)),
            MetricValue::Vector(_) => None,
        })
        .collect()
}

pub use workbench::verify::{Difference, metric_differences};
pub use workbench::wire::LeaderInterval;

/// Seed of every leaderboard bootstrap (the same board gives the same intervals everywhere).
pub const BOOTSTRAP_SEED: u64 = 20_250_601;
/// Resamples per interval.
pub const BOOTSTRAP_RESAMPLES: usize = 1_000;

/// `entry − leader` on `metric`: [`workbench::bootstrap::Bootstrap`], seeded, both scored with
/// `variant`.
pub fn leader_interval(
    entry: &Scored,
    leader: &Scored,
    variant: Variant,
    metric: &str,
) -> LeaderInterval {
    let unavailable = |why: String| LeaderInterval {
        difference: None,
        low: None,
        high: None,
        resamples_defined: 0,
        unavailable: Some(why),
    };
    let mut bootstrap =
        match Bootstrap::new(entry, leader, variant, BOOTSTRAP_SEED, BOOTSTRAP_RESAMPLES) {
            Ok(b) => b,
            Err(e) => return unavailable(e.to_string()),
        };
    while !bootstrap.is_done() {
        bootstrap.step(100);
    }
    match bootstrap.finish().into_iter().find(|m| m.metric == metric) {
        Some(m) => LeaderInterval {
            difference: m.difference,
            low: m.low,
            high: m.high,
            resamples_defined: m.resamples_defined,
            unavailable: None,
        },
        None => unavailable(format!("the bootstrap does not resample `{metric}`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_of_another_benchmark_are_refused_by_name() {
        let eotgc = benchmark("eotgc").unwrap();
        let sas = Upload {
            name: "dir/x_prediction.jsonl".into(),
            bytes: br#"{"id": "a", "total": 5, "steps": [], "manual_label": "3", "pred_label": 2}"#
                .to_vec(),
        };
        let e = with_roles(eotgc, vec![sas], false).unwrap_err();
        assert!(e.0.starts_with("x_prediction.jsonl: this is a"), "{e}");
        assert!(e.0.contains("EOTGC"), "{e}");
    }
}
