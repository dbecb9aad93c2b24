//! A mock OpenAI-compatible upstream: a real axum server on 127.0.0.1:0, on its own thread and
//! runtime so both async and blocking tests (which start the real binary) can use it.
//!
//! Replies come from a table keyed by the MSQA `true_false_question` (the text before the
//! instruction suffix) in the golden `mock_api.json` shape: a reply, `{"sequence": [...]}`
//! (successive calls) or `{"raise": msg}` (HTTP 500). Other prompts get "YES". It counts calls
//! (in all and per prompt), records the `Authorization` headers it saw, and fails on demand:
//! queued failures (500, 429, connection reset mid-reply, slow) hit the next calls.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

/// A failure to serve instead of the next reply.
#[derive(Debug, Clone, Copy)]
pub enum Fail {
    Status(u16),
    /// Headers sent, then the connection breaks off mid-body.
    Reset,
    /// Wait this long, then answer normally.
    SlowMs(u64),
}

#[derive(Default)]
pub struct MockState {
    pub table: Mutex<HashMap<String, Value>>,
    pub calls: AtomicUsize,
    pub per_prompt: Mutex<HashMap<String, usize>>,
    pub auth_seen: Mutex<Vec<String>>,
    pub failures: Mutex<VecDeque<Fail>>,
    /// Delay every reply by this many milliseconds.
    pub delay_ms: AtomicU64,
    /// The reply to prompts not in the table (default: content "YES").
    pub default_reply: Mutex<Option<Value>>,
    /// Every call gets its own reply ("YES #k", k = the call's number), so repeated samples of
    /// one prompt can be told apart.
    pub numbered: std::sync::atomic::AtomicBool,
    /// The next number of a numbered reply (its own counter: concurrent calls must not share one).
    pub numbered_next: AtomicU64,
    /// Write each reply's content with every character as a `\uXXXX` JSON escape (a hostile
    /// upstream hiding an echoed key from plain byte matching).
    pub escape_content: std::sync::atomic::AtomicBool,
    /// `/embeddings` answers every input text from this table (an unknown text is a 400).
    pub embedding_table: Mutex<Option<HashMap<String, Value>>>,
}

pub struct MockUpstream {
    pub addr: SocketAddr,
    pub state: Arc<MockState>,
}

impl MockUpstream {
    pub fn start(table: HashMap<String, Value>) -> MockUpstream {
        let state = Arc::new(MockState {
            table: Mutex::new(table),
            ..MockState::default()
        });
        let (tx, rx) = std::sync::mpsc::channel();
        let thread_state = state.clone();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                tx.send(listener.local_addr().unwrap()).unwrap();
                let app = Router::new()
                    .route("/v1/chat/completions", post(chat))
                    .route("/v1/embeddings", post(embeddings))
                    .with_state(thread_state);
                axum::serve(listener, app).await.unwrap();
            });
        });
        let addr = rx.recv().unwrap();
        MockUpstream { addr, state }
    }

    /// From a golden case's `mock_api.json`.
    pub fn from_mock_api(mock_api: &Value) -> MockUpstream {
        let table = mock_api["api_responses_by_true_false_question"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        MockUpstream::start(table)
    }

    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn calls(&self) -> usize {
        self.state.calls.load(Ordering::SeqCst)
    }

    pub fn calls_for(&self, question: &str) -> usize {
        *self
            .state
            .per_prompt
            .lock()
            .unwrap()
            .get(question)
            .unwrap_or(&0)
    }

    pub fn fail_next(&self, fails: &[Fail]) {
        self.state.failures.lock().unwrap().extend(fails);
    }
}

const SUFFIX: &str = "\nYou must answer the question with YES or NO.";

fn question_of(body: &Value) -> String {
    let content = body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default();
    content.split(SUFFIX).next().unwrap_or_default().to_string()
}

fn completion(model: &Value, reply: &Value) -> Value {
    json!({
        "id": "chatcmpl-mock",
        "object": "chat.completion",
        "model": model,
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": reply["content"], "reasoning_content": reply["reasoning_content"]},
            "finish_reason": reply["finish_reason"],
        }],
        "usage": {"prompt_tokens": 10, "completion_tokens": reply["completion_tokens"], "total_tokens": null},
    })
}

async fn common(state: &MockState, headers: &HeaderMap, key: &str) -> Option<Response> {
    state.calls.fetch_add(1, Ordering::SeqCst);
    *state
        .per_prompt
        .lock()
        .unwrap()
        .entry(key.to_string())
        .or_default() += 1;
    if let Some(auth) = headers.get("authorization") {
        state
            .auth_seen
            .lock()
            .unwrap()
            .push(auth.to_str().unwrap().to_string());
    }
    let delay = state.delay_ms.load(Ordering::SeqCst);
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    let fail = state.failures.lock().unwrap().pop_front();
    match fail {
        None => None,
        Some(Fail::SlowMs(ms)) => {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            None
        }
        Some(Fail::Status(code)) => Some(
            (
                StatusCode::from_u16(code).unwrap(),
                Json(json!({"error": {"message": "mock failure"}})),
            )
                .into_response(),
        ),
        Some(Fail::Reset) => {
            let stream = futures_util::stream::iter([
                Ok::<_, std::io::Error>(bytes::Bytes::from_static(b"{\"choices\"")),
                Err(std::io::Error::new(
                    std::io::ErrorKind::ConnectionReset,
                    "reset",
                )),
            ]);
            Some(
                Response::builder()
                    .header("content-type", "application/json")
                    .body(Body::from_stream(stream))
                    .unwrap(),
            )
        }
    }
}

async fn chat(
    State(state): State<Arc<MockState>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    let question = question_of(&body);
    if let Some(failure) = common(&state, &headers, &question).await {
        return failure;
    }
    let n = state.per_prompt.lock().unwrap()[&question];
    if state.numbered.load(Ordering::SeqCst) {
        let k = state.numbered_next.fetch_add(1, Ordering::SeqCst) + 1;
        let reply = json!({"content": format!("YES #{k}"), "reasoning_content": null,
            "finish_reason": "stop", "completion_tokens": 2});
        return Json(completion(&body["model"], &reply)).into_response();
    }
    let entry = state.table.lock().unwrap().get(&question).cloned();
    let reply = match entry {
        None => state.default_reply.lock().unwrap().clone().unwrap_or_else(|| {
            json!({"content": "YES", "reasoning_content": null, "finish_reason": "stop", "completion_tokens": 1})
        }),
        Some(e) if e.get("raise").is_some() => {
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                Json(json!({"error": {"message": e["raise"]}})),
            )
                .into_response();
        }
        Some(e) => match e.get("sequence").and_then(Value::as_array) {
            Some(seq) => seq[(n - 1).min(seq.len() - 1)].clone(),
            None => e,
        },
    };
    let escape = state.escape_content.load(Ordering::SeqCst);
    let content = reply["content"].as_str().unwrap_or_default().to_string();
    if body["stream"].as_bool() == Some(true) {
        let event = json!({"choices": [{"delta": {"content": reply["content"]}}]});
        let chunks: Vec<Result<bytes::Bytes, std::io::Error>> = vec![
            Ok(format!("data: {}\n\n", written(&event, &content, escape)).into()),
            Ok("data: [DONE]\n\n".into()),
        ];
        return Response::builder()
            .header("content-type", "text/event-stream")
            .body(Body::from_stream(futures_util::stream::iter(chunks)))
            .unwrap();
    }
    if escape {
        let text = written(&completion(&body["model"], &reply), &content, true);
        return Response::builder()
            .header("content-type", "application/json")
            .body(Body::from(text))
            .unwrap();
    }
    Json(completion(&body["model"], &reply)).into_response()
}

/// `value` as JSON text, its string `content` written with `\uXXXX` escapes when `escape`.
fn written(value: &Value, content: &str, escape: bool) -> String {
    let text = value.to_string();
    if !escape || content.is_empty() {
        return text;
    }
    let plain = Value::String(content.to_string()).to_string();
    let mut units = [0u16; 2];
    let escaped: String = content
        .chars()
        .flat_map(|c| c.encode_utf16(&mut units).to_vec())
        .map(|u| format!("\\u{u:04x}"))
        .collect();
    text.replacen(&plain, &format!("\"{escaped}\""), 1)
}

async fn embeddings(
    State(state): State<Arc<MockState>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    let input = body["input"].to_string();
    if let Some(failure) = common(&state, &headers, &input).await {
        return failure;
    }
    if let Some(table) = state.embedding_table.lock().unwrap().as_ref() {
        let texts: Vec<&str> = match &body["input"] {
            Value::String(s) => vec![s.as_str()],
            Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let mut data = Vec::new();
        for (index, text) in texts.iter().enumerate() {
            let Some(vector) = table.get(*text) else {
                return (
                    StatusCode::BAD_REQUEST,
                    Json(json!({"error": {"message": "unknown text"}})),
                )
                    .into_response();
            };
            data.push(json!({"object": "embedding", "index": index, "embedding": vector}));
        }
        // Answered out of order: the client must place vectors by `index`.
        data.reverse();
        return Json(
            json!({"object": "list", "data": data, "model": body["model"],
            "usage": {"prompt_tokens": texts.len(), "total_tokens": texts.len()}}),
        )
        .into_response();
    }
    Json(json!({
        "object": "list",
        "data": [{"object": "embedding", "index": 0, "embedding": [0.1, 0.2, input.len() as f64]}],
        "model": body["model"],
        "usage": {"prompt_tokens": 3, "total_tokens": 3},
    }))
    .into_response()
}
