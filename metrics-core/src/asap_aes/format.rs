//! ASAP-AES files: the Kaggle release gold TSV (Latin-1) and a predictions CSV/TSV.

use crate::error::InputError;

/// One gold essay of the release TSV.
#[derive(Debug, Clone, PartialEq)]
pub struct GoldEssay {
    pub id: String,
    /// 1–8.
    pub set: u8,
    /// `domain1_score`.
    pub score: i64,
    pub text: String,
    /// 1-based line in the gold file.
    pub line: usize,
}

/// One prediction row.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    pub id: String,
    /// `predicted_score` as read (possibly fractional).
    pub score: f64,
    pub line: usize,
}

/// The release TSV is Latin-1: every byte is the code point of the same value.
pub fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

fn column(header: &[&str], name: &str, file: &str) -> Result<usize, InputError> {
    header
        .iter()
        .position(|h| h.trim() == name)
        .ok_or_else(|| InputError::at_line(file, 1, format!("no `{name}` column in the header")))
}

/// Parse the gold TSV (`essay_id`, `essay_set`, `domain1_score`; `essay` kept for the detail).
/// Tab-separated, no quoting, `\n` or `\r\n`.
pub fn parse_gold(file: &str, bytes: &[u8]) -> Result<Vec<GoldEssay>, InputError> {
    let text = latin1(bytes);
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let header: Vec<&str> = lines
        .next()
        .filter(|h| !h.trim().is_empty())
        .ok_or_else(|| InputError::whole_file(file, "empty file: expected a header row"))?
        .split('\t')
        .collect();
    let (id_col, set_col, score_col) = (
        column(&header, "essay_id", file)?,
        column(&header, "essay_set", file)?,
        column(&header, "domain1_score", file)?,
    );
    let essay_col = header.iter().position(|h| h.trim() == "essay");
    let mut out = Vec::new();
    for (i, row) in lines.enumerate() {
        let line = i + 2;
        if row.trim().is_empty() {
            continue;
        }
        let cells: Vec<&str> = row.split('\t').collect();
        let cell = |c: usize, name: &str| -> Result<&str, InputError> {
            cells.get(c).map(|s| s.trim()).ok_or_else(|| {
                InputError::at_line(file, line, format!("the row has no `{name}` cell"))
            })
        };
        let id = cell(id_col, "essay_id")?;
        if id.is_empty() {
            return Err(InputError::at_line(file, line, "empty essay_id"));
        }
        let set = cell(set_col, "essay_set")?;
        let set: u8 = set
            .parse()
            .ok()
            .filter(|s| (1..=8).contains(s))
            .ok_or_else(|| {
                InputError::at_line(file, line, format!("essay_set `{set}` is not 1–8"))
            })?;
        let score = cell(score_col, "domain1_score")?;
        let score: i64 = score.parse().map_err(|_| {
            InputError::at_line(
                file,
                line,
                format!("domain1_score `{score}` of essay_id {id} is not an integer"),
            )
        })?;
        out.push(GoldEssay {
            id: id.to_string(),
            set,
            score,
            text: essay_col
                .and_then(|c| cells.get(c))
                .map_or_else(String::new, |s| (*s).to_string()),
            line,
        });
    }
    Ok(out)
}

/// Parse the predictions: a header with `essay_id` (or Kaggle's `prediction_id`) and
/// `predicted_score`, comma- or tab-separated, UTF-8 with an optional BOM.
pub fn parse_predictions(file: &str, text: &str) -> Result<Vec<Prediction>, InputError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = text.lines().next().unwrap_or("");
    let delimiter = if first.contains('\t') && !first.contains(',') {
        b'\t'
    } else {
        b','
    };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .from_reader(text.as_bytes());
    let header = reader
        .headers()
        .map_err(|e| InputError::at_line(file, 1, format!("cannot read the header: {e}")))?
        .clone();
    let find = |name: &str| header.iter().position(|h| h.trim() == name);
    let id_col = find("essay_id")
        .or_else(|| find("prediction_id"))
        .ok_or_else(|| {
            InputError::at_line(
                file,
                1,
                "no `essay_id` (or `prediction_id`) column in the header",
            )
        })?;
    let score_col = find("predicted_score")
        .ok_or_else(|| InputError::at_line(file, 1, "no `predicted_score` column in the header"))?;
    let mut out = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = e.position().map_or(0, |p| p.line() as usize);
            InputError::at_line(file, line, format!("unreadable row: {e}"))
        })?;
        let line = record.position().map_or(0, |p| p.line() as usize);
        if record.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        let id = record.get(id_col).unwrap_or("").trim();
        if id.is_empty() {
            return Err(InputError::at_line(file, line, "empty essay_id"));
        }
        let raw = record.get(score_col).unwrap_or("").trim();
        let score: f64 = raw
            .parse()
            .ok()
            .filter(|s: &f64| s.is_finite())
            .ok_or_else(|| {
                InputError::at_line(
                    file,
                    line,
                    format!("predicted_score `{raw}` of essay_id {id} is not a finite number"),
                )
            })?;
        out.push(Prediction {
            id: id.to_string(),
            score,
            line,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gold_is_latin1_with_crlf() {
        let bytes = b"essay_id\tessay_set\tessay\tdomain1_score\r\n7\t2\tcaf\xe9 \"q\"\t4\r\n\r\n";
        let gold = parse_gold("g.tsv", bytes).unwrap();
        assert_eq!(gold.len(), 1);
        assert_eq!(
            (gold[0].id.as_str(), gold[0].set, gold[0].score),
            ("7", 2, 4)
        );
        assert_eq!(gold[0].text, "café \"q\"");
        let e = parse_gold("g.tsv", b"essay_id\tessay_set\tdomain1_score\n1\t9\t2\n").unwrap_err();
        assert_eq!((e.path.as_str(), e.line), ("g.tsv", Some(2)));
        let e = parse_gold("g.tsv", b"essay_id\tessay_set\tdomain1_score\n1\t1\tx\n").unwrap_err();
        assert!(e.message.contains("essay_id 1"), "{e}");
    }

    #[test]
    fn predictions_with_bom_quotes_and_kaggle_ids() {
        let p = parse_predictions(
            "p.csv",
            "\u{feff}prediction_id,essay_set,predicted_score\n5,1,\"3.0\"\n6,1,-0.6\n",
        )
        .unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!((p[0].id.as_str(), p[0].score, p[0].line), ("5", 3.0, 2));
        assert_eq!(p[1].score, -0.6);
        let e = parse_predictions("p.csv", "essay_id,predicted_score\n1,2\n2,abc\n").unwrap_err();
        assert_eq!(e.line, Some(3));
        let tsv = parse_predictions("p.tsv", "essay_id\tpredicted_score\n1\t2\n").unwrap();
        assert_eq!(tsv[0].score, 2.0);
        assert!(parse_predictions("p.csv", "id,score\n1,2\n").is_err());
    }
}
