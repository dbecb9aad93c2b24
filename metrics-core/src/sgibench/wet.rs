//! SGI-Bench Wet Experiment: protocol parser, step comparator and log scoring.
//!
//! Matches `task_3_wet_experiment/step_2_score.py` (`parse_experiment_steps`,
//! `identify_variable_types`, `compare_exp_steps`; strict scores, the ones the official summary
//! prints).
//!
//! ```text
//! step       = (\w+)\s*=\s*<([^>]+)>\(\s*([\s\S]*?)(?=\n\s*\)\s*$)      re.MULTILINE, finditer
//! param line = ^\s*(\w+)\s*=\s*(.*?)\s*(?:,)?\s*$                       per stripped body line
//! similarity = 0.0 if len(gold) != len(pred); 1.0 if n <= 1;
//!              else 1 − discordant / (n(n−1)/2)
//!              (i, j) discordant ⇔ gold[i] <> gold[j] and pred[i] <> pred[j] order oppositely,
//!              comparing action-name STRINGS (code-point order; ties never discordant)
//! parameter accuracy = 1 − errors / max(len(gold), len(pred))
//! final      = (similarity + parameter accuracy) / 2
//! ```
//!
//! Official quirks reproduced:
//! - A one-line step `v = <A>(k=1)` has no lone `)` line, so its body runs on to the next lone
//!   `)` and swallows the following steps (their `x = <B>(` lines become "parameters").
//! - A `)` followed by text on its line does not close a step.
//! - `>` inside an action name makes the step unparseable (`[^>]+` stops at the first `>` and
//!   `(` must follow it).
//! - Parameter lines that do not start with `key=` (e.g. `"c"=4`, continuation lines of a
//!   multi-line value) are ignored; a repeated key keeps its first position and last value.
//! - Values: trailing comma and surrounding whitespace dropped, then one pair of surrounding
//!   `"` removed (a lone `"` becomes the empty string).
//! - Per step (up to the shorter length): different action name → one error; different key sets
//!   → one error; else for each key a value is "generated" when it equals any step's output
//!   name; generated vs generated is right only if the prediction's variable maps to the gold's;
//!   raw vs raw is always right (values are never compared); mixed is wrong. The mapping
//!   pred output → gold output is recorded only from a step without errors.
//! - Each extra or missing step is one error.
//! - Both sequences empty: `max(0, 0)` → ZeroDivisionError, which kills the official run; here
//!   the item gets an error and is left out.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::log::{
    ItemResult, build_report, for_each_record, mean_metrics, null_record_warning, string_field,
    warn,
};
use super::{py_isspace, py_isword, py_strip};
use crate::error::InputError;
use crate::report::Report;
use crate::text::Text;

/// One parsed protocol step: `output = <action>(key=value, …)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    pub action: String,
    pub input: IndexMap<String, String>,
    pub output: String,
}

/// `parse_experiment_steps`: every step of a protocol text, in order.
pub fn parse_steps(text: &str) -> Vec<Step> {
    let chars: Vec<char> = text.chars().collect();
    let mut steps = Vec::new();
    let mut pos = 0;
    while pos < chars.len() {
        if !py_isword(chars[pos]) {
            pos += 1;
            continue;
        }
        let mut word_end = pos;
        while word_end < chars.len() && py_isword(chars[word_end]) {
            word_end += 1;
        }
        match match_step(&chars, pos, word_end) {
            Some((step, end)) => {
                steps.push(step);
                pos = end;
            }
            // Every start inside this word fails the same way: what follows the word decides.
            None => pos = word_end,
        }
    }
    steps
}

fn skip_space(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() && py_isspace(chars[i]) {
        i += 1;
    }
    i
}

/// The step pattern at a word `chars[start..word_end]`: the step and where the match ends.
fn match_step(chars: &[char], start: usize, word_end: usize) -> Option<(Step, usize)> {
    let mut i = skip_space(chars, word_end);
    if chars.get(i) != Some(&'=') {
        return None;
    }
    i = skip_space(chars, i + 1);
    if chars.get(i) != Some(&'<') {
        return None;
    }
    let action_start = i + 1;
    let action_end = action_start + chars[action_start..].iter().position(|&c| c == '>')?;
    if action_end == action_start || chars.get(action_end + 1) != Some(&'(') {
        return None;
    }
    let body_start = action_end + 2;
    let space_end = skip_space(chars, body_start);
    // Greedy `\s*`, then the lazy body up to the first position where the lookahead holds; if
    // none, `\s*` gives back whitespace one character at a time (the body is then empty).
    let (body, end) = match (space_end..chars.len()).find(|&p| closes_step(chars, p)) {
        Some(p) => (&chars[space_end..p], p),
        None => {
            let p = (body_start..space_end)
                .rev()
                .find(|&p| closes_step(chars, p))?;
            (&chars[p..p], p)
        }
    };
    let action: String = chars[action_start..action_end].iter().collect();
    let body: String = body.iter().collect();
    let step = Step {
        action: py_strip(&action).to_owned(),
        input: parse_params(py_strip(&body)),
        output: chars[start..word_end].iter().collect(),
    };
    Some((step, end))
}

/// The lookahead `\n\s*\)\s*$` (MULTILINE) at `p`.
fn closes_step(chars: &[char], p: usize) -> bool {
    if chars.get(p) != Some(&'\n') {
        return false;
    }
    let mut q = skip_space(chars, p + 1);
    if chars.get(q) != Some(&')') {
        return false;
    }
    q += 1;
    // `\s*$`: some prefix of the following whitespace ends at a newline or the end of the text.
    loop {
        match chars.get(q) {
            None | Some('\n') => return true,
            Some(&c) if py_isspace(c) => q += 1,
            Some(_) => return false,
        }
    }
}

fn parse_params(body: &str) -> IndexMap<String, String> {
    let mut params = IndexMap::new();
    for line in body.split('\n') {
        let line = py_strip(line);
        if line.is_empty() || line == ")" {
            continue;
        }
        if let Some((key, value)) = parse_param_line(line) {
            params.insert(key, value);
        }
    }
    params
}

fn parse_param_line(line: &str) -> Option<(String, String)> {
    let key_end = line.find(|c: char| !py_isword(c)).unwrap_or(line.len());
    if key_end == 0 {
        return None;
    }
    let rest = line[key_end..].trim_start_matches(py_isspace);
    let rest = rest.strip_prefix('=')?.trim_start_matches(py_isspace);
    // The lazy value leaves the longest `\s*,?\s*` tail.
    let mut value = rest.trim_end_matches(py_isspace);
    if let Some(v) = value.strip_suffix(',') {
        value = v.trim_end_matches(py_isspace);
    }
    let value = py_strip(value);
    let value = if value.starts_with('"') && value.ends_with('"') {
        if value.len() == 1 {
            ""
        } else {
            &value[1..value.len() - 1]
        }
    } else {
        value
    };
    Some((line[..key_end].to_owned(), value.to_owned()))
}

/// How one aligned step compared (`compare_exp_steps` details).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum StepStatus {
    Success,
    Error,
}

/// The result of comparing two step lists.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Action sequence similarity (`order_similarity`).
    pub action_similarity: f64,
    /// `None` when both lists are empty (the official code divides by zero).
    pub parameter_accuracy: Option<f64>,
    /// One status per position up to the longer length (extra/missing steps are errors).
    pub details: Vec<StepStatus>,
}

/// Kendall-style order similarity of two action-name sequences (`kendall_tau_distance`).
pub fn action_similarity(gold: &[&str], pred: &[&str]) -> f64 {
    if gold.len() != pred.len() {
        return 0.0;
    }
    let n = gold.len();
    if n <= 1 {
        return 1.0;
    }
    let mut discordant = 0usize;
    for i in 0..n {
        for j in i + 1..n {
            if (gold[i] < gold[j] && pred[i] > pred[j]) || (gold[i] > gold[j] && pred[i] < pred[j])
            {
                discordant += 1;
            }
        }
    }
    let max = (n * (n - 1)) as f64 / 2.0;
    1.0 - discordant as f64 / max
}

/// `compare_exp_steps(gold, pred)`.
pub fn compare_steps(gold: &[Step], pred: &[Step]) -> Comparison {
    let gold_actions: Vec<&str> = gold.iter().map(|s| s.action.as_str()).collect();
    let pred_actions: Vec<&str> = pred.iter().map(|s| s.action.as_str()).collect();
    let similarity = action_similarity(&gold_actions, &pred_actions);

    let generated_gold: std::collections::HashSet<&str> =
        gold.iter().map(|s| s.output.as_str()).collect();
    let generated_pred: std::collections::HashSet<&str> =
        pred.iter().map(|s| s.output.as_str()).collect();
    let mut pred_to_gold: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    let mut errors = 0usize;
    let mut details = Vec::new();

    for (g, p) in gold.iter().zip(pred) {
        let same_keys =
            g.input.len() == p.input.len() && g.input.keys().all(|k| p.input.contains_key(k));
        let ok = g.action == p.action
            && same_keys
            && g.input.iter().all(|(key, value_gold)| {
                let value_pred = p.input.get(key).map_or("", String::as_str);
                match (
                    generated_gold.contains(value_gold.as_str()),
                    generated_pred.contains(value_pred),
                ) {
                    (true, true) => pred_to_gold.get(value_pred) == Some(&value_gold.as_str()),
                    (false, false) => true,
                    _ => false,
                }
            });
        if ok {
            pred_to_gold.insert(p.output.as_str(), g.output.as_str());
            details.push(StepStatus::Success);
        } else {
            errors += 1;
            details.push(StepStatus::Error);
        }
    }
    let longer = gold.len().max(pred.len());
    errors += longer - gold.len().min(pred.len());
    details.resize(longer, StepStatus::Error);
    let parameter_accuracy = (longer > 0).then(|| 1.0 - errors as f64 / longer as f64);
    Comparison {
        action_similarity: similarity,
        parameter_accuracy,
        details,
    }
}

/// The metric keys of a wet-experiment report.
pub const KEYS: [&str; 3] = ["action_similarity", "parameter_accuracy", "final"];

/// Score one item: gold protocol text and predicted protocol text.
pub fn score_item(gold: &str, pred: &str) -> Result<[f64; 3], String> {
    let comparison = compare_steps(&parse_steps(gold), &parse_steps(pred));
    let pa = comparison.parameter_accuracy.ok_or_else(|| {
        "gold and prediction both parse to zero steps (the official run crashes: ZeroDivisionError)".to_owned()
    })?;
    let ss = comparison.action_similarity;
    Ok([ss, pa, (ss + pa) / 2.0])
}

/// Score a wet-experiment step-1 (or step-2) log: every record needs `answer` (gold protocol)
/// and `model_answer` (the extracted prediction).
pub fn score_log<'t>(name: &str, text: impl Into<Text<'t>>) -> Result<Report, InputError> {
    let text = text.into();
    let inputs = text.input_file(name).into_iter().collect();
    let mut items = Vec::new();
    let mut warnings = Vec::new();
    // One record at a time: of each only its numbers are kept, never the protocols.
    for_each_record(name, text, |record| {
        let Some(fields) = record.fields else {
            warnings.push(null_record_warning(name, record.number));
            return Ok(());
        };
        let mut item = ItemResult::of_record(record.number, fields);
        let idx = item.idx.clone();
        let gold = string_field(name, record.number, fields, "answer")?;
        let pred = string_field(name, record.number, fields, "model_answer")?;
        match score_item(gold, pred) {
            Ok(v) => item.values = KEYS.iter().copied().zip(v.map(Some)).collect(),
            Err(e) => {
                warnings.push(warn(name, record.number, format!("{idx}: {e}; left out")));
                item.error = Some(e);
            }
        }
        items.push(item);
        Ok(())
    })?;
    Ok(build_report(
        "sgi-wet",
        inputs,
        items,
        warnings,
        |scored| mean_metrics(&KEYS, scored),
        true,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_step_and_its_parameters() {
        let steps = parse_steps("x = <Mix it>(\n  a=\"1\",\n  b = 2 ,\n)\n");
        assert_eq!(steps.len(), 1);
        assert_eq!(steps[0].action, "Mix it");
        assert_eq!(steps[0].output, "x");
        assert_eq!(steps[0].input.get("a").map(String::as_str), Some("1"));
        assert_eq!(steps[0].input.get("b").map(String::as_str), Some("2"));
    }

    #[test]
    fn empty_body_backtracks_into_whitespace() {
        let steps = parse_steps("x = <A>(\n)");
        assert_eq!(steps.len(), 1);
        assert!(steps[0].input.is_empty());
    }

    #[test]
    fn similarity_edges() {
        assert_eq!(action_similarity(&["a"], &["b"]), 1.0);
        assert_eq!(action_similarity(&["a", "b"], &["a"]), 0.0);
        assert_eq!(action_similarity(&["a", "b"], &["b", "a"]), 0.0);
        assert_eq!(action_similarity(&["a", "a"], &["b", "a"]), 1.0);
    }

    #[test]
    fn both_empty_is_an_item_error() {
        assert!(score_item("", "nothing").is_err());
        assert_eq!(score_item("x = <A>(\n)\n", "").unwrap(), [0.0, 0.0, 0.0]);
    }
}
