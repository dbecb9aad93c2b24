//! Shared helpers: run the real `scorebench` binary, find the golden vectors.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

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
