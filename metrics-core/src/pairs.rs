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
use fast_records::GoldPred;

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
    let pairs = if text.first_non_space().map_err(read)? == Some('{') {
        parse_jsonl(name, text, keep_lines)?
    } else {
        parse_csv(name, text, keep_lines)?
    };
    finished(name, pairs)
}

/// The pairs of a whole file, or the error of a file without any.
fn finished(name: &str, mut pairs: Pairs) -> Result<Pairs, InputError> {
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
        record(name, line, raw, &mut pairs, keep_lines)
    })?;
    Ok(pairs)
}

/// One line of a JSONL file into `pairs` (a blank line is skipped).
fn record(
    name: &str,
    line: usize,
    raw: &str,
    pairs: &mut Pairs,
    keep_lines: bool,
) -> Result<(), InputError> {
    if raw.trim().is_empty() {
        return Ok(());
    }
    let record = GoldPred::parse(raw)
        .map_err(|e| InputError::at_line(name, line, format!("not valid JSON: {e}")))?;
    let GoldPred::Object { gold, pred } = record else {
        return Err(InputError::at_line(
            name,
            line,
            "expected a JSON object with `gold` and `pred`",
        ));
    };
    let field = |key: &str, value: Option<serde_json::Value>| {
        value
            .ok_or_else(|| InputError::at_line(name, line, format!("missing `{key}`")))
            .and_then(|v| number(name, line, key, &v))
    };
    pairs.gold.push(field("gold", gold)?);
    pairs.pred.push(field("pred", pred)?);
    if keep_lines {
        pairs.lines.push(line);
    }
    Ok(())
}

/// A gold/pred JSONL file read in pieces that end at line breaks (the browser parses each piece
/// while it reads the next): the same pairs and errors as [`parse_pairs`] on the whole text.
pub struct JsonlPairs {
    name: String,
    pairs: Pairs,
    /// Lines read so far.
    line: usize,
    /// A piece came (the byte-order mark is stripped from the first).
    started: bool,
}

impl JsonlPairs {
    /// A reader for the file whose text starts with `head`, when that text is JSONL (its first
    /// non-blank character after a byte-order mark is `{`; an all-blank head cannot tell).
    pub fn starting(name: &str, head: &str) -> Option<Self> {
        let head = head.strip_prefix('\u{feff}').unwrap_or(head);
        head.trim_start().starts_with('{').then(|| Self {
            name: name.to_string(),
            pairs: Pairs::default(),
            line: 0,
            started: false,
        })
    }

    /// The next piece of the text: whole lines ending with a line break, except the file's last
    /// piece, which may end without one.
    pub fn push(&mut self, piece: &str) -> Result<(), InputError> {
        let piece = match std::mem::replace(&mut self.started, true) {
            false => piece.strip_prefix('\u{feff}').unwrap_or(piece),
            true => piece,
        };
        for raw in crate::text::lines(piece) {
            self.line += 1;
            record(&self.name, self.line, raw, &mut self.pairs, true)?;
        }
        Ok(())
    }

    /// The pairs of the whole file.
    pub fn finish(self) -> Result<Pairs, InputError> {
        finished(&self.name, self.pairs)
    }
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

    /// The reader before the skipping one: every line parsed into a `Value`.
    fn pairs_through_value(name: &str, text: &str) -> Result<Pairs, InputError> {
        let mut pairs = Pairs::default();
        for (index, raw) in text.lines().enumerate() {
            let line = index + 1;
            if raw.trim().is_empty() {
                continue;
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
            pairs.lines.push(line);
        }
        if pairs.gold.is_empty() {
            return Err(InputError::whole_file(name, "no gold/pred records found"));
        }
        Ok(pairs)
    }

    /// The skipping reader gives the same pairs and the same messages as building every record,
    /// on valid records and on records broken one character at a time, except where skipping is
    /// documented to accept more: a number beyond f64, a lone surrogate escape or nesting past
    /// 128 levels in a field other than `gold` and `pred`.
    #[test]
    fn skipping_reader_agrees_with_building_every_record() {
        let seeds = [
            r#"{"id": "r1", "gold": 3, "pred": 2, "reply": "a \"quoted\" reply\n", "n": [1, 2.5, {"x": null}]}"#,
            r#"{"pred": "4", "gold": " 1 ", "meta": {"deep": [[[true, false]]]}, "gold": 2}"#,
            r#"{"gold": 1e3, "pred": -0.5e-2, "text": "这是\u4e2d\u6587 \ud83d\ude00"}"#,
            r#"{"gol\u0064": 7, "pred": 7}"#,
            r#"{"gold": null, "pred": 1}"#,
            r#"{"gold": [1], "pred": {"a": 1}}"#,
            r#"{"gold": 1, "pred": 18446744073709551615, "x": -9223372036854775808}"#,
            r#"[1, {"gold": 1}]"#,
            r#""gold""#,
            r#"{"pred": 2}"#,
            r#"  {"gold": true, "pred": 1}  "#,
            r#"{"gold": 1, "pred": 2, "x": 1e400}"#,
            r#"{"gold": 1e400, "pred": 2}"#,
        ];
        let alphabet: Vec<char> = "{}[]\":,\\ 0123456789-+.eEtrufalsn\u{4e2d}x"
            .chars()
            .collect();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let mut lines: Vec<String> = seeds.iter().map(|s| s.to_string()).collect();
        for _ in 0..20_000 {
            let mut chars: Vec<char> = seeds[next(seeds.len())].chars().collect();
            for _ in 0..1 + next(3) {
                let at = next(chars.len() + 1);
                match next(3) {
                    0 if at < chars.len() => {
                        chars.remove(at);
                    }
                    1 if at < chars.len() => chars[at] = alphabet[next(alphabet.len())],
                    _ => chars.insert(at, alphabet[next(alphabet.len())]),
                }
            }
            lines.push(chars.into_iter().collect());
        }
        let (mut same_error, mut same_place, mut same_pairs, mut accepted_more) = (0, 0, 0, 0);
        for line in &lines {
            let text = format!("{{\"gold\": 0, \"pred\": 0}}\n{line}\n");
            match (
                parse_pairs("f.jsonl", text.as_str()),
                pairs_through_value("f.jsonl", &text),
            ) {
                (Ok(new), Ok(old)) => {
                    // Bit for bit, NaN-free (finite numbers only).
                    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&new.gold), bits(&old.gold), "{line}");
                    assert_eq!(bits(&new.pred), bits(&old.pred), "{line}");
                    assert_eq!(new.lines, old.lines, "{line}");
                    same_pairs += 1;
                }
                (Err(new), Err(old)) if new.to_string() == old.to_string() => same_error += 1,
                // Skipped values name a few errors otherwise (a trailing comma is "expected
                // value"; a broken escape after a surrogate "invalid escape"), at the same place.
                (Err(new), Err(old))
                    if new.message.rsplit(" at ").next() == old.message.rsplit(" at ").next() =>
                {
                    same_place += 1;
                }
                // The building reader stopped earlier in the line, at what skipping accepts.
                (new, Err(old)) => {
                    let message = old.to_string();
                    assert!(
                        [
                            "number out of range",
                            "surrogate",
                            "hex escape",
                            "recursion limit"
                        ]
                        .iter()
                        .any(|m| message.contains(m)),
                        "{line}: the building reader said {message}, the skipping one {new:?}"
                    );
                    accepted_more += 1;
                }
                (Err(new), Ok(_)) => panic!("{line}: only the skipping reader refused it: {new}"),
            }
        }
        // Both classes are well covered (the broken lines are mostly invalid JSON).
        assert!(
            same_pairs > 1_000 && same_error > 10_000,
            "{same_pairs} {same_error}"
        );
        eprintln!(
            "{same_pairs} same pairs, {same_error} same errors, {same_place} at the same place, {accepted_more} accepted by skipping only"
        );
        assert!(same_place < same_error / 20, "{same_place} {same_error}");
        assert!(
            accepted_more > 0 && accepted_more < 2_000,
            "{accepted_more}"
        );
    }

    /// Read in pieces cut at line breaks, a file gives what it gives whole: texts of valid and
    /// broken lines (CRLF, blank lines, a byte-order mark), cut at every combination of places.
    #[test]
    fn pieces_give_what_the_whole_text_gives() {
        let lines = [
            "{\"gold\": 1, \"pred\": 2}",
            "",
            "{\"gold\": \"3\", \"pred\": 0.5, \"t\": \"x\\ny\"}\r",
            "   ",
            "{\"gold\": 2, \"pred\": \"x\"}",
            "{\"gold\": 2",
            "[1]",
            "{\"pred\": 1}",
            "{\"gold\": 4, \"pred\": 4}",
        ];
        let mut checked = 0;
        for mask in 0u32..1 << 7 {
            // A text of some of the lines, in order, with or without a mark and a last break.
            let chosen: Vec<&str> = (0..lines.len())
                .filter(|&k| k < 2 || mask & (1 << (k - 2)) != 0)
                .map(|k| lines[k])
                .collect();
            for (bom, last_break) in [("", true), ("\u{feff}", false)] {
                let text = format!(
                    "{bom}{}{}",
                    chosen.join("\n"),
                    if last_break { "\n" } else { "" }
                );
                let whole = parse_pairs("f.jsonl", text.as_str());
                let breaks: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).collect();
                for cuts in 0u32..1 << breaks.len().min(6) {
                    let Some(mut reader) = JsonlPairs::starting("f.jsonl", &text) else {
                        panic!("{text:?} is JSONL");
                    };
                    let mut from = 0;
                    let mut result = Ok(());
                    for (k, &at) in breaks.iter().enumerate() {
                        if cuts & (1 << k.min(5)) != 0 && result.is_ok() {
                            result = reader.push(&text[from..at]);
                            from = at;
                        }
                    }
                    let pieces = result
                        .and_then(|()| reader.push(&text[from..]))
                        .and_then(|()| reader.finish());
                    match (&pieces, &whole) {
                        (Ok(p), Ok(w)) => assert_eq!(p, w, "{text:?}"),
                        (Err(p), Err(w)) => assert_eq!(p.to_string(), w.to_string(), "{text:?}"),
                        _ => panic!("{text:?}: pieces {pieces:?}, whole {whole:?}"),
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 1_000, "{checked}");
        assert!(JsonlPairs::starting("f.csv", "gold,pred\n").is_none());
        assert!(JsonlPairs::starting("f.jsonl", " \n").is_none());
    }
}
