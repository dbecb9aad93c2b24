//! `scorebench score sasbench …`: read the files, hand names and texts to
//! `metrics_core::sasbench`, return its report.
//!
//! ```text
//! scorebench score sasbench --taxonomy error_type.jsonl A_prediction.jsonl [B…] [--json]
//! scorebench score sasbench --dataset DATASET_DIR A_scored.jsonl [B…] [--json]
//!     (step 2 first; gold from DATASET_DIR/<stem>.jsonl, taxonomy DATASET_DIR/error_type.jsonl)
//! --variant official|corrected    --timing (parse/score milliseconds on stderr)
//! ```

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use metrics_core::sasbench::{
    self, NamedText, RawFile, RawInputs, ReportOptions, SasInputs, Variant, subset_name,
};
use metrics_core::{InputError, Report};

use super::{LoadedFile, ScoreError, load};

#[derive(Args)]
pub struct SasbenchArgs {
    /// Processed `*_prediction.jsonl` files, or raw `*_scored.jsonl` files with --dataset
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The error taxonomy (`error_type.jsonl`) for prediction files
    #[arg(long, conflicts_with = "dataset")]
    taxonomy: Option<PathBuf>,
    /// The dataset directory (gold `<stem>.jsonl` files and `error_type.jsonl`) for raw files
    #[arg(long)]
    dataset: Option<PathBuf>,
    /// `official` (the published numbers, quirks included) or `corrected`
    #[arg(long, default_value = "official", value_parser = ["official", "corrected"])]
    variant: String,
    /// Print read/score times in milliseconds on stderr
    #[arg(long)]
    timing: bool,
    /// `score --samples` (global): build the per-record samples only when they are printed
    #[arg(from_global)]
    samples: bool,
}

fn named(file: &LoadedFile) -> Result<NamedText<'_>, ScoreError> {
    Ok(NamedText {
        name: &file.name,
        text: file.text()?,
    })
}

pub fn report(args: SasbenchArgs) -> Result<Report, ScoreError> {
    let variant = Variant::from_name(&args.variant).ok_or_else(|| {
        ScoreError::Usage(format!(
            "unknown variant {:?}: expected official or corrected",
            args.variant
        ))
    })?;
    let started = Instant::now();
    let options = ReportOptions {
        samples: args.samples,
        // Hashed below on a second thread, while the library scores.
        input_hashes: false,
    };
    // Every input in report order: the taxonomy, then the prediction files or, per raw file,
    // its gold dataset file and the raw file.
    let mut loaded = Vec::new();
    match (&args.taxonomy, &args.dataset) {
        (Some(taxonomy), None) => {
            loaded.push(load(taxonomy)?);
            for p in &args.files {
                loaded.push(load(p)?);
            }
        }
        (None, Some(dir)) => {
            loaded.push(load(&dir.join("error_type.jsonl"))?);
            for scored in &args.files {
                let stem = subset_name(&scored.display().to_string());
                loaded.push(load(&dir.join(format!("{stem}.jsonl")))?);
                loaded.push(load(scored)?);
            }
        }
        _ => {
            return Err(ScoreError::Usage(
                "give --taxonomy error_type.jsonl with *_prediction.jsonl files, or --dataset DIR with *_scored.jsonl files".into(),
            ));
        }
    }
    let read_ms = started.elapsed().as_secs_f64() * 1e3;
    let texts = loaded.iter().map(named).collect::<Result<Vec<_>, _>>()?;
    let (taxonomy, rest) = (texts[0], &texts[1..]);
    if taxonomy.text.trim().is_empty() {
        return Err(ScoreError::Input(InputError::whole_file(
            taxonomy.name,
            "the taxonomy is empty: expected error_type.jsonl lines \
             ({\"q_id\": …, \"errors\": […]} per subset)",
        )));
    }
    let (report, hashes) = std::thread::scope(|scope| {
        let hashes = scope.spawn(|| {
            loaded
                .iter()
                .map(LoadedFile::input_file)
                .collect::<Vec<_>>()
        });
        let report = if args.taxonomy.is_some() {
            let inputs = SasInputs {
                taxonomy,
                predictions: rest.to_vec(),
            };
            sasbench::score_predictions_with(&inputs, variant, options)
        } else {
            let inputs = RawInputs {
                taxonomy,
                files: rest
                    .chunks_exact(2)
                    .map(|pair| RawFile {
                        dataset: pair[0],
                        scored: pair[1],
                    })
                    .collect(),
            };
            sasbench::score_raw_with(&inputs, variant, options)
        };
        (report, hashes.join())
    });
    let mut report = report?;
    report.inputs = match hashes {
        Ok(inputs) => inputs,
        Err(_) => loaded.iter().map(LoadedFile::input_file).collect(),
    };
    if args.timing {
        let total_ms = started.elapsed().as_secs_f64() * 1e3;
        eprintln!(
            "timing: read {read_ms:.2} ms, parse+score {:.2} ms",
            total_ms - read_ms
        );
    }
    Ok(report)
}

pub const COMMAND: super::Command<SasbenchArgs> = super::Command {
    key: "sasbench",
    about: "SAS-Bench: QWK, CCS, ECS per prediction file",
    run: report,
};
