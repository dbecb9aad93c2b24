//! Scoring a set of dropped files: group them into jobs, score each job, keep going past bad files.
//!
//! ```text
//! SAS-Bench   all *_prediction.jsonl + the taxonomy                  → one report
//!             *_scored.jsonl + their <stem>.jsonl dataset files + taxonomy → step 2, one report
//! EOTGC       the gold file + each Track 1 submission                → one report per submission
//!             each comments file / Track 2 input                     → one report each
//! MSQA        each evaluation.json (or authors' inference file)      → one report each
//! SGI-Bench   each log                                               → one report each
//! pairs       each gold/pred file                                    → one report each
//! ```
//! Every job ends as an [`Outcome`]: the report with its typed records (the drill-down, charts
//! and bootstrap read them), or the [`InputError`] that stopped it, naming the file and line. A
//! job's error never stops the other jobs. Files whose role is [`Role::Unknown`] form no job;
//! files that need a partner they lack (a submission without gold) give an error outcome.
//!
//! The browser can score job by job ([`plan`] then [`score_job`]) and yield in between.

use serde::{Deserialize, Serialize};

use super::detect::{Benchmark, DETECT_HEAD_BYTES, Detected, Role, base_name, detect};
use crate::eotgc::{self, Level};
use crate::error::InputError;
use crate::msqa::{self, Judgement, paper};
use crate::pairs::{Pairs, PairsOptions, parse_pairs, score_pairs};
use crate::report::{InputFile, Report};
use crate::sasbench::{self, ErrorSlots, Response, Taxonomy, format, subset_name};
use crate::sgibench::{deep_research, dry, idea, wet};

/// A dropped file: its name as the user gave it, its bytes, and its (detected or chosen) role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkFile {
    pub name: String,
    pub bytes: Vec<u8>,
    pub role: Role,
}

impl WorkFile {
    /// A file with its detected role.
    pub fn new(name: impl Into<String>, bytes: Vec<u8>) -> Self {
        let name = name.into();
        let role = detect(&name, &bytes[..bytes.len().min(DETECT_HEAD_BYTES)]).role;
        Self { name, bytes, role }
    }

    /// A file with a role the user chose.
    pub fn with_role(name: impl Into<String>, bytes: Vec<u8>, role: Role) -> Self {
        Self {
            name: name.into(),
            bytes,
            role,
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
        std::str::from_utf8(&self.bytes)
            .map_err(|e| InputError::whole_file(&self.name, format!("not UTF-8 text: {e}")))
    }

    pub fn input_file(&self) -> InputFile {
        InputFile::from_bytes(self.name.clone(), &self.bytes)
    }
}

/// Which rules to score with: `Official` everywhere; `Corrected` is SAS-Bench `corrected` and
/// the MSQA authors' `paper` rule (benchmarks without a second variant score officially).
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

    /// The name of this variant in `benchmark`'s reports, `None` when it has no such variant.
    pub fn report_name(self, benchmark: Benchmark) -> Option<&'static str> {
        match (self, benchmark) {
            (Self::Official, _) => Some("official"),
            (Self::Corrected, Benchmark::Sasbench) => Some("corrected"),
            (Self::Corrected, Benchmark::Msqa) => Some("paper"),
            (Self::Corrected, _) => None,
        }
    }

    /// A toggle label for `benchmark` (`Official` / `Corrected` / `Paper rule`).
    pub fn label(self, benchmark: Benchmark) -> &'static str {
        match (self, benchmark) {
            (Self::Official, _) => "Official",
            (Self::Corrected, Benchmark::Msqa) => "Paper rule",
            (Self::Corrected, _) => "Corrected",
        }
    }

    /// The variants `benchmark` offers (the page shows a toggle when there are two).
    pub fn available(benchmark: Benchmark) -> Vec<Variant> {
        Self::all()
            .iter()
            .copied()
            .filter(|v| v.report_name(benchmark).is_some())
            .collect()
    }

    fn sasbench(self) -> sasbench::Variant {
        match self {
            Self::Official => sasbench::Variant::Official,
            Self::Corrected => sasbench::Variant::Corrected,
        }
    }
}

/// Scoring options (one struct, so new options do not change signatures).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScoreOptions {
    pub variant: Variant,
}

/// What a job scores, as indices into the file list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobKind {
    SasPredictions {
        taxonomy: usize,
        predictions: Vec<usize>,
    },
    /// Raw reply files with their gold dataset files: `(dataset, scored)`.
    SasRaw {
        taxonomy: usize,
        files: Vec<(usize, usize)>,
    },
    EotgcTrack1 {
        gold: usize,
        submission: usize,
    },
    EotgcTrack2 {
        input: usize,
    },
    EotgcComments {
        comments: usize,
    },
    Msqa {
        evaluation: usize,
    },
    MsqaInference {
        inference: usize,
    },
    SgiLog {
        log: usize,
    },
    Pairs {
        file: usize,
    },
    /// A file that cannot be scored as it is (a missing partner file, …).
    Unusable {
        file: usize,
        why: String,
    },
}

/// One scoring job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    pub benchmark: Benchmark,
    /// A heading for the page, e.g. "SAS-Bench: 3 prediction files".
    pub title: String,
    pub kind: JobKind,
}

impl Job {
    /// Every file the job reads, by index.
    pub fn files(&self) -> Vec<usize> {
        match &self.kind {
            JobKind::SasPredictions {
                taxonomy,
                predictions,
            } => std::iter::once(*taxonomy)
                .chain(predictions.iter().copied())
                .collect(),
            JobKind::SasRaw { taxonomy, files } => std::iter::once(*taxonomy)
                .chain(files.iter().flat_map(|&(d, s)| [d, s]))
                .collect(),
            JobKind::EotgcTrack1 { gold, submission } => vec![*gold, *submission],
            JobKind::EotgcTrack2 { input: f }
            | JobKind::EotgcComments { comments: f }
            | JobKind::Msqa { evaluation: f }
            | JobKind::MsqaInference { inference: f }
            | JobKind::SgiLog { log: f }
            | JobKind::Pairs { file: f }
            | JobKind::Unusable { file: f, .. } => vec![*f],
        }
    }

    /// The file a model's predictions come from (the one to name in a comparison).
    pub fn prediction_file(&self) -> usize {
        match &self.kind {
            JobKind::SasPredictions { predictions, .. } => {
                predictions.first().copied().unwrap_or(0)
            }
            JobKind::SasRaw { files, .. } => files.first().map_or(0, |&(_, s)| s),
            JobKind::EotgcTrack1 { submission, .. } => *submission,
            _ => self.files().first().copied().unwrap_or(0),
        }
    }
}

/// One SAS-Bench file's typed records.
#[derive(Debug, Clone, PartialEq)]
pub struct SasFile {
    /// The file name as given (a prediction file, or the scored file of a raw pair).
    pub name: String,
    pub subset: String,
    pub responses: Vec<Response>,
    pub slots: ErrorSlots,
}

/// SAS-Bench records of a job, files in report (subset) order.
#[derive(Debug, Clone, PartialEq)]
pub struct SasRecords {
    pub taxonomy: Taxonomy,
    pub files: Vec<SasFile>,
}

/// One EOTGC essay with its predicted level.
#[derive(Debug, Clone, PartialEq)]
pub struct EotgcRecord {
    pub id: String,
    pub grade: String,
    pub gold: Level,
    pub pred: Level,
}

/// One MSQA record judged by the official rule.
#[derive(Debug, Clone, PartialEq)]
pub struct MsqaRecord {
    pub id: String,
    pub subtask: Option<String>,
    pub judgement: Judgement,
}

/// The typed records behind a report (what charts and the bootstrap recompute from).
#[derive(Debug, Clone, PartialEq)]
pub enum Records {
    Sas(SasRecords),
    Pairs(Pairs),
    Eotgc(Vec<EotgcRecord>),
    Msqa(Vec<MsqaRecord>),
    /// Benchmarks whose per-record results live in `report.samples` only (SGI-Bench, EOTGC
    /// Track 2 and comments, the MSQA paper rule).
    ReportOnly,
}

/// A scored job: the report (samples filled) and its records.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    pub report: Report,
    pub records: Records,
}

/// What one job became.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub job: Job,
    pub variant: Variant,
    pub result: Result<Scored, InputError>,
}

impl Outcome {
    pub fn report(&self) -> Option<&Report> {
        self.result.as_ref().ok().map(|s| &s.report)
    }

    pub fn records(&self) -> Option<&Records> {
        self.result.as_ref().ok().map(|s| &s.records)
    }
}

/// Group files into jobs, in order of their first file.
pub fn plan(files: &[WorkFile]) -> Vec<Job> {
    let with = |role: Role| -> Vec<usize> {
        files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.role == role)
            .map(|(i, _)| i)
            .collect()
    };
    let name = |i: usize| base_name(&files[i].name).to_string();
    let mut jobs = Vec::new();
    let unusable = |file: usize, benchmark: Benchmark, why: String| Job {
        benchmark,
        title: format!("{}: {}", benchmark.label(), base_name(&files[file].name)),
        kind: JobKind::Unusable { file, why },
    };

    // SAS-Bench.
    let taxonomies = with(Role::SasTaxonomy);
    let predictions = with(Role::SasPrediction);
    let raws = with(Role::SasRaw);
    let datasets = with(Role::SasDataset);
    let taxonomy = match taxonomies.as_slice() {
        [one] => Ok(*one),
        [] => Err("needs the error taxonomy (error_type.jsonl): add it to the files".to_string()),
        several => Err(format!(
            "{} taxonomy files ({}): keep one and set the others to \"Not used\"",
            several.len(),
            several
                .iter()
                .map(|&i| name(i))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    };
    if !predictions.is_empty() {
        match &taxonomy {
            Ok(t) => jobs.push(Job {
                benchmark: Benchmark::Sasbench,
                title: format!("SAS-Bench: {} prediction file(s)", predictions.len()),
                kind: JobKind::SasPredictions {
                    taxonomy: *t,
                    predictions: predictions.clone(),
                },
            }),
            Err(why) => jobs.extend(
                predictions
                    .iter()
                    .map(|&p| unusable(p, Benchmark::Sasbench, why.clone())),
            ),
        }
    }
    let mut raw_pairs = Vec::new();
    for &raw in &raws {
        let stem = subset_name(&files[raw].name);
        match datasets
            .iter()
            .find(|&&d| subset_name(&files[d].name) == stem)
        {
            Some(&d) => raw_pairs.push((d, raw)),
            None => jobs.push(unusable(
                raw,
                Benchmark::Sasbench,
                format!(
                    "raw replies need their gold dataset file {stem}.jsonl: add it to the files"
                ),
            )),
        }
    }
    if !raw_pairs.is_empty() {
        match &taxonomy {
            Ok(t) => jobs.push(Job {
                benchmark: Benchmark::Sasbench,
                title: format!(
                    "SAS-Bench (step 2 from raw replies): {} file(s)",
                    raw_pairs.len()
                ),
                kind: JobKind::SasRaw {
                    taxonomy: *t,
                    files: raw_pairs,
                },
            }),
            Err(why) => jobs.extend(
                raw_pairs
                    .iter()
                    .map(|&(_, s)| unusable(s, Benchmark::Sasbench, why.clone())),
            ),
        }
    }

    // EOTGC.
    let golds = with(Role::EotgcGold);
    for submission in with(Role::EotgcSubmission) {
        match golds.as_slice() {
            [gold] => jobs.push(Job {
                benchmark: Benchmark::Eotgc,
                title: format!("EOTGC Track 1: {}", name(submission)),
                kind: JobKind::EotgcTrack1 {
                    gold: *gold,
                    submission,
                },
            }),
            [] => jobs.push(unusable(
                submission,
                Benchmark::Eotgc,
                "a Track 1 submission needs the gold (test) file with `classification`: add it"
                    .into(),
            )),
            several => jobs.push(unusable(
                submission,
                Benchmark::Eotgc,
                format!(
                    "{} EOTGC gold files ({}): keep one and set the others to \"Not used\"",
                    several.len(),
                    several
                        .iter()
                        .map(|&i| name(i))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
        }
    }
    for input in with(Role::EotgcTrack2) {
        jobs.push(Job {
            benchmark: Benchmark::Eotgc,
            title: format!("EOTGC Track 2: {}", name(input)),
            kind: JobKind::EotgcTrack2 { input },
        });
    }
    for comments in with(Role::EotgcComments) {
        jobs.push(Job {
            benchmark: Benchmark::Eotgc,
            title: format!("EOTGC comment check: {}", name(comments)),
            kind: JobKind::EotgcComments { comments },
        });
    }

    // One report per file.
    for (i, file) in files.iter().enumerate() {
        let kind = match file.role {
            Role::MsqaEvaluation => JobKind::Msqa { evaluation: i },
            Role::MsqaInference => JobKind::MsqaInference { inference: i },
            Role::SgiWetLog | Role::SgiDryLog | Role::SgiDeepResearchLog | Role::SgiIdeaLog => {
                JobKind::SgiLog { log: i }
            }
            Role::Pairs => JobKind::Pairs { file: i },
            _ => continue,
        };
        let benchmark = file.role.benchmark();
        jobs.push(Job {
            benchmark,
            title: format!("{}: {}", benchmark.label(), name(i)),
            kind,
        });
    }
    jobs.sort_by_key(|j| j.files().into_iter().min().unwrap_or(usize::MAX));
    jobs
}

/// Score every job of `files`; a bad file gives an error outcome and never stops the others.
pub fn score_files(files: &[WorkFile], options: &ScoreOptions) -> Vec<Outcome> {
    plan(files)
        .into_iter()
        .map(|job| score_job(files, &job, options))
        .collect()
}

/// Score one job.
pub fn score_job(files: &[WorkFile], job: &Job, options: &ScoreOptions) -> Outcome {
    let variant = match options.variant.report_name(job.benchmark) {
        Some(_) => options.variant,
        None => Variant::Official,
    };
    Outcome {
        job: job.clone(),
        variant,
        result: run(files, job, variant),
    }
}

/// Score the job again with another variant. SAS-Bench reuses the parsed records (no
/// re-parsing); the other benchmarks re-read their (small) files.
pub fn rescore(files: &[WorkFile], outcome: &Outcome, variant: Variant) -> Outcome {
    if let Ok(Scored {
        report,
        records: Records::Sas(records),
    }) = &outcome.result
    {
        let result = sas_report(records, report.inputs.clone(), variant).map(|report| Scored {
            report,
            records: Records::Sas(records.clone()),
        });
        return Outcome {
            job: outcome.job.clone(),
            variant,
            result,
        };
    }
    score_job(files, &outcome.job, &ScoreOptions { variant })
}

fn file(files: &[WorkFile], i: usize) -> Result<(&str, &str), InputError> {
    let f = files.get(i).ok_or_else(|| {
        InputError::whole_file(&format!("file #{i}"), "no such file in the workbench")
    })?;
    Ok((f.name.as_str(), f.text()?))
}

fn sas_report(
    records: &SasRecords,
    inputs: Vec<InputFile>,
    variant: Variant,
) -> Result<Report, InputError> {
    let files = records
        .files
        .iter()
        .map(|f| (f.name.clone(), f.responses.clone()))
        .collect();
    sasbench::report_from_responses(&records.taxonomy, files, inputs, variant.sasbench())
}

/// SAS-Bench records from parsed files, in the report's subset order.
fn sas_records(taxonomy: Taxonomy, parsed: Vec<(String, Vec<Response>)>) -> SasRecords {
    let mut files: Vec<SasFile> = parsed
        .into_iter()
        .map(|(name, responses)| {
            let subset = subset_name(&name);
            let slots = taxonomy.slots(format::file_id(&subset));
            SasFile {
                name,
                subset,
                responses,
                slots,
            }
        })
        .collect();
    // The report's order: the numeric prefix (0 when not a number), stable.
    files.sort_by_key(|f| format::file_id(&f.subset).parse::<i64>().unwrap_or(0));
    SasRecords { taxonomy, files }
}

fn run(files: &[WorkFile], job: &Job, variant: Variant) -> Result<Scored, InputError> {
    let input = |i: usize| -> Result<InputFile, InputError> {
        Ok(files
            .get(i)
            .ok_or_else(|| InputError::whole_file(&format!("file #{i}"), "no such file"))?
            .input_file())
    };
    match &job.kind {
        JobKind::Unusable { file: f, why } => {
            let name = files.get(*f).map_or("?", |w| w.name.as_str());
            Err(InputError::whole_file(name, why.clone()))
        }
        JobKind::SasPredictions {
            taxonomy,
            predictions,
        } => {
            let (tname, ttext) = file(files, *taxonomy)?;
            let tax = Taxonomy::parse(tname, ttext)?;
            let mut parsed = Vec::with_capacity(predictions.len());
            let mut inputs = vec![input(*taxonomy)?];
            for &p in predictions {
                let (name, text) = file(files, p)?;
                parsed.push((name.to_string(), format::parse_predictions(name, text)?));
                inputs.push(input(p)?);
            }
            let records = sas_records(tax, parsed);
            let report = sas_report(&records, inputs, variant)?;
            Ok(Scored {
                report,
                records: Records::Sas(records),
            })
        }
        JobKind::SasRaw {
            taxonomy,
            files: pairs,
        } => {
            let (tname, ttext) = file(files, *taxonomy)?;
            let tax = Taxonomy::parse(tname, ttext)?;
            let mut parsed = Vec::with_capacity(pairs.len());
            let mut inputs = vec![input(*taxonomy)?];
            for &(d, s) in pairs {
                let (dname, dtext) = file(files, d)?;
                let (sname, stext) = file(files, s)?;
                let raw = sasbench::RawFile {
                    dataset: sasbench::NamedText {
                        name: dname,
                        text: dtext,
                    },
                    scored: sasbench::NamedText {
                        name: sname,
                        text: stext,
                    },
                };
                parsed.push((sname.to_string(), sasbench::process_raw_file(&raw)?));
                inputs.push(input(d)?);
                inputs.push(input(s)?);
            }
            let records = sas_records(tax, parsed);
            let report = sas_report(&records, inputs, variant)?;
            Ok(Scored {
                report,
                records: Records::Sas(records),
            })
        }
        JobKind::EotgcTrack1 { gold, submission } => {
            let (gname, gtext) = file(files, *gold)?;
            let (pname, ptext) = file(files, *submission)?;
            let gold_essays = eotgc::parse_gold(gname, gtext)?;
            let predictions = eotgc::parse_predictions(pname, ptext)?;
            let judged = eotgc::join(gname, &gold_essays, pname, &predictions)?;
            let report =
                eotgc::track1_report(vec![input(*gold)?, input(*submission)?], pname, &judged)?;
            let records = judged
                .iter()
                .map(|j| EotgcRecord {
                    id: j.essay.id.clone(),
                    grade: j.essay.grade.clone(),
                    gold: j.essay.level,
                    pred: j.predicted,
                })
                .collect();
            Ok(Scored {
                report,
                records: Records::Eotgc(records),
            })
        }
        JobKind::EotgcTrack2 { input: i } => {
            let (name, text) = file(files, *i)?;
            let parsed = eotgc::parse_track2_file(name, text)?;
            let report = eotgc::score_track2_file(input(*i)?, &parsed)?;
            Ok(Scored {
                report,
                records: Records::ReportOnly,
            })
        }
        JobKind::EotgcComments { comments } => {
            let (name, text) = file(files, *comments)?;
            let parsed = eotgc::parse_comments(name, text)?;
            Ok(Scored {
                report: eotgc::comments_report(input(*comments)?, &parsed),
                records: Records::ReportOnly,
            })
        }
        JobKind::Msqa { evaluation } => {
            let (name, text) = file(files, *evaluation)?;
            let records = msqa::parse_evaluation(name, text)?;
            if variant == Variant::Corrected {
                let items = paper::from_evaluation(&records);
                let report = paper::score_paper(
                    vec![input(*evaluation)?],
                    name,
                    &items,
                    &paper::PaperOptions::for_path(name),
                );
                return Ok(Scored {
                    report,
                    records: Records::ReportOnly,
                });
            }
            let report = msqa::score_evaluation(input(*evaluation)?, &records)?;
            let judgements = msqa::judge_all(name, &records)?;
            let typed = records
                .into_iter()
                .zip(judgements)
                .map(|(r, judgement)| MsqaRecord {
                    id: r.id,
                    subtask: r.subtask,
                    judgement,
                })
                .collect();
            Ok(Scored {
                report,
                records: Records::Msqa(typed),
            })
        }
        JobKind::MsqaInference { inference } => {
            let (name, text) = file(files, *inference)?;
            let items = paper::parse_inference(name, text)?;
            let report = paper::score_paper(
                vec![input(*inference)?],
                name,
                &items,
                &paper::PaperOptions::for_path(name),
            );
            Ok(Scored {
                report,
                records: Records::ReportOnly,
            })
        }
        JobKind::SgiLog { log } => {
            let (name, text) = file(files, *log)?;
            let report = match job.benchmark {
                Benchmark::SgiWet => wet::score_log(name, text)?,
                Benchmark::SgiDry => dry::score_log(name, text, None)?,
                Benchmark::SgiDeepResearch => deep_research::score_log(name, text)?,
                Benchmark::SgiIdea => idea::score_log(name, text, None)?,
                other => {
                    return Err(InputError::whole_file(
                        name,
                        format!("{} is not an SGI-Bench log", other.label()),
                    ));
                }
            };
            Ok(Scored {
                report,
                records: Records::ReportOnly,
            })
        }
        JobKind::Pairs { file: i } => {
            let (name, text) = file(files, *i)?;
            let pairs = parse_pairs(name, text)?;
            let mut report = score_pairs(input(*i)?, &pairs, &PairsOptions::default());
            report.samples = Some(
                pairs
                    .gold
                    .iter()
                    .zip(&pairs.pred)
                    .zip(&pairs.lines)
                    .map(|((g, p), l)| serde_json::json!({"line": l, "gold": g, "pred": p}))
                    .collect(),
            );
            Ok(Scored {
                report,
                records: Records::Pairs(pairs),
            })
        }
    }
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
        assert_eq!(
            Variant::available(Benchmark::Sasbench),
            vec![Variant::Official, Variant::Corrected]
        );
        assert_eq!(
            Variant::available(Benchmark::Eotgc),
            vec![Variant::Official]
        );
        assert_eq!(
            Variant::Corrected.report_name(Benchmark::Msqa),
            Some("paper")
        );
        let files = vec![wf("p.jsonl", "{\"gold\": 1, \"pred\": 1}\n")];
        let outcome = &score_files(
            &files,
            &ScoreOptions {
                variant: Variant::Corrected,
            },
        )[0];
        assert_eq!(outcome.variant, Variant::Official);
    }

    #[test]
    fn invalid_utf8_names_the_file() {
        let files = vec![WorkFile::with_role(
            "x.jsonl",
            vec![0xff, 0xfe],
            Role::Pairs,
        )];
        let outcome = &score_files(&files, &ScoreOptions::default())[0];
        assert_eq!(outcome.result.as_ref().unwrap_err().path, "x.jsonl");
    }
}
