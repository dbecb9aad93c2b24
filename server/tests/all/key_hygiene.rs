//! The key never leaves the server: the real `scorebench serve --config` and `scorebench run`
//! with debug logging, every response, both processes' stdout and stderr, every file they wrote
//! (outputs, logs, the SQLite database with its WAL) are searched for the key's bytes.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::mock_upstream::{Fail, MockUpstream};
use crate::proxy::{KEY, temp_dir};
use crate::run_msqa::{scorebench_cmd, write_config};
use crate::support::golden_dir;

/// One HTTP/1.1 request on a fresh connection; returns the whole raw response.
pub fn http(host: &str, method: &str, path: &str, body: Option<&Value>) -> String {
    let mut stream = TcpStream::connect(host).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Authorization: Bearer client-key\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

fn files_containing(dir: &Path, needle: &[u8], found: &mut Vec<String>, count: &mut usize) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_containing(&path, needle, found, count);
        } else {
            *count += 1;
            let bytes = std::fs::read(&path).unwrap();
            if bytes.windows(needle.len()).any(|w| w == needle) {
                found.push(path.display().to_string());
            }
        }
    }
}

#[test]
fn the_key_is_in_no_response_log_file_or_database() {
    let case = golden_dir().join("msqa/msqa_04_truncation_and_failures");
    let mock = MockUpstream::from_mock_api(
        &serde_json::from_str(&std::fs::read_to_string(case.join("mock_api.json")).unwrap())
            .unwrap(),
    );
    let dir = temp_dir("key-hygiene");
    let config = write_config(&dir, &mock);
    let db = dir.join("data/db.sqlite3");
    let mut child = scorebench_cmd(&[
        "serve",
        "--addr",
        "127.0.0.1:0",
        "--db",
        db.to_str().unwrap(),
        "--dist",
        dir.join("dist").to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        "--runs-dir",
        dir.join("runs").to_str().unwrap(),
    ])
    .env("RUST_LOG", "trace")
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first_line = String::new();
    stdout.read_line(&mut first_line).unwrap();
    let host = first_line
        .trim()
        .trim_start_matches("scorebench listening on http://")
        .trim_end_matches('/')
        .to_string();

    let mut responses = Vec::new();
    let chat =
        |q: &str| json!({"model": "test-model", "messages": [{"role": "user", "content": q}]});
    responses.push(http(&host, "GET", "/api/v1/models", None));
    responses.push(http(
        &host,
        "POST",
        "/api/v1/chat/completions",
        Some(&chat("a")),
    ));
    responses.push(http(
        &host,
        "POST",
        "/api/v1/chat/completions",
        Some(&chat("a")),
    ));
    mock.fail_next(&[Fail::Status(500), Fail::Status(500), Fail::Status(500)]);
    responses.push(http(
        &host,
        "POST",
        "/api/v1/chat/completions",
        Some(&chat("b")),
    ));
    mock.fail_next(&[Fail::Reset, Fail::Reset, Fail::Reset]);
    responses.push(http(
        &host,
        "POST",
        "/api/v1/chat/completions",
        Some(&chat("c")),
    ));
    let mut unknown = chat("c");
    unknown["model"] = json!("x");
    responses.push(http(
        &host,
        "POST",
        "/api/v1/chat/completions",
        Some(&unknown),
    ));
    responses.push(http(
        &host,
        "POST",
        "/api/v1/embeddings",
        Some(&json!({"model": "test-model", "input": "e"})),
    ));
    let mut stream_body = chat("s");
    stream_body["stream"] = json!(true);
    responses.push(http(
        &host,
        "POST",
        "/api/v1/chat/completions",
        Some(&stream_body),
    ));
    // A run over HTTP, watched to the end, and its files fetched.
    let dataset: Value = serde_json::from_str(
        &std::fs::read_to_string(case.join("dataset/MSQA_Dataset.json")).unwrap(),
    )
    .unwrap();
    let started = http(
        &host,
        "POST",
        "/api/v1/runs",
        Some(
            &json!({"benchmark": "msqa", "model": "test-model", "dataset": dataset, "retry_wait_ms": 0}),
        ),
    );
    assert!(started.starts_with("HTTP/1.1 202"), "{started}");
    let id = {
        let body = started.split("\r\n\r\n").nth(1).unwrap();
        let v: Value = serde_json::from_str(body).unwrap();
        v["id"].as_str().unwrap().to_string()
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let r = http(&host, "GET", &format!("/api/v1/runs/{id}"), None);
        let finished = r.contains("\"state\":\"finished\"");
        responses.push(r);
        if finished {
            break;
        }
        assert!(Instant::now() < deadline, "run did not finish");
        std::thread::sleep(Duration::from_millis(50));
    }
    for name in [
        "evaluation.json",
        "score.json",
        "subtasks.json",
        "evaluation.log",
    ] {
        let r = http(
            &host,
            "GET",
            &format!("/api/v1/runs/{id}/files/{name}"),
            None,
        );
        assert!(r.starts_with("HTTP/1.1 200"), "{name}: {r}");
        responses.push(r);
    }

    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(child.wait().unwrap().success());

    // The CLI too, on the same database.
    let cli = scorebench_cmd(&[
        "run",
        "msqa",
        "--config",
        config.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--dataset",
        case.join("dataset/MSQA_Dataset.json").to_str().unwrap(),
        "--model",
        "test-model",
        "--retry-wait-ms",
        "0",
        "--out",
        dir.join("cli-out").to_str().unwrap(),
    ])
    .env("RUST_LOG", "trace")
    .output()
    .unwrap();
    assert!(cli.status.success());

    // The key really was used upstream...
    assert!(
        mock.state
            .auth_seen
            .lock()
            .unwrap()
            .iter()
            .all(|a| a == &format!("Bearer {KEY}"))
    );
    assert!(
        stderr.len() > 1000,
        "debug logging was on: {}",
        stderr.len()
    );
    // ...and is nowhere else.
    for (what, text) in [
        ("responses", responses.join("\n")),
        ("serve stdout", format!("{first_line}{rest}")),
        ("serve stderr", stderr),
        (
            "run stdout",
            String::from_utf8_lossy(&cli.stdout).into_owned(),
        ),
        (
            "run stderr",
            String::from_utf8_lossy(&cli.stderr).into_owned(),
        ),
    ] {
        assert!(!text.contains(KEY), "the key is in the {what}");
        assert!(!text.contains("SECRET"), "part of the key is in the {what}");
    }
    let mut found = Vec::new();
    let mut count = 0;
    files_containing(&dir, KEY.as_bytes(), &mut found, &mut count);
    assert!(count >= 9, "searched {count} files");
    // The config names the variable, not the key; nothing else may hold it.
    assert!(found.is_empty(), "the key is in {found:?}");
    // The database with its write-ahead log (where recent pages are until a checkpoint).
    let mut db_bytes = std::fs::read(&db).unwrap();
    db_bytes.extend(std::fs::read(db.with_extension("sqlite3-wal")).unwrap_or_default());
    assert!(db_bytes.len() > 4096);
    assert!(
        db_bytes.windows(12).any(|w| w == b"chatcmpl-moc"),
        "the replies are stored"
    );
    assert!(!db_bytes.windows(6).any(|w| w == b"SECRET"));
    assert!(responses.iter().all(|r| !r.contains("client-key")));
}
