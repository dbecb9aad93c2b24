//! Generic gold/pred files (JSONL records or CSV with `gold` and `pred`): QWK, Pearson,
//! Spearman, Kendall's τ-b and accuracy.
//!
//! ```text
//! roles     a gold/pred JSONL or CSV file; one report per file
//! samples   |gold − pred|; detail = the line
//! bootstrap records paired by position (the same gold required)
//! ```

#[cfg(feature = "cli")]
mod cli;

use serde_json::{Map, Value};

use crate::benchmark::{Benchmark, Paired, Prepare};
use crate::compare::CompareError;
use crate::detect::{Confidence, Detected, Role, RoleInfo, Shape, Sniff};
use crate::drill::{
    self, Fields, SampleRow, StepComparison, display_number, line_of, number_of, text_of,
};
use crate::session::{
    Job, Outcome, PlanFile, Prepared, Scored, Variant, WorkFile, file, input, prediction_source,
    required,
};
use metrics_core::InputError;
use metrics_core::pairs::{JsonlPairs, Pairs, PairsOptions, parse_pairs, score_pairs};
use metrics_core::report::{InputFile, MetricValue, Report};

pub struct PairsBenchmark;

static PAIRS_INFO: RoleInfo = RoleInfo {
    key: "pairs",
    label: "Generic gold/pred file",
    shared: false,
};
static ROLES: [&RoleInfo; 1] = [&PAIRS_INFO];
const PAIRS: Role = Role(&PAIRS_INFO);

const KEYS: [&str; 5] = ["qwk", "pearson", "spearman", "kendall_tau_b", "accuracy"];

impl Benchmark for PairsBenchmark {
    #[cfg(feature = "cli")]
    fn command(&self) -> &'static crate::cli::Command {
        &cli::COMMAND
    }
    fn key(&self) -> &'static str {
        "pairs"
    }

    fn label(&self) -> &'static str {
        "Generic gold/pred"
    }

    fn metrics(&self) -> &'static [&'static str] {
        &KEYS
    }

    fn roles(&self) -> &'static [&'static RoleInfo] {
        &ROLES
    }

    fn recognise(&self, sniff: &Sniff<'_>) -> Option<Detected> {
        match &sniff.shape {
            Shape::CsvHeader(columns)
                if columns.iter().any(|c| c == "gold") && columns.iter().any(|c| c == "pred") =>
            {
                Some(Detected::new(
                    PAIRS,
                    Confidence::High,
                    "a CSV header with `gold` and `pred`",
                ))
            }
            _ if sniff.is_records() && sniff.has("gold") && sniff.has("pred") => Some(
                Detected::new(PAIRS, sniff.confidence(), "records with `gold` and `pred`"),
            ),
            _ => None,
        }
    }

    fn plan(&self, files: &[PlanFile<'_>]) -> Vec<Job> {
        Job::one_per_file(self, files, PAIRS, self.label())
    }

    fn score(
        &self,
        files: &[WorkFile],
        job: &Job,
        _variant: Variant,
    ) -> Result<Scored, InputError> {
        let i = required(job, PAIRS)?;
        let options = PairsOptions::default();
        // Records parsed while the file was read are shared, not copied.
        if let Some(prepared) = files.get(i).and_then(|f| f.prepared.as_ref())
            && let Some(pairs) = prepared.0.downcast_ref::<Pairs>()
        {
            let report = score_pairs(input(files, i)?, pairs, &options);
            return Ok(Scored {
                report,
                records: Some(prepared.0.clone()),
            });
        }
        let (name, text) = file(files, i)?;
        let pairs = parse_pairs(name, text)?;
        let report = score_pairs(input(files, i)?, &pairs, &options);
        Ok(Scored::with_records(report, pairs))
    }

    fn sample_count(&self, scored: &Scored) -> Option<usize> {
        scored.records::<Pairs>().map(|pairs| pairs.gold.len())
    }

    fn sample_at(&self, scored: &Scored, index: usize) -> Option<Map<String, Value>> {
        let pairs = scored.records::<Pairs>()?;
        let mut sample = Map::new();
        sample.insert("line".into(), (*pairs.lines.get(index)?).into());
        sample.insert("gold".into(), serde_json::json!(pairs.gold.get(index)?));
        sample.insert("pred".into(), serde_json::json!(pairs.pred.get(index)?));
        Some(sample)
    }

    fn row_at(&self, scored: &Scored, index: usize) -> Option<SampleRow> {
        let pairs = scored.records::<Pairs>()?;
        // As the sample holds it: a JSON number, `null` for what JSON cannot write.
        let number = |x: f64| serde_json::Number::from_f64(x).and_then(|n| n.as_f64());
        let mut row = drill::empty_row(index, &Map::new());
        row.id = format!("line {}", pairs.lines.get(index)?);
        row.gold_value = number(*pairs.gold.get(index)?);
        row.pred_value = number(*pairs.pred.get(index)?);
        row.gold = display_number(row.gold_value);
        row.pred = display_number(row.pred_value);
        Some(drill::finish_row(row, Vec::new()))
    }

    fn prepare(&self, name: &str, role: Role, head: &str) -> Option<Box<dyn Prepare>> {
        (role == PAIRS)
            .then(|| JsonlPairs::starting(name, head))
            .flatten()
            .map(|reader| Box::new(reader) as Box<dyn Prepare>)
    }

    fn sample_row(&self, index: usize, s: &Map<String, Value>) -> SampleRow {
        let get = |k: &str| s.get(k);
        let mut row = drill::empty_row(index, s);
        row.id = format!("line {}", text_of(get("line")));
        row.gold_value = number_of(get("gold"));
        row.pred_value = number_of(get("pred"));
        row.gold = display_number(row.gold_value);
        row.pred = display_number(row.pred_value);
        drill::finish_row(row, Vec::new())
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
        let line = sample.get("line").and_then(Value::as_u64).unwrap_or(0) as usize;
        let fields = line_of(main.text()?, line)
            .map(|l| vec![("Line".to_string(), l.to_string())])
            .unwrap_or_default();
        Ok((fields, Vec::new()))
    }

    fn paired(
        &self,
        a: &Scored,
        b: &Scored,
        _variant: Variant,
    ) -> Result<Box<dyn Paired>, CompareError> {
        let (Some(pa), Some(pb)) = (a.records::<Pairs>(), b.records::<Pairs>()) else {
            return Err(CompareError("gold/pred records are missing".into()));
        };
        if pa.gold.len() != pb.gold.len() {
            return Err(CompareError(format!(
                "gold/pred files pair by position: {} records vs {}",
                pa.gold.len(),
                pb.gold.len()
            )));
        }
        if let Some(k) = (0..pa.gold.len()).find(|&k| pa.gold[k] != pb.gold[k]) {
            return Err(CompareError(format!(
                "gold/pred files pair by position, but record {} has gold {} in one file and {} in the other",
                k + 1,
                pa.gold[k],
                pb.gold[k]
            )));
        }
        Ok(Box::new(Aligned {
            a: pa.clone(),
            b: pb.clone(),
        }))
    }
}

impl Prepare for JsonlPairs {
    fn push(&mut self, piece: &str) -> Result<(), InputError> {
        JsonlPairs::push(self, piece)
    }

    fn finish(self: Box<Self>) -> Result<Prepared, InputError> {
        JsonlPairs::finish(*self).map(Prepared::new)
    }
}

struct Aligned {
    a: Pairs,
    b: Pairs,
}

impl Paired for Aligned {
    fn keys(&self) -> Vec<&'static str> {
        KEYS.to_vec()
    }

    fn strata(&self) -> Vec<usize> {
        vec![self.a.gold.len()]
    }

    fn metrics(&self, draw: &[Vec<usize>]) -> Vec<(Option<f64>, Option<f64>)> {
        let idx = &draw[0];
        let sub = |p: &Pairs| Pairs {
            gold: idx.iter().map(|&i| p.gold[i]).collect(),
            pred: idx.iter().map(|&i| p.pred[i]).collect(),
            lines: Vec::new(),
        };
        let input = InputFile {
            path: String::new(),
            sha256: String::new(),
        };
        let ra = score_pairs(input.clone(), &sub(&self.a), &PairsOptions::default());
        let rb = score_pairs(input, &sub(&self.b), &PairsOptions::default());
        KEYS.iter()
            .map(|k| {
                let v = |r: &Report| r.overall.metrics.get(*k).and_then(MetricValue::as_scalar);
                (v(&ra), v(&rb))
            })
            .collect()
    }
}
