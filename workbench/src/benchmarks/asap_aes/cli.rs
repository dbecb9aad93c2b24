//! `scorebench score asap-aes --gold GOLD.tsv PRED.csv [--variant corrected]`

use metrics_core::Report;
use metrics_core::asap_aes::{self, Variant};

use crate::cli::{Arg, Command, Host, ScoreError, Values};

pub static COMMAND: Command = Command {
    about: "ASAP-AES essay scoring: QWK per essay set, Kaggle's Fisher-z mean (mean_qwk_fisher), mean_qwk",
    args: &[
        Arg::file(
            "pred",
            "Predictions: CSV (or TSV) with `essay_id` (or Kaggle's `prediction_id`) and `predicted_score`",
        ),
        Arg::required_option(
            "gold",
            "The gold essays: the Kaggle release TSV (training_set_rel3.tsv layout, Latin-1)",
        ),
        Arg::variant(
            "`official` (the Kaggle metric: truncated predictions, observed range) or `corrected` (rounded, clipped predictions over the declared range)",
            &[("official", ""), ("corrected", "")],
        ),
    ],
    run,
};

fn run(args: &Values, host: &dyn Host) -> Result<Report, ScoreError> {
    let variant = Variant::from_name(args.choice("variant"))
        .ok_or_else(|| ScoreError::Usage(format!("unknown variant {}", args.choice("variant"))))?;
    // The gold file (the essays: the big one) is read as a stream, keeping no essay text (the
    // report does not show it); the predictions are small and read whole.
    let gold = host.open(args.required("gold")?)?;
    let pred = host.load(args.required("pred")?)?;
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
