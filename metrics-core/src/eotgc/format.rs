//! EOTGC file formats: test/gold essays, Track 1 and Track 2 submissions, and the five
//! relevance levels with every spelling the organisers used.
//!
//! Every file is a JSON array of objects. Problems are [`InputError`]s whose `line` is the
//! 1-based record number in the array and whose message names the record's `id` when it has one.
//!
//! Ids may be JSON integers or strings; both are compared by their text, so `7` and `"7"` are the
//! same essay (the organisers' files use integers; some submissions write strings).

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::error::InputError;
use crate::json_array::{self, ArrayError};
use crate::text::Text;

/// A Track 1 relevance level. The numeric value is the one the formulas use (any evenly spaced
/// order-preserving mapping gives the same ACC_A, r and Score).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// 不合格 · Unqualified (before 13 Mar 2025: Fail) · unqualified
    Unqualified = 0,
    /// 合格 · Qualified (before 13 Mar 2025: Pass) · qualified
    Qualified = 1,
    /// 一般 · Average · average
    Average = 2,
    /// 较好 · Good · good
    Good = 3,
    /// 优秀 · Excellent · outstanding
    Excellent = 4,
}

/// What a label may be, for error messages.
pub const LABEL_SPELLINGS: &str = "优秀/excellent/outstanding, 较好/good, 一般/average, \
     合格/qualified/pass, 不合格/unqualified/fail";

impl Level {
    pub const ALL: [Level; 5] = [
        Level::Excellent,
        Level::Good,
        Level::Average,
        Level::Qualified,
        Level::Unqualified,
    ];

    /// The number used in the formulas: 4 (优秀) … 0 (不合格).
    pub fn value(self) -> f64 {
        f64::from(self as u8)
    }

    /// The Chinese name used in the data files.
    pub fn chinese(self) -> &'static str {
        match self {
            Level::Excellent => "优秀",
            Level::Good => "较好",
            Level::Average => "一般",
            Level::Qualified => "合格",
            Level::Unqualified => "不合格",
        }
    }

    /// The result-format (English) name.
    pub fn english(self) -> &'static str {
        match self {
            Level::Excellent => "outstanding",
            Level::Good => "good",
            Level::Average => "average",
            Level::Qualified => "qualified",
            Level::Unqualified => "unqualified",
        }
    }

    /// Parse a label: surrounding whitespace is ignored, English names are case-insensitive.
    /// Accepted: the Chinese names, the guideline names (Excellent, Good, Average, Qualified,
    /// Unqualified, and the earlier Pass/Fail) and the result-format names (outstanding …).
    pub fn parse(label: &str) -> Option<Level> {
        let label = label.trim();
        let level = match label {
            "优秀" => Level::Excellent,
            "较好" => Level::Good,
            "一般" => Level::Average,
            "合格" => Level::Qualified,
            "不合格" => Level::Unqualified,
            _ => {
                let is = |name: &str| label.eq_ignore_ascii_case(name);
                if is("excellent") || is("outstanding") {
                    Level::Excellent
                } else if is("good") {
                    Level::Good
                } else if is("average") {
                    Level::Average
                } else if is("qualified") || is("pass") {
                    Level::Qualified
                } else if is("unqualified") || is("fail") {
                    Level::Unqualified
                } else {
                    return None;
                }
            }
        };
        Some(level)
    }
}

/// One essay of the test data with its gold label (`classification`).
#[derive(Debug, Clone, PartialEq)]
pub struct GoldEssay {
    /// The id as text (integer ids are written in decimal).
    pub id: String,
    /// The grade ("3" … "9"), as text.
    pub grade: String,
    pub requirement: String,
    pub title: String,
    pub content: String,
    pub level: Level,
    /// The gold comment (Track 2 gold files), when present.
    pub comment: Option<String>,
    /// 1-based record number in the gold file.
    pub record: usize,
}

/// One Track 1 prediction.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    pub id: String,
    pub level: Level,
    /// The label as written in the file (the teacher view shows it).
    pub label: String,
    /// 1-based record number in the submission.
    pub record: usize,
}

/// One Track 2 comment.
#[derive(Debug, Clone, PartialEq)]
pub struct Comment {
    pub id: String,
    pub comment: String,
    /// 1-based record number in the submission.
    pub record: usize,
}

/// One object of a JSON-array file, with its location for messages.
struct Record<'a> {
    file: &'a str,
    number: usize,
    object: &'a Map<String, Value>,
    /// The record's id as text, once read (for messages).
    id: Option<String>,
}

impl<'a> Record<'a> {
    fn error(&self, message: impl std::fmt::Display) -> InputError {
        match &self.id {
            Some(id) => InputError::at_line(self.file, self.number, format!("id {id}: {message}")),
            None => InputError::at_line(self.file, self.number, message.to_string()),
        }
    }

    fn read_id(&mut self) -> Result<String, InputError> {
        let id = match self.object.get("id") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) if n.is_i64() || n.is_u64() => n.to_string(),
            Some(other) => {
                return Err(self.error(format!(
                    "`id` must be an integer or a string, found {other}"
                )));
            }
            None => return Err(self.error("missing `id`")),
        };
        self.id = Some(id.clone());
        Ok(id)
    }

    /// The id, or for a record without `id` (the NLPCC samples layout) its 0-based position, as
    /// the test file numbers its essays.
    fn id_or_position(&mut self) -> Result<String, InputError> {
        if self.object.contains_key("id") {
            self.read_id()
        } else {
            Ok((self.number - 1).to_string())
        }
    }

    fn string(&self, key: &str) -> Result<String, InputError> {
        match self.object.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(self.error(format!("`{key}` must be a string, found {other}"))),
            None => Err(self.error(format!("missing `{key}`"))),
        }
    }

    /// An optional string field; `null` and absent are the same.
    fn optional_string(&self, key: &str) -> Result<Option<String>, InputError> {
        match self.object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(self.error(format!("`{key}` must be a string, found {other}"))),
        }
    }

    /// A grade: a string, or an integer written as text.
    fn grade(&self) -> Result<String, InputError> {
        match self.object.get("grade") {
            Some(Value::String(s)) => Ok(s.trim().to_string()),
            Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Ok(n.to_string()),
            Some(other) => Err(self.error(format!(
                "`grade` must be a string or an integer, found {other}"
            ))),
            None => Err(self.error("missing `grade`")),
        }
    }

    fn level(&self) -> Result<Level, InputError> {
        let label = self.string("classification")?;
        Level::parse(&label).ok_or_else(|| {
            self.error(format!(
                "unknown label {label:?}; expected one of {LABEL_SPELLINGS}"
            ))
        })
    }
}

/// Parse a JSON array of objects and hand each object to `each` with its location. The array is
/// read one object at a time: only what `each` returns is kept.
fn parse_array<T>(
    file: &str,
    text: Text,
    what: &str,
    mut each: impl FnMut(Record<'_>) -> Result<T, InputError>,
) -> Result<Vec<T>, InputError> {
    let text = text
        .strip_bom()
        .map_err(|e| crate::text::read_error(file, &e))?;
    let mut out = Vec::new();
    let read = json_array::for_each(text, |number, value| {
        let object = value.as_object().ok_or_else(|| {
            InputError::at_line(
                file,
                number,
                format!("expected an object ({what}), found {value}"),
            )
        })?;
        out.push(each(Record {
            file,
            number,
            object,
            id: None,
        })?);
        Ok(())
    });
    match read {
        Ok(()) => Ok(out),
        Err(ArrayError::Json(e)) => Err(InputError::new(
            file,
            (e.line() > 0).then_some(e.line()),
            format!("not valid JSON: {e}"),
        )),
        Err(ArrayError::NotArray(_)) => Err(InputError::whole_file(
            file,
            format!("expected a JSON array of {what}"),
        )),
        Err(ArrayError::Element(e)) => Err(e),
    }
}

/// Reject a second record with the same id.
fn check_unique<'a>(
    file: &str,
    ids: impl Iterator<Item = (&'a str, usize)>,
) -> Result<(), InputError> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (id, record) in ids {
        if let Some(first) = seen.insert(id, record) {
            return Err(InputError::at_line(
                file,
                record,
                format!("id {id}: duplicate id (also record {first})"),
            ));
        }
    }
    Ok(())
}

/// Parse a gold file: `[{id, grade, requirement, title, content, classification}]` (Track 2 gold
/// files may add `comment`). `requirement`, `title` and `content` may be absent (empty). Records
/// without `id` (the samples layout) are numbered by their 0-based position.
pub fn parse_gold<'a>(file: &str, text: impl Into<Text<'a>>) -> Result<Vec<GoldEssay>, InputError> {
    parse_gold_with(file, text, |_| {})
}

/// [`parse_gold`], handing each essay to `shrink` as it is read (before the next one), e.g. to
/// drop texts the caller's report does not show.
pub fn parse_gold_with<'a>(
    file: &str,
    text: impl Into<Text<'a>>,
    mut shrink: impl FnMut(&mut GoldEssay),
) -> Result<Vec<GoldEssay>, InputError> {
    let essays = parse_array(
        file,
        text.into(),
        "essays with `id`, `grade` and `classification`",
        |mut r| {
            let id = r.id_or_position()?;
            let mut essay = GoldEssay {
                id,
                grade: r.grade()?,
                requirement: r.optional_string("requirement")?.unwrap_or_default(),
                title: r.optional_string("title")?.unwrap_or_default(),
                content: r.optional_string("content")?.unwrap_or_default(),
                level: r.level()?,
                comment: r.optional_string("comment")?,
                record: r.number,
            };
            shrink(&mut essay);
            Ok(essay)
        },
    )?;
    if essays.is_empty() {
        return Err(InputError::whole_file(
            file,
            "no essays: expected a non-empty JSON array",
        ));
    }
    check_unique(file, essays.iter().map(|e| (e.id.as_str(), e.record)))?;
    Ok(essays)
}

/// One essay of a class file: the test file without gold (`[{id, grade, requirement, title,
/// content}]`), a gold file, or the samples layout without `id`.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassEssay {
    /// The id as text; for records without `id` (the samples layout), the 0-based position.
    pub id: String,
    pub grade: String,
    pub requirement: String,
    pub title: String,
    pub content: String,
    /// The gold level, when the file has `classification`.
    pub gold: Option<Level>,
    /// The gold comment, when present.
    pub comment: Option<String>,
    /// 1-based record number.
    pub record: usize,
}

/// Parse a class's essays: `grade` required, `id` optional (absent → the 0-based position, as
/// the test file numbers its essays), `classification` and `comment` optional.
pub fn parse_essays<'a>(
    file: &str,
    text: impl Into<Text<'a>>,
) -> Result<Vec<ClassEssay>, InputError> {
    let essays = parse_array(
        file,
        text.into(),
        "essays with `grade` and `content`",
        |mut r| {
            let id = r.id_or_position()?;
            let gold = match r.object.get("classification") {
                None | Some(Value::Null) => None,
                Some(_) => Some(r.level()?),
            };
            Ok(ClassEssay {
                id,
                grade: r.grade()?,
                requirement: r.optional_string("requirement")?.unwrap_or_default(),
                title: r.optional_string("title")?.unwrap_or_default(),
                content: r.optional_string("content")?.unwrap_or_default(),
                gold,
                comment: r.optional_string("comment")?,
                record: r.number,
            })
        },
    )?;
    if essays.is_empty() {
        return Err(InputError::whole_file(
            file,
            "no essays: expected a non-empty JSON array",
        ));
    }
    check_unique(file, essays.iter().map(|e| (e.id.as_str(), e.record)))?;
    Ok(essays)
}

/// Parse a Track 1 submission: `[{id, classification}]` (other fields are ignored).
pub fn parse_predictions<'a>(
    file: &str,
    text: impl Into<Text<'a>>,
) -> Result<Vec<Prediction>, InputError> {
    let predictions = parse_array(
        file,
        text.into(),
        "predictions with `id` and `classification`",
        |mut r| {
            let id = r.read_id()?;
            Ok(Prediction {
                id,
                level: r.level()?,
                label: r.string("classification")?.trim().to_string(),
                record: r.number,
            })
        },
    )?;
    check_unique(file, predictions.iter().map(|p| (p.id.as_str(), p.record)))?;
    Ok(predictions)
}

/// Parse a Track 2 submission: `[{id, comment}]` (other fields are ignored).
pub fn parse_comments<'a>(
    file: &str,
    text: impl Into<Text<'a>>,
) -> Result<Vec<Comment>, InputError> {
    let comments = parse_array(
        file,
        text.into(),
        "comments with `id` and `comment`",
        |mut r| {
            let id = r.read_id()?;
            Ok(Comment {
                id,
                comment: r.string("comment")?,
                record: r.number,
            })
        },
    )?;
    check_unique(file, comments.iter().map(|c| (c.id.as_str(), c.record)))?;
    Ok(comments)
}

/// A gold essay with its prediction.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged<'a> {
    pub essay: &'a GoldEssay,
    pub predicted: Level,
}

/// Join predictions to gold on `id`, in gold order. A prediction for an id not in the gold file,
/// or a gold id without a prediction, is an error naming the id(s).
pub fn join<'a>(
    gold_file: &str,
    gold: &'a [GoldEssay],
    pred_file: &str,
    predictions: &[Prediction],
) -> Result<Vec<Judged<'a>>, InputError> {
    let by_id: HashMap<&str, &Prediction> =
        predictions.iter().map(|p| (p.id.as_str(), p)).collect();
    let gold_ids: HashMap<&str, usize> = gold.iter().map(|e| (e.id.as_str(), e.record)).collect();
    if let Some(stray) = predictions
        .iter()
        .find(|p| !gold_ids.contains_key(p.id.as_str()))
    {
        return Err(InputError::at_line(
            pred_file,
            stray.record,
            format!("id {}: no essay with this id in {gold_file}", stray.id),
        ));
    }
    let missing: Vec<&GoldEssay> = gold
        .iter()
        .filter(|e| !by_id.contains_key(e.id.as_str()))
        .collect();
    if let Some(first) = missing.first() {
        const SHOWN: usize = 10;
        let mut ids: Vec<&str> = missing.iter().take(SHOWN).map(|e| e.id.as_str()).collect();
        if missing.len() > SHOWN {
            ids.push("…");
        }
        return Err(InputError::whole_file(
            pred_file,
            format!(
                "missing prediction for {} id(s): {} (first at {gold_file} record {})",
                missing.len(),
                ids.join(", "),
                first.record
            ),
        ));
    }
    Ok(gold
        .iter()
        .filter_map(|essay| {
            by_id.get(essay.id.as_str()).map(|p| Judged {
                essay,
                predicted: p.level,
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_essays_with_and_without_ids_and_gold() {
        let test_file =
            r#"[{"id": 7, "grade": 3, "requirement": "r", "title": "t", "content": "c"}]"#;
        let e = parse_essays("t.json", test_file).unwrap();
        assert_eq!(
            (e[0].id.as_str(), e[0].grade.as_str(), e[0].gold),
            ("7", "3", None)
        );
        let samples = r#"[{"grade": "5", "content": "a", "classification": "较好", "comment": "好"},
                          {"grade": "6", "content": "b", "classification": "Fail"}]"#;
        let e = parse_essays("s.json", samples).unwrap();
        assert_eq!(e[1].id, "1");
        assert_eq!(e[0].gold, Some(Level::Good));
        assert_eq!(e[1].gold, Some(Level::Unqualified));
        assert_eq!(e[0].comment.as_deref(), Some("好"));
        let bad = parse_essays(
            "b.json",
            r#"[{"id": 1, "grade": 3, "classification": "meh"}]"#,
        );
        assert_eq!(bad.unwrap_err().line, Some(1));
        assert!(parse_essays("m.json", r#"[{"id": 1, "content": "x"}]"#).is_err());
    }

    #[test]
    fn every_spelling_of_every_level() {
        let spellings: [(&str, Level); 13] = [
            ("优秀", Level::Excellent),
            ("Excellent", Level::Excellent),
            ("outstanding", Level::Excellent),
            ("较好", Level::Good),
            ("Good", Level::Good),
            ("一般", Level::Average),
            ("Average", Level::Average),
            ("合格", Level::Qualified),
            ("Qualified", Level::Qualified),
            ("Pass", Level::Qualified),
            ("不合格", Level::Unqualified),
            ("Unqualified", Level::Unqualified),
            ("Fail", Level::Unqualified),
        ];
        for (label, level) in spellings {
            assert_eq!(Level::parse(label), Some(level), "{label}");
            assert_eq!(
                Level::parse(&label.to_uppercase()),
                Some(level),
                "{label} upper"
            );
            assert_eq!(
                Level::parse(&label.to_lowercase()),
                Some(level),
                "{label} lower"
            );
            assert_eq!(
                Level::parse(&format!(" \t{label}\n")),
                Some(level),
                "{label} padded"
            );
        }
        for level in Level::ALL {
            assert_eq!(Level::parse(level.chinese()), Some(level));
            assert_eq!(Level::parse(level.english()), Some(level));
        }
        assert_eq!(Level::parse("oUtStAnDiNg"), Some(Level::Excellent));
        assert_eq!(Level::Excellent.value(), 4.0);
        assert_eq!(Level::Unqualified.value(), 0.0);
    }

    #[test]
    fn near_misses_are_not_labels() {
        for label in [
            "Great",
            "",
            "优 秀",
            "good!",
            "4",
            "合 格",
            "unqualify",
            "passed",
            "一般般",
        ] {
            assert_eq!(Level::parse(label), None, "{label:?}");
        }
    }

    #[test]
    fn gold_parses_ids_grades_and_optional_fields() {
        let text = r#"[{"id": 1, "grade": "3", "requirement": "r", "title": "t", "content": "c", "classification": "优秀"},
                       {"id": "x2", "grade": 4, "classification": " good "}]"#;
        let gold = parse_gold("gold.json", text).unwrap();
        assert_eq!(gold[0].id, "1");
        assert_eq!(gold[1].id, "x2");
        assert_eq!(gold[1].grade, "4");
        assert_eq!(gold[1].level, Level::Good);
        assert_eq!(gold[1].title, "");
        assert_eq!(gold[1].record, 2);
    }

    #[test]
    fn errors_name_file_record_and_id() {
        let e = parse_predictions(
            "pred.json",
            r#"[{"id": 0, "classification": "优秀"}, {"id": 1, "classification": "Great"}]"#,
        )
        .unwrap_err();
        assert_eq!((e.path.as_str(), e.line), ("pred.json", Some(2)));
        assert!(
            e.to_string()
                .starts_with("pred.json:2: id 1: unknown label \"Great\""),
            "{e}"
        );

        let e = parse_predictions(
            "pred.json",
            r#"[{"id": 5, "classification": "good"}, {"id": "5", "classification": "good"}]"#,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "pred.json:2: id 5: duplicate id (also record 1)"
        );

        let e = parse_predictions("pred.json", r#"[{"id": 1.5, "classification": "good"}]"#)
            .unwrap_err();
        assert_eq!(e.line, Some(1));
        let e = parse_predictions("pred.json", r#"[{"classification": "good"}]"#).unwrap_err();
        assert_eq!(e.to_string(), "pred.json:1: missing `id`");
        let e = parse_predictions("pred.json", r#"{"id": 1}"#).unwrap_err();
        assert_eq!(e.line, None);
        let e = parse_predictions("pred.json", "[\n{\"id\": 1,}\n]").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(parse_gold("gold.json", "[]").is_err());
    }

    #[test]
    fn join_reports_missing_and_unknown_ids() {
        let gold = parse_gold(
            "gold.json",
            r#"[{"id": 1, "grade": "3", "classification": "优秀"}, {"id": 2, "grade": "3", "classification": "合格"}]"#,
        )
        .unwrap();
        let preds =
            parse_predictions("pred.json", r#"[{"id": 2, "classification": "pass"}]"#).unwrap();
        let e = join("gold.json", &gold, "pred.json", &preds).unwrap_err();
        assert_eq!(
            e.to_string(),
            "pred.json: missing prediction for 1 id(s): 1 (first at gold.json record 1)"
        );

        let preds = parse_predictions(
            "pred.json",
            r#"[{"id": 2, "classification": "pass"}, {"id": 1, "classification": "fail"}, {"id": 9, "classification": "fail"}]"#,
        )
        .unwrap();
        let e = join("gold.json", &gold, "pred.json", &preds).unwrap_err();
        assert_eq!(
            e.to_string(),
            "pred.json:3: id 9: no essay with this id in gold.json"
        );

        let preds = parse_predictions(
            "pred.json",
            r#"[{"id": "2", "classification": "pass"}, {"id": 1, "classification": "fail"}]"#,
        )
        .unwrap();
        let joined = join("gold.json", &gold, "pred.json", &preds).unwrap();
        assert_eq!(
            joined.iter().map(|j| j.predicted).collect::<Vec<_>>(),
            [Level::Unqualified, Level::Qualified]
        );
    }
}
