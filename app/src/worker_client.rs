//! The page's side of the worker: start it, send requests, turn its messages into signals.

use js_sys::{Array, Uint8Array};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker};
use workbench::Variant;

use serde_json::Value;
use workbench::compare::SampleDiff;
use workbench::drill::{Filter, SampleDetail};
use workbench::norming::NormingRequest;
use workbench::samples::RowPage;

use crate::protocol::{
    CompareView, FileView, FromWorker, HeldFile, OutcomeView, RoleView, SavedSpec, SpecPreview,
    ToWorker,
};

/// Where the workbench keeps the benchmark specs saved or dropped in it (`localStorage`, JSON
/// `[[key, {"name", "toml"}], …]`, one per spec key: the latest wins).
const KEPT_SPECS: &str = "scorebench:specs";

/// The "define a benchmark" form as the worker last answered it.
pub type SpecFormState = Option<(Value, Result<SpecPreview, String>)>;

/// The worker's files as a private share needs them: (files, number of drops, bytes in order).
pub type Snapshot = (Vec<HeldFile>, usize, Vec<Uint8Array>);

/// Where the page is in reading and scoring.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub stage: String,
    pub done: f64,
    pub total: f64,
}

/// A sample's detail: (outcome, sample index, detail or why not).
pub type DetailState = Option<(usize, usize, Result<SampleDetail, String>)>;
/// A comparison: (outcome a, outcome b, intervals or why not).
pub type CompareState = Option<(usize, usize, Result<CompareView, String>)>;
/// A window of filtered sample rows: (outcome, filter, rows).
pub type RowsState = Option<(usize, Filter, RowPage)>;
/// A per-sample diff: (outcome a, outcome b, (aligned samples, the rows that differ most)).
pub type DiffState = Option<(usize, usize, Result<(usize, Vec<SampleDiff>), String>)>;

/// Everything the worker tells the page, as signals.
#[derive(Clone, Copy)]
pub struct WorkbenchState {
    /// The worker takes requests (`Ready`; until then they wait in `pending`).
    pub ready: RwSignal<bool>,
    /// The worker has warmed up (`Warm`): the page's `data-ready`.
    pub warm: RwSignal<bool>,
    pub files: RwSignal<Vec<FileView>>,
    /// Every role a file can be given (from the worker's registry).
    pub roles: RwSignal<Vec<RoleView>>,
    pub outcomes: RwSignal<Vec<OutcomeView>>,
    pub progress: RwSignal<Option<Progress>>,
    pub variant: RwSignal<Variant>,
    /// Problems outside any scoring job (a file that could not be read, a worker failure).
    pub errors: RwSignal<Vec<String>>,
    /// Milliseconds the worker spent on the last scoring.
    pub elapsed_ms: RwSignal<Option<f64>>,
    /// The worker's steps of the last scoring with when they ended (`Date.now()` ms), as JSON
    /// for the bench (`.timing[data-phases]`).
    pub phases: RwSignal<String>,
    /// When the page posted the last files to the worker (`Date.now()` ms).
    posted: StoredValue<f64>,
    /// The last window of sample rows the worker sent.
    pub rows: RwSignal<RowsState>,
    /// The last per-sample diff the worker sent.
    pub diff: RwSignal<DiffState>,
    /// `Scored` messages received so far (a diff is asked again after each).
    pub scorings: RwSignal<u64>,
    /// The outcomes were scored from the files the page holds: false from a `Files` message
    /// (new files or roles) until the `Scored` that follows it.
    pub outcomes_current: RwSignal<bool>,
    /// `Hashed` messages received so far: a file's hash fills `outcomes` without waking what
    /// draws them (the charts), and wakes what shows or exports the hash through this.
    pub hashed: RwSignal<u64>,
    /// The sample the detail pane shows: (outcome, sample index, detail).
    pub detail: RwSignal<DetailState>,
    /// The last comparison: (outcome a, outcome b, intervals).
    pub compared: RwSignal<CompareState>,
    /// The latest norming panel the worker sent, by outcome.
    pub norming: RwSignal<Option<(usize, Value)>>,
    /// Outcomes' chart data as the worker sent it with their summaries (JSON for the chart
    /// module), cleared when the outcomes are scored again.
    pub charts: RwSignal<Vec<(usize, String)>>,
    /// The "define a benchmark" form, open while `Some`: the worker's last answer.
    pub spec_form: RwSignal<SpecFormState>,
    /// The form's draft as last changed on the page (changes the worker has not answered yet
    /// included: each change starts from it, "save" sends it).
    spec_draft: StoredValue<Option<Value>>,
    /// Form changes sent and not answered yet.
    pub spec_pending: RwSignal<u32>,
    /// This page keeps specs in the browser (the workbench; not a board's verification): the
    /// kept ones are registered when the worker starts, new ones are kept.
    keeps_specs: StoredValue<bool>,
    /// The specs kept in this browser (`keys` and their files), while `keeps_specs`.
    pub kept: RwSignal<Vec<(String, SavedSpec)>>,
    worker: StoredValue<Option<Worker>, LocalStorage>,
    /// `Worker::new` failed (said once in `errors`): requests are not queued.
    start_failed: StoredValue<bool>,
    /// Requests made before the worker's wasm was ready: a message that arrives before the
    /// worker installs its handler would be lost, so they wait here until `Ready`.
    pending: StoredValue<Vec<(Array, Array)>, LocalStorage>,
    /// Who waits for the worker's next snapshot (`resolve` of a promise).
    snapshot_waiters: StoredValue<Vec<js_sys::Function>, LocalStorage>,
}

impl WorkbenchState {
    /// The state, without a worker yet: its wasm (the biggest download) is fetched by [`wake`]
    /// when the page first needs it — a drag over the page, the file picker, a request — so a
    /// page that only shows (a leaderboard, the empty workbench) never loads it.
    ///
    /// [`wake`]: Self::wake
    pub fn new() -> Self {
        Self {
            ready: RwSignal::new(false),
            warm: RwSignal::new(false),
            files: RwSignal::new(Vec::new()),
            roles: RwSignal::new(Vec::new()),
            outcomes: RwSignal::new(Vec::new()),
            progress: RwSignal::new(None),
            variant: RwSignal::new(Variant::Official),
            errors: RwSignal::new(Vec::new()),
            elapsed_ms: RwSignal::new(None),
            phases: RwSignal::new(String::new()),
            posted: StoredValue::new(0.0),
            rows: RwSignal::new(None),
            diff: RwSignal::new(None),
            scorings: RwSignal::new(0),
            outcomes_current: RwSignal::new(true),
            hashed: RwSignal::new(0),
            detail: RwSignal::new(None),
            compared: RwSignal::new(None),
            norming: RwSignal::new(None),
            charts: RwSignal::new(Vec::new()),
            spec_form: RwSignal::new(None),
            spec_draft: StoredValue::new(None),
            spec_pending: RwSignal::new(0),
            keeps_specs: StoredValue::new(false),
            kept: RwSignal::new(Vec::new()),
            worker: StoredValue::new_local(None),
            start_failed: StoredValue::new(false),
            pending: StoredValue::new_local(Vec::new()),
            snapshot_waiters: StoredValue::new_local(Vec::new()),
        }
    }

    /// Start the worker if it is not running (requests made meanwhile wait in `pending`).
    pub fn wake(&self) {
        if self.worker.with_value(Option::is_some) || self.start_failed.get_value() {
            return;
        }
        let state = *self;
        match Worker::new("/worker_loader.js") {
            Ok(worker) => {
                let on_message =
                    Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                        state.receive(event.data());
                    });
                worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
                on_message.forget();
                self.worker.set_value(Some(worker));
                let specs: Vec<SavedSpec> = if self.keeps_specs.get_value() {
                    kept_specs().into_iter().map(|(_, spec)| spec).collect()
                } else {
                    Vec::new()
                };
                if !specs.is_empty() {
                    self.post(&ToWorker::AddSpecs { specs }, &[]);
                }
                let variant = self.variant.get_untracked();
                if variant != Variant::Official {
                    self.post(&ToWorker::SetVariant { variant }, &[]);
                }
            }
            Err(e) => {
                // Said once; later requests are dropped rather than queued for nothing.
                self.start_failed.set_value(true);
                self.errors
                    .update(|v| v.push(format!("cannot start the scoring worker: {e:?}")));
            }
        }
    }

    fn receive(&self, data: JsValue) {
        // A message with bytes is an array (a snapshot): its JSON first.
        if let Some(parts) = data.dyn_ref::<Array>() {
            let waiters = std::mem::take(&mut *self.snapshot_waiters.write_value());
            for resolve in waiters {
                let _ = resolve.call1(&JsValue::NULL, parts);
            }
            return;
        }
        let received = js_sys::Date::now();
        let message = data
            .as_string()
            .map(|t| serde_json::from_str::<FromWorker>(&t));
        match message {
            Some(Ok(FromWorker::Ready)) => {
                self.ready.set(true);
                let queued = std::mem::take(&mut *self.pending.write_value());
                for (message, transfer) in queued {
                    self.send(&message, &transfer);
                }
            }
            Some(Ok(FromWorker::Warm)) => self.warm.set(true),
            Some(Ok(FromWorker::Progress { stage, done, total })) => {
                self.progress.set(Some(Progress {
                    stage,
                    done: done as f64,
                    total: total as f64,
                }))
            }
            Some(Ok(FromWorker::Files { files, roles })) => {
                self.outcomes_current.set(false);
                self.files.set(files);
                self.roles.set(roles);
            }
            Some(Ok(FromWorker::Scored {
                variant,
                outcomes,
                elapsed_ms,
                mut phases,
            })) => {
                phases.insert(0, ("page read, posted".into(), self.posted.get_value()));
                phases.push(("page received".into(), received));
                phases.push(("page decoded".into(), js_sys::Date::now()));
                self.phases
                    .set(serde_json::to_string(&phases).unwrap_or_default());
                self.variant.set(variant);
                self.rows.set(None);
                self.diff.set(None);
                self.charts.set(Vec::new());
                self.scorings.update(|n| *n += 1);
                self.outcomes.set(outcomes);
                self.outcomes_current.set(true);
                self.elapsed_ms.set(Some(elapsed_ms));
                self.progress.set(None);
            }
            Some(Ok(FromWorker::Hashed { name, sha256 })) => {
                self.files.update_untracked(|files| {
                    self.outcomes
                        .update_untracked(|all| fill_hash(files, all, &name, &sha256))
                });
                self.hashed.update(|n| *n += 1);
            }
            Some(Ok(FromWorker::Summary {
                outcome,
                summary,
                charts,
            })) => {
                self.outcomes.update(|all| {
                    if let Some(o) = all.iter_mut().find(|o| o.id == outcome) {
                        o.summary = Some(summary);
                    }
                });
                self.charts.update(|all| {
                    all.retain(|(o, _)| *o != outcome);
                    all.push((outcome, charts));
                });
            }
            Some(Ok(FromWorker::Rows {
                outcome,
                filter,
                page,
            })) => self.rows.set(Some((outcome, filter, page))),
            Some(Ok(FromWorker::Diff { a, b, result })) => self.diff.set(Some((a, b, result))),
            Some(Ok(FromWorker::Detail {
                outcome,
                index,
                detail,
            })) => self.detail.set(Some((outcome, index, detail))),
            Some(Ok(FromWorker::Norming { outcome, answer })) => {
                self.norming.set(Some((outcome, answer)));
            }
            Some(Ok(FromWorker::Compared { a, b, result })) => {
                self.progress.set(None);
                self.compared.set(Some((a, b, result)));
            }
            // Snapshots come as arrays (above).
            Some(Ok(FromWorker::Snapshot { .. })) => {}
            Some(Ok(FromWorker::Failed { message })) => {
                self.progress.set(None);
                // A save that failed (a key in use…) leaves the form open and its save usable.
                self.spec_pending.set(0);
                self.errors.update(|v| v.push(message));
            }
            Some(Ok(FromWorker::SpecForm { draft, preview })) => {
                let pending = self.spec_pending.get_untracked().saturating_sub(1);
                self.spec_pending.set(pending);
                if pending == 0 {
                    self.spec_draft.set_value(Some(draft.clone()));
                }
                self.spec_form.set(Some((draft, preview)));
            }
            Some(Ok(FromWorker::SpecAdded {
                spec,
                key,
                download,
            })) => {
                if download {
                    self.spec_pending.set(0);
                    self.close_spec();
                    crate::download::download_text(&spec.name, "application/toml", &spec.toml);
                }
                if self.keeps_specs.get_value() {
                    let mut kept = kept_specs();
                    kept.retain(|(k, _)| *k != key);
                    kept.push((key, spec));
                    self.store_kept(kept);
                }
            }
            Some(Err(e)) => self
                .errors
                .update(|v| v.push(format!("unreadable worker message: {e}"))),
            None => self
                .errors
                .update(|v| v.push("worker sent a non-text message".into())),
        }
    }

    /// A message whose first element is `request`'s JSON (what follows it is the caller's);
    /// `None`, said in `errors`, when it cannot be encoded.
    fn message_of(&self, request: &ToWorker) -> Option<Array> {
        match serde_json::to_string(request) {
            Ok(json) => {
                let message = Array::new();
                message.push(&JsValue::from_str(&json));
                Some(message)
            }
            Err(e) => {
                self.errors
                    .update(|v| v.push(format!("cannot encode a request: {e}")));
                None
            }
        }
    }

    fn post(&self, request: &ToWorker, bytes: &[Uint8Array]) {
        let Some(message) = self.message_of(request) else {
            return;
        };
        let transfer = Array::new();
        for b in bytes {
            message.push(b);
            transfer.push(&b.buffer());
        }
        self.enqueue(message, transfer);
    }

    /// Send now if the worker is ready, else start it and keep the message for `Ready`.
    fn enqueue(&self, message: Array, transfer: Array) {
        if self.ready.get_untracked() {
            self.send(&message, &transfer);
        } else {
            self.wake();
            if !self.start_failed.get_value() {
                self.pending.update_value(|p| p.push((message, transfer)));
            }
        }
    }

    fn send(&self, message: &Array, transfer: &Array) {
        let Some(worker) = self.worker.get_value() else {
            return;
        };
        if let Err(e) = worker.post_message_with_transfer(message, transfer) {
            self.errors
                .update(|v| v.push(format!("cannot reach the scoring worker: {e:?}")));
        }
    }

    /// Keep the specs saved or dropped here in this browser, and register the kept ones when
    /// the worker starts (the workbench page).
    pub fn keep_specs(&self) {
        self.keeps_specs.set_value(true);
        self.kept.set(kept_specs());
    }

    /// Forget a kept spec (this page's worker keeps it registered until the page is left).
    pub fn forget_spec(&self, key: &str) {
        let mut kept = kept_specs();
        kept.retain(|(k, _)| k != key);
        self.store_kept(kept);
    }

    fn store_kept(&self, kept: Vec<(String, SavedSpec)>) {
        if let (Some(storage), Ok(text)) = (local_storage(), serde_json::to_string(&kept)) {
            let _ = storage.set_item(KEPT_SPECS, &text);
        }
        self.kept.set(kept);
    }

    /// Open the "define a benchmark" form on these held files.
    pub fn define_spec(&self, files: Vec<usize>) {
        self.post(&ToWorker::DefineSpec { files }, &[]);
    }

    /// The form's draft with one change (made to the latest draft, answered or not): the
    /// worker checks it and previews it.
    pub fn edit_spec(&self, rendered: &Value, change: impl FnOnce(&mut Value)) {
        let mut draft = self
            .spec_draft
            .get_value()
            .unwrap_or_else(|| rendered.clone());
        change(&mut draft);
        self.spec_draft.set_value(Some(draft.clone()));
        self.spec_pending.update(|n| *n += 1);
        self.post(&ToWorker::PreviewSpec { draft }, &[]);
    }

    /// Save the form's latest draft: downloaded, kept, registered, the files scored with it.
    pub fn save_spec(&self) {
        if let Some(draft) = self.spec_draft.get_value() {
            self.spec_pending.update(|n| *n += 1);
            self.post(&ToWorker::SaveSpec { draft }, &[]);
        }
    }

    /// Close the form.
    pub fn close_spec(&self) {
        self.spec_form.set(None);
        self.spec_draft.set_value(None);
    }

    pub fn add_files(&self, names: Vec<String>, bytes: Vec<Uint8Array>) {
        self.progress.set(Some(Progress {
            stage: "scoring".into(),
            done: 0.0,
            total: 1.0,
        }));
        self.posted.set_value(js_sys::Date::now());
        self.post(&ToWorker::AddFiles { names }, &bytes);
    }

    /// Dropped files: the worker reads them itself (a `File` is passed by reference, not copied),
    /// scores them and hashes them after the first numbers.
    pub fn add_dropped(&self, names: Vec<String>, files: Vec<web_sys::File>) {
        let total: f64 = files.iter().map(|f| f.size()).sum();
        self.progress.set(Some(Progress {
            stage: "reading".into(),
            done: 0.0,
            total,
        }));
        self.posted.set_value(js_sys::Date::now());
        let Some(message) = self.message_of(&ToWorker::AddFiles { names }) else {
            return;
        };
        for f in &files {
            message.push(f);
        }
        self.enqueue(message, Array::new());
    }

    pub fn set_role(&self, index: usize, role: String) {
        self.post(&ToWorker::SetRole { index, role }, &[]);
    }

    pub fn remove(&self, index: usize) {
        self.post(&ToWorker::Remove { index }, &[]);
    }

    pub fn set_variant(&self, variant: Variant) {
        if self.worker.with_value(Option::is_none) {
            // Nothing scored yet: the worker gets the variant when it starts (see `wake`).
            return self.variant.set(variant);
        }
        self.post(&ToWorker::SetVariant { variant }, &[]);
    }

    pub fn request_detail(&self, outcome: usize, index: usize) {
        self.post(&ToWorker::Detail { outcome, index }, &[]);
    }

    /// Ask for rows `offset..offset + limit` of an outcome's samples that pass `filter`.
    pub fn request_rows(&self, outcome: usize, filter: Filter, offset: usize, limit: usize) {
        self.post(
            &ToWorker::Rows {
                outcome,
                filter,
                offset,
                limit,
            },
            &[],
        );
    }

    /// Ask for the per-sample diff of two outcomes (the `limit` samples that differ most).
    pub fn request_diff(&self, a: usize, b: usize, limit: usize) {
        self.post(&ToWorker::Diff { a, b, limit }, &[]);
    }

    pub fn compare(&self, a: usize, b: usize, seed: u64, resamples: usize) {
        self.compared.set(None);
        self.progress.set(Some(Progress {
            stage: "bootstrap".into(),
            done: 0.0,
            total: resamples as f64,
        }));
        self.post(
            &ToWorker::Compare {
                a,
                b,
                seed,
                resamples,
            },
            &[],
        );
    }

    /// Ask for the norming panel of outcome `outcome`'s class (answered in `norming`).
    pub fn request_norming(&self, outcome: usize, request: NormingRequest) {
        self.post(&ToWorker::Norming { outcome, request }, &[]);
    }

    pub fn clear(&self) {
        if self.worker.with_value(Option::is_none) {
            return; // nothing held: no reason to load the worker
        }
        self.post(&ToWorker::Clear, &[]);
    }

    /// A copy of every file the worker holds, with its role and drop.
    pub async fn snapshot(&self) -> Result<Snapshot, String> {
        let waiters = self.snapshot_waiters;
        let promise = js_sys::Promise::new(&mut |resolve, _reject| {
            waiters.update_value(|w| w.push(resolve));
        });
        self.post(&ToWorker::Snapshot, &[]);
        let data = wasm_bindgen_futures::JsFuture::from(promise)
            .await
            .map_err(|e| format!("the scoring worker did not answer: {e:?}"))?;
        let parts: Array = data
            .dyn_into()
            .map_err(|_| "the scoring worker sent no files".to_string())?;
        match parts.get(0).as_string().map(|t| serde_json::from_str(&t)) {
            Some(Ok(FromWorker::Snapshot { files, models })) => {
                let mut bytes = Vec::with_capacity(files.len());
                for i in 1..parts.length() {
                    let part = parts.get(i);
                    // A file the worker read in part comes as its `File`: read here, whole.
                    let array = match part.dyn_ref::<web_sys::Blob>() {
                        Some(blob) => {
                            let buffer = wasm_bindgen_futures::JsFuture::from(blob.array_buffer())
                                .await
                                .map_err(|e| format!("cannot read a file to share: {e:?}"))?;
                            Uint8Array::new(&buffer)
                        }
                        None => Uint8Array::new(&part),
                    };
                    bytes.push(array);
                }
                Ok((files, models, bytes))
            }
            Some(Ok(_)) | None => Err("the scoring worker sent no files".into()),
            Some(Err(e)) => Err(format!("unreadable worker message: {e}")),
        }
    }

    /// Replace the worker's files by shared ones (roles and drops as they were), scored with
    /// `variant`.
    pub fn restore(
        &self,
        files: Vec<HeldFile>,
        models: usize,
        variant: Variant,
        bytes: &[Uint8Array],
    ) {
        self.progress.set(Some(Progress {
            stage: "scoring".into(),
            done: 0.0,
            total: 1.0,
        }));
        self.post(
            &ToWorker::Restore {
                files,
                models,
                variant,
            },
            bytes,
        );
    }
}

impl Default for WorkbenchState {
    fn default() -> Self {
        Self::new()
    }
}

/// Fill a file's hash, computed after its numbers, where the files and outcomes left it empty:
/// the file list, the reports' inputs and a class view named `name`.
fn fill_hash(files: &mut [FileView], outcomes: &mut [OutcomeView], name: &str, sha256: &str) {
    for f in files
        .iter_mut()
        .filter(|f| f.name == name && f.sha256.is_none())
    {
        f.sha256 = Some(sha256.to_string());
    }
    for o in outcomes {
        if let Some(class) = o
            .class
            .as_mut()
            .filter(|c| c.file == name && c.sha256.is_empty())
        {
            class.sha256 = sha256.to_string();
        }
        if let Ok(report) = &mut o.result {
            for input in &mut report.inputs {
                if input.path == name && input.sha256.is_empty() {
                    input.sha256 = sha256.to_string();
                }
            }
        }
    }
}

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// The specs kept in this browser with their keys (none when storage is off or unreadable).
fn kept_specs() -> Vec<(String, SavedSpec)> {
    local_storage()
        .and_then(|s| s.get_item(KEPT_SPECS).ok()?)
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}
