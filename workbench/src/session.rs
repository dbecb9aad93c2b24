//! Scoring a set of dropped files: each registered benchmark groups the files of its roles into
//! jobs ([`Benchmark::plan`](crate::benchmark::Benchmark::plan)), each job is scored on its own,
//! and a bad file never stops the others.
//!
//! Every job ends as an [`Outcome`]: the report with its typed records (the drill-down, charts
//! and bootstrap read them, through the same benchmark), or the [`InputError`] that stopped it,
//! naming the file and line. Files whose role is [`Role::UNKNOWN`] form no job; files that need
//! a partner they lack (a submission without gold) give an unusable job, whose outcome is an
//! error saying why.
//!
//! The browser can score job by job ([`crate::scoring::plan`] then [`crate::scoring::score_job`]) and yield in between.

use std::any::Any;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::detect::Role;

use metrics_core::{InputError, InputFile, Report};

/// A dropped file: its name as the user gave it, its bytes, and its (detected or chosen) role.
/// Cloning shares the bytes (a model's job list and the worker's held files are the same
/// gigabyte, not copies of it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkFile {
    pub name: String,
    /// The bytes; only the first ones (at most [`crate::detect::DETECT_HEAD_BYTES`]) while `size` is larger,
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
}

/// Scoring options (one struct, so new options do not change signatures).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScoreOptions {
    pub variant: Variant,
    /// Leave the samples out of the reports of benchmarks that build them from their records
    /// ([`crate::benchmark::Benchmark::sample_at`]): the browser worker sends the table first, and its drill-down
    /// builds each sample when it is asked for ([`crate::samples::Samples`]); [`crate::scoring::fill_samples`]
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
    use crate::registry;
    use crate::scoring::{fill_samples, score_files};

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
            get("sasbench").available_variants(),
            vec![Variant::Official, Variant::Corrected]
        );
        assert_eq!(get("eotgc").available_variants(), vec![Variant::Official]);
        assert_eq!(get("msqa").report_name(Variant::Corrected), Some("paper"));
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
