//! `scorebench run msqa` (the real binary) against the mock upstream: every golden toolkit case
//! gives exactly the official `evaluation_json` and `score_json` (minus the key; `api_url` is the
//! upstream's configured name, never its URL) with the official number of upstream calls; a run killed with SIGKILL halfway and
//! started again asks nothing twice for finished items.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::mock_upstream::MockUpstream;
use crate::proxy::{KEY, config_text, temp_dir};
use crate::support::golden_dir;

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `scorebench` with the test key in its environment (and nowhere else).
pub fn scorebench_cmd(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_scorebench"));
    cmd.args(args)
        .env("SCOREBENCH_TEST_KEY", KEY)
        .env("RUST_LOG", "debug");
    cmd
}

pub fn write_config(dir: &Path, mock: &MockUpstream) -> PathBuf {
    let path = dir.join("config.toml");
    std::fs::write(&path, config_text(&mock.base_url(), "")).unwrap();
    path
}

/// Run `case` in its own folder, `run-{tag}-{case}`: tests running at once over one case
/// must not share (and remove) each other's folder.
fn run_case(case: &Path, tag: &str) -> (Output, MockUpstream, PathBuf) {
    let name = case.file_name().unwrap().to_string_lossy().into_owned();
    let args = read_json(&case.join("args.json"));
    let mock = MockUpstream::from_mock_api(&read_json(&case.join("mock_api.json")));
    let dir = temp_dir(&format!("run-{tag}-{name}"));
    let config = write_config(&dir, &mock);
    let out = dir.join("out");
    let n = args["n"].to_string();
    let workers = args["num_workers"].to_string();
    let dataset = case.join("dataset/MSQA_Dataset.json");
    let db = dir.join("db.sqlite3");
    let mut argv = vec![
        "run",
        "msqa",
        "--config",
        config.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--dataset",
        dataset.to_str().unwrap(),
        "--model",
        "test-model",
        "--n",
        &n,
        "--workers",
        &workers,
        "--retry-wait-ms",
        "0",
        "--out",
        out.to_str().unwrap(),
    ];
    let previous;
    if let Some(p) = args["evaluation_save_dir"].as_str() {
        previous = case.join(p);
        argv.extend(["--resume", previous.to_str().unwrap()]);
    }
    let output = scorebench_cmd(&argv).output().unwrap();
    (output, mock, dir)
}

#[test]
fn golden_cases_match_the_official_files() {
    let cases: Vec<PathBuf> = testkit::case_dirs("msqa")
        .into_iter()
        .filter(|p| p.join("mock_api.json").is_file())
        .collect();
    assert_eq!(cases.len(), 6, "{cases:?}");
    for case in &cases {
        let expected = read_json(&case.join("expected.json"));
        let (output, mock, dir) = run_case(case, "golden");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let at = case.display();
        assert_eq!(
            mock.calls() as u64,
            expected["api_call_count"].as_u64().unwrap(),
            "{at}: upstream calls"
        );
        let out = dir.join("out");
        if expected["score_json"].is_null() {
            assert_eq!(output.status.code(), Some(1), "{at}: {stderr}");
            assert!(stderr.contains("ZeroDivisionError"), "{at}: {stderr}");
            assert!(!out.join("score.json").exists());
            continue;
        }
        assert!(output.status.success(), "{at}: {stderr}");
        let evaluation = read_json(&out.join("evaluation.json"));
        assert_eq!(evaluation, expected["evaluation_json"], "{at}");
        // Same order too: compare the serialised text.
        assert_eq!(
            evaluation.to_string(),
            expected["evaluation_json"].to_string(),
            "{at}"
        );
        let mut want = expected["score_json"].clone();
        let params = want["model"]["params"].as_object_mut().unwrap();
        params.shift_remove("api_key");
        params.insert("api_url".into(), json!("mock"));
        let score_text = std::fs::read_to_string(out.join("score.json")).unwrap();
        assert!(
            !score_text.contains(&mock.addr.to_string()),
            "{at}: the URL stays on the server"
        );
        let score: Value = serde_json::from_str(&score_text).unwrap();
        assert_eq!(score.to_string(), want.to_string(), "{at}");
        assert!(!score_text.contains("api_key"));
        let subtasks = read_json(&out.join("subtasks.json"));
        assert_eq!(
            subtasks["overall_score"],
            want["evaluation"]["overall_score"]
        );
        assert!(!subtasks["by_subtask"].as_array().unwrap().is_empty());
        // The JSONL log holds every record (what a killed run would leave).
        let log = std::fs::read_to_string(out.join("evaluation.log")).unwrap();
        assert_eq!(
            log.lines().count(),
            evaluation.as_array().unwrap().len(),
            "{at}"
        );
    }
}

#[test]
fn the_same_run_again_is_answered_from_the_cache() {
    let case = golden_dir().join("msqa/msqa_07_sampling_n3");
    let (first, mock, dir) = run_case(&case, "cache");
    assert!(first.status.success());
    assert_eq!(mock.calls(), 6);
    // A fresh output folder (nothing to resume from files), the same database: no call.
    let out2 = dir.join("out2");
    let config = write_config(&dir, &mock);
    let output = scorebench_cmd(&[
        "run",
        "msqa",
        "--config",
        config.to_str().unwrap(),
        "--db",
        dir.join("db.sqlite3").to_str().unwrap(),
        "--dataset",
        case.join("dataset/MSQA_Dataset.json").to_str().unwrap(),
        "--model",
        "test-model",
        "--n",
        "3",
        "--workers",
        "2",
        "--out",
        out2.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert!(output.status.success());
    assert_eq!(mock.calls(), 6, "every reply came from the cache");
    assert_eq!(
        std::fs::read_to_string(dir.join("out/evaluation.json")).unwrap(),
        std::fs::read_to_string(out2.join("evaluation.json")).unwrap()
    );
}

#[test]
fn unknown_model_and_bad_dataset_exit_2() {
    let mock = MockUpstream::start(Default::default());
    let dir = temp_dir("run-bad");
    let config = write_config(&dir, &mock);
    let dataset = dir.join("d.json");
    std::fs::write(
        &dataset,
        r#"[{"true_false_question": "q?", "true_false_question_answer": "YES"}]"#,
    )
    .unwrap();
    let base = |model: &str, dataset: &Path| {
        scorebench_cmd(&[
            "run",
            "msqa",
            "--config",
            config.to_str().unwrap(),
            "--db",
            dir.join("db.sqlite3").to_str().unwrap(),
            "--dataset",
            dataset.to_str().unwrap(),
            "--model",
            model,
            "--out",
            dir.join("out").to_str().unwrap(),
        ])
        .output()
        .unwrap()
    };
    let out = base("nope", &dataset);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"nope\" is not listed"));
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"[{"true_false_question": 3}]"#).unwrap();
    let out = base("test-model", &bad);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bad.json: record 1: no string \"true_false_question\""),
        "{stderr}"
    );
    assert_eq!(mock.calls(), 0);
}

/// 30 questions at 100 ms each with 2 workers; SIGKILL once 8 records are logged; start again
/// with the same folder and database: it finishes, and no finished item is asked again.
#[test]
fn a_killed_run_resumes_without_repeating_finished_calls() {
    let mock = MockUpstream::start(Default::default());
    mock.state
        .delay_ms
        .store(100, std::sync::atomic::Ordering::SeqCst);
    let dir = temp_dir("run-kill");
    let config = write_config(&dir, &mock);
    let rows: Vec<Value> = (0..30)
        .map(|i| json!({"question_type": "t", "true_false_question": format!("Kill question {i}?"), "true_false_question_answer": "YES"}))
        .collect();
    let dataset = dir.join("MSQA_Dataset.json");
    std::fs::write(&dataset, Value::Array(rows).to_string()).unwrap();
    let out = dir.join("out");
    let db = dir.join("db.sqlite3");
    let argv = [
        "run",
        "msqa",
        "--config",
        config.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--dataset",
        dataset.to_str().unwrap(),
        "--model",
        "test-model",
        "--workers",
        "2",
        "--out",
        out.to_str().unwrap(),
    ];
    let mut child = scorebench_cmd(&argv)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let log = out.join("evaluation.log");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let lines = std::fs::read_to_string(&log)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if lines >= 8 {
            break;
        }
        assert!(Instant::now() < deadline, "the run never got going");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let finished: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|v| {
            v["question"]
                .as_str()
                .unwrap()
                .split('\n')
                .next()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(
        finished.len() >= 8 && finished.len() < 30,
        "{}",
        finished.len()
    );
    let calls_before = mock.calls();

    let mut second = scorebench_cmd(&argv)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = String::new();
    second
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(second.wait().unwrap().success(), "{stderr}");
    for q in &finished {
        assert_eq!(mock.calls_for(q), 1, "{q} was asked again");
    }
    // At most the requests in flight at the kill (2 workers) are asked twice.
    assert!(mock.calls() <= 30 + 2, "{} calls", mock.calls());
    assert!(mock.calls() > calls_before);
    let evaluation = read_json(&out.join("evaluation.json"));
    assert_eq!(evaluation.as_array().unwrap().len(), 30);
    let score = read_json(&out.join("score.json"));
    assert_eq!(score["evaluation"]["overall_score"], 1.0);
    assert!(stderr.contains("reused"), "{stderr}");
}
