//! `scorebench run sgi-idea` (the real binary) against three loopback mock upstreams, one per
//! judge model, answering each idea golden case's judge replies (`mock_llm.json`, keyed by the
//! prompt our code builds, which is pinned to the official Python rendering): the written
//! `judge_replies.json`, scored by `scorebench score sgi-idea --embeddings --judge-replies`, gives
//! the case's expected scores; a second run asks no upstream.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use metrics_core::sgibench::idea;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use workbench::benchmarks::sgibench::run as sgi;

use crate::mock_upstream::MockUpstream;
use crate::proxy::temp_dir;
use crate::run_msqa::scorebench_cmd;
use crate::support::{close, golden_dir, score_json};

const JUDGES: [&str; 3] = [
    "gpt-5.1-2025-11-13",
    "gemini-3-pro-preview",
    "anthropic/claude-sonnet-4.5",
];
const EXACT: f64 = 1e-12;
const EMBEDDING: f64 = 1e-9;

/// sha256 of both prompts (swap=False, swap=True) of each golden record, rendered by the official
/// Python (`ImprovedIdeaEvaluator` fields, `format_idea_data`, `get_context_from_data`,
/// `get_evaluation_prompt_modified`).
const OFFICIAL_PROMPTS: [(&str, &str, &str); 18] = [
    (
        "ID_001",
        "83403a520efc795277b684122261047a7a1d4fa8e7746a51b8df228452b13cf4",
        "0ee64eff815618322a3fb002a3bf9c68fe8457b4ab51f23e69ca5d7832568381",
    ),
    (
        "ID_011",
        "0d13250af616c7e2245922e8fcb2232dda947080fc8384d1609f9d340030172c",
        "39409bb88d148b5a59c7be2cc623b8e032beaf4e91aac7a68aa1014f5c8219b3",
    ),
    (
        "ID_021",
        "8a3158991d5797c5f7cdc10c00a2b424c0f828f6ddb1eb1c15d7dcd05a293bcd",
        "1644ea468e20c9729f8b9184c9fb588cfeff8ee2e99f0257110dad3f48f0ef5e",
    ),
    (
        "ID_041",
        "c6d1165cf0cdf8d871b933611f624d39eda3a12068c1256d0cc21ac7cc36327b",
        "7a141b67bfae45ff29a7b07660b5379f714094e041c57573787adddf535d5101",
    ),
    (
        "ID_042",
        "b84ab4ac98f4c4a0fe0f8f50b223998e2ccb70b0ecce68ba9c3f7df5d9d5ae5e",
        "9f2282c3779afa157243b6cf934eb4f862186c101cab6d6ac139c293be938cd8",
    ),
    (
        "ID_051",
        "9f8633c5e9c9781cfc93ae9b8734eeda63985013cb037d8a8602ac48b94e74b8",
        "2da2d500a0dc659effef2eebf6d700bcee3598f43274dcd4179f917e9a549900",
    ),
    (
        "ID_052",
        "4bbdddc63cd29a2a36f2e3f41fbccbd76fd9b6ea378472a939ade21024dd861b",
        "ae73ef490000338a25fa9a406d7258c2832d725a881d02a999cd62b28fb13a30",
    ),
    (
        "ID_061",
        "8161b342dc6ea49f411ea20c72dc9d273bd168d61f9248c4ce8577ff69cfa1c1",
        "e2763d156ad0eca9c037ee11e4d8a8b780690907029e87342c9bf4e2f5aeeb47",
    ),
    (
        "ID_062",
        "58dd455fd6ac77cfe7cb2172c833c06ce899f7957368e626bfd03218386c57b4",
        "d0ae3ffd2b53c98dd47ec8a04f5a2761384da0cfa8a1b0c8d9838317842b51e9",
    ),
    (
        "ID_063",
        "97937aaa95f2de3613935420c59c95d9b0d4829730146d45c44bc4836c22153c",
        "b2ab5b984209ca369b988833bebed4f0b6ff18ba318f1bdd1e057f7ea7eb66e9",
    ),
    (
        "ID_064",
        "dcc2ee50c1e832bf0115d14db8dce9b1980f6cb6fadd2b77f5a57473a0af7e4d",
        "8880d120910e87a96713d81269e52052e484f6440ca641e3f53728a22eb1609a",
    ),
    (
        "ID_065",
        "29e81168ba9a46905ffd3916b995d7af0e3c4044b8aa7bab4158b5d6868d51e4",
        "4fb801be6743bb90182cb94b71456d5d7ac8bab4e32bc281bc3540c2bd8e9481",
    ),
    (
        "ID_066",
        "f7c267c986ed7c3caaaeda1a401ac03cbb304c6c614cc61c10cc41e362d72034",
        "fa30ba6e611661b25ee2358d903b9813932de58ea3d63347d82cdca9327d2bcb",
    ),
    (
        "ID_081",
        "c99ece4cc0cde83c097257f8a86ff927f93b2e510d6e542947900d8c93f23643",
        "6c8daf5c5d8886dea58af749ee4440fc405100592e9c819b1443bd5d3fd1f866",
    ),
    (
        "ID_082",
        "35e7f45bd8643dbc16f1994eeaf36949a94cdb55ee9bd1ef5714f941ecb65d50",
        "73e77078ae0a6dcc9fb76dce1f8365780c07f65789e85d3321f5920bc677dadd",
    ),
    (
        "ID_083",
        "eb14566bf9e303f598a75aa984d0b3d8a8f98c723e9470bc967464a556949980",
        "c6bc4ca5d7df7f4d4a9ba679fffeb5e50d00655cfdbb17db49a3bf55f085089c",
    ),
    (
        "ID_084",
        "92bdf42047249c2f974614144749626e5150c1cd90362e56d158110ec768b4fd",
        "22a128ba8a977fca097b5bee0a229e4f1e40706d0c739ac9f9e8791040bd3645",
    ),
    (
        "ID_092",
        "14bdf205db80eace1bbe4a90e4bc8bddbd495bbd0a27c7b04807d9662a89db01",
        "7234722550290d0e9bd429dca84a8e4daec9f2941737654a8771ab3e2be0a3f6",
    ),
];

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn sha(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

fn cases() -> Vec<PathBuf> {
    testkit::case_dirs("sgibench/idea_generation")
        .into_iter()
        .filter(|p| !testkit::name(p).contains("_units_"))
        .collect()
}

/// One upstream per judge model (a model is listed by one upstream only).
fn write_config(dir: &Path, mocks: &[MockUpstream]) -> PathBuf {
    let mut text = String::new();
    for (i, (mock, model)) in mocks.iter().zip(JUDGES).enumerate() {
        text.push_str(&format!(
            "[[upstream]]\nname = \"judge{i}\"\nbase_url = \"{}\"\napi_key_env = \"SCOREBENCH_TEST_KEY\"\n\
             models = [\"{model}\"]\nretry_backoff_ms = 10\n\
             price_per_million_input_tokens = 1.0\nprice_per_million_output_tokens = 2.0\n\n",
            mock.base_url()
        ));
    }
    let path = dir.join("config.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn run(log: &Path, mocks: &[MockUpstream], dir: &Path) -> Output {
    let config = write_config(dir, mocks);
    let db = dir.join("db.sqlite3");
    let out = dir.join("out");
    let output = scorebench_cmd(&[
        "run",
        "sgi-idea",
        "--config",
        config.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--log",
        log.to_str().unwrap(),
        "--judge-models",
        &JUDGES.join(","),
        "--out",
        out.to_str().unwrap(),
        "--workers",
        "4",
    ])
    .output()
    .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn last_progress_line(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .rfind(|l| l.starts_with("sgi-idea"))
        .unwrap()
        .to_string()
}

fn sample<'a>(report: &'a Value, idx: &str) -> &'a Value {
    report["samples"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["idx"] == idx)
        .unwrap_or_else(|| panic!("no sample {idx}"))
}

/// Per-item and overall scores of `expected.json` against the report.
fn check_scores(name: &str, report: &Value, expected: &Value) {
    let tol = |key: &str| {
        if key.starts_with("feasibility") || key.ends_with("_subjective") {
            EXACT
        } else {
            EMBEDDING
        }
    };
    let mut scored = 0;
    for item in expected["items"].as_array().unwrap() {
        if item.get("error").is_some() {
            continue;
        }
        scored += 1;
        let idx = item["idx"].as_str().unwrap();
        let got = sample(report, idx);
        for dim in ["effectiveness", "novelty", "detailedness", "feasibility"] {
            for key in [
                format!("{dim}_objective"),
                format!("{dim}_subjective"),
                dim.into(),
            ] {
                assert!(
                    close(got[&key].as_f64(), item[&key].as_f64(), tol(&key)),
                    "{name} {idx} {key}: {} vs {}",
                    got[&key],
                    item[&key]
                );
            }
        }
        assert!(
            close(
                got["final"].as_f64(),
                item["final_score"].as_f64(),
                EMBEDDING
            ),
            "{name} {idx} final"
        );
    }
    assert_eq!(report["overall"]["n"], scored, "{name}");
    let avg = &expected["meta_evaluation"]["average_scores"];
    for (ours, theirs) in [
        ("final", "final_score"),
        ("effectiveness", "effectiveness"),
        ("novelty", "novelty"),
        ("detailedness", "detailedness"),
        ("feasibility", "feasibility"),
    ] {
        assert!(
            close(
                report["overall"]["metrics"][ours].as_f64(),
                avg[theirs].as_f64(),
                EMBEDDING
            ),
            "{name} overall {ours}"
        );
    }
}

#[test]
fn idea_votes_judged_through_the_gateway() {
    let pinned: HashMap<&str, (&str, &str)> = OFFICIAL_PROMPTS
        .iter()
        .map(|(idx, a, b)| (*idx, (*a, *b)))
        .collect();
    let mut pinned_seen = 0;
    for case in cases() {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let log = case.join("step2_input.json");
        let mock_llm = read_json(&case.join("mock_llm.json"));
        let expected = read_json(&case.join("expected.json"));
        // Per judge: prompt → golden reply, and how often the official code would ask it.
        let mut tables: Vec<HashMap<String, Value>> = vec![HashMap::new(); 3];
        let mut asks: Vec<HashMap<String, usize>> = vec![HashMap::new(); 3];
        let mut expected_replies = serde_json::Map::new();
        for record in read_json(&log).as_array().unwrap() {
            let idx = record["idx"].as_str().unwrap();
            let Ok(prompts) = sgi::idea_record_prompts(record.as_object().unwrap()) else {
                assert!(!pinned.contains_key(idx), "{name} {idx}");
                continue;
            };
            let (a, b) = pinned[idx];
            assert_eq!(sha(&prompts[0]), a, "{name} {idx}: swap=False prompt");
            assert_eq!(sha(&prompts[1]), b, "{name} {idx}: swap=True prompt");
            pinned_seen += 1;
            let outputs = &mock_llm[idx]["judge_outputs"];
            let mut replies = serde_json::Map::new();
            for (j, model) in JUDGES.iter().enumerate() {
                for (swapped, prompt) in [(false, &prompts[0]), (true, &prompts[1])] {
                    let key = sgi::idea_reply_key(model, swapped);
                    let reply = outputs[&key].as_str().unwrap();
                    let entry = json!({"content": reply, "reasoning_content": null,
                        "finish_reason": "stop", "completion_tokens": 5});
                    assert!(
                        tables[j].insert(prompt.clone(), entry).is_none(),
                        "{name}: duplicate prompt"
                    );
                    // An unreadable reply is asked again, up to the official five attempts.
                    let n = if idea::parse_judge_reply(reply).is_some() {
                        1
                    } else {
                        5
                    };
                    asks[j].insert(prompt.clone(), n);
                    replies.insert(key, json!(reply));
                }
            }
            expected_replies.insert(idx.into(), Value::Object(replies));
        }
        let mocks: Vec<MockUpstream> = tables.into_iter().map(MockUpstream::start).collect();
        let dir = temp_dir(&format!("sgi-idea-{name}"));
        let first = run(&log, &mocks, &dir);
        let line = last_progress_line(&first);
        assert!(
            line.contains(", 0 calls, 0 cache hits"),
            "model usage: {line}"
        );
        let upstream: usize = asks.iter().flat_map(|a| a.values()).sum();
        assert!(
            line.contains(&format!("; judge: {upstream} calls, 0 cache hits")),
            "{name}: {line}"
        );
        for (mock, asks) in mocks.iter().zip(&asks) {
            for (prompt, n) in asks {
                assert_eq!(mock.calls_for(prompt), *n, "{name}");
            }
            assert_eq!(mock.calls(), asks.values().sum::<usize>(), "{name}");
        }
        let replies_path = dir.join("out").join("judge_replies.json");
        let written = std::fs::read(&replies_path).unwrap();
        assert_eq!(
            read_json(&replies_path),
            Value::Object(expected_replies),
            "{name}"
        );
        let stdout = String::from_utf8_lossy(&first.stdout);
        assert!(stdout.contains("SGI idea generation: "), "{stdout}");

        // Scored with the case's embedding table: the official final scores.
        let report = score_json(&[
            "score",
            "sgi-idea",
            log.to_str().unwrap(),
            "--embeddings",
            case.join("embedding_table.json").to_str().unwrap(),
            "--judge-replies",
            replies_path.to_str().unwrap(),
            "--json",
            "--samples",
        ]);
        check_scores(&name, &report, &expected);

        // Again: every reply from the cache, the same file.
        let second = run(&log, &mocks, &dir);
        for (mock, asks) in mocks.iter().zip(&asks) {
            assert_eq!(
                mock.calls(),
                asks.values().sum::<usize>(),
                "{name}: asked again"
            );
        }
        let line = last_progress_line(&second);
        assert!(
            line.contains(&format!("; judge: 0 calls, {upstream} cache hits")),
            "{name}: {line}"
        );
        assert_eq!(std::fs::read(&replies_path).unwrap(), written, "{name}");
    }
    assert_eq!(pinned_seen, OFFICIAL_PROMPTS.len());
}

#[test]
fn idea_run_refuses_bad_input() {
    let dir = temp_dir("sgi-idea-bad");
    let mocks: Vec<MockUpstream> = (0..3)
        .map(|_| MockUpstream::start(HashMap::new()))
        .collect();
    let config = write_config(&dir, &mocks);
    let log = dir.join("log.json");
    std::fs::write(&log, "{\"not\": \"a list\"}").unwrap();
    let output = scorebench_cmd(&[
        "run",
        "sgi-idea",
        "--config",
        config.to_str().unwrap(),
        "--db",
        dir.join("db.sqlite3").to_str().unwrap(),
        "--log",
        log.to_str().unwrap(),
        "--judge-models",
        "gpt-5.1-2025-11-13,gpt-5.1-2025-11-13",
        "--out",
        dir.join("out").to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("distinct"), "{stderr}");
    assert!(mocks.iter().all(|m| m.calls() == 0));
}

#[test]
fn idea_judges_are_asked_again_as_the_official_retries() {
    let case = golden_dir()
        .join("sgibench")
        .join("idea_generation")
        .join("idea_01_json_full_win");
    let log = case.join("step2_input.json");
    let record = read_json(&log)[0].clone();
    let prompts = sgi::idea_record_prompts(record.as_object().unwrap()).unwrap();
    let readable = read_json(&case.join("mock_llm.json"))["ID_001"]["judge_outputs"]
        [&sgi::idea_reply_key(JUDGES[0], true)]
        .as_str()
        .unwrap()
        .to_string();
    let text = |t: &str| json!({"content": t, "reasoning_content": null, "finish_reason": "stop", "completion_tokens": 5});
    // swap=False as below; swap=True always readable
    let table = |entry: Value| {
        HashMap::from([
            (prompts[0].clone(), entry),
            (prompts[1].clone(), text(&readable)),
        ])
    };
    let mocks = vec![
        // never a verdict: five attempts, the last reply kept
        MockUpstream::start(table(text("I cannot decide."))),
        // the upstream fails: five attempts of 1 + 2 retries each, null kept
        MockUpstream::start(table(json!({"raise": "down"}))),
        // a verdict on the second attempt
        MockUpstream::start(table(
            json!({"sequence": [text("Effectiveness: maybe"), text(&readable)]}),
        )),
    ];
    let dir = temp_dir("sgi-idea-retries");
    let output = run(&log, &mocks, &dir);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("6 judge calls (15 attempts), 2 without a verdict after 5 attempts"),
        "{stdout}"
    );
    assert_eq!(mocks[0].calls_for(&prompts[0]), 5);
    assert_eq!(mocks[1].calls_for(&prompts[0]), 15);
    assert_eq!(mocks[2].calls_for(&prompts[0]), 2);
    let replies = read_json(&dir.join("out").join("judge_replies.json"));
    let item = &replies["ID_001"];
    assert_eq!(
        item[sgi::idea_reply_key(JUDGES[0], false)],
        "I cannot decide."
    );
    assert_eq!(item[sgi::idea_reply_key(JUDGES[1], false)], Value::Null);
    assert_eq!(item[sgi::idea_reply_key(JUDGES[2], false)], json!(readable));
    for judge in JUDGES {
        assert_eq!(item[sgi::idea_reply_key(judge, true)], json!(readable));
    }
    // Again: received replies come from the cache; the failed calls are asked again.
    run(&log, &mocks, &dir);
    assert_eq!(mocks[0].calls_for(&prompts[0]), 5);
    assert_eq!(mocks[1].calls_for(&prompts[0]), 30);
    assert_eq!(mocks[2].calls_for(&prompts[0]), 2);
}
