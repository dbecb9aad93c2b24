//! How long the workbench takes on a large generic gold/pred file: 100,000 JSONL records with
//! long text fields (~100 MB, SAS-Bench-like), natively. The browser budget is 3 s for such a
//! file in wasm, which runs about 1.5–1.9× slower than native.
//!
//! ```text
//! cargo run --release -p metrics-core --example workbench_100k
//! ```
//! The file is generated in memory (a fixed LCG, so every run scores the same bytes).

use std::time::Instant;

use workbench::drill::{Filter, filter};
use workbench::registry::detect;
use workbench::registry::table;
use workbench::samples::sample_rows;
use workbench::scoring::score_files;
use workbench::session::{ScoreOptions, WorkFile};
use workbench::table::to_csv;

const RECORDS: usize = 100_000;
const TEXT_BYTES: usize = 640;

fn generate() -> Vec<u8> {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        state >> 33
    };
    let filler: String = "The student computes the force from Newton's second law, F = m·a, \
                          then converts units and states the answer. "
        .repeat(TEXT_BYTES / 100 + 1);
    let mut out = String::with_capacity(RECORDS * (TEXT_BYTES + 120));
    for i in 0..RECORDS {
        let gold = next() % 11;
        let pred = (gold as i64 + (next() % 5) as i64 - 2).clamp(0, 10);
        let cut = TEXT_BYTES / 2 + (next() as usize % (TEXT_BYTES / 2));
        let text = &filler[..filler.floor_char_boundary(cut)];
        out.push_str(&format!(
            "{{\"id\": \"q{i}\", \"question\": \"{text}\", \"reference\": \"{text}\", \"gold\": {gold}, \"pred\": {pred}}}\n"
        ));
    }
    out.into_bytes()
}

fn main() {
    let bytes = generate();
    let megabytes = bytes.len() as f64 / 1e6;
    let started = Instant::now();
    let detected = detect("big.jsonl", &bytes[..bytes.len().min(64 * 1024)]);
    let detect_ms = started.elapsed().as_secs_f64() * 1e3;

    let files = vec![WorkFile::with_role("big.jsonl", bytes, detected.role)];
    let started = Instant::now();
    let text = files[0].text().map(str::len).unwrap_or(0);
    let utf8_ms = started.elapsed().as_secs_f64() * 1e3;
    let started = Instant::now();
    let parsed = metrics_core::pairs::parse_pairs("big.jsonl", files[0].text().unwrap_or(""));
    let parse_ms = started.elapsed().as_secs_f64() * 1e3;
    let started = Instant::now();
    let sha = metrics_core::InputFile::from_bytes("big.jsonl", &files[0].bytes);
    let sha_ms = started.elapsed().as_secs_f64() * 1e3;
    if let Ok(pairs) = &parsed {
        let started = Instant::now();
        let _ = metrics_core::pairs::score_pairs(sha, pairs, &Default::default());
        println!(
            "score_pairs alone (5 metrics on {} pairs): {:.1} ms",
            pairs.gold.len(),
            started.elapsed().as_secs_f64() * 1e3
        );
    }

    let mut total_ms = f64::INFINITY;
    let mut outcomes = Vec::new();
    for _ in 0..3 {
        let started = Instant::now();
        outcomes = score_files(&files, &ScoreOptions::default());
        total_ms = total_ms.min(started.elapsed().as_secs_f64() * 1e3);
    }
    let Some(scored) = outcomes.first().and_then(|o| o.result.as_ref().ok()) else {
        println!("scoring failed: {:?}", outcomes.first().map(|o| &o.result));
        return;
    };
    let started = Instant::now();
    let rows = sample_rows(scored);
    let rows_ms = started.elapsed().as_secs_f64() * 1e3;
    let started = Instant::now();
    let hits = filter(
        &rows,
        &Filter {
            min_disagreement: Some(2.0),
            query: "line 9".into(),
            ..Filter::default()
        },
    );
    let filter_ms = started.elapsed().as_secs_f64() * 1e3;
    let started = Instant::now();
    let csv = to_csv(&table(&scored.report));
    let table_ms = started.elapsed().as_secs_f64() * 1e3;

    println!(
        "file: {RECORDS} records, {megabytes:.1} MB, detected {:?}",
        detected.role
    );
    println!("detect (64 KiB head):       {detect_ms:8.2} ms");
    println!("UTF-8 check ({text} bytes): {utf8_ms:8.2} ms");
    println!("parse_pairs:                {parse_ms:8.2} ms");
    println!("SHA-256 of the bytes:       {sha_ms:8.2} ms");
    println!("score_files (best of 3):    {total_ms:8.2} ms");
    println!("sample rows ({}):       {rows_ms:8.2} ms", rows.len());
    println!("filter ({} hits):          {filter_ms:8.2} ms", hits.len());
    println!("table + CSV ({} bytes):      {table_ms:8.2} ms", csv.len());
    println!(
        "browser estimate (score_files × 1.5–1.9): {:.0}–{:.0} ms of the 3,000 ms budget",
        total_ms * 1.5,
        total_ms * 1.9
    );
}
