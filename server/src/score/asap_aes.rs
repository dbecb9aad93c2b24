//! `scorebench score asap-aes --gold GOLD.tsv PRED.csv [--variant corrected]`

use std::path::PathBuf;

use clap::Args;
use metrics_core::Report;
use metrics_core::asap_aes::{self, Variant};

use super::files::{ScoreError, load, open};

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
    // The gold file (the essays: the big one) is read as a stream, keeping no essay text (the
    // report does not show it); the predictions are small and read whole.
    let gold = open(&args.gold)?;
    let pred = load(&args.pred)?;
    let gold_name = gold.name.clone();
    let (gold_essays, gold_input) = gold.read_bytes(|name, text| {
        asap_aes::format::parse_gold_from(name, text.into_reader(), false)
    })?;
    let predictions = asap_aes::parse_predictions(&pred.name, &pred.bytes)?;
    let essays = asap_aes::join(&gold_name, gold_essays, &pred.name, &predictions)?;
    Ok(asap_aes::report(
        &essays,
        vec![gold_input, pred.input_file()],
        &pred.name,
        variant,
        args.samples,
    ))
}

pub const COMMAND: super::command::Command<AsapAesArgs> = super::command::Command {
    key: "asap-aes",
    about: "ASAP-AES essay scoring: QWK per essay set, Kaggle's Fisher-z mean (mean_qwk_fisher), mean_qwk",
    run: report,
};
