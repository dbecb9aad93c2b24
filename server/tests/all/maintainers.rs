//! A maintainer's board beyond its pages (issue 27): signed receipts checked offline, the Atom
//! feed, the embed. Every test runs on SQLite and, when `PG_URL` is set, on PostgreSQL.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;
use workbench::receipt::{self, PublicKey, Receipt};
use workbench::wire::EntryDetail;

use crate::leaderboard::{Server, get, http, lb, lb_json, p, settled, slug, stores, temp};

/// `n` gold/pred pairs with `right` of them right (accuracy right / n).
fn pairs(dir: &Path, name: &str, n: usize, right: usize) -> PathBuf {
    let path = dir.join(name);
    let mut f = std::fs::File::create(&path).unwrap();
    for i in 0..n {
        let pred = if i < right { i % 3 } else { (i + 1) % 3 };
        writeln!(f, "{{\"id\":\"{i}\",\"gold\":{},\"pred\":{pred}}}", i % 3).unwrap();
    }
    path
}

/// A pairs board with entries `(model, accuracy × 100)` submitted in order.
fn board(server: &Server, tag: &str, entries: &[(&str, usize)]) -> String {
    let dir = temp(tag);
    let s = slug(tag);
    lb_json(
        server,
        &[
            "create",
            "--slug",
            &s,
            "--title",
            "Feed & <news>",
            "--benchmark",
            "pairs",
            "--primary",
            "accuracy",
        ],
    );
    for (i, (model, right)) in entries.iter().enumerate() {
        let f = pairs(&dir, &format!("{i}.jsonl"), 100, *right);
        lb_json(server, &["submit", "--slug", &s, "--model", model, p(&f)]);
    }
    s
}

/// Status, headers and body of a GET.
fn fetch(url: &str) -> (u16, reqwest::header::HeaderMap, String) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let r = reqwest::get(url).await.unwrap();
        let (status, headers) = (r.status().as_u16(), r.headers().clone());
        (status, headers, r.text().await.unwrap())
    })
}

fn json_at(url: &str) -> Value {
    let (status, body) = get(url);
    assert_eq!(status, 200, "{url}: {body}");
    serde_json::from_str(&body).unwrap()
}

#[test]
fn receipts_hold_offline_and_a_changed_metric_is_named() {
    for db in stores() {
        let server = Server::start(&db);
        let s = board(&server, "receipt", &[("first", 80), ("second", 90)]);
        let key: PublicKey = serde_json::from_value(json_at(&format!(
            "{}/.well-known/scorebench-key",
            server.url
        )))
        .unwrap();
        assert_eq!(key.algorithm, "Ed25519");
        assert_eq!(hex::decode(&key.public_key_hex).unwrap().len(), 32);

        // The CLI checks every verified entry's receipt, offline, against the published key.
        let out = lb(&server, &["verify", "--slug", &s, "--receipt"]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(stdout.matches("receipt holds").count(), 2, "{stdout}");
        assert!(stdout.contains(&key.key_id), "{stdout}");

        let url = format!("{}/api/v1/leaderboards/{s}/entries/1", server.url);
        let detail: EntryDetail = serde_json::from_value(json_at(&url)).unwrap();
        let r = detail
            .receipt
            .clone()
            .expect("a verified entry carries a receipt");
        assert_eq!(r.signed.metrics, detail.metrics, "every metric is signed");
        assert_eq!(r.signed.inputs[0].sha256, detail.inputs[0].sha256);
        assert_eq!(receipt::check(&r, &key, &detail.signed()), Ok(()));
        // Deterministic: the same entry, the same receipt.
        let again: EntryDetail = serde_json::from_value(json_at(&url)).unwrap();
        assert_eq!(again.receipt.as_ref(), Some(&r));

        // One bit of one metric changed in the receipt: the signature fails and the field is
        // named.
        let mut tampered: Receipt = r.clone();
        let v = tampered.signed.metrics["accuracy"].unwrap();
        tampered.signed.metrics["accuracy"] = Some(f64::from_bits(v.to_bits() ^ 1));
        let failure = receipt::check(&tampered, &key, &detail.signed()).unwrap_err();
        assert!(
            failure.receipt.iter().any(|m| m.contains("signature")),
            "{failure}"
        );
        assert_eq!(failure.fields.len(), 1, "{failure}");
        assert!(
            failure.fields[0].starts_with("metrics.accuracy: receipt "),
            "{failure}"
        );

        // The JSON export carries the receipts and the key: they hold from the file alone.
        let export = json_at(&format!(
            "{}/api/v1/leaderboards/{s}/export?format=json",
            server.url
        ));
        let receipts: Vec<Receipt> = serde_json::from_value(export["receipts"].clone()).unwrap();
        assert_eq!(receipts.len(), 2);
        assert!(receipts.contains(&r));
        let in_file: PublicKey = serde_json::from_value(export["receipt_key"].clone()).unwrap();
        assert_eq!(in_file, key);
        for r in &receipts {
            assert!(receipt::signature_problems(r, &key).is_empty());
        }

        // The key is the store's: a restarted server signs with the same key.
        let url_before = server.url.clone();
        drop(server);
        let server = Server::start(&db);
        let after: PublicKey = serde_json::from_value(json_at(&format!(
            "{}/.well-known/scorebench-key",
            server.url
        )))
        .unwrap();
        assert_eq!(after, key, "{url_before} then {}", server.url);
    }
}

#[test]
fn a_reported_entry_has_no_receipt_and_verify_says_which() {
    let server = Server::start(&stores()[0]);
    let s = board(&server, "noreceipt", &[]);
    let out = lb(&server, &["verify", "--slug", &s, "--receipt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no verified entry"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_feed_is_atom_with_new_entries_and_leader_changes() {
    for db in stores() {
        let server = Server::start(&db);
        // Leaders: a (0.80), then b (0.90); c (0.85) and d (0.90, a tie) take no lead.
        let s = board(
            &server,
            "feed",
            &[("a", 80), ("b <i>", 90), ("c", 85), ("d", 90)],
        );
        let (status, headers, body) = fetch(&format!("{}/leaderboard/{s}/feed.atom", server.url));
        assert_eq!(status, 200);
        assert!(
            headers["content-type"]
                .to_str()
                .unwrap()
                .starts_with("application/atom+xml")
        );
        let doc = roxmltree::Document::parse(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
        let feed = doc.root_element();
        assert_eq!(feed.tag_name().name(), "feed");
        assert_eq!(
            feed.tag_name().namespace(),
            Some("http://www.w3.org/2005/Atom")
        );
        let child = |n: roxmltree::Node, name: &str| {
            n.children()
                .find(|c| c.tag_name().name() == name)
                .and_then(|c| c.text())
                .unwrap_or("")
                .to_string()
        };
        assert_eq!(child(feed, "title"), "Feed & <news>");
        let titles: Vec<String> = feed
            .children()
            .filter(|c| c.tag_name().name() == "entry")
            .map(|e| child(e, "title"))
            .collect();
        assert_eq!(
            titles,
            [
                "New entry: d (accuracy 0.9000)",
                "New entry: c (accuracy 0.8500)",
                "New leader: b <i> (accuracy 0.9000)",
                "New entry: b <i> (accuracy 0.9000)",
                "New leader: a (accuracy 0.8000)",
                "New entry: a (accuracy 0.8000)",
            ]
        );
        let ids: std::collections::BTreeSet<String> = feed
            .children()
            .filter(|c| c.tag_name().name() == "entry")
            .map(|e| child(e, "id"))
            .collect();
        assert_eq!(ids.len(), 6, "each item has its own id");
        assert!(!child(feed, "updated").is_empty());

        let (status, _, _) = fetch(&format!(
            "{}/leaderboard/no-such-board/feed.atom",
            server.url
        ));
        assert_eq!(status, 404);
    }
}

#[test]
fn the_embed_shows_the_top_rows_escaped_and_only_it_may_be_framed() {
    let db = &stores()[0];
    let server = Server::start(db);
    let s = board(
        &server,
        "embed",
        &[("low", 60), ("top <b>", 95), ("mid", 80)],
    );
    let (status, headers, body) = fetch(&format!("{}/embed/leaderboard/{s}", server.url));
    assert_eq!(status, 200);
    assert!(body.contains("top &lt;b&gt;"), "{body}");
    assert!(!body.contains("<b>"), "{body}");
    assert!(
        !body.contains("<script"),
        "works without JavaScript, and has none"
    );
    let (top, mid, low) = (
        body.find("top &lt;b&gt;").unwrap(),
        body.find(">mid<").unwrap(),
        body.find(">low<").unwrap(),
    );
    assert!(top < mid && mid < low, "ranked");
    assert!(body.contains("0.9500"));
    let csp = headers["content-security-policy"].to_str().unwrap();
    assert!(csp.ends_with("frame-ancestors *"), "{csp}");
    assert!(csp.contains("default-src 'none'"), "{csp}");
    assert!(!headers.contains_key("x-frame-options"));
    // Two rows, dark.
    let (_, _, two) = fetch(&format!(
        "{}/embed/leaderboard/{s}?rows=2&theme=dark",
        server.url
    ));
    assert!(two.contains("<body class=\"dark\">"));
    assert!(!two.contains(">low<"));
    // Every other page still refuses framing.
    let (_, headers, page) = fetch(&format!("{}/leaderboard/{s}", server.url));
    assert_eq!(headers["x-frame-options"], "DENY");
    // The board page offers the feed (also to feed readers) and the embed's snippet.
    assert!(page.contains(&format!(
        "<link rel=\"alternate\" type=\"application/atom+xml\" title=\"Feed &amp; &lt;news&gt;\" href=\"/leaderboard/{s}/feed.atom\">"
    )), "{page}");
    // (`/` is escaped too.)
    let snippet = format!(
        "&lt;iframe src=&quot;{}/embed/leaderboard/{s}&quot;",
        server.url
    );
    assert!(page.contains(&snippet.replace('/', "&#x2F;")), "{page}");
    assert!(
        headers["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("frame-ancestors 'none'")
    );
    drop(server);

    let server = Server::start_with(db, &["--embed-ancestors", "https://lab.example"]);
    let (_, headers, _) = fetch(&format!("{}/embed/leaderboard/{s}", server.url));
    assert!(
        headers["content-security-policy"]
            .to_str()
            .unwrap()
            .ends_with("frame-ancestors https://lab.example")
    );
}

/// A published row: model, Avg., the per-subject cells, as written.
type PublishedRow = (String, String, Vec<String>);

/// The SAS-Bench README's CCS table: its subjects and rows.
fn published_ccs() -> (Vec<String>, Vec<PublishedRow>) {
    let readme = include_str!("../../../tests/published/sasbench-Readme.md");
    let lines: Vec<&str> = readme.lines().collect();
    let at = lines.iter().position(|l| l.trim() == "- CCS").unwrap();
    let table: Vec<Vec<String>> = lines[at + 1..]
        .iter()
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| l.starts_with('|'))
        .filter(|l| !l.starts_with("|--"))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().replace("**", ""))
                .collect()
        })
        .collect();
    let header = table[0][1..table[0].len() - 1].to_vec();
    let rows = table[1..]
        .iter()
        .map(|r| {
            (
                r[0].clone(),
                r[r.len() - 1].clone(),
                r[1..r.len() - 1].to_vec(),
            )
        })
        .collect();
    (header, rows)
}

#[test]
fn the_sasbench_readme_imports_its_ccs_table_as_published() {
    let tax = crate::support::golden_dir().join("sasbench/case_24/datasets/error_type.jsonl");
    let (subjects, published) = published_ccs();
    assert_eq!(published.len(), 16);
    assert_eq!(subjects.len(), 12);
    let readme = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/published/sasbench-Readme.md");
    for db in stores() {
        let server = Server::start(&db);
        let s = slug("sas-readme");
        let made = lb_json(
            &server,
            &[
                "create",
                "--slug",
                &s,
                "--title",
                "SAS-Bench",
                "--benchmark",
                "sasbench",
                "--primary",
                "ccs",
                p(&tax),
            ],
        );
        let owner = made["owner_token"].as_str().unwrap().to_string();
        // The whole README (its QWK figure, the CCS and ECS tables): `--metric ccs` takes the
        // table under "- CCS", its per-subject columns as subsets and Avg. as the overall CCS.
        let imported = lb_json(
            &server,
            &[
                "import",
                "--slug",
                &s,
                "--token",
                &owner,
                "--metric",
                "ccs",
                "--scale",
                "100",
                readme.to_str().unwrap(),
            ],
        );
        assert_eq!(imported["entries"].as_array().unwrap().len(), 16);
        let shown = lb_json(&server, &["show", "--slug", &s, "--json"]);
        let entries = shown["entries"].as_array().unwrap();
        assert_eq!(entries.len(), 16);
        // Ranked by the overall CCS = Avg. / 100, as Rust reads the written number.
        let mut want: Vec<(String, f64)> = published
            .iter()
            .map(|(m, avg, _)| (m.clone(), avg.parse::<f64>().unwrap() / 100.0))
            .collect();
        want.sort_by(|a, b| b.1.total_cmp(&a.1));
        let got: Vec<(String, f64)> = entries
            .iter()
            .map(|e| {
                (
                    e["model"].as_str().unwrap().to_string(),
                    e["metrics"]["ccs"].as_f64().unwrap(),
                )
            })
            .collect();
        assert_eq!(got, want);
        assert_eq!(entries[0]["rank"], 1);
        assert!(entries.iter().all(|e| e["status"] == "reported"));
        // Each entry keeps the twelve subjects as subsets of CCS, bold marks read.
        let id = entries
            .iter()
            .find(|e| e["model"] == "Deepseek-R1")
            .unwrap()["entry"]
            .as_i64()
            .unwrap();
        let detail = json_at(&format!(
            "{}/api/v1/leaderboards/{s}/entries/{id}",
            server.url
        ));
        let subsets = detail["report"]["subsets"].as_array().unwrap();
        let names: Vec<&str> = subsets
            .iter()
            .map(|x| x["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            subjects.iter().map(String::as_str).collect::<Vec<_>>()
        );
        let cells = &published.iter().find(|r| r.0 == "Deepseek-R1").unwrap().2;
        for (x, cell) in subsets.iter().zip(cells) {
            assert_eq!(
                x["metrics"]["ccs"].as_f64(),
                Some(cell.parse::<f64>().unwrap() / 100.0),
                "{}",
                x["name"]
            );
        }
        assert!(
            detail.get("receipt").is_none(),
            "reported entries have no receipt"
        );
    }
}

#[test]
fn tiers_group_the_tied_entries_and_the_board_states_its_resolution() {
    let server = Server::start(&stores()[0]);
    // 100 pairs each: 0.90 and 0.89 cannot be told apart, 0.60 can.
    let s = board(&server, "tiers", &[("a", 90), ("b", 89), ("c", 60)]);
    let shown = settled(&server, &s);
    let entries = shown["entries"].as_array().unwrap();
    let tiers: Vec<(&str, &Value)> = entries
        .iter()
        .map(|e| (e["model"].as_str().unwrap(), &e["tier"]))
        .collect();
    assert_eq!(
        tiers,
        [
            ("a", &Value::from(1)),
            ("b", &Value::from(1)),
            ("c", &Value::from(2))
        ],
        "{shown}"
    );
    let b = &shown["bootstrap"];
    // The median half-width of b's and c's intervals, and c's difference (the only resolved).
    let half = |e: &Value| {
        (e["versus_leader"]["high"].as_f64().unwrap() - e["versus_leader"]["low"].as_f64().unwrap())
            / 2.0
    };
    assert_eq!(
        b["resolution"].as_f64(),
        Some((half(&entries[1]) + half(&entries[2])) / 2.0)
    );
    assert_eq!(
        b["smallest_resolved"].as_f64(),
        entries[2]["versus_leader"]["difference"]
            .as_f64()
            .map(f64::abs)
    );
    assert!((b["smallest_resolved"].as_f64().unwrap() - 0.3).abs() < 1e-12);
    // The page shows both: tier rows and the resolution.
    let (_, _, page) = fetch(&format!("{}/leaderboard/{s}", server.url));
    assert_eq!(page.matches("data-tier=\"1\"").count(), 2, "{page}");
    assert_eq!(page.matches("data-tier=\"2\"").count(), 1);
    assert!(page.contains("data-testid=\"resolution\""), "{page}");
}

#[test]
fn the_owner_rotates_the_token_and_deletes_the_board_with_its_own_files() {
    for db in stores() {
        let server = Server::start(&db);
        let dir = temp("owner");
        let gold = crate::support::golden_dir().join("eotgc/eotgc_01_perfect_chinese_labels");
        let (a, b) = (slug("owner-a"), slug("owner-b"));
        let mut owners = Vec::new();
        for s in [&a, &b] {
            let made = lb_json(
                &server,
                &[
                    "create",
                    "--slug",
                    s,
                    "--title",
                    "owner",
                    "--benchmark",
                    "eotgc",
                    p(&gold.join("gold.json")),
                ],
            );
            owners.push(made["owner_token"].as_str().unwrap().to_string());
        }
        // An entry only board a holds (its file), and the gold both boards hold.
        let pred = dir.join("pred.json");
        std::fs::copy(gold.join("pred.json"), &pred).unwrap();
        lb_json(&server, &["submit", "--slug", &a, "--model", "m", p(&pred)]);
        let entry = json_at(&format!("{}/api/v1/leaderboards/{a}/entries/1", server.url));
        let own_file = entry["inputs"][0]["url"].as_str().unwrap().to_string();
        let gold_url = entry["gold"][0]["url"].as_str().unwrap().to_string();

        let (status, made) = http(
            &server,
            "POST",
            &format!("/api/v1/leaderboards/{a}/owner-token"),
            Some(&owners[0]),
            None,
        );
        assert_eq!(status, 200, "{made}");
        let new = made["owner_token"].as_str().unwrap();
        assert!(new.starts_with("sbo_") && new != owners[0]);
        let edit = serde_json::json!({"title": "renamed"});
        let path = format!("/api/v1/leaderboards/{a}");
        assert_eq!(
            http(
                &server,
                "PATCH",
                &path,
                Some(&owners[0]),
                Some(edit.clone())
            )
            .0,
            403,
            "the old token"
        );
        assert_eq!(http(&server, "PATCH", &path, Some(new), Some(edit)).0, 200);
        let (_, audit) = http(&server, "GET", &format!("{path}/audit"), Some(new), None);
        let actions: Vec<&str> = audit["audit"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["action"].as_str().unwrap())
            .collect();
        assert!(actions.contains(&"rotate token"), "{actions:?}");
        assert_eq!(
            http(&server, "POST", &format!("{path}/owner-token"), None, None).0,
            403
        );

        // Delete: another board's token and no token are refused; the owner's deletes.
        assert_eq!(
            http(&server, "DELETE", &path, Some(&owners[1]), None).0,
            403
        );
        assert_eq!(http(&server, "DELETE", &path, None, None).0, 403);
        let (status, body) = http(&server, "DELETE", &path, Some(new), None);
        assert_eq!(
            (status, &body["deleted"]),
            (200, &Value::Bool(true)),
            "{body}"
        );
        assert_eq!(get(&format!("{}{path}", server.url)).0, 404);
        assert_eq!(http(&server, "DELETE", &path, Some(new), None).0, 404);
        // The entry's own file went with it (its blob too, read in the SQLite file); the gold
        // board b holds too stays.
        assert_eq!(get(&format!("{}{own_file}", server.url)).0, 404);
        if !db.starts_with("postgres") {
            let sha = |url: &str| url.rsplit('/').next().unwrap().to_string();
            let conn = rusqlite::Connection::open(&db).unwrap();
            let count = |h: &str| -> i64 {
                conn.query_row("SELECT COUNT(*) FROM lb_blob WHERE sha256 = ?1", [h], |r| {
                    r.get(0)
                })
                .unwrap()
            };
            assert_eq!(count(&sha(&own_file)), 0, "the entry's blob is gone");
            assert_eq!(count(&sha(&gold_url)), 1, "the shared gold stays");
        }
        let b_gold = gold_url.replace(&a, &b);
        assert_eq!(get(&format!("{}{b_gold}", server.url)).0, 200);
        let listed = json_at(&format!("{}/api/v1/leaderboards", server.url));
        assert!(!listed.to_string().contains(&a));
    }
}

/// A received request: its headers (lower-case names) and body.
type Received = (std::collections::HashMap<String, String>, String);

/// A loopback HTTP receiver answering every request with `status`; keeps each request.
struct Receiver {
    port: u16,
    got: std::sync::Arc<std::sync::Mutex<Vec<Received>>>,
}

impl Receiver {
    fn start(status: u16) -> Receiver {
        use std::io::{BufRead, BufReader, Read};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let got = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let keep = std::sync::Arc::clone(&got);
        // Each connection on its own thread, as a real receiver: a connection opened and left
        // idle must not hold up the others.
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let keep = std::sync::Arc::clone(&keep);
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut headers = std::collections::HashMap::new();
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    loop {
                        line.clear();
                        if reader.read_line(&mut line).unwrap() == 0 || line.trim().is_empty() {
                            break;
                        }
                        if let Some((k, v)) = line.split_once(':') {
                            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
                        }
                    }
                    let n: usize = headers
                        .get("content-length")
                        .map_or(0, |v| v.parse().unwrap());
                    let mut body = vec![0; n];
                    reader.read_exact(&mut body).unwrap();
                    keep.lock()
                        .unwrap()
                        .push((headers, String::from_utf8(body).unwrap()));
                    let _ = write!(
                        stream,
                        "HTTP/1.1 {status} X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                    );
                });
            }
        });
        Receiver { port, got }
    }

    fn requests(&self) -> Vec<Received> {
        self.got.lock().unwrap().clone()
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/hook?k=v", self.port)
    }
}

/// Wait (at most 30 s) until `done` holds.
fn wait_for(what: impl Fn() -> String, mut done: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !done() {
        assert!(
            start.elapsed().as_secs() < 30,
            "timed out waiting for {}",
            what()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn webhooks_arrive_signed_a_failing_receiver_is_retried_and_every_attempt_is_logged() {
    use hmac::{Hmac, Mac};
    for db in stores() {
        let (ok, bad) = (Receiver::start(200), Receiver::start(500));
        let hosts = format!("127.0.0.1:{},127.0.0.1:{}", ok.port, bad.port);
        let dir = temp("hooks");
        let log_file = dir.join("server.log");
        let server = Server::start_logged(
            &db,
            &[
                "--webhook-hosts",
                &hosts,
                "--webhook-attempts",
                "3",
                "--webhook-retry-ms",
                "100",
            ],
            "warn",
            std::fs::File::create(&log_file).unwrap().into(),
        );
        let server_log = || std::fs::read_to_string(&log_file).unwrap_or_default();
        let s = slug("hooks");
        let made = lb_json(
            &server,
            &[
                "create",
                "--slug",
                &s,
                "--title",
                "Hooks",
                "--benchmark",
                "pairs",
                "--primary",
                "accuracy",
            ],
        );
        let owner = made["owner_token"].as_str().unwrap().to_string();
        let path = format!("/api/v1/leaderboards/{s}/webhooks");

        // Only the owner adds hooks, and only to the allowed hosts.
        let (status, body) = http(
            &server,
            "POST",
            &path,
            None,
            Some(serde_json::json!({"url": ok.url()})),
        );
        assert_eq!(status, 403, "{body}");
        let (status, body) = http(
            &server,
            "POST",
            &path,
            Some(&owner),
            Some(serde_json::json!({"url": "http://127.0.0.1:1/hook"})),
        );
        assert_eq!(status, 403, "{body}");
        assert!(
            body["error"]
                .as_str()
                .unwrap()
                .contains("does not send webhooks"),
            "{body}"
        );
        let mut secrets = Vec::new();
        for r in [&ok, &bad] {
            let (status, body) = http(
                &server,
                "POST",
                &path,
                Some(&owner),
                Some(serde_json::json!({"url": r.url()})),
            );
            assert_eq!(status, 201, "{body}");
            let secret = body["secret"].as_str().unwrap().to_string();
            assert!(secret.starts_with("whsec_") && secret.len() == 6 + 64);
            secrets.push(secret);
        }

        // a leads, then b; c takes no lead.
        for (i, (model, right)) in [("a", 60), ("b", 95), ("c", 50)].iter().enumerate() {
            let f = pairs(&dir, &format!("{i}.jsonl"), 100, *right);
            lb_json(&server, &["submit", "--slug", &s, "--model", model, p(&f)]);
            // One change at a time: the leader event of b waits for its intervals.
            settled(&server, &s);
            let expected = [2, 4, 5][i];
            wait_for(
                || format!("the events: {:#?}", ok.requests()),
                || ok.requests().len() >= expected,
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(300));
        let got = ok.requests();
        assert_eq!(got.len(), 5, "{got:#?}");
        let mut deliveries = std::collections::BTreeSet::new();
        let mut events = Vec::new();
        for (headers, body) in &got {
            let mut mac = Hmac::<sha2::Sha256>::new_from_slice(secrets[0].as_bytes()).unwrap();
            mac.update(body.as_bytes());
            let expected = format!("sha256={}", hex::encode(mac.finalize().into_bytes()));
            assert_eq!(headers["x-scorebench-signature-256"], expected);
            assert_eq!(headers["content-type"], "application/json");
            assert!(deliveries.insert(headers["x-scorebench-delivery"].clone()));
            let v: Value = serde_json::from_str(body).unwrap();
            assert_eq!(headers["x-scorebench-event"], v["event"].as_str().unwrap());
            assert_eq!(v["board"]["slug"], s.as_str());
            let what = match v["event"].as_str().unwrap() {
                "entry.created" => format!("entry {}", v["entry"]["model"].as_str().unwrap()),
                "leader.changed" => format!(
                    "leader {} after {}",
                    v["leaders"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|e| e["model"].as_str().unwrap())
                        .collect::<Vec<_>>()
                        .join("+"),
                    v["previous"]
                ),
                other => panic!("unexpected event {other}"),
            };
            events.push(what);
        }
        events.sort();
        assert_eq!(
            events,
            [
                "entry a",
                "entry b",
                "entry c",
                "leader a after []",
                "leader b after [1]"
            ]
        );

        // The failing receiver: 3 attempts of each of the 5 events, all in the log.
        let log = || http(&server, "GET", &path, Some(&owner), None).1;
        wait_for(
            || format!("the failed deliveries: {:#}\n{}", log(), server_log()),
            || {
                log()["deliveries"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|d| d["state"] == "failed")
                    .count()
                    == 5
            },
        );
        std::thread::sleep(std::time::Duration::from_millis(300));
        let log = log();
        assert_eq!(
            bad.requests().len(),
            15,
            "3 attempts each, no more: {log:#}\n{}",
            server_log()
        );
        let text = log.to_string();
        assert!(
            !secrets.iter().any(|x| text.contains(x.as_str())),
            "no secret in the log"
        );
        for d in log["deliveries"].as_array().unwrap() {
            if d["webhook"] == log["webhooks"][0]["id"] {
                assert_eq!(d["state"], "delivered", "{d}");
                assert_eq!(d["attempts"], 1);
                assert_eq!(d["last_status"], 200);
            } else {
                assert_eq!(d["state"], "failed", "{d}");
                assert_eq!(d["attempts"], 3);
                assert_eq!(d["last_status"], 500);
                assert!(d["last_error"].as_str().unwrap().contains("500"));
            }
        }
        assert_eq!(http(&server, "GET", &path, None, None).0, 403);

        // Deleting a hook ends its deliveries; the audit names the host, never the URL.
        let id = log["webhooks"][1]["id"].as_i64().unwrap();
        let (status, _) = http(
            &server,
            "DELETE",
            &format!("{path}/{id}"),
            Some(&owner),
            None,
        );
        assert_eq!(status, 200);
        let (status, _) = http(
            &server,
            "DELETE",
            &format!("{path}/{id}"),
            Some(&owner),
            None,
        );
        assert_eq!(status, 404);
        assert_eq!(
            http(&server, "GET", &path, Some(&owner), None).1["webhooks"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
        // The CLI: add, list, delete.
        let added = lb_json(
            &server,
            &[
                "webhook",
                "add",
                "--slug",
                &s,
                "--token",
                &owner,
                "--url",
                &ok.url(),
            ],
        );
        assert!(added["secret"].as_str().unwrap().starts_with("whsec_"));
        let listed = lb_json(
            &server,
            &["webhook", "list", "--slug", &s, "--token", &owner],
        );
        assert_eq!(listed["webhooks"].as_array().unwrap().len(), 2);
        let id = added["id"].as_i64().unwrap().to_string();
        lb_json(
            &server,
            &[
                "webhook", "delete", "--slug", &s, "--token", &owner, "--id", &id,
            ],
        );
        let listed = lb_json(
            &server,
            &["webhook", "list", "--slug", &s, "--token", &owner],
        );
        assert_eq!(listed["webhooks"].as_array().unwrap().len(), 1);
        let audit = http(
            &server,
            "GET",
            &format!("/api/v1/leaderboards/{s}/audit"),
            Some(&owner),
            None,
        )
        .1;
        let actions: Vec<&str> = audit["audit"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["action"].as_str().unwrap())
            .collect();
        assert_eq!(actions.iter().filter(|a| **a == "add webhook").count(), 3);
        assert!(actions.contains(&"delete webhook"));
        assert!(!audit.to_string().contains("/hook?k=v"));
    }
}
