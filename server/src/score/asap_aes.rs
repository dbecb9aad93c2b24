//! `scorebench score asap-aes --gold GOLD.tsv PRED.csv [--variant corrected]`

use std::path::PathBuf;

use clap::Args;
use metrics_core::Report;
use metrics_core::asap_aes::{self, NamedBytes, ReportOptions, Variant};

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
    let gold = load(&args.gold)?;
    let pred = load(&args.pred)?;
    Ok(asap_aes::score_with(
        named(&gold),
        named(&pred),
        variant,
        ReportOptions {
            samples: args.samples,
            input_hashes: true,
        },
    )?)
}

fn named(f: &super::LoadedFile) -> NamedBytes<'_> {
    NamedBytes {
        name: &f.name,
        bytes: &f.bytes,
    }
}

pub const COMMAND: super::Command<AsapAesArgs> = super::Command {
    key: "asap-aes",
    about: "ASAP-AES essay scoring: QWK per essay set, Kaggle's Fisher-z mean (mean_qwk_fisher), mean_qwk",
    run: report,
};
