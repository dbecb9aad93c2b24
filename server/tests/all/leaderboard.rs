//! Leaderboards end to end: the real `scorebench serve` on 127.0.0.1 with a real SQLite file (and
//! PostgreSQL when `PG_URL` is set, e.g. from `scripts/pg.sh start`), driven by the real
//! `scorebench leaderboard …` command line and plain HTTP. Expected numbers come from
//! `scorebench score … --json` on the same files (itself checked against the golden vectors).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{golden_dir, score_json};

pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_scorebench");

/// A running `scorebench serve`.
pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) url: String,
    /// Its share of the PostgreSQL queue ([`QUEUE`]) while it runs.
    _queue: Option<std::sync::RwLockReadGuard<'static, ()>>,
}

/// Every server on the shared PostgreSQL runs queue workers that take any board's queued job.
/// A server started on PostgreSQL holds this for reading while it runs; a test that needs a
/// job to stay queued holds it for writing ([`queue_alone`]), so no other test's server runs.
static QUEUE: std::sync::RwLock<()> = std::sync::RwLock::new(());

thread_local! {
    static QUEUE_ALONE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Run `f` with no other test's server on the shared PostgreSQL (its own servers may run).
pub(crate) fn queue_alone<T>(f: impl FnOnce() -> T) -> T {
    let _alone = QUEUE
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    QUEUE_ALONE.with(|a| a.set(true));
    let out = f();
    QUEUE_ALONE.with(|a| a.set(false));
    out
}

impl Server {
    pub(crate) fn start(db: &str) -> Server {
        Self::start_with(db, &[])
    }

    /// With more `serve` arguments.
    pub(crate) fn start_with(db: &str, extra: &[&str]) -> Server {
        Self::start_logged(db, extra, "warn", Stdio::null())
    }

    /// With more `serve` arguments, its log at `level` to `stderr`.
    pub(crate) fn start_logged(db: &str, extra: &[&str], level: &str, stderr: Stdio) -> Server {
        Self::start_full(db, extra, level, stderr, "/nonexistent-dist")
    }

    /// …serving the app built in `dist`.
    pub(crate) fn start_full(
        db: &str,
        extra: &[&str],
        level: &str,
        stderr: Stdio,
        dist: &str,
    ) -> Server {
        // Tests send hundreds of submissions from one address: the anonymous hourly limits are
        // raised unless the test sets them (`quotas_and_anonymous_limits_hold_under_concurrency`).
        let limits: &[&str] = if extra.iter().any(|a| a.ends_with("-per-hour")) {
            &[]
        } else {
            &[
                "--anon-submits-per-hour",
                "1000000",
                "--board-submits-per-hour",
                "1000000",
                "--anon-boards-per-hour",
                "1000000",
            ]
        };
        // Servers on one PostgreSQL share one file store: the loopback S3 server when the test
        // script started one (`scripts/s3.sh`), else a folder of this test run. (SQLite keeps
        // its default, a folder beside the database file.)
        let shared_files = (db.starts_with("postgres") && !extra.contains(&"--files"))
            .then(shared_files)
            .map(|place| vec!["--files".to_string(), place])
            .unwrap_or_default();
        let mut child = Command::new(BIN)
            .args(["serve", "--addr", "127.0.0.1:0", "--db", db])
            .args(extra)
            .args(shared_files)
            .args(limits)
            .args(["--dist", dist, "--local-db"])
            .arg(temp("local").join("local.sqlite3"))
            .env("RUST_LOG", level)
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix("scorebench listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .trim_end_matches('/')
            .to_string();
        let shares_queue = db.starts_with("postgres") && !QUEUE_ALONE.with(std::cell::Cell::get);
        let _queue = shares_queue.then(|| {
            QUEUE
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        });
        Server { child, url, _queue }
    }

    /// `kill -9`.
    pub(crate) fn kill9(mut self) {
        let _ = self.child.kill(); // SIGKILL on Unix
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A fresh temporary directory.
pub(crate) fn temp(tag: &str) -> PathBuf {
    let n = COUNTER.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("scorebench-lb-{tag}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A slug unique across runs (PostgreSQL databases outlive a test run).
pub(crate) fn slug(tag: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!(
        "{tag}-{}-{}-{nanos}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst)
    )
}

/// The file store every server on the shared PostgreSQL uses: `S3_URL` (`scripts/s3.sh`, its
/// endpoint and keys in the AWS_* variables the servers inherit) or a folder of this run.
pub(crate) fn shared_files() -> String {
    match std::env::var("S3_URL") {
        Ok(url) if !url.is_empty() => url,
        _ => std::env::temp_dir()
            .join(format!("scorebench-lb-files-{}", std::process::id()))
            .to_string_lossy()
            .into_owned(),
    }
}

/// The stores to test: a new SQLite file, and PostgreSQL when `PG_URL` is set.
pub(crate) fn stores() -> Vec<String> {
    let mut out = vec![temp("db").join("lb.sqlite3").to_string_lossy().into_owned()];
    match std::env::var("PG_URL") {
        Ok(url) if !url.is_empty() => out.push(url),
        _ => eprintln!("leaderboard tests: PostgreSQL not tested (set PG_URL, see scripts/pg.sh)"),
    }
    out
}

/// `create --slug SLUG --title T --benchmark BENCHMARK` and `extra` (options, then gold files).
pub(crate) fn create_args<'a>(
    slug: &'a str,
    benchmark: &'a str,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![
        "create",
        "--slug",
        slug,
        "--title",
        "T",
        "--benchmark",
        benchmark,
    ];
    args.extend_from_slice(extra);
    args
}

pub(crate) fn lb(server: &Server, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("leaderboard")
        .args(args)
        .args(["--server", &server.url])
        .output()
        .unwrap()
}

/// `scorebench leaderboard …`, exit 0, stdout as JSON.
pub(crate) fn lb_json(server: &Server, args: &[&str]) -> Value {
    let out = lb(server, args);
    assert!(
        out.status.success(),
        "leaderboard {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `(subset, metric) → value` of a report's overall and subsets.
fn metrics_of(report: &Value) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    let mut add = |name: &str, metrics: &Value| {
        for (k, v) in metrics.as_object().into_iter().flatten() {
            out.push((name.to_string(), k.clone(), v.clone()));
        }
    };
    add("overall", &report["overall"]["metrics"]);
    for s in report["subsets"].as_array().into_iter().flatten() {
        add(s["name"].as_str().unwrap(), &s["metrics"]);
    }
    assert!(!out.is_empty(), "no metrics in {report}");
    out
}

pub(crate) fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

pub(crate) fn get(url: &str) -> (u16, String) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let r = reqwest::get(url).await.unwrap();
        (r.status().as_u16(), r.text().await.unwrap())
    })
}

struct GoldenCase {
    benchmark: &'static str,
    variant: Option<&'static str>,
    gold: Vec<PathBuf>,
    preds: Vec<PathBuf>,
    /// `scorebench score` arguments before the prediction files.
    score_args: Vec<String>,
}

fn golden_cases() -> Vec<GoldenCase> {
    let g = golden_dir();
    let eotgc = g.join("eotgc/eotgc_11_full_size_185");
    let sas = g.join("sasbench/case_24");
    let mut sas_preds: Vec<PathBuf> = std::fs::read_dir(sas.join("datasets_GoldenModel_Scored"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with("_prediction.jsonl"))
        .collect();
    sas_preds.sort();
    assert_eq!(sas_preds.len(), 12);
    let tax = sas.join("datasets/error_type.jsonl");
    let asap = g.join("asap_aes/asap_01_basic");
    let asap_gold = asap.join("training_set_rel3.tsv");
    // MSQA: the evaluation file the official toolkit wrote (as golden_msqa.rs does).
    let msqa = g.join("msqa/msqa_01_basic_yes_no");
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(msqa.join("expected.json")).unwrap())
            .unwrap();
    let eval = temp("msqa").join("evaluation.json");
    std::fs::write(
        &eval,
        serde_json::to_string_pretty(&expected["evaluation_json"]).unwrap(),
    )
    .unwrap();
    vec![
        GoldenCase {
            benchmark: "eotgc",
            variant: None,
            gold: vec![eotgc.join("gold.json")],
            preds: vec![eotgc.join("pred.json")],
            score_args: vec!["--gold".into(), p(&eotgc.join("gold.json")).into()],
        },
        GoldenCase {
            benchmark: "sasbench",
            variant: None,
            gold: vec![tax.clone()],
            preds: sas_preds.clone(),
            score_args: vec!["--taxonomy".into(), p(&tax).into()],
        },
        GoldenCase {
            benchmark: "sasbench",
            variant: Some("corrected"),
            gold: vec![tax.clone()],
            preds: sas_preds,
            score_args: vec![
                "--taxonomy".into(),
                p(&tax).into(),
                "--variant".into(),
                "corrected".into(),
            ],
        },
        GoldenCase {
            benchmark: "msqa",
            variant: None,
            gold: vec![],
            preds: vec![eval],
            score_args: vec![],
        },
        GoldenCase {
            benchmark: "asap-aes",
            variant: None,
            gold: vec![asap_gold.clone()],
            preds: vec![asap.join("predictions.csv")],
            score_args: vec!["--gold".into(), p(&asap_gold).into()],
        },
        GoldenCase {
            benchmark: "asap-aes",
            variant: Some("corrected"),
            gold: vec![asap_gold.clone()],
            preds: vec![asap.join("predictions.csv")],
            score_args: vec![
                "--gold".into(),
                p(&asap_gold).into(),
                "--variant".into(),
                "corrected".into(),
            ],
        },
    ]
}

#[test]
fn golden_predictions_give_the_cli_numbers_and_verify() {
    for db in stores() {
        let server = Server::start(&db);
        for case in golden_cases() {
            let s = slug(case.benchmark);
            let mut create = vec![
                "create",
                "--slug",
                &s,
                "--title",
                "golden",
                "--benchmark",
                case.benchmark,
            ];
            if let Some(v) = case.variant {
                create.extend(["--variant", v]);
            }
            create.extend(case.gold.iter().map(|g| p(g)));
            let made = lb_json(&server, &create);
            assert_eq!(made["slug"], s.as_str());
            assert!(made["owner_token"].as_str().unwrap().starts_with("sbo_"));
            let mut submit = vec!["submit", "--slug", &s, "--model", "golden"];
            submit.extend(case.preds.iter().map(|f| p(f)));
            let started = Instant::now();
            let out = lb_json(&server, &submit);
            let latency = started.elapsed();
            let mut score: Vec<&str> = vec!["score", case.benchmark];
            score.extend(case.score_args.iter().map(String::as_str));
            score.extend(case.preds.iter().map(|f| p(f)));
            score.push("--json");
            let want = score_json(&score);
            let at = format!(
                "{} {:?} on {}",
                case.benchmark,
                case.variant,
                server_kind(&db)
            );
            assert_eq!(metrics_of(&out["report"]), metrics_of(&want), "{at}");
            assert_eq!(out["report"]["variant"], want["variant"], "{at}");
            // inputs: base names and the same SHA-256s as the CLI's.
            let names = |r: &Value| -> Vec<(String, String)> {
                r["inputs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|i| {
                        let path = i["path"].as_str().unwrap();
                        let base = path.rsplit('/').next().unwrap().to_string();
                        (base, i["sha256"].as_str().unwrap().to_string())
                    })
                    .collect()
            };
            let mut got = names(&out["report"]);
            let mut expected = names(&want);
            got.sort();
            expected.sort();
            assert_eq!(got, expected, "{at}");
            eprintln!(
                "leaderboard: submit {at}: {} ms (debug build, CLI process included)",
                latency.as_millis()
            );
            let shown = lb_json(&server, &["show", "--slug", &s, "--json"]);
            let entry = &shown["entries"][0];
            assert_eq!(entry["rank"], 1);
            assert_eq!(entry["status"], "verified");
            assert_eq!(
                entry["metrics"],
                json!(
                    want["overall"]["metrics"]
                        .as_object()
                        .unwrap()
                        .iter()
                        .filter(|(_, v)| !v.is_array())
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect::<serde_json::Map<_, _>>()
                ),
                "{at}"
            );
            let verify = lb(&server, &["verify", "--slug", &s]);
            assert!(
                verify.status.success(),
                "{at}: verify: {}",
                String::from_utf8_lossy(&verify.stderr)
            );
            assert!(String::from_utf8_lossy(&verify.stdout).contains("identical"));
        }
    }
}

fn server_kind(db: &str) -> &'static str {
    if db.starts_with("postgres") {
        "postgres"
    } else {
        "sqlite"
    }
}

/// A JSONL pairs file: `n` records, the first `right` with pred = gold.
pub(crate) fn pairs_file(dir: &Path, name: &str, n: usize, right: usize) -> PathBuf {
    let mut text = String::new();
    for i in 0..n {
        let gold = i % 4;
        let pred = if i < right { gold } else { (gold + 1) % 4 };
        text.push_str(&format!("{{\"gold\": {gold}, \"pred\": {pred}}}\n"));
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn ranks_at_full_precision_and_ties_share_a_rank() {
    for db in stores() {
        let server = Server::start(&db);
        let dir = temp("rank");
        // accuracy 0.812, 0.813, 0.813, 0.5: the first three all show 0.81 at 2 decimals.
        let files = [
            ("early-lower", pairs_file(&dir, "a.jsonl", 1000, 812)),
            ("later-higher", pairs_file(&dir, "b.jsonl", 1000, 813)),
            ("tie-of-later", pairs_file(&dir, "c.jsonl", 1000, 813)),
            ("low", pairs_file(&dir, "d.jsonl", 1000, 500)),
        ];
        let s = slug("pairs");
        lb_json(
            &server,
            &[
                "create",
                "--slug",
                &s,
                "--title",
                "ranking",
                "--benchmark",
                "pairs",
                "--primary",
                "accuracy",
            ],
        );
        let mut expected: Vec<(f64, usize, String)> = Vec::new();
        for (i, (model, f)) in files.iter().enumerate() {
            lb_json(&server, &["submit", "--slug", &s, "--model", model, p(f)]);
            let want = score_json(&["score", "pairs", p(f), "--json"]);
            expected.push((
                want["overall"]["metrics"]["accuracy"].as_f64().unwrap(),
                i,
                (*model).to_string(),
            ));
        }
        // The reference order: value descending (full precision), then submission order.
        expected.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let shown = settled(&server, &s);
        let entries = shown["entries"].as_array().unwrap();
        let models: Vec<&str> = entries
            .iter()
            .map(|e| e["model"].as_str().unwrap())
            .collect();
        let want_models: Vec<&str> = expected.iter().map(|e| e.2.as_str()).collect();
        assert_eq!(models, want_models);
        assert_eq!(
            models,
            ["later-higher", "tie-of-later", "early-lower", "low"]
        );
        let ranks: Vec<u64> = entries
            .iter()
            .map(|e| e["rank"].as_u64().unwrap())
            .collect();
        assert_eq!(ranks, [1, 1, 3, 4]);
        // Bootstrap: the exact tie is not distinguishable from the leader; the 0.5 entry is.
        assert_eq!(shown["bootstrap"]["leader"], entries[0]["entry"]);
        assert_eq!(entries[0]["tied_with_leader"], Value::Null);
        assert_eq!(entries[1]["tied_with_leader"], true);
        assert_eq!(entries[3]["tied_with_leader"], false);
        assert_eq!(entries[0]["rank_range"][0], 1);
        assert_eq!(entries[3]["rank_range"], json!([4, 4]));
        // Display rounding: the Markdown export shows equal-looking values in the full order.
        let md = lb(&server, &["show", "--slug", &s, "--format", "markdown"]);
        let md = String::from_utf8(md.stdout).unwrap();
        let pos = |m: &str| md.find(m).unwrap();
        assert!(
            pos("later-higher") < pos("tie-of-later") && pos("tie-of-later") < pos("early-lower")
        );
    }
}

/// `show --json` once every bootstrap interval is computed (in the background, after a `show`
/// found some missing).
pub(crate) fn settled(server: &Server, s: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let shown = lb_json(server, &["show", "--slug", s, "--json"]);
        if shown["bootstrap"]["pending"] == 0 {
            return shown;
        }
        assert!(
            Instant::now() < deadline,
            "bootstrap of {s} not done: {}",
            shown["bootstrap"]
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The whole public and owner view of a board (what a refused request must not change).
fn snapshot(server: &Server, s: &str, owner: &str) -> (Value, Value) {
    let mut shown = lb_json(server, &["show", "--slug", s, "--json", "--token", owner]);
    // What the intervals computed in the background decide changes on its own: left out.
    shown["bootstrap"] = Value::Null;
    for e in shown["entries"].as_array_mut().unwrap() {
        e["versus_leader"] = Value::Null;
        e["rank_range"] = Value::Null;
        e["tier"] = Value::Null;
        e["tied_with_leader"] = Value::Null;
    }
    let audit = http(
        server,
        "GET",
        &format!("/api/v1/leaderboards/{s}/audit"),
        Some(owner),
        None,
    )
    .1;
    (shown, audit)
}

pub(crate) fn http(
    server: &Server,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let client = reqwest::Client::new();
        let mut r = client.request(method.parse().unwrap(), format!("{}{path}", server.url));
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        if let Some(b) = body {
            r = r.json(&b);
        }
        let resp = r.send().await.unwrap();
        let status = resp.status().as_u16();
        (status, resp.json().await.unwrap_or(Value::Null))
    })
}

#[test]
fn without_the_right_token_changes_are_refused_and_nothing_changes() {
    for db in stores() {
        let server = Server::start(&db);
        let dir = temp("tokens");
        let s = slug("tok");
        let made = lb_json(&server, &create_args(&s, "pairs", &[]));
        let owner = made["owner_token"].as_str().unwrap().to_string();
        let a = lb_json(
            &server,
            &[
                "submit",
                "--slug",
                &s,
                "--model",
                "a",
                p(&pairs_file(&dir, "a.jsonl", 40, 30)),
            ],
        );
        let b = lb_json(
            &server,
            &[
                "submit",
                "--slug",
                &s,
                "--model",
                "b",
                p(&pairs_file(&dir, "b.jsonl", 40, 20)),
            ],
        );
        let (ea, ta) = (
            a["entry"].as_i64().unwrap(),
            a["entry_token"].as_str().unwrap().to_string(),
        );
        let tb = b["entry_token"].as_str().unwrap().to_string();
        let before = snapshot(&server, &s, &owner);
        let base = format!("/api/v1/leaderboards/{s}");
        let entry = format!("{base}/entries/{ea}");
        let other_owner = "sbo_0000000000000000000000000000000000000000000000000000000000000000";
        for token in [
            None,
            Some(""),
            Some("garbage"),
            Some(other_owner),
            Some(tb.as_str()),
        ] {
            let refused: Vec<(&str, String, Option<Value>)> = vec![
                ("DELETE", entry.clone(), None),
                ("POST", format!("{entry}/hide"), None),
                ("POST", format!("{entry}/restore"), None),
                ("POST", format!("{entry}/withdraw"), None),
                ("PATCH", entry.clone(), Some(json!({"model": "pwned"}))),
                ("PATCH", base.clone(), Some(json!({"title": "pwned"}))),
                ("GET", format!("{base}/audit"), None),
                (
                    "POST",
                    format!("{base}/import"),
                    Some(json!({"format": "csv", "text": "model,accuracy\nx,1\n"})),
                ),
            ];
            for (method, path, body) in refused {
                let (status, reply) = http(&server, method, &path, token, body);
                assert_eq!(status, 403, "{method} {path} with {token:?}: {reply}");
            }
        }
        // The entry token is not an owner token either.
        for (method, path) in [("POST", format!("{entry}/hide")), ("PATCH", base.clone())] {
            let body = (method == "PATCH").then(|| json!({"title": "x"}));
            assert_eq!(
                http(&server, method, &path, Some(&ta), body).0,
                403,
                "{method} {path}"
            );
        }
        let out = lb(
            &server,
            &[
                "remove",
                "--slug",
                &s,
                "--entry",
                &ea.to_string(),
                "--token",
                "nope",
            ],
        );
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("bad token"));
        assert_eq!(
            snapshot(&server, &s, &owner),
            before,
            "a refused request changed the board"
        );

        // With the right tokens, each change happens and is in the audit log.
        let (st, _) = http(
            &server,
            "PATCH",
            &entry,
            Some(&ta),
            Some(json!({"meta": {"organisation": "Org"}})),
        );
        assert_eq!(st, 200);
        assert_eq!(
            http(
                &server,
                "POST",
                &format!("{entry}/hide"),
                Some(&owner),
                None
            )
            .0,
            200
        );
        let public = lb_json(&server, &["show", "--slug", &s, "--json"]);
        assert_eq!(public["entries"].as_array().unwrap().len(), 1);
        assert_eq!(
            http(
                &server,
                "POST",
                &format!("{entry}/restore"),
                Some(&owner),
                None
            )
            .0,
            200
        );
        let out = lb_json(
            &server,
            &[
                "remove",
                "--slug",
                &s,
                "--entry",
                &ea.to_string(),
                "--token",
                &ta,
            ],
        );
        assert_eq!(out["state"], "withdrawn");
        let out = lb_json(
            &server,
            &[
                "remove",
                "--slug",
                &s,
                "--entry",
                &ea.to_string(),
                "--token",
                &owner,
            ],
        );
        assert_eq!(out["state"], "deleted");
        let (_, audit) = http(&server, "GET", &format!("{base}/audit"), Some(&owner), None);
        let log: Vec<(String, String)> = audit["audit"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["actor"].as_str().unwrap().into(),
                    r["action"].as_str().unwrap().into(),
                )
            })
            .collect();
        let want = [
            ("public", "create board"),
            ("public", "submit"),
            ("public", "submit"),
            ("entry", "edit"),
            ("owner", "hide"),
            ("owner", "restore"),
            ("entry", "withdraw"),
            ("owner", "delete"),
        ];
        assert_eq!(
            log,
            want.iter()
                .map(|(a, b)| ((*a).to_string(), (*b).to_string()))
                .collect::<Vec<_>>()
        );
        // Tokens are stored only as hashes: no token in any reply of the audit log.
        let text = audit.to_string();
        assert!(!text.contains(&owner) && !text.contains(&ta));
    }
}

#[test]
fn an_xss_probe_is_inert_in_the_server_rendered_html() {
    const PROBE: &str = "<img src=x onerror=alert(1)>";
    let db = temp("xss").join("lb.sqlite3");
    let server = Server::start(p(&db));
    let dir = temp("xss-files");
    let s = slug("xss");
    let description =
        format!("Intro **bold** {PROBE} <script>alert(2)</script> [x](javascript:alert(3))");
    lb_json(
        &server,
        &[
            "create",
            "--slug",
            &s,
            "--title",
            PROBE,
            "--benchmark",
            "pairs",
            "--description",
            &description,
        ],
    );
    let meta = format!("organisation={PROBE}");
    let notes = "notes=\" onmouseover=\"alert(4)";
    let e = lb_json(
        &server,
        &[
            "submit",
            "--slug",
            &s,
            "--model",
            PROBE,
            "--meta",
            &meta,
            "--meta",
            notes,
            p(&pairs_file(&dir, "p.jsonl", 20, 15)),
        ],
    );
    let id = e["entry"].as_i64().unwrap();
    let pages = [
        format!("{}/leaderboard/{s}", server.url),
        format!("{}/leaderboard/{s}/entry/{id}", server.url),
        format!("{}/leaderboard/{s}/badge/{id}.svg", server.url),
        format!("{}/leaderboards", server.url),
    ];
    for url in &pages {
        let (status, page) = get(url);
        assert_eq!(status, 200, "{url}");
        for bad in [
            "<img src=x",
            "<img src=\"x",
            "<script",
            "onerror=alert(1)>",
            "javascript:",
            "\" onmouseover",
        ] {
            assert!(!page.contains(bad), "{url} contains {bad:?}");
        }
        assert!(
            page.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{url}: the probe is not shown escaped"
        );
    }
    let (_, page) = get(&pages[0]);
    assert!(
        page.contains("<strong>bold</strong>"),
        "Markdown is rendered"
    );
    assert!(page.contains("<meta property=\"og:title\""));
    assert!(page.contains("<meta name=\"twitter:card\""));
    assert!(page.contains("<table class=\"ranked\">"));
}

/// A model name that is a spreadsheet formula, or holds HTML and a newline, stays inert in the
/// board's CSV and Markdown exports (issue 25, item 6).
#[test]
fn exports_keep_model_names_inert() {
    let db = temp("inert-exports").join("lb.sqlite3");
    let server = Server::start(p(&db));
    let dir = temp("inert-exports-files");
    let s = slug("inert");
    let create = [
        "create",
        "--slug",
        &s,
        "--title",
        "t",
        "--benchmark",
        "pairs",
    ];
    lb_json(&server, &create);
    for (model, right) in [
        ("=HYPERLINK(\"http://x\",\"y\")", 15),
        ("<img src=x>\nnext | row", 12),
    ] {
        let file = pairs_file(&dir, &format!("p{right}.jsonl"), 20, right);
        lb_json(
            &server,
            &["submit", "--slug", &s, "--model", model, p(&file)],
        );
    }
    let api = format!("{}/api/v1/leaderboards/{s}", server.url);
    let (status, csv) = get(&format!("{api}/export?format=csv"));
    assert_eq!(status, 200);
    assert!(
        csv.contains("\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""),
        "{csv}"
    );
    assert!(
        !csv.lines()
            .any(|l| l.starts_with('=') || l.starts_with("\"=")),
        "{csv}"
    );
    let (status, md) = get(&format!("{api}/export?format=markdown"));
    assert_eq!(status, 200);
    assert!(!md.contains("<img"), "{md}");
    assert!(md.contains("&lt;img src=x&gt; next \\| row"), "{md}");
    assert!(
        md.lines().all(|l| l.starts_with('|') && l.ends_with('|')),
        "{md}"
    );
}

/// The files of a hidden or withdrawn entry are not served to the public (the owner still gets
/// them; a file a visible entry shares stays public), and a withdrawal is the submitter's: the
/// owner can neither hide nor restore a withdrawn entry (issue 25, item 7).
#[test]
fn hidden_and_withdrawn_entries_keep_their_files_and_withdrawal_is_the_submitters() {
    for db in stores() {
        let server = Server::start(&db);
        let dir = temp("visibility-files");
        let s = slug("vis");
        let create = [
            "create",
            "--slug",
            &s,
            "--title",
            "v",
            "--benchmark",
            "pairs",
        ];
        let owner = lb_json(&server, &create)["owner_token"]
            .as_str()
            .unwrap()
            .to_string();
        let shared = pairs_file(&dir, "shared.jsonl", 20, 14);
        let submit = |model: &str, files: &[&Path]| {
            let mut args = vec!["submit", "--slug", &s, "--model", model];
            args.extend(files.iter().map(|f| p(f)));
            let e = lb_json(&server, &args);
            let sha = |f: &Path| {
                metrics_core::InputFile::from_bytes("", &std::fs::read(f).unwrap()).sha256
            };
            let shas: Vec<String> = files.iter().map(|f| sha(f)).collect();
            (
                e["entry"].as_i64().unwrap(),
                e["entry_token"].as_str().unwrap().to_string(),
                shas,
            )
        };
        let (a, _, a_sha) = submit("a", &[&pairs_file(&dir, "a.jsonl", 20, 15)]);
        let (b, b_token, b_sha) = submit("b", &[&pairs_file(&dir, "b.jsonl", 20, 12)]);
        let (c, _, c_sha) = submit("c", &[&shared]);
        let (_, _, _) = submit("d", &[&shared]);
        let api = format!("/api/v1/leaderboards/{s}");
        // The status of a file download (its body is not JSON: `http` reads it as null).
        let file = |sha: &str, token: Option<&str>| {
            http(&server, "GET", &format!("{api}/files/{sha}"), token, None).0
        };
        let action = |id: i64, verb: &str, token: &str| {
            http(
                &server,
                "POST",
                &format!("{api}/entries/{id}/{verb}"),
                Some(token),
                None,
            )
            .0
        };
        assert_eq!(file(&a_sha[0], None), 200);
        assert_eq!(action(a, "hide", &owner), 200);
        assert_eq!(file(&a_sha[0], None), 404, "a hidden entry's file");
        assert_eq!(
            file(&a_sha[0], Some(&owner)),
            200,
            "the owner still gets it"
        );
        assert_eq!(action(c, "hide", &owner), 200);
        assert_eq!(
            file(&c_sha[0], None),
            200,
            "a visible entry shares the file"
        );
        assert_eq!(action(b, "withdraw", &b_token), 200);
        assert_eq!(file(&b_sha[0], None), 404, "a withdrawn entry's file");
        assert_eq!(
            action(b, "hide", &owner),
            409,
            "the owner cannot hide a withdrawal"
        );
        assert_eq!(action(b, "restore", &owner), 409, "nor restore it");
        let public = lb_json(&server, &["show", "--slug", &s, "--json"]);
        let models: Vec<&str> = public["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["model"].as_str().unwrap())
            .collect();
        assert_eq!(models, ["d"], "{db}");
    }
}

/// Submit `total` entries from 16 threads over HTTP; kill -9 the server after `kill_after`
/// acknowledgements; every acknowledged entry must be there, intact, after a restart.
fn kill9_keeps_acknowledged(db: &str, total: usize, kill_after: usize) -> usize {
    let server = Server::start(db);
    let dir = temp("kill9");
    let s = slug("kill");
    lb_json(
        &server,
        &[
            "create",
            "--slug",
            &s,
            "--title",
            "kill -9",
            "--benchmark",
            "pairs",
        ],
    );
    let files: Vec<(String, Vec<u8>)> = (0..3)
        .map(|k| {
            let f = pairs_file(&dir, &format!("p{k}.jsonl"), 200, 100 + 40 * k);
            (format!("p{k}.jsonl"), std::fs::read(f).unwrap())
        })
        .collect();
    let expected: Vec<Value> = (0..3)
        .map(|k| {
            score_json(&[
                "score",
                "pairs",
                p(&dir.join(format!("p{k}.jsonl"))),
                "--json",
            ])["overall"]["metrics"]
                .clone()
        })
        .collect();
    let acked: Arc<Mutex<Vec<(i64, usize)>>> = Arc::default();
    let next = Arc::new(AtomicUsize::new(0));
    let url = format!("{}/api/v1/leaderboards/{s}/entries", server.url);
    let threads: Vec<_> = (0..16)
        .map(|_| {
            let (acked, next, url, files) = (acked.clone(), next.clone(), url.clone(), files.clone());
            std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
                let client = reqwest::Client::new();
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= total {
                        return;
                    }
                    let k = i % 3;
                    use base64::Engine as _;
                    let body = json!({"model": format!("m{i}"), "files": [{
                        "name": files[k].0, "base64": base64::engine::general_purpose::STANDARD.encode(&files[k].1)}]});
                    let reply = rt.block_on(async {
                        let r = client.post(&url).json(&body).send().await.ok()?;
                        if r.status().as_u16() != 201 {
                            return None;
                        }
                        r.json::<Value>().await.ok()
                    });
                    match reply {
                        Some(v) => acked.lock().unwrap().push((v["entry"].as_i64().unwrap(), k)),
                        None => return, // the server is gone
                    }
                }
            })
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(120);
    while acked.lock().unwrap().len() < kill_after && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    server.kill9();
    for t in threads {
        t.join().unwrap();
    }
    let acked = acked.lock().unwrap().clone();
    assert!(
        acked.len() >= kill_after,
        "only {} acknowledged",
        acked.len()
    );
    if !db.starts_with("postgres") {
        let conn = rusqlite::Connection::open(db).unwrap();
        let check: String = conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(check, "ok");
        let fk: i64 = conn
            .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(fk, 0);
    }
    let server = Server::start(db);
    let shown = lb_json(&server, &["show", "--slug", &s, "--json"]);
    let entries = shown["entries"].as_array().unwrap();
    for (id, k) in &acked {
        let e = entries
            .iter()
            .find(|e| e["entry"].as_i64() == Some(*id))
            .unwrap_or_else(|| panic!("acknowledged entry {id} lost after kill -9"));
        assert_eq!(
            e["model"]
                .as_str()
                .unwrap()
                .trim_start_matches('m')
                .parse::<usize>()
                .unwrap()
                % 3,
            *k
        );
        for (metric, v) in expected[*k].as_object().unwrap() {
            assert_eq!(&e["metrics"][metric], v, "entry {id} {metric}");
        }
    }
    // Every stored entry re-scores to its numbers from its stored files.
    let verify = lb(&server, &["verify", "--slug", &s]);
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stderr)
    );
    acked.len()
}

#[test]
fn kill_9_during_concurrent_submissions_keeps_every_acknowledged_entry() {
    for db in stores() {
        let n = kill9_keeps_acknowledged(&db, 200, 60);
        eprintln!(
            "leaderboard: kill -9 on {}: {n} acknowledged entries all kept",
            server_kind(&db)
        );
    }
}

#[test]
fn two_servers_on_one_postgres_serve_the_same_board() {
    let Some(db) = stores().into_iter().find(|d| d.starts_with("postgres")) else {
        return;
    };
    let (a, b) = (Server::start(&db), Server::start(&db));
    let dir = temp("two");
    let s = slug("two");
    lb_json(
        &a,
        &[
            "create",
            "--slug",
            &s,
            "--title",
            "two servers",
            "--benchmark",
            "pairs",
        ],
    );
    let f1 = pairs_file(&dir, "1.jsonl", 50, 40);
    let f2 = pairs_file(&dir, "2.jsonl", 50, 30);
    std::thread::scope(|scope| {
        for i in 0..6 {
            let (server, f) = if i % 2 == 0 { (&a, &f1) } else { (&b, &f2) };
            let s = s.clone();
            scope.spawn(move || {
                lb_json(
                    server,
                    &["submit", "--slug", &s, "--model", &format!("m{i}"), p(f)],
                )
            });
        }
    });
    let strip = |mut v: Value| {
        v["board"]["gold"] = Value::Null;
        v
    };
    let on_a = strip(settled(&a, &s));
    let on_b = strip(settled(&b, &s));
    assert_eq!(on_a["entries"].as_array().unwrap().len(), 6);
    let ids: std::collections::BTreeSet<i64> = on_a["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["entry"].as_i64().unwrap())
        .collect();
    assert_eq!(ids.len(), 6, "entry numbers are unique across servers");
    assert_eq!(on_a, on_b);
}

#[test]
fn bad_input_exits_2_and_client_numbers_must_match_bit_for_bit() {
    let db = temp("errors").join("lb.sqlite3");
    let server = Server::start(p(&db));
    let g = golden_dir();
    let eotgc = g.join("eotgc/eotgc_11_full_size_185");
    let s = slug("err");
    let made = lb_json(
        &server,
        &[
            "create",
            "--slug",
            &s,
            "--title",
            "E",
            "--benchmark",
            "eotgc",
            p(&eotgc.join("gold.json")),
        ],
    );
    let owner = made["owner_token"].as_str().unwrap().to_string();
    let fails = |args: &[&str], needle: &str| {
        let out = lb(&server, args);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    };
    fails(
        &["show", "--slug", "no-such-board"],
        "no leaderboard `no-such-board`",
    );
    let sas =
        g.join("sasbench/case_24/datasets_GoldenModel_Scored/2_Physics_Choice_prediction.jsonl");
    fails(
        &["submit", "--slug", &s, "--model", "m", p(&sas)],
        "2_Physics_Choice_prediction.jsonl: this is a",
    );
    fails(
        &[
            "create",
            "--slug",
            &s,
            "--title",
            "again",
            "--benchmark",
            "eotgc",
            p(&eotgc.join("gold.json")),
        ],
        "exists already",
    );
    fails(
        &[
            "create",
            "--slug",
            "x-y",
            "--title",
            "t",
            "--benchmark",
            "nope",
        ],
        "no benchmark `nope`",
    );
    fails(
        &[
            "create",
            "--slug",
            "x-z",
            "--title",
            "t",
            "--benchmark",
            "eotgc",
            "--primary",
            "qwk",
        ],
        "no metric `qwk`",
    );
    let unreachable = Command::new(BIN)
        .args([
            "leaderboard",
            "show",
            "--slug",
            &s,
            "--server",
            "http://127.0.0.1:9",
        ])
        .output()
        .unwrap();
    assert_eq!(unreachable.status.code(), Some(2));

    // The workbench's publish sends its numbers: equal → stored, one bit off → 409, nothing stored.
    let pred = std::fs::read(eotgc.join("pred.json")).unwrap();
    let client = score_json(&[
        "score",
        "eotgc",
        "--gold",
        p(&eotgc.join("gold.json")),
        p(&eotgc.join("pred.json")),
        "--json",
    ]);
    use base64::Engine as _;
    let files = json!([{"name": "pred.json", "base64": base64::engine::general_purpose::STANDARD.encode(&pred)}]);
    let path = format!("/api/v1/leaderboards/{s}/entries");
    let (status, _) = http(
        &server,
        "POST",
        &path,
        None,
        Some(json!({"model": "same", "files": files, "client_report": client})),
    );
    assert_eq!(status, 201);
    let mut off = client.clone();
    let acc = off["overall"]["metrics"]["acc_a"].as_f64().unwrap();
    off["overall"]["metrics"]["acc_a"] = json!(f64::from_bits(acc.to_bits() + 1));
    let (status, reply) = http(
        &server,
        "POST",
        &path,
        None,
        Some(json!({"model": "off", "files": files, "client_report": off})),
    );
    assert_eq!(status, 409, "{reply}");
    assert_eq!(reply["differences"][0]["at"], "overall.acc_a");
    let shown = lb_json(&server, &["show", "--slug", &s, "--json"]);
    assert_eq!(shown["entries"].as_array().unwrap().len(), 1);

    // An imported table: reported entries, ranked, marked, skipped by verify.
    let table = temp("import").join("Results.md");
    std::fs::write(&table, "| Rank | Team | ACC_A | Pearson | Score |\n|---|---|---|---|---|\n| 1 | reported-team | 99.0 | 90.0 | 95.0 |\n").unwrap();
    lb_json(
        &server,
        &[
            "import",
            "--slug",
            &s,
            "--token",
            &owner,
            "--scale",
            "100",
            p(&table),
        ],
    );
    let shown = lb_json(&server, &["show", "--slug", &s, "--json"]);
    let first = &shown["entries"][0];
    assert_eq!(first["model"], "reported-team");
    assert_eq!(first["status"], "reported");
    assert_eq!(first["metrics"]["acc_a"], json!(99.0 / 100.0));
    assert_eq!(shown["entries"][1]["status"], "verified");
    let verify = lb(&server, &["verify", "--slug", &s]);
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stderr)
    );
    assert!(String::from_utf8_lossy(&verify.stdout).contains("1 reported entries skipped"));
    let (_, page) = get(&format!("{}/leaderboard/{s}", server.url));
    assert!(page.contains("reported, not verified"));

    // A stored number one bit off (the report's file in the folder beside the database
    // changed): verify exits 1 and names it.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let sha: String = conn
        .query_row(
            "SELECT report_sha256 FROM lb_entry WHERE slug = ?1 AND status = 'verified'",
            [&s],
            |r| r.get(0),
        )
        .unwrap();
    let path = server::files::beside(&db)
        .join("sha256")
        .join(&sha[..2])
        .join(&sha);
    let mut report: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    report["overall"]["metrics"]["pearson"] = json!(f64::from_bits(
        report["overall"]["metrics"]["pearson"]
            .as_f64()
            .unwrap()
            .to_bits()
            - 1
    ));
    std::fs::write(&path, report.to_string()).unwrap();
    let verify = lb(&server, &["verify", "--slug", &s]);
    let stderr = String::from_utf8_lossy(&verify.stderr);
    assert_eq!(verify.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("overall.pearson"), "{stderr}");
}

/// The app takes over the server-rendered pages: `dist/boards/index.html`'s (else
/// `dist/index.html`'s) `<link>` and `<script>` tags are in the page, and its CSP allows exactly the inline script and style by hash. EOTGC boards
/// rank by the registry's primary metric (`score`) unless told otherwise, and a hidden entry is
/// shown to the owner and to its own entry token only.
#[test]
fn pages_carry_the_app_primary_metric_and_hidden_entries_for_the_owner() {
    use base64::Engine as _;
    use sha2::Digest as _;
    let dist = temp("dist");
    let script = "\nimport init from '/app-0123456789abcdef.js';\nawait init();\n";
    std::fs::write(
        dist.join("index.html"),
        format!(
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>app</title>\
             <link rel=\"stylesheet\" href=\"/style-0123456789abcdef.css\"/>\
             <script type=\"module\">{script}</script></head><body></body></html>"
        ),
    )
    .unwrap();
    let db = temp("app-pages").join("lb.sqlite3");
    let server = Server::start_full(p(&db), &[], "warn", Stdio::null(), p(&dist));
    let eotgc = golden_dir().join("eotgc/eotgc_11_full_size_185");
    let s = slug("app");
    let made = lb_json(
        &server,
        &[
            "create",
            "--slug",
            &s,
            "--title",
            "E",
            "--benchmark",
            "eotgc",
            p(&eotgc.join("gold.json")),
        ],
    );
    let owner = made["owner_token"].as_str().unwrap().to_string();
    let entry = lb_json(
        &server,
        &[
            "submit",
            "--slug",
            &s,
            "--model",
            "m",
            p(&eotgc.join("pred.json")),
        ],
    );
    let (id, entry_token) = (
        entry["entry"].as_i64().unwrap(),
        entry["entry_token"].as_str().unwrap().to_string(),
    );
    let shown = lb_json(&server, &["show", "--slug", &s, "--json"]);
    assert_eq!(shown["board"]["primary"], "score", "EOTGC's ranking metric");

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // (CSP, HTML) of a page.
    let page_of = |url: &str| {
        rt.block_on(async {
            let r = reqwest::get(url).await.unwrap();
            let csp = r.headers()["content-security-policy"]
                .to_str()
                .unwrap()
                .to_string();
            (csp, r.text().await.unwrap())
        })
    };
    let (csp, page) = page_of(&format!("{}/leaderboard/{s}", server.url));
    // Without the leaderboard pages' build, no app at all (the workbench's assets would load
    // and not mount): the server-rendered page alone, its inline style allowed by hash.
    assert!(!page.contains("/app-0123456789abcdef.js"), "{page}");
    assert!(
        !page.contains("scorebench-app-assets"),
        "the marker is replaced"
    );
    assert!(page.contains("<table class=\"ranked\">"), "the table stays");
    let hash = |text: &str| {
        base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(text.as_bytes()))
    };
    assert!(
        !csp.contains(&format!("'sha256-{}'", hash(script))),
        "{csp}"
    );
    let style = page
        .split("<style>")
        .nth(1)
        .and_then(|r| r.split("</style>").next())
        .unwrap();
    assert!(
        csp.contains(&format!("style-src 'self' 'sha256-{}';", hash(style))),
        "{csp}"
    );

    // With the leaderboard pages' own build (dist/boards/), its assets and only its.
    let boards_script = "\nimport init from '/boards/boards-0123456789abcdef.js';\nawait init();\n";
    std::fs::create_dir_all(dist.join("boards")).unwrap();
    std::fs::write(
        dist.join("boards/index.html"),
        format!(
            "<!doctype html><html><head><title>boards</title>\
             <link rel=\"stylesheet\" href=\"/boards/style-0123456789abcdef.css\"/>\
             <script type=\"module\">{boards_script}</script></head><body></body></html>"
        ),
    )
    .unwrap();
    let (csp, page) = page_of(&format!("{}/leaderboard/{s}", server.url));
    assert!(page.contains(&format!("<script type=\"module\">{boards_script}</script>")));
    assert!(page.contains("href=\"/boards/style-0123456789abcdef.css\""));
    assert!(
        !page.contains("/app-0123456789abcdef.js"),
        "not the workbench"
    );
    assert!(
        csp.contains(&format!("'sha256-{}'", hash(boards_script))),
        "{csp}"
    );
    assert!(
        !csp.contains(&format!("'sha256-{}'", hash(script))),
        "{csp}"
    );
    // The comparison page is rendered too (the boards app takes it over): both entries in
    // order, a hostile model name inert.
    let hostile = lb_json(
        &server,
        &[
            "submit",
            "--slug",
            &s,
            "--model",
            "<script>alert(\"&\")</script>",
            p(&eotgc.join("pred.json")),
        ],
    );
    let other = hostile["entry"].as_i64().unwrap();
    let (status, page) = rt.block_on(async {
        let r = reqwest::get(format!(
            "{}/leaderboard/{s}/compare/{id}/{other}",
            server.url
        ))
        .await
        .unwrap();
        (r.status().as_u16(), r.text().await.unwrap())
    });
    assert_eq!(status, 200, "{page}");
    assert!(page.contains(&format!("<script type=\"module\">{boards_script}</script>")));
    assert!(page.contains("<table class=\"compare\">"), "{page}");
    let (first, second) = (
        page.find(&format!("href=\"/leaderboard/{s}/entry/{id}\"")),
        page.find(&format!("href=\"/leaderboard/{s}/entry/{other}\"")),
    );
    assert!(first.is_some() && first < second, "both, in order: {page}");
    assert!(!page.contains("<script>alert"), "{page}");
    assert!(page.contains("&lt;script&gt;alert("), "{page}");
    let hide = format!("/api/v1/leaderboards/{s}/entries/{other}/hide");
    assert_eq!(http(&server, "POST", &hide, Some(&owner), None).0, 200);
    let status = rt.block_on(async {
        reqwest::get(format!("{}/leaderboard/{s}/compare/{id}/x", server.url))
            .await
            .unwrap()
            .status()
            .as_u16()
    });
    assert!(status >= 400, "a bad entry id is an error page: {status}");

    // Hidden: 404 for anyone, the entry for the owner and for its own token.
    let path = format!("/api/v1/leaderboards/{s}/entries/{id}");
    let (status, _) = http(&server, "POST", &format!("{path}/hide"), Some(&owner), None);
    assert_eq!(status, 200);
    assert_eq!(http(&server, "GET", &path, None, None).0, 404);
    assert_eq!(http(&server, "GET", &path, Some("sbo_wrong"), None).0, 404);
    let (status, seen) = http(&server, "GET", &path, Some(&owner), None);
    assert_eq!(
        (status, seen["state"].as_str()),
        (200, Some("hidden")),
        "{seen}"
    );
    assert_eq!(http(&server, "GET", &path, Some(&entry_token), None).0, 200);

    // 150 more (imported) entries: the server page shows 100 rows a page, with links.
    let table = temp("import-150").join("t.csv");
    let mut csv = String::from("model,score\n");
    for i in 0..150 {
        csv.push_str(&format!(
            "imported-{i:03},{}\n",
            0.5 - f64::from(i) / 1000.0
        ));
    }
    std::fs::write(&table, csv).unwrap();
    lb_json(
        &server,
        &[
            "import",
            "--slug",
            &s,
            "--token",
            &owner,
            "--scale",
            "1",
            p(&table),
        ],
    );
    let (_, first) = get(&format!("{}/leaderboard/{s}", server.url));
    assert_eq!(first.matches("<tr data-entry=").count(), 100);
    assert!(
        first.contains("entries 1–100 of 150 (page 1 of 2)"),
        "{first}"
    );
    assert!(first.contains(&format!("href=\"/leaderboard/{s}?page=2\" rel=\"next\"")));
    assert!(first.contains(&format!(
        "<link rel=\"preload\" href=\"/api/v1/leaderboards/{s}\" as=\"fetch\" crossorigin=\"anonymous\">"
    )));
    let (_, second) = get(&format!("{}/leaderboard/{s}?page=2", server.url));
    assert_eq!(second.matches("<tr data-entry=").count(), 50);
    assert!(second.contains("imported-149"));
    assert!(!second.contains("imported-000<"));
}

/// Absolute URLs come from `--public-url` (else the request's allowed `Host`, `https` only
/// when `--trust-proxy`); `405` has the API's error shape; an overlong path segment
/// is a 404 that logs nothing (issue 25, item 8).
#[test]
fn urls_come_from_the_public_url_and_refusals_are_quiet_and_shaped() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let send = |url: &str, host: Option<&str>, proto: Option<&str>| -> (u16, String) {
        rt.block_on(async {
            let mut r = reqwest::Client::new().get(url);
            if let Some(h) = host {
                r = r.header("host", h);
            }
            if let Some(p) = proto {
                r = r.header("x-forwarded-proto", p);
            }
            let resp = r.send().await.unwrap();
            (resp.status().as_u16(), resp.text().await.unwrap())
        })
    };
    let dist = temp("quiet-dist");
    std::fs::write(dist.join("index.html"), "<!doctype html><title>app</title>").unwrap();
    let log = temp("quiet-log").join("stderr.log");
    let db = temp("public-url").join("lb.sqlite3");
    let s = slug("public");
    {
        let server = Server::start_full(
            p(&db),
            &[],
            "info",
            Stdio::from(std::fs::File::create(&log).unwrap()),
            p(&dist),
        );
        let created = lb_json(&server, &create_args(&s, "pairs", &[]));
        let port = server.url.rsplit(':').next().unwrap().to_string();
        // The request's Host (allowed), http: X-Forwarded-Proto is not believed by default.
        assert_eq!(created["url"], format!("{}/leaderboard/{s}", server.url));
        let board = format!("{}/leaderboard/{s}", server.url);
        let (status, page) = send(
            &board,
            Some(&format!("boards.localhost:{port}")),
            Some("https"),
        );
        assert_eq!(status, 200);
        assert!(
            page.contains(&format!(
                "content=\"http://boards.localhost:{port}/leaderboard/{s}\""
            )),
            "{page}"
        );
        // 405 in the error shape.
        let (status, body) = http(&server, "PUT", "/api/v1/leaderboards", None, None);
        assert_eq!(status, 405);
        assert!(
            body["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{body}"
        );
        // An overlong segment: 404, nothing logged.
        let (status, _) = send(&format!("{}/{}", server.url, "x".repeat(300)), None, None);
        assert_eq!(status, 404);
    }
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(!logged.contains("ERROR"), "{logged}");
    assert!(!logged.contains("too long"), "{logged}");

    let server = Server::start_with(
        p(&db),
        &["--public-url", "https://boards.example/", "--trust-proxy"],
    );
    let board = format!("{}/leaderboard/{s}", server.url);
    let (_, page) = send(&board, Some("evil.localhost"), None);
    assert!(
        page.contains("content=\"https://boards.example/leaderboard/"),
        "{page}"
    );
    assert!(page.contains("<link rel=\"canonical\" href=\"https://boards.example/leaderboard/"));
    assert!(!page.contains("evil.localhost"), "{page}");
    drop(server);
    // Without --public-url but trusting the proxy: https from X-Forwarded-Proto.
    let server = Server::start_with(p(&db), &["--trust-proxy"]);
    let board = format!("{}/leaderboard/{s}", server.url);
    let (_, page) = send(&board, None, Some("https"));
    let host = server.url.strip_prefix("http://").unwrap();
    assert!(
        page.contains(&format!("content=\"https://{host}/leaderboard/{s}\"")),
        "{page}"
    );
    // A bad --public-url is refused at start.
    let out = Command::new(BIN)
        .args(["serve", "--addr", "127.0.0.1:0", "--db", p(&db)])
        .args(["--public-url", "ftp://x.example/?q=1"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--public-url"));
}

/// A description nested deeper than the bound is refused when written (create and edit), so
/// no page view pays for it; an allowed one is rendered once and served (issue 25, item 3).
#[test]
fn deep_descriptions_are_refused_when_written() {
    let db = temp("deep-md").join("lb.sqlite3");
    let server = Server::start(p(&db));
    let s = slug("deep");
    let deep = ">".repeat(19_999);
    let out = lb(
        &server,
        &create_args(&s, "pairs", &["--description", &deep]),
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nests 19999") && err.contains("at most 16"),
        "{err}"
    );
    let allowed = format!("{}deep enough", "> ".repeat(16));
    let owner = lb_json(
        &server,
        &create_args(&s, "pairs", &["--description", &allowed]),
    )["owner_token"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, page) = get(&format!("{}/leaderboard/{s}", server.url));
    assert_eq!(status, 200);
    assert_eq!(page.matches("<blockquote>").count(), 16, "{page}");
    assert!(
        page.contains("content=\"deep enough\""),
        "the meta description: {page}"
    );
    let (status, reply) = http(
        &server,
        "PATCH",
        &format!("/api/v1/leaderboards/{s}"),
        Some(&owner),
        Some(json!({"description": format!("ok\n\n{}", "- ".repeat(40))})),
    );
    assert_eq!(status, 400, "{reply}");
    assert!(
        reply["error"].as_str().unwrap().contains("line 3"),
        "{reply}"
    );
    let (_, page) = get(&format!("{}/leaderboard/{s}", server.url));
    assert_eq!(page.matches("<blockquote>").count(), 16, "unchanged");
}

/// An entry with more samples than the server keeps is refused before its samples are built
/// (issue 25: a 45 MB pairs file took 1.3 GB to store with its 2 M samples).
#[test]
fn entries_over_the_sample_limit_are_refused() {
    let db = temp("samples-cap").join("lb.sqlite3");
    let server = Server::start_with(p(&db), &["--max-entry-samples", "20"]);
    let dir = temp("samples-cap-files");
    let s = slug("cap");
    lb_json(&server, &create_args(&s, "pairs", &[]));
    let fits = lb_json(
        &server,
        &[
            "submit",
            "--slug",
            &s,
            "--model",
            "m",
            p(&pairs_file(&dir, "a.jsonl", 20, 15)),
        ],
    );
    assert_eq!(fits["report"]["overall"]["n"], 20, "{fits}");
    let (_, entry) = http(
        &server,
        "GET",
        &format!(
            "/api/v1/leaderboards/{s}/entries/{}?samples=true",
            fits["entry"]
        ),
        None,
        None,
    );
    assert_eq!(
        entry["report"]["samples"].as_array().unwrap().len(),
        20,
        "{entry}"
    );
    let out = lb(
        &server,
        &[
            "submit",
            "--slug",
            &s,
            "--model",
            "big",
            p(&pairs_file(&dir, "b.jsonl", 21, 15)),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("21 samples") && err.contains("--max-entry-samples"),
        "{err}"
    );
}
