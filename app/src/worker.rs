//! The Web Worker: holds the dropped files, detects their roles, scores them with metrics-core,
//! and runs the paired bootstrap in chunks with progress.
//!
//! Runs in its own wasm instance (`src/bin/worker.rs`, built by Trunk as `worker_loader.js`).

use std::cell::RefCell;

use js_sys::{Array, Uint8Array};
use metrics_core::Report;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};
use workbench::compare::Bootstrap;
use workbench::drill::sample_detail;
use workbench::{Outcome, Role, ScoreOptions, Variant, WorkFile, score_files};

use crate::protocol::{
    CompareView, DetectedView, FileView, FromWorker, HeldFile, OutcomeView, RoleView, ToWorker,
};

/// Most drops (model groups) a restored share may name.
const MAX_MODELS: usize = 4096;

/// Resamples per chunk of the bootstrap; progress is posted after each chunk.
const BOOTSTRAP_CHUNK: usize = 50;

struct Held {
    file: WorkFile,
    /// Index into `State::models`.
    model: usize,
}

struct Scoring {
    /// The files the model's jobs were planned from (shared files + the model's own).
    files: Vec<WorkFile>,
    outcome: Outcome,
}

#[derive(Default)]
struct State {
    files: Vec<Held>,
    models: Vec<String>,
    variant: Variant,
    scored: Vec<Scoring>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
    /// Steps of the current request with when they ended (`Date.now()` ms), sent with `Scored`.
    static PHASES: RefCell<Vec<(String, f64)>> = const { RefCell::new(Vec::new()) };
}

/// Note that a step of the current request ended now.
fn mark(step: &str) {
    PHASES.with_borrow_mut(|p| p.push((step.to_string(), js_sys::Date::now())));
}

/// Gold data every model is scored against (and files not used).
fn is_shared(role: Role) -> bool {
    role.is_shared()
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

/// A message with byte arrays after its JSON, their buffers transferred to the page.
fn send_with_bytes(message: &FromWorker, bytes: &[Uint8Array]) {
    let text = match serde_json::to_string(message) {
        Ok(text) => text,
        Err(e) => {
            return send(&FromWorker::Failed {
                message: format!("cannot encode a worker message: {e}"),
            });
        }
    };
    let parts = Array::new();
    parts.push(&JsValue::from_str(&text));
    let transfer = Array::new();
    for b in bytes {
        parts.push(b);
        transfer.push(&b.buffer());
    }
    if let Err(e) = scope().post_message_with_transfer(&parts, &transfer) {
        web_sys::console::error_2(&"worker: postMessage failed".into(), &e);
    }
}

/// Install the message handler and say `Ready`.
pub fn run() {
    console_error_panic_hook::set_once();
    let handler =
        Closure::<dyn FnMut(MessageEvent)>::new(|event: MessageEvent| handle(event.data()));
    scope().set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    send(&FromWorker::Ready);
}

thread_local! {
    /// Requests waiting while an earlier one awaits WebCrypto: handled one at a time, in order.
    static QUEUE: RefCell<std::collections::VecDeque<JsValue>> = RefCell::default();
    static BUSY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn handle(data: JsValue) {
    QUEUE.with_borrow_mut(|q| q.push_back(data));
    if BUSY.replace(true) {
        return;
    }
    wasm_bindgen_futures::spawn_local(async {
        while let Some(data) = QUEUE.with_borrow_mut(|q| q.pop_front()) {
            handle_one(data).await;
        }
        BUSY.set(false);
    });
}

/// The SHA-256 of `bytes` by WebCrypto (native code on the browser's own threads, while the
/// worker copies and parses): lower-case hex, or `None` where WebCrypto is missing.
fn digest(bytes: &Uint8Array) -> Option<js_sys::Promise> {
    let crypto = js_sys::Reflect::get(&js_sys::global(), &"crypto".into()).ok()?;
    let crypto: web_sys::Crypto = crypto.dyn_into().ok()?;
    crypto
        .subtle()
        .digest_with_str_and_buffer_source("SHA-256", bytes)
        .ok()
}

async fn hex_of(promise: Option<js_sys::Promise>) -> Option<String> {
    let buffer = wasm_bindgen_futures::JsFuture::from(promise?).await.ok()?;
    let bytes = Uint8Array::new(&buffer).to_vec();
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A dropped `File` read chunk by chunk straight into wasm memory (no whole copy in JS),
/// with progress after each chunk counted from `done` of `total` bytes.
async fn read_blob(
    blob: &web_sys::Blob,
    name: &str,
    done: f64,
    total: f64,
) -> Result<Vec<u8>, String> {
    let size = blob.size();
    if size > metrics_core::MAX_FILE_BYTES as f64 {
        return Err(format!(
            "{name}: file is {size} bytes, the limit is {} bytes",
            metrics_core::MAX_FILE_BYTES
        ));
    }
    let mut bytes = vec![0u8; size as usize];
    let mut offset = 0.0;
    while offset < size {
        let end = (offset + WORKER_CHUNK_BYTES).min(size);
        let chunk = blob
            .slice_with_f64_and_f64(offset, end)
            .map_err(|e| format!("{name}: cannot read the file: {e:?}"))?;
        let buffer = wasm_bindgen_futures::JsFuture::from(chunk.array_buffer())
            .await
            .map_err(|e| format!("{name}: cannot read the file: {e:?}"))?;
        let chunk = Uint8Array::new(&buffer);
        if f64::from(chunk.length()) != end - offset {
            return Err(format!("{name}: the file changed while it was read"));
        }
        chunk.copy_to(&mut bytes[offset as usize..end as usize]);
        offset = end;
        send(&FromWorker::Progress {
            stage: "reading".into(),
            done: (done + offset) as usize,
            total: total as usize,
        });
    }
    Ok(bytes)
}

/// Files up to this size are hashed by WebCrypto before scoring (it copies its input: a
/// transient copy this big at most); bigger ones in wasm after the first numbers are out.
const WEBCRYPTO_MAX_BYTES: usize = 256 << 20;

/// Bytes the worker reads per step (fewer awaits than the page's 8 MB; progress after each).
const WORKER_CHUNK_BYTES: f64 = (32u64 << 20) as f64;

/// A view of bytes in wasm memory, for WebCrypto (which copies it before anything else runs).
fn wasm_view(bytes: &[u8]) -> Uint8Array {
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    Uint8Array::new_with_byte_offset_and_length(
        &memory.buffer(),
        bytes.as_ptr() as u32,
        bytes.len() as u32,
    )
}

/// Files of an `AddFiles`/`Restore` request: dropped `File`s read in chunks, byte arrays
/// copied; each hashed by WebCrypto. A file that cannot be read is reported and left out.
async fn received_files(parts: &Array, names: Vec<String>) -> Vec<WorkFile> {
    let items: Vec<JsValue> = (0..names.len()).map(|i| parts.get(i as u32 + 1)).collect();
    let total: f64 = items
        .iter()
        .filter_map(|v| v.dyn_ref::<web_sys::Blob>().map(web_sys::Blob::size))
        .sum();
    let mut done = 0.0;
    let mut files = Vec::with_capacity(names.len());
    for (name, item) in names.into_iter().zip(items) {
        let (bytes, hashing) = match item.dyn_ref::<web_sys::Blob>() {
            Some(blob) => match read_blob(blob, &name, done, total).await {
                Ok(bytes) => {
                    mark("read");
                    done += blob.size();
                    let hashing = (bytes.len() <= WEBCRYPTO_MAX_BYTES)
                        .then(|| digest(&wasm_view(&bytes)))
                        .flatten();
                    (bytes, hashing)
                }
                Err(message) => {
                    send(&FromWorker::Failed { message });
                    continue;
                }
            },
            None => {
                let array = Uint8Array::new(&item);
                let hashing = digest(&array);
                (array.to_vec(), hashing)
            }
        };
        files.push((name, bytes, hashing));
    }
    mark("WebCrypto started");
    let mut out = Vec::with_capacity(files.len());
    for (name, bytes, hashing) in files {
        let file = WorkFile::new(name, bytes);
        out.push(match hex_of(hashing).await {
            Some(sha256) => file.with_sha256(sha256),
            // Hashed later (`hash_pending`); the report says "" until then.
            None if file.bytes.len() > WEBCRYPTO_MAX_BYTES => file.with_sha256(String::new()),
            None => file,
        });
    }
    mark("hashed (WebCrypto)");
    out
}

async fn handle_one(data: JsValue) {
    PHASES.with_borrow_mut(Vec::clear);
    mark("worker received");
    let parts: Array = match data.dyn_into() {
        Ok(parts) => parts,
        Err(_) => {
            return send(&FromWorker::Failed {
                message: "worker: expected an array message".into(),
            });
        }
    };
    let request: ToWorker = match parts.get(0).as_string().map(|t| serde_json::from_str(&t)) {
        Some(Ok(request)) => request,
        Some(Err(e)) => {
            return send(&FromWorker::Failed {
                message: format!("worker: bad request: {e}"),
            });
        }
        None => {
            return send(&FromWorker::Failed {
                message: "worker: request is not text".into(),
            });
        }
    };
    let received = match &request {
        ToWorker::AddFiles { names } => received_files(&parts, names.clone()).await,
        ToWorker::Restore { files, .. } => {
            received_files(&parts, files.iter().map(|f| f.name.clone()).collect()).await
        }
        _ => Vec::new(),
    };
    STATE.with_borrow_mut(|state| match request {
        ToWorker::AddFiles { .. } => {
            let files = received;
            let brings_predictions = files.iter().any(|f| !is_shared(f.role));
            let model = if state.models.is_empty() || brings_predictions {
                state
                    .models
                    .push(format!("model {}", state.models.len() + 1));
                state.models.len() - 1
            } else {
                0
            };
            state
                .files
                .extend(files.into_iter().map(|file| Held { file, model }));
            rescore(state);
        }
        ToWorker::SetRole { index, role } => {
            match (state.files.get_mut(index), Role::from_key(&role)) {
                (Some(held), Some(role)) => held.file.role = role,
                _ => {
                    return send(&FromWorker::Failed {
                        message: format!("worker: no file {index} or no role `{role}`"),
                    });
                }
            }
            rescore(state);
        }
        ToWorker::Remove { index } => {
            if index < state.files.len() {
                state.files.remove(index);
            }
            rescore(state);
        }
        ToWorker::SetVariant { variant } => {
            state.variant = variant;
            rescore(state);
        }
        ToWorker::Clear => {
            *state = State::default();
            rescore(state);
        }
        ToWorker::Snapshot => {
            let files = state
                .files
                .iter()
                .map(|h| HeldFile {
                    name: h.file.name.clone(),
                    role: h.file.role.key().to_string(),
                    model: h.model,
                })
                .collect();
            let bytes: Vec<Uint8Array> = state
                .files
                .iter()
                .map(|h| Uint8Array::from(h.file.bytes.as_slice()))
                .collect();
            send_with_bytes(
                &FromWorker::Snapshot {
                    files,
                    models: state.models.len(),
                },
                &bytes,
            );
        }
        ToWorker::Restore {
            files,
            models,
            variant,
        } => {
            // A share is data from someone else: a bounded number of model names.
            let models = models.clamp(1, MAX_MODELS);
            *state = State {
                models: (1..=models).map(|i| format!("model {i}")).collect(),
                variant,
                ..State::default()
            };
            for (held, mut file) in files.into_iter().zip(received) {
                // The role the sender gave it (a correction included); detection otherwise.
                if let Some(role) = Role::from_key(&held.role) {
                    file.role = role;
                }
                state.files.push(Held {
                    file,
                    model: held.model.min(models - 1),
                });
            }
            rescore(state);
        }
        ToWorker::Detail { outcome, index } => {
            let detail = match state.scored.get(outcome) {
                Some(s) => sample_detail(&s.files, &s.outcome, index).map_err(|e| e.to_string()),
                None => Err(format!("no scored job {outcome}")),
            };
            send(&FromWorker::Detail {
                outcome,
                index,
                detail,
            });
        }
        ToWorker::Compare {
            a,
            b,
            seed,
            resamples,
        } => {
            let result = compare(state, a, b, seed, resamples);
            send(&FromWorker::Compared { a, b, result });
        }
    });
}

fn rescore(state: &mut State) {
    let files = state
        .files
        .iter()
        .enumerate()
        .map(|(index, h)| {
            let detected = h.file.detect();
            FileView {
                index,
                name: h.file.name.clone(),
                size_bytes: h.file.bytes.len(),
                detected: DetectedView {
                    benchmark: detected.benchmark,
                    role: detected.role.key().to_string(),
                    confidence: detected.confidence,
                    why: detected.why,
                },
                role: h.file.role.key().to_string(),
                model: if is_shared(h.file.role) {
                    "shared".into()
                } else {
                    state.models[h.model].clone()
                },
            }
        })
        .collect();
    let roles = Role::all()
        .into_iter()
        .map(|r| RoleView {
            key: r.key().to_string(),
            label: r.label().to_string(),
        })
        .collect();
    send(&FromWorker::Files { files, roles });
    mark("files detected");
    score(state);
}

fn model_files(state: &State, model: usize) -> Vec<WorkFile> {
    state
        .files
        .iter()
        .filter(|h| h.model == model || is_shared(h.file.role))
        .map(|h| h.file.clone())
        .collect()
}

fn score(state: &mut State) {
    let start = js_sys::Date::now();
    send(&FromWorker::Progress {
        stage: "scoring".into(),
        done: 0,
        total: 1,
    });
    let mut models: Vec<usize> = (0..state.models.len())
        .filter(|&m| {
            state
                .files
                .iter()
                .any(|h| h.model == m && !is_shared(h.file.role))
        })
        .collect();
    if models.is_empty() && !state.models.is_empty() {
        models.push(0);
    }
    let options = ScoreOptions {
        variant: state.variant,
    };
    let mut scored = Vec::new();
    let mut views = Vec::new();
    for model in models {
        let files = model_files(state, model);
        let outcomes = score_files(&files, &options);
        mark("parsed, scored");
        for outcome in outcomes {
            // The official numbers beside a corrected variant, for highlighting changed cells:
            // `rescore` reuses the parsed records (SAS-Bench) instead of parsing every file again.
            let official = (outcome.variant != Variant::Official)
                .then(|| workbench::rescore(&files, &outcome, Variant::Official))
                .and_then(|o| o.report().cloned());
            let (table, changed) = match outcome.report() {
                Some(report) => (
                    Some(workbench::table(report)),
                    official
                        .as_ref()
                        .map(|o| workbench::changed_cells(o, report))
                        .unwrap_or_default(),
                ),
                None => (None, Vec::new()),
            };
            mark("table");
            let benchmark = outcome.job.benchmark();
            let (charts, class) = match (benchmark, &outcome.result) {
                (Some(b), Ok(scored)) => (b.charts(scored, outcome.variant), b.class(scored)),
                _ => (Vec::new(), None),
            };
            mark("charts and class view");
            views.push(OutcomeView {
                id: views.len(),
                model: state.models[model].clone(),
                title: outcome.job.title.clone(),
                benchmark: outcome.job.benchmark.to_string(),
                variant: outcome.variant,
                variants: benchmark.map(Variant::available).unwrap_or_default(),
                files: outcome
                    .job
                    .file_indices()
                    .into_iter()
                    .filter_map(|i| files.get(i))
                    .map(|f| f.name.clone())
                    .collect(),
                // The report without its samples (they travel as rows), not cloned with them.
                result: match &outcome.result {
                    Ok(scored) => Ok(without_samples(&scored.report)),
                    Err(e) => Err(e.clone()),
                },
                table,
                changed,
                rows: Vec::new(),
                class,
                charts,
            });
            scored.push(Scoring {
                files: files.clone(),
                outcome,
            });
        }
    }
    state.scored = scored;
    mark("views built");
    send(&FromWorker::Scored {
        variant: state.variant,
        outcomes: views,
        elapsed_ms: js_sys::Date::now() - start,
        phases: PHASES.with_borrow_mut(std::mem::take),
    });
    // The rows the samples and charts tabs draw, after the table is on its way.
    for (outcome, s) in state.scored.iter().enumerate() {
        if let Some(report) = s.outcome.report() {
            let rows = serde_json::to_vec(&workbench::sample_rows(report)).unwrap_or_default();
            send_with_bytes(
                &FromWorker::Rows { outcome },
                &[Uint8Array::from(&rows[..])],
            );
        }
    }
    hash_pending(state);
}

/// Hash the files left for later (too big for WebCrypto's copy) and fill their hash into the
/// reports, here and on the page.
fn hash_pending(state: &mut State) {
    for held in &mut state.files {
        if held.file.sha256.as_deref() != Some("") {
            continue;
        }
        let sha256 = metrics_core::InputFile::from_bytes("", &held.file.bytes).sha256;
        held.file.sha256 = Some(sha256.clone());
        for s in &mut state.scored {
            if let Ok(scored) = &mut s.outcome.result {
                for input in &mut scored.report.inputs {
                    if input.path == held.file.name && input.sha256.is_empty() {
                        input.sha256 = sha256.clone();
                    }
                }
            }
        }
        send(&FromWorker::Hashed {
            name: held.file.name.clone(),
            sha256,
        });
    }
}

/// A report without its samples, copied without copying them.
fn without_samples(report: &Report) -> Report {
    Report {
        benchmark: report.benchmark.clone(),
        variant: report.variant.clone(),
        inputs: report.inputs.clone(),
        overall: report.overall.clone(),
        subsets: report.subsets.clone(),
        warnings: report.warnings.clone(),
        samples: None,
    }
}

fn compare(
    state: &State,
    a: usize,
    b: usize,
    seed: u64,
    resamples: usize,
) -> Result<CompareView, String> {
    let scored = |i: usize| {
        let s = state
            .scored
            .get(i)
            .ok_or_else(|| format!("no scored job {i}"))?;
        s.outcome
            .result
            .as_ref()
            .map_err(|e| format!("job {i} did not score: {e}"))
    };
    let (sa, sb) = (scored(a)?, scored(b)?);
    let variant = state.scored[a].outcome.variant;
    let mut bootstrap =
        Bootstrap::new(sa, sb, variant, seed, resamples).map_err(|e| e.to_string())?;
    while !bootstrap.is_done() {
        let p = bootstrap.step(BOOTSTRAP_CHUNK);
        send(&FromWorker::Progress {
            stage: "bootstrap".into(),
            done: p.done,
            total: p.total,
        });
    }
    Ok(CompareView {
        seed,
        resamples,
        aligned_records: bootstrap.aligned_records,
        intervals: bootstrap.finish(),
    })
}
