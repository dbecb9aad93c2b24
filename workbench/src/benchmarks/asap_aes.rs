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

use serde_json::{Map, Value};

use crate::compare::{CompareError, align_ids};
use crate::detect::{Confidence, Detected, Role, RoleInfo, Shape, Sniff};
use crate::drill::{self, Fields, SampleRow, StepComparison, number_of, text_of};
use crate::registry::{Benchmark, Paired, VariantInfo};
use crate::session::{Job, Outcome, PlanFile, Scored, Variant, WorkFile, file, input, required};
use metrics_core::InputError;
use metrics_core::asap_aes::{self, Essay};

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

/// The gold essays' texts by id, and the joined essays of a scored job.
struct Records {
    essays: Vec<Essay>,
    texts: Vec<String>,
}

impl Benchmark for AsapAes {
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
        &[
            VariantInfo {
                variant: Variant::Official,
                report_name: "official",
                label: "Official",
            },
            VariantInfo {
                variant: Variant::Corrected,
                report_name: "corrected",
                label: "Corrected",
            },
        ]
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
            .map(|p| match golds.as_slice() {
                [gold] => Job::new(
                    self,
                    format!("ASAP-AES: {}", p.name),
                    vec![(GOLD, gold.index), (PREDICTIONS, p.index)],
                ),
                [] => Job::unusable(
                    self,
                    p,
                    "predictions need the gold TSV (training_set_rel3.tsv layout): add it".into(),
                ),
                several => Job::unusable(
                    self,
                    p,
                    format!(
                        "{} ASAP-AES gold files ({}): keep one and set the others to \"Not used\"",
                        several.len(),
                        several
                            .iter()
                            .map(|f| f.name)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ),
            })
            .collect()
    }

    fn score(&self, files: &[WorkFile], job: &Job, variant: Variant) -> Result<Scored, InputError> {
        let (g, p) = (required(job, GOLD)?, required(job, PREDICTIONS)?);
        let gold_file = files
            .get(g)
            .ok_or_else(|| InputError::whole_file(&job.title, "the gold file is gone"))?;
        let gold = asap_aes::parse_gold(&gold_file.name, &gold_file.bytes)?;
        let (pname, ptext) = file(files, p)?;
        let predictions = asap_aes::parse_predictions(pname, ptext)?;
        let essays = asap_aes::join(&gold_file.name, &gold, pname, &predictions)?;
        let report = asap_aes::score(
            vec![input(files, g)?, input(files, p)?],
            &gold_file.name,
            &essays,
            rules(variant),
            true,
        );
        let texts = gold.into_iter().map(|e| e.text).collect();
        Ok(Scored::with_records(report, Records { essays, texts }))
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
        let gold_name = scored.report.inputs.first().map_or("", |i| i.path.as_str());
        let report = asap_aes::score(
            scored.report.inputs.clone(),
            gold_name,
            &records.essays,
            rules(variant),
            true,
        );
        Ok(Scored {
            report,
            records: scored.records.clone(),
        })
    }

    fn sample_row(&self, index: usize, s: &Map<String, Value>) -> SampleRow {
        let get = |k: &str| s.get(k);
        let mut row = drill::empty_row(index, s);
        row.subset = format!("set_{}", text_of(get("set")));
        row.id = text_of(get("id"));
        row.gold_value = number_of(get("gold"));
        row.pred_value = number_of(get("rating"));
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
            .and_then(|r| r.texts.get(index))
            .cloned()
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
        let pairs = align_ids(
            ra.essays.iter().map(|e| e.id.as_str()),
            rb.essays.iter().map(|e| e.id.as_str()),
        );
        let mut sets: Vec<u8> = pairs.iter().map(|&(i, _)| ra.essays[i].set).collect();
        sets.sort_unstable();
        sets.dedup();
        if sets.is_empty() {
            return Err(CompareError(
                "no essay ids in common: nothing to compare".into(),
            ));
        }
        let strata = sets
            .iter()
            .map(|&set| {
                pairs
                    .iter()
                    .filter(|&&(i, _)| ra.essays[i].set == set)
                    .map(|&(i, j)| (ra.essays[i].clone(), rb.essays[j].pred))
                    .collect()
            })
            .collect();
        Ok(Box::new(Aligned {
            strata,
            variant: rules(variant),
        }))
    }
}

/// Per essay set, model A's essays with model B's prediction beside each.
struct Aligned {
    strata: Vec<Vec<(Essay, f64)>>,
    variant: asap_aes::Variant,
}

impl Paired for Aligned {
    fn keys(&self) -> Vec<&'static str> {
        vec!["mean_qwk_fisher", "mean_qwk"]
    }

    fn strata(&self) -> Vec<usize> {
        self.strata.iter().map(Vec::len).collect()
    }

    fn metrics(&self, draw: &[Vec<usize>]) -> Vec<(Option<f64>, Option<f64>)> {
        let kappas = |pick_b: bool| -> Option<Vec<f64>> {
            self.strata
                .iter()
                .zip(draw)
                .map(|(essays, idx)| {
                    let set = essays.first()?.0.set;
                    let range = (self.variant == asap_aes::Variant::Corrected)
                        .then(|| asap_aes::declared_range(set));
                    let gold: Vec<i64> = idx.iter().map(|&i| essays[i].0.gold).collect();
                    let pred: Vec<i64> = idx
                        .iter()
                        .map(|&i| {
                            let p = if pick_b {
                                essays[i].1
                            } else {
                                essays[i].0.pred
                            };
                            asap_aes::rating(p, set, self.variant)
                        })
                        .collect();
                    asap_aes::quadratic_weighted_kappa(&gold, &pred, range)
                })
                .collect()
        };
        let (ka, kb) = (kappas(false), kappas(true));
        let fisher =
            |k: &Option<Vec<f64>>| k.as_deref().map(asap_aes::mean_quadratic_weighted_kappa);
        let mean = |k: &Option<Vec<f64>>| k.as_deref().map(asap_aes::numpy_mean);
        vec![(fisher(&ka), fisher(&kb)), (mean(&ka), mean(&kb))]
    }
}
