//! SGI-Bench judge runs started over `POST /api/v1/runs` (the log's records in the body): the
//! judged logs score to the golden cases' official numbers, a repeated run asks no upstream;
//! `GET /api/v1/runs/kinds` describes every kind's form; idea-generation embeddings come
//! through the gateway's `/embeddings` and score exactly as the precomputed table does.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use serde_json::{Value, json};
use workbench::benchmarks::sgibench::run as sgi;

use crate::mock_upstream::MockUpstream;
use crate::proxy::{send, state_with, temp_dir};
use crate::run_msqa::scorebench_cmd;
use crate::support::{close, golden_dir, score_json};

const EXACT: f64 = 1e-12;

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn reply(text: &Value) -> Value {
    match text {
        Value::Object(o) if o.contains_key("raise") => text.clone(),
        Value::Object(o) => {
            json!({"content": o.get("content").cloned().unwrap_or(Value::Null), "reasoning_content": null, "finish_reason": "stop", "completion_tokens": 5})
        }
        _ => {
            json!({"content": text, "reasoning_content": null, "finish_reason": "stop", "completion_tokens": 5})
        }
    }
}

async fn post(state: &server::http::AppState, body: Value) -> (StatusCode, Value) {
    let (code, _, text) = send(state, "POST", "/api/v1/runs", &[], Some(body)).await;
    (code, serde_json::from_str(&text).unwrap_or(json!(text)))
}

async fn finished(state: &server::http::AppState, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (code, _, body) = send(state, "GET", &format!("/api/v1/runs/{id}"), &[], None).await;
        assert_eq!(code, StatusCode::OK, "{body}");
        let v: Value = serde_json::from_str(&body).unwrap();
        match v["state"].as_str().unwrap() {
            "finished" => return v,
            "running" => {}
            other => panic!("run {id} {other}: {v}"),
        }
        assert!(Instant::now() < deadline, "timed out: {v}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Start `body`, wait for it, then start it again: the second run asks no upstream.
async fn run_twice(
    state: &server::http::AppState,
    mock: &MockUpstream,
    body: Value,
) -> (String, Value) {
    let (code, started) = post(state, body.clone()).await;
    assert_eq!(code, StatusCode::ACCEPTED, "{started}");
    let id = started["id"].as_str().unwrap().to_string();
    let done = finished(state, &id).await;
    let calls = mock.calls();
    assert!(calls > 0);
    assert_eq!(done["usage"]["model"]["upstream_calls"], 0, "{done}");
    assert_eq!(done["usage"]["judge"]["upstream_calls"], calls, "{done}");
    let (code, again) = post(state, body).await;
    assert_eq!(code, StatusCode::ACCEPTED, "{again}");
    let again = finished(state, again["id"].as_str().unwrap()).await;
    assert_eq!(mock.calls(), calls, "a repeated run asks no upstream");
    assert_eq!(again["usage"]["judge"]["upstream_calls"], 0, "{again}");
    (id, done)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sgi_judges_start_over_http_and_give_the_official_numbers() {
    // Deep research: one judge call per step-1 record.
    let case = golden_dir().join("sgibench/deep_research/dr_01_basic_exact_match");
    let log = read_json(&case.join("step2_input.json"));
    let mock_llm = read_json(&case.join("mock_llm.json"));
    let mut table = HashMap::new();
    for record in log.as_array().unwrap() {
        let steps: Vec<&str> = record["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect();
        let prompt = sgi::deep_research_prompt(
            record["question"].as_str().unwrap(),
            &steps,
            record["answer"].as_str().unwrap(),
            record["model_answer_with_thinking"].as_str().unwrap(),
            record["model_answer"].as_str().unwrap(),
        );
        table.insert(
            prompt,
            reply(&mock_llm[record["idx"].as_str().unwrap()]["judge_output"]),
        );
    }
    let mock = MockUpstream::start(table);
    let (state, dir) = state_with(&mock, "sgi-http-dr", "");
    let body = json!({"benchmark": "sgi-deep-research", "log": log, "judge_model": "judge-model", "workers": 3});
    let (id, done) = run_twice(&state, &mock, body).await;
    assert_eq!(
        done["files"],
        json!(["judge_replies.json", "step2_log.json"])
    );
    let (code, _, text) = send(
        &state,
        "GET",
        &format!("/api/v1/runs/{id}/files/step2_log.json"),
        &[],
        None,
    )
    .await;
    assert_eq!(code, StatusCode::OK);
    let written = dir.join("runs").join(&id).join("step2_log.json");
    assert_eq!(std::fs::read_to_string(&written).unwrap(), text);
    let report = score_json(&[
        "score",
        "sgi-deep-research",
        written.to_str().unwrap(),
        "--json",
    ]);
    let expected = read_json(&case.join("expected.json"));
    for (ours, theirs) in [
        ("exact_match", "exact_match_mean"),
        ("step_level_accuracy", "step_level_acc_mean"),
    ] {
        assert!(
            close(
                report["overall"]["metrics"][ours].as_f64(),
                expected["aggregate"][theirs].as_f64(),
                EXACT
            ),
            "{ours}: {report}"
        );
    }

    // Dry experiment: one judge call per unit that needs a verdict.
    let case = golden_dir().join("sgibench/dry_experiment/dry_02_judge_decides_non_exact");
    let log = read_json(&case.join("step4_input.json"));
    let mock_judge = read_json(&case.join("mock_judge.json"));
    let mut table = HashMap::new();
    for record in log.as_array().unwrap() {
        let Some(units) = mock_judge
            .get(record["idx"].as_str().unwrap())
            .and_then(Value::as_object)
        else {
            continue;
        };
        for (k, text) in units {
            let k: usize = k.parse().unwrap();
            let prompt = sgi::dry_prompt(
                &sgi::python_str(&record[format!("unit_test_{k}_output")]).unwrap(),
                &sgi::python_str(&record["unit_test"][k]["model_code_output"]).unwrap(),
            );
            table.insert(prompt, reply(text));
        }
    }
    let mock = MockUpstream::start(table);
    let (state, dir) = state_with(&mock, "sgi-http-dry", "");
    let body = json!({"benchmark": "sgi-dry", "log": log, "judge_model": "judge-model"});
    let (id, _) = run_twice(&state, &mock, body).await;
    let written = dir.join("runs").join(&id).join("step4_log.json");
    let report = score_json(&["score", "sgi-dry", written.to_str().unwrap(), "--json"]);
    let expected = read_json(&case.join("expected.json"));
    for (ours, theirs) in [
        ("pass_all_5", "PassAll@5"),
        ("pass_all_3", "PassAll@3"),
        ("pass_all_1", "PassAll@1"),
        ("aet", "AET"),
        ("ser", "SER"),
    ] {
        let printed: f64 = expected["printed"][theirs]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(
            report["overall"]["metrics"][ours].as_f64(),
            Some(printed),
            "{ours}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sgi_run_bodies_are_checked_before_the_run() {
    let mock = MockUpstream::start(HashMap::new());
    let (state, _) = state_with(&mock, "sgi-http-bad", "");
    let record = json!([{"idx": "x"}]);
    for (body, message) in [
        (
            json!({"benchmark": "sgi-dry", "log": record, "judge_model": "nope"}),
            "model \"nope\" is not served here",
        ),
        (
            json!({"benchmark": "sgi-dry", "log": record}),
            "missing field `judge_model`",
        ),
        (
            json!({"benchmark": "sgi-deep-research", "log": [], "judge_model": "judge-model"}),
            "log: no records",
        ),
        (
            json!({"benchmark": "sgi-idea", "log": record, "judge_models": ["judge-model"], "embedding_model": "nope"}),
            "model \"nope\" is not served here",
        ),
        (
            json!({"benchmark": "sgi-idea", "log": record, "judge_models": ["judge-model"], "workers": 0}),
            "workers must be between 1 and 4096",
        ),
        (
            json!({"benchmark": "sgi-dry-exec", "log": record, "model": "m"}),
            "this server runs no code: its config has no [sgi_dry_exec] section",
        ),
    ] {
        let (code, answer) = post(&state, body).await;
        assert_eq!(code, StatusCode::BAD_REQUEST, "{answer}");
        let text = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(text.contains(message), "{answer}");
    }
    assert_eq!(mock.calls(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_kinds_describe_their_forms() {
    let mock = MockUpstream::start(HashMap::new());
    let (state, _) = state_with(&mock, "sgi-http-kinds", "");
    let (code, _, text) = send(&state, "GET", "/api/v1/runs/kinds", &[], None).await;
    assert_eq!(code, StatusCode::OK, "{text}");
    let kinds: Value = serde_json::from_str(&text).unwrap();
    let kinds = kinds["kinds"].as_array().unwrap();
    let keys: Vec<&str> = kinds.iter().map(|k| k["key"].as_str().unwrap()).collect();
    assert_eq!(
        keys,
        [
            "sasbench",
            "eotgc",
            "msqa",
            "sgi-dry",
            "sgi-idea",
            "sgi-deep-research"
        ]
    );
    let fields = |key: &str| -> Vec<(String, String)> {
        kinds.iter().find(|k| k["key"] == key).unwrap()["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["name"].as_str().unwrap().to_string(),
                    f["type"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    assert_eq!(
        fields("msqa"),
        pairs(&[
            ("dataset", "records"),
            ("model", "model"),
            ("n", "integer"),
            ("workers", "integer")
        ])
    );
    assert_eq!(
        fields("sgi-idea"),
        pairs(&[
            ("log", "records"),
            ("judge_models", "models"),
            ("embedding_model", "optional_model"),
            ("workers", "integer")
        ])
    );
    let eotgc = kinds.iter().find(|k| k["key"] == "eotgc").unwrap();
    assert_eq!(eotgc["fields"][0]["choices"], json!([1, 2]));
    assert_eq!(eotgc["open_inputs"], json!(["dataset"]));
    let dry = kinds.iter().find(|k| k["key"] == "sgi-dry").unwrap();
    assert_eq!(dry["open"], json!(["step4_log.json"]));
    // Nothing about upstreams: names of fields and files only.
    assert!(!text.contains("127.0.0.1"), "{text}");
}

/// One upstream serving a judge and an embedding model (answered from the golden table).
fn embedding_config(dir: &Path, mock: &MockUpstream) -> std::path::PathBuf {
    let path = dir.join("config.toml");
    std::fs::write(
        &path,
        format!(
            "[[upstream]]\nname = \"mock\"\nbase_url = \"{}\"\napi_key_env = \"SCOREBENCH_TEST_KEY\"\n\
             models = [\"judge-model\", \"emb-model\"]\nretry_backoff_ms = 10\nmax_retries = 0\n",
            mock.base_url()
        ),
    )
    .unwrap();
    path
}

#[test]
fn idea_embeddings_through_the_gateway_score_as_the_table_does() {
    let case = golden_dir().join("sgibench/idea_generation/idea_01_json_full_win");
    let log = case.join("step2_input.json");
    let golden_table = case.join("embedding_table.json");
    let table: HashMap<String, Value> = serde_json::from_value(read_json(&golden_table)).unwrap();
    let mock = MockUpstream::start(HashMap::new());
    *mock.state.embedding_table.lock().unwrap() = Some(table.clone());
    let dir = temp_dir("sgi-idea-embeddings");
    let config = embedding_config(&dir, &mock);
    let out = dir.join("out");
    let run = || {
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
            "judge-model",
            "--embedding-model",
            "emb-model",
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let summary = run();
    let written = out.join("embeddings.json");
    assert!(
        summary.contains(&format!("--embeddings {}", written.display())),
        "{summary}"
    );
    let ours: HashMap<String, Value> = serde_json::from_value(read_json(&written)).unwrap();
    assert!(!ours.is_empty());
    for (text, vector) in &ours {
        assert_eq!(Some(vector), table.get(text), "{text}");
    }
    let calls = mock.calls();
    // Again: every judge reply and every embedding comes from the cache.
    run();
    assert_eq!(mock.calls(), calls);
    // Scored with the fetched table or with the precomputed one: the same numbers, bit for bit.
    let score = |embeddings: &Path| {
        let mut report = score_json(&[
            "score",
            "sgi-idea",
            log.to_str().unwrap(),
            "--embeddings",
            embeddings.to_str().unwrap(),
            "--json",
            "--samples",
        ]);
        report.as_object_mut().unwrap().remove("inputs");
        report
    };
    let ours = score(&written);
    assert_eq!(ours, score(&golden_table));
    // (The objectives need the embeddings; the subjective halves need judge replies.)
    assert!(
        ours["samples"][0]["novelty_objective"].as_f64().is_some(),
        "{ours}"
    );
}
