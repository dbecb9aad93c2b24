//! `scorebench score eotgc …`: NLPCC 2025 EOTGC.
//!
//! ```text
//! scorebench score eotgc --gold GOLD.json PRED.json [--comments COMMENTS.json]   Track 1
//!     [--track2-scores SCORES.json]      + the submission's Track 2 score and the total
//! scorebench score eotgc --track2 INPUT.json [--comments COMMENTS.json]         Track 2, totals
//! scorebench score eotgc --comments COMMENTS.json                               comment check
//! ```
//! Comment problems (over 250 characters, empty) are warnings naming the id.

use std::path::PathBuf;

use clap::Args;
use metrics_core::Report;
use metrics_core::eotgc;

use super::files::{ScoreError, open};

#[derive(Args)]
pub struct EotgcArgs {
    /// Track 1 submission: a JSON array of {"id", "classification"} (needs --gold)
    pred: Option<PathBuf>,
    /// Gold/test file: a JSON array of {"id", "grade", "requirement", "title", "content", "classification"}
    #[arg(long, requires = "pred")]
    gold: Option<PathBuf>,
    /// Track 2 inputs: {"track2_inputs": [{ppl, bertscore, human}], "leaderboard_track_scores": [{team, track1, track2}]}
    #[arg(long, conflicts_with_all = ["gold", "pred"])]
    track2: Option<PathBuf>,
    /// The submission's Track 2 numbers {"ppl", "bertscore", "human"}: adds `track2` and the
    /// leaderboard `total` (0.4·score + 0.6·track2) to the Track 1 report
    #[arg(long, requires = "gold", value_name = "SCORES")]
    track2_scores: Option<PathBuf>,
    /// Track 2 submission [{"id", "comment"}]: warn about comments over 250 characters or empty
    #[arg(long)]
    comments: Option<PathBuf>,
    /// `score --samples` (global): keep the texts the samples show
    #[arg(from_global)]
    samples: bool,
}

pub fn report(args: EotgcArgs) -> Result<Report, ScoreError> {
    let comments = match &args.comments {
        Some(path) => {
            let (comments, input) =
                open(path)?.read(|name, text| eotgc::parse_comments(name, text))?;
            Some(eotgc::comments_report(input, &comments))
        }
        None => None,
    };
    let mut report = match (&args.gold, &args.pred, &args.track2) {
        (Some(gold), Some(pred), None) => {
            // eotgc::score_track1, with both files read as streams (only the records are
            // kept).
            let (gold, pred) = (open(gold)?, open(pred)?);
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
            let mut report = eotgc::track1_report_with(inputs, &pred_name, &judged, args.samples)?;
            if let Some(path) = &args.track2_scores {
                let (scores, input) =
                    open(path)?.read(|name, text| eotgc::parse_track2_scores(name, text))?;
                eotgc::add_track2(&mut report, input, &scores)?;
            }
            report
        }
        (None, None, Some(track2)) => {
            let (parsed, input) =
                open(track2)?.read(|name, text| eotgc::parse_track2_file(name, text))?;
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

pub const COMMAND: super::command::Command<EotgcArgs> = super::command::Command {
    key: "eotgc",
    about: "NLPCC 2025 EOTGC Track 1 (ACC_A, Pearson, Score), Track 2 and the leaderboard total",
    run: report,
};
