//! MSQA golden vectors against the library: `official_score_json` rebuilds each official
//! `score.json` (minus the API key), and `normalise_reply` turns each mocked endpoint reply into
//! the `generation` the official client stored.

#![allow(clippy::unwrap_used)] // a panic is how these tests report a mismatch

use std::path::{Path, PathBuf};

use metrics_core::msqa::{self, Generation};
use serde_json::Value;

fn golden(case: &str) -> PathBuf {
    testkit::path("msqa").join(case)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The toolkit cases that wrote a score.json.
const SCORED: [&str; 5] = [
    "msqa_01_basic_yes_no",
    "msqa_03_reasoning_content",
    "msqa_04_truncation_and_failures",
    "msqa_06_resume_from_log_n2",
    "msqa_07_sampling_n3",
];

#[test]
fn official_score_json_is_rebuilt_without_the_key() {
    for case in SCORED {
        let expected = read_json(&golden(case).join("expected.json"));
        let text = expected["evaluation_json"].to_string();
        let records = msqa::parse_evaluation("evaluation.json", &text).unwrap();
        let judgements = msqa::judge_all("evaluation.json", &records).unwrap();
        let mut official = expected["score_json"].clone();
        let params = official["model"]["params"].as_object().unwrap().clone();
        let name = official["model"]["name"].as_str().unwrap().to_string();
        let ours = msqa::official_score_json(&msqa::tally(&judgements), &name, params).unwrap();
        official["model"]["params"]
            .as_object_mut()
            .unwrap()
            .remove("api_key");
        // Same keys in the same order, same numbers (bit for bit: both are int / int).
        assert_eq!(ours.to_string(), official.to_string(), "{case}");
    }
}

#[test]
fn the_crash_case_has_no_score_json() {
    let expected = read_json(&golden("msqa_08_all_failed_crash").join("expected.json"));
    assert!(expected["score_json"].is_null());
    let records: Vec<Value> = (0..3)
        .map(|i| serde_json::json!({"id": format!("q{i}"), "gold": "YES", "generation": {"reasoning_content": null, "content": null}, "usage": null}))
        .collect();
    let records = msqa::parse_evaluation("e.json", &Value::from(records).to_string()).unwrap();
    let tally = msqa::tally(&msqa::judge_all("e.json", &records).unwrap());
    assert!(msqa::official_score_json(&tally, "m", Default::default()).is_err());
}

/// Every fresh (non-resumed) record whose question had a single mocked reply: the stored
/// `generation` is what `normalise_reply` makes of that reply; a raised request or a rejected
/// reply left a generation failure.
#[test]
fn replies_are_normalised_as_the_official_client_does() {
    let mut checked = 0;
    for case in [
        "msqa_01_basic_yes_no",
        "msqa_03_reasoning_content",
        "msqa_04_truncation_and_failures",
    ] {
        let dir = golden(case);
        let expected = read_json(&dir.join("expected.json"));
        let mock = read_json(&dir.join("mock_api.json"));
        let suffix = "\nYou must answer the question with YES or NO. Do not include other words.";
        for record in expected["evaluation_json"].as_array().unwrap() {
            let question = record["question"]
                .as_str()
                .unwrap()
                .strip_suffix(suffix)
                .unwrap();
            let reply = &mock["api_responses_by_true_false_question"][question];
            if reply.get("sequence").is_some() {
                continue;
            }
            let stored: Generation = serde_json::from_value(record["generation"].clone()).unwrap();
            let normalised = if reply.get("raise").is_some() {
                Generation::default()
            } else {
                msqa::normalise_reply(
                    reply["content"].as_str(),
                    reply["reasoning_content"].as_str(),
                )
                .unwrap_or_default()
            };
            assert_eq!(normalised, stored, "{case}: {question}");
            checked += 1;
        }
    }
    assert_eq!(checked, 15);
}
