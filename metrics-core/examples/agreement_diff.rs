//! The Rust side of `scripts/diff-agreement.sh`: Krippendorff's α on cases read from stdin.
//!
//! One JSON object per line, `{"ratings": [[value | null, …], …], "level": "nominal" |
//! "ordinal" | "interval" | "ratio", "domain": [value, …] | null}` (raters × units), answered in
//! order by `{"alpha": number | null, "bits": "<hex of the f64>" | null}`: `null` where α is
//! undefined (the package raises or gives NaN).

use std::io::{BufRead, Write};

use metrics_core::agreement::{Level, krippendorff_alpha, krippendorff_alpha_with_domain};
use serde_json::{Value, json};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in stdin.lock().lines() {
        let case: Value = serde_json::from_str(&line?)?;
        let ratings: Vec<Vec<Option<f64>>> = serde_json::from_value(case["ratings"].clone())?;
        let level: Level = serde_json::from_value(case["level"].clone())?;
        let alpha = match case["domain"].as_array() {
            Some(_) => {
                let domain: Vec<f64> = serde_json::from_value(case["domain"].clone())?;
                krippendorff_alpha_with_domain(&ratings, level, &domain)
            }
            None => krippendorff_alpha(&ratings, level),
        };
        let answer = match alpha {
            Ok(a) => json!({"alpha": a, "bits": format!("{:016x}", a.to_bits())}),
            Err(_) => json!({"alpha": null, "bits": null}),
        };
        writeln!(out, "{answer}")?;
    }
    out.flush()?;
    Ok(())
}
