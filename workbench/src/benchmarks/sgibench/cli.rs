//! `scorebench score sgi-wet|sgi-dry|sgi-deep-research|sgi-idea|sgi-reasoning LOG.json`: read the
//! official log (and any stored judge replies), hand the texts to `metrics_core::sgibench`.
//! `scorebench score sgi-score INPUT.json` (or the five logs by option): SGI-Score.

use std::path::Path;

use metrics_core::sgibench::{deep_research, dry, idea, reasoning, sgi_score, wet};
use metrics_core::{InputError, Report};

use crate::cli::{Arg, Command, Host, Kind, Loaded, ScoreError, Values};

pub static WET: Command = Command {
    about: "SGI-Bench wet experiment: action similarity, parameter accuracy, final",
    args: &[Arg::file(
        "log",
        "The step-1 (or step-2) log: records with `answer` and `model_answer`",
    )],
    run: |args, host| {
        streamed(host, args.required("log")?, |name, text| {
            wet::score_log(name, text)
        })
    },
};

pub static DRY: Command = Command {
    about: "SGI-Bench dry experiment: PassAll@5/3/1, AET, SER",
    args: &[
        Arg::file(
            "log",
            "The step-3 log (records with `unit_test_k_output` and five `unit_test` runs) or the step-4 log",
        ),
        Arg::option(
            "judge_replies",
            "Stored judge replies for units that need a verdict: {\"idx\": {\"0\": \"<reply text>\", …}, …}",
        ),
    ],
    run: |args, host| {
        let log = host.open(args.required("log")?)?;
        let replies = load_optional(host, args.path("judge_replies"))?;
        let replies_text = named_text(replies.as_ref())?;
        let (mut report, input) = log.read(|name, text| {
            dry::score_log_with_samples(name, text, replies_text, args.samples)
        })?;
        report.inputs = std::iter::once(input)
            .chain(replies.as_ref().map(Loaded::input_file))
            .collect();
        Ok(report)
    },
};

pub static DEEP_RESEARCH: Command = Command {
    about: "SGI-Bench deep research: exact match, step-level accuracy",
    args: &[Arg::file(
        "log",
        "The step-1 log (exact match only) or the step-2 log (adds `llm_judge` lists)",
    )],
    run: |args, host| {
        streamed(host, args.required("log")?, |name, text| {
            deep_research::score_log(name, text)
        })
    },
};

pub static IDEA: Command = Command {
    about: "SGI-Bench idea generation: effectiveness, novelty, detailedness, feasibility, final",
    args: &[
        Arg::file(
            "log",
            "The step-2 evaluation log (`…_evaluation.json`, per-item scores) or its input, the step-1 log (dataset rows with `generated_data`)",
        ),
        Arg::option(
            "embeddings",
            "Sentence embeddings {\"text\": [f64, …], …}: recompute novelty, effectiveness and detailedness (official model: all-MiniLM-L6-v2)",
        ),
        Arg::option(
            "judge_replies",
            "Stored judge replies for a step-1 log: {\"idx\": {\"<model>|swap=False\": \"<reply>\", …}, …}",
        ),
    ],
    run: |args, host| {
        let file = host.open(args.required("log")?)?;
        let table_file = load_optional(host, args.path("embeddings"))?;
        let table = match &table_file {
            Some(t) => Some(idea::EmbeddingTable::from_json(&t.name, t.text()?)?),
            None => None,
        };
        let replies = load_optional(host, args.path("judge_replies"))?;
        let sources = idea::IdeaSources {
            embeddings: table.as_ref().map(|t| t as &dyn idea::Embedder),
            judge_replies: named_text(replies.as_ref())?,
        };
        let (mut report, input) = file
            .read(|name, text| idea::score_log_with_samples(name, text, &sources, args.samples))?;
        report.inputs = std::iter::once(input)
            .chain(table_file.as_ref().map(Loaded::input_file))
            .chain(replies.as_ref().map(Loaded::input_file))
            .collect();
        Ok(report)
    },
};

pub static REASONING: Command = Command {
    about: "SGI-Bench experimental reasoning: multiple-choice accuracy (MCA), reasoning validity (RV)",
    args: &[
        Arg::file(
            "log",
            "The step-2 input log (records with `answer`, `options`, `model_answer`) or its output",
        ),
        Arg::option(
            "judge_replies",
            "Stored o4-mini judge replies for RV: {\"idx\": \"<reply text>\" | {\"raise\": \"…\"}, …}",
        ),
    ],
    run: |args, host| {
        let log = host.open(args.required("log")?)?;
        let replies = load_optional(host, args.path("judge_replies"))?;
        let replies_text = named_text(replies.as_ref())?;
        let (mut report, input) =
            log.read(|name, text| reasoning::score_log(name, text, replies_text))?;
        report.inputs = std::iter::once(input)
            .chain(replies.as_ref().map(Loaded::input_file))
            .collect();
        Ok(report)
    },
};

/// The five logs of SGI-Score, as options, in the order it reads them.
const FIVE: [&str; 5] = ["deep_research", "idea", "dry", "wet", "reasoning"];

pub static SGI_SCORE: Command = Command {
    about: "SGI-Bench SGI-Score: the five task headlines (rounded as sgi_score.py) and their mean",
    args: &[
        Arg {
            required_unless_all: &FIVE,
            conflicts: &FIVE,
            ..Arg::new(
                "input",
                "One JSON object holding the five scored logs: {\"task_1_deep_research/logs\": [...], \"task_2_idea_generation/logs (_evaluation.json)\": [...], \"task_3_dry_experiment/logs\": [...], \"task_3_wet_experiment/logs\": [...], \"task_4_experimental_reasoning/logs\": [...]}",
                Kind::File {
                    positional: true,
                    required: false,
                    many: false,
                },
            )
        },
        Arg {
            requires: &["idea", "dry", "wet", "reasoning"],
            ..Arg::option(
                "deep_research",
                "The scored deep research log (step 2), instead of INPUT",
            )
        },
        Arg::option(
            "idea",
            "The idea generation evaluation log (`…_evaluation.json`)",
        ),
        Arg::option("dry", "The scored dry experiment log (step 4)"),
        Arg::option("wet", "The scored wet experiment log (step 2)"),
        Arg::option(
            "reasoning",
            "The scored experimental reasoning log (step 2)",
        ),
    ],
    run: sgi_score,
};

/// The report of a log read as a stream (only per-record results are kept), with the log's
/// name and SHA-256 as its input.
fn streamed(
    host: &dyn Host,
    path: &Path,
    score: impl FnMut(&str, metrics_core::Text<'_>) -> Result<Report, InputError>,
) -> Result<Report, ScoreError> {
    let (mut report, input) = host.open(path)?.read(score)?;
    report.inputs = vec![input];
    Ok(report)
}

fn load_optional(host: &dyn Host, path: Option<&Path>) -> Result<Option<Loaded>, ScoreError> {
    path.map(|p| host.load(p)).transpose()
}

/// A loaded side file as (name, text).
fn named_text(file: Option<&Loaded>) -> Result<Option<(&str, &str)>, ScoreError> {
    file.map(|f| Ok((f.name.as_str(), f.text()?))).transpose()
}

fn sgi_score(args: &Values, host: &dyn Host) -> Result<Report, ScoreError> {
    if let Some(input) = args.path("input") {
        return streamed(host, input, |name, text| {
            sgi_score::score_input_from(name, text)
        });
    }
    let usage = || {
        ScoreError::Usage(
            "give INPUT.json or all five logs (--deep-research --idea --dry --wet --reasoning)"
                .into(),
        )
    };
    // All five named before any is opened (a missing flag is the first thing said).
    let mut paths = Vec::with_capacity(5);
    for task in FIVE {
        paths.push(args.path(task).ok_or_else(usage)?);
    }
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
        let read = host.open(path).and_then(|log| {
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
