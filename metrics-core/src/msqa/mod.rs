//! MSQA_Short — materials-science true/false questions, scored as the ScienceEval toolkit does.
//!
//! Reference: `ScienceOne-AI/ScienceEval` `benchmarks/MSQA_Short/run.py` (commit 1683e49):
//! `generate_answers`, `answer_verify`, `answer_eval`, `compute_score`. Every record of an
//! `evaluation.json` is re-judged from its `generation` and `usage.finish_reason`; the stored
//! `pred`/`result` are never trusted (a difference is reported as a warning).
//!
//! ```text
//! per record:
//!   generation.content = None and generation.reasoning_content = None  → no_generation
//!   usage.finish_reason != "stop"                                       → truncated (wrong)
//!   C = content.upper():  "YES" in C → pred YES;  else "NO" in C → pred NO;
//!                         else pred = C, result = None                  → extraction failure (wrong)
//!   result = (gold.upper() == pred)
//! accuracy (overall_score)  = correct / records
//! answer_coverage           = generated / records          (scorebench's scalar summary)
//! average_completion_tokens = Σ completion_tokens (non-null, truncated included, no_generation
//!                             excluded) / (records − no_generation)
//! ```
//! Official quirks reproduced: substring search, so "KNOW"/"NONE" read as NO and "EYES" as YES,
//! and YES wins when both occur; Python's full Unicode `upper()` ("yeſ" → "YES"); gold is
//! upper-cased but not stripped; a null `completion_tokens` is left out of the sum but its record
//! stays in the denominator; `score_by_task` has the single task "Material".
//!
//! Where the official code would crash, scorebench reports instead: no records → input error
//! (official: ZeroDivisionError); no generated answer → `average_completion_tokens` is `null` with
//! a warning (official: ZeroDivisionError, no score.json written); content `null` with reasoning
//! present and `finish_reason` "stop" (the official client never writes this; `answer_verify`
//! would raise) → input error naming the record. A record whose `generation` is `null` counts as
//! no_generation; a missing `usage` or `finish_reason` counts as truncated (`.get` gives None).
//!
//! The subset breakdown by `subtask` (the dataset's `question_type`) is the one the official
//! README promises and the code never produces. [`official_score_json`] rebuilds `score.json`
//! without ever writing an API key. The paper authors' own rule: [`paper`].

pub mod paper;
pub mod reply;

use serde::Deserialize;
use serde_json::{Map, Value, json};

pub use reply::{Generation, ReplyError, normalise_reply, python_strip};

use crate::error::{InputError, MetricError};
use crate::json_array::{self, ArrayError};
use crate::report::{InputFile, MetricValue, Metrics, Overall, Report, Subset, Warning};
use crate::text::Text;

/// `usage` of a record.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub completion_tokens: Option<u64>,
    #[serde(default)]
    pub finish_reason: Option<String>,
}

/// One record of `evaluation.json` (unused fields such as `question` and `task` are ignored).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct EvalRecord {
    pub id: String,
    /// The dataset's `question_type`.
    #[serde(default)]
    pub subtask: Option<String>,
    pub gold: String,
    #[serde(default)]
    pub generation: Option<Generation>,
    #[serde(default)]
    pub usage: Option<Usage>,
    /// The stored `pred`, compared with the re-derived one (never used for scoring).
    #[serde(default, rename = "pred")]
    pub stored_pred: Option<String>,
    /// The stored `result`, compared with the re-derived one (never used for scoring).
    #[serde(default, rename = "result")]
    pub stored_result: Option<bool>,
    /// 1-based position in the file (record number in a JSON array, line in JSONL).
    #[serde(skip)]
    pub record: usize,
}

/// Parse an `evaluation.json` (a JSON array of records) or its JSONL log `evaluation.log` (one
/// record per line; blank lines skipped). Every problem names the file and record.
pub fn parse_evaluation<'a>(
    file: &str,
    text: impl Into<Text<'a>>,
) -> Result<Vec<EvalRecord>, InputError> {
    parse_evaluation_with(file, text, |_| {})
}

/// [`parse_evaluation`], handing each record to `shrink` as it is read (before the next one),
/// e.g. to drop texts the caller's rule never reads.
pub fn parse_evaluation_with<'a>(
    file: &str,
    text: impl Into<Text<'a>>,
    mut shrink: impl FnMut(&mut EvalRecord),
) -> Result<Vec<EvalRecord>, InputError> {
    let read_error = |e: std::io::Error| crate::text::read_error(file, &e);
    let mut text = text.into().strip_bom().map_err(read_error)?;
    // One record at a time: each element or line becomes an `EvalRecord` before the next is
    // read. Syntax errors anywhere are reported before the first bad record, as when the whole
    // file was parsed first.
    let mut to_record = |number: usize, value: Value| -> Result<EvalRecord, InputError> {
        let id = value
            .get("id")
            .and_then(Value::as_str)
            .map(|id| format!("id {id}: "))
            .unwrap_or_default();
        let mut record: EvalRecord = serde_json::from_value(value).map_err(|e| {
            InputError::at_line(file, number, format!("{id}not an evaluation record: {e}"))
        })?;
        record.record = number;
        shrink(&mut record);
        Ok(record)
    };
    let mut records = Vec::new();
    let mut first_error = None;
    if text.first_non_space().map_err(read_error)? == Some('[') {
        let read = json_array::for_each_in_seq(text, |number, value| {
            records.push(to_record(number, value)?);
            Ok(())
        });
        match read {
            Ok(()) => {}
            Err(ArrayError::Json(e)) => {
                return Err(InputError::new(
                    file,
                    (e.line() > 0).then_some(e.line()),
                    format!("expected a JSON array of evaluation records: {e}"),
                ));
            }
            // (for_each_in_seq reports a non-array as `Json`; kept total all the same)
            Err(ArrayError::NotArray(kind)) => {
                return Err(InputError::whole_file(
                    file,
                    format!("expected a JSON array of evaluation records, found {kind}"),
                ));
            }
            Err(ArrayError::Element(e)) => first_error = Some(e),
        }
    } else {
        text.for_each_line(file, |number, line| {
            if line.trim().is_empty() {
                return Ok(());
            }
            let value = serde_json::from_str(line)
                .map_err(|e| InputError::at_line(file, number, format!("not valid JSON: {e}")))?;
            if first_error.is_none() {
                match to_record(number, value) {
                    Ok(record) => records.push(record),
                    Err(e) => first_error = Some(e),
                }
            }
            Ok(())
        })?;
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    if records.is_empty() {
        return Err(InputError::whole_file(
            file,
            "no records (the official score divides by the number of records: ZeroDivisionError)",
        ));
    }
    Ok(records)
}

/// Drop the texts the official rule does not read: `reasoning_content` counts only by being
/// there (it stays `Some("")`); `content` is what `answer_verify` reads and stays.
pub fn drop_unjudged_text(record: &mut EvalRecord) {
    if let Some(reasoning) = record
        .generation
        .as_mut()
        .and_then(|g| g.reasoning_content.as_mut())
    {
        *reasoning = String::new();
    }
}

/// How the official rule classifies one record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    NoGeneration,
    Truncated,
    ExtractionFailure,
    Correct,
    Wrong,
}

/// One record re-judged: the `pred` and `result` the official code writes, and the tokens it sums.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    pub outcome: Outcome,
    pub pred: Option<String>,
    pub result: Option<bool>,
    pub completion_tokens: Option<u64>,
}

/// Python's `str.upper()` (full Unicode case mapping, e.g. "ß" → "SS", "ſ" → "S").
pub fn python_upper(text: &str) -> String {
    text.to_uppercase()
}

/// `answer_verify`: the predicted answer and the result for a generated, untruncated `content`.
/// Returns `(pred, Some(correct))`, or `(upper-cased content, None)` when neither YES nor NO occurs.
pub fn answer_verify(gold: &str, content: &str) -> (String, Option<bool>) {
    let upper = python_upper(content);
    let pred = if upper.contains("YES") {
        "YES"
    } else if upper.contains("NO") {
        "NO"
    } else {
        return (upper, None);
    };
    (pred.to_string(), Some(python_upper(gold) == pred))
}

/// Re-judge one record with the official rule. `Err` only for a record the official code cannot
/// score (content null while reasoning is present and the reply finished).
pub fn judge(record: &EvalRecord) -> Result<Judgement, String> {
    let generation = match &record.generation {
        Some(g) if !g.is_empty() => g,
        _ => {
            return Ok(Judgement {
                outcome: Outcome::NoGeneration,
                pred: None,
                result: None,
                completion_tokens: None,
            });
        }
    };
    let usage = record.usage.clone().unwrap_or_default();
    if usage.finish_reason.as_deref() != Some("stop") {
        return Ok(Judgement {
            outcome: Outcome::Truncated,
            pred: None,
            result: None,
            completion_tokens: usage.completion_tokens,
        });
    }
    let Some(content) = &generation.content else {
        return Err("generation.content is null while reasoning_content is set and finish_reason is \"stop\"; \
                    the official client never writes this and answer_verify cannot read it"
            .into());
    };
    let (pred, result) = answer_verify(&record.gold, content);
    let outcome = match result {
        None => Outcome::ExtractionFailure,
        Some(true) => Outcome::Correct,
        Some(false) => Outcome::Wrong,
    };
    Ok(Judgement {
        outcome,
        pred: Some(pred),
        result,
        completion_tokens: usage.completion_tokens,
    })
}

/// The official counters (`answer_eval`) over some records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tally {
    pub total: usize,
    pub no_generation: usize,
    pub truncated: usize,
    pub extraction_failure: usize,
    pub correct: usize,
    /// Σ non-null `completion_tokens` of generated records.
    pub completion_tokens: u64,
}

impl Tally {
    pub fn add(&mut self, judgement: &Judgement) {
        self.total += 1;
        match judgement.outcome {
            Outcome::NoGeneration => self.no_generation += 1,
            Outcome::Truncated => self.truncated += 1,
            Outcome::ExtractionFailure => self.extraction_failure += 1,
            Outcome::Correct => self.correct += 1,
            Outcome::Wrong => {}
        }
        if judgement.outcome != Outcome::NoGeneration {
            // Saturating: a sum past 2^64 is nonsense input, and must not panic.
            self.completion_tokens = self
                .completion_tokens
                .saturating_add(judgement.completion_tokens.unwrap_or(0));
        }
    }

    pub fn generated(&self) -> usize {
        self.total - self.no_generation
    }

    pub fn not_truncated(&self) -> usize {
        self.generated() - self.truncated
    }

    pub fn extraction_success(&self) -> usize {
        self.not_truncated() - self.extraction_failure
    }

    /// `overall_score` = correct / records.
    pub fn accuracy(&self) -> Result<f64, MetricError> {
        ratio(self.correct as f64, self.total, "no records")
    }

    /// generated / records (scorebench's one-number summary of `answer_coverage`).
    pub fn answer_coverage(&self) -> Result<f64, MetricError> {
        ratio(self.generated() as f64, self.total, "no records")
    }

    /// Σ completion_tokens / generated answers.
    pub fn average_completion_tokens(&self) -> Result<f64, MetricError> {
        ratio(
            self.completion_tokens as f64,
            self.generated(),
            "no generated answer (official: ZeroDivisionError)",
        )
    }

    /// The official `answer_coverage` object.
    pub fn answer_coverage_json(&self) -> Value {
        json!({
            "total": self.total,
            "no_generation": self.no_generation,
            "generated_answers": {
                "total": self.generated(),
                "by_truncation": {"truncated": self.truncated, "not_truncated": self.not_truncated()},
                "by_extraction": {"success": self.extraction_success(), "failure": self.extraction_failure}
            }
        })
    }

    /// Report metrics: `accuracy`, `answer_coverage`, `average_completion_tokens`, then the
    /// official coverage counts as numbers (`no_generation`, `generated_answers`, `truncated`,
    /// `not_truncated`, `extraction_success`, `extraction_failure`) and `correct`.
    pub fn metrics(&self) -> Metrics {
        let count = |n: usize| MetricValue::Scalar(Some(n as f64));
        let mut m = Metrics::new();
        m.insert("accuracy".into(), MetricValue::from_result(self.accuracy()));
        m.insert(
            "answer_coverage".into(),
            MetricValue::from_result(self.answer_coverage()),
        );
        m.insert(
            "average_completion_tokens".into(),
            MetricValue::from_result(self.average_completion_tokens()),
        );
        m.insert("no_generation".into(), count(self.no_generation));
        m.insert("generated_answers".into(), count(self.generated()));
        m.insert("truncated".into(), count(self.truncated));
        m.insert("not_truncated".into(), count(self.not_truncated()));
        m.insert(
            "extraction_success".into(),
            count(self.extraction_success()),
        );
        m.insert("extraction_failure".into(), count(self.extraction_failure));
        m.insert("correct".into(), count(self.correct));
        m
    }
}

fn ratio(numerator: f64, denominator: usize, why: &str) -> Result<f64, MetricError> {
    if denominator == 0 {
        return Err(MetricError::undefined(why));
    }
    // Python's int / int is correctly rounded; so is this while both counts are below 2^53.
    Ok(numerator / denominator as f64)
}

/// Re-judge every record (file order). Errors name the file, record and id.
pub fn judge_all(file: &str, records: &[EvalRecord]) -> Result<Vec<Judgement>, InputError> {
    records
        .iter()
        .map(|r| {
            judge(r)
                .map_err(|why| InputError::at_line(file, r.record, format!("id {}: {why}", r.id)))
        })
        .collect()
}

/// Subtask name for a record without one.
pub const NO_SUBTASK: &str = "(no subtask)";

/// The official `score.json`, rebuilt from a tally: `model.params` is what the caller passes,
/// with any `api_key` removed (scorebench never writes a key). `Err` where the official code
/// crashes (no records, or no generated answer: ZeroDivisionError).
pub fn official_score_json(
    tally: &Tally,
    model_name: &str,
    mut params: Map<String, Value>,
) -> Result<Value, MetricError> {
    let score = tally.accuracy()?;
    let average = tally.average_completion_tokens()?;
    params.remove("api_key");
    Ok(json!({
        "dataset": {"name": "MSQA_short", "total_questions": tally.total, "script_version": "v1.0", "metrics": ["ACC"]},
        "model": {"name": model_name, "params": params},
        "evaluation": {"overall_score": score, "score_by_task": {"Material": score}},
        "answer_coverage": tally.answer_coverage_json(),
        "average_completion_tokens": average,
    }))
}

/// Score an `evaluation.json` with the official rule: overall, one subset per subtask (in order
/// of first appearance, i.e. dataset order), per-record samples, and warnings where a stored
/// `pred`/`result` differs from the re-derived one or where the official code would crash.
pub fn score_evaluation(input: InputFile, records: &[EvalRecord]) -> Result<Report, InputError> {
    score_evaluation_with(input, records, true)
}

/// [`score_evaluation`], with or without the per-record `samples` (`None` without).
pub fn score_evaluation_with(
    input: InputFile,
    records: &[EvalRecord],
    with_samples: bool,
) -> Result<Report, InputError> {
    let file = input.path.clone();
    let judgements = judge_all(&file, records)?;
    let mut overall = Tally::default();
    let mut subtasks: Vec<(&str, Tally)> = Vec::new();
    let mut warnings = Vec::new();
    let mut samples = Vec::with_capacity(if with_samples { records.len() } else { 0 });
    for (record, judgement) in records.iter().zip(&judgements) {
        overall.add(judgement);
        let subtask = record.subtask.as_deref().unwrap_or(NO_SUBTASK);
        match subtasks.iter_mut().find(|(name, _)| *name == subtask) {
            Some((_, tally)) => tally.add(judgement),
            None => {
                let mut tally = Tally::default();
                tally.add(judgement);
                subtasks.push((subtask, tally));
            }
        }
        if record.stored_pred != judgement.pred || record.stored_result != judgement.result {
            warnings.push(Warning {
                path: file.clone(),
                line: Some(record.record),
                message: format!(
                    "id {}: stored pred {:?} / result {:?} differ from the official rule's {:?} / {:?}; scored by the rule",
                    record.id, record.stored_pred, record.stored_result, judgement.pred, judgement.result
                ),
            });
        }
        if !with_samples {
            continue;
        }
        samples.push(json!({
            "record": record.record,
            "id": record.id,
            "subtask": record.subtask,
            "gold": record.gold,
            "pred": judgement.pred,
            "result": judgement.result,
            "outcome": judgement.outcome,
            "completion_tokens": judgement.completion_tokens,
        }));
    }
    if overall.generated() == 0 {
        warnings.push(Warning {
            path: file.clone(),
            line: None,
            message: "no record has a generated answer, so average_completion_tokens is undefined (null); \
                      the official run.py stops here with ZeroDivisionError and writes no score.json"
                .into(),
        });
    }
    Ok(Report {
        benchmark: "msqa".into(),
        variant: "official".into(),
        inputs: vec![input],
        overall: Overall {
            n: overall.total,
            metrics: overall.metrics(),
        },
        subsets: subtasks
            .into_iter()
            .map(|(name, tally)| Subset {
                name: name.to_string(),
                n: tally.total,
                metrics: tally.metrics(),
            })
            .collect(),
        samples: with_samples.then_some(samples),
        warnings,
    })
}

/// Parse and score an `evaluation.json` text (official rule); `inputs` carries its SHA-256.
pub fn score_evaluation_text(file: &str, text: &str) -> Result<Report, InputError> {
    let records = parse_evaluation(file, text)?;
    score_evaluation(InputFile::from_bytes(file, text.as_bytes()), &records)
}

/// The tally of all records (for [`official_score_json`]).
pub fn tally(judgements: &[Judgement]) -> Tally {
    let mut tally = Tally::default();
    judgements.iter().for_each(|j| tally.add(j));
    tally
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(
        gold: &str,
        content: Option<&str>,
        finish: Option<&str>,
        tokens: Option<u64>,
    ) -> EvalRecord {
        EvalRecord {
            id: "x".into(),
            subtask: None,
            gold: gold.into(),
            generation: Some(Generation {
                reasoning_content: content.map(String::from),
                content: content.map(String::from),
            }),
            usage: Some(Usage {
                completion_tokens: tokens,
                finish_reason: finish.map(String::from),
            }),
            stored_pred: None,
            stored_result: None,
            record: 1,
        }
    }

    #[test]
    fn substring_quirks_of_answer_verify() {
        // Python (run.py answer_verify): "KNOW" contains "NO"; "EYES" contains "YES"; YES wins.
        assert_eq!(
            answer_verify("NO", "I don't KNOW"),
            ("NO".into(), Some(true))
        );
        assert_eq!(answer_verify("YES", "none"), ("NO".into(), Some(false)));
        assert_eq!(answer_verify("YES", "my eyes"), ("YES".into(), Some(true)));
        assert_eq!(
            answer_verify("NO", "No, not yes"),
            ("YES".into(), Some(false))
        );
        assert_eq!(answer_verify("no", "no"), ("NO".into(), Some(true)));
        // gold upper-cased but not stripped: "YES ".upper() != "YES"
        assert_eq!(answer_verify("YES ", "yes"), ("YES".into(), Some(false)));
        assert_eq!(answer_verify("YES", "maybe"), ("MAYBE".into(), None));
        assert_eq!(answer_verify("YES", ""), ("".into(), None));
        // Python: "yeſ".upper() == "YES"; "straße".upper() == "STRASSE"
        assert_eq!(answer_verify("YES", "yeſ"), ("YES".into(), Some(true)));
        assert_eq!(answer_verify("YES", "straße"), ("STRASSE".into(), None));
    }

    #[test]
    fn outcomes_and_tokens() {
        let truncated = judge(&record("YES", Some("YES"), Some("length"), Some(4096))).unwrap();
        assert_eq!(
            (
                truncated.outcome,
                truncated.pred.clone(),
                truncated.completion_tokens
            ),
            (Outcome::Truncated, None, Some(4096))
        );
        let no_finish = judge(&record("YES", Some("YES"), None, Some(3))).unwrap();
        assert_eq!(no_finish.outcome, Outcome::Truncated);
        let mut failed = record("NO", None, None, Some(7));
        assert_eq!(judge(&failed).unwrap().outcome, Outcome::NoGeneration);
        failed.generation = None;
        assert_eq!(judge(&failed).unwrap().completion_tokens, None);
        let mut odd = record("NO", Some("NO"), Some("stop"), Some(1));
        odd.generation = Some(Generation {
            reasoning_content: Some("NO".into()),
            content: None,
        });
        assert!(judge(&odd).is_err());

        let judgements: Vec<Judgement> = [
            record("YES", Some("YES"), Some("length"), Some(4096)),
            record("NO", None, None, None),
            record("YES", Some("YES"), Some("stop"), None),
            record("NO", Some("NO"), Some("stop"), Some(9)),
        ]
        .iter()
        .map(|r| judge(r).unwrap())
        .collect();
        let t = tally(&judgements);
        assert_eq!(
            (
                t.total,
                t.no_generation,
                t.truncated,
                t.correct,
                t.completion_tokens
            ),
            (4, 1, 1, 2, 4105)
        );
        assert_eq!(t.accuracy(), Ok(0.5));
        // Python: 4105 / 3 == 1368.3333333333333
        assert_eq!(t.average_completion_tokens(), Ok(1368.3333333333333));
        assert_eq!(t.answer_coverage(), Ok(0.75));
    }

    #[test]
    fn nothing_generated_is_null_with_warning_and_no_score_json() {
        let records = vec![
            record("NO", None, None, None),
            record("YES", None, None, None),
        ];
        let report = score_evaluation(InputFile::from_bytes("e.json", b""), &records).unwrap();
        assert_eq!(
            report.metric("overall", "average_completion_tokens"),
            Some(&MetricValue::Scalar(None))
        );
        assert_eq!(
            report.metric("overall", "accuracy"),
            Some(&MetricValue::Scalar(Some(0.0)))
        );
        assert!(
            report
                .warnings
                .iter()
                .any(|w| w.message.contains("ZeroDivisionError"))
        );
        let t = tally(&judge_all("e.json", &records).unwrap());
        assert!(official_score_json(&t, "m", Map::new()).is_err());
    }

    #[test]
    fn parsing_json_and_jsonl_with_located_errors() {
        let one = r#"{"id": "a", "subtask": "s", "gold": "YES", "generation": {"reasoning_content": "YES", "content": "YES"}, "pred": "YES", "result": true, "usage": {"completion_tokens": 1, "finish_reason": "stop"}}"#;
        let array = parse_evaluation("e.json", &format!("[{one}, {one}]")).unwrap();
        let lines = parse_evaluation("e.log", &format!("{one}\n\n{one}\n")).unwrap();
        assert_eq!(array.len(), 2);
        assert_eq!(lines[1].record, 3);
        assert_eq!(array[1].record, 2);
        let e = parse_evaluation("e.json", r#"[{"id": "a", "gold": 1}]"#).unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(
            e.message.starts_with("id a: not an evaluation record"),
            "{e}"
        );
        let e = parse_evaluation("e.log", &format!("{one}\n{{bad\n")).unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(parse_evaluation("e.json", "[]").is_err());
    }

    #[test]
    fn score_json_never_carries_the_key() {
        let judgements = [judge(&record("YES", Some("yes"), Some("stop"), Some(2))).unwrap()];
        let mut params = Map::new();
        params.insert("api_key".into(), json!("sk-secret"));
        params.insert("model".into(), json!("m"));
        let score = official_score_json(&tally(&judgements), "m", params).unwrap();
        assert!(!score.to_string().contains("sk-secret"));
        assert_eq!(score["evaluation"]["overall_score"], 1.0);
        assert_eq!(score["average_completion_tokens"], 2.0);
    }
}
