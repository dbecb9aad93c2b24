//! SGI-Bench Idea Generation: the objective sub-scores (0–10) of `ImprovedIdeaEvaluator` in
//! `task_2_idea_generation/step_2_score.py`, with the sentence embeddings supplied by the caller.
//!
//! ```text
//! cos(a, b)          = (a / ‖a‖) · (b / ‖b‖)         a zero norm counts as 1 (official cosine_similarity)
//! clip(x)            = max(0, min(10, x))             Python builtins: clip(NaN) = 10
//! novelty_similarity = clip((1 − mean_i cos(idea, t_i)) × 10) over the related-work and
//!                      existing-solution texts; 0.0 when there are none
//! cutting_edge       = clip((1 − mean_j cos(idea, "key: value"_j)) × 10) over related_work_test;
//!                      an empty dict gives mean([]) = NaN and so 10
//! novelty            = 0.5·novelty_similarity + 0.5·cutting_edge
//! effectiveness      = clip(cos(", ".join(keywords), idea) × 10)
//! completeness       = (non-null sections / 6) × 10
//! length_penalty     = min((len − 700)/100 if len > 700, (300 − len)/100 if len < 300, else 0; 10)
//!                      (len in characters; an empty idea has no penalty)
//! repetition_penalty = min(max(0, (mean_{i<j} cos(s_i, s_j) − 0.2) × 10), 10)
//!                      s = sentences: split on . ! ? 。 ！ ？, stripped, kept if longer than 10
//!                      characters; fewer than 2 sentences → 0
//! detailedness       = 0.2·completeness + 0.4·(10 − repetition_penalty) + 0.4·(10 − length_penalty)
//! feasibility        = 10 · graph_similarity(generated, original, α = 0.6)
//! means              = numpy `np.mean` (pairwise summation)
//! ```
//!
//! The official embedding model is `all-MiniLM-L6-v2`; this crate never loads it. Any
//! [`Embedder`] plugs in: an [`EmbeddingTable`] (text → vector, as the golden cases give), or a
//! closure. Dot products and norms are summed in order, numpy/BLAS in blocks, so values agree
//! to about 1e-12 on the golden float64 tables (real float32 embeddings carry ~1e-7 noise).

use std::collections::HashMap;

use serde_json::Value;

use crate::error::InputError;

use super::py_strip;

/// Text → sentence embedding.
pub trait Embedder {
    /// The embedding of `text`, `None` when this embedder does not know it.
    fn embed(&self, text: &str) -> Option<Vec<f64>>;
}

impl<F: Fn(&str) -> Option<Vec<f64>>> Embedder for F {
    fn embed(&self, text: &str) -> Option<Vec<f64>> {
        self(text)
    }
}

/// A fixed table of embeddings: a JSON object `{"text": [f64, …], …}`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EmbeddingTable {
    vectors: HashMap<String, Vec<f64>>,
}

impl EmbeddingTable {
    /// Parse `{"text": [numbers…], …}`; every vector must be a non-empty array of numbers.
    pub fn from_json(name: &str, text: &str) -> Result<Self, InputError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let value: Value = serde_json::from_str(text)
            .map_err(|e| InputError::new(name, Some(e.line()), format!("not valid JSON: {e}")))?;
        let Value::Object(map) = value else {
            return Err(InputError::whole_file(
                name,
                "expected a JSON object mapping each text to its embedding vector",
            ));
        };
        let mut vectors = HashMap::with_capacity(map.len());
        for (key, v) in map {
            let numbers: Option<Vec<f64>> = v
                .as_array()
                .map(|items| items.iter().map(Value::as_f64).collect())
                .and_then(|x| x);
            match numbers {
                Some(vector) if !vector.is_empty() => {
                    vectors.insert(key, vector);
                }
                _ => {
                    return Err(InputError::whole_file(
                        name,
                        format!(
                            "the embedding of {:?} must be a non-empty array of numbers",
                            preview(&key)
                        ),
                    ));
                }
            }
        }
        Ok(Self { vectors })
    }

    pub fn len(&self) -> usize {
        self.vectors.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vectors.is_empty()
    }
}

impl Embedder for EmbeddingTable {
    fn embed(&self, text: &str) -> Option<Vec<f64>> {
        self.vectors.get(text).cloned()
    }
}

/// The first 60 characters of a text, for messages.
pub(crate) fn preview(text: &str) -> String {
    let mut s: String = text.chars().take(60).collect();
    if text.chars().count() > 60 {
        s.push('…');
    }
    s
}

/// Why an embedding-based value could not be computed (the official run would have had one).
#[derive(Debug, Clone, PartialEq)]
pub enum EmbeddingError {
    /// The embedder does not know this text.
    Missing(String),
    /// Two vectors of different lengths.
    DimensionMismatch { left: usize, right: usize },
}

impl std::fmt::Display for EmbeddingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Missing(text) => write!(f, "no embedding for the text {:?}", preview(text)),
            Self::DimensionMismatch { left, right } => {
                write!(f, "embeddings of different lengths ({left} and {right})")
            }
        }
    }
}

pub(crate) fn embed(embedder: &dyn Embedder, text: &str) -> Result<Vec<f64>, EmbeddingError> {
    embedder
        .embed(text)
        .ok_or_else(|| EmbeddingError::Missing(text.to_owned()))
}

/// numpy's pairwise summation of a contiguous float64 array (`pairwise_sum_DOUBLE`).
pub fn numpy_sum(a: &[f64]) -> f64 {
    const BLOCK: usize = 128;
    let n = a.len();
    if n < 8 {
        // numpy starts from -0.0 here, so an empty or all -0.0 sum stays -0.0.
        let mut res = -0.0;
        for x in a {
            res += x;
        }
        res
    } else if n <= BLOCK {
        let mut r = [a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]];
        let whole = n - n % 8;
        let mut i = 8;
        while i < whole {
            for (k, acc) in r.iter_mut().enumerate() {
                *acc += a[i + k];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for x in &a[whole..] {
            res += x;
        }
        res
    } else {
        let half = n / 2;
        let n2 = half - half % 8;
        numpy_sum(&a[..n2]) + numpy_sum(&a[n2..])
    }
}

/// `np.mean(values)`: NaN for no values.
pub fn numpy_mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    numpy_sum(values) / values.len() as f64
}

/// Python `max(0, min(10, x))`: `min` keeps 10 unless `x < 10`, `max` keeps 0 unless the value
/// is `> 0`, so NaN gives 10.
pub fn clip_0_10(x: f64) -> f64 {
    let m = if x < 10.0 { x } else { 10.0 };
    if m > 0.0 { m } else { 0.0 }
}

fn dot(a: &[f64], b: &[f64]) -> Result<f64, EmbeddingError> {
    if a.len() != b.len() {
        return Err(EmbeddingError::DimensionMismatch {
            left: a.len(),
            right: b.len(),
        });
    }
    Ok(a.iter().zip(b).map(|(x, y)| x * y).sum())
}

fn normalized(a: &[f64]) -> Vec<f64> {
    let norm = a.iter().map(|x| x * x).sum::<f64>().sqrt();
    let norm = if norm == 0.0 { 1.0 } else { norm };
    a.iter().map(|x| x / norm).collect()
}

/// The official `cosine_similarity` of two row vectors: normalise each (a zero norm counts as
/// 1), then the dot product.
pub fn cosine(a: &[f64], b: &[f64]) -> Result<f64, EmbeddingError> {
    dot(&normalized(a), &normalized(b))
}

/// `clip((1 − mean cos(idea, text_i)) × 10)`; `empty_value` when there are no texts
/// (0.0 for novelty similarity; the official cutting edge takes NaN, i.e. 10).
fn dissimilarity_score(
    embedder: &dyn Embedder,
    idea: &str,
    texts: &[String],
) -> Result<f64, EmbeddingError> {
    let idea_vec = embed(embedder, idea)?;
    let sims = texts
        .iter()
        .map(|t| cosine(&idea_vec, &embed(embedder, t)?))
        .collect::<Result<Vec<f64>, _>>()?;
    Ok(clip_0_10((1.0 - numpy_mean(&sims)) * 10.0))
}

/// Novelty similarity: against the related-work and existing-solution texts (0.0 when none).
pub fn novelty_similarity(
    embedder: &dyn Embedder,
    idea: &str,
    existing_texts: &[String],
) -> Result<f64, EmbeddingError> {
    if existing_texts.is_empty() {
        return Ok(0.0);
    }
    dissimilarity_score(embedder, idea, existing_texts)
}

/// Cutting edge: against the `"key: value"` snippets of `related_work_test` (none → 10).
pub fn cutting_edge(
    embedder: &dyn Embedder,
    idea: &str,
    snippets: &[String],
) -> Result<f64, EmbeddingError> {
    dissimilarity_score(embedder, idea, snippets)
}

/// Effectiveness (0–10): `clip(cos(terms_text, idea) × 10)` with `terms_text` the keywords
/// joined by `", "`.
pub fn effectiveness(
    embedder: &dyn Embedder,
    terms_text: &str,
    idea: &str,
) -> Result<f64, EmbeddingError> {
    let terms = embed(embedder, terms_text)?;
    let idea = embed(embedder, idea)?;
    Ok(clip_0_10(cosine(&terms, &idea)? * 10.0))
}

/// The official sentence split of `calculate_semantic_repetition`:
/// `[s.strip() for s in re.split(r'[.!?。！？]', text) if len(s.strip()) > 10]`.
pub fn split_sentences(text: &str) -> Vec<String> {
    text.split(['.', '!', '?', '。', '！', '？'])
        .map(py_strip)
        .filter(|s| s.chars().count() > 10)
        .map(str::to_owned)
        .collect()
}

/// Repetition penalty (0–10) of an idea text.
pub fn repetition_penalty(embedder: &dyn Embedder, text: &str) -> Result<f64, EmbeddingError> {
    let sentences = split_sentences(text);
    if sentences.len() < 2 {
        return Ok(0.0);
    }
    let vectors = sentences
        .iter()
        .map(|s| embed(embedder, s).map(|v| normalized(&v)))
        .collect::<Result<Vec<_>, _>>()?;
    let mut upper = Vec::new();
    for i in 0..vectors.len() {
        for j in i + 1..vectors.len() {
            upper.push(dot(&vectors[i], &vectors[j])?);
        }
    }
    let avg = numpy_mean(&upper);
    let penalty = (avg - 0.2) * 10.0;
    let penalty = if penalty > 0.0 { penalty } else { 0.0 };
    Ok(if 10.0 < penalty { 10.0 } else { penalty })
}

/// Length penalty (0–10) of an idea of `chars` characters (0 for an empty idea).
pub fn length_penalty(chars: usize) -> f64 {
    let penalty = if chars > 700 {
        (chars - 700) as f64 / 100.0
    } else if chars < 300 && chars > 0 {
        (300 - chars) as f64 / 100.0
    } else {
        0.0
    };
    penalty.min(10.0)
}

/// Completeness (0–10) from the number of the six sections that are not null.
pub fn completeness(found_sections: usize) -> f64 {
    found_sections as f64 / 6.0 * 10.0
}

/// The merged novelty objective (0–10).
pub fn novelty_objective(novelty_similarity: f64, cutting_edge: f64) -> f64 {
    0.5 * novelty_similarity + 0.5 * cutting_edge
}

/// The merged detailedness objective (0–10).
pub fn detailedness_objective(completeness: f64, repetition: f64, length: f64) -> f64 {
    0.2 * completeness + 0.4 * (10.0 - repetition) + 0.4 * (10.0 - length)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(entries: &[(&str, &[f64])]) -> impl Fn(&str) -> Option<Vec<f64>> {
        let map: HashMap<String, Vec<f64>> = entries
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.to_vec()))
            .collect();
        move |t: &str| map.get(t).cloned()
    }

    #[test]
    fn numpy_pairwise_sum_matches_numpy() {
        // python3 -c "import numpy as np; print(repr(np.sum(np.array([0.1]*10))))" -> 1.0
        assert_eq!(numpy_sum(&[0.1; 10]), 1.0);
        // python3 -c "import numpy as np; print(repr(np.sum(np.array([0.1]*7))))" -> 0.7
        assert_eq!(numpy_sum(&[0.1; 7]), 0.7);
        // python3 -c "import numpy as np; print(repr(np.mean(np.array([0.1]*1000))))"
        //   -> 0.10000000000000002
        assert_eq!(numpy_mean(&[0.1; 1000]), 0.10000000000000002);
        assert!(numpy_mean(&[]).is_nan());
    }

    #[test]
    fn clip_follows_python_min_max() {
        assert_eq!(clip_0_10(f64::NAN), 10.0);
        assert_eq!(clip_0_10(-1.0), 0.0);
        assert_eq!(clip_0_10(12.0), 10.0);
        assert_eq!(clip_0_10(3.5), 3.5);
    }

    #[test]
    fn sentences_split_and_filter() {
        assert_eq!(
            split_sentences(
                "First sentence here. Short! Is this long enough?Yes。 全角句号测试文本很长很长很长！"
            ),
            vec![
                "First sentence here".to_owned(),
                "Is this long enough".to_owned(),
                "全角句号测试文本很长很长很长".to_owned()
            ]
        );
        // Exactly 10 characters is not enough.
        assert!(split_sentences("0123456789. 0123456789").is_empty());
    }

    #[test]
    fn penalties() {
        assert_eq!(length_penalty(0), 0.0);
        assert_eq!(length_penalty(299), 0.01);
        assert_eq!(length_penalty(500), 0.0);
        assert_eq!(length_penalty(701), 0.01);
        assert_eq!(length_penalty(5000), 10.0);
        assert_eq!(completeness(6), 10.0);
        // python3 -c "print(repr(5/6*10))" -> 8.333333333333334
        assert_eq!(completeness(5), 8.333333333333334);
        // Identical sentences: mean cosine 1 → (1 − 0.2) × 10.
        let e = table(&[("aaaaaaaaaaaa", &[1.0, 0.0]), ("bbbbbbbbbbbb", &[2.0, 0.0])]);
        let p = repetition_penalty(&e, "aaaaaaaaaaaa. bbbbbbbbbbbb.").unwrap();
        assert!((p - 8.0).abs() < 1e-12);
        assert_eq!(
            repetition_penalty(&e, "one sentence only here").unwrap(),
            0.0
        );
        assert!(matches!(
            repetition_penalty(&e, "aaaaaaaaaaaa. cccccccccccc"),
            Err(EmbeddingError::Missing(_))
        ));
    }

    #[test]
    fn novelty_and_effectiveness() {
        let e = table(&[
            ("idea", &[1.0, 0.0]),
            ("ref", &[0.0, 1.0]),
            ("kw", &[1.0, 1.0]),
        ]);
        assert_eq!(novelty_similarity(&e, "idea", &[]).unwrap(), 0.0);
        assert_eq!(
            novelty_similarity(&e, "idea", &["ref".to_owned()]).unwrap(),
            10.0
        );
        assert_eq!(cutting_edge(&e, "idea", &[]).unwrap(), 10.0);
        let eff = effectiveness(&e, "kw", "idea").unwrap();
        assert!((eff - 10.0 / 2f64.sqrt()).abs() < 1e-12);
        let zero = table(&[("z", &[0.0, 0.0]), ("idea", &[1.0, 0.0])]);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]).unwrap(), 0.0);
        assert_eq!(effectiveness(&zero, "z", "idea").unwrap(), 0.0);
        assert!(cosine(&[1.0], &[1.0, 2.0]).is_err());
    }

    #[test]
    fn table_from_json() {
        let t = EmbeddingTable::from_json("t.json", r#"{"a": [1, 2.5]}"#).unwrap();
        assert_eq!(t.embed("a"), Some(vec![1.0, 2.5]));
        assert_eq!(t.embed("b"), None);
        assert!(EmbeddingTable::from_json("t.json", r#"{"a": []}"#).is_err());
        assert!(EmbeddingTable::from_json("t.json", r#"{"a": ["x"]}"#).is_err());
        assert!(EmbeddingTable::from_json("t.json", "[1]").is_err());
    }
}
