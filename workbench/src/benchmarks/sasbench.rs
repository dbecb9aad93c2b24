//! SAS-Bench (short-answer scoring): QWK, CCS and ECS per dataset file, in the paper's table.
//!
//! ```text
//! roles     *_prediction.jsonl (gold records with pred_label/pred_steps), *_scored.jsonl raw
//!           replies + their <n>_<Course>_<type>.jsonl gold dataset files, error_type.jsonl
//! jobs      all prediction files + the taxonomy → one report;
//!           raw files + their dataset files + the taxonomy → step 2, one report
//! variants  official (the published numbers, quirks included), corrected
//! table     columns = files in the leaderboard's order (ids 0 2 1 3 4 5 6 7 10 8 9 11, present
//!           files only, any other files after them) + "Avg." (= overall);
//!           rows = qwk, ccs, ecs; display = value × 100 with 2 decimals (the paper's table)
//! samples   |gold total − predicted total|; error types = gold and predicted error names
//!           (步骤正确 left out); detail = question, reference, student answer, reply, steps
//! bootstrap records aligned on (file, id), resampled within each file; overall = mean of files
//! charts    ECS error counts per score tier, gold vs predicted, per file
//! ```

#[cfg(feature = "cli")]
mod cli;
#[cfg(feature = "cli")]
pub mod run;

use serde_json::{Map, Value};

use crate::benchmark::{Benchmark, OFFICIAL_AND_CORRECTED, Paired, VariantInfo};
use crate::charts::{Chart, EcsErrors, TierErrors};
use crate::compare::{CompareError, align_ids, pick};
use crate::detect::{Confidence, Detected, Role, RoleInfo, Shape, Sniff};
use crate::drill::{
    self, Fields, SampleRow, StepComparison, display_number, names, number_of, object_at_line,
    step_errors, step_score, string_fields, text_of,
};
use crate::session::{
    Job, Outcome, PlanFile, Scored, Variant, WorkFile, file, input, the_one, with_role,
};
use crate::table::{Cell, Column, OVERALL, Row, Table, TableStyle, cell, scalar};
use metrics_core::InputError;
use metrics_core::report::{InputFile, Report};
use metrics_core::sasbench::format::CORRECT_NAME;
use metrics_core::sasbench::python::py_str;
use metrics_core::sasbench::{
    self, ErrorSlots, Response, Taxonomy, ccs, ecs, format, step2, subset_name,
};

pub struct SasBench;

static PREDICTION_INFO: RoleInfo = RoleInfo {
    key: "sas-prediction",
    label: "SAS-Bench prediction file",
    shared: false,
};
static RAW_INFO: RoleInfo = RoleInfo {
    key: "sas-raw",
    label: "SAS-Bench raw replies (_scored)",
    shared: false,
};
static DATASET_INFO: RoleInfo = RoleInfo {
    key: "sas-dataset",
    label: "SAS-Bench gold dataset file",
    shared: true,
};
static TAXONOMY_INFO: RoleInfo = RoleInfo {
    key: "sas-taxonomy",
    label: "SAS-Bench error taxonomy",
    shared: true,
};
static ROLES: [&RoleInfo; 4] = [&PREDICTION_INFO, &RAW_INFO, &DATASET_INFO, &TAXONOMY_INFO];
const PREDICTION: Role = Role(&PREDICTION_INFO);
const RAW: Role = Role(&RAW_INFO);
const DATASET: Role = Role(&DATASET_INFO);
const TAXONOMY: Role = Role(&TAXONOMY_INFO);

/// The leaderboard's column order of SAS-Bench dataset file ids.
pub const COLUMN_ORDER: [&str; 12] = ["0", "2", "1", "3", "4", "5", "6", "7", "10", "8", "9", "11"];

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

fn rules(variant: Variant) -> sasbench::Variant {
    match variant {
        Variant::Official => sasbench::Variant::Official,
        Variant::Corrected => sasbench::Variant::Corrected,
    }
}

/// `<n>_<Course>_<type>.jsonl`: a numeric prefix, at least three `_`-separated parts.
fn is_dataset_name(lower: &str) -> bool {
    let Some(stem) = lower.strip_suffix(".jsonl") else {
        return false;
    };
    let parts: Vec<&str> = stem.split('_').collect();
    parts.len() >= 3
        && !parts[0].is_empty()
        && parts[0].bytes().all(|b| b.is_ascii_digit())
        && !stem.ends_with("_prediction")
        && !stem.ends_with("_scored")
}

/// A raw job's (dataset, scored) pairs: they follow the taxonomy in the job, dataset first.
fn raw_pairs(job: &Job) -> Vec<(usize, usize)> {
    job.with_role(DATASET)
        .into_iter()
        .zip(job.with_role(RAW))
        .collect()
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

/// The report of a job's records, without samples: [`SasBench::sample_at`] builds each from its
/// response when it is asked for.
fn sas_report(
    records: &SasRecords,
    inputs: Vec<InputFile>,
    variant: Variant,
) -> Result<Report, InputError> {
    let files: Vec<(&str, &[Response])> = records
        .files
        .iter()
        .map(|f| (f.name.as_str(), f.responses.as_slice()))
        .collect();
    sasbench::report_from_responses(&records.taxonomy, &files, inputs, rules(variant), false)
}

impl SasRecords {
    /// The file of sample `index` and the sample's position in it (files in report order,
    /// responses in file order).
    fn locate(&self, mut index: usize) -> Option<(&SasFile, usize)> {
        for f in &self.files {
            if index < f.responses.len() {
                return Some((f, index));
            }
            index -= f.responses.len();
        }
        None
    }
}

/// Most bytes of SAS-Bench input one job scores in the browser: the worker holds the files and
/// their records, ~1.7× the input, in a memory that ends at 4 GB (measured 2026-11-24: 1 GB of
/// predictions took ~2× the file above the idle tab, all of Chromium). The CLI streams
/// (`scorebench score sasbench`).
pub const PAGE_MAX_BYTES: usize = 1536 << 20;

/// A job past [`PAGE_MAX_BYTES`] is an error naming its biggest file, the sizes and the CLI.
fn within_page_limit(files: &[WorkFile], job: &Job) -> Result<(), InputError> {
    let job_files: Vec<&WorkFile> = job
        .file_indices()
        .into_iter()
        .filter_map(|i| files.get(i))
        .collect();
    let total: usize = job_files.iter().map(|f| f.size).sum();
    match job_files.iter().max_by_key(|f| f.size) {
        Some(biggest) if total > PAGE_MAX_BYTES => Err(InputError::whole_file(
            &biggest.name,
            format!(
                "this SAS-Bench job has {total} bytes of input; the browser scores at most \
                 {PAGE_MAX_BYTES} (with their records the files take ~2× their size in memory): \
                 score it with \
                 `scorebench score sasbench`, which streams"
            ),
        )),
        _ => Ok(()),
    }
}

impl Benchmark for SasBench {
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
        "sasbench"
    }

    fn label(&self) -> &'static str {
        "SAS-Bench"
    }

    fn metrics(&self) -> &'static [&'static str] {
        &["qwk", "ccs", "ecs"]
    }

    fn variants(&self) -> &'static [VariantInfo] {
        OFFICIAL_AND_CORRECTED
    }

    fn roles(&self) -> &'static [&'static RoleInfo] {
        &ROLES
    }

    fn recognise(&self, sniff: &Sniff<'_>) -> Option<Detected> {
        use Confidence::{High, Medium};
        let lower = sniff.lower.as_str();
        // Names that say it all, unless content contradicts them.
        if lower.ends_with("_scored.jsonl")
            && matches!(sniff.shape, Shape::TabSeparated | Shape::Empty)
        {
            return Some(Detected::new(RAW, High, "named *_scored.jsonl"));
        }
        if lower == "error_type.jsonl" {
            return Some(Detected::new(TAXONOMY, High, "named error_type.jsonl"));
        }
        if matches!(sniff.shape, Shape::TabSeparated) {
            let confidence = if lower.ends_with(".jsonl") {
                High
            } else {
                Medium
            };
            return Some(Detected::new(
                RAW,
                confidence,
                "`id<TAB>\"json\"` lines: SAS-Bench raw replies",
            ));
        }
        if !sniff.is_records() {
            return None;
        }
        if sniff.has("q_id") && sniff.has("errors") {
            return Some(Detected::new(
                TAXONOMY,
                sniff.confidence(),
                "records with `q_id` and `errors`",
            ));
        }
        if sniff.has("manual_label") && sniff.has("steps") {
            return Some(if sniff.has_any(&["pred_label", "pred_steps"]) {
                Detected::new(
                    PREDICTION,
                    sniff.confidence(),
                    "records with `manual_label`, `steps` and `pred_label`",
                )
            } else if sniff.is_jsonl() && lower.ends_with("_prediction.jsonl") {
                Detected::new(
                    PREDICTION,
                    Medium,
                    "named *_prediction.jsonl (records with `manual_label` and `steps`, no prediction)",
                )
            } else {
                Detected::new(
                    DATASET,
                    sniff.confidence(),
                    "records with `manual_label` and `steps`, no prediction",
                )
            });
        }
        None
    }

    fn recognise_by_name(&self, sniff: &Sniff<'_>) -> Option<Detected> {
        let lower = sniff.lower.as_str();
        match sniff.shape {
            Shape::Empty if lower.ends_with("_prediction.jsonl") => Some(Detected::new(
                PREDICTION,
                Confidence::Low,
                "an empty file named *_prediction.jsonl",
            )),
            Shape::Empty if is_dataset_name(lower) => Some(Detected::new(
                DATASET,
                Confidence::Low,
                "an empty file named like a SAS-Bench dataset file (<n>_<Course>_<type>.jsonl)",
            )),
            Shape::JsonlObject { .. } if lower.ends_with("_prediction.jsonl") => Some(
                Detected::new(PREDICTION, Confidence::Low, "named *_prediction.jsonl"),
            ),
            _ => None,
        }
    }

    fn plan(&self, files: &[PlanFile<'_>]) -> Vec<Job> {
        let name = |i: usize| files.iter().find(|f| f.index == i).map_or("?", |f| f.name);
        let file_of = |i: usize| files.iter().find(|f| f.index == i).copied();
        let mut jobs = Vec::new();
        let predictions = with_role(files, PREDICTION);
        let raws = with_role(files, RAW);
        let datasets = with_role(files, DATASET);
        let taxonomy_files: Vec<&PlanFile<'_>> =
            files.iter().filter(|f| f.role == TAXONOMY).collect();
        let taxonomy = the_one(
            &taxonomy_files,
            "needs the error taxonomy (error_type.jsonl): add it to the files",
            "taxonomy",
        )
        .map(|f| f.index);
        let unusable =
            |i: usize, why: &str| file_of(i).map(|f| Job::unusable(self, &f, why.to_string()));
        if !predictions.is_empty() {
            match &taxonomy {
                Ok(t) => jobs.push(Job::new(
                    self,
                    format!("SAS-Bench: {} prediction file(s)", predictions.len()),
                    std::iter::once((TAXONOMY, *t))
                        .chain(predictions.iter().map(|&p| (PREDICTION, p)))
                        .collect(),
                )),
                Err(why) => jobs.extend(predictions.iter().filter_map(|&p| unusable(p, why))),
            }
        }
        let mut pairs = Vec::new();
        for &raw in &raws {
            let stem = subset_name(name(raw));
            match datasets.iter().find(|&&d| subset_name(name(d)) == stem) {
                Some(&d) => pairs.push((d, raw)),
                None => jobs.extend(unusable(
                    raw,
                    &format!(
                        "raw replies need their gold dataset file {stem}.jsonl: add it to the files"
                    ),
                )),
            }
        }
        if !pairs.is_empty() {
            match &taxonomy {
                Ok(t) => jobs.push(Job::new(
                    self,
                    format!(
                        "SAS-Bench (step 2 from raw replies): {} file(s)",
                        pairs.len()
                    ),
                    std::iter::once((TAXONOMY, *t))
                        .chain(pairs.iter().flat_map(|&(d, s)| [(DATASET, d), (RAW, s)]))
                        .collect(),
                )),
                Err(why) => jobs.extend(pairs.iter().filter_map(|&(_, s)| unusable(s, why))),
            }
        }
        jobs
    }

    fn score(&self, files: &[WorkFile], job: &Job, variant: Variant) -> Result<Scored, InputError> {
        let t = crate::session::required(job, TAXONOMY)?;
        let (tname, ttext) = file(files, t)?;
        let tax = Taxonomy::parse(tname, ttext)?;
        let mut inputs = vec![input(files, t)?];
        let mut parsed = Vec::new();
        within_page_limit(files, job)?;
        let predictions = job.with_role(PREDICTION);
        if !predictions.is_empty() {
            for &p in &predictions {
                let (name, text) = file(files, p)?;
                parsed.push((name.to_string(), format::parse_predictions(name, text)?));
                inputs.push(input(files, p)?);
            }
        } else {
            for (d, s) in raw_pairs(job) {
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
                inputs.push(input(files, d)?);
                inputs.push(input(files, s)?);
            }
        }
        let records = sas_records(tax, parsed);
        let report = sas_report(&records, inputs, variant)?;
        Ok(Scored::with_records(report, records))
    }

    fn rescore(
        &self,
        files: &[WorkFile],
        outcome: &Outcome,
        variant: Variant,
    ) -> Result<Scored, InputError> {
        match &outcome.result {
            Ok(scored) => match scored.records::<SasRecords>() {
                Some(records) => {
                    let report = sas_report(records, scored.report.inputs.clone(), variant)?;
                    Ok(Scored {
                        report,
                        records: scored.records.clone(),
                    })
                }
                None => self.score(files, &outcome.job, variant),
            },
            Err(_) => self.score(files, &outcome.job, variant),
        }
    }

    fn table(&self, report: &Report) -> Table {
        paper_table(report, &self.table_style())
    }

    fn table_style(&self) -> TableStyle {
        TableStyle {
            overall_is_mean_of_subsets: true,
            subset_of_input: Some(subset_name),
            ..TableStyle::default()
        }
    }

    fn charts(&self, scored: &Scored, variant: Variant) -> Vec<Chart> {
        scored
            .records::<SasRecords>()
            .map(|r| {
                vec![Chart::TierErrors {
                    files: ecs_error_frequencies(r, variant),
                }]
            })
            .unwrap_or_default()
    }

    fn sample_count(&self, scored: &Scored) -> Option<usize> {
        let records = scored.records::<SasRecords>()?;
        Some(records.files.iter().map(|f| f.responses.len()).sum())
    }

    fn sample_at(&self, scored: &Scored, index: usize) -> Option<Map<String, Value>> {
        let (file, position) = scored.records::<SasRecords>()?.locate(index)?;
        match sasbench::sample(&file.subset, &file.responses[position]) {
            Value::Object(sample) => Some(sample),
            _ => None,
        }
    }

    fn row_at(&self, scored: &Scored, index: usize) -> Option<SampleRow> {
        let (file, position) = scored.records::<SasRecords>()?.locate(index)?;
        let r = &file.responses[position];
        let mut row = drill::empty_row(index, &Map::new());
        row.subset = file.subset.clone();
        row.id = r.id.clone();
        row.gold_value = Some(r.gold_total as f64);
        row.pred_value = Some(r.pred_total as f64);
        row.gold = display_number(row.gold_value);
        row.pred = display_number(row.pred_value);
        let mut errors: Vec<String> = [&r.gold_errors, &r.pred_errors]
            .into_iter()
            .filter_map(|names| names.as_ref().ok())
            .flatten()
            .map(|name| sasbench::display_name(name).to_string())
            .filter(|name| name != CORRECT_NAME)
            .collect();
        errors.sort();
        errors.dedup();
        row.error_types = errors;
        Some(drill::finish_row(row, Vec::new()))
    }

    fn sample_row(&self, index: usize, s: &Map<String, Value>) -> SampleRow {
        let get = |k: &str| s.get(k);
        let mut row = drill::empty_row(index, s);

        row.subset = text_of(get("subset"));
        row.id = text_of(get("id"));
        row.gold_value = number_of(get("gold_total"));
        row.pred_value = number_of(get("pred_total"));
        row.gold = display_number(row.gold_value);
        row.pred = display_number(row.pred_value);
        let mut errors = names(get("gold_errors"));
        errors.extend(names(get("pred_errors")));
        errors.retain(|e| e != CORRECT_NAME);
        errors.sort();
        errors.dedup();
        row.error_types = errors;
        drill::finish_row(row, Vec::new())
    }

    fn detail(
        &self,
        files: &[WorkFile],
        outcome: &Outcome,
        index: usize,
        sample: &Map<String, Value>,
    ) -> Result<(Fields, Vec<StepComparison>), InputError> {
        let scored = outcome.result.as_ref().map_err(Clone::clone)?;
        sas_detail(files, &outcome.job, scored, index, sample)
    }

    fn paired(
        &self,
        a: &Scored,
        b: &Scored,
        variant: Variant,
    ) -> Result<Box<dyn Paired>, CompareError> {
        let (Some(ra), Some(rb)) = (a.records::<SasRecords>(), b.records::<SasRecords>()) else {
            return Err(CompareError("SAS-Bench records are missing".into()));
        };
        let mut files = Vec::new();
        for fa in &ra.files {
            let Some(fb) = rb.files.iter().find(|f| f.subset == fa.subset) else {
                continue;
            };
            let pairs = align_ids(
                fa.responses.iter().map(|r| r.id.as_str()),
                fb.responses.iter().map(|r| r.id.as_str()),
            );
            if pairs.is_empty() {
                continue;
            }
            let (ia, ib): (Vec<usize>, Vec<usize>) = pairs.into_iter().unzip();
            files.push(SasPair {
                a: pick(&fa.responses, &ia),
                b: pick(&fb.responses, &ib),
                slots: fa.slots.clone(),
            });
        }
        if files.is_empty() {
            return Err(CompareError(
                "no SAS-Bench file and record ids in common: nothing to compare".into(),
            ));
        }
        Ok(Box::new(SasAligned {
            files,
            variant: rules(variant),
        }))
    }
}

fn paper_table(report: &Report, style: &TableStyle) -> Table {
    let (scale, decimals) = (100.0, 2);
    let id = |name: &str| name.split('_').next().unwrap_or(name).to_string();
    let mut subsets: Vec<&metrics_core::report::Subset> = Vec::new();
    for wanted in COLUMN_ORDER {
        subsets.extend(report.subsets.iter().filter(|s| id(&s.name) == wanted));
    }
    subsets.extend(
        report
            .subsets
            .iter()
            .filter(|s| !COLUMN_ORDER.contains(&id(&s.name).as_str())),
    );
    let mut columns: Vec<Column> = subsets
        .iter()
        .map(|s| Column {
            key: s.name.clone(),
            label: s.name.clone(),
            n: Some(s.n),
        })
        .collect();
    columns.push(Column {
        key: OVERALL.into(),
        label: "Avg.".into(),
        n: Some(report.overall.n),
    });
    let rows = ["qwk", "ccs", "ecs"]
        .into_iter()
        .map(|metric| {
            let mut cells: Vec<Cell> = subsets
                .iter()
                .map(|s| {
                    let v = scalar(&s.metrics, metric);
                    cell(report, style, &s.name, metric, v, (scale, decimals))
                })
                .collect();
            let v = scalar(&report.overall.metrics, metric);
            cells.push(cell(report, style, OVERALL, metric, v, (scale, decimals)));
            Row {
                key: metric.into(),
                label: metric.to_ascii_uppercase(),
                n: None,
                cells,
            }
        })
        .collect();
    Table {
        benchmark: report.benchmark.clone(),
        variant: report.variant.clone(),
        scale,
        decimals,
        corner: String::new(),
        columns,
        rows,
        caption: format!("{} ({}), values ×100", report.benchmark, report.variant),
    }
}

/// Per file, the ECS error frequencies per tier, gold vs predicted; `Err` (with the reason) for
/// a file whose ECS is not computed.
pub fn ecs_error_frequencies(
    records: &SasRecords,
    variant: Variant,
) -> Vec<(String, Result<EcsErrors, String>)> {
    let variant = rules(variant);
    records
        .files
        .iter()
        .map(|f| {
            let result = ecs::ecs(&f.responses, &f.slots, variant)
                .map(|e| EcsErrors {
                    subset: f.subset.clone(),
                    errors: f.slots.names.clone(),
                    thresholds: [e.range1, e.range2],
                    tiers: (0..3)
                        .map(|i| TierErrors {
                            tier: i,
                            label: ["low", "middle", "high"][i].into(),
                            gold: e.gold_matrix[i].clone(),
                            pred: e.pred_matrix[i].clone(),
                            correlation: e.tiers[i],
                        })
                        .collect(),
                })
                .map_err(|e| format!("line {}: {}", e.line, e.message));
            (f.subset.clone(), result)
        })
        .collect()
}

fn sas_detail(
    files: &[WorkFile],
    job: &Job,
    scored: &Scored,
    index: usize,
    sample: &Map<String, Value>,
) -> Result<(Fields, Vec<StepComparison>), InputError> {
    let subset = text_of(sample.get("subset"));
    let line = sample.get("line").and_then(Value::as_u64).unwrap_or(0) as usize;
    let (file, position) = scored
        .records::<SasRecords>()
        .and_then(|records| records.locate(index))
        .ok_or_else(|| InputError::whole_file(&subset, format!("no sample #{}", index + 1)))?;
    let named = |i: usize| files.get(i).filter(|f| f.name == file.name);
    // The gold record (with predictions for a prediction file) and, for raw jobs, the reply.
    let predictions = job.with_role(PREDICTION);
    let (source, reply) = if !predictions.is_empty() {
        let f = predictions
            .iter()
            .find_map(|&i| named(i))
            .ok_or_else(|| InputError::whole_file(&file.name, "the prediction file is gone"))?;
        (f, None)
    } else {
        let &(d, s) = raw_pairs(job)
            .iter()
            .find(|&&(_, s)| named(s).is_some())
            .ok_or_else(|| InputError::whole_file(&file.name, "the raw file is gone"))?;
        let dataset = files
            .get(d)
            .ok_or_else(|| InputError::whole_file(&file.name, "the dataset file is gone"))?;
        // Replies pair with gold records by position (step 2's rule).
        let scored_file = &files[s];
        let reply = format::scored_line_at(&scored_file.name, scored_file.text()?, position)?;
        (dataset, reply)
    };
    let record = object_at_line(&source.name, source.text()?, line)?;
    let mut fields = string_fields(
        &record,
        &[
            ("question", "Question"),
            ("reference", "Reference answer"),
            ("analysis", "Analysis"),
        ],
    );
    let gold_steps: Vec<Value> = match record.get("steps") {
        Some(Value::Array(s)) => s.clone(),
        _ => Vec::new(),
    };
    let student: Vec<String> = gold_steps
        .iter()
        .map(|s| text_of(s.get("response")))
        .collect();
    fields.push(("Student answer".into(), student.join("\n")));
    let pred_steps: Vec<Value> = match &reply {
        Some(reply) => {
            fields.push(("Model reply".into(), py_str(&reply.reply)));
            step2::process_reply(&reply.reply, gold_steps.len())
                .map(|o| o.pred_steps)
                .unwrap_or_default()
        }
        None => match record.get("pred_steps") {
            Some(Value::Array(p)) => p.clone(),
            _ => Vec::new(),
        },
    };
    let steps = gold_steps
        .iter()
        .enumerate()
        .map(|(k, g)| StepComparison {
            step: k + 1,
            response: text_of(g.get("response")),
            gold_score: step_score(Some(g), "label"),
            pred_score: step_score(pred_steps.get(k), "step_score"),
            gold_errors: step_errors(Some(g)),
            pred_errors: step_errors(pred_steps.get(k)),
        })
        .collect();
    Ok((fields, steps))
}

/// SAS-Bench records of one file, aligned on id.
struct SasPair {
    a: Vec<Response>,
    b: Vec<Response>,
    slots: ErrorSlots,
}

struct SasAligned {
    files: Vec<SasPair>,
    variant: sasbench::Variant,
}

/// QWK, CCS and ECS of one file.
type SasValues = [Option<f64>; 3];

/// QWK, CCS and ECS of one file's responses (`None` where undefined or not computed).
fn sas_metrics(
    responses: &[Response],
    slots: &ErrorSlots,
    variant: sasbench::Variant,
) -> SasValues {
    let qwk = ccs::qwk(responses, variant).ok();
    let ccs_value = sasbench::ScoreVectors::from_responses(responses)
        .ok()
        .and_then(|v| ccs::ccs(&v, variant).ccs.ok());
    let ecs_value = ecs::ecs(responses, slots, variant).ok().map(|e| e.ecs);
    [qwk, ccs_value, ecs_value]
}

impl Paired for SasAligned {
    fn keys(&self) -> Vec<&'static str> {
        vec!["qwk", "ccs", "ecs"]
    }

    fn strata(&self) -> Vec<usize> {
        self.files.iter().map(|f| f.a.len()).collect()
    }

    fn metrics(&self, draw: &[Vec<usize>]) -> Vec<(Option<f64>, Option<f64>)> {
        let per_file: Vec<(SasValues, SasValues)> = self
            .files
            .iter()
            .zip(draw)
            .map(|(f, idx)| {
                (
                    sas_metrics(&pick(&f.a, idx), &f.slots, self.variant),
                    sas_metrics(&pick(&f.b, idx), &f.slots, self.variant),
                )
            })
            .collect();
        // The overall value: the plain mean over files, undefined if any file's is.
        let mean = |values: Vec<Option<f64>>| -> Option<f64> {
            let values: Option<Vec<f64>> = values.into_iter().collect();
            let values = values?;
            (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
        };
        (0..3)
            .map(|k| {
                (
                    mean(per_file.iter().map(|(a, _)| a[k]).collect()),
                    mean(per_file.iter().map(|(_, b)| b[k]).collect()),
                )
            })
            .collect()
    }
}
