//! SGI-Bench Idea Generation: turning texts into values the way the official Python does.
//!
//! - [`parse_generated_idea`] is `task_2_idea_generation/step_1_get_answer.parse_generated_idea`,
//!   which builds the `generated_data` of the step-1 log from the model's reply.
//! - [`literal_eval`] is `ast.literal_eval` on the dataset's Python-literal fields
//!   (`related_work`, `implementation_steps` and the like).
//! - [`py_str`] is Python's `str(value)` of a JSON value (f-strings, `", ".join(str(t) …)`).
//!
//! ```text
//! parse_generated_idea(text):
//!   1. first ```…``` block (an optional `json` right after the opening fence is dropped),
//!      stripped: json.loads → returned as is (any JSON value, a list too)
//!   2. json.loads(text) → returned as is
//!   3. per field, the first pattern that matches (case-insensitive, `.` matches newlines):
//!      Idea               ["']?Idea["']?\s*:\s*["'](.*?)["']
//!                         1\.\s*Idea[:\s-]+(.*?)(?=\n\s*(?:2\.|Implementation))
//!      ImplementationSteps ["']?ImplementationSteps["']?\s*:\s*\{(.*?)\}
//!                         2\.\s*Implementation Steps[:\s-]+(.*?)(?=\n\s*(?:3\.|Implementation Order))
//!                         then every ["'](\d+)["']\s*:\s*["'](.*?)["'] (`.` not across lines);
//!                         kept only when at least one step is found
//!      ImplementationOrder ["']?ImplementationOrder["']?\s*:\s*\[(.*?)\]
//!                         3\.\s*Implementation Order[:\s-]+(.*?)(?=\n\s*(?:4\.|Dataset))
//!                         then every ["']([^"']+)["']; kept only when non-empty
//!      Dataset            ["']?Dataset["']?\s*:\s*["'](.*?)["'](?=\s*,\s*["'])
//!                         4\.\s*Dataset[:\s-]+(.*?)(?=\n\s*(?:5\.|Evaluation))
//!      EvaluationMetrics  ["']?EvaluationMetrics["']?\s*:\s*\{(.*?)\}(?=\s*,\s*["'])
//!                         5\.\s*Evaluation Metrics[:\s-]+(.*?)(?=\n\s*(?:6\.|Expected))
//!                         then every ["']([^"']+)["']\s*:\s*["'](.*?)["']; kept only when non-empty
//!      ExpectedOutcome    ["']?ExpectedOutcome["']?\s*:\s*["'](.*?)["']
//!                         6\.\s*Expected Outcome[:\s-]+(.*?)$
//!      captures are stripped; nothing found → {"full_text": text}
//! ```
//!
//! Official quirks reproduced: a quoted value ends at the first quote of EITHER kind, so an
//! apostrophe cuts a single-quoted idea short (`'the model's …'` → `the model`); a fenced block
//! that is not JSON falls through to parsing the whole text.
//!
//! Differences that do not arise in practice: `\d` is ASCII digits only (Python also accepts other
//! Unicode decimal digits); `json.loads` extras (`NaN`, `Infinity`) are not accepted.

use serde_json::{Map, Value};

use super::{py_isspace, py_strip};

/// `parse_generated_idea(text)`.
pub fn parse_generated_idea(text: &str) -> Value {
    let chars: Vec<char> = text.chars().collect();
    if let Some(block) = fenced_block(&chars)
        && let Ok(v) = serde_json::from_str::<Value>(py_strip(&block))
    {
        return v;
    }
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        return v;
    }

    let mut result = Map::new();
    let quote_end = |c: &[char], s: usize| find_from(c, s, is_quote);

    let idea = keyed(&chars, "Idea", is_quote, quote_end)
        .or_else(|| numbered(&chars, '1', "Idea", Some(('2', "Implementation"))));
    if let Some(idea) = idea {
        result.insert("Idea".into(), Value::String(strip(&idea)));
    }

    let steps_candidates = [
        keyed(
            &chars,
            "ImplementationSteps",
            |c| c == '{',
            |c, s| find_from(c, s, |x| x == '}'),
        ),
        numbered(
            &chars,
            '2',
            "Implementation Steps",
            Some(('3', "Implementation Order")),
        ),
    ];
    for candidate in steps_candidates.into_iter().flatten() {
        let steps = find_steps(&strip(&candidate));
        if !steps.is_empty() {
            result.insert("ImplementationSteps".into(), Value::Object(steps));
            break;
        }
    }

    let order_candidates = [
        keyed(
            &chars,
            "ImplementationOrder",
            |c| c == '[',
            |c, s| find_from(c, s, |x| x == ']'),
        ),
        numbered(&chars, '3', "Implementation Order", Some(('4', "Dataset"))),
    ];
    for candidate in order_candidates.into_iter().flatten() {
        let order = find_quoted(&strip(&candidate));
        if !order.is_empty() {
            result.insert(
                "ImplementationOrder".into(),
                Value::Array(order.into_iter().map(Value::String).collect()),
            );
            break;
        }
    }

    let dataset = keyed(&chars, "Dataset", is_quote, |c, s| {
        (s..c.len()).find(|&e| is_quote(c[e]) && comma_quote_follows(c, e + 1))
    })
    .or_else(|| numbered(&chars, '4', "Dataset", Some(('5', "Evaluation"))));
    if let Some(dataset) = dataset {
        result.insert("Dataset".into(), Value::String(strip(&dataset)));
    }

    let metrics_candidates = [
        keyed(
            &chars,
            "EvaluationMetrics",
            |c| c == '{',
            |c, s| (s..c.len()).find(|&e| c[e] == '}' && comma_quote_follows(c, e + 1)),
        ),
        numbered(&chars, '5', "Evaluation Metrics", Some(('6', "Expected"))),
    ];
    for candidate in metrics_candidates.into_iter().flatten() {
        let metrics = find_metrics(&strip(&candidate));
        if !metrics.is_empty() {
            result.insert("EvaluationMetrics".into(), Value::Object(metrics));
            break;
        }
    }

    let outcome = keyed(&chars, "ExpectedOutcome", is_quote, quote_end)
        .or_else(|| numbered(&chars, '6', "Expected Outcome", None));
    if let Some(outcome) = outcome {
        result.insert("ExpectedOutcome".into(), Value::String(strip(&outcome)));
    }

    if result.is_empty() {
        result.insert("full_text".into(), Value::String(text.to_owned()));
    }
    Value::Object(result)
}

fn is_quote(c: char) -> bool {
    c == '"' || c == '\''
}

fn strip(chars: &[char]) -> String {
    py_strip(&chars.iter().collect::<String>()).to_owned()
}

fn find_from(chars: &[char], start: usize, pred: impl Fn(char) -> bool) -> Option<usize> {
    (start..chars.len()).find(|&i| pred(chars[i]))
}

fn skip_ws(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() && py_isspace(chars[i]) {
        i += 1;
    }
    i
}

/// Case-insensitive `word` at `p` (Python `re.IGNORECASE` on the letters met here).
pub(crate) fn starts_with_ci(chars: &[char], p: usize, word: &str) -> bool {
    let mut i = p;
    for w in word.chars() {
        match chars.get(i) {
            Some(c) if c.to_lowercase().eq(w.to_lowercase()) => i += 1,
            _ => return false,
        }
    }
    true
}

/// `(?=\s*,\s*["'])` at `i`.
fn comma_quote_follows(chars: &[char], i: usize) -> bool {
    let i = skip_ws(chars, i);
    if chars.get(i) != Some(&',') {
        return false;
    }
    let i = skip_ws(chars, i + 1);
    chars.get(i).is_some_and(|c| is_quote(*c))
}

/// The first block between ``` fences: `` ```(?:json)?\s*([\s\S]*?)``` ``.
fn fenced_block(chars: &[char]) -> Option<String> {
    let fence = |i: usize| chars.get(i..i + 3) == Some(&['`', '`', '`'][..]);
    let open = (0..chars.len()).find(|&i| fence(i))?;
    let mut start = open + 3;
    if chars.get(start..start + 4) == Some(&['j', 's', 'o', 'n'][..]) {
        start += 4;
    }
    let close = (start..chars.len()).find(|&i| fence(i))?;
    Some(chars[start..close].iter().collect())
}

/// `["']?KEY["']?\s*:\s*OPEN(.*?)END` (case-insensitive, dot-all): the leftmost match's capture.
/// `end(chars, s)` gives the end of the lazy capture starting at `s`, where the rest matches.
fn keyed(
    chars: &[char],
    key: &str,
    open: impl Fn(char) -> bool,
    end: impl Fn(&[char], usize) -> Option<usize>,
) -> Option<Vec<char>> {
    let key_len = key.chars().count();
    for p in 0..chars.len() {
        if !starts_with_ci(chars, p, key) {
            continue;
        }
        let mut i = p + key_len;
        if chars.get(i).is_some_and(|c| is_quote(*c)) {
            i += 1;
        }
        i = skip_ws(chars, i);
        if chars.get(i) != Some(&':') {
            continue;
        }
        i = skip_ws(chars, i + 1);
        if !chars.get(i).is_some_and(|c| open(*c)) {
            continue;
        }
        let s = i + 1;
        if let Some(e) = end(chars, s) {
            return Some(chars[s..e].to_vec());
        }
    }
    None
}

/// `N\.\s*TITLE[:\s-]+(.*?)(?=\n\s*(?:M\.|NEXT))` (case-insensitive, dot-all), or with `next`
/// `None`: `N\.\s*TITLE[:\s-]+(.*?)$`.
fn numbered(
    chars: &[char],
    number: char,
    title: &str,
    next: Option<(char, &str)>,
) -> Option<Vec<char>> {
    let lookahead = |e: usize| -> bool {
        match next {
            None => e == chars.len() || (e + 1 == chars.len() && chars[e] == '\n'),
            Some((m, word)) => {
                if chars.get(e) != Some(&'\n') {
                    return false;
                }
                let j = skip_ws(chars, e + 1);
                (chars.get(j) == Some(&m) && chars.get(j + 1) == Some(&'.'))
                    || starts_with_ci(chars, j, word)
            }
        }
    };
    let is_sep = |c: char| c == ':' || c == '-' || py_isspace(c);
    let title_len = title.chars().count();
    for p in 0..chars.len() {
        if chars[p] != number || chars.get(p + 1) != Some(&'.') {
            continue;
        }
        let t = skip_ws(chars, p + 2);
        if !starts_with_ci(chars, t, title) {
            continue;
        }
        let sep_start = t + title_len;
        let mut sep_end = sep_start;
        while sep_end < chars.len() && is_sep(chars[sep_end]) {
            sep_end += 1;
        }
        // `[:\s-]+` is greedy: try the longest separator run first, then give characters back.
        for s in (sep_start + 1..=sep_end).rev() {
            if let Some(e) = (s..=chars.len()).find(|&e| lookahead(e)) {
                return Some(chars[s..e].to_vec());
            }
        }
    }
    None
}

/// A quoted value without line breaks: `["'](.*?)["']` (no dot-all) starting at the quote `i`;
/// returns (capture, index after the closing quote).
fn quoted_line_value(chars: &[char], i: usize) -> Option<(String, usize)> {
    if !chars.get(i).is_some_and(|c| is_quote(*c)) {
        return None;
    }
    let mut e = i + 1;
    loop {
        match chars.get(e) {
            Some(c) if is_quote(*c) => return Some((chars[i + 1..e].iter().collect(), e + 1)),
            Some('\n') | None => return None,
            Some(_) => e += 1,
        }
    }
}

/// `\s*:\s*` at `i`: the index after it.
fn colon(chars: &[char], i: usize) -> Option<usize> {
    let i = skip_ws(chars, i);
    (chars.get(i) == Some(&':')).then(|| skip_ws(chars, i + 1))
}

/// `re.findall(r"[\"'](\d+)[\"']\s*:\s*[\"'](.*?)[\"']", text)` into a dict (later keys win,
/// first position kept), values stripped.
fn find_steps(text: &str) -> Map<String, Value> {
    let chars: Vec<char> = text.chars().collect();
    let mut steps = Map::new();
    let mut i = 0;
    while i < chars.len() {
        let found = (|| {
            if !is_quote(chars[i]) {
                return None;
            }
            let mut j = i + 1;
            while j < chars.len() && chars[j].is_ascii_digit() {
                j += 1;
            }
            if j == i + 1 || !chars.get(j).is_some_and(|c| is_quote(*c)) {
                return None;
            }
            let key: String = chars[i + 1..j].iter().collect();
            let v = colon(&chars, j + 1)?;
            let (value, next) = quoted_line_value(&chars, v)?;
            Some((key, value, next))
        })();
        match found {
            Some((key, value, next)) => {
                steps.insert(key, Value::String(py_strip(&value).to_owned()));
                i = next;
            }
            None => i += 1,
        }
    }
    steps
}

/// `["']([^"']+)["']` at `i`: (capture, index after the closing quote).
fn quoted_run(chars: &[char], i: usize) -> Option<(String, usize)> {
    if !chars.get(i).is_some_and(|c| is_quote(*c)) {
        return None;
    }
    let close = find_from(chars, i + 1, is_quote)?;
    (close > i + 1).then(|| (chars[i + 1..close].iter().collect(), close + 1))
}

/// `re.findall(r'["\']([^"\']+)["\']', text)`.
fn find_quoted(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match quoted_run(&chars, i) {
            Some((s, next)) => {
                out.push(s);
                i = next;
            }
            None => i += 1,
        }
    }
    out
}

/// `re.findall(r"[\"']([^\"']+)[\"']\s*:\s*[\"'](.*?)[\"']", text)` into a dict, both stripped.
fn find_metrics(text: &str) -> Map<String, Value> {
    let chars: Vec<char> = text.chars().collect();
    let mut metrics = Map::new();
    let mut i = 0;
    while i < chars.len() {
        let found = (|| {
            let (name, after) = quoted_run(&chars, i)?;
            let v = colon(&chars, after)?;
            let (value, next) = quoted_line_value(&chars, v)?;
            Some((name, value, next))
        })();
        match found {
            Some((name, value, next)) => {
                metrics.insert(
                    py_strip(&name).to_owned(),
                    Value::String(py_strip(&value).to_owned()),
                );
                i = next;
            }
            None => i += 1,
        }
    }
    metrics
}

/// Why `ast.literal_eval` raised.
#[derive(Debug, Clone, PartialEq)]
pub struct LiteralError(pub String);

/// `ast.literal_eval(value)` for a JSON value: a string is parsed as a Python literal (strings,
/// numbers, `True`/`False`/`None`, lists, tuples and sets as arrays, dicts with keys as `str(key)`);
/// any other value raises, as in Python (`malformed node or string: {}` for a dict).
pub fn literal_eval(value: &Value) -> Result<Value, LiteralError> {
    let Value::String(text) = value else {
        return Err(LiteralError(format!(
            "ValueError: malformed node or string: {}",
            py_repr(value)
        )));
    };
    let chars: Vec<char> = text.trim_start_matches([' ', '\t']).chars().collect();
    let mut parser = Literal {
        chars: &chars,
        i: 0,
    };
    let v = parser.value()?;
    parser.ws();
    if parser.i != chars.len() {
        return Err(parser.error());
    }
    Ok(v)
}

struct Literal<'a> {
    chars: &'a [char],
    i: usize,
}

impl Literal<'_> {
    fn error(&self) -> LiteralError {
        LiteralError(format!(
            "SyntaxError: not a Python literal (at character {})",
            self.i + 1
        ))
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }

    fn ws(&mut self) {
        while self.peek().is_some_and(py_isspace) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.ws();
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Result<Value, LiteralError> {
        self.ws();
        match self.peek() {
            Some('{') => self.dict_or_set(),
            Some('[') => {
                self.i += 1;
                Ok(Value::Array(self.items(']')?))
            }
            Some('(') => {
                self.i += 1;
                Ok(Value::Array(self.items(')')?))
            }
            Some(c) if c == '\'' || c == '"' || self.string_prefix() => {
                let mut s = self.string()?;
                // Adjacent literals concatenate.
                loop {
                    let save = self.i;
                    self.ws();
                    if self.peek().is_some_and(|c| c == '\'' || c == '"') || self.string_prefix() {
                        s.push_str(&self.string()?);
                    } else {
                        self.i = save;
                        return Ok(Value::String(s));
                    }
                }
            }
            Some(c) if c.is_ascii_digit() || c == '-' || c == '+' || c == '.' => self.number(),
            Some(c) if c.is_alphabetic() || c == '_' => {
                let start = self.i;
                while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    self.i += 1;
                }
                let word: String = self.chars[start..self.i].iter().collect();
                match word.as_str() {
                    "True" => Ok(Value::Bool(true)),
                    "False" => Ok(Value::Bool(false)),
                    "None" => Ok(Value::Null),
                    _ => Err(LiteralError(format!(
                        "ValueError: malformed node or string: name `{word}`"
                    ))),
                }
            }
            _ => Err(self.error()),
        }
    }

    /// `r'…'`, `u"…"`, `R'…'` …: a prefix letter followed by a quote.
    fn string_prefix(&self) -> bool {
        matches!(self.peek(), Some('r' | 'R' | 'u' | 'U'))
            && self
                .chars
                .get(self.i + 1)
                .is_some_and(|c| *c == '\'' || *c == '"')
    }

    fn items(&mut self, close: char) -> Result<Vec<Value>, LiteralError> {
        let mut items = Vec::new();
        loop {
            if self.eat(close) {
                return Ok(items);
            }
            items.push(self.value()?);
            if !self.eat(',') {
                return if self.eat(close) {
                    Ok(items)
                } else {
                    Err(self.error())
                };
            }
        }
    }

    fn dict_or_set(&mut self) -> Result<Value, LiteralError> {
        self.i += 1;
        if self.eat('}') {
            return Ok(Value::Object(Map::new()));
        }
        let first = self.value()?;
        if !self.eat(':') {
            // A set: its items as an array.
            let mut items = vec![first];
            if self.eat(',') {
                items.extend(self.items('}')?);
            } else if !self.eat('}') {
                return Err(self.error());
            }
            return Ok(Value::Array(items));
        }
        let mut map = Map::new();
        let mut key = first;
        loop {
            let value = self.value()?;
            map.insert(py_str(&key), value);
            if self.eat('}') {
                return Ok(Value::Object(map));
            }
            if !self.eat(',') {
                return Err(self.error());
            }
            if self.eat('}') {
                return Ok(Value::Object(map));
            }
            key = self.value()?;
            if !self.eat(':') {
                return Err(self.error());
            }
        }
    }

    fn string(&mut self) -> Result<String, LiteralError> {
        let mut raw = false;
        if let Some(c) = self.peek()
            && c.is_ascii_alphabetic()
        {
            raw = c == 'r' || c == 'R';
            self.i += 1;
        }
        let Some(q) = self.peek() else {
            return Err(self.error());
        };
        let triple = self.chars.get(self.i..self.i + 3) == Some(&[q, q, q][..]);
        self.i += if triple { 3 } else { 1 };
        let mut out = String::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.error());
            };
            if c == q {
                if !triple {
                    self.i += 1;
                    return Ok(out);
                }
                if self.chars.get(self.i..self.i + 3) == Some(&[q, q, q][..]) {
                    self.i += 3;
                    return Ok(out);
                }
            }
            if c == '\n' && !triple {
                return Err(self.error());
            }
            self.i += 1;
            if c != '\\' {
                out.push(c);
                continue;
            }
            let Some(e) = self.peek() else {
                return Err(self.error());
            };
            self.i += 1;
            if raw {
                out.push('\\');
                out.push(e);
                continue;
            }
            match e {
                '\n' => {}
                '\\' | '\'' | '"' => out.push(e),
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'a' => out.push('\u{7}'),
                'b' => out.push('\u{8}'),
                'f' => out.push('\u{c}'),
                'v' => out.push('\u{b}'),
                '0'..='7' => {
                    let mut n = e.to_digit(8).unwrap_or(0);
                    for _ in 0..2 {
                        match self.peek().and_then(|c| c.to_digit(8)) {
                            Some(d) => {
                                n = n * 8 + d;
                                self.i += 1;
                            }
                            None => break,
                        }
                    }
                    out.push(char::from_u32(n).ok_or_else(|| self.error())?);
                }
                'x' | 'u' | 'U' => {
                    let len = match e {
                        'x' => 2,
                        'u' => 4,
                        _ => 8,
                    };
                    let digits: String = self
                        .chars
                        .get(self.i..self.i + len)
                        .ok_or_else(|| self.error())?
                        .iter()
                        .collect();
                    let n = u32::from_str_radix(&digits, 16).map_err(|_| self.error())?;
                    out.push(char::from_u32(n).ok_or_else(|| self.error())?);
                    self.i += len;
                }
                other => {
                    out.push('\\');
                    out.push(other);
                }
            }
        }
    }

    fn number(&mut self) -> Result<Value, LiteralError> {
        let mut negative = false;
        while let Some(c @ ('-' | '+')) = self.peek() {
            negative ^= c == '-';
            self.i += 1;
            self.ws();
        }
        let start = self.i;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
            || (matches!(self.peek(), Some('+' | '-'))
                && matches!(
                    self.i.checked_sub(1).and_then(|j| self.chars.get(j)),
                    Some('e' | 'E')
                )
                && !self.chars[start..self.i]
                    .iter()
                    .any(|c| *c == 'x' || *c == 'X'))
        {
            self.i += 1;
        }
        let text: String = self.chars[start..self.i]
            .iter()
            .filter(|c| **c != '_')
            .collect();
        let lower = text.to_ascii_lowercase();
        let int = if let Some(hex) = lower.strip_prefix("0x") {
            i64::from_str_radix(hex, 16).ok()
        } else if let Some(oct) = lower.strip_prefix("0o") {
            i64::from_str_radix(oct, 8).ok()
        } else if let Some(bin) = lower.strip_prefix("0b") {
            i64::from_str_radix(bin, 2).ok()
        } else if lower.chars().all(|c| c.is_ascii_digit()) {
            lower.parse::<i64>().ok()
        } else {
            None
        };
        if let Some(n) = int {
            return Ok(Value::from(if negative { -n } else { n }));
        }
        let x: f64 = lower.parse().map_err(|_| self.error())?;
        let x = if negative { -x } else { x };
        serde_json::Number::from_f64(x)
            .map(Value::Number)
            .ok_or_else(|| self.error())
    }
}

pub use crate::python::{py_repr, py_str};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn literal_eval_reads_dataset_fields() {
        let v = literal_eval(&json!(
            "{'Paper A': 'GNNs.', \"B\": 'it\\'s', 1: [1, 2.5, None, True]}"
        ))
        .unwrap();
        assert_eq!(
            v,
            json!({"Paper A": "GNNs.", "B": "it's", "1": [1, 2.5, null, true]})
        );
        assert_eq!(literal_eval(&json!("{}")).unwrap(), json!({}));
        assert_eq!(
            literal_eval(&json!("  {'a': 'b',}")).unwrap(),
            json!({"a": "b"})
        );
        assert_eq!(literal_eval(&json!("('x', -3)")).unwrap(), json!(["x", -3]));
        assert_eq!(literal_eval(&json!("'a' 'b'")).unwrap(), json!("ab"));
        // Python: ast.literal_eval({}) -> ValueError: malformed node or string: {}
        let e = literal_eval(&json!({})).unwrap_err();
        assert_eq!(e.0, "ValueError: malformed node or string: {}");
        assert!(literal_eval(&json!("")).is_err());
        assert!(literal_eval(&json!("{'a': b}")).is_err());
        assert!(literal_eval(&json!("{'a': 'b'")).is_err());
    }

    #[test]
    fn python_str_and_repr() {
        assert_eq!(py_str(&json!("x")), "x");
        assert_eq!(py_str(&json!(null)), "None");
        assert_eq!(py_str(&json!(1.5)), "1.5");
        assert_eq!(py_str(&json!(2.0)), "2.0");
        assert_eq!(py_str(&json!(1e16)), "1e+16");
        assert_eq!(py_str(&json!(["a", "it's", 1])), "['a', \"it's\", 1]");
        assert_eq!(py_str(&json!({"k": false})), "{'k': False}");
    }

    #[test]
    fn regex_fallbacks() {
        // The numbered Idea capture runs to the line before "Implementation".
        let v = parse_generated_idea("1. Idea - an idea\n  spanning lines\nImplementation: none");
        assert_eq!(v, json!({"Idea": "an idea\n  spanning lines"}));
        // Dataset needs `, '` after its closing quote; the capture runs over other quotes.
        let v = parse_generated_idea("\"Dataset\": \"a \"b\" c\", \"x\"");
        assert_eq!(v, json!({"Dataset": "a \"b\" c"}));
        // Steps with no digit keys are dropped.
        let v = parse_generated_idea("ImplementationSteps: {'a': 'b'} ExpectedOutcome: 'ok'");
        assert_eq!(v, json!({"ExpectedOutcome": "ok"}));
        // A step value may not cross a line break.
        let v = parse_generated_idea("'ImplementationSteps': {'1': 'a\nb', '2': 'c'}");
        assert_eq!(v, json!({"ImplementationSteps": {"2": "c"}}));
        assert_eq!(parse_generated_idea(""), json!({"full_text": ""}));
        assert_eq!(parse_generated_idea("```"), json!({"full_text": "```"}));
    }
}
