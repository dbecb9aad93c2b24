//! Leaderboard and share-link storage: one interface ([`Store`]), its SQL written once
//! (`sql.rs`: every operation generic over a connection, the dialect differences in one enum),
//! and two backends that bind values, read cells and run transactions:
//!
//! - [`sqlite::SqliteStore`]: the embedded default, in the `--db` file (WAL, `synchronous=FULL`,
//!   its own numbered migrations in table `lb_schema`, beside the tables of [`crate::db`]).
//! - [`postgres::PgStore`]: `scorebench serve --db postgres://…`, so several server processes
//!   serve the same boards (tokio-postgres through a deadpool pool; migrations under an advisory
//!   lock).
//!
//! [`backend::open`] chooses by the `--db` argument. `server/tests/all/store.rs` runs one list of
//! operations against both.
//!
//! What is stored:
//! ```text
//! lb_blob        sha256 → size            every gold and prediction file and full report, once
//!                                         (content-addressed: the bytes are in crate::files)
//! lb_blob_hold   sha256, holder → until   a writer's claim on a file (store/sql/files.rs)
//! lb_board       slug, title, …           owner token as its SHA-256 only; next entry number
//! lb_board_file  slug, position → blob    the gold files
//! lb_entry       slug, id                 model, metadata, metrics, report's sha256, entry token hash
//! lb_entry_file  slug, id, position → blob
//! lb_audit       slug, time, actor, action, entry, detail   every change
//! lb_interval    slug, entry, leader, key → bootstrap interval (a cache)
//! lb_team        slug, name → team token as its SHA-256 only (competitions, issue 14)
//! shares         id → ciphertext, created/expires, delete token as its SHA-256 only (issue 14)
//! lb_key         name → the seed of the Ed25519 key that signs entry receipts (issue 27)
//! ```
//! A share (`crate::share`) is bytes the browser encrypted: the server never holds its key.
//! A competition board (`lb_board.competition_json` set) keeps its submissions in `lb_entry` as
//! a queue: `status` queued → scoring → done | failed | cancelled, a lease (`lease_owner`,
//! `lease_until_ms`) per claimed job, `attempts`, and `completions` (how many times a result was
//! committed: 1 for every done or failed job, the exactly-once check).
//! A write returns only after its transaction committed (SQLite `synchronous=FULL`, PostgreSQL
//! `synchronous_commit` on), so an acknowledged submission survives `kill -9`.

use std::collections::{BTreeMap, HashMap};

pub use workbench::wire::{BoardSummary, State, Status};

pub mod backend;
pub mod postgres;
mod sql;
pub mod sqlite;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The slug is taken.
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    NotFound(String),
    /// A quota or hourly limit is used up.
    #[error("{0}")]
    Quota(String),
    /// The board's files would pass its bytes cap.
    #[error("{0}")]
    Full(String),
    /// The database failed (the message is for the log, not the client).
    #[error("database: {0}")]
    Backend(String),
}

/// A stored file: its name as submitted (base name), role, SHA-256 and size.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileRef {
    pub name: String,
    pub role: String,
    pub sha256: String,
    pub size_bytes: u64,
}

/// A file in the file store ([`crate::files::Files`]) a write refers to, by its SHA-256 (hex):
/// the writer holds it ([`Store::hold_blobs`]) and wrote its bytes before the write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blob {
    pub sha256: String,
    pub size_bytes: i64,
}

/// Where an entry's full report is: a file of the file store, or (written before issue 29 and
/// not moved yet) text in the database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoredReport {
    File(String),
    Text(String),
}

/// A board as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardRow {
    pub slug: String,
    pub title: String,
    /// Markdown, rendered through a sanitiser.
    pub description: String,
    pub benchmark: String,
    /// The variant's report name (`official`, `corrected`, `paper`).
    pub variant: String,
    pub primary_metric: String,
    /// The metrics shown, in order.
    pub metrics: Vec<String>,
    pub gold: Vec<FileRef>,
    pub owner_token_sha256: String,
    pub created_ms: i64,
    pub updated_ms: i64,
    /// The competition settings (JSON, `leaderboard::competition::Competition`); `None` for an
    /// open board.
    pub competition: Option<String>,
    /// The description's sanitised HTML, rendered when it was written
    /// (`leaderboard::markup::description_html`); `None` for boards written before it was stored.
    pub description_html: Option<String>,
}

/// The editable fields of a board.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardEdit {
    pub title: String,
    pub description: String,
    /// Its sanitised HTML.
    pub description_html: String,
    pub primary_metric: String,
    pub metrics: Vec<String>,
}

/// An entry as stored (without its report, see [`Store::entry_report`]).
#[derive(Debug, Clone, PartialEq)]
pub struct EntryRow {
    /// The entry number within its board (1, 2, …).
    pub id: i64,
    pub model: String,
    pub meta: BTreeMap<String, String>,
    pub status: Status,
    pub state: State,
    pub files: Vec<FileRef>,
    /// The overall scalar metrics at full precision, as JSON (`{"score": 0.8, "x": null}`).
    pub metrics_json: String,
    /// `{"version", "commit"}` of the scorer.
    pub scorer_json: String,
    pub entry_token_sha256: Option<String>,
    pub created_ms: i64,
    pub updated_ms: i64,
    /// Competition boards: the submitting team (`None` on a board without teams).
    pub team: Option<String>,
    /// Why a queued job failed.
    pub reason: Option<String>,
    /// Times a worker claimed the job.
    pub attempts: i64,
    /// Times a result was committed (1 once done or failed).
    pub completions: i64,
    /// `{"public": {…}, "private": {…}}`: the metrics on the board's public and private shares.
    pub scores_json: Option<String>,
    /// The team's chosen entry (boards where the chosen entry counts).
    pub chosen: bool,
}

impl EntryRow {
    /// A new entry with no queue state.
    pub fn new(model: String, status: Status, now_ms: i64) -> Self {
        Self {
            id: 0,
            model,
            meta: BTreeMap::new(),
            status,
            state: State::Visible,
            files: vec![],
            metrics_json: "{}".into(),
            scorer_json: "null".into(),
            entry_token_sha256: None,
            created_ms: now_ms,
            updated_ms: now_ms,
            team: None,
            reason: None,
            attempts: 0,
            completions: 0,
            scores_json: None,
            chosen: false,
        }
    }
}

/// A team of a competition board.
#[derive(Debug, Clone, PartialEq)]
pub struct TeamRow {
    pub name: String,
    pub token_sha256: String,
    pub created_ms: i64,
}

/// A competition's quota an insert must respect: submissions of one submitter (a team, or
/// without teams one client address) that are not failed or cancelled, in total and since
/// `since_ms`.
#[derive(Debug, Clone, PartialEq)]
pub struct Quota {
    /// Whose submissions count.
    pub who: Submitter,
    pub daily: Option<i64>,
    pub total: Option<i64>,
    pub since_ms: i64,
}

/// Who submitted, for counting.
#[derive(Debug, Clone, PartialEq)]
pub enum Submitter {
    /// A competition team (`lb_entry.team`).
    Team(String),
    /// An anonymous client: a hash of its address, per board (`lb_entry.submitter`; never shown).
    Client(String),
}

impl Submitter {
    fn column_and_key(&self) -> (&'static str, &str) {
        match self {
            Submitter::Team(name) => ("team", name),
            Submitter::Client(hash) => ("submitter", hash),
        }
    }

    fn label(&self) -> String {
        match self {
            Submitter::Team(name) => format!("team `{name}`"),
            Submitter::Client(_) => "this client address".into(),
        }
    }
}

/// The limits an insert must respect, counted in the same transaction as the insert (SQLite's
/// single writer; the board's row lock on PostgreSQL), so concurrent submissions from any
/// server cannot all pass.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Limits {
    /// A competition's quota.
    pub quota: Option<Quota>,
    /// Anonymous submission: the client (stored with the entry) and its hourly limits.
    pub anonymous: Option<Anonymous>,
    /// Bytes the board's distinct files (gold and every entry's) may take, new ones included.
    pub max_board_bytes: Option<i64>,
}

/// Hourly limits of anonymous submission, counted over entries created since `since_ms`.
#[derive(Debug, Clone, PartialEq)]
pub struct Anonymous {
    /// A hash of the client's address, per board.
    pub client: String,
    /// Submissions one client may make to the board per hour.
    pub per_client: i64,
    /// Anonymous submissions the board takes per hour from all clients.
    pub per_board: i64,
    pub since_ms: i64,
}

impl Limits {
    pub fn is_empty(&self) -> bool {
        self.quota.is_none() && self.anonymous.is_none() && self.max_board_bytes.is_none()
    }

    /// The submitter hash stored with the entry.
    pub fn client(&self) -> Option<&str> {
        self.anonymous
            .as_ref()
            .map(|a| a.client.as_str())
            .or(match &self.quota {
                Some(Quota {
                    who: Submitter::Client(hash),
                    ..
                }) => Some(hash.as_str()),
                _ => None,
            })
    }
}

/// The result a worker commits for a job it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct JobResult {
    /// `Done` or `Failed`.
    pub status: Status,
    pub reason: Option<String>,
    pub metrics_json: String,
    pub scores_json: Option<String>,
    /// The full report, a file held by the worker.
    pub report: Option<Blob>,
    pub at_ms: i64,
}

/// A claimed job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    pub slug: String,
    pub entry: i64,
}

/// Claims after which a job whose lease keeps expiring fails (its worker died each time).
pub const MAX_ATTEMPTS: i64 = 5;

/// The statuses a quota counts.
pub(crate) const COUNTED: &str = "status NOT IN ('failed', 'cancelled')";

/// The SQL counting a quota's submissions (total, since `$3`), parameters: slug, key, since.
pub(crate) fn quota_sql(q: &Quota) -> (String, String) {
    let (column, key) = q.who.column_and_key();
    (
        format!(
            "SELECT count(*), coalesce(sum(CASE WHEN created_ms >= $3 THEN 1 ELSE 0 END), 0)
             FROM lb_entry WHERE slug = $1 AND {column} = $2 AND {COUNTED}"
        ),
        key.to_string(),
    )
}

pub(crate) fn quota_error(q: &Quota, total: i64, today: i64) -> Option<StoreError> {
    if let Some(t) = q.total.filter(|&t| total >= t) {
        return Some(StoreError::Quota(format!(
            "{} has used its total quota of {t} submissions",
            q.who.label()
        )));
    }
    if let Some(d) = q.daily.filter(|&d| today >= d) {
        return Some(StoreError::Quota(format!(
            "{} has used its daily quota of {d} submissions (UTC day)",
            q.who.label()
        )));
    }
    None
}

/// The SQL counting a board's anonymous submissions since `$3`: from the client `$2`, and all.
pub(crate) fn anonymous_sql() -> &'static str {
    "SELECT coalesce(sum(CASE WHEN submitter = $2 THEN 1 ELSE 0 END), 0), count(*)
     FROM lb_entry WHERE slug = $1 AND submitter IS NOT NULL AND created_ms >= $3"
}

pub(crate) fn anonymous_error(a: &Anonymous, of_client: i64, all: i64) -> Option<StoreError> {
    if of_client >= a.per_client {
        return Some(StoreError::Quota(format!(
            "this client address has sent {of_client} submissions to this board in the last \
             hour, the most it takes (the server's --anon-submits-per-hour): try again later"
        )));
    }
    if all >= a.per_board {
        return Some(StoreError::Quota(format!(
            "this board has taken {all} anonymous submissions in the last hour, the most it \
             takes (the server's --board-submits-per-hour): try again later"
        )));
    }
    None
}

/// The SQL of the bytes a board's distinct files take (parameter: slug).
pub(crate) fn board_bytes_sql() -> &'static str {
    "SELECT CAST(coalesce(sum(size_bytes), 0) AS BIGINT) FROM lb_blob WHERE sha256 IN (
        SELECT sha256 FROM lb_entry_file WHERE slug = $1
        UNION SELECT sha256 FROM lb_board_file WHERE slug = $1)"
}

/// Whether `new` bytes more fit under the cap.
pub(crate) fn bytes_error(cap: i64, held: i64, new: i64) -> Option<StoreError> {
    (held + new > cap).then(|| {
        StoreError::Full(format!(
            "this board's files take {held} bytes; {new} more would pass its cap of {cap} \
             bytes (the server's --board-max-mb)"
        ))
    })
}

/// One recorded change.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct AuditRow {
    pub at_ms: i64,
    /// `owner`, `entry` (the entry's token), `team` (a competition team's token) or `public`
    /// (create, submit without a token).
    pub actor: String,
    pub action: String,
    pub entry: Option<i64>,
    /// JSON: what changed.
    pub detail: serde_json::Value,
}

/// A cached bootstrap result for (entry, leader, key); `key` names the metric, variant, seed and
/// resamples.
#[derive(Debug, Clone, PartialEq)]
pub struct IntervalRow {
    pub entry: i64,
    pub leader: i64,
    pub key: String,
    pub result_json: String,
}

/// A private share link's stored bytes (ciphertext only: the key stays in the link's fragment).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShareRow {
    /// Random, URL-safe (base64url of 16 bytes).
    pub id: String,
    pub bytes: Vec<u8>,
    pub created_ms: i64,
    pub expires_ms: i64,
    /// The delete token's SHA-256 (hex); the token itself is shown once and never stored.
    pub delete_token_sha256: String,
}

/// A share without its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShareInfo {
    pub id: String,
    pub size_bytes: i64,
    pub created_ms: i64,
    pub expires_ms: i64,
    pub delete_token_sha256: String,
}

/// The leaderboard store. Every method is one transaction.
#[async_trait::async_trait]
pub trait Store: Send + Sync {
    /// `sqlite` or `postgres`.
    fn kind(&self) -> &'static str;
    /// A new board with its gold files; [`StoreError::Conflict`] when the slug is taken.
    async fn create_board(
        &self,
        board: BoardRow,
        blobs: Vec<Blob>,
        audit: AuditRow,
    ) -> Result<(), StoreError>;
    async fn board(&self, slug: &str) -> Result<Option<BoardRow>, StoreError>;
    async fn boards(&self) -> Result<Vec<BoardSummary>, StoreError>;
    async fn edit_board(
        &self,
        slug: &str,
        edit: BoardEdit,
        audit: AuditRow,
    ) -> Result<(), StoreError>;
    /// Store an entry with the next number of its board (returned); the audit row gets it.
    /// `limits` are checked in the same transaction ([`StoreError::Quota`], [`StoreError::Full`]).
    /// Replace the owner token's hash (the old token stops working).
    async fn rotate_owner_token(
        &self,
        slug: &str,
        owner_token_sha256: String,
        audit: AuditRow,
    ) -> Result<(), StoreError>;
    /// Delete the board and everything of it (its files stay until [`Store::mark_sweep`]).
    async fn delete_board(&self, slug: &str) -> Result<(), StoreError>;
    /// `report`: the full report's file.
    async fn add_entry(
        &self,
        slug: &str,
        entry: EntryRow,
        report: Option<Blob>,
        blobs: Vec<Blob>,
        limits: Limits,
        audit: AuditRow,
    ) -> Result<i64, StoreError>;
    /// Every entry of the board (all states), in entry order.
    async fn entries(&self, slug: &str) -> Result<Vec<EntryRow>, StoreError>;
    async fn entry(&self, slug: &str, id: i64) -> Result<Option<EntryRow>, StoreError>;
    /// The full report (with samples) of a verified entry.
    async fn entry_report(&self, slug: &str, id: i64) -> Result<Option<StoredReport>, StoreError>;
    /// Replace the entry's model, metadata and state.
    async fn update_entry(
        &self,
        slug: &str,
        id: i64,
        model: String,
        meta: BTreeMap<String, String>,
        state: State,
        audit: AuditRow,
    ) -> Result<(), StoreError>;
    /// Delete the entry, its file links and cached intervals (its files stay until
    /// [`Store::mark_sweep`]).
    async fn delete_entry(&self, slug: &str, id: i64, audit: AuditRow) -> Result<(), StoreError>;

    // The file store's bookkeeping (issue 29; the protocol: `store/sql/files.rs`).

    /// Hold `blobs` for `holder` until `until_ms` (their rows exist afterwards); false while a
    /// collector is deleting one of them (try again).
    async fn hold_blobs(
        &self,
        holder: &str,
        blobs: Vec<Blob>,
        now_ms: i64,
        until_ms: i64,
    ) -> Result<bool, StoreError>;
    async fn release_holds(&self, holder: &str) -> Result<(), StoreError>;
    /// Whether a holder whose name starts with `prefix` holds the file now.
    async fn held(&self, sha256: &str, prefix: &str, now_ms: i64) -> Result<bool, StoreError>;
    /// The bytes of the files holders whose names start with `prefix` hold now.
    async fn held_upload_bytes(&self, prefix: &str, now_ms: i64) -> Result<i64, StoreError>;
    /// The bytes the board's distinct files take (its gold and every entry's).
    async fn board_bytes(&self, slug: &str) -> Result<i64, StoreError>;
    /// Delete the holds that expired; how many.
    async fn purge_holds(&self, now_ms: i64) -> Result<u64, StoreError>;
    /// Up to `limit` files nothing refers to or holds.
    async fn unreferenced_blobs(&self, now_ms: i64, limit: i64) -> Result<Vec<String>, StoreError>;
    /// Mark an unreferenced, unheld file as being deleted; false when it is not (any more).
    async fn mark_sweep(&self, sha256: &str, now_ms: i64) -> Result<bool, StoreError>;
    /// Forget a file whose bytes were deleted under the mark made at `mark_ms`.
    async fn end_sweep(&self, sha256: &str, mark_ms: i64) -> Result<bool, StoreError>;
    /// Up to `limit` files whose bytes are still in the database.
    async fn legacy_blobs(&self, limit: i64) -> Result<Vec<String>, StoreError>;
    /// A file's bytes still in the database.
    async fn legacy_blob(&self, sha256: &str) -> Result<Option<Vec<u8>>, StoreError>;
    /// The file's bytes are in the file store: drop the database's copy.
    async fn blob_moved(&self, sha256: &str) -> Result<(), StoreError>;
    /// Up to `limit` entries whose report is still in the database: (slug, id).
    async fn legacy_reports(&self, limit: i64) -> Result<Vec<(String, i64)>, StoreError>;
    /// An entry's report still in the database.
    async fn legacy_report(&self, slug: &str, id: i64) -> Result<Option<String>, StoreError>;
    /// The entry's report is the (held) file `sha256` now.
    async fn report_moved(&self, slug: &str, id: i64, sha256: &str) -> Result<(), StoreError>;
    /// Reclaim the space freed by moved bytes (SQLite: VACUUM; PostgreSQL: nothing, its
    /// autovacuum does).
    async fn compact(&self) -> Result<(), StoreError>;
    /// Whether `sha256` is a file of this board (gold or an entry's).
    /// The board's gold has the file, or an entry has it that is visible (any entry with
    /// `any_entry`: the owner's view).
    async fn board_has_file(
        &self,
        slug: &str,
        sha256: &str,
        any_entry: bool,
    ) -> Result<bool, StoreError>;
    async fn audit(&self, slug: &str) -> Result<Vec<AuditRow>, StoreError>;
    /// Cached intervals against `leader` under `key`, by entry.
    async fn intervals(
        &self,
        slug: &str,
        leader: i64,
        key: &str,
    ) -> Result<HashMap<i64, String>, StoreError>;
    async fn put_intervals(&self, slug: &str, rows: Vec<IntervalRow>) -> Result<(), StoreError>;

    // Competitions (issue 14).

    /// Replace the board's competition settings.
    async fn set_competition(
        &self,
        slug: &str,
        competition_json: String,
        audit: AuditRow,
    ) -> Result<(), StoreError>;
    /// A new team; [`StoreError::Conflict`] when the name is taken.
    async fn add_team(&self, slug: &str, team: TeamRow, audit: AuditRow) -> Result<(), StoreError>;
    async fn teams(&self, slug: &str) -> Result<Vec<TeamRow>, StoreError>;
    /// Whether an entry without files could be added under `limits` now: a read-only early
    /// refusal, before a submission's files are read and scored (the insert checks again).
    async fn check_limits(&self, slug: &str, limits: Limits) -> Result<(), StoreError>;
    /// [`Store::add_entry`] of a queued competition submission (no report yet).
    async fn add_submission(
        &self,
        slug: &str,
        entry: EntryRow,
        blobs: Vec<Blob>,
        limits: Limits,
        audit: AuditRow,
    ) -> Result<i64, StoreError>;
    /// Claim the oldest queued job, or a scoring one whose lease expired, for `worker` until
    /// `now_ms + lease_ms` (PostgreSQL: `FOR UPDATE SKIP LOCKED`). Jobs whose lease expired
    /// after [`MAX_ATTEMPTS`] claims fail instead.
    async fn claim_job(
        &self,
        worker: &str,
        now_ms: i64,
        lease_ms: i64,
    ) -> Result<Option<Job>, StoreError>;
    /// Extend `worker`'s lease; false when the worker no longer holds the job.
    async fn renew_lease(&self, job: &Job, worker: &str, until_ms: i64)
    -> Result<bool, StoreError>;
    /// Commit the result of a job `worker` holds; false (nothing written) when it lost the
    /// lease.
    async fn finish_job(
        &self,
        job: &Job,
        worker: &str,
        result: JobResult,
    ) -> Result<bool, StoreError>;
    /// Cancel a queued job; false when it is no longer queued.
    async fn cancel_job(&self, job: &Job, audit: AuditRow) -> Result<bool, StoreError>;
    /// Make `entry` the team's chosen one (and no other of the team's).
    async fn choose_entry(
        &self,
        slug: &str,
        team: &str,
        entry: i64,
        audit: AuditRow,
    ) -> Result<(), StoreError>;

    /// The seed of the key that signs receipts: the stored one, or `fresh` stored now when
    /// there is none (the first writer wins when several processes start at once).
    async fn signing_key(&self, fresh: [u8; 32], now_ms: i64) -> Result<[u8; 32], StoreError>;

    // Webhooks (issue 27).

    /// Add a hook; `leaders` is the board's leading group now (events compare with it).
    async fn add_webhook(
        &self,
        hook: WebhookRow,
        leaders: String,
        audit: AuditRow,
    ) -> Result<i64, StoreError>;
    async fn webhooks(&self, slug: &str) -> Result<Vec<WebhookRow>, StoreError>;
    /// Delete a hook and its deliveries; false when there was none.
    async fn delete_webhook(
        &self,
        slug: &str,
        id: i64,
        audit: AuditRow,
    ) -> Result<bool, StoreError>;
    /// The leading group last announced (`None`: never).
    async fn leaders(&self, slug: &str) -> Result<Option<String>, StoreError>;
    /// Queue `events` (name, JSON body) for each hook of `slug` and set the leading group to
    /// `leaders`; a `leader.changed` event is queued only by the caller that moved the group
    /// from `expected_leaders` (several servers noticing one change queue it once).
    async fn enqueue_events(
        &self,
        slug: &str,
        expected_leaders: Option<String>,
        leaders: String,
        events: Vec<(String, String)>,
        now_ms: i64,
    ) -> Result<usize, StoreError>;
    /// Claim the oldest due delivery until `lease_until_ms`.
    async fn claim_delivery(
        &self,
        now_ms: i64,
        lease_until_ms: i64,
    ) -> Result<Option<DueDelivery>, StoreError>;
    async fn record_delivery(
        &self,
        id: i64,
        attempt: Attempt,
        now_ms: i64,
    ) -> Result<(), StoreError>;
    /// A board's latest `limit` deliveries, newest first (the delivery log).
    async fn deliveries(&self, slug: &str, limit: i64) -> Result<Vec<DeliveryRow>, StoreError>;

    // Private share links (issue 14).

    /// Store a share; [`StoreError::Conflict`] when the id is taken.
    async fn put_share(&self, share: ShareRow) -> Result<(), StoreError>;
    /// A share with its bytes (expired or not: the caller decides).
    async fn share(&self, id: &str) -> Result<Option<ShareRow>, StoreError>;
    /// A share without its bytes.
    async fn share_info(&self, id: &str) -> Result<Option<ShareInfo>, StoreError>;
    /// Delete a share; false when there was none.
    async fn delete_share(&self, id: &str) -> Result<bool, StoreError>;
    /// Delete every share that expired at or before `now_ms`; how many.
    async fn purge_shares(&self, now_ms: i64) -> Result<u64, StoreError>;
}

/// A board's webhook: each delivery's body is signed with `secret` (HMAC-SHA256).
#[derive(Debug, Clone)]
pub struct WebhookRow {
    pub id: i64,
    pub slug: String,
    pub url: String,
    pub secret: String,
    pub created_ms: i64,
}

/// A delivery claimed for an attempt.
#[derive(Debug, Clone)]
pub struct DueDelivery {
    pub id: i64,
    pub url: String,
    pub secret: String,
    pub event: String,
    pub body: String,
    /// Attempts made before this one.
    pub attempts: i64,
}

/// How one attempt went: delivered (a 2xx answer), else retried at `retry_at_ms` or, without
/// it, given up.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    pub delivered: bool,
    pub status: Option<i64>,
    pub error: Option<String>,
    pub retry_at_ms: Option<i64>,
}

/// A line of the delivery log.
#[derive(Debug, Clone)]
pub struct DeliveryRow {
    pub id: i64,
    pub hook_id: i64,
    pub url: String,
    pub event: String,
    /// `pending` | `delivered` | `failed`.
    pub state: String,
    pub attempts: i64,
    pub next_ms: i64,
    pub last_status: Option<i64>,
    pub last_error: Option<String>,
    pub created_ms: i64,
    pub updated_ms: i64,
}

/// Blobs sorted by hash and deduplicated (a fixed lock order for concurrent writers).
pub(crate) fn sorted_blobs(mut blobs: Vec<Blob>) -> Vec<Blob> {
    blobs.sort_by(|a, b| a.sha256.cmp(&b.sha256));
    blobs.dedup_by(|a, b| a.sha256 == b.sha256);
    blobs
}

pub(crate) fn json_text<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".into())
}

pub(crate) fn parse_json<T: serde::de::DeserializeOwned + Default>(text: &str) -> T {
    serde_json::from_str(text).unwrap_or_default()
}
