//! Runs are consistent and bounded: the run header names only stored runs, a paused run with
//! every item in flight stays paused, a run can be cancelled (its memory freed), a run killed
//! with SIGKILL is marked interrupted at the next start and resumes (HTTP and CLI), workers are
//! checked before a run starts, and an oversized run is refused.

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::key_hygiene::http;
use crate::mock_upstream::MockUpstream;
use crate::proxy::{send, state_with, temp_dir};
use crate::run_msqa::{scorebench_cmd, write_config};
use crate::support::{golden_dir, start_serving};

fn msqa_case() -> (Value, Value, std::path::PathBuf) {
    let case = golden_dir().join("msqa/msqa_01_basic_yes_no");
    let read =
        |p: &Path| -> Value { serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap() };
    (
        read(&case.join("mock_api.json")),
        read(&case.join("dataset/MSQA_Dataset.json")),
        case,
    )
}

async fn status(state: &server::http::AppState, id: &str) -> Value {
    let (code, _, body) = send(state, "GET", &format!("/api/v1/runs/{id}"), &[], None).await;
    assert_eq!(code, StatusCode::OK, "{body}");
    serde_json::from_str(&body).unwrap()
}

async fn wait_for(
    state: &server::http::AppState,
    id: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let v = status(state, id).await;
        if done(&v) {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out: {v}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn post(
    state: &server::http::AppState,
    uri: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let (code, _, text) = send(state, "POST", uri, &[], body).await;
    (code, serde_json::from_str(&text).unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_run_header_names_only_runs_this_server_stores() {
    let mock = MockUpstream::start(Default::default());
    let (state, _) = state_with(&mock, "run-header", "");
    let chat = json!({"model": "test-model", "messages": [{"role": "user", "content": "q"}]});
    let script = format!("<script>{}</script>", "x".repeat(3000));
    for bad in [script.as_str(), "r1", "0123456789abcdef"] {
        let (code, _, body) = send(
            &state,
            "POST",
            "/api/v1/chat/completions",
            &[("x-scorebench-run", bad)],
            Some(chat.clone()),
        )
        .await;
        assert_eq!(code, StatusCode::BAD_REQUEST, "{body}");
        assert!(body.contains("x-scorebench-run"), "{body}");
        assert!(
            !body.contains("<script>"),
            "the bad id is not echoed: {body}"
        );
    }
    assert_eq!(mock.calls(), 0, "a refused header costs no upstream call");
    let cache = &state.llm.as_ref().unwrap().gateway.cache;
    for bad in [script.as_str(), "r1", "0123456789abcdef"] {
        assert!(
            cache.usage(bad.into()).await.unwrap().is_empty(),
            "nothing stored"
        );
        assert!(cache.run(bad.into()).await.unwrap().is_none());
    }
    // A run this server started: counted.
    let (_, dataset, _) = msqa_case();
    let (code, started) = post(
        &state,
        "/api/v1/runs",
        Some(json!({"benchmark": "msqa", "model": "test-model", "dataset": dataset, "retry_wait_ms": 0})),
    )
    .await;
    assert_eq!(code, StatusCode::ACCEPTED);
    let id = started["id"].as_str().unwrap().to_string();
    let (code, _, body) = send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &[("x-scorebench-run", &id), ("x-scorebench-role", "judge")],
        Some(chat),
    )
    .await;
    assert_eq!(code, StatusCode::OK, "{body}");
    let usage = cache.usage(id).await.unwrap();
    assert!(
        usage
            .iter()
            .any(|(role, t)| *role == server::cache::Role::Judge && t.upstream_calls == 1),
        "{usage:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_paused_with_every_item_in_flight_stays_paused_until_resumed() {
    let (mock_api, dataset, _) = msqa_case();
    let mock = MockUpstream::from_mock_api(&mock_api);
    mock.state
        .delay_ms
        .store(400, std::sync::atomic::Ordering::SeqCst);
    let (state, _) = state_with(&mock, "run-pause-inflight", "");
    let (code, started) = post(
        &state,
        "/api/v1/runs",
        Some(json!({"benchmark": "msqa", "model": "test-model", "dataset": dataset, "workers": 16, "retry_wait_ms": 0})),
    )
    .await;
    assert_eq!(code, StatusCode::ACCEPTED);
    let id = started["id"].as_str().unwrap().to_string();
    // Every one of the 6 items is in flight (16 workers, 400 ms each) when the pause comes.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (code, paused) = post(&state, &format!("/api/v1/runs/{id}/pause"), None).await;
    assert_eq!(code, StatusCode::OK, "{paused}");
    let all_done = wait_for(&state, &id, |v| v["done"] == 6).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let later = status(&state, &id).await;
    assert_eq!(later["state"], "paused", "{all_done} then {later}");
    let stored = state
        .llm
        .as_ref()
        .unwrap()
        .gateway
        .cache
        .run(id.clone())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.state, "paused");
    let (code, _) = post(&state, &format!("/api/v1/runs/{id}/resume"), None).await;
    assert_eq!(code, StatusCode::OK);
    let finished = wait_for(&state, &id, |v| v["state"] == "finished").await;
    assert_eq!(finished["done"], 6);
    assert_eq!(mock.calls(), 6);
}

/// VmRSS of a process, in MiB.
fn rss_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS")).unwrap();
    line.split_whitespace()
        .nth(1)
        .unwrap()
        .parse::<u64>()
        .unwrap()
        / 1024
}

pub struct Server {
    child: Child,
    pub host: String,
}

impl Server {
    pub fn start(dir: &Path, config: &Path) -> Server {
        let (child, host) = start_serving(scorebench_cmd(&[
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--db",
            dir.join("db.sqlite3").to_str().unwrap(),
            "--dist",
            dir.join("dist").to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
            "--runs-dir",
            dir.join("runs").to_str().unwrap(),
        ]));
        Server { child, host }
    }

    fn call(&self, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
        let raw = http(&self.host, method, path, body);
        let code = raw[9..12].parse().unwrap();
        let body = raw.split("\r\n\r\n").nth(1).unwrap_or_default();
        (code, serde_json::from_str(body).unwrap_or(Value::Null))
    }

    fn wait_for(&self, id: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let (_, v) = self.call("GET", &format!("/api/v1/runs/{id}"), None);
            if done(&v) {
                return v;
            }
            assert!(Instant::now() < deadline, "timed out: {v}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_run_killed_with_the_server_is_interrupted_then_resumes_and_cancel_frees_memory() {
    let (mock_api, dataset, case) = msqa_case();
    let mock = MockUpstream::from_mock_api(&mock_api);
    mock.state
        .delay_ms
        .store(150, std::sync::atomic::Ordering::SeqCst);
    let dir = temp_dir("run-interrupted");
    let config = write_config(&dir, &mock);
    let server = Server::start(&dir, &config);
    let request = json!({"benchmark": "msqa", "model": "test-model", "dataset": dataset, "workers": 1, "retry_wait_ms": 0});
    let (code, started) = server.call("POST", "/api/v1/runs", Some(&request));
    assert_eq!(code, 202, "{started}");
    let id = started["id"].as_str().unwrap().to_string();
    server.wait_for(&id, |v| v["done"].as_u64() >= Some(2));
    drop(server); // SIGKILL
    let calls_at_kill = mock.calls();

    let server = Server::start(&dir, &config);
    let (code, v) = server.call("GET", &format!("/api/v1/runs/{id}"), None);
    assert_eq!(code, 200);
    assert_eq!(v["state"], "interrupted", "{v}");
    let (code, v) = server.call("POST", &format!("/api/v1/runs/{id}/resume"), None);
    assert_eq!(code, 202, "{v}");
    let finished = server.wait_for(&id, |v| v["state"] == "finished");
    assert_eq!(finished["done"], 6);
    // Replies received before the kill came from the cache: at most the one in flight then
    // was asked again.
    assert!(mock.calls() <= 6 + 1, "{} calls", mock.calls());
    assert!(finished["reused"].as_u64().unwrap() >= calls_at_kill as u64 - 1);
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(case.join("expected.json")).unwrap())
            .unwrap();
    let evaluation: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("runs").join(&id).join("evaluation.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(evaluation, expected["evaluation_json"]);
    let (code, _) = server.call("POST", &format!("/api/v1/runs/{id}/resume"), None);
    assert_eq!(code, 409, "a finished run does not start again");

    // One request cannot make the server hold n copies of a long question: too large is a 400…
    let long = "Q".repeat(1 << 20);
    let row = json!([{"true_false_question": long, "true_false_question_answer": "YES", "question_type": "x"}]);
    let (code, v) = server.call(
        "POST",
        "/api/v1/runs",
        Some(&json!({"benchmark": "msqa", "model": "test-model", "n": 1000, "workers": 1, "dataset": row})),
    );
    assert_eq!(code, 400, "{v}");
    assert!(v.to_string().contains("too large"), "{v}");
    // …and a large accepted run shares the question among its samples (200 × 1 MiB).
    mock.state
        .delay_ms
        .store(5_000, std::sync::atomic::Ordering::SeqCst);
    let before = rss_mib(server.child.id());
    let (code, v) = server.call(
        "POST",
        "/api/v1/runs",
        Some(&json!({"benchmark": "msqa", "model": "test-model", "n": 200, "workers": 1, "dataset": row})),
    );
    assert_eq!(code, 202, "{v}");
    let big = v["id"].as_str().unwrap().to_string();
    server.wait_for(&big, |v| v["total"] == 200);
    let during = rss_mib(server.child.id());
    assert!(
        during < before + 100,
        "200 samples of a 1 MiB question: {before} MiB before, {during} MiB during"
    );
    let (code, v) = server.call("POST", &format!("/api/v1/runs/{big}/cancel"), None);
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["state"], "cancelled");
    let (code, _) = server.call("POST", &format!("/api/v1/runs/{big}/cancel"), None);
    assert_eq!(code, 409);
    let (_, v) = server.call("GET", &format!("/api/v1/runs/{big}"), None);
    assert_eq!(v["state"], "cancelled");
}

#[test]
fn a_cli_run_killed_halfway_is_interrupted_and_resumes_by_id_or_folder() {
    let (mock_api, _, case) = msqa_case();
    let mock = MockUpstream::from_mock_api(&mock_api);
    mock.state
        .delay_ms
        .store(150, std::sync::atomic::Ordering::SeqCst);
    let dir = temp_dir("run-cli-resume");
    let config = write_config(&dir, &mock);
    let db = dir.join("db.sqlite3");
    let out = dir.join("out");
    let dataset = case.join("dataset/MSQA_Dataset.json");
    let mut child = scorebench_cmd(&[
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
        "1",
        "--out",
        out.to_str().unwrap(),
    ])
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while mock.calls() < 3 {
        assert!(Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let conn = server::db::open(&db).unwrap();
    let (id, state): (String, String) = conn
        .query_row("SELECT id, state FROM run", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(state, "running", "nothing has looked since the kill");
    drop(conn);

    // A finished run is refused; an unknown one too.
    let refused = scorebench_cmd(&[
        "run",
        "resume",
        "ffffffffffffffff",
        "--db",
        db.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("no run"));

    let by_folder = scorebench_cmd(&[
        "run",
        "resume",
        out.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&by_folder.stderr);
    assert!(by_folder.status.success(), "{stderr}");
    assert!(stderr.contains(&format!("resuming run {id}")), "{stderr}");
    assert!(mock.calls() <= 6 + 1, "{} calls", mock.calls());
    let conn = server::db::open(&db).unwrap();
    let state: String = conn
        .query_row("SELECT state FROM run WHERE id = ?1", [&id], |r| r.get(0))
        .unwrap();
    assert_eq!(state, "finished");
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(case.join("expected.json")).unwrap())
            .unwrap();
    let evaluation: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("evaluation.json")).unwrap())
            .unwrap();
    assert_eq!(evaluation, expected["evaluation_json"]);
    let again = scorebench_cmd(&["run", "resume", &id, "--db", db.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2), "finished: nothing to resume");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_are_checked_before_the_run_starts() {
    let mock = MockUpstream::start(Default::default());
    let (state, _) = state_with(&mock, "run-workers", "");
    let essays = json!([{"id": 1, "grade": "5", "requirement": "r", "title": "t", "content": "c"}]);
    let rows = json!([{"true_false_question": "Q", "true_false_question_answer": "YES", "question_type": "x"}]);
    for request in [
        json!({"benchmark": "eotgc", "track": 1, "model": "test-model", "dataset": essays, "workers": 0}),
        json!({"benchmark": "eotgc", "track": 1, "model": "test-model", "dataset": essays, "workers": 5000}),
        json!({"benchmark": "msqa", "model": "test-model", "dataset": rows, "workers": 0}),
        json!({"benchmark": "msqa", "model": "test-model", "dataset": rows, "workers": 5000}),
    ] {
        let (code, body) = post(&state, "/api/v1/runs", Some(request)).await;
        assert_eq!(code, StatusCode::BAD_REQUEST, "{body}");
        assert!(
            body.to_string()
                .contains("workers must be between 1 and 4096"),
            "{body}"
        );
    }
    assert_eq!(mock.calls(), 0);
}
