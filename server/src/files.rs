//! Board files and entries' full reports, outside the database (issue 29).
//!
//! The bytes of every gold file, entry file and full report live in a file store, named by
//! their SHA-256 (`sha256/ab/ab12…`): a folder (the default, beside the SQLite file:
//! `data/scorebench.files/`) or S3-compatible object storage (`--files
//! s3://bucket/prefix`, shared by several servers), through the Arrow project's `object_store`.
//! The database keeps each file's hash and size (`lb_blob`) and who refers to it; a file is
//! written once (a second writer of the same content finds it there) and deleted when nothing
//! refers to it any more, by the protocol of `store/sql/files.rs` (hold, write, commit,
//! release; mark, delete, forget), which stays right with several servers on one store.
//!
//! S3 settings come from the usual environment variables (`AWS_ACCESS_KEY_ID`,
//! `AWS_SECRET_ACCESS_KEY`, `AWS_REGION` or `AWS_DEFAULT_REGION`, `AWS_ENDPOINT_URL` for
//! storage other than Amazon's; an `http://` endpoint is allowed as given). Credentials are never
//! logged; the place is shown as `s3://bucket/prefix`.
//!
//! [`Files::migrate`] moves the bytes a database of an older version holds into the file store,
//! one file (or report) per step, so a start that is interrupted resumes where it stopped.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use object_store::path::Path as Key;
use object_store::{ObjectStore, PutPayload};
use sha2::{Digest, Sha256};

use crate::store::{Blob, Store, StoreError};

/// How long a writer's hold on its files lasts: the time between holding them and committing
/// the references (writing the bytes, the insert). A writer that dies leaves holds that expire,
/// after which its files are collected.
pub const HOLD_MS: i64 = 3_600_000;

/// How long a writer waits for a collector that is deleting the same content at the moment.
const HOLD_WAIT: Duration = Duration::from_secs(30);

/// The longest a collector's delete of one file may take: well under the age at which its
/// mark counts as a dead collector's (`store::sql::files::STALE_MARK_MS`, 5 minutes), so a
/// writer that takes a file over never sees a late delete land.
pub const DELETE_TIMEOUT: Duration = Duration::from_secs(60);

/// The longest an upload may take from its first byte to its last.
const UPLOAD_TIME: Duration = Duration::from_secs(3_600);

/// The start of the holder names of uploads to the board `slug` (each upload its own holder
/// after it): only this board's submissions may name them.
pub fn upload_holder(slug: &str) -> String {
    format!("upload:{slug}:")
}

#[derive(Debug, thiserror::Error)]
pub enum FilesError {
    /// The file store failed (message for the log).
    #[error("file store: {0}")]
    Store(String),
    #[error(transparent)]
    Db(#[from] StoreError),
}

impl From<object_store::Error> for FilesError {
    fn from(e: object_store::Error) -> Self {
        FilesError::Store(e.to_string())
    }
}

/// A file store.
pub struct Files {
    store: Arc<dyn ObjectStore>,
    prefix: String,
    shown: String,
    /// Where uploads wait while they arrive: inside a folder store (same disk, not the system's
    /// temporary folder, which may be memory); the system's for S3.
    staging: Option<PathBuf>,
}

/// A file's bytes as a stream, with their length.
pub struct FileStream {
    pub size: u64,
    pub stream: BoxStream<'static, Result<Bytes, std::io::Error>>,
}

/// Files a writer holds and wrote: commit the references to them, then [`Files::release`].
#[derive(Debug)]
pub struct Held {
    holder: String,
    pub blobs: Vec<Blob>,
}

/// Why a streamed upload was not stored.
#[derive(Debug, thiserror::Error)]
pub enum UploadError {
    #[error("the file is larger than {0} bytes, the limit (the server's --max-file-mb)")]
    TooLarge(u64),
    #[error("no bytes of the file arrived for {0} s")]
    Late(u64),
    #[error("{0}")]
    Full(String),
    #[error("reading the upload: {0}")]
    Body(String),
    #[error(transparent)]
    Files(#[from] FilesError),
}

/// A file to write: its SHA-256 (hex) and bytes.
pub struct NewFile {
    pub sha256: String,
    pub bytes: Bytes,
}

impl NewFile {
    /// `bytes` and their hash.
    pub fn of(bytes: Bytes) -> Self {
        Self {
            sha256: hex::encode(Sha256::digest(&bytes)),
            bytes,
        }
    }

    /// Shared bytes (a work file's) without a copy.
    pub fn shared(sha256: String, bytes: Arc<Vec<u8>>) -> Self {
        struct Shared(Arc<Vec<u8>>);
        impl AsRef<[u8]> for Shared {
            fn as_ref(&self) -> &[u8] {
                self.0.as_slice()
            }
        }
        Self {
            sha256,
            bytes: Bytes::from_owner(Shared(bytes)),
        }
    }
}

/// Where the files go by default: a folder beside the database file, named by its stem
/// (`data/scorebench.sqlite3` → `data/scorebench.files`; not `scorebench.sqlite3…`, which
/// tools take for the database's own files, as its `-wal` and `-shm`).
pub fn beside(db: &Path) -> PathBuf {
    let mut name = db.file_stem().unwrap_or_default().to_os_string();
    name.push(".files");
    db.with_file_name(name)
}

impl Files {
    /// `--files`: `s3://bucket/prefix`, or a folder.
    pub fn open(arg: &str) -> Result<Self, FilesError> {
        match arg.strip_prefix("s3://") {
            Some(rest) => Self::s3(rest),
            None => Self::folder(Path::new(arg)),
        }
    }

    /// A folder (created when missing).
    pub fn folder(dir: &Path) -> Result<Self, FilesError> {
        std::fs::create_dir_all(dir)
            .map_err(|e| FilesError::Store(format!("cannot create {}: {e}", dir.display())))?;
        let store = object_store::local::LocalFileSystem::new_with_prefix(dir)?;
        let staging = dir.join("uploading");
        std::fs::create_dir_all(&staging)
            .map_err(|e| FilesError::Store(format!("cannot create {}: {e}", staging.display())))?;
        Ok(Self {
            store: Arc::new(store),
            prefix: String::new(),
            shown: dir.display().to_string(),
            staging: Some(staging),
        })
    }

    /// `bucket/prefix` of S3-compatible storage, configured by the environment.
    fn s3(rest: &str) -> Result<Self, FilesError> {
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Err(FilesError::Store(
                "--files s3://BUCKET/prefix: the bucket is missing".into(),
            ));
        }
        let mut builder = object_store::aws::AmazonS3Builder::from_env().with_bucket_name(bucket);
        let endpoint = std::env::var("AWS_ENDPOINT_URL")
            .or_else(|_| std::env::var("AWS_ENDPOINT"))
            .unwrap_or_default();
        if endpoint.starts_with("http://") {
            builder = builder.with_allow_http(true);
        }
        let store = builder.build()?;
        let prefix = prefix.trim_matches('/').to_string();
        Ok(Self {
            store: Arc::new(store),
            shown: format!("s3://{bucket}/{prefix}"),
            prefix,
            staging: None,
        })
    }

    /// The place, for the log (never a credential).
    pub fn shown(&self) -> &str {
        &self.shown
    }

    fn key(&self, sha256: &str) -> Key {
        let name = format!("sha256/{}/{sha256}", &sha256[..2.min(sha256.len())]);
        if self.prefix.is_empty() {
            Key::from(name)
        } else {
            Key::from(format!("{}/{name}", self.prefix))
        }
    }

    /// Whether the file under `key` is there with `size` bytes (content-addressed: then it is
    /// the same file, written once).
    async fn present(&self, key: &Key, size: u64) -> Result<bool, FilesError> {
        match self.store.head(key).await {
            Ok(meta) => Ok(meta.size == size),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// Write a file unless it is there already.
    pub async fn put(&self, file: NewFile) -> Result<(), FilesError> {
        let key = self.key(&file.sha256);
        if self.present(&key, file.bytes.len() as u64).await? {
            return Ok(());
        }
        self.store.put(&key, PutPayload::from(file.bytes)).await?;
        Ok(())
    }

    /// A file's bytes; `None` when there is no such file.
    pub async fn get(&self, sha256: &str) -> Result<Option<Bytes>, FilesError> {
        match self.store.get(&self.key(sha256)).await {
            Ok(got) => Ok(Some(got.bytes().await?)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// A file's bytes as they are read (a large file never sits whole in memory).
    pub async fn stream(&self, sha256: &str) -> Result<Option<FileStream>, FilesError> {
        match self.store.get(&self.key(sha256)).await {
            Ok(got) => Ok(Some(FileStream {
                size: got.meta.size,
                stream: got
                    .into_stream()
                    .map(|chunk| chunk.map_err(std::io::Error::other))
                    .boxed(),
            })),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Delete a file (one that is not there is no error).
    pub async fn delete(&self, sha256: &str) -> Result<(), FilesError> {
        match self.store.delete(&self.key(sha256)).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Write a file that arrives as a stream (an upload) without holding it in memory: to a
    /// temporary file while its SHA-256 is computed, then held in `db` by a holder named
    /// `holder` + a number and copied into the store in parts. At most `limit` bytes, and at
    /// most `room` (what the board may still take); a pause longer than `idle` between two
    /// chunks, or an hour in all, ends it. Returns the holds (until [`HOLD_MS`] from the
    /// start), the hash and the size.
    pub async fn write_stream<S, E>(
        &self,
        db: &dyn Store,
        (mut body, holder): (S, &str),
        (limit, room): (u64, u64),
        idle: Duration,
    ) -> Result<(Held, String, u64), UploadError>
    where
        S: futures_util::Stream<Item = Result<Bytes, E>> + Unpin,
        E: std::fmt::Display,
    {
        use tokio::io::AsyncWriteExt;
        let started = std::time::Instant::now();
        let temp = match &self.staging {
            Some(dir) => tempfile::NamedTempFile::new_in(dir),
            None => tempfile::NamedTempFile::new(),
        }
        .map_err(|e| FilesError::Store(format!("a temporary file: {e}")))?;
        let mut out = tokio::fs::File::from_std(
            temp.reopen()
                .map_err(|e| FilesError::Store(format!("a temporary file: {e}")))?,
        );
        let mut hash = Sha256::new();
        let mut size = 0u64;
        loop {
            if started.elapsed() > UPLOAD_TIME {
                return Err(UploadError::Late(UPLOAD_TIME.as_secs()));
            }
            let chunk = match tokio::time::timeout(idle, body.next()).await {
                Err(_) => return Err(UploadError::Late(idle.as_secs())),
                Ok(None) => break,
                Ok(Some(Err(e))) => return Err(UploadError::Body(e.to_string())),
                Ok(Some(Ok(chunk))) => chunk,
            };
            size += chunk.len() as u64;
            if size > limit {
                return Err(UploadError::TooLarge(limit));
            }
            hash.update(&chunk);
            out.write_all(&chunk)
                .await
                .map_err(|e| FilesError::Store(format!("a temporary file: {e}")))?;
        }
        out.flush()
            .await
            .map_err(|e| FilesError::Store(format!("a temporary file: {e}")))?;
        drop(out);
        if size > room {
            return Err(UploadError::Full(format!(
                "this board may take {room} more bytes (the server's --board-max-mb, with its \
                 files and the uploads no submission named yet); the file has {size}"
            )));
        }
        let sha256 = hex::encode(hash.finalize());
        let held = self
            .hold(
                db,
                format!("{holder}{}", new_holder()),
                vec![Blob {
                    sha256: sha256.clone(),
                    size_bytes: size as i64,
                }],
            )
            .await?;
        if let Err(e) = self.put_file(&sha256, temp.path(), size).await {
            self.release(db, held, false).await;
            return Err(e.into());
        }
        Ok((held, sha256, size))
    }

    /// Copy a file on disk into the store in parts (8 MiB, two in flight), unless it is there.
    async fn put_file(&self, sha256: &str, path: &Path, size: u64) -> Result<(), FilesError> {
        use tokio::io::AsyncReadExt;
        let key = self.key(sha256);
        if self.present(&key, size).await? {
            return Ok(());
        }
        let upload = self.store.put_multipart(&key).await?;
        let mut parts = object_store::WriteMultipart::new_with_chunk_size(upload, 8 << 20);
        let mut file = tokio::fs::File::open(path)
            .await
            .map_err(|e| FilesError::Store(format!("{}: {e}", path.display())))?;
        let mut buf = vec![0u8; 1 << 20];
        // Every failure aborts the multipart upload (S3 keeps the parts of one that is neither
        // finished nor aborted, unseen).
        loop {
            let n = match file.read(&mut buf).await {
                Ok(n) => n,
                Err(e) => {
                    let _ = parts.abort().await;
                    return Err(FilesError::Store(format!("{}: {e}", path.display())));
                }
            };
            if n == 0 {
                break;
            }
            if let Err(e) = parts.wait_for_capacity(2).await {
                let _ = parts.abort().await;
                return Err(e.into());
            }
            parts.write(&buf[..n]);
        }
        parts.finish().await?;
        Ok(())
    }

    /// Hold `blobs` in `db` for `holder` (waiting while a collector deletes one of them).
    async fn hold(
        &self,
        db: &dyn Store,
        holder: String,
        blobs: Vec<Blob>,
    ) -> Result<Held, FilesError> {
        let held = Held { holder, blobs };
        let waited = std::time::Instant::now();
        loop {
            let now = now_ms();
            if db
                .hold_blobs(&held.holder, held.blobs.clone(), now, now + HOLD_MS)
                .await?
            {
                return Ok(held);
            }
            if waited.elapsed() > HOLD_WAIT {
                self.release(db, held, false).await;
                return Err(FilesError::Store(
                    "a file being deleted did not finish within 30 s".into(),
                ));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Hold `files` in `db` and write them: commit the references, then [`Files::release`]
    /// the returned holds (also when the commit failed).
    pub async fn write(&self, db: &dyn Store, files: Vec<NewFile>) -> Result<Held, FilesError> {
        let blobs = files
            .iter()
            .map(|f| Blob {
                sha256: f.sha256.clone(),
                size_bytes: f.bytes.len() as i64,
            })
            .collect();
        let held = self.hold(db, new_holder(), blobs).await?;
        for file in files {
            if let Err(e) = self.put(file).await {
                self.release(db, held, false).await;
                return Err(e);
            }
        }
        Ok(held)
    }

    /// Drop a writer's holds; unless its write `committed` (then every file it held is referred
    /// to), delete those of its files nothing refers to. Failures are logged: the periodic
    /// collection retries.
    pub async fn release(&self, db: &dyn Store, held: Held, committed: bool) {
        if let Err(e) = db.release_holds(&held.holder).await {
            tracing::warn!("releasing file holds: {e}");
            return;
        }
        if committed {
            return;
        }
        for b in held.blobs {
            if let Err(e) = self.collect_one(db, &b.sha256).await {
                tracing::warn!(sha256 = %b.sha256, "collecting a file: {e}");
            }
        }
    }

    /// Delete `sha256` if nothing refers to it and nobody holds it.
    async fn collect_one(&self, db: &dyn Store, sha256: &str) -> Result<bool, FilesError> {
        let mark = now_ms();
        if !db.mark_sweep(sha256, mark).await? {
            return Ok(false);
        }
        // A failure leaves the mark: it goes stale and a later collection tries again.
        match tokio::time::timeout(DELETE_TIMEOUT, self.delete(sha256)).await {
            Ok(deleted) => deleted?,
            Err(_) => {
                return Err(FilesError::Store(format!(
                    "deleting {sha256} took more than {} s",
                    DELETE_TIMEOUT.as_secs()
                )));
            }
        }
        Ok(db.end_sweep(sha256, mark).await?)
    }

    /// Delete every file nothing refers to or holds (after deletes, and now and then: the files
    /// of writers that died); how many. One file that fails is logged and left for the next
    /// collection; the others are still collected.
    pub async fn collect(&self, db: &dyn Store) -> Result<usize, FilesError> {
        db.purge_holds(now_ms()).await?;
        let mut deleted = 0;
        loop {
            let batch = db.unreferenced_blobs(now_ms(), 256).await?;
            let mut progress = false;
            for sha256 in &batch {
                match self.collect_one(db, sha256).await {
                    Ok(true) => {
                        deleted += 1;
                        progress = true;
                    }
                    Ok(false) => {}
                    Err(e) => tracing::warn!(sha256 = %sha256, "collecting a file: {e}"),
                }
            }
            if batch.len() < 256 || !progress {
                return Ok(deleted);
            }
        }
    }

    /// A file's bytes: from the file store, or the database while an older version's bytes are
    /// still there; `None` when neither has it.
    pub async fn read(&self, db: &dyn Store, sha256: &str) -> Result<Option<Bytes>, FilesError> {
        if let Some(bytes) = self.get(sha256).await? {
            return Ok(Some(bytes));
        }
        Ok(db.legacy_blob(sha256).await?.map(Bytes::from))
    }

    /// Move the bytes an older version kept in the database (files, then full reports) here,
    /// one at a time: each step commits, so an interrupted start resumes. The database is then
    /// compacted (SQLite: VACUUM). Returns (files, reports) moved.
    pub async fn migrate(&self, db: &dyn Store) -> Result<(usize, usize), FilesError> {
        let mut files = 0;
        loop {
            let batch = db.legacy_blobs(64).await?;
            if batch.is_empty() {
                break;
            }
            for sha256 in batch {
                let Some(bytes) = db.legacy_blob(&sha256).await? else {
                    continue;
                };
                let actual = hex::encode(Sha256::digest(&bytes));
                if actual != sha256 {
                    tracing::warn!(
                        stored = %sha256, actual = %actual,
                        "a stored file's bytes do not match its name; moved under its name"
                    );
                }
                // Held while it moves (`write`): no collector on another server takes the row
                // between the write and the commit.
                let held = self
                    .write(
                        db,
                        vec![NewFile {
                            sha256: sha256.clone(),
                            bytes: Bytes::from(bytes),
                        }],
                    )
                    .await?;
                let moved = db.blob_moved(&sha256).await;
                self.release(db, held, moved.is_ok()).await;
                moved?;
                files += 1;
                if files % 1000 == 0 {
                    tracing::info!(files, "moving stored files out of the database");
                }
            }
        }
        let mut reports = 0;
        loop {
            let batch = db.legacy_reports(64).await?;
            if batch.is_empty() {
                break;
            }
            for (slug, id) in batch {
                // One report in memory at a time.
                let Some(text) = db.legacy_report(&slug, id).await? else {
                    continue;
                };
                let file = NewFile::of(Bytes::from(text.into_bytes()));
                let sha256 = file.sha256.clone();
                let held = self.write(db, vec![file]).await?;
                let moved = db.report_moved(&slug, id, &sha256).await;
                self.release(db, held, moved.is_ok()).await;
                moved?;
                reports += 1;
                if reports % 1000 == 0 {
                    tracing::info!(reports, "moving stored reports out of the database");
                }
            }
        }
        if files + reports > 0 {
            db.compact().await?;
        }
        Ok((files, reports))
    }
}

fn now_ms() -> i64 {
    crate::leaderboard::dates::now_ms()
}

/// A holder name unique across processes: a random process part and a counter.
fn new_holder() -> String {
    static PROCESS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let process = PROCESS.get_or_init(|| {
        let mut bytes = [0u8; 8];
        // Without randomness the pid and start time still tell processes apart.
        if getrandom::fill(&mut bytes).is_err() {
            bytes = (u64::from(std::process::id()) ^ now_ms() as u64).to_le_bytes();
        }
        hex::encode(bytes)
    });
    format!("{process}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}
