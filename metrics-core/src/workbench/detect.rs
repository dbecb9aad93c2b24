//! Which benchmark a dropped file belongs to, and what it is there (its [`Role`]).
//!
//! Detection reads the file name and the first [`DETECT_HEAD_BYTES`] bytes only, so a 100 MB
//! file is recognised without reading it whole. The first record decides:
//!
//! ```text
//! JSONL, first object has q_id + errors                  → SAS-Bench taxonomy (error_type.jsonl)
//!        manual_label + steps (+ pred_label/pred_steps)  → SAS-Bench dataset (prediction) file
//!        gold + generation/usage                         → MSQA evaluation.log
//!        gold + pred                                     → generic gold/pred pairs
//! id<TAB>"json"                                          → SAS-Bench raw replies (*_scored.jsonl)
//! JSON array, first non-null object has
//!        classification + content/title/grade            → EOTGC gold (test) file
//!        classification without content                  → EOTGC Track 1 submission
//!        comment without classification                  → EOTGC Track 2 comments
//!        gold + generation/usage                         → MSQA evaluation.json
//!        dataset_item + inference_result                 → MSQA authors' inference file
//!        unit_test                                       → SGI-Bench dry experiment log
//!        generated_data / generated_idea_text            → SGI-Bench idea generation log
//!        answer + model_answer…, with steps/type/llm_judge → SGI-Bench deep research log
//!        answer + model_answer…, otherwise               → SGI-Bench wet experiment log
//! JSON object with track2_inputs                         → EOTGC Track 2 input
//! CSV header with gold and pred                          → generic gold/pred pairs
//! ```
//! The file name decides when it is unambiguous (`*_prediction.jsonl`, `*_scored.jsonl`,
//! `error_type.jsonl`) and content does not contradict it. When the first record does not fit
//! in the head, keys are looked up as `"key":` in the head text and the confidence is lower.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How many leading bytes [`detect`] needs (more are ignored).
pub const DETECT_HEAD_BYTES: usize = 64 * 1024;

/// The benchmark a file belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Benchmark {
    Sasbench,
    Eotgc,
    Msqa,
    SgiWet,
    SgiDry,
    SgiDeepResearch,
    SgiIdea,
    Pairs,
    Unknown,
}

impl Benchmark {
    /// The `benchmark` name reports carry (`sasbench`, `sgi-wet`, …; `unknown`).
    pub fn key(self) -> &'static str {
        match self {
            Self::Sasbench => "sasbench",
            Self::Eotgc => "eotgc",
            Self::Msqa => "msqa",
            Self::SgiWet => "sgi-wet",
            Self::SgiDry => "sgi-dry",
            Self::SgiDeepResearch => "sgi-deep-research",
            Self::SgiIdea => "sgi-idea",
            Self::Pairs => "pairs",
            Self::Unknown => "unknown",
        }
    }

    /// A display name.
    pub fn label(self) -> &'static str {
        match self {
            Self::Sasbench => "SAS-Bench",
            Self::Eotgc => "EOTGC",
            Self::Msqa => "MSQA",
            Self::SgiWet => "SGI-Bench wet experiment",
            Self::SgiDry => "SGI-Bench dry experiment",
            Self::SgiDeepResearch => "SGI-Bench deep research",
            Self::SgiIdea => "SGI-Bench idea generation",
            Self::Pairs => "Generic gold/pred",
            Self::Unknown => "Unknown",
        }
    }

    /// The benchmark of a report's `benchmark` field.
    pub fn from_key(key: &str) -> Self {
        [
            Self::Sasbench,
            Self::Eotgc,
            Self::Msqa,
            Self::SgiWet,
            Self::SgiDry,
            Self::SgiDeepResearch,
            Self::SgiIdea,
            Self::Pairs,
        ]
        .into_iter()
        .find(|b| b.key() == key)
        .unwrap_or(Self::Unknown)
    }
}

/// What a file is for. The user may override the detected role (see [`Role::all`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// `*_prediction.jsonl`: gold records with `pred_label` / `pred_steps`.
    SasPrediction,
    /// `*_scored.jsonl`: `id<TAB>"json reply"` lines (step 2 runs first).
    SasRaw,
    /// `<n>_<Course>_<type>.jsonl`: gold records (`manual_label`, `steps`) for raw files.
    SasDataset,
    /// `error_type.jsonl`: `q_id` + `errors` per dataset file.
    SasTaxonomy,
    /// EOTGC test/gold essays with `classification`.
    EotgcGold,
    /// EOTGC Track 1 submission `[{id, classification}]`.
    EotgcSubmission,
    /// EOTGC Track 2 submission `[{id, comment}]` (comment check).
    EotgcComments,
    /// EOTGC Track 2 inputs and leaderboard totals.
    EotgcTrack2,
    /// MSQA toolkit `evaluation.json` / `evaluation.log`.
    MsqaEvaluation,
    /// MSQA paper authors' inference file (scored by the paper rule).
    MsqaInference,
    SgiWetLog,
    SgiDryLog,
    SgiDeepResearchLog,
    SgiIdeaLog,
    /// Generic gold/pred JSONL or CSV.
    Pairs,
    /// Not used for scoring.
    Unknown,
}

impl Role {
    const ALL: [Role; 16] = [
        Role::SasPrediction,
        Role::SasRaw,
        Role::SasDataset,
        Role::SasTaxonomy,
        Role::EotgcGold,
        Role::EotgcSubmission,
        Role::EotgcComments,
        Role::EotgcTrack2,
        Role::MsqaEvaluation,
        Role::MsqaInference,
        Role::SgiWetLog,
        Role::SgiDryLog,
        Role::SgiDeepResearchLog,
        Role::SgiIdeaLog,
        Role::Pairs,
        Role::Unknown,
    ];

    /// Every role, in dropdown order.
    pub fn all() -> &'static [Role] {
        &Self::ALL
    }

    /// A display label for the role dropdown.
    pub fn label(self) -> &'static str {
        match self {
            Self::SasPrediction => "SAS-Bench prediction file",
            Self::SasRaw => "SAS-Bench raw replies (_scored)",
            Self::SasDataset => "SAS-Bench gold dataset file",
            Self::SasTaxonomy => "SAS-Bench error taxonomy",
            Self::EotgcGold => "EOTGC gold essays",
            Self::EotgcSubmission => "EOTGC Track 1 submission",
            Self::EotgcComments => "EOTGC Track 2 comments",
            Self::EotgcTrack2 => "EOTGC Track 2 input",
            Self::MsqaEvaluation => "MSQA evaluation.json",
            Self::MsqaInference => "MSQA authors' inference file",
            Self::SgiWetLog => "SGI-Bench wet experiment log",
            Self::SgiDryLog => "SGI-Bench dry experiment log",
            Self::SgiDeepResearchLog => "SGI-Bench deep research log",
            Self::SgiIdeaLog => "SGI-Bench idea generation log",
            Self::Pairs => "Generic gold/pred file",
            Self::Unknown => "Not used",
        }
    }

    /// A stable machine name (kebab-case, as serialised).
    pub fn key(self) -> &'static str {
        match self {
            Self::SasPrediction => "sas-prediction",
            Self::SasRaw => "sas-raw",
            Self::SasDataset => "sas-dataset",
            Self::SasTaxonomy => "sas-taxonomy",
            Self::EotgcGold => "eotgc-gold",
            Self::EotgcSubmission => "eotgc-submission",
            Self::EotgcComments => "eotgc-comments",
            Self::EotgcTrack2 => "eotgc-track2",
            Self::MsqaEvaluation => "msqa-evaluation",
            Self::MsqaInference => "msqa-inference",
            Self::SgiWetLog => "sgi-wet-log",
            Self::SgiDryLog => "sgi-dry-log",
            Self::SgiDeepResearchLog => "sgi-deep-research-log",
            Self::SgiIdeaLog => "sgi-idea-log",
            Self::Pairs => "pairs",
            Self::Unknown => "unknown",
        }
    }

    pub fn from_key(key: &str) -> Option<Role> {
        Self::ALL.into_iter().find(|r| r.key() == key)
    }

    /// The benchmark this role belongs to.
    pub fn benchmark(self) -> Benchmark {
        match self {
            Self::SasPrediction | Self::SasRaw | Self::SasDataset | Self::SasTaxonomy => {
                Benchmark::Sasbench
            }
            Self::EotgcGold | Self::EotgcSubmission | Self::EotgcComments | Self::EotgcTrack2 => {
                Benchmark::Eotgc
            }
            Self::MsqaEvaluation | Self::MsqaInference => Benchmark::Msqa,
            Self::SgiWetLog => Benchmark::SgiWet,
            Self::SgiDryLog => Benchmark::SgiDry,
            Self::SgiDeepResearchLog => Benchmark::SgiDeepResearch,
            Self::SgiIdeaLog => Benchmark::SgiIdea,
            Self::Pairs => Benchmark::Pairs,
            Self::Unknown => Benchmark::Unknown,
        }
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

/// The detection result: benchmark, role, confidence and a one-line reason to show the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Detected {
    pub benchmark: Benchmark,
    pub role: Role,
    pub confidence: Confidence,
    pub why: String,
}

impl Detected {
    fn new(role: Role, confidence: Confidence, why: impl Into<String>) -> Self {
        Self {
            benchmark: role.benchmark(),
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

/// The shape of the head: what the first record looks like.
enum Shape {
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
fn head_text(head: &[u8]) -> &str {
    let head = &head[..head.len().min(DETECT_HEAD_BYTES)];
    match std::str::from_utf8(head) {
        Ok(t) => t,
        // valid_up_to is a char boundary, so the second conversion cannot fail.
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""),
    }
}

/// Keys named `"key":` anywhere in `text` (used when the first record is cut off).
fn scanned_keys(text: &str) -> Vec<String> {
    const CANDIDATES: [&str; 30] = [
        "q_id",
        "errors",
        "manual_label",
        "steps",
        "pred_label",
        "pred_steps",
        "classification",
        "content",
        "title",
        "grade",
        "requirement",
        "comment",
        "id",
        "track2_inputs",
        "leaderboard_track_scores",
        "generation",
        "usage",
        "gold",
        "pred",
        "subtask",
        "dataset_item",
        "inference_result",
        "unit_test",
        "generated_data",
        "generated_idea_text",
        "answer",
        "model_answer",
        "model_answer_with_thinking",
        "llm_judge",
        "type",
    ];
    CANDIDATES
        .iter()
        .filter(|k| {
            let quoted = format!("\"{k}\"");
            text.match_indices(&quoted)
                .any(|(i, _)| text[i + quoted.len()..].trim_start().starts_with(':'))
        })
        .map(|k| (*k).to_string())
        .collect()
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

fn shape(text: &str) -> Shape {
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

/// Role by content keys of a JSON record; `None` when nothing fits.
fn role_of_keys(keys: &[String], in_array: bool) -> Option<(Role, &'static str)> {
    let has = |k: &str| keys.iter().any(|x| x == k);
    let any = |ks: &[&str]| ks.iter().any(|k| has(k));
    if has("q_id") && has("errors") {
        return Some((Role::SasTaxonomy, "records with `q_id` and `errors`"));
    }
    if has("manual_label") && has("steps") {
        return Some(if any(&["pred_label", "pred_steps"]) {
            (
                Role::SasPrediction,
                "records with `manual_label`, `steps` and `pred_label`",
            )
        } else {
            (
                Role::SasDataset,
                "records with `manual_label` and `steps`, no prediction",
            )
        });
    }
    if has("track2_inputs") || has("leaderboard_track_scores") {
        return Some((Role::EotgcTrack2, "an object with `track2_inputs`"));
    }
    if has("dataset_item") && has("inference_result") {
        return Some((
            Role::MsqaInference,
            "records with `dataset_item` and `inference_result`",
        ));
    }
    if has("gold") && any(&["generation", "usage"]) {
        return Some((
            Role::MsqaEvaluation,
            "records with `gold`, `generation` and `usage`",
        ));
    }
    if has("unit_test") {
        return Some((Role::SgiDryLog, "records with `unit_test` runs"));
    }
    if any(&["generated_data", "generated_idea_text"]) {
        return Some((Role::SgiIdeaLog, "records with a generated idea"));
    }
    if has("answer") && any(&["model_answer", "model_answer_with_thinking"]) {
        if has("options") {
            return None;
        }
        return Some(if any(&["steps", "llm_judge", "type"]) {
            (
                Role::SgiDeepResearchLog,
                "records with `answer`, `model_answer` and `steps`",
            )
        } else {
            (
                Role::SgiWetLog,
                "records with `answer` and `model_answer` (a protocol), no `steps`",
            )
        });
    }
    if in_array && has("classification") {
        return Some(if any(&["content", "title", "requirement", "grade"]) {
            (
                Role::EotgcGold,
                "essays with `classification` and `content`",
            )
        } else {
            (
                Role::EotgcSubmission,
                "`[{id, classification}]` without essay content",
            )
        });
    }
    if in_array && has("comment") && has("id") {
        return Some((Role::EotgcComments, "`[{id, comment}]`"));
    }
    if has("gold") && has("pred") {
        return Some((Role::Pairs, "records with `gold` and `pred`"));
    }
    None
}

/// Recognise a file from its name and the start of its content (`head`: at least the first
/// [`DETECT_HEAD_BYTES`] bytes, or the whole file when shorter).
pub fn detect(name: &str, head: &[u8]) -> Detected {
    use Confidence::{High, Low, Medium};
    let base = base_name(name);
    let lower = base.to_ascii_lowercase();
    let text = head_text(head);
    let shape = shape(text);
    let confidence = |complete: bool| if complete { High } else { Medium };

    // Names that say it all, unless content contradicts them.
    if lower.ends_with("_scored.jsonl") && matches!(shape, Shape::TabSeparated | Shape::Empty) {
        return Detected::new(Role::SasRaw, High, "named *_scored.jsonl");
    }
    if lower == "error_type.jsonl" {
        return Detected::new(Role::SasTaxonomy, High, "named error_type.jsonl");
    }

    match shape {
        Shape::Empty if lower.ends_with("_prediction.jsonl") => Detected::new(
            Role::SasPrediction,
            Low,
            "an empty file named *_prediction.jsonl",
        ),
        Shape::Empty if is_sas_dataset_name(&lower) => Detected::new(
            Role::SasDataset,
            Low,
            "an empty file named like a SAS-Bench dataset file (<n>_<Course>_<type>.jsonl)",
        ),
        Shape::Empty => Detected::new(Role::Unknown, Low, "the file is empty"),
        Shape::TabSeparated => Detected::new(
            Role::SasRaw,
            if lower.ends_with(".jsonl") {
                High
            } else {
                Medium
            },
            "`id<TAB>\"json\"` lines: SAS-Bench raw replies",
        ),
        Shape::Object { keys, complete } => match role_of_keys(&keys, false) {
            // Every other benchmark's file is JSONL or a JSON array.
            Some((role @ Role::EotgcTrack2, why)) => Detected::new(role, confidence(complete), why),
            _ => Detected::new(
                Role::Unknown,
                Low,
                format!("a JSON object with keys {} fits no benchmark", list(&keys)),
            ),
        },
        Shape::JsonlObject { keys, complete } => match role_of_keys(&keys, false) {
            Some((Role::SasDataset, why)) if lower.ends_with("_prediction.jsonl") => Detected::new(
                Role::SasPrediction,
                Medium,
                format!("named *_prediction.jsonl ({why})"),
            ),
            Some((role, why)) => Detected::new(role, confidence(complete), why),
            None if lower.ends_with("_prediction.jsonl") => {
                Detected::new(Role::SasPrediction, Low, "named *_prediction.jsonl")
            }
            None => Detected::new(
                Role::Unknown,
                Low,
                format!("JSON records with keys {} fit no benchmark", list(&keys)),
            ),
        },
        Shape::ArrayObject { keys, complete } => match role_of_keys(&keys, true) {
            Some((role, why)) => Detected::new(role, confidence(complete), why),
            None => {
                let has = |k: &str| keys.iter().any(|x| x == k);
                let why = if has("answer") && has("question") && has("options") {
                    "SGI-Bench experimental reasoning records: no scorer in the workbench".into()
                } else if has("answer") && has("question") {
                    "dataset records with `question` and `answer`: no model answers to score".into()
                } else {
                    format!(
                        "a JSON array of records with keys {} fit no benchmark",
                        list(&keys)
                    )
                };
                Detected::new(Role::Unknown, Low, why)
            }
        },
        Shape::CsvHeader(columns) => {
            if columns.iter().any(|c| c == "gold") && columns.iter().any(|c| c == "pred") {
                Detected::new(Role::Pairs, High, "a CSV header with `gold` and `pred`")
            } else {
                Detected::new(
                    Role::Unknown,
                    Low,
                    "a CSV header without `gold` and `pred` columns",
                )
            }
        }
        Shape::Other => Detected::new(Role::Unknown, Low, "neither JSON, JSONL nor CSV"),
    }
}

/// `<n>_<Course>_<type>.jsonl`: a numeric prefix, at least three `_`-separated parts.
fn is_sas_dataset_name(lower: &str) -> bool {
    let Some(stem) = lower.strip_suffix(".jsonl") else {
        return false;
    };
    let parts: Vec<&str> = stem.split('_').collect();
    parts.len() >= 3
        && !parts[0].is_empty()
        && parts[0].bytes().all(|b| b.is_ascii_digit())
        && !stem.ends_with("_prediction")
        && !stem.ends_with("_scored")
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

    fn role(name: &str, text: &str) -> Role {
        detect(name, text.as_bytes()).role
    }

    #[test]
    fn sasbench_files() {
        let gold = r#"{"id": "a", "total": 5, "steps": [], "manual_label": "3"}"#;
        assert_eq!(role("7_Math_ShortAns.jsonl", gold), Role::SasDataset);
        let pred = r#"{"id": "a", "total": 5, "steps": [], "manual_label": "3", "pred_label": 2}"#;
        assert_eq!(role("x.jsonl", pred), Role::SasPrediction);
        assert_eq!(
            role("7_Math_ShortAns_prediction.jsonl", gold),
            Role::SasPrediction
        );
        assert_eq!(
            role("a_scored.jsonl", "q1\t\"{\\\"total\\\": 1}\"\n"),
            Role::SasRaw
        );
        assert_eq!(role("replies.txt", "q1\t\"x\"\n"), Role::SasRaw);
        assert_eq!(
            role("tax.jsonl", r#"{"q_id": 0, "errors": [{"name": "x"}]}"#),
            Role::SasTaxonomy
        );
    }

    #[test]
    fn eotgc_and_msqa_and_pairs() {
        let gold = r#"[{"id": 1, "grade": "3", "content": "…", "classification": "优秀"}]"#;
        assert_eq!(role("gold.json", gold), Role::EotgcGold);
        assert_eq!(
            role("p.json", r#"[{"id": 1, "classification": "good"}]"#),
            Role::EotgcSubmission
        );
        assert_eq!(
            role("c.json", r#"[{"id": 1, "comment": "ok"}]"#),
            Role::EotgcComments
        );
        assert_eq!(
            role("t.json", "{\n \"track2_inputs\": []\n}"),
            Role::EotgcTrack2
        );
        let eval = r#"[{"id": "q", "gold": "YES", "generation": {"content": "YES"}, "usage": {}}]"#;
        assert_eq!(role("evaluation.json", eval), Role::MsqaEvaluation);
        assert_eq!(role("p.jsonl", "{\"gold\": 1, \"pred\": 2}\n"), Role::Pairs);
        assert_eq!(role("p.csv", "id,gold,pred\n1,2,3\n"), Role::Pairs);
        assert_eq!(role("p.csv", "a,b\n1,2\n"), Role::Unknown);
        assert_eq!(role("e.json", ""), Role::Unknown);
    }

    #[test]
    fn cut_off_first_record_falls_back_to_key_scan() {
        let long = "x".repeat(DETECT_HEAD_BYTES);
        let text =
            format!("[{{\"id\": 1, \"classification\": \"good\", \"content\": \"{long}\"}}]");
        let d = detect("gold.json", text.as_bytes());
        assert_eq!(d.role, Role::EotgcGold);
        assert_eq!(d.confidence, Confidence::Medium);
        // A head cut inside a multi-byte character is still read.
        let mut bytes = "[{\"id\": 1, \"classification\": \"优".as_bytes().to_vec();
        bytes.pop();
        assert_eq!(detect("p.json", &bytes).role, Role::EotgcSubmission);
    }

    #[test]
    fn leading_null_records_are_skipped() {
        let log = r#"[null, {"idx": "1", "unit_test": []}]"#;
        assert_eq!(role("log.json", log), Role::SgiDryLog);
    }

    #[test]
    fn roles_round_trip_their_keys() {
        for &r in Role::all() {
            assert_eq!(Role::from_key(r.key()), Some(r));
            assert!(!r.label().is_empty());
        }
        assert_eq!(Benchmark::from_key("sgi-wet"), Benchmark::SgiWet);
    }
}
