//! What a leaderboard request may hold and how it is checked: files, texts, slugs, meta keys,
//! the request bodies, the phase settings of a competition.

use std::collections::BTreeMap;

use base64::Engine as _;
use serde::Deserialize;
use serde_json::Value;

use crate::leaderboard::competition::Competition;
use crate::leaderboard::dates::parse_iso8601;
use crate::leaderboard::error::LbError;
use crate::leaderboard::scoring::Upload;

/// Limits on what a request may hold.
pub const MAX_FILES: usize = 64;
pub const MAX_TEXT_CHARS: usize = 2_000;
pub const MAX_DESCRIPTION_CHARS: usize = 20_000;
pub const MAX_META_KEYS: usize = 32;

/// A file in a request: its name and content, base64 (standard alphabet, decoded as it is
/// parsed) or UTF-8 text.
pub type FileIn = workbench::wire::FileIn<Base64Bytes>;

/// Base64 content decoded while the request is parsed: the JSON string (borrowed from the body
/// when it has no escapes) becomes the file's bytes with no copy of the text in between, so a
/// submission costs its body and its files, not also their base64. A decoding error waits to
/// be reported with the file's name.
#[derive(Debug, Clone)]
pub struct Base64Bytes(pub Result<Vec<u8>, String>);

impl<'de> Deserialize<'de> for Base64Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Base64Bytes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a base64 string")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Base64Bytes, E> {
                Ok(Base64Bytes(
                    base64::engine::general_purpose::STANDARD
                        .decode(text.as_bytes())
                        .map_err(|e| e.to_string()),
                ))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

pub(crate) fn uploads(files: Vec<FileIn>) -> Result<Vec<Upload>, LbError> {
    if files.len() > MAX_FILES {
        return Err(LbError::BadRequest(format!(
            "{} files, at most {MAX_FILES}",
            files.len()
        )));
    }
    files
        .into_iter()
        .map(|f| {
            let bytes = match (f.base64, f.text) {
                (Some(Base64Bytes(decoded)), None) => decoded
                    .map_err(|e| LbError::BadRequest(format!("{}: bad base64: {e}", f.name)))?,
                (None, Some(t)) => t.into_bytes(),
                _ => {
                    return Err(LbError::BadRequest(format!(
                        "{}: give the content as `base64` or `text`",
                        f.name
                    )));
                }
            };
            Ok(Upload {
                name: f.name,
                bytes,
            })
        })
        .collect()
}

pub(crate) fn check_text(
    what: &str,
    value: &str,
    max: usize,
    required: bool,
) -> Result<(), LbError> {
    if required && value.trim().is_empty() {
        return Err(LbError::BadRequest(format!("{what} is empty")));
    }
    if value.chars().count() > max {
        return Err(LbError::BadRequest(format!(
            "{what} is longer than {max} characters"
        )));
    }
    if value
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(LbError::BadRequest(format!(
            "{what} holds control characters"
        )));
    }
    Ok(())
}

/// Board slugs: 1–64 of `a-z 0-9 -`, not starting with `-`.
pub fn check_slug(slug: &str) -> Result<(), LbError> {
    let ok = !slug.is_empty()
        && slug.len() <= 64
        && !slug.starts_with('-')
        && slug
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(LbError::BadRequest(format!(
            "slug `{slug}`: use 1 to 64 of a-z, 0-9 and -, not starting with -"
        )))
    }
}

/// The known metadata keys (aliases on the right are renamed).
pub const META_KEYS: &[&str] = &[
    "organisation",
    "parameters",
    "open_weights",
    "link",
    "date",
    "notes",
];

pub(crate) fn canonical_meta_key(key: &str) -> String {
    match key.trim().to_ascii_lowercase().replace('-', "_").as_str() {
        "org" | "organization" | "organisation" => "organisation".into(),
        "params" | "parameters" | "size" => "parameters".into(),
        "open" | "open_weights" | "weights" => "open_weights".into(),
        "url" | "link" => "link".into(),
        other => other.to_string(),
    }
}

/// Metadata as stored: known keys renamed, values checked (`link` http(s) only, `open_weights`
/// yes/no), other keys kept as free-form text.
pub fn check_meta(meta: BTreeMap<String, String>) -> Result<BTreeMap<String, String>, LbError> {
    if meta.len() > MAX_META_KEYS {
        return Err(LbError::BadRequest(format!(
            "{} metadata keys, at most {MAX_META_KEYS}",
            meta.len()
        )));
    }
    let mut out = BTreeMap::new();
    for (key, value) in meta {
        let key = canonical_meta_key(&key);
        let valid_key = !key.is_empty()
            && key.len() <= 40
            && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !valid_key {
            return Err(LbError::BadRequest(format!(
                "metadata key `{key}`: use 1 to 40 of a-z, 0-9 and _"
            )));
        }
        check_text(&format!("metadata `{key}`"), &value, MAX_TEXT_CHARS, false)?;
        let value = match key.as_str() {
            "open_weights" => match value.trim().to_ascii_lowercase().as_str() {
                "yes" | "true" | "1" | "y" => "yes".to_string(),
                "no" | "false" | "0" | "n" => "no".to_string(),
                other => {
                    return Err(LbError::BadRequest(format!(
                        "metadata `open_weights` is `{other}`, expected yes or no"
                    )));
                }
            },
            "link" => {
                let v = value.trim();
                let lower = v.to_ascii_lowercase();
                if !v.is_empty() && !lower.starts_with("https://") && !lower.starts_with("http://")
                {
                    return Err(LbError::BadRequest(format!(
                        "metadata `link` must be an http(s) URL, got `{v}`"
                    )));
                }
                v.to_string()
            }
            _ => value,
        };
        out.insert(key, value);
    }
    Ok(out)
}

/// `POST /api/v1/leaderboards` body.
pub type CreateBoard = workbench::wire::CreateBoard<Base64Bytes>;

/// The owner's phase settings (`POST …/phase`, and `competition` at creation).
pub use workbench::wire::PhaseSettings;

/// `POST /api/v1/leaderboards/{slug}/entries` body.
pub type Submit = workbench::wire::Submit<Base64Bytes>;

/// `PATCH /api/v1/leaderboards/{slug}` body (owner).
pub use workbench::wire::EditBoard;

/// `PATCH /api/v1/leaderboards/{slug}/entries/{id}` body (entry token).
pub use workbench::wire::EditEntry;

/// Who presented which token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor {
    Owner,
    Entry,
}

impl Actor {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Actor::Owner => "owner",
            Actor::Entry => "entry",
        }
    }
}

/// What an owner or submitter may do to an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryAction {
    Hide,
    Restore,
    Withdraw,
    /// Owner: delete; entry token: withdraw.
    Remove,
}

/// Unix ms of an ISO 8601 UTC time (`YYYY-MM-DDTHH:MM[:SS]Z`, or a date) or of a number.
pub(crate) fn instant(what: &str, v: &Value) -> Result<Option<i64>, LbError> {
    let bad = || {
        LbError::BadRequest(format!(
            "{what}: expected a UTC time like 2026-05-01T00:00:00Z or Unix milliseconds, got {v}"
        ))
    };
    match v {
        Value::Null => Ok(None),
        Value::Number(n) => n.as_i64().map(Some).ok_or_else(bad),
        Value::String(t) => parse_iso8601(t).map(Some).ok_or_else(bad),
        _ => Err(bad()),
    }
}

pub(crate) fn apply_settings(c: &mut Competition, s: PhaseSettings) -> Result<(), LbError> {
    if let Some(v) = s.public_share {
        c.public_share = v;
    }
    if let Some(v) = s.seed {
        c.seed = v;
    }
    if let Some(v) = &s.opens {
        c.opens_ms = instant("opens", v)?;
    }
    if let Some(v) = &s.closes {
        c.closes_ms = instant("closes", v)?;
    }
    if let Some(v) = s.daily_quota {
        c.daily_quota = Some(v);
    }
    if let Some(v) = s.total_quota {
        c.total_quota = Some(v);
    }
    if let Some(v) = s.counts {
        c.counts = v;
    }
    c.check().map_err(LbError::BadRequest)
}

/// Prefix of team tokens (submit to a competition, see and cancel the team's submissions).
pub const TEAM_PREFIX: &str = "sbt_";

/// `POST /api/v1/leaderboards/{slug}/teams` body (owner).
pub use workbench::wire::AddTeam;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_keys_are_canonical_and_links_http_only() {
        let m = |pairs: &[(&str, &str)]| {
            check_meta(
                pairs
                    .iter()
                    .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                    .collect(),
            )
        };
        let ok = m(&[("params", "7B"), ("Open-Weights", "Yes"), ("org", "x")]).unwrap();
        assert_eq!(ok["parameters"], "7B");
        assert_eq!(ok["open_weights"], "yes");
        assert_eq!(ok["organisation"], "x");
        assert!(m(&[("link", "javascript:alert(1)")]).is_err());
        assert!(m(&[("link", "https://example.org/m")]).is_ok());
        assert!(m(&[("open_weights", "maybe")]).is_err());
        assert!(m(&[("bad key!", "x")]).is_err());
    }

    #[test]
    fn slugs() {
        assert!(check_slug("eotgc-2025").is_ok());
        for bad in ["", "-x", "A", "a/b", "a b", &"x".repeat(65)] {
            assert!(check_slug(bad).is_err(), "{bad}");
        }
    }
}
