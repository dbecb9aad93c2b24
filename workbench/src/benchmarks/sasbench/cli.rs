//! `scorebench score sasbench …`: read the files, hand names and texts to
//! `metrics_core::sasbench`, return its report.
//!
//! ```text
//! scorebench score sasbench --taxonomy error_type.jsonl A_prediction.jsonl [B…] [--json]
//! scorebench score sasbench --dataset DATASET_DIR A_scored.jsonl [B…] [--json]
//!     (step 2 first; gold from DATASET_DIR/<stem>.jsonl, taxonomy DATASET_DIR/error_type.jsonl)
//! --variant official|corrected    --timing (read+parse/score milliseconds on stderr)
//! ```

use metrics_core::sasbench::{self, Taxonomy, Variant, format, subset_name};
use metrics_core::{InputError, Report};

use crate::cli::{Arg, Command, Host, Opened, ScoreError, Values};

pub static COMMAND: Command = Command {
    about: "SAS-Bench: QWK, CCS, ECS per prediction file",
    args: &[
        Arg::files(
            "files",
            "Processed `*_prediction.jsonl` files, or raw `*_scored.jsonl` files with --dataset",
        ),
        Arg {
            conflicts: &["dataset"],
            ..Arg::option(
                "taxonomy",
                "The error taxonomy (`error_type.jsonl`) for prediction files",
            )
        },
        Arg::option(
            "dataset",
            "The dataset directory (gold `<stem>.jsonl` files and `error_type.jsonl`) for raw files",
        ),
        Arg::variant(
            "`official` (the published numbers, quirks included) or `corrected`",
            &[("official", ""), ("corrected", "")],
        ),
        Arg::flag("timing", "Print read/score times in milliseconds on stderr"),
    ],
    run,
};

fn run(args: &Values, host: &dyn Host) -> Result<Report, ScoreError> {
    let variant = Variant::from_name(args.choice("variant")).ok_or_else(|| {
        ScoreError::Usage(format!(
            "unknown variant {:?}: expected official or corrected",
            args.choice("variant")
        ))
    })?;
    let started = host.millis();
    // The taxonomy is small and read whole; the prediction, dataset and raw files are opened
    // first (so a missing one is named before any parsing) and then read as streams, one
    // after the other, keeping only their records.
    let taxonomy_file = match (args.path("taxonomy"), args.path("dataset")) {
        (Some(taxonomy), None) => host.load(taxonomy)?,
        (None, Some(dir)) => host.load(&dir.join("error_type.jsonl"))?,
        _ => {
            return Err(ScoreError::Usage(
                "give --taxonomy error_type.jsonl with *_prediction.jsonl files, or --dataset DIR with *_scored.jsonl files".into(),
            ));
        }
    };
    let mut files = Vec::new();
    match args.path("dataset") {
        None => {
            for p in args.paths("files") {
                files.push(Inputs::Prediction(host.open(p)?));
            }
        }
        Some(dir) => {
            for scored in args.paths("files") {
                let stem = subset_name(&scored.display().to_string());
                files.push(Inputs::Raw {
                    dataset: host.open(&dir.join(format!("{stem}.jsonl")))?,
                    scored: host.open(scored)?,
                });
            }
        }
    }
    let taxonomy_text = taxonomy_file.text()?;
    if taxonomy_text.trim().is_empty() {
        return Err(ScoreError::Input(InputError::whole_file(
            &taxonomy_file.name,
            "the taxonomy is empty: expected error_type.jsonl lines \
             ({\"q_id\": …, \"errors\": […]} per subset)",
        )));
    }
    let taxonomy = Taxonomy::parse(&taxonomy_file.name, taxonomy_text)?;
    let mut inputs = vec![taxonomy_file.input_file()];
    drop(taxonomy_file);
    let mut parsed = Vec::with_capacity(files.len());
    for file in files {
        match file {
            Inputs::Prediction(file) => {
                let name = file.name.clone();
                let (responses, input) =
                    file.read(|name, text| format::parse_predictions(name, text))?;
                inputs.push(input);
                parsed.push((name, responses));
            }
            Inputs::Raw { dataset, scored } if !dataset.is_regular() => {
                // A gold file that cannot be read twice (a FIFO) is read whole.
                let dataset = host.load(&dataset.path())?;
                let gold_text = dataset.text()?;
                let (responses, scored_input) = scored.read(|name, text| {
                    let gold = sasbench::gold_steps(&dataset.name, gold_text)?;
                    let predictions = sasbench::predict_replies(&gold, name, text)?;
                    sasbench::responses_with(&dataset.name, gold_text, &predictions)
                })?;
                parsed.push((scored_input.path.clone(), responses));
                inputs.extend([dataset.input_file(), scored_input]);
            }
            Inputs::Raw { dataset, scored } => {
                // Step 2 (sasbench::process_raw_file) as three streamed reads: the gold
                // records' step counts, the replies → predictions, the gold records again →
                // responses.
                let name = scored.name.clone();
                let dataset_path = dataset.path();
                let (gold, dataset_input) =
                    dataset.read(|name, text| sasbench::gold_steps(name, text))?;
                let (predictions, scored_input) =
                    scored.read(|name, text| sasbench::predict_replies(&gold, name, text))?;
                let (responses, _) = host
                    .open(&dataset_path)?
                    .read(|name, text| sasbench::responses_with(name, text, &predictions))?;
                inputs.extend([dataset_input, scored_input]);
                parsed.push((name, responses));
            }
        }
    }
    let read_ms = host.millis() - started;
    let files: Vec<(&str, &[sasbench::Response])> = parsed
        .iter()
        .map(|(name, responses)| (name.as_str(), responses.as_slice()))
        .collect();
    let report = sasbench::report_from_responses(&taxonomy, &files, inputs, variant, args.samples)?;
    if args.flag("timing") {
        let total_ms = host.millis() - started;
        host.note(&format!(
            "timing: read+parse {read_ms:.2} ms, score {:.2} ms",
            total_ms - read_ms
        ));
    }
    Ok(report)
}

/// The files of one subset, opened.
enum Inputs {
    Prediction(Opened),
    Raw { dataset: Opened, scored: Opened },
}
