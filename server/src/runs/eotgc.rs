//! EOTGC (NLPCC 2025 essay on-topic graded comments) runs: one chat completion per essay,
//! written as the shared task's submission file (`shared/specs/eotgc.md`).
//!
//! ```text
//! Track 1 prompt: instruction (answer one of 优秀/较好/一般/合格/不合格) + 年级 grade,
//!                 作文要求 requirement, 作文题目 title, 作文 content
//!         answer: metrics_core::eotgc::Level::parse of the stripped reply, else the first level
//!                 named in it (不合格 before 合格; English names too) → `track1.json`
//!                 [{id, classification}] with the Chinese label
//! Track 2 prompt: instruction (a comment of at most 250 characters) + the same fields
//!         answer: the stripped reply, cut to 250 Unicode characters → `track2.json` [{id, comment}]
//! ```
//! Policy (ours; the organisers published no runner): up to 3 attempts per essay; a reply with
//! no level (Track 1) or no text (Track 2) is written with `classification`/`comment` null and
//! listed in `unparsed.json` with the raw reply, so scoring names it rather than guessing.
//! Ids are written back as given (integer or string).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use clap::{Args, FromArgMatches};
use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use metrics_core::eotgc::format::Level;
use metrics_core::msqa::python_strip;
use serde_json::{Value, json};

use super::kind::{
    CliPlan, Common, Field, FieldKind, Form, Plan, RunKind, body_as, check_served, check_workers,
};
use super::progress::{
    JsonlLog, Progress, RunError, first_choice, parse_json_array, read_input, write_json,
};
use crate::cache::{Role, UsageTotals};
use crate::gateway::{Call, CallError, Gateway, Sample};
use crate::upstream::{Endpoint, RetryPolicy, UpstreamError};

/// `scorebench run eotgc`, `{"benchmark": "eotgc"}`.
pub struct Eotgc;

/// Arguments of `scorebench run eotgc`.
#[derive(Args, Debug)]
pub struct EotgcArgs {
    #[command(flatten)]
    common: Common,
    /// 1: relevance level per essay; 2: a comment of at most 250 characters
    #[arg(long)]
    track: u8,
}

/// The `POST /api/v1/runs` body.
use workbench::benchmarks::eotgc::RunRequest as EotgcBody;

impl RunKind for Eotgc {
    fn key(&self) -> &'static str {
        "eotgc"
    }

    fn label(&self) -> &'static str {
        "EOTGC: Track 1 levels or Track 2 comments, written as the shared task's submission file"
    }

    fn files(&self) -> &'static [&'static str] {
        &["track1.json", "track2.json", "unparsed.json", "replies.log"]
    }

    fn args(&self, command: clap::Command) -> clap::Command {
        EotgcArgs::augment_args(command)
    }

    fn plan_from_args(&self, matches: &clap::ArgMatches) -> Result<CliPlan, clap::Error> {
        let args = EotgcArgs::from_arg_matches(matches)?;
        let c = args.common;
        Ok(CliPlan {
            config: Some(c.config),
            db: c.db,
            out: c.out,
            plan: Box::new(EotgcPlan {
                model: c.model,
                track: args.track,
                workers: c.workers,
                max_tokens: c.max_tokens,
                temperature: c.temperature,
                top_p: c.top_p,
                timeout_secs: c.timeout,
                retry_wait_ms: c.retry_wait_ms,
                source: Source::File(c.dataset),
            }),
        })
    }

    fn over_http(&self) -> bool {
        true
    }

    fn form(&self) -> Option<&'static Form> {
        static FORM: Form = Form {
            fields: &[
                Field::with(
                    "track",
                    FieldKind::Choice,
                    "track (1: levels, 2: comments)",
                    true,
                    Some(1),
                    &[1, 2],
                ),
                Field::new("dataset", FieldKind::Records, "test essays (JSON)"),
                Field::new("model", FieldKind::Model, "model"),
                Field::WORKERS,
            ],
            open: &["track1.json", "track2.json"],
            open_inputs: &["dataset"],
        };
        Some(&FORM)
    }

    fn plan_from_body(&self, body: Value, gateway: &Gateway) -> Result<Box<dyn Plan>, RunError> {
        let body: EotgcBody = body_as(body)?;
        check_served(gateway, &body.model)?;
        Track::from_number(body.track)?;
        let essays = essays_from_values("dataset", body.dataset)?;
        check_workers(body.workers)?;
        Ok(Box::new(EotgcPlan {
            model: body.model,
            track: body.track,
            workers: body.workers,
            max_tokens: body.max_tokens,
            temperature: body.temperature,
            top_p: body.top_p,
            timeout_secs: body.timeout_secs,
            retry_wait_ms: body.retry_wait_ms,
            source: Source::Essays(essays),
        }))
    }
}

enum Source {
    Essays(Vec<Essay>),
    File(PathBuf),
}

/// A run as asked for; the track is checked when it starts (CLI) or before (HTTP).
struct EotgcPlan {
    model: String,
    track: u8,
    workers: usize,
    max_tokens: Option<u64>,
    temperature: Option<f64>,
    top_p: Option<f64>,
    timeout_secs: u64,
    retry_wait_ms: u64,
    source: Source,
}

impl Plan for EotgcPlan {
    fn model(&self) -> String {
        self.model.clone()
    }

    fn load(&mut self, _out_dir: &Path) -> Result<(), RunError> {
        Track::from_number(self.track)?;
        if let Source::File(path) = &self.source {
            let essays = parse_essays(&path.display().to_string(), &read_input(path)?)?;
            self.source = Source::Essays(essays);
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
            plan.load(out_dir)?;
            let track = Track::from_number(plan.track)?;
            let Source::Essays(essays) = plan.source else {
                return Err(RunError::Internal("the essays were not loaded".into()));
            };
            let options = EotgcOptions {
                model: plan.model,
                track,
                workers: plan.workers,
                max_tokens: plan.max_tokens,
                temperature: plan.temperature,
                top_p: plan.top_p,
                timeout_secs: plan.timeout_secs,
                attempts: 3,
                retry_wait_ms: plan.retry_wait_ms,
            };
            let s = run(gateway, &options, essays, out_dir, progress).await?;
            Ok(format!(
                "EOTGC track {}: {} essays, {} without a usable answer; {}",
                track.number(),
                s.total,
                s.unparsed,
                out_dir.join(track.file_name()).display()
            ))
        })
    }
}

/// Longest Track 2 comment, in Unicode characters.
pub const MAX_COMMENT_CHARS: usize = 250;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
pub enum Track {
    #[serde(rename = "1")]
    One,
    #[serde(rename = "2")]
    Two,
}

impl Track {
    pub fn from_number(n: u8) -> Result<Track, RunError> {
        match n {
            1 => Ok(Track::One),
            2 => Ok(Track::Two),
            other => Err(RunError::Input(format!(
                "--track must be 1 or 2, got {other}"
            ))),
        }
    }

    pub fn number(self) -> u8 {
        match self {
            Track::One => 1,
            Track::Two => 2,
        }
    }

    pub fn file_name(self) -> &'static str {
        match self {
            Track::One => "track1.json",
            Track::Two => "track2.json",
        }
    }
}

#[derive(Debug, Clone)]
pub struct EotgcOptions {
    pub model: String,
    pub track: Track,
    pub workers: usize,
    pub max_tokens: Option<u64>,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub timeout_secs: u64,
    pub attempts: u32,
    pub retry_wait_ms: u64,
}

/// One test essay.
#[derive(Debug, Clone)]
pub struct Essay {
    pub id: Value,
    pub grade: String,
    pub requirement: String,
    pub title: String,
    pub content: String,
}

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Parse the test file (`[{id, grade, requirement, title, content}]`).
pub fn parse_essays(file: &str, text: &str) -> Result<Vec<Essay>, RunError> {
    let values = parse_json_array(file, text, "essays")?;
    essays_from_values(file, values)
}

pub fn essays_from_values(file: &str, values: Vec<Value>) -> Result<Vec<Essay>, RunError> {
    if values.is_empty() {
        return Err(RunError::Input(format!("{file}: no essays")));
    }
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            let field = |k: &str| {
                text_of(&v[k]).ok_or_else(|| {
                    RunError::Input(format!(
                        "{file}: record {}: no {k:?} (string or number)",
                        i + 1
                    ))
                })
            };
            let id = v["id"].clone();
            if text_of(&id).is_none() {
                return Err(RunError::Input(format!(
                    "{file}: record {}: no \"id\"",
                    i + 1
                )));
            }
            Ok(Essay {
                id,
                grade: field("grade")?,
                requirement: field("requirement")?,
                title: field("title")?,
                content: field("content")?,
            })
        })
        .collect()
}

/// The prompt for one essay.
pub fn prompt(track: Track, essay: &Essay) -> String {
    let instruction = match track {
        Track::One => {
            "你是一名中小学语文老师。请判断下面这篇作文与作文要求和题目的切题程度，\
             只回答一个等级：优秀、较好、一般、合格、不合格。不要输出其他内容。"
        }
        Track::Two => {
            "你是一名中小学语文老师。请针对下面这篇作文与作文要求和题目的切题程度，\
             写一段不超过250个字的评语。只输出评语本身。"
        }
    };
    format!(
        "{instruction}\n年级：{}\n作文要求：{}\n作文题目：{}\n作文：\n{}",
        essay.grade, essay.requirement, essay.title, essay.content
    )
}

/// The level a reply names: the whole reply as a label, else the first level mentioned.
pub fn extract_level(reply: &str) -> Option<Level> {
    let reply = python_strip(reply);
    if let Some(level) = Level::parse(reply.trim_end_matches(['。', '.'])) {
        return Some(level);
    }
    let lower = reply.to_lowercase();
    let names: [(&str, Level); 11] = [
        ("不合格", Level::Unqualified),
        ("优秀", Level::Excellent),
        ("较好", Level::Good),
        ("一般", Level::Average),
        ("合格", Level::Qualified),
        ("unqualified", Level::Unqualified),
        ("outstanding", Level::Excellent),
        ("excellent", Level::Excellent),
        ("good", Level::Good),
        ("average", Level::Average),
        ("qualified", Level::Qualified),
    ];
    names
        .iter()
        .filter_map(|(name, level)| lower.find(name).map(|at| (at, *name, *level)))
        // earliest mention; at the same place the longer name (不合格 over 合格)
        .min_by_key(|(at, name, _)| (*at, std::cmp::Reverse(name.len())))
        .map(|(_, _, level)| level)
}

/// Cut to at most `MAX_COMMENT_CHARS` Unicode characters.
pub fn clip_comment(reply: &str) -> String {
    python_strip(reply)
        .chars()
        .take(MAX_COMMENT_CHARS)
        .collect()
}

#[derive(Debug, Clone)]
pub struct EotgcSummary {
    pub total: usize,
    pub unparsed: usize,
}

/// Run one track over the essays; writes `track1.json` or `track2.json`, `unparsed.json` and
/// `replies.log` (JSONL: id and raw reply, one line per finished essay).
pub async fn run(
    gateway: &Gateway,
    options: &EotgcOptions,
    essays: Vec<Essay>,
    out_dir: &Path,
    progress: Arc<Progress>,
) -> Result<EotgcSummary, RunError> {
    check_workers(options.workers)?;
    if gateway.upstreams.route(&options.model).is_none() {
        return Err(RunError::Input(format!(
            "model {:?} is not listed by any upstream in the config",
            options.model
        )));
    }
    std::fs::create_dir_all(out_dir).map_err(|e| RunError::io(out_dir, e))?;
    progress.total.store(essays.len() as u64, Ordering::Relaxed);
    let log = Arc::new(JsonlLog::create(out_dir.join("replies.log"))?);
    let mut futures = Vec::with_capacity(essays.len());
    for essay in &essays {
        futures.push(process(
            gateway,
            options,
            essay,
            log.clone(),
            progress.clone(),
        ));
    }
    let results: Vec<Result<(Value, Option<Value>), RunError>> =
        futures_util::stream::iter(futures)
            .buffered(options.workers)
            .collect()
            .await;
    let mut entries = Vec::new();
    let mut problems = Vec::new();
    for r in results {
        let (entry, problem) = r?;
        entries.push(entry);
        problems.extend(problem);
    }
    write_json(
        &out_dir.join(options.track.file_name()),
        &Value::Array(entries),
    )?;
    let unparsed = problems.len();
    write_json(&out_dir.join("unparsed.json"), &Value::Array(problems))?;
    Ok(EotgcSummary {
        total: essays.len(),
        unparsed,
    })
}

async fn process(
    gateway: &Gateway,
    options: &EotgcOptions,
    essay: &Essay,
    log: Arc<JsonlLog>,
    progress: Arc<Progress>,
) -> Result<(Value, Option<Value>), RunError> {
    progress.wait_if_paused().await;
    let (reply, cached) = ask(gateway, options, essay, &progress).await?;
    let (entry, unparsed) = match options.track {
        Track::One => {
            let level = reply.as_deref().and_then(extract_level);
            let entry = json!({"id": essay.id, "classification": level.map(Level::chinese)});
            (entry, level.is_none())
        }
        Track::Two => {
            let comment = reply.as_deref().map(clip_comment).filter(|c| !c.is_empty());
            let none = comment.is_none();
            (json!({"id": essay.id, "comment": comment}), none)
        }
    };
    log.append(&json!({"id": essay.id, "reply": reply}))?;
    if cached {
        progress.reused.fetch_add(1, Ordering::Relaxed);
    }
    if unparsed {
        progress.failed.fetch_add(1, Ordering::Relaxed);
    }
    progress.done.fetch_add(1, Ordering::Relaxed);
    let problem = unparsed.then(|| json!({"id": essay.id, "reply": reply}));
    Ok((entry, problem))
}

async fn ask(
    gateway: &Gateway,
    options: &EotgcOptions,
    essay: &Essay,
    progress: &Progress,
) -> Result<(Option<String>, bool), RunError> {
    let mut body = json!({
        "model": options.model,
        "messages": [{"role": "user", "content": prompt(options.track, essay)}],
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
    }
    let accept = |reply: &Value| first_choice(reply).map(|_| ());
    for attempt in 1..=options.attempts.max(1) {
        let call = Call {
            endpoint: Endpoint::ChatCompletions,
            body: body.clone(),
            sample: Sample::Fixed(0),
            use_cache: attempt == 1,
            policy: Some(RetryPolicy {
                max_attempts: 1,
                backoff_ms: 0,
                timeout_secs: Some(options.timeout_secs),
            }),
        };
        match gateway.call_json(call, accept).await {
            Ok(answer) => {
                record(gateway, progress, &answer.usage).await;
                let (message, _) = first_choice(&answer.json).map_err(RunError::Internal)?;
                let content = message["content"].as_str().map(|c| {
                    // a reasoning model's <think>…</think> is not the answer
                    match c.rsplit_once("</think>") {
                        Some((_, after)) => after.to_string(),
                        None => c.to_string(),
                    }
                });
                return Ok((content, answer.cached));
            }
            Err(CallError::Cache(e)) => return Err(RunError::Internal(e.to_string())),
            Err(e) => {
                let calls = match &e {
                    CallError::Status { attempts, .. }
                    | CallError::Upstream(UpstreamError::Transport { attempts, .. }) => *attempts,
                    CallError::NotJson { .. } | CallError::Refused { .. } => 1,
                    _ => 0,
                };
                record(
                    gateway,
                    progress,
                    &UsageTotals {
                        upstream_calls: u64::from(calls),
                        ..UsageTotals::default()
                    },
                )
                .await;
                tracing::warn!(attempt, "essay request failed: {e}");
                if attempt < options.attempts && options.retry_wait_ms > 0 {
                    tokio::time::sleep(Duration::from_millis(options.retry_wait_ms)).await;
                }
            }
        }
    }
    Ok((None, false))
}

async fn record(gateway: &Gateway, progress: &Progress, delta: &UsageTotals) {
    progress.add_usage(Role::Model, delta);
    if let Err(e) = gateway
        .cache
        .add_usage(progress.id.clone(), Role::Model, *delta)
        .await
    {
        tracing::warn!("cannot record token use: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_from_replies() {
        assert_eq!(extract_level("优秀"), Some(Level::Excellent));
        assert_eq!(extract_level(" 不合格。"), Some(Level::Unqualified));
        assert_eq!(extract_level("等级：合格"), Some(Level::Qualified));
        assert_eq!(extract_level("这篇作文不合格"), Some(Level::Unqualified));
        assert_eq!(extract_level("Good"), Some(Level::Good));
        assert_eq!(extract_level("unqualified essay"), Some(Level::Unqualified));
        assert_eq!(extract_level("无法判断"), None);
    }

    #[test]
    fn comments_are_cut_to_250_characters() {
        let long: String = "好".repeat(300);
        assert_eq!(clip_comment(&long).chars().count(), 250);
        assert_eq!(clip_comment("  短评  "), "短评");
    }
}
