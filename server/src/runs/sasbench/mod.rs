//! SAS-Bench step 1: the official prediction prompt over a SAS-Bench dataset folder, written as
//! the official `{stem}_scored.jsonl` files that `scorebench score sasbench --dataset` reads
//! (`shared/specs/sasbench.md`). What the official step 1 does, read from PKU-DAIR/SAS-Bench at
//! commit 4ef718b (`sas_pipelines/1_predict_scores.py`, `utils/load_few_shot.py`,
//! `main/predictor/openai.py`, the templates `prompts/predict.txt` and
//! `prompts/few_shot_prompt.json`, copied byte for byte into `sasbench_prompts/`):
//!
//! ```text
//! id           = the file name's prefix before the first `_` ("7" for 7_Math_ShortAns)
//! taxonomy     = the first error_type.jsonl line with str(q_id) == id:
//!                guideline = its `guideline`; error_type = json.dumps([e.name for e in errors]
//!                + ["步骤正确"], ensure_ascii=False); no such line: guideline "", error_type "[]"
//! answer       = "".join(f"## Step {k}. {step.response}" for k, step in enumerate(steps))
//! prompt       = predict.txt.strip().format(question, total, score_guideline, few_shot_samples,
//!                error_type, reference, analysis, student_answer)     (Python str.format: str()
//!                of each value, `{{`/`}}` → `{`/`}`; missing record fields read as "")
//! few-shot (N) = examples from the same file: buckets by manual_label/total (< 0.333 low,
//!                < 0.667 mid, else high); for i in 0..N: i = 0 low, 1 mid, 2 high, a bucket
//!                only when not empty (so at most 3, in that order); each one
//!                few_shot_prompt.template.format(question, total, reference, analysis,
//!                student_answer, output = json.dumps({"total", "pred_score": manual_label,
//!                "steps": [{"step_score": int(label), "errors"}]}, ensure_ascii=False));
//!                few_shot_samples = prefix + "\n" + "\n".join(examples) + "\n" + suffix + "\n"
//! body         = {model, messages: [{role: user, content: prompt}]}   (the API models get no
//!                temperature, top_p or max tokens)
//! reply        = choices[0].message.content with every "\n" and " " removed; when it holds
//!                {'total' every ' becomes "
//! file         = per record, in file order: id TAB json.dumps(reply, ensure_ascii=False), or
//!                `false` while the record has no reply; the whole file rewritten as replies come
//! resume       = lines of an earlier file whose decoded reply holds {"total" or {'total' are
//!                kept (matched by id, the first record of that id), the rest asked again
//! ```
//!
//! Ours, where the official code gives no answer: the few-shot examples are drawn with a seeded
//! choice (`--seed`; the official `random.choice` is unseeded, so no run of it can be
//! reproduced) — the k-th example of a file is bucket entry `sha256("{seed}/{stem}/{k}") mod len`;
//! a request is tried up to 3 times (the OpenAI client's default retries); a record still
//! without a reply (or whose reply has no `content` string) stays `false` while the others are
//! asked, and the run then ends failed, resumable (the official script stops at the first). With duplicate ids the official file holds the reply only at the id's last record
//! (its earlier records keep `false`), so only that record is asked. Every reply is in the
//! reply cache: a killed run resumes without asking again.

mod prompts;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use clap::Args;
use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use serde_json::{Value, json};

use super::kind::{CliPlan, Field, FieldKind, Form, Plan, RunKind, body_as, check_served};
use super::progress::{Progress, RunError, first_choice};
use crate::cache::{Role, UsageTotals};
use crate::gateway::{Call, CallError, Gateway, Sample};
use crate::upstream::{Endpoint, RetryPolicy, UpstreamError};
use prompts::{
    NamedFile, OFFICIAL_STEMS, Prepared, SasOptions, dataset_from_files, official_reply, prepare,
    previous_replies, read_folder, scored_text,
};

const FILES: [&str; 12] = [
    "0_Physics_ShortAns_scored.jsonl",
    "1_History_ShortAns_scored.jsonl",
    "2_Physics_Choice_scored.jsonl",
    "3_Geography_ShortAns_scored.jsonl",
    "4_Biology_gapfilling_scored.jsonl",
    "5_Chinese_gapfilling_scored.jsonl",
    "6_Chinese_ShortAns_scored.jsonl",
    "7_Math_ShortAns_scored.jsonl",
    "8_Political_ShortAns_scored.jsonl",
    "9_English_gapfilling_scored.jsonl",
    "10_Math_gapfilling_scored.jsonl",
    "11_Chemistry_gapfilling_scored.jsonl",
];

/// `scorebench run sasbench`, `{"benchmark": "sasbench"}`.
pub struct Sasbench;

/// Arguments of `scorebench run sasbench`.
#[derive(Args, Debug)]
pub struct SasArgs {
    /// The upstream configuration (TOML; see server/API.md)
    #[arg(long)]
    config: PathBuf,
    /// SQLite database holding the reply cache (what makes a killed run resume for free)
    #[arg(long, default_value = "data/scorebench.sqlite3")]
    db: PathBuf,
    /// The model to run, as listed by an upstream
    #[arg(long)]
    model: String,
    /// The dataset folder: `<id>_<Course>_<type>.jsonl` gold files and `error_type.jsonl`
    #[arg(long)]
    dataset: PathBuf,
    /// Output folder (default: `<DATASET>_<MODEL>_Scored`, the official save folder); an
    /// earlier run's `_scored.jsonl` files there are resumed
    #[arg(long)]
    out: Option<PathBuf>,
    /// Only this dataset file (its stem, e.g. `7_Math_ShortAns`; repeatable; default: all)
    #[arg(long = "file", value_name = "STEM")]
    files: Vec<String>,
    /// Few-shot examples per prompt (the official `--few_shot_num`; `--few-shot` alone: 3)
    #[arg(long, num_args = 0..=1, default_value_t = 0, default_missing_value = "3")]
    few_shot: u64,
    /// Seed of the few-shot example choice
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Leave the scoring guideline out of the prompt (the official `--use_guideline 0`)
    #[arg(long)]
    no_guideline: bool,
    /// Concurrent requests
    #[arg(long, default_value_t = 8)]
    workers: usize,
    /// Sent only when given (the official step 1 sends none of these to API models)
    #[arg(long)]
    max_tokens: Option<u64>,
    #[arg(long)]
    temperature: Option<f64>,
    #[arg(long)]
    top_p: Option<f64>,
    /// Per-request timeout in seconds
    #[arg(long, default_value_t = 600)]
    timeout: u64,
    /// Wait between the attempts of a failed request, in milliseconds
    #[arg(long, default_value_t = 2_000)]
    retry_wait_ms: u64,
}

/// The `POST /api/v1/runs` body (`benchmark` aside).
#[derive(serde::Deserialize)]
struct SasBody {
    /// The dataset folder's files: `error_type.jsonl` and gold files, as `{name, text}`.
    dataset: Vec<NamedFile>,
    #[serde(flatten)]
    options: SasOptions,
}

/// Attempts per request (the OpenAI Python client's 1 + 2 retries).
const ATTEMPTS: u32 = 3;

impl RunKind for Sasbench {
    fn key(&self) -> &'static str {
        "sasbench"
    }

    fn label(&self) -> &'static str {
        "SAS-Bench step 1, the official prediction prompt: <stem>_scored.jsonl per dataset file"
    }

    fn files(&self) -> &'static [&'static str] {
        &FILES
    }

    fn args(&self, command: clap::Command) -> clap::Command {
        SasArgs::augment_args(command)
    }

    fn plan_from_args(&self, matches: &clap::ArgMatches) -> Result<CliPlan, RunError> {
        let a = crate::runs::kind::parsed::<SasArgs>(matches)?;
        let out = a
            .out
            .clone()
            .unwrap_or_else(|| default_out(&a.dataset, &a.model));
        let options = SasOptions {
            model: a.model,
            few_shot: a.few_shot,
            seed: a.seed,
            use_guideline: !a.no_guideline,
            workers: a.workers,
            max_tokens: a.max_tokens,
            temperature: a.temperature,
            top_p: a.top_p,
            timeout_secs: a.timeout,
            retry_wait_ms: a.retry_wait_ms,
        };
        Ok(CliPlan {
            config: Some(a.config),
            db: a.db,
            out,
            plan: Box::new(SasPlan {
                options,
                source: Source::Folder {
                    dir: a.dataset,
                    only: a.files,
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
                Field::new(
                    "dataset",
                    FieldKind::Files,
                    "dataset files (error_type.jsonl and <id>_<Course>_<type>.jsonl)",
                ),
                Field::new("model", FieldKind::Model, "model"),
                Field::with(
                    "few_shot",
                    FieldKind::Choice,
                    "few-shot examples",
                    false,
                    Some(0),
                    &[0, 1, 2, 3],
                ),
                Field::integer("seed", "few-shot seed", 0),
                Field::WORKERS,
            ],
            open: &FILES,
            // The gold files and error_type.jsonl: the workbench scores raw files with them.
            open_inputs: &["dataset"],
        };
        Some(&FORM)
    }

    fn plan_from_body(&self, body: Value, gateway: &Gateway) -> Result<Box<dyn Plan>, RunError> {
        let SasBody { dataset, options } = body_as(body)?;
        check_served(gateway, &options.model)?;
        options.check()?;
        let dataset = dataset_from_files(dataset)?;
        for file in &dataset.files {
            if !OFFICIAL_STEMS.contains(&file.stem.as_str()) {
                return Err(RunError::Input(format!(
                    "dataset: {}.jsonl is not a SAS-Bench file name (expected one of {})",
                    file.stem,
                    OFFICIAL_STEMS.join(", ")
                )));
            }
        }
        let prepared = prepare(&dataset, &options)?;
        Ok(Box::new(SasPlan {
            options,
            source: Source::Prepared(prepared),
        }))
    }
}

/// The official save folder: the dataset folder's path + `_{model}_Scored`.
fn default_out(dataset: &Path, model: &str) -> PathBuf {
    let text = dataset.display().to_string();
    let text = text.trim_end_matches('/');
    let safe: String = model
        .chars()
        .map(|c| if c == '/' || c == '\\' { '_' } else { c })
        .collect();
    PathBuf::from(format!("{text}_{safe}_Scored"))
}

enum Source {
    Folder { dir: PathBuf, only: Vec<String> },
    Prepared(Prepared),
}

struct SasPlan {
    options: SasOptions,
    source: Source,
}

impl Plan for SasPlan {
    fn model(&self) -> String {
        self.options.model.clone()
    }

    fn load(
        &mut self,
        _gateway: &Gateway,
        _progress: &Arc<Progress>,
        _out_dir: &Path,
    ) -> Result<(), RunError> {
        if let Source::Folder { dir, only } = &self.source {
            self.options.check()?;
            let dataset = read_folder(dir, only)?;
            self.source = Source::Prepared(prepare(&dataset, &self.options)?);
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
            let Source::Prepared(prepared) = plan.source else {
                return Err(RunError::Internal("the dataset was not loaded".into()));
            };
            run(gateway, &plan.options, prepared, out_dir, progress).await
        })
    }
}

/// A file's state while the run goes: the replies so far and whether they are written.
struct FileState {
    path: PathBuf,
    replies: Vec<Option<String>>,
    dirty: bool,
}

impl FileState {
    fn write(&mut self, ids: &[String]) -> Result<(), RunError> {
        let tmp = self.path.with_extension("jsonl.part");
        std::fs::write(&tmp, scored_text(ids, &self.replies))
            .and_then(|_| std::fs::rename(&tmp, &self.path))
            .map_err(|e| RunError::io(&self.path, e))?;
        self.dirty = false;
        Ok(())
    }
}

/// Run step 1 over `prepared`, writing `{stem}_scored.jsonl` files into `out_dir`.
pub async fn run(
    gateway: &Gateway,
    options: &SasOptions,
    prepared: Prepared,
    out_dir: &Path,
    progress: Arc<Progress>,
) -> Result<String, RunError> {
    options.check()?;
    if gateway.upstreams.route(&options.model).is_none() {
        return Err(RunError::Input(format!(
            "model {:?} is not listed by any upstream in the config",
            options.model
        )));
    }
    std::fs::create_dir_all(out_dir).map_err(|e| RunError::io(out_dir, e))?;
    let mut states = Vec::new();
    let mut todo = Vec::new();
    let mut reused = 0u64;
    for (f, file) in prepared.files.iter().enumerate() {
        let path = out_dir.join(format!("{}_scored.jsonl", file.stem));
        let previous = previous_replies(&path);
        // A kept reply belongs to the first record of its id (`ori_data_id_dict`).
        let mut replies: Vec<Option<String>> = vec![None; file.ids.len()];
        let mut first_seen = std::collections::HashSet::new();
        for (i, id) in file.ids.iter().enumerate() {
            if first_seen.insert(id.as_str()) {
                replies[i] = previous.get(id).cloned();
            }
        }
        for (i, (reply, asked)) in replies.iter().zip(&file.asked).enumerate() {
            match (asked, reply) {
                (true, Some(_)) => reused += 1,
                (true, None) => todo.push((f, i)),
                (false, _) => {}
            }
        }
        let mut state = FileState {
            path,
            replies,
            dirty: true,
        };
        state.write(&file.ids)?;
        states.push(state);
    }
    let asked_total: u64 = prepared
        .files
        .iter()
        .map(|f| f.asked.iter().filter(|a| **a).count() as u64)
        .sum();
    progress.total.store(asked_total, Ordering::Relaxed);
    progress.reused.store(reused, Ordering::Relaxed);
    progress.done.store(reused, Ordering::Relaxed);

    let prepared = &prepared;
    let mut stream = futures_util::stream::iter(todo.into_iter().map(|(f, i)| {
        let progress = progress.clone();
        async move {
            progress.wait_if_paused().await;
            let prompt = &prepared.files[f].prompts[i];
            let reply = ask(gateway, options, prompt, &progress).await?;
            Ok::<_, RunError>((f, i, reply))
        }
    }))
    .buffer_unordered(options.workers);
    let mut last_write = Instant::now();
    let mut failed = 0u64;
    while let Some(result) = stream.next().await {
        let (f, i, reply) = result?;
        match reply {
            Some((content, cached)) => {
                states[f].replies[i] = Some(official_reply(&content));
                states[f].dirty = true;
                if cached {
                    progress.reused.fetch_add(1, Ordering::Relaxed);
                }
            }
            None => {
                failed += 1;
                progress.failed.fetch_add(1, Ordering::Relaxed);
            }
        }
        progress.done.fetch_add(1, Ordering::Relaxed);
        if last_write.elapsed() >= Duration::from_millis(250) {
            for (state, file) in states.iter_mut().zip(&prepared.files) {
                if state.dirty {
                    state.write(&file.ids)?;
                }
            }
            last_write = Instant::now();
        }
    }
    drop(stream);
    for (state, file) in states.iter_mut().zip(&prepared.files) {
        if state.dirty {
            state.write(&file.ids)?;
        }
    }
    if failed > 0 {
        // Where the official script stops with the exception; the files hold `false` there.
        return Err(RunError::NoScore(format!(
            "{failed} record(s) got no reply after {ATTEMPTS} attempts (written as false in \
             {}); resume the run to ask them again",
            out_dir.display()
        )));
    }
    let records: usize = prepared.files.iter().map(|f| f.ids.len()).sum();
    Ok(format!(
        "SAS-Bench step 1: {} file(s), {records} records, {reused} kept from earlier files; \
         files in {}",
        prepared.files.len(),
        out_dir.display()
    ))
}

/// Ask the model for one prompt, up to [`ATTEMPTS`] times: the reply's content and whether the
/// cache answered, or `None` when every attempt failed.
async fn ask(
    gateway: &Gateway,
    options: &SasOptions,
    prompt: &str,
    progress: &Progress,
) -> Result<Option<(String, bool)>, RunError> {
    let mut body = json!({
        "model": options.model,
        "messages": [{"role": "user", "content": prompt}],
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
    let accept = |reply: &Value| -> Result<(), String> {
        let (message, _) = first_choice(reply)?;
        message["content"]
            .as_str()
            .map(|_| ())
            .ok_or_else(|| "the reply has no content string".to_string())
    };
    for attempt in 1..=ATTEMPTS {
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
                record_usage(gateway, progress, &answer.usage).await;
                let (message, _) = first_choice(&answer.json).map_err(RunError::Internal)?;
                let content = message["content"].as_str().unwrap_or_default().to_string();
                return Ok(Some((content, answer.cached)));
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
                tracing::warn!(attempt, "request failed: {e}");
                if attempt < ATTEMPTS && options.retry_wait_ms > 0 {
                    tokio::time::sleep(Duration::from_millis(options.retry_wait_ms)).await;
                }
            }
        }
    }
    Ok(None)
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

#[cfg(test)]
mod tests {
    use super::prompts::{FEW_SHOT_JSON, PREDICT_TEMPLATE, py_format};
    use super::*;
    use sha2::{Digest, Sha256};

    #[test]
    fn format_reads_like_python() {
        assert_eq!(
            py_format("a {x} {{'k': 1}} }}", &[("x", "X")]).unwrap(),
            "a X {'k': 1} }"
        );
        assert!(py_format("{y}", &[("x", "X")]).is_err());
        assert!(py_format("a } b", &[]).is_err());
    }

    #[test]
    fn replies_are_stored_as_the_official_code_does() {
        assert_eq!(
            official_reply("{'total': 6,\n 'x': 'a b'}"),
            "{\"total\":6,\"x\":\"ab\"}"
        );
        assert_eq!(official_reply("a\tb c\r\n"), "a\tbc\r");
        let text = scored_text(&["a".into(), "b".into()], &[Some("x\"\t".into()), None]);
        assert_eq!(text, "a\t\"x\\\"\\t\"\nb\tfalse\n");
    }

    #[test]
    fn the_templates_are_the_official_bytes() {
        // sha256sum of prompts/predict.txt and prompts/few_shot_prompt.json at 4ef718b.
        let hex = |s: &str| hex::encode(Sha256::digest(s.as_bytes()));
        assert_eq!(
            hex(PREDICT_TEMPLATE),
            "141350c00a952de78a045e6a16cb6eb2f5c2f748568cd076eaace94ad97bf64c"
        );
        assert_eq!(
            hex(FEW_SHOT_JSON),
            "b4988c1a4136de35a6869e38e8d45bb2029b7c8b183d52a4868ef0137a7bcf73"
        );
    }
}
