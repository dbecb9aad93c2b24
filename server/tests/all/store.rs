//! One list of store operations, run against SQLite and PostgreSQL (`PG_URL`, see
//! `scripts/pg.sh`) through the `Store` trait: both backends run the same SQL
//! (`server/src/store/sql.rs`), and this list pins what each operation does.

use serde_json::json;
use server::store::{
    Anonymous, AuditRow, Blob, BoardEdit, BoardRow, EntryRow, FileRef, IntervalRow, JobResult,
    Limits, Quota, ShareRow, State, Status, StoreError, StoredReport, Submitter, TeamRow, backend,
};

use crate::leaderboard::{queue_alone, slug, stores};

fn audit(action: &str) -> AuditRow {
    AuditRow {
        at_ms: 1,
        actor: "owner".into(),
        action: action.into(),
        entry: None,
        detail: json!({"action": action}),
    }
}

fn blob(text: &str) -> (FileRef, Blob) {
    let sha256 = metrics_core::InputFile::from_bytes("x", text.as_bytes()).sha256;
    (
        FileRef {
            name: format!("{text}.json"),
            role: "pairs-gold".into(),
            sha256: sha256.clone(),
            size_bytes: text.len() as u64,
        },
        Blob {
            sha256,
            size_bytes: text.len() as i64,
        },
    )
}

/// Until when the tests' files are held: far in the future for the other tests' servers
/// collecting on the shared PostgreSQL (they never take them), past for the queries here made
/// "at" `i64::MAX - 1` or at [`T`] and later.
const GUARD_UNTIL: i64 = T - 1;
/// The time the file tests run "at" (2096): after every guard, long after now.
const T: i64 = 4_000_000_000_000;

/// Hold `blobs` as a writer does before it writes them (their rows exist, no collector takes
/// them), under a guard no real-time collector sees expire.
async fn held(store: &std::sync::Arc<dyn server::store::Store>, blobs: &[&Blob]) {
    let blobs = blobs.iter().map(|b| (*b).clone()).collect();
    assert!(
        store
            .hold_blobs("test-guard", blobs, 1, GUARD_UNTIL)
            .await
            .unwrap()
    );
}

fn board_row(slug: &str, gold: Vec<FileRef>) -> BoardRow {
    BoardRow {
        slug: slug.into(),
        title: "T".into(),
        description: "d".into(),
        benchmark: "pairs".into(),
        variant: "official".into(),
        primary_metric: "accuracy".into(),
        metrics: vec!["accuracy".into()],
        gold,
        owner_token_sha256: "owner-hash".into(),
        created_ms: 10,
        updated_ms: 10,
        competition: None,
        description_html: Some("<p>d</p>".into()),
    }
}

fn entry(model: &str, files: Vec<FileRef>, created_ms: i64) -> EntryRow {
    EntryRow {
        files,
        metrics_json: json!({"accuracy": 0.5}).to_string(),
        entry_token_sha256: Some("entry-hash".into()),
        ..EntryRow::new(model.into(), Status::Verified, created_ms)
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Boards, entries, files, audit, intervals: written, read back, edited and deleted alike.
#[test]
fn boards_entries_files_and_audit_behave_alike() {
    for db in stores() {
        rt().block_on(async {
            let store = backend::open(&db).await.unwrap();
            let kind = store.kind();
            let s = slug("store");
            let (gold, gold_blob) = blob("gold");
            let (pred, pred_blob) = blob("pred");
            let (_, report_blob) = blob("{\"report\": 1}");
            held(&store, &[&gold_blob, &pred_blob, &report_blob]).await;
            store
                .create_board(
                    board_row(&s, vec![gold.clone()]),
                    vec![gold_blob.clone()],
                    audit("create"),
                )
                .await
                .unwrap();
            let again = store
                .create_board(board_row(&s, vec![]), vec![], audit("create"))
                .await;
            assert!(
                matches!(again, Err(StoreError::Conflict(_))),
                "{kind}: {again:?}"
            );
            let board = store.board(&s).await.unwrap().unwrap();
            assert_eq!(board, board_row(&s, vec![gold.clone()]), "{kind}");
            assert!(store.board("no-such-board").await.unwrap().is_none());
            let listed = store.boards().await.unwrap();
            let mine = listed.iter().find(|b| b.slug == s).unwrap();
            assert_eq!(mine.entries, 0, "{kind}");

            // Two entries: numbers 1 and 2; a file shared with the gold is stored once.
            let e1 = store
                .add_entry(
                    &s,
                    entry("m1", vec![pred.clone()], 20),
                    Some(report_blob.clone()),
                    vec![pred_blob.clone(), gold_blob.clone()],
                    Limits::default(),
                    audit("submit"),
                )
                .await
                .unwrap();
            let e2 = store
                .add_entry(
                    &s,
                    entry("m2", vec![pred.clone(), gold.clone()], 30),
                    None,
                    vec![pred_blob.clone()],
                    Limits::default(),
                    audit("submit"),
                )
                .await
                .unwrap();
            assert_eq!((e1, e2), (1, 2), "{kind}");
            let missing = store
                .add_entry(
                    "no-such-board",
                    entry("m", vec![], 1),
                    None,
                    vec![],
                    Limits::default(),
                    audit("submit"),
                )
                .await;
            assert!(
                matches!(missing, Err(StoreError::NotFound(_))),
                "{kind}: {missing:?}"
            );
            let entries = store.entries(&s).await.unwrap();
            assert_eq!(entries.len(), 2);
            assert_eq!(entries[0].files, vec![pred.clone()], "{kind}");
            assert_eq!(entries[1].files, vec![pred.clone(), gold.clone()], "{kind}");
            assert_eq!(entries[0].entry_token_sha256.as_deref(), Some("entry-hash"));
            assert!(!entries[0].chosen);
            assert_eq!(
                store.entry(&s, 2).await.unwrap().unwrap(),
                entries[1],
                "{kind}"
            );
            assert_eq!(
                store.entry_report(&s, 1).await.unwrap(),
                Some(StoredReport::File(report_blob.sha256.clone()))
            );
            assert_eq!(store.entry_report(&s, 2).await.unwrap(), None);
            // Nothing of the board's is unreferenced (rows of other tests' files may be).
            let unreferenced = store
                .unreferenced_blobs(i64::MAX - 1, 1_000_000)
                .await
                .unwrap();
            for b in [&pred, &gold] {
                assert!(!unreferenced.contains(&b.sha256), "{kind}");
            }
            assert!(store.board_has_file(&s, &gold.sha256, false).await.unwrap());
            assert!(store.board_has_file(&s, &pred.sha256, false).await.unwrap());

            // Hidden: its files are the board's for the owner only.
            let meta = [("org".to_string(), "x".to_string())].into_iter().collect();
            store
                .update_entry(&s, 1, "m1b".into(), meta, State::Hidden, audit("hide"))
                .await
                .unwrap();
            store
                .update_entry(
                    &s,
                    2,
                    "m2".into(),
                    Default::default(),
                    State::Hidden,
                    audit("hide"),
                )
                .await
                .unwrap();
            assert!(
                !store.board_has_file(&s, &pred.sha256, false).await.unwrap(),
                "{kind}"
            );
            assert!(store.board_has_file(&s, &pred.sha256, true).await.unwrap());
            let hidden = store.entry(&s, 1).await.unwrap().unwrap();
            assert_eq!(
                (hidden.model.as_str(), hidden.state.as_str()),
                ("m1b", "hidden")
            );
            assert_eq!(hidden.meta["org"], "x");
            let listed = store.boards().await.unwrap();
            assert_eq!(listed.iter().find(|b| b.slug == s).unwrap().entries, 0);

            // Intervals: upserted per (leader, key, entry), cleared by a board edit.
            let interval = |entry: i64, result: &str| IntervalRow {
                entry,
                leader: 1,
                key: "k".into(),
                result_json: result.into(),
            };
            store
                .put_intervals(&s, vec![interval(2, "a")])
                .await
                .unwrap();
            store
                .put_intervals(&s, vec![interval(2, "b")])
                .await
                .unwrap();
            let cached = store.intervals(&s, 1, "k").await.unwrap();
            assert_eq!(cached.get(&2).map(String::as_str), Some("b"), "{kind}");
            store
                .edit_board(
                    &s,
                    BoardEdit {
                        title: "T2".into(),
                        description: "d2".into(),
                        description_html: "<p>d2</p>".into(),
                        primary_metric: "accuracy".into(),
                        metrics: vec!["accuracy".into()],
                    },
                    audit("edit"),
                )
                .await
                .unwrap();
            assert!(
                store.intervals(&s, 1, "k").await.unwrap().is_empty(),
                "{kind}"
            );
            assert_eq!(store.board(&s).await.unwrap().unwrap().title, "T2");

            // Deleting entry 1 keeps the file entry 2 still uses (its report is free); deleting
            // 2 frees it; the gold stays.
            let unreferenced = |store: std::sync::Arc<dyn server::store::Store>| async move {
                store
                    .unreferenced_blobs(i64::MAX - 1, 1_000_000)
                    .await
                    .unwrap()
            };
            store.delete_entry(&s, 1, audit("delete")).await.unwrap();
            let free = unreferenced(store.clone()).await;
            assert!(!free.contains(&pred.sha256), "{kind}");
            assert!(free.contains(&report_blob.sha256), "{kind}");
            store.delete_entry(&s, 2, audit("delete")).await.unwrap();
            let free = unreferenced(store.clone()).await;
            assert!(free.contains(&pred.sha256), "{kind}");
            assert!(!free.contains(&gold.sha256), "{kind}: gold stays");
            let gone = store.delete_entry(&s, 2, audit("delete")).await;
            assert!(
                matches!(gone, Err(StoreError::NotFound(_))),
                "{kind}: {gone:?}"
            );

            let actions: Vec<(String, Option<i64>)> = store
                .audit(&s)
                .await
                .unwrap()
                .into_iter()
                .map(|a| (a.action, a.entry))
                .collect();
            let want = [
                ("create", None),
                ("submit", Some(1)),
                ("submit", Some(2)),
                ("hide", None),
                ("hide", None),
                ("edit", None),
                ("delete", None),
                ("delete", None),
            ];
            let want: Vec<(String, Option<i64>)> =
                want.iter().map(|(a, e)| ((*a).to_string(), *e)).collect();
            assert_eq!(actions, want, "{kind}");
        });
    }
}

/// Quotas, anonymous hourly limits and the bytes cap refuse the insert that would pass them.
#[test]
fn limits_refuse_alike() {
    for db in stores() {
        rt().block_on(async {
            let store = backend::open(&db).await.unwrap();
            let kind = store.kind();
            let s = slug("store-limits");
            store
                .create_board(board_row(&s, vec![]), vec![], audit("create"))
                .await
                .unwrap();
            let quota = |since_ms| Limits {
                quota: Some(Quota {
                    who: Submitter::Team("t".into()),
                    daily: Some(1),
                    total: Some(2),
                    since_ms,
                }),
                ..Limits::default()
            };
            let team_entry = |created_ms| EntryRow {
                team: Some("t".into()),
                ..entry("m", vec![], created_ms)
            };
            store
                .add_submission(&s, team_entry(100), vec![], quota(50), audit("submit"))
                .await
                .unwrap();
            // One today (since 50) already: the daily quota refuses; a new day takes one more.
            let refused = store
                .add_submission(&s, team_entry(200), vec![], quota(50), audit("submit"))
                .await;
            assert!(
                matches!(&refused, Err(StoreError::Quota(m)) if m.contains("daily")),
                "{kind}: {refused:?}"
            );
            store.check_limits(&s, quota(150)).await.unwrap();
            store
                .add_submission(&s, team_entry(200), vec![], quota(150), audit("submit"))
                .await
                .unwrap();
            let refused = store.check_limits(&s, quota(1_000)).await;
            assert!(
                matches!(&refused, Err(StoreError::Quota(m)) if m.contains("total")),
                "{kind}: {refused:?}"
            );

            let anonymous = |client: &str| Limits {
                anonymous: Some(Anonymous {
                    client: client.into(),
                    per_client: 1,
                    per_board: 2,
                    since_ms: 0,
                }),
                ..Limits::default()
            };
            let add = |limits: Limits| {
                let store = &store;
                let s = &s;
                async move {
                    store
                        .add_entry(
                            s,
                            entry("anon", vec![], 300),
                            None,
                            vec![],
                            limits,
                            audit("submit"),
                        )
                        .await
                }
            };
            add(anonymous("a")).await.unwrap();
            let again = add(anonymous("a")).await;
            assert!(
                matches!(&again, Err(StoreError::Quota(m)) if m.contains("this client address")),
                "{kind}: {again:?}"
            );
            add(anonymous("b")).await.unwrap();
            let full = add(anonymous("c")).await;
            assert!(
                matches!(&full, Err(StoreError::Quota(m)) if m.contains("anonymous submissions")),
                "{kind}: {full:?}"
            );

            // The bytes cap counts the board's distinct files, new ones included.
            let (f, b) = blob("0123456789");
            held(&store, &[&b]).await;
            let capped = |cap| Limits {
                max_board_bytes: Some(cap),
                ..Limits::default()
            };
            let over = store
                .add_entry(
                    &s,
                    entry("big", vec![f.clone()], 400),
                    None,
                    vec![b.clone()],
                    capped(9),
                    audit("submit"),
                )
                .await;
            assert!(matches!(over, Err(StoreError::Full(_))), "{kind}: {over:?}");
            store
                .add_entry(
                    &s,
                    entry("big", vec![f.clone()], 400),
                    None,
                    vec![b.clone()],
                    capped(10),
                    audit("submit"),
                )
                .await
                .unwrap();
            // The same file again adds no bytes.
            store
                .add_entry(
                    &s,
                    entry("same", vec![f], 500),
                    None,
                    vec![b],
                    capped(10),
                    audit("submit"),
                )
                .await
                .unwrap();
        });
    }
}

/// The scoring queue: claim, renew, finish exactly once, cancel, choose; a job whose worker
/// keeps dying fails after the attempts.
#[test]
fn the_queue_claims_and_finishes_alike() {
    queue_alone(|| {
        for db in stores() {
            rt().block_on(async {
                let store = backend::open(&db).await.unwrap();
                let kind = store.kind();
                let s = slug("store-queue");
                store
                    .create_board(board_row(&s, vec![]), vec![], audit("create"))
                    .await
                    .unwrap();
                let queued = |model: &str, team: &str| EntryRow {
                    status: Status::Queued,
                    team: Some(team.into()),
                    // Older than any other test's leftovers: claimed first.
                    ..entry(model, vec![], i64::MIN / 2)
                };
                for (model, team) in [("a", "t"), ("b", "t"), ("c", "u")] {
                    store
                        .add_submission(
                            &s,
                            queued(model, team),
                            vec![],
                            Limits::default(),
                            audit("submit"),
                        )
                        .await
                        .unwrap();
                }
                let job = store.claim_job("w1", 1_000, 100).await.unwrap().unwrap();
                assert_eq!((job.slug.as_str(), job.entry), (s.as_str(), 1), "{kind}");
                assert!(store.renew_lease(&job, "w1", 2_000).await.unwrap());
                assert!(
                    !store.renew_lease(&job, "w2", 2_000).await.unwrap(),
                    "{kind}"
                );
                let result = JobResult {
                    status: Status::Done,
                    reason: None,
                    metrics_json: json!({"accuracy": 1.0}).to_string(),
                    scores_json: Some("{}".into()),
                    report: None,
                    at_ms: 1_500,
                };
                assert!(store.finish_job(&job, "w1", result.clone()).await.unwrap());
                assert!(
                    !store.finish_job(&job, "w1", result).await.unwrap(),
                    "{kind}: once"
                );
                let done = store.entry(&s, 1).await.unwrap().unwrap();
                assert_eq!(
                    (done.status.as_str(), done.completions, done.attempts),
                    ("done", 1, 1)
                );

                // Entry 2 is cancelled while queued; entry 3's worker dies until it fails.
                let two = server::store::Job {
                    slug: s.clone(),
                    entry: 2,
                };
                assert!(
                    store.cancel_job(&two, audit("cancel")).await.unwrap(),
                    "{kind}"
                );
                assert!(!store.cancel_job(&two, audit("cancel")).await.unwrap());
                let mut now = 10_000;
                for attempt in 1..=server::store::MAX_ATTEMPTS {
                    let job = store.claim_job("w", now, 10).await.unwrap().unwrap();
                    assert_eq!(job.entry, 3, "{kind}: attempt {attempt}");
                    now += 100;
                }
                // The next claim fails it instead of handing it out again.
                let next = store.claim_job("w", now, 10).await.unwrap();
                assert!(next.is_none_or(|j| j.slug != s), "{kind}");
                let failed = store.entry(&s, 3).await.unwrap().unwrap();
                assert_eq!(failed.status, Status::Failed, "{kind}");
                assert_eq!(
                    failed.reason.as_deref(),
                    Some(
                        format!(
                            "the scorer stopped before finishing {} times",
                            server::store::MAX_ATTEMPTS
                        )
                        .as_str()
                    )
                );

                // Teams and the chosen entry.
                let team = |name: &str| TeamRow {
                    name: name.into(),
                    token_sha256: format!("{name}-hash"),
                    created_ms: 5,
                };
                store.add_team(&s, team("t"), audit("team")).await.unwrap();
                let twice = store.add_team(&s, team("t"), audit("team")).await;
                assert!(
                    matches!(twice, Err(StoreError::Conflict(_))),
                    "{kind}: {twice:?}"
                );
                assert_eq!(store.teams(&s).await.unwrap(), vec![team("t")]);
                store
                    .choose_entry(&s, "t", 2, audit("choose"))
                    .await
                    .unwrap();
                let chosen: Vec<bool> = store
                    .entries(&s)
                    .await
                    .unwrap()
                    .iter()
                    .map(|e| e.chosen)
                    .collect();
                assert_eq!(chosen, [false, true, false], "{kind}");
                store
                    .set_competition(&s, "{\"public_share\": 0.5}".into(), audit("phase"))
                    .await
                    .unwrap();
                assert_eq!(
                    store
                        .board(&s)
                        .await
                        .unwrap()
                        .unwrap()
                        .competition
                        .as_deref(),
                    Some("{\"public_share\": 0.5}")
                );
            });
        }
    });
}

/// Share links: stored once per id, read with or without their bytes, deleted, purged.
#[test]
fn shares_behave_alike() {
    for db in stores() {
        rt().block_on(async {
            let store = backend::open(&db).await.unwrap();
            let kind = store.kind();
            let id = slug("share");
            let share = |id: &str, expires_ms| ShareRow {
                id: id.into(),
                bytes: vec![0, 1, 2, 255],
                created_ms: 1,
                expires_ms,
                delete_token_sha256: "delete-hash".into(),
            };
            store.put_share(share(&id, 100)).await.unwrap();
            let taken = store.put_share(share(&id, 100)).await;
            assert!(
                matches!(taken, Err(StoreError::Conflict(_))),
                "{kind}: {taken:?}"
            );
            assert_eq!(
                store.share(&id).await.unwrap(),
                Some(share(&id, 100)),
                "{kind}"
            );
            let info = store.share_info(&id).await.unwrap().unwrap();
            assert_eq!((info.size_bytes, info.expires_ms), (4, 100), "{kind}");
            let later = format!("{id}-later");
            store.put_share(share(&later, i64::MAX)).await.unwrap();
            assert!(store.purge_shares(100).await.unwrap() >= 1, "{kind}");
            assert_eq!(
                store.share(&id).await.unwrap(),
                None,
                "{kind}: expired, purged"
            );
            assert!(store.delete_share(&later).await.unwrap());
            assert!(!store.delete_share(&later).await.unwrap(), "{kind}");
        });
    }
}

/// The file bookkeeping's protocol (`store/sql/files.rs`): a held file is not collected; one a
/// collector marked is not held until the collector ends or its mark goes stale; a collector
/// ends only under its own mark (a writer that took a stale row over keeps it).
#[test]
fn file_holds_and_collection_behave_alike() {
    for db in stores() {
        rt().block_on(async {
            let store = backend::open(&db).await.unwrap();
            let kind = store.kind();
            let (f, b) = blob(&slug("hold"));
            let sha = b.sha256.clone();
            let free = |store: std::sync::Arc<dyn server::store::Store>, at: i64| async move {
                store.unreferenced_blobs(at, 1_000_000).await.unwrap()
            };
            let t = T;
            // Other tests' servers on the shared PostgreSQL never collect it.
            held(&store, &[&b]).await;
            let w1 = slug("w1");
            assert!(
                store
                    .hold_blobs(&w1, vec![b.clone()], t, t + 1_000)
                    .await
                    .unwrap()
            );
            assert!(!free(store.clone(), t).await.contains(&sha), "{kind}: held");
            assert!(!store.mark_sweep(&sha, t).await.unwrap(), "{kind}");
            assert!(
                free(store.clone(), t + 1_000).await.contains(&sha),
                "{kind}: expired"
            );
            store.release_holds(&w1).await.unwrap();

            // Marked: no second collector, no writer until it ends.
            assert!(store.mark_sweep(&sha, t + 1).await.unwrap(), "{kind}");
            assert!(!store.mark_sweep(&sha, t + 2).await.unwrap(), "{kind}");
            let w2 = slug("w2");
            assert!(
                !store
                    .hold_blobs(&w2, vec![b.clone()], t + 2, t + 9_000)
                    .await
                    .unwrap()
            );
            assert!(
                !free(store.clone(), t + 2).await.contains(&sha),
                "{kind}: being deleted"
            );
            assert!(store.end_sweep(&sha, t + 1).await.unwrap(), "{kind}");
            assert!(
                store
                    .hold_blobs(&w2, vec![b.clone()], t + 3, t + 9_000)
                    .await
                    .unwrap()
            );
            store.release_holds(&w2).await.unwrap();

            // A collector that died: its mark goes stale after five minutes, a writer takes the
            // row over, and the dead collector's end leaves it.
            assert!(store.mark_sweep(&sha, t + 10).await.unwrap(), "{kind}");
            let w3 = slug("w3");
            let fresh = t + 10 + 299_000;
            assert!(
                !store
                    .hold_blobs(&w3, vec![b.clone()], fresh, fresh + 1)
                    .await
                    .unwrap()
            );
            let stale = t + 10 + 300_001;
            assert!(
                store
                    .hold_blobs(&w3, vec![b.clone()], stale, stale + 9_000)
                    .await
                    .unwrap()
            );
            assert!(
                !store.end_sweep(&sha, t + 10).await.unwrap(),
                "{kind}: taken over"
            );
            assert!(!free(store.clone(), stale).await.contains(&sha), "{kind}");
            store.release_holds(&w3).await.unwrap();
            assert!(store.mark_sweep(&sha, stale + 1).await.unwrap(), "{kind}");
            assert!(store.end_sweep(&sha, stale + 1).await.unwrap(), "{kind}");
            assert!(
                !free(store.clone(), stale + 2).await.contains(&sha),
                "{kind}: gone"
            );
            // A writer whose hold expired and whose file was collected meanwhile: its commit
            // fails instead of referring to deleted bytes.
            let late = store
                .create_board(board_row(&slug("late"), vec![f]), vec![b], audit("create"))
                .await;
            assert!(
                matches!(&late, Err(StoreError::Backend(m)) if m.contains("was collected")),
                "{kind}: {late:?}"
            );
        });
    }
}
