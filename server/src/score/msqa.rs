//! `scorebench score msqa …`: MSQA_Short.
//!
//! ```text
//! scorebench score msqa evaluation.json                       official toolkit rule (re-derived)
//! scorebench score msqa FILE --variant paper [--last-5] [--good-questions Q.json]
//! ```
//! `FILE` for the paper rule is an `evaluation.json` or the authors' inference file; the
//! last-5-characters window applies with `--last-5` or when the path contains "Reasoning".

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use metrics_core::Report;
use metrics_core::msqa::{self, paper};

use super::{ScoreError, load};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MsqaVariant {
    /// ScienceEval MSQA_Short run.py (default)
    Official,
    /// The MSQA paper authors' case-sensitive rule (jerry3027/MSQA evaluation.py)
    Paper,
}

#[derive(Args)]
pub struct MsqaArgs {
    /// The toolkit's evaluation.json (or its evaluation.log); for --variant paper also the
    /// authors' inference file
    file: PathBuf,
    /// Which rule to score with
    #[arg(long, value_enum, default_value = "official")]
    variant: MsqaVariant,
    /// Paper rule: search only the last 5 characters (automatic when the path contains "Reasoning")
    #[arg(long)]
    last_5: bool,
    /// Paper rule: keep only items whose question is in this JSON list (final_dataset_filtered.json)
    #[arg(long)]
    good_questions: Option<PathBuf>,
}

pub fn report(args: MsqaArgs) -> Result<Report, ScoreError> {
    let file = load(&args.file)?;
    let text = file.text()?;
    if args.variant == MsqaVariant::Official {
        if args.last_5 || args.good_questions.is_some() {
            return Err(ScoreError::Usage(
                "--last-5 and --good-questions belong to --variant paper".into(),
            ));
        }
        // msqa::score_evaluation_text, with the text freed once parsed.
        let input = file.input_file();
        let records = msqa::parse_evaluation(&file.name, text)?;
        drop(file);
        return Ok(msqa::score_evaluation(input, &records)?);
    }
    let mut options = paper::PaperOptions::for_path(&file.name);
    options.last_five |= args.last_5;
    let mut inputs = vec![file.input_file()];
    if let Some(path) = &args.good_questions {
        let good = load(path)?;
        options.good_questions = Some(paper::parse_good_questions(&good.name, good.text()?)?);
        inputs.push(good.input_file());
    }
    let items = if paper::is_inference_file(text) {
        paper::parse_inference(&file.name, text)?
    } else {
        paper::from_evaluation(msqa::parse_evaluation(&file.name, text)?)
    };
    // The items own their texts: free the file before the samples copy them.
    let name = file.name.clone();
    drop(file);
    Ok(paper::score_paper(inputs, &name, &items, &options))
}

pub const COMMAND: super::Command<MsqaArgs> = super::Command {
    key: "msqa",
    about: "MSQA_Short: accuracy, answer coverage, completion tokens from an evaluation.json",
    run: report,
};
