//! Replaying a fuzz corpus in an ordinary `cargo test`: every file under
//! `fuzz/corpus/<target>/` through `run(target, bytes)`, each on its own thread with a time
//! limit, so a panic names the file and a hang fails instead of blocking CI.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// Longest time one input may take (a debug build; the fuzzer's own limit is 10 s).
const LIMIT: Duration = Duration::from_secs(20);

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus")
}

/// Replay every target's corpus; returns the number of inputs replayed.
pub fn replay_all(targets: &[&'static str], run: fn(&str, &[u8])) -> usize {
    let mut count = 0;
    let mut failures = Vec::new();
    for &target in targets {
        let dir = corpus_dir().join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            failures.push(format!("{}: no corpus", dir.display()));
            continue;
        };
        let mut files: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        files.sort();
        for file in files {
            let data = std::fs::read(&file).unwrap_or_default();
            let (done, finished) = mpsc::channel();
            let worker = std::thread::Builder::new()
                .stack_size(8 << 20)
                .spawn(move || {
                    run(target, &data);
                    let _ = done.send(());
                });
            let ok = match worker {
                Ok(handle) => match finished.recv_timeout(LIMIT) {
                    Ok(()) => handle.join().is_ok(),
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        failures.push(format!("{}: longer than {LIMIT:?}", file.display()));
                        continue;
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => false, // it panicked
                },
                Err(e) => {
                    failures.push(format!("{}: {e}", file.display()));
                    continue;
                }
            };
            if !ok {
                failures.push(format!("{}: panicked", file.display()));
            }
            count += 1;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    count
}
