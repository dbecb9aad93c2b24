//! SGI-Bench task logs: wet experiment, dry experiment, deep research, idea generation and
//! experimental reasoning, each scored from the official step logs; and SGI-Score from the five
//! scored logs together.
//!
//! ```text
//! roles     one log per task (a JSON array of the official step's records); SGI-Score: one JSON
//!           object holding the five logs (`{"task_1_deep_research/logs": [...], …}`)
//! jobs      one report per file
//! samples   1 − the item's headline value (wet/idea `final`, dry `pass_all_5`, deep research
//!           `exact_match`, reasoning `mca`; SGI-Score: one row per task, its 0–100 headline;
//!           0–100 scales divided by 100), 1 on error;
//!           detail = question, gold answer, model answer / generated idea (none for SGI-Score)
//! ```

#[cfg(feature = "cli")]
mod cli;
#[cfg(feature = "cli")]
pub mod run;

use serde_json::{Map, Value};

use crate::benchmark::Benchmark;
use crate::detect::{Detected, Role, RoleInfo, Shape, Sniff};
use crate::drill::{self, Fields, SampleRow, StepComparison, string_fields, text_of};
use crate::session::{
    Job, Outcome, PlanFile, Scored, Variant, WorkFile, file, prediction_source, required,
};
use crate::table::TableStyle;
use metrics_core::sgibench::{deep_research, dry, idea, reasoning, sgi_score, wet};
use metrics_core::{InputError, Report};

/// What differs between the four task benchmarks.
struct Task {
    key: &'static str,
    label: &'static str,
    metrics: &'static [&'static str],
    role: &'static RoleInfo,
    /// The per-item metric whose shortfall is the disagreement, and its scale.
    headline: (&'static str, f64),
    /// Decimals the table shows (default 4).
    decimals: Option<usize>,
    score: fn(&str, &str) -> Result<Report, InputError>,
}

fn plan(task: &Task, b: &dyn Benchmark, files: &[PlanFile<'_>]) -> Vec<Job> {
    Job::one_per_file(b, files, Role(task.role), task.label)
}

fn score(task: &Task, files: &[WorkFile], job: &Job) -> Result<Scored, InputError> {
    let (name, text) = file(files, required(job, Role(task.role))?)?;
    Ok(Scored::report_only((task.score)(name, text)?))
}

/// The log record behind a sample (matched on `idx`).
fn detail(
    files: &[WorkFile],
    outcome: &Outcome,
    sample: &Map<String, Value>,
) -> Result<Fields, InputError> {
    let job = &outcome.job;
    let main = prediction_source(files, job)?;
    let records = match serde_json::from_str(main.text()?) {
        Ok(Value::Array(records)) => records,
        // SGI-Score's combined input: no per-record texts.
        Ok(Value::Object(_)) => return Ok(Vec::new()),
        Ok(_) => return Err(InputError::whole_file(&main.name, "expected a JSON array")),
        Err(e) => {
            return Err(InputError::whole_file(
                &main.name,
                format!("expected a JSON array: {e}"),
            ));
        }
    };
    let idx = text_of(sample.get("idx"));
    let record = records
        .into_iter()
        .find(|r| r.get("idx").map(|v| text_of(Some(v))).as_deref() == Some(idx.as_str()));
    Ok(record
        .as_ref()
        .and_then(Value::as_object)
        .map(|o| {
            string_fields(
                o,
                &[
                    ("question", "Question"),
                    ("answer", "Gold answer"),
                    ("model_answer", "Model answer"),
                    ("model_answer_with_thinking", "Model reply"),
                    ("options", "Options"),
                    ("generated_idea_text", "Generated idea"),
                ],
            )
        })
        .unwrap_or_default())
}

/// One SGI-Bench task as a registered benchmark.
macro_rules! task_benchmark {
    ($name:ident, $role:ident, $command:ident, $task:expr, $recognise:expr) => {
        pub struct $name;

        impl $name {
            const TASK: Task = $task;
            const ROLES: &'static [&'static RoleInfo] = &[&$role];
        }

        impl Benchmark for $name {
            #[cfg(feature = "cli")]
            fn command(&self) -> &'static crate::cli::Command {
                &cli::$command
            }
            #[cfg(feature = "cli")]
            fn runs(&self) -> &'static [&'static crate::runs::RunSpec] {
                run::runs_of(Self::TASK.key)
            }
            fn key(&self) -> &'static str {
                Self::TASK.key
            }
            fn label(&self) -> &'static str {
                Self::TASK.label
            }
            fn metrics(&self) -> &'static [&'static str] {
                Self::TASK.metrics
            }
            fn roles(&self) -> &'static [&'static RoleInfo] {
                Self::ROLES
            }
            fn recognise(&self, sniff: &Sniff<'_>) -> Option<Detected> {
                let why: Option<&'static str> = ($recognise)(sniff);
                why.map(|why| Detected::new(Role(Self::TASK.role), sniff.confidence(), why))
            }
            fn plan(&self, files: &[PlanFile<'_>]) -> Vec<Job> {
                plan(&Self::TASK, self, files)
            }
            fn score(
                &self,
                files: &[WorkFile],
                job: &Job,
                _variant: Variant,
            ) -> Result<Scored, InputError> {
                score(&Self::TASK, files, job)
            }
            fn table_style(&self) -> TableStyle {
                TableStyle {
                    decimals: Self::TASK.decimals,
                    ..TableStyle::default()
                }
            }
            fn sample_row(&self, index: usize, s: &Map<String, Value>) -> SampleRow {
                drill::generic_row(index, s, Some(Self::TASK.headline))
            }
            fn detail(
                &self,
                files: &[WorkFile],
                outcome: &Outcome,
                _index: usize,
                sample: &Map<String, Value>,
            ) -> Result<(Fields, Vec<StepComparison>), InputError> {
                Ok((detail(files, outcome, sample)?, Vec::new()))
            }
        }
    };
}

static WET_LOG: RoleInfo = RoleInfo {
    key: "sgi-wet-log",
    label: "SGI-Bench wet experiment log",
    shared: false,
};
static DRY_LOG: RoleInfo = RoleInfo {
    key: "sgi-dry-log",
    label: "SGI-Bench dry experiment log",
    shared: false,
};
static DEEP_RESEARCH_LOG: RoleInfo = RoleInfo {
    key: "sgi-deep-research-log",
    label: "SGI-Bench deep research log",
    shared: false,
};
static REASONING_LOG: RoleInfo = RoleInfo {
    key: "sgi-reasoning-log",
    label: "SGI-Bench experimental reasoning log",
    shared: false,
};
static SCORE_INPUT: RoleInfo = RoleInfo {
    key: "sgi-score-input",
    label: "SGI-Bench five task logs (SGI-Score)",
    shared: false,
};
static IDEA_LOG: RoleInfo = RoleInfo {
    key: "sgi-idea-log",
    label: "SGI-Bench idea generation log",
    shared: false,
};

/// Model answers to dataset questions (deep research and wet experiment logs), not multiple
/// choice (experimental reasoning has `options`).
fn answers(s: &Sniff<'_>) -> bool {
    s.is_records()
        && s.has("answer")
        && s.has_any(&["model_answer", "model_answer_with_thinking"])
        && !s.has("options")
}

task_benchmark!(
    SgiDry,
    DRY_LOG,
    DRY,
    Task {
        key: "sgi-dry",
        label: "SGI-Bench dry experiment",
        metrics: &dry::KEYS,
        role: &DRY_LOG,
        headline: ("pass_all_5", 1.0),
        decimals: None,
        score: |name, text| dry::score_log(name, text, None),
    },
    |s: &Sniff<'_>| (s.is_records() && s.has("unit_test"))
        .then_some("records with `unit_test` runs")
);

task_benchmark!(
    SgiIdea,
    IDEA_LOG,
    IDEA,
    Task {
        key: "sgi-idea",
        label: "SGI-Bench idea generation",
        metrics: &[
            "effectiveness",
            "novelty",
            "detailedness",
            "feasibility",
            "final"
        ],
        role: &IDEA_LOG,
        headline: ("final", 100.0),
        decimals: None,
        score: |name, text| idea::score_log(name, text, None),
    },
    |s: &Sniff<'_>| (s.is_records() && s.has_any(&["generated_data", "generated_idea_text"]))
        .then_some("records with a generated idea")
);

task_benchmark!(
    SgiDeepResearch,
    DEEP_RESEARCH_LOG,
    DEEP_RESEARCH,
    Task {
        key: "sgi-deep-research",
        label: "SGI-Bench deep research",
        metrics: &deep_research::KEYS,
        role: &DEEP_RESEARCH_LOG,
        headline: ("exact_match", 1.0),
        decimals: None,
        score: |name, text| deep_research::score_log(name, text),
    },
    |s: &Sniff<'_>| (answers(s) && s.has_any(&["steps", "llm_judge", "type"]))
        .then_some("records with `answer`, `model_answer` and `steps`")
);

task_benchmark!(
    SgiWet,
    WET_LOG,
    WET,
    Task {
        key: "sgi-wet",
        label: "SGI-Bench wet experiment",
        metrics: &wet::KEYS,
        role: &WET_LOG,
        headline: ("final", 1.0),
        decimals: None,
        score: |name, text| wet::score_log(name, text),
    },
    |s: &Sniff<'_>| answers(s)
        .then_some("records with `answer` and `model_answer` (a protocol), no `steps`")
);

task_benchmark!(
    SgiReasoning,
    REASONING_LOG,
    REASONING,
    Task {
        key: "sgi-reasoning",
        label: "SGI-Bench experimental reasoning",
        metrics: &reasoning::KEYS,
        role: &REASONING_LOG,
        headline: ("mca", 1.0),
        decimals: None,
        score: |name, text| reasoning::score_log(name, text, None),
    },
    |s: &Sniff<'_>| (s.is_records()
        && s.has("answer")
        && s.has("options")
        && s.has("model_answer"))
    .then_some("multiple-choice records with `answer`, `options` and `model_answer`")
);

task_benchmark!(
    SgiScore,
    SCORE_INPUT,
    SGI_SCORE,
    Task {
        key: "sgi-score",
        label: "SGI-Bench SGI-Score",
        metrics: &sgi_score::KEYS,
        role: &SCORE_INPUT,
        headline: ("headline", 100.0),
        // SGI-Score and the five headlines as sgi_score.py prints them.
        decimals: Some(2),
        score: sgi_score::score_input,
    },
    |s: &Sniff<'_>| {
        let object = matches!(s.shape, Shape::Object { .. });
        if object && sgi_score::INPUT_KEYS.iter().any(|k| s.has(k)) {
            Some("a JSON object with the five task logs (`task_1_deep_research/logs`, …)")
        } else if object && !s.complete() && s.has("exact_match") && s.has("step_level_acc") {
            Some("a JSON object whose first log holds deep research results")
        } else {
            None
        }
    }
);
