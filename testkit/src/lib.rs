//! What the test suites of metrics-core, workbench and server share: the golden cases, made by
//! running the official code and copied byte for byte into `tests/golden/<benchmark>/<case>/`.
//! One loader, so every suite walks the same cases in the same order and a missing or empty
//! folder fails instead of testing nothing.

// A test helper reports a broken checkout by panicking, as the tests it serves do.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use serde_json::Value;

/// `tests/golden/` of this checkout.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden")
}

/// `tests/golden/<path>` (a benchmark's folder, a case, a file in one).
pub fn path(path: &str) -> PathBuf {
    root().join(path)
}

/// The case folders under `tests/golden/<under>` (e.g. `msqa`, `sgibench/dry_experiment`),
/// sorted by name; panics when there are none.
pub fn case_dirs(under: &str) -> Vec<PathBuf> {
    let dir = path(under);
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no golden cases under {}", dir.display());
    cases
}

/// Every file under `dir`, recursively, sorted by path.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// The files directly in `dir` whose names end with `suffix`, sorted.
pub fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.is_file() && p.to_string_lossy().ends_with(suffix))
        .collect();
    out.sort();
    out
}

/// A JSON file (a case's `expected.json`, an input).
pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A case's folder name.
pub fn name(case: &Path) -> String {
    case.file_name().unwrap().to_string_lossy().into_owned()
}
