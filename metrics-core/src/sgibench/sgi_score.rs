//! SGI-Score: the five headline numbers and their mean.
//!
//! Matches `sgi_score.py` with `utils.show_results` / `utils.mean` (commit 8268d43).
//!
//! ```text
//! headline(task) = round(mean(float(item[key]) for item in log) × scale, 2)   Python round: half to
//!                                                                              even on the exact binary value
//! SGI-Score      = mean(five headlines)
//!   Deep Research        exact_match   × 100
//!   Idea Generation      final_score   × 1      (already 0–100)
//!   Dry Experiment       PassAll@5     × 100
//!   Wet Experiment       final_score   × 100
//!   Experimental Reasoning MCA         × 100
//! ```
//!
//! Official quirks reproduced as errors naming the task and record (the official script dies on
//! them): a `null` record (TypeError) and a record without the metric key, e.g. an idea
//! generation error record `{"error", "final_score"}` asked for `effectiveness` (KeyError).
//! `mean` of an empty log asserts. `sgi_score.py` itself was not available to this port beyond
//! what the golden cases print; the SGI-Score mean is left unrounded.

use serde_json::Value;

use super::log::{kind, parse_array, python_mean};
use crate::error::InputError;

/// Python's `round(x, ndigits)` for floats: the correctly rounded decimal (ties to even on the
/// exact binary value), read back as the nearest float.
pub fn python_round(x: f64, ndigits: usize) -> f64 {
    if !x.is_finite() {
        return x;
    }
    format!("{x:.ndigits$}").parse().unwrap_or(x)
}

/// `round(mean(values) × scale, 2)`; `None` for no values.
pub fn headline(values: &[f64], scale: f64) -> Option<f64> {
    python_mean(values).map(|m| python_round(m * scale, 2))
}

/// The mean of the five headline numbers.
pub fn sgi_score(headlines: &[f64; 5]) -> f64 {
    python_mean(headlines).unwrap_or(f64::NAN)
}

/// One task's log and the key and scale of its headline.
#[derive(Debug, Clone, Copy)]
pub struct TaskLog<'a> {
    pub name: &'a str,
    pub text: &'a str,
    pub key: &'a str,
    pub scale: f64,
}

/// The five tasks' keys and scales, in the official order.
pub const TASKS: [(&str, &str, f64); 5] = [
    ("deep_research", "exact_match", 100.0),
    ("idea_generation", "final_score", 1.0),
    ("dry_experiment", "PassAll@5", 100.0),
    ("wet_experiment", "final_score", 100.0),
    ("experimental_reasoning", "MCA", 100.0),
];

/// `show_results(log, key, scale=scale)`: the headline of one task's log.
pub fn task_headline(log: &TaskLog<'_>) -> Result<f64, InputError> {
    let items = parse_array(log.name, log.text)?;
    task_headline_of_values(log.name, &items, log.key, log.scale)
}

/// The same over an already-parsed log.
pub fn task_headline_of_values(
    name: &str,
    items: &[Value],
    key: &str,
    scale: f64,
) -> Result<f64, InputError> {
    let mut values = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let number = i + 1;
        let record = match item {
            Value::Object(map) => map,
            Value::Null => {
                return Err(InputError::at_line(
                    name,
                    number,
                    format!(
                        "record {number} is null (the official run crashed on it; sgi_score.py raises TypeError)"
                    ),
                ));
            }
            other => {
                return Err(InputError::at_line(
                    name,
                    number,
                    format!("expected an object, found {}", kind(other)),
                ));
            }
        };
        let value = match record.get(key) {
            Some(Value::Number(n)) => n.as_f64(),
            Some(Value::Bool(b)) => Some(f64::from(u8::from(*b))),
            Some(Value::String(s)) => s.trim().parse().ok(),
            Some(_) => None,
            None => {
                return Err(InputError::at_line(
                    name,
                    number,
                    format!("record {number} has no `{key}` (sgi_score.py raises KeyError)"),
                ));
            }
        };
        values.push(value.ok_or_else(|| {
            InputError::at_line(
                name,
                number,
                format!("record {number}: `{key}` is not a number"),
            )
        })?);
    }
    headline(&values, scale).ok_or_else(|| {
        InputError::whole_file(name, "empty log (sgi_score.py asserts a non-empty list)")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_half_to_even_on_the_binary_value() {
        assert_eq!(python_round(3.125, 2), 3.12); // exact tie → even
        assert_eq!(python_round(0.375, 2), 0.38);
        assert_eq!(python_round(2.675, 2), 2.67); // 2.67499999… in binary
        assert_eq!(headline(&[1.0, 0.0, 0.0], 100.0), Some(33.33));
        assert_eq!(headline(&[], 100.0), None);
        assert_eq!(sgi_score(&[10.0, 20.0, 30.0, 40.0, 50.0]), 30.0);
    }
}
