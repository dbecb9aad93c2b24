//! Objects: json_repair's `parse_object.py` (no schema, not strict).

use indexmap::IndexMap;

use super::{Ctx, Parser, PyValue, RepairError, Res, STRING_DELIMITERS, empty_str, in_set};
use crate::python::is_space;

type Dict = IndexMap<String, PyValue>;

/// `_strip_comments_for_empty_object_classification`.
fn strip_comments_for_classification(body: &[char]) -> Vec<char> {
    let mut out = Vec::with_capacity(body.len());
    let mut in_quote: Option<char> = None;
    let mut backslashes = 0usize;
    let mut i = 0;
    while i < body.len() {
        let c = body[i];
        let next = body.get(i + 1).copied();
        if c == '\\' {
            backslashes += 1;
            out.push(c);
            i += 1;
            continue;
        }
        if let Some(q) = in_quote {
            out.push(c);
            if c == q && backslashes.is_multiple_of(2) {
                in_quote = None;
            }
            backslashes = 0;
            i += 1;
            continue;
        }
        if STRING_DELIMITERS.contains(&c) && backslashes.is_multiple_of(2) {
            in_quote = Some(c);
            out.push(c);
            backslashes = 0;
            i += 1;
            continue;
        }
        backslashes = 0;
        if c == '#' || (c == '/' && next == Some('/')) {
            i += if c == '/' { 2 } else { 1 };
            while i < body.len() && body[i] != '\n' && body[i] != '\r' {
                i += 1;
            }
            continue;
        }
        if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < body.len() && !(body[i] == '*' && body[i + 1] == '/') {
                i += 1;
            }
            i = (i + 2).min(body.len());
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

fn lstrip(s: &[char]) -> &[char] {
    let start = s.iter().position(|c| !is_space(*c)).unwrap_or(s.len());
    &s[start..]
}

fn contains_seq(s: &[char], needle: &[char]) -> bool {
    s.windows(needle.len()).any(|w| w == needle)
}

enum EmptyObjectRepair {
    Keep,
    Object(Vec<char>),
    Array,
}

impl Parser {
    /// `_merge_object_array_continuation`: `"key": [..] [..]` continues the previous list.
    fn merge_object_array_continuation(&mut self, obj: &mut Dict) -> Res<bool> {
        let Some(prev_key) = obj.keys().last().cloned() else {
            return Ok(false);
        };
        if prev_key.is_empty() || !matches!(obj.get(&prev_key), Some(PyValue::List(_))) {
            return Ok(false);
        }
        self.index += 1;
        let new_array = self.parse_array(']')?;
        if let Some(PyValue::List(prev)) = obj.get_mut(&prev_key) {
            let lengths: Vec<usize> = prev
                .iter()
                .filter_map(|v| match v {
                    PyValue::List(l) => Some(l.len()),
                    _ => None,
                })
                .collect();
            let expected = match lengths.first() {
                Some(&first) if lengths.iter().all(|&l| l == first) => first,
                _ => 0,
            };
            if expected > 0 {
                let mut tail = Vec::new();
                while prev.last().is_some_and(|v| !matches!(v, PyValue::List(_))) {
                    tail.extend(prev.pop());
                }
                if !tail.is_empty() {
                    tail.reverse();
                    if tail.len() % expected == 0 {
                        for chunk in tail.chunks(expected) {
                            prev.push(PyValue::List(chunk.to_vec()));
                        }
                    } else {
                        prev.extend(tail);
                    }
                }
                if !new_array.is_empty() {
                    if new_array.iter().all(|v| matches!(v, PyValue::List(_))) {
                        prev.extend(new_array);
                    } else {
                        prev.push(PyValue::List(new_array));
                    }
                }
            } else if new_array.len() == 1 && matches!(new_array[0], PyValue::List(_)) {
                if let Some(PyValue::List(inner)) = new_array.into_iter().next() {
                    prev.extend(inner);
                }
            } else {
                prev.extend(new_array);
            }
        }
        self.skip_whitespace_and_comments();
        if self.cur() == Some(',') {
            self.index += 1;
        }
        self.skip_whitespace_and_comments();
        Ok(true)
    }

    /// `_parse_object_key`: the key and the index where it started.
    fn parse_object_key(&mut self, obj: &mut Dict) -> Res<(String, usize)> {
        let mut key = String::new();
        let mut rollback_index = self.index;
        self.context.push(Ctx::ObjectKey);
        let result = (|| -> Res<()> {
            while self.cur().is_some() {
                rollback_index = self.index;
                if self.cur() == Some('[')
                    && key.is_empty()
                    && self.merge_object_array_continuation(obj)?
                {
                    continue;
                }
                key = match self.parse_string()? {
                    PyValue::Str(s) => s,
                    // Python: `assert isinstance(raw_key, str)`.
                    _ => return Err(RepairError::Raised("AssertionError")),
                };
                if key.is_empty() {
                    self.skip_whitespace_and_comments();
                }
                if !key.is_empty() || in_set(self.cur(), &[':', '}']) {
                    break;
                }
            }
            Ok(())
        })();
        self.ctx_reset();
        result.map(|()| (key, rollback_index))
    }

    fn should_split_duplicate_object(&self, rollback_index: usize) -> bool {
        let mut lookback = rollback_index as isize - self.index as isize - 1;
        let mut prev = self.at(lookback);
        while prev.is_some_and(is_space) {
            lookback -= 1;
            prev = self.at(lookback);
        }
        let key_start = self.at(rollback_index as isize - self.index as isize);
        let next = self.at(self.scroll_whitespaces(0));
        !(super::is_delimiter(key_start) && prev == Some(',') && next == Some(':'))
    }

    fn parse_object_value(&mut self) -> Res<PyValue> {
        self.context.push(Ctx::ObjectValue);
        self.skip_whitespace_and_comments();
        let result = if in_set(self.cur(), &[',', '}']) {
            Ok(empty_str())
        } else {
            self.parse_json()
        };
        self.ctx_reset();
        result
    }

    fn classify_empty_object_repair(&self, start_index: usize) -> EmptyObjectRepair {
        let end = (self.index + 1).min(self.len());
        let attempted: &[char] = &self.s[start_index - 1..end.max(start_index - 1)];
        let mut body = &attempted[1.min(attempted.len())..];
        if body.last() == Some(&'}') {
            body = &body[..body.len() - 1];
        }
        let body = lstrip(body);
        if body.is_empty() {
            return EmptyObjectRepair::Keep;
        }
        let starts_escaped = |q: char| {
            body.len() >= 2
                && body[0] == '\\'
                && body[1] == q
                && contains_seq(body, &['\\', q, ':'])
        };
        if starts_escaped('"') || starts_escaped('\'') {
            let text: String = attempted.iter().collect();
            let normalised = text.replace("\\\"", "\"").replace("\\'", "'");
            return EmptyObjectRepair::Object(normalised.chars().collect());
        }
        let stripped = strip_comments_for_classification(body);
        let body = lstrip(&stripped);
        if body.is_empty() {
            return EmptyObjectRepair::Keep;
        }
        let mut in_quote: Option<char> = None;
        let mut backslashes = 0usize;
        for &c in body {
            if c == '\\' {
                backslashes += 1;
                continue;
            }
            if let Some(q) = in_quote {
                if c == q && backslashes.is_multiple_of(2) {
                    in_quote = None;
                }
            } else if STRING_DELIMITERS.contains(&c) && backslashes.is_multiple_of(2) {
                in_quote = Some(c);
            } else if c == ':' && backslashes.is_multiple_of(2) {
                return EmptyObjectRepair::Keep;
            }
            backslashes = 0;
        }
        EmptyObjectRepair::Array
    }

    /// `_repair_empty_object_result`: an empty object over more than `{}` is re-read.
    fn repair_empty_object_result(
        &mut self,
        obj: &Dict,
        start_index: usize,
    ) -> Res<Option<PyValue>> {
        if !obj.is_empty() || self.index <= start_index + 2 {
            return Ok(None);
        }
        let body: Vec<char> = self.slice(start_index, self.index - 1).chars().collect();
        if self.at(-1) == Some('}')
            && strip_comments_for_classification(&body)
                .iter()
                .all(|c| is_space(*c))
        {
            return Ok(None);
        }
        match self.classify_empty_object_repair(start_index) {
            EmptyObjectRepair::Keep => Ok(None),
            EmptyObjectRepair::Object(normalised) => {
                let end = (self.index + 1).min(self.len());
                let mut s = self.s[..start_index - 1].to_vec();
                s.extend(normalised);
                s.extend_from_slice(&self.s[end..]);
                self.s = s;
                self.index = start_index;
                self.context.push(Ctx::ObjectKey);
                let value = self.parse_object();
                self.ctx_reset();
                self.deferred_contexts.push(Ctx::ObjectKey);
                value.map(Some)
            }
            EmptyObjectRepair::Array => {
                self.index = start_index;
                self.context.push(Ctx::ObjectKey);
                let value = self.parse_array(']');
                self.ctx_reset();
                self.deferred_contexts.push(Ctx::ObjectKey);
                value.map(|v| Some(PyValue::List(v)))
            }
        }
    }

    fn complete_object_parse(&mut self, mut obj: Dict) -> Res<PyValue> {
        if !self.ctx_empty() {
            if self.cur() == Some('}')
                && !matches!(
                    self.ctx_current(),
                    Some(Ctx::ObjectKey) | Some(Ctx::ObjectValue)
                )
            {
                self.index += 1;
            }
            return Ok(PyValue::Dict(obj));
        }
        self.skip_whitespaces();
        if self.cur() == Some(',') {
            self.index += 1;
            self.skip_whitespaces();
            if super::is_delimiter(self.cur())
                && let PyValue::Dict(more) = self.parse_object()?
            {
                obj.extend(more);
            }
        }
        Ok(PyValue::Dict(obj))
    }

    /// `parse_object`, called with `index` after the `{`.
    pub(super) fn parse_object(&mut self) -> Res<PyValue> {
        if self.depth >= super::MAX_DEPTH {
            return Err(RepairError::TooDeep);
        }
        self.depth += 1;
        let result = self.parse_object_inner();
        self.depth -= 1;
        result
    }

    fn parse_object_inner(&mut self) -> Res<PyValue> {
        let mut obj = Dict::new();
        let start_index = self.index;
        let parsing_object_value = self.ctx_current() == Some(Ctx::ObjectValue);
        let mut split_at = None;
        loop {
            self.skip_whitespace_and_comments();
            match self.cur() {
                None | Some('}') => break,
                Some(',') => {
                    self.index += 1;
                    continue;
                }
                Some(':') => self.index += 1,
                _ => {}
            }
            let (key, rollback_index) = self.parse_object_key(&mut obj)?;
            if self.ctx_has(Ctx::Array)
                && obj.contains_key(&key)
                && !parsing_object_value
                && self.should_split_duplicate_object(rollback_index)
            {
                // Close this object and start another at the repeated key.
                self.s.insert(rollback_index, '{');
                split_at = Some(rollback_index);
                break;
            }
            self.skip_whitespace_and_comments();
            if matches!(self.cur(), None | Some('}')) {
                continue;
            }
            self.index += 1; // the `:` (or whatever stands in its place)
            let value = self.parse_object_value()?;
            obj.insert(key, value);
            if in_set(self.cur(), &[',', '\'', '"']) {
                self.index += 1;
            }
            if self.cur() == Some(']') && self.ctx_has(Ctx::Array) {
                break;
            }
        }
        // Python: index = rollback_index - 1 (split) or index -= 1 (`]`), then index += 1.
        match split_at {
            Some(at) => self.index = at,
            None if self.cur() == Some(']') && self.ctx_has(Ctx::Array) => {}
            None => self.index += 1,
        }
        if let Some(value) = self.repair_empty_object_result(&obj, start_index)? {
            return Ok(value);
        }
        self.complete_object_parse(obj)
    }
}
