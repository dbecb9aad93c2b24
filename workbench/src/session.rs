//! Scoring a set of dropped files: each registered benchmark groups the files of its roles into
//! jobs ([`Benchmark::plan`](crate::registry::Benchmark::plan)), each job is scored on its own,
//! and a bad file never stops the others.
//!
//! Every job ends as an [`Outcome`]: the report with its typed records (the drill-down, charts
//! and bootstrap read them, through the same benchmark), or the [`InputError`] that stopped it,
//! naming the file and line. Files whose role is [`Role::UNKNOWN`] form no job; files that need
//! a partner they lack (a submission without gold) give an unusable job, whose outcome is an
//! error saying why.
//!
//! The browser can score job by job ([`plan`] then [`score_job`]) and yield in between.

use std::any::Any;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::detect::{DETECT_HEAD_BYTES, Detected, Role, base_name, detect};
use crate::registry::{self, Benchmark, VariantInfo};
use metrics_core::{InputError, InputFile, Report};

/// A dropped file: its name as the user gave it, its bytes, and its (detected or chosen) role.
/// Cloning shares the bytes (a model's job list and the worker's held files are the same
/// gigabyte, not copies of it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkFile {
    pub name: String,
    /// The bytes; only the first ones (at most [`DETECT_HEAD_BYTES`]) while `size` is larger,
    /// for a file whose bytes come after its numbers ([`WorkFile::read_later`]).
    pub bytes: Arc<Vec<u8>>,
    /// The file's size in bytes.
    pub size: usize,
    pub role: Role,
    /// The bytes' SHA-256 (lower-case hex) when the caller already has it (the browser worker
    /// asks WebCrypto: before scoring for files that come as bytes, after the numbers for dropped
    /// ones, "" until then); computed when a report needs it otherwise.
    pub sha256: Option<String>,
    /// Records parsed while the file was read ([`crate::prepare`]), for its benchmark's `score`.
    pub prepared: Option<Prepared>,
}

/// Records a benchmark parsed from a file's bytes as they were read: a function of the bytes,
/// so equal for equal files (and not compared).
#[derive(Clone)]
pub struct Prepared(pub Arc<dyn Any + Send + Sync>);

impl Prepared {
    pub fn new<T: Any + Send + Sync>(records: T) -> Self {
        Self(Arc::new(records))
    }
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Prepared")
    }
}

impl PartialEq for Prepared {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Prepared {}

impl WorkFile {
    /// A file with its detected role.
    pub fn new(name: impl Into<String>, bytes: impl Into<Arc<Vec<u8>>>) -> Self {
        let name = name.into();
        let bytes = bytes.into();
        let role = detect(&name, &bytes[..bytes.len().min(DETECT_HEAD_BYTES)]).role;
        Self {
            name,
            size: bytes.len(),
            bytes,
            role,
            sha256: None,
            prepared: None,
        }
    }

    /// A file whose records were parsed while it was read and whose bytes come after its
    /// numbers: the browser worker scores a dropped file before it copies it into its memory
    /// (growing wasm memory by the file's size is ~50 ms of ~300 for 100 MB). `head` is its
    /// first bytes (at least the detection head, or the whole file), `size` its size; its hash is
    /// "" (to be filled) and its text an error until the worker puts its bytes in `bytes`.
    pub fn read_later(
        name: impl Into<String>,
        head: Vec<u8>,
        size: usize,
        prepared: Prepared,
    ) -> Self {
        let mut file = Self::new(name, head);
        file.size = size;
        file.sha256 = Some(String::new());
        file.prepared = Some(prepared);
        file
    }

    /// The same file with its bytes' SHA-256 (lower-case hex), already known.
    pub fn with_sha256(mut self, sha256: String) -> Self {
        self.sha256 = Some(sha256);
        self
    }

    /// The same file with the records parsed while it was read.
    pub fn with_prepared(mut self, prepared: Option<Prepared>) -> Self {
        self.prepared = prepared;
        self
    }

    /// The records parsed while the file was read, when they are of type `T`.
    pub fn prepared<T: Any>(&self) -> Option<&T> {
        self.prepared.as_ref()?.0.downcast_ref()
    }

    /// A file with a role the user chose.
    pub fn with_role(name: impl Into<String>, bytes: impl Into<Arc<Vec<u8>>>, role: Role) -> Self {
        let bytes = bytes.into();
        Self {
            name: name.into(),
            size: bytes.len(),
            bytes,
            role,
            sha256: None,
            prepared: None,
        }
    }

    /// What detection says about this file (independent of the current role).
    pub fn detect(&self) -> Detected {
        detect(
            &self.name,
            &self.bytes[..self.bytes.len().min(DETECT_HEAD_BYTES)],
        )
    }

    /// The text; invalid UTF-8 is an input error naming the file.
    pub fn text(&self) -> Result<&str, InputError> {
        if self.bytes.len() != self.size {
            return Err(InputError::whole_file(
                &self.name,
                "its bytes were not read yet (scored before they came: a bug, please report it)",
            ));
        }
        metrics_core::text::from_utf8(&self.bytes)
            .map_err(|e| InputError::whole_file(&self.name, format!("not UTF-8 text: {e}")))
    }

    pub fn input_file(&self) -> InputFile {
        match &self.sha256 {
            Some(sha256) => InputFile {
                path: self.name.clone(),
                sha256: sha256.clone(),
            },
            None => InputFile::from_bytes(self.name.clone(), &self.bytes),
        }
    }
}

/// Which rules to score with: `Official` everywhere; `Corrected` is each benchmark's second
/// variant where it has one (SAS-Bench `corrected`, the MSQA authors' `paper` rule, …);
/// benchmarks without one score officially.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    #[default]
    Official,
    Corrected,
}

impl Variant {
    pub fn all() -> &'static [Variant] {
        &[Variant::Official, Variant::Corrected]
    }

    /// `official` / `corrected` (URL and storage key).
    pub fn key(self) -> &'static str {
        match self {
            Self::Official => "official",
            Self::Corrected => "corrected",
        }
    }

    pub fn from_key(key: &str) -> Option<Self> {
        Self::all().iter().copied().find(|v| v.key() == key)
    }

    fn info(self, benchmark: &dyn Benchmark) -> Option<&'static VariantInfo> {
        benchmark.variants().iter().find(|v| v.variant == self)
    }

    /// The name of this variant in `benchmark`'s reports, `None` when it has no such variant.
    pub fn report_name(self, benchmark: &dyn Benchmark) -> Option<&'static str> {
        self.info(benchmark).map(|v| v.report_name)
    }

    /// A toggle label for `benchmark` (`Official` / `Corrected` / `Paper rule`).
    pub fn label(self, benchmark: &dyn Benchmark) -> &'static str {
        self.info(benchmark).map_or("Official", |v| v.label)
    }

    /// The variants `benchmark` offers (the page shows a toggle when there are two).
    pub fn available(benchmark: &dyn Benchmark) -> Vec<Variant> {
        benchmark.variants().iter().map(|v| v.variant).collect()
    }

    /// The variant with this report name for `benchmark` (`official`, `corrected`, `paper`).
    pub fn from_report_name(benchmark: &dyn Benchmark, name: &str) -> Option<Variant> {
        benchmark
            .variants()
            .iter()
            .find(|v| v.report_name == name)
            .map(|v| v.variant)
    }
}

/// Scoring options (one struct, so new options do not change signatures).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScoreOptions {
    pub variant: Variant,
    /// Leave the samples out of the reports of benchmarks that build them from their records
    /// ([`Benchmark::sample_at`]): the browser worker sends the table first, and its drill-down
    /// builds each sample when it is asked for ([`crate::drill::Samples`]); [`fill_samples`]
    /// adds them all.
    pub samples_later: bool,
}

/// A file as planning sees it: its index in the file list, base name and role.
#[derive(Debug, Clone, Copy)]
pub struct PlanFile<'a> {
    pub index: usize,
    pub name: &'a str,
    pub role: Role,
}

/// The indices of the files with `role`, in order.
pub fn with_role(files: &[PlanFile<'_>], role: Role) -> Vec<usize> {
    files
        .iter()
        .filter(|f| f.role == role)
        .map(|f| f.index)
        .collect()
}

/// The one file of a role a job needs (a gold file, a taxonomy): `Ok` when there is exactly
/// one, else why not — `missing` when there is none, or which `what` files to keep one of.
pub fn the_one<'a, 'f>(
    candidates: &[&'f PlanFile<'a>],
    missing: &str,
    what: &str,
) -> Result<&'f PlanFile<'a>, String> {
    match candidates {
        [one] => Ok(one),
        [] => Err(missing.to_string()),
        several => Err(format!(
            "{} {what} files ({}): keep one and set the others to \"Not used\"",
            several.len(),
            several
                .iter()
                .map(|f| f.name)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// One scoring job: the files it reads (in the order its benchmark reads them) with their roles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// The benchmark's key.
    pub benchmark: &'static str,
    /// A heading for the page, e.g. "SAS-Bench: 3 prediction files".
    pub title: String,
    pub files: Vec<(Role, usize)>,
    /// Why the job cannot be scored as it is (a missing partner file, …).
    pub unusable: Option<String>,
}

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

    /// Every file the job reads, by index.
    pub fn file_indices(&self) -> Vec<usize> {
        self.files.iter().map(|&(_, i)| i).collect()
    }

    /// The indices of the job's files with `role`, in job order.
    pub fn with_role(&self, role: Role) -> Vec<usize> {
        self.files
            .iter()
            .filter(|(r, _)| *r == role)
            .map(|&(_, i)| i)
            .collect()
    }

    /// The first file with `role`.
    pub fn first(&self, role: Role) -> Option<usize> {
        self.with_role(role).first().copied()
    }

    /// The file a model's predictions come from (the one to name in a comparison): the first
    /// file that is not shared gold data.
    pub fn prediction_file(&self) -> usize {
        self.files
            .iter()
            .find(|(r, _)| !r.is_shared())
            .or(self.files.first())
            .map_or(0, |&(_, i)| i)
    }

    /// The registered benchmark of this job.
    pub fn benchmark(&self) -> Option<&'static dyn Benchmark> {
        registry::get(self.benchmark)
    }
}

/// A benchmark's typed records behind a report (what charts and the bootstrap recompute from);
/// only the benchmark that made them reads them back ([`Scored::records`]).
pub type Records = Arc<dyn Any + Send + Sync>;

/// A scored job: the report (samples filled) and its records, when the benchmark keeps any.
#[derive(Clone)]
pub struct Scored {
    pub report: Report,
    pub records: Option<Records>,
}

impl std::fmt::Debug for Scored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scored")
            .field("report", &self.report)
            .field("records", &self.records.is_some())
            .finish()
    }
}

impl Scored {
    /// A report without typed records.
    pub fn report_only(report: Report) -> Self {
        Self {
            report,
            records: None,
        }
    }

    /// A report with its typed records.
    pub fn with_records<T: Any + Send + Sync>(report: Report, records: T) -> Self {
        Self {
            report,
            records: Some(Arc::new(records)),
        }
    }

    /// The records, when they are of type `T`.
    pub fn records<T: Any>(&self) -> Option<&T> {
        self.records.as_deref()?.downcast_ref()
    }
}

/// What one job became.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub job: Job,
    pub variant: Variant,
    pub result: Result<Scored, InputError>,
}

impl Outcome {
    pub fn report(&self) -> Option<&Report> {
        self.result.as_ref().ok().map(|s| &s.report)
    }
}

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
    let variant = match benchmark.and_then(|b| options.variant.report_name(b)) {
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
/// each when it is asked for, [`crate::drill::Samples`]).
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
        Some(benchmark) if outcome.result.is_ok() && variant.report_name(benchmark).is_some() => {
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

/// The name and text of file `i`, for a benchmark's `score`.
pub fn file(files: &[WorkFile], i: usize) -> Result<(&str, &str), InputError> {
    let f = files.get(i).ok_or_else(|| {
        InputError::whole_file(&format!("file #{i}"), "no such file in the workbench")
    })?;
    Ok((f.name.as_str(), f.text()?))
}

/// The input entry (name + SHA-256) of file `i`.
pub fn input(files: &[WorkFile], i: usize) -> Result<InputFile, InputError> {
    Ok(files
        .get(i)
        .ok_or_else(|| InputError::whole_file(&format!("file #{i}"), "no such file"))?
        .input_file())
}

/// The file a job's predictions come from (the source a sample's detail is read from).
pub fn prediction_source<'a>(files: &'a [WorkFile], job: &Job) -> Result<&'a WorkFile, InputError> {
    files
        .get(job.prediction_file())
        .ok_or_else(|| InputError::whole_file(&job.title, "the file is gone"))
}

/// The job's file with `role`, or an error naming the job.
pub fn required(job: &Job, role: Role) -> Result<usize, InputError> {
    job.first(role).ok_or_else(|| {
        InputError::whole_file(&job.title, format!("the job has no {}", role.label()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wf(name: &str, text: &str) -> WorkFile {
        WorkFile::new(name, text.as_bytes().to_vec())
    }

    #[test]
    fn a_bad_file_does_not_stop_the_others() {
        let files = vec![
            wf(
                "good.jsonl",
                "{\"gold\": 1, \"pred\": 1}\n{\"gold\": 2, \"pred\": 1}\n",
            ),
            wf(
                "bad.jsonl",
                "{\"gold\": 1, \"pred\": 1}\n{\"gold\": 2, \"pred\": \"x\"}\n",
            ),
            wf("sub.json", r#"[{"id": 1, "classification": "good"}]"#),
            wf("notes.txt", "hello"),
        ];
        let outcomes = score_files(&files, &ScoreOptions::default());
        assert_eq!(outcomes.len(), 3);
        assert!(outcomes[0].result.is_ok());
        let e = outcomes[1].result.as_ref().unwrap_err();
        assert_eq!((e.path.as_str(), e.line), ("bad.jsonl", Some(2)));
        let e = outcomes[2].result.as_ref().unwrap_err();
        assert_eq!(e.path, "sub.json");
        assert!(e.message.contains("gold"), "{e}");
        let samples = outcomes[0].report().unwrap().samples.as_ref().unwrap();
        assert_eq!(samples[1]["gold"], 2.0);
    }

    #[test]
    fn variants_per_benchmark() {
        let get = |key| registry::get(key).unwrap();
        assert_eq!(
            Variant::available(get("sasbench")),
            vec![Variant::Official, Variant::Corrected]
        );
        assert_eq!(Variant::available(get("eotgc")), vec![Variant::Official]);
        assert_eq!(Variant::Corrected.report_name(get("msqa")), Some("paper"));
        let files = vec![wf("p.jsonl", "{\"gold\": 1, \"pred\": 1}\n")];
        let outcome = &score_files(
            &files,
            &ScoreOptions {
                variant: Variant::Corrected,
                ..ScoreOptions::default()
            },
        )[0];
        assert_eq!(outcome.variant, Variant::Official);
    }

    /// Sample rows left for later are the rows scoring gives at once, once filled.
    #[test]
    fn samples_filled_later_are_the_samples_given_at_once() {
        let files = vec![wf(
            "p.jsonl",
            "{\"gold\": 1, \"pred\": 1}\n\n{\"gold\": 2, \"pred\": 0.5}\n",
        )];
        let at_once = score_files(&files, &ScoreOptions::default());
        let later = ScoreOptions {
            samples_later: true,
            ..ScoreOptions::default()
        };
        let mut filled = score_files(&files, &later);
        let report = filled[0].report().unwrap();
        assert_eq!(report.samples, None);
        fill_samples(&mut filled[0]);
        let samples = filled[0].report().unwrap().samples.as_ref().unwrap();
        assert_eq!(samples.len(), 2);
        assert_eq!(samples[1]["line"], 3);
        assert_eq!(format!("{filled:?}"), format!("{at_once:?}"));
    }

    #[test]
    fn the_one_file_of_a_role() {
        let files = [("a.json", 0), ("b.json", 3)].map(|(name, index)| PlanFile {
            index,
            name,
            role: Role::UNKNOWN,
        });
        let refs: Vec<&PlanFile<'_>> = files.iter().collect();
        assert_eq!(the_one(&refs[..1], "none", "gold").unwrap().index, 0);
        assert_eq!(the_one(&[], "none", "gold").unwrap_err(), "none");
        assert_eq!(
            the_one(&refs, "none", "EOTGC gold").unwrap_err(),
            "2 EOTGC gold files (a.json, b.json): keep one and set the others to \"Not used\""
        );
    }

    #[test]
    fn invalid_utf8_names_the_file() {
        let files = vec![WorkFile::with_role(
            "x.jsonl",
            vec![0xff, 0xfe],
            Role::from_key("pairs").unwrap(),
        )];
        let outcome = &score_files(&files, &ScoreOptions::default())[0];
        assert_eq!(outcome.result.as_ref().unwrap_err().path, "x.jsonl");
    }
}
