//! Private share links (issue 14): the files, the view and the teacher's adjustments, sealed in
//! this browser with AES-256-GCM (WebCrypto) under a random key. Only the ciphertext goes to
//! the server (`/api/v1/shares`, `server/API.md`); the key goes into the link's fragment
//! (`/s/<id>#<key>`), which browsers never send to a server.
//!
//! ```text
//! plaintext   "SBSH" | header length (u32 LE) | header JSON | each file's bytes, in header order
//! header      {"version": 1, "files": [{name, role, model, size_bytes}], "models", "view",
//!              "adjustments": [{class (essays file SHA-256), file, adjustments, model_results}]}
//! stored      0x01 (format) | IV (12 random bytes) | AES-GCM(key, IV, aad = 0x01, plaintext)
//! key         32 bytes from crypto.getRandomValues, base64url without padding (43 characters)
//! ```

use base64::Engine;
use gloo_net::http::Request;
use js_sys::{Array, Object, Reflect, Uint8Array};
use serde::{Deserialize, Serialize};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::CryptoKey;

use crate::adjustments::Adjustments;
use crate::protocol::HeldFile;
use workbench::class::ModelResults;

/// The server's limit on a share (ciphertext), `server::share::MAX_SHARE_BYTES`: 32 MiB.
pub const MAX_SHARE_BYTES: usize = 32 * 1024 * 1024;
/// Expiry choices offered, in days; the first default is the server's (30).
pub const EXPIRY_DAYS: [u32; 4] = [30, 7, 1, 90];

const MAGIC: &[u8; 4] = b"SBSH";
const FORMAT: u8 = 1;
const VERSION: u32 = 1;
const IV_BYTES: usize = 12;
const KEY_BYTES: usize = 32;

/// A shared file without its bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SharedFile {
    pub name: String,
    /// The role the sender's page gave it (detected or corrected).
    pub role: String,
    /// The drop it came in (model group), as the worker counts them.
    pub model: usize,
    pub size_bytes: usize,
}

/// One class's adjustments, keyed as `adjustments.rs` keys them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SharedAdjustments {
    /// The essays file's SHA-256.
    pub class: String,
    /// The essays file's name (for messages).
    pub file: String,
    pub adjustments: Adjustments,
    /// The levels and comments the model wrote on the sender's request ("ask the model").
    #[serde(default)]
    pub model_results: ModelResults,
}

/// What a share holds besides the file bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub version: u32,
    pub files: Vec<SharedFile>,
    pub models: usize,
    /// The view as the URL query holds it (`workbench::url_state`).
    pub view: String,
    pub adjustments: Vec<SharedAdjustments>,
}

impl Header {
    pub fn new(
        files: &[HeldFile],
        sizes: &[usize],
        models: usize,
        view: String,
        adjustments: Vec<SharedAdjustments>,
    ) -> Header {
        Header {
            version: VERSION,
            files: files
                .iter()
                .zip(sizes)
                .map(|(f, &size_bytes)| SharedFile {
                    name: f.name.clone(),
                    role: f.role.clone(),
                    model: f.model,
                    size_bytes,
                })
                .collect(),
            models,
            view,
            adjustments,
        }
    }

    /// The files as the worker takes them back.
    pub fn held(&self) -> Vec<HeldFile> {
        self.files
            .iter()
            .map(|f| HeldFile {
                name: f.name.clone(),
                role: f.role.clone(),
                model: f.model,
            })
            .collect()
    }
}

/// Why a share could not be opened or made. The page shows each in the interface language.
#[derive(Debug, Clone, PartialEq)]
pub enum ShareError {
    /// The link has no key after `#`.
    MissingKey,
    /// The key does not open the ciphertext (a wrong or truncated link).
    WrongKey,
    /// No such share (deleted, or expired and purged, or a wrong id).
    NotFound,
    /// The share expired.
    Expired,
    /// The decrypted content is not a share this page can read.
    Unreadable(String),
    /// The share would exceed the server's limit.
    TooLarge { size_bytes: usize },
    /// Anything else (network, browser), with a message.
    Other(String),
}

fn js(e: JsValue) -> String {
    e.as_string()
        .or_else(|| {
            Reflect::get(&e, &"message".into())
                .ok()
                .and_then(|m| m.as_string())
        })
        .unwrap_or_else(|| format!("{e:?}"))
}

/// The plaintext: magic, header length, header, file bytes (all on the JS side).
pub fn seal_plaintext(header: &Header, bytes: &[Uint8Array]) -> Result<Uint8Array, ShareError> {
    let json = serde_json::to_vec(header).map_err(|e| ShareError::Other(e.to_string()))?;
    let head_len = u32::try_from(json.len()).map_err(|_| ShareError::TooLarge {
        size_bytes: json.len(),
    })?;
    let total: usize = 8 + json.len() + bytes.iter().map(|b| b.length() as usize).sum::<usize>();
    if total > MAX_SHARE_BYTES {
        return Err(ShareError::TooLarge { size_bytes: total });
    }
    let out = Uint8Array::new_with_length(total as u32);
    let mut prefix = Vec::with_capacity(8 + json.len());
    prefix.extend_from_slice(MAGIC);
    prefix.extend_from_slice(&head_len.to_le_bytes());
    prefix.extend_from_slice(&json);
    out.set(&Uint8Array::from(prefix.as_slice()), 0);
    let mut at = prefix.len() as u32;
    for b in bytes {
        out.set(b, at);
        at += b.length();
    }
    Ok(out)
}

/// Header and file bytes (fresh arrays, so each can be transferred) out of a plaintext.
pub fn open_plaintext(plain: &Uint8Array) -> Result<(Header, Vec<Uint8Array>), ShareError> {
    let bad = |why: &str| ShareError::Unreadable(why.to_string());
    let len = plain.length();
    if len < 8 {
        return Err(bad("too short"));
    }
    let prefix = plain.subarray(0, 8).to_vec();
    if &prefix[..4] != MAGIC {
        return Err(bad("not a scorebench share"));
    }
    let head_len = u32::from_le_bytes([prefix[4], prefix[5], prefix[6], prefix[7]]);
    let head_end = 8u32
        .checked_add(head_len)
        .filter(|&e| e <= len)
        .ok_or_else(|| bad("header past the end"))?;
    let header: Header = serde_json::from_slice(&plain.subarray(8, head_end).to_vec())
        .map_err(|e| ShareError::Unreadable(format!("header: {e}")))?;
    if header.version != VERSION {
        return Err(ShareError::Unreadable(format!(
            "share format version {} (this page reads {VERSION})",
            header.version
        )));
    }
    let mut at = head_end;
    let mut files = Vec::with_capacity(header.files.len());
    for f in &header.files {
        let end = u32::try_from(f.size_bytes)
            .ok()
            .and_then(|n| at.checked_add(n))
            .filter(|&e| e <= len)
            .ok_or_else(|| bad("a file runs past the end"))?;
        files.push(plain.slice(at, end));
        at = end;
    }
    if at != len {
        return Err(bad("bytes after the last file"));
    }
    Ok((header, files))
}

fn subtle() -> Result<(web_sys::Crypto, web_sys::SubtleCrypto), ShareError> {
    let crypto = web_sys::window()
        .ok_or_else(|| ShareError::Other("no window".into()))?
        .crypto()
        .map_err(|e| ShareError::Other(format!("no WebCrypto: {}", js(e))))?;
    let subtle = crypto.subtle();
    Ok((crypto, subtle))
}

fn aes_gcm(iv: Option<&[u8]>) -> Result<Object, ShareError> {
    let alg = Object::new();
    let set = |k: &str, v: &JsValue| {
        Reflect::set(&alg, &k.into(), v).map_err(|e| ShareError::Other(js(e)))
    };
    set("name", &"AES-GCM".into())?;
    if let Some(iv) = iv {
        set("iv", &Uint8Array::from(iv).into())?;
        set("additionalData", &Uint8Array::from(&[FORMAT][..]).into())?;
    }
    Ok(alg)
}

async fn import(raw: &[u8], usage: &str) -> Result<CryptoKey, ShareError> {
    let (_, subtle) = subtle()?;
    let usages = Array::of1(&usage.into());
    let promise = subtle
        .import_key_with_object(
            "raw",
            &Uint8Array::from(raw),
            &aes_gcm(None)?,
            false,
            &usages,
        )
        .map_err(|e| ShareError::Other(js(e)))?;
    JsFuture::from(promise)
        .await
        .map_err(|e| ShareError::Other(js(e)))?
        .dyn_into::<CryptoKey>()
        .map_err(|_| ShareError::Other("WebCrypto gave no key".into()))
}

/// Seal a plaintext under a new random key: (the stored bytes, the key for the fragment).
pub async fn encrypt(plain: &Uint8Array) -> Result<(Uint8Array, String), ShareError> {
    let (crypto, subtle) = subtle()?;
    let mut raw = [0u8; KEY_BYTES];
    let mut iv = [0u8; IV_BYTES];
    crypto
        .get_random_values_with_u8_array(&mut raw)
        .and_then(|_| crypto.get_random_values_with_u8_array(&mut iv))
        .map_err(|e| ShareError::Other(format!("no randomness: {}", js(e))))?;
    let key = import(&raw, "encrypt").await?;
    let promise = subtle
        .encrypt_with_object_and_buffer_source(&aes_gcm(Some(&iv))?, &key, plain)
        .map_err(|e| ShareError::Other(js(e)))?;
    let sealed = Uint8Array::new(
        &JsFuture::from(promise)
            .await
            .map_err(|e| ShareError::Other(js(e)))?,
    );
    let size_bytes = 1 + IV_BYTES + sealed.length() as usize;
    if size_bytes > MAX_SHARE_BYTES {
        return Err(ShareError::TooLarge { size_bytes });
    }
    let out = Uint8Array::new_with_length(size_bytes as u32);
    out.set(&Uint8Array::from(&[FORMAT][..]), 0);
    out.set(&Uint8Array::from(&iv[..]), 1);
    out.set(&sealed, 1 + IV_BYTES as u32);
    let key_text = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw);
    Ok((out, key_text))
}

/// Open stored bytes with the fragment's key.
pub async fn decrypt(stored: &Uint8Array, key_text: &str) -> Result<Uint8Array, ShareError> {
    let key_text = key_text.trim();
    if key_text.is_empty() {
        return Err(ShareError::MissingKey);
    }
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(key_text)
        .ok()
        .filter(|k| k.len() == KEY_BYTES)
        .ok_or(ShareError::WrongKey)?;
    if stored.length() < (1 + IV_BYTES + 16) as u32 || stored.get_index(0) != FORMAT {
        return Err(ShareError::Unreadable("not a scorebench share".into()));
    }
    let iv = stored.subarray(1, 1 + IV_BYTES as u32).to_vec();
    let key = import(&raw, "decrypt").await?;
    let (_, subtle) = subtle()?;
    let promise = subtle
        .decrypt_with_object_and_buffer_source(
            &aes_gcm(Some(&iv))?,
            &key,
            &stored.subarray(1 + IV_BYTES as u32, stored.length()),
        )
        .map_err(|e| ShareError::Other(js(e)))?;
    // AES-GCM refuses a wrong key (the tag does not verify): an OperationError.
    let plain = JsFuture::from(promise)
        .await
        .map_err(|_| ShareError::WrongKey)?;
    Ok(Uint8Array::new(&plain))
}

/// The server's answer to an upload.
pub use workbench::wire::ShareCreated as Created;

async fn error_of(response: gloo_net::http::Response) -> ShareError {
    let status = response.status();
    let message = response
        .json::<serde_json::Value>()
        .await
        .ok()
        .and_then(|b| b["error"]["message"].as_str().map(str::to_string))
        .unwrap_or_default();
    match status {
        404 => ShareError::NotFound,
        410 => ShareError::Expired,
        413 => ShareError::TooLarge { size_bytes: 0 },
        _ => ShareError::Other(format!("{status}: {message}")),
    }
}

fn unreachable_server(e: gloo_net::Error) -> ShareError {
    ShareError::Other(format!("cannot reach the server: {e}"))
}

/// Upload the stored bytes; they live `days` days.
pub async fn upload(stored: &Uint8Array, days: u32) -> Result<Created, ShareError> {
    let response = Request::post(&format!("/api/v1/shares?expires_in_days={days}"))
        .header("Content-Type", "application/octet-stream")
        .body(JsValue::from(stored.clone()))
        .map_err(|e| ShareError::Other(e.to_string()))?
        .send()
        .await
        .map_err(unreachable_server)?;
    if !response.ok() {
        return Err(error_of(response).await);
    }
    response
        .json::<Created>()
        .await
        .map_err(|e| ShareError::Other(format!("unexpected answer: {e}")))
}

/// The stored bytes of share `id`, and when it expires (ms since the epoch, if said).
pub async fn fetch(id: &str) -> Result<(Uint8Array, Option<i64>), ShareError> {
    let response = Request::get(&format!("/api/v1/shares/{id}"))
        .send()
        .await
        .map_err(unreachable_server)?;
    if !response.ok() {
        return Err(error_of(response).await);
    }
    let expires_ms = response
        .headers()
        .get("x-share-expires-ms")
        .and_then(|v| v.parse().ok());
    let bytes = response
        .binary()
        .await
        .map_err(|e| ShareError::Other(format!("cannot read the share: {e}")))?;
    Ok((Uint8Array::from(bytes.as_slice()), expires_ms))
}

/// Delete share `id` with its delete token.
pub async fn delete(id: &str, token: &str) -> Result<(), ShareError> {
    let response = Request::delete(&format!("/api/v1/shares/{id}"))
        .header("X-Delete-Token", token)
        .send()
        .await
        .map_err(unreachable_server)?;
    if response.ok() {
        Ok(())
    } else {
        Err(error_of(response).await)
    }
}

/// The share id of this page's path (`/s/<id>`), if it is a share link.
pub fn share_id_of(path: &str) -> Option<String> {
    let id = path.strip_prefix("/s/")?.trim_end_matches('/');
    (!id.is_empty() && !id.contains('/')).then(|| id.to_string())
}

/// A date (UTC, `YYYY-MM-DD`) of a time in milliseconds.
pub fn date_of(ms: i64) -> String {
    let date = js_sys::Date::new(&JsValue::from_f64(ms as f64));
    date.to_iso_string()
        .as_string()
        .map(|s| s.chars().take(10).collect())
        .unwrap_or_default()
}
