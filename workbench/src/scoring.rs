//! Scoring a session's files: group them into jobs ([`plan`]), score each with its benchmark
//! ([`score_job`]), fill samples in later, score again with another variant. Above the
//! [`crate::registry`]: every benchmark is looked up there.

use crate::benchmark::Benchmark;
use crate::detect::base_name;
use crate::registry;
use crate::session::{Job, Outcome, PlanFile, ScoreOptions, Scored, Variant, WorkFile};
use metrics_core::InputError;

/// Group files into jobs, in order of their first file.
pub fn plan(files: &[WorkFile]) -> Vec<Job> {
    let view: Vec<PlanFile<'_>> = files
        .iter()
        .enumerate()
        .map(|(index, f)| PlanFile {
            index,
            name: base_name(&f.name),
            role: f.role,
        })
        .collect();
    let mut jobs: Vec<Job> = registry::all()
        .iter()
        .flat_map(|b| {
            let mine: Vec<PlanFile<'_>> = view
                .iter()
                .filter(|f| b.roles().iter().any(|r| r.key == f.role.key()))
                .copied()
                .collect();
            if mine.is_empty() {
                Vec::new()
            } else {
                b.plan(&mine)
            }
        })
        .collect();
    jobs.sort_by_key(|j| j.file_indices().into_iter().min().unwrap_or(usize::MAX));
    jobs
}

/// Score every job of `files`; a bad file gives an error outcome and never stops the others.
pub fn score_files(files: &[WorkFile], options: &ScoreOptions) -> Vec<Outcome> {
    plan(files)
        .into_iter()
        .map(|job| score_job(files, &job, options))
        .collect()
}

fn no_benchmark(job: &Job) -> InputError {
    InputError::whole_file(&job.title, format!("no benchmark `{}`", job.benchmark))
}

/// Score one job.
pub fn score_job(files: &[WorkFile], job: &Job, options: &ScoreOptions) -> Outcome {
    let benchmark = job.benchmark();
    let variant = match benchmark.and_then(|b| b.report_name(options.variant)) {
        Some(_) => options.variant,
        None => Variant::Official,
    };
    let result = match (benchmark, &job.unusable) {
        (_, Some(why)) => {
            let name = job
                .files
                .first()
                .and_then(|&(_, i)| files.get(i))
                .map_or("?", |w| w.name.as_str());
            Err(InputError::whole_file(name, why.clone()))
        }
        (None, None) => Err(no_benchmark(job)),
        (Some(b), None) => b.score(files, job, variant),
    };
    let mut outcome = Outcome {
        job: job.clone(),
        variant,
        result,
    };
    if !options.samples_later {
        fill_samples(&mut outcome);
    }
    outcome
}

/// Add the samples a benchmark builds from its records ([`Benchmark::sample_at`]) to the
/// outcome's report, when it has none yet (the browser leaves them out: the drill-down builds
/// each when it is asked for, [`crate::samples::Samples`]).
pub fn fill_samples(outcome: &mut Outcome) {
    let (Some(benchmark), Ok(scored)) = (outcome.job.benchmark(), &mut outcome.result) else {
        return;
    };
    fill_scored_samples(benchmark, scored);
}

/// [`fill_samples`] of one scored report of `benchmark`.
pub fn fill_scored_samples(benchmark: &dyn Benchmark, scored: &mut Scored) {
    if scored.report.samples.is_none()
        && let Some(n) = benchmark.sample_count(scored)
    {
        let samples = (0..n)
            .filter_map(|i| benchmark.sample_at(scored, i))
            .map(serde_json::Value::Object)
            .collect();
        scored.report.samples = Some(samples);
    }
}

/// Score the job again with another variant (benchmarks that keep typed records reuse them
/// instead of parsing the files again).
pub fn rescore(files: &[WorkFile], outcome: &Outcome, variant: Variant) -> Outcome {
    match outcome.job.benchmark() {
        Some(benchmark) if outcome.result.is_ok() && benchmark.report_name(variant).is_some() => {
            Outcome {
                job: outcome.job.clone(),
                variant,
                result: benchmark.rescore(files, outcome, variant),
            }
        }
        _ => score_job(
            files,
            &outcome.job,
            &ScoreOptions {
                variant,
                ..ScoreOptions::default()
            },
        ),
    }
}
