//! A spec's file roles read into rows: the mapped fields of each record, typed, with the
//! record's 1-based line (JSON arrays: record number).
//!
//! ```text
//! bytes    utf-8 (a byte-order mark skipped) or latin-1 (each byte its code point; a UTF-8
//!          byte-order mark still means UTF-8)
//! csv      the `csv` crate (quoting, flexible rows) or, without quoting, lines split at `\n`
//!          (one `\r` dropped) and fields at the delimiter; a header row; a row may omit
//!          trailing fields (read as empty) but may not have more than the header; rows whose
//!          fields are all blank are skipped
//! jsonl    one object per line, blank lines skipped; json: an array of objects
//! columns  a field matches a header exactly (trimmed), else ignoring ASCII case; a JSON field
//!          is a key, else a dotted path into nested objects
//! values   number: a JSON number or a trimmed numeric text, finite; integer: a whole number
//!          (text: an i64 literal) up to 2^53; label: the text (a JSON number as written)
//! ```

use std::borrow::Cow;

use serde_json::Value;

use super::{Encoding, FileSpec, Format, Spec, ValueType};
use crate::error::InputError;

/// The largest whole number an `integer` value may be (every such number is an exact f64).
pub const MAX_INTEGER: f64 = 9_007_199_254_740_992.0;

/// A gold or predicted value: its text, and its number unless it is a label.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub text: String,
    pub number: Option<f64>,
}

/// One record of a file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Row {
    /// 1-based line (record number in a JSON array).
    pub line: usize,
    pub id: Option<String>,
    pub gold: Option<Cell>,
    pub pred: Option<Cell>,
    pub subset: Option<String>,
    /// The role's `text` fields, in its order.
    pub text: Vec<String>,
    /// The role's `numbers`, in its order.
    pub numbers: Vec<f64>,
    /// The record's weight, when the role maps `weight` (a finite number ≥ 0).
    pub weight: Option<f64>,
}

/// A role's file read.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Rows {
    pub rows: Vec<Row>,
    /// The id field the file has (the first of the alternatives present).
    pub id_field: Option<String>,
}

/// The format a file of this role is read as (`auto` decided by its first character).
pub fn resolved_format(file: &FileSpec, text: &str) -> Format {
    match file.format {
        Format::Auto => {
            if text.trim_start().starts_with('{') {
                Format::Jsonl
            } else {
                Format::Csv
            }
        }
        other => other,
    }
}

/// The file's bytes as text, in its role's encoding.
pub fn decode<'a>(
    name: &str,
    bytes: &'a [u8],
    encoding: Encoding,
) -> Result<Cow<'a, str>, InputError> {
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        return utf8(name, rest).map(Cow::Borrowed);
    }
    match encoding {
        Encoding::Utf8 => utf8(name, bytes).map(Cow::Borrowed),
        Encoding::Latin1 => Ok(Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect())),
    }
}

fn utf8<'a>(name: &str, bytes: &'a [u8]) -> Result<&'a str, InputError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
        InputError::at_line(
            name,
            line,
            format!(
                "not UTF-8 (byte {at}): declare `encoding = \"latin-1\"` if the file is Latin-1"
            ),
        )
    })
}

/// Read the file of `role`.
pub fn read(spec: &Spec, role: &str, name: &str, bytes: &[u8]) -> Result<Rows, InputError> {
    let Some(file) = spec.files.get(role) else {
        return Err(InputError::whole_file(
            name,
            format!("the spec has no file role `{role}`"),
        ));
    };
    let text = decode(name, bytes, file.encoding)?;
    let reader = Reader { spec, file, name };
    let rows = match resolved_format(file, &text) {
        Format::Jsonl => reader.jsonl(&text)?,
        Format::Json => reader.json(&text)?,
        Format::Csv | Format::Tsv | Format::Auto => reader.delimited(&text)?,
    };
    if rows.rows.is_empty() {
        return Err(InputError::whole_file(name, "no records"));
    }
    Ok(rows)
}

/// Whether a file's head (its first bytes) has the fields `file` maps: a header row with
/// them, or a first JSON object with them.
pub fn recognises(file: &FileSpec, head: &str) -> bool {
    let head = head.trim_start_matches('\u{feff}');
    match resolved_format(file, head) {
        Format::Jsonl | Format::Json => {
            let first = head.trim_start().trim_start_matches('[').trim_start();
            let Some(line) = first.lines().next() else {
                return false;
            };
            let Ok(Value::Object(object)) =
                serde_json::from_str::<Value>(line.trim_end_matches(','))
            else {
                return false;
            };
            file.has_fields(|f| field(&object, f).is_some())
        }
        _ => {
            let line = head.lines().next().unwrap_or("");
            let delimiter = delimiter_of(file, line);
            let header: Vec<String> = line
                .split(char::from(delimiter))
                .map(|h| h.trim().trim_matches('"').to_string())
                .collect();
            file.has_fields(|f| column(&header, f).is_some())
        }
    }
}

fn delimiter_of(file: &FileSpec, header_line: &str) -> u8 {
    match (file.format, file.delimiter.as_deref()) {
        (Format::Tsv, _) => b'\t',
        (_, Some("auto")) => {
            if header_line.contains('\t') {
                b'\t'
            } else {
                b','
            }
        }
        (_, Some(d)) => d.bytes().next().unwrap_or(b','),
        (_, None) => b',',
    }
}

/// The column of `name`: an exact (trimmed) match, else one ignoring ASCII case.
fn column(header: &[String], name: &str) -> Option<usize> {
    header
        .iter()
        .position(|h| h == name)
        .or_else(|| header.iter().position(|h| h.eq_ignore_ascii_case(name)))
}

/// A JSON object's field: the key, else a dotted path.
fn field<'v>(object: &'v serde_json::Map<String, Value>, name: &str) -> Option<&'v Value> {
    if let Some(v) = object.get(name) {
        return Some(v);
    }
    let mut parts = name.split('.');
    let mut v = object.get(parts.next()?)?;
    for part in parts {
        v = v.as_object()?.get(part)?;
    }
    Some(v)
}

struct Reader<'a> {
    spec: &'a Spec,
    file: &'a FileSpec,
    name: &'a str,
}

/// A raw field value: text from a delimited file, or a JSON value.
enum Raw<'v> {
    Text(&'v str),
    Json(&'v Value),
}

impl Reader<'_> {
    fn err(&self, line: usize, message: String) -> InputError {
        InputError::at_line(self.name, line, message)
    }

    fn delimited(&self, text: &str) -> Result<Rows, InputError> {
        let header_line = text.lines().next().unwrap_or("");
        if header_line.trim().is_empty() {
            return Err(InputError::whole_file(
                self.name,
                "empty file: expected a header row",
            ));
        }
        let delimiter = delimiter_of(self.file, header_line);
        let quoting = self.file.quoting.unwrap_or(self.file.format != Format::Tsv);
        let mut out = Rows::default();
        if quoting {
            let mut reader = csv::ReaderBuilder::new()
                .delimiter(delimiter)
                .flexible(true)
                .from_reader(text.as_bytes());
            let header: Vec<String> = reader
                .headers()
                .map_err(|e| self.err(1, format!("unreadable header: {e}")))?
                .iter()
                .map(|h| h.trim().to_string())
                .collect();
            let columns = self.columns(&header, &mut out)?;
            for record in reader.records() {
                let record = record.map_err(|e| {
                    let line = e.position().map_or(0, |p| p.line() as usize);
                    InputError::new(
                        self.name,
                        (line > 0).then_some(line),
                        format!("malformed row: {e}"),
                    )
                })?;
                if record.iter().all(|f| f.trim().is_empty()) {
                    continue;
                }
                let line = record.position().map_or(0, |p| p.line() as usize);
                let get = |c: usize| Raw::Text(record.get(c).unwrap_or(""));
                out.rows.push(self.row(line, &columns, get)?);
            }
        } else {
            let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
            let header: Vec<String> = lines
                .next()
                .unwrap_or("")
                .split(char::from(delimiter))
                .map(|h| h.trim().to_string())
                .collect();
            let columns = self.columns(&header, &mut out)?;
            for (i, raw) in lines.enumerate() {
                let line = i + 2;
                let fields: Vec<&str> = raw.split(char::from(delimiter)).collect();
                if fields.iter().all(|f| f.trim().is_empty()) {
                    continue;
                }
                if fields.len() > header.len() {
                    return Err(self.err(
                        line,
                        format!("{} fields, the header has {}", fields.len(), header.len()),
                    ));
                }
                let get = |c: usize| Raw::Text(fields.get(c).copied().unwrap_or(""));
                out.rows.push(self.row(line, &columns, get)?);
            }
        }
        Ok(out)
    }

    /// The column of each mapped field (an error naming a missing one).
    fn columns(&self, header: &[String], out: &mut Rows) -> Result<Columns<usize>, InputError> {
        let need = |f: &str| {
            column(header, f).ok_or_else(|| {
                self.err(
                    1,
                    format!("no `{f}` column (the header has: {})", header.join(", ")),
                )
            })
        };
        let id = match &self.file.id {
            None => None,
            Some(names) => {
                let found = names
                    .all()
                    .iter()
                    .find_map(|n| column(header, n).map(|c| (n, c)));
                let Some((n, c)) = found else {
                    return Err(
                        self.err(1, format!("no id column: expected {}", quoted(names.all())))
                    );
                };
                out.id_field = Some(n.clone());
                Some(c)
            }
        };
        Columns::mapped(self.file, id, need)
    }

    fn jsonl(&self, text: &str) -> Result<Rows, InputError> {
        let mut out = Rows::default();
        for (i, raw) in text.split('\n').enumerate() {
            let line = i + 1;
            if raw.trim().is_empty() {
                continue;
            }
            let value: Value = serde_json::from_str(raw)
                .map_err(|e| self.err(line, format!("not valid JSON: {e}")))?;
            out.rows.push(self.object(line, &value, &mut out.id_field)?);
        }
        Ok(out)
    }

    fn json(&self, text: &str) -> Result<Rows, InputError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| self.err(e.line(), format!("not valid JSON: {e}")))?;
        let Value::Array(items) = value else {
            return Err(InputError::whole_file(
                self.name,
                "expected a JSON array of objects",
            ));
        };
        let mut out = Rows::default();
        for (i, item) in items.iter().enumerate() {
            out.rows.push(self.object(i + 1, item, &mut out.id_field)?);
        }
        Ok(out)
    }

    fn object(
        &self,
        line: usize,
        value: &Value,
        id_field: &mut Option<String>,
    ) -> Result<Row, InputError> {
        let Value::Object(object) = value else {
            return Err(self.err(line, "expected a JSON object".into()));
        };
        let need =
            |f: &str| field(object, f).ok_or_else(|| self.err(line, format!("missing `{f}`")));
        let id = match &self.file.id {
            None => None,
            Some(names) => {
                let found = names
                    .all()
                    .iter()
                    .find_map(|n| field(object, n).map(|v| (n, v)));
                let Some((n, v)) = found else {
                    return Err(self.err(line, format!("no id: expected {}", quoted(names.all()))));
                };
                if id_field.is_none() {
                    *id_field = Some(n.clone());
                }
                Some(v)
            }
        };
        let columns = Columns::mapped(self.file, id, need)?;
        let row = self.row(line, &columns, Raw::Json)?;
        Ok(row)
    }

    /// One record from its mapped fields (`get`: a column's raw value).
    fn row<'v, C: Copy>(
        &self,
        line: usize,
        columns: &Columns<C>,
        get: impl Fn(C) -> Raw<'v>,
    ) -> Result<Row, InputError> {
        let id = match columns.id {
            None => None,
            Some(c) => {
                let id = text_of(&get(c));
                if id.is_empty() {
                    return Err(self.err(line, "an empty id".into()));
                }
                Some(id)
            }
        };
        let at = |message: String| match &id {
            Some(id) => self.err(line, format!("id {id}: {message}")),
            None => self.err(line, message),
        };
        let cell = |c: Option<C>, field: &Option<String>, kind: ValueType| {
            c.map(|c| {
                value(&get(c), kind)
                    .map_err(|m| at(format!("`{}` {m}", field.as_deref().unwrap_or(""))))
            })
            .transpose()
        };
        let subset = match columns.subset {
            None => None,
            Some(c) => {
                let s = text_of(&get(c));
                let allowed = &self.spec.subsets.values;
                if !allowed.is_empty() && !allowed.contains(&s) {
                    return Err(at(format!(
                        "subset {s:?} is not one of {}",
                        allowed.join(", ")
                    )));
                }
                Some(s)
            }
        };
        let numbers = columns
            .numbers
            .iter()
            .zip(self.file.numbers.values())
            .map(|(&c, f)| {
                value(&get(c), ValueType::Number)
                    .map(|v| v.number.unwrap_or(0.0))
                    .map_err(|m| at(format!("`{f}` {m}")))
            })
            .collect::<Result<_, _>>()?;
        let weight = match columns.weight {
            None => None,
            Some(c) => {
                let w = value(&get(c), ValueType::Number)
                    .ok()
                    .and_then(|v| v.number)
                    .filter(|w| *w >= 0.0);
                let field = self.file.weight.as_deref().unwrap_or("");
                Some(w.ok_or_else(|| {
                    at(format!(
                        "`{field}` must be a finite number ≥ 0 (a weight), found {:?}",
                        raw_text(&get(c))
                    ))
                })?)
            }
        };
        Ok(Row {
            line,
            weight,
            gold: cell(columns.gold, &self.file.gold, self.spec.values.gold)?,
            pred: cell(columns.pred, &self.file.pred, self.spec.values.pred)?,
            subset,
            text: columns.text.iter().map(|&c| raw_text(&get(c))).collect(),
            numbers,
            id,
        })
    }
}

/// The mapped fields' columns (delimited files) or values (JSON).
struct Columns<C> {
    id: Option<C>,
    gold: Option<C>,
    pred: Option<C>,
    subset: Option<C>,
    weight: Option<C>,
    text: Vec<C>,
    numbers: Vec<C>,
}

impl<C> Columns<C> {
    /// Each field `file` maps, found by `need` (an error names the missing one).
    fn mapped(
        file: &FileSpec,
        id: Option<C>,
        need: impl Fn(&str) -> Result<C, InputError>,
    ) -> Result<Self, InputError> {
        let one = |f: &Option<String>| f.as_deref().map(&need).transpose();
        Ok(Columns {
            id,
            gold: one(&file.gold)?,
            pred: one(&file.pred)?,
            subset: one(&file.subset)?,
            weight: one(&file.weight)?,
            text: file
                .text
                .iter()
                .map(|f| need(f))
                .collect::<Result<_, _>>()?,
            numbers: file
                .numbers
                .values()
                .map(|f| need(f))
                .collect::<Result<_, _>>()?,
        })
    }
}

fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// An id or subset value: the trimmed text, a JSON number as written.
fn text_of(raw: &Raw<'_>) -> String {
    match raw {
        Raw::Text(t) => t.trim().to_string(),
        Raw::Json(Value::String(s)) => s.trim().to_string(),
        Raw::Json(Value::Null) => String::new(),
        Raw::Json(v) => v.to_string(),
    }
}

/// A text field as it is (JSON non-strings as written).
fn raw_text(raw: &Raw<'_>) -> String {
    match raw {
        Raw::Text(t) => (*t).to_string(),
        Raw::Json(Value::String(s)) => s.clone(),
        Raw::Json(v) => v.to_string(),
    }
}

/// A gold or predicted value of type `kind`; the error completes "`field` …".
fn value(raw: &Raw<'_>, kind: ValueType) -> Result<Cell, String> {
    let text = match raw {
        Raw::Text(t) => (*t).to_string(),
        Raw::Json(Value::String(s)) => s.clone(),
        Raw::Json(Value::Null) => return Err("is null".into()),
        Raw::Json(v @ (Value::Array(_) | Value::Object(_))) => {
            return Err(format!("must be a single value, found {v}"));
        }
        Raw::Json(v) => v.to_string(),
    };
    let number = match (kind, raw) {
        (ValueType::Label, _) => None,
        (_, Raw::Json(Value::Number(n))) => n.as_f64(),
        (ValueType::Integer, _) => text.trim().parse::<i64>().ok().map(|v| v as f64),
        (ValueType::Number, _) => text.trim().parse::<f64>().ok(),
    };
    match (kind, number) {
        (ValueType::Label, _) => Ok(Cell { text, number: None }),
        (ValueType::Number, Some(v)) if v.is_finite() => Ok(Cell {
            text,
            number: Some(v),
        }),
        (ValueType::Integer, Some(v)) if v.fract() == 0.0 && v.abs() <= MAX_INTEGER => Ok(Cell {
            text,
            number: Some(v),
        }),
        (ValueType::Integer, _) => Err(format!("must be a whole number, found {text:?}")),
        _ => Err(format!("must be a finite number, found {text:?}")),
    }
}
