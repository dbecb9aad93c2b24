//! `scorebench score eotgc …`: NLPCC 2025 EOTGC.
//!
//! ```text
//! scorebench score eotgc --gold GOLD.json PRED.json [--comments COMMENTS.json]   Track 1
//! scorebench score eotgc --track2 INPUT.json [--comments COMMENTS.json]         Track 2, totals
//! scorebench score eotgc --comments COMMENTS.json                               comment check
//! ```
//! Comment problems (over 250 characters, empty) are warnings naming the id.

use std::path::PathBuf;

use clap::Args;
use metrics_core::Report;
use metrics_core::eotgc;

use super::{ScoreError, load};

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
    /// Track 2 submission [{"id", "comment"}]: warn about comments over 250 characters or empty
    #[arg(long)]
    comments: Option<PathBuf>,
}

pub fn report(args: EotgcArgs) -> Result<Report, ScoreError> {
    let comments = match &args.comments {
        Some(path) => {
            let file = load(path)?;
            let comments = eotgc::parse_comments(&file.name, file.text()?)?;
            Some(eotgc::comments_report(file.input_file(), &comments))
        }
        None => None,
    };
    let mut report = match (&args.gold, &args.pred, &args.track2) {
        (Some(gold), Some(pred), None) => {
            // eotgc::score_track1, with the texts freed once parsed (the report's samples
            // then take their place, not add to them).
            let (gold, pred) = (load(gold)?, load(pred)?);
            let (gold_text, pred_text) = (gold.text()?, pred.text()?);
            let essays = eotgc::parse_gold(&gold.name, gold_text)?;
            let predictions = eotgc::parse_predictions(&pred.name, pred_text)?;
            let inputs = vec![gold.input_file(), pred.input_file()];
            let (gold_name, pred_name) = (gold.name.clone(), pred.name.clone());
            drop((gold, pred));
            let judged = eotgc::join(&gold_name, &essays, &pred_name, &predictions)?;
            eotgc::track1_report(inputs, &pred_name, &judged)?
        }
        (None, None, Some(track2)) => {
            let file = load(track2)?;
            let parsed = eotgc::parse_track2_file(&file.name, file.text()?)?;
            eotgc::score_track2_file(file.input_file(), &parsed)?
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

pub const COMMAND: super::Command<EotgcArgs> = super::Command {
    key: "eotgc",
    about: "NLPCC 2025 EOTGC Track 1 (ACC_A, Pearson, Score), Track 2 and the total",
    run: report,
};
