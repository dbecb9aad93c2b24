//! The PostgreSQL [`Store`] (`scorebench serve --db postgres://user@host:port/db`), so several
//! server processes serve the same boards.
//!
//! tokio-postgres (the maintained async driver of the rust-postgres project) through a
//! deadpool-postgres pool of [`POOL_SIZE`] connections; no TLS (a database on loopback or a
//! private network; `sslmode=require` is refused at connect). Migrations are numbered like the
//! SQLite ones and run under a transaction-scoped advisory lock, so servers starting together
//! migrate once. Entry numbers come from `UPDATE lb_board … RETURNING next_entry`, which locks
//! the board's row until commit: concurrent submissions from several servers get distinct
//! numbers. Blobs are inserted in hash order (no lock-order deadlocks).

use std::collections::{BTreeMap, HashMap};
use std::str::FromStr;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Transaction};
use tokio_postgres::NoTls;

use super::{
    AuditRow, Blob, BoardEdit, BoardRow, BoardSummary, EntryRow, FileRef, IntervalRow, Job,
    JobResult, Limits, MAX_ATTEMPTS, ShareInfo, ShareRow, Store, StoreError, TeamRow,
    anonymous_error, anonymous_sql, board_bytes_sql, bytes_error, json_text, parse_json,
    quota_error, quota_sql, sorted_blobs,
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

async fn put_blobs(tx: &Transaction<'_>, blobs: Vec<Blob>) -> Result<(), StoreError> {
    let stmt = tx
        .prepare_cached(
            "INSERT INTO lb_blob (sha256, size_bytes, bytes) VALUES ($1, $2, $3)
             ON CONFLICT (sha256) DO NOTHING",
        )
        .await
        .map_err(pg)?;
    for b in sorted_blobs(blobs) {
        tx.execute(&stmt, &[&b.sha256, &(b.bytes.len() as i64), &b.bytes])
            .await
            .map_err(pg)?;
    }
    Ok(())
}

async fn put_audit(tx: &Transaction<'_>, slug: &str, audit: &AuditRow) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO lb_audit (slug, at_ms, actor, action, entry_id, detail_json)
         VALUES ($1, $2, $3, $4, $5, $6)",
        &[
            &slug,
            &audit.at_ms,
            &audit.actor,
            &audit.action,
            &audit.entry,
            &json_text(&audit.detail),
        ],
    )
    .await
    .map_err(pg)?;
    Ok(())
}

fn file_ref(row: &tokio_postgres::Row) -> (i64, FileRef) {
    (
        row.get(0),
        FileRef {
            name: row.get(1),
            role: row.get(2),
            sha256: row.get(3),
            size_bytes: row.get::<_, i64>(4) as u64,
        },
    )
}

const ENTRY_COLUMNS: &str = "id, model, meta_json, status, state, metrics_json, scorer_json, \
                             entry_token_sha256, created_ms, updated_ms, team, reason, attempts, \
                             completions, scores_json, chosen";

fn entry_row(r: &tokio_postgres::Row) -> EntryRow {
    EntryRow {
        id: r.get(0),
        model: r.get(1),
        meta: parse_json(r.get::<_, &str>(2)),
        status: r.get(3),
        state: r.get(4),
        files: Vec::new(),
        metrics_json: r.get(5),
        scorer_json: r.get(6),
        entry_token_sha256: r.get(7),
        created_ms: r.get(8),
        updated_ms: r.get(9),
        team: r.get(10),
        reason: r.get(11),
        attempts: r.get(12),
        completions: r.get(13),
        scores_json: r.get(14),
        chosen: r.get(15),
    }
}

/// Insert an entry with the board's next number (shared by `add_entry` and `add_submission`).
/// Refuse the insert when one of `limits` is used up. The board's row lock orders concurrent
/// submissions (from any server), so the counts cannot be stale.
async fn check_limits(
    tx: &Transaction<'_>,
    slug: &str,
    limits: &Limits,
    blobs: &[Blob],
    lock: bool,
) -> Result<(), StoreError> {
    if limits.is_empty() {
        return Ok(());
    }
    // The insert's check locks; the early, read-only one does not wait behind it.
    if lock {
        tx.execute(
            "SELECT 1 FROM lb_board WHERE slug = $1 FOR UPDATE",
            &[&slug],
        )
        .await
        .map_err(pg)?;
    }
    if let Some(q) = &limits.quota {
        let (sql, key) = quota_sql(q, '$');
        let row = tx
            .query_one(&sql, &[&slug, &key, &q.since_ms])
            .await
            .map_err(pg)?;
        if let Some(e) = quota_error(q, row.get(0), row.get(1)) {
            return Err(e);
        }
    }
    if let Some(a) = &limits.anonymous {
        let row = tx
            .query_one(&anonymous_sql('$'), &[&slug, &a.client, &a.since_ms])
            .await
            .map_err(pg)?;
        if let Some(e) = anonymous_error(a, row.get(0), row.get(1)) {
            return Err(e);
        }
    }
    if let Some(cap) = limits.max_board_bytes {
        let held: i64 = tx
            .query_one(&board_bytes_sql('$'), &[&slug])
            .await
            .map_err(pg)?
            .get(0);
        let mut new = 0i64;
        let mut seen = std::collections::HashSet::new();
        for blob in blobs.iter().filter(|b| seen.insert(b.sha256.as_str())) {
            let known: bool = tx
                .query_one(
                    "SELECT EXISTS (SELECT 1 FROM lb_entry_file WHERE slug = $1 AND sha256 = $2)
                        OR EXISTS (SELECT 1 FROM lb_board_file WHERE slug = $1 AND sha256 = $2)",
                    &[&slug, &blob.sha256],
                )
                .await
                .map_err(pg)?
                .get(0);
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

async fn insert_entry(
    tx: &Transaction<'_>,
    slug: &str,
    entry: &EntryRow,
    report_json: Option<String>,
    blobs: Vec<Blob>,
    submitter: Option<&str>,
    audit: &mut AuditRow,
) -> Result<i64, StoreError> {
    let Some(row) = tx
        .query_opt(
            "UPDATE lb_board SET next_entry = next_entry + 1 WHERE slug = $1
             RETURNING next_entry",
            &[&slug],
        )
        .await
        .map_err(pg)?
    else {
        return Err(StoreError::NotFound(format!("no board `{slug}`")));
    };
    let id: i64 = row.get(0);
    put_blobs(tx, blobs).await?;
    tx.execute(
        "INSERT INTO lb_entry (slug, id, model, meta_json, status, state, metrics_json,
            report_json, scorer_json, entry_token_sha256, created_ms, updated_ms, team, chosen,
            submitter)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
        &[
            &slug,
            &id,
            &entry.model,
            &json_text(&entry.meta),
            &entry.status,
            &entry.state,
            &entry.metrics_json,
            &report_json,
            &entry.scorer_json,
            &entry.entry_token_sha256,
            &entry.created_ms,
            &entry.updated_ms,
            &entry.team,
            &entry.chosen,
            &submitter,
        ],
    )
    .await
    .map_err(pg)?;
    for (i, f) in entry.files.iter().enumerate() {
        tx.execute(
            "INSERT INTO lb_entry_file (slug, entry_id, position, name, role, sha256)
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[&slug, &id, &(i as i64), &f.name, &f.role, &f.sha256],
        )
        .await
        .map_err(pg)?;
    }
    audit.entry = Some(id);
    put_audit(tx, slug, audit).await?;
    Ok(id)
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
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg)?;
        let inserted = tx
            .execute(
                "INSERT INTO lb_board (slug, title, description, benchmark, variant,
                    primary_metric, metrics_json, owner_token_sha256, created_ms, updated_ms,
                    competition_json, description_html)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
                 ON CONFLICT (slug) DO NOTHING",
                &[
                    &board.slug,
                    &board.title,
                    &board.description,
                    &board.benchmark,
                    &board.variant,
                    &board.primary_metric,
                    &json_text(&board.metrics),
                    &board.owner_token_sha256,
                    &board.created_ms,
                    &board.updated_ms,
                    &board.competition,
                    &board.description_html,
                ],
            )
            .await
            .map_err(pg)?;
        if inserted == 0 {
            return Err(StoreError::Conflict(format!(
                "a board `{}` exists already",
                board.slug
            )));
        }
        put_blobs(&tx, blobs).await?;
        for (i, f) in board.gold.iter().enumerate() {
            tx.execute(
                "INSERT INTO lb_board_file (slug, position, name, role, sha256)
                 VALUES ($1, $2, $3, $4, $5)",
                &[&board.slug, &(i as i64), &f.name, &f.role, &f.sha256],
            )
            .await
            .map_err(pg)?;
        }
        put_audit(&tx, &board.slug, &audit).await?;
        tx.commit().await.map_err(pg)
    }

    async fn board(&self, slug: &str) -> Result<Option<BoardRow>, StoreError> {
        let client = self.client().await?;
        let Some(r) = client
            .query_opt(
                "SELECT slug, title, description, benchmark, variant, primary_metric,
                    metrics_json, owner_token_sha256, created_ms, updated_ms, competition_json,
                    description_html
                 FROM lb_board WHERE slug = $1",
                &[&slug],
            )
            .await
            .map_err(pg)?
        else {
            return Ok(None);
        };
        let gold = client
            .query(
                "SELECT f.position, f.name, f.role, f.sha256, b.size_bytes
                 FROM lb_board_file f JOIN lb_blob b ON b.sha256 = f.sha256
                 WHERE f.slug = $1 ORDER BY f.position",
                &[&slug],
            )
            .await
            .map_err(pg)?
            .iter()
            .map(|row| file_ref(row).1)
            .collect();
        Ok(Some(BoardRow {
            slug: r.get(0),
            title: r.get(1),
            description: r.get(2),
            benchmark: r.get(3),
            variant: r.get(4),
            primary_metric: r.get(5),
            metrics: parse_json(r.get::<_, &str>(6)),
            gold,
            owner_token_sha256: r.get(7),
            created_ms: r.get(8),
            updated_ms: r.get(9),
            competition: r.get(10),
            description_html: r.get(11),
        }))
    }

    async fn boards(&self) -> Result<Vec<BoardSummary>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                "SELECT b.slug, b.title, b.benchmark, b.created_ms,
                    (SELECT count(*) FROM lb_entry e WHERE e.slug = b.slug AND e.state = 'visible')
                 FROM lb_board b ORDER BY b.created_ms DESC, b.slug",
                &[],
            )
            .await
            .map_err(pg)?;
        Ok(rows
            .iter()
            .map(|r| BoardSummary {
                slug: r.get(0),
                title: r.get(1),
                benchmark: r.get(2),
                created_ms: r.get(3),
                entries: r.get(4),
            })
            .collect())
    }

    async fn edit_board(
        &self,
        slug: &str,
        edit: BoardEdit,
        audit: AuditRow,
    ) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg)?;
        let n = tx
            .execute(
                "UPDATE lb_board SET title = $2, description = $3, primary_metric = $4,
                    metrics_json = $5, updated_ms = $6, description_html = $7
                 WHERE slug = $1",
                &[
                    &slug,
                    &edit.title,
                    &edit.description,
                    &edit.primary_metric,
                    &json_text(&edit.metrics),
                    &audit.at_ms,
                    &edit.description_html,
                ],
            )
            .await
            .map_err(pg)?;
        if n == 0 {
            return Err(StoreError::NotFound(format!("no board `{slug}`")));
        }
        tx.execute("DELETE FROM lb_interval WHERE slug = $1", &[&slug])
            .await
            .map_err(pg)?;
        put_audit(&tx, slug, &audit).await?;
        tx.commit().await.map_err(pg)
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
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg)?;
        check_limits(&tx, slug, &limits, &blobs, true).await?;
        let id = insert_entry(
            &tx,
            slug,
            &entry,
            report_json,
            blobs,
            limits.client(),
            &mut audit,
        )
        .await?;
        tx.commit().await.map_err(pg)?;
        Ok(id)
    }

    async fn entries(&self, slug: &str) -> Result<Vec<EntryRow>, StoreError> {
        let client = self.client().await?;
        let mut entries: Vec<EntryRow> = client
            .query(
                &format!("SELECT {ENTRY_COLUMNS} FROM lb_entry WHERE slug = $1 ORDER BY id"),
                &[&slug],
            )
            .await
            .map_err(pg)?
            .iter()
            .map(entry_row)
            .collect();
        let mut by_id: HashMap<i64, Vec<FileRef>> = HashMap::new();
        for row in client
            .query(
                "SELECT f.entry_id, f.name, f.role, f.sha256, b.size_bytes
                 FROM lb_entry_file f JOIN lb_blob b ON b.sha256 = f.sha256
                 WHERE f.slug = $1 ORDER BY f.entry_id, f.position",
                &[&slug],
            )
            .await
            .map_err(pg)?
        {
            let (id, f) = file_ref(&row);
            by_id.entry(id).or_default().push(f);
        }
        for e in &mut entries {
            e.files = by_id.remove(&e.id).unwrap_or_default();
        }
        Ok(entries)
    }

    async fn entry(&self, slug: &str, id: i64) -> Result<Option<EntryRow>, StoreError> {
        let client = self.client().await?;
        let Some(row) = client
            .query_opt(
                &format!("SELECT {ENTRY_COLUMNS} FROM lb_entry WHERE slug = $1 AND id = $2"),
                &[&slug, &id],
            )
            .await
            .map_err(pg)?
        else {
            return Ok(None);
        };
        let mut entry = entry_row(&row);
        entry.files = client
            .query(
                "SELECT f.entry_id, f.name, f.role, f.sha256, b.size_bytes
                 FROM lb_entry_file f JOIN lb_blob b ON b.sha256 = f.sha256
                 WHERE f.slug = $1 AND f.entry_id = $2 ORDER BY f.position",
                &[&slug, &id],
            )
            .await
            .map_err(pg)?
            .iter()
            .map(|r| file_ref(r).1)
            .collect();
        Ok(Some(entry))
    }

    async fn entry_report(&self, slug: &str, id: i64) -> Result<Option<String>, StoreError> {
        let client = self.client().await?;
        Ok(client
            .query_opt(
                "SELECT report_json FROM lb_entry WHERE slug = $1 AND id = $2",
                &[&slug, &id],
            )
            .await
            .map_err(pg)?
            .and_then(|r| r.get::<_, Option<String>>(0)))
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
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg)?;
        let n = tx
            .execute(
                "UPDATE lb_entry SET model = $3, meta_json = $4, state = $5, updated_ms = $6
                 WHERE slug = $1 AND id = $2",
                &[&slug, &id, &model, &json_text(&meta), &state, &audit.at_ms],
            )
            .await
            .map_err(pg)?;
        if n == 0 {
            return Err(StoreError::NotFound(format!("no entry {id} on `{slug}`")));
        }
        put_audit(&tx, slug, &audit).await?;
        tx.commit().await.map_err(pg)
    }

    async fn delete_entry(&self, slug: &str, id: i64, audit: AuditRow) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg)?;
        // Lock the board row first, as add_entry does.
        tx.execute(
            "SELECT 1 FROM lb_board WHERE slug = $1 FOR UPDATE",
            &[&slug],
        )
        .await
        .map_err(pg)?;
        let mut hashes: Vec<String> = tx
            .query(
                "DELETE FROM lb_entry_file WHERE slug = $1 AND entry_id = $2 RETURNING sha256",
                &[&slug, &id],
            )
            .await
            .map_err(pg)?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let n = tx
            .execute(
                "DELETE FROM lb_entry WHERE slug = $1 AND id = $2",
                &[&slug, &id],
            )
            .await
            .map_err(pg)?;
        if n == 0 {
            return Err(StoreError::NotFound(format!("no entry {id} on `{slug}`")));
        }
        tx.execute(
            "DELETE FROM lb_interval WHERE slug = $1 AND entry_id = $2",
            &[&slug, &id],
        )
        .await
        .map_err(pg)?;
        hashes.sort();
        hashes.dedup();
        for h in &hashes {
            tx.execute(
                "DELETE FROM lb_blob WHERE sha256 = $1
                   AND NOT EXISTS (SELECT 1 FROM lb_entry_file WHERE sha256 = $1)
                   AND NOT EXISTS (SELECT 1 FROM lb_board_file WHERE sha256 = $1)",
                &[h],
            )
            .await
            .map_err(pg)?;
        }
        put_audit(&tx, slug, &audit).await?;
        tx.commit().await.map_err(pg)
    }

    async fn blob(&self, sha256: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let client = self.client().await?;
        Ok(client
            .query_opt("SELECT bytes FROM lb_blob WHERE sha256 = $1", &[&sha256])
            .await
            .map_err(pg)?
            .map(|r| r.get(0)))
    }

    async fn board_has_file(
        &self,
        slug: &str,
        sha256: &str,
        any_entry: bool,
    ) -> Result<bool, StoreError> {
        let client = self.client().await?;
        Ok(client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM lb_board_file WHERE slug = $1 AND sha256 = $2)
                     OR EXISTS (SELECT 1 FROM lb_entry_file f JOIN lb_entry e
                                  ON e.slug = f.slug AND e.id = f.entry_id
                                WHERE f.slug = $1 AND f.sha256 = $2
                                  AND ($3 OR e.state = 'visible'))",
                &[&slug, &sha256, &any_entry],
            )
            .await
            .map_err(pg)?
            .get(0))
    }

    async fn audit(&self, slug: &str) -> Result<Vec<AuditRow>, StoreError> {
        let client = self.client().await?;
        Ok(client
            .query(
                "SELECT at_ms, actor, action, entry_id, detail_json FROM lb_audit
                 WHERE slug = $1 ORDER BY id",
                &[&slug],
            )
            .await
            .map_err(pg)?
            .iter()
            .map(|r| AuditRow {
                at_ms: r.get(0),
                actor: r.get(1),
                action: r.get(2),
                entry: r.get(3),
                detail: serde_json::from_str(r.get::<_, &str>(4))
                    .unwrap_or(serde_json::Value::Null),
            })
            .collect())
    }

    async fn intervals(
        &self,
        slug: &str,
        leader: i64,
        key: &str,
    ) -> Result<HashMap<i64, String>, StoreError> {
        let client = self.client().await?;
        Ok(client
            .query(
                "SELECT entry_id, result_json FROM lb_interval
                 WHERE slug = $1 AND leader_id = $2 AND key = $3",
                &[&slug, &leader, &key],
            )
            .await
            .map_err(pg)?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect())
    }

    async fn put_intervals(
        &self,
        slug: &str,
        mut rows: Vec<IntervalRow>,
    ) -> Result<(), StoreError> {
        // A fixed row order: two servers caching the same intervals cannot deadlock.
        rows.sort_by_key(|r| r.entry);
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg)?;
        let stmt = tx
            .prepare_cached(
                "INSERT INTO lb_interval (slug, entry_id, leader_id, key, result_json)
                 VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (slug, leader_id, key, entry_id)
                 DO UPDATE SET result_json = excluded.result_json",
            )
            .await
            .map_err(pg)?;
        for r in rows {
            tx.execute(&stmt, &[&slug, &r.entry, &r.leader, &r.key, &r.result_json])
                .await
                .map_err(pg)?;
        }
        tx.commit().await.map_err(pg)
    }

    async fn set_competition(
        &self,
        slug: &str,
        competition_json: String,
        audit: AuditRow,
    ) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg)?;
        let n = tx
            .execute(
                "UPDATE lb_board SET competition_json = $2, updated_ms = $3 WHERE slug = $1",
                &[&slug, &competition_json, &audit.at_ms],
            )
            .await
            .map_err(pg)?;
        if n == 0 {
            return Err(StoreError::NotFound(format!("no board `{slug}`")));
        }
        put_audit(&tx, slug, &audit).await?;
        tx.commit().await.map_err(pg)
    }

    async fn add_team(&self, slug: &str, team: TeamRow, audit: AuditRow) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg)?;
        let n = tx
            .execute(
                "INSERT INTO lb_team (slug, name, token_sha256, created_ms)
                 VALUES ($1, $2, $3, $4) ON CONFLICT (slug, name) DO NOTHING",
                &[&slug, &team.name, &team.token_sha256, &team.created_ms],
            )
            .await
            .map_err(pg)?;
        if n == 0 {
            return Err(StoreError::Conflict(format!(
                "`{slug}` has a team `{}` already",
                team.name
            )));
        }
        put_audit(&tx, slug, &audit).await?;
        tx.commit().await.map_err(pg)
    }

    async fn teams(&self, slug: &str) -> Result<Vec<TeamRow>, StoreError> {
        let client = self.client().await?;
        Ok(client
            .query(
                "SELECT name, token_sha256, created_ms FROM lb_team WHERE slug = $1
                 ORDER BY created_ms, name",
                &[&slug],
            )
            .await
            .map_err(pg)?
            .iter()
            .map(|r| TeamRow {
                name: r.get(0),
                token_sha256: r.get(1),
                created_ms: r.get(2),
            })
            .collect())
    }

    async fn check_limits(&self, slug: &str, limits: Limits) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg)?;
        check_limits(&tx, slug, &limits, &[], false).await
    }

    async fn add_submission(
        &self,
        slug: &str,
        entry: EntryRow,
        blobs: Vec<Blob>,
        limits: Limits,
        mut audit: AuditRow,
    ) -> Result<i64, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg)?;
        check_limits(&tx, slug, &limits, &blobs, true).await?;
        let id = insert_entry(&tx, slug, &entry, None, blobs, limits.client(), &mut audit).await?;
        tx.commit().await.map_err(pg)?;
        Ok(id)
    }

    async fn claim_job(
        &self,
        worker: &str,
        now_ms: i64,
        lease_ms: i64,
    ) -> Result<Option<Job>, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg)?;
        tx.execute(
            "UPDATE lb_entry e SET status = 'failed', lease_owner = NULL,
                completions = completions + 1, updated_ms = $1,
                reason = 'the scorer stopped before finishing ' || attempts || ' times'
             FROM (SELECT slug, id FROM lb_entry
                   WHERE status = 'scoring' AND lease_until_ms < $1 AND attempts >= $2
                   FOR UPDATE SKIP LOCKED) d
             WHERE e.slug = d.slug AND e.id = d.id",
            &[&now_ms, &MAX_ATTEMPTS],
        )
        .await
        .map_err(pg)?;
        let row = tx
            .query_opt(
                "UPDATE lb_entry e SET status = 'scoring', lease_owner = $1, lease_until_ms = $2,
                    attempts = e.attempts + 1, updated_ms = $3
                 FROM (SELECT slug, id FROM lb_entry
                       WHERE status = 'queued' OR (status = 'scoring' AND lease_until_ms < $3)
                       ORDER BY created_ms, slug, id LIMIT 1
                       FOR UPDATE SKIP LOCKED) j
                 WHERE e.slug = j.slug AND e.id = j.id
                 RETURNING e.slug, e.id",
                &[&worker, &(now_ms + lease_ms), &now_ms],
            )
            .await
            .map_err(pg)?;
        tx.commit().await.map_err(pg)?;
        Ok(row.map(|r| Job {
            slug: r.get(0),
            entry: r.get(1),
        }))
    }

    async fn renew_lease(
        &self,
        job: &Job,
        worker: &str,
        until_ms: i64,
    ) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let n = client
            .execute(
                "UPDATE lb_entry SET lease_until_ms = $4
                 WHERE slug = $1 AND id = $2 AND status = 'scoring' AND lease_owner = $3",
                &[&job.slug, &job.entry, &worker, &until_ms],
            )
            .await
            .map_err(pg)?;
        Ok(n == 1)
    }

    async fn finish_job(
        &self,
        job: &Job,
        worker: &str,
        result: JobResult,
    ) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let n = client
            .execute(
                "UPDATE lb_entry SET status = $4, reason = $5, metrics_json = $6,
                    scores_json = $7, report_json = $8, updated_ms = $9, lease_owner = NULL,
                    completions = completions + 1
                 WHERE slug = $1 AND id = $2 AND status = 'scoring' AND lease_owner = $3",
                &[
                    &job.slug,
                    &job.entry,
                    &worker,
                    &result.status,
                    &result.reason,
                    &result.metrics_json,
                    &result.scores_json,
                    &result.report_json,
                    &result.at_ms,
                ],
            )
            .await
            .map_err(pg)?;
        Ok(n == 1)
    }

    async fn cancel_job(&self, job: &Job, audit: AuditRow) -> Result<bool, StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg)?;
        let n = tx
            .execute(
                "UPDATE lb_entry SET status = 'cancelled', updated_ms = $3
                 WHERE slug = $1 AND id = $2 AND status = 'queued'",
                &[&job.slug, &job.entry, &audit.at_ms],
            )
            .await
            .map_err(pg)?;
        if n == 1 {
            put_audit(&tx, &job.slug, &audit).await?;
        }
        tx.commit().await.map_err(pg)?;
        Ok(n == 1)
    }

    async fn choose_entry(
        &self,
        slug: &str,
        team: &str,
        entry: i64,
        audit: AuditRow,
    ) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg)?;
        tx.execute(
            "UPDATE lb_entry SET chosen = (id = $3) WHERE slug = $1 AND team = $2",
            &[&slug, &team, &entry],
        )
        .await
        .map_err(pg)?;
        put_audit(&tx, slug, &audit).await?;
        tx.commit().await.map_err(pg)
    }

    async fn put_share(&self, share: ShareRow) -> Result<(), StoreError> {
        let client = self.client().await?;
        let n = client
            .execute(
                "INSERT INTO shares (id, bytes, size_bytes, created_ms, expires_ms,
                     delete_token_sha256)
                 VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING",
                &[
                    &share.id,
                    &share.bytes,
                    &(share.bytes.len() as i64),
                    &share.created_ms,
                    &share.expires_ms,
                    &share.delete_token_sha256,
                ],
            )
            .await
            .map_err(pg)?;
        if n == 0 {
            return Err(StoreError::Conflict(format!(
                "a share `{}` exists already",
                share.id
            )));
        }
        Ok(())
    }

    async fn share(&self, id: &str) -> Result<Option<ShareRow>, StoreError> {
        let client = self.client().await?;
        Ok(client
            .query_opt(
                "SELECT id, bytes, created_ms, expires_ms, delete_token_sha256
                 FROM shares WHERE id = $1",
                &[&id],
            )
            .await
            .map_err(pg)?
            .map(|r| ShareRow {
                id: r.get(0),
                bytes: r.get(1),
                created_ms: r.get(2),
                expires_ms: r.get(3),
                delete_token_sha256: r.get(4),
            }))
    }

    async fn share_info(&self, id: &str) -> Result<Option<ShareInfo>, StoreError> {
        let client = self.client().await?;
        Ok(client
            .query_opt(
                "SELECT id, size_bytes, created_ms, expires_ms, delete_token_sha256
                 FROM shares WHERE id = $1",
                &[&id],
            )
            .await
            .map_err(pg)?
            .map(|r| ShareInfo {
                id: r.get(0),
                size_bytes: r.get(1),
                created_ms: r.get(2),
                expires_ms: r.get(3),
                delete_token_sha256: r.get(4),
            }))
    }

    async fn delete_share(&self, id: &str) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let n = client
            .execute("DELETE FROM shares WHERE id = $1", &[&id])
            .await
            .map_err(pg)?;
        Ok(n > 0)
    }

    async fn purge_shares(&self, now_ms: i64) -> Result<u64, StoreError> {
        let client = self.client().await?;
        client
            .execute("DELETE FROM shares WHERE expires_ms <= $1", &[&now_ms])
            .await
            .map_err(pg)
    }
}
