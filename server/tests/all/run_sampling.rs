//! Repeated sampling through the proxy (`server/src/sampling.rs`): the k-th identical request
//! of a session is the k-th sample. With the official MSQA toolkit's pattern (same body, no
//! extra header, a new connection per call, a pool of worker threads, sample-major order) the
//! first run makes n × questions upstream calls and a second process replays them all; with
//! `x-scorebench-run` the run is the session; a run started by scorebench replays exactly.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::key_hygiene::http;
use crate::mock_upstream::MockUpstream;
use crate::proxy::{send, state_with, temp_dir};
use crate::run_state::Server;

/// A mock whose every call gets a distinct reply ("YES #k"), so samples can be told apart.
fn distinct_mock() -> MockUpstream {
    let mock = MockUpstream::start(Default::default());
    mock.state
        .numbered
        .store(true, std::sync::atomic::Ordering::SeqCst);
    mock
}

fn chat(question: &str) -> Value {
    json!({"model": "test-model", "temperature": 0.7,
           "messages": [{"role": "user", "content": question}]})
}

fn content(body: &str) -> String {
    let v: Value = serde_json::from_str(body).unwrap();
    v["choices"][0]["message"]["content"]
        .as_str()
        .unwrap()
        .to_string()
}

/// One "process" of the toolkit's pattern: `workers` threads take the calls in sample-major
/// order (for sample in 0..n: for question in questions), each call on a new connection;
/// returns the reply of every (sample, question) in that order.
fn toolkit_run(host: &str, questions: &[String], n: usize, workers: usize) -> Vec<String> {
    let tasks: Vec<(usize, String)> = (0..n)
        .flat_map(|_| questions.iter().cloned())
        .enumerate()
        .collect();
    let queue = Arc::new(Mutex::new(tasks.into_iter()));
    let replies = Arc::new(Mutex::new(HashMap::new()));
    let threads: Vec<_> = (0..workers)
        .map(|_| {
            let (queue, replies, host) = (queue.clone(), replies.clone(), host.to_string());
            std::thread::spawn(move || {
                loop {
                    let Some((i, question)) = queue.lock().unwrap().next() else {
                        return;
                    };
                    let raw = http(
                        &host,
                        "POST",
                        "/api/v1/chat/completions",
                        Some(&chat(&question)),
                    );
                    assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
                    let body = raw.split("\r\n\r\n").nth(1).unwrap();
                    replies.lock().unwrap().insert(i, content(body));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let replies = replies.lock().unwrap();
    (0..replies.len()).map(|i| replies[&i].clone()).collect()
}

#[test]
fn the_official_clients_pattern_gets_n_samples_then_replays_them_in_a_new_process() {
    let mock = distinct_mock();
    let dir = temp_dir("sampling-toolkit");
    let config = crate::run_msqa::write_config(&dir, &mock);
    let server = Server::start(&dir, &config);
    let questions: Vec<String> = (0..12)
        .map(|i| format!("Is material {i} stable?"))
        .collect();
    let first = toolkit_run(&server.host, &questions, 3, 4);
    assert_eq!(
        mock.calls(),
        3 * questions.len(),
        "one upstream call per sample"
    );
    let distinct: std::collections::HashSet<&String> = first.iter().collect();
    assert_eq!(
        distinct.len(),
        first.len(),
        "no sample is a replay of another"
    );
    // A new process: its interpreter and imports take about a second before the first call.
    std::thread::sleep(Duration::from_millis(1_500));
    let second = toolkit_run(&server.host, &questions, 3, 4);
    assert_eq!(
        mock.calls(),
        3 * questions.len(),
        "the second run asks nothing"
    );
    assert_eq!(second, first, "the same replies, sample for sample");
}

#[test]
fn back_to_back_identical_requests_on_new_connections_are_separate_samples() {
    let mock = distinct_mock();
    let dir = temp_dir("sampling-back-to-back");
    let config = crate::run_msqa::write_config(&dir, &mock);
    let server = Server::start(&dir, &config);
    let mut samples = Vec::new();
    for _ in 0..3 {
        let raw = http(
            &server.host,
            "POST",
            "/api/v1/chat/completions",
            Some(&chat("Q?")),
        );
        let header = raw
            .lines()
            .find_map(|l| l.strip_prefix("x-scorebench-sample: "))
            .unwrap()
            .to_string();
        samples.push(header);
    }
    assert_eq!(samples, ["0", "1", "2"]);
    assert_eq!(mock.calls(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_run_header_the_run_is_the_session_and_resuming_replays_it() {
    let mock = distinct_mock();
    let (state, _) = state_with(&mock, "sampling-run-header", "");
    // A run stored by this server, cancelled while its one call is in flight (resumable).
    mock.state
        .delay_ms
        .store(2_000, std::sync::atomic::Ordering::SeqCst);
    let (code, _, body) = send(
        &state,
        "POST",
        "/api/v1/runs",
        &[],
        Some(json!({"benchmark": "eotgc", "track": 2, "model": "test-model",
            "dataset": [{"id": 1, "grade": "5", "requirement": "r", "title": "t", "content": "c"}]})),
    )
    .await;
    assert_eq!(code, StatusCode::ACCEPTED, "{body}");
    let id = serde_json::from_str::<Value>(&body).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (code, _, body) = send(
        &state,
        "POST",
        &format!("/api/v1/runs/{id}/cancel"),
        &[],
        None,
    )
    .await;
    assert_eq!(code, StatusCode::OK, "{body}");
    mock.state
        .delay_ms
        .store(0, std::sync::atomic::Ordering::SeqCst);
    let asked = || mock.calls_for("A?") + mock.calls_for("B?");
    let ask = |question: &'static str| {
        let state = state.clone();
        let id = id.clone();
        async move {
            let (code, headers, body) = send(
                &state,
                "POST",
                "/api/v1/chat/completions",
                &[("x-scorebench-run", &id)],
                Some(chat(question)),
            )
            .await;
            assert_eq!(code, StatusCode::OK, "{body}");
            (
                headers["x-scorebench-sample"].to_str().unwrap().to_string(),
                content(&body),
            )
        }
    };
    let mut first = Vec::new();
    for q in ["A?", "B?", "A?", "B?", "A?"] {
        first.push(ask(q).await);
    }
    let samples: Vec<&str> = first.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(samples, ["0", "0", "1", "1", "2"]);
    assert_eq!(asked(), 5);
    // No idle gap ends a run's session: a later identical request is a further sample.
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    assert_eq!(ask("A?").await.0, "3");
    assert_eq!(asked(), 6);
    // Resuming the run replays its samples from the first.
    let (code, _, body) = send(
        &state,
        "POST",
        &format!("/api/v1/runs/{id}/resume"),
        &[],
        None,
    )
    .await;
    assert_eq!(code, StatusCode::ACCEPTED, "{body}");
    let mut again = Vec::new();
    for q in ["A?", "B?", "A?", "B?", "A?"] {
        again.push(ask(q).await);
    }
    assert_eq!(again, first);
    assert_eq!(asked(), 6, "replayed from the cache");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_started_by_scorebench_replays_exactly() {
    let mock = distinct_mock();
    let (state, dir) = state_with(&mock, "sampling-engine-run", "");
    let rows: Vec<Value> = (0..4)
        .map(|i| json!({"true_false_question": format!("Q{i}?"), "true_false_question_answer": "YES", "question_type": "x"}))
        .collect();
    let request = json!({"benchmark": "msqa", "model": "test-model", "n": 3, "workers": 4,
        "temperature": 0.7, "dataset": rows, "retry_wait_ms": 0});
    let mut files = Vec::new();
    for _ in 0..2 {
        let (code, _, body) =
            send(&state, "POST", "/api/v1/runs", &[], Some(request.clone())).await;
        assert_eq!(code, StatusCode::ACCEPTED, "{body}");
        let id = serde_json::from_str::<Value>(&body).unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string();
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            let (_, _, body) = send(&state, "GET", &format!("/api/v1/runs/{id}"), &[], None).await;
            if serde_json::from_str::<Value>(&body).unwrap()["state"] == "finished" {
                break;
            }
            assert!(std::time::Instant::now() < deadline);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        files.push(
            std::fs::read_to_string(dir.join("runs").join(&id).join("evaluation.json")).unwrap(),
        );
    }
    assert_eq!(mock.calls(), 12, "3 samples × 4 questions, once");
    assert_eq!(
        files[0], files[1],
        "the second run is the first, record for record"
    );
    let records: Vec<Value> = serde_json::from_str(&files[0]).unwrap();
    let distinct: std::collections::HashSet<&Value> =
        records.iter().map(|r| &r["generation"]).collect();
    assert_eq!(distinct.len(), 12, "every record is its own sample");
}
