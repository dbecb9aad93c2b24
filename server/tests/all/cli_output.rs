//! The command line never panics on output or on endless input: a full disk and a closed pipe
//! are reported (exit 1 with a message; exit 141, silently, for the pipe), FIFOs and character
//! devices are held to the input limit by the bytes read, and an empty taxonomy is an error.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::support::{golden_dir, score_fails};

fn temp(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("scorebench-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A pairs file whose JSON report (with samples) is `rows` records long.
fn pairs_file(dir: &std::path::Path, rows: usize) -> PathBuf {
    let path = dir.join("pairs.jsonl");
    let text: String = (0..rows)
        .map(|i| format!("{{\"gold\": {}, \"pred\": {}}}\n", i % 4, (i / 3) % 4))
        .collect();
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_full_disk_is_an_error_not_a_panic() {
    let dir = temp("cli-full");
    let file = pairs_file(&dir, 2);
    for format in [["--json", ""], ["--format", "csv"], ["--format", "table"]] {
        let args: Vec<&str> = ["score", "pairs", file.to_str().unwrap()]
            .into_iter()
            .chain(format.into_iter().filter(|a| !a.is_empty()))
            .collect();
        let out = Command::new(env!("CARGO_BIN_EXE_scorebench"))
            .args(&args)
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(
            stderr.contains("error: cannot write to stdout: No space left on device"),
            "{stderr}"
        );
    }
}

#[test]
fn a_closed_pipe_ends_quietly_with_141() {
    let dir = temp("cli-pipe");
    // More than a pipe buffer (64 KiB) of report, so the writer meets the closed end.
    let file = pairs_file(&dir, 20_000);
    let mut child = Command::new(env!("CARGO_BIN_EXE_scorebench"))
        .args([
            "score",
            "pairs",
            file.to_str().unwrap(),
            "--json",
            "--samples",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(141), "{stderr}");
    assert!(
        stderr.is_empty(),
        "a closed pipe is not an error to report: {stderr}"
    );
}

#[test]
fn endless_inputs_stop_at_the_limit() {
    // A character device that never ends: read up to the 1 GiB limit, then a clean error.
    let stderr = score_fails(&["score", "pairs", "/dev/zero"]);
    assert!(
        stderr.contains(&format!(
            "/dev/zero: file is larger than the limit of {} bytes",
            server::score::MAX_FILE_BYTES
        )),
        "{stderr}"
    );
    // A FIFO reports size 0 too; an endless writer is cut off at the limit.
    let dir = temp("cli-fifo");
    let fifo = dir.join("endless.jsonl");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let writer_path = fifo.clone();
    let writer = std::thread::spawn(move || {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(&writer_path)
            .unwrap();
        let line = b"{\"gold\": 1, \"pred\": 1}\n".repeat(1000);
        // Writes until the reader closes its end.
        while f.write_all(&line).is_ok() {}
    });
    let limit = 1 << 20;
    let err = match server::score::load_with_limit(&fifo, limit) {
        Ok(file) => panic!("read {} bytes from an endless FIFO", file.bytes.len()),
        Err(e) => e.to_string(),
    };
    writer.join().unwrap();
    assert!(
        err.ends_with(&format!("file is larger than the limit of {limit} bytes")),
        "{err}"
    );
    // The same for the streaming reader the scorers use.
    let writer_path = fifo.clone();
    let writer = std::thread::spawn(move || {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(&writer_path)
            .unwrap();
        let line = b"{\"gold\": 1, \"pred\": 1}\n".repeat(1000);
        while f.write_all(&line).is_ok() {}
    });
    let read = server::score::open_with_limit(&fifo, limit)
        .unwrap()
        .read(|name, text| metrics_core::pairs::parse_pairs(name, text));
    let err = match read {
        Ok((pairs, _)) => panic!("read {} pairs from an endless FIFO", pairs.gold.len()),
        Err(e) => e.to_string(),
    };
    writer.join().unwrap();
    assert!(
        err.ends_with(&format!("file is larger than the limit of {limit} bytes")),
        "{err}"
    );
    // A FIFO with a finite writer is an input like any other.
    let writer_path = fifo.clone();
    let writer = std::thread::spawn(move || {
        std::fs::write(&writer_path, "{\"gold\": 1, \"pred\": 1}\n").unwrap();
    });
    let file = server::score::load_with_limit(&fifo, limit).unwrap();
    writer.join().unwrap();
    assert_eq!(file.bytes, b"{\"gold\": 1, \"pred\": 1}\n");
    let writer_path = fifo.clone();
    let writer = std::thread::spawn(move || {
        std::fs::write(&writer_path, "{\"gold\": 1, \"pred\": 2}\n").unwrap();
    });
    let (pairs, input) = server::score::open_with_limit(&fifo, limit)
        .unwrap()
        .read(|name, text| metrics_core::pairs::parse_pairs(name, text))
        .unwrap();
    writer.join().unwrap();
    assert_eq!((pairs.gold, pairs.pred), (vec![1.0], vec![2.0]));
    assert_eq!(
        input,
        metrics_core::InputFile::from_bytes(
            fifo.display().to_string(),
            b"{\"gold\": 1, \"pred\": 2}\n"
        )
    );
}

#[test]
fn an_empty_taxonomy_is_an_error() {
    let dir = temp("cli-taxonomy");
    let empty = dir.join("error_type.jsonl");
    std::fs::write(&empty, "\n  \n").unwrap();
    let prediction = golden_dir_case().join("7_Math_ShortAns_prediction.jsonl");
    let stderr = score_fails(&[
        "score",
        "sasbench",
        "--taxonomy",
        empty.to_str().unwrap(),
        prediction.to_str().unwrap(),
    ]);
    assert!(
        stderr.contains(&format!(
            "{}: the taxonomy is empty",
            empty.to_str().unwrap()
        )),
        "{stderr}"
    );
}

fn golden_dir_case() -> PathBuf {
    golden_dir().join("sasbench/case_01/datasets_GoldenModel_Scored")
}
