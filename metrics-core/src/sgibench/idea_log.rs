//! SGI-Bench Idea Generation: scoring a log, as `task_2_idea_generation/step_2_score.py` does.
//!
//! The log is a JSON array of records: the step-1 log (dataset row + `generated_data`, the input
//! of step 2) or the step-2 evaluation log (the same records with the scores added, and
//! `{"error": …, "final_score": 0.0}` for an item the official run could not score).
//!
//! ```text
//! per item, each 0–100:
//!   objective_d   = 10 × the 0–10 objective sub-score (see idea_objective)
//!   subjective_d  = 100 if the judges' vote gate says "win", else 0
//!   d             = (objective_d + subjective_d) / 2        d ∈ effectiveness, novelty,
//!                                                                 detailedness, feasibility
//!   final         = (effectiveness + novelty + detailedness + feasibility) / 4
//! overall / per discipline: np.mean over the items scored (error records left out)
//! ```
//!
//! Where each value comes from:
//! - objective: with an embedding table every objective is recomputed from the record; without
//!   one, novelty, effectiveness and detailedness are read from the log (`*_objective`) and are
//!   `null` when it has none; feasibility is read from the log or else computed (no embeddings
//!   needed).
//! - subjective: read from the log (`*_subjective`), else tallied from the stored judge replies
//!   when given, else `null`.
//! - a record without `generated_data` but with `generated_idea_text` is parsed as step 1 would
//!   ([`parse_generated_idea`](super::idea_parse::parse_generated_idea)).
//!
//! Official crashes reproduced per item (the item becomes an error record, reported as a
//! warning naming its idx, and the rest is scored): `related_work` / `existing_solutions`
//! missing or not a Python literal (`ast.literal_eval`), `implementation_order` null,
//! `generated_data` not a dict, an `Idea` that has no `len()` (null, a number).
//! Official exception paths that give a score reproduced: a missing or unreadable
//! `related_work_test` sets BOTH novelty parts to 0; a non-string idea or reference text gives
//! novelty 0 and the keyword hit-rate fallback for effectiveness; a non-string idea has no
//! repetition penalty.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::idea::{self, Gate, JudgeTally, VoteCount};
use super::idea_objective::{self as objective, Embedder, EmbeddingError};
use super::idea_parse::{literal_eval, parse_generated_idea, py_str};
use super::log::{self, ItemResult};
use crate::error::InputError;
use crate::report::{MetricValue, Metrics, Report, Warning};
use crate::text::Text;

/// Stored judge replies: idx → calls `(positions_swapped, reply)`.
type JudgeReplies = HashMap<String, Vec<(bool, Option<String>)>>;

/// The report's metric keys, in order.
pub const METRIC_KEYS: [&str; 5] = [
    "effectiveness",
    "novelty",
    "detailedness",
    "feasibility",
    "final",
];

/// The four scored dimensions, in the official order.
pub const DIMENSIONS: [&str; 4] = ["effectiveness", "novelty", "detailedness", "feasibility"];

/// What besides the log goes into the scores.
#[derive(Default, Clone, Copy)]
pub struct IdeaSources<'a> {
    /// Sentence embeddings: recompute novelty, effectiveness and detailedness.
    pub embeddings: Option<&'a dyn Embedder>,
    /// Stored judge replies `(file name, text)`:
    /// `{"<idx>": {"<model>|swap=False": "<reply>", "<model>|swap=True": …}, …}`, or the same
    /// map under `"judge_outputs"` in each entry; a reply that is not a string is a failed call.
    pub judge_replies: Option<(&'a str, &'a str)>,
}

/// Score an idea-generation log; `embeddings` recomputes the embedding-derived objectives.
pub fn score_log<'t>(
    name: &str,
    text: impl Into<Text<'t>>,
    embeddings: Option<&dyn Embedder>,
) -> Result<Report, InputError> {
    score_log_with(
        name,
        text,
        &IdeaSources {
            embeddings,
            judge_replies: None,
        },
    )
}

/// Score an idea-generation log with embeddings and/or stored judge replies.
pub fn score_log_with<'t>(
    name: &str,
    text: impl Into<Text<'t>>,
    sources: &IdeaSources<'_>,
) -> Result<Report, InputError> {
    score_log_with_samples(name, text, sources, true)
}

/// [`score_log_with`], with or without the per-item `samples` (`None` without). The log is
/// read one record at a time: of each item only its scores are kept, never its texts.
pub fn score_log_with_samples<'t>(
    name: &str,
    text: impl Into<Text<'t>>,
    sources: &IdeaSources<'_>,
    with_samples: bool,
) -> Result<Report, InputError> {
    let text = text.into();
    let inputs = text.input_file(name).into_iter().collect();
    // The log's own errors (syntax, an entry that is no record) come before the replies'.
    let replies = sources
        .judge_replies
        .map(|(rname, rtext)| parse_judge_replies(rname, rtext))
        .transpose();

    let mut results = Vec::new();
    let mut warnings = Vec::new();
    let mut without_subjective = 0usize;
    let mut without_embedding_values = 0usize;
    log::for_each_record(name, text, |record| {
        let Ok(replies) = &replies else {
            return Ok(());
        };
        let Some(fields) = record.fields else {
            warnings.push(log::null_record_warning(name, record.number));
            return Ok(());
        };
        let mut item = ItemResult::of_record(record.number, fields);
        let idx = item.idx.clone();
        match score_record(fields, &idx, sources.embeddings, replies.as_ref()) {
            Ok(scored) => {
                if scored.subjective.iter().any(Option::is_none) {
                    without_subjective += 1;
                }
                if scored.objective.iter().any(Option::is_none) {
                    without_embedding_values += 1;
                }
                if let Some(w) = &scored.note {
                    warnings.push(log::warn(name, record.number, format!("{idx}: {w}")));
                }
                item.values = scored.values();
                if with_samples {
                    item.extra = scored.extra();
                }
            }
            Err(message) => {
                let id = if fields.contains_key("idx") {
                    idx.clone()
                } else {
                    format!("{idx} (the official error record keeps no idx)")
                };
                warnings.push(log::warn(
                    name,
                    record.number,
                    format!("{id}: {message}; left out"),
                ));
                item.error = Some(message);
            }
        }
        results.push(item);
        Ok(())
    })?;
    replies?;
    if without_embedding_values > 0 {
        warnings.push(Warning {
            path: name.into(),
            line: None,
            message: format!(
                "{without_embedding_values} item(s) lack novelty, effectiveness or detailedness: \
                 the log does not carry them and no embedding table was given"
            ),
        });
    }
    if without_subjective > 0 {
        warnings.push(Warning {
            path: name.into(),
            line: None,
            message: format!(
                "{without_subjective} item(s) have no subjective scores: the log has no \
                 `*_subjective` fields (a step-1 log) and no judge replies were given for them"
            ),
        });
    }
    Ok(log::build_report(
        "sgi-idea",
        inputs,
        results,
        warnings,
        aggregate,
        with_samples,
    ))
}

/// `np.mean` per key over the items that have the value.
fn aggregate(items: &[&ItemResult]) -> Metrics {
    let mut metrics = Metrics::new();
    for key in METRIC_KEYS {
        let values: Vec<f64> = items.iter().filter_map(|i| i.value(key)).collect();
        let mean = Some(objective::numpy_mean(&values)).filter(|m| m.is_finite());
        metrics.insert(key.into(), MetricValue::Scalar(mean));
    }
    metrics
}

/// One item's scores: per dimension (in [`DIMENSIONS`] order) objective and subjective on 0–100.
#[derive(Debug, Clone, Default, PartialEq)]
struct Scored {
    objective: [Option<f64>; 4],
    subjective: [Option<f64>; 4],
    computed: Option<Computed>,
    tally: Option<JudgeTally>,
    note: Option<String>,
}

impl Scored {
    fn dimension(&self, i: usize) -> Option<f64> {
        Some(idea::dimension_score(
            self.objective[i]?,
            self.subjective[i]?,
        ))
    }

    fn values(&self) -> Vec<(&'static str, Option<f64>)> {
        let dims: Vec<Option<f64>> = (0..4).map(|i| self.dimension(i)).collect();
        let final_score = match dims[..] {
            // The official `(e + n + d + f) / 4`, summed left to right.
            [Some(e), Some(n), Some(d), Some(f)] => Some((e + n + d + f) / 4.0),
            _ => None,
        };
        let mut values: Vec<(&'static str, Option<f64>)> =
            DIMENSIONS.iter().copied().zip(dims).collect();
        values.push(("final", final_score));
        values
    }

    fn extra(&self) -> Vec<(&'static str, Value)> {
        const OBJECTIVE: [&str; 4] = [
            "effectiveness_objective",
            "novelty_objective",
            "detailedness_objective",
            "feasibility_objective",
        ];
        const SUBJECTIVE: [&str; 4] = [
            "effectiveness_subjective",
            "novelty_subjective",
            "detailedness_subjective",
            "feasibility_subjective",
        ];
        let mut extra: Vec<(&'static str, Value)> = Vec::new();
        for (i, key) in OBJECTIVE.into_iter().enumerate() {
            extra.push((key, json!(self.objective[i])));
        }
        for (i, key) in SUBJECTIVE.into_iter().enumerate() {
            extra.push((key, json!(self.subjective[i])));
        }
        if let Some(c) = &self.computed {
            extra.push((
                "raw_scores",
                json!({
                    "novelty_similarity": c.novelty_similarity,
                    "cutting_edge": c.cutting_edge,
                    "completeness": c.completeness,
                    "length_penalty": c.length_penalty,
                    "repetition_penalty": c.repetition_penalty,
                }),
            ));
        }
        if let Some(t) = &self.tally {
            let mut votes = Map::new();
            for (dim, count) in idea::JUDGE_DIMENSIONS.iter().zip(t.counts) {
                let gate = idea::vote_gate(dim, count.generated);
                votes.insert(
                    (*dim).into(),
                    json!({
                        "res": gate_name(gate),
                        "original_votes": count.original,
                        "generated_votes": count.generated,
                    }),
                );
            }
            extra.push(("votes", Value::Object(votes)));
            extra.push(("valid_judge_calls", json!(t.valid_calls)));
        }
        extra
    }
}

fn gate_name(gate: Gate) -> &'static str {
    match gate {
        Gate::Win => "win",
        Gate::Tie => "tie",
        Gate::Lose => "lose",
    }
}

/// The objective sub-scores computed from a record (0–10; `None` without embeddings).
#[derive(Debug, Clone, Default, PartialEq)]
struct Computed {
    novelty_similarity: Option<f64>,
    cutting_edge: Option<f64>,
    effectiveness: Option<f64>,
    completeness: f64,
    length_penalty: f64,
    repetition_penalty: Option<f64>,
    feasibility: f64,
}

impl Computed {
    /// The four objectives on 0–100 (`float(score) * 10`), in [`DIMENSIONS`] order.
    fn objectives(&self) -> [Option<f64>; 4] {
        let novelty = match (self.novelty_similarity, self.cutting_edge) {
            (Some(n), Some(c)) => Some(objective::novelty_objective(n, c)),
            _ => None,
        };
        let detailedness = self
            .repetition_penalty
            .map(|r| objective::detailedness_objective(self.completeness, r, self.length_penalty));
        [
            self.effectiveness,
            novelty,
            detailedness,
            Some(self.feasibility),
        ]
        .map(|v| v.map(|x| x * 10.0))
    }
}

fn score_record(
    fields: &Map<String, Value>,
    idx: &str,
    embeddings: Option<&dyn Embedder>,
    replies: Option<&JudgeReplies>,
) -> Result<Scored, String> {
    if let Some(error) = fields.get("error") {
        return Err(format!(
            "the official scoring raised on this item ({})",
            py_str(error)
        ));
    }
    let logged = |suffix: &str| -> [Option<f64>; 4] {
        DIMENSIONS.map(|d| fields.get(&format!("{d}_{suffix}")).and_then(Value::as_f64))
    };
    let logged_objective = logged("objective");
    let logged_subjective = logged("subjective");

    let mut scored = Scored {
        objective: logged_objective,
        ..Scored::default()
    };
    // Recompute what the log lacks (always with an embedding table).
    if embeddings.is_some() || logged_objective.iter().any(Option::is_none) {
        let computed = compute(fields, embeddings)?;
        let fresh = computed.objectives();
        for (i, value) in fresh.into_iter().enumerate() {
            let recompute = embeddings.is_some() && i < 3;
            if recompute || scored.objective[i].is_none() {
                scored.objective[i] = value;
            }
        }
        scored.computed = Some(computed);
    }

    if logged_subjective.iter().all(Option::is_some) {
        scored.subjective = logged_subjective;
    } else if let Some(replies) = replies {
        match replies.get(idx) {
            Some(calls) => {
                let tally = idea::tally_votes(calls.iter().map(|(s, r)| (*s, r.as_deref())));
                for (i, dim) in DIMENSIONS.iter().enumerate() {
                    let count = tally.count(dim).unwrap_or(VoteCount::default());
                    let gate = idea::vote_gate(dim, count.generated);
                    scored.subjective[i] = Some(idea::subjective_score(gate));
                }
                scored.tally = Some(tally);
            }
            None => scored.note = Some("no judge replies for this idx".into()),
        }
    }
    Ok(scored)
}

/// Python's type name of a JSON value, for error messages.
fn py_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// `list(value)`; `Err` where Python raises.
fn py_list(value: &Value) -> Result<Vec<Value>, String> {
    match value {
        Value::Array(items) => Ok(items.clone()),
        Value::String(s) => Ok(s.chars().map(|c| Value::String(c.into())).collect()),
        Value::Object(map) => Ok(map.keys().map(|k| Value::String(k.clone())).collect()),
        other => Err(format!(
            "TypeError: '{}' object is not iterable",
            py_type(other)
        )),
    }
}

/// `list(value)` as strings (`str(item)`), for the keywords.
fn py_list_str(value: &Value) -> Option<Vec<String>> {
    py_list(value)
        .ok()
        .map(|items| items.iter().map(py_str).collect())
}

/// `ImprovedIdeaEvaluator` from the constructor to `merge_scores`, minus the judges.
/// `Err` is the message of an official crash or of a missing embedding.
fn compute(
    fields: &Map<String, Value>,
    embeddings: Option<&dyn Embedder>,
) -> Result<Computed, String> {
    let official = |e: String| format!("the official scoring raises here ({e})");
    let empty_dict = Value::Object(Map::new());
    let get_or = |key: &str, default: Value| fields.get(key).cloned().unwrap_or(default);

    // The constructor.
    let related_work = literal_eval(fields.get("related_work").unwrap_or(&empty_dict))
        .map_err(|e| official(e.0))?;
    let existing = literal_eval(fields.get("existing_solutions").unwrap_or(&empty_dict))
        .map_err(|e| official(e.0))?;
    let ref_steps =
        literal_eval(&get_or("implementation_steps", json!("{}"))).map_err(|e| official(e.0))?;
    let ref_order = py_list(&get_or("implementation_order", json!("[]"))).map_err(official)?;
    literal_eval(&get_or("evaluation_metrics", json!("{}"))).map_err(|e| official(e.0))?;
    let generated = match (
        fields.get("generated_data"),
        fields.get("generated_idea_text"),
    ) {
        (Some(g), _) => g.clone(),
        (None, Some(Value::String(text))) => parse_generated_idea(text),
        (None, _) => return Err(official("KeyError: 'generated_data'".into())),
    };
    let Value::Object(generated) = generated else {
        return Err(official(format!(
            "AttributeError: '{}' object has no attribute 'get'",
            py_type(&generated)
        )));
    };
    let gen_get = |key: &str, default: Value| generated.get(key).cloned().unwrap_or(default);
    let idea_value = gen_get("Idea", json!(""));
    let steps = gen_get("ImplementationSteps", json!({}));
    let order = gen_get("ImplementationOrder", json!({}));
    let sections = [
        &idea_value,
        &steps,
        &order,
        &gen_get("EvaluationMetrics", json!("")),
        &gen_get("Dataset", json!("")),
        &gen_get("ExpectedOutcome", json!("")),
    ];

    // evaluate_penalties raises on an idea without len() (checked first: nothing before it
    // changes the outcome of an item that crashes).
    let idea_len = match &idea_value {
        Value::String(s) => s.chars().count(),
        Value::Array(a) => a.len(),
        Value::Object(o) => o.len(),
        other => {
            return Err(official(format!(
                "TypeError: object of type '{}' has no len()",
                py_type(other)
            )));
        }
    };

    let feasibility = idea::graph_similarity(
        &json!({"ImplementationSteps": steps, "ImplementationOrder": order}),
        &json!({"ImplementationSteps": ref_steps, "ImplementationOrder": ref_order}),
        0.6,
    ) * 10.0;
    let mut computed = Computed {
        completeness: objective::completeness(sections.iter().filter(|v| !v.is_null()).count()),
        length_penalty: objective::length_penalty(idea_len),
        feasibility,
        ..Computed::default()
    };

    if let Some(emb) = embeddings {
        let embedding_error = |e: EmbeddingError| format!("cannot recompute: {e}");
        let (ns, ce) = novelty_parts(emb, &idea_value, &related_work, &existing, fields)
            .map_err(embedding_error)?;
        computed.novelty_similarity = Some(ns);
        computed.cutting_edge = Some(ce);
        computed.effectiveness =
            Some(effectiveness_part(emb, &idea_value, fields).map_err(embedding_error)?);
        computed.repetition_penalty = Some(match &idea_value {
            Value::String(s) => objective::repetition_penalty(emb, s).map_err(embedding_error)?,
            _ => 0.0,
        });
    }
    Ok(computed)
}

/// `evaluate_novelty_objective`: (novelty_similarity, cutting_edge); the official exception
/// path gives (0, 0).
fn novelty_parts(
    emb: &dyn Embedder,
    idea_value: &Value,
    related_work: &Value,
    existing: &Value,
    fields: &Map<String, Value>,
) -> Result<(f64, f64), EmbeddingError> {
    let (Value::Object(rw), Value::Object(es), Value::String(idea)) =
        (related_work, existing, idea_value)
    else {
        return Ok((0.0, 0.0));
    };
    let texts: Option<Vec<String>> = rw
        .values()
        .chain(es.values())
        .map(|v| v.as_str().map(str::to_owned))
        .collect();
    let Some(texts) = texts else {
        return Ok((0.0, 0.0));
    };
    let ns = objective::novelty_similarity(emb, idea, &texts)?;
    let test = fields
        .get("related_work_test")
        .cloned()
        .unwrap_or_else(|| json!(""));
    let Ok(Value::Object(test)) = literal_eval(&test) else {
        return Ok((0.0, 0.0));
    };
    let snippets: Vec<String> = test
        .iter()
        .map(|(k, v)| format!("{k}: {}", py_str(v)))
        .collect();
    let ce = objective::cutting_edge(emb, idea, &snippets)?;
    Ok((ns, ce))
}

/// `evaluate_effectiveness_objective` (0–10).
fn effectiveness_part(
    emb: &dyn Embedder,
    idea_value: &Value,
    fields: &Map<String, Value>,
) -> Result<f64, EmbeddingError> {
    let keywords = fields.get("keywords").cloned().unwrap_or_else(|| json!([]));
    let Some(terms) = py_list_str(&keywords) else {
        return Ok(0.0);
    };
    match idea_value {
        Value::String(idea) => objective::effectiveness(emb, &terms.join(", "), idea),
        // encode() raises on a non-string idea: the keyword hit-rate fallback against "".
        _ => {
            if terms.is_empty() {
                return Ok(0.0);
            }
            let hits = terms.iter().filter(|t| t.is_empty()).count();
            Ok(hits as f64 / terms.len() as f64 * 10.0)
        }
    }
}

/// Stored judge replies: idx → calls `(positions_swapped, reply)`.
fn parse_judge_replies(name: &str, text: &str) -> Result<JudgeReplies, InputError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value: Value = serde_json::from_str(text)
        .map_err(|e| InputError::new(name, Some(e.line()), format!("not valid JSON: {e}")))?;
    let Value::Object(entries) = value else {
        return Err(InputError::whole_file(
            name,
            "expected a JSON object: {\"<idx>\": {\"<model>|swap=False\": \"<reply>\", …}, …}",
        ));
    };
    let mut out = HashMap::new();
    for (idx, entry) in entries {
        let calls = entry.get("judge_outputs").unwrap_or(&entry);
        let Value::Object(calls) = calls else {
            return Err(InputError::whole_file(
                name,
                format!("{idx}: expected an object of judge replies keyed \"<model>|swap=…\""),
            ));
        };
        let mut list = Vec::new();
        for (key, reply) in calls {
            if key == "model_output" {
                continue;
            }
            let swapped = if key.ends_with("swap=True") {
                true
            } else if key.ends_with("swap=False") {
                false
            } else {
                return Err(InputError::whole_file(
                    name,
                    format!(
                        "{idx}: judge reply key {key:?} must end in \"swap=False\" or \"swap=True\""
                    ),
                ));
            };
            list.push((swapped, reply.as_str().map(str::to_owned)));
        }
        out.insert(idx, list);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(extra: Value) -> String {
        let mut r = json!({
            "idx": "I1",
            "discipline": "material",
            "related_work": "{'A': 'a text'}",
            "existing_solutions": "{}",
            "related_work_test": "{'R': 'r'}",
            "keywords": ["k"],
            "implementation_steps": "{'1': 'x y', '2': 'z'}",
            "implementation_order": ["1-2"],
            "generated_data": {
                "Idea": "idea",
                "ImplementationSteps": {"1": "x y", "2": "z"},
                "ImplementationOrder": ["1-2"]
            }
        });
        if let (Value::Object(r), Value::Object(e)) = (&mut r, extra) {
            r.extend(e);
        }
        json!([r]).to_string()
    }

    #[test]
    fn step1_log_without_embeddings_gives_feasibility_only() {
        let report = score_log("l.json", &record(json!({})), None).unwrap();
        let s = &report.samples.as_ref().unwrap()[0];
        assert_eq!(s["feasibility_objective"], json!(100.0));
        assert_eq!(s["novelty_objective"], Value::Null);
        assert_eq!(s["final"], Value::Null);
        assert_eq!(report.warnings.len(), 2, "{:?}", report.warnings);
        assert_eq!(report.subsets[0].name, "material");
    }

    #[test]
    fn logged_scores_are_used() {
        let extra = json!({
            "effectiveness_objective": 50.0, "novelty_objective": 40.0,
            "detailedness_objective": 80.0, "feasibility_objective": 20.0,
            "effectiveness_subjective": 100, "novelty_subjective": 0,
            "detailedness_subjective": 0, "feasibility_subjective": 100
        });
        let report = score_log("l.json", &record(extra), None).unwrap();
        let m = |k: &str| report.metric("overall", k).unwrap().as_scalar();
        assert_eq!(m("effectiveness"), Some(75.0));
        assert_eq!(m("novelty"), Some(20.0));
        assert_eq!(m("final"), Some((75.0 + 20.0 + 40.0 + 60.0) / 4.0));
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    }

    #[test]
    fn crashes_and_error_records_are_warnings() {
        let text = json!([
            {"final_score": 0.0, "error": "malformed node or string: {}"},
            {"idx": "I2", "generated_data": {"Idea": "x"}},
            null
        ])
        .to_string();
        let report = score_log("l.json", &text, None).unwrap();
        assert_eq!(report.overall.n, 0);
        let w: Vec<&str> = report.warnings.iter().map(|w| w.message.as_str()).collect();
        assert!(
            w[0].starts_with("record 1 ") && w[0].contains("malformed"),
            "{w:?}"
        );
        assert!(w[1].starts_with("I2: ") && w[1].contains("malformed node or string: {}"));
        assert!(w[2].contains("null"));
        assert_eq!(report.metric("overall", "final").unwrap().as_scalar(), None);
    }

    #[test]
    fn null_idea_crashes_in_penalties() {
        let text = record(json!({"generated_data": {"Idea": null}}));
        let report = score_log("l.json", &text, None).unwrap();
        let s = &report.samples.as_ref().unwrap()[0];
        assert!(
            s["error"]
                .as_str()
                .unwrap()
                .contains("object of type 'NoneType' has no len()")
        );
    }

    #[test]
    fn missing_embedding_is_an_item_error() {
        let table = |_: &str| None::<Vec<f64>>;
        let report = score_log("l.json", &record(json!({})), Some(&table)).unwrap();
        let s = &report.samples.as_ref().unwrap()[0];
        assert!(s["error"].as_str().unwrap().contains("no embedding"), "{s}");
    }

    #[test]
    fn bad_judge_replies_file() {
        let sources = IdeaSources {
            embeddings: None,
            judge_replies: Some(("j.json", r#"{"I1": {"m|x": "y"}}"#)),
        };
        let e = score_log_with("l.json", &record(json!({})), &sources).unwrap_err();
        assert!(e.message.contains("swap=False"), "{e}");
        let sources = IdeaSources {
            embeddings: None,
            judge_replies: Some(("j.json", "[]")),
        };
        assert!(score_log_with("l.json", &record(json!({})), &sources).is_err());
    }
}
