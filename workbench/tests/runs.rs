//! A run's plan executed natively, without a server: an in-memory [`RunHost`] (files in a map,
//! replies from the golden `mock_api.json`) runs MSQA's plan over every golden toolkit case,
//! and the files it writes are the official `evaluation.json` and `score.json`. The same
//! cases also run through the real binary and a mock upstream (`server/tests/all/run_msqa.rs`).
#![cfg(feature = "cli")]
#![allow(clippy::unwrap_used)] // a panic is how these tests report a mismatch

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::pin;
use std::sync::Mutex;
use std::task::{Context, Poll, Waker};

use futures_util::future::BoxFuture;
use serde_json::{Value, json};
use workbench::runs::{
    Accept, Answer, AskError, Counters, LineLog, Request, RunError, RunHost, RunValue, RunValues,
};

/// Every future here is ready when polled (no IO, no timers): poll it to its end.
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut context = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut context) {
            return value;
        }
    }
}

/// Files in memory and replies from a golden `mock_api.json`: the reply for the prompt that
/// holds a question, `{"sequence": […]}` the successive calls, `{"raise": …}` a failed call.
#[derive(Default)]
struct MemoryHost {
    files: Mutex<BTreeMap<PathBuf, Vec<u8>>>,
    replies: Map,
    calls: Mutex<HashMap<String, usize>>,
    counters: Counters,
}

type Map = serde_json::Map<String, Value>;

struct MemoryLog<'a> {
    host: &'a MemoryHost,
    path: PathBuf,
}

impl LineLog for MemoryLog<'_> {
    fn line(&self, line: &str) -> Result<(), RunError> {
        let mut files = self.host.files.lock().unwrap();
        let file = files.entry(self.path.clone()).or_default();
        file.extend_from_slice(line.as_bytes());
        file.push(b'\n');
        Ok(())
    }
}

impl MemoryHost {
    fn reply(&self, request: &Request) -> Result<Value, String> {
        let prompt = request.body["messages"][0]["content"].as_str().unwrap();
        let (question, entry) = self
            .replies
            .iter()
            .find(|(q, _)| prompt.contains(q.as_str()))
            .expect("a reply for every question");
        let mut calls = self.calls.lock().unwrap();
        let call = calls.entry(question.clone()).or_default();
        let entry = match entry.get("sequence").and_then(Value::as_array) {
            Some(sequence) => sequence[(*call).min(sequence.len() - 1)].clone(),
            None => entry.clone(),
        };
        *call += 1;
        if let Some(raised) = entry.get("raise") {
            return Err(raised.to_string());
        }
        Ok(json!({
            "choices": [{
                "message": {
                    "content": entry["content"],
                    "reasoning_content": entry["reasoning_content"],
                },
                "finish_reason": entry["finish_reason"],
            }],
            "usage": {"completion_tokens": entry["completion_tokens"]},
        }))
    }

    fn text(&self, path: &Path) -> String {
        String::from_utf8(self.files.lock().unwrap()[path].clone()).unwrap()
    }
}

impl RunHost for MemoryHost {
    fn ask<'a>(
        &'a self,
        request: Request,
        accept: Accept<'a>,
    ) -> BoxFuture<'a, Result<Answer, AskError>> {
        let answer = self.reply(&request).and_then(|json| {
            accept(&json)?;
            Ok(Answer {
                json,
                cached: false,
            })
        });
        Box::pin(async move { answer.map_err(AskError::Failed) })
    }

    fn upstream_name(&self, _model: &str) -> Option<String> {
        Some("mock".into())
    }

    fn counters(&self) -> &Counters {
        &self.counters
    }

    fn unpaused(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }

    fn sleep(&self, _ms: u64) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }

    fn warn(&self, _message: &str) {}

    fn read(&self, path: &Path) -> Result<String, RunError> {
        let files = self.files.lock().unwrap();
        let bytes = files
            .get(path)
            .ok_or_else(|| RunError::Input(format!("{}: cannot read", path.display())))?;
        Ok(String::from_utf8(bytes.clone()).unwrap())
    }

    fn is_file(&self, path: &Path) -> bool {
        self.files.lock().unwrap().contains_key(path)
    }

    fn list(&self, _dir: &Path) -> Result<Vec<String>, RunError> {
        Ok(Vec::new())
    }

    fn create_dir_all(&self, _path: &Path) -> Result<(), RunError> {
        Ok(())
    }

    fn write(
        &self,
        path: &Path,
        body: &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> Result<(), RunError> {
        let mut bytes = Vec::new();
        body(&mut bytes).map_err(|e| RunError::io(path, e))?;
        self.files.lock().unwrap().insert(path.to_path_buf(), bytes);
        Ok(())
    }

    fn replace(&self, path: &Path, bytes: &[u8]) -> Result<(), RunError> {
        self.files
            .lock()
            .unwrap()
            .insert(path.to_path_buf(), bytes.to_vec());
        Ok(())
    }

    fn millis(&self) -> f64 {
        0.0
    }

    fn log(&self, path: &Path) -> Result<Box<dyn LineLog + '_>, RunError> {
        self.files
            .lock()
            .unwrap()
            .insert(path.to_path_buf(), Vec::new());
        Ok(Box::new(MemoryLog {
            host: self,
            path: path.to_path_buf(),
        }))
    }
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The values of a run (over HTTP or not): the params' defaults, and these.
fn values_of(
    spec: &workbench::runs::RunSpec,
    over_http: bool,
    given: &[(&'static str, RunValue)],
) -> RunValues {
    let mut values = RunValues::new(over_http);
    for p in spec.params {
        let default = match p.kind {
            workbench::runs::ParamKind::Count { default, .. } => RunValue::Count(default),
            workbench::runs::ParamKind::Number { default } => RunValue::Number(default),
            workbench::runs::ParamKind::Switch { default } => RunValue::Switch(default),
            _ => RunValue::Absent,
        };
        values.set(p.name, default);
    }
    for (name, value) in given {
        values.set(name, value.clone());
    }
    values
}

fn values(spec: &workbench::runs::RunSpec, given: &[(&'static str, RunValue)]) -> RunValues {
    values_of(spec, true, given)
}

#[test]
fn msqa_plans_write_the_official_files_through_any_host() {
    let spec = &workbench::benchmarks::msqa::run::RUN;
    let cases: Vec<PathBuf> = testkit::case_dirs("msqa")
        .into_iter()
        .filter(|p| p.join("mock_api.json").is_file())
        .collect();
    assert_eq!(cases.len(), 6, "{cases:?}");
    for case in &cases {
        let at = case.display();
        let expected = read_json(&case.join("expected.json"));
        let args = read_json(&case.join("args.json"));
        let mock = read_json(&case.join("mock_api.json"));
        let host = MemoryHost {
            replies: mock["api_responses_by_true_false_question"]
                .as_object()
                .unwrap()
                .clone(),
            ..MemoryHost::default()
        };
        // As the command line gives them: the dataset file and an earlier run's folder, read
        // through the host.
        let dataset = Path::new("/case/MSQA_Dataset.json");
        host.files.lock().unwrap().insert(
            dataset.to_path_buf(),
            std::fs::read(case.join("dataset/MSQA_Dataset.json")).unwrap(),
        );
        let mut given = vec![
            ("model", RunValue::Text("test-model".into())),
            ("dataset", RunValue::Path(dataset.to_path_buf())),
            ("n", RunValue::Count(args["n"].as_u64().unwrap())),
            (
                "workers",
                RunValue::Count(args["num_workers"].as_u64().unwrap()),
            ),
            ("retry_wait_ms", RunValue::Count(0)),
        ];
        if let Some(previous) = args["evaluation_save_dir"].as_str() {
            let folder = Path::new("/previous");
            for file in std::fs::read_dir(case.join(previous)).unwrap() {
                let file = file.unwrap().path();
                host.files.lock().unwrap().insert(
                    folder.join(file.file_name().unwrap()),
                    std::fs::read(&file).unwrap(),
                );
            }
            given.push(("resume", RunValue::Path(folder.to_path_buf())));
        }
        let plan = (spec.plan)(values_of(spec, false, &given)).unwrap();
        let out = Path::new("/out");
        let result = block_on(plan.execute(&host, out));
        if expected["score_json"].is_null() {
            let e = result.unwrap_err();
            assert!(e.to_string().contains("ZeroDivisionError"), "{at}: {e}");
            assert!(!host.is_file(&out.join("score.json")), "{at}");
            continue;
        }
        result.unwrap_or_else(|e| panic!("{at}: {e}"));
        let evaluation: Value =
            serde_json::from_str(&host.text(&out.join("evaluation.json"))).unwrap();
        assert_eq!(
            evaluation.to_string(),
            expected["evaluation_json"].to_string(),
            "{at}"
        );
        let mut want = expected["score_json"].clone();
        let params = want["model"]["params"].as_object_mut().unwrap();
        params.shift_remove("api_key");
        params.insert("api_url".into(), json!("mock"));
        let score: Value = serde_json::from_str(&host.text(&out.join("score.json"))).unwrap();
        assert_eq!(score.to_string(), want.to_string(), "{at}");
        let log = host.text(&out.join("evaluation.log"));
        assert_eq!(
            log.lines().count(),
            evaluation.as_array().unwrap().len(),
            "{at}: one log line per record"
        );
        let total = evaluation.as_array().unwrap().len() as u64;
        let done = host
            .counters
            .done
            .load(std::sync::atomic::Ordering::Relaxed);
        assert_eq!(done, total, "{at}: every item counted");
    }
}

#[test]
fn a_run_body_missing_what_the_plan_needs_is_refused_before_anything_runs() {
    let spec = &workbench::benchmarks::msqa::run::RUN;
    let empty = values(
        spec,
        &[
            ("model", RunValue::Text("m".into())),
            ("dataset", RunValue::Records(Vec::new())),
        ],
    );
    let e = (spec.plan)(empty).err().unwrap();
    assert_eq!(e.to_string(), "dataset: the dataset has no rows");
    let zero = values(
        spec,
        &[
            ("model", RunValue::Text("m".into())),
            ("dataset", RunValue::Records(vec![json!({})])),
            ("n", RunValue::Count(0)),
        ],
    );
    let e = (spec.plan)(zero).err().unwrap();
    assert_eq!(e.to_string(), "n must be between 1 and 1000");
}
