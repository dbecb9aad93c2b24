//! The page's view state in the URL query string, so a reload or a shared link shows the same view.
//!
//! ```text
//! ?tab=samples&subset=7_Math_ShortAns&error=计算错误&min=2&q=a%20b&variant=corrected&sample=12
//! ```
//! Values are percent-encoded UTF-8 (RFC 3986 unreserved characters kept; `+` is read as a
//! space). Default values are left out. Parsing never fails: unknown keys and unreadable values
//! are ignored and keep their defaults.

use serde::{Deserialize, Serialize};

use crate::drill::Filter;
use crate::session::Variant;

/// The page's tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tab {
    #[default]
    Table,
    Charts,
    Samples,
    Compare,
    Class,
}

impl Tab {
    pub fn all() -> &'static [Tab] {
        &[
            Tab::Table,
            Tab::Charts,
            Tab::Samples,
            Tab::Compare,
            Tab::Class,
        ]
    }

    pub fn key(self) -> &'static str {
        match self {
            Self::Table => "table",
            Self::Charts => "charts",
            Self::Samples => "samples",
            Self::Compare => "compare",
            Self::Class => "class",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::Table => "Table",
            Self::Charts => "Charts",
            Self::Samples => "Samples",
            Self::Compare => "Compare",
            Self::Class => "Class",
        }
    }

    pub fn from_key(key: &str) -> Option<Self> {
        Self::all().iter().copied().find(|t| t.key() == key)
    }
}

/// Everything the URL keeps.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ViewState {
    pub tab: Tab,
    pub subset: Option<String>,
    pub error_type: Option<String>,
    pub min_disagreement: Option<f64>,
    pub query: String,
    pub variant: Variant,
    /// The selected sample (index into the report's samples).
    pub sample: Option<usize>,
    /// The interface language the user chose (`en`, `zh-CN`); the browser's when absent.
    pub lang: Option<String>,
}

impl ViewState {
    /// The drill-down filter of this state.
    pub fn filter(&self) -> Filter {
        Filter {
            subset: self.subset.clone(),
            error_type: self.error_type.clone(),
            min_disagreement: self.min_disagreement,
            query: self.query.clone(),
        }
    }

    /// The query string without the leading `?` (empty for the default state).
    pub fn to_query(&self) -> String {
        let mut parts: Vec<(&str, String)> = Vec::new();
        if self.tab != Tab::default() {
            parts.push(("tab", self.tab.key().into()));
        }
        if let Some(s) = &self.subset {
            parts.push(("subset", s.clone()));
        }
        if let Some(e) = &self.error_type {
            parts.push(("error", e.clone()));
        }
        if let Some(m) = self.min_disagreement.filter(|m| m.is_finite()) {
            parts.push(("min", format!("{m}")));
        }
        if !self.query.is_empty() {
            parts.push(("q", self.query.clone()));
        }
        if self.variant != Variant::default() {
            parts.push(("variant", self.variant.key().into()));
        }
        if let Some(s) = self.sample {
            parts.push(("sample", s.to_string()));
        }
        if let Some(l) = &self.lang {
            parts.push(("lang", l.clone()));
        }
        parts
            .iter()
            .map(|(k, v)| format!("{k}={}", encode(v)))
            .collect::<Vec<_>>()
            .join("&")
    }

    /// Read a query string (with or without the leading `?`).
    pub fn from_query(query: &str) -> Self {
        let mut state = Self::default();
        let query = query.strip_prefix('?').unwrap_or(query);
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, raw) = pair.split_once('=').unwrap_or((pair, ""));
            let value = decode(raw);
            match key {
                "tab" => state.tab = Tab::from_key(&value).unwrap_or_default(),
                "subset" if !value.is_empty() => state.subset = Some(value),
                "error" if !value.is_empty() => state.error_type = Some(value),
                "min" => {
                    state.min_disagreement = value.parse().ok().filter(|m: &f64| m.is_finite())
                }
                "q" => state.query = value,
                "variant" => state.variant = Variant::from_key(&value).unwrap_or_default(),
                "sample" => state.sample = value.parse().ok(),
                "lang" if !value.is_empty() => state.lang = Some(value),
                _ => {}
            }
        }
        state
    }
}

/// Percent-encode everything but RFC 3986's unreserved characters.
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Percent-decode (`+` is a space); malformed escapes are kept as they are, and invalid UTF-8
/// becomes U+FFFD.
pub fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let state = ViewState {
            tab: Tab::Samples,
            subset: Some("7_Math_ShortAns".into()),
            error_type: Some("计算错误".into()),
            min_disagreement: Some(2.5),
            query: "a&b = c+d %".into(),
            variant: Variant::Corrected,
            sample: Some(12),
            lang: Some("zh-CN".into()),
        };
        let query = state.to_query();
        assert!(!query.contains(' ') && !query.contains('计'));
        assert_eq!(ViewState::from_query(&query), state);
        assert_eq!(ViewState::from_query(&format!("?{query}")), state);
        assert_eq!(ViewState::default().to_query(), "");
        assert_eq!(ViewState::from_query(""), ViewState::default());
    }

    #[test]
    fn bad_values_keep_defaults() {
        let s = ViewState::from_query("tab=nope&min=abc&sample=-1&variant=x&zzz=1&q=a+b%2&subset=");
        assert_eq!(s.tab, Tab::Table);
        assert_eq!(s.min_disagreement, None);
        assert_eq!(s.sample, None);
        assert_eq!(s.variant, Variant::Official);
        assert_eq!(s.query, "a b%2");
        assert_eq!(s.subset, None);
        assert_eq!(decode("%E8%AE%A1"), "计");
        assert_eq!(decode("%zz%"), "%zz%");
    }
}
