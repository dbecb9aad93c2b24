//! SHA-256 by WebCrypto, for the worker.
//!
//! Chromium computes `crypto.subtle.digest` on the calling thread, within the call (137 ms for
//! 97 MB on the bench machine, 2026-11-23); the promise is settled when it returns. So the
//! worker hashes dropped files after it has sent their numbers, and the files that come as
//! bytes (shares, a board's files, whose verification compares hashes) before scoring.

use js_sys::Uint8Array;
use wasm_bindgen::JsCast;

/// Files up to this size are hashed by WebCrypto (it copies its input: a transient copy this
/// big at most); bigger ones in wasm, slower but in place (files are hashed after their numbers
/// and charts). At 256 MB, two SAS-Bench raw files of 196 + 91 MB took 2.5× their size in
/// Chromium, 1.9× with 64 MB (measured 2026-11-24).
pub const WEBCRYPTO_MAX_BYTES: usize = 64 << 20;

/// Start the SHA-256 of `bytes` (an `ArrayBuffer` or a view of one) by WebCrypto: `None`
/// where WebCrypto is missing.
pub fn digest(bytes: &js_sys::Object) -> Option<js_sys::Promise> {
    let crypto = js_sys::Reflect::get(&js_sys::global(), &"crypto".into()).ok()?;
    let crypto: web_sys::Crypto = crypto.dyn_into().ok()?;
    crypto
        .subtle()
        .digest_with_str_and_buffer_source("SHA-256", bytes)
        .ok()
}

/// The digest `promise` settles with, as lower-case hex.
pub async fn hex_of(promise: Option<js_sys::Promise>) -> Option<String> {
    let buffer = wasm_bindgen_futures::JsFuture::from(promise?).await.ok()?;
    let bytes = Uint8Array::new(&buffer).to_vec();
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
