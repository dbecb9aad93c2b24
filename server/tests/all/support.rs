//! Shared helpers: run the real `scorebench` binary, find the golden vectors.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Output, Stdio};

/// `tests/golden/` at the workspace root.
pub fn golden_dir() -> PathBuf {
    testkit::root()
}

/// Run `scorebench` with `args`; returns the process output.
pub fn scorebench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scorebench"))
        .args(args)
        .output()
        .expect("scorebench runs")
}

/// Start a `scorebench serve …` command (stdout piped, stderr discarded) and read the line it
/// prints first, `scorebench listening on http://127.0.0.1:PORT/`: the child and that URL's
/// `host:port`.
pub fn start_serving(mut command: Command) -> (Child, String) {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("scorebench serve starts");
    let mut first_line = String::new();
    BufReader::new(child.stdout.take().expect("stdout is piped"))
        .read_line(&mut first_line)
        .expect("the server prints its URL");
    let host = first_line
        .trim()
        .strip_prefix("scorebench listening on http://")
        .unwrap_or_else(|| panic!("not the URL line: {first_line:?}"))
        .trim_end_matches('/')
        .to_string();
    (child, host)
}

/// Stop a server with SIGTERM (its graceful shutdown); its exit status.
pub fn sigterm(child: &mut Child) -> ExitStatus {
    let sent = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success(), "kill -TERM {}", child.id());
    child.wait().expect("the server exits")
}

/// Run `scorebench … --json`, assert exit 0, parse stdout.
pub fn score_json(args: &[&str]) -> serde_json::Value {
    let out = scorebench(args);
    assert!(
        out.status.success(),
        "scorebench {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

/// Run `scorebench`, assert exit status 2 with nothing on stdout; returns stderr.
pub fn score_fails(args: &[&str]) -> String {
    let out = scorebench(args);
    assert_eq!(
        out.status.code(),
        Some(2),
        "expected exit 2 for {args:?}; stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(out.stdout.is_empty(), "stdout must be empty on error");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    stderr
}

/// `|a − b| ≤ tol`, treating two NaNs / two nulls as equal.
pub fn close(a: Option<f64>, b: Option<f64>, tol: f64) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (a.is_nan() && b.is_nan()) || (a - b).abs() <= tol,
        (None, None) => true,
        _ => false,
    }
}
