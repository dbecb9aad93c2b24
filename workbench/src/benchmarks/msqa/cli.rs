//! `scorebench score msqa …`: MSQA_Short.
//!
//! ```text
//! scorebench score msqa evaluation.json                       official toolkit rule (re-derived)
//! scorebench score msqa FILE --variant paper [--last-5] [--good-questions Q.json]
//! ```
//! `FILE` for the paper rule is an `evaluation.json` or the authors' inference file; the
//! last-5-characters window applies with `--last-5` or when the path contains "Reasoning".

use metrics_core::Report;
use metrics_core::msqa::{self, paper};

use crate::cli::{Arg, Command, Host, ScoreError, Values};

pub static COMMAND: Command = Command {
    about: "MSQA_Short: accuracy, answer coverage, completion tokens from an evaluation.json",
    args: &[
        Arg::file(
            "file",
            "The toolkit's evaluation.json (or its evaluation.log); for --variant paper also the authors' inference file",
        ),
        Arg::variant(
            "Which rule to score with",
            &[
                ("official", "ScienceEval MSQA_Short run.py (default)"),
                (
                    "paper",
                    "The MSQA paper authors' case-sensitive rule (jerry3027/MSQA evaluation.py)",
                ),
            ],
        ),
        Arg::flag(
            "last_5",
            "Paper rule: search only the last 5 characters (automatic when the path contains \"Reasoning\")",
        ),
        Arg::option(
            "good_questions",
            "Paper rule: keep only items whose question is in this JSON list (final_dataset_filtered.json)",
        ),
    ],
    run,
};

fn run(args: &Values, host: &dyn Host) -> Result<Report, ScoreError> {
    let path = args.required("file")?;
    // Read as a stream: only the records are kept.
    let file = host.open(path)?;
    if args.choice("variant") == "official" {
        if args.flag("last_5") || args.path("good_questions").is_some() {
            return Err(ScoreError::Usage(
                "--last-5 and --good-questions belong to --variant paper".into(),
            ));
        }
        // msqa::score_evaluation_text, streamed.
        let (records, input) = file
            .read(|name, text| msqa::parse_evaluation_with(name, text, msqa::drop_unjudged_text))?;
        return Ok(msqa::score_evaluation_with(input, &records, args.samples)?);
    }
    let name = file.name.clone();
    let mut options = paper::PaperOptions::for_path(&name);
    options.last_five |= args.flag("last_5");
    // Which layout it is takes a first pass over the stream (keeping nothing).
    let (inference, _) = file.read(|_, text| Ok(paper::is_inference_file(text)))?;
    let mut good_input = None;
    if let Some(path) = args.path("good_questions") {
        let good = host.load(path)?;
        options.good_questions = Some(paper::parse_good_questions(&good.name, good.text()?)?);
        good_input = Some(good.input_file());
    }
    // Without samples, an item keeps only what the rule reads of its output (and its
    // question only for the good-question filter).
    let (compact, last_five) = (!args.samples, options.last_five);
    let keep_question = args.samples || options.good_questions.is_some();
    let (items, input) = host.open(path)?.read(|name, text| {
        if inference {
            paper::parse_inference_with(name, text, |item| {
                if compact {
                    item.raw = paper::judged_part(&item.raw, last_five);
                }
                if !keep_question {
                    item.question = None;
                }
            })
        } else {
            msqa::parse_evaluation_with(name, text, |record| {
                if compact {
                    let raw = record
                        .generation
                        .take()
                        .and_then(|g| g.content.or(g.reasoning_content));
                    record.generation = raw.map(|raw| msqa::Generation {
                        reasoning_content: None,
                        content: Some(paper::judged_part(&raw, last_five)),
                    });
                }
            })
            .map(paper::from_evaluation)
        }
    })?;
    let inputs = std::iter::once(input).chain(good_input).collect();
    Ok(paper::score_paper(inputs, &name, &items, &options))
}
