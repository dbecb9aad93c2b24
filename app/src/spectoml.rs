//! Benchmark specs' TOML, read and written in a wasm module of its own (`src/bin/spectoml.rs`,
//! built by Trunk as `spectoml_loader.js`): the scoring worker starts it when a spec comes (a
//! dropped `.toml`, the specs kept in this browser, a board's published spec, the form's "save")
//! and ends it after, so neither the page nor the scoring worker carries a TOML parser. The
//! reading is `workbench::spec_toml`'s, the CLI's and the server's: the same errors, at the spec
//! file's line; scoring stays in the scoring worker.
//!
//! ```text
//! worker → module   "ready" first; then JSON [SpecRequest, …]
//! module → worker   JSON [SpecAnswer, …], one per request, in order
//! ```

use metrics_core::spec::Spec;
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// What the scoring worker asks the module.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SpecRequest {
    /// Parse and check a spec file's text (`name` names it in errors).
    Read { name: String, text: String },
    /// Write a spec as TOML.
    Write(Spec),
}

/// The module's answer to one request.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SpecAnswer {
    Spec(Spec),
    Toml(String),
    /// Why not (a reading error names the file and line).
    Error(String),
}

/// One request answered (the module's work).
pub fn answer(request: SpecRequest) -> SpecAnswer {
    match request {
        SpecRequest::Read { name, text } => match workbench::spec_toml::parse(&name, &text) {
            Ok(spec) => SpecAnswer::Spec(spec),
            Err(e) => SpecAnswer::Error(e.to_string()),
        },
        SpecRequest::Write(spec) => match workbench::spec_toml::write(&spec) {
            Ok(text) => SpecAnswer::Toml(text),
            Err(e) => SpecAnswer::Error(e),
        },
    }
}

/// The module's entry point (`src/bin/spectoml.rs`).
pub fn worker_main() {
    console_error_panic_hook::set_once();
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply_to = scope.clone();
    let handler =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            let answers: Vec<SpecAnswer> = match event
                .data()
                .as_string()
                .map(|t| serde_json::from_str::<Vec<SpecRequest>>(&t))
            {
                Some(Ok(requests)) => requests.into_iter().map(answer).collect(),
                Some(Err(e)) => vec![SpecAnswer::Error(format!("bad request: {e}"))],
                None => vec![SpecAnswer::Error("the request is not text".into())],
            };
            let text = serde_json::to_string(&answers).unwrap_or_default();
            let _ = reply_to.post_message(&JsValue::from_str(&text));
        });
    scope.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    let _ = scope.post_message(&"ready".into());
}

/// Longest wait for the module: its start (download, compile) and its answer.
const SILENT_MS: i32 = 30_000;

/// What the timer rejects with.
const TIMED_OUT: &str = "timed out";

/// The next message of `worker` (its data), or why none came (it failed to load or threw, or
/// said nothing for [`SILENT_MS`]). The handlers are set when this is called, not when it is
/// first awaited; only the scoring worker calls it.
fn next_message(
    worker: &web_sys::Worker,
) -> impl std::future::Future<Output = Result<JsValue, String>> + use<> {
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        worker.set_onmessage(Some(&resolve));
        worker.set_onerror(Some(&reject));
        // A module whose wasm fails to start says nothing: the wait ends anyway.
        let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        let _ = scope.set_timeout_with_callback_and_timeout_and_arguments_1(
            &reject,
            SILENT_MS,
            &TIMED_OUT.into(),
        );
    });
    let event = wasm_bindgen_futures::JsFuture::from(promise);
    async move { message_of(event.await) }
}

fn message_of(event: Result<JsValue, JsValue>) -> Result<JsValue, String> {
    let event = event.map_err(|e| {
        if e.as_string().as_deref() == Some(TIMED_OUT) {
            return format!("the spec reader did not answer in {} s", SILENT_MS / 1000);
        }
        let why = e
            .dyn_ref::<web_sys::ErrorEvent>()
            .map(web_sys::ErrorEvent::message)
            .unwrap_or_else(|| format!("{e:?}"));
        format!("the spec reader failed: {why}")
    })?;
    Ok(event
        .dyn_into::<web_sys::MessageEvent>()
        .map(|e| e.data())
        .unwrap_or(JsValue::UNDEFINED))
}

/// Start the module, have it answer `requests` (one answer each, in order) and end it.
pub async fn ask(requests: &[SpecRequest]) -> Result<Vec<SpecAnswer>, String> {
    let text = serde_json::to_string(requests).map_err(|e| format!("cannot send a spec: {e}"))?;
    let worker = web_sys::Worker::new("/spectoml_loader.js")
        .map_err(|e| format!("cannot start the spec reader: {e:?}"))?;
    let result = async {
        let ready = next_message(&worker).await?;
        if ready.as_string().as_deref() != Some("ready") {
            return Err("the spec reader did not start".to_string());
        }
        let reply = next_message(&worker);
        worker
            .post_message(&JsValue::from_str(&text))
            .map_err(|e| format!("cannot reach the spec reader: {e:?}"))?;
        let reply = reply.await?;
        let answers: Vec<SpecAnswer> = reply
            .as_string()
            .and_then(|t| serde_json::from_str(&t).ok())
            .ok_or("the spec reader's answer is not JSON")?;
        if answers.len() != requests.len() {
            return Err(match answers.into_iter().next() {
                Some(SpecAnswer::Error(why)) => why,
                _ => "the spec reader answered something else".into(),
            });
        }
        Ok(answers)
    }
    .await;
    worker.terminate();
    result
}
