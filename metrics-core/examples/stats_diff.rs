//! The Rust side of `scripts/diff-stats.sh`: the generic statistics on cases read from stdin.
//!
//! One JSON object per line, `{"x": [...], "y": [...]}` (non-finite values as the strings
//! "NaN", "Infinity", "-Infinity"), answered in order by
//! `{"pearson", "spearman", "kendall_tau_b", "qwk", "accuracy": number | null, "pairs": {…} | null}`:
//! `null` where the metric is undefined or an error; `pairs` is `scorebench score pairs`'s
//! overall metrics for a JSONL file of the same pairs (finite values only).

use std::io::{BufRead, Write};

use metrics_core::accuracy::accuracy;
use metrics_core::kendall_tau_b::kendall_tau_b;
use metrics_core::pairs::{PairsOptions, parse_pairs, score_pairs};
use metrics_core::pearson::pearson;
use metrics_core::qwk::quadratic_weighted_kappa;
use metrics_core::spearman::spearman;
use metrics_core::{InputFile, MetricError};
use serde_json::{Value, json};

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|x| match x {
                    Value::String(s) if s == "NaN" => f64::NAN,
                    Value::String(s) if s == "Infinity" => f64::INFINITY,
                    Value::String(s) if s == "-Infinity" => f64::NEG_INFINITY,
                    other => other.as_f64().unwrap_or(f64::NAN),
                })
                .collect()
        })
        .unwrap_or_default()
}

fn value(r: Result<f64, MetricError>) -> Value {
    r.ok().map_or(Value::Null, |v| json!(v))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in stdin.lock().lines() {
        let case: Value = serde_json::from_str(&line?)?;
        let (x, y) = (floats(&case["x"]), floats(&case["y"]));
        let pairs = if x.iter().chain(&y).all(|v| v.is_finite()) && !x.is_empty() {
            // Written as `scorebench score pairs` reads a JSONL file (shortest round-trip floats).
            let text: String = x
                .iter()
                .zip(&y)
                .map(|(g, p)| format!("{}\n", json!({"gold": g, "pred": p})))
                .collect();
            let parsed = parse_pairs("pairs.jsonl", &text)?;
            let report = score_pairs(
                InputFile::from_bytes("pairs.jsonl", text.as_bytes()),
                &parsed,
                &PairsOptions::default(),
            );
            serde_json::to_value(&report.overall.metrics)?
        } else {
            Value::Null
        };
        let answer = json!({
            "pearson": value(pearson(&x, &y)),
            "spearman": value(spearman(&x, &y)),
            "kendall_tau_b": value(kendall_tau_b(&x, &y)),
            "qwk": value(quadratic_weighted_kappa(&x, &y)),
            "accuracy": value(accuracy(&x, &y)),
            "pairs": pairs,
        });
        writeln!(out, "{answer}")?;
    }
    Ok(())
}
