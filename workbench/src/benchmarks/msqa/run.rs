//! An MSQA_Short run, as the official `run.py` does it (ScienceOne-AI/ScienceEval
//! `benchmarks/MSQA_Short`, commit 1683e49; `shared/specs/msqa.md`):
//!
//! ```text
//! prompt = true_false_question + "\nYou must answer the question with YES or NO. Do not include other words."
//! id     = md5_hex(prompt)
//! items  = for sample in 0..n: for row in dataset   (sample-major; records in this order)
//! body   = {model, messages: [{role: user, content: prompt}]} + max_tokens, temperature,
//!          top_p, presence_penalty when set
//! reply  → metrics_core::msqa::normalise_reply (content / reasoning_content / <think>);
//!          up to 3 attempts; a request error or two `</think>` fail the attempt
//! ```
//! Files in the output folder: `evaluation.log` (JSONL, one line per finished record, flushed:
//! what a killed run leaves), `evaluation.json` and `score.json` in the official formats
//! (`model.params` never holds a key), and `subtasks.json`, the per-`question_type` breakdown
//! the official README promises. Resume: an earlier folder's `evaluation.json`, else its
//! `evaluation.log` (unreadable lines skipped); each stored record is used once, matched by id;
//! generation failures are asked again, everything else is reused and re-judged. Every reply
//! is also in the cache, keyed with its sample index, so even records missing from the files
//! are not asked again. Where the official code divides by zero (no generated answer), the run
//! says so and writes no score.json.
//!
//! Memory: a question's prompt and id are made once and shared by its n samples; records hold
//! no copy of the prompt and are serialised straight into the files. A run is refused when
//! n × rows > [`MAX_ITEMS`] or n × (prompt bytes of all rows) > [`MAX_PROMPT_BYTES`] (what its
//! `evaluation.json` would hold).

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use md5::{Digest, Md5};
use metrics_core::msqa::{
    EvalRecord, Generation, Judgement, Tally, Usage, judge, normalise_reply, official_score_json,
};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::runs::{
    Attempts, CONFIG, Executes, Input, LineLog, MAX_TOKENS, MODEL, PageForm, Param, ParamKind,
    RunError, RunHost, RunPlan, RunSpec, RunValues, TEMPERATURE, TOP_P, WORKERS, ask_with_attempts,
    chat_body, db, first_choice, out, parse_json_array, retry_wait, timeout, write_json,
};

/// Most items (n × rows) one run holds.
pub const MAX_ITEMS: u64 = 1_000_000;
/// Most prompt text one run sends and writes (n × Σ prompt bytes).
pub const MAX_PROMPT_BYTES: u64 = 256 * 1024 * 1024;

/// `scorebench run msqa`, `{"benchmark": "msqa"}`.
pub static RUN: RunSpec = RunSpec {
    key: "msqa",
    label: "MSQA_Short, the official procedure: evaluation.json, score.json, subtasks.json",
    files: &[
        "evaluation.json",
        "evaluation.log",
        "score.json",
        "subtasks.json",
    ],
    params: &[
        CONFIG,
        db("SQLite database holding the reply cache (what makes a killed run resume for free)"),
        MODEL,
        Param::new("dataset", "The dataset file", ParamKind::Records)
            .label("dataset (MSQA_Dataset.json)"),
        out("Output folder (created); an earlier run's files there are reused"),
        WORKERS,
        MAX_TOKENS,
        TEMPERATURE,
        TOP_P,
        timeout(3600),
        retry_wait(10_000),
        Param::new(
            "n",
            "Samples per question (records in sample-major order)",
            ParamKind::Count {
                default: 1,
                missing: None,
                choices: &[],
            },
        )
        .label("samples per question"),
        Param::new("presence_penalty", "", ParamKind::Number { default: None }),
        Param::cli(
            "resume",
            "An earlier run's folder to resume from (default: --out itself)",
            ParamKind::Path {
                required: false,
                default: None,
            },
        ),
        Param::http(
            "attempts",
            ParamKind::Count {
                default: 3,
                missing: None,
                choices: &[],
            },
        ),
    ],
    page: Some(PageForm {
        open: &["evaluation.json"],
        open_inputs: &[],
    }),
    executes: Executes::Models,
    plan,
};

fn plan(values: RunValues) -> Result<Box<dyn RunPlan>, RunError> {
    let options = MsqaOptions {
        model: values.text("model")?,
        n: values.count("n")?,
        workers: values.workers()?,
        max_tokens: values.optional_count("max_tokens")?,
        temperature: values.number("temperature")?,
        top_p: values.number("top_p")?,
        presence_penalty: values.number("presence_penalty")?,
        timeout_secs: values.count("timeout_secs")?,
        attempts: u32::try_from(values.count("attempts")?).unwrap_or(u32::MAX),
        retry_wait_ms: values.count("retry_wait_ms")?,
    };
    let source = match values.records("dataset")? {
        Input::Given(dataset) => {
            // A run over HTTP is checked whole before it starts.
            options.check()?;
            let rows = rows_from_values("dataset", dataset)?;
            check_size(&rows, options.n)?;
            Source::Rows(rows, None)
        }
        Input::Path(dataset) => Source::Files {
            dataset,
            resume: values.optional_path("resume")?,
        },
    };
    Ok(Box::new(MsqaPlan { options, source }))
}

/// Where the rows come from.
enum Source {
    /// Parsed from the request or loaded from the files, with an earlier run's records.
    Rows(Vec<Row>, Option<Vec<Value>>),
    /// Files read when the run starts: the dataset, and an earlier run's folder (default: the
    /// output folder).
    Files {
        dataset: PathBuf,
        resume: Option<PathBuf>,
    },
}

struct MsqaPlan {
    options: MsqaOptions,
    source: Source,
}

impl RunPlan for MsqaPlan {
    fn model(&self) -> String {
        self.options.model.clone()
    }

    fn load(&mut self, host: &dyn RunHost, out_dir: &Path) -> Result<(), RunError> {
        if let Source::Files { dataset, resume } = &self.source {
            let rows = parse_dataset(&dataset.display().to_string(), &host.read(dataset)?)?;
            let previous = read_previous(host, resume.as_deref().unwrap_or(out_dir))?;
            self.source = Source::Rows(rows, previous);
        }
        Ok(())
    }

    fn execute<'a>(
        self: Box<Self>,
        host: &'a dyn RunHost,
        out_dir: &'a Path,
    ) -> BoxFuture<'a, Result<String, RunError>> {
        Box::pin(async move {
            let mut plan = *self;
            plan.load(host, out_dir)?;
            let Source::Rows(rows, previous) = plan.source else {
                return Err(RunError::Internal("the dataset was not loaded".into()));
            };
            let options = plan.options;
            let summary = run(host, &options, rows, previous, out_dir).await?;
            Ok(format!(
                "MSQA_short: overall_score {} over {} records; files in {}",
                summary.score["evaluation"]["overall_score"],
                summary.tally.total,
                out_dir.display()
            ))
        })
    }
}

/// Refuse a run larger than [`MAX_ITEMS`] or [`MAX_PROMPT_BYTES`] before anything is made.
pub fn check_size(rows: &[Row], n: u64) -> Result<(), RunError> {
    let items = n.saturating_mul(rows.len() as u64);
    let prompt_bytes: u64 = rows
        .iter()
        .map(|r| (r.true_false_question.len() + SUFFIX.len()) as u64)
        .sum();
    let bytes = n.saturating_mul(prompt_bytes);
    if items > MAX_ITEMS {
        return Err(RunError::Input(format!(
            "the run is too large: n × rows = {n} × {} = {items} items, at most {MAX_ITEMS}",
            rows.len()
        )));
    }
    if bytes > MAX_PROMPT_BYTES {
        return Err(RunError::Input(format!(
            "the run is too large: n × prompt bytes = {n} × {prompt_bytes} = {bytes} bytes, at most {MAX_PROMPT_BYTES} ({} MiB)",
            MAX_PROMPT_BYTES >> 20
        )));
    }
    Ok(())
}

/// The instruction appended to every question.
pub const SUFFIX: &str =
    "\nYou must answer the question with YES or NO. Do not include other words.";

/// How to run.
#[derive(Debug, Clone)]
pub struct MsqaOptions {
    pub model: String,
    pub n: u64,
    pub workers: usize,
    pub max_tokens: Option<u64>,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub presence_penalty: Option<f64>,
    /// Per-request timeout (official default 3600 s).
    pub timeout_secs: u64,
    /// Attempts per request (official: 3).
    pub attempts: u32,
    /// Wait between attempts (official: 10 s).
    pub retry_wait_ms: u64,
}

impl MsqaOptions {
    pub fn check(&self) -> Result<(), RunError> {
        if self.n == 0 || self.n > 1000 {
            return Err(RunError::Input("n must be between 1 and 1000".into()));
        }
        crate::runs::check_workers(self.workers)?;
        if self.attempts == 0 || self.attempts > 10 {
            return Err(RunError::Input("attempts must be between 1 and 10".into()));
        }
        Ok(())
    }
}

/// The dataset fields a run reads.
#[derive(Debug, Clone)]
pub struct Row {
    pub question_type: Value,
    pub true_false_question: String,
    pub answer: String,
}

/// Parse `MSQA_Dataset.json` (a JSON array); problems name the file and record.
pub fn parse_dataset(file: &str, text: &str) -> Result<Vec<Row>, RunError> {
    let values = parse_json_array(file, text, "MSQA rows")?;
    rows_from_values(file, values)
}

/// Rows from already parsed JSON values.
pub fn rows_from_values(file: &str, values: Vec<Value>) -> Result<Vec<Row>, RunError> {
    if values.is_empty() {
        return Err(RunError::Input(format!("{file}: the dataset has no rows")));
    }
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            let field = |k: &str| {
                v[k].as_str().map(String::from).ok_or_else(|| {
                    RunError::Input(format!("{file}: record {}: no string {k:?}", i + 1))
                })
            };
            Ok(Row {
                question_type: v["question_type"].clone(),
                true_false_question: field("true_false_question")?,
                answer: field("true_false_question_answer")?,
            })
        })
        .collect()
}

/// An earlier run's records: `evaluation.json`, else `evaluation.log` with unreadable lines
/// skipped; `None` when the folder has neither.
pub fn read_previous(host: &dyn RunHost, dir: &Path) -> Result<Option<Vec<Value>>, RunError> {
    let json_path = dir.join("evaluation.json");
    if host.is_file(&json_path) {
        let text = host.read(&json_path)?;
        let values: Vec<Value> = serde_json::from_str(&text).map_err(|e| {
            RunError::Input(format!(
                "{}:{}: not a JSON array of records: {e}",
                json_path.display(),
                e.line()
            ))
        })?;
        return Ok(Some(values));
    }
    let log_path = dir.join("evaluation.log");
    if host.is_file(&log_path) {
        let text = host.read(&log_path)?;
        let mut values = Vec::new();
        for (i, line) in text.lines().enumerate() {
            match serde_json::from_str::<Value>(line) {
                Ok(v) if v["id"].is_string() => values.push(v),
                _ if line.trim().is_empty() => {}
                _ => host.warn(&format!(
                    "{}:{}: skipped an unreadable line",
                    log_path.display(),
                    i + 1
                )),
            }
        }
        return Ok(Some(values));
    }
    Ok(None)
}

/// A question as asked: made once, shared by its n samples.
struct Question {
    prompt: String,
    id: String,
    row: Row,
}

struct Item {
    index: usize,
    sample: u64,
    question: Arc<Question>,
}

/// An `evaluation.json` record, serialised in the official key order without copying the
/// prompt.
#[derive(Serialize)]
struct Record<'a> {
    id: &'a str,
    task: &'static str,
    subtask: &'a Value,
    question: &'a str,
    generation: &'a Generation,
    gold: &'a str,
    pred: &'a Option<String>,
    result: Option<bool>,
    usage: Option<RecordUsage<'a>>,
}

#[derive(Serialize)]
struct RecordUsage<'a> {
    completion_tokens: Option<u64>,
    finish_reason: Option<&'a str>,
}

/// What one item ended with.
struct Outcome {
    generation: Generation,
    usage: Option<Usage>,
    judgement: Judgement,
}

/// What a finished run reports.
#[derive(Debug, Clone)]
pub struct MsqaSummary {
    pub tally: Tally,
    pub score: Value,
}

fn record<'a>(
    item: &'a Item,
    generation: &'a Generation,
    usage: Option<&'a Usage>,
    j: &'a Judgement,
) -> Record<'a> {
    let q = &item.question;
    Record {
        id: &q.id,
        task: "Material",
        subtask: &q.row.question_type,
        question: &q.prompt,
        generation,
        gold: &q.row.answer,
        pred: &j.pred,
        result: j.result,
        usage: usage.map(|u| RecordUsage {
            completion_tokens: u.completion_tokens,
            finish_reason: u.finish_reason.as_deref(),
        }),
    }
}

fn eval_record(item: &Item, generation: &Generation, usage: Option<&Usage>) -> EvalRecord {
    let q = &item.question;
    EvalRecord {
        id: q.id.clone(),
        subtask: q.row.question_type.as_str().map(String::from),
        gold: q.row.answer.clone(),
        generation: Some(generation.clone()),
        usage: usage.cloned(),
        stored_pred: None,
        stored_result: None,
        record: item.index + 1,
    }
}

/// A stored record worth reusing: generated, and judgeable.
fn reusable(stored: &Value) -> Option<(Generation, Option<Usage>)> {
    let generation: Generation = serde_json::from_value(stored["generation"].clone()).ok()?;
    if generation.is_empty() {
        return None;
    }
    let usage: Option<Usage> = serde_json::from_value(stored["usage"].clone()).ok()?;
    Some((generation, usage))
}

/// Run MSQA_Short. The upstream's name is recorded as `api_url` in score.json's `model.params`.
#[allow(clippy::too_many_arguments)]
pub async fn run(
    host: &dyn RunHost,
    options: &MsqaOptions,
    rows: Vec<Row>,
    previous: Option<Vec<Value>>,
    out_dir: &Path,
) -> Result<MsqaSummary, RunError> {
    options.check()?;
    check_size(&rows, options.n)?;
    // The upstream's name, never its URL: score.json is a file clients download.
    let api_url = host.upstream_name(&options.model).ok_or_else(|| {
        RunError::Input(format!(
            "model {:?} is not listed by any upstream in the config",
            options.model
        ))
    })?;
    host.create_dir_all(out_dir)?;

    let questions: Vec<Arc<Question>> = rows
        .into_iter()
        .map(|row| {
            let prompt = format!("{}{SUFFIX}", row.true_false_question);
            let id = hex::encode(Md5::digest(prompt.as_bytes()));
            Arc::new(Question { prompt, id, row })
        })
        .collect();
    let mut items = Vec::with_capacity(questions.len() * options.n as usize);
    for sample in 0..options.n {
        for question in &questions {
            items.push(Item {
                index: items.len(),
                sample,
                question: question.clone(),
            });
        }
    }
    let mut stored: HashMap<String, VecDeque<Value>> = HashMap::new();
    for v in previous.unwrap_or_default() {
        if let Some(id) = v["id"].as_str() {
            stored.entry(id.to_string()).or_default().push_back(v);
        }
    }
    // Each stored record is used once, in item order.
    let mut reuse: Vec<Option<(Generation, Option<Usage>)>> = Vec::with_capacity(items.len());
    for item in &items {
        let taken = stored
            .get_mut(&item.question.id)
            .and_then(VecDeque::pop_front);
        reuse.push(taken.as_ref().and_then(reusable));
    }
    host.counters().set_total(items.len() as u64);

    let log = host.log(&out_dir.join("evaluation.log"))?;
    let log = &*log;
    let mut futures = Vec::with_capacity(items.len());
    for (item, reused) in items.iter().zip(reuse) {
        futures.push(process(host, options, item, reused, log));
    }
    let results: Vec<Result<Outcome, RunError>> = futures_util::stream::iter(futures)
        .buffered(options.workers)
        .collect()
        .await;
    let outcomes = results.into_iter().collect::<Result<Vec<Outcome>, _>>()?;
    let mut tally = Tally::default();
    let mut subtasks: Vec<(&Value, Tally)> = Vec::new();
    for (item, outcome) in items.iter().zip(&outcomes) {
        let judgement = &outcome.judgement;
        tally.add(judgement);
        let subtask = &item.question.row.question_type;
        match subtasks.iter_mut().find(|(s, _)| *s == subtask) {
            Some((_, t)) => t.add(judgement),
            None => {
                let mut t = Tally::default();
                t.add(judgement);
                subtasks.push((subtask, t));
            }
        }
    }
    let records: Vec<Record> = items
        .iter()
        .zip(&outcomes)
        .map(|(item, o)| record(item, &o.generation, o.usage.as_ref(), &o.judgement))
        .collect();
    let mut params = Map::new();
    params.insert("api_url".into(), json!(api_url));
    params.insert("model".into(), json!(options.model));
    params.insert("timeout".into(), json!(options.timeout_secs));
    params.insert("temperature".into(), json!(options.temperature));
    params.insert("top_p".into(), json!(options.top_p));
    params.insert("max_tokens".into(), json!(options.max_tokens));
    params.insert("presence_penalty".into(), json!(options.presence_penalty));
    let score = official_score_json(&tally, &options.model, params).map_err(|e| {
        RunError::NoScore(format!(
            "no score.json: {e}; the official run.py stops here with ZeroDivisionError \
             ({} records, none generated; evaluation.log holds them)",
            tally.total
        ))
    })?;
    write_json(host, &out_dir.join("evaluation.json"), &records)?;
    write_json(host, &out_dir.join("score.json"), &score)?;
    let breakdown: Vec<Value> = subtasks
        .iter()
        .map(|(name, t)| {
            json!({
                "subtask": name,
                "total": t.total,
                "correct": t.correct,
                "accuracy": t.accuracy().ok(),
                "no_generation": t.no_generation,
                "truncated": t.truncated,
                "extraction_failure": t.extraction_failure,
                "average_completion_tokens": t.average_completion_tokens().ok(),
            })
        })
        .collect();
    write_json(
        host,
        &out_dir.join("subtasks.json"),
        &json!({"overall_score": score["evaluation"]["overall_score"], "by_subtask": breakdown}),
    )?;
    Ok(MsqaSummary { tally, score })
}

async fn process(
    host: &dyn RunHost,
    options: &MsqaOptions,
    item: &Item,
    reused: Option<(Generation, Option<Usage>)>,
    log: &dyn LineLog,
) -> Result<Outcome, RunError> {
    host.unpaused().await;
    let (generation, usage, was_reused) = match reused {
        Some((g, u)) => (g, u, true),
        None => generate(host, options, item).await?,
    };
    let eval = eval_record(item, &generation, usage.as_ref());
    let judgement = judge(&eval).unwrap_or(Judgement {
        outcome: metrics_core::msqa::Outcome::ExtractionFailure,
        pred: None,
        result: None,
        completion_tokens: usage.as_ref().and_then(|u| u.completion_tokens),
    });
    log.append(&record(item, &generation, usage.as_ref(), &judgement))?;
    host.counters().finished(was_reused, generation.is_empty());
    Ok(Outcome {
        generation,
        usage,
        judgement,
    })
}

/// Ask the model up to `attempts` times. Returns the generation (empty after the last failed
/// attempt), the usage for the record, and whether the cache answered.
async fn generate(
    host: &dyn RunHost,
    options: &MsqaOptions,
    item: &Item,
) -> Result<(Generation, Option<Usage>, bool), RunError> {
    let body = chat_body(
        &options.model,
        &item.question.prompt,
        &[
            ("max_tokens", options.max_tokens.map(|v| json!(v))),
            ("temperature", options.temperature.map(|v| json!(v))),
            ("top_p", options.top_p.map(|v| json!(v))),
            (
                "presence_penalty",
                options.presence_penalty.map(|v| json!(v)),
            ),
        ],
    );
    let accept = |reply: &Value| -> Result<(), String> {
        let (message, _) = first_choice(reply)?;
        normalise_reply(
            message["content"].as_str(),
            message["reasoning_content"].as_str(),
        )
        .map(|_| ())
        .map_err(|e| e.to_string())
    };
    let attempts = Attempts {
        attempts: options.attempts,
        timeout_secs: options.timeout_secs,
        wait_ms: options.retry_wait_ms,
    };
    let what = format!("request {}", item.question.id);
    let Some(answer) =
        ask_with_attempts(host, &body, item.sample, attempts, &accept, &what).await?
    else {
        return Ok((Generation::default(), None, false));
    };
    let (message, finish_reason) = first_choice(&answer.json).map_err(RunError::Internal)?;
    let generation = normalise_reply(
        message["content"].as_str(),
        message["reasoning_content"].as_str(),
    )
    .map_err(|e| RunError::Internal(e.to_string()))?;
    let usage = Usage {
        completion_tokens: answer.json["usage"]["completion_tokens"].as_u64(),
        finish_reason: finish_reason.map(String::from),
    };
    Ok((generation, Some(usage), answer.cached))
}
