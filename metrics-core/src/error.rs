//! Error types shared by every metric and format.

/// Why a metric could not produce a number.
///
/// NaN policy of the crate: no function returns NaN to mean "undefined". Where the official
/// code yields NaN (0/0, a constant input), the Rust function returns
/// [`MetricError::Undefined`] and the report shows `null`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetricError {
    /// No observations at all.
    #[error("no observations")]
    Empty,
    /// Two inputs that must pair up element by element have different lengths.
    #[error("length mismatch: {left} gold values vs {right} predicted values")]
    LengthMismatch { left: usize, right: usize },
    /// The value is mathematically undefined for this input (the official code gives NaN).
    #[error("undefined: {why}")]
    Undefined { why: String },
}

impl MetricError {
    pub fn undefined(why: impl Into<String>) -> Self {
        Self::Undefined { why: why.into() }
    }
}

/// A problem in an input file, located by file name and (1-based) line or record.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
#[error("{}", self.location_message())]
pub struct InputError {
    /// The file name as the user gave it.
    pub path: String,
    /// 1-based line number (JSONL, CSV) or record number (JSON arrays), when known.
    pub line: Option<usize>,
    /// What was expected and what was found.
    pub message: String,
}

impl InputError {
    pub fn new(path: impl Into<String>, line: Option<usize>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            line,
            message: message.into(),
        }
    }

    pub fn at_line(path: &str, line: usize, message: impl Into<String>) -> Self {
        Self::new(path, Some(line), message)
    }

    pub fn whole_file(path: &str, message: impl Into<String>) -> Self {
        Self::new(path, None, message)
    }

    fn location_message(&self) -> String {
        match self.line {
            Some(line) => format!("{}:{}: {}", self.path, line, self.message),
            None => format!("{}: {}", self.path, self.message),
        }
    }
}

/// The error of a gold file whose records lack predictions, in `pred_file`: "`<field> <id> has
/// no prediction (<gold_file> line <n>); k more without one: a, b, …`" (the first ten more named).
/// `missing` (id, line in the gold file) is not empty.
pub(crate) fn no_prediction(
    pred_file: &str,
    field: &str,
    gold_file: &str,
    missing: &[(String, usize)],
) -> InputError {
    const SHOWN: usize = 10;
    let (id, line) = missing
        .first()
        .map_or(("", 0), |(id, line)| (id.as_str(), *line));
    let mut message = format!("{field} {id} has no prediction ({gold_file} line {line})");
    if missing.len() > 1 {
        let more: Vec<&str> = missing[1..]
            .iter()
            .take(SHOWN)
            .map(|(id, _)| id.as_str())
            .collect();
        let ellipsis = if missing.len() - 1 > SHOWN {
            ", …"
        } else {
            ""
        };
        message.push_str(&format!(
            "; {} more without one: {}{ellipsis}",
            missing.len() - 1,
            more.join(", ")
        ));
    }
    InputError::whole_file(pred_file, message)
}
