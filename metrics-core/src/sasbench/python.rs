//! The few Python built-ins the official scripts apply to JSON values, with their semantics.
//!
//! ```text
//! int(x)   bool → 0/1; int → itself; float → truncated toward zero (inf/nan raise);
//!          str → optional whitespace, sign, decimal digits with single `_` between digits
//!          ("2.5", "3.0", "" raise); None, list, dict raise
//! str(x)   str → itself; other values → repr: True/False/None, ints, floats as Python prints
//!          them (1.0, 1e-05, 1e+16), lists/dicts with `'`-quoted strings and `, `/`: `
//! ```

use serde_json::{Number, Value};

use super::lite::Lite;

/// Python `int(value)` for a decoded JSON value; `Err` carries Python's error message.
pub fn py_int(value: &Value) -> Result<i64, String> {
    match value {
        Value::Bool(b) => Ok(i64::from(*b)),
        Value::Number(n) => number_to_int(n),
        Value::String(s) => str_to_int(s),
        Value::Null => Err(
            "int() argument must be a string, a bytes-like object or a real number, not 'NoneType'"
                .into(),
        ),
        Value::Array(_) => Err(
            "int() argument must be a string, a bytes-like object or a real number, not 'list'"
                .into(),
        ),
        Value::Object(_) => Err(
            "int() argument must be a string, a bytes-like object or a real number, not 'dict'"
                .into(),
        ),
    }
}

/// [`py_int`] of a [`Lite`] value (the same rules and messages).
pub fn py_int_lite(value: &Lite) -> Result<i64, String> {
    match value {
        Lite::Bool(b) => Ok(i64::from(*b)),
        Lite::Number(n) => number_to_int(n),
        Lite::Str(s) => str_to_int(s),
        Lite::Null | Lite::Array(_) | Lite::Object(_) => py_int(&value.to_value()),
    }
}

/// [`py_str`] of a [`Lite`] value.
pub fn py_str_lite(value: &Lite) -> String {
    match value {
        Lite::Str(s) => s.to_string(),
        other => py_repr(&other.to_value()),
    }
}

/// Python `int()` of a JSON number.
pub fn number_to_int(n: &Number) -> Result<i64, String> {
    if let Some(i) = n.as_i64() {
        Ok(i)
    } else if let Some(f) = n.as_f64() {
        float_to_int(f)
    } else {
        Err(format!("int() of {n} is out of range"))
    }
}

fn float_to_int(f: f64) -> Result<i64, String> {
    if f.is_nan() {
        return Err("cannot convert float NaN to integer".into());
    }
    if f.is_infinite() {
        return Err("cannot convert float infinity to integer".into());
    }
    let t = f.trunc();
    if t.abs() >= 9.2e18 {
        return Err(format!("int() of {f} is out of range"));
    }
    Ok(t as i64)
}

fn python_whitespace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python `int(s)` for a string (base 10).
pub fn str_to_int(s: &str) -> Result<i64, String> {
    let invalid = || format!("invalid literal for int() with base 10: {}", py_repr_str(s));
    let t = s.trim_matches(python_whitespace);
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
    let mut value: i64 = 0;
    for c in digits.chars() {
        if c == '_' {
            continue;
        }
        let d = unicode_decimal(c).ok_or_else(invalid)?;
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(i64::from(d)))
            .ok_or_else(|| format!("int() of {} is out of range", py_repr_str(s)))?;
    }
    Ok(if negative { -value } else { value })
}

/// Decimal digits Python's `int()` accepts: ASCII, full-width and the other common Nd blocks.
fn unicode_decimal(c: char) -> Option<u32> {
    const ZEROS: [u32; 8] = [0x30, 0x660, 0x6F0, 0x966, 0x9E6, 0xE50, 0xFF10, 0x1D7CE];
    let code = c as u32;
    ZEROS
        .iter()
        .find(|&&z| (z..z + 10).contains(&code))
        .map(|&z| code - z)
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

fn write_repr(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(n) => {
            if n.is_f64() {
                out.push_str(&py_float_repr(n.as_f64().unwrap_or(f64::NAN)));
            } else {
                out.push_str(&n.to_string());
            }
        }
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

/// Python `repr(str)`: single quotes unless the text has `'` and no `"`.
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
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn int_follows_python() {
        // Python: int(2.9) == 2, int(-2.9) == -2, int(True) == 1, int("3") == 3,
        // int(" 3\n") == 3, int("1_0") == 10, int("３") == 3
        assert_eq!(py_int(&json!(2.9)), Ok(2));
        assert_eq!(py_int(&json!(-2.9)), Ok(-2));
        assert_eq!(py_int(&json!(true)), Ok(1));
        assert_eq!(py_int(&json!("3")), Ok(3));
        assert_eq!(py_int(&json!(" 3\n")), Ok(3));
        assert_eq!(py_int(&json!("1_0")), Ok(10));
        assert_eq!(py_int(&json!("３")), Ok(3));
        assert_eq!(py_int(&json!("-4")), Ok(-4));
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
            assert!(py_int(&bad).is_err(), "{bad}");
        }
        assert_eq!(
            py_int(&json!("2.5")).unwrap_err(),
            "invalid literal for int() with base 10: '2.5'"
        );
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
    }
}
