//! Generic gold/pred files: the simplest benchmark, and the skeleton's end-to-end path.
//!
//! Two formats, told apart by content (a first non-blank character `{` means JSONL):
//! - JSONL: one object per line with numeric `gold` and `pred` (numbers or numeric strings);
//!   blank lines are skipped.
//! - CSV: a header row with `gold` and `pred` columns (any order, other columns ignored).
//!
//! Every problem is reported with the file name and 1-based line.
//!
//! Metrics, in report order: `qwk` ([`crate::qwk`]), `pearson`, `spearman`, `kendall_tau_b`,
//! `accuracy` (share of exact `gold == pred`). An undefined metric is `null` with a warning;
//! `qwk` and `accuracy` are undefined for values that are not integers, as scikit-learn refuses
//! them. `scripts/diff-stats.sh` compares the five with SciPy and scikit-learn.

use crate::accuracy::accuracy;
use crate::error::{InputError, MetricError};
use crate::kendall_tau_b::kendall_tau_b;
use crate::pearson::pearson;
use crate::qwk::{quadratic_weighted_kappa, quadratic_weighted_kappa_with_labels};
use crate::report::{InputFile, MetricValue, Metrics, Overall, Report};
use crate::spearman::spearman;
use crate::text::Text;

/// Gold and predicted values of one file, in file order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pairs {
    pub gold: Vec<f64>,
    pub pred: Vec<f64>,
    /// The 1-based line each pair came from (empty when not kept: [`parse_pairs_with`]).
    pub lines: Vec<usize>,
}

/// Parse a gold/pred JSONL or CSV file, whole or streamed. `name` is used in error messages
/// only.
pub fn parse_pairs<'a>(name: &str, text: impl Into<Text<'a>>) -> Result<Pairs, InputError> {
    parse_pairs_with(name, text, true)
}

/// [`parse_pairs`], keeping each pair's line (`keep_lines`) or not (`lines` stays empty: a
/// caller that shows no per-pair rows saves a third of the memory).
pub fn parse_pairs_with<'a>(
    name: &str,
    text: impl Into<Text<'a>>,
    keep_lines: bool,
) -> Result<Pairs, InputError> {
    let read = |e: std::io::Error| crate::text::read_error(name, &e);
    let mut text = text.into().strip_bom().map_err(read)?;
    let mut pairs = if text.first_non_space().map_err(read)? == Some('{') {
        parse_jsonl(name, text, keep_lines)?
    } else {
        parse_csv(name, text, keep_lines)?
    };
    // The vectors grew by doubling: give back the slack (up to half of them) before scoring.
    pairs.gold.shrink_to_fit();
    pairs.pred.shrink_to_fit();
    pairs.lines.shrink_to_fit();
    if pairs.gold.is_empty() {
        return Err(InputError::whole_file(name, "no gold/pred records found"));
    }
    Ok(pairs)
}

fn number(
    name: &str,
    line: usize,
    field: &str,
    value: &serde_json::Value,
) -> Result<f64, InputError> {
    let parsed = match value {
        serde_json::Value::Number(n) => n.as_f64(),
        serde_json::Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    match parsed {
        Some(v) if v.is_finite() => Ok(v),
        _ => Err(InputError::at_line(
            name,
            line,
            format!("`{field}` must be a finite number, found {value}"),
        )),
    }
}

fn parse_jsonl(name: &str, text: Text, keep_lines: bool) -> Result<Pairs, InputError> {
    let mut pairs = Pairs::default();
    text.for_each_line(name, |line, raw| {
        if raw.trim().is_empty() {
            return Ok(());
        }
        let record: serde_json::Value = serde_json::from_str(raw)
            .map_err(|e| InputError::at_line(name, line, format!("not valid JSON: {e}")))?;
        let object = record.as_object().ok_or_else(|| {
            InputError::at_line(name, line, "expected a JSON object with `gold` and `pred`")
        })?;
        let field = |key: &str| {
            object
                .get(key)
                .ok_or_else(|| InputError::at_line(name, line, format!("missing `{key}`")))
                .and_then(|v| number(name, line, key, v))
        };
        pairs.gold.push(field("gold")?);
        pairs.pred.push(field("pred")?);
        if keep_lines {
            pairs.lines.push(line);
        }
        Ok(())
    })?;
    Ok(pairs)
}

fn parse_csv(name: &str, text: Text, keep_lines: bool) -> Result<Pairs, InputError> {
    let source: Box<dyn std::io::Read + '_> = match text {
        Text::Whole(text) => Box::new(text.as_bytes()),
        Text::Stream(reader) => reader,
    };
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(source);
    let headers = reader
        .headers()
        .map_err(|e| InputError::at_line(name, 1, format!("unreadable CSV header: {e}")))?
        .clone();
    let column = |key: &str| {
        headers.iter().position(|h| h.eq_ignore_ascii_case(key)).ok_or_else(|| {
            InputError::at_line(name, 1, format!("expected a JSONL file or a CSV header with `gold` and `pred` columns; no `{key}` column"))
        })
    };
    let (gold_col, pred_col) = (column("gold")?, column("pred")?);
    let mut pairs = Pairs::default();
    for row in reader.records() {
        let row = row.map_err(|e| {
            let line = e.position().map(|p| p.line() as usize).unwrap_or(0);
            InputError::new(
                name,
                (line > 0).then_some(line),
                format!("malformed CSV row: {e}"),
            )
        })?;
        let line = row.position().map(|p| p.line() as usize).unwrap_or(0);
        let cell = |col: usize, key: &str| {
            let raw = row.get(col).unwrap_or("");
            raw.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    InputError::at_line(
                        name,
                        line,
                        format!("`{key}` must be a finite number, found {raw:?}"),
                    )
                })
        };
        pairs.gold.push(cell(gold_col, "gold")?);
        pairs.pred.push(cell(pred_col, "pred")?);
        if keep_lines {
            pairs.lines.push(line);
        }
    }
    Ok(pairs)
}

/// Options of the generic scorer.
#[derive(Debug, Clone, Default)]
pub struct PairsOptions {
    /// A declared label set for QWK (scikit-learn's `labels=`); `None` = observed labels.
    pub labels: Option<Vec<f64>>,
}

/// Score one parsed file into a report (`benchmark = "pairs"`, no subsets).
pub fn score_pairs(input: InputFile, pairs: &Pairs, options: &PairsOptions) -> Report {
    let qwk = match &options.labels {
        Some(labels) => quadratic_weighted_kappa_with_labels(&pairs.gold, &pairs.pred, labels),
        None => quadratic_weighted_kappa(&pairs.gold, &pairs.pred),
    };
    let results: [(&str, Result<f64, MetricError>); 5] = [
        ("qwk", qwk),
        ("pearson", pearson(&pairs.gold, &pairs.pred)),
        ("spearman", spearman(&pairs.gold, &pairs.pred)),
        ("kendall_tau_b", kendall_tau_b(&pairs.gold, &pairs.pred)),
        ("accuracy", accuracy(&pairs.gold, &pairs.pred)),
    ];
    let mut warnings = Vec::new();
    let mut metrics = Metrics::new();
    for (key, result) in results {
        if let Err(e) = &result {
            warnings.push(crate::report::Warning {
                path: input.path.clone(),
                line: None,
                message: format!("{key}: {e}"),
            });
        }
        metrics.insert(key.into(), MetricValue::from_result(result));
    }
    Report {
        benchmark: "pairs".into(),
        variant: "official".into(),
        inputs: vec![input],
        overall: Overall {
            n: pairs.gold.len(),
            metrics,
        },
        subsets: Vec::new(),
        samples: None,
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonl_and_csv_give_the_same_pairs() {
        let jsonl = parse_pairs(
            "a.jsonl",
            "{\"gold\": 1, \"pred\": 2}\n\n{\"gold\": \"3\", \"pred\": 0.5}\n",
        )
        .unwrap();
        let csv = parse_pairs("a.csv", "id,pred,gold\nx,2,1\ny,0.5,3\n").unwrap();
        assert_eq!(jsonl.gold, csv.gold);
        assert_eq!(jsonl.pred, csv.pred);
        assert_eq!(jsonl.lines, vec![1, 3]);
        assert_eq!(csv.lines, vec![2, 3]);
    }

    #[test]
    fn errors_name_file_and_line() {
        let e = parse_pairs(
            "p.jsonl",
            "{\"gold\": 1, \"pred\": 2}\n{\"gold\": 1, \"pred\": \"x\"}\n",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "p.jsonl:2: `pred` must be a finite number, found \"x\""
        );
        let e = parse_pairs("p.jsonl", "{\"gold\": 1, \"pred\": 2}\n{\"gold\": 1\n").unwrap_err();
        assert_eq!((e.path.as_str(), e.line), ("p.jsonl", Some(2)));
        let e = parse_pairs("p.csv", "gold,pred\n1,2\n3,abc\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "p.csv:3: `pred` must be a finite number, found \"abc\""
        );
        let e = parse_pairs("p.csv", "a,b\n1,2\n").unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(parse_pairs("e.jsonl", "\n\n").is_err());
    }

    #[test]
    fn report_carries_qwk_or_null_with_warning() {
        let pairs = parse_pairs(
            "a.jsonl",
            "{\"gold\":1,\"pred\":1}\n{\"gold\":2,\"pred\":2}\n",
        )
        .unwrap();
        let report = score_pairs(
            InputFile::from_bytes("a.jsonl", b""),
            &pairs,
            &PairsOptions::default(),
        );
        assert_eq!(
            report.metric("overall", "qwk"),
            Some(&MetricValue::Scalar(Some(1.0)))
        );
        let keys: Vec<&str> = report.overall.metrics.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["qwk", "pearson", "spearman", "kendall_tau_b", "accuracy"]
        );
        let constant = parse_pairs("c.jsonl", "{\"gold\":1,\"pred\":1}\n").unwrap();
        let report = score_pairs(
            InputFile::from_bytes("c.jsonl", b""),
            &constant,
            &PairsOptions::default(),
        );
        assert_eq!(
            report.metric("overall", "qwk"),
            Some(&MetricValue::Scalar(None))
        );
        // qwk, pearson, spearman and kendall_tau_b are undefined for one pair; accuracy is 1.
        assert_eq!(
            report.metric("overall", "accuracy"),
            Some(&MetricValue::Scalar(Some(1.0)))
        );
        assert_eq!(report.warnings.len(), 4);
    }
}
