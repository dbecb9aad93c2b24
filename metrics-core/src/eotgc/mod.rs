//! EOTGC — NLPCC 2025 Shared Task 2, essay on-topic graded comments.
//!
//! Track 1 (five ordered relevance levels, 优秀 = 4 … 不合格 = 0):
//! ```text
//! ACC_A = (1/N) Σ (1 − |y_i − ŷ_i| / 4)
//! r     = Σ (y_i − ȳ)(ŷ_i − ŷ̄) / ( sqrt(Σ (y_i − ȳ)²) · sqrt(Σ (ŷ_i − ŷ̄)²) )
//! Score = 0.5 · ACC_A + 0.5 · (1 + r) / 2
//! ```
//! Reference: the formulas of the task guideline (`cubenlp/EOTGC-2025NLPCC`, "Task
//! Guideline.md"); the organisers never published scoring code. `r` is
//! [`crate::pearson::pearson_sums`]:
//! the formula as written (means, then the three sums left to right in gold-file order, two
//! separate square roots) — the golden vectors were made this way; scipy's `pearsonr`, which
//! normalises first, differs in the last bits. Undefined exactly where `pearsonr` is.
//! Track 2 and the leaderboard total: [`track2`].
//!
//! Policies where the guideline is silent (ours, documented in `shared/specs/eotgc.md`):
//! - Labels: every spelling the organisers used (Chinese, guideline English incl. the earlier
//!   Pass/Fail, result-format English), trimmed, English case-insensitive ([`Level::parse`]).
//! - Predictions join gold on `id`; an unknown label, a duplicate id, a prediction for an unknown
//!   id or a gold id without prediction is an error naming the id — nothing is scored silently.
//! - `r` undefined (constant gold or predictions, N = 1): `pearson` and `score` are `null` with a
//!   warning; `score_if_undefined_r_taken_as_0` shows `0.5·ACC_A + 0.25`, labelled as such.
//! - Subsets: one per grade, named `grade <g>`, in numeric grade order (non-numeric grades after,
//!   in text order), with the same three metrics.

pub mod format;
pub mod track2;

pub use format::{
    ClassEssay, Comment, GoldEssay, Judged, LABEL_SPELLINGS, Level, Prediction, join,
    parse_comments, parse_essays, parse_gold, parse_gold_with, parse_predictions,
};
pub use track2::{
    MAX_COMMENT_CHARS, Track2File, Track2Inputs, Track2Scores, add_track2, check_comments,
    comments_report, leaderboard_total, parse_track2_file, parse_track2_scores, score_track2_file,
    track2_score, track2_scores_report,
};

use crate::error::{InputError, MetricError};
use crate::pearson::pearson_sums;
use crate::report::{InputFile, MetricValue, Metrics, Overall, Report, Subset, Warning};

/// Track 1 numbers of one set of essays.
#[derive(Debug, Clone, PartialEq)]
pub struct Track1Scores {
    pub n: usize,
    pub acc_a: f64,
    /// Pearson r; undefined for constant gold or predictions and N < 2.
    pub pearson: Result<f64, MetricError>,
}

impl Track1Scores {
    /// `0.5·ACC_A + 0.5·(1 + r)/2`, undefined when `r` is.
    pub fn score(&self) -> Result<f64, MetricError> {
        self.pearson.clone().map(|r| combine(self.acc_a, r))
    }

    /// The score with an undefined `r` taken as 0 (`0.5·ACC_A + 0.25`); equals [`Self::score`]
    /// when `r` is defined.
    pub fn score_if_undefined_r_taken_as_0(&self) -> f64 {
        combine(self.acc_a, self.pearson.clone().unwrap_or(0.0))
    }

    fn metrics(&self) -> Metrics {
        let mut metrics = Metrics::new();
        metrics.insert("acc_a".into(), MetricValue::Scalar(Some(self.acc_a)));
        metrics.insert(
            "pearson".into(),
            MetricValue::from_result(self.pearson.clone()),
        );
        metrics.insert("score".into(), MetricValue::from_result(self.score()));
        if self.pearson.is_err() {
            metrics.insert(
                "score_if_undefined_r_taken_as_0".into(),
                MetricValue::Scalar(Some(self.score_if_undefined_r_taken_as_0())),
            );
        }
        metrics
    }
}

fn combine(acc_a: f64, r: f64) -> f64 {
    0.5 * acc_a + 0.5 * (1.0 + r) / 2.0
}

/// ACC_A, r of gold and predicted levels (same length, in the same order).
pub fn track1_scores(gold: &[Level], predicted: &[Level]) -> Result<Track1Scores, MetricError> {
    if gold.len() != predicted.len() {
        return Err(MetricError::LengthMismatch {
            left: gold.len(),
            right: predicted.len(),
        });
    }
    if gold.is_empty() {
        return Err(MetricError::Empty);
    }
    let y: Vec<f64> = gold.iter().map(|l| l.value()).collect();
    let y_hat: Vec<f64> = predicted.iter().map(|l| l.value()).collect();
    let total: f64 = y
        .iter()
        .zip(&y_hat)
        .map(|(a, b)| 1.0 - (a - b).abs() / 4.0)
        .sum();
    Ok(Track1Scores {
        n: y.len(),
        acc_a: total / y.len() as f64,
        pearson: pearson_sums(&y, &y_hat),
    })
}

fn scores_of(judged: &[&Judged<'_>]) -> Result<Track1Scores, MetricError> {
    let gold: Vec<Level> = judged.iter().map(|j| j.essay.level).collect();
    let predicted: Vec<Level> = judged.iter().map(|j| j.predicted).collect();
    track1_scores(&gold, &predicted)
}

/// Grade order: numeric grades ascending, then the others in text order.
fn grade_key(grade: &str) -> (u8, u64, String) {
    match grade.parse::<u64>() {
        Ok(g) => (0, g, String::new()),
        Err(_) => (1, 0, grade.to_string()),
    }
}

/// Score joined essays into a Track 1 report (`inputs` as given). `pred_file` is the name
/// warnings refer to.
pub fn track1_report(
    inputs: Vec<InputFile>,
    pred_file: &str,
    judged: &[Judged<'_>],
) -> Result<Report, InputError> {
    track1_report_with(inputs, pred_file, judged, true)
}

/// [`track1_report`], with or without the per-record `samples` (`None` without).
pub fn track1_report_with(
    inputs: Vec<InputFile>,
    pred_file: &str,
    judged: &[Judged<'_>],
    with_samples: bool,
) -> Result<Report, InputError> {
    let all: Vec<&Judged<'_>> = judged.iter().collect();
    let overall = scores_of(&all)
        .map_err(|e| InputError::whole_file(pred_file, format!("cannot score: {e}")))?;
    let mut warnings = Vec::new();
    let mut warn_undefined = |scope: &str, scores: &Track1Scores| {
        if let Err(e) = &scores.pearson {
            warnings.push(Warning {
                path: pred_file.to_string(),
                line: None,
                message: format!(
                    "{scope}: pearson is {e}, so pearson and score are null; \
                     score_if_undefined_r_taken_as_0 shows the score with r = 0"
                ),
            });
        }
    };
    warn_undefined("overall", &overall);

    let mut grades: Vec<&str> = Vec::new();
    for j in judged {
        if !grades.contains(&j.essay.grade.as_str()) {
            grades.push(&j.essay.grade);
        }
    }
    grades.sort_by_key(|g| grade_key(g));
    let mut subsets = Vec::with_capacity(grades.len());
    for grade in grades {
        let members: Vec<&Judged<'_>> = judged.iter().filter(|j| j.essay.grade == grade).collect();
        let name = format!("grade {grade}");
        let scores = scores_of(&members)
            .map_err(|e| InputError::whole_file(pred_file, format!("{name}: {e}")))?;
        warn_undefined(&name, &scores);
        subsets.push(Subset {
            name,
            n: scores.n,
            metrics: scores.metrics(),
        });
    }

    let samples = with_samples.then(|| {
        judged
            .iter()
            .map(|j| {
                serde_json::json!({
                    "id": j.essay.id,
                    "grade": j.essay.grade,
                    "requirement": j.essay.requirement,
                    "title": j.essay.title,
                    "gold": j.essay.level.chinese(),
                    "pred": j.predicted.chinese(),
                    "gold_value": j.essay.level.value(),
                    "pred_value": j.predicted.value(),
                    "acc_a": 1.0 - (j.essay.level.value() - j.predicted.value()).abs() / 4.0,
                })
            })
            .collect()
    });

    Ok(Report {
        benchmark: "eotgc".into(),
        variant: "official".into(),
        inputs,
        overall: Overall {
            n: overall.n,
            metrics: overall.metrics(),
        },
        subsets,
        samples,
        warnings,
    })
}

/// Track 1 from file names and texts: parse the gold file and the submission, join on `id`,
/// score overall and per grade. `inputs` carries the SHA-256 of each text (= of the file's
/// bytes). Per-record samples: id, grade, requirement, title, gold and predicted level.
pub fn score_track1(
    gold_name: &str,
    gold_text: &str,
    pred_name: &str,
    pred_text: &str,
) -> Result<Report, InputError> {
    let gold = parse_gold(gold_name, gold_text)?;
    let predictions = parse_predictions(pred_name, pred_text)?;
    let judged = join(gold_name, &gold, pred_name, &predictions)?;
    let inputs = vec![
        InputFile::from_bytes(gold_name, gold_text.as_bytes()),
        InputFile::from_bytes(pred_name, pred_text.as_bytes()),
    ];
    track1_report(inputs, pred_name, &judged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Level::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn reference_values() {
        let gold = [
            Excellent,
            Good,
            Average,
            Qualified,
            Unqualified,
            Average,
            Good,
            Excellent,
        ];
        let pred = [
            Good,
            Good,
            Average,
            Average,
            Unqualified,
            Qualified,
            Excellent,
            Excellent,
        ];
        let s = track1_scores(&gold, &pred).unwrap();
        // numpy: y=[4,3,2,1,0,2,3,4]; p=[3,3,2,2,0,1,4,4]; np.mean(1-np.abs(np.subtract(y,p))/4) == 0.875
        assert!(close(s.acc_a, 0.875));
        // scipy.stats.pearsonr(y, p).statistic == 0.8558558558558557
        assert!(close(s.pearson.clone().unwrap(), 0.855855855855856));
        // 0.5*0.875 + 0.5*(1+0.855855855855856)/2 == 0.901463963963964
        assert!(close(s.score().unwrap(), 0.901463963963964));
    }

    #[test]
    fn perfect_and_reversed() {
        let gold = [Excellent, Good, Average, Qualified, Unqualified];
        let s = track1_scores(&gold, &gold).unwrap();
        assert_eq!(s.acc_a, 1.0);
        assert!(close(s.score().unwrap(), 1.0));
        let reversed = [Unqualified, Qualified, Average, Good, Excellent];
        let s = track1_scores(&gold, &reversed).unwrap();
        // numpy: np.mean(1-np.abs(np.subtract([4,3,2,1,0],[0,1,2,3,4]))/4) == 0.4
        assert!(close(s.acc_a, 0.4));
        assert!(close(s.pearson.clone().unwrap(), -1.0));
        assert!(close(s.score().unwrap(), 0.2));
    }

    #[test]
    fn undefined_r_gives_null_score_and_labelled_alternative() {
        let s = track1_scores(&[Good; 4], &[Unqualified, Qualified, Average, Good]).unwrap();
        // numpy: np.mean(1-np.abs(np.subtract([3,3,3,3],[0,1,2,3]))/4) == 0.625
        assert!(close(s.acc_a, 0.625));
        assert!(matches!(s.pearson, Err(MetricError::Undefined { .. })));
        assert!(s.score().is_err());
        // 0.5*0.625 + 0.5*(1+0)/2 == 0.5625
        assert!(close(s.score_if_undefined_r_taken_as_0(), 0.5625));
        let m = s.metrics();
        assert_eq!(m["score"], MetricValue::Scalar(None));
        assert_eq!(
            m["score_if_undefined_r_taken_as_0"],
            MetricValue::Scalar(Some(0.5625))
        );
        assert_eq!(track1_scores(&[], &[]), Err(MetricError::Empty));
    }

    #[test]
    fn report_has_grades_in_numeric_order_and_warnings() {
        let gold = r#"[
            {"id": 1, "grade": "10", "classification": "优秀"}, {"id": 2, "grade": "9", "classification": "合格"},
            {"id": 3, "grade": "9", "classification": "一般"}, {"id": 4, "grade": "10", "classification": "较好"},
            {"id": 5, "grade": "9", "classification": "较好"}]"#;
        let pred = r#"[{"id": 5, "classification": "good"}, {"id": 4, "classification": "good"},
            {"id": 3, "classification": "average"}, {"id": 2, "classification": "pass"}, {"id": 1, "classification": "good"}]"#;
        let report = score_track1("g.json", gold, "p.json", pred).unwrap();
        let names: Vec<&str> = report.subsets.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["grade 9", "grade 10"]);
        assert_eq!(report.subsets[0].n, 3);
        // grade 10: gold [4, 3], pred [3, 3] → constant predictions, r undefined
        assert_eq!(
            report.metric("grade 10", "pearson"),
            Some(&MetricValue::Scalar(None))
        );
        assert_eq!(report.warnings.len(), 1);
        assert!(
            report.warnings[0].message.starts_with("grade 10: "),
            "{:?}",
            report.warnings
        );
        assert_eq!(report.inputs.len(), 2);
        assert_eq!(report.samples.as_ref().map(Vec::len), Some(5));
        assert_eq!(report.samples.as_ref().unwrap()[0]["pred"], "较好");
    }
}
