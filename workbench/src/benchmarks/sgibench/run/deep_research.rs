//! SGI-Bench deep research (`task_1_deep_research/step_2_score.py`): one judge call per step-1
//! record with the official step-verification prompt; the reply is read by the official rule
//! ([`read_step_list`]); the step-2 log adds `exact_match`, `llm_judge` and `step_level_acc`
//! (rules in the [`super`] module doc).

use std::path::Path;

use serde_json::{Map, Value, json};

use super::judge::{
    JudgeOptions, JudgeSummary, LogInput, ask_all, idx_text, judge_params, judge_plan, mean,
    raw_reply, str_field,
};
use crate::runs::{Executes, PageForm, RunError, RunHost, RunPlan, RunSpec, RunValues, write_json};

/// `scorebench run sgi-deep-research`, `{"benchmark": "sgi-deep-research"}`.
pub static RUN: RunSpec = RunSpec {
    key: "sgi-deep-research",
    label: "SGI-Bench deep research: judge each step-1 record's steps, write the step-2 log",
    files: &["judge_replies.json", "step2_log.json"],
    params: &judge_params(
        "The official log the judge reads (deep research: step 1; dry: step 3)",
        "step-1 log (JSON)",
    ),
    page: Some(PageForm {
        open: &["step2_log.json"],
        open_inputs: &[],
    }),
    executes: Executes::Models,
    plan,
};

fn plan(values: RunValues) -> Result<Box<dyn RunPlan>, RunError> {
    judge_plan(
        &values,
        "step2_log.json",
        "SGI deep research",
        |host, options, log, out_dir| Box::pin(run_deep_research(host, options, log, out_dir)),
    )
}

/// The official deep-research judge prompt (`step_2_score.py`, `eval_model_output`).
pub fn deep_research_prompt(
    question: &str,
    steps: &[&str],
    answer: &str,
    with_thinking: &str,
    model_answer: &str,
) -> String {
    let mut p = String::with_capacity(DR_0.len() + DR_5.len() + 1024);
    p.push_str(DR_0);
    p.push_str(question);
    p.push_str(DR_1);
    p.push_str(&steps.join("\n"));
    p.push_str(DR_2);
    p.push_str(answer);
    p.push_str(DR_3);
    p.push_str(with_thinking);
    p.push_str(DR_4);
    p.push_str(model_answer);
    p.push_str(DR_5);
    p
}

fn has_json_literal(v: &Value) -> bool {
    match v {
        Value::Null | Value::Bool(_) => true,
        Value::Array(a) => a.iter().any(has_json_literal),
        Value::Object(o) => o.values().any(has_json_literal),
        _ => false,
    }
}

/// A deep-research judge reply read by the official rule (module doc): the list, or `None` where
/// the official `try` falls to `except` (no list, unreadable, empty, an entry without `judge`,
/// a JSON `true`/`false`/`null` inside).
pub fn read_step_list(reply: &str) -> Option<Vec<Value>> {
    let value = super::judge::cut_list(reply)?;
    if has_json_literal(&value) {
        return None;
    }
    let Value::Array(entries) = value else {
        return None;
    };
    let ok = !entries.is_empty()
        && entries
            .iter()
            .all(|e| e.as_object().is_some_and(|o| o.contains_key("judge")));
    ok.then_some(entries)
}

/// Step-level accuracy of a list from [`read_step_list`].
pub fn step_level_acc(entries: &[Value]) -> f64 {
    let correct = entries
        .iter()
        .filter(|e| e["judge"].as_str() == Some("correct"))
        .count();
    correct as f64 / entries.len() as f64
}

/// The prompt of one step-1 record.
fn deep_research_record_prompt(
    name: &str,
    number: usize,
    fields: &Map<String, Value>,
) -> Result<String, RunError> {
    let steps = match fields.get("steps") {
        Some(Value::Array(steps)) => steps
            .iter()
            .map(Value::as_str)
            .collect::<Option<Vec<&str>>>(),
        _ => None,
    }
    .ok_or_else(|| {
        RunError::Input(format!(
            "{name}: record {number} (idx {:?}): `steps` must be a list of strings",
            idx_text(fields)
        ))
    })?;
    Ok(deep_research_prompt(
        str_field(name, number, fields, "question")?,
        &steps,
        str_field(name, number, fields, "answer")?,
        str_field(name, number, fields, "model_answer_with_thinking")?,
        str_field(name, number, fields, "model_answer")?,
    ))
}

/// Judge a deep-research step-1 log (`log`) and write the step-2 log under the same file
/// name in `out_dir`, plus `judge_replies.json` ({idx: raw reply or null}).
pub async fn run_deep_research(
    host: &dyn RunHost,
    options: &JudgeOptions,
    mut log: LogInput,
    out_dir: &Path,
) -> Result<JudgeSummary, RunError> {
    let name = log.name();
    let records = log.take_records(host)?;
    let mut prompts = Vec::new();
    for (i, record) in records.iter().enumerate() {
        match record {
            Value::Null => {}
            Value::Object(fields) => {
                str_field(&name, i + 1, fields, "model_answer_after_llm_paser")?;
                prompts.push(deep_research_record_prompt(&name, i + 1, fields)?);
            }
            _ => {
                return Err(RunError::Input(format!(
                    "{name}: record {}: expected an object or null",
                    i + 1
                )));
            }
        }
    }
    let out = log.out_path(host, out_dir)?;
    let replies = ask_all(host, options, prompts).await?;
    let mut replies = replies.into_iter();
    let mut written = Vec::with_capacity(records.len());
    let mut raw = Map::new();
    let mut summary = JudgeSummary {
        records: records.len(),
        ..JudgeSummary::default()
    };
    let (mut em_values, mut sla_values) = (Vec::new(), Vec::new());
    for record in records {
        let Value::Object(mut fields) = record else {
            written.push(Value::Null);
            continue;
        };
        let reply = replies
            .next()
            .ok_or_else(|| RunError::Internal("judge replies out of step".into()))?;
        summary.asked += 1;
        let gold = fields.get("answer").cloned().unwrap_or(Value::Null);
        let em = gold == fields["model_answer"] || gold == fields["model_answer_after_llm_paser"];
        let em = u8::from(em);
        em_values.push(f64::from(em));
        let list = reply.text().and_then(read_step_list);
        fields.insert("exact_match".into(), json!(em));
        match list {
            Some(entries) => {
                let sla = step_level_acc(&entries);
                sla_values.push(sla);
                fields.insert("llm_judge".into(), Value::Array(entries));
                fields.insert("step_level_acc".into(), json!(sla));
            }
            None => {
                summary.unreadable += 1;
                fields.insert("llm_judge".into(), Value::Null);
            }
        }
        raw.insert(idx_text(&fields), raw_reply(&reply));
        written.push(Value::Object(fields));
    }
    write_json(host, &out, &Value::Array(written))?;
    write_json(
        host,
        &out_dir.join("judge_replies.json"),
        &Value::Object(raw),
    )?;
    summary.metrics = vec![
        ("exact_match", mean(&em_values)),
        ("step_level_accuracy", mean(&sla_values)),
    ];
    summary.log = out;
    Ok(summary)
}

const DR_0: &str = concat!(
    "\n",
    "You are an expert in systematically validating and evaluating LLM-generated solutions. Your task is to rigorously analyze the correctness of a provided solution by comparing it step-by-step against the reference solution, and output **only** a structured verification list—with no additional text.\n",
    "\n",
    "## Instructions  \n",
    "1. Break down the given LLM solution into individual steps and evaluate each one against the corresponding reference solution steps.  \n",
    "2. For each step, include the following three components:  \n",
    "   - **solution_step**: The specific part of the LLM solution being evaluated.  \n",
    "   - **reason**: A clear, critical explanation of whether the step contains errors, omissions, or deviations from the reference approach. Be stringent in your assessment.  \n",
    "   - **judge**: Your verdict: either `\"correct\"` or `\"incorrect\"`.  \n",
    "3. If the final LLM answer is incorrect, you must identify at least one step in your analysis as incorrect.  \n",
    "4. Justify your judgments rigorously, pointing out even minor inaccuracies or logical flaws.  \n",
    "5. Do not attempt to answer the original question—your role is strictly to evaluate.  \n",
    "6. Output **only** a list of dictionaries in the exact format provided below. Do not include any other text or comments.\n",
    "\n",
    "## Question  \n",
);
const DR_1: &str = concat!("\n", "\n", "## Reference Solution Steps  \n",);
const DR_2: &str = concat!("\n", "\n", "## Reference Answer  \n",);
const DR_3: &str = concat!("\n", "\n", "## LLM Solution Steps\n",);
const DR_4: &str = concat!("\n", "\n", "## LLM Answer\n",);
const DR_5: &str = concat!(
    "\n",
    "\n",
    "## Output Example  \n",
    "[  \n",
    "    {\"solution_step\": \"step content\", \"reason\": \"reason of the judgement\", \"judge\": \"correct or incorrect\"},  \n",
    "    {\"solution_step\": \"step content\", \"reason\": \"reason of the judgement\", \"judge\": \"correct or incorrect\"},\n",
    "]\n",
);

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    fn sha(text: &str) -> String {
        hex::encode(Sha256::digest(text.as_bytes()))
    }

    #[test]
    fn prompts_are_the_official_texts() {
        // Hashes of the official f-strings rendered by Python with these values.
        let p = deep_research_prompt("Q?", &["s1", "s2"], "A", "W", "M");
        assert!(p.starts_with("\nYou are an expert in systematically validating"));
        assert!(p.contains("## Reference Solution Steps  \ns1\ns2\n\n## Reference Answer  \nA\n"));
        assert_eq!(
            sha(&p),
            "fedfcdec495ea22be90951858b19972e16abc9721446d6019363e8246ba8d847"
        );
    }

    #[test]
    fn step_lists_read_as_the_official_try_block() {
        let ok = read_step_list("x [{\"judge\": \"correct\"}, {'judge': 'incorrect',}] y").unwrap();
        assert_eq!(step_level_acc(&ok), 0.5);
        assert_eq!(read_step_list("[]"), None, "ZeroDivisionError");
        assert_eq!(
            read_step_list("[{\"judge\": \"correct\", \"final\": true}]"),
            None
        );
        assert_eq!(read_step_list("[{'judge': 'correct', 'ok': True}]"), None);
        assert_eq!(read_step_list("[\"correct\"]"), None);
        assert_eq!(read_step_list("[{\"reason\": \"r\"}]"), None);
        assert_eq!(read_step_list("no list"), None);
    }
}
