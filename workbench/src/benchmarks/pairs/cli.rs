//! `scorebench score pairs FILE [--labels 0,1,2]`

use metrics_core::Report;
use metrics_core::pairs::{PairsOptions, parse_pairs_with, score_pairs};

use crate::cli::{Arg, Command, Host, Kind, ScoreError, Values};

pub static COMMAND: Command = Command {
    about: "A generic gold/pred JSONL or CSV file: qwk, pearson, spearman, kendall_tau_b, accuracy",
    args: &[
        Arg::file(
            "file",
            "A JSONL file of {\"gold\": …, \"pred\": …} records, or a CSV with gold,pred columns",
        ),
        Arg::new(
            "labels",
            "Declared label set for QWK, comma-separated (scikit-learn's `labels=`)",
            Kind::Numbers,
        ),
    ],
    run,
};

fn run(args: &Values, host: &dyn Host) -> Result<Report, ScoreError> {
    // Read as a stream: only the pairs are kept, not their lines (the report shows no rows).
    let (pairs, input) = host
        .open(args.required("file")?)?
        .read(|name, text| parse_pairs_with(name, text, false))?;
    Ok(score_pairs(
        input,
        &pairs,
        &PairsOptions {
            labels: args.numbers("labels").map(<[f64]>::to_vec),
        },
    ))
}
