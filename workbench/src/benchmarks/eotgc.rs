//! NLPCC 2025 EOTGC (essay relevance): Track 1 levels against the gold essays (ACC_A, Pearson,
//! Score, per grade), Track 2 inputs and totals, and the Track 2 comment check.
//!
//! ```text
//! roles     gold (test) essays with `classification`; Track 1 submission [{id, classification}];
//!           Track 2 comments [{id, comment}]; Track 2 input {track2_inputs, …}
//! jobs      the gold file + each submission → one report per submission;
//!           each comments file, each Track 2 input → one report each
//! samples   |gold level − predicted level|; detail = title, requirement, essay, gold comment
//! bootstrap essays aligned on id
//! charts    level counts per grade, gold vs predicted
//! ```

use serde_json::{Map, Value};

use crate::charts::{Chart, LevelDistribution};
use crate::compare::{CompareError, align_ids};
use crate::detect::{Detected, Role, RoleInfo, Shape, Sniff};
use crate::drill::{self, Fields, SampleRow, StepComparison, number_of, string_fields, text_of};
use crate::registry::{Benchmark, Paired};
use crate::session::{Job, Outcome, PlanFile, Scored, Variant, WorkFile, file, input, required};
use crate::table::OVERALL;
use metrics_core::InputError;
use metrics_core::eotgc::{self, Level, track1_scores};

pub struct Eotgc;

static GOLD_INFO: RoleInfo = RoleInfo {
    key: "eotgc-gold",
    label: "EOTGC gold essays",
    shared: true,
};
static SUBMISSION_INFO: RoleInfo = RoleInfo {
    key: "eotgc-submission",
    label: "EOTGC Track 1 submission",
    shared: false,
};
static COMMENTS_INFO: RoleInfo = RoleInfo {
    key: "eotgc-comments",
    label: "EOTGC Track 2 comments",
    shared: false,
};
static TRACK2_INFO: RoleInfo = RoleInfo {
    key: "eotgc-track2",
    label: "EOTGC Track 2 input",
    shared: false,
};
static ROLES: [&RoleInfo; 4] = [&GOLD_INFO, &SUBMISSION_INFO, &COMMENTS_INFO, &TRACK2_INFO];
const GOLD: Role = Role(&GOLD_INFO);
const SUBMISSION: Role = Role(&SUBMISSION_INFO);
const COMMENTS: Role = Role(&COMMENTS_INFO);
const TRACK2: Role = Role(&TRACK2_INFO);

/// One EOTGC essay with its predicted level.
#[derive(Debug, Clone, PartialEq)]
pub struct EotgcRecord {
    pub id: String,
    pub grade: String,
    pub gold: Level,
    pub pred: Level,
}

impl Benchmark for Eotgc {
    fn key(&self) -> &'static str {
        "eotgc"
    }

    fn label(&self) -> &'static str {
        "EOTGC"
    }

    fn metrics(&self) -> &'static [&'static str] {
        &["acc_a", "pearson", "score"]
    }

    fn roles(&self) -> &'static [&'static RoleInfo] {
        &ROLES
    }

    fn recognise(&self, sniff: &Sniff<'_>) -> Option<Detected> {
        if sniff.has_any(&["track2_inputs", "leaderboard_track_scores"])
            && matches!(
                sniff.shape,
                Shape::Object { .. } | Shape::JsonlObject { .. } | Shape::ArrayObject { .. }
            )
        {
            return Some(Detected::new(
                TRACK2,
                sniff.confidence(),
                "an object with `track2_inputs`",
            ));
        }
        if !sniff.is_array() {
            return None;
        }
        if sniff.has("classification") {
            return Some(
                if sniff.has_any(&["content", "title", "requirement", "grade"]) {
                    Detected::new(
                        GOLD,
                        sniff.confidence(),
                        "essays with `classification` and `content`",
                    )
                } else {
                    Detected::new(
                        SUBMISSION,
                        sniff.confidence(),
                        "`[{id, classification}]` without essay content",
                    )
                },
            );
        }
        if sniff.has("comment") && sniff.has("id") {
            return Some(Detected::new(
                COMMENTS,
                sniff.confidence(),
                "`[{id, comment}]`",
            ));
        }
        None
    }

    fn plan(&self, files: &[PlanFile<'_>]) -> Vec<Job> {
        let golds: Vec<&PlanFile<'_>> = files.iter().filter(|f| f.role == GOLD).collect();
        let mut jobs = Vec::new();
        for submission in files.iter().filter(|f| f.role == SUBMISSION) {
            jobs.push(match golds.as_slice() {
                [gold] => Job::new(
                    self,
                    format!("EOTGC Track 1: {}", submission.name),
                    vec![(GOLD, gold.index), (SUBMISSION, submission.index)],
                ),
                [] => Job::unusable(
                    self,
                    submission,
                    "a Track 1 submission needs the gold (test) file with `classification`: add it"
                        .into(),
                ),
                several => Job::unusable(
                    self,
                    submission,
                    format!(
                        "{} EOTGC gold files ({}): keep one and set the others to \"Not used\"",
                        several.len(),
                        several
                            .iter()
                            .map(|f| f.name)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ),
            });
        }
        jobs.extend(Job::one_per_file(self, files, TRACK2, "EOTGC Track 2"));
        jobs.extend(Job::one_per_file(
            self,
            files,
            COMMENTS,
            "EOTGC comment check",
        ));
        jobs
    }

    fn score(
        &self,
        files: &[WorkFile],
        job: &Job,
        _variant: Variant,
    ) -> Result<Scored, InputError> {
        if let Some(i) = job.first(TRACK2) {
            let (name, text) = file(files, i)?;
            let parsed = eotgc::parse_track2_file(name, text)?;
            return Ok(Scored::report_only(eotgc::score_track2_file(
                input(files, i)?,
                &parsed,
            )?));
        }
        if let Some(i) = job.first(COMMENTS) {
            let (name, text) = file(files, i)?;
            let parsed = eotgc::parse_comments(name, text)?;
            return Ok(Scored::report_only(eotgc::comments_report(
                input(files, i)?,
                &parsed,
            )));
        }
        let (gold, submission) = (required(job, GOLD)?, required(job, SUBMISSION)?);
        let (gname, gtext) = file(files, gold)?;
        let (pname, ptext) = file(files, submission)?;
        let gold_essays = eotgc::parse_gold(gname, gtext)?;
        let predictions = eotgc::parse_predictions(pname, ptext)?;
        let judged = eotgc::join(gname, &gold_essays, pname, &predictions)?;
        let report = eotgc::track1_report(
            vec![input(files, gold)?, input(files, submission)?],
            pname,
            &judged,
        )?;
        let records: Vec<EotgcRecord> = judged
            .iter()
            .map(|j| EotgcRecord {
                id: j.essay.id.clone(),
                grade: j.essay.grade.clone(),
                gold: j.essay.level,
                pred: j.predicted,
            })
            .collect();
        Ok(Scored::with_records(report, records))
    }

    fn charts(&self, scored: &Scored, _variant: Variant) -> Vec<Chart> {
        scored
            .records::<Vec<EotgcRecord>>()
            .map(|r| {
                vec![Chart::Levels {
                    groups: levels_per_grade(r),
                }]
            })
            .unwrap_or_default()
    }

    fn sample_row(&self, index: usize, s: &Map<String, Value>) -> SampleRow {
        let get = |k: &str| s.get(k);
        let mut row = drill::empty_row(index, s);
        row.subset = format!("grade {}", text_of(get("grade")));
        row.id = text_of(get("id"));
        row.gold_value = number_of(get("gold_value"));
        row.pred_value = number_of(get("pred_value"));
        drill::finish_row(
            row,
            vec![text_of(get("title")), text_of(get("requirement"))],
        )
    }

    fn detail(
        &self,
        files: &[WorkFile],
        outcome: &Outcome,
        _index: usize,
        sample: &Map<String, Value>,
    ) -> Result<(Fields, Vec<StepComparison>), InputError> {
        let job = &outcome.job;
        let Some(gold) = job.first(GOLD) else {
            return Ok((Vec::new(), Vec::new()));
        };
        let gold = files
            .get(gold)
            .ok_or_else(|| InputError::whole_file(&job.title, "the gold file is gone"))?;
        let records: Vec<Value> = serde_json::from_str(gold.text()?).map_err(|e| {
            InputError::whole_file(&gold.name, format!("expected a JSON array: {e}"))
        })?;
        let id = text_of(sample.get("id"));
        let record = records.into_iter().find(|r| {
            let rid = r.get("id").map(|v| text_of(Some(v)));
            rid.as_deref() == Some(id.as_str())
        });
        let fields = record
            .as_ref()
            .and_then(Value::as_object)
            .map(|o| {
                string_fields(
                    o,
                    &[
                        ("title", "Title"),
                        ("requirement", "Requirement"),
                        ("content", "Essay"),
                        ("comment", "Gold comment"),
                    ],
                )
            })
            .unwrap_or_default();
        Ok((fields, Vec::new()))
    }

    fn paired(
        &self,
        a: &Scored,
        b: &Scored,
        _variant: Variant,
    ) -> Result<Box<dyn Paired>, CompareError> {
        let (Some(ea), Some(eb)) = (
            a.records::<Vec<EotgcRecord>>(),
            b.records::<Vec<EotgcRecord>>(),
        ) else {
            return Err(CompareError(
                "the bootstrap needs two EOTGC Track 1 reports".into(),
            ));
        };
        let pairs = align_ids(
            ea.iter().map(|r| r.id.as_str()),
            eb.iter().map(|r| r.id.as_str()),
        );
        if pairs.is_empty() {
            return Err(CompareError(
                "no essay ids in common: nothing to compare".into(),
            ));
        }
        Ok(Box::new(Aligned {
            gold: pairs.iter().map(|&(i, _)| ea[i].gold).collect(),
            a: pairs.iter().map(|&(i, _)| ea[i].pred).collect(),
            b: pairs.iter().map(|&(_, j)| eb[j].pred).collect(),
        }))
    }
}

/// Essays of two submissions aligned on id.
struct Aligned {
    gold: Vec<Level>,
    a: Vec<Level>,
    b: Vec<Level>,
}

impl Paired for Aligned {
    fn keys(&self) -> Vec<&'static str> {
        vec!["acc_a", "pearson", "score"]
    }

    fn strata(&self) -> Vec<usize> {
        vec![self.gold.len()]
    }

    fn metrics(&self, draw: &[Vec<usize>]) -> Vec<(Option<f64>, Option<f64>)> {
        let idx = &draw[0];
        let g: Vec<Level> = idx.iter().map(|&i| self.gold[i]).collect();
        let scores = |p: &[Level]| {
            let p: Vec<Level> = idx.iter().map(|&i| p[i]).collect();
            match track1_scores(&g, &p) {
                Ok(s) => [Some(s.acc_a), s.pearson.clone().ok(), s.score().ok()],
                Err(_) => [None; 3],
            }
        };
        let (sa, sb) = (scores(&self.a), scores(&self.b));
        (0..3).map(|k| (sa[k], sb[k])).collect()
    }
}

/// Per grade (numeric order, as the report's subsets) and overall, the gold and predicted level
/// counts.
pub fn levels_per_grade(records: &[EotgcRecord]) -> Vec<LevelDistribution> {
    let mut grades: Vec<&str> = Vec::new();
    for r in records {
        if !grades.contains(&r.grade.as_str()) {
            grades.push(&r.grade);
        }
    }
    grades.sort_by_key(|g| match g.parse::<u64>() {
        Ok(n) => (0, n, String::new()),
        Err(_) => (1, 0, g.to_string()),
    });
    let distribution = |name: String, members: Vec<&EotgcRecord>| {
        let count = |level_of: &dyn Fn(&EotgcRecord) -> Level| -> Vec<u64> {
            Level::ALL
                .iter()
                .map(|l| members.iter().filter(|r| level_of(r) == *l).count() as u64)
                .collect()
        };
        LevelDistribution {
            grade: name,
            levels: Level::ALL.iter().map(|l| l.chinese().to_string()).collect(),
            gold: count(&|r| r.gold),
            pred: count(&|r| r.pred),
        }
    };
    let mut out: Vec<LevelDistribution> = grades
        .iter()
        .map(|g| {
            distribution(
                format!("grade {g}"),
                records.iter().filter(|r| r.grade == *g).collect(),
            )
        })
        .collect();
    out.push(distribution(OVERALL.into(), records.iter().collect()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_per_grade_in_numeric_order() {
        let r = |grade: &str, gold, pred| EotgcRecord {
            id: String::new(),
            grade: grade.into(),
            gold,
            pred,
        };
        let records = [
            r("10", Level::Excellent, Level::Good),
            r("9", Level::Good, Level::Good),
            r("9", Level::Unqualified, Level::Good),
        ];
        let d = levels_per_grade(&records);
        assert_eq!(d.len(), 3);
        assert_eq!(d[0].grade, "grade 9");
        assert_eq!(d[0].gold, [0, 1, 0, 0, 1]);
        assert_eq!(d[0].pred, [0, 2, 0, 0, 0]);
        assert_eq!(d[2].gold.iter().sum::<u64>(), 3);
    }
}
