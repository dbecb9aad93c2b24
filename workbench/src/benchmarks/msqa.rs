//! MSQA_Short (materials-science true/false): accuracy, answer coverage and completion tokens of
//! the official toolkit's `evaluation.json`/`.log`, or the paper authors' rule.
//!
//! ```text
//! roles     evaluation.json / evaluation.log (toolkit); the authors' inference file
//! jobs      one report per file
//! variants  official (the toolkit's rule), corrected = the authors' `paper` rule
//! samples   0 when correct, else 1 with the outcome as error type; detail = question, reply
//! bootstrap records aligned on id (official rule)
//! ```

#[cfg(feature = "cli")]
mod cli;
#[cfg(feature = "cli")]
pub mod run;

use serde_json::{Map, Value};

use crate::benchmark::{Benchmark, Paired, VariantInfo};
use crate::compare::{CompareError, align_ids, pick};
use crate::detect::{Detected, Role, RoleInfo, Sniff};
use crate::drill::{self, Fields, SampleRow, StepComparison, object_at_line, text_of};
use crate::session::{
    Job, Outcome, PlanFile, Scored, Variant, WorkFile, file, input, prediction_source,
};
use crate::table::TableStyle;
use metrics_core::msqa::{self, Judgement, Tally, paper};
use metrics_core::{InputError, json_array};

pub struct Msqa;

static EVALUATION_INFO: RoleInfo = RoleInfo {
    key: "msqa-evaluation",
    label: "MSQA evaluation.json",
    shared: false,
};
static INFERENCE_INFO: RoleInfo = RoleInfo {
    key: "msqa-inference",
    label: "MSQA authors' inference file",
    shared: false,
};
static ROLES: [&RoleInfo; 2] = [&EVALUATION_INFO, &INFERENCE_INFO];
const EVALUATION: Role = Role(&EVALUATION_INFO);
const INFERENCE: Role = Role(&INFERENCE_INFO);

/// One MSQA record judged by the official rule.
#[derive(Debug, Clone, PartialEq)]
pub struct MsqaRecord {
    pub id: String,
    pub subtask: Option<String>,
    pub judgement: Judgement,
}

fn paper_report(
    files: &[WorkFile],
    i: usize,
    items: &[paper::PaperItem],
) -> Result<Scored, InputError> {
    let (name, _) = file(files, i)?;
    Ok(Scored::report_only(paper::score_paper(
        vec![input(files, i)?],
        name,
        items,
        &paper::PaperOptions::for_path(name),
    )))
}

impl Benchmark for Msqa {
    #[cfg(feature = "cli")]
    fn command(&self) -> &'static crate::cli::Command {
        &cli::COMMAND
    }
    #[cfg(feature = "cli")]
    fn runs(&self) -> &'static [&'static crate::runs::RunSpec] {
        static RUNS: [&crate::runs::RunSpec; 1] = [&run::RUN];
        &RUNS
    }
    fn key(&self) -> &'static str {
        "msqa"
    }

    fn label(&self) -> &'static str {
        "MSQA"
    }

    fn metrics(&self) -> &'static [&'static str] {
        &["accuracy", "answer_coverage", "average_completion_tokens"]
    }

    fn variants(&self) -> &'static [VariantInfo] {
        &[
            VariantInfo {
                variant: Variant::Official,
                report_name: "official",
                label: "Official",
            },
            VariantInfo {
                variant: Variant::Corrected,
                report_name: "paper",
                label: "Paper rule",
            },
        ]
    }

    fn roles(&self) -> &'static [&'static RoleInfo] {
        &ROLES
    }

    fn recognise(&self, sniff: &Sniff<'_>) -> Option<Detected> {
        if !sniff.is_records() {
            return None;
        }
        if sniff.has("dataset_item") && sniff.has("inference_result") {
            return Some(Detected::new(
                INFERENCE,
                sniff.confidence(),
                "records with `dataset_item` and `inference_result`",
            ));
        }
        if sniff.has("gold") && sniff.has_any(&["generation", "usage"]) {
            return Some(Detected::new(
                EVALUATION,
                sniff.confidence(),
                "records with `gold`, `generation` and `usage`",
            ));
        }
        None
    }

    fn plan(&self, files: &[PlanFile<'_>]) -> Vec<Job> {
        let mut jobs = Job::one_per_file(self, files, EVALUATION, self.label());
        jobs.extend(Job::one_per_file(self, files, INFERENCE, self.label()));
        jobs
    }

    fn score(&self, files: &[WorkFile], job: &Job, variant: Variant) -> Result<Scored, InputError> {
        if let Some(i) = job.first(INFERENCE) {
            let (name, text) = file(files, i)?;
            return paper_report(files, i, &paper::parse_inference(name, text)?);
        }
        let i = crate::session::required(job, EVALUATION)?;
        let (name, text) = file(files, i)?;
        // As the CLI: the reasoning is dropped as each record is read (the rule only sees
        // whether it is there; the detail view reads it from the file).
        let records = msqa::parse_evaluation_with(name, text, msqa::drop_unjudged_text)?;
        if variant == Variant::Corrected {
            return paper_report(files, i, &paper::from_evaluation(records));
        }
        let report = msqa::score_evaluation(input(files, i)?, &records)?;
        let judgements = msqa::judge_all(name, &records)?;
        let typed: Vec<MsqaRecord> = records
            .into_iter()
            .zip(judgements)
            .map(|(r, judgement)| MsqaRecord {
                id: r.id,
                subtask: r.subtask,
                judgement,
            })
            .collect();
        Ok(Scored::with_records(report, typed))
    }

    fn table_style(&self) -> TableStyle {
        TableStyle {
            counts: &[
                "no_generation",
                "generated_answers",
                "truncated",
                "not_truncated",
                "extraction_success",
                "extraction_failure",
                "correct",
            ],
            ..TableStyle::default()
        }
    }

    fn sample_row(&self, index: usize, s: &Map<String, Value>) -> SampleRow {
        let get = |k: &str| s.get(k);
        let mut row = drill::empty_row(index, s);
        let mut extra = Vec::new();
        row.subset = match get("subtask") {
            Some(Value::String(s)) => s.clone(),
            _ => msqa::NO_SUBTASK.into(),
        };
        if let Some(judgment) = get("judgment") {
            // The paper rule's samples.
            row.id = format!("record {}", text_of(get("record")));
            row.pred = text_of(get("raw"));
            let correct = judgment.as_str() == Some("correct");
            row.disagreement = if correct { 0.0 } else { 1.0 };
            if !correct {
                row.error_types.push(text_of(Some(judgment)));
            }
            extra.push(text_of(get("question")));
        } else {
            row.id = text_of(get("id"));
            let correct = get("result") == Some(&Value::Bool(true));
            row.disagreement = if correct { 0.0 } else { 1.0 };
            if !correct {
                row.error_types.push(text_of(get("outcome")));
            }
        }
        drill::finish_row(row, extra)
    }

    fn detail(
        &self,
        files: &[WorkFile],
        outcome: &Outcome,
        _index: usize,
        sample: &Map<String, Value>,
    ) -> Result<(Fields, Vec<StepComparison>), InputError> {
        let job = &outcome.job;
        let main = prediction_source(files, job)?;
        let number = sample.get("record").and_then(Value::as_u64).unwrap_or(0) as usize;
        let text = main.text()?;
        let record = if text.trim_start().starts_with('[') {
            json_array::find(text, |n, _| n == number).map_err(|e| {
                InputError::whole_file(&main.name, format!("expected a JSON array: {e}"))
            })?
        } else {
            object_at_line(&main.name, text, number)
                .ok()
                .map(Value::Object)
        };
        let Some(record) = record else {
            return Ok((Vec::new(), Vec::new()));
        };
        let mut fields = Vec::new();
        for (path, label) in [
            (&["question"][..], "Question"),
            (&["dataset_item", "question"][..], "Question"),
            (&["generation", "reasoning_content"][..], "Reasoning"),
            (&["generation", "content"][..], "Model reply"),
            (&["inference_result"][..], "Model reply"),
        ] {
            let v = path.iter().try_fold(&record, |v, k| v.get(*k));
            if let Some(v) = v.filter(|v| !v.is_null()) {
                fields.push((label.to_string(), text_of(Some(v))));
            }
        }
        Ok((fields, Vec::new()))
    }

    fn paired(
        &self,
        a: &Scored,
        b: &Scored,
        _variant: Variant,
    ) -> Result<Box<dyn Paired>, CompareError> {
        let (Some(ma), Some(mb)) = (
            a.records::<Vec<MsqaRecord>>(),
            b.records::<Vec<MsqaRecord>>(),
        ) else {
            return Err(CompareError(
                "the bootstrap needs two MSQA reports scored by the official rule".into(),
            ));
        };
        let pairs = align_ids(
            ma.iter().map(|r| r.id.as_str()),
            mb.iter().map(|r| r.id.as_str()),
        );
        if pairs.is_empty() {
            return Err(CompareError(
                "no question ids in common: nothing to compare".into(),
            ));
        }
        let (ia, ib): (Vec<usize>, Vec<usize>) = pairs.into_iter().unzip();
        Ok(Box::new(Aligned {
            a: pick(ma, &ia),
            b: pick(mb, &ib),
        }))
    }
}

struct Aligned {
    a: Vec<MsqaRecord>,
    b: Vec<MsqaRecord>,
}

impl Paired for Aligned {
    fn keys(&self) -> Vec<&'static str> {
        vec!["accuracy", "answer_coverage", "average_completion_tokens"]
    }

    fn strata(&self) -> Vec<usize> {
        vec![self.a.len()]
    }

    fn metrics(&self, draw: &[Vec<usize>]) -> Vec<(Option<f64>, Option<f64>)> {
        let idx = &draw[0];
        let tally = |records: &[MsqaRecord]| {
            let mut t = Tally::default();
            for &i in idx {
                t.add(&records[i].judgement);
            }
            [
                t.accuracy().ok(),
                t.answer_coverage().ok(),
                t.average_completion_tokens().ok(),
            ]
        };
        let (ta, tb) = (tally(&self.a), tally(&self.b));
        (0..3).map(|k| (ta[k], tb[k])).collect()
    }
}
