//! The Web Worker: holds the dropped files, detects their roles, scores them with metrics-core,
//! and runs the paired bootstrap in chunks with progress.
//!
//! Runs in its own wasm instance (`src/bin/worker.rs`, built by Trunk as `worker_loader.js`).

mod in_part;

use std::cell::RefCell;

use js_sys::{Array, Uint8Array};
use metrics_core::Report;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};
use workbench::compare::sample_diff;
use workbench::detect::DETECT_HEAD_BYTES;
use workbench::drill::Filter;
use workbench::prepare::Preparing;
use workbench::samples::{filter_report, page, sample_detail, sample_rows, summarize};
use workbench::session::Prepared;
use workbench::spec_form::{fields_of, first_draft, is_spec_file};
use workbench::spec_toml::MAX_SPEC_BYTES;
use workbench::workspace::Workspace;
use workbench::{Role, WorkFile};

use crate::protocol::{
    CompareView, DetectedView, FileView, FromWorker, HeldFile, OutcomeView, RoleView, SavedSpec,
    SpecPreview, ToWorker,
};
use crate::spectoml::{SpecAnswer, SpecRequest, ask};
use crate::webcrypto::{WEBCRYPTO_MAX_BYTES, digest, hex_of};

/// Resamples per chunk of the bootstrap; progress is posted after each chunk.
const BOOTSTRAP_CHUNK: usize = 50;

/// The worker's state between messages: the workspace (files, models, variant, scored jobs;
/// its rules are `workbench::workspace`'s) and what the messages need besides.
#[derive(Default)]
struct State {
    ws: Workspace,
    /// `ws.scored` changed and the page has not been told yet (`publish`).
    unpublished: bool,
    /// When the current scoring started (`Date.now()` ms).
    started: f64,
    /// The last filtered rows asked for: (outcome, filter, sample indices that pass), so that
    /// scrolling through them does not filter again.
    filtered: Option<(usize, Filter, Vec<usize>)>,
}

/// Most rows one `Rows` answer carries.
const MAX_PAGE_ROWS: usize = 1000;

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
    /// Steps of the current request with when they ended (`Date.now()` ms), sent with `Scored`.
    static PHASES: RefCell<Vec<(String, f64)>> = const { RefCell::new(Vec::new()) };
}

/// Note that a step of the current request ended now.
fn mark(step: &str) {
    PHASES.with_borrow_mut(|p| p.push((step.to_string(), js_sys::Date::now())));
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

/// Disputed essays the norming panel lists (the rest are counted).
const DISPUTED_SHOWN: usize = 20;

fn send(message: &FromWorker) {
    let text = serde_json::to_string(message).unwrap_or_else(|e| {
        // A `Failed` holds one string: encoding it cannot fail too.
        let failed = FromWorker::Failed {
            message: format!("cannot encode a worker message: {e}"),
        };
        serde_json::to_string(&failed).unwrap_or_default()
    });
    if WARMING_UP.get() {
        // A warm-up that fails does nothing for the first drop: said where a developer looks.
        if let FromWorker::Failed { message } = message {
            web_sys::console::debug_2(&"worker warm-up:".into(), &JsValue::from_str(message));
        }
        return;
    }
    if let Err(e) = scope().post_message(&JsValue::from_str(&text)) {
        web_sys::console::error_2(&"worker: postMessage failed".into(), &e);
    }
}

/// A message with byte arrays after its JSON, their buffers transferred to the page.
fn send_with_bytes(message: &FromWorker, bytes: &[JsValue]) {
    let text = match serde_json::to_string(message) {
        Ok(text) => text,
        Err(e) => {
            return send(&FromWorker::Failed {
                message: format!("cannot encode a worker message: {e}"),
            });
        }
    };
    if WARMING_UP.get() {
        return;
    }
    let parts = Array::new();
    parts.push(&JsValue::from_str(&text));
    let transfer = Array::new();
    // Byte arrays are transferred; a `File` (one read in part) is posted as it is.
    for b in bytes {
        parts.push(b);
        if let Some(array) = b.dyn_ref::<Uint8Array>() {
            transfer.push(&array.buffer());
        }
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
    READER.with_borrow_mut(|r| *r = Reader::start());
    send(&FromWorker::Ready);
    // Requests that come meanwhile wait in the queue; the warm-up gives way to them.
    BUSY.set(true);
    wasm_bindgen_futures::spawn_local(async {
        warm_up().await;
        send(&FromWorker::Warm);
        handle_queued().await;
    });
}

/// A request came while the worker warms up: the warm-up stops where it can. The requests the
/// page sends as the worker starts (its kept specs, its chosen variant) wait for it instead.
fn warm_up_gives_way() -> bool {
    WARMING_UP.get() && QUEUE.with_borrow(|q| q.iter().any(|data| !is_start_up(data)))
}

/// `AddSpecs` or `SetVariant`: what `WorkbenchState::wake` sends a worker it starts.
fn is_start_up(data: &JsValue) -> bool {
    let text = data
        .dyn_ref::<Array>()
        .and_then(|parts| parts.get(0).as_string());
    matches!(
        text.map(|t| serde_json::from_str::<ToWorker>(&t)),
        Some(Ok(ToWorker::AddSpecs { .. } | ToWorker::SetVariant { .. }))
    )
}

thread_local! {
    /// Requests waiting while an earlier one is handled: one at a time, in order.
    static QUEUE: RefCell<std::collections::VecDeque<JsValue>> = RefCell::default();
    static BUSY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The worker runs its warm-up ([`warm_up`]): messages are encoded, not sent.
    static WARMING_UP: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn handle(data: JsValue) {
    QUEUE.with_borrow_mut(|q| q.push_back(data));
    if BUSY.replace(true) {
        return;
    }
    wasm_bindgen_futures::spawn_local(handle_queued());
}

async fn handle_queued() {
    while let Some(data) = QUEUE.with_borrow_mut(|q| q.pop_front()) {
        handle_one(data).await;
    }
    BUSY.set(false);
}

/// V8 compiles a wasm function when it is first called (fast code for the parts that turn out
/// hot, later, on the machine's other threads), and a call runs to its end in the code it
/// started with: a fresh page's first dropped file paid for that compiling (measured, 100k
/// gold/pred records in fresh browsers: 38–59 ms to parse the first 1 MB slice, the scoring
/// about twice its later time, the compiling taking a core from the reading). So once it
/// listens (`Ready`), the worker takes a generated gold/pred file down a drop's path — read by
/// the reader worker in slices, detected, parsed, scored, the views and the charts' data
/// built, hashed — tells the page nothing of it, forgets it and says `Warm` (the page's
/// `data-ready`). A request that comes meanwhile does not wait for it: the warm-up stops at
/// its next slice or before its scoring ([`warm_up_gives_way`]).
async fn warm_up() {
    WARMING_UP.set(true);
    // A hundred records made, the file of their copies (made fast: it is the worker's time).
    let block: String = (0..100)
        .map(|i| {
            format!(
                "{{\"id\": \"w{i}\", \"gold\": {}, \"pred\": {}, \"reply\": \"这是 a \\\"reply\\\".\"}}\n",
                i % 5,
                (i * 7 + i / 3) % 5
            )
        })
        .collect();
    let text = block.repeat(WARM_UP_RECORDS / 100);
    let request = serde_json::to_string(&ToWorker::AddFiles {
        names: vec!["warm-up.jsonl".into()],
    });
    let blob = web_sys::Blob::new_with_str_sequence(&Array::of1(&JsValue::from_str(&text)));
    if let (Ok(request), Ok(blob)) = (request, blob) {
        handle_one(Array::of2(&JsValue::from_str(&request), &blob).into()).await;
    }
    STATE.with_borrow_mut(|state| *state = State::default());
    UNREAD.with_borrow_mut(Vec::clear);
    PHASES.with_borrow_mut(Vec::clear);
    in_part::let_go();
    WARMING_UP.set(false);
}

/// Records of the warm-up file (~68 bytes each: 1.7 MB, two of the reader's slices).
const WARM_UP_RECORDS: usize = 25_000;

/// A dropped `File`'s bytes, read by the reader worker ([`read_beside`]) or, without one, here
/// ([`read_here`]), with progress counted from `done` of `total` bytes, and the records its
/// benchmark parsed from the lines between slices ([`Preparing`]).
async fn read_dropped(
    blob: &web_sys::Blob,
    name: &str,
    done: f64,
    total: f64,
) -> Result<Read, String> {
    let size = blob.size();
    if size > metrics_core::MAX_FILE_BYTES as f64 {
        return Err(format!(
            "{name}: file is {size} bytes, the limit is {} bytes",
            metrics_core::MAX_FILE_BYTES
        ));
    }
    // An archive of which its benchmark scores some entries only (an Inspect .eval): those.
    if workbench::prepare::may_read_in_part(name)
        && let Some(read) = in_part::read(blob, name).await?
    {
        send(&FromWorker::Progress {
            stage: "reading".into(),
            done: (done + size) as usize,
            total: total as usize,
        });
        mark("read in part");
        return Ok(Read::InPart(read));
    }
    let filling = Filling::new(name, size as usize, done, total);
    match read_beside(blob, filling).await {
        Ok(read) => read,
        Err(filling) => read_here(blob, filling).await,
    }
}

/// A dropped file, read.
enum Read {
    /// Its bytes, and the records parsed while it was read (when its benchmark has a reader
    /// and they were all good).
    Whole(Vec<u8>, Option<Prepared>),
    /// Its records, parsed while it was read; its bytes, still in the slices the browser gave,
    /// go into wasm memory after the numbers ([`fill_unread`]).
    Later {
        head: Vec<u8>,
        prepared: Prepared,
        slices: Vec<Uint8Array>,
    },
    /// The entries of an archive its scoring reads ([`crate::in_part`]).
    InPart(in_part::Read),
}

/// Largest file whose slices are kept until after its numbers ([`Read::Later`]): such a file
/// is held twice for a moment (its slices and wasm memory), so a bigger one goes straight into
/// wasm memory, as its slices come.
const LATER_MAX_BYTES: usize = 256 << 20;

/// A dropped file's bytes as its slices come, in order, with progress after each and the
/// complete lines parsed between them. Where the file has a reader and is at most
/// [`LATER_MAX_BYTES`], the slices are kept as they came and only the bytes not parsed yet are
/// in wasm memory (the numbers do not wait for a file-sized buffer); otherwise each slice is
/// copied into one buffer of the file's size (no whole copy in JS).
struct Filling<'a> {
    name: &'a str,
    size: usize,
    filled: usize,
    preparing: Option<Preparing>,
    kept: Kept,
    done: f64,
    total: f64,
}

enum Kept {
    /// No slice yet.
    Nothing,
    /// The file's bytes so far, of which `given` went to the reader.
    Whole { bytes: Vec<u8>, given: usize },
    /// The slices so far, the detection head, and the bytes read and not given to the reader.
    Slices {
        slices: Vec<Uint8Array>,
        head: Vec<u8>,
        unread: Unread,
    },
}

/// The bytes read and not given to the reader yet: `bytes[..held]`, in a buffer written over
/// slice after slice. Neither zeroed per slice (`Vec::resize` zeroes a byte at a time in this
/// crate, built for size) nor new per slice (fresh wasm memory costs its first touch): the
/// slices of a 100 MB file took 116–146 ms to copy with `resize`, 54–91 ms this way (measured
/// in fresh browsers, 2026-11-28).
struct Unread {
    bytes: Vec<u8>,
    held: usize,
    /// The file's size: the buffer is never made bigger than the file needs.
    size: usize,
}

impl Unread {
    fn for_file(size: usize) -> Self {
        Self {
            bytes: Vec::new(),
            held: 0,
            size,
        }
    }

    /// Append `chunk`.
    fn push(&mut self, chunk: &Uint8Array) {
        let end = self.held + chunk.length() as usize;
        if end > self.bytes.len() {
            // Once at the reader's slice size and a line more; bigger only for a longer line
            // or slices (fresh memory costs its first touch: not grown step by step).
            let size = end
                .max(self.bytes.len() * 2)
                .max(UNREAD_BYTES.min(self.size));
            let mut bigger = vec![0u8; size];
            bigger[..self.held].copy_from_slice(&self.bytes[..self.held]);
            self.bytes = bigger;
        }
        chunk.copy_to(&mut self.bytes[self.held..end]);
        self.held = end;
    }

    fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.held]
    }

    /// Drop the first `took` bytes (given to the reader); the rest moves to the front.
    fn consume(&mut self, took: usize) {
        self.bytes.copy_within(took..self.held, 0);
        self.held -= took;
    }
}

impl<'a> Filling<'a> {
    fn new(name: &'a str, size: usize, done: f64, total: f64) -> Self {
        Self {
            name,
            size,
            filled: 0,
            preparing: None,
            kept: Kept::Nothing,
            done,
            total,
        }
    }

    fn changed(&self) -> String {
        format!("{}: the file changed while it was read", self.name)
    }

    /// The next slice.
    fn push(&mut self, chunk: &Uint8Array) -> Result<(), String> {
        let end = self.filled + chunk.length() as usize;
        if end > self.size {
            return Err(self.changed());
        }
        send(&FromWorker::Progress {
            stage: "reading".into(),
            done: (self.done + end as f64) as usize,
            total: self.total as usize,
        });
        let last = end == self.size;
        if let Kept::Nothing = self.kept {
            let first = chunk.to_vec();
            self.preparing = Preparing::start(self.name, &first);
            self.kept = match &self.preparing {
                Some(_) if self.size <= LATER_MAX_BYTES => Kept::Slices {
                    slices: Vec::new(),
                    head: first[..first.len().min(DETECT_HEAD_BYTES)].to_vec(),
                    unread: Unread::for_file(self.size),
                },
                _ => Kept::Whole {
                    bytes: vec![0u8; self.size],
                    given: 0,
                },
            };
        }
        let unread = match &mut self.kept {
            Kept::Nothing => return Err(self.changed()),
            Kept::Whole { bytes, given } => {
                chunk.copy_to(&mut bytes[self.filled..end]);
                Unfed::Whole(&bytes[..end], given)
            }
            Kept::Slices { slices, unread, .. } => {
                slices.push(chunk.clone());
                // Once the reader gave up, the slices are all that is kept.
                if self.preparing.is_some() {
                    unread.push(chunk);
                }
                Unfed::Slices(unread)
            }
        };
        self.filled = end;
        let Some(preparing) = self.preparing.take() else {
            return Ok(());
        };
        self.preparing = match unread {
            Unfed::Whole(read, given) => {
                preparing.advance(&read[*given..], last).map(|(p, took)| {
                    *given += took;
                    p
                })
            }
            Unfed::Slices(unread) => preparing.advance(unread.as_slice(), last).map(|(p, took)| {
                unread.consume(took);
                p
            }),
        };
        Ok(())
    }

    fn finish(self) -> Result<Read, String> {
        if self.filled != self.size {
            return Err(self.changed());
        }
        let prepared = self.preparing.and_then(Preparing::finish);
        Ok(match (self.kept, prepared) {
            (Kept::Nothing, _) => Read::Whole(Vec::new(), None),
            (Kept::Whole { bytes, .. }, prepared) => Read::Whole(bytes, prepared),
            (Kept::Slices { slices, head, .. }, Some(prepared)) => Read::Later {
                head,
                prepared,
                slices,
            },
            // The reader gave up: scoring reads the text (and says what is wrong with it).
            (Kept::Slices { slices, .. }, None) => Read::Whole(joined(&slices, self.size), None),
        })
    }
}

/// Where the bytes not given to the reader are.
enum Unfed<'b> {
    Whole(&'b [u8], &'b mut usize),
    Slices(&'b mut Unread),
}

/// Slices of `size` bytes in all, copied into one buffer in wasm memory.
fn joined(slices: &[Uint8Array], size: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; size];
    let mut at = 0;
    for slice in slices {
        let end = at + slice.length() as usize;
        slice.copy_to(&mut bytes[at..end]);
        at = end;
    }
    bytes
}

/// Read here, without a reader worker: slices of [`WORKER_CHUNK_BYTES`], [`READS_AHEAD`] of
/// them asked for at once (the browser moves them on only while this thread waits).
async fn read_here(blob: &web_sys::Blob, mut filling: Filling<'_>) -> Result<Read, String> {
    let (size, name) = (blob.size(), filling.name);
    let ask = |offset: f64| -> Result<(wasm_bindgen_futures::JsFuture, f64), String> {
        let end = (offset + WORKER_CHUNK_BYTES).min(size);
        let chunk = blob
            .slice_with_f64_and_f64(offset, end)
            .map_err(|e| format!("{name}: cannot read the file: {e:?}"))?;
        Ok((chunk.array_buffer().into(), end))
    };
    let mut asked = 0.0;
    let mut in_flight = std::collections::VecDeque::new();
    while asked < size && in_flight.len() < READS_AHEAD {
        let (read, end) = ask(asked)?;
        asked = end;
        in_flight.push_back(read);
    }
    while let Some(reading) = in_flight.pop_front() {
        if warm_up_gives_way() {
            return Err(format!("{name}: the warm-up gave way to a request"));
        }
        if asked < size {
            let (read, end) = ask(asked)?;
            asked = end;
            in_flight.push_back(read);
        }
        let buffer = reading
            .await
            .map_err(|e| format!("{name}: cannot read the file: {e:?}"))?;
        filling.push(&Uint8Array::new(&buffer))?;
    }
    filling.finish()
}

/// Bytes read per slice without a reader worker.
const WORKER_CHUNK_BYTES: f64 = (32u64 << 20) as f64;

/// Slices asked for at once without a reader worker.
const READS_AHEAD: usize = 2;

/// The reader worker (`public/read-worker.js`) and the messages it sent that were not taken yet.
struct Reader {
    worker: web_sys::Worker,
    inbox: std::rc::Rc<RefCell<std::collections::VecDeque<JsValue>>>,
    waker: std::rc::Rc<RefCell<Option<js_sys::Function>>>,
    _listeners: [Closure<dyn FnMut(web_sys::Event)>; 2],
}

impl Reader {
    /// Started with the scoring worker (a worker takes tens of milliseconds to start); `None`
    /// where a worker cannot start one (nested workers unsupported).
    fn start() -> Option<Self> {
        if READER_BROKEN.get() {
            return None;
        }
        let worker = web_sys::Worker::new("/read-worker.js").ok()?;
        let inbox = std::rc::Rc::new(RefCell::new(std::collections::VecDeque::new()));
        let waker = std::rc::Rc::new(RefCell::new(None::<js_sys::Function>));
        let listener = |stopped: bool| {
            let (inbox, waker) = (inbox.clone(), waker.clone());
            Closure::<dyn FnMut(web_sys::Event)>::new(move |event: web_sys::Event| {
                let message = match (stopped, event.dyn_ref::<MessageEvent>()) {
                    (false, Some(event)) => event.data(),
                    _ => JsValue::from_str(READER_STOPPED),
                };
                inbox.borrow_mut().push_back(message);
                if let Some(wake) = waker.borrow_mut().take() {
                    let _ = wake.call0(&JsValue::NULL);
                }
            })
        };
        let listeners = [listener(false), listener(true)];
        worker.set_onmessage(Some(listeners[0].as_ref().unchecked_ref()));
        worker.set_onerror(Some(listeners[1].as_ref().unchecked_ref()));
        Some(Self {
            worker,
            inbox,
            waker,
            _listeners: listeners,
        })
    }

    /// The reader's next message; [`READER_STOPPED`] when none came for `limit_ms` (a worker
    /// can die without an error event).
    async fn next(&self, limit_ms: i32) -> JsValue {
        let since = js_sys::Date::now();
        loop {
            if let Some(message) = self.inbox.borrow_mut().pop_front() {
                return message;
            }
            if js_sys::Date::now() - since >= f64::from(limit_ms) {
                return JsValue::from_str(READER_STOPPED);
            }
            let mut timer = None;
            let arrived = js_sys::Promise::new(&mut |resolve, _reject| {
                timer = scope()
                    .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, limit_ms)
                    .ok();
                *self.waker.borrow_mut() = Some(resolve);
            });
            let _ = wasm_bindgen_futures::JsFuture::from(arrived).await;
            if let Some(timer) = timer {
                scope().clear_timeout_with_handle(timer);
            }
        }
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

/// Longest wait for the reader's first slice (1 MB: milliseconds); the file is then read here.
const READER_FIRST_SILENT_MS: i32 = 10_000;

/// Longest wait for the reader's next slice (16 MB takes ~20–60 ms from a local disk; a slow
/// network drive gets a minute); reading the file then fails.
const READER_SILENT_MS: i32 = 60_000;

/// What the inbox gets when the reader worker fails (its script did not load or threw), and
/// what [`Reader::next`] gives when it stopped answering.
const READER_STOPPED: &str = "the reader stopped";

thread_local! {
    /// The reader worker, idle between files.
    static READER: RefCell<Option<Reader>> = const { RefCell::new(None) };
    /// Files read for later, until their bytes are put in wasm memory ([`fill_unread`]).
    static UNREAD: RefCell<Vec<Unfilled>> = const { RefCell::new(Vec::new()) };
    /// The reader worker failed once: files are read here from then on.
    static READER_BROKEN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A dropped `File` read by the reader worker: the browser moves a blob read on only while the
/// reading thread is free, so reading here would stop while the slices already read are
/// parsed. The slices come transferred, in order; each is acknowledged (the reader keeps
/// [`READER_AHEAD`] slices in flight at most), then copied and its lines parsed while the
/// reader reads on. The filling back when there is no reader or it failed before the first
/// slice ([`read_here`] then reads; a reader that stopped is not started again).
async fn read_beside<'a>(
    blob: &web_sys::Blob,
    mut filling: Filling<'a>,
) -> Result<Result<Read, String>, Filling<'a>> {
    let Some(reader) = READER.with_borrow_mut(Option::take).or_else(Reader::start) else {
        return Err(filling);
    };
    let job = js_sys::Object::new();
    let set = |key: &str, value: &JsValue| js_sys::Reflect::set(&job, &key.into(), value).is_ok();
    if !(set("file", blob)
        && set("first", &JsValue::from_f64(READER_FIRST_BYTES))
        && set("chunk", &JsValue::from_f64(READER_CHUNK_BYTES))
        && set("ahead", &JsValue::from_f64(READER_AHEAD)))
        || reader.worker.post_message(&job).is_err()
    {
        return Err(filling);
    }
    loop {
        let limit = match filling.filled {
            0 => READER_FIRST_SILENT_MS,
            _ => READER_SILENT_MS,
        };
        let message = reader.next(limit).await;
        if let Some(buffer) = message.dyn_ref::<js_sys::ArrayBuffer>() {
            let _ = reader.worker.post_message(&JsValue::from_str("next"));
            // The rest of the warm-up's slices are taken and let go (the reader stays ready).
            if warm_up_gives_way() {
                continue;
            }
            if let Err(e) = filling.push(&Uint8Array::new(buffer)) {
                return Ok(Err(e));
            }
            continue;
        }
        if message.as_string().as_deref() == Some("done") {
            break;
        }
        if message.as_string().as_deref() == Some(READER_STOPPED) {
            READER_BROKEN.set(true);
        }
        // Before the first slice, read here (its own error, if the file cannot be read); the
        // reader, which may still send this file's slices, is dropped either way.
        if filling.filled == 0 {
            return Err(filling);
        }
        let why = js_sys::Reflect::get(&message, &"error".into())
            .ok()
            .and_then(|e| e.as_string())
            .or_else(|| message.as_string())
            .unwrap_or_default();
        return Ok(Err(format!(
            "{}: cannot read the file: {why}",
            filling.name
        )));
    }
    READER.with_borrow_mut(|r| *r = Some(reader));
    Ok(filling.finish())
}

/// Bytes of the reader worker's first slice (at least the detection head); the next ones
/// double up to [`READER_CHUNK_BYTES`] (measured, 100k records: the parsing waited 30–60 ms for
/// the second slice when it was 16 MB; page/CLI 2.07× → 1.84×, medians of 5).
const READER_FIRST_BYTES: f64 = (1u64 << 20) as f64;

/// Bytes the reader worker reads per slice, once the first slices doubled up to it.
const READER_CHUNK_BYTES: f64 = (16u64 << 20) as f64;

/// The buffer of the bytes read and not parsed yet ([`Unread`]): a reader's slice and a line.
const UNREAD_BYTES: usize = (17 << 20) as usize;

/// Slices the reader worker reads ahead of the parsing.
const READER_AHEAD: f64 = 3.0;

/// A view of bytes in wasm memory, for WebCrypto (which copies it before anything else runs).
fn wasm_view(bytes: &[u8]) -> Uint8Array {
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    Uint8Array::new_with_byte_offset_and_length(
        &memory.buffer(),
        bytes.as_ptr() as u32,
        bytes.len() as u32,
    )
}

/// Files of an `AddFiles`/`Restore` request: dropped `File`s read in chunks, their hash left
/// for after the numbers (`hash_pending`: WebCrypto's digest runs on the calling thread, ~140 ms
/// for 100 MB); byte arrays (a share, a board's files) copied and hashed before scoring, as
/// their verification compares the hashes. A file that cannot be read is reported and left
/// out.
async fn received_files(parts: &Array, names: Vec<String>) -> Vec<WorkFile> {
    let items: Vec<JsValue> = (0..names.len()).map(|i| parts.get(i as u32 + 1)).collect();
    let total: f64 = items
        .iter()
        .filter_map(|v| v.dyn_ref::<web_sys::Blob>().map(web_sys::Blob::size))
        .sum();
    let mut done = 0.0;
    let mut files = Vec::with_capacity(names.len());
    for (name, item) in names.into_iter().zip(items) {
        let (file, hashing) = match item.dyn_ref::<web_sys::Blob>() {
            Some(blob) => match read_dropped(blob, &name, done, total).await {
                Ok(read) => {
                    mark("read");
                    done += blob.size();
                    // Hashed after the numbers; the report says "" until then.
                    let file = match read {
                        Read::Whole(bytes, prepared) => WorkFile::new(name, bytes)
                            .with_prepared(prepared)
                            .with_sha256(String::new()),
                        Read::Later {
                            head,
                            prepared,
                            slices,
                        } => {
                            let file =
                                WorkFile::read_later(name, head, blob.size() as usize, prepared);
                            let head = file.bytes.clone();
                            UNREAD.with_borrow_mut(|u| u.push(Unfilled { head, slices }));
                            file
                        }
                        Read::InPart(read) => {
                            let mut file =
                                WorkFile::new(name, read.bytes).with_sha256(String::new());
                            file.size = blob.size() as usize;
                            in_part::hold(file.bytes.clone(), read.directory);
                            file
                        }
                    };
                    (file, None)
                }
                Err(message) => {
                    send(&FromWorker::Failed { message });
                    continue;
                }
            },
            None => {
                let array = Uint8Array::new(&item);
                let hashing = digest(&array);
                (WorkFile::new(name, array.to_vec()), Some(hashing))
            }
        };
        files.push((file, hashing));
    }
    let mut out = Vec::with_capacity(files.len());
    for (file, hashing) in files {
        out.push(match hashing {
            None => file,
            // Without WebCrypto (a page served over plain HTTP to another host), in wasm.
            Some(hashing) => match hex_of(hashing).await {
                Some(sha256) => file.with_sha256(sha256),
                None => {
                    let sha256 = metrics_core::InputFile::from_bytes("", &file.bytes).sha256;
                    file.with_sha256(sha256)
                }
            },
        });
    }
    mark("hashed (WebCrypto)");
    out
}

/// A file read for later ([`Read::Later`]): its head (its bytes as held until then) and slices.
struct Unfilled {
    head: std::sync::Arc<Vec<u8>>,
    slices: Vec<Uint8Array>,
}

/// Put the bytes of the files read for later ([`Read::Later`]) into wasm memory, in place of
/// their heads, wherever they are held (the held files and the scored jobs' copies).
fn fill_unread() {
    for Unfilled { head, slices } in UNREAD.with_borrow_mut(std::mem::take) {
        STATE.with_borrow_mut(|state| {
            // A file no longer held (removed before its bytes came) needs none.
            let Some(size) = state.ws.size_of(&head) else {
                return;
            };
            state
                .ws
                .replace_bytes(&head, std::sync::Arc::new(joined(&slices, size)));
        });
        mark("bytes in memory");
    }
}

/// When held file `index` was read in part (an Inspect `.eval`) and `role` is of a benchmark
/// that reads its files whole, read it whole now from its `File`: its scoring then reads the
/// file, not the few entries kept. A file that cannot be read is said and stays as it was.
async fn read_whole_for_role(index: usize, role: &str) {
    let reads_whole = Role::from_key(role)
        .and_then(Role::benchmark)
        .is_some_and(|b| !b.reads_archives_in_part());
    let held = STATE.with_borrow(|state| {
        let file = &state.ws.files.get(index)?.file;
        Some((file.bytes.clone(), file.name.clone()))
    });
    let Some((bytes, name)) = held.filter(|_| reads_whole) else {
        return;
    };
    let Some(blob) = in_part::blob_of(&bytes) else {
        return;
    };
    match read_whole(&blob, &name).await {
        Ok(whole) => {
            STATE.with_borrow_mut(|state| {
                state.ws.replace_bytes(&bytes, std::sync::Arc::new(whole))
            });
            drop(bytes);
            in_part::let_go();
        }
        Err(message) => send(&FromWorker::Failed { message }),
    }
}

/// A `File` read whole into wasm memory in slices of [`WORKER_CHUNK_BYTES`], with progress;
/// memory that cannot be had is said (a gigabyte log), not a crash.
async fn read_whole(blob: &web_sys::Blob, name: &str) -> Result<Vec<u8>, String> {
    let size = blob.size();
    let mut whole = Vec::new();
    whole
        .try_reserve_exact(size as usize)
        .map_err(|_| format!("{name}: no memory to read its {size} bytes whole"))?;
    let cannot = |e: JsValue| format!("{name}: cannot read the file: {e:?}");
    while (whole.len() as f64) < size {
        let at = whole.len() as f64;
        let slice = blob
            .slice_with_f64_and_f64(at, (at + WORKER_CHUNK_BYTES).min(size))
            .map_err(cannot)?;
        let buffer = wasm_bindgen_futures::JsFuture::from(slice.array_buffer())
            .await
            .map_err(cannot)?;
        let chunk = Uint8Array::new(&buffer);
        if chunk.length() == 0 {
            return Err(format!("{name}: the file changed while it was read"));
        }
        // Copied through a slice-sized buffer: extending by zeros first would zero byte by byte
        // (the worker's crates are built for size).
        whole.extend_from_slice(&chunk.to_vec());
        send(&FromWorker::Progress {
            stage: "reading".into(),
            done: whole.len(),
            total: size as usize,
        });
    }
    Ok(whole)
}

/// For the detail of sample `index` of scored job `outcome`, when one of its files was read in
/// part and the detail reads entries its scoring did not: that file's bytes as held and an
/// archive of those entries (or why they could not be read).
async fn detail_part(
    outcome: usize,
    index: usize,
) -> Option<Result<(std::sync::Arc<Vec<u8>>, Vec<u8>), String>> {
    let (part, wanted) = STATE.with_borrow(|state| {
        let s = state.ws.scored.get(outcome)?;
        let part = s
            .outcome
            .job
            .file_indices()
            .into_iter()
            .filter_map(|i| s.files.get(i))
            .map(|f| f.bytes.clone())
            .find(in_part::holds)?;
        let wanted = workbench::samples::detail_entries(&s.outcome, index);
        (!wanted.is_empty()).then_some((part, wanted))
    })?;
    Some(
        in_part::entries(&part, &wanted)
            .await
            .map(|entries| (part, entries)),
    )
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
    let mut received = match &request {
        ToWorker::AddFiles { names } => received_files(&parts, names.clone()).await,
        ToWorker::Restore { files, .. } => {
            received_files(&parts, files.iter().map(|f| f.name.clone()).collect()).await
        }
        _ => Vec::new(),
    };
    if warm_up_gives_way() {
        return;
    }
    // Spec files among them are registered first, so the others are recognised by them.
    if received.iter().any(|f| is_spec_file(&f.name)) {
        // A share's files stay in place (they pair with its list by position).
        let keep_failed = matches!(request, ToWorker::Restore { .. });
        received_specs(&mut received, keep_failed).await;
    }
    // The form reads files whole, a share sends them: their bytes in memory first (outside the
    // state's borrow). A file read in part stays so (the share posts its `File`).
    if matches!(
        request,
        ToWorker::DefineSpec { .. }
            | ToWorker::PreviewSpec { .. }
            | ToWorker::SaveSpec { .. }
            | ToWorker::Snapshot
    ) {
        fill_unread();
    }
    // A file read in part given a role its benchmark reads whole: read whole first.
    if let ToWorker::SetRole { index, role } = &request {
        read_whole_for_role(*index, role).await;
    }
    // The detail of a sample of a file read in part: the entries it reads, read now.
    let detail_part = match request {
        ToWorker::Detail { outcome, index } => detail_part(outcome, index).await,
        _ => None,
    };
    let specs_added = match &request {
        ToWorker::AddSpecs { specs } => {
            let fit: Vec<SavedSpec> = specs
                .iter()
                .filter(|s| match spec_text(&s.name, s.toml.as_bytes()) {
                    Ok(_) => true,
                    Err(message) => {
                        send(&FromWorker::Failed { message });
                        false
                    }
                })
                .cloned()
                .collect();
            register_specs(&fit, false)
                .await
                .iter()
                .any(Option::is_some)
        }
        ToWorker::SaveSpec { draft } => match serde_json::from_value(draft.clone()) {
            Ok(draft) => save_spec(&draft).await,
            Err(e) => {
                send(&FromWorker::Failed {
                    message: format!("worker: bad spec draft: {e}"),
                });
                false
            }
        },
        _ => false,
    };
    STATE.with_borrow_mut(|state| match request {
        ToWorker::AddFiles { .. } => {
            state.ws.add(received);
            rescore(state);
        }
        ToWorker::SetRole { index, role } => {
            match (state.ws.files.get_mut(index), Role::from_key(&role)) {
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
            if index < state.ws.files.len() {
                state.ws.files.remove(index);
            }
            rescore(state);
        }
        ToWorker::SetVariant { variant } => {
            state.ws.variant = variant;
            rescore(state);
        }
        ToWorker::Clear => {
            // The files go; the variant the page chose stays (a board's verification clears
            // and re-scores with the board's variant).
            let mut ws = std::mem::take(&mut state.ws);
            ws.clear();
            *state = State {
                ws,
                ..State::default()
            };
            rescore(state);
        }
        ToWorker::Snapshot => {
            let files = state
                .ws
                .files
                .iter()
                .map(|h| HeldFile {
                    name: h.file.name.clone(),
                    role: h.file.role.key().to_string(),
                    model: h.model,
                })
                .collect();
            // A file read in part goes as its `File` (the page reads it): never its compact
            // archive, and never whole in wasm memory.
            let bytes: Vec<JsValue> = state
                .ws
                .files
                .iter()
                .map(|h| match in_part::blob_of(&h.file.bytes) {
                    Some(blob) => blob.into(),
                    None => Uint8Array::from(h.file.bytes.as_slice()).into(),
                })
                .collect();
            send_with_bytes(
                &FromWorker::Snapshot {
                    files,
                    models: state.ws.models.len(),
                },
                &bytes,
            );
        }
        ToWorker::Restore {
            files,
            models,
            variant,
        } => {
            // A share is data from someone else: `restore` bounds the model groups; a file
            // keeps the role the sender gave it (a correction included).
            let files = files
                .into_iter()
                .zip(received)
                .map(|(held, file)| (file, Role::from_key(&held.role), held.model))
                .collect();
            *state = State {
                ws: Workspace::restore(files, models, variant),
                ..State::default()
            };
            rescore(state);
        }
        ToWorker::Detail { outcome, index } => {
            let detail = match (state.ws.scored.get(outcome), detail_part) {
                (None, _) => Err(format!("no scored job {outcome}")),
                (Some(s), None) => {
                    sample_detail(&s.files, &s.outcome, index).map_err(|e| e.to_string())
                }
                (Some(_), Some(Err(e))) => Err(e),
                // The file read in part stands as the archive of the entries the detail reads.
                (Some(s), Some(Ok((part, entries)))) => {
                    let entries = std::sync::Arc::new(entries);
                    let files: Vec<WorkFile> = s
                        .files
                        .iter()
                        .map(|f| {
                            let mut f = f.clone();
                            if std::sync::Arc::ptr_eq(&f.bytes, &part) {
                                f.bytes = entries.clone();
                            }
                            f
                        })
                        .collect();
                    sample_detail(&files, &s.outcome, index).map_err(|e| e.to_string())
                }
            };
            send(&FromWorker::Detail {
                outcome,
                index,
                detail,
            });
        }
        ToWorker::Rows {
            outcome,
            filter,
            offset,
            limit,
        } => {
            // Asked before the page heard of a new scoring: the next `Scored` replaces the view.
            let Some(scored) = state
                .ws
                .scored
                .get(outcome)
                .and_then(|s| s.outcome.result.as_ref().ok())
            else {
                return;
            };
            let cached =
                matches!(&state.filtered, Some((o, f, _)) if *o == outcome && *f == filter);
            if !cached {
                state.filtered = Some((outcome, filter.clone(), filter_report(scored, &filter)));
            }
            let indices = state.filtered.as_ref().map_or(&[][..], |(_, _, i)| &i[..]);
            send(&FromWorker::Rows {
                outcome,
                page: page(scored, indices, offset, limit.min(MAX_PAGE_ROWS)),
                filter,
            });
        }
        ToWorker::Diff { a, b, limit } => {
            let report = |i: usize| {
                state
                    .ws
                    .scored
                    .get(i)
                    .and_then(|s| s.outcome.result.as_ref().ok())
                    .ok_or_else(|| format!("no scored job {i}"))
            };
            let result = report(a).and_then(|ra| {
                let mut diff = sample_diff(&sample_rows(ra), &sample_rows(report(b)?));
                let total = diff.len();
                diff.truncate(limit.min(MAX_PAGE_ROWS));
                Ok((total, diff))
            });
            send(&FromWorker::Diff { a, b, result });
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
        ToWorker::DefineSpec { files } => {
            let read: Result<Vec<_>, String> = files
                .iter()
                .take(2)
                .map(|&i| {
                    let held = state.ws.files.get(i).ok_or(format!("no file {i}"))?;
                    let (format, encoding, fields) =
                        fields_of(&held.file.name, &held.file.bytes).map_err(|e| e.to_string())?;
                    Ok((i, held.file.name.clone(), format, encoding, fields))
                })
                .collect();
            match read {
                Ok(read) => preview_spec(state, first_draft(read)),
                Err(message) => send(&FromWorker::Failed { message }),
            }
        }
        ToWorker::PreviewSpec { draft } => match serde_json::from_value(draft) {
            Ok(draft) => preview_spec(state, draft),
            Err(e) => send(&FromWorker::Failed {
                message: format!("worker: bad spec draft: {e}"),
            }),
        },
        ToWorker::AddSpecs { .. } | ToWorker::SaveSpec { .. } => {
            if specs_added && !state.ws.files.is_empty() {
                state.ws.detect_unknown();
                rescore(state);
            }
        }
        ToWorker::Norming { outcome, request } => {
            // Asked before the page heard of a new scoring: the next `Scored` replaces the view.
            let Some(view) = state.ws.class_view(outcome) else {
                return;
            };
            let view = view.with_model_results(&request.results);
            send(&FromWorker::Norming {
                outcome,
                answer: serde_json::to_value(workbench::norming::answer(
                    &view,
                    &request,
                    DISPUTED_SHOWN,
                ))
                .unwrap_or_default(),
            });
        }
    });
    // The numbers go first, the dropped files' hashes follow (`Hashed`), except for a class
    // view: the teacher's adjustments are kept under the file's hash, so it waits for them.
    let keyed_by_hash =
        STATE.with_borrow(|state| state.unpublished && state.ws.class_waits_for_hash());
    if keyed_by_hash {
        hash_pending().await;
    }
    let published = STATE.with_borrow_mut(|state| {
        let unpublished = state.unpublished;
        if unpublished {
            publish(state);
        }
        unpublished
    });
    if published {
        // (The warm-up's page draws nothing.)
        if !WARMING_UP.get() {
            pause(PAUSE_AFTER_NUMBERS_MS).await;
        }
        STATE.with_borrow(publish_rest);
    }
    hash_pending().await;
}

/// How long the worker leaves the page alone after sending it the numbers: the chart data and
/// hashes that follow would otherwise be decoded, or take the cores, while the page draws the
/// table (measured in Chromium, 100k records: table drawn 11–70 ms after the numbers came;
/// 5–16 ms with this pause).
const PAUSE_AFTER_NUMBERS_MS: i32 = 40;

/// Register spec files received with others: each read by the spec module, registered, given
/// its spec's role; one that fails is said (file and line) and dropped, unless `keep_failed`.
/// The other files are then recognised again (a spec registered first claims them, as it does
/// on the next visit).
async fn received_specs(received: &mut Vec<WorkFile>, keep_failed: bool) {
    let mut at = Vec::new();
    let mut specs = Vec::new();
    for (i, f) in received.iter().enumerate() {
        if !is_spec_file(&f.name) {
            continue;
        }
        match spec_text(&f.name, &f.bytes) {
            Ok(text) => {
                at.push(i);
                specs.push(SavedSpec {
                    name: f.name.clone(),
                    toml: text,
                });
            }
            Err(message) => send(&FromWorker::Failed { message }),
        }
    }
    let roles = register_specs(&specs, false).await;
    let mut registered = vec![false; received.len()];
    for (i, role) in at.into_iter().zip(roles) {
        if let Some(role) = role {
            received[i].role = role;
            registered[i] = true;
        }
    }
    let mut i = 0;
    received.retain(|f| {
        i += 1;
        keep_failed || registered[i - 1] || !is_spec_file(&f.name)
    });
    for f in received.iter_mut().filter(|f| !is_spec_file(&f.name)) {
        f.role = f.detect().role;
    }
    STATE.with_borrow_mut(|state| state.ws.detect_unknown());
}

/// A spec file's text: UTF-8, at most [`MAX_SPEC_BYTES`] (checked before it is copied).
fn spec_text(name: &str, bytes: &[u8]) -> Result<String, String> {
    if bytes.len() > MAX_SPEC_BYTES {
        return Err(format!("{name}: a spec is at most {MAX_SPEC_BYTES} bytes"));
    }
    std::str::from_utf8(bytes)
        .map(str::to_string)
        .map_err(|e| format!("{name}: a spec is UTF-8 text: {e}"))
}

/// Read specs' TOML in the spec module and register them; the page hears of each (`SpecAdded`,
/// or `Failed` naming the file and line). The role of each spec's own file, if registered.
async fn register_specs(specs: &[SavedSpec], download: bool) -> Vec<Option<Role>> {
    if specs.is_empty() {
        return Vec::new();
    }
    let requests: Vec<SpecRequest> = specs
        .iter()
        .map(|s| SpecRequest::Read {
            name: s.name.clone(),
            text: s.toml.clone(),
        })
        .collect();
    let answers = match ask(&requests).await {
        Ok(answers) => answers,
        Err(message) => {
            send(&FromWorker::Failed { message });
            return vec![None; specs.len()];
        }
    };
    specs
        .iter()
        .zip(answers)
        .map(|(saved, answer)| {
            let registered = match answer {
                SpecAnswer::Spec(spec) => {
                    workbench::registry::register_spec(spec, saved.toml.clone().into_bytes())
                        .map_err(|why| format!("{}: {why}", saved.name))
                }
                SpecAnswer::Error(why) => Err(why),
                SpecAnswer::Toml(_) => Err(format!("{}: not read", saved.name)),
            };
            match registered {
                Ok(entry) => {
                    send(&FromWorker::SpecAdded {
                        spec: saved.clone(),
                        key: entry.spec.key.clone(),
                        download,
                    });
                    Some(entry.spec_file_role())
                }
                Err(message) => {
                    send(&FromWorker::Failed { message });
                    None
                }
            }
        })
        .collect()
}

/// The form's draft checked and its spec's report on the form's files.
fn preview_spec(state: &State, draft: workbench::spec_form::Draft) {
    let preview = draft.spec().and_then(|spec| {
        let bytes = draft
            .files
            .iter()
            .map(|f| {
                state
                    .ws
                    .files
                    .get(f.index)
                    .filter(|h| h.file.name == f.name)
                    .map(|h| h.file.bytes.clone())
                    .ok_or(format!("{}: the file is gone", f.name))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let bytes: Vec<&[u8]> = bytes.iter().map(|b| b.as_slice()).collect();
        let (report, table) = draft.preview(&spec, &bytes)?;
        Ok(SpecPreview { report, table })
    });
    send(&FromWorker::SpecForm {
        draft: serde_json::to_value(&draft).unwrap_or_default(),
        preview,
    });
}

/// The form's "save": the draft's spec written as TOML by the spec module, then read back and
/// registered like a dropped spec file (the page saves the file and keeps it). Whether it was.
async fn save_spec(draft: &workbench::spec_form::Draft) -> bool {
    let spec = match draft.spec() {
        Ok(spec) => spec,
        Err(e) => {
            send(&FromWorker::SpecForm {
                draft: serde_json::to_value(draft).unwrap_or_default(),
                preview: Err(e),
            });
            return false;
        }
    };
    let name = format!("{}.toml", spec.key);
    let toml = match ask(&[SpecRequest::Write(spec)]).await.map(|mut a| a.pop()) {
        Ok(Some(SpecAnswer::Toml(toml))) => toml,
        Ok(Some(SpecAnswer::Error(message))) | Err(message) => {
            send(&FromWorker::Failed { message });
            return false;
        }
        Ok(_) => {
            send(&FromWorker::Failed {
                message: "the spec writer answered something else".into(),
            });
            return false;
        }
    };
    register_specs(&[SavedSpec { name, toml }], true).await[0].is_some()
}

/// A timer of `ms` milliseconds.
async fn pause(ms: i32) {
    let done = js_sys::Promise::new(&mut |resolve, _| {
        let _ = scope().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(done).await;
}

/// Fill a file's hash, known now, wherever it was left empty: the held file, the scored jobs'
/// copies and their reports' inputs.
fn rescore(state: &mut State) {
    let files = state
        .ws
        .files
        .iter()
        .enumerate()
        .map(|(index, h)| {
            let detected = h.file.detect();
            let model = state.ws.model_of(h).to_string();
            FileView {
                index,
                name: h.file.name.clone(),
                size_bytes: h.file.size,
                detected: DetectedView {
                    benchmark: detected.benchmark,
                    role: detected.role.key().to_string(),
                    confidence: detected.confidence,
                    why: detected.why,
                },
                role: h.file.role.key().to_string(),
                model,
                sha256: h.file.sha256.clone().filter(|s| !s.is_empty()),
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
    state.unpublished = true;
}

/// Score every model's jobs into the workspace (`publish` tells the page); the sample rows a
/// benchmark builds from its records come after the table (`publish_rest`).
fn score(state: &mut State) {
    state.started = js_sys::Date::now();
    send(&FromWorker::Progress {
        stage: "scoring".into(),
        done: 0,
        total: 1,
    });
    state.ws.score(true);
    mark("parsed, scored");
    state.filtered = None;
}

/// Send the page the scored jobs' views (`Scored`); [`publish_rest`] sends what the charts and
/// samples draw.
fn publish(state: &mut State) {
    state.unpublished = false;
    let mut views = Vec::new();
    for (i, job) in state.ws.scored.iter().enumerate() {
        let Some(view) = state.ws.job_view(i) else {
            continue;
        };
        mark("table, charts and class view");
        let outcome = &job.outcome;
        views.push(OutcomeView {
            id: views.len(),
            model: state.ws.models[job.model].clone(),
            title: outcome.job.title.clone(),
            benchmark: outcome.job.benchmark.to_string(),
            variant: outcome.variant,
            variants: view.variants,
            files: view.files,
            // The report without its samples (they stay here), not cloned with them.
            result: match &outcome.result {
                Ok(scored) => Ok(without_samples(&scored.report)),
                Err(e) => Err(e.clone()),
            },
            table: view.table,
            changed: view.changed,
            summary: None,
            class: view.class,
        });
    }
    mark("views built");
    send(&FromWorker::Scored {
        variant: state.ws.variant,
        outcomes: views,
        elapsed_ms: js_sys::Date::now() - state.started,
        phases: PHASES.with_borrow_mut(std::mem::take),
    });
}

/// Send the page what the samples and charts tabs draw, after the table is drawn: the chart
/// data and the filter choices, not the rows (the page asks for the window it shows; a
/// benchmark that keeps its records builds each sample from them when it is asked for).
fn publish_rest(state: &State) {
    for (outcome, s) in state.ws.scored.iter().enumerate() {
        if let Ok(scored) = &s.outcome.result {
            let mut summary = summarize(scored);
            let data = crate::charts::ChartData {
                report: without_samples(&scored.report),
                samples: std::mem::take(&mut summary.charts),
                charts: workbench::registry::get(s.outcome.job.benchmark)
                    .map(|b| b.charts(scored, s.outcome.variant))
                    .unwrap_or_default(),
            };
            send(&FromWorker::Summary {
                outcome,
                summary,
                charts: serde_json::to_string(&data).unwrap_or_default(),
            });
        }
    }
}

/// Hash the files left for later and fill their hash into the reports, here and on the page:
/// by WebCrypto (it copies the bytes), in wasm past [`WEBCRYPTO_MAX_BYTES`].
async fn hash_pending() {
    fill_unread();
    in_part::let_go();
    let pending = STATE.with_borrow(|state| state.ws.unhashed());
    for (bytes, name) in pending {
        let sha256 = match in_part::sha256(&bytes).await {
            // A file read in part: the whole file, streamed through SHA-256.
            Some(Ok(sha256)) => sha256,
            // Said once; the hash stays unknown.
            Some(Err(why)) => {
                if let Some(why) = why {
                    send(&FromWorker::Failed {
                        message: format!("{name}: {why}"),
                    });
                }
                continue;
            }
            None => {
                let by_webcrypto = if bytes.len() <= WEBCRYPTO_MAX_BYTES {
                    hex_of(digest(&wasm_view(&bytes))).await
                } else {
                    None
                };
                by_webcrypto
                    .unwrap_or_else(|| metrics_core::InputFile::from_bytes("", &bytes).sha256)
            }
        };
        mark("hashed");
        STATE.with_borrow_mut(|state| {
            state.ws.fill_hash(&bytes, &name, &sha256);
            if !state.unpublished {
                send(&FromWorker::Hashed { name, sha256 });
            }
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
    let mut bootstrap = state.ws.bootstrap(a, b, seed, resamples)?;
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
