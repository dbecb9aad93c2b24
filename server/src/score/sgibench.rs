//! `scorebench score sgi-wet|sgi-dry|sgi-deep-research|sgi-idea|sgi-reasoning LOG.json`: read the
//! official log (and any stored judge replies), hand the texts to `metrics_core::sgibench`.
//! `scorebench score sgi-score INPUT.json` (or the five logs by option): SGI-Score.

use std::path::PathBuf;

use clap::Args;
use metrics_core::sgibench::{deep_research, dry, idea, reasoning, sgi_score, wet};
use metrics_core::{InputError, Report};

use super::files::{LoadedFile, ScoreError, load, open};

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
    /// `score --samples` (global): per-item results in the report
    #[arg(from_global)]
    samples: bool,
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
    /// `score --samples` (global): per-item results in the report
    #[arg(from_global)]
    samples: bool,
}

#[derive(Args)]
pub struct ReasoningArgs {
    /// The step-2 input log (records with `answer`, `options`, `model_answer`) or its output
    log: PathBuf,
    /// Stored o4-mini judge replies for RV: {"idx": "<reply text>" | {"raise": "…"}, …}
    #[arg(long)]
    judge_replies: Option<PathBuf>,
}

#[derive(Args)]
pub struct SgiScoreArgs {
    /// One JSON object holding the five scored logs: {"task_1_deep_research/logs": [...],
    /// "task_2_idea_generation/logs (_evaluation.json)": [...], "task_3_dry_experiment/logs": [...],
    /// "task_3_wet_experiment/logs": [...], "task_4_experimental_reasoning/logs": [...]}
    #[arg(required_unless_present_all = ["deep_research", "idea", "dry", "wet", "reasoning"],
          conflicts_with_all = ["deep_research", "idea", "dry", "wet", "reasoning"])]
    input: Option<PathBuf>,
    /// The scored deep research log (step 2), instead of INPUT
    #[arg(long, requires_all = ["idea", "dry", "wet", "reasoning"])]
    deep_research: Option<PathBuf>,
    /// The idea generation evaluation log (`…_evaluation.json`)
    #[arg(long)]
    idea: Option<PathBuf>,
    /// The scored dry experiment log (step 4)
    #[arg(long)]
    dry: Option<PathBuf>,
    /// The scored wet experiment log (step 2)
    #[arg(long)]
    wet: Option<PathBuf>,
    /// The scored experimental reasoning log (step 2)
    #[arg(long)]
    reasoning: Option<PathBuf>,
}

/// The report of a log read as a stream (only per-record results are kept), with the log's
/// name and SHA-256 as its input.
fn streamed(
    path: &std::path::Path,
    score: impl FnMut(&str, metrics_core::Text<'_>) -> Result<Report, InputError>,
) -> Result<Report, ScoreError> {
    let (mut report, input) = open(path)?.read(score)?;
    report.inputs = vec![input];
    Ok(report)
}

pub fn report_wet(args: WetArgs) -> Result<Report, ScoreError> {
    streamed(&args.log, |name, text| wet::score_log(name, text))
}

pub fn report_dry(args: DryArgs) -> Result<Report, ScoreError> {
    let log = open(&args.log)?;
    let replies = args.judge_replies.as_deref().map(load).transpose()?;
    let replies_text = match &replies {
        Some(r) => Some((r.name.as_str(), r.text()?)),
        None => None,
    };
    let (mut report, input) =
        log.read(|name, text| dry::score_log_with_samples(name, text, replies_text, args.samples))?;
    report.inputs = std::iter::once(input)
        .chain(replies.as_ref().map(LoadedFile::input_file))
        .collect();
    Ok(report)
}

pub fn report_deep_research(args: DeepResearchArgs) -> Result<Report, ScoreError> {
    streamed(&args.log, |name, text| deep_research::score_log(name, text))
}

pub fn report_idea(args: IdeaArgs) -> Result<Report, ScoreError> {
    let file = open(&args.log)?;
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
    let (mut report, input) =
        file.read(|name, text| idea::score_log_with_samples(name, text, &sources, args.samples))?;
    report.inputs = std::iter::once(input)
        .chain(table_file.as_ref().map(LoadedFile::input_file))
        .chain(replies.as_ref().map(LoadedFile::input_file))
        .collect();
    Ok(report)
}

pub fn report_reasoning(args: ReasoningArgs) -> Result<Report, ScoreError> {
    let log = open(&args.log)?;
    let replies = args.judge_replies.as_deref().map(load).transpose()?;
    let replies_text = match &replies {
        Some(r) => Some((r.name.as_str(), r.text()?)),
        None => None,
    };
    let (mut report, input) =
        log.read(|name, text| reasoning::score_log(name, text, replies_text))?;
    report.inputs = std::iter::once(input)
        .chain(replies.as_ref().map(LoadedFile::input_file))
        .collect();
    Ok(report)
}

pub fn report_sgi_score(args: SgiScoreArgs) -> Result<Report, ScoreError> {
    if let Some(input) = &args.input {
        return streamed(input, |name, text| sgi_score::score_input_from(name, text));
    }
    let usage = || {
        ScoreError::Usage(
            "give INPUT.json or all five logs (--deep-research --idea --dry --wet --reasoning)"
                .into(),
        )
    };
    // All five named before any is opened (a missing flag is the first thing said).
    let paths = [
        args.deep_research.as_deref().ok_or_else(usage)?,
        args.idea.as_deref().ok_or_else(usage)?,
        args.dry.as_deref().ok_or_else(usage)?,
        args.wet.as_deref().ok_or_else(usage)?,
        args.reasoning.as_deref().ok_or_else(usage)?,
    ];
    // Each log is read as a stream into the numbers SGI-Score prints of it. Errors come as
    // reading all five files first would give them: any file's own (missing, unreadable, over
    // the limit), then any file's invalid UTF-8, then the first log that does not parse.
    let mut own_errors = Vec::new();
    let mut utf8_errors = Vec::new();
    let mut parse_errors = Vec::new();
    let mut names = Vec::with_capacity(5);
    let mut logs = Vec::with_capacity(5);
    let mut inputs = Vec::with_capacity(5);
    for (task, path) in paths.into_iter().enumerate() {
        let read = open(path).and_then(|log| {
            names.push(log.name.clone());
            log.read_apart(|name, text| sgi_score::read_task_log(name, text, task))
        });
        match read {
            Ok(Ok((values, input))) => {
                logs.push(values);
                inputs.push(input);
            }
            Ok(Err(e)) => parse_errors.push(ScoreError::Input(e)),
            Err(e @ ScoreError::Input(_)) => utf8_errors.push(e),
            Err(e) => own_errors.push(e),
        }
    }
    let first = own_errors
        .into_iter()
        .chain(utf8_errors)
        .chain(parse_errors)
        .next();
    if let Some(e) = first {
        return Err(e);
    }
    let (Ok(names), Ok(logs)) = (
        <[String; 5]>::try_from(names),
        <[sgi_score::TaskValues; 5]>::try_from(logs),
    ) else {
        return Err(ScoreError::Usage("expected five logs".into()));
    };
    let names = names.each_ref().map(String::as_str);
    Ok(sgi_score::score_task_logs(&names, logs, inputs)?)
}

pub const WET: super::command::Command<WetArgs> = super::command::Command {
    key: "sgi-wet",
    about: "SGI-Bench wet experiment: action similarity, parameter accuracy, final",
    run: report_wet,
};
pub const DRY: super::command::Command<DryArgs> = super::command::Command {
    key: "sgi-dry",
    about: "SGI-Bench dry experiment: PassAll@5/3/1, AET, SER",
    run: report_dry,
};
pub const DEEP_RESEARCH: super::command::Command<DeepResearchArgs> = super::command::Command {
    key: "sgi-deep-research",
    about: "SGI-Bench deep research: exact match, step-level accuracy",
    run: report_deep_research,
};
pub const IDEA: super::command::Command<IdeaArgs> = super::command::Command {
    key: "sgi-idea",
    about: "SGI-Bench idea generation: effectiveness, novelty, detailedness, feasibility, final",
    run: report_idea,
};
pub const REASONING: super::command::Command<ReasoningArgs> = super::command::Command {
    key: "sgi-reasoning",
    about: "SGI-Bench experimental reasoning: multiple-choice accuracy (MCA), reasoning validity (RV)",
    run: report_reasoning,
};
pub const SGI_SCORE: super::command::Command<SgiScoreArgs> = super::command::Command {
    key: "sgi-score",
    about: "SGI-Bench SGI-Score: the five task headlines (rounded as sgi_score.py) and their mean",
    run: report_sgi_score,
};
