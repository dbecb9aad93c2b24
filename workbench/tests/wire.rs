//! The wire types read back what they write, in every shape the server sends: an entry on an
//! open board and on a competition board (with and without the owner's queue fields), a
//! submission scored at once and one queued.
#![allow(clippy::unwrap_used)] // a panic is how these tests report a mismatch

use serde_json::{Value, json};
use workbench::wire::runs::{Field, FieldKind, RunProgress, RunState};
use workbench::wire::{EntryDetail, FileIn, Status, Submit, Submitted};

fn entry(extra: Value) -> Value {
    let mut v = json!({
        "board": "b", "benchmark": "pairs", "variant": "official", "entry": 3,
        "model": "m", "meta": {"k": "v"}, "status": "verified",
        "metrics": {"qwk": 0.5, "pearson": null}, "inputs": [], "gold": [],
        "submitted": "2026-11-27T00:00:00Z", "scorer": {"version": "1"},
        "table": null, "report": null,
    });
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v
}

#[test]
fn an_open_board_entry_has_a_state_and_no_competition() {
    let v = entry(json!({"state": "hidden"}));
    let e: EntryDetail = serde_json::from_value(v.clone()).unwrap();
    assert_eq!(e.state, Some(workbench::wire::State::Hidden));
    assert_eq!(e.metrics["pearson"], None);
    assert!(e.metrics_on.is_none() && e.attempts.is_none() && !e.hidden_gold());
    assert_eq!(serde_json::to_value(&e).unwrap(), v);
}

#[test]
fn a_competition_entry_keeps_its_fields_and_the_owners_queue_fields() {
    let competition = json!({"team": null, "metrics_on": "public share",
        "public_metrics": {"qwk": 0.5}, "private_metrics": null, "hidden_gold": true});
    let v = entry(competition.clone());
    let e: EntryDetail = serde_json::from_value(v.clone()).unwrap();
    assert!(e.hidden_gold() && e.state.is_none() && e.attempts.is_none());
    assert_eq!(e.team, Some(None), "a null team is kept as present");
    assert_eq!(serde_json::to_value(&e).unwrap(), v);

    let mut owner = competition;
    for (k, x) in [
        ("reason", json!("timeout")),
        ("attempts", json!(2)),
        ("completions", json!(1)),
        ("chosen", json!(true)),
    ] {
        owner[k] = x;
    }
    let v = entry(owner);
    let e: EntryDetail = serde_json::from_value(v.clone()).unwrap();
    assert_eq!(e.attempts, Some(2));
    assert_eq!(serde_json::to_value(&e).unwrap(), v);
}

#[test]
fn a_queued_submission_answer_is_written_whole_and_read_for_its_link() {
    let queued = json!({"entry": 1, "entry_token": "t", "url": "/u", "status": "queued",
        "team": "a", "inputs": []});
    let sent = Submitted {
        entry: 1,
        entry_token: "t".into(),
        report: None,
        url: "/u".into(),
        status: Some(Status::Queued),
        team: Some(Some("a".into())),
        inputs: Some(Vec::new()),
    };
    assert_eq!(serde_json::to_value(&sent).unwrap(), queued);
    // The page reads what it links; the rest stays on the wire.
    let read: Submitted = serde_json::from_value(queued).unwrap();
    assert_eq!(
        (read.entry, read.url.as_str(), read.status),
        (1, "/u", None)
    );
}

#[test]
fn a_submission_sends_text_or_base64_and_only_what_it_has() {
    let body = Submit::<String> {
        model: "m".into(),
        meta: Default::default(),
        files: vec![FileIn {
            name: "a.json".into(),
            text: Some("[]".into()),
            base64: None,
            sha256: None,
        }],
        client_report: None,
    };
    assert_eq!(
        serde_json::to_value(&body).unwrap(),
        json!({"model": "m", "meta": {}, "files": [{"name": "a.json", "text": "[]"}]})
    );
    let read: Submit =
        serde_json::from_value(json!({"model": "m", "files": [{"name": "b", "base64": "AA=="}]}))
            .unwrap();
    assert_eq!(read.files[0].base64.as_deref(), Some("AA=="));
}

#[test]
fn run_progress_and_forms_read_what_the_server_writes() {
    let p = json!({"id": "r", "benchmark": "msqa", "model": "m", "state": "interrupted",
        "done": 1, "total": 2, "reused": 0, "failed": 0, "elapsed_s": 1.5, "rate_per_s": null,
        "eta_s": null, "usage": {"model": {"upstream_calls": 1, "cache_hits": 0, "prompt_tokens": 3,
        "completion_tokens": 4, "cost": null}, "judge": {"upstream_calls": 0, "cache_hits": 0,
        "prompt_tokens": 0, "completion_tokens": 0, "cost": null}}, "error": null, "files": []});
    let read: RunProgress = serde_json::from_value(p.clone()).unwrap();
    assert!(read.state.is_resumable() && !read.state.is_live());
    assert_eq!(RunState::parse(read.state.as_str()), read.state);
    assert_eq!(serde_json::to_value(&read).unwrap(), p);
    let f = Field::with(
        "few_shot",
        FieldKind::Choice,
        "few-shot",
        false,
        Some(0),
        &[0, 1],
    );
    let v = serde_json::to_value(&f).unwrap();
    assert_eq!(
        v,
        json!({"name": "few_shot", "type": "choice", "label": "few-shot", "required": false, "default": 0, "choices": [0, 1]})
    );
    assert_eq!(serde_json::from_value::<Field>(v).unwrap(), f);
    assert_eq!(f.kind.as_str(), "choice");
}
