//! Strings, bare words and literals: json_repair's `parse_string.py` and its helpers
//! (`parse_string_helpers/`), not stream-stable, not strict.

use super::{Ctx, Parser, PyValue, Res, STRING_DELIMITERS, empty_str, in_set, is_delimiter};
use crate::python::{is_alnum, is_alpha, is_digit, is_space};

const INLINE_OPENERS: [char; 3] = ['[', '{', '('];
const LOW_SMART_QUOTE_SENTINEL: char = '\0';

fn inline_closing(c: char) -> Option<char> {
    match c {
        '[' => Some(']'),
        '{' => Some('}'),
        '(' => Some(')'),
        _ => None,
    }
}

fn matching_delimiter(c: char) -> char {
    if c == '“' { '”' } else { c }
}

/// `(c or "").lower() == expected` for one character.
fn lower_is(c: Option<char>, expected: char) -> bool {
    c.is_some_and(|c| {
        let mut lower = c.to_lowercase();
        lower.next() == Some(expected) && lower.next().is_none()
    })
}

fn hex_value(hex: &[char]) -> u32 {
    hex.iter()
        .fold(0, |v, c| v * 16 + c.to_digit(16).unwrap_or(0))
}

fn rstrip(acc: &mut Vec<char>) {
    while acc.last().is_some_and(|c| is_space(*c)) {
        acc.pop();
    }
}

/// `StringParseState`.
struct State {
    missing_quotes: bool,
    doubled_quotes: bool,
    lstring_delimiter: char,
    /// The right delimiter, then one sentinel per open low-smart-quote (`„`) span.
    rstring_delimiter: Vec<char>,
    acc: Vec<char>,
    unmatched_delimiter: bool,
    pending_inline_container: bool,
    inline_container_stack: Vec<char>,
    object_value_has_no_future_delimiter: bool,
    lookahead_cache: Vec<(Vec<char>, isize, Option<isize>)>,
    object_value_unmatched_opening_braces: usize,
    regex_character_class_start: Option<usize>,
}

impl State {
    fn new() -> Self {
        Self {
            missing_quotes: false,
            doubled_quotes: false,
            lstring_delimiter: '"',
            rstring_delimiter: vec!['"'],
            acc: Vec::new(),
            unmatched_delimiter: false,
            pending_inline_container: false,
            inline_container_stack: Vec::new(),
            object_value_has_no_future_delimiter: false,
            lookahead_cache: Vec::new(),
            object_value_unmatched_opening_braces: 0,
            regex_character_class_start: None,
        }
    }

    fn outer(&self) -> char {
        self.rstring_delimiter[0]
    }

    fn active(&self) -> char {
        self.rstring_delimiter[self.rstring_delimiter.len() - 1]
    }

    fn in_low_smart_quote_span(&self) -> bool {
        self.active() == LOW_SMART_QUOTE_SENTINEL
    }

    fn last(&self) -> Option<char> {
        self.acc.last().copied()
    }

    /// `_append_string_content`.
    fn append(&mut self, content: &[char]) {
        let start = self.acc.len();
        for (offset, &c) in content.iter().enumerate() {
            self.acc.push(c);
            match c {
                '{' => self.object_value_unmatched_opening_braces += 1,
                '}' if self.object_value_unmatched_opening_braces > 0 => {
                    self.object_value_unmatched_opening_braces -= 1;
                }
                '[' => self.regex_character_class_start = Some(start + offset + 1),
                ']' => self.regex_character_class_start = None,
                _ => {}
            }
        }
    }

    /// `_replace_trailing_backslash`.
    fn replace_trailing_backslash(&mut self, content: &[char]) {
        self.acc.pop();
        self.append(content);
    }
}

/// What `_prepare_string_entry` decided.
enum Entry {
    Done(PyValue),
    Scan(Box<State>),
}

impl Parser {
    fn append_literal_char(&mut self, state: &mut State, c: char) -> Option<char> {
        state.append(&[c]);
        self.index += 1;
        self.cur()
    }

    fn only_whitespace_until(&self, end: isize) -> bool {
        (1..end).all(|j| self.at(j).is_none_or(is_space))
    }

    fn cached_skip_to(&self, state: &mut State, targets: &[char], idx: isize) -> isize {
        let start_index = self.index as isize + idx;
        if let Some((_, cached_start, cached_match)) =
            state.lookahead_cache.iter().find(|(t, _, _)| t == targets)
        {
            match cached_match {
                None if start_index >= *cached_start => {
                    return self.len() as isize - self.index as isize;
                }
                Some(m) if *cached_start <= start_index && start_index <= *m => {
                    return m - self.index as isize;
                }
                _ => {}
            }
        }
        let offset = self.skip_to(targets, idx);
        let store = |state: &mut State, entry: Option<isize>| match state
            .lookahead_cache
            .iter_mut()
            .find(|(t, _, _)| t == targets)
        {
            Some(slot) => {
                slot.1 = start_index;
                slot.2 = entry;
            }
            None => state
                .lookahead_cache
                .push((targets.to_vec(), start_index, entry)),
        };
        if self.at(offset).is_none() {
            store(state, None);
            return offset;
        }
        let match_index = self.index as isize + offset;
        if match_index == 0 || self.char_at_abs(match_index - 1) != Some('\\') {
            store(state, Some(match_index));
        }
        offset
    }

    /// `_try_parse_simple_quoted_string`: a plain `"…"` with nothing to repair.
    fn try_parse_simple_quoted_string(&mut self) -> Option<String> {
        if self.cur() != Some('"') {
            return None;
        }
        let start = self.index + 1;
        let end = start + self.s.get(start..)?.iter().position(|&c| c == '"')?;
        let value = &self.s[start..end];
        if value.iter().any(|&c| c == '\\' || c == '\n' || c == '\r') {
            return None;
        }
        let mut next = end + 1;
        while next < self.len() && is_space(self.s[next]) {
            next += 1;
        }
        let next_char = self.s.get(next).copied();
        let ok = match self.ctx_current() {
            Some(Ctx::ObjectKey) => next_char == Some(':'),
            Some(Ctx::ObjectValue) => next_char.is_none() || in_set(next_char, &[',', '}']),
            Some(Ctx::Array) => next_char.is_none() || in_set(next_char, &[',', ']']),
            None => next_char.is_none(),
        };
        if !ok {
            return None;
        }
        let value: String = value.iter().collect();
        self.index = end + 1;
        Some(value)
    }

    /// `parse_boolean_or_null`: an unquoted complete true/false/null/none.
    fn parse_boolean_or_null(&mut self) -> Option<PyValue> {
        let start = self.index;
        let literals = [
            ("true", PyValue::Bool(true)),
            ("false", PyValue::Bool(false)),
            ("null", PyValue::None),
            ("none", PyValue::None),
        ];
        for (literal, value) in literals {
            if !lower_is(
                self.s.get(start).copied(),
                literal.chars().next().unwrap_or(' '),
            ) {
                continue;
            }
            self.index = start;
            let mut complete = true;
            for expected in literal.chars() {
                if !lower_is(self.cur(), expected) {
                    complete = false;
                    break;
                }
                self.index += 1;
            }
            if complete {
                let next = self.cur();
                if next.is_none_or(|c| is_space(c) || matches!(c, ',' | ')' | ']' | '}')) {
                    return Some(value);
                }
            }
        }
        self.index = start;
        None
    }

    /// `parse_json_llm_block`: "```json … ```" inside a string.
    fn parse_json_llm_block(&mut self) -> Res<Option<PyValue>> {
        let fence: Vec<char> = "```json".chars().collect();
        if self.s.get(self.index..self.index + 7) == Some(&fence[..]) {
            let i = self.skip_to(&['`'], 7);
            let at = (self.index as isize + i) as usize;
            if self.s.get(at..at + 3) == Some(&['`', '`', '`'][..]) {
                self.index += 7;
                return self.parse_json().map(Some);
            }
        }
        Ok(None)
    }

    fn prepare_string_entry(&mut self) -> Res<Entry> {
        let mut c = self.cur();
        if in_set(c, &['#', '/']) {
            return self.parse_comment().map(Entry::Done);
        }
        while c.is_some_and(|c| !STRING_DELIMITERS.contains(&c) && !is_alnum(c)) {
            self.index += 1;
            c = self.cur();
        }
        let Some(c) = c else {
            return Ok(Entry::Done(empty_str()));
        };
        if let Some(value) = self.try_parse_simple_quoted_string() {
            return Ok(Entry::Done(PyValue::Str(value)));
        }
        let mut state = Box::new(State::new());
        if c == '\'' {
            state.lstring_delimiter = '\'';
            state.rstring_delimiter = vec!['\''];
        } else if c == '“' {
            state.lstring_delimiter = '“';
            state.rstring_delimiter = vec!['”'];
        } else if is_alnum(c) {
            if (lower_is(Some(c), 't') || lower_is(Some(c), 'f') || lower_is(Some(c), 'n'))
                && self.ctx_current() != Some(Ctx::ObjectKey)
                && let Some(value) = self.parse_boolean_or_null()
            {
                return Ok(Entry::Done(value));
            }
            state.missing_quotes = true;
        }
        if !state.missing_quotes {
            self.index += 1;
        }
        if self.cur() == Some('`')
            && let Some(value) = self.parse_json_llm_block()?
        {
            return Ok(Entry::Done(value));
        }
        let l = state.lstring_delimiter;
        let r = state.outer();
        if self.cur() == Some(l) {
            let next = self.at(1);
            let closes = match self.ctx_current() {
                Some(Ctx::ObjectKey) => next == Some(':'),
                Some(Ctx::ObjectValue) => in_set(next, &[',', '}']),
                Some(Ctx::Array) => in_set(next, &[',', ']']),
                None => false,
            };
            if closes {
                self.index += 1;
                return Ok(Entry::Done(empty_str()));
            }
            if next == Some(l) {
                return Ok(Entry::Done(empty_str()));
            }
            let i = self.skip_to(&[r], 1);
            if self.at(i + 1) == Some(r) {
                state.doubled_quotes = true;
                self.index += 1;
            } else {
                if self.at(i) == Some(r) {
                    let outer_quote_idx = self.skip_to(&[r], i + 1);
                    let after = self.at(self.scroll_whitespaces(outer_quote_idx + 1));
                    if self.ctx_current() == Some(Ctx::ObjectValue)
                        && !self.only_whitespace_until(i)
                        && self.at(outer_quote_idx) == Some(r)
                        && (after.is_none() || in_set(after, &[',', '}']))
                    {
                        state.append(&[l]);
                        state.unmatched_delimiter = true;
                        self.index += 1;
                        return Ok(Entry::Scan(state));
                    }
                }
                let i = self.scroll_whitespaces(1);
                let next_c = self.at(i);
                if is_delimiter(next_c) || in_set(next_c, &['{', '[']) {
                    self.index += 1;
                    return Ok(Entry::Done(empty_str()));
                }
                if !in_set(next_c, &[',', ']', '}']) {
                    self.index += 1;
                }
            }
        }
        Ok(Entry::Scan(state))
    }

    /// `_normalize_escape_sequence`, with the string so far ending in a backslash.
    fn normalize_escape_sequence(&mut self, state: &mut State, c: char) -> (bool, Option<char>) {
        let active = state.active();
        if state.in_low_smart_quote_span() && c == '"' {
            state.replace_trailing_backslash(&[c]);
            state.rstring_delimiter.pop();
            self.index += 1;
            return (true, self.cur());
        }
        if c == '\\' {
            let run_start = self.index - 1;
            let mut run_end = self.index + 1;
            while run_end < self.len() && self.s[run_end] == '\\' {
                run_end += 1;
            }
            let run_length = run_end - run_start;
            let rel_end = (run_end - self.index) as isize;
            let next_char = self.at(rel_end);
            let after_quote = self.at(self.scroll_whitespaces(rel_end + 1));
            if run_length.is_multiple_of(2)
                && (next_char != Some(active)
                    || after_quote.is_none()
                    || in_set(after_quote, &[',', ':', '}', ']']))
            {
                state.replace_trailing_backslash(&vec!['\\'; run_length / 2]);
                self.index = run_end;
                return (true, self.cur());
            }
        }
        if c == active || matches!(c, 't' | 'n' | 'r' | 'b' | '\\') {
            let replacement = match c {
                't' => '\t',
                'n' => '\n',
                'r' => '\r',
                'b' => '\u{8}',
                other => other,
            };
            state.replace_trailing_backslash(&[replacement]);
            self.index += 1;
            let mut next = self.cur();
            while let Some(n) = next {
                if state.last() == Some('\\') && (n == active || n == '\\') {
                    state.replace_trailing_backslash(&[n]);
                    self.index += 1;
                    next = self.cur();
                } else {
                    break;
                }
            }
            return (true, next);
        }
        if c == 'u' || c == 'x' {
            let n = if c == 'u' { 4 } else { 2 };
            if let Some(hex) = self.s.get(self.index + 1..self.index + 1 + n)
                && hex.iter().all(char::is_ascii_hexdigit)
            {
                let code = hex_value(hex);
                // Python keeps a surrogate escape as a lone surrogate code point; a high one
                // followed by a low one is the character they encode (a pair of lone
                // surrogates cannot exist in a Rust string). Nothing happens between the two
                // escapes but appending the second backslash, so taking both at once is the same.
                let low = self
                    .s
                    .get(self.index + 1 + n..self.index + 7 + n)
                    .filter(|t| {
                        t[0] == '\\' && t[1] == 'u' && t[2..].iter().all(char::is_ascii_hexdigit)
                    })
                    .map(|t| hex_value(&t[2..]))
                    .filter(|l| (0xdc00..0xe000).contains(l));
                match low {
                    Some(low) if c == 'u' && (0xd800..0xdc00).contains(&code) => {
                        let pair = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
                        state.replace_trailing_backslash(&[
                            char::from_u32(pair).unwrap_or('\u{fffd}')
                        ]);
                        self.index += 1 + n + 6;
                    }
                    _ => {
                        state.replace_trailing_backslash(&[
                            char::from_u32(code).unwrap_or('\u{fffd}')
                        ]);
                        self.index += 1 + n;
                    }
                }
                return (true, self.cur());
            }
        } else if c == '„' || (STRING_DELIMITERS.contains(&c) && c != active) {
            state.replace_trailing_backslash(&[c]);
            self.index += 1;
            return (true, self.cur());
        }
        (false, Some(c))
    }

    fn bare_key_is_followed_by_colon(&self, key_idx: isize) -> bool {
        let mut idx = key_idx;
        if !self.at(idx).is_some_and(|c| is_alnum(c) || c == '_') {
            return false;
        }
        while self
            .at(idx)
            .is_some_and(|c| is_alnum(c) || c == '_' || c == '-')
        {
            idx += 1;
        }
        let idx = self.scroll_whitespaces(idx);
        self.at(idx) == Some(':')
    }

    fn scroll_comment_prefixed_member_start(&self, idx: isize) -> isize {
        let mut idx = self.scroll_whitespaces(idx);
        loop {
            let c = self.at(idx);
            if c == Some('#') {
                while self.at(idx).is_some_and(|c| c != '\n' && c != '\r') {
                    idx += 1;
                }
                idx = self.scroll_whitespaces(idx);
                continue;
            }
            if c == Some('/') {
                let next = self.at(idx + 1);
                if next == Some('/') {
                    idx += 2;
                    while self.at(idx).is_some_and(|c| c != '\n' && c != '\r') {
                        idx += 1;
                    }
                    idx = self.scroll_whitespaces(idx);
                    continue;
                }
                if next == Some('*') {
                    idx += 2;
                    loop {
                        match self.at(idx) {
                            None => return idx,
                            Some('*') if self.at(idx + 1) == Some('/') => {
                                idx += 2;
                                break;
                            }
                            Some(_) => idx += 1,
                        }
                    }
                    idx = self.scroll_whitespaces(idx);
                    continue;
                }
            }
            return idx;
        }
    }

    fn object_member_starts_at(&self, idx: isize) -> bool {
        let member = self.at(idx);
        let Some(m) = member.filter(|&m| m != '}') else {
            return false;
        };
        if STRING_DELIMITERS.contains(&m) {
            let end_delimiter = matching_delimiter(m);
            let key_end = self.skip_to(&[end_delimiter], idx + 1);
            if self.at(key_end) != Some(end_delimiter) {
                return false;
            }
            return self.at(self.scroll_whitespaces(key_end + 1)) == Some(':');
        }
        if is_alnum(m) || m == '_' {
            return self.bare_key_is_followed_by_colon(idx);
        }
        false
    }

    fn quoted_object_member_follows(&self, quote_idx: isize) -> bool {
        let comma_idx = self.scroll_whitespaces(quote_idx + 1);
        if self.at(comma_idx) != Some(',') {
            return false;
        }
        let next = self.scroll_comment_prefixed_member_start(comma_idx + 1);
        self.object_member_starts_at(next)
    }

    fn post_fence_container_starts_next_member(&self, container_end_idx: isize) -> bool {
        let after_idx = self.scroll_whitespaces(container_end_idx);
        let after = self.at(after_idx);
        if after.is_none() || after == Some('}') {
            return true;
        }
        if after != Some(',') {
            return false;
        }
        let next = self.scroll_comment_prefixed_member_start(after_idx + 1);
        let c = self.at(next);
        c.is_none() || c == Some('}') || self.object_member_starts_at(next)
    }

    fn starts_nested_inline_container(&self, idx: isize) -> bool {
        let opening = self.at(idx);
        let mut prev_idx = idx - 1;
        while prev_idx >= 0 {
            let Some(prev) = self.at(prev_idx) else {
                return true;
            };
            if !is_space(prev) {
                if INLINE_OPENERS.contains(&prev) {
                    return true;
                }
                if prev != ',' && prev != ':' {
                    return false;
                }
                let next_idx = self.scroll_whitespaces(idx + 1);
                let next = self.at(next_idx);
                if in_set(opening, &['[', '(']) {
                    return next.is_some_and(|n| {
                        matches!(n, ']' | ')' | '-' | 't' | 'f' | 'n')
                            || STRING_DELIMITERS.contains(&n)
                            || INLINE_OPENERS.contains(&n)
                            || is_digit(n)
                    });
                }
                if opening != Some('{') {
                    return false;
                }
                if next == Some('}') || is_delimiter(next) {
                    return true;
                }
                return prev == ':' && self.bare_key_is_followed_by_colon(next_idx);
            }
            prev_idx -= 1;
        }
        true
    }

    /// `_skip_inline_container`: the offset just past the balanced container at `idx`.
    fn skip_inline_container(&self, idx: isize) -> Option<isize> {
        let Some(closing) = self.at(idx).and_then(inline_closing) else {
            return Some(idx);
        };
        let mut stack = vec![closing];
        let mut i = idx + 1;
        while let Some(&top) = stack.last() {
            let c = self.at(i)?;
            if STRING_DELIMITERS.contains(&c) {
                let end = matching_delimiter(c);
                i = self.skip_to(&[end], i + 1);
                if self.at(i) != Some(end) {
                    return None;
                }
            } else if let Some(close) =
                inline_closing(c).filter(|_| self.starts_nested_inline_container(i))
            {
                stack.push(close);
            } else if c == top {
                stack.pop();
                if stack.is_empty() {
                    return Some(i + 1);
                }
            }
            i += 1;
        }
        None
    }

    fn brace_before_code_fence_belongs_to_string(
        &self,
        state: &mut State,
        fence_idx: isize,
    ) -> bool {
        let mut quote_search_idx = fence_idx + 3;
        let next_content_idx = self.scroll_comment_prefixed_member_start(quote_search_idx);
        let mut keep_post_fence_container = false;
        if in_set(self.at(next_content_idx), &INLINE_OPENERS)
            && let Some(end) = self.skip_inline_container(next_content_idx)
        {
            if self.post_fence_container_starts_next_member(end) {
                return false;
            }
            keep_post_fence_container = true;
            quote_search_idx = end;
        }
        let outer = state.outer();
        let mut quote_idx = self.skip_to(&[outer], quote_search_idx);
        while self.at(quote_idx) == Some(outer) {
            let after = self.at(self.scroll_whitespaces(quote_idx + 1));
            if after.is_none() || in_set(after, &[',', '}', ']']) {
                if keep_post_fence_container {
                    state.pending_inline_container = true;
                }
                return true;
            }
            quote_idx = self.skip_to(&[outer], quote_idx + 1);
        }
        false
    }

    fn bare_member_has_recoverable_value(&self, state: &mut State, value_idx: isize) -> bool {
        let start = self.scroll_whitespaces(value_idx);
        let v = self.at(start);
        if is_delimiter(v) || in_set(v, &['{', '[', '-']) || v.is_some_and(is_digit) {
            return true;
        }
        for literal in ["true", "false", "null"] {
            if literal
                .chars()
                .enumerate()
                .all(|(k, ch)| self.at(start + k as isize) == Some(ch))
            {
                let end = self.at(start + literal.len() as isize);
                if end.is_none_or(|c| is_space(c) || matches!(c, ',' | '}' | ']')) {
                    return true;
                }
            }
        }
        let targets = ['"', '\'', '“', '”', '}'];
        let end_idx = self.cached_skip_to(state, &targets, start);
        self.at(end_idx) == Some('}')
    }

    /// `classify_object_value_comma`: does a `,` inside an object value end the value?
    fn classify_object_value_comma(&self, state: &mut State) -> Comma {
        let next_idx = self.scroll_whitespaces(1);
        let next = self.at(next_idx);
        let Some(n) = next.filter(|&n| n != '}') else {
            return Comma::Member;
        };
        if STRING_DELIMITERS.contains(&n) {
            let key_end = self.skip_to(&[n], next_idx + 1);
            if self.at(key_end).is_none() {
                return Comma::String;
            }
            let key_end = self.scroll_whitespaces(key_end + 1);
            return if self.at(key_end) == Some(':') {
                Comma::Member
            } else {
                Comma::String
            };
        }
        let bare_key_end = |from: isize| {
            let mut k = from;
            while self
                .at(k)
                .is_some_and(|c| is_alnum(c) || c == '_' || c == '-')
            {
                k += 1;
            }
            self.scroll_whitespaces(k)
        };
        if n == '`' {
            let k = bare_key_end(next_idx + 1);
            return if self.at(k) == Some(':') {
                Comma::Member
            } else {
                Comma::String
            };
        }
        if is_alnum(n) || n == '_' {
            let k = bare_key_end(next_idx);
            if self.at(k) == Some(':') && self.bare_member_has_recoverable_value(state, k + 1) {
                return Comma::Member;
            }
        }
        if n == '{' || n == '[' {
            return Comma::Container;
        }
        let special_targets = ['"', '\'', '“', '”', '{', '['];
        let special_idx = self.cached_skip_to(state, &special_targets, next_idx);
        let Some(special) = self.at(special_idx) else {
            return Comma::StringNoFutureDelimiter;
        };
        if special == '{' || special == '[' {
            return Comma::String;
        }
        let key_end = self.cached_skip_to(state, &[special], special_idx + 1);
        if self.at(key_end).is_none() {
            return Comma::String;
        }
        let key_end = self.scroll_whitespaces(key_end + 1);
        if self.at(key_end) == Some(':') {
            Comma::Member
        } else {
            Comma::String
        }
    }

    /// `update_inline_container_stack` → whether to keep `c` in the string as is.
    fn update_inline_container_stack(state: &mut State, c: char) -> bool {
        if c == '{' || c == '[' {
            if state.pending_inline_container {
                state.inline_container_stack.push(c);
                state.pending_inline_container = false;
                return false;
            }
            if !state.inline_container_stack.is_empty() {
                state.inline_container_stack.push(c);
            }
        }
        if let Some(&top) = state.inline_container_stack.last()
            && ((c == '}' && top == '{') || (c == ']' && top == '['))
        {
            state.inline_container_stack.pop();
            return true;
        }
        false
    }

    fn quote_belongs_to_regex_character_class(&self, state: &State) -> bool {
        let Some(start) = state.regex_character_class_start else {
            return false;
        };
        if state
            .acc
            .get(start..)
            .unwrap_or(&[])
            .iter()
            .any(|c| is_space(*c))
        {
            return false;
        }
        self.at(self.skip_to(&[']'], 1)) == Some(']')
    }

    /// `_handle_right_delimiter_candidate` → (handled, next char, stop).
    fn handle_right_delimiter_candidate(
        &mut self,
        state: &mut State,
        c: char,
    ) -> (bool, Option<char>, bool) {
        let outer = state.outer();
        let l = state.lstring_delimiter;
        let current = self.ctx_current();
        if state.doubled_quotes && self.at(1) == Some(outer) {
            self.index += 1;
            return (true, Some(c), false);
        }
        if state.missing_quotes && current == Some(Ctx::ObjectValue) {
            let mut i = 1;
            let mut next = self.at(i);
            while next.is_some_and(|n| n != outer && n != l) {
                i += 1;
                next = self.at(i);
            }
            if next.is_some() {
                let i = self.scroll_whitespaces(i + 1);
                if self.at(i) == Some(':') {
                    self.index -= 1;
                    return (false, self.cur(), true);
                }
            }
            return (false, Some(c), false);
        }
        if state.unmatched_delimiter {
            state.unmatched_delimiter = false;
            let next = self.append_literal_char(state, c);
            return (true, next, false);
        }
        let mut i = 1;
        let mut next = self.at(i);
        let mut check_comma = true;
        while let Some(n) = next.filter(|&n| n != outer && n != l) {
            if check_comma && is_alpha(n) {
                check_comma = false;
            }
            if (self.ctx_has(Ctx::ObjectKey) && (n == ':' || n == '}'))
                || (self.ctx_has(Ctx::ObjectValue) && n == '}')
                || (self.ctx_has(Ctx::Array) && (n == ']' || n == ','))
                || (check_comma && current == Some(Ctx::ObjectValue) && n == ',')
            {
                break;
            }
            i += 1;
            next = self.at(i);
        }
        if next == Some(',') && current == Some(Ctx::ObjectValue) {
            let i = self.skip_to(&[outer], i + 1);
            let i = self.scroll_whitespaces(i + 1);
            if in_set(self.at(i), &['}', ',']) {
                let next = self.append_literal_char(state, c);
                return (true, next, false);
            }
        } else if next == Some(outer) && self.at(i - 1) != Some('\\') {
            if self.only_whitespace_until(i)
                && !(current == Some(Ctx::ObjectValue) && self.quoted_object_member_follows(i))
            {
                return (false, Some(c), true);
            }
            match current {
                Some(Ctx::ObjectValue) => {
                    if self.quoted_object_member_follows(i) {
                        let next = self.append_literal_char(state, c);
                        return (true, next, false);
                    }
                    let mut i = self.skip_to(&[outer], i + 1) + 1;
                    let mut next = self.at(i);
                    while let Some(n) = next.filter(|&n| n != ':') {
                        if matches!(n, ',' | ']' | '}')
                            || (n == outer && self.at(i - 1) != Some('\\'))
                        {
                            break;
                        }
                        i += 1;
                        next = self.at(i);
                    }
                    if next != Some(':') {
                        state.unmatched_delimiter = !state.unmatched_delimiter;
                        let next = self.append_literal_char(state, c);
                        return (true, next, false);
                    }
                }
                Some(Ctx::Array) => {
                    let mut even = next == Some(outer);
                    let mut i = i;
                    let mut next = next;
                    while next == Some(outer) {
                        i = self.skip_to(&[outer, ']'], i + 1);
                        next = self.at(i);
                        if next != Some(outer) {
                            even = false;
                            break;
                        }
                        i = self.skip_to(&[outer, ']'], i + 1);
                        next = self.at(i);
                    }
                    if even {
                        state.unmatched_delimiter = !state.unmatched_delimiter;
                        let next = self.append_literal_char(state, c);
                        return (true, next, false);
                    }
                    return (false, Some(c), true);
                }
                Some(Ctx::ObjectKey) => {
                    let next = self.append_literal_char(state, c);
                    return (true, next, false);
                }
                None => {}
            }
        }
        (false, Some(c), false)
    }

    /// `_scan_string_body` → the character the scan stopped at.
    fn scan_string_body(&mut self, state: &mut State) -> Option<char> {
        let outer = state.outer();
        let mut ch = self.cur();
        while let Some(c) = ch {
            if c == outer && !state.in_low_smart_quote_span() {
                break;
            }
            let current = self.ctx_current();
            if state.missing_quotes {
                if current == Some(Ctx::ObjectKey) && (c == ':' || is_space(c)) {
                    break;
                }
                if current == Some(Ctx::Array) && (c == ']' || c == ',') {
                    break;
                }
            }
            let escaped = state.last() == Some('\\');
            if c == '„' && !escaped {
                state.rstring_delimiter.push(LOW_SMART_QUOTE_SENTINEL);
                ch = self.append_literal_char(state, c);
                continue;
            }
            if state.in_low_smart_quote_span() && c == '”' {
                state.rstring_delimiter.pop();
                ch = self.append_literal_char(state, c);
                continue;
            }
            if (state.pending_inline_container
                || (current == Some(Ctx::ObjectValue)
                    && c == '{'
                    && self.at(-1) != Some('\\')
                    && self.bare_key_is_followed_by_colon(self.scroll_whitespaces(1))))
                && INLINE_OPENERS.contains(&c)
                && !escaped
                && let Some(end) = self.skip_inline_container(0)
            {
                state.pending_inline_container = false;
                state.inline_container_stack.clear();
                let content: Vec<char> = self.s[self.index..self.index + end as usize].to_vec();
                state.append(&content);
                self.index += end as usize;
                ch = self.cur();
                continue;
            }
            if current == Some(Ctx::ObjectValue)
                && c == ','
                && !state.pending_inline_container
                && state.inline_container_stack.is_empty()
            {
                let class = if state.object_value_has_no_future_delimiter {
                    Comma::String
                } else {
                    self.classify_object_value_comma(state)
                };
                if class == Comma::Member {
                    break;
                }
                if class == Comma::StringNoFutureDelimiter {
                    state.object_value_has_no_future_delimiter = true;
                }
                state.pending_inline_container = class == Comma::Container;
                ch = self.append_literal_char(state, c);
                continue;
            }
            if Self::update_inline_container_stack(state, c) {
                ch = self.append_literal_char(state, c);
                continue;
            }
            if current == Some(Ctx::ObjectValue) && c == '}' && state.last() != Some(outer) {
                if state.object_value_unmatched_opening_braces > 0 {
                    ch = self.append_literal_char(state, c);
                    continue;
                }
                let mut missing = true;
                self.skip_whitespaces();
                if self.at(1) == Some('\\') {
                    missing = false;
                }
                let i = self.cached_skip_to(state, &[outer], 1);
                if self.at(i).is_some() {
                    let i = self.scroll_whitespaces(i + 1);
                    let next = self.at(i);
                    if next.is_none() || in_set(next, &[',', '}']) {
                        missing = false;
                    } else {
                        let i = self.skip_to(&[state.lstring_delimiter], i);
                        if self.at(i).is_none() {
                            missing = false;
                        } else {
                            let i = self.scroll_whitespaces(i + 1);
                            let next = self.at(i);
                            if next.is_some() && next != Some(':') {
                                missing = false;
                            }
                        }
                    }
                } else {
                    let i = self.skip_to(&[':'], 1);
                    if self.at(i).is_some() {
                        break;
                    }
                    let i = self.scroll_whitespaces(1);
                    let j = self.skip_to(&['}'], i);
                    if j - i > 1 {
                        missing = false;
                    }
                }
                if missing {
                    break;
                }
            }
            if c == ']' && self.ctx_has(Ctx::Array) && state.last() != Some(outer) {
                let i = self.skip_to(&[outer], 0);
                if self.at(i).is_none() {
                    break;
                }
            }
            if current == Some(Ctx::ObjectValue) && c == '}' {
                let i = self.scroll_whitespaces(1);
                let next = self.at(i);
                if next == Some('`') && self.at(i + 1) == Some('`') && self.at(i + 2) == Some('`') {
                    if self.brace_before_code_fence_belongs_to_string(state, i) {
                        ch = self.append_literal_char(state, c);
                        continue;
                    }
                    break;
                }
                if next.is_none() {
                    break;
                }
            }
            state.append(&[c]);
            self.index += 1;
            ch = self.cur();
            let Some(c) = ch else { break };
            if state.last() == Some('\\') {
                let (handled, next) = self.normalize_escape_sequence(state, c);
                ch = next;
                if handled {
                    continue;
                }
            }
            let Some(c) = ch else { continue };
            if c == ':' && !state.missing_quotes && current == Some(Ctx::ObjectKey) {
                let i = self.skip_to(&[state.lstring_delimiter], 1);
                if self.at(i).is_some() {
                    let i = self.skip_to(&[outer], i + 1);
                    if self.at(i).is_some() {
                        let i = self.scroll_whitespaces(i + 1);
                        if in_set(self.at(i), &[',', '}']) {
                            break;
                        }
                    }
                } else {
                    break;
                }
            }
            if state.in_low_smart_quote_span() && c == '"' {
                state.rstring_delimiter.pop();
                ch = self.append_literal_char(state, c);
                continue;
            }
            if c == outer
                && current == Some(Ctx::ObjectValue)
                && self.quote_belongs_to_regex_character_class(state)
            {
                ch = self.append_literal_char(state, c);
                continue;
            }
            if c == outer && state.last().is_some_and(|l| l != '\\') {
                let (handled, next, stop) = self.handle_right_delimiter_candidate(state, c);
                ch = next;
                if stop {
                    break;
                }
                if handled {
                    continue;
                }
            }
        }
        ch
    }

    fn finalize_string(&mut self, state: &mut State, ch: Option<char>) -> PyValue {
        let outer = state.outer();
        if let Some(c) = ch
            && state.missing_quotes
            && self.ctx_current() == Some(Ctx::ObjectKey)
            && is_space(c)
        {
            self.skip_whitespaces();
            if !in_set(self.cur(), &[':', ',']) {
                return empty_str();
            }
        }
        if ch != Some(outer) {
            rstrip(&mut state.acc);
        } else {
            self.index += 1;
        }
        if state.missing_quotes || state.last() == Some('\n') {
            rstrip(&mut state.acc);
        }
        PyValue::Str(state.acc.iter().collect())
    }

    /// `parse_string`.
    pub(super) fn parse_string(&mut self) -> Res<PyValue> {
        match self.prepare_string_entry()? {
            Entry::Done(value) => Ok(value),
            Entry::Scan(mut state) => {
                let ch = self.scan_string_body(&mut state);
                Ok(self.finalize_string(&mut state, ch))
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Comma {
    Member,
    Container,
    String,
    StringNoFutureDelimiter,
}
