//! The proxy against the mock upstream, in process (`oneshot`, no server socket): routing,
//! refusal of unknown models, cache hits, retries on 500/429/reset/timeout, streaming, limits,
//! and that the client's own `Authorization` is never forwarded.

use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};
use server::config::Config;
use server::gateway::Gateway;
use server::http::{AppState, app};
use server::runs::engine::Llm;
use tower::ServiceExt;

use crate::mock_upstream::{Fail, MockUpstream};

pub const KEY: &str = "sk-test-SECRET-7f3a9c";

pub fn temp_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("scorebench-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A config for the mock: models "test-model" and "judge-model"; key from SCOREBENCH_TEST_KEY.
pub fn config_text(base_url: &str, extra: &str) -> String {
    format!(
        "[[upstream]]\nname = \"mock\"\nbase_url = \"{base_url}\"\napi_key_env = \"SCOREBENCH_TEST_KEY\"\n\
         models = [\"test-model\", \"judge-model\"]\nmax_concurrency = 64\nretry_backoff_ms = 10\n\
         price_per_million_input_tokens = 1.0\nprice_per_million_output_tokens = 2.0\n{extra}"
    )
}

pub fn state_with(mock: &MockUpstream, tag: &str, extra: &str) -> (AppState, std::path::PathBuf) {
    let dir = temp_dir(tag);
    let config = Config::parse("test.toml", &config_text(&mock.base_url(), extra), |_| {
        Some(KEY.to_string())
    })
    .unwrap();
    let db = dir.join("db.sqlite3");
    let gateway = Gateway::open(&config, &db).unwrap();
    let conn = server::db::open(&db).unwrap();
    let state = AppState {
        dist: dir.join("dist"),
        db: Arc::new(Mutex::new(conn)),
        llm: Some(Arc::new(Llm::new(gateway, dir.join("runs")))),
        guard: Default::default(),
    };
    (state, dir)
}

pub async fn send(
    state: &AppState,
    method: &str,
    uri: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> (StatusCode, axum::http::HeaderMap, String) {
    let mut request = Request::builder().method(method).uri(uri);
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    // A JSON body is sent as JSON unless the test says otherwise.
    if body.is_some()
        && !headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
    {
        request = request.header("content-type", "application/json");
    }
    let body = match body {
        Some(b) => Body::from(b.to_string()),
        None => Body::empty(),
    };
    let response = app(state.clone())
        .oneshot(request.body(body).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    (
        status,
        headers,
        String::from_utf8_lossy(&bytes).into_owned(),
    )
}

fn chat(model: &str, question: &str) -> Value {
    json!({"model": model, "messages": [{"role": "user", "content": question}]})
}

#[tokio::test]
async fn models_lists_names_only_and_unknown_models_are_refused() {
    let mock = MockUpstream::start(Default::default());
    let (state, _) = state_with(&mock, "proxy-models", "");
    let (status, _, body) = send(&state, "GET", "/api/v1/models", &[], None).await;
    assert_eq!(status, StatusCode::OK);
    let json: Value = serde_json::from_str(&body).unwrap();
    let ids: Vec<&str> = json["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["test-model", "judge-model"]);
    assert!(!body.contains("127.0.0.1") && !body.contains(KEY), "{body}");

    let (status, _, body) = send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &[],
        Some(chat("gpt-unknown", "hi")),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        body.contains("\\\"gpt-unknown\\\" is not served here") || body.contains("gpt-unknown"),
        "{body}"
    );
    let (status, _, body) = send(
        &state,
        "POST",
        "/api/v1/embeddings",
        &[],
        Some(json!({"input": "x"})),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body.contains("no \\\"model\\\""), "{body}");
    let (status, _, _) = send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &[("content-type", "application/json")],
        None,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(mock.calls(), 0, "refused requests never reach the upstream");
}

#[tokio::test]
async fn same_request_is_answered_from_the_cache() {
    let mock = MockUpstream::start(Default::default());
    let (state, _) = state_with(&mock, "proxy-cache", "");
    let body = chat("test-model", "Is iron magnetic?");
    let (status, headers, first) = send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &[],
        Some(body.clone()),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(headers["x-scorebench-cache"], "miss");
    // Same request and sample, keys in another order: a hit, no upstream call. (Without
    // the header, a second identical request is the next sample: see sampling.rs.)
    let reordered = json!({"messages": body["messages"], "model": "test-model"});
    let (status, headers, second) = send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &[("x-scorebench-sample", "0")],
        Some(reordered),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["x-scorebench-cache"], "hit");
    assert_eq!(first, second);
    assert_eq!(mock.calls(), 1);
    // Another sample index or another temperature is another request.
    let (_, headers, _) = send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &[("x-scorebench-sample", "1")],
        Some(body.clone()),
    )
    .await;
    assert_eq!(headers["x-scorebench-cache"], "miss");
    let mut hot = body.clone();
    hot["temperature"] = json!(0.7);
    send(&state, "POST", "/api/v1/chat/completions", &[], Some(hot)).await;
    assert_eq!(mock.calls(), 3);
    // Cache off: asked again.
    let (_, headers, _) = send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &[("x-scorebench-cache", "off")],
        Some(body.clone()),
    )
    .await;
    assert_eq!(headers["x-scorebench-cache"], "miss");
    assert_eq!(mock.calls(), 4);
    // Tokens counted to a run (one this server stores), split by role, with cost from the
    // configured prices.
    let id = server::runs::progress::new_run_id();
    state
        .llm
        .as_ref()
        .unwrap()
        .gateway
        .cache
        .start_run(server::cache::RunRecord {
            id: id.clone(),
            kind: "proxy-test".into(),
            model: "judge-model".into(),
            state: "running".into(),
            out_dir: String::new(),
            origin: "http".into(),
            request: None,
            error: None,
        })
        .await
        .unwrap();
    let run = [
        ("x-scorebench-run", id.as_str()),
        ("x-scorebench-role", "judge"),
        ("x-scorebench-sample", "0"),
    ];
    send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &run,
        Some(chat("judge-model", "judge this")),
    )
    .await;
    send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &run,
        Some(chat("judge-model", "judge this")),
    )
    .await;
    let usage = state
        .llm
        .as_ref()
        .unwrap()
        .gateway
        .cache
        .usage(id.clone())
        .await
        .unwrap();
    assert_eq!(usage.len(), 1);
    let (role, totals) = usage[0];
    assert_eq!(role, server::cache::Role::Judge);
    assert_eq!((totals.upstream_calls, totals.cache_hits), (1, 1));
    assert_eq!((totals.prompt_tokens, totals.completion_tokens), (20, 2));
    // one upstream reply: 10 prompt tokens × 1.0 + 1 completion token × 2.0, per million
    assert!((totals.cost.unwrap() - 12e-6).abs() < 1e-15, "{totals:?}");
}

#[tokio::test]
async fn retries_500_429_reset_and_timeouts_then_passes_errors_through() {
    let mock = MockUpstream::start(Default::default());
    let (state, _) = state_with(&mock, "proxy-retry", "request_timeout_secs = 1\n");
    mock.fail_next(&[Fail::Status(500), Fail::Status(429)]);
    let (status, _, body) = send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &[],
        Some(chat("test-model", "a")),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(mock.calls(), 3);
    mock.fail_next(&[Fail::Reset, Fail::SlowMs(1500)]);
    let (status, _, body) = send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &[],
        Some(chat("test-model", "b")),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(mock.calls(), 6);
    // Three failures in a row: the upstream's last status and body come back, not cached.
    mock.fail_next(&[Fail::Status(503), Fail::Status(503), Fail::Status(503)]);
    let (status, _, body) = send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &[],
        Some(chat("test-model", "c")),
    )
    .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(body.contains("mock failure"), "{body}");
    assert_eq!(mock.calls(), 9);
    let (status, _, _) = send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &[],
        Some(chat("test-model", "c")),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(mock.calls(), 10);
}

#[tokio::test]
async fn an_unreachable_upstream_is_a_502_naming_it() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mock = MockUpstream::start(Default::default());
    let (state, _) = state_with(&mock, "proxy-down", "");
    let down = server::config::Config::parse(
        "t.toml",
        &config_text(&format!("http://127.0.0.1:{port}/v1"), "max_retries = 1\n"),
        |_| Some(KEY.into()),
    )
    .unwrap();
    let llm = state.llm.as_ref().unwrap();
    let gateway = Gateway::open(&down, &llm.runs_dir.with_file_name("down.sqlite3")).unwrap();
    let state = AppState {
        llm: Some(Arc::new(Llm::new(gateway, llm.runs_dir.clone()))),
        ..state
    };
    let (status, _, body) = send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &[],
        Some(chat("test-model", "a")),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_GATEWAY);
    assert!(
        body.contains("upstream mock: cannot connect") && body.contains("2 attempt"),
        "{body}"
    );
    assert!(!body.contains(KEY));
}

#[tokio::test]
async fn streams_pass_through_embeddings_work_and_client_auth_is_not_forwarded() {
    let mock = MockUpstream::start(Default::default());
    let (state, _) = state_with(&mock, "proxy-stream", "");
    let mut body = chat("test-model", "stream me");
    body["stream"] = json!(true);
    let (status, headers, text) = send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &[("authorization", "Bearer client-own-key")],
        Some(body),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["content-type"], "text/event-stream");
    assert!(
        text.starts_with("data: ") && text.ends_with("data: [DONE]\n\n"),
        "{text}"
    );
    let (status, _, text) = send(
        &state,
        "POST",
        "/api/v1/embeddings",
        &[],
        Some(json!({"model": "test-model", "input": "abc"})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{text}");
    assert!(text.contains("\"embedding\""));
    // URL-like fields in the body are just body: the call still goes to the model's upstream.
    let mut redirect = chat("test-model", "where to?");
    redirect["api_base"] = json!("http://127.0.0.1:1/v1");
    redirect["base_url"] = json!("http://127.0.0.1:1/v1");
    let (status, _, _) = send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &[("host", "127.0.0.1:1"), ("x-forwarded-host", "127.0.0.1:1")],
        Some(redirect),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(mock.calls(), 3);
    let seen = mock.state.auth_seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        vec![format!("Bearer {KEY}"); 3],
        "the proxy sets its own key, only"
    );
}

#[tokio::test]
async fn oversized_bodies_are_refused_and_no_config_lists_no_model() {
    let mock = MockUpstream::start(Default::default());
    let (state, _) = state_with(&mock, "proxy-limit", "");
    let big = "x".repeat(server::guard::MAX_REQUEST_BYTES + 10);
    let (status, _, _) = send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &[],
        Some(chat("test-model", &big)),
    )
    .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(mock.calls(), 0);
    let bare = AppState { llm: None, ..state };
    // The page asks for the models on every load: no upstream is an empty list, not an error.
    let (status, _, body) = send(&bare, "GET", "/api/v1/models", &[], None).await;
    assert_eq!(status, StatusCode::OK);
    let json: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        json,
        json!({"object": "list", "data": [], "configured": false})
    );
    let (status, _, body) = send(
        &bare,
        "POST",
        "/api/v1/chat/completions",
        &[],
        Some(chat("test-model", "hi")),
    )
    .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(body.contains("--config"), "{body}");
}

#[test]
fn config_debug_is_redacted() {
    let config = Config::parse("t.toml", &config_text("http://127.0.0.1:1/v1", ""), |_| {
        Some(KEY.into())
    })
    .unwrap();
    let debug = format!("{config:?} {config:#?}");
    assert!(!debug.contains(KEY));
    assert!(debug.contains("***"));
}
