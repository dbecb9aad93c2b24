//! SAS-Bench step 1: the official prediction prompt over a SAS-Bench dataset folder, written as
//! the official `{stem}_scored.jsonl` files that `scorebench score sasbench --dataset` reads
//! (`shared/specs/sasbench.md`). What the official step 1 does, read from PKU-DAIR/SAS-Bench at
//! commit 4ef718b (`sas_pipelines/1_predict_scores.py`, `utils/load_few_shot.py`,
//! `main/predictor/openai.py`, the templates `prompts/predict.txt` and
//! `prompts/few_shot_prompt.json`, copied byte for byte into `templates/`):
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
use std::sync::atomic::Ordering;

use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use serde_json::{Value, json};

use crate::runs::{
    Attempts, CONFIG, Executes, Input, MAX_TOKENS, MODEL, PageForm, Param, ParamKind, RunError,
    RunHost, RunPlan, RunSpec, RunValues, TEMPERATURE, TOP_P, WORKERS, ask_with_attempts,
    chat_body, db, first_choice, retry_wait, timeout,
};
use prompts::{
    OFFICIAL_STEMS, Prepared, SasOptions, dataset_from_files, official_reply, prepare,
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
pub static RUN: RunSpec = RunSpec {
    key: "sasbench",
    label: "SAS-Bench step 1, the official prediction prompt: <stem>_scored.jsonl per dataset file",
    files: &FILES,
    params: &[
        CONFIG,
        db("SQLite database holding the reply cache (what makes a killed run resume for free)"),
        MODEL,
        Param::new(
            "dataset",
            "The dataset folder: `<id>_<Course>_<type>.jsonl` gold files and `error_type.jsonl`",
            ParamKind::Files,
        )
        .label("dataset files (error_type.jsonl and <id>_<Course>_<type>.jsonl)"),
        Param::cli(
            "out",
            "Output folder (default: `<DATASET>_<MODEL>_Scored`, the official save folder); an \
             earlier run's `_scored.jsonl` files there are resumed",
            ParamKind::Path {
                required: false,
                default: None,
            },
        ),
        Param::cli(
            "files",
            "Only this dataset file (its stem, e.g. `7_Math_ShortAns`; repeatable; default: all)",
            ParamKind::Texts,
        )
        .flag("file")
        .value_name("STEM"),
        Param::new(
            "few_shot",
            "Few-shot examples per prompt (the official `--few_shot_num`; `--few-shot` alone: 3)",
            ParamKind::Count {
                default: 0,
                missing: Some(3),
                choices: &[0, 1, 2, 3],
            },
        )
        .label("few-shot examples"),
        Param::new(
            "seed",
            "Seed of the few-shot example choice",
            ParamKind::Count {
                default: 0,
                missing: None,
                choices: &[],
            },
        )
        .label("few-shot seed"),
        Param::cli(
            "no_guideline",
            "Leave the scoring guideline out of the prompt (the official `--use_guideline 0`)",
            ParamKind::Switch { default: false },
        ),
        Param::http("use_guideline", ParamKind::Switch { default: true }),
        WORKERS,
        Param {
            help: "Sent only when given (the official step 1 sends none of these to API models)",
            ..MAX_TOKENS
        },
        TEMPERATURE,
        TOP_P,
        timeout(600),
        retry_wait(2_000),
    ],
    page: Some(PageForm {
        open: &FILES,
        // The gold files and error_type.jsonl: the workbench scores raw files with them.
        open_inputs: &["dataset"],
    }),
    executes: Executes::Models,
    plan,
};

/// Attempts per request (the OpenAI Python client's 1 + 2 retries).
const ATTEMPTS: u32 = 3;

fn plan(values: RunValues) -> Result<Box<dyn RunPlan>, RunError> {
    let model = values.text("model")?;
    let options = SasOptions {
        few_shot: values.count("few_shot")?,
        seed: values.count("seed")?,
        use_guideline: if values.over_http {
            values.switch("use_guideline")?
        } else {
            !values.switch("no_guideline")?
        },
        workers: values.workers()?,
        max_tokens: values.optional_count("max_tokens")?,
        temperature: values.number("temperature")?,
        top_p: values.number("top_p")?,
        timeout_secs: values.count("timeout_secs")?,
        retry_wait_ms: values.count("retry_wait_ms")?,
        model,
    };
    let source = match values.files("dataset")? {
        Input::Path(dir) => Source::Folder {
            dir,
            only: values.texts("files")?,
        },
        Input::Given(files) => {
            options.check()?;
            let dataset = dataset_from_files(files)?;
            for file in &dataset.files {
                if !OFFICIAL_STEMS.contains(&file.stem.as_str()) {
                    return Err(RunError::Input(format!(
                        "dataset: {}.jsonl is not a SAS-Bench file name (expected one of {})",
                        file.stem,
                        OFFICIAL_STEMS.join(", ")
                    )));
                }
            }
            Source::Prepared(prepare(&dataset, &options)?)
        }
    };
    Ok(Box::new(SasPlan { options, source }))
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

impl RunPlan for SasPlan {
    fn model(&self) -> String {
        self.options.model.clone()
    }

    fn default_out(&self) -> Option<PathBuf> {
        match &self.source {
            Source::Folder { dir, .. } => Some(default_out(dir, &self.options.model)),
            Source::Prepared(_) => None,
        }
    }

    fn load(&mut self, host: &dyn RunHost, _out_dir: &Path) -> Result<(), RunError> {
        if let Source::Folder { dir, only } = &self.source {
            self.options.check()?;
            let dataset = read_folder(host, dir, only)?;
            self.source = Source::Prepared(prepare(&dataset, &self.options)?);
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
            let Source::Prepared(prepared) = plan.source else {
                return Err(RunError::Internal("the dataset was not loaded".into()));
            };
            run(host, &plan.options, prepared, out_dir).await
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
    fn write(&mut self, host: &dyn RunHost, ids: &[String]) -> Result<(), RunError> {
        host.replace(&self.path, scored_text(ids, &self.replies).as_bytes())?;
        self.dirty = false;
        Ok(())
    }
}

/// Run step 1 over `prepared`, writing `{stem}_scored.jsonl` files into `out_dir`.
pub async fn run(
    host: &dyn RunHost,
    options: &SasOptions,
    prepared: Prepared,
    out_dir: &Path,
) -> Result<String, RunError> {
    options.check()?;
    if host.upstream_name(&options.model).is_none() {
        return Err(RunError::Input(format!(
            "model {:?} is not listed by any upstream in the config",
            options.model
        )));
    }
    host.create_dir_all(out_dir)?;
    let mut states = Vec::new();
    let mut todo = Vec::new();
    let mut reused = 0u64;
    for (f, file) in prepared.files.iter().enumerate() {
        let path = out_dir.join(format!("{}_scored.jsonl", file.stem));
        let previous = previous_replies(host, &path);
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
        state.write(host, &file.ids)?;
        states.push(state);
    }
    let asked_total: u64 = prepared
        .files
        .iter()
        .map(|f| f.asked.iter().filter(|a| **a).count() as u64)
        .sum();
    let counters = host.counters();
    counters.set_total(asked_total);
    counters.reused.store(reused, Ordering::Relaxed);
    counters.done.store(reused, Ordering::Relaxed);

    let prepared = &prepared;
    let mut stream = futures_util::stream::iter(todo.into_iter().map(|(f, i)| async move {
        host.unpaused().await;
        let prompt = &prepared.files[f].prompts[i];
        let reply = ask(host, options, prompt).await?;
        Ok::<_, RunError>((f, i, reply))
    }))
    .buffer_unordered(options.workers);
    let mut last_write = host.millis();
    let mut failed = 0u64;
    while let Some(result) = stream.next().await {
        let (f, i, reply) = result?;
        match reply {
            Some((content, cached)) => {
                states[f].replies[i] = Some(official_reply(&content));
                states[f].dirty = true;
                counters.finished(cached, false);
            }
            None => {
                failed += 1;
                counters.finished(false, true);
            }
        }
        if host.millis() - last_write >= 250.0 {
            for (state, file) in states.iter_mut().zip(&prepared.files) {
                if state.dirty {
                    state.write(host, &file.ids)?;
                }
            }
            last_write = host.millis();
        }
    }
    drop(stream);
    for (state, file) in states.iter_mut().zip(&prepared.files) {
        if state.dirty {
            state.write(host, &file.ids)?;
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
    host: &dyn RunHost,
    options: &SasOptions,
    prompt: &str,
) -> Result<Option<(String, bool)>, RunError> {
    let body = chat_body(
        &options.model,
        prompt,
        &[
            ("max_tokens", options.max_tokens.map(|v| json!(v))),
            ("temperature", options.temperature.map(|v| json!(v))),
            ("top_p", options.top_p.map(|v| json!(v))),
        ],
    );
    let accept = |reply: &Value| -> Result<(), String> {
        let (message, _) = first_choice(reply)?;
        message["content"]
            .as_str()
            .map(|_| ())
            .ok_or_else(|| "the reply has no content string".to_string())
    };
    let attempts = Attempts {
        attempts: ATTEMPTS,
        timeout_secs: options.timeout_secs,
        wait_ms: options.retry_wait_ms,
    };
    let Some(answer) = ask_with_attempts(host, &body, 0, attempts, &accept, "request").await?
    else {
        return Ok(None);
    };
    let (message, _) = first_choice(&answer.json).map_err(RunError::Internal)?;
    let content = message["content"].as_str().unwrap_or_default().to_string();
    Ok(Some((content, answer.cached)))
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
