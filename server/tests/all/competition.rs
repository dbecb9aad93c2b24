//! Competitions (issue 14) end to end: the real `scorebench serve` on 127.0.0.1 with a real
//! SQLite file (and PostgreSQL when `PG_URL` is set), the real `scorebench leaderboard …`
//! command line and plain HTTP. Expected numbers come from `scorebench score eotgc … --json` on
//! the golden files filtered to the share's items.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::leaderboard::{
    Server, create_args, http, lb, lb_json, p, queue_alone, slug, stores, temp,
};
use crate::support::{golden_dir, score_json};
use server::leaderboard::competition::{private_share, public_share};

const SEED: u64 = 42;

fn eotgc_dir() -> PathBuf {
    golden_dir().join("eotgc/eotgc_11_full_size_185")
}

fn records(path: &Path) -> Vec<Value> {
    serde_json::from_str::<Value>(&std::fs::read_to_string(path).unwrap())
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// The gold and prediction files reduced to the gold's records at `positions` (the share's
/// items), scored by `scorebench score eotgc`: the overall metrics.
fn cli_metrics_on(positions: &[usize], dir: &Path, tag: &str) -> Value {
    let gold = records(&eotgc_dir().join("gold.json"));
    let ids: Vec<&Value> = positions.iter().map(|&i| &gold[i]["id"]).collect();
    let keep = |rs: Vec<Value>| -> Vec<Value> {
        rs.into_iter().filter(|r| ids.contains(&&r["id"])).collect()
    };
    let g = dir.join(format!("{tag}-gold.json"));
    let pr = dir.join(format!("{tag}-pred.json"));
    std::fs::write(&g, serde_json::to_string(&keep(gold.clone())).unwrap()).unwrap();
    let preds = records(&eotgc_dir().join("pred.json"));
    std::fs::write(&pr, serde_json::to_string(&keep(preds)).unwrap()).unwrap();
    score_json(&["score", "eotgc", "--gold", p(&g), p(&pr), "--json"])["overall"]["metrics"].clone()
}

/// Every metric of `expected` is in `got` with the same bits.
fn same_bits(got: &Value, expected: &Value, what: &str) {
    let keys = ["acc_a", "pearson", "score"];
    for k in keys {
        let (a, b) = (&got[k], &expected[k]);
        assert!(
            b.is_number(),
            "{what}: the CLI gives no number for {k}: {expected}"
        );
        assert_eq!(
            a.as_f64().map(f64::to_bits),
            b.as_f64().map(f64::to_bits),
            "{what}: {k}: server {a} vs CLI {b}"
        );
    }
}

/// Bytes of a GET (any status), with an optional bearer token.
fn fetch(url: &str, token: Option<&str>) -> (u16, Vec<u8>) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut r = reqwest::Client::new().get(url);
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        let resp = r.send().await.unwrap();
        let status = resp.status().as_u16();
        (status, resp.bytes().await.unwrap().to_vec())
    })
}

fn create(server: &Server, s: &str, extra: &[&str]) -> String {
    let gold = eotgc_dir().join("gold.json");
    let mut args = vec![
        "create",
        "--slug",
        s,
        "--title",
        "Hidden EOTGC",
        "--benchmark",
        "eotgc",
        "--seed",
        "42",
    ];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--hidden-gold", p(&gold)]);
    lb_json(server, &args)["owner_token"]
        .as_str()
        .unwrap()
        .to_string()
}

fn team(server: &Server, s: &str, owner: &str, name: &str) -> String {
    lb_json(
        server,
        &["team", "add", "--slug", s, "--token", owner, "--name", name],
    )["team_token"]
        .as_str()
        .unwrap()
        .to_string()
}

fn submit(server: &Server, s: &str, token: &str, model: &str, file: &Path) -> Value {
    lb_json(
        server,
        &[
            "submit",
            "--slug",
            s,
            "--model",
            model,
            "--token",
            token,
            p(file),
        ],
    )
}

/// The submissions (owner's view) once none is queued or scoring.
fn settled(server: &Server, s: &str, owner: &str, timeout: Duration) -> Vec<Value> {
    let deadline = Instant::now() + timeout;
    loop {
        let (code, v) = http(
            server,
            "GET",
            &format!("/api/v1/leaderboards/{s}/submissions"),
            Some(owner),
            None,
        );
        assert_eq!(code, 200, "{v}");
        let rows = v["submissions"].as_array().unwrap().clone();
        if rows
            .iter()
            .all(|r| r["status"] != "queued" && r["status"] != "scoring")
        {
            return rows;
        }
        assert!(Instant::now() < deadline, "queue not drained: {v}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn hidden_gold_board_scores_the_public_share_with_the_cli_numbers_and_never_serves_the_gold() {
    let dir = temp("comp");
    let gold_path = eotgc_dir().join("gold.json");
    let n = records(&gold_path).len();
    let public = public_share(&[n], 0.3, SEED);
    let private = private_share(&[n], &public);
    let expect_public = cli_metrics_on(&public[0], &dir, "public");
    let expect_private = cli_metrics_on(&private[0], &dir, "private");
    let all: Vec<usize> = (0..n).collect();
    let expect_all = cli_metrics_on(&all, &dir, "all");
    for db in stores() {
        // The server's log at debug level goes to a file, scanned like the replies.
        let log_path = dir.join("server.log");
        let log = std::fs::File::create(&log_path).unwrap();
        let server = Server::start_logged(&db, &[], "debug", log.into());
        let s = slug("hidden");
        let owner = create(&server, &s, &[]);
        let a = team(&server, &s, &owner, "team-a");
        let made = submit(&server, &s, &a, "model-a", &eotgc_dir().join("pred.json"));
        assert_eq!(made["status"], "queued", "{made}");
        let entry = made["entry"].as_i64().unwrap();
        // Without a team token a board with teams refuses.
        let refused = lb(
            &server,
            &[
                "submit",
                "--slug",
                &s,
                "--model",
                "x",
                p(&dir.join("public-pred.json")),
            ],
        );
        assert_eq!(refused.status.code(), Some(2));
        let rows = settled(&server, &s, &owner, Duration::from_secs(60));
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0]["status"], "done", "{}", rows[0]);
        assert_eq!(rows[0]["completions"], 1);

        // During the phase: the public share's numbers, exactly the CLI's on those items.
        let shown = lb_json(&server, &["show", "--slug", &s, "--json"]);
        let e = &shown["entries"][0];
        assert_eq!(e["rank"], 1);
        assert_eq!(e["team"], "team-a");
        same_bits(&e["metrics"], &expect_public, "public share");
        same_bits(&e["public_metrics"], &expect_public, "public share");
        assert!(e.get("private_metrics").is_none(), "{e}");
        assert_eq!(shown["board"]["competition"]["metrics_on"], "public share");
        assert!(shown["board"]["competition"].get("seed").is_none());
        assert_eq!(shown["board"]["gold"], json!([]));
        // The published SHA-256 of the predictions is that of the file the team holds.
        let pred_sha = hex_sha256(&std::fs::read(eotgc_dir().join("pred.json")).unwrap());
        assert_eq!(e["inputs"][0]["sha256"], pred_sha.as_str());
        assert!(e["scorer"]["version"].is_string());

        // Everything a visitor and the team can reach: no gold bytes, hash or label sequence.
        let base = &server.url;
        let api = format!("{base}/api/v1/leaderboards/{s}");
        let mut urls: Vec<(String, Option<String>)> = vec![
            (format!("{base}/leaderboards"), None),
            (format!("{base}/leaderboard/{s}"), None),
            (format!("{base}/leaderboard/{s}/entry/{entry}"), None),
            (format!("{base}/leaderboard/{s}/badge/{entry}.svg"), None),
            (format!("{base}/api/v1/leaderboards"), None),
            (api.clone(), None),
            (api.clone(), Some(a.clone())),
            (format!("{api}/entries/{entry}"), None),
            (format!("{api}/entries/{entry}?samples=true"), None),
            (
                format!("{api}/entries/{entry}?samples=true"),
                Some(a.clone()),
            ),
            (format!("{api}/submissions"), Some(a.clone())),
            (format!("{api}/audit"), Some(a.clone())),
            (format!("{api}/files/{}", sha_of(&gold_path)), None),
            (
                format!("{api}/files/{}", sha_of(&gold_path)),
                Some(a.clone()),
            ),
            (
                format!("{api}/files/{}", sha_of(&gold_path)),
                Some(owner.clone()),
            ),
            (format!("{api}/files/{pred_sha}"), None),
        ];
        for f in ["csv", "markdown", "latex", "json"] {
            urls.push((format!("{api}/export?format={f}"), None));
        }
        // Links the pages and the JSON point to.
        let page = String::from_utf8(fetch(&format!("{base}/leaderboard/{s}"), None).1).unwrap();
        for part in page.split("href=\"").skip(1) {
            let link = part.split('"').next().unwrap();
            if link.starts_with('/') {
                urls.push((format!("{base}{}", link.replace("&amp;", "&")), None));
            }
        }
        let gold_bytes = std::fs::read(&gold_path).unwrap();
        let gold_sha = sha_of(&gold_path);
        let labels: String = records(&gold_path)
            .iter()
            .map(|r| r["classification"].as_str().unwrap().to_string())
            .collect();
        let mut fetched = 0;
        for (url, token) in &urls {
            let (code, body) = fetch(url, token.as_deref());
            fetched += 1;
            let text = String::from_utf8_lossy(&body);
            assert!(
                !text.contains(&gold_sha),
                "{url}: the gold's SHA-256 ({code})"
            );
            assert!(
                !body.windows(200).any(|w| w == &gold_bytes[..200]),
                "{url}: the gold's bytes"
            );
            assert!(
                !text.contains(&labels[..60]),
                "{url}: the gold's label sequence"
            );
            assert!(
                !text.contains("Synthetic essay body"),
                "{url}: the gold's essays"
            );
            // A report with per-item results is the owner's only.
            assert!(!text.contains("\"samples\""), "{url}: per-item results");
        }
        assert!(fetched >= 24, "{fetched} URLs");
        // A failed job whose reason names the gold, then the log: no gold anywhere.
        let mut stray = records(&eotgc_dir().join("pred.json"));
        stray[3]["id"] = json!(9999);
        let stray_path = dir.join("stray.json");
        std::fs::write(&stray_path, serde_json::to_string(&stray).unwrap()).unwrap();
        submit(&server, &s, &a, "stray", &stray_path);
        let rows = settled(&server, &s, &owner, Duration::from_secs(60));
        assert!(rows.iter().any(|r| r["status"] == "failed"), "{rows:?}");
        let logged = std::fs::read(&log_path).unwrap();
        let text = String::from_utf8_lossy(&logged);
        assert!(
            !text.contains(&gold_sha),
            "the log holds the gold's SHA-256"
        );
        assert!(
            !text.contains(&labels[..60]),
            "the log holds the gold's labels"
        );
        assert!(
            !text.contains("Synthetic essay body"),
            "the log holds the gold's essays"
        );
        // The owner does see the report with its per-item results.
        let (_, owned) = http(
            &server,
            "GET",
            &format!("/api/v1/leaderboards/{s}/entries/{entry}?samples=true"),
            Some(&owner),
            None,
        );
        assert!(owned["report"]["samples"].is_array(), "{owned}");
        // verify says why it cannot re-score.
        let v = lb(&server, &["verify", "--slug", &s]);
        assert_eq!(v.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&v.stderr).contains("hidden"));

        // Closing reveals the private share and scores on every item; submissions stop.
        lb_json(
            &server,
            &["phase", "--slug", &s, "--token", &owner, "--close"],
        );
        let closed = lb_json(&server, &["show", "--slug", &s, "--json"]);
        let e = &closed["entries"][0];
        same_bits(&e["metrics"], &expect_all, "all items");
        same_bits(&e["private_metrics"], &expect_private, "private share");
        same_bits(&e["public_metrics"], &expect_public, "public share");
        assert_eq!(closed["board"]["competition"]["phase"], "closed");
        // Frozen: the owner can no longer hide or delete a ranked entry.
        for (method, path) in [
            (
                "POST",
                format!("/api/v1/leaderboards/{s}/entries/{entry}/hide"),
            ),
            (
                "DELETE",
                format!("/api/v1/leaderboards/{s}/entries/{entry}"),
            ),
        ] {
            let (code, v) = http(&server, method, &path, Some(&owner), None);
            assert_eq!(code, 409, "{method} {path}: {v}");
        }
        assert_eq!(
            lb_json(&server, &["show", "--slug", &s, "--json"])["entries"],
            closed["entries"]
        );
        let late = lb(
            &server,
            &[
                "submit",
                "--slug",
                &s,
                "--model",
                "late",
                "--token",
                &a,
                p(&eotgc_dir().join("pred.json")),
            ],
        );
        assert_eq!(late.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&late.stderr).contains("closed"));
    }
}

fn hex_sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

fn sha_of(path: &Path) -> String {
    hex_sha256(&std::fs::read(path).unwrap())
}

#[test]
fn quotas_are_enforced_and_failures_or_cancellations_do_not_count() {
    let dir = temp("quota");
    let mut bad = records(&eotgc_dir().join("pred.json"));
    bad[3]["classification"] = json!("nonsense");
    let bad_path = dir.join("bad.json");
    std::fs::write(&bad_path, serde_json::to_string(&bad).unwrap()).unwrap();
    let stray = {
        let mut r = records(&eotgc_dir().join("pred.json"));
        r[3]["id"] = json!(9999);
        let path = dir.join("stray.json");
        std::fs::write(&path, serde_json::to_string(&r).unwrap()).unwrap();
        path
    };
    let good = eotgc_dir().join("pred.json");
    for db in stores() {
        // The second submission must stay queued: no other test's server may take it.
        queue_alone(|| {
            // One worker that takes 3 s per job: the second submission waits queued while three
            // command lines run (on a loaded 2-core machine too).
            let server = Server::start_with(&db, &["--queue-job-delay-ms", "3000"]);
            let s = slug("quota");
            let owner = create(
                &server,
                &s,
                &[
                    "--daily-quota",
                    "2",
                    "--total-quota",
                    "3",
                    "--counts",
                    "latest",
                ],
            );
            let a = team(&server, &s, &owner, "a");
            let b = team(&server, &s, &owner, "b");
            let failed = submit(&server, &s, &a, "bad", &bad_path);
            let cancelled = submit(&server, &s, &a, "cancel-me", &good);
            let id = cancelled["entry"].as_i64().unwrap().to_string();
            // The team can cancel it (at once: the worker takes it after the first job's 3 s);
            // another team cannot, whatever the entry's status.
            lb_json(
                &server,
                &["cancel", "--slug", &s, "--entry", &id, "--token", &a],
            );
            let other = lb(
                &server,
                &["cancel", "--slug", &s, "--entry", &id, "--token", &b],
            );
            assert_eq!(other.status.code(), Some(2));
            let why = String::from_utf8_lossy(&other.stderr);
            assert!(why.contains("this token is not"), "{why}");
            let stray_failed = submit(&server, &s, &a, "stray", &stray);
            let rows = settled(&server, &s, &owner, Duration::from_secs(60));
            let status = |e: &Value| {
                rows.iter()
                    .find(|r| r["entry"] == e["entry"])
                    .unwrap()
                    .clone()
            };
            let f = status(&failed);
            assert_eq!(f["status"], "failed", "{f}");
            assert!(
                f["reason"]
                    .as_str()
                    .unwrap()
                    .contains("unknown label \"nonsense\""),
                "{f}"
            );
            assert_eq!(f["counts_against_quota"], false);
            assert_eq!(status(&cancelled)["status"], "cancelled");
            // A reason that names the hidden gold file is replaced.
            let sf = status(&stray_failed);
            assert_eq!(sf["status"], "failed");
            assert!(
                !sf["reason"].as_str().unwrap().contains("gold.json"),
                "{sf}"
            );
            // Three submissions so far, none counted: the daily quota (2) still allows two.
            submit(&server, &s, &a, "one", &good);
            submit(&server, &s, &a, "two", &good);
            let third = lb(
                &server,
                &[
                    "submit",
                    "--slug",
                    &s,
                    "--model",
                    "three",
                    "--token",
                    &a,
                    p(&good),
                ],
            );
            assert_eq!(third.status.code(), Some(2));
            let err = String::from_utf8_lossy(&third.stderr);
            assert!(err.contains("daily quota of 2"), "{err}");
            // The other team's quota is its own.
            submit(&server, &s, &b, "b-one", &good);
            let rows = settled(&server, &s, &owner, Duration::from_secs(60));
            assert_eq!(
                rows.iter().filter(|r| r["status"] == "done").count(),
                3,
                "{rows:?}"
            );
            // Teams see only their own submissions.
            let (_, mine) = http(
                &server,
                "GET",
                &format!("/api/v1/leaderboards/{s}/submissions"),
                Some(&b),
                None,
            );
            assert_eq!(mine["submissions"].as_array().unwrap().len(), 1);
            // `latest` counts: one row per team.
            let shown = lb_json(&server, &["show", "--slug", &s, "--json"]);
            let models: Vec<&str> = shown["entries"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["model"].as_str().unwrap())
                .collect();
            assert_eq!(models.len(), 2, "{models:?}");
            assert!(
                models.contains(&"two") && models.contains(&"b-one"),
                "{models:?}"
            );
        });
    }
}

/// Submit `total` entries over HTTP while killing the scoring server twice; every submission
/// ends `done` with exactly one committed result, and the audit log has each submission once.
/// `second`: also run a second server on the same store the whole time (PostgreSQL, and the
/// loopback S3 server when the test script runs one), and spread the submissions over both.
fn kill_twice(db: &str, total: usize, second: bool) -> (usize, i64) {
    let args = ["--queue-lease-ms", "1000", "--queue-job-delay-ms", "40"];
    let mut server = Server::start_with(db, &args);
    let other = second.then(|| Server::start_with(db, &args));
    let s = slug("queue");
    let owner = create(&server, &s, &[]);
    let text = std::fs::read_to_string(eotgc_dir().join("pred.json")).unwrap();
    let mut accepted = 0;
    for i in 0..total {
        if i == total / 3 || i == 2 * total / 3 {
            // kill -9 in the middle of a job (every job takes 40 ms + scoring), then restart.
            server.kill9();
            server = Server::start_with(db, &args);
        }
        let to = match &other {
            Some(b) if i % 2 == 1 => b,
            _ => &server,
        };
        let (code, v) = http(
            to,
            "POST",
            &format!("/api/v1/leaderboards/{s}/entries"),
            None,
            Some(json!({"model": format!("m{i}"), "files": [{"name": "pred.json", "text": text}]})),
        );
        assert_eq!(code, 202, "{v}");
        accepted += 1;
    }
    let rows = settled(&server, &s, &owner, Duration::from_secs(240));
    let (code, audit) = http(
        &server,
        "GET",
        &format!("/api/v1/leaderboards/{s}/audit"),
        Some(&owner),
        None,
    );
    assert_eq!(code, 200, "{audit}");
    let mut submitted: Vec<i64> = audit["audit"]
        .as_array()
        .unwrap_or_else(|| panic!("{audit}"))
        .iter()
        .filter(|a| a["action"] == "submit")
        .map(|a| a["entry"].as_i64().unwrap())
        .collect();
    submitted.sort_unstable();
    assert_eq!(
        submitted,
        (1..=accepted as i64).collect::<Vec<_>>(),
        "the audit log has every submission once"
    );
    drop(other);
    assert_eq!(rows.len(), accepted);
    for r in &rows {
        assert_eq!(r["status"], "done", "{r}");
        assert_eq!(r["completions"], 1, "scored more than once: {r}");
    }
    let retried = rows
        .iter()
        .map(|r| r["attempts"].as_i64().unwrap())
        .max()
        .unwrap();
    (rows.len(), retried)
}

#[test]
fn a_killed_server_loses_its_lease_and_every_submission_is_scored_exactly_once() {
    for db in stores() {
        let second = db.starts_with("postgres");
        let (n, max_attempts) = kill_twice(&db, 100, second);
        assert_eq!(n, 100);
        // At least one job was claimed again after a kill.
        assert!(max_attempts >= 2, "no job was retried ({db})");
    }
}

#[test]
fn a_live_worker_renews_its_lease_so_a_slow_job_is_not_taken_twice() {
    for db in stores() {
        // Jobs take 3 s, leases last 1 s: only renewal keeps the second worker off them. (A
        // 0.3 s lease lapsed once on a loaded 2-core machine: renewal is a timer like any
        // other, and a stalled process misses it.)
        let server = Server::start_with(
            &db,
            &[
                "--queue-workers",
                "2",
                "--queue-lease-ms",
                "1000",
                "--queue-job-delay-ms",
                "3000",
            ],
        );
        let s = slug("renew");
        let owner = create(&server, &s, &[]);
        let text = std::fs::read_to_string(eotgc_dir().join("pred.json")).unwrap();
        for i in 0..3 {
            let (code, v) = http(
                &server,
                "POST",
                &format!("/api/v1/leaderboards/{s}/entries"),
                None,
                Some(
                    json!({"model": format!("m{i}"), "files": [{"name": "pred.json", "text": text}]}),
                ),
            );
            assert_eq!(code, 202, "{v}");
        }
        let rows = settled(&server, &s, &owner, Duration::from_secs(60));
        for r in &rows {
            assert_eq!(r["status"], "done", "{r}");
            assert_eq!(
                r["attempts"], 1,
                "claimed again while its worker lived: {r}"
            );
            assert_eq!(r["completions"], 1, "{r}");
        }
    }
}

/// Quotas hold on a competition without teams (per client address) with 20 submissions at
/// once, on every store; an open board limits anonymous submission per client and per board
/// each hour, and caps the bytes its files take (issue 25, item 4).
#[test]
fn quotas_and_anonymous_limits_hold_under_concurrency() {
    let text = std::fs::read_to_string(eotgc_dir().join("pred.json")).unwrap();
    let body = json!({"model": "m", "files": [{"name": "pred.json", "text": text}]});
    // `n` submissions at once to `s`, from X-Forwarded-For `from(i)` when given: the statuses.
    let burst = |server: &Server, s: &str, n: usize, from: &dyn Fn(usize) -> Option<String>| {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(4)
            .enable_all()
            .build()
            .unwrap();
        let url = format!("{}/api/v1/leaderboards/{s}/entries", server.url);
        let requests: Vec<_> = (0..n).map(|i| (from(i), body.clone())).collect();
        let mut statuses: Vec<u16> = rt.block_on(async {
            let client = reqwest::Client::new();
            let sends = requests.into_iter().map(|(forwarded, body)| {
                let mut r = client.post(&url).json(&body);
                if let Some(f) = forwarded {
                    r = r.header("x-forwarded-for", f);
                }
                async move { r.send().await.unwrap().status().as_u16() }
            });
            futures_util::future::join_all(sends).await
        });
        statuses.sort_unstable();
        statuses
    };
    let count = |statuses: &[u16], code: u16| statuses.iter().filter(|&&s| s == code).count();
    for db in stores() {
        // Competition without teams, total quota 2: 2 of 20 concurrent submissions queue.
        let server = Server::start_with(&db, &[]);
        let s = slug("teamless");
        create(&server, &s, &["--total-quota", "2"]);
        let statuses = burst(&server, &s, 20, &|_| None);
        assert_eq!(count(&statuses, 202), 2, "{db}: {statuses:?}");
        assert_eq!(count(&statuses, 429), 18, "{db}: {statuses:?}");
        drop(server);

        // Open board: 3 per client per hour, 5 per board per hour; clients told apart by the
        // trusted proxy's X-Forwarded-For.
        let server = Server::start_with(
            &db,
            &[
                "--anon-submits-per-hour",
                "3",
                "--board-submits-per-hour",
                "5",
                "--trust-proxy",
            ],
        );
        let s = slug("anon");
        let gold = eotgc_dir().join("gold.json");
        lb_json(&server, &create_args(&s, "eotgc", &[p(&gold)]));
        let statuses = burst(&server, &s, 8, &|_| Some("203.0.113.7".into()));
        assert_eq!(count(&statuses, 201), 3, "{db}: {statuses:?}");
        assert_eq!(count(&statuses, 429), 5, "{db}: {statuses:?}");
        // Other clients (another /64 each) fill the board's hourly 5.
        let statuses = burst(&server, &s, 6, &|i| Some(format!("2001:db8:{i}::1")));
        assert_eq!(count(&statuses, 201), 2, "{db}: {statuses:?}");
        assert_eq!(count(&statuses, 429), 4, "{db}: {statuses:?}");
        // The same /64 is one client.
        let s2 = slug("anon64");
        lb_json(&server, &create_args(&s2, "eotgc", &[p(&gold)]));
        let statuses = burst(&server, &s2, 4, &|i| Some(format!("2001:db8:1:2::{i}")));
        assert_eq!(count(&statuses, 201), 3, "{db}: {statuses:?}");
        drop(server);

        // A board's files are capped: gold + one prediction file fit 1 MiB; a different file
        // that would pass it is refused (507); the same file again adds nothing.
        let server = Server::start_with(&db, &["--board-max-mb", "1"]);
        let s = slug("cap");
        lb_json(&server, &create_args(&s, "eotgc", &[p(&gold)]));
        let (code, _) = http(
            &server,
            "POST",
            &format!("/api/v1/leaderboards/{s}/entries"),
            None,
            Some(body.clone()),
        );
        assert_eq!(code, 201);
        let (code, _) = http(
            &server,
            "POST",
            &format!("/api/v1/leaderboards/{s}/entries"),
            None,
            Some(body.clone()),
        );
        assert_eq!(code, 201, "the same file again takes no more room");
        let mut padded: Vec<Value> = serde_json::from_str(&text).unwrap();
        padded[0]["padding"] = json!("x".repeat(1 << 20));
        let big = json!({"model": "big", "files": [{"name": "pred.json",
            "text": serde_json::to_string(&padded).unwrap()}]});
        let (code, reply) = http(
            &server,
            "POST",
            &format!("/api/v1/leaderboards/{s}/entries"),
            None,
            Some(big),
        );
        assert_eq!(code, 507, "{reply}");
        assert!(
            reply["error"].as_str().unwrap().contains("--board-max-mb"),
            "{reply}"
        );
    }
}

/// Work that leaves no entry counts too: submissions scored and refused count against the
/// client's hourly limit, and a client may create only so many boards an hour.
#[test]
fn refused_submissions_and_new_boards_are_limited_per_client() {
    let db = temp("refusals").join("lb.sqlite3");
    let server = Server::start_with(
        p(&db),
        &[
            "--anon-submits-per-hour",
            "2",
            "--anon-boards-per-hour",
            "2",
        ],
    );
    let gold = eotgc_dir().join("gold.json");
    let (a, b) = (slug("ref-a"), slug("ref-b"));
    for s in [&a, &b] {
        lb_json(&server, &create_args(s, "eotgc", &[p(&gold)]));
    }
    let c = slug("ref-c");
    let third = lb(&server, &create_args(&c, "eotgc", &[p(&gold)]));
    assert_eq!(third.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&third.stderr).contains("--anon-boards-per-hour"));
    let path = |v: &str| format!("/api/v1/leaderboards/{v}/entries");
    let bad = json!({"model": "m", "files": [{"name": "pred.json", "text": "[{\"id\": 1}]"}]});
    for _ in 0..2 {
        let (code, _) = http(&server, "POST", &path(&a), None, Some(bad.clone()));
        assert_eq!(code, 422);
    }
    let text = std::fs::read_to_string(eotgc_dir().join("pred.json")).unwrap();
    let good = json!({"model": "m", "files": [{"name": "pred.json", "text": text}]});
    let (code, reply) = http(&server, "POST", &path(&a), None, Some(good.clone()));
    assert_eq!(code, 429, "{reply}");
    assert!(
        reply["error"].as_str().unwrap().contains("refused"),
        "{reply}"
    );
    // Another board's count is its own.
    let (code, _) = http(&server, "POST", &path(&b), None, Some(good));
    assert_eq!(code, 201);
}
