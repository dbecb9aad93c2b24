//! The MSQA paper authors' true/false rule (variant `paper`), which differs from the toolkit's.
//!
//! Reference: `jerry3027/MSQA` `MSQA/baselines/evaluation.py` (commit 108bb25),
//! `evaluate_true_false_by_file`, `compute_metrics`, `filter_bad_question`.
//! ```text
//! correct  ⇔ (gold == "YES" and "YES" in raw) or (gold == "NO" and "NO" in raw)
//!            raw = the whole output, or raw[-5:] (last 5 characters) when the file path
//!            contains "Reasoning"
//! printed  = round(correct / (judged + 0.00001), 4) · 100          (compute_metrics, in %)
//! accuracy = correct / judged
//! ```
//! Quirks reproduced: case-sensitive search with no upper-casing ("yes" is wrong, "I KNOW IT IS
//! YES" is right for gold NO), gold compared exactly; the last-5-characters window is chosen by
//! the *path* containing "Reasoning"; `+ 0.00001` in the printed percentage and Python's
//! `round` (half-even on the exact binary value), so 5/9 prints as 55.559999999999995;
//! items whose `question` is not among the authors' good questions are dropped first (only when a
//! good-question list is given). `compute_metrics` also counts "mostly correct", which this rule
//! never produces.
//!
//! Inputs: the authors' inference file `[{dataset_item: {question, true_false_question_answer,
//! …}, inference_result}]`, or a toolkit `evaluation.json` whose raw output is
//! `generation.content` (reasoning when content is null; "" for a generation failure).

use std::collections::HashSet;

use serde::Deserialize;
use serde_json::{Value, json};

use super::EvalRecord;
use crate::error::InputError;
use crate::json_array::{self, ArrayError};
use crate::report::{InputFile, MetricValue, Metrics, Overall, Report, Subset, Warning};
use crate::text::Text;

/// One item to judge.
#[derive(Debug, Clone, PartialEq)]
pub struct PaperItem {
    /// The long-form question (the good-question filter's key), when known.
    pub question: Option<String>,
    /// The question type, when known.
    pub subtask: Option<String>,
    pub gold: String,
    pub raw: String,
    /// 1-based record number in its file.
    pub record: usize,
}

/// Options of the paper rule.
#[derive(Debug, Clone, Default)]
pub struct PaperOptions {
    /// Search only the last 5 characters (the authors' rule for files named "…Reasoning…").
    pub last_five: bool,
    /// `filter_bad_question`: keep only items whose `question` is in this set.
    pub good_questions: Option<HashSet<String>>,
}

impl PaperOptions {
    /// The authors' choice of window: last 5 characters when `path` contains "Reasoning".
    pub fn for_path(path: &str) -> Self {
        Self {
            last_five: path.contains("Reasoning"),
            good_questions: None,
        }
    }
}

/// The last `n` characters of `text` (Python `text[-n:]`).
pub fn last_chars(text: &str, n: usize) -> &str {
    match n
        .checked_sub(1)
        .and_then(|k| text.char_indices().rev().nth(k))
    {
        Some((start, _)) => &text[start..],
        None if n == 0 => "",
        None => text,
    }
}

/// The authors' judgement of one output.
pub fn paper_correct(gold: &str, raw: &str, last_five: bool) -> bool {
    let window = if last_five { last_chars(raw, 5) } else { raw };
    (gold == "YES" && window.contains("YES")) || (gold == "NO" && window.contains("NO"))
}

/// What [`paper_correct`] reads of an output, as a short text with the same verdict for every
/// gold and either window ("YES", "NO", "YESNO" or ""): for a caller that does not print the
/// outputs (no `samples`) and need not keep them.
pub fn judged_part(raw: &str, last_five: bool) -> String {
    let window = if last_five { last_chars(raw, 5) } else { raw };
    let mut part = String::new();
    if window.contains("YES") {
        part.push_str("YES");
    }
    if window.contains("NO") {
        part.push_str("NO");
    }
    part
}

/// `round(correct / (judged + 0.00001), 4) * 100`, as `compute_metrics` prints it.
pub fn percent_as_printed(correct: usize, judged: usize) -> f64 {
    let share = correct as f64 / (judged as f64 + 0.00001);
    // Rust's fixed-precision formatting is exact with ties to even, like Python's round().
    format!("{share:.4}").parse::<f64>().unwrap_or(share) * 100.0
}

#[derive(Deserialize)]
struct RawItem {
    dataset_item: DatasetItem,
    inference_result: String,
}

#[derive(Deserialize)]
struct DatasetItem {
    #[serde(default)]
    question: Option<String>,
    #[serde(default)]
    question_type: Option<String>,
    true_false_question_answer: String,
}

/// Whether a JSON text looks like the authors' inference file (array of `{dataset_item, …}`).
pub fn is_inference_file<'a>(text: impl Into<Text<'a>>) -> bool {
    let Ok(text) = text.into().strip_bom() else {
        return false;
    };
    let mut first = None;
    let read = json_array::for_each_in_seq(text, |number, item: Value| {
        if number == 1 {
            first = Some(item.get("dataset_item").is_some());
        }
        Ok::<(), ()>(())
    });
    read.is_ok() && first == Some(true)
}

/// Parse the authors' inference file, one item at a time.
pub fn parse_inference<'a>(
    file: &str,
    text: impl Into<Text<'a>>,
) -> Result<Vec<PaperItem>, InputError> {
    parse_inference_with(file, text, |_| {})
}

/// [`parse_inference`], handing each item to `shrink` as it is read (e.g. [`judged_part`]).
pub fn parse_inference_with<'a>(
    file: &str,
    text: impl Into<Text<'a>>,
    mut shrink: impl FnMut(&mut PaperItem),
) -> Result<Vec<PaperItem>, InputError> {
    let text = text
        .into()
        .strip_bom()
        .map_err(|e| crate::text::read_error(file, &e))?;
    let mut items = Vec::new();
    let read = json_array::for_each_in_seq(text, |number, value| {
        let item: RawItem = serde_json::from_value(value).map_err(|e| {
            InputError::at_line(file, number, format!("expected {{dataset_item: {{true_false_question_answer, …}}, inference_result}}: {e}"))
        })?;
        let mut item = PaperItem {
            question: item.dataset_item.question,
            subtask: item.dataset_item.question_type,
            gold: item.dataset_item.true_false_question_answer,
            raw: item.inference_result,
            record: number,
        };
        shrink(&mut item);
        items.push(item);
        Ok(())
    });
    match read {
        Ok(()) => Ok(items),
        Err(ArrayError::Element(e)) => Err(e),
        Err(ArrayError::Json(e)) => Err(InputError::new(
            file,
            (e.line() > 0).then_some(e.line()),
            format!("expected a JSON array of inference results: {e}"),
        )),
        Err(ArrayError::NotArray(kind)) => Err(InputError::whole_file(
            file,
            format!("expected a JSON array of inference results, found {kind}"),
        )),
    }
}

/// Items from a toolkit `evaluation.json` (consumed: the texts move, nothing is copied).
pub fn from_evaluation(records: Vec<EvalRecord>) -> Vec<PaperItem> {
    records
        .into_iter()
        .map(|r| {
            let raw = r.generation.and_then(|g| g.content.or(g.reasoning_content));
            PaperItem {
                question: None,
                subtask: r.subtask,
                gold: r.gold,
                raw: raw.unwrap_or_default(),
                record: r.record,
            }
        })
        .collect()
}

/// A good-question list: the authors' `final_dataset_filtered.json` (objects with `question`) or
/// a plain JSON array of question strings.
pub fn parse_good_questions<'a>(
    file: &str,
    text: impl Into<Text<'a>>,
) -> Result<HashSet<String>, InputError> {
    let text = text
        .into()
        .strip_bom()
        .map_err(|e| crate::text::read_error(file, &e))?;
    let mut questions = HashSet::new();
    let read = json_array::for_each_in_seq(text, |number, mut value| {
        let question = match value.get_mut("question") {
            Some(q) => q.take(),
            None => value,
        };
        match question {
            Value::String(q) => {
                questions.insert(q);
                Ok(())
            }
            other => Err(InputError::at_line(
                file,
                number,
                format!("expected a question string or {{\"question\": …}}, found {other}"),
            )),
        }
    });
    match read {
        Ok(()) => Ok(questions),
        Err(ArrayError::Element(e)) => Err(e),
        Err(ArrayError::Json(e)) => Err(InputError::new(
            file,
            (e.line() > 0).then_some(e.line()),
            format!("expected a JSON array of questions: {e}"),
        )),
        Err(ArrayError::NotArray(kind)) => Err(InputError::whole_file(
            file,
            format!("expected a JSON array of questions, found {kind}"),
        )),
    }
}

fn metrics(correct: usize, judged: usize) -> Metrics {
    let mut m = Metrics::new();
    let accuracy = (judged > 0).then(|| correct as f64 / judged as f64);
    m.insert("accuracy".into(), MetricValue::Scalar(accuracy));
    m.insert(
        "accuracy_percent_as_printed".into(),
        MetricValue::Scalar(Some(percent_as_printed(correct, judged))),
    );
    m.insert("correct".into(), MetricValue::Scalar(Some(correct as f64)));
    m.insert(
        "incorrect".into(),
        MetricValue::Scalar(Some((judged - correct) as f64)),
    );
    m
}

/// Score items with the authors' rule (`variant` "paper", or "paper-last-5" with the window):
/// overall, one subset per question type when known, per-item samples (`judgment`).
pub fn score_paper(
    inputs: Vec<InputFile>,
    file: &str,
    items: &[PaperItem],
    options: &PaperOptions,
) -> Report {
    let mut warnings = Vec::new();
    let kept: Vec<&PaperItem> = match &options.good_questions {
        Some(good) => items
            .iter()
            .filter(|i| i.question.as_ref().is_some_and(|q| good.contains(q)))
            .collect(),
        None => items.iter().collect(),
    };
    if kept.len() < items.len() {
        warnings.push(Warning {
            path: file.to_string(),
            line: None,
            message: format!(
                "{} of {} items dropped: their question is not in the good-question list (filter_bad_question)",
                items.len() - kept.len(),
                items.len()
            ),
        });
    }
    let verdicts: Vec<bool> = kept
        .iter()
        .map(|i| paper_correct(&i.gold, &i.raw, options.last_five))
        .collect();
    let correct = verdicts.iter().filter(|&&c| c).count();
    let mut groups: Vec<(&str, usize, usize)> = Vec::new();
    for (item, &ok) in kept.iter().zip(&verdicts) {
        let Some(subtask) = item.subtask.as_deref() else {
            continue;
        };
        match groups.iter_mut().find(|(name, _, _)| *name == subtask) {
            Some((_, n, c)) => {
                *n += 1;
                *c += usize::from(ok);
            }
            None => groups.push((subtask, 1, usize::from(ok))),
        }
    }
    let samples = kept
        .iter()
        .zip(&verdicts)
        .map(|(item, &ok)| {
            json!({
                "record": item.record,
                "question": item.question,
                "subtask": item.subtask,
                "gold": item.gold,
                "raw": item.raw,
                "judgment": if ok { "correct" } else { "incorrect" },
            })
        })
        .collect();
    Report {
        benchmark: "msqa".into(),
        variant: if options.last_five {
            "paper-last-5"
        } else {
            "paper"
        }
        .into(),
        inputs,
        overall: Overall {
            n: kept.len(),
            metrics: metrics(correct, kept.len()),
        },
        subsets: groups
            .into_iter()
            .map(|(name, n, c)| Subset {
                name: name.to_string(),
                n,
                metrics: metrics(c, n),
            })
            .collect(),
        samples: Some(samples),
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_sensitive_substring_rule() {
        assert!(paper_correct("YES", "YES", false));
        assert!(!paper_correct("YES", "yes", false));
        assert!(!paper_correct("NO", "No.", false));
        assert!(paper_correct("NO", "I KNOW IT IS YES", false));
        assert!(paper_correct("NO", "YES\nNO", false));
        assert!(!paper_correct("yes", "YES", false));
        // Python: "Reasoning... so the answer is YES."[-5:] == " YES." ; "I KNOW IT IS YES"[-5:] == "S YES"
        assert!(paper_correct(
            "YES",
            "Reasoning... so the answer is YES.",
            true
        ));
        assert!(!paper_correct("NO", "I KNOW IT IS YES", true));
    }

    #[test]
    fn last_chars_counts_characters() {
        // Python: "是的，YES啊"[-5:] == "，YES啊"; "NO"[-5:] == "NO"; "abc"[-0:] == "abc" (not used)
        assert_eq!(last_chars("是的，YES啊", 5), "，YES啊");
        assert_eq!(last_chars("NO", 5), "NO");
        assert_eq!(last_chars("abcdef", 5), "bcdef");
    }

    #[test]
    fn printed_percentages() {
        // Python: round(6/(9+0.00001),4)*100 == 66.67; round(5/(9+0.00001),4)*100 == 55.559999999999995
        assert_eq!(percent_as_printed(6, 9), 66.67);
        assert_eq!(percent_as_printed(5, 9), 55.559999999999995);
        // Python: round(0/(0+0.00001),4)*100 == 0.0
        assert_eq!(percent_as_printed(0, 0), 0.0);
        // Python: round(0.03125, 4) == 0.0312 (a tie, rounded to even)
        assert_eq!(format!("{:.4}", 0.03125_f64), "0.0312");
    }

    #[test]
    fn good_question_filter_and_inputs() {
        let text = r#"[{"dataset_item": {"question": "q0", "true_false_question_answer": "YES"}, "inference_result": "YES"},
                       {"dataset_item": {"question": "q1", "true_false_question_answer": "NO"}, "inference_result": "YES"}]"#;
        assert!(is_inference_file(text));
        assert!(!is_inference_file(r#"[{"id": "a"}]"#));
        let items = parse_inference("m.json", text).unwrap();
        let good = parse_good_questions("g.json", r#"[{"question": "q0"}, "q7"]"#).unwrap();
        let options = PaperOptions {
            last_five: false,
            good_questions: Some(good),
        };
        let report = score_paper(vec![], "m.json", &items, &options);
        assert_eq!(report.overall.n, 1);
        assert_eq!(
            report.metric("overall", "accuracy"),
            Some(&MetricValue::Scalar(Some(1.0)))
        );
        assert_eq!(report.warnings.len(), 1);
        assert!(parse_inference("m.json", r#"[{"dataset_item": {}}]"#).is_err());
        assert!(PaperOptions::for_path("out/model-True-False-Reasoning.json").last_five);
    }
}
