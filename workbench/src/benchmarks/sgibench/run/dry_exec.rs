//! SGI-Bench dry experiment step 3 (`task_3_dry_experiment/step_3_run_code.py`): run each
//! record's completed code against its five unit tests, in the server's sandbox (through
//! [`crate::runs::CodeHost`]), and write
//! the step-3 log (`unit_test`: five records) that `scorebench run sgi-dry` judges.
//!
//! The official `run_script` per unit: `cd codes/<idx>/unit_test_<k>` (the folder official
//! step 1 built: `data_en.py`, `main_en.py`, `data/`), then `conda run -n dryexp python
//! main_[<model>].py` with a 300-second timeout, output decoded as UTF-8 text (universal
//! newlines). Official step 2 wrote that script from the record's `model_code` unless the
//! reply was `None` or an `[Error]…`; scorebench writes it the same way into the unit's copy.
//!
//! ```text
//! exited:    model_code_output = (stderr + "\n" + stdout).strip()
//!            returncode 0 → model_error "[No Error]"
//!            else         → "[WRONG]" + stderr.strip() if stderr else "Unknown error"
//!            model_runtime = elapsed seconds, model_returncode = the return code
//! timeout:   model_error = model_code_output = "[WRONG]Execution timed out after 5 minutes",
//!            model_runtime 300.0, model_returncode -1
//! exception: (the unit folder is missing, the launcher fails, the output is not UTF-8)
//!            model_error = model_code_output = "[WRONG]" + str(e), model_runtime -1,
//!            model_returncode 1
//! ```
//!
//! Differences from the official run, by construction: the interpreter is run directly (no
//! `conda run` wrapper, so no trailing `ERROR conda.cli.main_run…` line in stderr), in the
//! sandbox's `/scratch/unit` (paths in tracebacks differ), with limits the official run does
//! not have (a unit killed by a limit fails with a negative return code or a `MemoryError`).
//! A timeout other than 300 s is reported as "after N seconds" with runtime N.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use metrics_core::python::strip;
use serde_json::{Map, Value, json};

use super::judge::{LogInput, idx_text};
use crate::runs::{
    CodeJob, CodeOutcome, Executes, PageForm, Param, ParamKind, RunError, RunHost, RunPlan,
    RunSpec, RunValues, WORKERS, db, out, write_json,
};

/// `scorebench run sgi-dry-exec`; over HTTP only when the server's config allows running code
/// (`[sgi_dry_exec]`, which gives the codes folder, the interpreter and the limits).
pub static RUN: RunSpec = RunSpec {
    key: "sgi-dry-exec",
    label: "SGI-Bench dry experiment step 3: run the model's code against the unit tests in a sandbox, write the step-3 log",
    files: &[STEP3_LOG, UNITS_FILE],
    params: &[
        Param::new(
            "log",
            "The dry-experiment step-2 log (records with `idx` and `model_code`)",
            ParamKind::Records,
        )
        .label("step-2 log (JSON)"),
        Param::cli(
            "codes",
            "The `codes` folder official step 1 built (`<idx>/unit_test_<k>/`: data_en.py, data/)",
            ParamKind::Path {
                required: true,
                default: None,
            },
        )
        .server(),
        Param::new(
            "model",
            "The model name official step 2 used: each unit runs `main_[<model without \"/\">].py`",
            ParamKind::Text,
        )
        .label("model name step 2 used (main_[model].py)"),
        Param::cli(
            "python",
            "The Python interpreter (official: the conda env `dryexp`); when scorebench runs as root, it and its packages must be readable by every user (jobs run under their own uid)",
            ParamKind::Path {
                required: false,
                default: Some("python3"),
            },
        )
        .server(),
        out("Output folder (created): the step-3 log under the input's file name, units.jsonl"),
        db("SQLite database holding the run record"),
        Param::cli(
            "config",
            "An upstream configuration (not needed: step 3 calls no model)",
            ParamKind::Path {
                required: false,
                default: None,
            },
        ),
        Param {
            help: "Units run at once",
            kind: ParamKind::Count {
                default: UNIT_WORKERS,
                missing: None,
                choices: &[],
            },
            label: Some("units at once"),
            ..WORKERS
        },
        limit("timeout_s", "Wall-clock limit per unit, seconds (official: 300)", TIMEOUT_S),
        limit("cpu_s", "CPU seconds per process", CPU_S),
        limit("memory_mb", "Address space per process, MiB", MEMORY_MB),
        limit("processes", "Processes and threads per unit", PROCESSES),
        limit(
            "scratch_mb",
            "Size of the unit's writable scratch (a tmpfs holding the copy of its folder), MiB",
            SCRATCH_MB,
        ),
        Param::cli(
            "read_only",
            "Another folder mounted read-only at the same path (repeatable)",
            ParamKind::Paths,
        )
        .server(),
    ],
    page: Some(PageForm {
        open: &[STEP3_LOG],
        open_inputs: &[],
    }),
    executes: Executes::Code,
    plan,
};

/// Units run at once unless told (the config's most, and the command line's default).
pub const UNIT_WORKERS: u64 = 4;
/// The unit limits unless told: the official 5-minute timeout; the others are scorebench's
/// (the server's sandbox has the same defaults).
pub const TIMEOUT_S: u64 = 300;
pub const CPU_S: u64 = 1200;
pub const MEMORY_MB: u64 = 4096;
pub const PROCESSES: u64 = 256;
pub const SCRATCH_MB: u64 = 1024;

const fn limit(name: &'static str, help: &'static str, default: u64) -> Param {
    Param::cli(
        name,
        help,
        ParamKind::Count {
            default,
            missing: None,
            choices: &[],
        },
    )
    .server()
}

fn plan(values: RunValues) -> Result<Box<dyn RunPlan>, RunError> {
    let model = values.text("model")?;
    if values.over_http && (model.is_empty() || model.len() > 200) {
        return Err(RunError::Input(
            "model must be the name step 2 used (1 to 200 characters)".into(),
        ));
    }
    Ok(Box::new(DryExecPlan {
        log: LogInput::of(&values, STEP3_LOG)?,
        codes: values.path("codes")?,
        model,
        workers: usize::try_from(values.count("workers")?).unwrap_or(usize::MAX),
    }))
}

/// The name of the step-3 log a run started over HTTP writes (the CLI names it after its
/// input).
pub const STEP3_LOG: &str = "step3_log.json";

/// One line per finished unit, read back when the run is resumed.
pub const UNITS_FILE: &str = "units.jsonl";

struct DryExecPlan {
    log: LogInput,
    codes: PathBuf,
    model: String,
    workers: usize,
}

impl RunPlan for DryExecPlan {
    fn model(&self) -> String {
        self.model.clone()
    }

    fn execute<'a>(
        self: Box<Self>,
        host: &'a dyn RunHost,
        out_dir: &'a Path,
    ) -> BoxFuture<'a, Result<String, RunError>> {
        Box::pin(async move {
            let plan = *self;
            let s = run_step3(
                host,
                Step3Input {
                    log: plan.log,
                    codes: &plan.codes,
                    model: &plan.model,
                    workers: plan.workers,
                },
                out_dir,
            )
            .await?;
            Ok(format!(
                "SGI dry experiment step 3: {} records, {} units ({} reused), {} exited 0, {} failed, {} timed out, {} not run; log {}",
                s.records,
                s.units,
                s.reused,
                s.exited_zero,
                s.failed,
                s.timed_out,
                s.exceptions,
                s.log.display()
            ))
        })
    }
}

/// How one unit's run ended, as the official `run_script` sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum UnitRun {
    /// `subprocess.run` returned (output already decoded).
    Completed {
        returncode: i64,
        stdout: String,
        stderr: String,
        elapsed_s: f64,
    },
    /// `subprocess.TimeoutExpired` after `timeout_s`.
    Timeout { timeout_s: u64 },
    /// Any other exception, as `str(e)`.
    Exception { message: String },
}

/// The official timeout (`timeout=300`) and its message.
pub const OFFICIAL_TIMEOUT_S: u64 = 300;

/// The step-3 record of one unit (`unit_test[k]`), exactly as the official `run_script` builds
/// it (module doc).
pub fn unit_record(run: &UnitRun) -> Value {
    let record = |error: String, runtime: Value, returncode: i64, output: String| {
        let mut m = Map::new();
        m.insert("model_error".into(), Value::String(error));
        m.insert("model_runtime".into(), runtime);
        m.insert("model_returncode".into(), json!(returncode));
        m.insert("model_code_output".into(), Value::String(output));
        Value::Object(m)
    };
    match run {
        UnitRun::Completed {
            returncode,
            stdout,
            stderr,
            elapsed_s,
        } => {
            let output = strip(&format!("{stderr}\n{stdout}")).to_string();
            let error = if *returncode == 0 {
                "[No Error]".to_string()
            } else if stderr.is_empty() {
                "Unknown error".to_string()
            } else {
                format!("[WRONG]{}", strip(stderr))
            };
            record(error, json!(elapsed_s), *returncode, output)
        }
        UnitRun::Timeout { timeout_s } => {
            let error = if *timeout_s == OFFICIAL_TIMEOUT_S {
                "[WRONG]Execution timed out after 5 minutes".to_string()
            } else {
                format!("[WRONG]Execution timed out after {timeout_s} seconds")
            };
            record(error.clone(), json!(*timeout_s as f64), -1, error)
        }
        UnitRun::Exception { message } => {
            let error = format!("[WRONG]{message}");
            record(error.clone(), json!(-1), 1, error)
        }
    }
}

/// Python's text-mode decoding of a captured stream (`encoding="utf-8"`, universal newlines):
/// the text, or `str(UnicodeDecodeError)`.
pub fn decode_python_text(bytes: &[u8]) -> Result<String, String> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(text.replace("\r\n", "\n").replace('\r', "\n")),
        Err(e) => {
            let start = e.valid_up_to();
            let (len, reason) = match e.error_len() {
                None => (bytes.len() - start, "unexpected end of data"),
                Some(n) => {
                    let first = bytes[start];
                    let bad_start = (0x80..=0xC1).contains(&first) || first >= 0xF5;
                    (
                        n,
                        if bad_start {
                            "invalid start byte"
                        } else {
                            "invalid continuation byte"
                        },
                    )
                }
            };
            Err(if len == 1 {
                format!(
                    "'utf-8' codec can't decode byte 0x{:02x} in position {start}: {reason}",
                    bytes[start]
                )
            } else {
                format!(
                    "'utf-8' codec can't decode bytes in position {start}-{}: {reason}",
                    start + len - 1
                )
            })
        }
    }
}

/// A sandbox outcome as the official `run_script` sees it: stdout is decoded first, then stderr.
pub fn unit_run_of(outcome: CodeOutcome, timeout_s: u64) -> UnitRun {
    match outcome {
        CodeOutcome::TimedOut { .. } => UnitRun::Timeout { timeout_s },
        CodeOutcome::Exited {
            returncode,
            stdout,
            stderr,
            elapsed_s,
        } => match (decode_python_text(&stdout), decode_python_text(&stderr)) {
            (Err(message), _) | (Ok(_), Err(message)) => UnitRun::Exception { message },
            (Ok(stdout), Ok(stderr)) => UnitRun::Completed {
                returncode,
                stdout,
                stderr,
                elapsed_s,
            },
        },
    }
}

/// The inputs of a step-3 run.
pub struct Step3Input<'a> {
    pub log: LogInput,
    pub codes: &'a Path,
    pub model: &'a str,
    pub workers: usize,
}

/// What a step-3 run reports.
#[derive(Debug, Clone, Default)]
pub struct Step3Summary {
    pub records: usize,
    pub units: usize,
    pub reused: usize,
    pub exited_zero: usize,
    /// Units that exited with another return code.
    pub failed: usize,
    pub timed_out: usize,
    /// Units whose run raised (folder missing, launcher failed, output not UTF-8).
    pub exceptions: usize,
    pub log: PathBuf,
}

/// The script official step 2 writes for `model` (`main_[{model.replace('/', '')}].py`).
pub fn script_name(model: &str) -> String {
    format!("main_[{}].py", model.replace('/', ""))
}

/// Whether official step 2 wrote the script for this record (not for a `None` or `[Error]…`
/// reply).
fn writes_script(fields: &Map<String, Value>) -> bool {
    match fields.get("model_answer_with_thinking") {
        Some(Value::String(reply)) => reply != "None" && !reply.starts_with("[Error]"),
        _ => true,
    }
}

struct UnitTask {
    item: usize,
    idx: String,
    unit: usize,
    folder: PathBuf,
    code: Option<Arc<str>>,
}

/// Run step 3 over the step-2 log `input.log` and write the step-3 log under the same file
/// name in `out_dir` (plus [`UNITS_FILE`]: units finished so far, reused on a resume).
pub async fn run_step3(
    host: &dyn RunHost,
    mut input: Step3Input<'_>,
    out_dir: &Path,
) -> Result<Step3Summary, RunError> {
    let sandbox = host
        .code()
        .ok_or_else(|| RunError::Internal("this run needs the sandbox".into()))?;
    let name = input.log.name();
    let mut records = input.log.take_records(host)?;
    let out = input.log.out_path(host, out_dir)?;
    let script = script_name(input.model);
    let timeout_s = sandbox.timeout_s();
    // Units an earlier attempt of this run finished.
    let units_path = out_dir.join(UNITS_FILE);
    let mut done: HashMap<(usize, usize), (String, Value)> = HashMap::new();
    if let Some(text) = host
        .is_file(&units_path)
        .then(|| host.read(&units_path).ok())
        .flatten()
    {
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue; // a line cut by a kill
            };
            if let (Some(item), Some(unit), Some(idx), Some(record)) = (
                v["item"].as_u64(),
                v["unit"].as_u64(),
                v["idx"].as_str(),
                v.get("record"),
            ) {
                done.insert(
                    (item as usize, unit as usize),
                    (idx.to_string(), record.clone()),
                );
            }
        }
    }
    let log = host.log(&units_path)?;
    let log = &*log;
    let mut tasks = Vec::new();
    let mut results: HashMap<(usize, usize), Value> = HashMap::new();
    let mut summary = Step3Summary {
        records: records.len(),
        ..Step3Summary::default()
    };
    for (i, record) in records.iter().enumerate() {
        // The official run loses a null record or one without a string idx (it raises before
        // its try block): it stays null.
        let Value::Object(fields) = record else {
            continue;
        };
        let Some(Value::String(idx)) = fields.get("idx") else {
            continue;
        };
        let code = match (writes_script(fields), fields.get("model_code")) {
            (true, Some(Value::String(code))) => Some(Arc::<str>::from(code.as_str())),
            (true, Some(_)) => {
                return Err(RunError::Input(format!(
                    "{name}: record {} (idx {:?}): `model_code` must be a string",
                    i + 1,
                    idx_text(fields)
                )));
            }
            _ => None,
        };
        for unit in 0..5 {
            if let Some((stored_idx, record)) = done.get(&(i, unit))
                && stored_idx == idx
            {
                log.append(&json!({"item": i, "idx": idx, "unit": unit, "record": record}))?;
                results.insert((i, unit), record.clone());
                summary.reused += 1;
                continue;
            }
            tasks.push(UnitTask {
                item: i,
                idx: idx.clone(),
                unit,
                folder: input.codes.join(idx).join(format!("unit_test_{unit}")),
                code: code.clone(),
            });
        }
    }
    summary.units = results.len() + tasks.len();
    let counters = host.counters();
    counters.set_total(summary.units as u64);
    counters
        .done
        .store(summary.reused as u64, Ordering::Relaxed);
    counters
        .reused
        .store(summary.reused as u64, Ordering::Relaxed);
    let runs = tasks.into_iter().map(|task| {
        let script = script.clone();
        async move {
            host.unpaused().await;
            let run = run_unit(sandbox, &task, &script, timeout_s).await;
            let record = unit_record(&run);
            log.append(
                &json!({"item": task.item, "idx": task.idx, "unit": task.unit, "record": record}),
            )?;
            counters.finished(
                false,
                !matches!(run, UnitRun::Completed { returncode: 0, .. }),
            );
            Ok::<_, RunError>(((task.item, task.unit), run, record))
        }
    });
    let finished: Vec<_> = futures_util::stream::iter(runs)
        .buffer_unordered(input.workers)
        .collect()
        .await;
    for result in finished {
        let (key, run, record) = result?;
        match run {
            UnitRun::Completed { returncode: 0, .. } => summary.exited_zero += 1,
            UnitRun::Completed { .. } => summary.failed += 1,
            UnitRun::Timeout { .. } => summary.timed_out += 1,
            UnitRun::Exception { .. } => summary.exceptions += 1,
        }
        results.insert(key, record);
    }
    for (i, record) in records.iter_mut().enumerate() {
        let Value::Object(fields) = record else {
            continue;
        };
        if !matches!(fields.get("idx"), Some(Value::String(_))) {
            *record = Value::Null;
            continue;
        }
        let units: Vec<Value> = (0..5)
            .map(|k| results.remove(&(i, k)).unwrap_or(Value::Null))
            .collect();
        fields.insert("unit_test".into(), Value::Array(units));
    }
    write_json(host, &out, &Value::Array(records))?;
    summary.log = out;
    Ok(summary)
}

async fn run_unit(
    sandbox: &dyn crate::runs::CodeHost,
    task: &UnitTask,
    script: &str,
    timeout_s: u64,
) -> UnitRun {
    let files = task
        .code
        .as_ref()
        .map(|code| vec![(script.to_string(), code.as_bytes().to_vec())])
        .unwrap_or_default();
    let job = CodeJob {
        folder: task.folder.clone(),
        files,
        script: script.to_string(),
    };
    match sandbox.run(job).await {
        Ok(outcome) => unit_run_of(outcome, timeout_s),
        // The unit folder missing (the official `os.chdir`) or the launcher failing is an
        // exception record, as in the official run.
        Err(message) => UnitRun::Exception { message },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_errors_read_like_python() {
        // Messages printed by CPython 3.11 for `bytes.decode("utf-8")`.
        let cases: &[(&[u8], &str)] = &[
            (
                b"ab\xff",
                "'utf-8' codec can't decode byte 0xff in position 2: invalid start byte",
            ),
            (
                b"a\xe2\x82",
                "'utf-8' codec can't decode bytes in position 1-2: unexpected end of data",
            ),
            (
                b"a\xe2",
                "'utf-8' codec can't decode byte 0xe2 in position 1: unexpected end of data",
            ),
            (
                b"a\xe2(",
                "'utf-8' codec can't decode byte 0xe2 in position 1: invalid continuation byte",
            ),
            (
                b"\xed\xa0\x80",
                "'utf-8' codec can't decode byte 0xed in position 0: invalid continuation byte",
            ),
            (
                b"\xf0\x9f\x98x",
                "'utf-8' codec can't decode bytes in position 0-2: invalid continuation byte",
            ),
            (
                b"\xc0\xaf",
                "'utf-8' codec can't decode byte 0xc0 in position 0: invalid start byte",
            ),
        ];
        for (bytes, message) in cases {
            assert_eq!(decode_python_text(bytes).unwrap_err(), *message);
        }
        assert_eq!(decode_python_text(b"a\r\nb\rc\n").unwrap(), "a\nb\nc\n");
    }

    #[test]
    fn scripts_are_named_as_step_2_names_them() {
        assert_eq!(script_name("org/model-1"), "main_[orgmodel-1].py");
    }
}
