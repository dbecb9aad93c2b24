//! The reply cache (which is also what makes runs resumable), the runs and their token
//! accounting, in SQLite (tables `reply_cache`, `run`, `run_usage`; migrations 2–3 in
//! [`crate::db`]).
//!
//! ```text
//! key = sha256( canonical JSON of [upstream name, endpoint, request body with keys sorted
//!               and "stream"/"stream_options" removed, sample index] )
//! ```
//! The body holds the model, the messages and every sampling parameter, so two requests share
//! a key exactly when they ask the same thing of the same upstream for the same sample.
//! Only successful (2xx, JSON) replies are stored; the table holds no key or URL.
//!
//! A run is `running` while the process executing it holds an exclusive lock on
//! `{db}.locks/{id}.lock` (the OS drops it when the process dies, `kill -9` included). Opening
//! the cache marks every `running`/`paused` run whose lock is free as `interrupted`: it can be
//! resumed, and no run stays `running` after its process is gone.
//!
//! rusqlite is synchronous: one connection owned by a dedicated thread. Callers send it closures
//! and await the answer; the thread runs whatever is queued in one transaction, so a burst of
//! 1,757 concurrent replies is a few commits, not 1,757 blocking-pool threads on one lock.

use std::path::{Path, PathBuf};
use std::sync::mpsc;

use bytes::Bytes;
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::upstream::Endpoint;

/// Whose tokens: the model under test, or an LLM judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Model,
    Judge,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Model => "model",
            Role::Judge => "judge",
        }
    }
}

/// Token use and cost of some calls (the API shows it as it is).
pub use workbench::wire::runs::Usage as UsageTotals;

#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("cache database: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error(transparent)]
    Open(#[from] crate::db::DbError),
    #[error("cache database: its thread has stopped")]
    Stopped,
    #[error("cache database: cannot start its thread: {0}")]
    Spawn(std::io::Error),
    #[error("run locks {0}: {1}")]
    Locks(String, std::io::Error),
}

/// Answers a caller; run only after the batch's transaction has committed.
type Done = Box<dyn FnOnce() + Send>;
/// Work on the connection, returning how to answer its caller.
type Job = Box<dyn FnOnce(&Connection) -> Done + Send>;

/// The cache and accounting store: a handle to the database thread.
#[derive(Clone, Debug)]
pub struct Cache {
    jobs: mpsc::Sender<Job>,
    /// Where the runs' liveness locks live (`{db}.locks/`).
    locks: PathBuf,
}

/// A run as the store keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRecord {
    pub id: String,
    pub kind: String,
    pub model: String,
    pub state: String,
    pub out_dir: String,
    /// `http` or `cli`.
    pub origin: String,
    /// How to start it again: the `POST /api/v1/runs` body, or `{"cwd", "args"}` of the
    /// command line.
    pub request: Option<Vec<u8>>,
    pub error: Option<String>,
}

/// The exclusive lock a live run holds (released when dropped or when its process dies).
#[derive(Debug)]
pub struct RunLock {
    _file: std::fs::File,
}

/// Lock `{locks}/{id}.lock`; `None` when another live process holds it.
fn try_lock(locks: &Path, id: &str) -> std::io::Result<Option<RunLock>> {
    std::fs::create_dir_all(locks)?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(locks.join(format!("{id}.lock")))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(RunLock { _file: file })),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}

/// Mark `running`/`paused` runs whose lock is free (their process is gone) as `interrupted`.
fn mark_interrupted(conn: &Connection, locks: &Path) -> Result<usize, CacheError> {
    let ids: Vec<String> = conn
        .prepare("SELECT id FROM run WHERE state IN ('running', 'paused')")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut marked = 0;
    for id in ids {
        // An id that is not a file name cannot be ours: never locked, so never alive.
        let alive = is_run_id(&id)
            && try_lock(locks, &id)
                .map_err(|e| CacheError::Locks(locks.display().to_string(), e))?
                .is_none();
        if !alive {
            marked += conn.execute(
                "UPDATE run SET state = 'interrupted', updated_unix = ?2,
                   error = coalesce(error, 'the process running it stopped')
                 WHERE id = ?1 AND state IN ('running', 'paused')",
                params![id, now_unix()],
            )?;
        }
    }
    Ok(marked)
}

/// A run id as the server makes them: 16 lowercase hex digits.
pub fn is_run_id(id: &str) -> bool {
    id.len() == 16 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Most jobs run in one transaction.
const MAX_BATCH: usize = 512;

/// Callers are answered only after COMMIT: a `put` that returned is on disk, so a run that
/// exits right after its last reply cannot lose it. The batch takes the write lock up front
/// (`BEGIN IMMEDIATE`, waiting up to the busy timeout): other connections write the same file
/// (the leaderboard store, its scoring queue), and a deferred transaction that read first could
/// not upgrade to a write after one of them committed (SQLite answers BUSY at once there,
/// without waiting).
fn database_thread(conn: Connection, jobs: mpsc::Receiver<Job>) {
    while let Ok(first) = jobs.recv() {
        let batch = conn.execute_batch("BEGIN IMMEDIATE").is_ok();
        let mut answers = vec![first(&conn)];
        answers.extend(jobs.try_iter().take(MAX_BATCH).map(|job| job(&conn)));
        if batch && let Err(e) = conn.execute_batch("COMMIT") {
            tracing::error!("cache database: commit failed: {e}");
            let _ = conn.execute_batch("ROLLBACK");
        }
        for answer in answers {
            answer();
        }
    }
}

/// Sort object keys recursively, so equal requests hash equally whatever their key order.
pub fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                out.insert(k.clone(), canonical(&map[k]));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// A request as the cache sees it: keys sorted, `stream`/`stream_options` removed.
pub fn canonical_request(body: &Value) -> Value {
    match body {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map
                .keys()
                .filter(|k| *k != "stream" && *k != "stream_options")
                .collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), canonical(&map[k])))
                    .collect(),
            )
        }
        other => canonical(other),
    }
}

/// The cache key of a request body (see the module doc).
pub fn cache_key(upstream: &str, endpoint: Endpoint, body: &Value, sample: u64) -> String {
    key_of_canonical(upstream, endpoint, &canonical_request(body), sample)
}

/// [`cache_key`] of a request already in [`canonical_request`] form.
pub fn key_of_canonical(
    upstream: &str,
    endpoint: Endpoint,
    canonical: &Value,
    sample: u64,
) -> String {
    // The same text as `json!([upstream, path, canonical, sample]).to_string()`, unchanged
    // since the first stored key, without copying the body.
    let material =
        serde_json::to_string(&(upstream, endpoint.path(), canonical, sample)).unwrap_or_default();
    hex::encode(Sha256::digest(material.as_bytes()))
}

/// What identical requests share, whatever their sample: 16 bytes of
/// sha256(upstream, endpoint, canonical request).
pub fn request_digest(upstream: &str, endpoint: Endpoint, canonical: &Value) -> [u8; 16] {
    let material =
        serde_json::to_string(&(upstream, endpoint.path(), canonical)).unwrap_or_default();
    let hash = Sha256::digest(material.as_bytes());
    let mut digest = [0u8; 16];
    digest.copy_from_slice(&hash[..16]);
    digest
}

fn now_unix() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

impl Cache {
    /// Open (creating and migrating) the database at `path` with its own connection.
    /// Runs left `running` by a process that is gone are marked `interrupted` here.
    pub fn open(path: &Path) -> Result<Cache, CacheError> {
        let conn = crate::db::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(30))?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        let mut locks = path.as_os_str().to_owned();
        locks.push(".locks");
        let locks = PathBuf::from(locks);
        let marked = mark_interrupted(&conn, &locks)?;
        if marked > 0 {
            tracing::warn!("{marked} run(s) were interrupted (their process stopped): resumable");
        }
        let (jobs, rx) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("scorebench-cache".into())
            .spawn(move || database_thread(conn, rx))
            .map_err(CacheError::Spawn)?;
        Ok(Cache { jobs, locks })
    }

    /// Take run `id`'s liveness lock; `None` when a live process holds it.
    pub fn lock_run(&self, id: &str) -> Result<Option<RunLock>, CacheError> {
        if !is_run_id(id) {
            return Err(CacheError::Locks(
                id.to_string(),
                std::io::Error::other("not a run id"),
            ));
        }
        try_lock(&self.locks, id)
            .map_err(|e| CacheError::Locks(self.locks.display().to_string(), e))
    }

    async fn with<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, CacheError> + Send + 'static,
    ) -> Result<T, CacheError> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.jobs
            .send(Box::new(move |conn: &Connection| {
                let result = f(conn);
                Box::new(move || {
                    let _ = tx.send(result);
                }) as Done
            }))
            .map_err(|_| CacheError::Stopped)?;
        rx.await.map_err(|_| CacheError::Stopped)?
    }

    pub async fn get(&self, key: String) -> Result<Option<Bytes>, CacheError> {
        self.with(move |c| {
            Ok(c.query_row(
                "SELECT reply FROM reply_cache WHERE key = ?1",
                params![key],
                |r| r.get::<_, Vec<u8>>(0),
            )
            .optional()?
            .map(Bytes::from))
        })
        .await
    }

    pub async fn put(
        &self,
        key: String,
        upstream: String,
        model: String,
        endpoint: Endpoint,
        reply: Bytes,
    ) -> Result<(), CacheError> {
        self.with(move |c| {
            c.execute(
                "INSERT OR REPLACE INTO reply_cache (key, upstream, model, endpoint, created_unix, reply)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![key, upstream, model, endpoint.path(), now_unix(), reply.as_ref()],
            )?;
            Ok(())
        })
        .await
    }

    /// Add `delta` to a run's totals for `role`.
    pub async fn add_usage(
        &self,
        run_id: String,
        role: Role,
        delta: UsageTotals,
    ) -> Result<(), CacheError> {
        self.with(move |c| {
            c.execute(
                "INSERT INTO run_usage (run_id, role, upstream_calls, cache_hits, prompt_tokens, completion_tokens, cost)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (run_id, role) DO UPDATE SET
                   upstream_calls = upstream_calls + excluded.upstream_calls,
                   cache_hits = cache_hits + excluded.cache_hits,
                   prompt_tokens = prompt_tokens + excluded.prompt_tokens,
                   completion_tokens = completion_tokens + excluded.completion_tokens,
                   cost = CASE WHEN cost IS NULL AND excluded.cost IS NULL THEN NULL
                               ELSE coalesce(cost, 0) + coalesce(excluded.cost, 0) END",
                params![
                    run_id,
                    role.as_str(),
                    delta.upstream_calls as i64,
                    delta.cache_hits as i64,
                    delta.prompt_tokens as i64,
                    delta.completion_tokens as i64,
                    delta.cost
                ],
            )?;
            Ok(())
        })
        .await
    }

    /// A run's stored totals per role.
    pub async fn usage(&self, run_id: String) -> Result<Vec<(Role, UsageTotals)>, CacheError> {
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT role, upstream_calls, cache_hits, prompt_tokens, completion_tokens, cost
                 FROM run_usage WHERE run_id = ?1 ORDER BY role DESC",
            )?;
            let rows = stmt.query_map(params![run_id], |r| {
                let role: String = r.get(0)?;
                Ok((
                    if role == "judge" {
                        Role::Judge
                    } else {
                        Role::Model
                    },
                    UsageTotals {
                        upstream_calls: r.get::<_, i64>(1)? as u64,
                        cache_hits: r.get::<_, i64>(2)? as u64,
                        prompt_tokens: r.get::<_, i64>(3)? as u64,
                        completion_tokens: r.get::<_, i64>(4)? as u64,
                        cost: r.get(5)?,
                    },
                ))
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .await
    }

    /// Store a new run, or start a stored one again (state `running`, error cleared).
    pub async fn start_run(&self, run: RunRecord) -> Result<(), CacheError> {
        self.with(move |c| {
            c.execute(
                "INSERT INTO run (id, created_unix, kind, model, state, out_dir, origin, request, error, updated_unix)
                 VALUES (?1, ?2, ?3, ?4, 'running', ?5, ?6, ?7, NULL, ?2)
                 ON CONFLICT (id) DO UPDATE SET state = 'running', error = NULL,
                   updated_unix = excluded.updated_unix",
                params![
                    run.id,
                    now_unix(),
                    run.kind,
                    run.model,
                    run.out_dir,
                    run.origin,
                    run.request
                ],
            )?;
            Ok(())
        })
        .await
    }

    /// Set a run's state (and its error, for `failed`).
    pub async fn set_run_state(
        &self,
        id: String,
        state: &'static str,
        error: Option<String>,
    ) -> Result<(), CacheError> {
        self.with(move |c| {
            c.execute(
                "UPDATE run SET state = ?2, error = ?3, updated_unix = ?4 WHERE id = ?1",
                params![id, state, error, now_unix()],
            )?;
            Ok(())
        })
        .await
    }

    /// A stored run.
    pub async fn run(&self, id: String) -> Result<Option<RunRecord>, CacheError> {
        self.with(move |c| {
            Ok(c.query_row(
                "SELECT id, kind, model, state, out_dir, origin, request, error FROM run WHERE id = ?1",
                params![id],
                |r| {
                    Ok(RunRecord {
                        id: r.get(0)?,
                        kind: r.get(1)?,
                        model: r.get(2)?,
                        state: r.get(3)?,
                        out_dir: r.get(4)?,
                        origin: r.get(5)?,
                        request: r.get(6)?,
                        error: r.get(7)?,
                    })
                },
            )
            .optional()?)
        })
        .await
    }

    /// Runs started from the command line that did not finish, newest first.
    pub async fn unfinished_cli_runs(&self) -> Result<Vec<RunRecord>, CacheError> {
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT id, kind, model, state, out_dir, origin, request, error FROM run
                 WHERE origin = 'cli' AND state != 'finished' ORDER BY created_unix DESC, rowid DESC",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok(RunRecord {
                    id: r.get(0)?,
                    kind: r.get(1)?,
                    model: r.get(2)?,
                    state: r.get(3)?,
                    out_dir: r.get(4)?,
                    origin: r.get(5)?,
                    request: r.get(6)?,
                    error: r.get(7)?,
                })
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .await
    }

    /// Whether this store holds run `id` (checked before a proxy call is counted to it).
    pub async fn run_exists(&self, id: String) -> Result<bool, CacheError> {
        self.with(move |c| {
            Ok(
                c.query_row("SELECT 1 FROM run WHERE id = ?1", params![id], |_| Ok(()))
                    .optional()?
                    .is_some(),
            )
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_ignores_key_order_and_stream_but_not_sample_or_parameters() {
        let a = json!({"model": "m", "messages": [{"role": "user", "content": "x"}], "temperature": 0.5});
        let b = json!({"temperature": 0.5, "stream": false, "messages": [{"content": "x", "role": "user"}], "model": "m"});
        let k = |v: &Value, s| cache_key("up", Endpoint::ChatCompletions, v, s);
        assert_eq!(k(&a, 0), k(&b, 0));
        assert_ne!(k(&a, 0), k(&a, 1));
        let c = json!({"model": "m", "messages": [{"role": "user", "content": "x"}], "temperature": 0.6});
        assert_ne!(k(&a, 0), k(&c, 0));
        assert_ne!(
            k(&a, 0),
            cache_key("other", Endpoint::ChatCompletions, &a, 0)
        );
    }

    #[test]
    fn keys_are_the_ones_stored_before() {
        // The key as it was first computed (keys already stored in databases stay valid).
        let body = json!({"stream": true, "temperature": 0.7, "model": "m",
            "messages": [{"role": "user", "content": "x\u{e9}"}], "stream_options": {"a": 1}});
        let mut plain = body.clone();
        plain.as_object_mut().unwrap().remove("stream");
        plain.as_object_mut().unwrap().remove("stream_options");
        let material = json!(["up", "chat/completions", canonical(&plain), 3]);
        assert_eq!(
            cache_key("up", Endpoint::ChatCompletions, &body, 3),
            hex::encode(Sha256::digest(material.to_string().as_bytes()))
        );
    }
}
