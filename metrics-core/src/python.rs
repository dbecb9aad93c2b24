//! The Python built-ins the official scripts apply to text and JSON values, with Python's
//! semantics (CPython 3.11, Unicode data from `unicode-general-category`): the one home of these
//! helpers for every benchmark.
//!
//! ```text
//! c.isspace()   Unicode White_Space plus the information separators U+001C–U+001F
//! c.isalpha()   general category L*          c.isalnum()  L* or N*
//! c.isdecimal() Nd                           c.isdigit()  Nd plus superscripts, circled … digits
//! s.strip()     both ends, isspace characters
//! bool(x)       None, False, 0, 0.0, "", [], {} are false
//! int(x)        bool → 0/1; int → itself; float → truncated toward zero (inf/nan raise);
//!               str → optional whitespace, sign, decimal digits (any script) with single `_`
//!               between digits, at most 4300 digits ("2.5", "3.0", "" raise);
//!               None, list, dict raise
//! str(x)        str → itself; other values → repr(x)
//! repr(x)       True/False/None, ints, floats as Python prints them (1.0, 1e-05, 1e+16),
//!               strings quoted with ' (or " when they hold ' and no "), non-printable
//!               characters escaped (\x85, \u200b, \U000e0001); lists/dicts with ", " and ": "
//! json.dumps(x, ensure_ascii=False)   NaN, Infinity, floats as repr, ", " and ": "
//! ```
//!
//! [`PyValue`] is a value as Python's `json.loads` / `json_repair.loads` builds it: unlike
//! `serde_json::Value` it keeps integers of any size, NaN and infinities.

use indexmap::IndexMap;
use serde_json::{Number, Value};
use unicode_general_category::{GeneralCategory as G, get_general_category};

/// Python's `str.isspace`.
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.isalpha`: a letter (general category L*).
pub fn is_alpha(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    matches!(
        get_general_category(c),
        G::UppercaseLetter
            | G::LowercaseLetter
            | G::TitlecaseLetter
            | G::ModifierLetter
            | G::OtherLetter
    )
}

/// Python's `str.isdecimal`: general category Nd.
pub fn is_decimal(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    get_general_category(c) == G::DecimalNumber
}

/// Python's `str.isdigit`: Nd plus the characters of Numeric_Type=Digit (superscripts,
/// subscripts, circled and parenthesised digits, …).
pub fn is_digit(c: char) -> bool {
    // Numeric_Type=Digit outside Nd (Python 3.11, Unicode 14).
    const DIGIT: [(u32, u32); 20] = [
        (0xB2, 0xB3),
        (0xB9, 0xB9),
        (0x1369, 0x1371),
        (0x19DA, 0x19DA),
        (0x2070, 0x2070),
        (0x2074, 0x2079),
        (0x2080, 0x2089),
        (0x2460, 0x2468),
        (0x2474, 0x247C),
        (0x2488, 0x2490),
        (0x24EA, 0x24EA),
        (0x24F5, 0x24FD),
        (0x24FF, 0x24FF),
        (0x2776, 0x277E),
        (0x2780, 0x2788),
        (0x278A, 0x2792),
        (0x10A40, 0x10A43),
        (0x10E60, 0x10E68),
        (0x11052, 0x1105A),
        (0x1F100, 0x1F10A),
    ];
    is_decimal(c) || DIGIT.iter().any(|&(a, b)| (a..=b).contains(&(c as u32)))
}

/// Python's `str.isalnum`: a letter or a number (general category L* or N*).
pub fn is_alnum(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    is_alpha(c)
        || matches!(
            get_general_category(c),
            G::DecimalNumber | G::LetterNumber | G::OtherNumber
        )
}

/// Python's `str.strip()` with no argument.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// Python's `\w` in a `str` pattern: alphanumeric or `_`.
pub fn is_word(c: char) -> bool {
    is_alnum(c) || c == '_'
}

/// Python truthiness of a JSON value.
pub fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|x| x != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// Why Python's `int(x)` gave no `i64`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntError {
    /// Python's message, or ours when Python succeeds with a value beyond 64 bits.
    pub message: String,
    /// Python succeeds but the integer does not fit in an `i64`: not an official error.
    pub out_of_range: bool,
}

impl IntError {
    fn raises(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            out_of_range: false,
        }
    }

    fn out_of_range(shown: &str) -> Self {
        Self {
            message: format!("int({shown}) is beyond the 64-bit integers scorebench handles"),
            out_of_range: true,
        }
    }
}

impl std::fmt::Display for IntError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

fn type_error(type_name: &str) -> IntError {
    IntError::raises(format!(
        "int() argument must be a string, a bytes-like object or a real number, not '{type_name}'"
    ))
}

/// Python `int(value)` for a decoded JSON value.
pub fn py_int(value: &Value) -> Result<i64, IntError> {
    match value {
        Value::Bool(b) => Ok(i64::from(*b)),
        Value::Number(n) => number_to_int(n),
        Value::String(s) => str_to_int(s),
        Value::Null => Err(type_error("NoneType")),
        Value::Array(_) => Err(type_error("list")),
        Value::Object(_) => Err(type_error("dict")),
    }
}

/// Python `int()` of a JSON number.
pub fn number_to_int(n: &Number) -> Result<i64, IntError> {
    if let Some(i) = n.as_i64() {
        Ok(i)
    } else if let Some(u) = n.as_u64() {
        Err(IntError::out_of_range(&u.to_string()))
    } else {
        float_to_int(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// Python `int(float)`.
pub fn float_to_int(f: f64) -> Result<i64, IntError> {
    if f.is_nan() {
        return Err(IntError::raises("cannot convert float NaN to integer"));
    }
    if f.is_infinite() {
        return Err(IntError::raises("cannot convert float infinity to integer"));
    }
    let t = f.trunc();
    // i64::MIN is -2^63 exactly; every f64 below 2^63 in magnitude converts exactly.
    const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
    if !(-TWO_POW_63..TWO_POW_63).contains(&t) {
        return Err(IntError::out_of_range(&py_float_repr(f)));
    }
    Ok(t as i64)
}

/// The value of a decimal digit of any script (general category Nd comes in runs of ten that
/// start at zero).
fn decimal_value(c: char) -> Option<u32> {
    if c.is_ascii_digit() {
        return Some(c as u32 - '0' as u32);
    }
    if !is_decimal(c) {
        return None;
    }
    let mut start = c as u32;
    while let Some(prev) = char::from_u32(start - 1).filter(|p| is_decimal(*p)) {
        start = prev as u32;
    }
    Some((c as u32 - start) % 10)
}

/// Python refuses to convert strings of more than this many digits (`sys.int_info`).
const MAX_INT_DIGITS: usize = 4300;

/// Python `int(s)` for a string (base 10).
pub fn str_to_int(s: &str) -> Result<i64, IntError> {
    let invalid = || {
        IntError::raises(format!(
            "invalid literal for int() with base 10: {}",
            py_repr_str(s)
        ))
    };
    let t = strip(s);
    let (negative, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return Err(invalid());
    }
    let mut value: i128 = 0;
    let mut count = 0usize;
    let mut overflow = false;
    for c in digits.chars() {
        if c == '_' {
            continue;
        }
        let d = decimal_value(c).ok_or_else(invalid)?;
        count += 1;
        if !overflow {
            value = value * 10 + i128::from(d);
            overflow = value > i128::from(i64::MAX) + 1;
        }
    }
    if count > MAX_INT_DIGITS {
        return Err(IntError::raises(format!(
            "Exceeds the limit ({MAX_INT_DIGITS} digits) for integer string conversion: value has {count} digits"
        )));
    }
    let value = if negative { -value } else { value };
    if overflow {
        return Err(IntError::out_of_range(&py_repr_str(s)));
    }
    i64::try_from(value).map_err(|_| IntError::out_of_range(&py_repr_str(s)))
}

/// Python `str(value)` of a decoded JSON value.
pub fn py_str(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => py_repr(other),
    }
}

/// Python `repr(value)` of a decoded JSON value.
pub fn py_repr(value: &Value) -> String {
    let mut out = String::new();
    write_repr(value, &mut out);
    out
}

fn write_number(n: &Number, out: &mut String) {
    match (n.as_i64(), n.as_u64(), n.as_f64()) {
        (Some(i), _, _) => out.push_str(&i.to_string()),
        (_, Some(u), _) => out.push_str(&u.to_string()),
        (_, _, Some(f)) => out.push_str(&py_float_repr(f)),
        _ => out.push_str(&n.to_string()),
    }
}

fn write_repr(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => out.push_str(&py_repr_str(s)),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&py_repr_str(k));
                out.push_str(": ");
                write_repr(v, out);
            }
            out.push('}');
        }
    }
}

/// Python `repr(float)`: shortest round-trip digits, scientific below 1e-4 and from 1e16.
pub fn py_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let abs = f.abs();
    if abs != 0.0 && !(1e-4..1e16).contains(&abs) {
        // Rust `{:e}` gives the shortest digits as `1.5e-5`; Python writes `1.5e-05`.
        let s = format!("{f:e}");
        let (mantissa, exponent) = s.split_once('e').unwrap_or((&s, "0"));
        let (sign, digits) = match exponent.strip_prefix('-') {
            Some(d) => ('-', d),
            None => ('+', exponent),
        };
        return format!("{mantissa}e{sign}{digits:0>2}");
    }
    let s = format!("{f}");
    if s.contains('.') { s } else { format!("{s}.0") }
}

/// Python's `str.isprintable` for one character.
fn is_printable(c: char) -> bool {
    if c.is_ascii() {
        return (' '..='~').contains(&c);
    }
    !matches!(
        get_general_category(c),
        G::Control
            | G::Format
            | G::Surrogate
            | G::PrivateUse
            | G::Unassigned
            | G::LineSeparator
            | G::ParagraphSeparator
            | G::SpaceSeparator
    )
}

/// Python `repr(str)`: single quotes unless the text has `'` and no `"`; non-printable
/// characters escaped.
pub fn py_repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if is_printable(c) => out.push(c),
            c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push(quote);
    out
}

/// `json.dumps(s, ensure_ascii=False)` of a string.
pub fn json_dumps_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A value as Python's `json.loads` and `json_repair.loads` build it.
#[derive(Debug, Clone, PartialEq)]
pub enum PyValue {
    None,
    Bool(bool),
    Int(i64),
    /// An integer beyond `i64`, as Python prints it (`-123…`).
    BigInt(String),
    Float(f64),
    Str(String),
    List(Vec<PyValue>),
    /// A dict: assigning an existing key keeps its position (IndexMap::insert does the same).
    Dict(IndexMap<String, PyValue>),
}

impl PyValue {
    /// An integer from its decimal text (`[-]digits`, leading zeros allowed), as Python's
    /// `int(text)`; `None` beyond Python's 4300-digit conversion limit.
    pub fn int_from_digits(text: &str) -> Option<Self> {
        let (negative, digits) = match text.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, text),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        if digits.len() > MAX_INT_DIGITS {
            return None;
        }
        if let Ok(v) = text.parse::<i64>() {
            return Some(Self::Int(v));
        }
        let trimmed = digits.trim_start_matches('0');
        if trimmed.is_empty() {
            return Some(Self::Int(0));
        }
        match format!("{}{trimmed}", if negative { "-" } else { "" }).parse::<i64>() {
            Ok(v) => Some(Self::Int(v)),
            Err(_) => Some(Self::BigInt(format!(
                "{}{trimmed}",
                if negative { "-" } else { "" }
            ))),
        }
    }

    /// Python truthiness.
    pub fn truthy(&self) -> bool {
        match self {
            Self::None => false,
            Self::Bool(b) => *b,
            Self::Int(i) => *i != 0,
            Self::BigInt(_) => true,
            Self::Float(f) => *f != 0.0,
            Self::Str(s) => !s.is_empty(),
            Self::List(l) => !l.is_empty(),
            Self::Dict(d) => !d.is_empty(),
        }
    }

    /// The Python type name (`type(x).__name__`).
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::None => "NoneType",
            Self::Bool(_) => "bool",
            Self::Int(_) | Self::BigInt(_) => "int",
            Self::Float(_) => "float",
            Self::Str(_) => "str",
            Self::List(_) => "list",
            Self::Dict(_) => "dict",
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Python `int(self)`.
    pub fn py_int(&self) -> Result<i64, IntError> {
        match self {
            Self::Bool(b) => Ok(i64::from(*b)),
            Self::Int(i) => Ok(*i),
            Self::BigInt(digits) => Err(IntError::out_of_range(digits)),
            Self::Float(f) => float_to_int(*f),
            Self::Str(s) => str_to_int(s),
            other => Err(type_error(other.type_name())),
        }
    }

    /// Python `str(self)`.
    pub fn py_str(&self) -> String {
        match self {
            Self::Str(s) => s.clone(),
            other => other.py_repr(),
        }
    }

    /// Python `repr(self)`.
    pub fn py_repr(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, Format::Repr);
        out
    }

    /// `json.dumps(self, ensure_ascii=False)`.
    pub fn json_dumps(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, Format::Json);
        out
    }

    fn write(&self, out: &mut String, format: Format) {
        let json = format == Format::Json;
        match self {
            Self::None => out.push_str(if json { "null" } else { "None" }),
            Self::Bool(b) => out.push_str(match (json, b) {
                (true, true) => "true",
                (true, false) => "false",
                (false, true) => "True",
                (false, false) => "False",
            }),
            Self::Int(i) => out.push_str(&i.to_string()),
            Self::BigInt(d) => out.push_str(d),
            Self::Float(f) if json && !f.is_finite() => out.push_str(if f.is_nan() {
                "NaN"
            } else if *f > 0.0 {
                "Infinity"
            } else {
                "-Infinity"
            }),
            Self::Float(f) => out.push_str(&py_float_repr(*f)),
            Self::Str(s) if json => json_dumps_str(s, out),
            Self::Str(s) => out.push_str(&py_repr_str(s)),
            Self::List(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write(out, format);
                }
                out.push(']');
            }
            Self::Dict(map) => {
                out.push('{');
                for (i, (k, v)) in map.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    if json {
                        json_dumps_str(k, out);
                    } else {
                        out.push_str(&py_repr_str(k));
                    }
                    out.push_str(": ");
                    v.write(out, format);
                }
                out.push('}');
            }
        }
    }

    /// The nearest `serde_json::Value`: NaN and infinities become `null`, integers beyond 64
    /// bits the nearest float (serde_json holds neither).
    pub fn to_value(&self) -> Value {
        match self {
            Self::None => Value::Null,
            Self::Bool(b) => Value::Bool(*b),
            Self::Int(i) => Value::from(*i),
            Self::BigInt(d) => d
                .parse::<f64>()
                .ok()
                .and_then(Number::from_f64)
                .map_or(Value::Null, Value::Number),
            Self::Float(f) => Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Self::Str(s) => Value::String(s.clone()),
            Self::List(items) => Value::Array(items.iter().map(Self::to_value).collect()),
            Self::Dict(map) => {
                Value::Object(map.iter().map(|(k, v)| (k.clone(), v.to_value())).collect())
            }
        }
    }

    /// The same value from a `serde_json::Value`.
    pub fn from_value(value: &Value) -> Self {
        match value {
            Value::Null => Self::None,
            Value::Bool(b) => Self::Bool(*b),
            Value::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => Self::Int(i),
                (_, Some(u)) => Self::BigInt(u.to_string()),
                _ => Self::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => Self::Str(s.clone()),
            Value::Array(items) => Self::List(items.iter().map(Self::from_value).collect()),
            Value::Object(map) => Self::Dict(
                map.iter()
                    .map(|(k, v)| (k.clone(), Self::from_value(v)))
                    .collect(),
            ),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Repr,
    Json,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn int_follows_python() {
        // Python: int(2.9) == 2, int(-2.9) == -2, int(True) == 1, int("3") == 3,
        // int(" 3\n") == 3, int("1_0") == 10, int("３") == 3, int(" \u0663\u07c1 ") == 31
        assert_eq!(py_int(&json!(2.9)), Ok(2));
        assert_eq!(py_int(&json!(-2.9)), Ok(-2));
        assert_eq!(py_int(&json!(true)), Ok(1));
        assert_eq!(py_int(&json!("3")), Ok(3));
        assert_eq!(py_int(&json!(" 3\n")), Ok(3));
        assert_eq!(py_int(&json!("1_0")), Ok(10));
        assert_eq!(py_int(&json!("３")), Ok(3));
        assert_eq!(py_int(&json!(" \u{0663}\u{07c1} ")), Ok(31));
        assert_eq!(py_int(&json!("-4")), Ok(-4));
        assert_eq!(py_int(&json!("-9223372036854775808")), Ok(i64::MIN));
        // Python: int("2.5"), int("3.0"), int("abc"), int(""), int(None), int("1__0") raise
        for bad in [
            json!("2.5"),
            json!("3.0"),
            json!("abc"),
            json!(""),
            json!(null),
            json!("1__0"),
            json!([1]),
        ] {
            let e = py_int(&bad).unwrap_err();
            assert!(!e.out_of_range, "{bad}");
        }
        assert_eq!(
            py_int(&json!("2.5")).unwrap_err().message,
            "invalid literal for int() with base 10: '2.5'"
        );
        // Python: int(1e20) == 100000000000000000000, int("9223372036854775808") == 2**63:
        // values Python has and an i64 has not.
        for big in [json!(1e20), json!("9223372036854775808"), json!(u64::MAX)] {
            assert!(py_int(&big).unwrap_err().out_of_range, "{big}");
        }
        // Python: int("1" * 4301) raises ValueError (the digit limit).
        assert!(!str_to_int(&"1".repeat(4301)).unwrap_err().out_of_range);
    }

    #[test]
    fn str_follows_python() {
        // Python: str(False) == 'False'; str(None) == 'None'; str(1.0) == '1.0';
        // str(1e-05) == '1e-05'; str(1e16) == '1e+16'; str(0.1) == '0.1'
        assert_eq!(py_str(&json!(false)), "False");
        assert_eq!(py_str(&json!(null)), "None");
        assert_eq!(py_str(&json!(1.0)), "1.0");
        assert_eq!(py_str(&json!(0.00001)), "1e-05");
        assert_eq!(py_str(&json!(1e16)), "1e+16");
        assert_eq!(py_str(&json!(0.1)), "0.1");
        assert_eq!(py_str(&json!("x")), "x");
        // Python: str({"total": 5, "a": [1, "b", None], "c": "it's"})
        //   == '{\'total\': 5, \'a\': [1, \'b\', None], \'c\': "it\'s"}'
        let v: Value =
            serde_json::from_str(r#"{"total": 5, "a": [1, "b", null], "c": "it's"}"#).unwrap();
        assert_eq!(
            py_str(&v),
            r#"{'total': 5, 'a': [1, 'b', None], 'c': "it's"}"#
        );
        // Python: repr('a\u200b\x85\xa0\u2028\U000e0001\ue000 ')
        //   == "'a\\u200b\\x85\\xa0\\u2028\\U000e0001\\ue000 '"
        assert_eq!(
            py_repr_str("a\u{200b}\u{85}\u{a0}\u{2028}\u{e0001}\u{e000} "),
            r"'a\u200b\x85\xa0\u2028\U000e0001\ue000 '"
        );
    }

    #[test]
    fn character_classes_follow_python() {
        // Python: "答".isalpha(), "²".isdigit(), not "²".isdecimal(), "½".isalnum(),
        // not "ा".isalnum() (U+093E, a combining mark), not "Ⅷ".isalpha()
        assert!(is_alpha('答') && is_digit('²') && !is_decimal('²') && is_alnum('½'));
        assert!(!is_alnum('\u{93e}') && !is_alpha('Ⅷ') && is_alnum('Ⅷ'));
        assert!(is_space('\u{1c}') && is_space('\u{3000}') && !is_space('\u{200b}'));
        assert_eq!(strip("\u{1c}\u{3000} YES\u{85}\u{1f}"), "YES");
    }

    #[test]
    fn json_dumps_follows_python() {
        // Python: json.dumps({"a": [1, 2.0, float("nan"), None, True, "x\"\n\x01é"]},
        //                    ensure_ascii=False)
        let v = PyValue::Dict(
            [(
                "a".to_string(),
                PyValue::List(vec![
                    PyValue::Int(1),
                    PyValue::Float(2.0),
                    PyValue::Float(f64::NAN),
                    PyValue::None,
                    PyValue::Bool(true),
                    PyValue::Str("x\"\n\u{1}é".into()),
                ]),
            )]
            .into_iter()
            .collect(),
        );
        assert_eq!(
            v.json_dumps(),
            r#"{"a": [1, 2.0, NaN, null, true, "x\"\n\u0001é"]}"#
        );
    }
}
