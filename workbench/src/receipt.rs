//! Signed receipts of verified entries: what the server attests it scored, checkable offline.
//!
//! ```text
//! signed    = {board, entry, benchmark, variant, model, scorer, inputs, gold, metrics, submitted}
//!             inputs, gold: [{name, role, sha256}]; metrics: the board's listed numbers
//! message   = "scorebench-receipt/1\n" + canonical JSON of `signed`
//!             (object keys sorted by their UTF-8 bytes at every depth, no whitespace, numbers
//!             as serde_json writes them: the shortest text that reads back to the same f64)
//! signature = Ed25519(server key, message), base64 (standard alphabet)
//! key_id    = the first 8 bytes of SHA-256(public key), hex
//! ```
//! Ed25519 signatures are deterministic, so the same entry always gets the same receipt; the
//! server signs when it shows an entry and stores nothing but its key. The checker
//! ([`check`]) is the same code in the CLI (`scorebench leaderboard verify --receipt`) and the
//! page. A receipt that does not hold names the fields where it and the entry it travels with
//! disagree, so a changed number is named, not only detected.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The receipt format, first line of every signed message.
pub const FORMAT: &str = "scorebench-receipt/1";
/// The only signature algorithm.
pub const ALGORITHM: &str = "Ed25519";

/// A verified entry's receipt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Receipt {
    pub format: String,
    pub algorithm: String,
    /// The signing key's id ([`key_id`]).
    pub key_id: String,
    pub signed: Signed,
    /// Ed25519 over [`message`]`(signed)`, base64.
    pub signature: String,
}

/// The fields a receipt attests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Signed {
    pub board: String,
    pub entry: i64,
    pub benchmark: String,
    pub variant: String,
    pub model: String,
    /// `{"version", "commit"}` of the scorer.
    pub scorer: Value,
    /// The entry's files, by SHA-256.
    pub inputs: Vec<SignedFile>,
    /// The board's gold files, by SHA-256.
    pub gold: Vec<SignedFile>,
    /// Every metric the board lists for the entry.
    pub metrics: IndexMap<String, Option<f64>>,
    /// When it was submitted (ISO 8601, UTC).
    pub submitted: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SignedFile {
    pub name: String,
    pub role: String,
    pub sha256: String,
}

/// The server's public key as `GET /.well-known/scorebench-key` serves it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PublicKey {
    pub algorithm: String,
    pub key_id: String,
    /// The 32 key bytes, base64.
    pub public_key: String,
    /// The same bytes, hex.
    pub public_key_hex: String,
}

impl PublicKey {
    pub fn new(bytes: &[u8; 32]) -> PublicKey {
        PublicKey {
            algorithm: ALGORITHM.into(),
            key_id: key_id(bytes),
            public_key: STANDARD.encode(bytes),
            public_key_hex: hex::encode(bytes),
        }
    }

    fn verifying_key(&self) -> Result<VerifyingKey, String> {
        if self.algorithm != ALGORITHM {
            return Err(format!(
                "the key's algorithm is {:?}, not {ALGORITHM}",
                self.algorithm
            ));
        }
        let bytes = STANDARD
            .decode(&self.public_key)
            .map_err(|e| format!("the public key is not base64: {e}"))?;
        let bytes: [u8; 32] = bytes
            .try_into()
            .map_err(|b: Vec<u8>| format!("the public key has {} bytes, not 32", b.len()))?;
        if key_id(&bytes) != self.key_id {
            return Err("the public key does not match its key_id".into());
        }
        VerifyingKey::from_bytes(&bytes).map_err(|e| format!("not an Ed25519 public key: {e}"))
    }
}

/// Sign `signed` with the key whose 32-byte seed is `seed` (the server's).
pub fn sign(seed: &[u8; 32], signed: Signed) -> Receipt {
    let key = SigningKey::from_bytes(seed);
    let signature = key.sign(&message(&signed));
    Receipt {
        format: FORMAT.into(),
        algorithm: ALGORITHM.into(),
        key_id: key_id(key.verifying_key().as_bytes()),
        signed,
        signature: STANDARD.encode(signature.to_bytes()),
    }
}

/// The public key of the key whose seed is `seed`.
pub fn public_key(seed: &[u8; 32]) -> PublicKey {
    PublicKey::new(SigningKey::from_bytes(seed).verifying_key().as_bytes())
}

/// The id of a public key: its SHA-256's first 8 bytes, hex.
pub fn key_id(public_key: &[u8; 32]) -> String {
    hex::encode(&Sha256::digest(public_key)[..8])
}

/// The bytes a receipt signs.
pub fn message(signed: &Signed) -> Vec<u8> {
    let value = serde_json::to_value(signed).unwrap_or(Value::Null);
    let mut out = format!("{FORMAT}\n");
    canonical(&value, &mut out);
    out.into_bytes()
}

/// `value` as canonical JSON: object keys sorted by their bytes at every depth, no whitespace.
pub fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical(&map[k], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(v, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// Why a receipt does not hold.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Failure {
    /// What is wrong with the receipt itself (format, key, signature).
    pub receipt: Vec<String>,
    /// Fields where the signed record and the entry disagree (`metrics.qwk`, `inputs`, …),
    /// each with both values.
    pub fields: Vec<String>,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let all: Vec<&str> = self
            .receipt
            .iter()
            .chain(&self.fields)
            .map(String::as_str)
            .collect();
        f.write_str(&all.join("; "))
    }
}

/// Check `receipt` with `key`, and against `entry`, the fields of the entry it travels with as
/// the board shows them (`EntryDetail::signed`): the signature holds over the signed fields,
/// and they equal the entry's.
pub fn check(receipt: &Receipt, key: &PublicKey, entry: &Signed) -> Result<(), Failure> {
    let failure = Failure {
        receipt: signature_problems(receipt, key),
        fields: differences(&receipt.signed, entry),
    };
    if failure.receipt.is_empty() && failure.fields.is_empty() {
        Ok(())
    } else {
        Err(failure)
    }
}

/// What is wrong with the receipt on its own: format, key, signature.
pub fn signature_problems(receipt: &Receipt, key: &PublicKey) -> Vec<String> {
    let mut problems = Vec::new();
    if receipt.format != FORMAT {
        problems.push(format!("format {:?}, expected {FORMAT:?}", receipt.format));
    }
    if receipt.algorithm != ALGORITHM {
        problems.push(format!(
            "algorithm {:?}, expected {ALGORITHM}",
            receipt.algorithm
        ));
    }
    if receipt.key_id != key.key_id {
        problems.push(format!(
            "signed with key {}, the server's key is {}",
            receipt.key_id, key.key_id
        ));
        return problems;
    }
    let verifying = match key.verifying_key() {
        Ok(k) => k,
        Err(e) => {
            problems.push(e);
            return problems;
        }
    };
    let signature = STANDARD
        .decode(&receipt.signature)
        .ok()
        .and_then(|b| Signature::from_slice(&b).ok());
    match signature {
        None => problems.push("the signature is not 64 bytes of base64".into()),
        Some(s) => {
            if verifying.verify(&message(&receipt.signed), &s).is_err() {
                problems.push("the signature does not hold over the signed fields".into());
            }
        }
    }
    problems
}

/// The fields where `signed` (the receipt's) and `shown` (the entry's) differ.
pub fn differences(signed: &Signed, shown: &Signed) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = |name: &str, a: String, b: String| {
        if a != b {
            out.push(format!("{name}: receipt {a}, entry {b}"));
        }
    };
    field("board", signed.board.clone(), shown.board.clone());
    field("entry", signed.entry.to_string(), shown.entry.to_string());
    field(
        "benchmark",
        signed.benchmark.clone(),
        shown.benchmark.clone(),
    );
    field("variant", signed.variant.clone(), shown.variant.clone());
    field("model", json(&signed.model), json(&shown.model));
    field("scorer", json(&signed.scorer), json(&shown.scorer));
    field(
        "submitted",
        signed.submitted.clone(),
        shown.submitted.clone(),
    );
    for (name, a, b) in [
        ("inputs", &signed.inputs, &shown.inputs),
        ("gold", &signed.gold, &shown.gold),
    ] {
        field(
            &format!("{name} (count)"),
            a.len().to_string(),
            b.len().to_string(),
        );
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            field(&format!("{name}[{i}].name"), json(&x.name), json(&y.name));
            field(&format!("{name}[{i}].role"), x.role.clone(), y.role.clone());
            field(
                &format!("{name}[{i}].sha256"),
                x.sha256.clone(),
                y.sha256.clone(),
            );
        }
    }
    for (k, v) in &signed.metrics {
        let other = shown
            .metrics
            .get(k)
            .map_or("(absent)".into(), |w| number(*w));
        field(&format!("metrics.{k}"), number(*v), other);
    }
    for (k, w) in &shown.metrics {
        if !signed.metrics.contains_key(k) {
            field(&format!("metrics.{k}"), "(absent)".into(), number(*w));
        }
    }
    out
}

fn json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// A metric as its exact bits read back (`null` for none).
fn number(v: Option<f64>) -> String {
    v.map_or("null".into(), |x| format!("{x:?}"))
}
