//! Python's `json.loads` and `json.JSONDecoder().raw_decode` (the C scanner of CPython 3.11):
//! json_repair tries them before repairing, so what they accept decides the result.
//!
//! ```text
//! whitespace        ' ', \t, \n, \r only
//! constants         NaN, Infinity, -Infinity (besides true, false, null)
//! numbers           -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?; an int of any size,
//!                   ValueError beyond 4300 digits
//! strings           raw control characters (< U+0020) are errors; \uXXXX pairs combine; a
//!                   lone surrogate becomes U+FFFD (Rust strings cannot hold it)
//! objects           a repeated key keeps its first position and its last value
//! json.loads        leading/trailing whitespace allowed; a BOM or anything else after the
//!                   value is an error
//! ```

use indexmap::IndexMap;

use super::MAX_DEPTH;
use crate::python::PyValue;

/// Why Python's decoder gives no value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrictError {
    /// `json.JSONDecodeError`.
    Invalid,
    /// `ValueError` (an integer of more than 4300 digits).
    IntTooLong,
    /// `RecursionError` (nesting deeper than [`MAX_DEPTH`]).
    TooDeep,
}

/// `json.loads(text)`.
pub fn loads(s: &[char]) -> Result<PyValue, StrictError> {
    if s.first() == Some(&'\u{feff}') {
        return Err(StrictError::Invalid);
    }
    let start = skip_ws(s, 0);
    let (value, end) = raw_decode(s, start)?;
    if skip_ws(s, end) != s.len() {
        return Err(StrictError::Invalid);
    }
    Ok(value)
}

/// `JSONDecoder().raw_decode(s[start:])`: the value at `start` (no whitespace skipped) and
/// the index after it.
pub fn raw_decode(s: &[char], start: usize) -> Result<(PyValue, usize), StrictError> {
    Scanner { s, depth: 0 }.value(start)
}

fn skip_ws(s: &[char], mut i: usize) -> usize {
    while i < s.len() && matches!(s[i], ' ' | '\t' | '\n' | '\r') {
        i += 1;
    }
    i
}

struct Scanner<'a> {
    s: &'a [char],
    depth: usize,
}

impl Scanner<'_> {
    fn at(&self, i: usize) -> Option<char> {
        self.s.get(i).copied()
    }

    fn starts_with(&self, i: usize, word: &str) -> bool {
        let n = word.chars().count();
        i + n <= self.s.len() && self.s[i..i + n].iter().copied().eq(word.chars())
    }

    fn value(&mut self, i: usize) -> Result<(PyValue, usize), StrictError> {
        match self.at(i) {
            Some('"') => {
                let (text, end) = self.string(i + 1)?;
                Ok((PyValue::Str(text), end))
            }
            Some('{') => self.nested(|me| me.object(i + 1)),
            Some('[') => self.nested(|me| me.array(i + 1)),
            Some('n') if self.starts_with(i, "null") => Ok((PyValue::None, i + 4)),
            Some('t') if self.starts_with(i, "true") => Ok((PyValue::Bool(true), i + 4)),
            Some('f') if self.starts_with(i, "false") => Ok((PyValue::Bool(false), i + 5)),
            Some('N') if self.starts_with(i, "NaN") => Ok((PyValue::Float(f64::NAN), i + 3)),
            Some('I') if self.starts_with(i, "Infinity") => {
                Ok((PyValue::Float(f64::INFINITY), i + 8))
            }
            Some('-') if self.starts_with(i, "-Infinity") => {
                Ok((PyValue::Float(f64::NEG_INFINITY), i + 9))
            }
            Some(c) if c == '-' || c.is_ascii_digit() => self.number(i),
            _ => Err(StrictError::Invalid),
        }
    }

    fn nested(
        &mut self,
        inner: impl FnOnce(&mut Self) -> Result<(PyValue, usize), StrictError>,
    ) -> Result<(PyValue, usize), StrictError> {
        if self.depth >= MAX_DEPTH {
            return Err(StrictError::TooDeep);
        }
        self.depth += 1;
        let result = inner(self);
        self.depth -= 1;
        result
    }

    fn digits(&self, mut i: usize) -> usize {
        while self.at(i).is_some_and(|c| c.is_ascii_digit()) {
            i += 1;
        }
        i
    }

    fn number(&self, start: usize) -> Result<(PyValue, usize), StrictError> {
        let mut i = start;
        if self.at(i) == Some('-') {
            i += 1;
        }
        match self.at(i) {
            Some('0') => i += 1,
            Some('1'..='9') => i = self.digits(i),
            _ => return Err(StrictError::Invalid),
        }
        let mut is_float = false;
        if self.at(i) == Some('.') && self.at(i + 1).is_some_and(|c| c.is_ascii_digit()) {
            i = self.digits(i + 1);
            is_float = true;
        }
        if matches!(self.at(i), Some('e' | 'E')) {
            let mut j = i + 1;
            if matches!(self.at(j), Some('+' | '-')) {
                j += 1;
            }
            let end = self.digits(j);
            if end > j {
                i = end;
                is_float = true;
            }
        }
        let text: String = self.s[start..i].iter().collect();
        if is_float {
            let f: f64 = text.parse().map_err(|_| StrictError::Invalid)?;
            Ok((PyValue::Float(f), i))
        } else {
            let v = PyValue::int_from_digits(&text).ok_or(StrictError::IntTooLong)?;
            Ok((v, i))
        }
    }

    fn hex4(&self, i: usize) -> Option<u32> {
        let h: String = self.s.get(i..i + 4)?.iter().collect();
        if h.chars().all(|c| c.is_ascii_hexdigit()) {
            u32::from_str_radix(&h, 16).ok()
        } else {
            None
        }
    }

    /// A string body from `i` (after the opening quote) → its text and the index after the
    /// closing quote.
    fn string(&self, mut i: usize) -> Result<(String, usize), StrictError> {
        let mut out = String::new();
        loop {
            let c = self.at(i).ok_or(StrictError::Invalid)?;
            match c {
                '"' => return Ok((out, i + 1)),
                '\\' => {
                    let e = self.at(i + 1).ok_or(StrictError::Invalid)?;
                    i += 2;
                    match e {
                        '"' => out.push('"'),
                        '\\' => out.push('\\'),
                        '/' => out.push('/'),
                        'b' => out.push('\u{8}'),
                        'f' => out.push('\u{c}'),
                        'n' => out.push('\n'),
                        'r' => out.push('\r'),
                        't' => out.push('\t'),
                        'u' => {
                            let mut code = self.hex4(i).ok_or(StrictError::Invalid)?;
                            i += 4;
                            if (0xd800..0xdc00).contains(&code)
                                && self.at(i) == Some('\\')
                                && self.at(i + 1) == Some('u')
                                && let Some(low) =
                                    self.hex4(i + 2).filter(|l| (0xdc00..0xe000).contains(l))
                            {
                                code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
                                i += 6;
                            }
                            out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                        }
                        _ => return Err(StrictError::Invalid),
                    }
                }
                c if (c as u32) < 0x20 => return Err(StrictError::Invalid),
                c => {
                    out.push(c);
                    i += 1;
                }
            }
        }
    }

    fn object(&mut self, i: usize) -> Result<(PyValue, usize), StrictError> {
        let mut map = IndexMap::new();
        let mut i = skip_ws(self.s, i);
        if self.at(i) == Some('}') {
            return Ok((PyValue::Dict(map), i + 1));
        }
        loop {
            if self.at(i) != Some('"') {
                return Err(StrictError::Invalid);
            }
            let (key, end) = self.string(i + 1)?;
            i = skip_ws(self.s, end);
            if self.at(i) != Some(':') {
                return Err(StrictError::Invalid);
            }
            i = skip_ws(self.s, i + 1);
            let (value, end) = self.value(i)?;
            map.insert(key, value);
            i = skip_ws(self.s, end);
            match self.at(i) {
                Some('}') => return Ok((PyValue::Dict(map), i + 1)),
                Some(',') => i = skip_ws(self.s, i + 1),
                _ => return Err(StrictError::Invalid),
            }
        }
    }

    fn array(&mut self, i: usize) -> Result<(PyValue, usize), StrictError> {
        let mut items = Vec::new();
        let mut i = skip_ws(self.s, i);
        if self.at(i) == Some(']') {
            return Ok((PyValue::List(items), i + 1));
        }
        loop {
            let (value, end) = self.value(i)?;
            items.push(value);
            i = skip_ws(self.s, end);
            match self.at(i) {
                Some(']') => return Ok((PyValue::List(items), i + 1)),
                Some(',') => i = skip_ws(self.s, i + 1),
                _ => return Err(StrictError::Invalid),
            }
        }
    }
}
