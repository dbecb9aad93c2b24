//! The server as a security boundary, in process (`oneshot`): other sites cannot drive it
//! (Origin, content type), rebound host names are refused, the optional API token, keys echoed
//! by a hostile upstream never reach the client (plain, streamed, embeddings, successful
//! replies too), redirects are not followed, every API error has the OpenAI shape, and
//! request bodies are bounded in memory and time.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use server::config::Config;
use server::gateway::Gateway;
use server::guard::MAX_REQUEST_BYTES;
use server::guard::{ApiToken, DEFAULT_BODY_TIMEOUT, Guard};
use server::http::{AppState, app};
use server::runs::engine::Llm;
use tower::ServiceExt;

use crate::mock_upstream::MockUpstream;
use crate::proxy::{KEY, send, state_with, temp_dir};

/// A hostile upstream. By `model`: `echo-model` answers 401 quoting the `Authorization` it got
/// (body and a header); `html-model` a 500 HTML page; `redir-model` a 307 to the sink;
/// `leak-model` a 200 whose content is the key (streamed: split across two chunks).
struct Evil {
    addr: SocketAddr,
    calls: Arc<AtomicUsize>,
    sink_hits: Arc<AtomicUsize>,
}

#[derive(Clone)]
struct EvilState {
    calls: Arc<AtomicUsize>,
    sink: SocketAddr,
}

fn spawn_server(router: Router) -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            axum::serve(listener, router).await.unwrap();
        });
    });
    rx.recv().unwrap()
}

async fn evil_reply(State(s): State<EvilState>, headers: HeaderMap, body: String) -> Response {
    s.calls.fetch_add(1, Ordering::SeqCst);
    let body: Value = serde_json::from_str(&body).unwrap_or_default();
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let key = auth.trim_start_matches("Bearer ").to_string();
    let stream = body["stream"].as_bool() == Some(true);
    match body["model"].as_str().unwrap_or("") {
        "echo-model" => (
            StatusCode::UNAUTHORIZED,
            [("x-echo", auth.clone())],
            axum::Json(json!({"error": {
                "message": format!("invalid key: {auth} (key {key})"),
                "type": "invalid_request_error",
                "code": "invalid_api_key",
            }})),
        )
            .into_response(),
        "html-model" => (
            StatusCode::INTERNAL_SERVER_ERROR,
            [("content-type", "text/html")],
            format!("<html><script>alert(1)</script>upstream html error {auth}</html>"),
        )
            .into_response(),
        "redir-model" => (
            StatusCode::TEMPORARY_REDIRECT,
            [("location", format!("http://{}/steal", s.sink))],
        )
            .into_response(),
        "leak-model" if stream => {
            let (a, b) = key.split_at(key.len() / 2);
            let chunks: Vec<Result<String, std::io::Error>> = vec![
                Ok(format!(
                    "data: {{\"choices\":[{{\"delta\":{{\"content\":\"{a}"
                )),
                Ok(format!("{b}\"}}}}]}}\n\ndata: [DONE]\n\n")),
            ];
            Response::builder()
                .header("content-type", "text/event-stream")
                .header("x-echo", auth)
                .body(Body::from_stream(futures_util::stream::iter(chunks)))
                .unwrap()
        }
        "leak-model" => axum::Json(json!({
            "choices": [{"index": 0, "message": {"role": "assistant", "content": format!("your key is {key}")}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1},
        }))
        .into_response(),
        _ => axum::Json(json!({"choices": [{"message": {"content": "YES"}}]})).into_response(),
    }
}

impl Evil {
    fn start() -> Evil {
        let sink_hits = Arc::new(AtomicUsize::new(0));
        let hits = sink_hits.clone();
        let sink = spawn_server(Router::new().fallback(move || {
            hits.fetch_add(1, Ordering::SeqCst);
            async { axum::Json(json!({"choices": [{"message": {"content": "STOLEN"}}]})) }
        }));
        let calls = Arc::new(AtomicUsize::new(0));
        let state = EvilState {
            calls: calls.clone(),
            sink,
        };
        let addr = spawn_server(
            Router::new()
                .route("/v1/chat/completions", post(evil_reply))
                .route("/v1/embeddings", post(evil_reply))
                .with_state(state),
        );
        Evil {
            addr,
            calls,
            sink_hits,
        }
    }

    fn state(&self, tag: &str) -> (AppState, std::path::PathBuf) {
        let dir = temp_dir(tag);
        let text = format!(
            "[[upstream]]\nname = \"evil\"\nbase_url = \"http://{}/v1\"\napi_key_env = \"K\"\n\
             models = [\"echo-model\", \"html-model\", \"redir-model\", \"leak-model\"]\n\
             max_retries = 0\n",
            self.addr
        );
        let config = Config::parse("evil.toml", &text, |_| Some(KEY.into())).unwrap();
        let db = dir.join("db.sqlite3");
        let state = AppState {
            dist: dir.join("dist"),
            db: Arc::new(Mutex::new(server::db::open(&db).unwrap())),
            llm: Some(Arc::new(Llm::new(
                Gateway::open(&config, &db).unwrap(),
                dir.join("runs"),
            ))),
            guard: Default::default(),
        };
        (state, dir)
    }
}

fn chat(model: &str) -> Value {
    json!({"model": model, "messages": [{"role": "user", "content": "x"}]})
}

/// The OpenAI error object of a body, asserting its shape.
fn openai_error(body: &str) -> Value {
    let json: Value =
        serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"));
    let error = json["error"].clone();
    assert!(error["message"].is_string(), "no error.message: {body}");
    assert!(error["type"].is_string(), "no error.type: {body}");
    assert!(
        error.get("code").is_some(),
        "no error.code (may be null): {body}"
    );
    error
}

fn files_containing(dir: &std::path::Path, needle: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files_containing(&path, needle));
        } else if std::fs::read(&path)
            // A SQLite journal may vanish between listing and reading: nothing to search then.
            .unwrap_or_default()
            .windows(needle.len())
            .any(|w| w == needle)
        {
            found.push(path.display().to_string());
        }
    }
    found
}

#[tokio::test]
async fn cross_origin_and_non_json_posts_are_refused() {
    let mock = MockUpstream::start(Default::default());
    let (state, _) = state_with(&mock, "boundary-origin", "");
    let run = json!({"benchmark": "msqa", "model": "test-model", "dataset": [
        {"true_false_question": "Q", "answer": "YES", "true_false_question_answer": "YES", "question_type": "x"}]});
    for (uri, body) in [
        (
            "/api/v1/chat/completions",
            json!({"model": "test-model", "messages": []}),
        ),
        (
            "/api/v1/embeddings",
            json!({"model": "test-model", "input": "x"}),
        ),
        ("/api/v1/runs", run.clone()),
    ] {
        // The attack: a CORS-"simple" text/plain POST from another site.
        let (status, _, text) = send(
            &state,
            "POST",
            uri,
            &[
                ("content-type", "text/plain"),
                ("origin", "http://evil.example"),
                ("host", "127.0.0.1:8080"),
            ],
            Some(body.clone()),
        )
        .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{uri}: {text}");
        assert_eq!(openai_error(&text)["type"], "permission_error");
        // Without an Origin (a script, not a page), the content type is still checked.
        for content_type in ["text/plain", "application/x-www-form-urlencoded"] {
            let (status, _, text) = send(
                &state,
                "POST",
                uri,
                &[("content-type", content_type)],
                Some(body.clone()),
            )
            .await;
            assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{uri}: {text}");
            openai_error(&text);
        }
        // JSON from another site, from a sandboxed frame, or flagged cross-site by the browser.
        for headers in [
            vec![
                ("origin", "http://evil.example"),
                ("host", "127.0.0.1:8080"),
            ],
            vec![
                ("origin", "http://127.0.0.1:9999"),
                ("host", "127.0.0.1:8080"),
            ],
            vec![("origin", "null"), ("host", "127.0.0.1:8080")],
            vec![("sec-fetch-site", "cross-site"), ("host", "127.0.0.1:8080")],
        ] {
            let (status, _, text) = send(&state, "POST", uri, &headers, Some(body.clone())).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{uri} {headers:?}: {text}");
        }
    }
    // Pause and resume have no body: the Origin rule covers them.
    let (status, _, _) = send(
        &state,
        "POST",
        "/api/v1/runs/abc/pause",
        &[
            ("origin", "http://evil.example"),
            ("host", "127.0.0.1:8080"),
        ],
        None,
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(mock.calls(), 0, "no refused request reached the upstream");

    // The app's own page (same origin) and non-browser clients pass.
    let body = json!({"model": "test-model", "messages": [{"role": "user", "content": "hi"}]});
    for headers in [
        vec![
            ("origin", "http://127.0.0.1:8080"),
            ("host", "127.0.0.1:8080"),
            ("sec-fetch-site", "same-origin"),
        ],
        vec![
            ("origin", "http://localhost:8080"),
            ("host", "localhost:8080"),
        ],
        vec![("content-type", "application/json; charset=utf-8")],
    ] {
        let (status, _, text) = send(
            &state,
            "POST",
            "/api/v1/chat/completions",
            &headers,
            Some(body.clone()),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{headers:?}: {text}");
    }
    // An origin on the allow-list passes.
    let allowed = AppState {
        guard: Arc::new(Guard::new(
            vec![],
            vec!["https://tools.example".into()],
            None,
            MAX_REQUEST_BYTES,
            DEFAULT_BODY_TIMEOUT,
        )),
        ..state
    };
    let (status, _, text) = send(
        &allowed,
        "POST",
        "/api/v1/chat/completions",
        &[
            ("origin", "https://tools.example"),
            ("host", "127.0.0.1:8080"),
        ],
        Some(body),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{text}");
}

#[tokio::test]
async fn rebound_host_names_are_refused() {
    let mock = MockUpstream::start(Default::default());
    let (state, _) = state_with(&mock, "boundary-host", "");
    for uri in ["/api/v1/models", "/api/health", "/", "/leaderboard/x"] {
        let (status, _, text) = send(
            &state,
            "GET",
            uri,
            &[("host", "attacker.example:8080")],
            None,
        )
        .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{uri}: {text}");
        assert!(
            openai_error(&text)["message"]
                .as_str()
                .unwrap()
                .contains("--allowed-host")
        );
    }
    for host in [
        "127.0.0.1:8080",
        "localhost:8080",
        "[::1]:8080",
        "192.168.1.5",
    ] {
        let (status, _, _) = send(&state, "GET", "/api/v1/models", &[("host", host)], None).await;
        assert_eq!(status, StatusCode::OK, "{host}");
    }
    let named = AppState {
        guard: Arc::new(Guard::new(
            vec!["bench.example".into()],
            vec![],
            None,
            MAX_REQUEST_BYTES,
            DEFAULT_BODY_TIMEOUT,
        )),
        ..state
    };
    let (status, _, _) = send(
        &named,
        "GET",
        "/api/v1/models",
        &[("host", "bench.example")],
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn the_api_token_is_required_from_clients_and_the_browser_gets_a_session() {
    const TOKEN: &str = "tok-0123456789abcdef";
    let mock = MockUpstream::start(Default::default());
    let (state, _) = state_with(&mock, "boundary-token", "");
    let state = AppState {
        guard: Arc::new(Guard::new(
            vec![],
            vec![],
            Some(ApiToken::new(TOKEN).unwrap()),
            MAX_REQUEST_BYTES,
            DEFAULT_BODY_TIMEOUT,
        )),
        ..state
    };
    let body = json!({"model": "test-model", "messages": [{"role": "user", "content": "hi"}]});
    // Headers a browser page sends prove nothing: they are refused without the token too.
    for headers in [
        vec![],
        vec![("authorization", "Bearer wrong-token-0123456789")],
        vec![
            ("origin", "http://127.0.0.1:8080"),
            ("host", "127.0.0.1:8080"),
            ("sec-fetch-site", "same-origin"),
        ],
    ] {
        let (status, headers_out, text) = send(
            &state,
            "POST",
            "/api/v1/chat/completions",
            &headers,
            Some(body.clone()),
        )
        .await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{headers:?}: {text}");
        assert_eq!(headers_out["www-authenticate"], "Bearer");
        assert_eq!(openai_error(&text)["type"], "authentication_error");
    }
    assert_eq!(mock.calls(), 0);
    let bearer = format!("Bearer {TOKEN}");
    let (status, _, text) = send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &[("authorization", &bearer)],
        Some(body.clone()),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{text}");
    let (status, _, _) = send(&state, "GET", "/api/health", &[], None).await;
    assert_eq!(status, StatusCode::OK, "health needs no token");

    // The browser: /?token=… once sets the session cookie and drops the token from the URL.
    let (status, _, _) = send(&state, "GET", "/?token=wrong-token-0123456789", &[], None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, headers, _) = send(
        &state,
        "GET",
        &format!("/leaderboard/x?tab=charts&token={TOKEN}&b=sas"),
        &[],
        None,
    )
    .await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(headers["location"], "/leaderboard/x?tab=charts&b=sas");
    let set_cookie = headers["set-cookie"].to_str().unwrap();
    assert!(
        set_cookie.contains("HttpOnly") && set_cookie.contains("SameSite=Strict"),
        "{set_cookie}"
    );
    assert!(
        !set_cookie.contains(TOKEN),
        "the cookie holds a hash: {set_cookie}"
    );
    let cookie = set_cookie.split(';').next().unwrap();
    let (status, _, text) = send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &[
            ("cookie", cookie),
            ("origin", "http://127.0.0.1:8080"),
            ("host", "127.0.0.1:8080"),
        ],
        Some(body),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{text}");
}

#[tokio::test]
async fn keys_echoed_by_the_upstream_never_reach_the_client() {
    let evil = Evil::start();
    let (state, dir) = evil.state("boundary-echo");
    let mut stream = chat("echo-model");
    stream["stream"] = json!(true);
    let requests = [
        ("/api/v1/chat/completions", chat("echo-model")),
        ("/api/v1/chat/completions", stream),
        (
            "/api/v1/embeddings",
            json!({"model": "echo-model", "input": "x"}),
        ),
    ];
    for (uri, body) in requests {
        let (status, headers, text) = send(&state, "POST", uri, &[], Some(body.clone())).await;
        let at = format!("{uri} {body}");
        assert_eq!(
            status,
            StatusCode::UNAUTHORIZED,
            "{at}: the upstream's status is kept"
        );
        assert!(!text.contains(KEY), "{at}: {text}");
        assert!(
            headers.get("x-echo").is_none(),
            "{at}: upstream headers stay out"
        );
        for (name, value) in &headers {
            assert!(
                !value
                    .as_bytes()
                    .windows(KEY.len())
                    .any(|w| w == KEY.as_bytes()),
                "{name}"
            );
        }
        assert_eq!(headers["content-type"], "application/json");
        let error = openai_error(&text);
        assert_eq!(
            error["message"], "upstream evil answered 401: invalid key: Bearer *** (key ***)",
            "{at}"
        );
        assert_eq!(error["type"], "invalid_request_error");
        assert_eq!(error["code"], "invalid_api_key");
    }

    // A successful reply that holds the key: masked, in the reply and in the cache.
    let (status, _, text) = send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &[],
        Some(chat("leak-model")),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{text}");
    assert!(
        !text.contains(KEY) && text.contains("your key is ***"),
        "{text}"
    );
    let mut stream = chat("leak-model");
    stream["stream"] = json!(true);
    let (status, headers, text) = send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &[],
        Some(stream),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["content-type"], "text/event-stream");
    assert!(headers.get("x-echo").is_none());
    assert_eq!(
        text,
        "data: {\"choices\":[{\"delta\":{\"content\":\"***\"}}]}\n\ndata: [DONE]\n\n"
    );

    // An HTML error page is not passed on as JSON (nor at all).
    let (status, headers, text) = send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &[],
        Some(chat("html-model")),
    )
    .await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(headers["content-type"], "application/json");
    assert!(!text.contains("<script>") && !text.contains(KEY), "{text}");
    let message = openai_error(&text)["message"].as_str().unwrap().to_string();
    assert!(message.contains("a text/html body of"), "{message}");
    drop(state);
    assert_eq!(
        files_containing(&dir, KEY.as_bytes()),
        Vec::<String>::new(),
        "the key is in no file (database included)"
    );
}

#[tokio::test]
async fn upstream_redirects_are_not_followed_nor_cached() {
    let evil = Evil::start();
    let (state, _) = evil.state("boundary-redirect");
    for round in 1..=2 {
        let (status, _, text) = send(
            &state,
            "POST",
            "/api/v1/chat/completions",
            &[],
            Some(chat("redir-model")),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_GATEWAY, "{text}");
        assert!(!text.contains("STOLEN"));
        let error = openai_error(&text);
        assert_eq!(error["code"], "upstream_redirect");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("redirects are not followed"),
            "{text}"
        );
        assert_eq!(
            evil.calls.load(Ordering::SeqCst),
            round,
            "asked again: not cached"
        );
    }
    let mut stream = chat("redir-model");
    stream["stream"] = json!(true);
    let (status, _, _) = send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &[],
        Some(stream),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_GATEWAY);
    assert_eq!(
        evil.sink_hits.load(Ordering::SeqCst),
        0,
        "the redirect target was never called"
    );
}

#[tokio::test]
async fn every_api_error_has_the_openai_shape() {
    let mock = MockUpstream::start(Default::default());
    let (state, _) = state_with(&mock, "boundary-shape", "");
    let big = "x".repeat(MAX_REQUEST_BYTES + 10);
    let cases: Vec<(&str, &str, Option<Value>, StatusCode)> = vec![
        (
            "POST",
            "/api/v1/chat/completions",
            Some(chat("nope")),
            StatusCode::BAD_REQUEST,
        ),
        (
            "POST",
            "/api/v1/chat/completions",
            Some(json!([1])),
            StatusCode::BAD_REQUEST,
        ),
        (
            "POST",
            "/api/v1/chat/completions",
            Some(chat(&big)),
            StatusCode::PAYLOAD_TOO_LARGE,
        ),
        (
            "GET",
            "/api/v1/chat/completions",
            None,
            StatusCode::METHOD_NOT_ALLOWED,
        ),
        ("GET", "/api/v1/nothing", None, StatusCode::NOT_FOUND),
        ("GET", "/api/v1/runs/nope", None, StatusCode::NOT_FOUND),
        (
            "POST",
            "/api/v1/runs",
            Some(json!({"benchmark": "nope"})),
            StatusCode::BAD_REQUEST,
        ),
    ];
    for (method, uri, body, want) in cases {
        let (status, headers, text) = send(&state, method, uri, &[], body).await;
        assert_eq!(status, want, "{method} {uri}: {text}");
        assert_eq!(
            headers["content-type"], "application/json",
            "{method} {uri}"
        );
        openai_error(&text);
    }
    // A body over the limit without a Content-Length (chunked): the same JSON 413.
    let request = Request::post("/api/v1/chat/completions")
        .header("content-type", "application/json")
        .body(Body::from_stream(futures_util::stream::iter(
            (0..17).map(|_| Ok::<_, std::io::Error>(vec![b' '; 1 << 20])),
        )))
        .unwrap();
    let response = app(state.clone()).oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    openai_error(&String::from_utf8_lossy(&bytes));
    // The official client's pattern: `error.message` says what is wrong.
    let (_, _, text) = send(
        &state,
        "POST",
        "/api/v1/chat/completions",
        &[],
        Some(chat("nope")),
    )
    .await;
    let error = openai_error(&text);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("\"nope\" is not served here")
    );
    assert_eq!(error["type"], "invalid_request_error");
}

#[tokio::test]
async fn request_bodies_are_bounded_in_memory_and_time() {
    let mock = MockUpstream::start(Default::default());
    let (state, _) = state_with(&mock, "boundary-budget", "");
    let budget = 2 * MAX_REQUEST_BYTES;
    let state = AppState {
        guard: Arc::new(Guard::new(
            vec![],
            vec![],
            None,
            budget,
            Duration::from_secs(1),
        )),
        ..state
    };
    let semaphore = state.guard.body_budget.clone();
    assert_eq!(semaphore.available_permits(), budget);
    // A 1 MiB body sent without Content-Length reserves the limit, then keeps only its size
    // while the upstream is asked.
    mock.state.delay_ms.store(500, Ordering::SeqCst);
    let question = "q".repeat(1 << 20);
    let body = json!({"model": "test-model", "messages": [{"role": "user", "content": question}]})
        .to_string();
    let size = body.len();
    let request = Request::post("/api/v1/chat/completions")
        .header("content-type", "application/json")
        .body(Body::from_stream(futures_util::stream::iter([Ok::<
            _,
            std::io::Error,
        >(
            body.into_bytes(),
        )])))
        .unwrap();
    let call = tokio::spawn(app(state.clone()).oneshot(request));
    let started = std::time::Instant::now();
    while mock.calls() == 0 {
        assert!(started.elapsed() < Duration::from_secs(10));
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(
        semaphore.available_permits(),
        budget - size,
        "held while in flight"
    );
    let response = call.await.unwrap().unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(semaphore.available_permits(), budget, "all returned");

    // A body that stops arriving: 408 after the body timeout, its reservation returned.
    let stalled = futures_util::StreamExt::chain(
        futures_util::stream::iter([Ok::<_, std::io::Error>(b"{\"model\":".to_vec())]),
        futures_util::stream::pending(),
    );
    let request = Request::post("/api/v1/chat/completions")
        .header("content-type", "application/json")
        .body(Body::from_stream(stalled))
        .unwrap();
    let started = std::time::Instant::now();
    let response = app(state.clone()).oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::REQUEST_TIMEOUT);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(semaphore.available_permits(), budget);
}
