//! ASAP-AES (English essay scoring, Kaggle 2012): QWK per essay set, Kaggle's Fisher-z mean.
//!
//! ```text
//! roles     the Kaggle release gold TSV (Latin-1; essay_id, essay_set, domain1_score, essay),
//!           a predictions CSV/TSV (essay_id or prediction_id, predicted_score)
//! jobs      the gold file + each predictions file → one report per predictions file
//! variants  official (truncated predictions, observed range), corrected (rounded, clipped,
//!           declared range)
//! samples   |gold − rating|; detail = the essay text; confusion matrix per set (subset filter)
//! bootstrap essays aligned on essay_id, resampled within each set; overall = mean_qwk_fisher
//!           and mean_qwk over the resampled sets
//! ```

#[cfg(feature = "cli")]
mod cli;

use serde_json::{Map, Value};

use crate::benchmark::{Benchmark, OFFICIAL_AND_CORRECTED, Paired, VariantInfo};
use crate::compare::{CompareError, align_ids};
use crate::detect::{Confidence, Detected, Role, RoleInfo, Shape, Sniff};
use crate::drill::{self, Fields, SampleRow, StepComparison, number_of, text_of};
use crate::session::{Job, Outcome, PlanFile, Scored, Variant, WorkFile, input, required, the_one};
use crate::table::{self, Table, TableStyle};
use metrics_core::InputError;
use metrics_core::Report;
use metrics_core::asap_aes::{self, Essay, NamedBytes};

pub struct AsapAes;

static GOLD_INFO: RoleInfo = RoleInfo {
    key: "asap-gold",
    label: "ASAP-AES gold essays (TSV)",
    shared: true,
};
static PREDICTIONS_INFO: RoleInfo = RoleInfo {
    key: "asap-predictions",
    label: "ASAP-AES predictions (CSV)",
    shared: false,
};
static ROLES: [&RoleInfo; 2] = [&GOLD_INFO, &PREDICTIONS_INFO];
const GOLD: Role = Role(&GOLD_INFO);
const PREDICTIONS: Role = Role(&PREDICTIONS_INFO);

fn rules(variant: Variant) -> asap_aes::Variant {
    match variant {
        Variant::Official => asap_aes::Variant::Official,
        Variant::Corrected => asap_aes::Variant::Corrected,
    }
}

/// The joined essays of a scored job (texts included), in gold order = sample order.
type Records = Vec<Essay>;

impl Benchmark for AsapAes {
    #[cfg(feature = "cli")]
    fn command(&self) -> &'static crate::cli::Command {
        &cli::COMMAND
    }
    fn key(&self) -> &'static str {
        "asap-aes"
    }

    fn label(&self) -> &'static str {
        "ASAP-AES"
    }

    fn metrics(&self) -> &'static [&'static str] {
        &["mean_qwk_fisher", "mean_qwk", "qwk"]
    }

    fn variants(&self) -> &'static [VariantInfo] {
        OFFICIAL_AND_CORRECTED
    }

    fn roles(&self) -> &'static [&'static RoleInfo] {
        &ROLES
    }

    fn recognise(&self, sniff: &Sniff<'_>) -> Option<Detected> {
        let Shape::CsvHeader(columns) = &sniff.shape else {
            return None;
        };
        let has = |c: &str| columns.iter().any(|x| x == c);
        if has("essay_id") && has("essay_set") && has("domain1_score") {
            return Some(Detected::new(
                GOLD,
                Confidence::High,
                "a TSV header with `essay_id`, `essay_set` and `domain1_score`",
            ));
        }
        if (has("essay_id") || has("prediction_id")) && has("predicted_score") {
            return Some(Detected::new(
                PREDICTIONS,
                Confidence::High,
                "a CSV header with `essay_id` and `predicted_score`",
            ));
        }
        None
    }

    fn plan(&self, files: &[PlanFile<'_>]) -> Vec<Job> {
        let golds: Vec<&PlanFile<'_>> = files.iter().filter(|f| f.role == GOLD).collect();
        files
            .iter()
            .filter(|f| f.role == PREDICTIONS)
            .map(|p| {
                let gold = the_one(
                    &golds,
                    "predictions need the gold TSV (training_set_rel3.tsv layout): add it",
                    "ASAP-AES gold",
                );
                match gold {
                    Ok(gold) => Job::new(
                        self,
                        format!("ASAP-AES: {}", p.name),
                        vec![(GOLD, gold.index), (PREDICTIONS, p.index)],
                    ),
                    Err(why) => Job::unusable(self, p, why),
                }
            })
            .collect()
    }

    fn score(&self, files: &[WorkFile], job: &Job, variant: Variant) -> Result<Scored, InputError> {
        let (g, p) = (required(job, GOLD)?, required(job, PREDICTIONS)?);
        let named = |i: usize| -> Result<NamedBytes<'_>, InputError> {
            let f = files
                .get(i)
                .ok_or_else(|| InputError::whole_file(&job.title, "a file is gone"))?;
            Ok(NamedBytes {
                name: &f.name,
                bytes: &f.bytes,
            })
        };
        let (gold, pred) = (named(g)?, named(p)?);
        let essays = asap_aes::parse(gold, pred)?;
        let report = asap_aes::report(
            &essays,
            vec![input(files, g)?, input(files, p)?],
            pred.name,
            rules(variant),
            true,
        );
        Ok(Scored::with_records(report, essays))
    }

    fn rescore(
        &self,
        files: &[WorkFile],
        outcome: &Outcome,
        variant: Variant,
    ) -> Result<Scored, InputError> {
        let scored = outcome.result.as_ref().map_err(Clone::clone)?;
        let Some(records) = scored.records::<Records>() else {
            return self.score(files, &outcome.job, variant);
        };
        let pred_name = scored.report.inputs.get(1).map_or("", |i| i.path.as_str());
        let report = asap_aes::report(
            records,
            scored.report.inputs.clone(),
            pred_name,
            rules(variant),
            true,
        );
        Ok(Scored {
            report,
            records: scored.records.clone(),
        })
    }

    fn table(&self, report: &Report) -> Table {
        paper_table(report, &self.table_style())
    }

    fn sample_row(&self, index: usize, s: &Map<String, Value>) -> SampleRow {
        let get = |k: &str| s.get(k);
        let mut row = drill::empty_row(index, s);
        row.subset = text_of(get("subset"));
        row.id = text_of(get("id"));
        row.gold_value = number_of(get("gold"));
        row.pred_value = number_of(get("pred_used"));
        row.gold = drill::display_number(row.gold_value);
        row.pred = format!(
            "{} ({})",
            drill::display_number(row.pred_value),
            text_of(get("pred"))
        );
        drill::finish_row(row, Vec::new())
    }

    fn detail(
        &self,
        _files: &[WorkFile],
        outcome: &Outcome,
        index: usize,
        _sample: &Map<String, Value>,
    ) -> Result<(Fields, Vec<StepComparison>), InputError> {
        let scored = outcome.result.as_ref().map_err(Clone::clone)?;
        let text = scored
            .records::<Records>()
            .and_then(|r| r.get(index))
            .map(|e| e.text.clone())
            .unwrap_or_default();
        Ok((vec![("Essay".into(), text)], Vec::new()))
    }

    fn paired(
        &self,
        a: &Scored,
        b: &Scored,
        variant: Variant,
    ) -> Result<Box<dyn Paired>, CompareError> {
        let (Some(ra), Some(rb)) = (a.records::<Records>(), b.records::<Records>()) else {
            return Err(CompareError("ASAP-AES records are missing".into()));
        };
        let ids = |r: &Records| r.iter().map(|e| e.id.to_string()).collect::<Vec<_>>();
        let (ids_a, ids_b) = (ids(ra), ids(rb));
        let pairs = align_ids(
            ids_a.iter().map(String::as_str),
            ids_b.iter().map(String::as_str),
        );
        let mut sets: Vec<u8> = pairs.iter().map(|&(i, _)| ra[i].set).collect();
        sets.sort_unstable();
        sets.dedup();
        if sets.is_empty() {
            return Err(CompareError(
                "no essay ids in common: nothing to compare".into(),
            ));
        }
        // Per set, model A's essays and the same essays with model B's prediction.
        let strata = sets
            .iter()
            .map(|&set| {
                let in_set: Vec<(usize, usize)> = pairs
                    .iter()
                    .copied()
                    .filter(|&(i, _)| ra[i].set == set)
                    .collect();
                let a: Vec<Essay> = in_set.iter().map(|&(i, _)| ra[i].clone()).collect();
                let b: Vec<Essay> = in_set
                    .iter()
                    .map(|&(i, j)| Essay {
                        pred: rb[j].pred,
                        ..ra[i].clone()
                    })
                    .collect();
                (a, b)
            })
            .collect();
        Ok(Box::new(Aligned {
            strata,
            variant: rules(variant),
        }))
    }
}

/// The papers' layout: one row of QWK, a column per essay set present, then the Fisher-z mean
/// and the plain mean; 3 decimals.
fn paper_table(report: &Report, style: &TableStyle) -> Table {
    table::one_row_table(
        report,
        style,
        (1.0, 3),
        ("qwk", "QWK"),
        |set| set.replace("set_", "Set "),
        &[("mean_qwk_fisher", "Mean (Fisher z)"), ("mean_qwk", "Mean")],
        format!(
            "{} ({}), quadratic weighted kappa",
            report.benchmark, report.variant
        ),
    )
}

/// One essay set: model A's essays, and the same essays with model B's predictions.
type Stratum = (Vec<Essay>, Vec<Essay>);

/// Per essay set, both models' essays.
struct Aligned {
    strata: Vec<Stratum>,
    variant: asap_aes::Variant,
}

impl Paired for Aligned {
    fn keys(&self) -> Vec<&'static str> {
        vec!["mean_qwk_fisher", "mean_qwk"]
    }

    fn strata(&self) -> Vec<usize> {
        self.strata.iter().map(|(a, _)| a.len()).collect()
    }

    fn metrics(&self, draw: &[Vec<usize>]) -> Vec<(Option<f64>, Option<f64>)> {
        let scores = |model: fn(&Stratum) -> &Vec<Essay>| {
            let drawn = self
                .strata
                .iter()
                .zip(draw)
                .flat_map(|(s, idx)| idx.iter().map(move |&i| &model(s)[i]));
            asap_aes::score_essays(drawn, self.variant)
        };
        let (a, b) = (scores(|s| &s.0), scores(|s| &s.1));
        vec![
            (a.mean_qwk_fisher.ok(), b.mean_qwk_fisher.ok()),
            (a.mean_qwk.ok(), b.mean_qwk.ok()),
        ]
    }
}
