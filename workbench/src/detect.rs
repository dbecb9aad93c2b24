//! Which benchmark a dropped file belongs to, and what it is there (its [`Role`]).
//!
//! Detection reads the file name and the first [`DETECT_HEAD_BYTES`] bytes only, so a 100 MB
//! file is recognised without reading it whole. This module reads the *shape* of the head (a
//! JSONL record, a JSON array's first object, a top-level object, `id<TAB>json` lines, a CSV
//! header) into a [`Sniff`]; each registered benchmark then says whether the file is one of its
//! roles ([`Benchmark::recognise`](crate::benchmark::Benchmark::recognise)), in registry order,
//! then by name alone ([`Benchmark::recognise_by_name`](crate::benchmark::Benchmark::recognise_by_name)).
//! When the first record does not fit in the head, keys are looked up as `"key":` in the head
//! text and the confidence is lower. What fits no benchmark is [`Role::UNKNOWN`] with the reason.

use serde::{Deserialize, Serialize, Serializer};

use serde_json::Value;

/// How many leading bytes [`crate::registry::detect`] needs (more are ignored).
pub const DETECT_HEAD_BYTES: usize = 64 * 1024;

/// What a role is: a stable key (kebab-case), a label for the role dropdown, and whether the file
/// is gold data every model's predictions are scored against (a gold file, a taxonomy).
#[derive(Debug, PartialEq, Eq)]
pub struct RoleInfo {
    pub key: &'static str,
    pub label: &'static str,
    pub shared: bool,
}

/// The role "not used for scoring".
pub static UNKNOWN_ROLE: RoleInfo = RoleInfo {
    key: "unknown",
    label: "Not used",
    shared: true,
};

/// What a file is for: one of a registered benchmark's roles, or [`Role::UNKNOWN`]. The user may
/// override the detected role (see [`Role::all`]). Serialised as its key.
#[derive(Debug, Clone, Copy)]
pub struct Role(pub &'static RoleInfo);

impl PartialEq for Role {
    fn eq(&self, other: &Self) -> bool {
        self.0.key == other.0.key
    }
}

impl Eq for Role {}

impl std::hash::Hash for Role {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.key.hash(state);
    }
}

impl Role {
    pub const UNKNOWN: Role = Role(&UNKNOWN_ROLE);

    pub fn key(self) -> &'static str {
        self.0.key
    }

    pub fn label(self) -> &'static str {
        self.0.label
    }

    /// Gold data shared by every model (gold files, taxonomies; also "Not used").
    pub fn is_shared(self) -> bool {
        self.0.shared
    }
}

impl Serialize for Role {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.key)
    }
}

/// How sure the detection is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Confidence {
    Low,
    Medium,
    High,
}

/// The detection result: benchmark key, role, confidence and a one-line reason to show the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Detected {
    pub benchmark: String,
    pub role: Role,
    pub confidence: Confidence,
    pub why: String,
}

impl Detected {
    pub fn new(role: Role, confidence: Confidence, why: impl Into<String>) -> Self {
        Self {
            benchmark: role.benchmark_key().to_string(),
            role,
            confidence,
            why: why.into(),
        }
    }
}

/// The base name of a path (after the last `/` or `\`).
pub fn base_name(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

/// What a benchmark looks at to recognise a file: its base name (as given and lower-cased) and
/// the shape of its head.
pub struct Sniff<'a> {
    pub name: &'a str,
    pub lower: String,
    pub shape: Shape,
}

impl Sniff<'_> {
    /// The keys of the first record (any container), empty for other shapes.
    pub fn keys(&self) -> &[String] {
        match &self.shape {
            Shape::JsonlObject { keys, .. }
            | Shape::ArrayObject { keys, .. }
            | Shape::Object { keys, .. } => keys,
            _ => &[],
        }
    }

    pub fn has(&self, key: &str) -> bool {
        self.keys().iter().any(|k| k == key)
    }

    pub fn has_any(&self, keys: &[&str]) -> bool {
        keys.iter().any(|k| self.has(k))
    }

    /// Whether the first record parsed whole (else its keys were scanned from the head text).
    pub fn complete(&self) -> bool {
        match &self.shape {
            Shape::JsonlObject { complete, .. }
            | Shape::ArrayObject { complete, .. }
            | Shape::Object { complete, .. } => *complete,
            _ => true,
        }
    }

    /// High when the first record parsed whole, else Medium.
    pub fn confidence(&self) -> Confidence {
        if self.complete() {
            Confidence::High
        } else {
            Confidence::Medium
        }
    }

    /// JSONL records or a JSON array of records.
    pub fn is_records(&self) -> bool {
        matches!(
            self.shape,
            Shape::JsonlObject { .. } | Shape::ArrayObject { .. }
        )
    }

    pub fn is_array(&self) -> bool {
        matches!(self.shape, Shape::ArrayObject { .. })
    }

    pub fn is_jsonl(&self) -> bool {
        matches!(self.shape, Shape::JsonlObject { .. })
    }
}

/// The shape of the head: what the first record looks like.
pub enum Shape {
    Empty,
    /// The first JSONL object's keys; `complete` = it parsed whole.
    JsonlObject {
        keys: Vec<String>,
        complete: bool,
    },
    /// The first non-null object of a JSON array.
    ArrayObject {
        keys: Vec<String>,
        complete: bool,
    },
    /// A top-level JSON object's keys.
    Object {
        keys: Vec<String>,
        complete: bool,
    },
    /// `id<TAB>json` lines.
    TabSeparated,
    /// A first line that is neither JSON nor TAB-separated: its comma-separated cells.
    CsvHeader(Vec<String>),
    Other,
}

/// The longest valid UTF-8 prefix of `head`.
pub(crate) fn head_text(head: &[u8]) -> &str {
    let head = &head[..head.len().min(DETECT_HEAD_BYTES)];
    match std::str::from_utf8(head) {
        Ok(t) => t,
        // valid_up_to is a char boundary, so the second conversion cannot fail.
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""),
    }
}

/// Keys named `"key":` anywhere in `text` (used when the first record is cut off), in order of
/// first appearance.
fn scanned_keys(text: &str) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('"') {
        let after = &rest[start + 1..];
        let Some(len) = after.find('"') else { break };
        let key = &after[..len];
        let tail = &after[len + 1..];
        let is_key = !key.is_empty()
            && key.len() <= 64
            && key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            && tail.trim_start().starts_with(':');
        if is_key && !keys.iter().any(|k| k == key) {
            keys.push(key.to_string());
        }
        // The closing quote may open the next string: continue from it.
        rest = &after[len..];
    }
    keys
}

fn object_keys(value: &Value) -> Option<Vec<String>> {
    value.as_object().map(|o| o.keys().cloned().collect())
}

/// The first non-null element of a JSON array whose text starts after the `[`.
fn first_array_object(rest: &str) -> Option<Vec<String>> {
    let mut rest = rest;
    for _ in 0..64 {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        if let Some(after) = rest.strip_prefix("null") {
            rest = after;
            continue;
        }
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        let value = stream.next()?.ok()?;
        return object_keys(&value);
    }
    None
}

pub fn shape(text: &str) -> Shape {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let trimmed = text.trim_start();
    if trimmed.is_empty() {
        return Shape::Empty;
    }
    if let Some(rest) = trimmed.strip_prefix('[') {
        return match first_array_object(rest) {
            Some(keys) => Shape::ArrayObject {
                keys,
                complete: true,
            },
            None => Shape::ArrayObject {
                keys: scanned_keys(rest),
                complete: false,
            },
        };
    }
    let first_line = trimmed.lines().next().unwrap_or("");
    if first_line.starts_with('{') {
        // A one-line object followed by more lines is JSONL; a single object spanning lines
        // (or the whole file) is a JSON object.
        if let Ok(value) = serde_json::from_str::<Value>(first_line) {
            let keys = object_keys(&value).unwrap_or_default();
            let more_lines = trimmed.lines().skip(1).any(|l| !l.trim().is_empty());
            let is_top_level_object = !more_lines
                && (keys.contains(&"track2_inputs".to_string())
                    || keys.contains(&"leaderboard_track_scores".to_string()));
            return if is_top_level_object {
                Shape::Object {
                    keys,
                    complete: true,
                }
            } else {
                Shape::JsonlObject {
                    keys,
                    complete: true,
                }
            };
        }
        let mut stream = serde_json::Deserializer::from_str(trimmed).into_iter::<Value>();
        if let Some(Ok(value)) = stream.next() {
            return Shape::Object {
                keys: object_keys(&value).unwrap_or_default(),
                complete: true,
            };
        }
        // Cut off: a long JSONL line or a big object.
        let keys = scanned_keys(trimmed);
        return if first_line.len() == trimmed.len() || first_line.trim_end().ends_with('}') {
            Shape::JsonlObject {
                keys,
                complete: false,
            }
        } else {
            Shape::Object {
                keys,
                complete: false,
            }
        };
    }
    if let Some((_, second)) = first_line.split_once('\t') {
        let second = second.trim_start();
        if second.starts_with('"') || second.starts_with('{') {
            return Shape::TabSeparated;
        }
    }
    if first_line.contains(',') || first_line.contains('\t') {
        return Shape::CsvHeader(
            first_line
                .split([',', '\t'])
                .map(|c| c.trim().trim_matches('"').to_ascii_lowercase())
                .collect(),
        );
    }
    Shape::Other
}

/// Why a file fits no benchmark.
pub(crate) fn unrecognised(sniff: &Sniff<'_>) -> Detected {
    let why = match &sniff.shape {
        Shape::Empty => "the file is empty".into(),
        Shape::Object { keys, .. } => {
            format!("a JSON object with keys {} fits no benchmark", list(keys))
        }
        Shape::JsonlObject { keys, .. } => {
            format!("JSON records with keys {} fit no benchmark", list(keys))
        }
        Shape::ArrayObject { keys, .. } => {
            if sniff.has("answer") && sniff.has("question") {
                "dataset records with `question` and `answer`: no model answers to score".into()
            } else {
                format!(
                    "a JSON array of records with keys {} fit no benchmark",
                    list(keys)
                )
            }
        }
        Shape::TabSeparated => "`id<TAB>value` lines fit no benchmark".into(),
        Shape::CsvHeader(_) => "a CSV header no benchmark reads".into(),
        Shape::Other => "neither JSON, JSONL nor CSV".into(),
    };
    Detected::new(Role::UNKNOWN, Confidence::Low, why)
}

fn list(keys: &[String]) -> String {
    let mut shown: Vec<String> = keys.iter().take(8).map(|k| format!("`{k}`")).collect();
    if keys.len() > 8 {
        shown.push("…".into());
    }
    if shown.is_empty() {
        "(none)".into()
    } else {
        shown.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::detect;

    fn role(name: &str, text: &str) -> &'static str {
        detect(name, text.as_bytes()).role.key()
    }

    #[test]
    fn sasbench_files() {
        let gold = r#"{"id": "a", "total": 5, "steps": [], "manual_label": "3"}"#;
        assert_eq!(role("7_Math_ShortAns.jsonl", gold), "sas-dataset");
        let pred = r#"{"id": "a", "total": 5, "steps": [], "manual_label": "3", "pred_label": 2}"#;
        assert_eq!(role("x.jsonl", pred), "sas-prediction");
        assert_eq!(
            role("7_Math_ShortAns_prediction.jsonl", gold),
            "sas-prediction"
        );
        assert_eq!(
            role("a_scored.jsonl", "q1\t\"{\\\"total\\\": 1}\"\n"),
            "sas-raw"
        );
        assert_eq!(role("replies.txt", "q1\t\"x\"\n"), "sas-raw");
        assert_eq!(
            role("tax.jsonl", r#"{"q_id": 0, "errors": [{"name": "x"}]}"#),
            "sas-taxonomy"
        );
    }

    #[test]
    fn eotgc_and_msqa_and_pairs() {
        let gold = r#"[{"id": 1, "grade": "3", "content": "…", "classification": "优秀"}]"#;
        assert_eq!(role("gold.json", gold), "eotgc-gold");
        assert_eq!(
            role("p.json", r#"[{"id": 1, "classification": "good"}]"#),
            "eotgc-submission"
        );
        assert_eq!(
            role("c.json", r#"[{"id": 1, "comment": "ok"}]"#),
            "eotgc-comments"
        );
        assert_eq!(
            role("t.json", "{\n \"track2_inputs\": []\n}"),
            "eotgc-track2"
        );
        let eval = r#"[{"id": "q", "gold": "YES", "generation": {"content": "YES"}, "usage": {}}]"#;
        assert_eq!(role("evaluation.json", eval), "msqa-evaluation");
        assert_eq!(role("p.jsonl", "{\"gold\": 1, \"pred\": 2}\n"), "pairs");
        assert_eq!(role("p.csv", "id,gold,pred\n1,2,3\n"), "pairs");
        assert_eq!(role("p.csv", "a,b\n1,2\n"), "unknown");
        assert_eq!(role("e.json", ""), "unknown");
    }

    #[test]
    fn cut_off_first_record_falls_back_to_key_scan() {
        let long = "x".repeat(DETECT_HEAD_BYTES);
        let text =
            format!("[{{\"id\": 1, \"classification\": \"good\", \"content\": \"{long}\"}}]");
        let d = detect("gold.json", text.as_bytes());
        assert_eq!(d.role.key(), "eotgc-gold");
        assert_eq!(d.confidence, Confidence::Medium);
        // A head cut inside a multi-byte character is still read.
        let mut bytes = "[{\"id\": 1, \"classification\": \"优".as_bytes().to_vec();
        bytes.pop();
        assert_eq!(detect("p.json", &bytes).role.key(), "eotgc-submission");
    }

    #[test]
    fn leading_null_records_are_skipped() {
        let log = r#"[null, {"idx": "1", "unit_test": []}]"#;
        assert_eq!(role("log.json", log), "sgi-dry-log");
    }

    #[test]
    fn roles_round_trip_their_keys() {
        for r in Role::all() {
            assert_eq!(Role::from_key(r.key()), Some(r));
            assert!(!r.label().is_empty());
        }
        assert_eq!(
            Role::from_key("sgi-wet-log").map(Role::benchmark_key),
            Some("sgi-wet")
        );
    }
}
