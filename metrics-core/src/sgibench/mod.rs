//! SGI-Bench (InternScience/SGI-Bench `evaluation/`, commit 8268d43): scoring from the official
//! logs, one module per task.
//!
//! | module | official code | CLI |
//! |---|---|---|
//! | [`wet`] | `task_3_wet_experiment/step_2_score.py` | `scorebench score sgi-wet` |
//! | [`deep_research`] | `task_1_deep_research/step_{1,2}*.py`, `utils.extract_final_answer` | `scorebench score sgi-deep-research` |
//! | [`dry`] | `task_3_dry_experiment/step_4_score.py` | `scorebench score sgi-dry` |
//! | [`reasoning`] | `task_4_experimental_reasoning/step_2_score.py` | `scorebench score sgi-reasoning` |
//! | [`idea`] | `task_2_idea_generation/step_2_score.py`, `utils.extract_win_lose` | `scorebench score sgi-idea` |
//! | [`sgi_score`] | `sgi_score.py`, `utils.show_results` | `scorebench score sgi-score` |
//!
//! Shared conventions:
//! - Logs are JSON arrays of records, as the official scripts write them. A `null` record is what
//!   the official thread pool stores for an item whose scoring raised: it is reported as a
//!   warning naming the record and left out.
//! - Where the official code crashes on one item (and so aborts the whole run), scorebench
//!   reports that item's error as a warning naming its `idx` and scores the rest.
//! - Means are taken as the official scripts take them, `sum(values) / len(values)` in
//!   Python ≥ 3.12 (the official environment is 3.13), whose `sum` of floats is compensated
//!   (Neumaier); see [`python_sum`].
//! - Subsets are disciplines (in the official order `astronomy … physics`, unknown names after
//!   them in order of appearance) when the log carries a `discipline` field.

pub mod deep_research;
pub mod dry;
pub mod idea;
mod idea_log;
pub mod idea_objective;
pub mod idea_parse;
pub mod reasoning;
pub mod sgi_score;
pub mod wet;

mod log;

pub use log::python_sum;

/// The ten discipline names the official scripts accept, in their order.
pub const DISCIPLINES: [&str; 10] = [
    "astronomy",
    "chemistry",
    "earth",
    "energy",
    "information",
    "life",
    "material",
    "mathematics",
    "neuroscience",
    "physics",
];

// Python's `str.isspace` (and `\s` in a `str` pattern), `\w` and `str.strip()`: one home in
// crate::python.
pub(crate) use crate::python::{is_space as py_isspace, is_word as py_isword, strip as py_strip};
