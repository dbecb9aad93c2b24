//! `scorebench score asap-aes --gold GOLD.tsv PRED.csv [--variant corrected]`

use std::path::PathBuf;

use clap::Args;
use metrics_core::Report;
use metrics_core::asap_aes::{self, Variant};

use super::{ScoreError, load};

#[derive(Args)]
pub struct AsapAesArgs {
    /// Predictions: CSV (or TSV) with `essay_id` (or Kaggle's `prediction_id`) and `predicted_score`
    pred: PathBuf,
    /// The gold essays: the Kaggle release TSV (training_set_rel3.tsv layout, Latin-1)
    #[arg(long)]
    gold: PathBuf,
    /// `official` (the Kaggle metric: truncated predictions, observed range) or `corrected`
    /// (rounded, clipped predictions over the declared range)
    #[arg(long, default_value = "official", value_parser = ["official", "corrected"])]
    variant: String,
    /// `score --samples` (global): per-essay results in the report
    #[arg(from_global)]
    samples: bool,
}

pub fn report(args: AsapAesArgs) -> Result<Report, ScoreError> {
    let variant = Variant::from_name(&args.variant)
        .ok_or_else(|| ScoreError::Usage(format!("unknown variant {}", args.variant)))?;
    let gold_file = load(&args.gold)?;
    let pred_file = load(&args.pred)?;
    let gold = asap_aes::parse_gold(&gold_file.name, &gold_file.bytes)?;
    let predictions = asap_aes::parse_predictions(&pred_file.name, pred_file.text()?)?;
    let essays = asap_aes::join(&gold_file.name, &gold, &pred_file.name, &predictions)?;
    Ok(asap_aes::score(
        vec![gold_file.input_file(), pred_file.input_file()],
        &gold_file.name,
        &essays,
        variant,
        args.samples,
    ))
}

pub const COMMAND: super::Command<AsapAesArgs> = super::Command {
    key: "asap-aes",
    about: "ASAP-AES essay scoring: QWK per essay set, Kaggle's Fisher-z mean (mean_qwk_fisher), mean_qwk",
    run: report,
};
