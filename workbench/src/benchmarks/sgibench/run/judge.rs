//! What the SGI-Bench judge runs share: one judge call, the judge list's reading, the judge
//! params and options, reading the step log, asking in order with `workers` at a time, and the
//! summary (the rules are in [`super`]'s doc).

use std::path::{Path, PathBuf};

use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use serde_json::{Map, Value, json};

use crate::runs::{
    AskError, CONFIG, Endpoint, Input, Param, ParamKind, Request, RunError, RunHost, RunPlan,
    RunValues, Spender, WORKERS, db, first_choice, out,
};

/// The official judge system message (`utils.LLM.__call__` default).
pub const SYSTEM_PROMPT: &str = "You are a helpful assistant.";

/// What a judge call gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JudgeReply {
    Text(String),
    /// A reply whose `content` is null.
    NoContent,
    /// The call failed after the upstream's retries (the official `except:` path).
    Failed(String),
}

impl JudgeReply {
    pub fn text(&self) -> Option<&str> {
        match self {
            JudgeReply::Text(t) => Some(t),
            _ => None,
        }
    }
}

/// Ask a judge model (its tokens count under `judge`): the reply and whether the cache gave
/// it. An upstream failure is a [`JudgeReply::Failed`]; only an unknown model or a cache
/// failure is an error.
pub async fn ask_judge(
    host: &dyn RunHost,
    model: &str,
    temperature: Option<f64>,
    prompt: &str,
    sample: u64,
) -> Result<(JudgeReply, bool), RunError> {
    let mut body = json!({"model": model, "messages": [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": prompt},
    ]});
    if let Some(t) = temperature {
        body["temperature"] = json!(t);
    }
    let request = Request {
        endpoint: Endpoint::ChatCompletions,
        body,
        sample,
        use_cache: true,
        single_attempt: None,
        spender: Spender::Judge,
    };
    let accept = |reply: &Value| first_choice(reply).map(|_| ());
    let answer = match host.ask(request, &accept).await {
        Ok(answer) => answer,
        Err(AskError::UnknownModel(e)) => return Err(RunError::Input(e)),
        Err(AskError::Cache(e)) => return Err(RunError::Internal(e)),
        Err(AskError::Failed(e)) => {
            return Ok((JudgeReply::Failed(format!("judge {model}: {e}")), false));
        }
    };
    let (message, _) = first_choice(&answer.json).map_err(RunError::Internal)?;
    let reply = match message["content"].as_str() {
        Some(text) => JudgeReply::Text(text.to_string()),
        None => JudgeReply::NoContent,
    };
    Ok((reply, answer.cached))
}

/// The judge's list: from the first `[` to the last `]`, leniently repaired (module doc).
pub fn cut_list(reply: &str) -> Option<Value> {
    let start = reply.find('[')?;
    let end = reply.rfind(']')?;
    if end < start {
        return None;
    }
    let text = &reply[start..=end];
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        return Some(v);
    }
    serde_json::from_str::<Value>(&repair(text)).ok()
}

/// Python-literal and trailing-comma repair, outside and inside strings handled apart.
pub(crate) fn repair(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' || c == '\'' {
            // a string: copy to its closing quote, re-quoted with '"'
            let quote = c;
            out.push('"');
            i += 1;
            while i < chars.len() && chars[i] != quote {
                match chars[i] {
                    '\\' if i + 1 < chars.len() => {
                        if chars[i + 1] == '\'' {
                            out.push('\'');
                        } else {
                            out.push('\\');
                            out.push(chars[i + 1]);
                        }
                        i += 2;
                        continue;
                    }
                    '"' => out.push_str("\\\""),
                    '\n' => out.push_str("\\n"),
                    other => out.push(other),
                }
                i += 1;
            }
            out.push('"');
            i += 1;
            continue;
        }
        if c == ',' {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some(']') | Some('}')) {
                i += 1;
                continue;
            }
        }
        let rest: String = chars[i..chars.len().min(i + 5)].iter().collect();
        let word_start = i == 0 || !chars[i - 1].is_alphanumeric();
        let replaced = [("True", "true"), ("False", "false"), ("None", "null")]
            .into_iter()
            .find(|(py, _)| {
                word_start
                    && rest.starts_with(py)
                    && !chars.get(i + py.len()).is_some_and(|c| c.is_alphanumeric())
            });
        if let Some((py, js)) = replaced {
            out.push_str(js);
            i += py.len();
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

/// The params of a deep-research or dry-experiment judge run; `log_help` says which log.
pub const fn judge_params(log_help: &'static str, log_label: &'static str) -> [Param; 8] {
    [
        CONFIG,
        db("SQLite database holding the reply cache"),
        Param::new("log", log_help, ParamKind::Records).label(log_label),
        Param::new(
            "judge_model",
            "The judge model, as listed by an upstream (official: o4-mini)",
            ParamKind::Model,
        )
        .label("judge model (official: o4-mini)"),
        out(
            "Output folder (created): the judged log under the input's file name, judge_replies.json",
        ),
        Param {
            help: "Concurrent judge calls",
            ..WORKERS
        },
        Param::new(
            "temperature",
            "Judge temperature (official: 0); `--no-temperature` sends none",
            ParamKind::Number { default: Some(0.0) },
        ),
        Param::cli("no_temperature", "", ParamKind::Switch { default: false }),
    ]
}

/// A judged log's run: judge the log's records, write the judged log.
pub type JudgeLog = for<'a> fn(
    &'a dyn RunHost,
    &'a JudgeOptions,
    LogInput,
    &'a Path,
) -> BoxFuture<'a, Result<JudgeSummary, RunError>>;

/// The plan of a deep-research or dry-experiment judge run: the log (`out_name` when sent in a
/// request), the judge, and the task's `run`, whose summary line starts with `what`.
pub fn judge_plan(
    values: &RunValues,
    out_name: &'static str,
    what: &'static str,
    run: JudgeLog,
) -> Result<Box<dyn RunPlan>, RunError> {
    Ok(Box::new(JudgePlan {
        log: LogInput::of(values, out_name)?,
        options: JudgeOptions::of(values)?,
        what,
        run,
    }))
}

struct JudgePlan {
    options: JudgeOptions,
    log: LogInput,
    what: &'static str,
    run: JudgeLog,
}

impl RunPlan for JudgePlan {
    fn model(&self) -> String {
        self.options.model.clone()
    }

    fn execute<'a>(
        self: Box<Self>,
        host: &'a dyn RunHost,
        out_dir: &'a Path,
    ) -> BoxFuture<'a, Result<String, RunError>> {
        Box::pin(async move {
            let JudgePlan {
                options,
                log,
                what,
                run,
            } = *self;
            let s = run(host, &options, log, out_dir).await?;
            Ok(judge_summary(what, &s))
        })
    }
}

/// How the judge is asked.
#[derive(Debug, Clone)]
pub struct JudgeOptions {
    pub model: String,
    /// Concurrent judge calls.
    pub workers: usize,
    /// Official: 0. `None` sends no temperature (for models that refuse one).
    pub temperature: Option<f64>,
}

impl JudgeOptions {
    /// The judge options of a judge run's values.
    pub fn of(values: &RunValues) -> Result<JudgeOptions, RunError> {
        Ok(JudgeOptions {
            model: values.text("judge_model")?,
            workers: values.workers()?,
            temperature: values.number_unless("temperature", "no_temperature")?,
        })
    }
}

/// What a judge run reports.
#[derive(Debug, Clone, Default)]
pub struct JudgeSummary {
    /// Records in the log (null records included).
    pub records: usize,
    /// Judge calls made (or answered from the cache).
    pub asked: usize,
    /// Judge calls that failed or whose reply could not be read.
    pub unreadable: usize,
    /// Headline means over the records the official summary would count (see each run).
    pub metrics: Vec<(&'static str, Option<f64>)>,
    /// The log written.
    pub log: PathBuf,
}

/// The line `scorebench run sgi-deep-research|sgi-dry` prints when done.
pub fn judge_summary(what: &str, s: &JudgeSummary) -> String {
    let metrics: Vec<String> = s
        .metrics
        .iter()
        .map(|(k, v)| match v {
            Some(v) => format!("{k} {v}"),
            None => format!("{k} null"),
        })
        .collect();
    format!(
        "{what}: {} records, {} judge calls, {} unreadable (llm_judge null); {}; log {}",
        s.records,
        s.asked,
        s.unreadable,
        metrics.join(", "),
        s.log.display()
    )
}

/// A step log: a JSON array of records.
pub(crate) fn parse_log(name: &str, text: &str) -> Result<Vec<Value>, RunError> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(items)) => Ok(items),
        Ok(_) => Err(RunError::Input(format!(
            "{name}: expected a JSON array of records"
        ))),
        Err(e) => Err(RunError::Input(format!(
            "{name}: not valid JSON (line {}): {e}",
            e.line()
        ))),
    }
}

pub fn idx_text(fields: &Map<String, Value>) -> String {
    match fields.get("idx") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

pub(crate) fn str_field<'a>(
    name: &str,
    number: usize,
    fields: &'a Map<String, Value>,
    key: &str,
) -> Result<&'a str, RunError> {
    fields.get(key).and_then(Value::as_str).ok_or_else(|| {
        RunError::Input(format!(
            "{name}: record {number} (idx {:?}): `{key}` must be a string",
            idx_text(fields)
        ))
    })
}

pub(crate) fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Ask every prompt (in order), `workers` at a time, honouring pause; progress counts each.
pub(crate) async fn ask_all(
    host: &dyn RunHost,
    options: &JudgeOptions,
    prompts: Vec<String>,
) -> Result<Vec<JudgeReply>, RunError> {
    host.counters().set_total(prompts.len() as u64);
    let calls = prompts.into_iter().map(|prompt| async move {
        host.unpaused().await;
        let (reply, cached) =
            ask_judge(host, &options.model, options.temperature, &prompt, 0).await?;
        host.counters()
            .finished(cached, matches!(reply, JudgeReply::Failed(_)));
        Ok::<JudgeReply, RunError>(reply)
    });
    futures_util::stream::iter(calls)
        .buffered(options.workers)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect()
}

pub(crate) fn raw_reply(reply: &JudgeReply) -> Value {
    reply
        .text()
        .map(|t| Value::String(t.to_string()))
        .unwrap_or(Value::Null)
}

/// The log a judge run reads: a file named on the command line, or the records of a
/// `POST /api/v1/runs` body (then the judged log is written as `out_name`).
#[derive(Debug, Clone)]
pub enum LogInput {
    File(PathBuf),
    Records {
        records: Vec<Value>,
        out_name: &'static str,
    },
}

impl LogInput {
    /// The `log` param; sent records must not be empty, and their judged log is `out_name`.
    pub fn of(values: &RunValues, out_name: &'static str) -> Result<LogInput, RunError> {
        match values.records("log")? {
            Input::Path(path) => Ok(LogInput::File(path)),
            Input::Given(records) if records.is_empty() => {
                Err(RunError::Input("log: no records".into()))
            }
            Input::Given(records) => Ok(LogInput::Records { records, out_name }),
        }
    }

    /// The name messages give the log.
    pub fn name(&self) -> String {
        match self {
            LogInput::File(path) => path.display().to_string(),
            LogInput::Records { .. } => "log".into(),
        }
    }

    /// The log's records (a file is read and parsed here; request records are taken, so a
    /// second call gives none).
    pub fn take_records(&mut self, host: &dyn RunHost) -> Result<Vec<Value>, RunError> {
        match self {
            LogInput::File(path) => parse_log(&path.display().to_string(), &host.read(path)?),
            LogInput::Records { records, .. } => Ok(std::mem::take(records)),
        }
    }

    /// Where the judged log goes in `out_dir` (created): the input's file name, or `out_name`.
    pub fn out_path(&self, host: &dyn RunHost, out_dir: &Path) -> Result<PathBuf, RunError> {
        host.create_dir_all(out_dir)?;
        match self {
            LogInput::File(path) => {
                let file = path
                    .file_name()
                    .ok_or_else(|| RunError::Input(format!("{}: not a file", path.display())))?;
                let out = out_dir.join(file);
                if out == *path {
                    return Err(RunError::Input(format!(
                        "{}: --out would overwrite the input log; choose another folder",
                        path.display()
                    )));
                }
                Ok(out)
            }
            LogInput::Records { out_name, .. } => Ok(out_dir.join(out_name)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_from_first_bracket_to_last() {
        let reply = "Here you go:\n```json\n[{\"step\": 1, \"judge\": \"correct\"}]\n``` done";
        assert_eq!(
            cut_list(reply),
            Some(json!([{"step": 1, "judge": "correct"}]))
        );
        assert_eq!(cut_list("no list"), None);
        assert_eq!(cut_list("] backwards ["), None);
    }

    #[test]
    fn repairs_python_literals_quotes_and_trailing_commas() {
        let reply = "[{'step': 1, 'judge': 'correct', 'ok': True, 'note': None,}, {'judge': \"it's wrong\",},]";
        assert_eq!(
            cut_list(reply),
            Some(json!([
                {"step": 1, "judge": "correct", "ok": true, "note": null},
                {"judge": "it's wrong"}
            ]))
        );
        assert_eq!(cut_list("[{'a': 'x'} {'b'}]"), None, "beyond repair");
    }
}
