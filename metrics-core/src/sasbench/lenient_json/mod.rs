//! `json_repair.loads(text)` of the Python package json_repair 0.64.5, which the official
//! SAS-Bench step 2 calls on every model reply: a port of its parser (`json_parser.py`,
//! `parse_object.py`, `parse_array.py`, `parse_string.py`, `parse_number.py`,
//! `parse_comment.py`, `parser_parenthesized.py`) with the default options (no schema, not
//! strict, not stream-stable), function for function, on Python's code-point indexing.
//!
//! No maintained Rust crate reproduces json_repair's choices (the crates.io ports
//! `json-repair`, `jsonrepair`, `llm_json` follow other rules), and step 2's output depends on
//! them. `scripts/diff-json-repair.sh` compares this port with the real package on generated
//! replies; `tests/data/json_repair_cases.jsonl` keeps the cases that once differed.
//!
//! ```text
//! json.loads(text) first (strict::loads: NaN/Infinity, big ints, duplicate keys as Python)
//! otherwise the repairing parser: the first value, then any later top-level values
//!   (an object with the same keys/structure replaces the previous one; otherwise a list)
//! ```
//!
//! Differences from Python, for inputs nobody sends: nesting deeper than [`MAX_DEPTH`] is an
//! error (Python raises RecursionError at a depth that depends on its stack); a lone UTF-16
//! surrogate escape becomes U+FFFD.

mod object;
mod strict;
mod string;

use crate::python::{PyValue, is_alpha, is_digit, is_space};

/// Deepest nesting of containers parsed (Python's recursion limit, made explicit).
pub const MAX_DEPTH: usize = 200;

/// Why `json_repair.loads` raises.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RepairError {
    /// RecursionError: nesting deeper than [`MAX_DEPTH`].
    TooDeep,
    /// A `ValueError` or `AssertionError` escaping json_repair (an integer of more than 4300
    /// digits met while probing a valid prefix; an object key that parsed to a non-string).
    Raised(&'static str),
}

impl std::fmt::Display for RepairError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooDeep => write!(f, "json_repair: nesting deeper than {MAX_DEPTH} levels"),
            Self::Raised(what) => write!(f, "json_repair raises {what}"),
        }
    }
}

pub use strict::StrictError;

/// Python's `json.loads(text)`.
pub fn json_loads(text: &str) -> Result<PyValue, StrictError> {
    let chars: Vec<char> = text.chars().collect();
    strict::loads(&chars)
}

/// `json_repair.loads(text)`.
pub fn repair_loads(text: &str) -> Result<PyValue, RepairError> {
    let chars: Vec<char> = text.chars().collect();
    match strict::loads(&chars) {
        Ok(v) => return Ok(v),
        Err(strict::StrictError::TooDeep) => return Err(RepairError::TooDeep),
        Err(_) => {}
    }
    Parser::new(chars).parse_top_level()
}

/// The parse context (`ContextValues`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    ObjectKey,
    ObjectValue,
    Array,
}

const STRING_DELIMITERS: [char; 4] = ['"', '\'', '“', '”'];

fn is_delimiter(c: Option<char>) -> bool {
    c.is_some_and(|c| STRING_DELIMITERS.contains(&c))
}

fn in_set(c: Option<char>, set: &[char]) -> bool {
    c.is_some_and(|c| set.contains(&c))
}

/// `ObjectComparer.is_strictly_empty`.
fn is_strictly_empty(v: &PyValue) -> bool {
    match v {
        PyValue::Str(s) => s.is_empty(),
        PyValue::List(l) => l.is_empty(),
        PyValue::Dict(d) => d.is_empty(),
        _ => false,
    }
}

/// `ObjectComparer.is_same_object`: same types and structure (keys), values not compared.
fn is_same_object(a: &PyValue, b: &PyValue) -> bool {
    match (a, b) {
        (PyValue::Dict(x), PyValue::Dict(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| is_same_object(v, w)))
        }
        (PyValue::List(x), PyValue::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| is_same_object(v, w))
        }
        _ => a.type_name() == b.type_name() && is_int(a) == is_int(b),
    }
}

fn is_int(v: &PyValue) -> bool {
    matches!(v, PyValue::Int(_) | PyValue::BigInt(_))
}

fn empty_str() -> PyValue {
    PyValue::Str(String::new())
}

type Res<T> = Result<T, RepairError>;

struct Parser {
    s: Vec<char>,
    /// Python's `self.index`.
    index: usize,
    context: Vec<Ctx>,
    deferred_contexts: Vec<Ctx>,
    has_tried_valid_json_suffix: bool,
    depth: usize,
}

impl Parser {
    fn new(s: Vec<char>) -> Self {
        Self {
            s,
            index: 0,
            context: Vec::new(),
            deferred_contexts: Vec::new(),
            has_tried_valid_json_suffix: false,
            depth: 0,
        }
    }

    fn len(&self) -> usize {
        self.s.len()
    }

    /// `json_str[i]` with Python's negative indexing; `None` out of range.
    fn char_at_abs(&self, i: isize) -> Option<char> {
        let n = self.s.len() as isize;
        let j = if i < 0 { i + n } else { i };
        if j < 0 || j >= n {
            None
        } else {
            Some(self.s[j as usize])
        }
    }

    /// `get_char_at(count)`.
    fn at(&self, count: isize) -> Option<char> {
        self.char_at_abs(self.index as isize + count)
    }

    fn cur(&self) -> Option<char> {
        self.s.get(self.index).copied()
    }

    fn ctx_current(&self) -> Option<Ctx> {
        self.context.last().copied()
    }

    fn ctx_empty(&self) -> bool {
        self.context.is_empty()
    }

    fn ctx_has(&self, c: Ctx) -> bool {
        self.context.contains(&c)
    }

    fn ctx_reset(&mut self) {
        self.context.pop();
    }

    /// `json_str[a:b]` with Python's slice semantics for non-negative bounds.
    fn slice(&self, a: usize, b: usize) -> String {
        let b = b.min(self.len());
        if a >= b {
            String::new()
        } else {
            self.s[a..b].iter().collect()
        }
    }

    fn skip_whitespaces(&mut self) {
        while self.cur().is_some_and(is_space) {
            self.index += 1;
        }
    }

    fn skip_whitespace_and_comments(&mut self) {
        loop {
            self.skip_whitespaces();
            let c = self.cur();
            if c != Some('#') && !(c == Some('/') && in_set(self.at(1), &['/', '*'])) {
                return;
            }
            self.skip_comment();
        }
    }

    /// `scroll_whitespaces(idx)`: the first offset from `idx` on that is not whitespace.
    fn scroll_whitespaces(&self, idx: isize) -> isize {
        let mut idx = idx;
        let base = self.index as isize;
        // Python: char = s[index + idx] (IndexError past the end stops at once).
        let Some(mut c) = self.char_at_abs(base + idx) else {
            return idx;
        };
        while base + idx >= 0 && is_space(c) {
            idx += 1;
            match self.char_at_abs(base + idx) {
                Some(next) => c = next,
                None => return idx,
            }
        }
        idx
    }

    /// `scroll_whitespaces(idx, backwards=True)`.
    fn scroll_whitespaces_back(&self, idx: isize) -> isize {
        let mut idx = idx;
        let base = self.index as isize;
        let Some(mut c) = self.char_at_abs(base + idx) else {
            return idx;
        };
        while base + idx >= 0 && is_space(c) {
            idx -= 1;
            match self.char_at_abs(base + idx) {
                Some(next) => c = next,
                None => return idx,
            }
        }
        idx
    }

    /// `skip_to_character(targets, idx)`: the offset of the first unescaped target from
    /// `index + idx`, or the distance to the end.
    fn skip_to(&self, targets: &[char], idx: isize) -> isize {
        let n = self.len() as isize;
        let mut i = self.index as isize + idx;
        let mut backslashes = 0usize;
        while i < n {
            let Some(ch) = self.char_at_abs(i) else {
                // Python: a negative start indexes from the end.
                i += 1;
                continue;
            };
            if ch == '\\' {
                backslashes += 1;
                i += 1;
                continue;
            }
            if targets.contains(&ch) && backslashes.is_multiple_of(2) {
                return i - self.index as isize;
            }
            backslashes = 0;
            i += 1;
        }
        n - self.index as isize
    }

    // ---- top level (json_parser.py) ----

    fn parse_top_level(&mut self) -> Res<PyValue> {
        let first = self.parse_json()?;
        if self.index >= self.len() {
            return Ok(first);
        }
        let mut values = vec![first];
        while self.index < self.len() {
            self.context.clear();
            self.deferred_contexts.clear();
            let comma_separated = self.next_top_level_value_is_comma_separated();
            let j = self.parse_json()?;
            if j.truthy() {
                let last = values.last().unwrap_or(&PyValue::None);
                // A repeated object is an update (keep the newest); an empty value is dropped.
                if (!comma_separated && is_same_object(last, &j)) || !last.truthy() {
                    values.pop();
                }
                values.push(j);
            } else {
                self.index += 1;
            }
        }
        if values.len() == 1 {
            return Ok(values.pop().unwrap_or(PyValue::None));
        }
        Ok(PyValue::List(values))
    }

    fn next_top_level_value_is_comma_separated(&self) -> bool {
        let idx = self.scroll_whitespaces(0);
        if self.at(idx) == Some(',') {
            return true;
        }
        let mut i = self.index as isize - 1;
        while i >= 0 && self.char_at_abs(i).is_some_and(is_space) {
            i -= 1;
        }
        i >= 0 && self.char_at_abs(i) == Some(',')
    }

    fn initial_container_has_non_comma_trailing_content(&self) -> bool {
        if self.index != 0 {
            return true;
        }
        let mut containers: Vec<char> = Vec::new();
        let mut in_string = false;
        let mut escaped = false;
        for (index, &c) in self.s.iter().enumerate() {
            if in_string {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == '"' {
                    in_string = false;
                }
                continue;
            }
            if c == '"' {
                in_string = true;
            } else if c == '{' || c == '[' {
                containers.push(c);
            } else if c == '}' || c == ']' {
                let Some(open) = containers.pop() else {
                    return false;
                };
                if (open == '{') != (c == '}') {
                    return false;
                }
                if containers.is_empty() {
                    let mut t = index + 1;
                    while t < self.len() && is_space(self.s[t]) {
                        t += 1;
                    }
                    return t < self.len() && self.s[t] != ',';
                }
            }
        }
        false
    }

    fn try_parse_valid_json_value(&mut self) -> Res<Option<PyValue>> {
        if self.has_tried_valid_json_suffix || !self.ctx_empty() {
            return Ok(None);
        }
        self.has_tried_valid_json_suffix = true;
        match strict::raw_decode(&self.s, self.index) {
            Ok((value, end)) => {
                self.index = end;
                Ok(Some(value))
            }
            Err(strict::StrictError::Invalid) => Ok(None),
            Err(strict::StrictError::IntTooLong) => Err(RepairError::Raised("ValueError")),
            Err(strict::StrictError::TooDeep) => Err(RepairError::TooDeep),
        }
    }

    fn try_parse_missing_opening_object(&mut self, delimiter: char) -> Res<Option<PyValue>> {
        if self.scroll_whitespaces(-(self.index as isize)) != 0 {
            return Ok(None);
        }
        let offset = self.skip_to(&[delimiter], 1);
        if self.at(offset).is_none() {
            return Ok(None);
        }
        let offset = self.scroll_whitespaces(offset + 1);
        if self.at(offset) != Some(':') {
            return Ok(None);
        }
        let end = self.scroll_whitespaces_back(self.len() as isize - self.index as isize - 1);
        if self.at(end) != Some('}') {
            return Ok(None);
        }
        let mut candidate = Vec::with_capacity(self.len() + 1);
        candidate.push('{');
        candidate.extend_from_slice(&self.s);
        let (value, end) = match strict::raw_decode(&candidate, 0) {
            Ok(v) => v,
            Err(strict::StrictError::TooDeep) => return Err(RepairError::TooDeep),
            Err(_) => return Ok(None),
        };
        if candidate[end..]
            .iter()
            .any(|c| !matches!(c, ' ' | '\t' | '\r' | '\n'))
        {
            return Ok(None);
        }
        self.index = self.len();
        Ok(Some(value))
    }

    fn parse_json(&mut self) -> Res<PyValue> {
        if !self.deferred_contexts.is_empty() {
            let deferred = std::mem::take(&mut self.deferred_contexts);
            let n = deferred.len();
            self.context.extend(deferred);
            let result = self.parse_json();
            for _ in 0..n {
                self.ctx_reset();
            }
            return result;
        }
        if self.depth >= MAX_DEPTH {
            return Err(RepairError::TooDeep);
        }
        self.depth += 1;
        let result = self.parse_json_inner();
        self.depth -= 1;
        result
    }

    fn parse_json_inner(&mut self) -> Res<PyValue> {
        let mut check_initial_quote = self.index == 0 && self.ctx_empty();
        loop {
            let Some(c) = self.cur() else {
                return Ok(empty_str());
            };
            if (c == '{' || c == '[')
                && self.initial_container_has_non_comma_trailing_content()
                && let Some(value) = self.try_parse_valid_json_value()?
            {
                return Ok(value);
            }
            if c == '{' {
                self.index += 1;
                return self.parse_object();
            }
            if c == '[' {
                self.index += 1;
                return Ok(PyValue::List(self.parse_array(']')?));
            }
            if c == '(' {
                if !self.ctx_empty() || self.top_level_parenthesized_can_start_value() {
                    return self.parse_parenthesized();
                }
                self.index += 1;
                continue;
            }
            if !self.ctx_empty() && (STRING_DELIMITERS.contains(&c) || is_alpha(c)) {
                return self.parse_string();
            }
            if !self.ctx_empty() && (is_digit(c) || c == '-' || c == '.') {
                return self.parse_number();
            }
            if c == '#' || c == '/' {
                return self.parse_comment();
            }
            if STRING_DELIMITERS.contains(&c) && check_initial_quote {
                check_initial_quote = false;
                if let Some(value) = self.try_parse_missing_opening_object(c)? {
                    return Ok(value);
                }
            }
            self.index += 1;
        }
    }

    // ---- comments (parse_comment.py) ----

    fn skip_comment(&mut self) {
        let c = self.cur();
        if c == Some('#') || (c == Some('/') && self.at(1) == Some('/')) {
            let mut stops = vec!['\n', '\r'];
            if c == Some('#') {
                if self.ctx_has(Ctx::Array) {
                    stops.push(']');
                }
                if self.ctx_has(Ctx::ObjectValue) {
                    stops.push('}');
                }
                if self.ctx_has(Ctx::ObjectKey) {
                    stops.push(':');
                }
            }
            while self.cur().is_some_and(|c| !stops.contains(&c)) {
                self.index += 1;
            }
        } else if c == Some('/') && self.at(1) == Some('*') {
            self.index += 2;
            // The comment text so far ends with "*/" once the closing pair is consumed; the
            // opening "/*" counts, so "/*/" closes at once.
            let mut prev = '*';
            while let Some(c) = self.cur() {
                self.index += 1;
                if prev == '*' && c == '/' {
                    break;
                }
                prev = c;
            }
        } else if c == Some('/') {
            self.index += 1;
        }
    }

    fn parse_comment(&mut self) -> Res<PyValue> {
        loop {
            self.skip_comment();
            if !self.ctx_empty() {
                return Ok(empty_str());
            }
            self.skip_whitespaces();
            if !in_set(self.cur(), &['#', '/']) {
                return self.parse_json();
            }
        }
    }

    // ---- arrays (parse_array.py) and tuples (parser_parenthesized.py) ----

    fn parse_array(&mut self, closing: char) -> Res<Vec<PyValue>> {
        let array_is_object_value = self.ctx_current() == Some(Ctx::ObjectValue);
        let mut closed_before_parent_member = false;
        let mut arr: Vec<PyValue> = Vec::new();
        self.context.push(Ctx::Array);
        let result = (|| -> Res<()> {
            loop {
                self.skip_whitespace_and_comments();
                let Some(c) = self.cur() else { break };
                if c == closing || c == '}' {
                    break;
                }
                if c == ',' {
                    self.index += 1;
                    continue;
                }
                let value = if STRING_DELIMITERS.contains(&c) {
                    let i = self.skip_to(&[c], 1);
                    let i = self.scroll_whitespaces(i + 1);
                    if self.at(i) == Some(':') {
                        if array_is_object_value
                            && !arr.is_empty()
                            && arr
                                .iter()
                                .all(|v| !matches!(v, PyValue::Dict(_) | PyValue::List(_)))
                        {
                            closed_before_parent_member = true;
                            break;
                        }
                        self.parse_object()?
                    } else {
                        self.parse_string()?
                    }
                } else {
                    self.parse_json()?
                };
                if is_strictly_empty(&value) && !in_set(self.cur(), &[closing, ',']) {
                    self.index += 1;
                } else if value.as_str() == Some("...") && self.at(-1) == Some('.') {
                    // a stray "..." is dropped
                } else {
                    arr.push(value);
                }
            }
            if !closed_before_parent_member {
                self.index += 1;
            }
            Ok(())
        })();
        self.ctx_reset();
        result.map(|()| arr)
    }

    fn parse_parenthesized(&mut self) -> Res<PyValue> {
        let explicit_tuple = self.parenthesized_is_explicit_tuple();
        self.index += 1;
        let mut values = self.parse_array(')')?;
        if explicit_tuple || values.len() != 1 {
            return Ok(PyValue::List(values));
        }
        Ok(values.pop().unwrap_or(PyValue::None))
    }

    fn parenthesized_is_explicit_tuple(&self) -> bool {
        let n = self.len();
        let mut i = self.index + 1;
        let (mut parens, mut squares, mut braces) = (0usize, 0usize, 0usize);
        let mut in_quote: Option<char> = None;
        let mut backslashes = 0usize;
        let mut saw_content = false;
        while i < n {
            let ch = self.s[i];
            if ch == '\\' {
                backslashes += 1;
                i += 1;
                continue;
            }
            if let Some(q) = in_quote {
                if ch == q && backslashes.is_multiple_of(2) {
                    in_quote = None;
                }
                backslashes = 0;
                i += 1;
                continue;
            }
            let top = parens == 0 && squares == 0 && braces == 0;
            if STRING_DELIMITERS.contains(&ch) && backslashes.is_multiple_of(2) {
                in_quote = Some(ch);
                saw_content = saw_content || top;
                backslashes = 0;
                i += 1;
                continue;
            }
            backslashes = 0;
            if !is_space(ch) && ch != ',' && ch != ')' && top {
                saw_content = true;
            }
            match ch {
                '(' => parens += 1,
                ')' => {
                    if top {
                        return !saw_content;
                    }
                    parens = parens.saturating_sub(1);
                }
                '[' => squares += 1,
                ']' => squares = squares.saturating_sub(1),
                '{' => braces += 1,
                '}' => braces = braces.saturating_sub(1),
                ',' if top => return true,
                _ => {}
            }
            i += 1;
        }
        !saw_content
    }

    fn top_level_parenthesized_can_start_value(&self) -> bool {
        let mut i = self.index as isize - 1;
        while i >= 0 {
            let ch = self.s[i as usize];
            if ch == '\n' || ch == '\r' {
                break;
            }
            if !is_space(ch) {
                return false;
            }
            i -= 1;
        }
        let idx = self.scroll_whitespaces(1);
        let Some(first) = self.at(idx) else {
            return false;
        };
        let start = (self.index as isize + idx) as usize;
        let inner: String = self.s[start..self.len().min(start + 5)]
            .iter()
            .collect::<String>()
            .to_lowercase();
        let starts = |w: &str| inner.chars().take(w.len()).eq(w.chars());
        if !matches!(first, ')' | '{' | '[' | '(')
            && !STRING_DELIMITERS.contains(&first)
            && !is_digit(first)
            && first != '-'
            && first != '.'
            && !starts("true")
            && !starts("null")
            && !starts("none")
            && !starts("false")
        {
            return false;
        }
        let n = self.len();
        let mut i = self.index + 1;
        let (mut parens, mut squares, mut braces) = (0isize, 0usize, 0usize);
        let mut in_quote: Option<char> = None;
        let mut backslashes = 0usize;
        while i < n {
            let ch = self.s[i];
            if ch == '\\' {
                backslashes += 1;
                i += 1;
                continue;
            }
            if let Some(q) = in_quote {
                if ch == q && backslashes.is_multiple_of(2) {
                    in_quote = None;
                }
                backslashes = 0;
                i += 1;
                continue;
            }
            if STRING_DELIMITERS.contains(&ch) && backslashes.is_multiple_of(2) {
                in_quote = Some(ch);
                backslashes = 0;
                i += 1;
                continue;
            }
            backslashes = 0;
            match ch {
                '(' => parens += 1,
                ')' => {
                    if parens == 0 && squares == 0 && braces == 0 {
                        i += 1;
                        while i < n {
                            let t = self.s[i];
                            if t == '\n' || t == '\r' {
                                return true;
                            }
                            if !is_space(t) {
                                return false;
                            }
                            i += 1;
                        }
                        return true;
                    }
                    parens -= 1;
                }
                '[' => squares += 1,
                ']' => squares = squares.saturating_sub(1),
                '{' => braces += 1,
                '}' => braces = braces.saturating_sub(1),
                _ => {}
            }
            i += 1;
        }
        true
    }

    // ---- numbers (parse_number.py) ----

    fn parse_number(&mut self) -> Res<PyValue> {
        const NUMBER_CHARS: &str = "0123456789-.eE/,_";
        let start = self.index;
        let mut number = String::new();
        let is_array = self.ctx_current() == Some(Ctx::Array);
        while let Some(c) = self.cur() {
            let accepted = NUMBER_CHARS.contains(c)
                || (c == '+' && (number.ends_with('e') || number.ends_with('E')));
            if !accepted || (is_array && c == ',') {
                break;
            }
            if c != '_' {
                number.push(c);
            }
            self.index += 1;
        }
        if self.cur().is_some_and(is_alpha) {
            self.index = start;
            return self.parse_string();
        }
        if number.ends_with(['+', '-', 'e', 'E', '/', ',']) {
            number.pop();
            self.index -= 1;
        }
        if number.contains(',') {
            return Ok(PyValue::Str(number));
        }
        if number.contains(['.', 'e', 'E']) {
            return Ok(py_float(&number).map_or(PyValue::Str(number), PyValue::Float));
        }
        Ok(PyValue::int_from_digits(&number).unwrap_or(PyValue::Str(number)))
    }
}

/// Python's `float(text)` for text made of digits, `-`, `+`, `.`, `e`, `E` and `/`.
fn py_float(text: &str) -> Option<f64> {
    // [sign] (digits [. [digits]] | . digits) [(e|E) [sign] digits]
    let b = text.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        i += 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i - int_start;
    let mut frac_digits = 0;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        frac_digits = i - s;
    }
    if int_digits + frac_digits == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
            i += 1;
        }
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == s {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    // Rust's parser takes the same grammar except a mantissa like "1." before an exponent.
    let normalised = text.replacen(".e", ".0e", 1).replacen(".E", ".0E", 1);
    normalised.parse().ok()
}

#[cfg(test)]
mod tests;
