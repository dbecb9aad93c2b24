//! EOTGC Track 2 score, the leaderboard total and the comment-length rule.
//!
//! ```text
//! Score_T2 = 0.10 · ((1/PPL − 0.02) / 0.18) + 0.40 · BERTScore + 0.5 · human / 100
//! Total    = 0.4 · Score_T1 + 0.6 · Score_T2          (from unrounded track scores)
//! ```
//! PPL (baichuan-7b-chat), BERTScore (settings unstated) and the human score come from models
//! and people, not from scorebench: they are inputs. No clamp: PPL > 50 gives a negative PPL term,
//! as the formula is written. The organisers' published totals are reproduced from unrounded
//! track scores ("Prompt": 0.4·0.7307 + 0.6·0.6838 = 0.70256 → published 0.7025).
//!
//! Comments must have at most [`MAX_COMMENT_CHARS`] Unicode characters (`char`s, i.e. code
//! points, which is what Python's `len` counts). The "no sensitive content" rule needs a person:
//! scorebench does not judge it.

use serde::Deserialize;

use super::format::Comment;
use crate::error::{InputError, MetricError};
use crate::report::{InputFile, MetricValue, Metrics, Overall, Report, Subset, Warning};

/// The comment length limit of Track 2, in Unicode characters.
pub const MAX_COMMENT_CHARS: usize = 250;

/// Rows (`track2_inputs` + `leaderboard_track_scores`) a `--track2` file may have: each row is a
/// subset of the report (~1 KB in memory and ~200 bytes of JSON), so the report grows faster
/// than the file; a real file lists a few teams.
pub const MAX_TRACK2_ROWS: usize = 100_000;

/// The three Track 2 inputs of one submission.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct Track2Inputs {
    /// Perplexity of the comments under baichuan-7b-chat (> 0).
    pub ppl: f64,
    /// BERTScore against the gold comments (0..1).
    pub bertscore: f64,
    /// Human score (0..100).
    pub human: f64,
}

/// `0.10·((1/PPL − 0.02)/0.18) + 0.40·BERTScore + 0.5·human/100`; PPL must be positive and
/// every input finite.
pub fn track2_score(inputs: &Track2Inputs) -> Result<f64, MetricError> {
    let Track2Inputs {
        ppl,
        bertscore,
        human,
    } = *inputs;
    if !(ppl.is_finite() && bertscore.is_finite() && human.is_finite()) {
        return Err(MetricError::undefined(
            "every Track 2 input must be a finite number",
        ));
    }
    if ppl <= 0.0 {
        return Err(MetricError::undefined(format!(
            "perplexity must be positive, found {ppl}"
        )));
    }
    Ok(0.10 * ((1.0 / ppl - 0.02) / 0.18) + 0.40 * bertscore + 0.5 * human / 100.0)
}

/// The leaderboard total `0.4·Track1 + 0.6·Track2` (pass unrounded track scores).
pub fn leaderboard_total(track1: f64, track2: f64) -> f64 {
    0.4 * track1 + 0.6 * track2
}

/// One warning per comment longer than [`MAX_COMMENT_CHARS`] characters or empty, naming the id.
pub fn check_comments(file: &str, comments: &[Comment]) -> Vec<Warning> {
    comments
        .iter()
        .filter_map(|c| {
            let chars = c.comment.chars().count();
            let message = if chars > MAX_COMMENT_CHARS {
                format!(
                    "id {}: comment has {chars} characters, the limit is {MAX_COMMENT_CHARS}",
                    c.id
                )
            } else if c.comment.trim().is_empty() {
                format!("id {}: comment is empty", c.id)
            } else {
                return None;
            };
            Some(Warning {
                path: file.to_string(),
                line: Some(c.record),
                message,
            })
        })
        .collect()
}

/// A report on a Track 2 submission's comments alone (`variant = "comments"`): `n` comments,
/// `comments_over_limit`, `empty_comments`, `max_comment_chars`, and one warning per problem.
pub fn comments_report(input: InputFile, comments: &[Comment]) -> Report {
    let lengths: Vec<usize> = comments.iter().map(|c| c.comment.chars().count()).collect();
    let count = |n: usize| MetricValue::Scalar(Some(n as f64));
    let mut metrics = Metrics::new();
    metrics.insert(
        "comments_over_limit".into(),
        count(lengths.iter().filter(|&&n| n > MAX_COMMENT_CHARS).count()),
    );
    metrics.insert(
        "empty_comments".into(),
        count(
            comments
                .iter()
                .filter(|c| c.comment.trim().is_empty())
                .count(),
        ),
    );
    metrics.insert(
        "max_comment_chars".into(),
        MetricValue::Scalar(lengths.iter().max().map(|&n| n as f64)),
    );
    let warnings = check_comments(&input.path, comments);
    Report {
        benchmark: "eotgc".into(),
        variant: "comments".into(),
        inputs: vec![input],
        overall: Overall {
            n: comments.len(),
            metrics,
        },
        subsets: Vec::new(),
        samples: None,
        warnings,
    }
}

/// The `--track2` input file: Track 2 inputs and/or track scores to combine.
///
/// ```text
/// {"track2_inputs": [{"team"?: "…", "ppl": 5.0, "bertscore": 0.7, "human": 80.0}, …],
///  "leaderboard_track_scores": [{"team"?: "…", "track1": 0.7822, "track2": 0.6702}, …]}
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Track2File {
    #[serde(default)]
    pub track2_inputs: Vec<Track2Row>,
    #[serde(default)]
    pub leaderboard_track_scores: Vec<TotalRow>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Track2Row {
    #[serde(default, alias = "name")]
    pub team: Option<String>,
    #[serde(flatten)]
    pub inputs: Track2Inputs,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct TotalRow {
    #[serde(default, alias = "name")]
    pub team: Option<String>,
    pub track1: f64,
    pub track2: f64,
}

/// Parse a `--track2` input file (see [`Track2File`]).
pub fn parse_track2_file<'a>(
    file: &str,
    text: impl Into<crate::text::Text<'a>>,
) -> Result<Track2File, InputError> {
    let text = text
        .into()
        .strip_bom()
        .map_err(|e| crate::text::read_error(file, &e))?;
    let parsed: Track2File = text.parse_json().map_err(|e| {
        InputError::new(
            file,
            (e.line() > 0).then_some(e.line()),
            format!("expected {{\"track2_inputs\": [{{ppl, bertscore, human}}], \"leaderboard_track_scores\": [{{team, track1, track2}}]}}: {e}"),
        )
    })?;
    let rows = parsed.track2_inputs.len() + parsed.leaderboard_track_scores.len();
    if rows > MAX_TRACK2_ROWS {
        return Err(InputError::whole_file(
            file,
            format!(
                "{rows} rows: a Track 2 file holds the numbers of a few submissions, each \
                 becoming a subset of the report; at most {MAX_TRACK2_ROWS} rows are scored"
            ),
        ));
    }
    if parsed.track2_inputs.is_empty() && parsed.leaderboard_track_scores.is_empty() {
        return Err(InputError::whole_file(
            file,
            "no `track2_inputs` and no `leaderboard_track_scores`",
        ));
    }
    Ok(parsed)
}

fn scalar(value: f64) -> MetricValue {
    MetricValue::Scalar(Some(value).filter(|v| v.is_finite()))
}

/// Score a `--track2` file: one subset per row (`track2: <team>` or `track2 #<i>`, then
/// `total: <team>` or `total #<i>`), each echoing its inputs. `overall` carries `track2_score`
/// when the file has exactly one Track 2 row and `total` when it has exactly one totals row.
/// An invalid Track 2 input (PPL ≤ 0, non-finite) is an error naming the row.
pub fn score_track2_file(input: InputFile, parsed: &Track2File) -> Result<Report, InputError> {
    let file = input.path.clone();
    let mut subsets = Vec::new();
    let mut overall = Metrics::new();
    for (index, row) in parsed.track2_inputs.iter().enumerate() {
        let score = track2_score(&row.inputs)
            .map_err(|e| InputError::whole_file(&file, format!("track2_inputs[{index}]: {e}")))?;
        let mut metrics = Metrics::new();
        metrics.insert("ppl".into(), scalar(row.inputs.ppl));
        metrics.insert("bertscore".into(), scalar(row.inputs.bertscore));
        metrics.insert("human".into(), scalar(row.inputs.human));
        metrics.insert("track2_score".into(), scalar(score));
        let name = match &row.team {
            Some(team) => format!("track2: {team}"),
            None => format!("track2 #{}", index + 1),
        };
        if parsed.track2_inputs.len() == 1 {
            overall.insert("track2_score".into(), scalar(score));
        }
        subsets.push(Subset {
            name,
            n: 1,
            metrics,
        });
    }
    for (index, row) in parsed.leaderboard_track_scores.iter().enumerate() {
        if !(row.track1.is_finite() && row.track2.is_finite()) {
            return Err(InputError::whole_file(
                &file,
                format!("leaderboard_track_scores[{index}]: track scores must be finite numbers"),
            ));
        }
        let total = leaderboard_total(row.track1, row.track2);
        let mut metrics = Metrics::new();
        metrics.insert("track1".into(), scalar(row.track1));
        metrics.insert("track2".into(), scalar(row.track2));
        metrics.insert("total".into(), scalar(total));
        let name = match &row.team {
            Some(team) => format!("total: {team}"),
            None => format!("total #{}", index + 1),
        };
        if parsed.leaderboard_track_scores.len() == 1 {
            overall.insert("total".into(), scalar(total));
        }
        subsets.push(Subset {
            name,
            n: 1,
            metrics,
        });
    }
    Ok(Report {
        benchmark: "eotgc".into(),
        variant: "track2".into(),
        inputs: vec![input],
        overall: Overall {
            n: subsets.len(),
            metrics: overall,
        },
        subsets,
        samples: None,
        warnings: Vec::new(),
    })
}

/// One submission's Track 2 numbers, the file a Track 1 submission carries to be ranked by the
/// total (`score eotgc --gold … PRED --track2-scores FILE`, a board entry's file):
///
/// ```text
/// {"ppl": 12.3, "bertscore": 0.681, "human": 75.5}        (an optional "team" or "model")
/// ```
/// PPL, BERTScore and the human score come from models and people: they are taken as given.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Track2Scores {
    #[serde(default, alias = "model", alias = "name")]
    pub team: Option<String>,
    pub ppl: f64,
    pub bertscore: f64,
    pub human: f64,
}

impl Track2Scores {
    pub fn inputs(&self) -> Track2Inputs {
        Track2Inputs {
            ppl: self.ppl,
            bertscore: self.bertscore,
            human: self.human,
        }
    }
}

/// Parse a [`Track2Scores`] file; the Track 2 score must be defined (PPL > 0, finite inputs).
pub fn parse_track2_scores<'a>(
    file: &str,
    text: impl Into<crate::text::Text<'a>>,
) -> Result<Track2Scores, InputError> {
    let text = text
        .into()
        .strip_bom()
        .map_err(|e| crate::text::read_error(file, &e))?;
    let parsed: Track2Scores = text.parse_json().map_err(|e| {
        InputError::new(
            file,
            (e.line() > 0).then_some(e.line()),
            format!("expected one submission's Track 2 numbers {{\"ppl\", \"bertscore\", \"human\"}}: {e}"),
        )
    })?;
    track2_score(&parsed.inputs()).map_err(|e| InputError::whole_file(file, e.to_string()))?;
    Ok(parsed)
}

/// Add a submission's Track 2 numbers to its Track 1 report: `overall` gains `ppl`,
/// `bertscore`, `human`, `track2` (the Track 2 score) and `total` = 0.4·`score` + 0.6·`track2`
/// from the unrounded scores (`null` with a warning when the Track 1 score is), and `inputs` the
/// file.
pub fn add_track2(
    report: &mut Report,
    input: InputFile,
    scores: &Track2Scores,
) -> Result<(), InputError> {
    let track2 = track2_score(&scores.inputs())
        .map_err(|e| InputError::whole_file(&input.path, e.to_string()))?;
    let track1 = match report.overall.metrics.get("score") {
        Some(MetricValue::Scalar(v)) => *v,
        _ => None,
    };
    if track1.is_none() {
        report.warnings.push(Warning {
            path: input.path.clone(),
            line: None,
            message: "total is null because the Track 1 score is (see the warning on pearson)"
                .into(),
        });
    }
    let metrics = &mut report.overall.metrics;
    metrics.insert("ppl".into(), scalar(scores.ppl));
    metrics.insert("bertscore".into(), scalar(scores.bertscore));
    metrics.insert("human".into(), scalar(scores.human));
    metrics.insert("track2".into(), scalar(track2));
    metrics.insert(
        "total".into(),
        MetricValue::Scalar(track1.map(|t1| leaderboard_total(t1, track2))),
    );
    report.inputs.push(input);
    Ok(())
}

/// A report on one submission's Track 2 scores alone (`variant = "track2"`): `overall` holds
/// `ppl`, `bertscore`, `human` and `track2`.
pub fn track2_scores_report(input: InputFile, scores: &Track2Scores) -> Result<Report, InputError> {
    let track2 = track2_score(&scores.inputs())
        .map_err(|e| InputError::whole_file(&input.path, e.to_string()))?;
    let mut metrics = Metrics::new();
    metrics.insert("ppl".into(), scalar(scores.ppl));
    metrics.insert("bertscore".into(), scalar(scores.bertscore));
    metrics.insert("human".into(), scalar(scores.human));
    metrics.insert("track2".into(), scalar(track2));
    Ok(Report {
        benchmark: "eotgc".into(),
        variant: "track2".into(),
        inputs: vec![input],
        overall: Overall { n: 1, metrics },
        subsets: Vec::new(),
        samples: None,
        warnings: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_track2_file_over_the_row_limit_is_refused_with_its_row_count() {
        let row = r#"{"ppl": 12.3, "bertscore": 0.681, "human": 75.5}"#;
        let file = |n: usize| format!("{{\"track2_inputs\": [{}]}}", vec![row; n].join(","));
        let at_limit = parse_track2_file("t2.json", file(MAX_TRACK2_ROWS).as_str()).unwrap();
        assert_eq!(at_limit.track2_inputs.len(), MAX_TRACK2_ROWS);
        let over = parse_track2_file("t2.json", file(MAX_TRACK2_ROWS + 1).as_str()).unwrap_err();
        assert_eq!(over.path, "t2.json");
        assert!(
            over.message.starts_with("100001 rows: "),
            "{}",
            over.message
        );
    }

    #[test]
    fn a_submissions_track2_scores_add_track2_and_the_total() {
        let scores = parse_track2_scores(
            "t2.json",
            r#"{"team": "Prompt", "ppl": 12.3, "bertscore": 0.681, "human": 75.5}"#,
        )
        .unwrap();
        let mut report = Report {
            benchmark: "eotgc".into(),
            variant: "official".into(),
            inputs: Vec::new(),
            overall: Overall {
                n: 3,
                metrics: [("score".to_string(), MetricValue::Scalar(Some(0.7307)))]
                    .into_iter()
                    .collect(),
            },
            subsets: Vec::new(),
            samples: None,
            warnings: Vec::new(),
        };
        let input = InputFile::from_bytes("t2.json", b"x");
        add_track2(&mut report, input.clone(), &scores).unwrap();
        fn get(report: &Report, k: &str) -> Option<f64> {
            match report.overall.metrics.get(k) {
                Some(MetricValue::Scalar(v)) => *v,
                _ => panic!("{k}"),
            }
        }
        // Python: 0.10*((1/12.3-0.02)/0.18) + 0.40*0.681 + 0.5*75.5/100 == 0.683956007226739
        assert_eq!(get(&report, "track2"), Some(0.683956007226739));
        // Python: 0.4*0.7307 + 0.6*0.683956007226739 == 0.7026536043360434
        assert_eq!(get(&report, "total"), Some(0.7026536043360434));
        assert_eq!(report.inputs, vec![input.clone()]);
        // An undefined Track 1 score leaves the total null, with a warning naming the file.
        report
            .overall
            .metrics
            .insert("score".into(), MetricValue::Scalar(None));
        add_track2(&mut report, input, &scores).unwrap();
        assert_eq!(get(&report, "total"), None);
        assert_eq!(report.warnings[0].path, "t2.json");
        // Bad files name the file; PPL must be positive; unknown keys are refused.
        for bad in [
            r#"{"ppl": 0, "bertscore": 0.6, "human": 60}"#,
            r#"{"ppl": 5, "bertscore": 0.6}"#,
            r#"{"ppl": 5, "bertscore": 0.6, "human": 60, "bleu": 1}"#,
            r#"[{"ppl": 5, "bertscore": 0.6, "human": 60}]"#,
        ] {
            let e = parse_track2_scores("t2.json", bad).unwrap_err();
            assert_eq!(e.path, "t2.json", "{bad}");
        }
    }

    #[test]
    fn track2_reference_values() {
        // Python: 0.10*((1/12.3-0.02)/0.18) + 0.40*0.681 + 0.5*75.5/100 == 0.683956007226739
        let s = track2_score(&Track2Inputs {
            ppl: 12.3,
            bertscore: 0.681,
            human: 75.5,
        })
        .unwrap();
        assert!((s - 0.683956007226739).abs() < 1e-15, "{s}");
        // Python: 0.10*((1/100-0.02)/0.18) + 0.40*0.6 + 0.5*60/100 == 0.5344444444444444
        let s = track2_score(&Track2Inputs {
            ppl: 100.0,
            bertscore: 0.6,
            human: 60.0,
        })
        .unwrap();
        assert!((s - 0.5344444444444444).abs() < 1e-15, "{s}");
        assert!(
            track2_score(&Track2Inputs {
                ppl: 0.0,
                bertscore: 0.6,
                human: 60.0
            })
            .is_err()
        );
        assert!(
            track2_score(&Track2Inputs {
                ppl: f64::NAN,
                bertscore: 0.6,
                human: 60.0
            })
            .is_err()
        );
        // Python: 0.4*0.7307 + 0.6*0.6838 == 0.7025600000000001
        assert!((leaderboard_total(0.7307, 0.6838) - 0.7025600000000001).abs() < 1e-15);
    }

    #[test]
    fn comment_length_counts_characters_not_bytes() {
        let c = |id: &str, comment: String| Comment {
            id: id.into(),
            comment,
            record: 1,
        };
        let comments = [
            c("ok", "好".repeat(250)),
            c("long", "好".repeat(251)),
            c("empty", "  ".into()),
            c("ascii", "a".repeat(250)),
        ];
        let warnings = check_comments("c.json", &comments);
        let messages: Vec<&str> = warnings.iter().map(|w| w.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "id long: comment has 251 characters, the limit is 250",
                "id empty: comment is empty"
            ]
        );
        let report = comments_report(InputFile::from_bytes("c.json", b""), &comments);
        assert_eq!(report.overall.n, 4);
        assert_eq!(
            report.metric("overall", "comments_over_limit"),
            Some(&MetricValue::Scalar(Some(1.0)))
        );
        assert_eq!(
            report.metric("overall", "empty_comments"),
            Some(&MetricValue::Scalar(Some(1.0)))
        );
        assert_eq!(
            report.metric("overall", "max_comment_chars"),
            Some(&MetricValue::Scalar(Some(251.0)))
        );
        assert_eq!(report.warnings.len(), 2);
    }

    #[test]
    fn track2_file_rows_become_subsets() {
        let parsed = parse_track2_file(
            "t2.json",
            r#"{"track2_inputs": [{"ppl": 5.0, "bertscore": 0.7, "human": 80.0}],
                "leaderboard_track_scores": [{"team": "A", "track1": 0.5, "track2": 0.25}]}"#,
        )
        .unwrap();
        let report = score_track2_file(InputFile::from_bytes("t2.json", b""), &parsed).unwrap();
        let names: Vec<&str> = report.subsets.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["track2 #1", "total: A"]);
        // Python: 0.4*0.5 + 0.6*0.25 == 0.35
        assert_eq!(
            report.metric("overall", "total"),
            Some(&MetricValue::Scalar(Some(0.35)))
        );
        assert!(parse_track2_file("t2.json", "{}").is_err());
        assert!(parse_track2_file("t2.json", r#"{"track2_inputs": [{"ppl": 1}]}"#).is_err());
        let bad = parse_track2_file(
            "t2.json",
            r#"{"track2_inputs": [{"ppl": -1, "bertscore": 0.5, "human": 50}]}"#,
        )
        .unwrap();
        let e = score_track2_file(InputFile::from_bytes("t2.json", b""), &bad).unwrap_err();
        assert!(e.to_string().contains("track2_inputs[0]"), "{e}");
    }
}
