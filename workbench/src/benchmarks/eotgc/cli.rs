//! `scorebench score eotgc …`: NLPCC 2025 EOTGC.
//!
//! ```text
//! scorebench score eotgc --gold GOLD.json PRED.json [--comments COMMENTS.json]   Track 1
//!     [--track2-scores SCORES.json]      + the submission's Track 2 score and the total
//! scorebench score eotgc --track2 INPUT.json [--comments COMMENTS.json]         Track 2, totals
//! scorebench score eotgc --comments COMMENTS.json                               comment check
//! ```
//! Comment problems (over 250 characters, empty) are warnings naming the id.

use metrics_core::Report;
use metrics_core::eotgc;

use crate::cli::{Arg, Command, Host, Kind, ScoreError, Values};

pub static COMMAND: Command = Command {
    about: "NLPCC 2025 EOTGC Track 1 (ACC_A, Pearson, Score), Track 2 and the leaderboard total",
    args: &[
        Arg::new(
            "pred",
            "Track 1 submission: a JSON array of {\"id\", \"classification\"} (needs --gold)",
            Kind::File {
                positional: true,
                required: false,
                many: false,
            },
        ),
        Arg {
            requires: &["pred"],
            ..Arg::option(
                "gold",
                "Gold/test file: a JSON array of {\"id\", \"grade\", \"requirement\", \"title\", \"content\", \"classification\"}",
            )
        },
        Arg {
            conflicts: &["gold", "pred"],
            ..Arg::option(
                "track2",
                "Track 2 inputs: {\"track2_inputs\": [{ppl, bertscore, human}], \"leaderboard_track_scores\": [{team, track1, track2}]}",
            )
        },
        Arg {
            requires: &["gold"],
            value_name: Some("SCORES"),
            ..Arg::option(
                "track2_scores",
                "The submission's Track 2 numbers {\"ppl\", \"bertscore\", \"human\"}: adds `track2` and the leaderboard `total` (0.4·score + 0.6·track2) to the Track 1 report",
            )
        },
        Arg::option(
            "comments",
            "Track 2 submission [{\"id\", \"comment\"}]: warn about comments over 250 characters or empty",
        ),
    ],
    run,
};

fn run(args: &Values, host: &dyn Host) -> Result<Report, ScoreError> {
    let comments = match args.path("comments") {
        Some(path) => {
            let (comments, input) = host
                .open(path)?
                .read(|name, text| eotgc::parse_comments(name, text))?;
            Some(eotgc::comments_report(input, &comments))
        }
        None => None,
    };
    let mut report = match (args.path("gold"), args.path("pred"), args.path("track2")) {
        (Some(gold), Some(pred), None) => {
            // eotgc::score_track1, with both files read as streams (only the records are
            // kept).
            let (gold, pred) = (host.open(gold)?, host.open(pred)?);
            let (gold_name, pred_name) = (gold.name.clone(), pred.name.clone());
            // The essays' texts and gold comments are not in the report (requirement and
            // title are, in the samples): drop them as they are read.
            let samples = args.samples;
            let (essays, gold_input) = gold.read(|name, text| {
                eotgc::parse_gold_with(name, text, |essay| {
                    essay.content = String::new();
                    essay.comment = None;
                    if !samples {
                        essay.requirement = String::new();
                        essay.title = String::new();
                    }
                })
            })?;
            let (predictions, pred_input) =
                pred.read(|name, text| eotgc::parse_predictions(name, text))?;
            let inputs = vec![gold_input, pred_input];
            let judged = eotgc::join(&gold_name, &essays, &pred_name, &predictions)?;
            let mut report = eotgc::track1_report_with(inputs, &pred_name, &judged, samples)?;
            if let Some(path) = args.path("track2_scores") {
                let (scores, input) = host
                    .open(path)?
                    .read(|name, text| eotgc::parse_track2_scores(name, text))?;
                eotgc::add_track2(&mut report, input, &scores)?;
            }
            report
        }
        (None, None, Some(track2)) => {
            let (parsed, input) = host
                .open(track2)?
                .read(|name, text| eotgc::parse_track2_file(name, text))?;
            eotgc::score_track2_file(input, &parsed)?
        }
        (None, None, None) => {
            return comments.ok_or_else(|| {
                ScoreError::Usage(
                    "expected --gold GOLD.json PRED.json, --track2 INPUT.json or --comments COMMENTS.json".into(),
                )
            });
        }
        _ => {
            return Err(ScoreError::Usage(
                "a Track 1 submission needs --gold GOLD.json".into(),
            ));
        }
    };
    if let Some(comments) = comments {
        report.inputs.extend(comments.inputs);
        report.warnings.extend(comments.warnings);
    }
    Ok(report)
}
