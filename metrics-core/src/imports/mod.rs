//! Logs written by other evaluation tools, read as the tools wrote them: lm-evaluation-harness
//! ([`lm_eval`]), Inspect AI ([`inspect`]) and EvalScope ([`evalscope`]).
//!
//! Each import reports the tool's own aggregate numbers from its results file, keeps the
//! per-sample rows (the samples tab, the paired bootstrap) and recomputes the aggregates from
//! those rows where the tool's aggregation is simple, in the tool's own arithmetic:
//!
//! ```text
//! lm-eval    mean = sum(arr) / len(arr)               Python's sum: left to right from 0
//!            stderr = sqrt(sum((x − mean)**2) / (n − 1)) / sqrt(n)
//! Inspect    accuracy = Python loop sum / n; mean = np.mean (numpy's pairwise sum)
//!            stderr = np.std(values, ddof=1) / np.sqrt(n)   (0 for n < 2)
//! EvalScope  subset = round(sum / len, 4); category, metric = round(Σ score·num / Σ num, 4)
//! ```
//! A recomputed number that is not bit for bit the one in the results file is a warning naming
//! both: the reported number stays the report's.

pub mod evalscope;
pub mod inspect;
pub mod lm_eval;
pub mod zip;

use std::borrow::Cow;

/// A file's name (for messages and the report) and bytes.
#[derive(Debug, Clone, Copy)]
pub struct NamedBytes<'a> {
    pub name: &'a str,
    pub bytes: &'a [u8],
}

impl NamedBytes<'_> {
    /// The report's input for this file: its name and SHA-256.
    pub fn input(&self) -> crate::InputFile {
        crate::InputFile::from_bytes(self.name, self.bytes)
    }
}

/// Python's `sum(values)` of floats: left to right, starting from `0`.
pub fn py_sum(values: &[f64]) -> f64 {
    values.iter().fold(0.0, |acc, x| acc + x)
}

/// Python's `sum(values) / len(values)`; `None` for no values (ZeroDivisionError).
pub fn py_mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| py_sum(values) / values.len() as f64)
}

/// lm-eval's `mean_stderr`: `sample_stddev(arr) / math.sqrt(len(arr))` with
/// `sample_stddev = math.sqrt(sum([(x - mu) ** 2 for x in arr]) / (len(arr) - 1))`;
/// `None` below two values (ZeroDivisionError).
pub fn py_mean_stderr(values: &[f64]) -> Option<f64> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    let mu = py_mean(values)?;
    let squares: Vec<f64> = values.iter().map(|x| (x - mu) * (x - mu)).collect();
    Some((py_sum(&squares) / (n - 1) as f64).sqrt() / (n as f64).sqrt())
}

/// `np.std(values, ddof=1) / np.sqrt(n)` (Inspect's `stderr()`): numpy's mean (pairwise sum / n),
/// the squared deviations summed pairwise, divided by `n − 1`; `0.0` for fewer than two values,
/// as Inspect returns.
pub fn numpy_stderr(values: &[f64]) -> f64 {
    let n = values.len();
    if n < 2 {
        return 0.0;
    }
    let mean = crate::numpy_sum::pairwise_sum(values) / n as f64;
    let squares: Vec<f64> = values.iter().map(|x| (x - mean) * (x - mean)).collect();
    (crate::numpy_sum::pairwise_sum(&squares) / (n - 1) as f64).sqrt() / (n as f64).sqrt()
}

/// `np.mean(values)` (numpy's pairwise sum / n); `None` for no values.
pub fn numpy_mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| crate::numpy_sum::pairwise_sum(values) / values.len() as f64)
}

/// Python's `round(x, ndigits)` for a float: the nearest float to the decimal rounded half to
/// even on the exact binary value (CPython formats with `_Py_dg_dtoa` mode 3 and reads back;
/// Rust's exact `{:.N}` formatting rounds the exact value half to even too).
pub fn py_round(x: f64, ndigits: usize) -> f64 {
    if !x.is_finite() {
        return x;
    }
    format!("{x:.ndigits$}").parse().unwrap_or(x)
}

/// JSON as Python's `json.dumps` writes it, made readable by a strict parser: the bare
/// constants `NaN`, `Infinity` and `-Infinity` outside strings become `null` (an undefined
/// value is `null` in scorebench). Borrowed when there are none.
pub fn lenient_json(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        let token = [&b"NaN"[..], b"Infinity", b"-Infinity"]
            .into_iter()
            .find(|t| bytes[i..].starts_with(t));
        match token {
            Some(t) => {
                let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
                o.push_str(&text[copied..i]);
                o.push_str("null");
                i += t.len();
                copied = i;
            }
            None => i += 1,
        }
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut o) => {
            o.push_str(&text[copied..]);
            Cow::Owned(o)
        }
    }
}

/// A finite float as a metric value, `None` otherwise.
pub(crate) fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn py_round_is_half_even_on_the_exact_value() {
        // Python 3.11: round(0.125, 2) == 0.12, round(0.375, 2) == 0.38, round(2.5) == 2,
        // round(0.80555, 4) == 0.8055 (0.80555 is 0.805549999…), round(0.7777777777777778, 4) == 0.7778.
        assert_eq!(py_round(0.125, 2), 0.12);
        assert_eq!(py_round(0.375, 2), 0.38);
        assert_eq!(py_round(2.5, 0), 2.0);
        assert_eq!(py_round(0.80555, 4), 0.8055);
        assert_eq!(py_round(0.777_777_777_777_777_8, 4), 0.7778);
    }

    #[test]
    fn lenient_json_replaces_constants_outside_strings_only() {
        let text = r#"{"a": NaN, "b": [Infinity, -Infinity], "c": "NaN \" Infinity"}"#;
        assert_eq!(
            lenient_json(text),
            r#"{"a": null, "b": [null, null], "c": "NaN \" Infinity"}"#
        );
        assert!(matches!(lenient_json(r#"{"a": 1}"#), Cow::Borrowed(_)));
    }

    #[test]
    fn stderrs_follow_their_tools() {
        // lm-eval mean_stderr([1, 0, 0]) = sqrt(((2/3)^2 + 2(1/3)^2) / 2) / sqrt(3)
        let e = py_mean_stderr(&[1.0, 0.0, 0.0]).unwrap();
        assert!((e - 0.333_333_333_333_333_3).abs() < 1e-15);
        assert_eq!(py_mean_stderr(&[1.0]), None);
        assert_eq!(numpy_stderr(&[1.0]), 0.0);
    }
}
