//! What the three log imports (lm-eval, Inspect, EvalScope) share: per-sample values aligned
//! between two runs, compared by their means in strata, and metric names that live as long as
//! the program (the [`Paired`] trait names metrics with `&'static str`).
//!
//! ```text
//! aligned  records of run A and run B on the import's key (task + doc_id + filter; sample id;
//!          subset + sample id + generation); unmatched records are left out
//! metric   per key, the mean of the defined per-sample values over the drawn records (all
//!          strata together: a size-weighted group mean, as the tools' overall numbers)
//! ```

#[cfg(feature = "cli")]
pub(crate) mod cli;

use std::sync::Mutex;

use serde_json::{Map, Value};

use metrics_core::imports::NamedBytes;
use metrics_core::{InputError, InputFile};

use crate::benchmark::Paired;
use crate::drill::{self, SampleRow, text_of};
use crate::session::{Job, WorkFile, input};

/// A file's base name without `.jsonl` / `.json`.
pub(crate) fn stem(name: &str) -> &str {
    let base = crate::detect::base_name(name);
    base.strip_suffix(".jsonl")
        .or_else(|| base.strip_suffix(".json"))
        .unwrap_or(base)
}

/// `name` as a `&'static str`: each distinct name is leaked once and reused.
pub(crate) fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let mut names = NAMES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(found) = names.iter().find(|n| **n == name) {
        return found;
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.push(leaked);
    leaked
}

/// One aligned record: the values of every metric key for run A and run B.
pub(crate) type Row = (Vec<Option<f64>>, Vec<Option<f64>>);

/// Aligned records in strata; metrics are means over the drawn records.
pub(crate) struct MeanPaired {
    pub keys: Vec<&'static str>,
    pub strata: Vec<Vec<Row>>,
}

impl Paired for MeanPaired {
    fn keys(&self) -> Vec<&'static str> {
        self.keys.clone()
    }

    fn strata(&self) -> Vec<usize> {
        self.strata.iter().map(Vec::len).collect()
    }

    fn metrics(&self, draw: &[Vec<usize>]) -> Vec<(Option<f64>, Option<f64>)> {
        (0..self.keys.len())
            .map(|k| {
                let mean = |side: fn(&Row) -> &Vec<Option<f64>>| {
                    let (mut sum, mut n) = (0.0, 0usize);
                    for (stratum, idx) in self.strata.iter().zip(draw) {
                        for &i in idx {
                            if let Some(v) = side(&stratum[i])[k] {
                                sum += v;
                                n += 1;
                            }
                        }
                    }
                    (n > 0).then(|| sum / n as f64)
                };
                (mean(|r| &r.0), mean(|r| &r.1))
            })
            .collect()
    }
}

/// Group aligned `(key of A's record, index in A, index in B)` by stratum name, in first-seen
/// order.
pub(crate) fn strata_of<T>(
    pairs: &[(usize, usize)],
    stratum: impl Fn(usize) -> String,
    row: impl Fn(usize, usize) -> T,
) -> Vec<Vec<T>> {
    let mut names: Vec<String> = Vec::new();
    let mut out: Vec<Vec<T>> = Vec::new();
    for &(i, j) in pairs {
        let name = stratum(i);
        let at = match names.iter().position(|n| *n == name) {
            Some(at) => at,
            None => {
                names.push(name);
                out.push(Vec::new());
                out.len() - 1
            }
        };
        out[at].push(row(i, j));
    }
    out
}

/// Text cut to `max` characters with an ellipsis.
pub(crate) fn short(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max).collect();
    s.push('…');
    s
}

/// A per-sample row of an import: its subset and id, the `target` as gold, the field
/// `prediction` as the prediction, the sample's score `value` as the predicted value (1 − it as
/// the disagreement; 1 when undefined) and `detail` as the row's extra cells.
pub(crate) fn score_row(
    index: usize,
    s: &Map<String, Value>,
    prediction: &str,
    value: Option<f64>,
    detail: Vec<String>,
) -> SampleRow {
    let mut row = drill::empty_row(index, s);
    row.subset = text_of(s.get("subset"));
    row.id = text_of(s.get("id"));
    row.gold = short(&text_of(s.get("target")), 120);
    row.pred = short(&text_of(s.get(prediction)), 120);
    row.pred_value = value;
    row.disagreement = value.map_or(1.0, |v| 1.0 - v);
    drill::finish_row(row, detail)
}

/// The first numeric field of a sample outside `reserved` (its first scorer's value).
pub(crate) fn first_score(s: &Map<String, Value>, reserved: &[&str]) -> Option<f64> {
    s.iter()
        .find(|(k, _)| !reserved.contains(&k.as_str()))
        .and_then(|(_, v)| v.as_f64())
}

/// The job's files, in job order, as the import readers take them.
pub(crate) fn named<'a>(
    files: &'a [WorkFile],
    job: &Job,
) -> Result<Vec<NamedBytes<'a>>, InputError> {
    job.file_indices()
        .into_iter()
        .map(|i| {
            files
                .get(i)
                .map(|f| NamedBytes {
                    name: &f.name,
                    bytes: &f.bytes,
                })
                .ok_or_else(|| InputError::whole_file(&job.title, "a file is gone"))
        })
        .collect()
}

/// The job's files, in job order, as the report's inputs (name + SHA-256: the hash the page
/// computed with WebCrypto when it has one, so the worker does not hash the file again).
pub(crate) fn inputs(files: &[WorkFile], job: &Job) -> Result<Vec<InputFile>, InputError> {
    job.file_indices()
        .into_iter()
        .map(|i| input(files, i))
        .collect()
}
