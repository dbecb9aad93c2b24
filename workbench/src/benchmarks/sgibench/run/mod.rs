//! SGI-Bench LLM judges, asked through the server's host and its cache (judge calls count under
//! `judge`), writing the logs the official scorers write so `scorebench score sgi-…` reads them.
//!
//! - Deep research (`task_1_deep_research/step_2_score.py`): one judge call per step-1 record
//!   with the official step-verification prompt; the reply is read by the official rule
//!   ([`deep_research::read_step_list`]); the step-2 log adds `exact_match`, `llm_judge` and
//!   `step_level_acc`.
//! - Dry experiment (`task_3_dry_experiment/step_4_score.py`): one judge call per unit that
//!   needs a verdict ([`metrics_core::sgibench::dry::unit_outcome`] = `NeedsJudge`) with the
//!   official output-comparison prompt; the step-4 log adds per unit `exact_match`, `llm_judge`
//!   ({judgment, reason}) and `pass`, per item `pass_nums`, `PassAll@5/3/1`, `AET`, `SER`.
//!
//! ```text
//! deep research: llm_judge = reply[first "[" ..= last "]"] (cut_list) when it is a non-empty
//!                list of objects with "judge" and holds no JSON true/false/null (Python eval
//!                of the repaired text cannot read them), else null;
//!                step_level_acc = #(judge == "correct") / #entries, absent when llm_judge is null;
//!                exact_match = 1 if answer == model_answer or answer == model_answer_after_llm_paser
//! dry unit:      reply[first "{" ..= last "}"] read as a dict (dry::read_judge_reply);
//!                llm_judge = that dict, or null when the call failed or the reply is unreadable
//! judge list   = reply[first "[" ..= last "]"], parsed as JSON; if that fails, leniently
//!                repaired: Python literals (True/False/None → true/false/null), single-quoted
//!                strings → double-quoted, trailing commas before "]" or "}" removed
//! ```
//! A judge call is sent as the official `utils.LLM` sends it: a system message
//! "You are a helpful assistant.", the prompt as the user message, `temperature` 0 (unless told
//! otherwise).
//!
//! Where the official run loses an item (a null judge: its `step_level_acc` is never assigned,
//! or `None["judgment"]`), scorebench keeps the item with `llm_judge: null` (and, for dry, no
//! `pass` and no item totals), which the scorers report per item instead of crashing. The raw
//! judge replies are also written (`judge_replies.json`, the `--judge-replies` shape for dry).

pub mod deep_research;
pub mod dry;
pub mod dry_exec;
pub mod idea;
pub mod judge;

pub use deep_research::{deep_research_prompt, read_step_list, step_level_acc};
pub use dry::{dry_prompt, dry_verdict_dict, python_str};
pub use idea::{
    IDEA_ATTEMPTS, IdeaOptions, IdeaSummary, format_idea, idea_context, idea_prompt,
    idea_record_prompts, idea_reply_key,
};
pub use judge::{JudgeReply, LogInput, ask_judge, cut_list, idx_text};

use crate::runs::RunSpec;

/// The runs of the SGI-Bench task `key`.
pub fn runs_of(key: &str) -> &'static [&'static RunSpec] {
    static DEEP_RESEARCH: [&RunSpec; 1] = [&deep_research::RUN];
    static DRY: [&RunSpec; 2] = [&dry::RUN, &dry_exec::RUN];
    static IDEA: [&RunSpec; 1] = [&idea::RUN];
    match key {
        "sgi-deep-research" => &DEEP_RESEARCH,
        "sgi-dry" => &DRY,
        "sgi-idea" => &IDEA,
        _ => &[],
    }
}
