//! Lenient JSON for model replies: the subset of `json_repair.loads` (Python package
//! json_repair 0.64.5) that the official step 2 relies on.
//!
//! No maintained Rust crate reproduces json_repair's choices (the crates.io ports
//! `json-repair`, `jsonrepair`, `llm_json` follow other repair rules), and step 2's output
//! depends on those choices, so this is a small parser of our own, tested against
//! json_repair on every prefix of typical replies (`tests/data/json_repair_cases.jsonl`).
//!
//! ```text
//! valid JSON                      → as json.loads (strict parse first)
//! truncated object / array        → closed where the text ends
//! `"key":` at the end             → "key": ""
//! key without `:`                 → dropped; in an otherwise empty object → ["key"]
//! truncated string                → closed ("答非 → "答非")
//! truncated number `3.` / `1e`    → 3.0 / 1
//! truncated literal `tr`, `nul`   → the string "tr", "nul"
//! empty value cut off in an array → dropped ([{ → [], ["" → [])
//! trailing commas, missing commas → tolerated
//! True/False/None, NaN/Infinity   → true/false/null, (NaN/Infinity become null)
//! unquoted key or value           → its text, trimmed
//! a quote not followed by , } ] : → part of the string ("x"y" → x"y)
//! text after the value            → ignored, unless another object/array follows:
//!                                   same keys → the later one; otherwise a list of all
//! ```

use serde_json::{Map, Number, Value};

/// Parse `text` the way `json_repair.loads(text)` does (for the shapes listed in the module
/// doc). Never fails: unparseable text gives `""`, as json_repair does.
pub fn repair_loads(text: &str) -> Value {
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        return v;
    }
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        i: 0,
    };
    let mut values: Vec<Value> = Vec::new();
    loop {
        p.skip_ws();
        // Like json_repair, look for the start of a JSON value, skipping prose.
        while p.i < p.s.len() && p.s[p.i] != b'{' && p.s[p.i] != b'[' {
            p.i += 1;
        }
        if p.i >= p.s.len() {
            break;
        }
        let v = p.value();
        match (values.last(), &v) {
            (Some(Value::Object(a)), Value::Object(b)) if a.keys().eq(b.keys()) => {
                values.pop();
                values.push(v);
            }
            _ => values.push(v),
        }
    }
    match values.len() {
        0 => Value::String(String::new()),
        1 => values.pop().unwrap_or(Value::Null),
        _ => Value::Array(values),
    }
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
}

fn is_empty_value(v: &Value) -> bool {
    match v {
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn at_end(&self) -> bool {
        self.i >= self.s.len()
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.peek() {
            if c.is_ascii_whitespace() {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    fn value(&mut self) -> Value {
        self.skip_ws();
        match self.peek() {
            None => Value::String(String::new()),
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') | Some(b'\'') => Value::String(self.string().0),
            Some(c) if c.is_ascii_digit() || c == b'-' || c == b'+' || c == b'.' => self.number(),
            Some(_) => self.bare_word(),
        }
    }

    fn object(&mut self) -> Value {
        self.i += 1; // `{`
        let mut map = Map::new();
        loop {
            self.skip_ws();
            while self.peek() == Some(b',') {
                self.i += 1;
                self.skip_ws();
            }
            match self.peek() {
                None => return Value::Object(map),
                Some(b'}') => {
                    self.i += 1;
                    return Value::Object(map);
                }
                Some(b']') => return Value::Object(map),
                _ => {}
            }
            let key = match self.peek() {
                Some(b'"') | Some(b'\'') => self.string().0,
                _ => self.unquoted(b":,}]").trim().to_string(),
            };
            self.skip_ws();
            if self.peek() != Some(b':') {
                // A key without a value.
                if map.is_empty() && !key.is_empty() {
                    if self.peek() == Some(b'}') {
                        self.i += 1;
                    }
                    return Value::Array(vec![Value::String(key)]);
                }
                if self.at_end() {
                    return Value::Object(map);
                }
                if self.peek() == Some(b'}') {
                    self.i += 1;
                    return Value::Object(map);
                }
                continue;
            }
            self.i += 1; // `:`
            self.skip_ws();
            let value = if self.at_end() {
                Value::String(String::new())
            } else {
                self.value()
            };
            map.insert(key, value);
        }
    }

    fn array(&mut self) -> Value {
        self.i += 1; // `[`
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            while self.peek() == Some(b',') {
                self.i += 1;
                self.skip_ws();
            }
            match self.peek() {
                None => return Value::Array(items),
                Some(b']') => {
                    self.i += 1;
                    return Value::Array(items);
                }
                Some(b'}') => return Value::Array(items),
                _ => {}
            }
            let start = self.i;
            let v = self.value();
            if self.at_end() && is_empty_value(&v) {
                return Value::Array(items);
            }
            if self.i == start {
                self.i += 1; // cannot happen for the value kinds above; never loop forever
            }
            items.push(v);
        }
    }

    /// A quoted string; returns its text and whether the closing quote was found.
    fn string(&mut self) -> (String, bool) {
        let quote = self.s[self.i];
        self.i += 1;
        let mut out = String::new();
        while let Some(c) = self.peek() {
            if c == quote {
                // A closing quote is one followed by a delimiter or the end.
                let mut j = self.i + 1;
                while j < self.s.len() && self.s[j].is_ascii_whitespace() {
                    j += 1;
                }
                if j >= self.s.len() || matches!(self.s[j], b',' | b'}' | b']' | b':') {
                    self.i += 1;
                    return (out, true);
                }
                out.push(c as char);
                self.i += 1;
            } else if c == b'\\' {
                match self.s.get(self.i + 1).copied() {
                    None => {
                        out.push('\\');
                        self.i += 1;
                    }
                    Some(e) => {
                        self.i += 2;
                        match e {
                            b'n' => out.push('\n'),
                            b't' => out.push('\t'),
                            b'r' => out.push('\r'),
                            b'b' => out.push('\u{8}'),
                            b'f' => out.push('\u{c}'),
                            b'u' => {
                                let hex = self
                                    .text
                                    .get(self.i..self.i + 4)
                                    .and_then(|h| u32::from_str_radix(h, 16).ok());
                                match hex.and_then(char::from_u32) {
                                    Some(ch) => {
                                        out.push(ch);
                                        self.i += 4;
                                    }
                                    None => out.push_str("\\u"),
                                }
                            }
                            other => {
                                // `\"`, `\\`, `\/` and anything else: the character itself.
                                let ch_len = utf8_len(other);
                                let start = self.i - 1;
                                out.push_str(self.text.get(start..start + ch_len).unwrap_or(""));
                                self.i = start + ch_len;
                            }
                        }
                    }
                }
            } else {
                let len = utf8_len(c);
                out.push_str(self.text.get(self.i..self.i + len).unwrap_or(""));
                self.i += len;
            }
        }
        (out, false)
    }

    /// Text up to (not including) one of `stops` or the end, respecting UTF-8.
    fn unquoted(&mut self, stops: &[u8]) -> &str {
        let start = self.i;
        while let Some(c) = self.peek() {
            if stops.contains(&c) {
                break;
            }
            self.i += utf8_len(c);
        }
        self.i = self.i.min(self.s.len());
        self.text.get(start..self.i).unwrap_or("")
    }

    fn number(&mut self) -> Value {
        let start = self.i;
        while let Some(c) = self.peek() {
            if c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E') {
                self.i += 1;
            } else {
                break;
            }
        }
        let raw = &self.text[start..self.i];
        // Something like `1.5.2` or `12abc`: json_repair keeps the text.
        if self
            .peek()
            .is_some_and(|c| !matches!(c, b',' | b'}' | b']') && !c.is_ascii_whitespace())
        {
            let rest = self.unquoted(b",}]");
            return Value::String(format!("{raw}{rest}").trim().to_string());
        }
        let trimmed = raw
            .trim_start_matches('+')
            .trim_end_matches(['e', 'E', '-', '+']);
        if trimmed.is_empty() || trimmed == "-" {
            return Value::String(String::new());
        }
        let is_float = trimmed.contains(['.', 'e', 'E']);
        if is_float {
            let f: Option<f64> = trimmed
                .parse()
                .ok()
                .or_else(|| format!("{trimmed}0").parse().ok());
            match f.and_then(Number::from_f64) {
                Some(n) => Value::Number(n),
                None => Value::String(raw.to_string()),
            }
        } else {
            match trimmed.parse::<i64>() {
                Ok(v) => Value::Number(v.into()),
                Err(_) => trimmed
                    .parse::<f64>()
                    .ok()
                    .and_then(Number::from_f64)
                    .map_or_else(|| Value::String(raw.into()), Value::Number),
            }
        }
    }

    fn bare_word(&mut self) -> Value {
        let word = self.unquoted(b",}]").trim().to_string();
        match word.as_str() {
            "true" | "True" => Value::Bool(true),
            "false" | "False" => Value::Bool(false),
            "null" | "None" | "NaN" | "Infinity" | "-Infinity" => Value::Null,
            _ => Value::String(word),
        }
    }
}

fn utf8_len(first: u8) -> usize {
    match first {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_repair_reference_cases() {
        // Each expected value is json_repair.loads(text) (json_repair 0.64.5).
        let cases = [
            (
                r#"{"total":6,"pred_score":3.5,"steps":[{"step_score":4,"err"#,
                json!({"total": 6, "pred_score": 3.5, "steps": [{"step_score": 4}]}),
            ),
            (
                r#"{"total":4,"steps":[{"step_score":0},{"ste"#,
                json!({"total": 4, "steps": [{"step_score": 0}, ["ste"]]}),
            ),
            (
                r#"{"total":6,"pred_score":3,"steps":"#,
                json!({"total": 6, "pred_score": 3, "steps": ""}),
            ),
            (r#"{"total":6,"steps":[{"#, json!({"total": 6, "steps": []})),
            (
                r#"{"total":6,"steps":["答非"#,
                json!({"total": 6, "steps": ["答非"]}),
            ),
            (
                r#"{"total":6,"pred_score":3."#,
                json!({"total": 6, "pred_score": 3.0}),
            ),
            (r#"{"a":1e"#, json!({"a": 1})),
            (r#"{"a":tr"#, json!({"a": "tr"})),
            (r#"{"a":[{},"#, json!({"a": [{}]})),
            (r#"{"a":[{}"#, json!({"a": []})),
            (r#"{"a":1}xyz"#, json!({"a": 1})),
            (r#"{"a":1}{"b":2}"#, json!([{"a": 1}, {"b": 2}])),
            (r#"{"total":5}{"total":6}"#, json!({"total": 6})),
            (r#"{"a":[1,2,],"b":2}"#, json!({"a": [1, 2], "b": 2})),
            (r#"{"a":1,"b"}"#, json!({"a": 1})),
            (r#"{"a":True,"b":None}"#, json!({"a": true, "b": null})),
            (r#"{"a":"x"y","b":1}"#, json!({"a": "x\"y", "b": 1})),
            (r#"{"total"#, json!(["total"])),
            ("{\"", json!({})),
        ];
        for (text, expected) in cases {
            assert_eq!(repair_loads(text), expected, "{text}");
        }
    }
}
