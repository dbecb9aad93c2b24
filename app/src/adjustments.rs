//! The teacher's adjustments, kept in this browser's IndexedDB (database `scorebench`, store
//! `adjustments`), one record per class keyed by the essays file's SHA-256; beside it, under
//! `model:` + the SHA-256, the levels and comments the model wrote on request (`ask_model`),
//! under `raters:` + the SHA-256, the colleagues' ratings files imported for norming.
//! Never uploaded.

use std::collections::HashMap;

use js_sys::{Function, Promise};
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbOpenDbRequest, IdbRequest, IdbTransaction, IdbTransactionMode};
use workbench::class::{Adjustment, ModelResults};
use workbench::norming::ColleagueFile;

const DATABASE: &str = "scorebench";
const STORE: &str = "adjustments";

/// Adjustments by essay id.
pub type Adjustments = HashMap<String, Adjustment>;

/// A request's result as a future (`onsuccess` / `onerror`).
async fn done(request: &IdbRequest) -> Result<JsValue, String> {
    let promise = Promise::new(&mut |resolve: Function, reject: Function| {
        let ok = Closure::once_into_js(move |_: web_sys::Event| {
            let _ = resolve.call0(&JsValue::NULL);
        });
        let bad = Closure::once_into_js(move |_: web_sys::Event| {
            let _ = reject.call0(&JsValue::NULL);
        });
        request.set_onsuccess(Some(ok.unchecked_ref()));
        request.set_onerror(Some(bad.unchecked_ref()));
    });
    JsFuture::from(promise)
        .await
        .map_err(|_| "IndexedDB request failed".to_string())?;
    request.result().map_err(|e| format!("IndexedDB: {e:?}"))
}

/// Wait until a transaction has committed (its writes are then on disk for the next page).
async fn committed(tx: &IdbTransaction) -> Result<(), String> {
    let promise = Promise::new(&mut |resolve: Function, reject: Function| {
        let ok = Closure::once_into_js(move |_: web_sys::Event| {
            let _ = resolve.call0(&JsValue::NULL);
        });
        let bad = Closure::once_into_js(move |_: web_sys::Event| {
            let _ = reject.call0(&JsValue::NULL);
        });
        tx.set_oncomplete(Some(ok.unchecked_ref()));
        tx.set_onerror(Some(bad.unchecked_ref()));
    });
    JsFuture::from(promise)
        .await
        .map(|_| ())
        .map_err(|_| "IndexedDB transaction failed".to_string())
}

thread_local! {
    /// The open database, kept for the page's life: a save then creates its transaction in the
    /// call that asks for it, so saves commit in the order they were made (IndexedDB runs
    /// overlapping read-write transactions in creation order).
    static DB: std::cell::RefCell<Option<IdbDatabase>> = const { std::cell::RefCell::new(None) };
}

/// The database, opened (and its store created) on first use.
async fn open() -> Result<IdbDatabase, String> {
    if let Some(db) = DB.with_borrow(Clone::clone) {
        return Ok(db);
    }
    let db = open_new().await?;
    // Two first uses may both open; the first kept is used from then on.
    Ok(DB.with_borrow_mut(|kept| kept.get_or_insert(db).clone()))
}

async fn open_new() -> Result<IdbDatabase, String> {
    let factory = web_sys::window()
        .and_then(|w| w.indexed_db().ok().flatten())
        .ok_or("this browser has no IndexedDB")?;
    let request: IdbOpenDbRequest = factory
        .open_with_u32(DATABASE, 1)
        .map_err(|e| format!("IndexedDB open: {e:?}"))?;
    let upgrade = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
        let db = ev
            .target()
            .and_then(|t| t.dyn_into::<IdbOpenDbRequest>().ok())
            .and_then(|r| r.result().ok())
            .and_then(|r| r.dyn_into::<IdbDatabase>().ok());
        if let Some(db) = db.filter(|db| !db.object_store_names().contains(STORE)) {
            let _ = db.create_object_store(STORE);
        }
    });
    request.set_onupgradeneeded(Some(upgrade.as_ref().unchecked_ref()));
    let db = done(&request).await?;
    drop(upgrade);
    db.dyn_into::<IdbDatabase>()
        .map_err(|_| "IndexedDB: not a database".to_string())
}

/// The class's adjustments (empty when none were saved).
pub async fn load(class: &str) -> Result<Adjustments, String> {
    load_record(class, "saved adjustments").await
}

/// Save the class's adjustments (replacing what was saved).
pub async fn save(class: &str, adjustments: &Adjustments) -> Result<(), String> {
    save_record(class, adjustments).await
}

/// The levels and comments the model wrote for the class on request (empty when none).
pub async fn load_model_results(class: &str) -> Result<ModelResults, String> {
    load_record(&format!("model:{class}"), "saved model results").await
}

/// Save the levels and comments the model wrote for the class.
pub async fn save_model_results(class: &str, results: &ModelResults) -> Result<(), String> {
    save_record(&format!("model:{class}"), results).await
}

/// The colleagues' ratings files imported for the class (norming; empty when none).
pub async fn load_colleagues(class: &str) -> Result<Vec<ColleagueFile>, String> {
    load_record(&format!("raters:{class}"), "saved colleagues' ratings").await
}

/// Save the colleagues' ratings files imported for the class.
pub async fn save_colleagues(class: &str, files: &[ColleagueFile]) -> Result<(), String> {
    save_record(&format!("raters:{class}"), &files).await
}

/// The record `key` (its type's default when none was saved); `what` names it in errors.
async fn load_record<T: DeserializeOwned + Default>(key: &str, what: &str) -> Result<T, String> {
    let db = open().await?;
    let store = db
        .transaction_with_str(STORE)
        .and_then(|t| t.object_store(STORE))
        .map_err(|e| format!("IndexedDB: {e:?}"))?;
    let request = store
        .get(&JsValue::from_str(key))
        .map_err(|e| format!("IndexedDB get: {e:?}"))?;
    let value = done(&request).await?;
    match value.as_string() {
        Some(text) => serde_json::from_str(&text).map_err(|e| format!("{what}: {e}")),
        None => Ok(T::default()),
    }
}

thread_local! {
    /// Saves under way (a share waits for them, so it carries the last change).
    static SAVING: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Resolves once no save is under way.
pub async fn settled() {
    while SAVING.get() > 0 {
        let tick = Promise::new(&mut |resolve: Function, _reject: Function| {
            if let Some(w) = web_sys::window() {
                let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 20);
            }
        });
        let _ = JsFuture::from(tick).await;
    }
}

/// A save under way while held (`settled` and `data-saving` wait for it): also a class view
/// loading its adjustments, whose controls wait for them.
pub struct Held(());

impl Drop for Held {
    fn drop(&mut self) {
        set_saving(SAVING.get().saturating_sub(1));
    }
}

/// Count a save (or a load) as under way until the returned guard is dropped.
pub fn hold() -> Held {
    set_saving(SAVING.get() + 1);
    Held(())
}

/// Save `value` as the record `key` (replacing what was saved), counted as under way until done.
async fn save_record<T: Serialize>(key: &str, value: &T) -> Result<(), String> {
    let _held = hold();
    save_record_now(key, value).await
}

/// Count a save in or out, and show the count as `<html data-saving="N">`: "0" once every
/// change has reached IndexedDB (what a test or an extension waits for before a reload).
fn set_saving(n: usize) {
    SAVING.set(n);
    if let Some(html) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = html.set_attribute("data-saving", &n.to_string());
    }
}

async fn save_record_now<T: Serialize>(key: &str, value: &T) -> Result<(), String> {
    let text = serde_json::to_string(value).map_err(|e| e.to_string())?;
    let db = open().await?;
    let tx = db
        .transaction_with_str_and_mode(STORE, IdbTransactionMode::Readwrite)
        .map_err(|e| format!("IndexedDB: {e:?}"))?;
    let store = tx
        .object_store(STORE)
        .map_err(|e| format!("IndexedDB: {e:?}"))?;
    store
        .put_with_key(&JsValue::from_str(&text), &JsValue::from_str(key))
        .map_err(|e| format!("IndexedDB put: {e:?}"))?;
    committed(&tx).await?;
    Ok(())
}
