//! LLM-judge plumbing for the SGI-Bench judges: one judge call through the same gateway and cache
//! as model calls, counted under [`Role::Judge`] (reported apart from model tokens), and the
//! official deep-research reading of a judge reply.
//!
//! ```text
//! judge list = reply[first "[" ..= last "]"], parsed as JSON; if that fails, leniently repaired:
//!              Python literals (True/False/None → true/false/null), single-quoted strings →
//!              double-quoted, trailing commas before "]" or "}" removed; still unreadable → None
//! ```
//! A judge call is sent as the official `utils.LLM` sends it: a system message
//! "You are a helpful assistant.", the prompt as the user message, `temperature` 0 (unless told
//! otherwise). The SGI-Bench runs that use it are in [`super::sgi`].

use serde_json::{Value, json};

use super::progress::{Progress, RunError, first_choice};
use crate::cache::Role;
use crate::gateway::{Call, CallError, Gateway, Sample};
use crate::upstream::Endpoint;

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

/// Ask a judge model; its tokens and cost count under `Role::Judge`. An upstream failure is a
/// [`JudgeReply::Failed`]; only an unknown model or a cache failure is an error.
pub async fn ask(
    gateway: &Gateway,
    progress: &Progress,
    model: &str,
    temperature: Option<f64>,
    prompt: &str,
    sample: u64,
) -> Result<JudgeReply, RunError> {
    let mut body = json!({"model": model, "messages": [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": prompt},
    ]});
    if let Some(t) = temperature {
        body["temperature"] = json!(t);
    }
    let call = Call {
        endpoint: Endpoint::ChatCompletions,
        body,
        sample: Sample::Fixed(sample),
        use_cache: true,
        policy: None,
    };
    let answer = match gateway
        .call_json(call, |reply| first_choice(reply).map(|_| ()))
        .await
    {
        Ok(answer) => answer,
        Err(e @ CallError::UnknownModel(_)) => return Err(RunError::Input(e.to_string())),
        Err(e @ CallError::Cache(_)) => return Err(RunError::Internal(e.to_string())),
        Err(e) => {
            // Failed attempts reached the upstream: count them (no tokens, no cost).
            let attempts = match &e {
                CallError::Status { attempts, .. } => u64::from(*attempts),
                CallError::NotJson { .. } | CallError::Refused { .. } => 1,
                _ => 0,
            };
            if attempts > 0 {
                let usage = crate::cache::UsageTotals {
                    upstream_calls: attempts,
                    ..Default::default()
                };
                progress.add_usage(Role::Judge, &usage);
                gateway
                    .cache
                    .add_usage(progress.id.clone(), Role::Judge, usage)
                    .await
                    .map_err(|e| RunError::Internal(e.to_string()))?;
            }
            return Ok(JudgeReply::Failed(format!("judge {model}: {e}")));
        }
    };
    progress.add_usage(Role::Judge, &answer.usage);
    gateway
        .cache
        .add_usage(progress.id.clone(), Role::Judge, answer.usage)
        .await
        .map_err(|e| RunError::Internal(e.to_string()))?;
    let (message, _) = first_choice(&answer.json).map_err(RunError::Internal)?;
    Ok(match message["content"].as_str() {
        Some(text) => JudgeReply::Text(text.to_string()),
        None => JudgeReply::NoContent,
    })
}

/// [`ask`] with the official temperature 0; a failed call is an error.
pub async fn ask_judge(
    gateway: &Gateway,
    progress: &Progress,
    model: &str,
    prompt: &str,
    sample: u64,
) -> Result<Option<String>, RunError> {
    match ask(gateway, progress, model, Some(0.0), prompt, sample).await? {
        JudgeReply::Text(t) => Ok(Some(t)),
        JudgeReply::NoContent => Ok(None),
        JudgeReply::Failed(e) => Err(RunError::Internal(e)),
    }
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
