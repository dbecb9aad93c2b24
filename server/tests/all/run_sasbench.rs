//! `scorebench run sasbench` (the real binary) against the mock upstream, checked against the
//! OFFICIAL step 1: `server/tests/data/sasbench_step1/make.sh` ran the unmodified
//! `sas_pipelines/1_predict_scores.py` of PKU-DAIR/SAS-Bench (4ef718b) over golden dataset
//! folders with a stub model client, recording every prompt it sent and the reply it got
//! (`calls.jsonl`) and keeping the `_scored.jsonl` files it wrote (`out/`). Here the mock answers
//! exactly those prompts with those replies (any other prompt gets "YES", which would show in
//! the files), so:
//! - the prompts scorebench sends are byte for byte the official ones (zero-shot over three
//!   files, three few-shot examples, records with no steps, two few-shot examples with another
//!   seed and no guideline), each asked once;
//! - the files it writes are byte for byte the official files, and `scorebench score sasbench
//!   --dataset` gives the same report for both;
//! - a run killed halfway and resumed by id asks nothing twice but the request in flight.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::mock_upstream::MockUpstream;
use crate::proxy::temp_dir;
use crate::run_msqa::{scorebench_cmd, write_config};
use crate::support::golden_dir;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/sasbench_step1")
        .join(name)
}

/// The official calls of a fixture: (prompt, reply) in call order.
fn calls(name: &str) -> Vec<(String, String)> {
    std::fs::read_to_string(fixture(name).join("calls.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (
                v["prompt"].as_str().unwrap().to_string(),
                v["reply"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn mock_for(calls: &[(String, String)]) -> MockUpstream {
    let table = calls
        .iter()
        .map(|(prompt, reply)| {
            (
                prompt.clone(),
                json!({"content": reply, "reasoning_content": null, "finish_reason": "stop", "completion_tokens": 7}),
            )
        })
        .collect();
    MockUpstream::start(table)
}

fn sorted_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

/// `score sasbench --dataset` of `files`, without the input names and hashes.
fn score(dataset: &Path, files: &[PathBuf]) -> Value {
    let mut argv = vec![
        "score".to_string(),
        "sasbench".into(),
        "--dataset".into(),
        dataset.display().to_string(),
        "--json".into(),
    ];
    argv.extend(files.iter().map(|f| f.display().to_string()));
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let output = scorebench_cmd(&argv).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut report: Value = serde_json::from_slice(&output.stdout).unwrap();
    report.as_object_mut().unwrap().remove("inputs");
    report
}

#[test]
fn prompts_and_files_are_the_official_ones() {
    for (name, case, few_shot, seed, guideline) in [
        ("zero_shot", "case_10", "0", "0", true),
        ("few_shot", "case_06", "3", "0", true),
        ("zero_steps", "case_14", "0", "0", true),
        ("few_shot_2_no_guideline", "case_06", "2", "5", false),
    ] {
        let options: Vec<&str> = if guideline {
            vec!["--few-shot", few_shot, "--seed", seed]
        } else {
            vec!["--few-shot", few_shot, "--seed", seed, "--no-guideline"]
        };
        let calls = calls(name);
        let mock = mock_for(&calls);
        let dir = temp_dir(&format!("run-sas-{name}"));
        let config = write_config(&dir, &mock);
        let db = dir.join("db.sqlite3");
        let out = dir.join("out");
        let dataset = golden_dir().join("sasbench").join(case).join("datasets");
        let mut argv = vec![
            "run",
            "sasbench",
            "--config",
            config.to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
            "--dataset",
            dataset.to_str().unwrap(),
            "--model",
            "test-model",
            "--out",
            out.to_str().unwrap(),
        ];
        argv.extend(&options);
        let output = scorebench_cmd(
            &[argv.as_slice(), &["--workers", "4", "--retry-wait-ms", "0"]].concat(),
        )
        .output()
        .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{name}: {stderr}");
        // Every official prompt asked once, and nothing else.
        assert_eq!(mock.calls(), calls.len(), "{name}");
        for (prompt, _) in &calls {
            assert_eq!(mock.calls_for(prompt), 1, "{name}: {prompt}");
        }
        // The files, byte for byte.
        let official = sorted_files(&fixture(name).join("out"));
        let ours = sorted_files(&out);
        assert_eq!(
            ours.iter().map(|p| p.file_name()).collect::<Vec<_>>(),
            official.iter().map(|p| p.file_name()).collect::<Vec<_>>(),
            "{name}"
        );
        for (a, b) in ours.iter().zip(&official) {
            assert_eq!(
                std::fs::read_to_string(a).unwrap(),
                std::fs::read_to_string(b).unwrap(),
                "{name}: {}",
                a.display()
            );
        }
        // `score sasbench --dataset` reads them, with the numbers of the official files.
        assert_eq!(score(&dataset, &ours), score(&dataset, &official), "{name}");
        // Again: the files are kept, nothing is asked.
        let again = scorebench_cmd(&argv).output().unwrap();
        assert!(again.status.success(), "{name}");
        assert_eq!(mock.calls(), calls.len(), "{name}: asked again");
        for (a, b) in ours.iter().zip(&official) {
            assert_eq!(
                std::fs::read(a).unwrap(),
                std::fs::read(b).unwrap(),
                "{name}"
            );
        }
    }
}

/// 50 prompts at 120 ms each with one worker; SIGKILL after 6 calls; `run resume <id>`
/// finishes with the official files, and only the request in flight at the kill is asked twice.
#[test]
fn a_killed_run_resumes_by_id_without_asking_again() {
    let calls = calls("zero_shot");
    let mock = mock_for(&calls);
    mock.state
        .delay_ms
        .store(120, std::sync::atomic::Ordering::SeqCst);
    let dir = temp_dir("run-sas-kill");
    let config = write_config(&dir, &mock);
    let db = dir.join("db.sqlite3");
    let out = dir.join("out");
    let dataset = golden_dir().join("sasbench/case_10/datasets");
    let mut child = scorebench_cmd(&[
        "run",
        "sasbench",
        "--config",
        config.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--dataset",
        dataset.to_str().unwrap(),
        "--model",
        "test-model",
        "--workers",
        "1",
        "--out",
        out.to_str().unwrap(),
    ])
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while mock.calls() < 6 {
        assert!(Instant::now() < deadline, "the run never got going");
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let before = mock.calls();
    assert!(before < calls.len());
    let conn = server::db::open(&db).unwrap();
    let id: String = conn
        .query_row("SELECT id FROM run", [], |r| r.get(0))
        .unwrap();
    drop(conn);
    mock.state
        .delay_ms
        .store(0, std::sync::atomic::Ordering::SeqCst);
    let resumed = scorebench_cmd(&["run", "resume", &id, "--db", db.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    let twice = calls.iter().filter(|(p, _)| mock.calls_for(p) == 2).count();
    assert!(twice <= 1, "{twice} prompts asked twice");
    assert_eq!(mock.calls(), calls.len() + twice);
    for (p, _) in &calls {
        assert!(mock.calls_for(p) >= 1);
    }
    let official = sorted_files(&fixture("zero_shot").join("out"));
    for b in &official {
        let a = out.join(b.file_name().unwrap());
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(b).unwrap());
    }
}

/// `POST /api/v1/runs {"benchmark": "sasbench", "dataset": [{name, text}], …}`: the files the
/// page sends; the run writes the official files (downloadable), and its form is listed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_the_dataset_files_travel_in_the_body() {
    use axum::http::StatusCode;

    use crate::proxy::{send, state_with};

    let calls = calls("few_shot");
    let mock = mock_for(&calls);
    let (state, _) = state_with(&mock, "runs-sas-http", "");
    let dataset = golden_dir().join("sasbench/case_06/datasets");
    let files: Vec<Value> = ["error_type.jsonl", "3_Geography_ShortAns.jsonl"]
        .iter()
        .map(|name| json!({"name": name, "text": std::fs::read_to_string(dataset.join(name)).unwrap()}))
        .collect();

    let (status, _, body) = send(&state, "GET", "/api/v1/runs/kinds", &[], None).await;
    assert_eq!(status, StatusCode::OK);
    let kinds: Value = serde_json::from_str(&body).unwrap();
    let kind = kinds["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["key"] == "sasbench")
        .unwrap();
    assert_eq!(kind["fields"][0]["type"], "files");

    // Bad requests are a 400 before anything is asked.
    for (request, message) in [
        (
            json!({"benchmark": "sasbench", "model": "test-model", "dataset": [files[1].clone()]}),
            "no error_type.jsonl",
        ),
        (
            json!({"benchmark": "sasbench", "model": "test-model", "dataset": [files[0].clone(), {"name": "../7_Math_ShortAns.jsonl", "text": ""}]}),
            "a file name, not a path",
        ),
        (
            json!({"benchmark": "sasbench", "model": "test-model", "dataset": [files[0].clone(), {"name": "3_Geography_ShortAns.jsonl", "text": "{\"id\": \"a\"}\nnot json\n"}]}),
            "3_Geography_ShortAns.jsonl:2: not a JSON line",
        ),
    ] {
        let (status, _, body) = send(&state, "POST", "/api/v1/runs", &[], Some(request)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert!(body.contains(message), "{body}");
    }
    assert_eq!(mock.calls(), 0);

    let (status, _, body) = send(
        &state,
        "POST",
        "/api/v1/runs",
        &[],
        Some(json!({"benchmark": "sasbench", "model": "test-model", "dataset": files, "few_shot": 3, "retry_wait_ms": 0})),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let id = serde_json::from_str::<Value>(&body).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let deadline = Instant::now() + Duration::from_secs(30);
    let finished = loop {
        let (_, _, body) = send(&state, "GET", &format!("/api/v1/runs/{id}"), &[], None).await;
        let v: Value = serde_json::from_str(&body).unwrap();
        if v["state"] == "finished" {
            break v;
        }
        assert!(Instant::now() < deadline, "{v}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(finished["total"], calls.len());
    assert_eq!(
        finished["files"],
        json!(["3_Geography_ShortAns_scored.jsonl"])
    );
    assert_eq!(mock.calls(), calls.len());
    let (status, _, body) = send(
        &state,
        "GET",
        &format!("/api/v1/runs/{id}/files/3_Geography_ShortAns_scored.jsonl"),
        &[],
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let official =
        std::fs::read_to_string(fixture("few_shot").join("out/3_Geography_ShortAns_scored.jsonl"))
            .unwrap();
    assert_eq!(body, official);
}

/// A record whose request fails every attempt is written `false`, the others are asked, and the
/// run ends failed (exit 1); resumed by id it asks only that record and ends with the official
/// files.
#[test]
fn a_record_without_a_reply_fails_the_run_and_resume_asks_it() {
    use crate::mock_upstream::Fail;

    let calls = calls("zero_steps");
    let mock = mock_for(&calls);
    mock.fail_next(&[Fail::Status(500); 3]);
    let dir = temp_dir("run-sas-fail");
    let config = write_config(&dir, &mock);
    let db = dir.join("db.sqlite3");
    let out = dir.join("out");
    let dataset = golden_dir().join("sasbench/case_14/datasets");
    let first = scorebench_cmd(&[
        "run",
        "sasbench",
        "--config",
        config.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--dataset",
        dataset.to_str().unwrap(),
        "--model",
        "test-model",
        "--workers",
        "1",
        "--retry-wait-ms",
        "0",
        "--out",
        out.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert_eq!(first.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(stderr.contains("1 record(s) got no reply"), "{stderr}");
    let file = out.join("10_Math_gapfilling_scored.jsonl");
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.lines().filter(|l| l.ends_with("\tfalse")).count(), 1);
    assert_eq!(mock.calls(), calls.len() + 2);

    let conn = server::db::open(&db).unwrap();
    let id: String = conn
        .query_row("SELECT id FROM run", [], |r| r.get(0))
        .unwrap();
    drop(conn);
    let resumed = scorebench_cmd(&["run", "resume", &id, "--db", db.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    assert_eq!(
        mock.calls(),
        calls.len() + 3,
        "only the failed record is asked"
    );
    assert_eq!(
        std::fs::read(&file).unwrap(),
        std::fs::read(fixture("zero_steps").join("out/10_Math_gapfilling_scored.jsonl")).unwrap()
    );
}
