//! Board files outside the database (issue 29): a folder beside the SQLite file by default, or
//! the loopback S3 server (`scripts/s3.sh`, `S3_URL`) shared by servers on PostgreSQL; written
//! once, served as streams, deleted when nothing refers to them; an old database's bytes moved
//! out on start.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use server::files::Files;

use crate::leaderboard::{
    Server, http, lb, lb_json, p, pairs_file, shared_files, slug, stores, temp,
};

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn sha_of(path: &Path) -> String {
    metrics_core::InputFile::from_bytes("x", &std::fs::read(path).unwrap()).sha256
}

/// The file store a server of `db` uses (the test harness's choice, `leaderboard::Server`).
fn place_of(db: &str) -> String {
    if db.starts_with("postgres") {
        shared_files()
    } else {
        server::files::beside(Path::new(db))
            .to_string_lossy()
            .into_owned()
    }
}

/// SQL against the server's database, for what the API cannot show: where bytes are.
enum Db {
    Sqlite(rusqlite::Connection),
    Pg(tokio_postgres::Client, tokio::runtime::Runtime),
}

impl Db {
    fn open(db: &str) -> Db {
        if db.starts_with("postgres") {
            let rt = rt();
            let client = rt.block_on(async {
                let (client, conn) = tokio_postgres::connect(db, tokio_postgres::NoTls)
                    .await
                    .unwrap();
                tokio::spawn(conn);
                client
            });
            Db::Pg(client, rt)
        } else {
            Db::Sqlite(rusqlite::Connection::open(db).unwrap())
        }
    }

    fn execute(&mut self, sql: &str) {
        match self {
            Db::Sqlite(c) => c.execute_batch(sql).unwrap(),
            Db::Pg(c, rt) => rt.block_on(c.batch_execute(sql)).unwrap(),
        }
    }

    /// The first column of each row, as text (integers printed).
    fn column(&mut self, sql: &str) -> Vec<String> {
        match self {
            Db::Sqlite(c) => {
                let mut st = c.prepare(sql).unwrap();
                st.query_map([], |r| {
                    Ok(match r.get_ref(0)? {
                        rusqlite::types::ValueRef::Integer(i) => i.to_string(),
                        rusqlite::types::ValueRef::Null => "NULL".into(),
                        v => v.as_str().unwrap().to_string(),
                    })
                })
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap()
            }
            Db::Pg(c, rt) => rt
                .block_on(c.simple_query(sql))
                .unwrap()
                .into_iter()
                .filter_map(|m| match m {
                    tokio_postgres::SimpleQueryMessage::Row(r) => {
                        Some(r.get(0).unwrap_or("NULL").to_string())
                    }
                    _ => None,
                })
                .collect(),
        }
    }

    /// A bytes literal of this dialect.
    fn bytes(&self, b: &[u8]) -> String {
        match self {
            Db::Sqlite(_) => format!("X'{}'", hex::encode(b)),
            Db::Pg(..) => format!("'\\x{}'::bytea", hex::encode(b)),
        }
    }
}

fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// The board's files and reports in the database: (files with bytes in it, reports in it,
/// reports moved out).
fn in_database(db: &mut Db, s: &str) -> (usize, usize, usize) {
    let s = quoted(s);
    let bytes = db.column(&format!(
        "SELECT count(*) FROM lb_blob WHERE length(legacy_bytes) > 0 AND sha256 IN (
            SELECT sha256 FROM lb_entry_file WHERE slug = {s}
            UNION SELECT sha256 FROM lb_board_file WHERE slug = {s})"
    ));
    let text = db.column(&format!(
        "SELECT count(*) FROM lb_entry WHERE slug = {s} AND report_json IS NOT NULL"
    ));
    let moved = db.column(&format!(
        "SELECT count(*) FROM lb_entry WHERE slug = {s} AND report_sha256 IS NOT NULL"
    ));
    let n = |v: Vec<String>| v[0].parse::<usize>().unwrap();
    (n(bytes), n(text), n(moved))
}

/// `leaderboard verify` re-scores every entry of `s` bit for bit, and entry `id`'s page has its
/// full report (read from the file store).
fn verifies_and_reads_report(server: &Server, s: &str, id: i64, db: &str) {
    let verified = lb(server, &["verify", "--slug", s]);
    assert!(
        verified.status.success(),
        "{db}: {}",
        String::from_utf8_lossy(&verified.stderr)
    );
    let (code, entry) = http(
        server,
        "GET",
        &format!("/api/v1/leaderboards/{s}/entries/{id}"),
        None,
        None,
    );
    assert_eq!(code, 200, "{db}: {entry}");
    assert!(entry["report"]["overall"].is_object(), "{db}: {entry}");
}

/// A new pairs board `s` (no gold: each entry file has both columns); its owner token.
fn pairs_board(server: &Server, s: &str) -> String {
    let created = lb_json(
        server,
        &[
            "create",
            "--slug",
            s,
            "--title",
            "T",
            "--benchmark",
            "pairs",
        ],
    );
    created["owner_token"].as_str().unwrap().to_string()
}

/// The files of a file store (by SHA-256) among `want`.
fn stored(files: &Files, want: &[&str]) -> BTreeSet<String> {
    rt().block_on(async {
        let mut out = BTreeSet::new();
        for sha in want {
            if files.get(sha).await.unwrap().is_some() {
                out.insert(sha.to_string());
            }
        }
        out
    })
}

/// A board with two entries of distinct files and a third sharing the first's: the bytes live
/// in the file store, not the database; downloads stream the same bytes; verification passes;
/// deleting entries deletes exactly the files nothing else refers to, deleting the board the
/// rest. On SQLite (a folder beside the file) and PostgreSQL (S3 when the test script runs it).
#[test]
fn files_live_outside_the_database_and_go_when_nothing_refers_to_them() {
    for db in stores() {
        let server = Server::start(&db);
        let files = Files::open(&place_of(&db)).unwrap();
        let dir = temp("files");
        let s = slug("files");
        let owner = pairs_board(&server, &s);
        let f1 = pairs_file(&dir, "1.jsonl", 300, 200);
        let f2 = pairs_file(&dir, "2.jsonl", 300, 100);
        for (model, f) in [("a", &f1), ("b", &f2), ("c", &f1)] {
            lb_json(&server, &["submit", "--slug", &s, "--model", model, p(f)]);
        }
        let (sha1, sha2) = (sha_of(&f1), sha_of(&f2));
        let mut sql = Db::open(&db);
        let reports: Vec<String> = sql.column(&format!(
            "SELECT report_sha256 FROM lb_entry WHERE slug = {} ORDER BY id",
            quoted(&s)
        ));
        assert_eq!(reports.len(), 3, "{db}");
        assert_eq!(
            in_database(&mut sql, &s),
            (0, 0, 3),
            "{db}: bytes in the database"
        );
        let all: Vec<&str> = [sha1.as_str(), sha2.as_str()]
            .into_iter()
            .chain(reports.iter().map(String::as_str))
            .collect();
        assert_eq!(
            stored(&files, &all).len(),
            BTreeSet::from_iter(&all).len(),
            "{db}"
        );
        // Written as they are: the store's copy is the file.
        let got = rt().block_on(files.get(&sha1)).unwrap().unwrap();
        assert_eq!(got.as_ref(), std::fs::read(&f1).unwrap(), "{db}");

        // Served from the store, the same bytes; every entry re-scores bit for bit.
        let url = format!("{}/api/v1/leaderboards/{s}/files/{sha1}", server.url);
        let body = rt().block_on(async { reqwest::get(&url).await.unwrap().bytes().await });
        assert_eq!(body.unwrap().as_ref(), std::fs::read(&f1).unwrap());
        // The entry page reads its report from the store.
        verifies_and_reads_report(&server, &s, 2, &db);

        // Entry 2 alone had file 2: deleted with it. File 1 stays for entry 3.
        let remove = |id: &str| {
            lb(
                &server,
                &["remove", "--slug", &s, "--entry", id, "--token", &owner],
            )
        };
        assert!(remove("2").status.success());
        let left = stored(&files, &all);
        assert!(
            !left.contains(&sha2) && !left.contains(&reports[1]),
            "{db}: {left:?}"
        );
        assert!(left.contains(&sha1), "{db}");
        assert!(remove("1").status.success());
        assert!(
            stored(&files, &[&sha1]).contains(&sha1),
            "{db}: entry 3 has it"
        );
        let (code, _) = http(
            &server,
            "DELETE",
            &format!("/api/v1/leaderboards/{s}"),
            Some(&owner),
            None,
        );
        assert!(code < 300, "{db}: delete board {code}");
        // Unless another test's board has the same content (PostgreSQL is shared).
        let left = stored(&files, &all);
        assert!(
            left.is_empty() || db.starts_with("postgres"),
            "{db}: {left:?}"
        );
        let rows = sql.column(&format!(
            "SELECT count(*) FROM lb_blob WHERE sha256 IN ({})",
            all.iter().map(|h| quoted(h)).collect::<Vec<_>>().join(", ")
        ));
        if !db.starts_with("postgres") {
            assert_eq!(rows, vec!["0"], "{db}: rows of deleted files");
        }
    }
}

/// A database as an older version left it: its files' bytes and its entries' reports inside.
/// The first start moves them out (one at a time, so an interrupted start resumes: here half
/// of them had moved already), compacts SQLite, and everything reads and verifies as before.
#[test]
fn an_old_database_moves_its_bytes_out_on_start_and_resumes() {
    for db in stores() {
        let dir = temp("old");
        let s = slug("old");
        let server = Server::start(&db);
        pairs_board(&server, &s);
        let f1 = pairs_file(&dir, "1.jsonl", 2_000, 1_500);
        let f2 = pairs_file(&dir, "2.jsonl", 2_000, 900);
        lb_json(&server, &["submit", "--slug", &s, "--model", "a", p(&f1)]);
        lb_json(&server, &["submit", "--slug", &s, "--model", "b", p(&f2)]);
        let before = lb_json(&server, &["show", "--slug", &s, "--json"]);
        server.kill9();

        // Back to the old layout: entry 1's file and report in the database, not the store.
        let files = Files::open(&place_of(&db)).unwrap();
        let mut sql = Db::open(&db);
        let sha1 = sha_of(&f1);
        let report1 = sql.column(&format!(
            "SELECT report_sha256 FROM lb_entry WHERE slug = {} AND id = 1",
            quoted(&s)
        ))[0]
            .clone();
        let report_text = rt().block_on(files.get(&report1)).unwrap().unwrap();
        let literal = sql.bytes(&std::fs::read(&f1).unwrap());
        sql.execute(&format!(
            "UPDATE lb_blob SET legacy_bytes = {literal}, in_files = false WHERE sha256 = {};
             UPDATE lb_entry SET report_json = {}, report_sha256 = NULL
             WHERE slug = {} AND id = 1;",
            quoted(&sha1),
            quoted(std::str::from_utf8(&report_text).unwrap()),
            quoted(&s),
        ));
        rt().block_on(async {
            files.delete(&sha1).await.unwrap();
            files.delete(&report1).await.unwrap();
        });
        assert_eq!(in_database(&mut sql, &s), (1, 1, 1));
        if let Db::Sqlite(c) = &sql {
            c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
        }
        let size = || std::fs::metadata(&db).map(|m| m.len()).unwrap_or(0);
        let old_size = size();

        let server = Server::start(&db);
        assert_eq!(in_database(&mut sql, &s), (0, 0, 2), "{db}: moved out");
        assert!(stored(&files, &[&sha1, &report1]).len() == 2, "{db}");
        if !db.starts_with("postgres") {
            assert!(
                size() < old_size,
                "{db}: not compacted ({} ≥ {old_size})",
                size()
            );
        }
        let after = lb_json(&server, &["show", "--slug", &s, "--json"]);
        assert_eq!(before["entries"], after["entries"], "{db}");
        verifies_and_reads_report(&server, &s, 1, &db);
    }
}

/// The S3 settings never reach the log: the secret key and the access key id are not in
/// anything the server prints while it creates, serves and deletes files there.
#[test]
fn s3_credentials_never_reach_the_log() {
    let Ok(url) = std::env::var("S3_URL") else {
        eprintln!("files: S3 not tested (scripts/s3.sh sets S3_URL)");
        return;
    };
    let secret = std::env::var("AWS_SECRET_ACCESS_KEY").unwrap();
    let key_id = std::env::var("AWS_ACCESS_KEY_ID").unwrap();
    let dir = temp("s3log");
    let log: PathBuf = dir.join("server.log");
    let db = dir.join("lb.sqlite3");
    let place = format!("{url}/{}", slug("own"));
    {
        let server = Server::start_logged(
            p(&db),
            &["--files", &place],
            "debug",
            std::fs::File::create(&log).unwrap().into(),
        );
        let s = slug("s3");
        let owner = pairs_board(&server, &s);
        let f = pairs_file(&dir, "1.jsonl", 100, 60);
        lb_json(&server, &["submit", "--slug", &s, "--model", "m", p(&f)]);
        let files = Files::open(&place).unwrap();
        assert!(rt().block_on(files.get(&sha_of(&f))).unwrap().is_some());
        assert!(
            lb(
                &server,
                &["remove", "--slug", &s, "--entry", "1", "--token", &owner]
            )
            .status
            .success()
        );
        assert!(rt().block_on(files.get(&sha_of(&f))).unwrap().is_none());
    }
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains(&place) || text.contains("s3://"), "{text}");
    assert!(!text.contains(&secret), "the secret key is in the log");
    assert!(!text.contains(&key_id), "the access key id is in the log");
}

/// Writers and collectors of the same content racing, as on two servers: each writer holds and
/// writes the file, commits a board that refers to it and checks the bytes are there, then
/// deletes the board; two collectors delete what nothing refers to all the while. A write
/// never finds its committed file gone; at the end nothing is left. Both backends, a folder.
#[test]
fn writers_and_collectors_of_the_same_file_never_lose_a_committed_one() {
    for db in stores() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(4)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let store = server::store::backend::open(&db).await.unwrap();
            let files = std::sync::Arc::new(Files::folder(&temp("race")).unwrap());
            let content = bytes::Bytes::from(format!("race {}", slug("content")).into_bytes());
            let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let collectors: Vec<_> = (0..2)
                .map(|_| {
                    let (store, files, stop) = (store.clone(), files.clone(), stop.clone());
                    tokio::spawn(async move {
                        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                            files.collect(&*store).await.unwrap();
                        }
                    })
                })
                .collect();
            let writers: Vec<_> = (0..3)
                .map(|w| {
                    let (store, files, content) = (store.clone(), files.clone(), content.clone());
                    tokio::spawn(async move {
                        for i in 0..40 {
                            let file = server::files::NewFile::of(content.clone());
                            let sha = file.sha256.clone();
                            let held = files.write(&*store, vec![file]).await.unwrap();
                            let s = slug(&format!("race-{w}-{i}"));
                            let gold = server::store::FileRef {
                                name: "g.jsonl".into(),
                                role: "pairs-gold".into(),
                                sha256: sha.clone(),
                                size_bytes: content.len() as u64,
                            };
                            let board = race_board(&s, gold);
                            store
                                .create_board(board, held.blobs.clone(), race_audit())
                                .await
                                .unwrap();
                            files.release(&*store, held, true).await;
                            let got = files.get(&sha).await.unwrap();
                            assert_eq!(got.as_ref(), Some(&content), "a committed file is gone");
                            store.delete_board(&s).await.unwrap();
                        }
                    })
                })
                .collect();
            for w in writers {
                w.await.unwrap();
            }
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            for c in collectors {
                c.await.unwrap();
            }
            files.collect(&*store).await.unwrap();
            // (On the shared PostgreSQL, another test's server may have collected the row
            // first: the bytes in this test's own folder are then out of its reach.)
            if !db.starts_with("postgres") {
                let sha = server::files::NewFile::of(content.clone()).sha256;
                assert!(
                    files.get(&sha).await.unwrap().is_none(),
                    "{db}: left behind"
                );
            }
        });
    }
}

fn race_board(slug: &str, gold: server::store::FileRef) -> server::store::BoardRow {
    server::store::BoardRow {
        slug: slug.into(),
        title: "race".into(),
        description: String::new(),
        benchmark: "pairs".into(),
        variant: "official".into(),
        primary_metric: "accuracy".into(),
        metrics: vec!["accuracy".into()],
        gold: vec![gold],
        owner_token_sha256: "x".into(),
        created_ms: 1,
        updated_ms: 1,
        competition: None,
        description_html: None,
    }
}

fn race_audit() -> server::store::AuditRow {
    server::store::AuditRow {
        at_ms: 1,
        actor: "owner".into(),
        action: "create board".into(),
        entry: None,
        detail: serde_json::json!({}),
    }
}

/// A server's peak and current resident memory, bytes (`/proc/PID/status`: VmHWM, VmRSS).
fn memory_of(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb = |key: &str| -> u64 {
        let line = status.lines().find(|l| l.starts_with(key)).unwrap();
        line.split_whitespace()
            .nth(1)
            .unwrap()
            .parse::<u64>()
            .unwrap()
            * 1024
    };
    (kb("VmHWM:"), kb("VmRSS:"))
}

/// A file sent on its own (`POST …/uploads`, owner or team token) is streamed to the store and
/// named by a submission within the hour; refused without a token, as another media type, over
/// `--max-file-mb`, and when a submission names what was never uploaded.
#[test]
fn an_upload_is_named_by_a_submission() {
    let dir = temp("upload");
    let db = dir.join("lb.sqlite3");
    let server = Server::start_with(p(&db), &["--max-file-mb", "1"]);
    let s = slug("upload");
    let owner = pairs_board(&server, &s);
    let f = pairs_file(&dir, "p.jsonl", 2_000, 1_200);
    let bytes = std::fs::read(&f).unwrap();
    let send = |body: Vec<u8>, token: Option<&str>, kind: &str| -> (u16, serde_json::Value) {
        rt().block_on(async {
            let mut r = reqwest::Client::new()
                .post(format!("{}/api/v1/leaderboards/{s}/uploads", server.url))
                .header("content-type", kind)
                .body(body);
            if let Some(t) = token {
                r = r.bearer_auth(t);
            }
            let resp = r.send().await.unwrap();
            let code = resp.status().as_u16();
            (code, resp.json().await.unwrap_or_default())
        })
    };
    let octets = "application/octet-stream";
    assert_eq!(send(bytes.clone(), None, octets).0, 403);
    assert_eq!(send(bytes.clone(), Some("sbo_wrong"), octets).0, 403);
    assert_eq!(send(bytes.clone(), Some(&owner), "application/json").0, 415);
    assert_eq!(send(vec![b'x'; (1 << 20) + 1], Some(&owner), octets).0, 413);
    let (code, up) = send(bytes.clone(), Some(&owner), octets);
    assert_eq!(code, 201, "{up}");
    assert_eq!(up["sha256"], sha_of(&f));
    assert_eq!(up["size_bytes"], bytes.len());
    let sha = up["sha256"].as_str().unwrap().to_string();
    // Read back as stored.
    let got = rt().block_on(async {
        reqwest::Client::new()
            .get(format!(
                "{}/api/v1/leaderboards/{s}/uploads/{sha}",
                server.url
            ))
            .bearer_auth(&owner)
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap()
    });
    assert_eq!(got.as_ref(), bytes.as_slice());
    // A submission of model `m` to `board` naming `files` ({"name", "sha256"} each).
    let name_uploads = |board: &str, files: serde_json::Value| {
        http(
            &server,
            "POST",
            &format!("/api/v1/leaderboards/{board}/entries"),
            None,
            Some(serde_json::json!({"model": "m", "files": files})),
        )
    };
    // Named by a submission (anonymous, as the open board takes them): scored as if sent.
    let (code, entry) = name_uploads(&s, serde_json::json!([{"name": "p.jsonl", "sha256": sha}]));
    assert_eq!(code, 201, "{entry}");
    let direct = lb_json(&server, &["submit", "--slug", &s, "--model", "m2", p(&f)]);
    assert_eq!(entry["report"]["overall"], direct["report"]["overall"]);
    let (code, e) = name_uploads(
        &s,
        serde_json::json!([{"name": "q.jsonl", "sha256": "ab".repeat(32)}]),
    );
    assert_eq!(code, 400, "{e}");
    assert!(e["error"].as_str().unwrap().contains("no upload"), "{e}");
    // Named twice in one submission: refused.
    lb_json(&server, &["submit", "--slug", &s, "--model", "m3", p(&f)]);
    let (code, up) = send(bytes.clone(), Some(&owner), octets);
    assert_eq!(code, 201, "{up}");
    let (code, e) = name_uploads(
        &s,
        serde_json::json!([{"name": "a.jsonl", "sha256": sha}, {"name": "b.jsonl", "sha256": sha}]),
    );
    assert_eq!(code, 400, "{e}");
    assert!(e["error"].as_str().unwrap().contains("named twice"), "{e}");
    // Uploads are the board's: another board's owner can neither upload here nor read them,
    // and a submission there cannot name them.
    let other = slug("other");
    let other_owner = pairs_board(&server, &other);
    assert_eq!(send(bytes.clone(), Some(&other_owner), octets).0, 403);
    let read = |board: &str, token: &str| {
        rt().block_on(async {
            reqwest::Client::new()
                .get(format!(
                    "{}/api/v1/leaderboards/{board}/uploads/{sha}",
                    server.url
                ))
                .bearer_auth(token)
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        })
    };
    assert_eq!(read(&s, &other_owner), 403);
    assert_eq!(read(&other, &other_owner), 404);
    assert_eq!(read(&s, &owner), 200);
    let (code, e) = name_uploads(
        &other,
        serde_json::json!([{"name": "p.jsonl", "sha256": sha}]),
    );
    assert_eq!(code, 400, "{e}");
}

/// A 1 GB file (SCOREBENCH_ROUNDTRIP_MB, default 1000) uploaded and read back: streamed both
/// ways, the same SHA-256; the server's peak resident memory above its idle is reported and
/// stays under 200 MB.
#[test]
fn a_gigabyte_round_trip_never_sits_in_server_memory() {
    let mb: u64 = std::env::var("SCOREBENCH_ROUNDTRIP_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let dir = temp("gigabyte");
    let db = dir.join("lb.sqlite3");
    let server = Server::start_with(p(&db), &["--max-file-mb", &(mb + 100).to_string()]);
    let s = slug("gigabyte");
    let owner = pairs_board(&server, &s);
    // The file: `mb` blocks of 1,000,000 bytes, each different.
    let path = dir.join("big.bin");
    let expected = {
        use sha2::Digest;
        use std::io::Write;
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let mut hash = sha2::Sha256::new();
        let mut block = vec![b'.'; 1_000_000];
        for i in 0..mb {
            block[..20].copy_from_slice(format!("{i:020}").as_bytes());
            hash.update(&block);
            out.write_all(&block).unwrap();
        }
        out.flush().unwrap();
        hex::encode(hash.finalize())
    };
    let size = mb * 1_000_000;
    let pid = server.child.id();
    let _ = http(&server, "GET", "/api/health", None, None);
    let (_, idle) = memory_of(pid);
    let rt = rt();
    let started = std::time::Instant::now();
    let up: serde_json::Value = rt.block_on(async {
        let file = tokio::fs::File::open(&path).await.unwrap();
        let chunks = futures_util::stream::unfold(file, |mut file| async move {
            use tokio::io::AsyncReadExt;
            let mut buf = vec![0u8; 1 << 20];
            match file.read(&mut buf).await {
                Ok(0) => None,
                Ok(n) => {
                    buf.truncate(n);
                    Some((Ok::<_, std::io::Error>(bytes::Bytes::from(buf)), file))
                }
                Err(e) => Some((Err(e), file)),
            }
        });
        let resp = reqwest::Client::new()
            .post(format!("{}/api/v1/leaderboards/{s}/uploads", server.url))
            .bearer_auth(&owner)
            .header("content-type", "application/octet-stream")
            .header("content-length", size)
            .body(reqwest::Body::wrap_stream(chunks))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 201);
        resp.json().await.unwrap()
    });
    let uploaded = started.elapsed();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(up["sha256"], expected.as_str(), "{up}");
    let started = std::time::Instant::now();
    let (got, n) = rt.block_on(async {
        use futures_util::StreamExt;
        use sha2::Digest;
        let resp = reqwest::Client::new()
            .get(format!(
                "{}/api/v1/leaderboards/{s}/uploads/{expected}",
                server.url
            ))
            .bearer_auth(&owner)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 200);
        let mut stream = resp.bytes_stream();
        let (mut hash, mut n) = (sha2::Sha256::new(), 0u64);
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.unwrap();
            n += chunk.len() as u64;
            hash.update(&chunk);
        }
        (hex::encode(hash.finalize()), n)
    });
    let downloaded = started.elapsed();
    assert_eq!((got.as_str(), n), (expected.as_str(), size));
    let (peak, _) = memory_of(pid);
    let above = peak.saturating_sub(idle) as f64 / 1e6;
    eprintln!(
        "files: {mb} MB round trip: upload {:.1} s, download {:.1} s; server RSS idle {:.0} MB, \
         peak {:.0} MB ({above:.0} MB above idle; goal < 200)",
        uploaded.as_secs_f64(),
        downloaded.as_secs_f64(),
        idle as f64 / 1e6,
        peak as f64 / 1e6,
    );
    assert!(above < 200.0, "{above:.0} MB above idle");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
