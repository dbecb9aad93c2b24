//! Receipts: signed, checked, and a change anywhere named.

#![allow(clippy::unwrap_used)]

use indexmap::IndexMap;
use serde_json::json;
use workbench::receipt::{self, Signed, SignedFile, canonical, message, public_key, sign};
use workbench::wire::{EntryDetail, FileOut, Status};

/// RFC 8032 §7.1, TEST 1: the secret key and its public key.
const RFC_SECRET: &str = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const RFC_PUBLIC: &str = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";

fn seed(hex_text: &str) -> [u8; 32] {
    hex::decode(hex_text).unwrap().try_into().unwrap()
}

fn file(name: &str, role: &str, sha: char) -> FileOut {
    FileOut {
        name: name.into(),
        role: role.into(),
        sha256: sha.to_string().repeat(64),
        size_bytes: 10,
        url: format!("/files/{name}"),
    }
}

fn detail() -> EntryDetail {
    let mut metrics = IndexMap::new();
    metrics.insert("qwk".to_string(), Some(0.712_345_678_901_234_5));
    metrics.insert("accuracy".to_string(), Some(0.5));
    metrics.insert("ccs".to_string(), None);
    serde_json::from_value(json!({
        "board": "sas", "benchmark": "sasbench", "variant": "official", "entry": 3,
        "model": "m \"quoted\" Δ", "status": "verified", "submitted": "2026-11-27T08:00:00Z",
        "scorer": {"version": "0.1.0", "commit": "abc"},
        "metrics": metrics,
        "inputs": [file("pred.jsonl", "predictions", 'a')],
        "gold": [file("gold.jsonl", "gold", 'b')],
    }))
    .unwrap()
}

#[test]
fn the_key_is_rfc_8032s_and_its_id_is_its_hash() {
    let key = public_key(&seed(RFC_SECRET));
    assert_eq!(key.public_key_hex, RFC_PUBLIC);
    assert_eq!(key.algorithm, "Ed25519");
    assert_eq!(key.key_id.len(), 16);
    assert_eq!(key.key_id, receipt::key_id(&seed(RFC_PUBLIC)));
}

#[test]
fn a_receipt_holds_for_its_entry_and_is_deterministic() {
    let (s, d) = (seed(RFC_SECRET), detail());
    assert_eq!(d.status, Status::Verified);
    let r = sign(&s, d.signed());
    assert_eq!(r, sign(&s, d.signed()));
    assert_eq!(receipt::check(&r, &public_key(&s), &d.signed()), Ok(()));
    // Through JSON and back (what travels) it still holds.
    let text = serde_json::to_string(&r).unwrap();
    let back: receipt::Receipt = serde_json::from_str(&text).unwrap();
    assert_eq!(receipt::check(&back, &public_key(&s), &d.signed()), Ok(()));
}

#[test]
fn canonical_json_sorts_keys_at_every_depth() {
    let mut out = String::new();
    canonical(
        &json!({"b": [{"z": 1, "a": 0.1}], "a": "é\n", "c": null}),
        &mut out,
    );
    assert_eq!(out, r#"{"a":"é\n","b":[{"a":0.1,"z":1}],"c":null}"#);
    // The message does not depend on the order metrics are listed in.
    let d = detail();
    let mut reordered = d.signed();
    reordered.metrics.reverse();
    assert_eq!(message(&reordered), message(&d.signed()));
    assert!(message(&reordered).starts_with(b"scorebench-receipt/1\n{\"benchmark\":"));
}

#[test]
fn a_change_in_any_signed_field_fails_and_is_named() {
    let s = seed(RFC_SECRET);
    let (key, d) = (public_key(&s), detail());
    let r = sign(&s, d.signed());
    type Change = fn(&mut Signed);
    let cases: [(&str, Change); 8] = [
        ("metrics.qwk", |x| {
            let v = x.metrics["qwk"].unwrap();
            x.metrics["qwk"] = Some(f64::from_bits(v.to_bits() ^ 1));
        }),
        ("metrics.ccs", |x| x.metrics["ccs"] = Some(0.0)),
        ("model", |x| x.model.push(' ')),
        ("entry", |x| x.entry += 1),
        ("inputs[0].sha256", |x| {
            x.inputs[0].sha256.replace_range(0..1, "c")
        }),
        ("gold (count)", |x| {
            x.gold.push(SignedFile {
                name: "extra".into(),
                role: "gold".into(),
                sha256: "d".repeat(64),
            })
        }),
        ("scorer", |x| x.scorer["commit"] = json!("def")),
        ("submitted", |x| x.submitted = "2026-11-27T08:00:01Z".into()),
    ];
    for (field, change) in cases {
        // The receipt changed: the signature fails, and the field differs from the entry's.
        let mut tampered = r.clone();
        change(&mut tampered.signed);
        let failure = receipt::check(&tampered, &key, &d.signed()).unwrap_err();
        assert_eq!(
            failure.receipt,
            ["the signature does not hold over the signed fields"],
            "{field}"
        );
        assert!(
            failure
                .fields
                .iter()
                .any(|f| f.starts_with(&format!("{field}: "))),
            "{field}: {failure}"
        );
        // The entry changed (an edited export): the signature holds, the field is named.
        let mut entry = d.signed();
        change(&mut entry);
        let diff = receipt::differences(&r.signed, &entry);
        assert!(
            diff.iter().any(|f| f.starts_with(&format!("{field}: "))),
            "{field}: {diff:?}"
        );
    }
}

#[test]
fn another_key_or_a_broken_signature_is_refused() {
    let s = seed(RFC_SECRET);
    let d = detail();
    let r = sign(&s, d.signed());
    let other = public_key(&[7u8; 32]);
    let failure = receipt::check(&r, &other, &d.signed()).unwrap_err();
    assert!(failure.receipt[0].contains("signed with key"), "{failure}");
    // Signed by another key that claims this key's id.
    let mut forged = sign(&[7u8; 32], d.signed());
    forged.key_id = r.key_id.clone();
    let failure = receipt::check(&forged, &public_key(&s), &d.signed()).unwrap_err();
    assert_eq!(
        failure.receipt,
        ["the signature does not hold over the signed fields"]
    );
    let mut garbled = r.clone();
    garbled.signature = "not base64!".into();
    let failure = receipt::check(&garbled, &public_key(&s), &d.signed()).unwrap_err();
    assert_eq!(failure.receipt, ["the signature is not 64 bytes of base64"]);
    // A key whose bytes do not match its id.
    let mut wrong = public_key(&s);
    wrong.public_key = other.public_key.clone();
    let failure = receipt::check(&r, &wrong, &d.signed()).unwrap_err();
    assert_eq!(
        failure.receipt,
        ["the public key does not match its key_id"]
    );
}
