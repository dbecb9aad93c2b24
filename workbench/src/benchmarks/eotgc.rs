//! NLPCC 2025 EOTGC (essay relevance): Track 1 levels against the gold essays (ACC_A, Pearson,
//! Score, per grade), Track 2 inputs and totals, and the Track 2 comment check.
//!
//! ```text
//! roles     gold (test) essays with `classification` (ids optional: the samples layout);
//!           the class's essays without gold [{id, grade, requirement, title, content}];
//!           Track 1 submission [{id, classification}]; Track 2 comments [{id, comment}];
//!           Track 2 input {track2_inputs, …}; one submission's Track 2 scores {ppl, bertscore,
//!           human}
//! jobs      the gold file + each submission → one report per submission (with the class view
//!           when the gold has essay texts; a comments file of the same model attaches to it;
//!           with one submission, its Track 2 scores attach too and the report adds `track2`
//!           and the leaderboard `total` = 0.4·score + 0.6·track2);
//!           the essays without gold (+ levels, + comments) → the class view and its counts;
//!           each comments file, each Track 2 input, Track 2 scores left alone → one report each
//! samples   |gold level − predicted level|; detail = title, requirement, essay, gold comment
//! bootstrap essays aligned on id
//! charts    level counts per grade, gold vs predicted
//! ```

#[cfg(feature = "cli")]
mod cli;
#[cfg(feature = "cli")]
pub mod run;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::benchmark::{Benchmark, Paired};
use crate::charts::{Chart, LevelDistribution};
use crate::class::{ClassRow, ClassView, comment_flag, eotgc_levels};
use crate::compare::{CompareError, align_ids};
use crate::detect::{Detected, Role, RoleInfo, Shape, Sniff};
use crate::drill::{self, Fields, SampleRow, StepComparison, number_of, string_fields, text_of};
use crate::session::{
    Job, Outcome, PlanFile, Scored, Variant, WorkFile, file, input, required, the_one,
};
use crate::table::{OVERALL, TableStyle};
use metrics_core::eotgc::{self, ClassEssay, Comment, Level, Prediction, track1_scores};
use metrics_core::report::{MetricValue, Metrics, Overall, Subset};
use metrics_core::{InputError, Report, json_array};

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
static ESSAYS_INFO: RoleInfo = RoleInfo {
    key: "eotgc-essays",
    label: "EOTGC class essays (no gold)",
    shared: true,
};
static TRACK2_INFO: RoleInfo = RoleInfo {
    key: "eotgc-track2",
    label: "EOTGC Track 2 input",
    shared: false,
};
static TRACK2_SCORES_INFO: RoleInfo = RoleInfo {
    key: "eotgc-track2-scores",
    label: "EOTGC Track 2 scores of a submission",
    shared: false,
};
static ROLES: [&RoleInfo; 6] = [
    &GOLD_INFO,
    &ESSAYS_INFO,
    &SUBMISSION_INFO,
    &COMMENTS_INFO,
    &TRACK2_INFO,
    &TRACK2_SCORES_INFO,
];
const GOLD: Role = Role(&GOLD_INFO);
const SUBMISSION: Role = Role(&SUBMISSION_INFO);
const COMMENTS: Role = Role(&COMMENTS_INFO);
const TRACK2: Role = Role(&TRACK2_INFO);
const TRACK2_SCORES: Role = Role(&TRACK2_SCORES_INFO);
const ESSAYS: Role = Role(&ESSAYS_INFO);

/// The count metrics of the class and comment-check reports (shown as integers).
const COUNTS: &[&str] = &[
    "essays",
    "levelled",
    "commented",
    "comments_over_limit",
    "comments_empty",
    "empty_comments",
    "max_comment_chars",
];

/// A Track 1 job's records: the essays with both levels, and the class view when the gold file
/// has the essays' texts.
#[derive(Debug, Clone, PartialEq)]
pub struct EotgcRecords {
    pub judged: Vec<EotgcRecord>,
    pub class: Option<ClassView>,
    /// The Track 2 score when the submission carried its Track 2 numbers (the bootstrap then
    /// resamples the total too, Track 2 held fixed).
    pub track2: Option<f64>,
}

/// One EOTGC essay with its predicted level.
#[derive(Debug, Clone, PartialEq)]
pub struct EotgcRecord {
    pub id: String,
    pub grade: String,
    pub gold: Level,
    pub pred: Level,
}

impl Benchmark for Eotgc {
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
        "eotgc"
    }

    fn label(&self) -> &'static str {
        "EOTGC"
    }

    fn metrics(&self) -> &'static [&'static str] {
        &["acc_a", "pearson", "score"]
    }

    /// A submission with its Track 2 scores adds the Track 2 score and the organisers'
    /// leaderboard total (Results.md ranks by it).
    fn more_metrics(&self) -> &'static [&'static str] {
        &["track2", "total"]
    }

    /// Results.md heads the Track 1 score `Track1`.
    fn metric_aliases(&self) -> &'static [(&'static str, &'static str)] {
        &[("track1", "score")]
    }

    /// The total of a reported Track 1 and Track 2 score (Results.md's rule).
    fn derived_metrics(&self, get: &dyn Fn(&str) -> Option<f64>) -> Vec<(&'static str, f64)> {
        match (get("score"), get("track2")) {
            (Some(t1), Some(t2)) => vec![("total", eotgc::leaderboard_total(t1, t2))],
            _ => Vec::new(),
        }
    }

    /// The official leaderboard ranks Track 1 by `score` (the mean of accuracy and Pearson's r).
    fn primary_metric(&self) -> &'static str {
        "score"
    }

    fn roles(&self) -> &'static [&'static RoleInfo] {
        &ROLES
    }

    fn recognise(&self, sniff: &Sniff<'_>) -> Option<Detected> {
        if matches!(
            sniff.shape,
            Shape::Object { .. } | Shape::JsonlObject { .. }
        ) && sniff.has("ppl")
            && sniff.has("bertscore")
            && sniff.has("human")
        {
            return Some(Detected::new(
                TRACK2_SCORES,
                sniff.confidence(),
                "an object with `ppl`, `bertscore` and `human`",
            ));
        }
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
        if sniff.has("grade") && sniff.has_any(&["content", "title", "requirement"]) {
            return Some(Detected::new(
                ESSAYS,
                sniff.confidence(),
                "a class's essays (`grade`, `title`, `content`) without levels",
            ));
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
        let essays: Vec<&PlanFile<'_>> = files.iter().filter(|f| f.role == ESSAYS).collect();
        let first_comments = files.iter().find(|f| f.role == COMMENTS);
        let with_comments = |mut parts: Vec<(Role, usize)>| {
            parts.extend(first_comments.map(|c| (COMMENTS, c.index)));
            parts
        };
        let mut jobs = Vec::new();
        let submissions: Vec<&PlanFile<'_>> =
            files.iter().filter(|f| f.role == SUBMISSION).collect();
        // The class's essays without gold: one class view with the first levels file.
        for e in &essays {
            let levels = submissions.first().map(|s| (SUBMISSION, s.index));
            jobs.push(Job::new(
                self,
                format!("EOTGC class: {}", e.name),
                with_comments(std::iter::once((ESSAYS, e.index)).chain(levels).collect()),
            ));
        }
        if !essays.is_empty() && golds.is_empty() {
            return jobs;
        }
        if golds.len() == 1 && submissions.is_empty() && first_comments.is_some() {
            jobs.push(Job::new(
                self,
                format!("EOTGC class: {}", golds[0].name),
                with_comments(vec![(GOLD, golds[0].index)]),
            ));
        }
        // One submission's Track 2 scores belong to it when there is one submission.
        let scores: Vec<&PlanFile<'_>> = files.iter().filter(|f| f.role == TRACK2_SCORES).collect();
        let attached = match (&submissions[..], &scores[..]) {
            ([_], [one]) if golds.len() == 1 => Some(one.index),
            _ => None,
        };
        for submission in submissions {
            let gold = the_one(
                &golds,
                "a Track 1 submission needs the gold (test) file with `classification`: add it",
                "EOTGC gold",
            );
            jobs.push(match gold {
                Ok(gold) => Job::new(
                    self,
                    format!("EOTGC Track 1: {}", submission.name),
                    with_comments(
                        [(GOLD, gold.index), (SUBMISSION, submission.index)]
                            .into_iter()
                            .chain(attached.map(|i| (TRACK2_SCORES, i)))
                            .collect(),
                    ),
                ),
                Err(why) => Job::unusable(self, submission, why),
            });
        }
        jobs.extend(Job::one_per_file(self, files, TRACK2, "EOTGC Track 2"));
        if attached.is_none() {
            jobs.extend(Job::one_per_file(
                self,
                files,
                TRACK2_SCORES,
                "EOTGC Track 2 scores",
            ));
        }
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
        let track2_scores = match job.first(TRACK2_SCORES) {
            Some(i) => {
                let (name, text) = file(files, i)?;
                Some((i, eotgc::parse_track2_scores(name, text)?))
            }
            None => None,
        };
        if let (Some((i, scores)), None) = (&track2_scores, job.first(SUBMISSION)) {
            return Ok(Scored::report_only(eotgc::track2_scores_report(
                input(files, *i)?,
                scores,
            )?));
        }
        let comments = match job.first(COMMENTS) {
            Some(i) => {
                let (name, text) = file(files, i)?;
                Some(eotgc::parse_comments(name, text)?)
            }
            None => None,
        };
        let levels = match job.first(SUBMISSION) {
            Some(i) => {
                let (name, text) = file(files, i)?;
                Some(eotgc::parse_predictions(name, text)?)
            }
            None => None,
        };
        let essays_file = job.first(ESSAYS).or_else(|| {
            job.first(SUBMISSION)
                .is_none()
                .then(|| job.first(GOLD))
                .flatten()
        });
        if let Some(e) = essays_file {
            // A class without (or only with) gold, no Track 1 numbers.
            let (name, text) = file(files, e)?;
            let essays = eotgc::parse_essays(name, text)?;
            let class = class_view(files, e, &essays, levels.as_deref(), comments.as_deref())?;
            let mut inputs = vec![input(files, e)?];
            inputs.extend(job.first(SUBMISSION).map(|i| input(files, i)).transpose()?);
            inputs.extend(job.first(COMMENTS).map(|i| input(files, i)).transpose()?);
            let report = class_report(inputs, &class);
            let records = EotgcRecords {
                judged: Vec::new(),
                class: Some(class),
                track2: None,
            };
            return Ok(Scored::with_records(report, records));
        }
        // A comments file alone: the comment check.
        if let (Some(i), None) = (job.first(COMMENTS), job.first(SUBMISSION)) {
            return Ok(Scored::report_only(eotgc::comments_report(
                input(files, i)?,
                comments.as_deref().unwrap_or_default(),
            )));
        }
        let (gold, submission) = (required(job, GOLD)?, required(job, SUBMISSION)?);
        let (gname, gtext) = file(files, gold)?;
        let (pname, ptext) = file(files, submission)?;
        let gold_essays = eotgc::parse_gold(gname, gtext)?;
        let predictions = eotgc::parse_predictions(pname, ptext)?;
        let judged = eotgc::join(gname, &gold_essays, pname, &predictions)?;
        let mut report = eotgc::track1_report(
            vec![input(files, gold)?, input(files, submission)?],
            pname,
            &judged,
        )?;
        if let Some((i, scores)) = &track2_scores {
            eotgc::add_track2(&mut report, input(files, *i)?, scores)?;
        }
        let judged_records: Vec<EotgcRecord> = judged
            .iter()
            .map(|j| EotgcRecord {
                id: j.essay.id.clone(),
                grade: j.essay.grade.clone(),
                gold: j.essay.level,
                pred: j.predicted,
            })
            .collect();
        // The class view when the gold file carries the essays' texts.
        let has_texts = gold_essays.iter().any(|e| !e.content.is_empty());
        let class = if has_texts {
            // The gold essays already hold everything the class view reads: no second parse.
            let essays: Vec<ClassEssay> = gold_essays
                .iter()
                .map(|e| ClassEssay {
                    id: e.id.clone(),
                    grade: e.grade.clone(),
                    requirement: e.requirement.clone(),
                    title: e.title.clone(),
                    content: e.content.clone(),
                    gold: Some(e.level),
                    comment: e.comment.clone(),
                    record: e.record,
                })
                .collect();
            Some(class_view(
                files,
                gold,
                &essays,
                levels.as_deref(),
                comments.as_deref(),
            )?)
        } else {
            None
        };
        let track2 = match report.overall.metrics.get("track2") {
            Some(MetricValue::Scalar(v)) => *v,
            _ => None,
        };
        let records = EotgcRecords {
            judged: judged_records,
            class,
            track2,
        };
        Ok(Scored::with_records(report, records))
    }

    fn table_style(&self) -> TableStyle {
        TableStyle {
            counts: COUNTS,
            ..TableStyle::default()
        }
    }

    fn class(&self, scored: &Scored) -> Option<ClassView> {
        scored.records::<EotgcRecords>()?.class.clone()
    }

    fn charts(&self, scored: &Scored, _variant: Variant) -> Vec<Chart> {
        scored
            .records::<EotgcRecords>()
            .filter(|r| !r.judged.is_empty())
            .map(|r| {
                vec![Chart::Levels {
                    groups: levels_per_grade(&r.judged),
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
        let id = text_of(sample.get("id"));
        let record = json_array::find(gold.text()?, |_, r| {
            let rid = r.get("id").map(|v| text_of(Some(v)));
            rid.as_deref() == Some(id.as_str())
        })
        .map_err(|e| InputError::whole_file(&gold.name, format!("expected a JSON array: {e}")))?;
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
        let (Some(ra), Some(rb)) = (a.records::<EotgcRecords>(), b.records::<EotgcRecords>())
        else {
            return Err(CompareError(
                "the bootstrap needs two EOTGC Track 1 reports".into(),
            ));
        };
        let (ea, eb) = (&ra.judged, &rb.judged);
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
            track2: ra.track2.zip(rb.track2),
        }))
    }
}

/// The class view of `essays` (file `file`) with the model's levels and comments joined by id.
/// A level or comment for an id that is not in the essays file is an error naming it.
fn class_view(
    files: &[WorkFile],
    file: usize,
    essays: &[ClassEssay],
    levels: Option<&[Prediction]>,
    comments: Option<&[Comment]>,
) -> Result<ClassView, InputError> {
    let source = files
        .get(file)
        .ok_or_else(|| InputError::whole_file("essays", "the essays file is gone"))?;
    let ids: std::collections::HashSet<&str> = essays.iter().map(|e| e.id.as_str()).collect();
    let stray = |id: &str, what: &str, file: usize, record: usize| {
        let name = files.get(file).map_or("?", |f| f.name.as_str());
        InputError::at_line(
            name,
            record,
            format!("id {id}: no essay with this id in {} ({what})", source.name),
        )
    };
    let level_file = |role: Role| {
        files
            .iter()
            .position(|f| f.role == role)
            .unwrap_or(usize::MAX)
    };
    if let Some(p) = levels
        .unwrap_or_default()
        .iter()
        .find(|p| !ids.contains(p.id.as_str()))
    {
        return Err(stray(&p.id, "a level", level_file(SUBMISSION), p.record));
    }
    if let Some(c) = comments
        .unwrap_or_default()
        .iter()
        .find(|c| !ids.contains(c.id.as_str()))
    {
        return Err(stray(&c.id, "a comment", level_file(COMMENTS), c.record));
    }
    let level_of: std::collections::HashMap<&str, &Prediction> = levels
        .unwrap_or_default()
        .iter()
        .map(|p| (p.id.as_str(), p))
        .collect();
    let comment_of: std::collections::HashMap<&str, &str> = comments
        .unwrap_or_default()
        .iter()
        .map(|c| (c.id.as_str(), c.comment.as_str()))
        .collect();
    let spellings: Vec<(Level, String)> = levels
        .unwrap_or_default()
        .iter()
        .map(|p| (p.level, p.label.clone()))
        .collect();
    let rank = |l: Level| Level::ALL.iter().position(|x| *x == l);
    let limit = eotgc::MAX_COMMENT_CHARS;
    let rows = essays
        .iter()
        .map(|e| {
            let level = level_of.get(e.id.as_str());
            // A comments file is the model's; without one, the gold comment (samples layout).
            let comment = match comments {
                Some(_) => comment_of.get(e.id.as_str()).map(|c| (*c).to_string()),
                None => e.comment.clone(),
            };
            ClassRow {
                id: e.id.clone(),
                grade: e.grade.clone(),
                requirement: e.requirement.clone(),
                title: e.title.clone(),
                content: e.content.clone(),
                level: level.map(|p| p.label.clone()),
                level_rank: level.and_then(|p| rank(p.level)),
                gold_rank: e.gold.and_then(rank),
                comment_chars: comment.as_ref().map(|c| c.chars().count()),
                comment_flag: comment.as_deref().and_then(|c| comment_flag(c, limit)),
                comment,
            }
        })
        .collect();
    let sha = source.input_file().sha256;
    Ok(ClassView::new(
        source.name.clone(),
        sha,
        eotgc_levels(&spellings),
        rows,
        limit,
    ))
}

/// A class's counts as a report: per grade and overall, essays, essays with a level and with a
/// comment, comments over the limit and empty ones.
fn class_report(inputs: Vec<metrics_core::InputFile>, class: &ClassView) -> Report {
    let metrics_of = |rows: Vec<&ClassRow>| {
        let count = |f: &dyn Fn(&ClassRow) -> bool| {
            MetricValue::Scalar(Some(rows.iter().filter(|r| f(r)).count() as f64))
        };
        let mut m = Metrics::new();
        m.insert("essays".into(), count(&|_| true));
        m.insert("levelled".into(), count(&|r| r.level.is_some()));
        m.insert("commented".into(), count(&|r| r.comment.is_some()));
        m.insert(
            "comments_over_limit".into(),
            count(&|r| r.comment_flag.as_deref() == Some("over")),
        );
        m.insert(
            "comments_empty".into(),
            count(&|r| r.comment_flag.as_deref() == Some("empty")),
        );
        (rows.len(), m)
    };
    let subsets = class
        .distribution
        .iter()
        .filter(|g| g.group != OVERALL)
        .map(|g| {
            let (n, metrics) =
                metrics_of(class.essays.iter().filter(|e| e.grade == g.group).collect());
            Subset {
                name: format!("grade {}", g.group),
                n,
                metrics,
            }
        })
        .collect();
    let (n, metrics) = metrics_of(class.essays.iter().collect());
    Report {
        benchmark: "eotgc".into(),
        variant: "class".into(),
        inputs,
        overall: Overall { n, metrics },
        subsets,
        samples: None,
        warnings: Vec::new(),
    }
}

/// Essays of two submissions aligned on id.
struct Aligned {
    gold: Vec<Level>,
    a: Vec<Level>,
    b: Vec<Level>,
    /// Both submissions' Track 2 scores, when both carried them: the leaderboard total
    /// (0.4·score + 0.6·track2) is resampled with Track 2 fixed (people and models made it; only
    /// the essays are drawn).
    track2: Option<(f64, f64)>,
}

impl Paired for Aligned {
    fn keys(&self) -> Vec<&'static str> {
        let mut keys = vec!["acc_a", "pearson", "score"];
        if self.track2.is_some() {
            keys.push("total");
        }
        keys
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
        let mut out: Vec<(Option<f64>, Option<f64>)> = (0..3).map(|k| (sa[k], sb[k])).collect();
        if let Some((ta, tb)) = self.track2 {
            let total = |score: Option<f64>, t2| score.map(|s| eotgc::leaderboard_total(s, t2));
            out.push((total(sa[2], ta), total(sb[2], tb)));
        }
        out
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

/// `POST /api/v1/runs` for an EOTGC run: the class view's "ask a model" sends it, the server
/// reads it (a [`crate::wire`] type kept here, with the benchmark's key). `benchmark` is
/// `eotgc`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRequest {
    #[serde(default)]
    pub benchmark: String,
    /// 1: relevance levels, 2: comments.
    pub track: u8,
    /// The test essays `[{id, grade, requirement, title, content}]`.
    pub dataset: Vec<serde_json::Value>,
    pub model: String,
    #[serde(default = "eight")]
    pub workers: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Per-request timeout (default an hour).
    #[serde(default = "hour")]
    pub timeout_secs: u64,
    /// Wait between the attempts of a failed request (default 10 s).
    #[serde(default = "ten_s")]
    pub retry_wait_ms: u64,
}

impl RunRequest {
    /// A run of `track` over `dataset` with `model`, the rest as the server's defaults.
    pub fn new(track: u8, dataset: Vec<serde_json::Value>, model: String, workers: usize) -> Self {
        Self {
            benchmark: "eotgc".into(),
            track,
            dataset,
            model,
            workers,
            max_tokens: None,
            temperature: None,
            top_p: None,
            timeout_secs: hour(),
            retry_wait_ms: ten_s(),
        }
    }
}

fn eight() -> usize {
    8
}
fn hour() -> u64 {
    3600
}
fn ten_s() -> u64 {
    10_000
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
