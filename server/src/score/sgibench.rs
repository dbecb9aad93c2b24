//! `scorebench score sgi-wet|sgi-dry|sgi-deep-research|sgi-idea LOG.json`: read the official
//! log (and any stored judge replies), hand the texts to `metrics_core::sgibench`.

use std::path::PathBuf;

use clap::Args;
use metrics_core::Report;
use metrics_core::sgibench::{deep_research, dry, idea, wet};

use super::{LoadedFile, ScoreError, load};

#[derive(Args)]
pub struct WetArgs {
    /// The step-1 (or step-2) log: records with `answer` and `model_answer`
    log: PathBuf,
}

#[derive(Args)]
pub struct DryArgs {
    /// The step-3 log (records with `unit_test_k_output` and five `unit_test` runs) or the step-4 log
    log: PathBuf,
    /// Stored judge replies for units that need a verdict: {"idx": {"0": "<reply text>", …}, …}
    #[arg(long)]
    judge_replies: Option<PathBuf>,
}

#[derive(Args)]
pub struct DeepResearchArgs {
    /// The step-1 log (exact match only) or the step-2 log (adds `llm_judge` lists)
    log: PathBuf,
}

#[derive(Args)]
pub struct IdeaArgs {
    /// The step-2 evaluation log (`…_evaluation.json`, per-item scores) or its input, the step-1
    /// log (dataset rows with `generated_data`)
    log: PathBuf,
    /// Sentence embeddings {"text": [f64, …], …}: recompute novelty, effectiveness and
    /// detailedness (official model: all-MiniLM-L6-v2)
    #[arg(long)]
    embeddings: Option<PathBuf>,
    /// Stored judge replies for a step-1 log: {"idx": {"<model>|swap=False": "<reply>", …}, …}
    #[arg(long)]
    judge_replies: Option<PathBuf>,
}

/// Replace the library's input record by the CLI's (same name and bytes).
fn with_input(mut report: Report, files: &[&LoadedFile]) -> Report {
    report.inputs = files.iter().map(|f| f.input_file()).collect();
    report
}

pub fn report_wet(args: WetArgs) -> Result<Report, ScoreError> {
    let file = load(&args.log)?;
    let report = wet::score_log(&file.name, file.text()?)?;
    Ok(with_input(report, &[&file]))
}

pub fn report_dry(args: DryArgs) -> Result<Report, ScoreError> {
    let file = load(&args.log)?;
    let replies = args.judge_replies.as_deref().map(load).transpose()?;
    let replies_text = match &replies {
        Some(r) => Some((r.name.as_str(), r.text()?)),
        None => None,
    };
    let report = dry::score_log(&file.name, file.text()?, replies_text)?;
    let mut files = vec![&file];
    files.extend(replies.as_ref());
    Ok(with_input(report, &files))
}

pub fn report_deep_research(args: DeepResearchArgs) -> Result<Report, ScoreError> {
    let file = load(&args.log)?;
    let report = deep_research::score_log(&file.name, file.text()?)?;
    Ok(with_input(report, &[&file]))
}

pub fn report_idea(args: IdeaArgs) -> Result<Report, ScoreError> {
    let file = load(&args.log)?;
    let table_file = args.embeddings.as_deref().map(load).transpose()?;
    let table = match &table_file {
        Some(t) => Some(idea::EmbeddingTable::from_json(&t.name, t.text()?)?),
        None => None,
    };
    let replies = args.judge_replies.as_deref().map(load).transpose()?;
    let replies_text = match &replies {
        Some(r) => Some((r.name.as_str(), r.text()?)),
        None => None,
    };
    let sources = idea::IdeaSources {
        embeddings: table.as_ref().map(|t| t as &dyn idea::Embedder),
        judge_replies: replies_text,
    };
    let report = idea::score_log_with(&file.name, file.text()?, &sources)?;
    let mut files = vec![&file];
    files.extend(table_file.as_ref());
    files.extend(replies.as_ref());
    Ok(with_input(report, &files))
}

pub const WET: super::Command<WetArgs> = super::Command {
    key: "sgi-wet",
    about: "SGI-Bench wet experiment: action similarity, parameter accuracy, final",
    run: report_wet,
};
pub const DRY: super::Command<DryArgs> = super::Command {
    key: "sgi-dry",
    about: "SGI-Bench dry experiment: PassAll@5/3/1, AET, SER",
    run: report_dry,
};
pub const DEEP_RESEARCH: super::Command<DeepResearchArgs> = super::Command {
    key: "sgi-deep-research",
    about: "SGI-Bench deep research: exact match, step-level accuracy",
    run: report_deep_research,
};
pub const IDEA: super::Command<IdeaArgs> = super::Command {
    key: "sgi-idea",
    about: "SGI-Bench idea generation: effectiveness, novelty, detailedness, feasibility, final",
    run: report_idea,
};
