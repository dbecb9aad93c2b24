//! ASAP-AES file formats: the Kaggle gold TSV and a predictions CSV (or TSV).
//!
//! ```text
//! gold          training_set_rel3.tsv layout: tab-separated, header row, Latin-1, no quoting,
//!               \n or \r\n; columns by name: essay_id, essay_set (1–8), domain1_score (integer),
//!               essay (optional, kept for the detail view); every other column is ignored
//! predictions   CSV or TSV (tab in the header line → TSV), UTF-8, BOM allowed, header row;
//!               id column `essay_id`, else Kaggle's `prediction_id`; `predicted_score`, a
//!               number (integer, float, or a quoted string such as "3.0"); other columns ignored
//! ```
//! Problems are [`InputError`]s with the file name and the 1-based line. Both readers take bytes:
//! the gold file is Latin-1 (each byte is the code point of the same value; a file that starts
//! with a UTF-8 byte-order mark is read as UTF-8 instead), the predictions are UTF-8.
//!
//! Scores are bounded to ±[`MAX_ABS_SCORE`] so that every rating difference and its square is an
//! exact `f64`, as it is in the official code for any range it can hold in memory (its
//! confusion matrix has (max − min + 1)² cells).

use std::borrow::Cow;
use std::collections::HashMap;

use crate::error::InputError;

/// The largest absolute gold or (truncated) predicted score accepted.
pub const MAX_ABS_SCORE: i64 = 10_000_000;

/// One row of the gold file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoldEssay {
    pub id: u64,
    /// The essay set (prompt), 1–8.
    pub set: u8,
    /// `domain1_score`.
    pub score: i64,
    /// The `essay` column (empty when the file has none).
    pub text: String,
    /// 1-based line in the gold file.
    pub line: usize,
}

/// One row of the predictions file.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    pub id: u64,
    /// `predicted_score` as read (a finite number).
    pub score: f64,
    /// 1-based line in the predictions file.
    pub line: usize,
}

/// The gold file's lines as text: Latin-1 (each byte is the code point of the same value), or
/// UTF-8 after a UTF-8 byte-order mark, read from a stream one line at a time. Lines split at
/// `\n` with one `\r` before it dropped (`text.split('\n')`, as the whole-file reading did).
struct GoldLines<'f, R> {
    file: &'f str,
    reader: R,
    utf8: bool,
    /// Bytes read so far after the byte-order mark (`from_utf8`'s index).
    offset: usize,
    number: usize,
    /// A line was not UTF-8 (that error is the one to report).
    invalid: bool,
    pending: Vec<u8>,
    buf: Vec<u8>,
}

impl<'f, R: std::io::BufRead> GoldLines<'f, R> {
    fn new(file: &'f str, mut reader: R) -> Result<Self, InputError> {
        let read_error = |e: std::io::Error| crate::text::read_error(file, &e);
        let mut head = Vec::new();
        while head.len() < 3 {
            let buf = reader.fill_buf().map_err(read_error)?;
            if buf.is_empty() {
                break;
            }
            let n = buf.len().min(3 - head.len());
            head.extend_from_slice(&buf[..n]);
            reader.consume(n);
            if !b"\xEF\xBB\xBF".starts_with(&head) {
                break;
            }
        }
        let utf8 = head == b"\xEF\xBB\xBF";
        if utf8 {
            head.clear();
        }
        Ok(Self {
            file,
            reader,
            utf8,
            offset: 0,
            number: 0,
            invalid: false,
            pending: head,
            buf: Vec::new(),
        })
    }

    /// The next line with its 1-based number, decoded.
    fn next_line(&mut self) -> Result<Option<(usize, Cow<'_, str>)>, InputError> {
        // `pending` holds the first bytes of the file (read while looking for a mark); only
        // its last byte can be a `\n`.
        self.buf.clear();
        self.buf.append(&mut self.pending);
        if !self.buf.ends_with(b"\n") {
            self.reader
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| crate::text::read_error(self.file, &e))?;
        }
        if self.buf.is_empty() {
            return Ok(None);
        }
        self.number += 1;
        let start = self.offset;
        self.offset += self.buf.len();
        if self.utf8 {
            // Checked with its `\n`, so a sequence cut by the line end reads as the whole
            // file's `from_utf8` reads it.
            if let Err(e) = std::str::from_utf8(&self.buf) {
                let at = start + e.valid_up_to();
                let what = match e.error_len() {
                    Some(len) => format!("invalid utf-8 sequence of {len} bytes from index {at}"),
                    None => format!("incomplete utf-8 byte sequence from index {at}"),
                };
                self.invalid = true;
                return Err(InputError::at_line(
                    self.file,
                    self.number,
                    format!("not UTF-8 text: {what}"),
                ));
            }
        }
        let mut line = &self.buf[..];
        if let Some(l) = line.strip_suffix(b"\n") {
            line = l.strip_suffix(b"\r").unwrap_or(l);
        }
        let text = match crate::text::from_utf8(line) {
            Ok(text) if self.utf8 || line.is_ascii() => Cow::Borrowed(text),
            _ => Cow::Owned(line.iter().map(|&b| char::from(b)).collect()),
        };
        Ok(Some((self.number, text)))
    }

    /// After an error in a UTF-8 file: the first invalid byte further on, which the
    /// whole-file reading reported first.
    fn utf8_error_after(&mut self) -> Option<InputError> {
        if !self.utf8 || self.invalid {
            return None;
        }
        loop {
            match self.next_line() {
                Ok(Some(_)) => {}
                Ok(None) => return None,
                Err(e) => return Some(e),
            }
        }
    }
}

/// UTF-8 text, or an error naming the line of the first invalid byte.
fn utf8<'a>(file: &str, bytes: &'a [u8]) -> Result<&'a str, InputError> {
    crate::text::from_utf8(bytes).map_err(|e| {
        let line = 1 + bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        InputError::at_line(file, line, format!("not UTF-8 text: {e}"))
    })
}

fn parse_id(file: &str, line: usize, column: &str, raw: &str) -> Result<u64, InputError> {
    raw.trim().parse::<u64>().map_err(|_| {
        InputError::at_line(
            file,
            line,
            format!("`{column}` must be a whole number, found {raw:?}"),
        )
    })
}

/// Parse the gold TSV. Fully empty lines are skipped; a row may omit trailing empty fields but
/// may not have more fields than the header.
pub fn parse_gold(file: &str, bytes: &[u8]) -> Result<Vec<GoldEssay>, InputError> {
    parse_gold_from(file, bytes, true)
}

/// [`parse_gold`] from a stream (a `&[u8]` is one), one line at a time; `keep_text`: keep
/// each essay's text (for the samples and the detail view).
pub fn parse_gold_from(
    file: &str,
    reader: impl std::io::BufRead,
    keep_text: bool,
) -> Result<Vec<GoldEssay>, InputError> {
    let mut lines = GoldLines::new(file, reader)?;
    let parsed = parse_gold_lines(file, &mut lines, keep_text);
    match parsed {
        Err(e) => Err(lines.utf8_error_after().unwrap_or(e)),
        ok => ok,
    }
}

fn parse_gold_lines<R: std::io::BufRead>(
    file: &str,
    lines: &mut GoldLines<'_, R>,
    keep_text: bool,
) -> Result<Vec<GoldEssay>, InputError> {
    let header: Vec<String> = match lines.next_line()? {
        Some((_, h)) if !h.trim().is_empty() => {
            h.split('\t').map(|f| f.trim().to_string()).collect()
        }
        _ => {
            return Err(InputError::whole_file(
                file,
                "empty file: expected a tab-separated header with essay_id, essay_set and domain1_score",
            ));
        }
    };
    let column = |name: &str| {
        header.iter().position(|h| *h == name).ok_or_else(|| {
            InputError::at_line(
                file,
                1,
                format!(
                    "no `{name}` column: expected the Kaggle training_set_rel3.tsv layout \
                     (tab-separated, with essay_id, essay_set and domain1_score)"
                ),
            )
        })
    };
    let (id_col, set_col, score_col) = (
        column("essay_id")?,
        column("essay_set")?,
        column("domain1_score")?,
    );
    let essay_col = header.iter().position(|h| *h == "essay");
    let mut essays = Vec::new();
    let mut seen: HashMap<u64, usize> = HashMap::new();
    while let Some((line, row)) = lines.next_line()? {
        if row.is_empty() {
            continue;
        }
        let fields: Vec<&str> = row.split('\t').collect();
        if fields.len() > header.len() {
            return Err(InputError::at_line(
                file,
                line,
                format!(
                    "{} tab-separated fields, the header has {}",
                    fields.len(),
                    header.len()
                ),
            ));
        }
        let field = |col: usize| fields.get(col).copied().unwrap_or("");
        let id = parse_id(file, line, "essay_id", field(id_col))?;
        let at =
            |message: String| InputError::at_line(file, line, format!("essay_id {id}: {message}"));
        let raw_set = field(set_col);
        let set = raw_set
            .trim()
            .parse::<u8>()
            .ok()
            .filter(|s| (1..=8).contains(s))
            .ok_or_else(|| at(format!("`essay_set` must be 1 to 8, found {raw_set:?}")))?;
        let raw_score = field(score_col);
        let score = raw_score
            .trim()
            .parse::<i64>()
            .ok()
            .filter(|s| s.abs() <= MAX_ABS_SCORE)
            .ok_or_else(|| {
                at(format!(
                    "`domain1_score` must be a whole number (at most {MAX_ABS_SCORE} in size), found {raw_score:?}"
                ))
            })?;
        if let Some(first) = seen.insert(id, line) {
            return Err(at(format!("duplicate essay_id (also line {first})")));
        }
        essays.push(GoldEssay {
            id,
            set,
            score,
            text: essay_col
                .filter(|_| keep_text)
                .map(|c| field(c).to_string())
                .unwrap_or_default(),
            line,
        });
    }
    if essays.is_empty() {
        return Err(InputError::whole_file(
            file,
            "no essays: expected rows below the header",
        ));
    }
    Ok(essays)
}

/// Parse a predictions CSV (or TSV: a tab in the header line).
pub fn parse_predictions(file: &str, bytes: &[u8]) -> Result<Vec<Prediction>, InputError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = utf8(file, bytes)?;
    let header_line = text.lines().next().unwrap_or("");
    let delimiter = if header_line.contains('\t') {
        b'\t'
    } else {
        b','
    };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| InputError::at_line(file, 1, format!("unreadable header: {e}")))?
        .clone();
    let column = |name: &str| headers.iter().position(|h| h.trim() == name);
    let (id_col, id_name) = match (column("essay_id"), column("prediction_id")) {
        (Some(c), _) => (c, "essay_id"),
        (None, Some(c)) => (c, "prediction_id"),
        (None, None) => {
            return Err(InputError::at_line(
                file,
                1,
                "no id column: expected a header with `essay_id` (or `prediction_id`) and `predicted_score`",
            ));
        }
    };
    let score_col = column("predicted_score").ok_or_else(|| {
        InputError::at_line(
            file,
            1,
            "no `predicted_score` column: expected a header with `essay_id` (or `prediction_id`) and `predicted_score`",
        )
    })?;
    let mut predictions = Vec::new();
    let mut seen: HashMap<u64, usize> = HashMap::new();
    for row in reader.records() {
        let row = row.map_err(|e| {
            InputError::at_line(
                file,
                line_of(text, e.position()),
                format!("malformed row: {e}"),
            )
        })?;
        let line = line_of(text, row.position());
        if row.iter().all(|f| f.trim().is_empty()) {
            continue;
        }
        let id = parse_id(file, line, id_name, row.get(id_col).unwrap_or(""))?;
        let raw = row.get(score_col).unwrap_or("");
        let score = raw
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && s.trunc().abs() <= MAX_ABS_SCORE as f64)
            .ok_or_else(|| {
                InputError::at_line(
                    file,
                    line,
                    format!(
                        "essay_id {id}: `predicted_score` must be a number (at most {MAX_ABS_SCORE} in size), found {raw:?}"
                    ),
                )
            })?;
        if let Some(first) = seen.insert(id, line) {
            return Err(InputError::at_line(
                file,
                line,
                format!("essay_id {id}: a second prediction (the first is on line {first})"),
            ));
        }
        predictions.push(Prediction { id, score, line });
    }
    Ok(predictions)
}

/// The 1-based line where a CSV record starts. The `csv` crate's position is where the reader
/// stood after the previous record: before the `\n` of a `\r\n` and before skipped blank lines,
/// so line ends are skipped first.
fn line_of(text: &str, position: Option<&csv::Position>) -> usize {
    let bytes = text.as_bytes();
    let mut at = position.map_or(0, |p| p.byte() as usize).min(bytes.len());
    while at < bytes.len() && matches!(bytes[at], b'\r' | b'\n') {
        at += 1;
    }
    1 + bytes[..at].iter().filter(|&&b| b == b'\n').count()
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "essay_id\tessay_set\tessay\trater1_domain1\tdomain1_score\tdomain2_score";

    #[test]
    fn gold_read_from_a_trickling_stream_is_the_gold_read_whole() {
        let mut latin1 = format!("{HEADER}\r\n").into_bytes();
        latin1.extend_from_slice(b"7\t3\tun caf\xE9\t2\t3\t\r\n8\t8\tx\t1\t60");
        let mut utf8 = b"\xEF\xBB\xBF".to_vec();
        utf8.extend_from_slice(format!("{HEADER}\n7\t3\tun café\t2\t3\t\n").as_bytes());
        for bytes in [&latin1[..], &utf8[..], b"", b"\n", b"\xEF\xBB", b"\xEF\n"] {
            let trickle = std::io::BufReader::with_capacity(1, bytes);
            assert_eq!(
                parse_gold_from("g.tsv", trickle, true),
                parse_gold("g.tsv", bytes),
                "{bytes:?}"
            );
        }
        assert_eq!(parse_gold("g.tsv", &utf8).unwrap()[0].text, "un café");
    }

    #[test]
    fn invalid_utf8_after_a_mark_wins_over_an_earlier_bad_row() {
        // As when the whole file was decoded first: the first invalid byte, with its line and
        // `from_utf8`'s index after the mark.
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend_from_slice(format!("{HEADER}\nx\t3\te\t2\t3\t\n8\t8\tb").as_bytes());
        bytes.extend_from_slice(b"\xFFad\t1\t6\n");
        let whole = std::str::from_utf8(&bytes[3..]).unwrap_err();
        assert_eq!(
            parse_gold("g.tsv", &bytes).unwrap_err(),
            InputError::at_line("g.tsv", 3, format!("not UTF-8 text: {whole}"))
        );
        // A cut sequence at the end of the file.
        let mut cut = b"\xEF\xBB\xBF".to_vec();
        cut.extend_from_slice(format!("{HEADER}\n7\t3\te\t2\t3\t\n").as_bytes());
        cut.extend_from_slice(b"\xE6\xBC");
        let whole = std::str::from_utf8(&cut[3..]).unwrap_err();
        assert_eq!(
            parse_gold("g.tsv", &cut).unwrap_err(),
            InputError::at_line("g.tsv", 3, format!("not UTF-8 text: {whole}"))
        );
    }

    #[test]
    fn gold_is_latin1_with_crlf_and_header_by_name() {
        let mut bytes = format!("{HEADER}\r\n").into_bytes();
        bytes.extend_from_slice(b"7\t3\tun caf\xE9 \"quoted\"\t2\t3\t\r\n");
        bytes.extend_from_slice(b"8\t8\tx\t1\t60\r\n\r\n");
        let gold = parse_gold("g.tsv", &bytes).unwrap();
        assert_eq!(
            gold[0],
            GoldEssay {
                id: 7,
                set: 3,
                score: 3,
                text: "un café \"quoted\"".into(),
                line: 2
            }
        );
        assert_eq!((gold[1].id, gold[1].set, gold[1].score), (8, 8, 60));
        // Columns in another order, no essay column, trailing empty fields omitted.
        let gold = parse_gold("g.tsv", b"domain1_score\tessay_set\tessay_id\n4\t1\t12\n").unwrap();
        assert_eq!((gold[0].id, gold[0].set, gold[0].score), (12, 1, 4));
        assert_eq!(gold[0].text, "");
    }

    #[test]
    fn gold_after_a_utf8_bom_is_utf8() {
        let text = format!("\u{feff}{HEADER}\n1\t1\tcafé\t4\t4\t\n");
        let gold = parse_gold("g.tsv", text.as_bytes()).unwrap();
        assert_eq!(gold[0].text, "café");
    }

    #[test]
    fn gold_errors_name_file_and_line() {
        let err = |body: &str| {
            parse_gold(
                "g.tsv",
                format!("{HEADER}\n1\t1\ta\t4\t4\t\n{body}").as_bytes(),
            )
            .unwrap_err()
            .to_string()
        };
        assert_eq!(
            err("2\t9\ta\t4\t4\t\n"),
            "g.tsv:3: essay_id 2: `essay_set` must be 1 to 8, found \"9\""
        );
        assert_eq!(
            err("2\t1\ta\t4\t4.5\t\n"),
            "g.tsv:3: essay_id 2: `domain1_score` must be a whole number (at most 10000000 in size), found \"4.5\""
        );
        assert_eq!(
            err("2\t1\ta\t4\t\t\n"),
            "g.tsv:3: essay_id 2: `domain1_score` must be a whole number (at most 10000000 in size), found \"\""
        );
        assert_eq!(
            err("x\t1\ta\t4\t4\t\n"),
            "g.tsv:3: `essay_id` must be a whole number, found \"x\""
        );
        assert_eq!(
            err("\n1\t2\tb\t3\t3\t\n"),
            "g.tsv:4: essay_id 1: duplicate essay_id (also line 2)"
        );
        assert_eq!(
            err("2\t1\ta\t4\t4\t\t\n"),
            "g.tsv:3: 7 tab-separated fields, the header has 6"
        );
        let e = parse_gold("g.tsv", b"essay_id,essay_set,domain1_score\n1,1,4\n").unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(e.message.starts_with("no `essay_id` column"), "{e}");
        assert_eq!(
            parse_gold("g.tsv", format!("{HEADER}\n").as_bytes())
                .unwrap_err()
                .to_string(),
            "g.tsv: no essays: expected rows below the header"
        );
        assert!(parse_gold("g.tsv", b"").unwrap_err().line.is_none());
        let e = parse_gold("g.tsv", b"\xEF\xBB\xBFessay_id\n\xE9\n").unwrap_err();
        assert_eq!(
            (e.line, e.message.starts_with("not UTF-8")),
            (Some(2), true)
        );
    }

    #[test]
    fn predictions_csv_tsv_bom_quotes_and_floats() {
        let csv = "\u{feff}essay_id,essay_set,predicted_score\r\n1,1,\"3.0\"\r\n2,1,-0.6\r\n\r\n3,1, 2.999 \r\n";
        let p = parse_predictions("p.csv", csv.as_bytes()).unwrap();
        let got: Vec<(u64, f64, usize)> = p.iter().map(|p| (p.id, p.score, p.line)).collect();
        assert_eq!(got, [(1, 3.0, 2), (2, -0.6, 3), (3, 2.999, 5)]);
        let tsv = "prediction_id\tessay_weight\tpredicted_score\n10\t1\t4\n";
        let p = parse_predictions("p.tsv", tsv.as_bytes()).unwrap();
        assert_eq!((p[0].id, p[0].score, p[0].line), (10, 4.0, 2));
        // essay_id wins over prediction_id when both are present.
        let both = "prediction_id,essay_id,predicted_score\n99,5,1\n";
        assert_eq!(
            parse_predictions("p.csv", both.as_bytes()).unwrap()[0].id,
            5
        );
    }

    #[test]
    fn prediction_errors_name_file_and_line() {
        let err = |text: &str| {
            parse_predictions("p.csv", text.as_bytes())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err("essay_id,predicted_score\n1,3\n2,three\n"),
            "p.csv:3: essay_id 2: `predicted_score` must be a number (at most 10000000 in size), found \"three\""
        );
        assert_eq!(
            err("essay_id,predicted_score\n1,NaN\n"),
            "p.csv:2: essay_id 1: `predicted_score` must be a number (at most 10000000 in size), found \"NaN\""
        );
        assert!(err("essay_id,predicted_score\n1,1e300\n").starts_with("p.csv:2: essay_id 1:"));
        // Lines as an editor counts them, with \r\n line ends and blank lines.
        assert!(
            err("essay_id,predicted_score\r\n1,3\r\n\r\n\r\n2,x\r\n")
                .starts_with("p.csv:5: essay_id 2:")
        );
        assert_eq!(
            err("essay_id,predicted_score\n1,3\n1,4\n"),
            "p.csv:3: essay_id 1: a second prediction (the first is on line 2)"
        );
        assert_eq!(
            err("essay_id,predicted_score\n1.0,3\n"),
            "p.csv:2: `essay_id` must be a whole number, found \"1.0\""
        );
        assert_eq!(
            err("prediction_id,predicted_score\n,3\n"),
            "p.csv:2: `prediction_id` must be a whole number, found \"\""
        );
        assert!(err("id,predicted_score\n1,3\n").starts_with("p.csv:1: no id column"));
        assert!(err("essay_id,score\n1,3\n").starts_with("p.csv:1: no `predicted_score` column"));
        // An unterminated quote runs to the end of the file: the cell is not a number.
        assert!(err("essay_id,predicted_score\n1,\"3\n2,4\n").starts_with("p.csv:2: essay_id 1:"));
        let e = parse_predictions("p.csv", b"essay_id,predicted_score\n1,3\n2,\xE9\n").unwrap_err();
        assert_eq!(
            (e.line, e.message.starts_with("not UTF-8")),
            (Some(3), true)
        );
    }
}
