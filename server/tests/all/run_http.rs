//! `/api/v1/runs` in process: start, progress, pause and resume, files; EOTGC Track 1 and
//! Track 2 submission files; bad requests.

use std::time::{Duration, Instant};

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::mock_upstream::MockUpstream;
use crate::proxy::{send, state_with};
use crate::support::golden_dir;

async fn wait_for(
    state: &server::http::AppState,
    id: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, _, body) = send(state, "GET", &format!("/api/v1/runs/{id}"), &[], None).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let v: Value = serde_json::from_str(&body).unwrap();
        if done(&v) {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out: {v}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn start(state: &server::http::AppState, request: Value) -> String {
    let (status, _, body) = send(state, "POST", "/api/v1/runs", &[], Some(request)).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    v["id"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn msqa_over_http_with_pause_resume_and_files() {
    let case = golden_dir().join("msqa/msqa_01_basic_yes_no");
    let mock_api: Value =
        serde_json::from_str(&std::fs::read_to_string(case.join("mock_api.json")).unwrap())
            .unwrap();
    let mock = MockUpstream::from_mock_api(&mock_api);
    mock.state
        .delay_ms
        .store(60, std::sync::atomic::Ordering::SeqCst);
    let (state, _) = state_with(&mock, "runs-http", "");
    let dataset: Value = serde_json::from_str(
        &std::fs::read_to_string(case.join("dataset/MSQA_Dataset.json")).unwrap(),
    )
    .unwrap();
    let id = start(
        &state,
        json!({"benchmark": "msqa", "model": "test-model", "dataset": dataset, "workers": 1, "retry_wait_ms": 0}),
    )
    .await;
    let running = wait_for(&state, &id, |v| v["done"].as_u64() >= Some(1)).await;
    assert_eq!(running["total"], 6);
    let (status, _, body) = send(
        &state,
        "POST",
        &format!("/api/v1/runs/{id}/pause"),
        &[],
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let paused = wait_for(&state, &id, |v| v["state"] == "paused").await;
    let done_at_pause = paused["done"].as_u64().unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let still = wait_for(&state, &id, |_| true).await;
    assert_eq!(
        still["done"].as_u64().unwrap(),
        done_at_pause,
        "a paused run takes no new item"
    );
    assert!(done_at_pause < 6);
    let (status, _, _) = send(
        &state,
        "POST",
        &format!("/api/v1/runs/{id}/pause"),
        &[],
        None,
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    let (status, _, _) = send(
        &state,
        "POST",
        &format!("/api/v1/runs/{id}/resume"),
        &[],
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let finished = wait_for(&state, &id, |v| v["state"] == "finished").await;
    assert_eq!(finished["done"], 6);
    assert_eq!(finished["usage"]["model"]["upstream_calls"], 6);
    assert_eq!(finished["usage"]["model"]["completion_tokens"], 9);
    assert!(finished["usage"]["model"]["cost"].as_f64().unwrap() > 0.0);
    assert_eq!(finished["usage"]["judge"]["upstream_calls"], 0);
    assert!(finished["rate_per_s"].as_f64().unwrap() > 0.0);
    let files: Vec<&str> = finished["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        [
            "evaluation.json",
            "evaluation.log",
            "score.json",
            "subtasks.json"
        ]
    );

    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(case.join("expected.json")).unwrap())
            .unwrap();
    let (status, headers, body) = send(
        &state,
        "GET",
        &format!("/api/v1/runs/{id}/files/evaluation.json"),
        &[],
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["content-type"], "application/json");
    let evaluation: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(evaluation, expected["evaluation_json"]);
    for bad in ["../db.sqlite3", "config.toml", "..%2Fdb.sqlite3"] {
        let (status, _, _) = send(
            &state,
            "GET",
            &format!("/api/v1/runs/{id}/files/{bad}"),
            &[],
            None,
        )
        .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{bad}");
    }
    let (status, _, _) = send(&state, "GET", "/api/v1/runs/nope", &[], None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_run_requests_are_400() {
    let mock = MockUpstream::start(Default::default());
    let (state, _) = state_with(&mock, "runs-bad", "");
    for (request, needle) in [
        (
            json!({"benchmark": "msqa", "model": "nope", "dataset": [{}]}),
            "not served here",
        ),
        (
            json!({"benchmark": "msqa", "model": "test-model", "dataset": []}),
            "no rows",
        ),
        (
            json!({"benchmark": "msqa", "model": "test-model", "dataset": [{}], "n": 0}),
            "n must be",
        ),
        (
            json!({"benchmark": "eotgc", "track": 3, "model": "test-model", "dataset": [{}]}),
            "--track must be 1 or 2",
        ),
        (json!({"benchmark": "sgi"}), "not a run request"),
    ] {
        let (status, _, body) = send(&state, "POST", "/api/v1/runs", &[], Some(request)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert!(body.contains(needle), "{needle}: {body}");
    }
    assert_eq!(mock.calls(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eotgc_tracks_write_submission_files() {
    let mock = MockUpstream::start(Default::default());
    let (state, _) = state_with(&mock, "runs-eotgc", "");
    let essays = json!([
        {"id": 1, "grade": "5", "requirement": "写一件难忘的事", "title": "难忘的一天", "content": "那天……"},
        {"id": "2", "grade": 7, "requirement": "写你的家乡", "title": "家乡的河", "content": "河水……"}
    ]);
    *mock.state.default_reply.lock().unwrap() = Some(
        json!({"content": "<think>先想想</think>较好", "reasoning_content": null, "finish_reason": "stop", "completion_tokens": 3}),
    );
    let id = start(&state, json!({"benchmark": "eotgc", "track": 1, "model": "test-model", "dataset": essays, "retry_wait_ms": 0})).await;
    wait_for(&state, &id, |v| v["state"] == "finished").await;
    let (_, _, body) = send(
        &state,
        "GET",
        &format!("/api/v1/runs/{id}/files/track1.json"),
        &[],
        None,
    )
    .await;
    let track1: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        track1,
        json!([{"id": 1, "classification": "较好"}, {"id": "2", "classification": "较好"}])
    );

    let long = "很好".repeat(200);
    *mock.state.default_reply.lock().unwrap() = Some(
        json!({"content": long, "reasoning_content": null, "finish_reason": "stop", "completion_tokens": 3}),
    );
    let id = start(&state, json!({"benchmark": "eotgc", "track": 2, "model": "test-model", "dataset": essays, "retry_wait_ms": 0})).await;
    let finished = wait_for(&state, &id, |v| v["state"] == "finished").await;
    assert_eq!(finished["failed"], 0);
    let (_, _, body) = send(
        &state,
        "GET",
        &format!("/api/v1/runs/{id}/files/track2.json"),
        &[],
        None,
    )
    .await;
    let track2: Value = serde_json::from_str(&body).unwrap();
    for entry in track2.as_array().unwrap() {
        assert_eq!(entry["comment"].as_str().unwrap().chars().count(), 250);
    }
    assert_eq!(mock.calls(), 4);

    // An unusable Track 1 reply: classification null, listed in unparsed.json.
    *mock.state.default_reply.lock().unwrap() = Some(
        json!({"content": "无法判断", "reasoning_content": null, "finish_reason": "stop", "completion_tokens": 3}),
    );
    let one = json!([{"id": 9, "grade": "3", "requirement": "r", "title": "t", "content": "c"}]);
    let id = start(&state, json!({"benchmark": "eotgc", "track": 1, "model": "test-model", "dataset": one, "retry_wait_ms": 0})).await;
    let finished = wait_for(&state, &id, |v| v["state"] == "finished").await;
    assert_eq!(finished["failed"], 1);
    let (_, _, body) = send(
        &state,
        "GET",
        &format!("/api/v1/runs/{id}/files/unparsed.json"),
        &[],
        None,
    )
    .await;
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!([{"id": 9, "reply": "无法判断"}])
    );
    let (_, _, body) = send(
        &state,
        "GET",
        &format!("/api/v1/runs/{id}/files/track1.json"),
        &[],
        None,
    )
    .await;
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!([{"id": 9, "classification": null}])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn judge_calls_are_counted_apart_from_model_calls() {
    use server::cache::Role;
    use server::runs::host::ServerHost;
    use server::runs::progress::Progress;
    use workbench::benchmarks::sgibench::run as judge;
    let mock = MockUpstream::start(Default::default());
    *mock.state.default_reply.lock().unwrap() = Some(
        json!({"content": "[{'step': 1, 'judge': 'correct'},]", "reasoning_content": null, "finish_reason": "stop", "completion_tokens": 7}),
    );
    let (state, dir) = state_with(&mock, "runs-judge", "");
    let llm = state.llm.clone().unwrap();
    let progress = std::sync::Arc::new(Progress::new(
        "j1".into(),
        "sgi",
        &[],
        "judge-model",
        dir.join("j1"),
    ));
    let host = ServerHost::new(&llm.gateway, progress.clone());
    for _ in 0..2 {
        let (reply, _) = judge::ask_judge(&host, "judge-model", Some(0.0), "judge these steps", 0)
            .await
            .unwrap();
        assert_eq!(
            judge::cut_list(reply.text().unwrap()),
            Some(json!([{"step": 1, "judge": "correct"}]))
        );
    }
    let judge_usage = progress.usage(Role::Judge);
    assert_eq!((judge_usage.upstream_calls, judge_usage.cache_hits), (1, 1));
    assert_eq!(judge_usage.completion_tokens, 14);
    assert_eq!(progress.usage(Role::Model).upstream_calls, 0);
    let stored = llm.gateway.cache.usage("j1".into()).await.unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].0, Role::Judge);
    assert_eq!(mock.calls(), 1);
}

/// Every file under `dir` whose text holds `needle` in any ASCII case.
fn holding(dir: &std::path::Path, needle: &str, found: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            holding(&path, needle, found);
        } else {
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).to_lowercase();
            if text.contains(&needle.to_lowercase()) {
                found.push(path.display().to_string());
            }
        }
    }
}

/// A hostile upstream that echoes the key JSON-escaped (`\u0073\u006b…`) or in another case:
/// neither the proxy's replies (whole and streamed) nor an EOTGC run's files hold it
/// (issue 25, item 5).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_echoed_key_escaped_or_recased_reaches_no_client_and_no_run_file() {
    use crate::proxy::KEY;
    let mock = MockUpstream::start(Default::default());
    let (state, dir) = state_with(&mock, "runs-evil-echo", "");
    mock.state
        .escape_content
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let essays = json!([
        {"id": 1, "grade": "5", "requirement": "写一件难忘的事", "title": "难忘的一天", "content": "那天……"}
    ]);
    for content in [
        format!("较好 {KEY}"),
        format!("较好 {}", KEY.to_ascii_lowercase()),
        format!("{} 很好", KEY.to_ascii_uppercase()),
    ] {
        *mock.state.default_reply.lock().unwrap() = Some(
            json!({"content": content, "reasoning_content": null, "finish_reason": "stop", "completion_tokens": 3}),
        );
        for stream in [false, true] {
            let (status, _, body) = send(
                &state,
                "POST",
                "/api/v1/chat/completions",
                &[],
                Some(json!({"model": "test-model", "stream": stream, "temperature": 0.5,
                            "messages": [{"role": "user", "content": format!("q {content} {stream}")}]})),
            )
            .await;
            assert_eq!(status, StatusCode::OK, "{body}");
            assert!(body.contains("***"), "{body}");
            // What a client reads: the JSON decoded.
            let decoded = body
                .lines()
                .filter_map(|l| serde_json::from_str::<Value>(l.trim_start_matches("data: ")).ok())
                .map(|v| v.to_string())
                .collect::<String>()
                + &body;
            assert!(
                !decoded.to_lowercase().contains(&KEY.to_lowercase()),
                "{body}"
            );
        }
        for track in [1, 2] {
            let id = start(
                &state,
                json!({"benchmark": "eotgc", "track": track, "model": "test-model",
                                          "dataset": essays, "retry_wait_ms": 0}),
            )
            .await;
            wait_for(&state, &id, |v| v["state"] == "finished").await;
            for file in ["replies.log", "unparsed.json", "track1.json", "track2.json"] {
                let (_, _, body) = send(
                    &state,
                    "GET",
                    &format!("/api/v1/runs/{id}/files/{file}"),
                    &[],
                    None,
                )
                .await;
                assert!(
                    !body.to_lowercase().contains(&KEY.to_lowercase()),
                    "{file}: {body}"
                );
            }
        }
    }
    let mut found = Vec::new();
    holding(&dir, KEY, &mut found);
    assert!(found.is_empty(), "files holding the key: {found:?}");
}
