//! `scorebench score` reads its inputs as streams and keeps compact typed records (issue 13,
//! item 8; issue 16, item 2): its peak memory stays well under the input. Each case scores a
//! ~40 MB generated file and reads the process's peak RSS (`VmHWM`) while it runs; the bound
//! is half the input plus 48 MiB for the process itself (reading the file whole needed ~2×,
//! a whole-file `serde_json::Value` tree ~10×).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::json;

const TARGET_BYTES: usize = 40_000_000;

/// A scratch directory of the test's own, removed with what the test wrote (~40 MB a case) when
/// it is dropped, also when the test fails.
fn dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("scorebench-cli-memory-")
        .tempdir()
        .unwrap()
}

/// A JSON array of `record(i)` for i = 0, 1, … until the file has `TARGET_BYTES`; returns the
/// count.
fn write_array(path: &Path, record: impl Fn(usize) -> serde_json::Value) -> usize {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let (mut written, mut n) = (0, 0);
    out.write_all(b"[\n").unwrap();
    while written < TARGET_BYTES {
        let line = format!("{}{}", if n > 0 { ",\n" } else { "" }, record(n));
        out.write_all(line.as_bytes()).unwrap();
        written += line.len();
        n += 1;
    }
    out.write_all(b"\n]\n").unwrap();
    n
}

/// ~`chars` characters of filler text that differs per record.
fn text(i: usize, chars: usize) -> String {
    let word = format!("晶体 structure {i} ");
    word.repeat(chars / word.chars().count() + 1)
}

/// Peak RSS (`VmHWM`, bytes) of `scorebench args…`, sampled until it exits; asserts exit 0.
fn peak_rss(args: &[&str]) -> u64 {
    let mut child = Command::new(env!("CARGO_BIN_EXE_scorebench"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read stderr while the process runs: warnings must not fill the pipe and block it.
    let mut stderr = child.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || std::io::read_to_string(&mut stderr).unwrap());
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0;
    let status = loop {
        // VmHWM only grows while the process lives; the last reading is the peak so far.
        if let Ok(status) = std::fs::read_to_string(&status_file)
            && let Some(kib) = status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        {
            peak_kib = peak_kib.max(kib);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let stderr = stderr.join().unwrap();
    assert!(status.success(), "{args:?}: {stderr}");
    peak_kib * 1024
}

/// Peak RSS within half the input plus 48 MiB for the process itself.
fn assert_bounded(what: &str, input: &[&Path], args: &[&str]) {
    let bytes: u64 = input
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum();
    let peak = peak_rss(args);
    let bound = bytes / 2 + (48 << 20);
    assert!(
        peak <= bound,
        "{what}: peak RSS {} MB for {} MB of input (bound {} MB)",
        peak / 1_000_000,
        bytes / 1_000_000,
        bound / 1_000_000
    );
}

/// A JSONL file of `record(i)` lines until the file has `TARGET_BYTES`.
fn write_lines(path: &Path, record: impl Fn(usize) -> String) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let (mut written, mut n) = (0, 0);
    while written < TARGET_BYTES {
        let line = format!("{}\n", record(n));
        out.write_all(line.as_bytes()).unwrap();
        written += line.len();
        n += 1;
    }
}

#[test]
fn eotgc_gold_and_predictions_stay_within_a_small_multiple_of_the_input() {
    let dir = dir();
    let (gold, pred) = (dir.path().join("gold.json"), dir.path().join("pred.json"));
    let levels = ["优秀", "较好", "一般", "合格", "不合格"];
    let n = write_array(&gold, |i| {
        json!({"id": i, "grade": "5", "requirement": text(i, 200), "title": "t",
               "content": text(i, 3000), "classification": levels[i % 5]})
    });
    let preds: Vec<_> = (0..n)
        .map(|i| json!({"id": i, "classification": levels[(i + 1) % 5]}))
        .collect();
    std::fs::write(&pred, serde_json::to_vec(&preds).unwrap()).unwrap();
    let (g, p) = (gold.to_str().unwrap(), pred.to_str().unwrap());
    assert_bounded(
        "eotgc",
        &[&gold, &pred],
        &["score", "eotgc", "--json", "--gold", g, p],
    );
}

#[test]
fn msqa_evaluation_and_paper_rule_stay_within_a_small_multiple_of_the_input() {
    let dir = dir();
    let path = dir.path().join("evaluation.json");
    write_array(&path, |i| {
        json!({"id": format!("{i:032x}"), "task": "Material", "subtask": "s", "question": text(i, 300),
               "generation": {"reasoning_content": text(i, 2500), "content": "YES"},
               "gold": "YES", "pred": "YES", "result": true,
               "usage": {"completion_tokens": 7, "finish_reason": "stop"}})
    });
    let p = path.to_str().unwrap();
    assert_bounded("msqa", &[&path], &["score", "msqa", "--json", p]);
    assert_bounded(
        "msqa --variant paper",
        &[&path],
        &["score", "msqa", "--json", "--variant", "paper", p],
    );
}

#[test]
fn sgi_deep_research_log_stays_within_a_small_multiple_of_the_input() {
    let dir = dir();
    let path = dir.path().join("deep_research.json");
    write_array(&path, |i| {
        json!({"idx": format!("DR_{i}"), "question": text(i, 400), "steps": [text(i, 600)],
               "answer": "1.25", "discipline": "physics",
               "model_answer_with_thinking": format!("{}<answer>1.25</answer>", text(i, 1500)),
               "model_answer": "1.25", "model_answer_after_llm_paser": "1.25"})
    });
    let p = path.to_str().unwrap();
    assert_bounded(
        "sgi-deep-research",
        &[&path],
        &["score", "sgi-deep-research", "--json", p],
    );
}

#[test]
fn pairs_jsonl_stays_well_under_the_input() {
    let dir = dir();
    let path = dir.path().join("pairs.jsonl");
    write_lines(&path, |i| {
        json!({"gold": i % 5, "pred": (i / 3) % 5, "note": text(i, 40)}).to_string()
    });
    let p = path.to_str().unwrap();
    assert_bounded("pairs", &[&path], &["score", "pairs", "--json", p]);
}

#[test]
fn sasbench_predictions_stay_well_under_the_input() {
    // The golden predictions of one subject, repeated with padded questions.
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/sasbench/case_01");
    let taxonomy = golden.join("datasets/error_type.jsonl");
    let records: Vec<serde_json::Value> = std::fs::read_to_string(
        golden.join("datasets_GoldenModel_Scored/7_Math_ShortAns_prediction.jsonl"),
    )
    .unwrap()
    .lines()
    .filter(|l| !l.trim().is_empty())
    .map(|l| serde_json::from_str(l).unwrap())
    .collect();
    let dir = dir();
    let path = dir.path().join("7_Math_ShortAns_prediction.jsonl");
    write_lines(&path, |i| {
        let mut record = records[i % records.len()].clone();
        record["id"] = json!(format!("{}_{i}", record["id"].as_str().unwrap_or("r")));
        record["question"] = json!(text(i, 1500));
        record.to_string()
    });
    let (t, p) = (taxonomy.to_str().unwrap(), path.to_str().unwrap());
    assert_bounded(
        "sasbench",
        &[&path],
        &["score", "sasbench", "--json", "--taxonomy", t, p],
    );
}

#[test]
fn sgi_wet_log_stays_well_under_the_input() {
    let dir = dir();
    let path = dir.path().join("wet.json");
    write_array(&path, |i| {
        json!({"idx": format!("WE_{i}"), "question": text(i, 1500), "discipline": "life",
               "answer": "x = <Mix>(\n    a=1\n)\n",
               "model_answer_with_thinking": text(i, 1500),
               "model_answer": "x = <Mix>(\n    a=1\n)"})
    });
    let p = path.to_str().unwrap();
    assert_bounded("sgi-wet", &[&path], &["score", "sgi-wet", "--json", p]);
}

/// The records of a golden SGI-Bench log (`null` entries left out).
fn golden_sgi_records(log: &str) -> Vec<serde_json::Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/golden/sgibench")
        .join(log);
    let records: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    records.into_iter().filter(|r| r.is_object()).collect()
}

/// A log of the golden `records` repeated until it has `TARGET_BYTES` (each with its own idx
/// and a padded question, as the official logs carry the dataset's texts).
fn write_repeated_log(path: &Path, records: &[serde_json::Value]) {
    write_array(path, |i| {
        let mut record = records[i % records.len()].clone();
        let idx = record["idx"].as_str().unwrap_or("r").to_owned();
        record["idx"] = json!(format!("{idx}_{i}"));
        record["question"] = json!(text(i, 1500));
        record
    });
}

#[test]
fn sgi_dry_log_stays_well_under_the_input() {
    // Step-4 records: five unit runs with their outputs per record.
    let dir = dir();
    let path = dir.path().join("dry.json");
    write_repeated_log(
        &path,
        &golden_sgi_records("dry_experiment/dry_01_all_exact/step4_input.json"),
    );
    let p = path.to_str().unwrap();
    assert_bounded("sgi-dry", &[&path], &["score", "sgi-dry", "--json", p]);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn sgi_idea_log_stays_well_under_the_input() {
    // Step-1 records (dataset row + generated idea): feasibility is computed per record.
    let dir = dir();
    let path = dir.path().join("idea.json");
    write_repeated_log(
        &path,
        &golden_sgi_records("idea_generation/idea_01_json_full_win/step2_input.json"),
    );
    let p = path.to_str().unwrap();
    assert_bounded("sgi-idea", &[&path], &["score", "sgi-idea", "--json", p]);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn sgi_score_input_and_five_logs_stay_well_under_the_input() {
    // The five scored logs of a golden case (without its crashing idea record), each repeated
    // to a fifth of the size: as one combined object, and as five files.
    let golden = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/golden/sgibench/sgi_score/sgi_02_idea_error_record_crash/input.json");
    let input: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(golden).unwrap()).unwrap();
    let dir = dir();
    let mut logs = Vec::new();
    for (n, (key, records)) in input.iter().enumerate() {
        let records: Vec<serde_json::Value> = records
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r.get("error").is_none())
            .cloned()
            .collect();
        let path = dir.path().join(format!("sgi-score-{n}.json"));
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        out.write_all(b"[\n").unwrap();
        let mut written = 0;
        for i in 0.. {
            let mut record = records[i % records.len()].clone();
            record["question"] = json!(text(i, 1500));
            let line = format!("{}{record}", if i > 0 { ",\n" } else { "" });
            out.write_all(line.as_bytes()).unwrap();
            written += line.len();
            if written >= TARGET_BYTES / 5 {
                break;
            }
        }
        out.write_all(b"\n]\n").unwrap();
        drop(out);
        logs.push((key.clone(), path));
    }
    let combined = dir.path().join("sgi-score.json");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&combined).unwrap());
    for (n, (key, path)) in logs.iter().enumerate() {
        let head = if n == 0 { "{" } else { ",\n" };
        write!(out, "{head}{}: ", json!(key)).unwrap();
        out.write_all(&std::fs::read(path).unwrap()).unwrap();
    }
    out.write_all(b"}\n").unwrap();
    drop(out);
    let c = combined.to_str().unwrap();
    assert_bounded(
        "sgi-score",
        &[&combined],
        &["score", "sgi-score", "--json", c],
    );
    let paths: Vec<&Path> = logs.iter().map(|(_, p)| p.as_path()).collect();
    let p: Vec<&str> = paths.iter().map(|p| p.to_str().unwrap()).collect();
    assert_bounded(
        "sgi-score (five logs)",
        &paths,
        &[
            "score",
            "sgi-score",
            "--json",
            "--deep-research",
            p[0],
            "--idea",
            p[1],
            "--dry",
            p[2],
            "--wet",
            p[3],
            "--reasoning",
            p[4],
        ],
    );
    for path in paths.iter().chain([&combined.as_path()]) {
        std::fs::remove_file(path).unwrap();
    }
}
