//! SGI-Bench Idea Generation: the deterministic pieces of the objective scores and the vote gates.
//!
//! Matches `task_2_idea_generation/step_2_score.py` (`graph_similarity`, `edge_jaccard`,
//! `node_text_similarity`, the gates of `compare_ideas_with_voting`) and
//! `utils.extract_win_lose`.
//!
//! ```text
//! graph similarity = α·Jaccard(edges) + (1 − α)·Jaccard(lower-cased word sets of all step texts)
//!   edges: ImplementationOrder items "a-b" (both known step keys); an all-digit order list
//!          instead chains its known keys sorted as STRINGS ("1" < "10" < "2");
//!          no edge on a side → chain that side's step keys sorted as strings;
//!          still no edge (one step) → word Jaccard alone
//!   0.0 when a side lacks or has empty ImplementationSteps / ImplementationOrder, or when the
//!   official code raises inside (a non-string order item); word Jaccard is 0.0 when a joined
//!   text is shorter than 3 characters or a step text is not a string
//! vote (one judge reply, one dimension): first of
//!   Dim\s*:\s*\[\s*(Win\s*A|Win\s*B)\s*\]   Dim\s*:\s*(Win\s*A|Win\s*B)\s+   Dim[^\n]*?(Win\s*A|Win\s*B)
//!   (case-insensitive); "win_A" if the upper-cased group contains "WIN A", else "win_B"
//! gate: generated votes > 4 (novelty) or > 3 (other dimensions) → win; ≤ 2 → lose; else tie
//! subjective = 100 for a win, else 0;  dimension = (objective + subjective) / 2
//! ```
//!
//! Official quirks reproduced: `WinA` and `Win  A` contain no "WIN A" and count for B; a bare
//! `Win B` at the end of the text fails the second pattern and is caught by the third.

use serde_json::Value;

use super::py_isspace;
use crate::python::truthy;

/// `graph_similarity(dict1, dict2, alpha)` over the JSON form of two ideas.
pub fn graph_similarity(idea1: &Value, idea2: &Value, alpha: f64) -> f64 {
    let parts = |idea: &Value| -> Option<(Value, Value)> {
        let steps = idea.get("ImplementationSteps")?;
        let order = idea.get("ImplementationOrder")?;
        (truthy(steps) && truthy(order)).then(|| (steps.clone(), order.clone()))
    };
    let (Some((steps1, order1)), Some((steps2, order2))) = (parts(idea1), parts(idea2)) else {
        return 0.0;
    };
    let (Some(g1), Some(g2)) = (
        Graph::build(&steps1, &order1),
        Graph::build(&steps2, &order2),
    ) else {
        return 0.0;
    };
    if g1.edges.is_empty() || g2.edges.is_empty() {
        return node_text_similarity(&g1, &g2);
    }
    let inter = g1.edges.iter().filter(|e| g2.edges.contains(e)).count();
    let union = g1.edges.len() + g2.edges.len() - inter;
    let edge_sim = inter as f64 / union as f64;
    alpha * edge_sim + (1.0 - alpha) * node_text_similarity(&g1, &g2)
}

struct Graph {
    /// Node keys in insertion order, with their texts.
    nodes: Vec<(String, Value)>,
    /// Distinct directed edges.
    edges: Vec<(String, String)>,
}

impl Graph {
    /// The official DiGraph; `None` where the official code raises (→ 0.0).
    fn build(steps: &Value, order: &Value) -> Option<Self> {
        let Value::Object(steps) = steps else {
            return None;
        };
        let nodes: Vec<(String, Value)> =
            steps.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let keys: Vec<&str> = nodes.iter().map(|(k, _)| k.as_str()).collect();
        let items: Vec<String> = match order {
            Value::Array(items) => items
                .iter()
                .map(|i| i.as_str().map(str::to_owned))
                .collect::<Option<_>>()?,
            Value::String(s) => s.chars().map(String::from).collect(),
            Value::Object(o) => o.keys().cloned().collect(),
            _ => return None,
        };
        let mut graph = Graph {
            nodes: nodes.clone(),
            edges: Vec::new(),
        };
        let is_digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
        if items.iter().all(|o| is_digits(o)) {
            let mut chain: Vec<&str> = items
                .iter()
                .map(String::as_str)
                .filter(|o| keys.contains(o))
                .collect();
            chain.sort_unstable();
            graph.chain(&chain);
        } else {
            for item in &items {
                let parts: Vec<&str> = item.split('-').collect();
                if let [src, dst] = parts[..]
                    && keys.contains(&src)
                    && keys.contains(&dst)
                {
                    graph.add_edge(src, dst);
                }
            }
        }
        if graph.edges.is_empty() {
            let mut sorted = keys.clone();
            sorted.sort_unstable();
            graph.chain(&sorted);
        }
        Some(graph)
    }

    fn chain(&mut self, nodes: &[&str]) {
        for pair in nodes.windows(2) {
            self.add_edge(pair[0], pair[1]);
        }
    }

    fn add_edge(&mut self, src: &str, dst: &str) {
        let edge = (src.to_owned(), dst.to_owned());
        if !self.edges.contains(&edge) {
            self.edges.push(edge);
        }
    }

    /// `' '.join(texts)`; `None` when a text is not a string (TypeError → 0.0).
    fn joined_text(&self) -> Option<String> {
        let texts: Option<Vec<&str>> = self.nodes.iter().map(|(_, v)| v.as_str()).collect();
        Some(texts?.join(" "))
    }
}

fn node_text_similarity(g1: &Graph, g2: &Graph) -> f64 {
    if g1.nodes.is_empty() || g2.nodes.is_empty() {
        return 0.0;
    }
    let (Some(t1), Some(t2)) = (g1.joined_text(), g2.joined_text()) else {
        return 0.0;
    };
    let stripped_len = |t: &str| super::py_strip(t).chars().count();
    if stripped_len(&t1) < 3 || stripped_len(&t2) < 3 {
        return 0.0;
    }
    let words = |t: &str| -> std::collections::BTreeSet<String> {
        t.to_lowercase()
            .split(py_isspace)
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let (w1, w2) = (words(&t1), words(&t2));
    if w1.is_empty() || w2.is_empty() {
        return 0.0;
    }
    let inter = w1.intersection(&w2).count();
    let union = w1.union(&w2).count();
    inter as f64 / union as f64
}

/// One judge's verdict on one dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vote {
    /// `win_A`: the hypothesis shown first.
    WinA,
    /// `win_B`: the hypothesis shown second.
    WinB,
}

/// `extract_win_lose(text, dimension)`; `dimension` as the official code passes it
/// (`"Novelty"`, `"Effectiveness"`, …).
pub fn extract_win_lose(text: &str, dimension: &str) -> Option<Vote> {
    let chars: Vec<char> = text.chars().collect();
    let dim: Vec<char> = dimension.chars().collect();
    let to_vote = |group: &[char]| {
        let upper: String = group
            .iter()
            .collect::<String>()
            .trim_matches(py_isspace)
            .to_uppercase();
        if upper.contains("WIN A") {
            Vote::WinA
        } else {
            Vote::WinB
        }
    };
    // 1. Dim\s*:\s*\[\s*(Win\s*A|Win\s*B)\s*\]
    for p in 0..chars.len() {
        if let Some(i) = after_dim_colon(&chars, p, &dim)
            && chars.get(i) == Some(&'[')
        {
            let i = skip(&chars, i + 1);
            if let Some(end) = win_group(&chars, i)
                && chars.get(skip(&chars, end)) == Some(&']')
            {
                return Some(to_vote(&chars[i..end]));
            }
        }
    }
    // 2. Dim\s*:\s*(Win\s*A|Win\s*B)\s+
    for p in 0..chars.len() {
        if let Some(i) = after_dim_colon(&chars, p, &dim)
            && let Some(end) = win_group(&chars, i)
            && chars.get(end).is_some_and(|c| py_isspace(*c))
        {
            return Some(to_vote(&chars[i..end]));
        }
    }
    // 3. Dim[^\n]*?(Win\s*A|Win\s*B)
    for p in 0..chars.len() {
        if !starts_with_ci(&chars, p, &dim) {
            continue;
        }
        let mut q = p + dim.len();
        loop {
            if let Some(end) = win_group(&chars, q) {
                return Some(to_vote(&chars[q..end]));
            }
            match chars.get(q) {
                Some('\n') | None => break,
                Some(_) => q += 1,
            }
        }
    }
    None
}

fn skip(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() && py_isspace(chars[i]) {
        i += 1;
    }
    i
}

fn starts_with_ci(chars: &[char], p: usize, word: &[char]) -> bool {
    chars.len() >= p + word.len()
        && chars[p..p + word.len()]
            .iter()
            .zip(word)
            .all(|(a, b)| a.to_lowercase().eq(b.to_lowercase()))
}

/// `Dim\s*:\s*` at `p`: the index after it.
fn after_dim_colon(chars: &[char], p: usize, dim: &[char]) -> Option<usize> {
    if !starts_with_ci(chars, p, dim) {
        return None;
    }
    let i = skip(chars, p + dim.len());
    (chars.get(i) == Some(&':')).then(|| skip(chars, i + 1))
}

/// `Win\s*A|Win\s*B` (case-insensitive) at `i`: the index after it.
fn win_group(chars: &[char], i: usize) -> Option<usize> {
    let win: Vec<char> = "win".chars().collect();
    if !starts_with_ci(chars, i, &win) {
        return None;
    }
    let j = skip(chars, i + 3);
    matches!(chars.get(j), Some('a' | 'A' | 'b' | 'B')).then_some(j + 1)
}

/// The official gate on the generated idea's vote count (of six).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    Win,
    Tie,
    Lose,
}

/// `compare_ideas_with_voting`'s gate: > 4 (novelty) or > 3 (others) wins, ≤ 2 loses.
pub fn vote_gate(dimension: &str, generated_votes: u32) -> Gate {
    let win_gate = if dimension == "novelty" { 4 } else { 3 };
    if generated_votes > win_gate {
        Gate::Win
    } else if generated_votes <= 2 {
        Gate::Lose
    } else {
        Gate::Tie
    }
}

/// Subjective score of a dimension: 100 for a win, else 0.
pub fn subjective_score(gate: Gate) -> f64 {
    if gate == Gate::Win { 100.0 } else { 0.0 }
}

/// A dimension's score: `(objective + subjective) / 2` (both on 0–100).
pub fn dimension_score(objective: f64, subjective: f64) -> f64 {
    (objective + subjective) / 2.0
}

/// The five dimensions the judges vote on, in the official order.
pub const JUDGE_DIMENSIONS: [&str; 5] = [
    "effectiveness",
    "novelty",
    "detailedness",
    "feasibility",
    "overall",
];

/// `parse_evaluation_result(reply)`: one vote per dimension of [`JUDGE_DIMENSIONS`], or `None`
/// when any dimension has no verdict (the official code then retries and, with the same reply
/// every time, drops this judge call).
pub fn parse_judge_reply(reply: &str) -> Option<[Vote; 5]> {
    let mut votes = [Vote::WinA; 5];
    for (vote, dim) in votes.iter_mut().zip(JUDGE_DIMENSIONS) {
        let mut chars = dim.chars();
        let capitalized: String = chars
            .next()
            .map(|c| c.to_uppercase().chain(chars).collect())
            .unwrap_or_default();
        *vote = extract_win_lose(reply, &capitalized)?;
    }
    Some(votes)
}

/// Votes for the original and the generated idea on one dimension.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VoteCount {
    pub original: u32,
    pub generated: u32,
}

/// `compare_ideas_with_voting`'s tally over the judge calls.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JudgeTally {
    /// Per dimension of [`JUDGE_DIMENSIONS`].
    pub counts: [VoteCount; 5],
    /// Calls whose reply gave a verdict on all five dimensions.
    pub valid_calls: usize,
}

impl JudgeTally {
    /// The count of a dimension (`"novelty"`, …).
    pub fn count(&self, dimension: &str) -> Option<VoteCount> {
        JUDGE_DIMENSIONS
            .iter()
            .position(|d| *d == dimension)
            .map(|i| self.counts[i])
    }
}

/// Tally judge calls `(positions_swapped, reply)`; a `None` reply is a failed call. With the
/// positions swapped the generated idea is hypothesis A, so the verdicts are flipped first.
pub fn tally_votes<'a>(calls: impl IntoIterator<Item = (bool, Option<&'a str>)>) -> JudgeTally {
    let mut tally = JudgeTally::default();
    for (swapped, reply) in calls {
        let Some(votes) = reply.and_then(parse_judge_reply) else {
            continue;
        };
        tally.valid_calls += 1;
        for (count, vote) in tally.counts.iter_mut().zip(votes) {
            // Unswapped: A is the original. Swapped: A is the generated idea.
            if (vote == Vote::WinA) != swapped {
                count.original += 1;
            } else {
                count.generated += 1;
            }
        }
    }
    tally
}

pub use super::idea_log::{IdeaSources, score_log, score_log_with, score_log_with_samples};
pub use super::idea_objective::{Embedder, EmbeddingTable};
pub use super::idea_parse::parse_generated_idea;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates() {
        assert_eq!(vote_gate("novelty", 5), Gate::Win);
        assert_eq!(vote_gate("novelty", 4), Gate::Tie);
        assert_eq!(vote_gate("feasibility", 4), Gate::Win);
        assert_eq!(vote_gate("feasibility", 2), Gate::Lose);
        assert_eq!(subjective_score(Gate::Tie), 0.0);
    }

    #[test]
    fn judge_replies_are_flipped_and_incomplete_ones_dropped() {
        let b = "Effectiveness: [Win B]\nNovelty: [Win B]\nDetailedness: [Win A]\nFeasibility: [Win B]\nOverall: [Win B]";
        let a = "Effectiveness: [Win A]\nNovelty: [Win A]\nDetailedness: [Win A]\nFeasibility: [Win A]\nOverall: [Win A]";
        let incomplete = "Effectiveness: [Win B]\nNovelty: [Win B]";
        let tally = tally_votes([
            (false, Some(b)),
            (true, Some(a)),
            (false, Some(incomplete)),
            (true, None),
        ]);
        assert_eq!(tally.valid_calls, 2);
        assert_eq!(
            tally.count("novelty"),
            Some(VoteCount {
                original: 0,
                generated: 2
            })
        );
        assert_eq!(
            tally.count("detailedness"),
            Some(VoteCount {
                original: 1,
                generated: 1
            })
        );
        assert_eq!(tally.count("nope"), None);
    }
}
