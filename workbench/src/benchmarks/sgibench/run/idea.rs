//! SGI-Bench idea generation (`task_2_idea_generation/step_2_score.py`): each judge model twice
//! per step-1 record (dataset idea as A, then generated idea as A) with the official
//! `get_evaluation_prompt_modified` prompt, temperature 0.1, up to 5 attempts per call until the
//! reply has a verdict on every dimension; writes `judge_replies.json`, the shape
//! `scorebench score sgi-idea --judge-replies` reads (which applies the vote gates).

use std::path::Path;

use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use metrics_core::sgibench::{idea, idea_parse};
use serde_json::{Map, Value, json};

use super::judge::{JudgeReply, LogInput, ask_judge, idx_text, raw_reply};
use crate::runs::{
    AskError, CONFIG, Endpoint, Executes, PageForm, Param, ParamKind, Request, RunError, RunHost,
    RunPlan, RunSpec, RunValues, Spender, WORKERS, db, out, write_json,
};

/// `scorebench run sgi-idea`, `{"benchmark": "sgi-idea"}`.
pub static RUN: RunSpec = RunSpec {
    key: "sgi-idea",
    label: "SGI-Bench idea generation: each judge votes twice per item (both orders), judge_replies.json",
    files: &["judge_replies.json", EMBEDDINGS_FILE],
    params: &[
        CONFIG,
        db("SQLite database holding the reply cache"),
        Param::new(
            "log",
            "The step-1 log (dataset rows with `generated_data`)",
            ParamKind::Records,
        )
        .label("step-1 log (JSON)"),
        Param::new(
            "judge_models",
            "The judge models, comma-separated (official: gpt-5.1-2025-11-13,gemini-3-pro-preview,anthropic/claude-sonnet-4.5)",
            ParamKind::Models,
        )
        .label("judge models (official: three)"),
        out("Output folder (created): judge_replies.json"),
        Param {
            help: "Concurrent judge calls",
            ..WORKERS
        },
        Param::new(
            "temperature",
            "Judge temperature (official: 0.1); `--no-temperature` sends none",
            ParamKind::Number { default: Some(0.1) },
        ),
        Param::cli(
            "no_temperature",
            "",
            ParamKind::Switch { default: false },
        ),
        Param::new(
            "embedding_model",
            "An embedding model an upstream serves (official: all-MiniLM-L6-v2): the run embeds every text the objective scores need through it and writes embeddings.json, the table `scorebench score sgi-idea --embeddings` reads",
            ParamKind::OptionalModel,
        )
        .label("embedding model (official: all-MiniLM-L6-v2)"),
    ],
    page: Some(PageForm {
        open: &[],
        open_inputs: &[],
    }),
    executes: Executes::Models,
    plan,
};

fn plan(values: RunValues) -> Result<Box<dyn RunPlan>, RunError> {
    Ok(Box::new(IdeaPlan {
        log: LogInput::of(&values, "step1_log.json")?,
        options: IdeaOptions {
            judges: values.texts("judge_models")?,
            workers: values.workers()?,
            temperature: values.number_unless("temperature", "no_temperature")?,
        },
        embedding_model: values.optional_text("embedding_model")?,
    }))
}

struct IdeaPlan {
    options: IdeaOptions,
    log: LogInput,
    embedding_model: Option<String>,
}

impl RunPlan for IdeaPlan {
    fn model(&self) -> String {
        self.options.judges.join(",")
    }

    fn execute<'a>(
        self: Box<Self>,
        host: &'a dyn RunHost,
        out_dir: &'a Path,
    ) -> BoxFuture<'a, Result<String, RunError>> {
        Box::pin(async move {
            let shown = std::path::PathBuf::from(self.log.name());
            let s = run_idea(
                host,
                &self.options,
                self.log,
                self.embedding_model.as_deref(),
                out_dir,
            )
            .await?;
            Ok(idea_summary(&shown, &s))
        })
    }
}

/// The line `scorebench run sgi-idea` prints when done.
fn idea_summary(log: &Path, s: &IdeaSummary) -> String {
    let skipped = if s.skipped.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = s
            .skipped
            .iter()
            .map(|(idx, why)| format!("{idx:?}: {why}"))
            .collect();
        format!(
            "; not judged (the official evaluator raises first): {}",
            list.join("; ")
        )
    };
    let (embedded, table) = match s.embedded {
        Some(n) => {
            let table = s.replies.with_file_name(EMBEDDINGS_FILE);
            (
                format!("; {n} texts embedded into {}", table.display()),
                format!("--embeddings {}", table.display()),
            )
        }
        None => (String::new(), "[--embeddings TABLE.json]".to_string()),
    };
    format!(
        "SGI idea generation: {} records, {} judged, {} judge calls ({} attempts), {} without a verdict after {} attempts{skipped}; replies {}{embedded}\n\
         score with: scorebench score sgi-idea {} {table} --judge-replies {}",
        s.records,
        s.judged,
        s.calls,
        s.attempts,
        s.unreadable,
        IDEA_ATTEMPTS,
        s.replies.display(),
        log.display(),
        s.replies.display()
    )
}

/// The embedding table an idea run writes with `--embedding-model`.
pub const EMBEDDINGS_FILE: &str = "embeddings.json";

/// Texts embedded per `/embeddings` call.
pub const EMBEDDING_BATCH: usize = 32;

/// Every text the objective scores of `records` embed, sorted: found by scoring the log once
/// with an embedder that records what it is asked (and answers a constant vector; which texts
/// are asked depends on the texts only, never on the vectors).
pub fn embedding_texts(name: &str, records: &[Value]) -> Result<Vec<String>, RunError> {
    struct Recorder(std::sync::Mutex<std::collections::BTreeSet<String>>);
    impl idea::Embedder for Recorder {
        fn embed(&self, text: &str) -> Option<Vec<f64>> {
            if let Ok(mut seen) = self.0.lock() {
                seen.insert(text.to_string());
            }
            Some(vec![1.0])
        }
    }
    let recorder = Recorder(Default::default());
    let text = serde_json::to_string(records).map_err(|e| RunError::Internal(e.to_string()))?;
    idea::score_log_with(
        name,
        &text,
        &idea::IdeaSources {
            embeddings: Some(&recorder),
            judge_replies: None,
        },
    )
    .map_err(|e| RunError::Input(e.to_string()))?;
    let seen = recorder
        .0
        .into_inner()
        .map_err(|_| RunError::Internal("embedding recorder poisoned".into()))?;
    Ok(seen.into_iter().collect())
}

/// Embed `texts` through the host (`/embeddings`, cached like every call; usage under judge),
/// [`EMBEDDING_BATCH`] at a time: the table `{text: vector}`.
pub async fn embed_all(
    host: &dyn RunHost,
    model: &str,
    texts: Vec<String>,
) -> Result<Map<String, Value>, RunError> {
    let mut table = Map::new();
    for batch in texts.chunks(EMBEDDING_BATCH) {
        host.unpaused().await;
        let request = Request {
            endpoint: Endpoint::Embeddings,
            body: json!({"model": model, "input": batch}),
            sample: 0,
            use_cache: true,
            single_attempt: None,
            spender: Spender::Judge,
        };
        let expected = batch.len();
        let accept = |reply: &Value| embedding_vectors(reply, expected).map(|_| ());
        let answer = host.ask(request, &accept).await.map_err(|e| match e {
            AskError::UnknownModel(e) => RunError::Input(e),
            other => RunError::Internal(format!("embedding model {model}: {other}")),
        })?;
        let vectors = embedding_vectors(&answer.json, expected).map_err(RunError::Internal)?;
        for (text, vector) in batch.iter().zip(vectors) {
            table.insert(text.clone(), vector);
        }
    }
    Ok(table)
}

/// The vectors of an OpenAI-compatible embeddings reply, in input order (by `index`).
fn embedding_vectors(reply: &Value, expected: usize) -> Result<Vec<Value>, String> {
    let data = reply["data"]
        .as_array()
        .ok_or("the embeddings reply has no `data` list")?;
    let mut vectors = vec![Value::Null; expected];
    for (position, entry) in data.iter().enumerate() {
        let index = entry["index"].as_u64().map_or(position, |i| i as usize);
        let vector = entry["embedding"]
            .as_array()
            .filter(|v| !v.is_empty() && v.iter().all(Value::is_number))
            .ok_or_else(|| format!("data[{position}]: `embedding` must be a list of numbers"))?;
        let slot = vectors
            .get_mut(index)
            .ok_or_else(|| format!("data[{position}]: index {index} out of range"))?;
        *slot = Value::Array(vector.clone());
    }
    if vectors.iter().any(Value::is_null) {
        return Err(format!("the embeddings reply has not {expected} vectors"));
    }
    Ok(vectors)
}

/// How the idea-generation judges are asked.
#[derive(Debug, Clone)]
pub struct IdeaOptions {
    /// The judge models (official: three), each asked twice per item.
    pub judges: Vec<String>,
    /// Concurrent judge calls.
    pub workers: usize,
    /// Official: 0.1. `None` sends no temperature.
    pub temperature: Option<f64>,
}

/// Attempts per judge call (official `MAX_RETRIES`): a failed call or a reply without a verdict
/// on every dimension is asked again, attempt `k` with cache sample index `k`.
pub const IDEA_ATTEMPTS: u64 = 5;

/// What an idea-generation judge run reports.
#[derive(Debug, Clone, Default)]
pub struct IdeaSummary {
    /// Records in the log (null records included).
    pub records: usize,
    /// Records judged.
    pub judged: usize,
    /// Records not judged: (idx, why the official evaluator raises before its judges are asked).
    pub skipped: Vec<(String, String)>,
    /// Judge calls (item × judge × order), and the attempts they took (retries included).
    pub calls: usize,
    pub attempts: u64,
    /// Judge calls with no readable verdict after every attempt (the official vote is dropped).
    pub unreadable: usize,
    /// The replies file written.
    pub replies: std::path::PathBuf,
    /// Texts embedded into embeddings.json (with an embedding model).
    pub embedded: Option<usize>,
}

/// The official idea-comparison prompt (`utils.get_evaluation_prompt_modified`).
pub fn idea_prompt(hypothesis_a: &str, hypothesis_b: &str, context: &str) -> String {
    let mut p = String::with_capacity(
        IDEA_0.len() + IDEA_3.len() + hypothesis_a.len() + hypothesis_b.len() + context.len() + 64,
    );
    p.push_str(IDEA_0);
    if !context.is_empty() {
        p.push_str("Context:\n");
        p.push_str(context);
        p.push_str("\n\n");
    }
    p.push_str(IDEA_1);
    p.push_str(hypothesis_a);
    p.push_str(IDEA_2);
    p.push_str(hypothesis_b);
    p.push_str(IDEA_3);
    p
}

use metrics_core::python::{strip as py_strip, truthy as py_truthy};

/// `"{field}: {value}\n\n"` for each truthy field, stripped (`format_idea_data`,
/// `get_context_from_data`).
fn py_fields(data: &Map<String, Value>, fields: &[&str]) -> String {
    let mut text = String::new();
    for field in fields {
        if let Some(value) = data.get(*field).filter(|v| py_truthy(v)) {
            text.push_str(field);
            text.push_str(": ");
            text.push_str(&idea_parse::py_str(value));
            text.push_str("\n\n");
        }
    }
    py_strip(&text).to_string()
}

/// `utils.format_idea_data`.
pub fn format_idea(idea: &Map<String, Value>) -> String {
    py_fields(
        idea,
        &[
            "Idea",
            "ImplementationSteps",
            "ImplementationOrder",
            "Dataset",
            "EvaluationMetrics",
            "ExpectedOutcome",
        ],
    )
}

/// `utils.get_context_from_data` (of the step-1 record's own fields).
pub fn idea_context(record: &Map<String, Value>) -> String {
    py_fields(
        record,
        &[
            "related_work",
            "challenge",
            "limitation",
            "motivation",
            "task_objective",
            "existing_solutions",
        ],
    )
}

/// Python `list(value)`.
fn py_list(value: &Value) -> Result<Value, String> {
    match value {
        Value::Array(_) => Ok(value.clone()),
        Value::String(s) => Ok(Value::Array(
            s.chars().map(|c| Value::String(c.to_string())).collect(),
        )),
        Value::Object(o) => Ok(Value::Array(
            o.keys().map(|k| Value::String(k.clone())).collect(),
        )),
        other => Err(format!(
            "TypeError: {} object is not iterable",
            match other {
                Value::Null => "'NoneType'",
                Value::Bool(_) => "'bool'",
                _ => "a number",
            }
        )),
    }
}

/// The two prompts of one step-1 record, as `ImprovedIdeaEvaluator` builds them: `[original as
/// A, generated as B]` (swap=False) and `[generated as A, original as B]` (swap=True); or why the
/// official constructor raises (then no judge is asked).
///
/// Known difference: `ast.literal_eval` results are shown through JSON values, so a dataset
/// literal holding tuples, sets or non-string dict keys is shown as lists / string keys.
pub fn idea_record_prompts(record: &Map<String, Value>) -> Result<[String; 2], String> {
    let field = |key: &str, default: Value| record.get(key).cloned().unwrap_or(default);
    let eval = |key: &str, default: Value| {
        idea_parse::literal_eval(&field(key, default)).map_err(|e| format!("{key}: {}", e.0))
    };
    eval("related_work", json!({}))?;
    eval("existing_solutions", json!({}))?;
    let mut original = Map::new();
    original.insert("Idea".into(), field("core_idea", json!("")));
    original.insert(
        "ImplementationSteps".into(),
        eval("implementation_steps", json!("{}"))?,
    );
    original.insert(
        "ImplementationOrder".into(),
        py_list(&field("implementation_order", json!("[]")))
            .map_err(|e| format!("implementation_order: {e}"))?,
    );
    original.insert(
        "EvaluationMetrics".into(),
        eval("evaluation_metrics", json!("{}"))?,
    );
    original.insert("Dataset".into(), field("data", json!("")));
    original.insert(
        "ExpectedOutcome".into(),
        field("expected_outcome", json!("")),
    );
    let generated = match record.get("generated_data") {
        Some(Value::Object(g)) => g,
        Some(_) => return Err("`generated_data` is not a dict".into()),
        None => return Err("KeyError: 'generated_data'".into()),
    };
    let (original, generated) = (format_idea(&original), format_idea(generated));
    let context = idea_context(record);
    Ok([
        idea_prompt(&original, &generated, &context),
        idea_prompt(&generated, &original, &context),
    ])
}

/// The `--judge-replies` key of one call.
pub fn idea_reply_key(model: &str, swapped: bool) -> String {
    format!("{model}|swap={}", if swapped { "True" } else { "False" })
}

/// One judge call with the official retries: (last reply, attempts, whether it has a verdict).
/// The last attempt's reply, the attempts made, whether it has a verdict, and whether every
/// reply asked came from the cache.
async fn ask_idea_judge(
    host: &dyn RunHost,
    model: &str,
    temperature: Option<f64>,
    prompt: &str,
) -> Result<(JudgeReply, u64, bool, bool), RunError> {
    let mut last = JudgeReply::NoContent;
    let mut all_cached = true;
    for attempt in 0..IDEA_ATTEMPTS {
        let (reply, cached) = ask_judge(host, model, temperature, prompt, attempt).await?;
        all_cached &= cached;
        let readable = reply
            .text()
            .is_some_and(|t| idea::parse_judge_reply(t).is_some());
        last = reply;
        if readable {
            return Ok((last, attempt + 1, true, all_cached));
        }
    }
    Ok((last, IDEA_ATTEMPTS, false, all_cached))
}

/// Ask each judge twice (both orders) about every step-1 record of an idea-generation log
/// (`log_path`) and write `judge_replies.json` in `out_dir`
/// ({idx: {"<model>|swap=False": reply or null, "<model>|swap=True": …}}, the
/// `scorebench score sgi-idea --judge-replies` shape).
pub async fn run_idea(
    host: &dyn RunHost,
    options: &IdeaOptions,
    mut log: LogInput,
    embedding_model: Option<&str>,
    out_dir: &Path,
) -> Result<IdeaSummary, RunError> {
    if options.judges.is_empty() {
        return Err(RunError::Input("give at least one judge model".into()));
    }
    for (i, model) in options.judges.iter().enumerate() {
        if model.trim().is_empty() || options.judges[..i].contains(model) {
            return Err(RunError::Input(format!(
                "judge models must be distinct and non-empty: {:?}",
                options.judges
            )));
        }
    }
    let name = log.name();
    let records = log.take_records(host)?;
    let mut summary = IdeaSummary {
        records: records.len(),
        ..IdeaSummary::default()
    };
    let mut judged: Vec<(String, [String; 2])> = Vec::new();
    for (i, record) in records.iter().enumerate() {
        let fields = match record {
            Value::Null => continue,
            Value::Object(fields) => fields,
            _ => {
                return Err(RunError::Input(format!(
                    "{name}: record {}: expected an object or null",
                    i + 1
                )));
            }
        };
        let idx = idx_text(fields);
        match idea_record_prompts(fields) {
            Ok(prompts) => {
                if idx.is_empty() {
                    return Err(RunError::Input(format!(
                        "{name}: record {}: no `idx` (judge replies are keyed by idx)",
                        i + 1
                    )));
                }
                if judged.iter().any(|(seen, _)| *seen == idx) {
                    return Err(RunError::Input(format!(
                        "{name}: record {}: idx {idx:?} appears twice",
                        i + 1
                    )));
                }
                judged.push((idx, prompts));
            }
            Err(why) => summary.skipped.push((idx, why)),
        }
    }
    host.create_dir_all(out_dir)?;
    let mut calls = Vec::new();
    for (item, (_, prompts)) in judged.iter().enumerate() {
        for model in &options.judges {
            for (swapped, prompt) in [(false, &prompts[0]), (true, &prompts[1])] {
                calls.push((item, model.as_str(), swapped, prompt.as_str()));
            }
        }
    }
    host.counters().set_total(calls.len() as u64);
    // Collected first: a lazy iterator of closures borrowing `calls` would not be `Send` for
    // every lifetime, which the boxed plan future needs.
    let asks: Vec<_> = calls
        .iter()
        .map(|&(_, model, _, prompt)| async move {
            host.unpaused().await;
            let (reply, attempts, readable, cached) =
                ask_idea_judge(host, model, options.temperature, prompt).await?;
            host.counters().finished(cached, !readable);
            Ok::<_, RunError>((reply, attempts, readable))
        })
        .collect();
    let replies: Vec<(JudgeReply, u64, bool)> = futures_util::stream::iter(asks)
        .buffered(options.workers)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<Result<_, _>>()?;
    let mut raw: Vec<Map<String, Value>> = vec![Map::new(); judged.len()];
    for (&(item, model, swapped, _), (reply, attempts, readable)) in calls.iter().zip(&replies) {
        summary.calls += 1;
        summary.attempts += attempts;
        if !readable {
            summary.unreadable += 1;
        }
        raw[item].insert(idea_reply_key(model, swapped), raw_reply(reply));
    }
    summary.judged = judged.len();
    let out: Map<String, Value> = judged
        .into_iter()
        .zip(raw)
        .map(|((idx, _), replies)| (idx, Value::Object(replies)))
        .collect();
    summary.replies = out_dir.join("judge_replies.json");
    write_json(host, &summary.replies, &Value::Object(out))?;
    if let Some(model) = embedding_model {
        let texts = embedding_texts(&name, &records)?;
        let table = embed_all(host, model, texts).await?;
        summary.embedded = Some(table.len());
        write_json(host, &out_dir.join(EMBEDDINGS_FILE), &table)?;
    }
    Ok(summary)
}

// `utils.get_evaluation_prompt_modified`: before the context, after it, after A, after B.
const IDEA_0: &str = concat!(
    "\n",
    "You are assisting researchers tasked with comparing TWO research hypotheses (Hypothesis A and Hypothesis B).\n",
    "Your job is to evaluate both hypotheses across five separate dimensions defined below, and to choose a winner (either Hypothesis A or Hypothesis B) for each dimension. Ties are NOT allowed — you MUST pick one winner per dimension. Base your judgments on scientific principles and the provided context only.\n",
    "\n",
    "##Background context:\n",
);
const IDEA_1: &str = concat!("\n", "\n", "##Hypothesis A:\n",);
const IDEA_2: &str = concat!("\n", "\n", "##Hypothesis B:\n",);
const IDEA_3: &str = concat!(
    "\n",
    "\n",
    "##Definition of each dimension:\n",
    "###1) Effectiveness\n",
    "Which hypothesis is more likely to produce a successful experimental or empirical outcome in service of the stated research objective? Evaluate the likelihood that, if implemented using standard practices in the relevant discipline, the hypothesis will achieve the intended measurable result. Focus on mechanistic plausibility, causal logic, and whether the hypothesis addresses the core problem directly.\n",
    "\n",
    "###2)Novelty\n",
    "Novelty: Which hypothesis presents more innovative or original approaches? Compare the similarity between the idea and the related work and existing solutions in the background to assess its novelty. A lower similarity to the core idea indicates greater novelty.\n",
    "\n",
    "###3) Detailedness (Level of Specification)\n",
    "Which hypothesis provides clearer, more actionable, and more complete specification of mechanisms, assumptions, experimental steps, required variables, and dependencies? Detailedness rewards clarity that would enable a competent researcher to design an experiment or implementation with minimal ambiguity.\n",
    "\n",
    "###4) Feasibility\n",
    "Which hypothesis presents a more realistic and implementable solution given current technological constraints?\n",
    "\n",
    "###5) Overall\n",
    "Considering the overall aspects together but emphasizing conceptual coherence and scientific grounding, which hypothesis is superior overall? This is a synthesis judgment: prefer the hypothesis that is logically consistent, grounded in accepted principles, avoids critical unstated assumptions or contradictions, and is most defensible as a scientific proposition.\n",
    "\n",
    "Unified constraints:\n",
    "- Use only the provided context and widely accepted scientific principles in the relevant discipline. Do NOT invent facts external to the context unless they are broadly standard domain knowledge.\n",
    "- When a dimension explicitly says to ignore other factors (e.g., Novelty should ignore feasibility), strictly follow that guidance for that dimension. When evaluating a certain dimension, it should focus on this dimension itself and ignore the influence of other dimensions.\n",
    "- Be concise but specific: for each dimension provide a short judgment line (exact format below) plus 1–3 sentences of succinct reasoning grounded in the definitions above.\n",
    "- Format must match exactly (case-insensitive for \"Win A/Win B\") and include a reason after \"because\".\n",
    "\n",
    "\n",
    "##Output format (MUST FOLLOW EXACTLY)\n",
    "\n",
    "Format your response exactly as follows:\n",
    "Effectiveness: [Win A/Win B] because ...\n",
    "Novelty: [Win A/Win B] because ...\n",
    "Detailedness: [Win A/Win B] because ...\n",
    "Feasibility: [Win A/Win B] because ...\n",
    "Overall: [Win A/Win B] because ...\n",
);

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    fn sha(text: &str) -> String {
        hex::encode(Sha256::digest(text.as_bytes()))
    }

    #[test]
    fn idea_prompt_is_the_official_text() {
        // Hashes of the official `get_evaluation_prompt_modified`, `format_idea_data` and
        // `get_context_from_data` rendered by Python with these values.
        let p = idea_prompt("HA", "HB", "CTX");
        assert!(p.contains("##Background context:\nContext:\nCTX\n\n\n\n##Hypothesis A:\nHA\n\n##Hypothesis B:\nHB\n\n##Definition"));
        assert_eq!(
            sha(&p),
            "d631d21fb4a69577f5d29346a774c3006b3da439d9f78d87c38d1c9536b8d75b"
        );
        assert_eq!(
            sha(&idea_prompt("HA", "HB", "")),
            "069ee38620a14fb909c48a625234dc7e95daf43b498369762a96acb771e5255a"
        );
        let idea = json!({"Idea": "I", "ImplementationSteps": {"1": "a", "2": "it's"},
            "ImplementationOrder": ["1-2"], "Dataset": "",
            "EvaluationMetrics": {"m": 1.5, "n": null, "t": true}, "ExpectedOutcome": "E"});
        let text = format_idea(idea.as_object().unwrap());
        assert!(text.starts_with("Idea: I\n\nImplementationSteps: {'1': 'a', '2': \"it's\"}\n\n"));
        assert_eq!(
            sha(&text),
            "34fd6e20002369df3cacaaaf5faed6ca51a849ca8ca646ebda18ee0964ca1517"
        );
        let record = json!({"related_work": "{'A': 'x'}", "challenge": "", "motivation": "M",
            "existing_solutions": "{}"});
        assert_eq!(
            sha(&idea_context(record.as_object().unwrap())),
            "ebdf0babbcfee4742e6819d5d4b28a52f21336ec424c953af8b6c38b36c08791"
        );
    }

    #[test]
    fn idea_records_that_the_official_constructor_rejects() {
        let base = json!({"idx": "I", "related_work": "{}", "existing_solutions": "{}",
            "implementation_steps": "{'1': 'a'}", "implementation_order": ["1"],
            "generated_data": {"Idea": "g"}});
        let with = |key: &str, value: Value| {
            let mut r = base.as_object().unwrap().clone();
            r.insert(key.into(), value);
            r
        };
        let [a, b] = idea_record_prompts(base.as_object().unwrap()).unwrap();
        assert!(a.contains("##Hypothesis A:\nImplementationSteps: {'1': 'a'}\n\nImplementationOrder: ['1']\n\n##Hypothesis B:\nIdea: g\n\n"));
        assert!(b.contains("##Hypothesis A:\nIdea: g\n\n##Hypothesis B:\nImplementationSteps"));
        let mut no_related = base.as_object().unwrap().clone();
        no_related.remove("related_work");
        assert!(
            idea_record_prompts(&no_related)
                .unwrap_err()
                .contains("malformed node")
        );
        assert!(idea_record_prompts(&with("implementation_order", Value::Null)).is_err());
        assert!(idea_record_prompts(&with("generated_data", json!("text"))).is_err());
        assert!(idea_record_prompts(&with("evaluation_metrics", json!("{'a': "))).is_err());
        // `list("1-2")` is its characters.
        let [a, _] = idea_record_prompts(&with("implementation_order", json!("1-2"))).unwrap();
        assert!(a.contains("ImplementationOrder: ['1', '-', '2']"));
        assert_eq!(idea_reply_key("m", true), "m|swap=True");
    }
}
