//! The leaderboard operations, without HTTP types: create, submit, show, edit, hide, restore,
//! withdraw, delete, import, audit. `api.rs` adapts them to axum; the CLI calls the API.
//!
//! One `impl Boards` per concern: [`boards`] (create, edit, import, audit), [`entries`]
//! (submit, view, act on entries), [`show`] (the ranked board and its bootstrap), [`teams`]
//! (competitions: teams, phases, submissions, the queue's jobs).

use std::sync::Arc;

use bytes::Bytes;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::files::{Files, Held, NewFile};
use crate::leaderboard::dates::now_ms;
use crate::leaderboard::error::{LbError, internal};
use crate::leaderboard::input::Actor;
use crate::leaderboard::limits::{HOUR_MS, Recent, SubmitLimits};
use crate::leaderboard::scoring::{self};
use crate::leaderboard::token;
use crate::store::{AuditRow, BoardRow, EntryRow, FileRef, Store, StoredReport};
use tokio::sync::OwnedSemaphorePermit;
use workbench::detect::Role;
use workbench::session::WorkFile;

mod boards;
mod entries;
mod hooks;
mod show;
mod teams;

/// A stored report as JSON, its `samples` left out unless asked for: skipped while parsing, so
/// an entry page never builds a value per sample (a large entry's samples are most of its
/// report).
fn stored_report(text: &[u8], samples: bool) -> Result<Value, serde_json::Error> {
    if samples {
        return serde_json::from_slice(text);
    }
    struct WithoutSamples(serde_json::Map<String, Value>);
    impl<'de> Deserialize<'de> for WithoutSamples {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Visitor;
            impl<'de> serde::de::Visitor<'de> for Visitor {
                type Value = WithoutSamples;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a report object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<WithoutSamples, A::Error> {
                    let mut out = serde_json::Map::new();
                    while let Some(key) = map.next_key::<String>()? {
                        if key == "samples" {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        } else {
                            let value = map.next_value::<Value>()?;
                            out.insert(key, value);
                        }
                    }
                    Ok(WithoutSamples(out))
                }
            }
            d.deserialize_map(Visitor)
        }
    }
    serde_json::from_slice::<WithoutSamples>(text).map(|r| Value::Object(r.0))
}

/// Intervals computed and stored together by the background bootstrap.
pub const BOOTSTRAP_BATCH: usize = 128;

/// The scorer that made the numbers.
pub fn scorer() -> Value {
    json!({
        "version": env!("CARGO_PKG_VERSION"),
        "commit": option_env!("SCOREBENCH_GIT_COMMIT").unwrap_or("unknown"),
    })
}

/// The leaderboards of one server process.
pub struct Boards {
    pub store: Arc<dyn Store>,
    /// The bytes of the board's files and entries' reports (`crate::files`).
    pub files: Arc<Files>,
    /// Anonymous submission and board size limits.
    pub limits: SubmitLimits,
    /// Wakes this process's queue workers when a submission arrives.
    pub queue_notify: Arc<tokio::sync::Notify>,
    /// One background bootstrap at a time per process (the cores are shared with requests).
    bootstrap_lock: Arc<tokio::sync::Mutex<()>>,
    /// Scoring work running at once in this process (submissions, queue jobs, bootstrap
    /// batches): a scored entry holds its records and samples, so this bounds the memory the
    /// body budget cannot see.
    scoring: Arc<tokio::sync::Semaphore>,
    /// Anonymous submissions scored and refused, per board and client.
    refused: Recent,
    /// Boards created, per client.
    created: Recent,
    /// The seed of the key that signs receipts, read from the store (made there on first use).
    signing: tokio::sync::OnceCell<[u8; 32]>,
    /// Where and how webhooks are delivered.
    pub hooks: crate::leaderboard::hooks::HookConfig,
    /// Wakes this process's webhook deliveries when an event is queued.
    pub hook_notify: Arc<tokio::sync::Notify>,
    /// Uploads arriving at once in this process (each a temporary file growing on disk).
    uploads: Arc<tokio::sync::Semaphore>,
    /// Submissions holding named uploads in memory at once (up to `--max-file-mb` each).
    named: Arc<tokio::sync::Semaphore>,
}

/// Uploads one process takes at once; more wait their turn.
const UPLOADS_AT_ONCE: usize = 2;

fn interval_key(board: &BoardRow) -> String {
    format!(
        "{}|{}|{}|{}",
        board.primary_metric,
        board.variant,
        scoring::BOOTSTRAP_SEED,
        scoring::BOOTSTRAP_RESAMPLES
    )
}

fn audit(actor: &str, action: &str, entry: Option<i64>, detail: Value) -> AuditRow {
    AuditRow {
        at_ms: now_ms(),
        actor: actor.into(),
        action: action.into(),
        entry,
        detail,
    }
}

fn random_seed() -> Result<u64, LbError> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(internal)?;
    Ok(u64::from_le_bytes(bytes))
}

impl Boards {
    pub fn new(store: Arc<dyn Store>, files: Arc<Files>, limits: SubmitLimits) -> Self {
        Self {
            store,
            files,
            limits,
            queue_notify: Arc::new(tokio::sync::Notify::new()),
            bootstrap_lock: Arc::new(tokio::sync::Mutex::new(())),
            scoring: Arc::new(tokio::sync::Semaphore::new(limits.scoring_jobs.max(1))),
            refused: Recent::default(),
            created: Recent::default(),
            signing: tokio::sync::OnceCell::new(),
            hooks: Default::default(),
            hook_notify: Arc::new(tokio::sync::Notify::new()),
            uploads: Arc::new(tokio::sync::Semaphore::new(UPLOADS_AT_ONCE)),
            named: Arc::new(tokio::sync::Semaphore::new(1)),
        }
    }

    /// These boards, delivering webhooks as `hooks` says.
    pub fn with_hooks(mut self, hooks: crate::leaderboard::hooks::HookConfig) -> Self {
        self.hooks = hooks;
        self
    }

    /// The seed of the server's receipt key: the store's, or a new random one it keeps (every
    /// process of a PostgreSQL store signs with the same key).
    async fn signing_seed(&self) -> Result<[u8; 32], LbError> {
        self.signing
            .get_or_try_init(|| async {
                let mut fresh = [0u8; 32];
                getrandom::fill(&mut fresh).map_err(internal)?;
                Ok::<_, LbError>(self.store.signing_key(fresh, now_ms()).await?)
            })
            .await
            .copied()
    }

    /// The public half of the receipt key (`GET /.well-known/scorebench-key`).
    pub async fn public_key(&self) -> Result<workbench::receipt::PublicKey, LbError> {
        Ok(workbench::receipt::public_key(&self.signing_seed().await?))
    }

    /// A turn at scoring ([`Boards::scoring`]), to move into the blocking work.
    async fn scoring_slot(&self) -> Result<OwnedSemaphorePermit, tokio::sync::AcquireError> {
        self.scoring.clone().acquire_owned().await
    }

    pub async fn board(&self, slug: &str) -> Result<BoardRow, LbError> {
        let board = self
            .store
            .board(slug)
            .await?
            .ok_or_else(|| LbError::NotFound(format!("no leaderboard `{slug}`")))?;
        if workbench::registry::get(&board.benchmark).is_none() {
            self.register_spec_of(&board).await;
        }
        Ok(board)
    }

    /// A board of a benchmark defined by a spec carries the spec among its gold files
    /// (`<key>:spec`): registered when this process meets the board first (made by another
    /// server on the same database, or before a restart). A spec that fails is logged; the
    /// operation then says the benchmark is unknown.
    async fn register_spec_of(&self, board: &BoardRow) {
        let role = format!(
            "{}{}",
            board.benchmark,
            workbench::benchmarks::spec::SPEC_ROLE_SUFFIX
        );
        let Some(file) = board.gold.iter().find(|f| f.role == role) else {
            return;
        };
        let registered = match self.blob(&file.sha256).await {
            Ok(bytes) => scoring::register_spec_file(&file.name, &bytes).map(|_| ()),
            Err(e) => Err(scoring::ScoringError(e.to_string())),
        };
        if let Err(e) = registered {
            tracing::warn!(board = %board.slug, "the board's spec: {e}");
        }
    }

    /// The board when `token` is its owner token, else 403.
    async fn owned(&self, slug: &str, token: Option<&str>) -> Result<BoardRow, LbError> {
        let board = self.board(slug).await?;
        match token {
            Some(t) if token::matches(t, &board.owner_token_sha256) => Ok(board),
            Some(_) => Err(LbError::Forbidden(format!(
                "this token is not the owner token of `{slug}`"
            ))),
            None => Err(LbError::Forbidden(format!(
                "the owner token of `{slug}` is required (Authorization: Bearer …)"
            ))),
        }
    }

    /// Create a board; returns (slug, owner token).
    /// The anonymous limits of the client with stored key `client` (`Client::key`) now, and the
    /// board's bytes cap.
    fn anonymous_limits(&self, client: String) -> crate::store::Limits {
        crate::store::Limits {
            quota: None,
            anonymous: Some(crate::store::Anonymous {
                client,
                per_client: self.limits.per_client_hour,
                per_board: self.limits.per_board_hour,
                since_ms: now_ms() - HOUR_MS,
            }),
            max_board_bytes: Some(self.limits.max_board_bytes),
        }
    }

    async fn gold_files(&self, board: &BoardRow) -> Result<Vec<WorkFile>, LbError> {
        let mut out = Vec::new();
        for f in &board.gold {
            let bytes = self.blob(&f.sha256).await?;
            let role = Role::from_key(&f.role).unwrap_or(Role::UNKNOWN);
            out.push(WorkFile::with_role(f.name.clone(), bytes, role));
        }
        Ok(out)
    }

    async fn blob(&self, sha256: &str) -> Result<Vec<u8>, LbError> {
        self.files
            .read(&*self.store, sha256)
            .await?
            .map(Vec::from)
            .ok_or_else(|| LbError::Internal(format!("file {sha256} is missing")))
    }

    /// Hold and write `files` for a write that refers to them; [`Boards::release`] after it.
    async fn write_files(&self, files: Vec<NewFile>) -> Result<Held, LbError> {
        Ok(self.files.write(&*self.store, files).await?)
    }

    /// The end of a write: its holds dropped; unless it `committed`, the files it held
    /// deleted when nothing refers to them.
    async fn release(&self, held: Held, committed: bool) {
        self.files.release(&*self.store, held, committed).await
    }

    /// Delete the files nothing refers to any more (after a delete); logged, not failed: the
    /// periodic collection tries again.
    pub async fn collect_files(&self) {
        match self.files.collect(&*self.store).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(files = n, "files nothing refers to deleted"),
            Err(e) => tracing::warn!("collecting files: {e}"),
        }
    }

    /// Files a request to `slug` names by the SHA-256 of an upload to it (`POST …/uploads`,
    /// held for [`crate::files::HOLD_MS`]): their bytes read from the store, as if the request
    /// held them. Each upload once, `--max-file-mb` in all; one such request at a time in this
    /// process holds them in memory (the returned turn: keep it until the request is done).
    async fn resolve_named(
        &self,
        slug: &str,
        files: &mut [crate::leaderboard::input::FileIn],
    ) -> Result<Option<tokio::sync::OwnedSemaphorePermit>, LbError> {
        if files.iter().all(|f| f.sha256.is_none()) {
            return Ok(None);
        }
        let turn = self.named.clone().acquire_owned().await.map_err(internal)?;
        let prefix = crate::files::upload_holder(slug);
        let mut seen = std::collections::HashSet::new();
        let mut total = 0u64;
        for f in files.iter_mut() {
            let Some(sha256) = f.sha256.as_deref().map(str::to_ascii_lowercase) else {
                continue;
            };
            if f.text.is_some() || f.base64.is_some() {
                return Err(LbError::BadRequest(format!(
                    "{}: give its content as one of `text`, `base64` or `sha256`",
                    f.name
                )));
            }
            if !seen.insert(sha256.clone()) {
                return Err(LbError::BadRequest(format!(
                    "{}: upload {sha256} is named twice",
                    f.name
                )));
            }
            if !self.store.held(&sha256, &prefix, now_ms()).await? {
                return Err(LbError::BadRequest(format!(
                    "{}: no upload {sha256} to `{slug}` (POST …/uploads first; an upload is \
                     kept for an hour)",
                    f.name
                )));
            }
            let bytes = self.blob(&sha256).await?;
            total += bytes.len() as u64;
            if total > self.limits.max_file_bytes {
                return Err(LbError::TooLarge(format!(
                    "the uploads named take more than {} bytes in all (the server's --max-file-mb)",
                    self.limits.max_file_bytes
                )));
            }
            f.base64 = Some(crate::leaderboard::input::Base64Bytes(Ok(bytes)));
        }
        Ok(Some(turn))
    }

    /// Who may upload to the board: its owner, or a team of it.
    async fn uploader(&self, slug: &str, token: Option<&str>) -> Result<(), LbError> {
        let board = self.board(slug).await?;
        if token.is_some_and(|t| token::matches(t, &board.owner_token_sha256)) {
            return Ok(());
        }
        if self.team_of(slug, token).await?.is_some() {
            return Ok(());
        }
        Err(LbError::Forbidden(format!(
            "uploads to `{slug}` need its owner token or a team token (Authorization: Bearer …)"
        )))
    }

    /// Store a file sent on its own, streamed (owner or team token); submissions then name it
    /// by its SHA-256 for an hour. Returns (sha256, size, kept until ms).
    pub async fn upload<S, E>(
        &self,
        slug: &str,
        token: Option<&str>,
        body: S,
        idle: std::time::Duration,
    ) -> Result<(String, u64, i64), LbError>
    where
        S: futures_util::Stream<Item = Result<Bytes, E>> + Unpin,
        E: std::fmt::Display,
    {
        self.uploader(slug, token).await?;
        let _turn = self
            .uploads
            .clone()
            .acquire_owned()
            .await
            .map_err(internal)?;
        let started = now_ms();
        let limit = self.limits.max_file_bytes;
        // What the board may still take: its cap, less its files and the uploads to it no
        // submission named yet (counted again when one is named, with the insert).
        let prefix = crate::files::upload_holder(slug);
        let held_bytes = self.store.held_upload_bytes(&prefix, started).await?;
        let board_bytes = self.store.board_bytes(slug).await?;
        let room = (self.limits.max_board_bytes - held_bytes - board_bytes).max(0) as u64;
        let (held, sha256, size) = self
            .files
            .write_stream(&*self.store, (body, &prefix), (limit, room), idle)
            .await
            .map_err(|e| match e {
                crate::files::UploadError::TooLarge(_) => LbError::TooLarge(e.to_string()),
                crate::files::UploadError::Late(_) => LbError::Timeout(e.to_string()),
                crate::files::UploadError::Full(m) => LbError::Full(m),
                crate::files::UploadError::Body(m) => LbError::BadRequest(m),
                crate::files::UploadError::Files(e) => e.into(),
            })?;
        // The hold stays (until it expires) so the upload is there to be named.
        drop(held);
        Ok((sha256, size, started + crate::files::HOLD_MS))
    }

    /// An upload read back as it is stored (owner or team token; only while it is held).
    pub async fn uploaded(
        &self,
        slug: &str,
        sha256: &str,
        token: Option<&str>,
    ) -> Result<crate::files::FileStream, LbError> {
        self.uploader(slug, token).await?;
        let missing =
            || LbError::NotFound(format!("no upload {sha256} to `{slug}` (kept for an hour)"));
        let prefix = crate::files::upload_holder(slug);
        if !self.store.held(sha256, &prefix, now_ms()).await? {
            return Err(missing());
        }
        self.files.stream(sha256).await?.ok_or_else(missing)
    }

    /// An entry's full report, as stored.
    async fn report_text(&self, slug: &str, id: i64) -> Result<Option<Bytes>, LbError> {
        Ok(match self.store.entry_report(slug, id).await? {
            Some(StoredReport::File(sha256)) => Some(
                self.files
                    .read(&*self.store, &sha256)
                    .await?
                    .ok_or_else(|| LbError::Internal(format!("report {sha256} is missing")))?,
            ),
            Some(StoredReport::Text(text)) => Some(Bytes::from(text.into_bytes())),
            None => None,
        })
    }

    async fn entry_files(&self, e: &EntryRow) -> Result<Vec<WorkFile>, LbError> {
        let mut out = Vec::new();
        for f in &e.files {
            let bytes = self.blob(&f.sha256).await?;
            let role = Role::from_key(&f.role).unwrap_or(Role::UNKNOWN);
            out.push(WorkFile::with_role(f.name.clone(), bytes, role));
        }
        Ok(out)
    }
}

fn who(board: &BoardRow, e: &EntryRow, token: Option<&str>) -> Result<Actor, LbError> {
    let Some(t) = token else {
        return Err(LbError::Forbidden(
            "a token is required (Authorization: Bearer …)".into(),
        ));
    };
    if token::matches(t, &board.owner_token_sha256) {
        return Ok(Actor::Owner);
    }
    if e.entry_token_sha256
        .as_deref()
        .is_some_and(|h| token::matches(t, h))
    {
        return Ok(Actor::Entry);
    }
    Err(LbError::Forbidden(format!(
        "this token is neither the owner token of `{}` nor the token of entry {}",
        board.slug, e.id
    )))
}

/// File references and the bytes to write of work files.
fn stored_files(files: &[WorkFile]) -> (Vec<FileRef>, Vec<NewFile>) {
    files
        .iter()
        .map(|f| {
            let sha256 = f.input_file().sha256;
            (
                FileRef {
                    name: f.name.clone(),
                    role: f.role.key().into(),
                    sha256: sha256.clone(),
                    size_bytes: f.bytes.len() as u64,
                },
                NewFile::shared(sha256, Arc::clone(&f.bytes)),
            )
        })
        .unzip()
}
