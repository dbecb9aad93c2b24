//! `scorebench score pairs FILE [--labels 0,1,2]`

use std::path::PathBuf;

use clap::Args;
use metrics_core::Report;
use metrics_core::pairs::{PairsOptions, parse_pairs_with, score_pairs};

use super::files::{ScoreError, open};

#[derive(Args)]
pub struct PairsArgs {
    /// A JSONL file of {"gold": …, "pred": …} records, or a CSV with gold,pred columns
    file: PathBuf,
    /// Declared label set for QWK, comma-separated (scikit-learn's `labels=`)
    #[arg(long, value_delimiter = ',')]
    labels: Option<Vec<f64>>,
}

pub fn report(args: PairsArgs) -> Result<Report, ScoreError> {
    // Read as a stream: only the pairs are kept, not their lines (the report shows no rows).
    let (pairs, input) =
        open(&args.file)?.read(|name, text| parse_pairs_with(name, text, false))?;
    Ok(score_pairs(
        input,
        &pairs,
        &PairsOptions {
            labels: args.labels,
        },
    ))
}

pub const COMMAND: super::command::Command<PairsArgs> = super::command::Command {
    key: "pairs",
    about: "A generic gold/pred JSONL or CSV file: qwk, pearson, spearman, kendall_tau_b, accuracy",
    run: report,
};
