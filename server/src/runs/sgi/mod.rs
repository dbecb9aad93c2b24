//! SGI-Bench LLM judges, run through the gateway and its cache (judge calls count under role
//! `judge`), writing the logs the official scorers write so `scorebench score sgi-…` reads them.
//!
//! - Deep research (`task_1_deep_research/step_2_score.py`): one judge call per step-1 record
//!   with the official step-verification prompt; the reply is read by the official rule
//!   ([`read_step_list`]); the step-2 log adds `exact_match`, `llm_judge` and `step_level_acc`.
//! - Dry experiment (`task_3_dry_experiment/step_4_score.py`): one judge call per unit that needs
//!   a verdict ([`metrics_core::sgibench::dry::unit_outcome`] = `NeedsJudge`) with the official output-comparison
//!   prompt; the step-4 log adds per unit `exact_match`, `llm_judge` ({judgment, reason}) and
//!   `pass`, per item `pass_nums`, `PassAll@5/3/1`, `AET`, `SER`.
//! - Idea generation (`task_2_idea_generation/step_2_score.py`): each judge model twice per
//!   step-1 record (dataset idea as A, then generated idea as A) with the official
//!   `get_evaluation_prompt_modified` prompt, temperature 0.1, up to 5 attempts per call until the
//!   reply has a verdict on every dimension; writes `judge_replies.json`, the shape
//!   `scorebench score sgi-idea --judge-replies` reads (which applies the vote gates).
//!
//! ```text
//! deep research: llm_judge = reply[first "[" ..= last "]"] (judge::cut_list) when it is a
//!                non-empty list of objects with "judge" and holds no JSON true/false/null
//!                (Python eval of the repaired text cannot read them), else null;
//!                step_level_acc = #(judge == "correct") / #entries, absent when llm_judge is null;
//!                exact_match = 1 if answer == model_answer or answer == model_answer_after_llm_paser
//! dry unit:      reply[first "{" ..= last "}"] read as a dict (dry::read_judge_reply);
//!                llm_judge = that dict, or null when the call failed or the reply is unreadable
//! ```
//!
//! Where the official run loses an item (a null judge: its `step_level_acc` is never assigned,
//! or `None["judgment"]`), scorebench keeps the item with `llm_judge: null` (and, for dry, no
//! `pass` and no item totals), which the scorers report per item instead of crashing. The raw
//! judge replies are also written (`judge_replies.json`, the `--judge-replies` shape for dry).
//!
//! One module per task ([`deep_research`], [`dry`], [`idea`]), each with its run kind;
//! [`common`] holds what they share: the judge options and arguments, reading the step log,
//! asking in order with `workers` at a time, and the summary.

pub mod dry_exec;
