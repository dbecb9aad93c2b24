//! The official step 1's prompts, made from a dataset folder exactly as
//! `sas_pipelines/1_predict_scores.py` makes them (the rules are in [`super`]'s doc), and the
//! `{stem}_scored.jsonl` text it writes.

use std::collections::HashMap;
use std::path::Path;

use metrics_core::python::{PyValue, json_dumps_str, py_int, py_str, strip};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::runs::{NamedFile, RunError, RunHost, check_workers};

/// `prompts/predict.txt` of PKU-DAIR/SAS-Bench at 4ef718b (byte for byte).
pub const PREDICT_TEMPLATE: &str = include_str!("templates/predict.txt");

/// `prompts/few_shot_prompt.json` of PKU-DAIR/SAS-Bench at 4ef718b (byte for byte).
pub const FEW_SHOT_JSON: &str = include_str!("templates/few_shot_prompt.json");

/// The error name that marks a correct step, appended to every taxonomy (`CORRECT_NAME`).
pub(super) const CORRECT_NAME: &str = "步骤正确";

/// The taxonomy file of a dataset folder.
pub const TAXONOMY: &str = "error_type.jsonl";

/// The twelve dataset files of SAS-Bench: their `_scored.jsonl` files are the ones a client may
/// download (an HTTP run takes only these names).
pub const OFFICIAL_STEMS: [&str; 12] = [
    "0_Physics_ShortAns",
    "1_History_ShortAns",
    "2_Physics_Choice",
    "3_Geography_ShortAns",
    "4_Biology_gapfilling",
    "5_Chinese_gapfilling",
    "6_Chinese_ShortAns",
    "7_Math_ShortAns",
    "8_Political_ShortAns",
    "9_English_gapfilling",
    "10_Math_gapfilling",
    "11_Chemistry_gapfilling",
];

/// Most prompt text one run sends (Σ prompt bytes).
pub const MAX_PROMPT_BYTES: u64 = 512 * 1024 * 1024;

/// The inputs of a run: the taxonomy and the gold files, by stem.
pub struct Dataset {
    pub taxonomy: (String, String),
    pub files: Vec<GoldFile>,
}

/// A gold file: its stem and text (with the name errors give).
pub struct GoldFile {
    pub stem: String,
    pub name: String,
    pub text: String,
}

/// A dataset file name `<id>_<rest>.jsonl` → its stem; `None` for other names.
pub(super) fn stem_of(name: &str) -> Option<&str> {
    let stem = name.strip_suffix(".jsonl")?;
    let (id, rest) = stem.split_once('_')?;
    (!id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) && !rest.is_empty()).then_some(stem)
}

pub(super) fn dataset_from_files(files: Vec<NamedFile>) -> Result<Dataset, RunError> {
    let mut taxonomy = None;
    let mut gold = Vec::new();
    for f in files {
        if f.name.contains(['/', '\\']) {
            return Err(RunError::Input(format!(
                "dataset: {:?}: a file name, not a path",
                f.name
            )));
        }
        if f.name == TAXONOMY {
            taxonomy = Some((f.name, f.text));
        } else if let Some(stem) = stem_of(&f.name) {
            if gold.iter().any(|g: &GoldFile| g.stem == stem) {
                return Err(RunError::Input(format!("dataset: {} given twice", f.name)));
            }
            gold.push(GoldFile {
                stem: stem.to_string(),
                name: f.name,
                text: f.text,
            });
        } else {
            return Err(RunError::Input(format!(
                "dataset: {:?} is neither error_type.jsonl nor <id>_<Course>_<type>.jsonl",
                f.name
            )));
        }
    }
    let taxonomy =
        taxonomy.ok_or_else(|| RunError::Input("dataset: no error_type.jsonl".into()))?;
    if gold.is_empty() {
        return Err(RunError::Input(
            "dataset: no <id>_<Course>_<type>.jsonl gold file".into(),
        ));
    }
    gold.sort_by_key(|g| {
        (
            g.stem.split('_').next().and_then(|n| n.parse::<u64>().ok()),
            g.stem.clone(),
        )
    });
    Ok(Dataset {
        taxonomy,
        files: gold,
    })
}

/// Read a dataset folder (only the stems in `only`, when given).
pub fn read_folder(host: &dyn RunHost, dir: &Path, only: &[String]) -> Result<Dataset, RunError> {
    let mut files = Vec::new();
    for name in host.list(dir)? {
        let wanted = name == TAXONOMY
            || stem_of(&name).is_some_and(|s| only.is_empty() || only.iter().any(|o| o == s));
        if wanted {
            files.push(NamedFile {
                text: host.read(&dir.join(&name))?,
                name,
            });
        }
    }
    for stem in only {
        if !files
            .iter()
            .any(|f| stem_of(&f.name) == Some(stem.as_str()))
        {
            return Err(RunError::Input(format!(
                "{}: no {stem}.jsonl",
                dir.display()
            )));
        }
    }
    let mut dataset = dataset_from_files(files).map_err(|e| match e {
        RunError::Input(m) => RunError::Input(format!("{}: {m}", dir.display())),
        e => e,
    })?;
    for f in &mut dataset.files {
        f.name = dir.join(&f.name).display().to_string();
    }
    dataset.taxonomy.0 = dir.join(TAXONOMY).display().to_string();
    Ok(dataset)
}

/// Python `f.readlines()` + `json.loads` per line; an error names the file and line.
pub(super) fn jsonl(name: &str, text: &str) -> Result<Vec<Value>, RunError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.split_inclusive('\n')
        .enumerate()
        .map(|(i, line)| {
            if strip(line).is_empty() {
                return Err(RunError::Input(format!(
                    "{name}:{}: an empty line (the official json.loads stops here)",
                    i + 1
                )));
            }
            serde_json::from_str(line)
                .map_err(|e| RunError::Input(format!("{name}:{}: not a JSON line: {e}", i + 1)))
        })
        .collect()
}

/// Python `template.format(**fields)` for `{name}` fields and `{{`/`}}` escapes.
pub fn py_format(template: &str, fields: &[(&str, &str)]) -> Result<String, String> {
    let mut out = String::with_capacity(template.len());
    let mut chars = template.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' if chars.peek().map(|p| p.1) == Some('{') => {
                chars.next();
                out.push('{');
            }
            '{' => {
                let rest = &template[i + 1..];
                let end = rest
                    .find('}')
                    .ok_or_else(|| "Single '{' encountered in format string".to_string())?;
                let name = &rest[..end];
                let value = fields
                    .iter()
                    .find(|(k, _)| *k == name)
                    .ok_or_else(|| format!("KeyError: {name:?}"))?;
                out.push_str(value.1);
                for _ in 0..name.chars().count() + 1 {
                    chars.next();
                }
            }
            '}' if chars.peek().map(|p| p.1) == Some('}') => {
                chars.next();
                out.push('}');
            }
            '}' => return Err("Single '}' encountered in format string".into()),
            c => out.push(c),
        }
    }
    Ok(out)
}

/// `''.join(f'## Step {k}. {step["response"]}')` of a record.
pub(super) fn student_answer(steps: &Value) -> Result<String, String> {
    let steps = match steps {
        Value::Array(steps) => steps.as_slice(),
        Value::String(s) if s.is_empty() => &[],
        other => return Err(format!("steps is {} and not a list", py_str(other))),
    };
    let mut out = String::new();
    for (k, step) in steps.iter().enumerate() {
        let response = step
            .get("response")
            .ok_or_else(|| format!("step {k} has no \"response\""))?;
        out.push_str(&format!("## Step {k}. {}", py_str(response)));
    }
    Ok(out)
}

/// `record.get(key, '')` as `str.format` prints it.
pub(super) fn get_str(record: &Value, key: &str) -> String {
    record.get(key).map(py_str).unwrap_or_default()
}

/// A record's share of the total as Python `float(x)` reads it.
pub(super) fn py_float(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::String(s) => strip(s).replace('_', "").parse().ok(),
        _ => None,
    }
}

/// The few-shot block of one file (`""` when `n` is 0).
pub(super) fn few_shot_block(
    name: &str,
    stem: &str,
    records: &[Value],
    n: u64,
    seed: u64,
) -> Result<String, RunError> {
    if n == 0 {
        return Ok(String::new());
    }
    let config: Value = serde_json::from_str(FEW_SHOT_JSON)
        .map_err(|e| RunError::Internal(format!("few_shot_prompt.json: {e}")))?;
    let text = |k: &str| config[k].as_str().unwrap_or_default().to_string();
    let mut buckets: [Vec<&Value>; 3] = Default::default();
    for (i, r) in records.iter().enumerate() {
        let bad = |what: &str| RunError::Input(format!("{name}:{}: few-shot: {what}", i + 1));
        let total = r
            .get("total")
            .and_then(py_float)
            .ok_or_else(|| bad("total is not a number"))?;
        let label = r
            .get("manual_label")
            .and_then(py_float)
            .ok_or_else(|| bad("manual_label is not a number"))?;
        if total == 0.0 {
            return Err(bad("total is 0 (the official code divides by it)"));
        }
        let share = label / total;
        let b = if share < 0.333 {
            0
        } else if share < 0.667 {
            1
        } else {
            2
        };
        buckets[b].push(r);
    }
    let mut examples = Vec::new();
    for (k, bucket) in buckets.iter().enumerate().take(n.min(3) as usize) {
        if bucket.is_empty() {
            continue;
        }
        let digest = Sha256::digest(format!("{seed}/{stem}/{k}").as_bytes());
        let mut word = [0u8; 8];
        word.copy_from_slice(&digest[..8]);
        let pick = bucket[(u64::from_be_bytes(word) % bucket.len() as u64) as usize];
        examples.push(example(name, pick, &text("template"))?);
    }
    Ok(format!(
        "{}\n{}\n{}\n",
        text("prefix"),
        examples.join("\n"),
        text("suffix")
    ))
}

/// `compute_few_shot_prompt(sample, template)`.
pub(super) fn example(name: &str, r: &Value, template: &str) -> Result<String, RunError> {
    let bad = |what: String| {
        RunError::Input(format!(
            "{name}: few-shot example {}: {what}",
            get_str(r, "id")
        ))
    };
    let steps = r["steps"].as_array().cloned().unwrap_or_default();
    let mut out_steps = Vec::new();
    for s in &steps {
        let label = py_int(&s["label"]).map_err(|e| bad(format!("label: {e}")))?;
        let mut step = indexmap::IndexMap::new();
        step.insert("step_score".to_string(), PyValue::Int(label));
        step.insert("errors".to_string(), PyValue::from_value(&s["errors"]));
        out_steps.push(PyValue::Dict(step));
    }
    let mut output = indexmap::IndexMap::new();
    output.insert("total".to_string(), PyValue::from_value(&r["total"]));
    output.insert(
        "pred_score".to_string(),
        PyValue::from_value(&r["manual_label"]),
    );
    output.insert("steps".to_string(), PyValue::List(out_steps));
    let field = |k: &str| r.get(k).map(py_str).ok_or_else(|| bad(format!("no {k:?}")));
    let answer = student_answer(&r["steps"]).map_err(bad)?;
    let (question, total, reference, analysis) = (
        field("question")?,
        field("total")?,
        field("reference")?,
        field("analysis")?,
    );
    let output = PyValue::Dict(output).json_dumps();
    py_format(
        template,
        &[
            ("question", &question),
            ("total", &total),
            ("reference", &reference),
            ("analysis", &analysis),
            ("student_answer", &answer),
            ("output", &output),
        ],
    )
    .map_err(|e| RunError::Internal(format!("few-shot template: {e}")))
}

/// The guideline and the error-name list of file `stem` (`q_id` = the prefix before `_`).
pub(super) fn taxonomy_of(
    name: &str,
    text: &str,
    stem: &str,
) -> Result<(String, String), RunError> {
    let id = stem.split('_').next().unwrap_or_default();
    for (i, line) in jsonl(name, text)?.iter().enumerate() {
        if line.get("q_id").map(py_str).as_deref() != Some(id) {
            continue;
        }
        let guideline = line
            .get("guideline")
            .map(py_str)
            .ok_or_else(|| RunError::Input(format!("{name}:{}: no \"guideline\"", i + 1)))?;
        let errors = line["errors"].as_array().ok_or_else(|| {
            RunError::Input(format!("{name}:{}: \"errors\" is not a list", i + 1))
        })?;
        let mut names: Vec<PyValue> = errors
            .iter()
            .map(|e| {
                e.get("name").map(PyValue::from_value).ok_or_else(|| {
                    RunError::Input(format!("{name}:{}: an error without \"name\"", i + 1))
                })
            })
            .collect::<Result<_, _>>()?;
        names.push(PyValue::Str(CORRECT_NAME.into()));
        return Ok((guideline, PyValue::List(names).json_dumps()));
    }
    Ok((String::new(), "[]".into()))
}

/// The prompts of every record of every file, ready to send.
pub struct Prepared {
    pub files: Vec<FileItems>,
}

/// One gold file's records as asked.
pub struct FileItems {
    pub stem: String,
    pub ids: Vec<String>,
    pub prompts: Vec<String>,
    /// Whether the record is the last of its id (only those are asked: see the module doc).
    pub asked: Vec<bool>,
}

/// Build every prompt of `dataset` the way the official step 1 does.
pub fn prepare(dataset: &Dataset, options: &SasOptions) -> Result<Prepared, RunError> {
    let template = strip(PREDICT_TEMPLATE);
    let (tax_name, tax_text) = &dataset.taxonomy;
    let mut files = Vec::new();
    let mut bytes = 0u64;
    for file in &dataset.files {
        let records = jsonl(&file.name, &file.text)?;
        if records.is_empty() {
            return Err(RunError::Input(format!("{}: no records", file.name)));
        }
        let (guideline, error_type) = taxonomy_of(tax_name, tax_text, &file.stem)?;
        let guideline = if options.use_guideline {
            guideline
        } else {
            String::new()
        };
        let few_shot = few_shot_block(
            &file.name,
            &file.stem,
            &records,
            options.few_shot,
            options.seed,
        )?;
        let mut ids = Vec::with_capacity(records.len());
        let mut prompts = Vec::with_capacity(records.len());
        for (i, r) in records.iter().enumerate() {
            let bad = |what: String| RunError::Input(format!("{}:{}: {what}", file.name, i + 1));
            let id = match r.get("id") {
                Some(Value::String(s)) => s.clone(),
                _ => {
                    return Err(bad(
                        "no string \"id\" (the official file is id TAB reply)".into()
                    ));
                }
            };
            if id.contains(['\t', '\n']) {
                return Err(bad("the id holds a tab or a line break".into()));
            }
            let answer = match r.get("steps") {
                None => String::new(),
                Some(steps) => student_answer(steps).map_err(bad)?,
            };
            let prompt = py_format(
                template,
                &[
                    ("question", &get_str(r, "question")),
                    ("total", &get_str(r, "total")),
                    ("score_guideline", &guideline),
                    ("few_shot_samples", &few_shot),
                    ("error_type", &error_type),
                    ("reference", &get_str(r, "reference")),
                    ("analysis", &get_str(r, "analysis")),
                    ("student_answer", &answer),
                ],
            )
            .map_err(|e| RunError::Internal(format!("predict.txt: {e}")))?;
            bytes += prompt.len() as u64;
            ids.push(id);
            prompts.push(prompt);
        }
        if bytes > MAX_PROMPT_BYTES {
            return Err(RunError::Input(format!(
                "the run is too large: more than {} MiB of prompts",
                MAX_PROMPT_BYTES >> 20
            )));
        }
        let mut last: HashMap<&str, usize> = HashMap::new();
        for (i, id) in ids.iter().enumerate() {
            last.insert(id, i);
        }
        let asked = (0..ids.len()).map(|i| last[ids[i].as_str()] == i).collect();
        files.push(FileItems {
            stem: file.stem.clone(),
            ids,
            prompts,
            asked,
        });
    }
    Ok(Prepared { files })
}

/// The reply as the official step 1 stores it (API models).
pub fn official_reply(content: &str) -> String {
    let mut res: String = content
        .chars()
        .filter(|c| *c != '\n' && *c != ' ')
        .collect();
    if res.contains("{'total'") {
        res = res.replace('\'', "\"");
    }
    res
}

/// The `{stem}_scored.jsonl` text: `id TAB json.dumps(reply)` or `false` per record.
pub fn scored_text(ids: &[String], replies: &[Option<String>]) -> String {
    let mut out = String::new();
    for (id, reply) in ids.iter().zip(replies) {
        out.push_str(id);
        out.push('\t');
        match reply {
            Some(r) => json_dumps_str(r, &mut out),
            None => out.push_str("false"),
        }
        out.push('\n');
    }
    out
}

/// Replies kept from an earlier `_scored.jsonl`: per id, the decoded reply when it holds
/// `{"total"` or `{'total'` (a later line of an id wins, as in the official loop).
pub(super) fn previous_replies(host: &dyn RunHost, path: &Path) -> HashMap<String, String> {
    let mut kept = HashMap::new();
    if !host.is_file(path) {
        return kept;
    }
    let Ok(text) = host.read(path) else {
        return kept;
    };
    for (i, line) in text.lines().enumerate() {
        let mut parts = line.split('\t');
        let (Some(id), Some(content)) = (parts.next(), parts.next()) else {
            host.warn(&format!(
                "{}:{}: skipped a line without a tab",
                path.display(),
                i + 1
            ));
            continue;
        };
        let Ok(value) = serde_json::from_str::<Value>(strip(content)) else {
            host.warn(&format!(
                "{}:{}: skipped an unreadable reply",
                path.display(),
                i + 1
            ));
            continue;
        };
        let content = py_str(&value);
        if content.contains("{\"total\"") || content.contains("{'total'") {
            kept.insert(id.to_string(), strip(&content).to_string());
        }
    }
    kept
}

/// How to run.
#[derive(Debug, Clone)]
pub struct SasOptions {
    pub model: String,
    pub few_shot: u64,
    pub seed: u64,
    pub use_guideline: bool,
    pub workers: usize,
    pub max_tokens: Option<u64>,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub timeout_secs: u64,
    pub retry_wait_ms: u64,
}

impl SasOptions {
    pub(super) fn check(&self) -> Result<(), RunError> {
        check_workers(self.workers)?;
        if self.few_shot > 1000 {
            return Err(RunError::Input(
                "few_shot must be at most 1000 (examples beyond 3 are never drawn)".into(),
            ));
        }
        Ok(())
    }
}
