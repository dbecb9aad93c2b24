//! The SQLite [`Store`]: tables `lb_*` in the server's database file, their own numbered
//! migrations (version in table `lb_schema`, so [`crate::db`]'s `user_version` is untouched),
//! WAL with `synchronous=FULL` (a commit is on disk before the reply), one connection behind a
//! mutex, used from blocking threads. The SQL of every operation is [`super::sql`]'s; this
//! module binds values, reads cells and runs transactions.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, Transaction};

use super::sql::conn::{Cell, Conn, Dialect, Param, Row};
use super::sql::{boards, entries, files, hooks, keys, queue, shares};
use super::{
    Attempt, AuditRow, Blob, BoardEdit, BoardRow, BoardSummary, DeliveryRow, DueDelivery, EntryRow,
    IntervalRow, Job, JobResult, Limits, ShareInfo, ShareRow, State, Store, StoreError,
    StoredReport, TeamRow, WebhookRow,
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
    // 5: the seed of the key that signs entry receipts (issue 27), made on first use.
    "CREATE TABLE lb_key (
        name        TEXT PRIMARY KEY,
        secret      BLOB NOT NULL,
        created_ms  INTEGER NOT NULL
    );",
    // 6: webhooks (issue 27): a board's hooks, their deliveries (the delivery log), and the
    // leading group last announced.
    "CREATE TABLE lb_webhook (
        id          INTEGER PRIMARY KEY,
        slug        TEXT NOT NULL REFERENCES lb_board (slug) ON DELETE CASCADE,
        url         TEXT NOT NULL,
        secret      TEXT NOT NULL,
        created_ms  INTEGER NOT NULL
    );
    CREATE TABLE lb_delivery (
        id          INTEGER PRIMARY KEY,
        hook_id     INTEGER NOT NULL REFERENCES lb_webhook (id) ON DELETE CASCADE,
        slug        TEXT NOT NULL,
        event       TEXT NOT NULL,
        body        TEXT NOT NULL,
        state       TEXT NOT NULL,
        attempts    INTEGER NOT NULL,
        next_ms     INTEGER NOT NULL,
        last_status INTEGER,
        last_error  TEXT,
        created_ms  INTEGER NOT NULL,
        updated_ms  INTEGER NOT NULL
    );
    CREATE INDEX lb_delivery_due ON lb_delivery (state, next_ms);
    CREATE INDEX lb_delivery_board ON lb_delivery (slug, id);
    ALTER TABLE lb_board ADD COLUMN leaders TEXT;",
    // 7: files and reports outside the database (issue 29, `crate::files`). `in_files`: the
    // bytes are in the file store (rows of older versions move there on start,
    // `crate::files::migrate`); `sweep_ms`: a collector is deleting the file; holds: writers'
    // claims (`store/sql/files.rs`).
    "ALTER TABLE lb_blob ADD COLUMN in_files INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE lb_blob ADD COLUMN sweep_ms INTEGER;
    ALTER TABLE lb_entry ADD COLUMN report_sha256 TEXT;
    CREATE INDEX lb_entry_report ON lb_entry (report_sha256);
    CREATE TABLE lb_blob_hold (
        sha256    TEXT NOT NULL,
        holder    TEXT NOT NULL,
        until_ms  INTEGER NOT NULL,
        PRIMARY KEY (sha256, holder)
    );
    CREATE INDEX lb_blob_hold_holder ON lb_blob_hold (holder);",
    // 8: the database's copy of a file's bytes renamed, so a server of an older version still
    // running on a shared database fails loudly instead of reading the empty bytes of a moved
    // file as the file (stop every older server before starting this version).
    "ALTER TABLE lb_blob RENAME COLUMN bytes TO legacy_bytes;",
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

/// The connection (or a transaction on it) as [`sql`] sees it. Its futures never wait:
/// rusqlite is synchronous, and the operations run on a blocking thread ([`now`]).
struct SqliteConn<'a>(&'a Connection);

/// `$1`-style placeholders as SQLite's `?1`.
fn placeholders(sql: &str) -> Cow<'_, str> {
    if sql.contains('$') {
        Cow::Owned(sql.replace('$', "?"))
    } else {
        Cow::Borrowed(sql)
    }
}

impl Conn for SqliteConn<'_> {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    async fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, StoreError> {
        let mut stmt = self.0.prepare_cached(&placeholders(sql)).map_err(backend)?;
        let n = stmt
            .execute(rusqlite::params_from_iter(params))
            .map_err(backend)?;
        Ok(n as u64)
    }

    async fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, StoreError> {
        let mut stmt = self.0.prepare_cached(&placeholders(sql)).map_err(backend)?;
        let columns = stmt.column_count();
        let mut rows = stmt
            .query(rusqlite::params_from_iter(params))
            .map_err(backend)?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(backend)? {
            let cells = (0..columns)
                .map(|i| {
                    Ok(match row.get_ref(i).map_err(backend)? {
                        ValueRef::Null => Cell::Null,
                        ValueRef::Integer(v) => Cell::Int(v),
                        ValueRef::Text(t) => Cell::Text(String::from_utf8_lossy(t).into_owned()),
                        ValueRef::Blob(b) => Cell::Bytes(b.to_vec()),
                        ValueRef::Real(v) => {
                            return Err(StoreError::Backend(format!(
                                "column {i}: a real number ({v}) where none is stored"
                            )));
                        }
                    })
                })
                .collect::<Result<_, StoreError>>()?;
            out.push(Row(cells));
        }
        Ok(out)
    }
}

impl rusqlite::ToSql for Param<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match *self {
            Param::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Param::Int(v) => ToSqlOutput::Borrowed(ValueRef::Integer(v)),
            Param::Bool(v) => ToSqlOutput::Borrowed(ValueRef::Integer(i64::from(v))),
            Param::Text(v) => ToSqlOutput::Borrowed(ValueRef::Text(v.as_bytes())),
            Param::Bytes(v) => ToSqlOutput::Borrowed(ValueRef::Blob(v)),
        })
    }
}

/// The result of an operation on a [`SqliteConn`], whose futures are ready when first polled.
fn now<T>(operation: impl Future<Output = Result<T, StoreError>>) -> Result<T, StoreError> {
    match std::pin::pin!(operation).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => out,
        Poll::Pending => Err(StoreError::Backend(
            "a SQLite operation waited (it never should)".into(),
        )),
    }
}

/// `$m::$op(conn, args…)` in an immediate transaction on the blocking thread, committed when
/// it succeeds. The arguments are moved there: pass owned values.
macro_rules! in_tx {
    ($self:ident, $m:ident::$op:ident($($arg:expr),* $(,)?)) => {
        $self
            .write(move |tx| now($m::$op(&mut SqliteConn(tx), $($arg),*)))
            .await
    };
}

/// `$m::$op(conn, args…)` on the connection, on the blocking thread (reads).
macro_rules! on_conn {
    ($self:ident, $m:ident::$op:ident($($arg:expr),* $(,)?)) => {
        $self
            .with(move |conn| now($m::$op(&mut SqliteConn(conn), $($arg),*)))
            .await
    };
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
        in_tx!(self, boards::create_board(board, blobs, audit))
    }

    async fn board(&self, slug: &str) -> Result<Option<BoardRow>, StoreError> {
        let slug = slug.to_owned();
        on_conn!(self, boards::board(&slug))
    }

    async fn boards(&self) -> Result<Vec<BoardSummary>, StoreError> {
        on_conn!(self, boards::boards())
    }

    async fn edit_board(
        &self,
        slug: &str,
        edit: BoardEdit,
        audit: AuditRow,
    ) -> Result<(), StoreError> {
        let slug = slug.to_owned();
        in_tx!(self, boards::edit_board(&slug, edit, audit))
    }

    async fn add_entry(
        &self,
        slug: &str,
        entry: EntryRow,
        report: Option<Blob>,
        blobs: Vec<Blob>,
        limits: Limits,
        audit: AuditRow,
    ) -> Result<i64, StoreError> {
        let slug = slug.to_owned();
        in_tx!(
            self,
            entries::add_entry(&slug, entry, report, blobs, limits, audit)
        )
    }

    async fn entries(&self, slug: &str) -> Result<Vec<EntryRow>, StoreError> {
        let slug = slug.to_owned();
        on_conn!(self, entries::entries(&slug))
    }

    async fn entry(&self, slug: &str, id: i64) -> Result<Option<EntryRow>, StoreError> {
        let slug = slug.to_owned();
        on_conn!(self, entries::entry(&slug, id))
    }

    async fn entry_report(&self, slug: &str, id: i64) -> Result<Option<StoredReport>, StoreError> {
        let slug = slug.to_owned();
        on_conn!(self, entries::entry_report(&slug, id))
    }

    async fn update_entry(
        &self,
        slug: &str,
        id: i64,
        model: String,
        meta: BTreeMap<String, String>,
        state: State,
        audit: AuditRow,
    ) -> Result<(), StoreError> {
        let slug = slug.to_owned();
        in_tx!(
            self,
            entries::update_entry(&slug, id, model, meta, state, audit)
        )
    }

    async fn delete_entry(&self, slug: &str, id: i64, audit: AuditRow) -> Result<(), StoreError> {
        let slug = slug.to_owned();
        in_tx!(self, entries::delete_entry(&slug, id, audit))
    }

    async fn hold_blobs(
        &self,
        holder: &str,
        blobs: Vec<Blob>,
        now_ms: i64,
        until_ms: i64,
    ) -> Result<bool, StoreError> {
        let holder = holder.to_owned();
        in_tx!(self, files::hold_blobs(&holder, blobs, now_ms, until_ms))
    }

    async fn release_holds(&self, holder: &str) -> Result<(), StoreError> {
        let holder = holder.to_owned();
        in_tx!(self, files::release_holds(&holder))
    }

    async fn held(&self, sha256: &str, prefix: &str, now_ms: i64) -> Result<bool, StoreError> {
        let (sha256, prefix) = (sha256.to_owned(), prefix.to_owned());
        on_conn!(self, files::held(&sha256, &prefix, now_ms))
    }

    async fn held_upload_bytes(&self, prefix: &str, now_ms: i64) -> Result<i64, StoreError> {
        let prefix = prefix.to_owned();
        on_conn!(self, files::held_upload_bytes(&prefix, now_ms))
    }

    async fn board_bytes(&self, slug: &str) -> Result<i64, StoreError> {
        let slug = slug.to_owned();
        on_conn!(self, files::board_bytes(&slug))
    }

    async fn purge_holds(&self, now_ms: i64) -> Result<u64, StoreError> {
        in_tx!(self, files::purge_holds(now_ms))
    }

    async fn unreferenced_blobs(&self, now_ms: i64, limit: i64) -> Result<Vec<String>, StoreError> {
        on_conn!(self, files::unreferenced_blobs(now_ms, limit))
    }

    async fn mark_sweep(&self, sha256: &str, now_ms: i64) -> Result<bool, StoreError> {
        let sha256 = sha256.to_owned();
        in_tx!(self, files::mark_sweep(&sha256, now_ms))
    }

    async fn end_sweep(&self, sha256: &str, mark_ms: i64) -> Result<bool, StoreError> {
        let sha256 = sha256.to_owned();
        in_tx!(self, files::end_sweep(&sha256, mark_ms))
    }

    async fn legacy_blobs(&self, limit: i64) -> Result<Vec<String>, StoreError> {
        on_conn!(self, files::legacy_blobs(limit))
    }

    async fn legacy_blob(&self, sha256: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let sha256 = sha256.to_owned();
        on_conn!(self, files::legacy_blob(&sha256))
    }

    async fn blob_moved(&self, sha256: &str) -> Result<(), StoreError> {
        let sha256 = sha256.to_owned();
        in_tx!(self, files::blob_moved(&sha256))
    }

    async fn legacy_reports(&self, limit: i64) -> Result<Vec<(String, i64)>, StoreError> {
        on_conn!(self, files::legacy_reports(limit))
    }

    async fn legacy_report(&self, slug: &str, id: i64) -> Result<Option<String>, StoreError> {
        let slug = slug.to_owned();
        on_conn!(self, files::legacy_report(&slug, id))
    }

    async fn report_moved(&self, slug: &str, id: i64, sha256: &str) -> Result<(), StoreError> {
        let (slug, sha256) = (slug.to_owned(), sha256.to_owned());
        in_tx!(self, files::report_moved(&slug, id, &sha256))
    }

    async fn compact(&self) -> Result<(), StoreError> {
        self.with(|conn| {
            conn.execute_batch("VACUUM; PRAGMA wal_checkpoint(TRUNCATE);")
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
        let (slug, sha256) = (slug.to_owned(), sha256.to_owned());
        on_conn!(self, boards::board_has_file(&slug, &sha256, any_entry))
    }

    async fn audit(&self, slug: &str) -> Result<Vec<AuditRow>, StoreError> {
        let slug = slug.to_owned();
        on_conn!(self, boards::audit(&slug))
    }

    async fn intervals(
        &self,
        slug: &str,
        leader: i64,
        key: &str,
    ) -> Result<HashMap<i64, String>, StoreError> {
        let (slug, key) = (slug.to_owned(), key.to_owned());
        on_conn!(self, boards::intervals(&slug, leader, &key))
    }

    async fn put_intervals(&self, slug: &str, rows: Vec<IntervalRow>) -> Result<(), StoreError> {
        let slug = slug.to_owned();
        in_tx!(self, boards::put_intervals(&slug, rows))
    }

    async fn set_competition(
        &self,
        slug: &str,
        competition_json: String,
        audit: AuditRow,
    ) -> Result<(), StoreError> {
        let slug = slug.to_owned();
        in_tx!(
            self,
            boards::set_competition(&slug, competition_json, audit)
        )
    }

    async fn add_team(&self, slug: &str, team: TeamRow, audit: AuditRow) -> Result<(), StoreError> {
        let slug = slug.to_owned();
        in_tx!(self, queue::add_team(&slug, team, audit))
    }

    async fn teams(&self, slug: &str) -> Result<Vec<TeamRow>, StoreError> {
        let slug = slug.to_owned();
        on_conn!(self, queue::teams(&slug))
    }

    async fn check_limits(&self, slug: &str, limits: Limits) -> Result<(), StoreError> {
        let slug = slug.to_owned();
        on_conn!(self, entries::check_limits(&slug, limits))
    }

    async fn add_submission(
        &self,
        slug: &str,
        entry: EntryRow,
        blobs: Vec<Blob>,
        limits: Limits,
        audit: AuditRow,
    ) -> Result<i64, StoreError> {
        let slug = slug.to_owned();
        in_tx!(
            self,
            queue::add_submission(&slug, entry, blobs, limits, audit)
        )
    }

    async fn claim_job(
        &self,
        worker: &str,
        now_ms: i64,
        lease_ms: i64,
    ) -> Result<Option<Job>, StoreError> {
        let worker = worker.to_owned();
        in_tx!(self, queue::claim_job(&worker, now_ms, lease_ms))
    }

    async fn renew_lease(
        &self,
        job: &Job,
        worker: &str,
        until_ms: i64,
    ) -> Result<bool, StoreError> {
        let (job, worker) = (job.clone(), worker.to_owned());
        in_tx!(self, queue::renew_lease(&job, &worker, until_ms))
    }

    async fn finish_job(
        &self,
        job: &Job,
        worker: &str,
        result: JobResult,
    ) -> Result<bool, StoreError> {
        let (job, worker) = (job.clone(), worker.to_owned());
        in_tx!(self, queue::finish_job(&job, &worker, result))
    }

    async fn cancel_job(&self, job: &Job, audit: AuditRow) -> Result<bool, StoreError> {
        let job = job.clone();
        in_tx!(self, queue::cancel_job(&job, audit))
    }

    async fn choose_entry(
        &self,
        slug: &str,
        team: &str,
        entry: i64,
        audit: AuditRow,
    ) -> Result<(), StoreError> {
        let (slug, team) = (slug.to_owned(), team.to_owned());
        in_tx!(self, queue::choose_entry(&slug, &team, entry, audit))
    }

    async fn rotate_owner_token(
        &self,
        slug: &str,
        owner_token_sha256: String,
        audit: AuditRow,
    ) -> Result<(), StoreError> {
        let slug = slug.to_owned();
        in_tx!(
            self,
            boards::rotate_owner_token(&slug, owner_token_sha256, audit)
        )
    }

    async fn delete_board(&self, slug: &str) -> Result<(), StoreError> {
        let slug = slug.to_owned();
        in_tx!(self, boards::delete_board(&slug))
    }

    async fn signing_key(&self, fresh: [u8; 32], now_ms: i64) -> Result<[u8; 32], StoreError> {
        in_tx!(self, keys::signing_key(fresh, now_ms))
    }

    async fn add_webhook(
        &self,
        hook: WebhookRow,
        leaders: String,
        audit: AuditRow,
    ) -> Result<i64, StoreError> {
        in_tx!(self, hooks::add_webhook(hook, leaders, audit))
    }

    async fn webhooks(&self, slug: &str) -> Result<Vec<WebhookRow>, StoreError> {
        let slug = slug.to_owned();
        on_conn!(self, hooks::webhooks(&slug))
    }

    async fn delete_webhook(
        &self,
        slug: &str,
        id: i64,
        audit: AuditRow,
    ) -> Result<bool, StoreError> {
        let slug = slug.to_owned();
        in_tx!(self, hooks::delete_webhook(&slug, id, audit))
    }

    async fn leaders(&self, slug: &str) -> Result<Option<String>, StoreError> {
        let slug = slug.to_owned();
        on_conn!(self, hooks::leaders(&slug))
    }

    async fn enqueue_events(
        &self,
        slug: &str,
        expected_leaders: Option<String>,
        leaders: String,
        events: Vec<(String, String)>,
        now_ms: i64,
    ) -> Result<usize, StoreError> {
        let slug = slug.to_owned();
        in_tx!(
            self,
            hooks::enqueue(&slug, expected_leaders, leaders, events, now_ms)
        )
    }

    async fn claim_delivery(
        &self,
        now_ms: i64,
        lease_until_ms: i64,
    ) -> Result<Option<DueDelivery>, StoreError> {
        in_tx!(self, hooks::claim_delivery(now_ms, lease_until_ms))
    }

    async fn record_delivery(
        &self,
        id: i64,
        attempt: Attempt,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        in_tx!(self, hooks::record_delivery(id, attempt, now_ms))
    }

    async fn deliveries(&self, slug: &str, limit: i64) -> Result<Vec<DeliveryRow>, StoreError> {
        let slug = slug.to_owned();
        on_conn!(self, hooks::deliveries(&slug, limit))
    }

    async fn put_share(&self, share: ShareRow) -> Result<(), StoreError> {
        in_tx!(self, shares::put_share(share))
    }

    async fn share(&self, id: &str) -> Result<Option<ShareRow>, StoreError> {
        let id = id.to_owned();
        on_conn!(self, shares::share(&id))
    }

    async fn share_info(&self, id: &str) -> Result<Option<ShareInfo>, StoreError> {
        let id = id.to_owned();
        on_conn!(self, shares::share_info(&id))
    }

    async fn delete_share(&self, id: &str) -> Result<bool, StoreError> {
        let id = id.to_owned();
        in_tx!(self, shares::delete_share(&id))
    }

    async fn purge_shares(&self, now_ms: i64) -> Result<u64, StoreError> {
        in_tx!(self, shares::purge_shares(now_ms))
    }
}
