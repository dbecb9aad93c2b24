//! What the official client (`openai_server.py`, `OpenAIChatBot.generate_response`) makes of one
//! chat-completion reply: the `generation` object stored in `evaluation.json`.
//!
//! ```text
//! content = None, reasoning = None  → both None (generation failure)
//! content only                      → content = strip(content); reasoning = content
//! reasoning only                    → reasoning = strip(reasoning); content = reasoning
//! both                              → strip both; response = "<|thought_start|>\n{r}\n<|thought_end|>\n{c}"
//!                                     (otherwise response = the single text above)
//! "</think>" in response            → r, c = response.split("</think>")   (≠ 2 parts: ValueError)
//!                                     r = strip(r.replace("<think>", "")); c = strip(c)
//! ```
//! Quirks reproduced: with both fields present and `</think>` in either, the split runs over the
//! combined text, so the stored reasoning starts with `<|thought_start|>`; two `</think>` make
//! the 2-way unpack fail — the request counts as failed (retried, then a generation failure);
//! `strip()` is Python's, whose whitespace also includes U+001C–U+001F.
//! This module is for the run engine; scoring an `evaluation.json` reads the stored generation.

/// The `generation` object of an `evaluation.json` record.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Generation {
    #[serde(default)]
    pub reasoning_content: Option<String>,
    #[serde(default)]
    pub content: Option<String>,
}

impl Generation {
    /// Neither content nor reasoning: the official "generation failure".
    pub fn is_empty(&self) -> bool {
        self.content.is_none() && self.reasoning_content.is_none()
    }
}

/// A reply the official client rejects (it raises, retries up to 3 times, then gives up).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplyError {
    /// `response.split("</think>")` did not give exactly two parts.
    #[error(
        "the reply contains {count} `</think>` markers; the official client expects one (ValueError: too many values to unpack)"
    )]
    ThinkMarkers { count: usize },
}

/// Python's `str.isspace` and `str.strip()` (one home: [`crate::python`]).
pub use crate::python::{is_space as is_python_space, strip as python_strip};

/// The official client's processing of one reply's `content` and `reasoning_content`.
pub fn normalise_reply(
    content: Option<&str>,
    reasoning: Option<&str>,
) -> Result<Generation, ReplyError> {
    let (mut content, mut reasoning, response) = match (content, reasoning) {
        (None, None) => return Ok(Generation::default()),
        (Some(c), None) => {
            let c = python_strip(c).to_string();
            (c.clone(), c.clone(), c)
        }
        (None, Some(r)) => {
            let r = python_strip(r).to_string();
            (r.clone(), r.clone(), r)
        }
        (Some(c), Some(r)) => {
            let (c, r) = (python_strip(c).to_string(), python_strip(r).to_string());
            let response = format!("<|thought_start|>\n{r}\n<|thought_end|>\n{c}");
            (c, r, response)
        }
    };
    if response.contains("</think>") {
        let parts: Vec<&str> = response.split("</think>").collect();
        let [before, after] = parts[..] else {
            return Err(ReplyError::ThinkMarkers {
                count: parts.len() - 1,
            });
        };
        reasoning = python_strip(&before.replace("<think>", "")).to_string();
        content = python_strip(after).to_string();
    }
    Ok(Generation {
        reasoning_content: Some(reasoning),
        content: Some(content),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generation(reasoning: &str, content: &str) -> Generation {
        Generation {
            reasoning_content: Some(reasoning.into()),
            content: Some(content.into()),
        }
    }

    // Every expected value below is the golden `evaluation_json` record the official client wrote
    // for the reply in `tests/golden/msqa/msqa_03_reasoning_content/mock_api.json`.
    #[test]
    fn think_split_and_fallbacks_as_the_official_client() {
        assert_eq!(
            normalise_reply(Some("YES"), Some("Hmm, maybe NO... actually")).unwrap(),
            generation("Hmm, maybe NO... actually", "YES")
        );
        assert_eq!(
            normalise_reply(None, Some("Thinking long. Final: YES")).unwrap(),
            generation("Thinking long. Final: YES", "Thinking long. Final: YES")
        );
        assert_eq!(
            normalise_reply(Some("<think>NO NO NO</think>\nYES"), None).unwrap(),
            generation("NO NO NO", "YES")
        );
        assert_eq!(
            normalise_reply(Some("<think>I would say YES</think>"), None).unwrap(),
            generation("I would say YES", "")
        );
        assert_eq!(normalise_reply(None, None).unwrap(), Generation::default());
        assert!(normalise_reply(None, None).unwrap().is_empty());
    }

    #[test]
    fn two_think_ends_fail_the_request() {
        assert_eq!(
            normalise_reply(Some("<think>a</think>b</think>NO"), None),
            Err(ReplyError::ThinkMarkers { count: 2 })
        );
    }

    #[test]
    fn split_over_combined_text_when_both_fields_are_present() {
        // Python: c, r = "NO", "x</think>y"; resp = f"<|thought_start|>\n{r}\n<|thought_end|>\n{c}"
        //   a, b = resp.split("</think>"); (a.replace("<think>","").strip(), b.strip())
        //   == ('<|thought_start|>\nx', 'y\n<|thought_end|>\nNO')
        let g = normalise_reply(Some("NO"), Some("x</think>y")).unwrap();
        assert_eq!(
            g,
            generation("<|thought_start|>\nx", "y\n<|thought_end|>\nNO")
        );
    }

    #[test]
    fn python_strip_includes_information_separators() {
        // Python: "\x1c\u3000 YES\x85\x1f".strip() == "YES"
        assert_eq!(python_strip("\u{1c}\u{3000} YES\u{85}\u{1f}"), "YES");
        // Python: "\u200bYES".strip() == "\u200bYES" (zero-width space is not whitespace)
        assert_eq!(python_strip("\u{200b}YES"), "\u{200b}YES");
    }
}
