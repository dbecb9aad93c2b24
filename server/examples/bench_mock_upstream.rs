//! A minimal OpenAI-compatible upstream for `scripts/bench-proxy.sh`: answers every chat
//! completion with the same small reply, at once. Listens on 127.0.0.1 only; prints its URL.
//!
//! `cargo run --release -p server --example bench_mock_upstream [PORT]`

use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

async fn chat(Json(body): Json<Value>) -> Json<Value> {
    Json(json!({
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "model": body["model"],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "YES"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 1, "total_tokens": 21}
    }))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let port: u16 = std::env::args()
        .nth(1)
        .map(|p| p.parse())
        .transpose()?
        .unwrap_or(0);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    println!("mock listening on http://{}/v1", listener.local_addr()?);
    let app = Router::new().route("/v1/chat/completions", post(chat));
    axum::serve(listener, app).await?;
    Ok(())
}
