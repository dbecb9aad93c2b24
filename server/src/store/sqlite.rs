//! The SQLite [`Store`]: tables `lb_*` in the server's database file, their own numbered
//! migrations (version in table `lb_schema`, so [`crate::db`]'s `user_version` is untouched),
//! WAL with `synchronous=FULL` (a commit is on disk before the reply), one connection behind a
//! mutex, used from blocking threads.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::{
    AuditRow, Blob, BoardEdit, BoardRow, BoardSummary, EntryRow, FileRef, IntervalRow, Job,
    JobResult, Limits, MAX_ATTEMPTS, ShareInfo, ShareRow, Store, StoreError, TeamRow,
    anonymous_error, anonymous_sql, board_bytes_sql, bytes_error, json_text, parse_json,
    quota_error, quota_sql, sorted_blobs,
};

/// Migrations of the leaderboard tables, oldest first. Never edit a released entry: append.
const MIGRATIONS: &[&str] = &[
    // 1: boards, entries, files, audit, interval cache.
    "CREATE TABLE lb_blob (
        sha256      TEXT PRIMARY KEY,
        size_bytes  INTEGER NOT NULL,
        bytes       BLOB NOT NULL
    );
    CREATE TABLE lb_board (
        slug                TEXT PRIMARY KEY,
        title               TEXT NOT NULL,
        description         TEXT NOT NULL,
        benchmark           TEXT NOT NULL,
        variant             TEXT NOT NULL,
        primary_metric      TEXT NOT NULL,
        metrics_json        TEXT NOT NULL,
        owner_token_sha256  TEXT NOT NULL,
        next_entry          INTEGER NOT NULL DEFAULT 0,
        created_ms          INTEGER NOT NULL,
        updated_ms          INTEGER NOT NULL
    );
    CREATE TABLE lb_board_file (
        slug      TEXT NOT NULL REFERENCES lb_board (slug) ON DELETE CASCADE,
        position  INTEGER NOT NULL,
        name      TEXT NOT NULL,
        role      TEXT NOT NULL,
        sha256    TEXT NOT NULL REFERENCES lb_blob (sha256),
        PRIMARY KEY (slug, position)
    );
    CREATE TABLE lb_entry (
        slug                TEXT NOT NULL REFERENCES lb_board (slug) ON DELETE CASCADE,
        id                  INTEGER NOT NULL,
        model               TEXT NOT NULL,
        meta_json           TEXT NOT NULL,
        status              TEXT NOT NULL,
        state               TEXT NOT NULL,
        metrics_json        TEXT NOT NULL,
        report_json         TEXT,
        scorer_json         TEXT NOT NULL,
        entry_token_sha256  TEXT,
        created_ms          INTEGER NOT NULL,
        updated_ms          INTEGER NOT NULL,
        PRIMARY KEY (slug, id)
    );
    CREATE TABLE lb_entry_file (
        slug      TEXT NOT NULL,
        entry_id  INTEGER NOT NULL,
        position  INTEGER NOT NULL,
        name      TEXT NOT NULL,
        role      TEXT NOT NULL,
        sha256    TEXT NOT NULL REFERENCES lb_blob (sha256),
        PRIMARY KEY (slug, entry_id, position),
        FOREIGN KEY (slug, entry_id) REFERENCES lb_entry (slug, id) ON DELETE CASCADE
    );
    CREATE INDEX lb_entry_file_sha256 ON lb_entry_file (sha256);
    CREATE INDEX lb_board_file_sha256 ON lb_board_file (sha256);
    CREATE TABLE lb_audit (
        id           INTEGER PRIMARY KEY,
        slug         TEXT NOT NULL,
        at_ms        INTEGER NOT NULL,
        actor        TEXT NOT NULL,
        action       TEXT NOT NULL,
        entry_id     INTEGER,
        detail_json  TEXT NOT NULL
    );
    CREATE INDEX lb_audit_slug ON lb_audit (slug, id);
    CREATE TABLE lb_interval (
        slug         TEXT NOT NULL,
        entry_id     INTEGER NOT NULL,
        leader_id    INTEGER NOT NULL,
        key          TEXT NOT NULL,
        result_json  TEXT NOT NULL,
        PRIMARY KEY (slug, leader_id, key, entry_id)
    );",
    // 2: competitions (issue 14): settings, teams, the scoring queue in lb_entry.
    "ALTER TABLE lb_board ADD COLUMN competition_json TEXT;
    ALTER TABLE lb_entry ADD COLUMN team TEXT;
    ALTER TABLE lb_entry ADD COLUMN reason TEXT;
    ALTER TABLE lb_entry ADD COLUMN lease_owner TEXT;
    ALTER TABLE lb_entry ADD COLUMN lease_until_ms INTEGER;
    ALTER TABLE lb_entry ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE lb_entry ADD COLUMN completions INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE lb_entry ADD COLUMN scores_json TEXT;
    ALTER TABLE lb_entry ADD COLUMN chosen INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX lb_entry_queue ON lb_entry (status, created_ms);
    CREATE INDEX lb_entry_team ON lb_entry (slug, team, created_ms);
    CREATE TABLE lb_team (
        slug          TEXT NOT NULL REFERENCES lb_board (slug) ON DELETE CASCADE,
        name          TEXT NOT NULL,
        token_sha256  TEXT NOT NULL,
        created_ms    INTEGER NOT NULL,
        PRIMARY KEY (slug, name)
    );",
    // 3: private share links (issue 14): ciphertext only, the key never reaches the server.
    "CREATE TABLE shares (
        id                   TEXT PRIMARY KEY,
        bytes                BLOB NOT NULL,
        size_bytes           INTEGER NOT NULL,
        created_ms           INTEGER NOT NULL,
        expires_ms           INTEGER NOT NULL,
        delete_token_sha256  TEXT NOT NULL
    );
    CREATE INDEX shares_expires ON shares (expires_ms);",
    // 4: the description's sanitised HTML, rendered once when written (issue 25); NULL for
    // boards written before (rendered when shown).
    "ALTER TABLE lb_board ADD COLUMN description_html TEXT;
    ALTER TABLE lb_entry ADD COLUMN submitter TEXT;
    CREATE INDEX lb_entry_submitter ON lb_entry (slug, created_ms) WHERE submitter IS NOT NULL;",
];

pub struct SqliteStore {
    conn: Arc<Mutex<Connection>>,
}

fn backend(e: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(e.to_string())
}

impl SqliteStore {
    /// Open (creating if needed) the database file and migrate the leaderboard tables.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| {
                StoreError::Backend(format!("cannot create {}: {e}", dir.display()))
            })?;
        }
        let mut conn = Connection::open(path)
            .map_err(|e| StoreError::Backend(format!("cannot open {}: {e}", path.display())))?;
        conn.busy_timeout(std::time::Duration::from_secs(30))
            .map_err(backend)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .and_then(|_| conn.pragma_update(None, "synchronous", "FULL"))
            .and_then(|_| conn.pragma_update(None, "foreign_keys", "ON"))
            .map_err(backend)?;
        migrate(&mut conn).map_err(|e| {
            StoreError::Backend(format!("{}: leaderboard migration: {e}", path.display()))
        })?;
        Ok(Self {
            conn: Arc::new(Mutex::new(conn)),
        })
    }

    /// Run `f` on the connection in a blocking thread.
    async fn with<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let conn = self.conn.clone();
        tokio::task::spawn_blocking(move || {
            let mut guard = conn
                .lock()
                .map_err(|_| StoreError::Backend("connection lock poisoned".into()))?;
            f(&mut guard)
        })
        .await
        .map_err(backend)?
    }

    /// Run `f` in an immediate (write-locking) transaction and commit.
    async fn write<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction<'_>) -> Result<T, StoreError> + Send + 'static,
    {
        self.with(move |conn| {
            let tx = conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .map_err(backend)?;
            let out = f(&tx)?;
            tx.commit().map_err(backend)?;
            Ok(out)
        })
        .await
    }
}

fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    tx.execute_batch("CREATE TABLE IF NOT EXISTS lb_schema (version INTEGER NOT NULL)")?;
    let current: i64 = tx
        .query_row("SELECT max(version) FROM lb_schema", [], |r| {
            r.get::<_, Option<i64>>(0)
        })?
        .unwrap_or(0);
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(current as usize) {
        tx.execute_batch(sql)?;
        tx.execute(
            "INSERT INTO lb_schema (version) VALUES (?1)",
            [index as i64 + 1],
        )?;
    }
    tx.commit()
}

fn put_blobs(tx: &Transaction<'_>, blobs: Vec<Blob>) -> Result<(), StoreError> {
    let mut stmt = tx
        .prepare_cached(
            "INSERT INTO lb_blob (sha256, size_bytes, bytes) VALUES (?1, ?2, ?3)
             ON CONFLICT (sha256) DO NOTHING",
        )
        .map_err(backend)?;
    for b in sorted_blobs(blobs) {
        stmt.execute(params![b.sha256, b.bytes.len() as i64, b.bytes])
            .map_err(backend)?;
    }
    Ok(())
}

fn put_audit(tx: &Transaction<'_>, slug: &str, audit: &AuditRow) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO lb_audit (slug, at_ms, actor, action, entry_id, detail_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            slug,
            audit.at_ms,
            audit.actor,
            audit.action,
            audit.entry,
            json_text(&audit.detail)
        ],
    )
    .map_err(backend)?;
    Ok(())
}

fn files_of(
    conn: &Connection,
    sql: &str,
    args: impl rusqlite::Params,
) -> Result<Vec<(i64, FileRef)>, StoreError> {
    let mut stmt = conn.prepare_cached(sql).map_err(backend)?;
    let rows = stmt
        .query_map(args, |r| {
            Ok((
                r.get::<_, i64>(0)?,
                FileRef {
                    name: r.get(1)?,
                    role: r.get(2)?,
                    sha256: r.get(3)?,
                    size_bytes: r.get::<_, i64>(4)? as u64,
                },
            ))
        })
        .map_err(backend)?;
    rows.collect::<Result<_, _>>().map_err(backend)
}

const ENTRY_COLUMNS: &str = "id, model, meta_json, status, state, metrics_json, scorer_json, \
                             entry_token_sha256, created_ms, updated_ms, team, reason, attempts, \
                             completions, scores_json, chosen";

fn entry_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<EntryRow> {
    Ok(EntryRow {
        id: r.get(0)?,
        model: r.get(1)?,
        meta: parse_json(&r.get::<_, String>(2)?),
        status: r.get(3)?,
        state: r.get(4)?,
        files: Vec::new(),
        metrics_json: r.get(5)?,
        scorer_json: r.get(6)?,
        entry_token_sha256: r.get(7)?,
        created_ms: r.get(8)?,
        updated_ms: r.get(9)?,
        team: r.get(10)?,
        reason: r.get(11)?,
        attempts: r.get(12)?,
        completions: r.get(13)?,
        scores_json: r.get(14)?,
        chosen: r.get::<_, i64>(15)? != 0,
    })
}

/// Refuse the insert when one of `limits` is used up (inside the writing transaction).
fn check_limits(
    tx: &Transaction<'_>,
    slug: &str,
    limits: &Limits,
    blobs: &[Blob],
    // SQLite's writer is one: the insert's transaction is the lock.
    _lock: bool,
) -> Result<(), StoreError> {
    if let Some(q) = &limits.quota {
        let (sql, key) = quota_sql(q, '?');
        let (total, today): (i64, i64) = tx
            .query_row(&sql, params![slug, key, q.since_ms], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .map_err(backend)?;
        if let Some(e) = quota_error(q, total, today) {
            return Err(e);
        }
    }
    if let Some(a) = &limits.anonymous {
        let (of_client, all): (i64, i64) = tx
            .query_row(
                &anonymous_sql('?'),
                params![slug, a.client, a.since_ms],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(backend)?;
        if let Some(e) = anonymous_error(a, of_client, all) {
            return Err(e);
        }
    }
    if let Some(cap) = limits.max_board_bytes {
        let held: i64 = tx
            .query_row(&board_bytes_sql('?'), [slug], |r| r.get(0))
            .map_err(backend)?;
        let mut new = 0i64;
        let mut seen = std::collections::HashSet::new();
        for blob in blobs.iter().filter(|b| seen.insert(b.sha256.as_str())) {
            let known: bool = tx
                .query_row(
                    "SELECT EXISTS (SELECT 1 FROM lb_entry_file WHERE slug = ?1 AND sha256 = ?2)
                        OR EXISTS (SELECT 1 FROM lb_board_file WHERE slug = ?1 AND sha256 = ?2)",
                    params![slug, blob.sha256],
                    |r| r.get(0),
                )
                .map_err(backend)?;
            if !known {
                new += blob.bytes.len() as i64;
            }
        }
        if let Some(e) = bytes_error(cap, held, new) {
            return Err(e);
        }
    }
    Ok(())
}

/// Insert an entry with the board's next number (shared by `add_entry` and `add_submission`);
/// `submitter` is the anonymous client's hash, for the hourly limits.
fn insert_entry(
    tx: &Transaction<'_>,
    slug: &str,
    entry: &EntryRow,
    report_json: Option<String>,
    blobs: Vec<Blob>,
    submitter: Option<&str>,
    audit: &mut AuditRow,
) -> Result<i64, StoreError> {
    let id: Option<i64> = tx
        .query_row(
            "UPDATE lb_board SET next_entry = next_entry + 1 WHERE slug = ?1
             RETURNING next_entry",
            [slug],
            |r| r.get(0),
        )
        .optional()
        .map_err(backend)?;
    let Some(id) = id else {
        return Err(StoreError::NotFound(format!("no board `{slug}`")));
    };
    put_blobs(tx, blobs)?;
    tx.execute(
        "INSERT INTO lb_entry (slug, id, model, meta_json, status, state, metrics_json,
            report_json, scorer_json, entry_token_sha256, created_ms, updated_ms, team, chosen,
            submitter)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
        params![
            slug,
            id,
            entry.model,
            json_text(&entry.meta),
            entry.status,
            entry.state,
            entry.metrics_json,
            report_json,
            entry.scorer_json,
            entry.entry_token_sha256,
            entry.created_ms,
            entry.updated_ms,
            entry.team,
            i64::from(entry.chosen),
            submitter
        ],
    )
    .map_err(backend)?;
    for (i, f) in entry.files.iter().enumerate() {
        tx.execute(
            "INSERT INTO lb_entry_file (slug, entry_id, position, name, role, sha256)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![slug, id, i as i64, f.name, f.role, f.sha256],
        )
        .map_err(backend)?;
    }
    audit.entry = Some(id);
    put_audit(tx, slug, audit)?;
    Ok(id)
}

fn gc_blobs(tx: &Transaction<'_>, hashes: &[String]) -> Result<(), StoreError> {
    for h in hashes {
        tx.execute(
            "DELETE FROM lb_blob WHERE sha256 = ?1
               AND NOT EXISTS (SELECT 1 FROM lb_entry_file WHERE sha256 = ?1)
               AND NOT EXISTS (SELECT 1 FROM lb_board_file WHERE sha256 = ?1)",
            [h],
        )
        .map_err(backend)?;
    }
    Ok(())
}

#[async_trait::async_trait]
impl Store for SqliteStore {
    fn kind(&self) -> &'static str {
        "sqlite"
    }

    async fn create_board(
        &self,
        board: BoardRow,
        blobs: Vec<Blob>,
        audit: AuditRow,
    ) -> Result<(), StoreError> {
        self.write(move |tx| {
            let taken: Option<i64> = tx
                .query_row(
                    "SELECT 1 FROM lb_board WHERE slug = ?1",
                    [&board.slug],
                    |r| r.get(0),
                )
                .optional()
                .map_err(backend)?;
            if taken.is_some() {
                return Err(StoreError::Conflict(format!(
                    "a board `{}` exists already",
                    board.slug
                )));
            }
            put_blobs(tx, blobs)?;
            tx.execute(
                "INSERT INTO lb_board (slug, title, description, benchmark, variant,
                    primary_metric, metrics_json, owner_token_sha256, created_ms, updated_ms,
                    competition_json, description_html)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                params![
                    board.slug,
                    board.title,
                    board.description,
                    board.benchmark,
                    board.variant,
                    board.primary_metric,
                    json_text(&board.metrics),
                    board.owner_token_sha256,
                    board.created_ms,
                    board.updated_ms,
                    board.competition,
                    board.description_html
                ],
            )
            .map_err(backend)?;
            for (i, f) in board.gold.iter().enumerate() {
                tx.execute(
                    "INSERT INTO lb_board_file (slug, position, name, role, sha256)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![board.slug, i as i64, f.name, f.role, f.sha256],
                )
                .map_err(backend)?;
            }
            put_audit(tx, &board.slug, &audit)
        })
        .await
    }

    async fn board(&self, slug: &str) -> Result<Option<BoardRow>, StoreError> {
        let slug = slug.to_string();
        self.with(move |conn| {
            let board = conn
                .query_row(
                    "SELECT slug, title, description, benchmark, variant, primary_metric,
                        metrics_json, owner_token_sha256, created_ms, updated_ms, competition_json,
                        description_html
                     FROM lb_board WHERE slug = ?1",
                    [&slug],
                    |r| {
                        Ok(BoardRow {
                            slug: r.get(0)?,
                            title: r.get(1)?,
                            description: r.get(2)?,
                            benchmark: r.get(3)?,
                            variant: r.get(4)?,
                            primary_metric: r.get(5)?,
                            metrics: parse_json(&r.get::<_, String>(6)?),
                            gold: Vec::new(),
                            owner_token_sha256: r.get(7)?,
                            created_ms: r.get(8)?,
                            updated_ms: r.get(9)?,
                            competition: r.get(10)?,
                            description_html: r.get(11)?,
                        })
                    },
                )
                .optional()
                .map_err(backend)?;
            let Some(mut board) = board else {
                return Ok(None);
            };
            board.gold = files_of(
                conn,
                "SELECT f.position, f.name, f.role, f.sha256, b.size_bytes
                 FROM lb_board_file f JOIN lb_blob b ON b.sha256 = f.sha256
                 WHERE f.slug = ?1 ORDER BY f.position",
                [&slug],
            )?
            .into_iter()
            .map(|(_, f)| f)
            .collect();
            Ok(Some(board))
        })
        .await
    }

    async fn boards(&self) -> Result<Vec<BoardSummary>, StoreError> {
        self.with(|conn| {
            let mut stmt = conn
                .prepare(
                    "SELECT b.slug, b.title, b.benchmark, b.created_ms,
                        (SELECT count(*) FROM lb_entry e WHERE e.slug = b.slug AND e.state = 'visible')
                     FROM lb_board b ORDER BY b.created_ms DESC, b.slug",
                )
                .map_err(backend)?;
            let rows = stmt
                .query_map([], |r| {
                    Ok(BoardSummary {
                        slug: r.get(0)?,
                        title: r.get(1)?,
                        benchmark: r.get(2)?,
                        created_ms: r.get(3)?,
                        entries: r.get(4)?,
                    })
                })
                .map_err(backend)?;
            rows.collect::<Result<_, _>>().map_err(backend)
        })
        .await
    }

    async fn edit_board(
        &self,
        slug: &str,
        edit: BoardEdit,
        audit: AuditRow,
    ) -> Result<(), StoreError> {
        let slug = slug.to_string();
        self.write(move |tx| {
            let n = tx
                .execute(
                    "UPDATE lb_board SET title = ?2, description = ?3, primary_metric = ?4,
                        metrics_json = ?5, updated_ms = ?6, description_html = ?7
                     WHERE slug = ?1",
                    params![
                        slug,
                        edit.title,
                        edit.description,
                        edit.primary_metric,
                        json_text(&edit.metrics),
                        audit.at_ms,
                        edit.description_html
                    ],
                )
                .map_err(backend)?;
            if n == 0 {
                return Err(StoreError::NotFound(format!("no board `{slug}`")));
            }
            tx.execute("DELETE FROM lb_interval WHERE slug = ?1", [&slug])
                .map_err(backend)?;
            put_audit(tx, &slug, &audit)
        })
        .await
    }

    async fn add_entry(
        &self,
        slug: &str,
        entry: EntryRow,
        report_json: Option<String>,
        blobs: Vec<Blob>,
        limits: Limits,
        mut audit: AuditRow,
    ) -> Result<i64, StoreError> {
        let slug = slug.to_string();
        self.write(move |tx| {
            check_limits(tx, &slug, &limits, &blobs, true)?;
            insert_entry(
                tx,
                &slug,
                &entry,
                report_json,
                blobs,
                limits.client(),
                &mut audit,
            )
        })
        .await
    }

    async fn entries(&self, slug: &str) -> Result<Vec<EntryRow>, StoreError> {
        let slug = slug.to_string();
        self.with(move |conn| {
            let mut stmt = conn
                .prepare_cached(&format!(
                    "SELECT {ENTRY_COLUMNS} FROM lb_entry WHERE slug = ?1 ORDER BY id"
                ))
                .map_err(backend)?;
            let mut entries: Vec<EntryRow> = stmt
                .query_map([&slug], entry_row)
                .map_err(backend)?
                .collect::<Result<_, _>>()
                .map_err(backend)?;
            let files = files_of(
                conn,
                "SELECT f.entry_id, f.name, f.role, f.sha256, b.size_bytes
                 FROM lb_entry_file f JOIN lb_blob b ON b.sha256 = f.sha256
                 WHERE f.slug = ?1 ORDER BY f.entry_id, f.position",
                [&slug],
            )?;
            let mut by_id: HashMap<i64, Vec<FileRef>> = HashMap::new();
            for (id, f) in files {
                by_id.entry(id).or_default().push(f);
            }
            for e in &mut entries {
                e.files = by_id.remove(&e.id).unwrap_or_default();
            }
            Ok(entries)
        })
        .await
    }

    async fn entry(&self, slug: &str, id: i64) -> Result<Option<EntryRow>, StoreError> {
        let slug = slug.to_string();
        self.with(move |conn| {
            let entry = conn
                .query_row(
                    &format!("SELECT {ENTRY_COLUMNS} FROM lb_entry WHERE slug = ?1 AND id = ?2"),
                    params![slug, id],
                    entry_row,
                )
                .optional()
                .map_err(backend)?;
            let Some(mut entry) = entry else {
                return Ok(None);
            };
            entry.files = files_of(
                conn,
                "SELECT f.entry_id, f.name, f.role, f.sha256, b.size_bytes
                 FROM lb_entry_file f JOIN lb_blob b ON b.sha256 = f.sha256
                 WHERE f.slug = ?1 AND f.entry_id = ?2 ORDER BY f.position",
                params![slug, id],
            )?
            .into_iter()
            .map(|(_, f)| f)
            .collect();
            Ok(Some(entry))
        })
        .await
    }

    async fn entry_report(&self, slug: &str, id: i64) -> Result<Option<String>, StoreError> {
        let slug = slug.to_string();
        self.with(move |conn| {
            conn.query_row(
                "SELECT report_json FROM lb_entry WHERE slug = ?1 AND id = ?2",
                params![slug, id],
                |r| r.get::<_, Option<String>>(0),
            )
            .optional()
            .map(Option::flatten)
            .map_err(backend)
        })
        .await
    }

    async fn update_entry(
        &self,
        slug: &str,
        id: i64,
        model: String,
        meta: BTreeMap<String, String>,
        state: String,
        audit: AuditRow,
    ) -> Result<(), StoreError> {
        let slug = slug.to_string();
        self.write(move |tx| {
            let n = tx
                .execute(
                    "UPDATE lb_entry SET model = ?3, meta_json = ?4, state = ?5, updated_ms = ?6
                     WHERE slug = ?1 AND id = ?2",
                    params![slug, id, model, json_text(&meta), state, audit.at_ms],
                )
                .map_err(backend)?;
            if n == 0 {
                return Err(StoreError::NotFound(format!("no entry {id} on `{slug}`")));
            }
            put_audit(tx, &slug, &audit)
        })
        .await
    }

    async fn delete_entry(&self, slug: &str, id: i64, audit: AuditRow) -> Result<(), StoreError> {
        let slug = slug.to_string();
        self.write(move |tx| {
            let hashes: Vec<String> = {
                let mut stmt = tx
                    .prepare("SELECT sha256 FROM lb_entry_file WHERE slug = ?1 AND entry_id = ?2")
                    .map_err(backend)?;
                stmt.query_map(params![slug, id], |r| r.get(0))
                    .map_err(backend)?
                    .collect::<Result<_, _>>()
                    .map_err(backend)?
            };
            tx.execute(
                "DELETE FROM lb_entry_file WHERE slug = ?1 AND entry_id = ?2",
                params![slug, id],
            )
            .map_err(backend)?;
            let n = tx
                .execute(
                    "DELETE FROM lb_entry WHERE slug = ?1 AND id = ?2",
                    params![slug, id],
                )
                .map_err(backend)?;
            if n == 0 {
                return Err(StoreError::NotFound(format!("no entry {id} on `{slug}`")));
            }
            tx.execute(
                "DELETE FROM lb_interval WHERE slug = ?1 AND entry_id = ?2",
                params![slug, id],
            )
            .map_err(backend)?;
            gc_blobs(tx, &hashes)?;
            put_audit(tx, &slug, &audit)
        })
        .await
    }

    async fn blob(&self, sha256: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let sha256 = sha256.to_string();
        self.with(move |conn| {
            conn.query_row(
                "SELECT bytes FROM lb_blob WHERE sha256 = ?1",
                [&sha256],
                |r| r.get(0),
            )
            .optional()
            .map_err(backend)
        })
        .await
    }

    async fn board_has_file(
        &self,
        slug: &str,
        sha256: &str,
        any_entry: bool,
    ) -> Result<bool, StoreError> {
        let (slug, sha256) = (slug.to_string(), sha256.to_string());
        self.with(move |conn| {
            conn.query_row(
                "SELECT EXISTS (SELECT 1 FROM lb_board_file WHERE slug = ?1 AND sha256 = ?2)
                     OR EXISTS (SELECT 1 FROM lb_entry_file f JOIN lb_entry e
                                  ON e.slug = f.slug AND e.id = f.entry_id
                                WHERE f.slug = ?1 AND f.sha256 = ?2
                                  AND (?3 OR e.state = 'visible'))",
                params![slug, sha256, any_entry],
                |r| r.get(0),
            )
            .map_err(backend)
        })
        .await
    }

    async fn audit(&self, slug: &str) -> Result<Vec<AuditRow>, StoreError> {
        let slug = slug.to_string();
        self.with(move |conn| {
            let mut stmt = conn
                .prepare(
                    "SELECT at_ms, actor, action, entry_id, detail_json FROM lb_audit
                     WHERE slug = ?1 ORDER BY id",
                )
                .map_err(backend)?;
            let rows = stmt
                .query_map([&slug], |r| {
                    Ok(AuditRow {
                        at_ms: r.get(0)?,
                        actor: r.get(1)?,
                        action: r.get(2)?,
                        entry: r.get(3)?,
                        detail: serde_json::from_str(&r.get::<_, String>(4)?)
                            .unwrap_or(serde_json::Value::Null),
                    })
                })
                .map_err(backend)?;
            rows.collect::<Result<_, _>>().map_err(backend)
        })
        .await
    }

    async fn intervals(
        &self,
        slug: &str,
        leader: i64,
        key: &str,
    ) -> Result<HashMap<i64, String>, StoreError> {
        let (slug, key) = (slug.to_string(), key.to_string());
        self.with(move |conn| {
            let mut stmt = conn
                .prepare_cached(
                    "SELECT entry_id, result_json FROM lb_interval
                     WHERE slug = ?1 AND leader_id = ?2 AND key = ?3",
                )
                .map_err(backend)?;
            let rows = stmt
                .query_map(params![slug, leader, key], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(backend)?;
            rows.collect::<Result<_, _>>().map_err(backend)
        })
        .await
    }

    async fn put_intervals(
        &self,
        slug: &str,
        mut rows: Vec<IntervalRow>,
    ) -> Result<(), StoreError> {
        rows.sort_by_key(|r| r.entry);
        let slug = slug.to_string();
        self.write(move |tx| {
            let mut stmt = tx
                .prepare_cached(
                    "INSERT INTO lb_interval (slug, entry_id, leader_id, key, result_json)
                     VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT (slug, leader_id, key, entry_id)
                     DO UPDATE SET result_json = excluded.result_json",
                )
                .map_err(backend)?;
            for r in rows {
                stmt.execute(params![slug, r.entry, r.leader, r.key, r.result_json])
                    .map_err(backend)?;
            }
            Ok(())
        })
        .await
    }

    async fn set_competition(
        &self,
        slug: &str,
        competition_json: String,
        audit: AuditRow,
    ) -> Result<(), StoreError> {
        let slug = slug.to_string();
        self.write(move |tx| {
            let n = tx
                .execute(
                    "UPDATE lb_board SET competition_json = ?2, updated_ms = ?3 WHERE slug = ?1",
                    params![slug, competition_json, audit.at_ms],
                )
                .map_err(backend)?;
            if n == 0 {
                return Err(StoreError::NotFound(format!("no board `{slug}`")));
            }
            put_audit(tx, &slug, &audit)
        })
        .await
    }

    async fn add_team(&self, slug: &str, team: TeamRow, audit: AuditRow) -> Result<(), StoreError> {
        let slug = slug.to_string();
        self.write(move |tx| {
            let n = tx
                .execute(
                    "INSERT INTO lb_team (slug, name, token_sha256, created_ms)
                     VALUES (?1, ?2, ?3, ?4) ON CONFLICT (slug, name) DO NOTHING",
                    params![slug, team.name, team.token_sha256, team.created_ms],
                )
                .map_err(backend)?;
            if n == 0 {
                return Err(StoreError::Conflict(format!(
                    "`{slug}` has a team `{}` already",
                    team.name
                )));
            }
            put_audit(tx, &slug, &audit)
        })
        .await
    }

    async fn teams(&self, slug: &str) -> Result<Vec<TeamRow>, StoreError> {
        let slug = slug.to_string();
        self.with(move |conn| {
            let mut stmt = conn
                .prepare_cached(
                    "SELECT name, token_sha256, created_ms FROM lb_team WHERE slug = ?1
                     ORDER BY created_ms, name",
                )
                .map_err(backend)?;
            let rows = stmt
                .query_map([&slug], |r| {
                    Ok(TeamRow {
                        name: r.get(0)?,
                        token_sha256: r.get(1)?,
                        created_ms: r.get(2)?,
                    })
                })
                .map_err(backend)?;
            rows.collect::<Result<_, _>>().map_err(backend)
        })
        .await
    }

    async fn check_limits(&self, slug: &str, limits: Limits) -> Result<(), StoreError> {
        let slug = slug.to_string();
        self.with(move |conn| {
            let tx = conn.transaction().map_err(backend)?;
            check_limits(&tx, &slug, &limits, &[], false)
        })
        .await
    }

    async fn add_submission(
        &self,
        slug: &str,
        entry: EntryRow,
        blobs: Vec<Blob>,
        limits: Limits,
        mut audit: AuditRow,
    ) -> Result<i64, StoreError> {
        let slug = slug.to_string();
        self.write(move |tx| {
            check_limits(tx, &slug, &limits, &blobs, true)?;
            insert_entry(tx, &slug, &entry, None, blobs, limits.client(), &mut audit)
        })
        .await
    }

    async fn claim_job(
        &self,
        worker: &str,
        now_ms: i64,
        lease_ms: i64,
    ) -> Result<Option<Job>, StoreError> {
        let worker = worker.to_string();
        self.write(move |tx| {
            tx.execute(
                "UPDATE lb_entry SET status = 'failed', lease_owner = NULL,
                    completions = completions + 1, updated_ms = ?1,
                    reason = 'the scorer stopped before finishing ' || attempts || ' times'
                 WHERE status = 'scoring' AND lease_until_ms < ?1 AND attempts >= ?2",
                params![now_ms, MAX_ATTEMPTS],
            )
            .map_err(backend)?;
            tx.query_row(
                "UPDATE lb_entry SET status = 'scoring', lease_owner = ?1, lease_until_ms = ?2,
                    attempts = attempts + 1, updated_ms = ?3
                 WHERE (slug, id) = (
                    SELECT slug, id FROM lb_entry
                    WHERE status = 'queued' OR (status = 'scoring' AND lease_until_ms < ?3)
                    ORDER BY created_ms, slug, id LIMIT 1)
                 RETURNING slug, id",
                params![worker, now_ms + lease_ms, now_ms],
                |r| {
                    Ok(Job {
                        slug: r.get(0)?,
                        entry: r.get(1)?,
                    })
                },
            )
            .optional()
            .map_err(backend)
        })
        .await
    }

    async fn renew_lease(
        &self,
        job: &Job,
        worker: &str,
        until_ms: i64,
    ) -> Result<bool, StoreError> {
        let (job, worker) = (job.clone(), worker.to_string());
        self.write(move |tx| {
            let n = tx
                .execute(
                    "UPDATE lb_entry SET lease_until_ms = ?4
                     WHERE slug = ?1 AND id = ?2 AND status = 'scoring' AND lease_owner = ?3",
                    params![job.slug, job.entry, worker, until_ms],
                )
                .map_err(backend)?;
            Ok(n == 1)
        })
        .await
    }

    async fn finish_job(
        &self,
        job: &Job,
        worker: &str,
        result: JobResult,
    ) -> Result<bool, StoreError> {
        let (job, worker) = (job.clone(), worker.to_string());
        self.write(move |tx| {
            let n = tx
                .execute(
                    "UPDATE lb_entry SET status = ?4, reason = ?5, metrics_json = ?6,
                        scores_json = ?7, report_json = ?8, updated_ms = ?9, lease_owner = NULL,
                        completions = completions + 1
                     WHERE slug = ?1 AND id = ?2 AND status = 'scoring' AND lease_owner = ?3",
                    params![
                        job.slug,
                        job.entry,
                        worker,
                        result.status,
                        result.reason,
                        result.metrics_json,
                        result.scores_json,
                        result.report_json,
                        result.at_ms
                    ],
                )
                .map_err(backend)?;
            Ok(n == 1)
        })
        .await
    }

    async fn cancel_job(&self, job: &Job, audit: AuditRow) -> Result<bool, StoreError> {
        let job = job.clone();
        self.write(move |tx| {
            let n = tx
                .execute(
                    "UPDATE lb_entry SET status = 'cancelled', updated_ms = ?3
                     WHERE slug = ?1 AND id = ?2 AND status = 'queued'",
                    params![job.slug, job.entry, audit.at_ms],
                )
                .map_err(backend)?;
            if n == 1 {
                put_audit(tx, &job.slug, &audit)?;
            }
            Ok(n == 1)
        })
        .await
    }

    async fn choose_entry(
        &self,
        slug: &str,
        team: &str,
        entry: i64,
        audit: AuditRow,
    ) -> Result<(), StoreError> {
        let (slug, team) = (slug.to_string(), team.to_string());
        self.write(move |tx| {
            tx.execute(
                "UPDATE lb_entry SET chosen = (id = ?3) WHERE slug = ?1 AND team = ?2",
                params![slug, team, entry],
            )
            .map_err(backend)?;
            put_audit(tx, &slug, &audit)
        })
        .await
    }

    async fn put_share(&self, share: ShareRow) -> Result<(), StoreError> {
        self.write(move |tx| {
            let n = tx
                .execute(
                    "INSERT INTO shares (id, bytes, size_bytes, created_ms, expires_ms,
                         delete_token_sha256)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (id) DO NOTHING",
                    params![
                        share.id,
                        share.bytes,
                        share.bytes.len() as i64,
                        share.created_ms,
                        share.expires_ms,
                        share.delete_token_sha256
                    ],
                )
                .map_err(backend)?;
            if n == 0 {
                return Err(StoreError::Conflict(format!(
                    "a share `{}` exists already",
                    share.id
                )));
            }
            Ok(())
        })
        .await
    }

    async fn share(&self, id: &str) -> Result<Option<ShareRow>, StoreError> {
        let id = id.to_string();
        self.with(move |conn| {
            conn.query_row(
                "SELECT id, bytes, created_ms, expires_ms, delete_token_sha256
                 FROM shares WHERE id = ?1",
                [&id],
                |r| {
                    Ok(ShareRow {
                        id: r.get(0)?,
                        bytes: r.get(1)?,
                        created_ms: r.get(2)?,
                        expires_ms: r.get(3)?,
                        delete_token_sha256: r.get(4)?,
                    })
                },
            )
            .optional()
            .map_err(backend)
        })
        .await
    }

    async fn share_info(&self, id: &str) -> Result<Option<ShareInfo>, StoreError> {
        let id = id.to_string();
        self.with(move |conn| {
            conn.query_row(
                "SELECT id, size_bytes, created_ms, expires_ms, delete_token_sha256
                 FROM shares WHERE id = ?1",
                [&id],
                |r| {
                    Ok(ShareInfo {
                        id: r.get(0)?,
                        size_bytes: r.get(1)?,
                        created_ms: r.get(2)?,
                        expires_ms: r.get(3)?,
                        delete_token_sha256: r.get(4)?,
                    })
                },
            )
            .optional()
            .map_err(backend)
        })
        .await
    }

    async fn delete_share(&self, id: &str) -> Result<bool, StoreError> {
        let id = id.to_string();
        self.write(move |tx| {
            let n = tx
                .execute("DELETE FROM shares WHERE id = ?1", [&id])
                .map_err(backend)?;
            Ok(n > 0)
        })
        .await
    }

    async fn purge_shares(&self, now_ms: i64) -> Result<u64, StoreError> {
        self.write(move |tx| {
            let n = tx
                .execute("DELETE FROM shares WHERE expires_ms <= ?1", [now_ms])
                .map_err(backend)?;
            Ok(n as u64)
        })
        .await
    }
}
