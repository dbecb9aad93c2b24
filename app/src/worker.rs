//! The Web Worker: holds the dropped files, detects their roles, scores them with metrics-core.
//!
//! Runs in its own wasm instance (`src/bin/worker.rs`, built by Trunk as `worker_loader.js`).

use std::cell::RefCell;

use js_sys::{Array, Uint8Array};
use metrics_core::workbench::{ScoreOptions, Variant, WorkFile, score_files};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use crate::protocol::{FileView, FromWorker, OutcomeView, ToWorker};

#[derive(Default)]
struct State {
    files: Vec<WorkFile>,
    variant: Variant,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn send(message: &FromWorker) {
    let text = serde_json::to_string(message).unwrap_or_else(|e| {
        format!("{{\"type\":\"failed\",\"message\":\"cannot encode a worker message: {e}\"}}")
    });
    if let Err(e) = scope().post_message(&JsValue::from_str(&text)) {
        web_sys::console::error_2(&"worker: postMessage failed".into(), &e);
    }
}

fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// Install the message handler and say `Ready`.
pub fn run() {
    console_error_panic_hook::set_once();
    let handler = Closure::<dyn FnMut(MessageEvent)>::new(|event: MessageEvent| handle(event.data()));
    scope().set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    send(&FromWorker::Ready);
}

fn handle(data: JsValue) {
    let parts: Array = match data.dyn_into() {
        Ok(parts) => parts,
        Err(_) => return send(&FromWorker::Failed { message: "worker: expected an array message".into() }),
    };
    let request: ToWorker = match parts.get(0).as_string().map(|t| serde_json::from_str(&t)) {
        Some(Ok(request)) => request,
        Some(Err(e)) => return send(&FromWorker::Failed { message: format!("worker: bad request: {e}") }),
        None => return send(&FromWorker::Failed { message: "worker: request is not text".into() }),
    };
    STATE.with_borrow_mut(|state| {
        match request {
            ToWorker::AddFiles { names } => {
                for (i, name) in names.into_iter().enumerate() {
                    let bytes = Uint8Array::new(&parts.get(i as u32 + 1)).to_vec();
                    state.files.push(WorkFile::new(name, bytes));
                }
            }
            ToWorker::SetRole { index, role } => {
                if let Some(file) = state.files.get_mut(index) {
                    file.role = role;
                }
            }
            ToWorker::Remove { index } => {
                if index < state.files.len() {
                    state.files.remove(index);
                }
            }
            ToWorker::SetVariant { variant } => state.variant = variant,
            ToWorker::Clear => state.files.clear(),
        }
        send(&FromWorker::Files { files: file_views(&state.files) });
        score(state);
    });
}

fn file_views(files: &[WorkFile]) -> Vec<FileView> {
    files
        .iter()
        .enumerate()
        .map(|(index, f)| FileView {
            index,
            name: f.name.clone(),
            size_bytes: f.bytes.len(),
            detected: f.detect(),
            role: f.role,
        })
        .collect()
}

fn score(state: &State) {
    let start = now_ms();
    send(&FromWorker::Progress { stage: "scoring".into(), done: 0, total: 1 });
    let options = ScoreOptions { variant: state.variant, ..ScoreOptions::default() };
    let outcomes = score_files(&state.files, &options);
    let official = (state.variant != Variant::Official)
        .then(|| score_files(&state.files, &ScoreOptions::default()));
    let views = outcomes
        .into_iter()
        .enumerate()
        .map(|(id, outcome)| {
            let benchmark = outcome.job.benchmark;
            let official_report = official
                .as_ref()
                .and_then(|o| o.get(id))
                .and_then(|o| o.report().cloned());
            OutcomeView {
                id,
                title: outcome.job.title.clone(),
                benchmark,
                variant: outcome.variant,
                variants: Variant::available(benchmark),
                files: outcome.job.files().into_iter().filter_map(|i| state.files.get(i)).map(|f| f.name.clone()).collect(),
                result: outcome.result.map(|scored| scored.report),
                official: official_report,
            }
        })
        .collect();
    send(&FromWorker::Scored { variant: state.variant, outcomes: views, elapsed_ms: now_ms() - start });
}
