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
use std::sync::atomic::Ordering;
use std::time::Duration;

use clap::Args;
use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use md5::{Digest, Md5};
use metrics_core::msqa::{
    EvalRecord, Generation, Judgement, Tally, Usage, judge, normalise_reply, official_score_json,
};
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::kind::{
    CliPlan, Common, Field, FieldKind, Form, Plan, RunKind, body_as, check_served, check_workers,
};
use super::progress::{
    JsonlLog, Progress, RunError, first_choice, parse_json_array, read_input, write_json,
};
use crate::cache::{Role, UsageTotals};
use crate::gateway::{Call, CallError, Gateway, Sample};
use crate::upstream::{Endpoint, RetryPolicy, UpstreamError};

/// Most items (n × rows) one run holds.
pub const MAX_ITEMS: u64 = 1_000_000;
/// Most prompt text one run sends and writes (n × Σ prompt bytes).
pub const MAX_PROMPT_BYTES: u64 = 256 * 1024 * 1024;

/// `scorebench run msqa`, `{"benchmark": "msqa"}`.
pub struct Msqa;

/// Arguments of `scorebench run msqa`.
#[derive(Args, Debug)]
pub struct MsqaArgs {
    #[command(flatten)]
    common: Common,
    /// Samples per question (records in sample-major order)
    #[arg(long, default_value_t = 1)]
    n: u64,
    #[arg(long)]
    presence_penalty: Option<f64>,
    /// An earlier run's folder to resume from (default: --out itself)
    #[arg(long)]
    resume: Option<PathBuf>,
}

/// The `POST /api/v1/runs` body (`benchmark` aside).
#[derive(serde::Deserialize)]
struct MsqaBody {
    /// The rows of `MSQA_Dataset.json`.
    dataset: Vec<Value>,
    #[serde(flatten)]
    options: MsqaOptions,
}

impl RunKind for Msqa {
    fn key(&self) -> &'static str {
        "msqa"
    }

    fn label(&self) -> &'static str {
        "MSQA_Short, the official procedure: evaluation.json, score.json, subtasks.json"
    }

    fn files(&self) -> &'static [&'static str] {
        &[
            "evaluation.json",
            "evaluation.log",
            "score.json",
            "subtasks.json",
        ]
    }

    fn args(&self, command: clap::Command) -> clap::Command {
        MsqaArgs::augment_args(command)
    }

    fn plan_from_args(&self, matches: &clap::ArgMatches) -> Result<CliPlan, RunError> {
        let args = crate::runs::kind::parsed::<MsqaArgs>(matches)?;
        let c = args.common;
        let options = MsqaOptions {
            model: c.model,
            n: args.n,
            workers: c.workers,
            max_tokens: c.max_tokens,
            temperature: c.temperature,
            top_p: c.top_p,
            presence_penalty: args.presence_penalty,
            timeout_secs: c.timeout,
            attempts: 3,
            retry_wait_ms: c.retry_wait_ms,
        };
        Ok(CliPlan {
            config: Some(c.config),
            db: c.db,
            out: c.out,
            plan: Box::new(MsqaPlan {
                options,
                source: Source::Files {
                    dataset: c.dataset,
                    resume: args.resume,
                },
            }),
        })
    }

    fn over_http(&self) -> bool {
        true
    }

    fn form(&self) -> Option<&'static Form> {
        static FORM: Form = Form {
            fields: &[
                Field::new("dataset", FieldKind::Records, "dataset (MSQA_Dataset.json)"),
                Field::new("model", FieldKind::Model, "model"),
                Field::integer("n", "samples per question", 1),
                Field::WORKERS,
            ],
            open: &["evaluation.json"],
            open_inputs: &[],
        };
        Some(&FORM)
    }

    fn plan_from_body(&self, body: Value, gateway: &Gateway) -> Result<Box<dyn Plan>, RunError> {
        let MsqaBody { dataset, options } = body_as(body)?;
        check_served(gateway, &options.model)?;
        options.check()?;
        let rows = rows_from_values("dataset", dataset)?;
        check_size(&rows, options.n)?;
        Ok(Box::new(MsqaPlan {
            options,
            source: Source::Rows(rows, None),
        }))
    }
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

impl Plan for MsqaPlan {
    fn model(&self) -> String {
        self.options.model.clone()
    }

    fn load(
        &mut self,
        _gateway: &Gateway,
        _progress: &Arc<Progress>,
        out_dir: &Path,
    ) -> Result<(), RunError> {
        if let Source::Files { dataset, resume } = &self.source {
            let rows = parse_dataset(&dataset.display().to_string(), &read_input(dataset)?)?;
            let previous = read_previous(resume.as_deref().unwrap_or(out_dir))?;
            self.source = Source::Rows(rows, previous);
        }
        Ok(())
    }

    fn execute<'a>(
        self: Box<Self>,
        gateway: &'a Gateway,
        out_dir: &'a Path,
        progress: Arc<Progress>,
    ) -> BoxFuture<'a, Result<String, RunError>> {
        Box::pin(async move {
            let mut plan = *self;
            plan.load(gateway, &progress, out_dir)?;
            let Source::Rows(rows, previous) = plan.source else {
                return Err(RunError::Internal("the dataset was not loaded".into()));
            };
            let options = plan.options;
            let summary = run(gateway, &options, rows, previous, out_dir, progress).await?;
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
#[derive(Debug, Clone, serde::Deserialize)]
pub struct MsqaOptions {
    pub model: String,
    #[serde(default = "one")]
    pub n: u64,
    #[serde(default = "default_workers")]
    pub workers: usize,
    #[serde(default)]
    pub max_tokens: Option<u64>,
    #[serde(default)]
    pub temperature: Option<f64>,
    #[serde(default)]
    pub top_p: Option<f64>,
    #[serde(default)]
    pub presence_penalty: Option<f64>,
    /// Per-request timeout (official default 3600 s).
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
    /// Attempts per request (official: 3).
    #[serde(default = "default_attempts")]
    pub attempts: u32,
    /// Wait between attempts (official: 10 s).
    #[serde(default = "default_wait")]
    pub retry_wait_ms: u64,
}

fn one() -> u64 {
    1
}
fn default_workers() -> usize {
    8
}
fn default_timeout() -> u64 {
    3600
}
fn default_attempts() -> u32 {
    3
}
fn default_wait() -> u64 {
    10_000
}

impl MsqaOptions {
    pub fn check(&self) -> Result<(), RunError> {
        if self.n == 0 || self.n > 1000 {
            return Err(RunError::Input("n must be between 1 and 1000".into()));
        }
        check_workers(self.workers)?;
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
pub fn read_previous(dir: &Path) -> Result<Option<Vec<Value>>, RunError> {
    let json_path = dir.join("evaluation.json");
    if json_path.is_file() {
        let text = std::fs::read_to_string(&json_path).map_err(|e| RunError::io(&json_path, e))?;
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
    if log_path.is_file() {
        let text = std::fs::read_to_string(&log_path).map_err(|e| RunError::io(&log_path, e))?;
        let mut values = Vec::new();
        for (i, line) in text.lines().enumerate() {
            match serde_json::from_str::<Value>(line) {
                Ok(v) if v["id"].is_string() => values.push(v),
                _ if line.trim().is_empty() => {}
                _ => tracing::warn!(
                    "{}:{}: skipped an unreadable line",
                    log_path.display(),
                    i + 1
                ),
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
    gateway: &Gateway,
    options: &MsqaOptions,
    rows: Vec<Row>,
    previous: Option<Vec<Value>>,
    out_dir: &Path,
    progress: Arc<Progress>,
) -> Result<MsqaSummary, RunError> {
    options.check()?;
    check_size(&rows, options.n)?;
    let upstream = gateway.upstreams.route(&options.model).ok_or_else(|| {
        RunError::Input(format!(
            "model {:?} is not listed by any upstream in the config",
            options.model
        ))
    })?;
    // The upstream's name, never its URL: score.json is a file clients download.
    let api_url = upstream.config.name.clone();
    std::fs::create_dir_all(out_dir).map_err(|e| RunError::io(out_dir, e))?;

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
    progress.total.store(items.len() as u64, Ordering::Relaxed);

    let log = Arc::new(JsonlLog::create(out_dir.join("evaluation.log"))?);
    let mut futures = Vec::with_capacity(items.len());
    for (item, reused) in items.iter().zip(reuse) {
        futures.push(process(
            gateway,
            options,
            item,
            reused,
            log.clone(),
            progress.clone(),
        ));
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
    write_json(&out_dir.join("evaluation.json"), &records)?;
    write_json(&out_dir.join("score.json"), &score)?;
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
        &out_dir.join("subtasks.json"),
        &json!({"overall_score": score["evaluation"]["overall_score"], "by_subtask": breakdown}),
    )?;
    Ok(MsqaSummary { tally, score })
}

async fn process(
    gateway: &Gateway,
    options: &MsqaOptions,
    item: &Item,
    reused: Option<(Generation, Option<Usage>)>,
    log: Arc<JsonlLog>,
    progress: Arc<Progress>,
) -> Result<Outcome, RunError> {
    progress.wait_if_paused().await;
    let (generation, usage, was_reused) = match reused {
        Some((g, u)) => (g, u, true),
        None => generate(gateway, options, item, &progress).await?,
    };
    let eval = eval_record(item, &generation, usage.as_ref());
    let judgement = judge(&eval).unwrap_or(Judgement {
        outcome: metrics_core::msqa::Outcome::ExtractionFailure,
        pred: None,
        result: None,
        completion_tokens: usage.as_ref().and_then(|u| u.completion_tokens),
    });
    log.append(&record(item, &generation, usage.as_ref(), &judgement))?;
    if was_reused {
        progress.reused.fetch_add(1, Ordering::Relaxed);
    }
    if generation.is_empty() {
        progress.failed.fetch_add(1, Ordering::Relaxed);
    }
    progress.done.fetch_add(1, Ordering::Relaxed);
    Ok(Outcome {
        generation,
        usage,
        judgement,
    })
}

/// Ask the model up to `attempts` times. Returns the generation (empty after the last failed
/// attempt), the usage for the record, and whether the cache answered.
async fn generate(
    gateway: &Gateway,
    options: &MsqaOptions,
    item: &Item,
    progress: &Progress,
) -> Result<(Generation, Option<Usage>, bool), RunError> {
    let mut body = json!({
        "model": options.model,
        "messages": [{"role": "user", "content": item.question.prompt}],
    });
    if let Some(map) = body.as_object_mut() {
        if let Some(v) = options.max_tokens {
            map.insert("max_tokens".into(), json!(v));
        }
        if let Some(v) = options.temperature {
            map.insert("temperature".into(), json!(v));
        }
        if let Some(v) = options.top_p {
            map.insert("top_p".into(), json!(v));
        }
        if let Some(v) = options.presence_penalty {
            map.insert("presence_penalty".into(), json!(v));
        }
    }
    let accept = |reply: &Value| -> Result<(), String> {
        let (message, _) = first_choice(reply)?;
        normalise_reply(
            message["content"].as_str(),
            message["reasoning_content"].as_str(),
        )
        .map(|_| ())
        .map_err(|e| e.to_string())
    };
    for attempt in 1..=options.attempts {
        let call = Call {
            endpoint: Endpoint::ChatCompletions,
            body: body.clone(),
            sample: Sample::Fixed(item.sample),
            use_cache: attempt == 1,
            policy: Some(RetryPolicy {
                max_attempts: 1,
                backoff_ms: 0,
                timeout_secs: Some(options.timeout_secs),
            }),
        };
        match gateway.call_json(call, accept).await {
            Ok(answer) => {
                record_usage(gateway, progress, &answer.usage).await;
                let (message, finish_reason) =
                    first_choice(&answer.json).map_err(RunError::Internal)?;
                let generation = normalise_reply(
                    message["content"].as_str(),
                    message["reasoning_content"].as_str(),
                )
                .map_err(|e| RunError::Internal(e.to_string()))?;
                let usage = Usage {
                    completion_tokens: answer.json["usage"]["completion_tokens"].as_u64(),
                    finish_reason: finish_reason.map(String::from),
                };
                return Ok((generation, Some(usage), answer.cached));
            }
            Err(CallError::Cache(e)) => return Err(RunError::Internal(e.to_string())),
            Err(e) => {
                let calls = match &e {
                    CallError::Status { attempts, .. }
                    | CallError::Upstream(UpstreamError::Transport { attempts, .. }) => *attempts,
                    CallError::NotJson { .. } | CallError::Refused { .. } => 1,
                    _ => 0,
                };
                let failed = UsageTotals {
                    upstream_calls: u64::from(calls),
                    ..UsageTotals::default()
                };
                record_usage(gateway, progress, &failed).await;
                tracing::warn!(id = %item.question.id, attempt, "request failed: {e}");
                if attempt < options.attempts && options.retry_wait_ms > 0 {
                    tokio::time::sleep(Duration::from_millis(options.retry_wait_ms)).await;
                }
            }
        }
    }
    Ok((Generation::default(), None, false))
}

async fn record_usage(gateway: &Gateway, progress: &Progress, delta: &UsageTotals) {
    progress.add_usage(Role::Model, delta);
    if let Err(e) = gateway
        .cache
        .add_usage(progress.id.clone(), Role::Model, *delta)
        .await
    {
        tracing::warn!("cannot record token use: {e}");
    }
}
