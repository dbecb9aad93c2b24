//! SGI-Bench Experimental Reasoning: multiple-choice accuracy (MCA) and reasoning validity (RV).
//!
//! Matches `task_4_experimental_reasoning/step_2_score.py` (`extract_answer_from_response`,
//! `mm_reasoning_is_correct`, the RV part of `eval_model_output`).
//!
//! ```text
//! letter = first match of  \\boxed\{([A-Z])\}  in the model answer     (re.search)
//! MCA    = 1 if letter.lower() == chr(65 + answer).lower() else 0       (no letter → 0)
//! RV     = float(first run of digits in judge_reply.strip()) / 10       (no digits or judge error → 0.0)
//! ```
//!
//! Official quirks reproduced: only a single CAPITAL letter counts (`\boxed{b}`, `\boxed{ C }`,
//! `\boxed{AB}` and a bare `boxed{D}` give 0); the first box wins; RV is not clamped (a reply
//! "100" gives 10.0) and "6.5" gives 0.6 (digits stop at the point). Digits are ASCII here; Python's
//! `\d` also takes other Unicode decimal digits, which judge replies do not use.

/// The letter of the first `\boxed{X}` with `X` in `A`–`Z`.
pub fn extract_boxed_letter(answer: &str) -> Option<char> {
    const OPEN: &str = "\\boxed{";
    let mut from = 0;
    while let Some(pos) = answer[from..].find(OPEN) {
        let after = from + pos + OPEN.len();
        let mut rest = answer[after..].chars();
        if let (Some(letter), Some('}')) = (rest.next(), rest.next())
            && letter.is_ascii_uppercase()
        {
            return Some(letter);
        }
        from = after;
    }
    None
}

/// MCA of one item: `answer_index` is the dataset's 0-based `answer`.
pub fn multiple_choice_correct(model_answer: &str, answer_index: u32) -> bool {
    let Some(gold) = char::from_u32(65 + answer_index) else {
        return false;
    };
    extract_boxed_letter(model_answer)
        .is_some_and(|letter| letter.to_lowercase().eq(gold.to_lowercase()))
}

/// RV of one item from the judge's reply (`None` = the judge call failed).
pub fn reasoning_validity(judge_reply: Option<&str>) -> f64 {
    let Some(reply) = judge_reply else {
        return 0.0;
    };
    let reply = super::py_strip(reply);
    let Some(start) = reply.find(|c: char| c.is_ascii_digit()) else {
        return 0.0;
    };
    let digits = &reply[start..];
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    digits[..end].parse::<f64>().map_or(0.0, |v| v / 10.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxed_letters() {
        assert_eq!(extract_boxed_letter("x \\boxed{B}"), Some('B'));
        assert_eq!(extract_boxed_letter("\\boxed{AB} \\boxed{C}"), Some('C'));
        assert_eq!(extract_boxed_letter("\\boxed{b}"), None);
        assert!(multiple_choice_correct("$\\boxed{E}$.", 4));
        assert!(!multiple_choice_correct("\\boxed{E}", 3));
    }

    #[test]
    fn rv_takes_the_first_digit_run() {
        assert_eq!(reasoning_validity(Some("Score: 7/10")), 0.7);
        assert_eq!(reasoning_validity(Some("100")), 10.0);
        assert_eq!(reasoning_validity(Some("none")), 0.0);
        assert_eq!(reasoning_validity(None), 0.0);
    }
}
