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

use std::path::Path;

use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use metrics_core::eotgc::format::Level;
use metrics_core::msqa::python_strip;
use serde_json::{Value, json};

use crate::runs::{
    Attempts, CONFIG, Executes, Input, MAX_TOKENS, MODEL, PageForm, Param, ParamKind, RunError,
    RunHost, RunPlan, RunSpec, RunValues, TEMPERATURE, TOP_P, WORKERS, ask_with_attempts,
    chat_body, db, first_choice, out, parse_json_array, retry_wait, timeout, write_json,
};

/// `scorebench run eotgc`, `{"benchmark": "eotgc"}`.
pub static RUN: RunSpec = RunSpec {
    key: "eotgc",
    label: "EOTGC: Track 1 levels or Track 2 comments, written as the shared task's submission file",
    files: &["track1.json", "track2.json", "unparsed.json", "replies.log"],
    params: &[
        CONFIG,
        db("SQLite database holding the reply cache (what makes a killed run resume for free)"),
        MODEL,
        Param::new("dataset", "The dataset file", ParamKind::Records).label("test essays (JSON)"),
        out("Output folder (created); an earlier run's files there are reused"),
        WORKERS,
        MAX_TOKENS,
        TEMPERATURE,
        TOP_P,
        timeout(3600),
        retry_wait(10_000),
        Param::new(
            "track",
            "1: relevance level per essay; 2: a comment of at most 250 characters",
            ParamKind::Pick {
                choices: &[1, 2],
                shown: 1,
            },
        )
        .label("track (1: levels, 2: comments)"),
    ],
    page: Some(PageForm {
        open: &["track1.json", "track2.json"],
        open_inputs: &["dataset"],
    }),
    executes: Executes::Models,
    plan,
};

/// Attempts per essay.
const ATTEMPTS: u32 = 3;

fn plan(values: RunValues) -> Result<Box<dyn RunPlan>, RunError> {
    let track = values.count("track")?;
    let source = values.records("dataset")?;
    let essays = match source {
        // Checked before a run over HTTP starts (a command line's file is read when it runs).
        Input::Given(values) => {
            Track::from_number(track)?;
            Source::Essays(essays_from_values("dataset", values)?)
        }
        Input::Path(path) => Source::File(path),
    };
    Ok(Box::new(EotgcPlan {
        model: values.text("model")?,
        track,
        workers: values.workers()?,
        max_tokens: values.optional_count("max_tokens")?,
        temperature: values.number("temperature")?,
        top_p: values.number("top_p")?,
        attempts: Attempts {
            attempts: ATTEMPTS,
            timeout_secs: values.count("timeout_secs")?,
            wait_ms: values.count("retry_wait_ms")?,
        },
        source: essays,
    }))
}

enum Source {
    Essays(Vec<Essay>),
    File(std::path::PathBuf),
}

/// A run as asked for; the track is checked when it starts (CLI) or before (HTTP).
struct EotgcPlan {
    model: String,
    track: u64,
    workers: usize,
    max_tokens: Option<u64>,
    temperature: Option<f64>,
    top_p: Option<f64>,
    attempts: Attempts,
    source: Source,
}

impl RunPlan for EotgcPlan {
    fn model(&self) -> String {
        self.model.clone()
    }

    fn load(&mut self, host: &dyn RunHost, _out_dir: &Path) -> Result<(), RunError> {
        Track::from_number(self.track)?;
        if let Source::File(path) = &self.source {
            let essays = parse_essays(&path.display().to_string(), &host.read(path)?)?;
            self.source = Source::Essays(essays);
        }
        Ok(())
    }

    fn execute<'a>(
        mut self: Box<Self>,
        host: &'a dyn RunHost,
        out_dir: &'a Path,
    ) -> BoxFuture<'a, Result<String, RunError>> {
        Box::pin(async move {
            self.load(host, out_dir)?;
            let plan = *self;
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
                attempts: plan.attempts,
            };
            let s = run(host, &options, essays, out_dir).await?;
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

/// Most characters of a Track 2 comment.
pub const MAX_COMMENT_CHARS: usize = 250;

/// Which track a run answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Track {
    One,
    Two,
}

impl Track {
    pub fn from_number(n: u64) -> Result<Track, RunError> {
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

/// How a run asks.
#[derive(Debug, Clone)]
pub struct EotgcOptions {
    pub model: String,
    pub track: Track,
    pub workers: usize,
    pub max_tokens: Option<u64>,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub attempts: Attempts,
}

/// One essay of the test set.
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

/// The test set's essays (a JSON array of `{id, grade, requirement, title, content}`);
/// problems name the file and record.
pub fn parse_essays(file: &str, text: &str) -> Result<Vec<Essay>, RunError> {
    let values = parse_json_array(file, text, "essays")?;
    essays_from_values(file, values)
}

/// Essays from already parsed JSON values.
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

/// The prompt of an essay.
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

/// The level a reply names: the whole stripped reply when it is one, else the first level named
/// in it (the longer name first at the same place: 不合格 before 合格).
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
        .min_by_key(|(at, name, _)| (*at, std::cmp::Reverse(name.len())))
        .map(|(_, _, level)| level)
}

/// A Track 2 comment: the stripped reply, cut to [`MAX_COMMENT_CHARS`] characters.
pub fn clip_comment(reply: &str) -> String {
    python_strip(reply)
        .chars()
        .take(MAX_COMMENT_CHARS)
        .collect()
}

/// What a finished run reports.
#[derive(Debug, Clone)]
pub struct EotgcSummary {
    pub total: usize,
    pub unparsed: usize,
}

/// Ask for every essay (`workers` at a time), write the submission file and `unparsed.json`.
pub async fn run(
    host: &dyn RunHost,
    options: &EotgcOptions,
    essays: Vec<Essay>,
    out_dir: &Path,
) -> Result<EotgcSummary, RunError> {
    if host.upstream_name(&options.model).is_none() {
        return Err(RunError::Input(format!(
            "model {:?} is not listed by any upstream in the config",
            options.model
        )));
    }
    host.create_dir_all(out_dir)?;
    host.counters().set_total(essays.len() as u64);
    let log = host.log(&out_dir.join("replies.log"))?;
    let log = &*log;
    let mut futures = Vec::with_capacity(essays.len());
    for essay in &essays {
        futures.push(process(host, options, essay, log));
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
        host,
        &out_dir.join(options.track.file_name()),
        &Value::Array(entries),
    )?;
    let unparsed = problems.len();
    write_json(
        host,
        &out_dir.join("unparsed.json"),
        &Value::Array(problems),
    )?;
    Ok(EotgcSummary {
        total: essays.len(),
        unparsed,
    })
}

async fn process(
    host: &dyn RunHost,
    options: &EotgcOptions,
    essay: &Essay,
    log: &dyn crate::runs::LineLog,
) -> Result<(Value, Option<Value>), RunError> {
    host.unpaused().await;
    let body = chat_body(
        &options.model,
        &prompt(options.track, essay),
        &[
            ("max_tokens", options.max_tokens.map(|v| json!(v))),
            ("temperature", options.temperature.map(|v| json!(v))),
            ("top_p", options.top_p.map(|v| json!(v))),
        ],
    );
    let accept = |reply: &Value| first_choice(reply).map(|_| ());
    let answer =
        ask_with_attempts(host, &body, 0, options.attempts, &accept, "essay request").await?;
    let cached = answer.as_ref().is_some_and(|a| a.cached);
    let reply = match &answer {
        Some(answer) => {
            let (message, _) = first_choice(&answer.json).map_err(RunError::Internal)?;
            message["content"].as_str().map(|c| {
                // a reasoning model's <think>…</think> is not the answer
                match c.rsplit_once("</think>") {
                    Some((_, after)) => after.to_string(),
                    None => c.to_string(),
                }
            })
        }
        None => None,
    };
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
    host.counters().finished(cached, unparsed);
    let problem = unparsed.then(|| json!({"id": essay.id, "reply": reply}));
    Ok((entry, problem))
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
