//! The PostgreSQL [`Store`] (`scorebench serve --db postgres://user@host:port/db`), so several
//! server processes serve the same boards.
//!
//! tokio-postgres (the maintained async driver of the rust-postgres project) through a
//! deadpool-postgres pool of [`POOL_SIZE`] connections; no TLS (a database on loopback or a
//! private network; `sslmode=require` is refused at connect). Migrations are numbered like the
//! SQLite ones and run under a transaction-scoped advisory lock, so servers starting together
//! migrate once. Entry numbers come from `UPDATE lb_board … RETURNING next_entry`, which locks
//! the board's row until commit: concurrent submissions from several servers get distinct
//! numbers. Blobs are inserted in hash order (no lock-order deadlocks). The SQL of every
//! operation is [`super::sql`]'s; this module binds values, reads cells and runs transactions.

use std::collections::{BTreeMap, HashMap};
use std::str::FromStr;

use deadpool_postgres::{GenericClient, Manager, ManagerConfig, Pool, RecyclingMethod};
use tokio_postgres::NoTls;
use tokio_postgres::types::{IsNull, ToSql, Type, to_sql_checked};

use super::sql::conn::{Cell, Conn, Dialect, Param, Row};
use super::sql::{boards, entries, files, hooks, keys, queue, shares};
use super::{
    Attempt, AuditRow, Blob, BoardEdit, BoardRow, BoardSummary, DeliveryRow, DueDelivery, EntryRow,
    IntervalRow, Job, JobResult, Limits, ShareInfo, ShareRow, State, Store, StoreError,
    StoredReport, TeamRow, WebhookRow,
};

/// Connections per server process.
pub const POOL_SIZE: usize = 8;

/// `pg_advisory_xact_lock` key of the migrations ("lb-migr").
const MIGRATION_LOCK: i64 = 0x006c_622d_6d69_6772;

const MIGRATIONS: &[&str] = &[
    // 1: boards, entries, files, audit, interval cache (as the SQLite schema).
    "CREATE TABLE lb_blob (
        sha256      TEXT PRIMARY KEY,
        size_bytes  BIGINT NOT NULL,
        bytes       BYTEA NOT NULL
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
        next_entry          BIGINT NOT NULL DEFAULT 0,
        created_ms          BIGINT NOT NULL,
        updated_ms          BIGINT NOT NULL
    );
    CREATE TABLE lb_board_file (
        slug      TEXT NOT NULL REFERENCES lb_board (slug) ON DELETE CASCADE,
        position  BIGINT NOT NULL,
        name      TEXT NOT NULL,
        role      TEXT NOT NULL,
        sha256    TEXT NOT NULL REFERENCES lb_blob (sha256),
        PRIMARY KEY (slug, position)
    );
    CREATE TABLE lb_entry (
        slug                TEXT NOT NULL REFERENCES lb_board (slug) ON DELETE CASCADE,
        id                  BIGINT NOT NULL,
        model               TEXT NOT NULL,
        meta_json           TEXT NOT NULL,
        status              TEXT NOT NULL,
        state               TEXT NOT NULL,
        metrics_json        TEXT NOT NULL,
        report_json         TEXT,
        scorer_json         TEXT NOT NULL,
        entry_token_sha256  TEXT,
        created_ms          BIGINT NOT NULL,
        updated_ms          BIGINT NOT NULL,
        PRIMARY KEY (slug, id)
    );
    CREATE TABLE lb_entry_file (
        slug      TEXT NOT NULL,
        entry_id  BIGINT NOT NULL,
        position  BIGINT NOT NULL,
        name      TEXT NOT NULL,
        role      TEXT NOT NULL,
        sha256    TEXT NOT NULL REFERENCES lb_blob (sha256),
        PRIMARY KEY (slug, entry_id, position),
        FOREIGN KEY (slug, entry_id) REFERENCES lb_entry (slug, id) ON DELETE CASCADE
    );
    CREATE INDEX lb_entry_file_sha256 ON lb_entry_file (sha256);
    CREATE INDEX lb_board_file_sha256 ON lb_board_file (sha256);
    CREATE TABLE lb_audit (
        id           BIGSERIAL PRIMARY KEY,
        slug         TEXT NOT NULL,
        at_ms        BIGINT NOT NULL,
        actor        TEXT NOT NULL,
        action       TEXT NOT NULL,
        entry_id     BIGINT,
        detail_json  TEXT NOT NULL
    );
    CREATE INDEX lb_audit_slug ON lb_audit (slug, id);
    CREATE TABLE lb_interval (
        slug         TEXT NOT NULL,
        entry_id     BIGINT NOT NULL,
        leader_id    BIGINT NOT NULL,
        key          TEXT NOT NULL,
        result_json  TEXT NOT NULL,
        PRIMARY KEY (slug, leader_id, key, entry_id)
    );",
    // 2: competitions (issue 14): settings, teams, the scoring queue in lb_entry.
    "ALTER TABLE lb_board ADD COLUMN competition_json TEXT;
    ALTER TABLE lb_entry ADD COLUMN team TEXT;
    ALTER TABLE lb_entry ADD COLUMN reason TEXT;
    ALTER TABLE lb_entry ADD COLUMN lease_owner TEXT;
    ALTER TABLE lb_entry ADD COLUMN lease_until_ms BIGINT;
    ALTER TABLE lb_entry ADD COLUMN attempts BIGINT NOT NULL DEFAULT 0;
    ALTER TABLE lb_entry ADD COLUMN completions BIGINT NOT NULL DEFAULT 0;
    ALTER TABLE lb_entry ADD COLUMN scores_json TEXT;
    ALTER TABLE lb_entry ADD COLUMN chosen BOOLEAN NOT NULL DEFAULT FALSE;
    CREATE INDEX lb_entry_queue ON lb_entry (status, created_ms)
        WHERE status IN ('queued', 'scoring');
    CREATE INDEX lb_entry_team ON lb_entry (slug, team, created_ms);
    CREATE TABLE lb_team (
        slug          TEXT NOT NULL REFERENCES lb_board (slug) ON DELETE CASCADE,
        name          TEXT NOT NULL,
        token_sha256  TEXT NOT NULL,
        created_ms    BIGINT NOT NULL,
        PRIMARY KEY (slug, name)
    );",
    // 3: private share links (issue 14): ciphertext only, the key never reaches the server.
    "CREATE TABLE shares (
        id                   TEXT PRIMARY KEY,
        bytes                BYTEA NOT NULL,
        size_bytes           BIGINT NOT NULL,
        created_ms           BIGINT NOT NULL,
        expires_ms           BIGINT NOT NULL,
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
        secret      BYTEA NOT NULL,
        created_ms  BIGINT NOT NULL
    );",
    // 6: webhooks (issue 27): a board's hooks, their deliveries (the delivery log), and the
    // leading group last announced.
    "CREATE TABLE lb_webhook (
        id          BIGSERIAL PRIMARY KEY,
        slug        TEXT NOT NULL REFERENCES lb_board (slug) ON DELETE CASCADE,
        url         TEXT NOT NULL,
        secret      TEXT NOT NULL,
        created_ms  BIGINT NOT NULL
    );
    CREATE TABLE lb_delivery (
        id          BIGSERIAL PRIMARY KEY,
        hook_id     BIGINT NOT NULL REFERENCES lb_webhook (id) ON DELETE CASCADE,
        slug        TEXT NOT NULL,
        event       TEXT NOT NULL,
        body        TEXT NOT NULL,
        state       TEXT NOT NULL,
        attempts    BIGINT NOT NULL,
        next_ms     BIGINT NOT NULL,
        last_status BIGINT,
        last_error  TEXT,
        created_ms  BIGINT NOT NULL,
        updated_ms  BIGINT NOT NULL
    );
    CREATE INDEX lb_delivery_due ON lb_delivery (state, next_ms);
    CREATE INDEX lb_delivery_board ON lb_delivery (slug, id);
    ALTER TABLE lb_board ADD COLUMN leaders TEXT;",
    // 7: files and reports outside the database (issue 29, `crate::files`). `in_files`: the
    // bytes are in the file store (rows of older versions move there on start,
    // `crate::files::migrate`); `sweep_ms`: a collector is deleting the file; holds: writers'
    // claims (`store/sql/files.rs`).
    "ALTER TABLE lb_blob ADD COLUMN in_files BOOLEAN NOT NULL DEFAULT FALSE;
    ALTER TABLE lb_blob ADD COLUMN sweep_ms BIGINT;
    ALTER TABLE lb_entry ADD COLUMN report_sha256 TEXT;
    CREATE INDEX lb_entry_report ON lb_entry (report_sha256);
    CREATE TABLE lb_blob_hold (
        sha256    TEXT NOT NULL,
        holder    TEXT NOT NULL,
        until_ms  BIGINT NOT NULL,
        PRIMARY KEY (sha256, holder)
    );
    CREATE INDEX lb_blob_hold_holder ON lb_blob_hold (holder);",
    // 8: the database's copy of a file's bytes renamed, so a server of an older version still
    // running on a shared database fails loudly instead of reading the empty bytes of a moved
    // file as the file (stop every older server before starting this version).
    "ALTER TABLE lb_blob RENAME COLUMN bytes TO legacy_bytes;",
];

pub struct PgStore {
    pool: Pool,
}

fn backend(e: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(e.to_string())
}

/// A PostgreSQL error with its server-side detail (`Display` alone says only "db error").
fn pg(e: tokio_postgres::Error) -> StoreError {
    match e.as_db_error() {
        Some(db) => StoreError::Backend(format!("{}: {}", db.code().code(), db.message())),
        None => StoreError::Backend(e.to_string()),
    }
}

impl PgStore {
    /// Connect (the URL is never logged: it may hold a password) and migrate.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let config = tokio_postgres::Config::from_str(url)
            .map_err(|e| StoreError::Backend(format!("bad PostgreSQL URL: {e}")))?;
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .build()
            .map_err(backend)?;
        let store = Self { pool };
        store.migrate().await?;
        Ok(store)
    }

    async fn client(&self) -> Result<deadpool_postgres::Object, StoreError> {
        self.pool
            .get()
            .await
            .map_err(|e| StoreError::Backend(format!("cannot reach PostgreSQL: {e}")))
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg)?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .await
            .map_err(pg)?;
        tx.batch_execute("CREATE TABLE IF NOT EXISTS lb_schema (version BIGINT NOT NULL)")
            .await
            .map_err(pg)?;
        let current: Option<i64> = tx
            .query_one("SELECT max(version) FROM lb_schema", &[])
            .await
            .map_err(pg)?
            .get(0);
        for (index, sql) in MIGRATIONS
            .iter()
            .enumerate()
            .skip(current.unwrap_or(0) as usize)
        {
            tx.batch_execute(sql).await.map_err(|e| {
                StoreError::Backend(format!("leaderboard migration {}: {}", index + 1, e))
            })?;
            tx.execute(
                "INSERT INTO lb_schema (version) VALUES ($1)",
                &[&(index as i64 + 1)],
            )
            .await
            .map_err(pg)?;
        }
        tx.commit().await.map_err(pg)
    }
}

/// A pooled connection or a transaction on one, as [`sql`] sees it.
struct PgConn<'a, G>(&'a G);

impl<G: GenericClient> Conn for PgConn<'_, G> {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    async fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, StoreError> {
        let stmt = self.0.prepare_cached(sql).await.map_err(pg)?;
        let params: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as _).collect();
        self.0.execute(&stmt, &params).await.map_err(pg)
    }

    async fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, StoreError> {
        let stmt = self.0.prepare_cached(sql).await.map_err(pg)?;
        let params: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as _).collect();
        self.0
            .query(&stmt, &params)
            .await
            .map_err(pg)?
            .iter()
            .map(cells)
            .collect()
    }
}

/// A parameter as the column's type wants it (an integer into INT4/INT2 when it fits).
impl ToSql for Param<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut bytes::BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        let refused = || format!("cannot bind {self:?} to a {ty} parameter").into();
        match *self {
            Param::Null => Ok(IsNull::Yes),
            Param::Int(v) if *ty == Type::INT4 => i32::try_from(v)?.to_sql(ty, out),
            Param::Int(v) if *ty == Type::INT2 => i16::try_from(v)?.to_sql(ty, out),
            Param::Int(v) if <i64 as ToSql>::accepts(ty) => v.to_sql(ty, out),
            Param::Bool(v) if <bool as ToSql>::accepts(ty) => v.to_sql(ty, out),
            Param::Text(v) if <&str as ToSql>::accepts(ty) => v.to_sql(ty, out),
            Param::Bytes(v) if <&[u8] as ToSql>::accepts(ty) => v.to_sql(ty, out),
            _ => Err(refused()),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

/// A row's cells by their column types.
fn cells(row: &tokio_postgres::Row) -> Result<Row, StoreError> {
    let mut out = Vec::with_capacity(row.len());
    for (i, column) in row.columns().iter().enumerate() {
        let ty = column.type_();
        let cell = if *ty == Type::INT8 {
            row.try_get::<_, Option<i64>>(i).map(|v| v.map(Cell::Int))
        } else if *ty == Type::INT4 {
            row.try_get::<_, Option<i32>>(i)
                .map(|v| v.map(|v| Cell::Int(v.into())))
        } else if *ty == Type::INT2 {
            row.try_get::<_, Option<i16>>(i)
                .map(|v| v.map(|v| Cell::Int(v.into())))
        } else if *ty == Type::BOOL {
            row.try_get::<_, Option<bool>>(i).map(|v| v.map(Cell::Bool))
        } else if *ty == Type::BYTEA {
            row.try_get::<_, Option<Vec<u8>>>(i)
                .map(|v| v.map(Cell::Bytes))
        } else if <String as tokio_postgres::types::FromSql>::accepts(ty) {
            row.try_get::<_, Option<String>>(i)
                .map(|v| v.map(Cell::Text))
        } else {
            return Err(StoreError::Backend(format!(
                "column {}: type {ty} is not read",
                column.name()
            )));
        };
        out.push(cell.map_err(pg)?.unwrap_or(Cell::Null));
    }
    Ok(Row(out))
}

/// `$m::$op(conn, args…)` in a transaction, committed when it succeeds (rolled back when the
/// transaction is dropped).
macro_rules! in_tx {
    ($self:ident, $m:ident::$op:ident($($arg:expr),* $(,)?)) => {{
        let mut client = $self.client().await?;
        let tx = client.transaction().await.map_err(pg)?;
        let out = $m::$op(&mut PgConn(&tx), $($arg),*).await?;
        tx.commit().await.map_err(pg)?;
        Ok(out)
    }};
}

/// `$m::$op(conn, args…)` on a pooled connection (reads, and writes of one statement).
macro_rules! on_client {
    ($self:ident, $m:ident::$op:ident($($arg:expr),* $(,)?)) => {{
        let client = $self.client().await?;
        $m::$op(&mut PgConn(&client), $($arg),*).await
    }};
}

#[async_trait::async_trait]
impl Store for PgStore {
    fn kind(&self) -> &'static str {
        "postgres"
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
        on_client!(self, boards::board(slug))
    }

    async fn boards(&self) -> Result<Vec<BoardSummary>, StoreError> {
        on_client!(self, boards::boards())
    }

    async fn edit_board(
        &self,
        slug: &str,
        edit: BoardEdit,
        audit: AuditRow,
    ) -> Result<(), StoreError> {
        in_tx!(self, boards::edit_board(slug, edit, audit))
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
        in_tx!(
            self,
            entries::add_entry(slug, entry, report, blobs, limits, audit)
        )
    }

    async fn entries(&self, slug: &str) -> Result<Vec<EntryRow>, StoreError> {
        on_client!(self, entries::entries(slug))
    }

    async fn entry(&self, slug: &str, id: i64) -> Result<Option<EntryRow>, StoreError> {
        on_client!(self, entries::entry(slug, id))
    }

    async fn entry_report(&self, slug: &str, id: i64) -> Result<Option<StoredReport>, StoreError> {
        on_client!(self, entries::entry_report(slug, id))
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
        in_tx!(
            self,
            entries::update_entry(slug, id, model, meta, state, audit)
        )
    }

    async fn delete_entry(&self, slug: &str, id: i64, audit: AuditRow) -> Result<(), StoreError> {
        in_tx!(self, entries::delete_entry(slug, id, audit))
    }

    async fn hold_blobs(
        &self,
        holder: &str,
        blobs: Vec<Blob>,
        now_ms: i64,
        until_ms: i64,
    ) -> Result<bool, StoreError> {
        in_tx!(self, files::hold_blobs(holder, blobs, now_ms, until_ms))
    }

    async fn release_holds(&self, holder: &str) -> Result<(), StoreError> {
        in_tx!(self, files::release_holds(holder))
    }

    async fn held(&self, sha256: &str, prefix: &str, now_ms: i64) -> Result<bool, StoreError> {
        on_client!(self, files::held(sha256, prefix, now_ms))
    }

    async fn held_upload_bytes(&self, prefix: &str, now_ms: i64) -> Result<i64, StoreError> {
        on_client!(self, files::held_upload_bytes(prefix, now_ms))
    }

    async fn board_bytes(&self, slug: &str) -> Result<i64, StoreError> {
        on_client!(self, files::board_bytes(slug))
    }

    async fn purge_holds(&self, now_ms: i64) -> Result<u64, StoreError> {
        in_tx!(self, files::purge_holds(now_ms))
    }

    async fn unreferenced_blobs(&self, now_ms: i64, limit: i64) -> Result<Vec<String>, StoreError> {
        on_client!(self, files::unreferenced_blobs(now_ms, limit))
    }

    async fn mark_sweep(&self, sha256: &str, now_ms: i64) -> Result<bool, StoreError> {
        in_tx!(self, files::mark_sweep(sha256, now_ms))
    }

    async fn end_sweep(&self, sha256: &str, mark_ms: i64) -> Result<bool, StoreError> {
        in_tx!(self, files::end_sweep(sha256, mark_ms))
    }

    async fn legacy_blobs(&self, limit: i64) -> Result<Vec<String>, StoreError> {
        on_client!(self, files::legacy_blobs(limit))
    }

    async fn legacy_blob(&self, sha256: &str) -> Result<Option<Vec<u8>>, StoreError> {
        on_client!(self, files::legacy_blob(sha256))
    }

    async fn blob_moved(&self, sha256: &str) -> Result<(), StoreError> {
        in_tx!(self, files::blob_moved(sha256))
    }

    async fn legacy_reports(&self, limit: i64) -> Result<Vec<(String, i64)>, StoreError> {
        on_client!(self, files::legacy_reports(limit))
    }

    async fn legacy_report(&self, slug: &str, id: i64) -> Result<Option<String>, StoreError> {
        on_client!(self, files::legacy_report(slug, id))
    }

    async fn report_moved(&self, slug: &str, id: i64, sha256: &str) -> Result<(), StoreError> {
        in_tx!(self, files::report_moved(slug, id, sha256))
    }

    async fn compact(&self) -> Result<(), StoreError> {
        Ok(())
    }

    async fn board_has_file(
        &self,
        slug: &str,
        sha256: &str,
        any_entry: bool,
    ) -> Result<bool, StoreError> {
        on_client!(self, boards::board_has_file(slug, sha256, any_entry))
    }

    async fn audit(&self, slug: &str) -> Result<Vec<AuditRow>, StoreError> {
        on_client!(self, boards::audit(slug))
    }

    async fn intervals(
        &self,
        slug: &str,
        leader: i64,
        key: &str,
    ) -> Result<HashMap<i64, String>, StoreError> {
        on_client!(self, boards::intervals(slug, leader, key))
    }

    async fn put_intervals(&self, slug: &str, rows: Vec<IntervalRow>) -> Result<(), StoreError> {
        in_tx!(self, boards::put_intervals(slug, rows))
    }

    async fn set_competition(
        &self,
        slug: &str,
        competition_json: String,
        audit: AuditRow,
    ) -> Result<(), StoreError> {
        in_tx!(self, boards::set_competition(slug, competition_json, audit))
    }

    async fn add_team(&self, slug: &str, team: TeamRow, audit: AuditRow) -> Result<(), StoreError> {
        in_tx!(self, queue::add_team(slug, team, audit))
    }

    async fn teams(&self, slug: &str) -> Result<Vec<TeamRow>, StoreError> {
        on_client!(self, queue::teams(slug))
    }

    async fn check_limits(&self, slug: &str, limits: Limits) -> Result<(), StoreError> {
        in_tx!(self, entries::check_limits(slug, limits))
    }

    async fn add_submission(
        &self,
        slug: &str,
        entry: EntryRow,
        blobs: Vec<Blob>,
        limits: Limits,
        audit: AuditRow,
    ) -> Result<i64, StoreError> {
        in_tx!(
            self,
            queue::add_submission(slug, entry, blobs, limits, audit)
        )
    }

    async fn claim_job(
        &self,
        worker: &str,
        now_ms: i64,
        lease_ms: i64,
    ) -> Result<Option<Job>, StoreError> {
        in_tx!(self, queue::claim_job(worker, now_ms, lease_ms))
    }

    async fn renew_lease(
        &self,
        job: &Job,
        worker: &str,
        until_ms: i64,
    ) -> Result<bool, StoreError> {
        on_client!(self, queue::renew_lease(job, worker, until_ms))
    }

    async fn finish_job(
        &self,
        job: &Job,
        worker: &str,
        result: JobResult,
    ) -> Result<bool, StoreError> {
        on_client!(self, queue::finish_job(job, worker, result))
    }

    async fn cancel_job(&self, job: &Job, audit: AuditRow) -> Result<bool, StoreError> {
        in_tx!(self, queue::cancel_job(job, audit))
    }

    async fn choose_entry(
        &self,
        slug: &str,
        team: &str,
        entry: i64,
        audit: AuditRow,
    ) -> Result<(), StoreError> {
        in_tx!(self, queue::choose_entry(slug, team, entry, audit))
    }

    async fn rotate_owner_token(
        &self,
        slug: &str,
        owner_token_sha256: String,
        audit: AuditRow,
    ) -> Result<(), StoreError> {
        in_tx!(
            self,
            boards::rotate_owner_token(slug, owner_token_sha256, audit)
        )
    }

    async fn delete_board(&self, slug: &str) -> Result<(), StoreError> {
        in_tx!(self, boards::delete_board(slug))
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
        on_client!(self, hooks::webhooks(slug))
    }

    async fn delete_webhook(
        &self,
        slug: &str,
        id: i64,
        audit: AuditRow,
    ) -> Result<bool, StoreError> {
        in_tx!(self, hooks::delete_webhook(slug, id, audit))
    }

    async fn leaders(&self, slug: &str) -> Result<Option<String>, StoreError> {
        on_client!(self, hooks::leaders(slug))
    }

    async fn enqueue_events(
        &self,
        slug: &str,
        expected_leaders: Option<String>,
        leaders: String,
        events: Vec<(String, String)>,
        now_ms: i64,
    ) -> Result<usize, StoreError> {
        in_tx!(
            self,
            hooks::enqueue(slug, expected_leaders, leaders, events, now_ms)
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
        on_client!(self, hooks::deliveries(slug, limit))
    }

    async fn put_share(&self, share: ShareRow) -> Result<(), StoreError> {
        on_client!(self, shares::put_share(share))
    }

    async fn share(&self, id: &str) -> Result<Option<ShareRow>, StoreError> {
        on_client!(self, shares::share(id))
    }

    async fn share_info(&self, id: &str) -> Result<Option<ShareInfo>, StoreError> {
        on_client!(self, shares::share_info(id))
    }

    async fn delete_share(&self, id: &str) -> Result<bool, StoreError> {
        on_client!(self, shares::delete_share(id))
    }

    async fn purge_shares(&self, now_ms: i64) -> Result<u64, StoreError> {
        on_client!(self, shares::purge_shares(now_ms))
    }
}
