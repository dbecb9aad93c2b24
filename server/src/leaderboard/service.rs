//! The leaderboard operations, without HTTP types: create, submit, show, edit, hide, restore,
//! withdraw, delete, import, audit. `api.rs` adapts them to axum; the CLI calls the API.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use base64::Engine as _;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::competition::{self, Competition, Counts};
use super::rank::{self, Candidate, Spread};
use super::scoring::{self, Difference, LeaderInterval, ScoringError, Upload};
use super::token;
use crate::store::{
    AuditRow, Blob, BoardEdit, BoardRow, EntryRow, FileRef, IntervalRow, Job, JobResult, Quota,
    Store, StoreError, Submitter, TeamRow,
};
use metrics_core::Report;
use sha2::Digest;
use tokio::sync::OwnedSemaphorePermit;

pub use super::dates::{iso8601, parse_iso8601};
use workbench::detect::Role;
use workbench::session::WorkFile;

/// Why an operation failed; `api.rs` turns it into a status.
#[derive(Debug, thiserror::Error)]
pub enum LbError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    BadRequest(String),
    /// Files that cannot be scored as this board's benchmark (names the file).
    #[error("{0}")]
    Unprocessable(String),
    /// The client's numbers differ from the server's.
    #[error("{message}")]
    Mismatch {
        message: String,
        differences: Vec<Difference>,
    },
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    Conflict(String),
    /// A team's quota is used up.
    #[error("{0}")]
    Quota(String),
    /// The board's files would pass its bytes cap.
    #[error("{0}")]
    Full(String),
    /// The request body is over the upload limit.
    #[error("{0}")]
    TooLarge(String),
    /// The request body is not `application/json`.
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// The request body did not arrive within the body timeout.
    #[error("{0}")]
    Timeout(String),
    /// The body budget stayed full, or the server is shutting down: try again.
    #[error("{0}")]
    Unavailable(String),
    #[error("internal error")]
    Internal(String),
}

impl From<StoreError> for LbError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Conflict(m) => LbError::Conflict(m),
            StoreError::NotFound(m) => LbError::NotFound(m),
            StoreError::Quota(m) => LbError::Quota(m),
            StoreError::Full(m) => LbError::Full(m),
            StoreError::Backend(m) => LbError::Internal(m),
        }
    }
}

impl From<ScoringError> for LbError {
    fn from(e: ScoringError) -> Self {
        LbError::Unprocessable(e.0)
    }
}

/// A stored report as JSON, its `samples` left out unless asked for: skipped while parsing, so
/// an entry page never builds a value per sample (a large entry's samples are most of its
/// report).
fn stored_report(text: &str, samples: bool) -> Result<Value, serde_json::Error> {
    if samples {
        return serde_json::from_str(text);
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
    serde_json::from_str::<WithoutSamples>(text).map(|r| Value::Object(r.0))
}

/// Limits of anonymous submission and of a board's size (`scorebench serve` flags), counted in
/// the store's transaction with the insert ([`crate::store::Limits`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SubmitLimits {
    /// Submissions one client address (IPv6: its /64) may send to one board per hour without
    /// a team token (`--anon-submits-per-hour`).
    pub per_client_hour: i64,
    /// Submissions without a team token one board takes per hour (`--board-submits-per-hour`).
    pub per_board_hour: i64,
    /// Bytes a board's distinct files may take (`--board-max-mb`).
    pub max_board_bytes: i64,
    /// Samples one scored entry may have (`--max-entry-samples`): the server stores each.
    pub max_entry_samples: usize,
    /// Scoring jobs at once (`--scoring-jobs`).
    pub scoring_jobs: usize,
    /// Boards one client address may create per hour (`--anon-boards-per-hour`).
    pub boards_per_client_hour: i64,
}

impl Default for SubmitLimits {
    fn default() -> Self {
        SubmitLimits {
            per_client_hour: 30,
            per_board_hour: 600,
            max_board_bytes: 1 << 30,
            max_entry_samples: 250_000,
            scoring_jobs: 1,
            boards_per_client_hour: 60,
        }
    }
}

const HOUR_MS: i64 = 3_600_000;

/// Keys tracked at most by a [`Recent`] (older ones are dropped first when it is full).
const RECENT_KEYS: usize = 100_000;

/// Anonymous work that leaves no entry to count in the store — submissions scored and then
/// refused, boards created — counted in this process per key over the last hour.
#[derive(Default)]
struct Recent {
    at: std::sync::Mutex<HashMap<String, Vec<i64>>>,
}

impl Recent {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<i64>>> {
        self.at
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// How many times `key` was added since `since_ms`.
    fn count(&self, key: &str, since_ms: i64) -> i64 {
        self.map().get(key).map_or(0, |times| {
            times.iter().filter(|&&t| t >= since_ms).count() as i64
        })
    }

    /// Take back one time `at` of `key` (the work it counted left an entry after all).
    fn remove(&self, key: &str, at: i64) {
        if let Some(times) = self.map().get_mut(key)
            && let Some(i) = times.iter().rposition(|&t| t == at)
        {
            times.remove(i);
        }
    }

    fn add(&self, key: &str, now_ms: i64) {
        let mut map = self.map();
        if map.len() >= RECENT_KEYS {
            map.retain(|_, times| {
                times.retain(|&t| t >= now_ms - HOUR_MS);
                !times.is_empty()
            });
            if map.len() >= RECENT_KEYS {
                map.clear();
            }
        }
        let times = map.entry(key.to_string()).or_default();
        times.retain(|&t| t >= now_ms - HOUR_MS);
        times.push(now_ms);
    }
}

/// Who sends a request, for the anonymous limits: its address (the peer, or the proxy's
/// `X-Forwarded-For` when trusted), if known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Client(pub Option<std::net::IpAddr>);

impl Client {
    /// The key of the address alone (for limits across boards, kept in memory only).
    fn address_key(&self) -> String {
        self.key("")
    }

    /// The stored key: a hash of the address (IPv6: its /64, which one subscriber holds) and the
    /// board, so entries of different boards cannot be linked by it and no address is stored.
    fn key(&self, slug: &str) -> String {
        use std::net::IpAddr;
        let net = match self.0 {
            None => "unknown".to_string(),
            Some(IpAddr::V4(a)) => a.to_string(),
            Some(IpAddr::V6(a)) => match a.to_ipv4_mapped() {
                Some(v4) => v4.to_string(),
                None => {
                    let s = a.segments();
                    format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
                }
            },
        };
        let digest = sha2::Sha256::digest(format!("scorebench-client\0{slug}\0{net}"));
        hex::encode(&digest[..16])
    }
}

/// Limits on what a request may hold.
pub const MAX_FILES: usize = 64;
pub const MAX_TEXT_CHARS: usize = 2_000;
pub const MAX_DESCRIPTION_CHARS: usize = 20_000;
pub const MAX_META_KEYS: usize = 32;
/// Intervals computed and stored together by the background bootstrap.
pub const BOOTSTRAP_BATCH: usize = 128;

/// The metrics where lower is better (none of the registered benchmarks' headline metrics
/// today); everything else ranks descending.
pub const LOWER_IS_BETTER: &[&str] = &[];

/// The scorer that made the numbers.
pub fn scorer() -> Value {
    json!({
        "version": env!("CARGO_PKG_VERSION"),
        "commit": option_env!("SCOREBENCH_GIT_COMMIT").unwrap_or("unknown"),
    })
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// A file in a request: its name and content, base64 (standard alphabet) or UTF-8 text.
#[derive(Debug, Clone, Deserialize)]
pub struct FileIn {
    pub name: String,
    #[serde(default)]
    pub base64: Option<Base64Bytes>,
    #[serde(default)]
    pub text: Option<String>,
}

/// Base64 content decoded while the request is parsed: the JSON string (borrowed from the body
/// when it has no escapes) becomes the file's bytes with no copy of the text in between, so a
/// submission costs its body and its files, not also their base64. A decoding error waits to
/// be reported with the file's name.
#[derive(Debug, Clone)]
pub struct Base64Bytes(pub Result<Vec<u8>, String>);

impl<'de> Deserialize<'de> for Base64Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Base64Bytes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a base64 string")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Base64Bytes, E> {
                Ok(Base64Bytes(
                    base64::engine::general_purpose::STANDARD
                        .decode(text.as_bytes())
                        .map_err(|e| e.to_string()),
                ))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

fn uploads(files: Vec<FileIn>) -> Result<Vec<Upload>, LbError> {
    if files.len() > MAX_FILES {
        return Err(LbError::BadRequest(format!(
            "{} files, at most {MAX_FILES}",
            files.len()
        )));
    }
    files
        .into_iter()
        .map(|f| {
            let bytes = match (f.base64, f.text) {
                (Some(Base64Bytes(decoded)), None) => decoded
                    .map_err(|e| LbError::BadRequest(format!("{}: bad base64: {e}", f.name)))?,
                (None, Some(t)) => t.into_bytes(),
                _ => {
                    return Err(LbError::BadRequest(format!(
                        "{}: give the content as `base64` or `text`",
                        f.name
                    )));
                }
            };
            Ok(Upload {
                name: f.name,
                bytes,
            })
        })
        .collect()
}

fn check_text(what: &str, value: &str, max: usize, required: bool) -> Result<(), LbError> {
    if required && value.trim().is_empty() {
        return Err(LbError::BadRequest(format!("{what} is empty")));
    }
    if value.chars().count() > max {
        return Err(LbError::BadRequest(format!(
            "{what} is longer than {max} characters"
        )));
    }
    if value
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(LbError::BadRequest(format!(
            "{what} holds control characters"
        )));
    }
    Ok(())
}

/// Board slugs: 1–64 of `a-z 0-9 -`, not starting with `-`.
pub fn check_slug(slug: &str) -> Result<(), LbError> {
    let ok = !slug.is_empty()
        && slug.len() <= 64
        && !slug.starts_with('-')
        && slug
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(LbError::BadRequest(format!(
            "slug `{slug}`: use 1 to 64 of a-z, 0-9 and -, not starting with -"
        )))
    }
}

/// The known metadata keys (aliases on the right are renamed).
pub const META_KEYS: &[&str] = &[
    "organisation",
    "parameters",
    "open_weights",
    "link",
    "date",
    "notes",
];

fn canonical_meta_key(key: &str) -> String {
    match key.trim().to_ascii_lowercase().replace('-', "_").as_str() {
        "org" | "organization" | "organisation" => "organisation".into(),
        "params" | "parameters" | "size" => "parameters".into(),
        "open" | "open_weights" | "weights" => "open_weights".into(),
        "url" | "link" => "link".into(),
        other => other.to_string(),
    }
}

/// Metadata as stored: known keys renamed, values checked (`link` http(s) only, `open_weights`
/// yes/no), other keys kept as free-form text.
pub fn check_meta(meta: BTreeMap<String, String>) -> Result<BTreeMap<String, String>, LbError> {
    if meta.len() > MAX_META_KEYS {
        return Err(LbError::BadRequest(format!(
            "{} metadata keys, at most {MAX_META_KEYS}",
            meta.len()
        )));
    }
    let mut out = BTreeMap::new();
    for (key, value) in meta {
        let key = canonical_meta_key(&key);
        let valid_key = !key.is_empty()
            && key.len() <= 40
            && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !valid_key {
            return Err(LbError::BadRequest(format!(
                "metadata key `{key}`: use 1 to 40 of a-z, 0-9 and _"
            )));
        }
        check_text(&format!("metadata `{key}`"), &value, MAX_TEXT_CHARS, false)?;
        let value = match key.as_str() {
            "open_weights" => match value.trim().to_ascii_lowercase().as_str() {
                "yes" | "true" | "1" | "y" => "yes".to_string(),
                "no" | "false" | "0" | "n" => "no".to_string(),
                other => {
                    return Err(LbError::BadRequest(format!(
                        "metadata `open_weights` is `{other}`, expected yes or no"
                    )));
                }
            },
            "link" => {
                let v = value.trim();
                let lower = v.to_ascii_lowercase();
                if !v.is_empty() && !lower.starts_with("https://") && !lower.starts_with("http://")
                {
                    return Err(LbError::BadRequest(format!(
                        "metadata `link` must be an http(s) URL, got `{v}`"
                    )));
                }
                v.to_string()
            }
            _ => value,
        };
        out.insert(key, value);
    }
    Ok(out)
}

/// `POST /api/v1/leaderboards` body.
#[derive(Debug, Deserialize)]
pub struct CreateBoard {
    pub slug: String,
    pub title: String,
    #[serde(default)]
    pub description: String,
    pub benchmark: String,
    /// The variant's report name; the benchmark's official one by default.
    #[serde(default)]
    pub variant: Option<String>,
    /// By default the benchmark's first metric.
    #[serde(default)]
    pub primary: Option<String>,
    /// The metrics shown; by default the benchmark's headline metrics.
    #[serde(default)]
    pub metrics: Option<Vec<String>>,
    #[serde(default)]
    pub gold: Vec<FileIn>,
    /// A competition board (issue 14): gold stored, never served; submissions queued.
    #[serde(default)]
    pub hidden_gold: Vec<FileIn>,
    /// Its settings (default: public share 0.3, a random seed, no window, no quota, best counts).
    #[serde(default)]
    pub competition: Option<PhaseSettings>,
}

/// The owner's phase settings (`POST …/phase`, and `competition` at creation). Absent fields
/// keep their value.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhaseSettings {
    pub public_share: Option<f64>,
    pub seed: Option<u64>,
    /// RFC 3339 / ISO 8601 UTC (`2026-05-01T00:00:00Z`) or Unix milliseconds.
    pub opens: Option<Value>,
    pub closes: Option<Value>,
    pub daily_quota: Option<i64>,
    pub total_quota: Option<i64>,
    pub counts: Option<Counts>,
    /// Close the phase now: private scores revealed, ranking final.
    #[serde(default)]
    pub close: bool,
}

/// `POST /api/v1/leaderboards/{slug}/entries` body.
#[derive(Debug, Deserialize)]
pub struct Submit {
    pub model: String,
    #[serde(default)]
    pub meta: BTreeMap<String, String>,
    pub files: Vec<FileIn>,
    /// The numbers the client computed (the workbench's publish): refused when any differs.
    #[serde(default)]
    pub client_report: Option<Report>,
}

/// `PATCH /api/v1/leaderboards/{slug}` body (owner).
#[derive(Debug, Deserialize)]
pub struct EditBoard {
    pub title: Option<String>,
    pub description: Option<String>,
    pub primary: Option<String>,
    pub metrics: Option<Vec<String>>,
}

/// `PATCH /api/v1/leaderboards/{slug}/entries/{id}` body (entry token).
#[derive(Debug, Deserialize)]
pub struct EditEntry {
    pub model: Option<String>,
    /// Replaces the metadata; a key with an empty value is removed.
    pub meta: Option<BTreeMap<String, String>>,
}

/// Who presented which token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor {
    Owner,
    Entry,
}

impl Actor {
    fn name(self) -> &'static str {
        match self {
            Actor::Owner => "owner",
            Actor::Entry => "entry",
        }
    }
}

/// What an owner or submitter may do to an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryAction {
    Hide,
    Restore,
    Withdraw,
    /// Owner: delete; entry token: withdraw.
    Remove,
}

/// The leaderboards of one server process.
pub struct Boards {
    pub store: Arc<dyn Store>,
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
}

/// A board as the API shows it.
#[derive(Debug, Clone, Serialize)]
pub struct BoardInfo {
    pub slug: String,
    pub title: String,
    pub description: String,
    /// The description's Markdown as sanitised HTML (`html::markdown`: no scripts, event
    /// handlers, `javascript:` links or images), for pages that show it rendered.
    pub description_html: String,
    pub benchmark: String,
    pub benchmark_label: String,
    pub variant: String,
    pub primary: String,
    pub lower_is_better: bool,
    pub metrics: Vec<String>,
    /// Displayed value = value × scale, rounded to `decimals` (the benchmark's table).
    pub display: Display,
    pub gold: Vec<FileOut>,
    pub created: String,
    pub updated: String,
    /// Competition boards: the gold is hidden; the phase.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub competition: Option<CompetitionInfo>,
}

/// A competition board's public settings (the seed is the owner's).
#[derive(Debug, Clone, Serialize)]
pub struct CompetitionInfo {
    pub hidden_gold: bool,
    pub public_share: f64,
    /// `not open yet` | `open` | `window closed` | `closed` (final).
    pub phase: String,
    pub opens: Option<String>,
    pub closes: Option<String>,
    pub closed: Option<String>,
    pub daily_quota: Option<i64>,
    pub total_quota: Option<i64>,
    pub counts: Counts,
    /// `metrics` are on the public share while open, on every item once closed.
    pub metrics_on: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Display {
    pub scale: f64,
    pub decimals: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct FileOut {
    pub name: String,
    pub role: String,
    pub sha256: String,
    pub size_bytes: u64,
    /// Download path.
    pub url: String,
}

/// An entry as the API shows it.
#[derive(Debug, Clone, Serialize)]
pub struct EntryOut {
    pub entry: i64,
    pub rank: Option<usize>,
    pub rank_range: Option<[usize; 2]>,
    /// The interval of (entry − leader) contains 0; `null` for the leader and when not computed.
    pub tied_with_leader: Option<bool>,
    pub versus_leader: Option<LeaderInterval>,
    pub model: String,
    pub metrics: IndexMap<String, Option<f64>>,
    /// `verified` | `reported`.
    pub status: String,
    /// `visible` | `hidden` | `withdrawn` (the last two only for the owner).
    pub state: String,
    pub inputs: Vec<FileOut>,
    pub meta: BTreeMap<String, String>,
    pub submitted: String,
    pub submitted_ms: i64,
    pub scorer: Value,
    /// Competition boards: the team, the metrics on the public share, and (once closed) on the
    /// private share.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub public_metrics: Option<IndexMap<String, Option<f64>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub private_metrics: Option<IndexMap<String, Option<f64>>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BootstrapInfo {
    pub metric: String,
    pub seed: u64,
    pub resamples: usize,
    /// The entry every interval is against.
    pub leader: Option<i64>,
    pub computed: usize,
    /// Verified entries whose interval is not computed yet (a later request computes them).
    pub pending: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct BoardView {
    pub board: BoardInfo,
    pub bootstrap: BootstrapInfo,
    pub entries: Vec<EntryOut>,
}

/// The stored report's table in its benchmark's layout (`workbench::table`), so the page shows
/// it without linking every benchmark's code.
fn report_table(report: Option<&Value>) -> Option<workbench::table::Table> {
    let report: Report = serde_json::from_value(report?.clone()).ok()?;
    Some(workbench::table(&report))
}

fn file_out(slug: &str, f: &FileRef) -> FileOut {
    FileOut {
        name: f.name.clone(),
        role: f.role.clone(),
        sha256: f.sha256.clone(),
        size_bytes: f.size_bytes,
        url: format!("/api/v1/leaderboards/{slug}/files/{}", f.sha256),
    }
}

/// The benchmark's display of overall metrics (scale, decimals), from its own table.
pub fn display_of(benchmark: &dyn workbench::Benchmark, variant: &str) -> Display {
    let mut metrics = metrics_core::report::Metrics::new();
    for m in benchmark.metrics() {
        metrics.insert(
            (*m).to_string(),
            metrics_core::report::MetricValue::Scalar(Some(0.0)),
        );
    }
    let report = Report {
        benchmark: benchmark.key().into(),
        variant: variant.into(),
        inputs: vec![],
        overall: metrics_core::report::Overall { n: 0, metrics },
        subsets: vec![],
        samples: None,
        warnings: vec![],
    };
    let table = benchmark.table(&report);
    Display {
        scale: table.scale,
        decimals: table.decimals,
    }
}

fn competition_info(c: &Competition, owner: bool) -> CompetitionInfo {
    let now = now_ms();
    let phase = if c.closed_ms.is_some() {
        "closed"
    } else if c.opens_ms.is_some_and(|o| now < o) {
        "not open yet"
    } else if c.closes_ms.is_some_and(|t| now >= t) {
        "window closed"
    } else {
        "open"
    };
    CompetitionInfo {
        hidden_gold: true,
        public_share: c.public_share,
        phase: phase.into(),
        opens: c.opens_ms.map(iso8601),
        closes: c.closes_ms.map(iso8601),
        closed: c.closed_ms.map(iso8601),
        daily_quota: c.daily_quota,
        total_quota: c.total_quota,
        counts: c.counts,
        metrics_on: if c.closed_ms.is_some() {
            "all items".into()
        } else {
            "public share".into()
        },
        seed: owner.then_some(c.seed),
    }
}

fn board_info_for(board: &BoardRow, owner: bool) -> BoardInfo {
    let bench = workbench::registry::get(&board.benchmark);
    let comp = Competition::parse(board.competition.as_deref());
    BoardInfo {
        slug: board.slug.clone(),
        title: board.title.clone(),
        description: board.description.clone(),
        description_html: board.description_html.clone().unwrap_or_else(|| {
            // Written before the HTML was stored: rendered here, bounded like a new one (an
            // over-deep description is shown as text).
            super::html::description_html(&board.description)
                .unwrap_or_else(|_| format!("<p>{}</p>", super::html::text(&board.description)))
        }),
        benchmark: board.benchmark.clone(),
        benchmark_label: bench.map_or_else(|| board.benchmark.clone(), |b| b.label().into()),
        variant: board.variant.clone(),
        primary: board.primary_metric.clone(),
        lower_is_better: LOWER_IS_BETTER.contains(&board.primary_metric.as_str()),
        metrics: board.metrics.clone(),
        display: bench.map_or(
            Display {
                scale: 1.0,
                decimals: 4,
            },
            |b| display_of(b, &board.variant),
        ),
        // A competition's gold is never listed (not even its hash).
        gold: if board.competition.is_some() {
            vec![]
        } else {
            board
                .gold
                .iter()
                .map(|f| file_out(&board.slug, f))
                .collect()
        },
        created: iso8601(board.created_ms),
        updated: iso8601(board.updated_ms),
        competition: comp.as_ref().map(|c| competition_info(c, owner)),
    }
}

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

fn internal(e: impl std::fmt::Display) -> LbError {
    LbError::Internal(e.to_string())
}

fn random_seed() -> Result<u64, LbError> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(internal)?;
    Ok(u64::from_le_bytes(bytes))
}

/// Unix ms of an ISO 8601 UTC time (`YYYY-MM-DDTHH:MM[:SS]Z`, or a date) or of a number.
fn instant(what: &str, v: &Value) -> Result<Option<i64>, LbError> {
    let bad = || {
        LbError::BadRequest(format!(
            "{what}: expected a UTC time like 2026-05-01T00:00:00Z or Unix milliseconds, got {v}"
        ))
    };
    match v {
        Value::Null => Ok(None),
        Value::Number(n) => n.as_i64().map(Some).ok_or_else(bad),
        Value::String(t) => parse_iso8601(t).map(Some).ok_or_else(bad),
        _ => Err(bad()),
    }
}

fn apply_settings(c: &mut Competition, s: PhaseSettings) -> Result<(), LbError> {
    if let Some(v) = s.public_share {
        c.public_share = v;
    }
    if let Some(v) = s.seed {
        c.seed = v;
    }
    if let Some(v) = &s.opens {
        c.opens_ms = instant("opens", v)?;
    }
    if let Some(v) = &s.closes {
        c.closes_ms = instant("closes", v)?;
    }
    if let Some(v) = s.daily_quota {
        c.daily_quota = Some(v);
    }
    if let Some(v) = s.total_quota {
        c.total_quota = Some(v);
    }
    if let Some(v) = s.counts {
        c.counts = v;
    }
    c.check().map_err(LbError::BadRequest)
}

/// Start of the UTC day of `ms`.
fn day_start(ms: i64) -> i64 {
    ms - ms.rem_euclid(86_400_000)
}

impl Boards {
    pub fn new(store: Arc<dyn Store>, limits: SubmitLimits) -> Self {
        Self {
            store,
            limits,
            queue_notify: Arc::new(tokio::sync::Notify::new()),
            bootstrap_lock: Arc::new(tokio::sync::Mutex::new(())),
            scoring: Arc::new(tokio::sync::Semaphore::new(limits.scoring_jobs.max(1))),
            refused: Recent::default(),
            created: Recent::default(),
        }
    }

    /// A turn at scoring ([`Boards::scoring`]), to move into the blocking work.
    async fn scoring_slot(&self) -> Result<OwnedSemaphorePermit, tokio::sync::AcquireError> {
        self.scoring.clone().acquire_owned().await
    }

    pub async fn board(&self, slug: &str) -> Result<BoardRow, LbError> {
        self.store
            .board(slug)
            .await?
            .ok_or_else(|| LbError::NotFound(format!("no leaderboard `{slug}`")))
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
    pub async fn create(
        &self,
        req: CreateBoard,
        sender: Client,
    ) -> Result<(String, String), LbError> {
        let now = now_ms();
        let who = sender.address_key();
        let made = self.created.count(&who, now - HOUR_MS);
        if made >= self.limits.boards_per_client_hour {
            return Err(LbError::Quota(format!(
                "this client address has created {made} boards in the last hour, the most it \
                 may (the server's --anon-boards-per-hour): try again later"
            )));
        }
        let created = self.create_board(req).await;
        if created.is_ok() {
            self.created.add(&who, now);
        }
        created
    }

    async fn create_board(&self, req: CreateBoard) -> Result<(String, String), LbError> {
        check_slug(&req.slug)?;
        check_text("title", &req.title, 200, true)?;
        check_text(
            "description",
            &req.description,
            MAX_DESCRIPTION_CHARS,
            false,
        )?;
        let bench = scoring::benchmark(&req.benchmark).map_err(|e| LbError::BadRequest(e.0))?;
        let variant_name = req
            .variant
            .clone()
            .unwrap_or_else(|| bench.variants()[0].report_name.to_string());
        scoring::variant(bench, &variant_name).map_err(|e| LbError::BadRequest(e.0))?;
        let metrics: Vec<String> = req
            .metrics
            .clone()
            .unwrap_or_else(|| bench.metrics().iter().map(|m| (*m).to_string()).collect());
        let primary = req
            .primary
            .clone()
            .unwrap_or_else(|| bench.primary_metric().to_string());
        check_metric_names(bench, &primary, &metrics)?;
        let hidden = !req.hidden_gold.is_empty();
        if hidden && !req.gold.is_empty() {
            return Err(LbError::BadRequest(
                "give the gold as `gold` (public) or `hidden_gold`, not both".into(),
            ));
        }
        if !hidden && req.competition.is_some() {
            return Err(LbError::BadRequest(
                "phase settings need a hidden-gold board (`hidden_gold`)".into(),
            ));
        }
        let competition = if hidden {
            let mut c = Competition {
                seed: random_seed()?,
                ..Default::default()
            };
            if let Some(settings) = req.competition {
                apply_settings(&mut c, settings)?;
            }
            Some(crate::store::json_text(&c))
        } else {
            None
        };
        // Decoding the files, finding their roles and rendering the description are CPU work:
        // off the runtime's threads.
        let files = if hidden { req.hidden_gold } else { req.gold };
        let description = req.description.clone();
        let (gold, description_html) = tokio::task::spawn_blocking(move || {
            let gold = scoring::with_roles(bench, uploads(files)?, true)?;
            let html = super::html::description_html(&description).map_err(LbError::BadRequest)?;
            Ok::<_, LbError>((gold, html))
        })
        .await
        .map_err(internal)??;
        let owner = token::new_token(token::OWNER_PREFIX).map_err(internal)?;
        let now = now_ms();
        let (refs, blobs) = stored_files(&gold);
        let board = BoardRow {
            slug: req.slug.clone(),
            title: req.title,
            description: req.description,
            benchmark: bench.key().into(),
            variant: variant_name,
            primary_metric: primary,
            metrics,
            gold: refs,
            owner_token_sha256: token::hash(&owner),
            created_ms: now,
            updated_ms: now,
            competition,
            description_html: Some(description_html),
        };
        // A hidden gold's hash is not recorded where the owner could be asked to show it.
        let gold_detail: Value = if hidden {
            json!({"hidden": board.gold.len()})
        } else {
            json!(
                board
                    .gold
                    .iter()
                    .map(|f| json!({"name": f.name, "sha256": f.sha256}))
                    .collect::<Vec<_>>()
            )
        };
        let detail = json!({
            "title": board.title, "benchmark": board.benchmark, "variant": board.variant,
            "primary": board.primary_metric,
            "gold": gold_detail,
        });
        self.store
            .create_board(board, blobs, audit("public", "create board", None, detail))
            .await?;
        Ok((req.slug, owner))
    }

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

    /// Score and store an entry; returns (entry id, entry token, report without samples).
    pub async fn submit(
        &self,
        slug: &str,
        req: Submit,
        sender: Client,
        body: OwnedSemaphorePermit,
    ) -> Result<(i64, String, Report), LbError> {
        check_text("model", &req.model, 200, true)?;
        let mut req = req;
        let meta = check_meta(std::mem::take(&mut req.meta))?;
        let board = self.board(slug).await?;
        if board.competition.is_some() {
            return Err(LbError::BadRequest(format!(
                "`{slug}` is a competition: its submissions are queued (send them with a team \
                 token)"
            )));
        }
        if req.files.is_empty() {
            return Err(LbError::BadRequest("no prediction files".into()));
        }
        // Refused before the scoring's CPU is spent when a limit is used up already (checked
        // again with the insert, where it is race-free).
        let refusals = sender.key(slug);
        let limits = self.anonymous_limits(refusals.clone());
        self.store.check_limits(slug, limits.clone()).await?;
        let refused = self.refused.count(&refusals, now_ms() - HOUR_MS);
        if refused >= self.limits.per_client_hour {
            return Err(LbError::Quota(format!(
                "this client address has had {refused} submissions to this board refused in the \
                 last hour, the most it may (the server's --anon-submits-per-hour): try again later"
            )));
        }
        // Counted as refused until it is stored: a client that hangs up while its files are
        // scored (the work goes on) has spent one too.
        let attempt = now_ms();
        self.refused.add(&refusals, attempt);
        let outcome = self
            .score_and_store(slug, &board, req, meta, limits, body)
            .await;
        if outcome.is_ok() {
            self.refused.remove(&refusals, attempt);
        }
        outcome
    }

    /// [`Boards::submit`] after its checks: score, compare with the client's numbers, store.
    async fn score_and_store(
        &self,
        slug: &str,
        board: &BoardRow,
        req: Submit,
        meta: BTreeMap<String, String>,
        limits: crate::store::Limits,
        body: OwnedSemaphorePermit,
    ) -> Result<(i64, String, Report), LbError> {
        let gold = self.gold_files(board).await?;
        let (benchmark, variant) = (board.benchmark.clone(), board.variant.clone());
        let max_samples = self.limits.max_entry_samples;
        let files_in = req.files;
        // The scoring slot and the body's budget go with the work, so a client that hangs up
        // frees them only when the work is done; held here until the entry is stored.
        let slot = self.scoring_slot().await.map_err(internal)?;
        let (scored, _held) = tokio::task::spawn_blocking(move || {
            let work = || {
                let bench = scoring::benchmark(&benchmark)?;
                let variant = scoring::variant(bench, &variant)?;
                let files = scoring::with_roles(bench, uploads(files_in)?, false)?;
                let scored =
                    scoring::score_entry_limited(bench, variant, &gold, &files, max_samples)?;
                Ok::<_, LbError>((files, scored))
            };
            (work(), (slot, body))
        })
        .await
        .map_err(internal)?;
        let (files, scored) = scored?;
        let report = scored.report;
        if let Some(client) = &req.client_report {
            // Each file the server read, against the client's hash of the file it names the same
            // (a dropped file's hash may still be pending: ""; its gold may carry other names:
            // the numbers then tell).
            let mut differences: Vec<scoring::Difference> = Vec::new();
            for ours in &report.inputs {
                let theirs = client
                    .inputs
                    .iter()
                    .find(|i| i.path == ours.path && !i.sha256.is_empty());
                if let Some(theirs) = theirs.filter(|t| t.sha256 != ours.sha256) {
                    differences.push(scoring::Difference {
                        at: format!("inputs[{}].sha256", ours.path),
                        server: ours.sha256.clone().into(),
                        other: theirs.sha256.clone().into(),
                    });
                }
            }
            differences.extend(scoring::metric_differences(&report, client));
            if !differences.is_empty() {
                return Err(LbError::Mismatch {
                    message: format!(
                        "the client's numbers or input hashes differ from the server's in {} value(s), first {}",
                        differences.len(),
                        differences[0].at
                    ),
                    differences,
                });
            }
        }
        let entry_token = token::new_token(token::ENTRY_PREFIX).map_err(internal)?;
        let (refs, blobs) = stored_files(&files);
        let now = now_ms();
        let metrics = scoring::overall_scalars(&report);
        let row = EntryRow {
            meta,
            files: refs,
            metrics_json: crate::store::json_text(&metrics),
            scorer_json: scorer().to_string(),
            entry_token_sha256: Some(token::hash(&entry_token)),
            ..EntryRow::new(req.model.clone(), "verified", now)
        };
        let detail = json!({
            "model": req.model,
            "inputs": report.inputs,
            "primary": metrics.get(&board.primary_metric).copied().flatten(),
        });
        let report_json = serde_json::to_string(&report).map_err(internal)?;
        let id = self
            .store
            .add_entry(
                slug,
                row,
                Some(report_json),
                blobs,
                limits,
                audit("public", "submit", None, detail),
            )
            .await?;
        let mut shown = report;
        shown.samples = None;
        Ok((id, entry_token, shown))
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
        self.store
            .blob(sha256)
            .await?
            .ok_or_else(|| LbError::Internal(format!("blob {sha256} is missing")))
    }

    /// The ranked board: visible entries, or every entry for the owner.
    pub async fn show(
        self: &Arc<Self>,
        slug: &str,
        owner_token: Option<&str>,
    ) -> Result<BoardView, LbError> {
        let board = self.board(slug).await?;
        let include_all = owner_token.is_some_and(|t| token::matches(t, &board.owner_token_sha256));
        let entries: Vec<EntryRow> = self
            .store
            .entries(slug)
            .await?
            .into_iter()
            .filter(|e| include_all || e.state == "visible")
            .collect();
        let comp = Competition::parse(board.competition.as_deref());
        let entries = match &comp {
            Some(c) => counted(&board, c, entries),
            None => entries,
        };
        let Ranking {
            metrics,
            candidates,
            ranked,
            leader,
            lower,
        } = ranking(&board, &entries);
        let primary = board.primary_metric.clone();
        let intervals = match leader {
            Some(l) => {
                let have = self.cached_intervals(&board, entries[l].id).await?;
                if !missing(&entries, &ranked, l, &have).is_empty() {
                    self.spawn_bootstrap(board.slug.clone());
                }
                have
            }
            None => Default::default(),
        };
        let sign = if lower { -1.0 } else { 1.0 };
        let leader_value = leader.and_then(|l| candidates[l].value);
        let spreads: Vec<Option<Spread>> = ranked
            .iter()
            .map(|&(i, r)| {
                r?;
                if Some(i) == leader {
                    return Some(Spread {
                        low: 0.0,
                        high: 0.0,
                        computed: true,
                    });
                }
                if let Some(iv) = intervals.get(&entries[i].id)
                    && let (Some(lo), Some(hi)) = (iv.low, iv.high)
                {
                    let (lo, hi) = (sign * lo, sign * hi);
                    return Some(Spread {
                        low: lo.min(hi),
                        high: lo.max(hi),
                        computed: true,
                    });
                }
                let d = sign * (candidates[i].value? - leader_value?);
                Some(Spread {
                    low: d,
                    high: d,
                    computed: false,
                })
            })
            .collect();
        let ranges = rank::rank_ranges(&spreads);
        let verified_pending = ranked
            .iter()
            .filter(|&&(i, r)| {
                r.is_some()
                    && entries[i].status == "verified"
                    && Some(i) != leader
                    && !intervals.contains_key(&entries[i].id)
            })
            .count();
        let out: Vec<EntryOut> = ranked
            .iter()
            .zip(ranges)
            .map(|(&(i, r), range)| {
                let e = &entries[i];
                let versus = intervals.get(&e.id).cloned();
                let tied = versus.as_ref().and_then(|v| match (v.low, v.high) {
                    (Some(lo), Some(hi)) => Some(lo <= 0.0 && 0.0 <= hi),
                    _ => None,
                });
                EntryOut {
                    entry: e.id,
                    rank: r,
                    rank_range: range,
                    tied_with_leader: if Some(i) == leader { None } else { tied },
                    versus_leader: versus,
                    model: e.model.clone(),
                    metrics: metrics[i].clone(),
                    status: e.status.clone(),
                    state: e.state.clone(),
                    inputs: e.files.iter().map(|f| file_out(slug, f)).collect(),
                    meta: e.meta.clone(),
                    submitted: iso8601(e.created_ms),
                    submitted_ms: e.created_ms,
                    scorer: serde_json::from_str(&e.scorer_json).unwrap_or(Value::Null),
                    team: e.team.clone(),
                    public_metrics: comp.as_ref().map(|_| shares_of(e).public),
                    private_metrics: comp
                        .as_ref()
                        .filter(|c| c.closed_ms.is_some())
                        .map(|_| shares_of(e).private),
                }
            })
            .collect();
        Ok(BoardView {
            bootstrap: BootstrapInfo {
                metric: primary,
                seed: scoring::BOOTSTRAP_SEED,
                resamples: scoring::BOOTSTRAP_RESAMPLES,
                leader: leader.map(|l| entries[l].id),
                computed: ranked
                    .iter()
                    .filter(|&&(i, _)| intervals.contains_key(&entries[i].id))
                    .count(),
                pending: verified_pending,
            },
            board: board_info_for(&board, include_all),
            entries: out,
        })
    }

    async fn cached_intervals(
        &self,
        board: &BoardRow,
        leader_id: i64,
    ) -> Result<HashMap<i64, LeaderInterval>, LbError> {
        let cached = self
            .store
            .intervals(&board.slug, leader_id, &interval_key(board))
            .await?;
        Ok(cached
            .into_iter()
            .filter_map(|(id, json)| Some((id, serde_json::from_str(&json).ok()?)))
            .collect())
    }

    /// Compute the board's missing intervals in the background, unless this process is
    /// computing already; `show` returns the cached ones meanwhile (`bootstrap.pending`).
    fn spawn_bootstrap(self: &Arc<Self>, slug: String) {
        let Ok(guard) = self.bootstrap_lock.clone().try_lock_owned() else {
            return;
        };
        let this = Arc::clone(self);
        tokio::spawn(async move {
            let _guard = guard;
            loop {
                match this.bootstrap_batch(&slug).await {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(e) => {
                        tracing::warn!(slug, "leaderboard bootstrap stopped: {e}");
                        break;
                    }
                }
            }
        });
    }

    /// Compute and store up to [`BOOTSTRAP_BATCH`] missing intervals of the public ranking (best
    /// ranked first); returns how many.
    async fn bootstrap_batch(&self, slug: &str) -> Result<usize, LbError> {
        let board = self.board(slug).await?;
        let entries: Vec<EntryRow> = self
            .store
            .entries(slug)
            .await?
            .into_iter()
            .filter(|e| e.state == "visible")
            .collect();
        let ranking = ranking(&board, &entries);
        let Some(leader) = ranking.leader else {
            return Ok(0);
        };
        let leader_id = entries[leader].id;
        let have = self.cached_intervals(&board, leader_id).await?;
        let todo: Vec<usize> = missing(&entries, &ranking.ranked, leader, &have)
            .into_iter()
            .take(BOOTSTRAP_BATCH)
            .collect();
        if todo.is_empty() {
            return Ok(0);
        }
        let gold = self.gold_files(&board).await?;
        let leader_files = self.entry_files(&entries[leader]).await?;
        let mut jobs = Vec::new();
        for &i in &todo {
            jobs.push((entries[i].id, self.entry_files(&entries[i]).await?));
        }
        let (benchmark, variant, metric) = (
            board.benchmark.clone(),
            board.variant.clone(),
            board.primary_metric.clone(),
        );
        let slot = self.scoring_slot().await.map_err(internal)?;
        let results = tokio::task::spawn_blocking(move || {
            let _slot = slot;
            let bench = scoring::benchmark(&benchmark)?;
            let variant = scoring::variant(bench, &variant)?;
            let leader = scoring::score_records(bench, variant, &gold, &leader_files)?;
            Ok::<_, ScoringError>(
                jobs.into_iter()
                    .map(|(id, files)| {
                        let interval = scoring::score_records(bench, variant, &gold, &files)
                            .map(|s| scoring::leader_interval(&s, &leader, variant, &metric))
                            .unwrap_or_else(|e| LeaderInterval {
                                difference: None,
                                low: None,
                                high: None,
                                resamples_defined: 0,
                                unavailable: Some(e.0),
                            });
                        (id, interval)
                    })
                    .collect::<Vec<_>>(),
            )
        })
        .await
        .map_err(internal)??;
        let key = interval_key(&board);
        let rows: Vec<IntervalRow> = results
            .iter()
            .map(|(id, interval)| IntervalRow {
                entry: *id,
                leader: leader_id,
                key: key.clone(),
                result_json: crate::store::json_text(interval),
            })
            .collect();
        self.store.put_intervals(slug, rows).await?;
        Ok(results.len())
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

    /// One entry with its full report (`samples` only when asked).
    ///
    /// A competition entry: visible to everyone once scored, with the metrics of the phase
    /// (public share while open, every item once closed); its report (per-item results hold
    /// the hidden gold) only for the owner; its queue status for the owner, its team and its
    /// entry token.
    pub async fn entry(
        &self,
        slug: &str,
        id: i64,
        samples: bool,
        token: Option<&str>,
    ) -> Result<Value, LbError> {
        let board = self.board(slug).await?;
        let comp = Competition::parse(board.competition.as_deref());
        if let Some(c) = &comp {
            return self.competition_entry(&board, c, id, samples, token).await;
        }
        // Hidden and withdrawn entries: the owner sees them (as on the board), and so does the
        // entry's own token; anyone else gets 404.
        let owner = token.is_some_and(|t| token::matches(t, &board.owner_token_sha256));
        let e = self
            .store
            .entry(slug, id)
            .await?
            .filter(|e| {
                e.state == "visible"
                    || owner
                    || matches!((token, &e.entry_token_sha256),
                        (Some(t), Some(h)) if token::matches(t, h))
            })
            .ok_or_else(|| LbError::NotFound(format!("no entry {id} on `{slug}`")))?;
        let report: Option<Value> = match self.store.entry_report(slug, id).await? {
            Some(text) => Some(stored_report(&text, samples).map_err(internal)?),
            None => None,
        };
        Ok(json!({
            "board": board.slug,
            "benchmark": board.benchmark,
            "variant": board.variant,
            "entry": e.id,
            "model": e.model,
            "meta": e.meta,
            "status": e.status,
            "state": e.state,
            "metrics": crate::store::parse_json::<IndexMap<String, Option<f64>>>(&e.metrics_json),
            "inputs": e.files.iter().map(|f| file_out(slug, f)).collect::<Vec<_>>(),
            "gold": board.gold.iter().map(|f| file_out(slug, f)).collect::<Vec<_>>(),
            "submitted": iso8601(e.created_ms),
            "scorer": serde_json::from_str::<Value>(&e.scorer_json).unwrap_or(Value::Null),
            "table": report_table(report.as_ref()),
            "report": report,
        }))
    }

    async fn competition_entry(
        &self,
        board: &BoardRow,
        c: &Competition,
        id: i64,
        samples: bool,
        token: Option<&str>,
    ) -> Result<Value, LbError> {
        let slug = &board.slug;
        let not_found = || LbError::NotFound(format!("no entry {id} on `{slug}`"));
        let privileged = match token {
            Some(_) => match self.team_entry(slug, id, token).await {
                Ok((_, _, actor)) => Some(actor),
                Err(LbError::Forbidden(_)) => None,
                Err(e) => return Err(e),
            },
            None => None,
        };
        let e = self
            .store
            .entry(slug, id)
            .await?
            .filter(|e| privileged.is_some() || (e.state == "visible" && e.status == "done"))
            .ok_or_else(not_found)?;
        let owner = privileged == Some("owner");
        let shares = shares_of(&e);
        let closed = c.closed_ms.is_some();
        let metrics: Value = if e.status != "done" {
            json!({})
        } else if closed {
            serde_json::from_str(&e.metrics_json).unwrap_or(Value::Null)
        } else {
            json!(shares.public)
        };
        let report: Option<Value> = if owner {
            match self.store.entry_report(slug, id).await? {
                Some(text) => Some(stored_report(&text, samples).map_err(internal)?),
                None => None,
            }
        } else {
            None
        };
        let mut out = json!({
            "board": board.slug,
            "benchmark": board.benchmark,
            "variant": board.variant,
            "entry": e.id,
            "model": e.model,
            "team": e.team,
            "meta": e.meta,
            "status": e.status,
            "metrics": metrics,
            "metrics_on": if closed { "all items" } else { "public share" },
            "public_metrics": (e.status == "done").then_some(&shares.public),
            "private_metrics": (e.status == "done" && (closed || owner)).then_some(&shares.private),
            "inputs": e.files.iter().map(|f| file_out(slug, f)).collect::<Vec<_>>(),
            "gold": [],
            "hidden_gold": true,
            "submitted": iso8601(e.created_ms),
            "scorer": serde_json::from_str::<Value>(&e.scorer_json).unwrap_or(Value::Null),
            "table": report_table(report.as_ref()),
            "report": report,
        });
        if privileged.is_some() {
            out["reason"] = json!(e.reason);
            out["attempts"] = json!(e.attempts);
            out["completions"] = json!(e.completions);
            out["chosen"] = json!(e.chosen);
        }
        Ok(out)
    }

    /// A file of the board (gold or an entry's), by SHA-256. A competition's gold is never
    /// served; its entries' files only to the owner.
    pub async fn file(
        &self,
        slug: &str,
        sha256: &str,
        token: Option<&str>,
    ) -> Result<Vec<u8>, LbError> {
        let board = self.board(slug).await?;
        if board.competition.is_some() {
            let owner = token.is_some_and(|t| token::matches(t, &board.owner_token_sha256));
            let gold = board.gold.iter().any(|f| f.sha256 == sha256);
            if gold || !owner {
                return Err(LbError::NotFound(
                    "no such file (a competition's files are not served)".into(),
                ));
            }
        }
        // The gold and the files of visible entries are public; a hidden or withdrawn entry's
        // files only for the owner (unless a visible entry has the same file).
        let owner = token.is_some_and(|t| token::matches(t, &board.owner_token_sha256));
        if !self.store.board_has_file(slug, sha256, owner).await? {
            return Err(LbError::NotFound(format!("no file {sha256} on `{slug}`")));
        }
        self.blob(sha256).await
    }

    /// Hide, restore, withdraw or remove an entry with the owner or the entry token.
    pub async fn entry_action(
        &self,
        slug: &str,
        id: i64,
        token: Option<&str>,
        action: EntryAction,
    ) -> Result<&'static str, LbError> {
        let board = self.board(slug).await?;
        let e = self
            .store
            .entry(slug, id)
            .await?
            .ok_or_else(|| LbError::NotFound(format!("no entry {id} on `{slug}`")))?;
        let actor = who(&board, &e, token)?;
        if Competition::parse(board.competition.as_deref()).is_some_and(|c| c.closed_ms.is_some()) {
            return Err(LbError::Conflict(format!(
                "the phase of `{slug}` is closed: the ranking is final"
            )));
        }
        let (next, verb) = match (action, actor) {
            // Withdrawal is the submitter's decision: the owner can neither hide (and then
            // restore) a withdrawn entry nor undo it.
            (EntryAction::Hide, Actor::Owner) if e.state == "withdrawn" => {
                return Err(LbError::Conflict(format!(
                    "entry {id} was withdrawn by its submitter; only they can undo that"
                )));
            }
            (EntryAction::Hide, Actor::Owner) => ("hidden", "hide"),
            (EntryAction::Restore, Actor::Owner) if e.state == "hidden" => ("visible", "restore"),
            (EntryAction::Restore, Actor::Owner) => {
                return Err(LbError::Conflict(format!(
                    "entry {id} is {}, only a hidden entry can be restored",
                    e.state
                )));
            }
            (EntryAction::Withdraw | EntryAction::Remove, Actor::Entry) => {
                ("withdrawn", "withdraw")
            }
            (EntryAction::Remove, Actor::Owner) => {
                self.store
                    .delete_entry(
                        slug,
                        id,
                        audit(
                            "owner",
                            "delete",
                            Some(id),
                            json!({"model": e.model, "inputs": e.files.iter().map(|f| &f.sha256).collect::<Vec<_>>()}),
                        ),
                    )
                    .await?;
                return Ok("deleted");
            }
            (_, actor) => {
                return Err(LbError::Forbidden(format!(
                    "the {} token cannot {action:?} entry {id}",
                    actor.name()
                )));
            }
        };
        self.store
            .update_entry(
                slug,
                id,
                e.model.clone(),
                e.meta.clone(),
                next.into(),
                audit(
                    actor.name(),
                    verb,
                    Some(id),
                    json!({"state": {"from": e.state, "to": next}}),
                ),
            )
            .await?;
        Ok(next)
    }

    /// Edit an entry's model name and metadata (entry token).
    pub async fn edit_entry(
        &self,
        slug: &str,
        id: i64,
        token: Option<&str>,
        edit: EditEntry,
    ) -> Result<(), LbError> {
        let board = self.board(slug).await?;
        let e = self
            .store
            .entry(slug, id)
            .await?
            .ok_or_else(|| LbError::NotFound(format!("no entry {id} on `{slug}`")))?;
        if who(&board, &e, token)? != Actor::Entry {
            return Err(LbError::Forbidden(format!(
                "only the entry token of entry {id} edits its metadata"
            )));
        }
        let model = edit.model.unwrap_or_else(|| e.model.clone());
        check_text("model", &model, 200, true)?;
        let meta = match edit.meta {
            Some(m) => check_meta(m.into_iter().filter(|(_, v)| !v.is_empty()).collect())?,
            None => e.meta.clone(),
        };
        let detail = json!({
            "model": {"from": e.model, "to": model},
            "meta": {"from": e.meta, "to": meta},
        });
        self.store
            .update_entry(
                slug,
                id,
                model,
                meta,
                e.state.clone(),
                audit("entry", "edit", Some(id), detail),
            )
            .await?;
        Ok(())
    }

    /// Edit the board (owner).
    pub async fn edit_board(
        &self,
        slug: &str,
        token: Option<&str>,
        edit: EditBoard,
    ) -> Result<(), LbError> {
        let board = self.owned(slug, token).await?;
        let bench = scoring::benchmark(&board.benchmark)?;
        let description = edit
            .description
            .unwrap_or_else(|| board.description.clone());
        check_text("description", &description, MAX_DESCRIPTION_CHARS, false)?;
        let description_html = {
            let description = description.clone();
            tokio::task::spawn_blocking(move || super::html::description_html(&description))
                .await
                .map_err(internal)?
                .map_err(LbError::BadRequest)?
        };
        let next = BoardEdit {
            title: edit.title.unwrap_or_else(|| board.title.clone()),
            description,
            description_html,
            primary_metric: edit.primary.unwrap_or_else(|| board.primary_metric.clone()),
            metrics: edit.metrics.unwrap_or_else(|| board.metrics.clone()),
        };
        check_text("title", &next.title, 200, true)?;
        check_metric_names(bench, &next.primary_metric, &next.metrics)?;
        let detail = json!({
            "from": {"title": board.title, "description": board.description,
                     "primary": board.primary_metric, "metrics": board.metrics},
            "to": {"title": next.title, "description": next.description,
                   "primary": next.primary_metric, "metrics": next.metrics},
        });
        self.store
            .edit_board(slug, next, audit("owner", "edit board", None, detail))
            .await?;
        Ok(())
    }

    /// The audit log (owner).
    pub async fn audit_log(
        &self,
        slug: &str,
        token: Option<&str>,
    ) -> Result<Vec<AuditRow>, LbError> {
        self.owned(slug, token).await?;
        Ok(self.store.audit(slug).await?)
    }

    /// Import a table's rows as `reported` entries (owner); returns their ids.
    pub async fn import(
        &self,
        slug: &str,
        token: Option<&str>,
        rows: Vec<super::import::ReportedRow>,
    ) -> Result<Vec<i64>, LbError> {
        let board = self.owned(slug, token).await?;
        let mut ids = Vec::new();
        for row in rows {
            check_text("model", &row.model, 200, true)?;
            let meta = check_meta(row.meta)?;
            let now = now_ms();
            let detail = json!({"model": row.model, "metrics": row.metrics});
            let entry = EntryRow {
                meta,
                metrics_json: crate::store::json_text(&row.metrics),
                ..EntryRow::new(row.model, "reported", now)
            };
            ids.push(
                self.store
                    .add_entry(
                        &board.slug,
                        entry,
                        None,
                        vec![],
                        crate::store::Limits::default(),
                        audit("owner", "import", None, detail),
                    )
                    .await?,
            );
        }
        Ok(ids)
    }
}

/// The ranked entries of a board.
struct Ranking {
    metrics: Vec<IndexMap<String, Option<f64>>>,
    candidates: Vec<Candidate>,
    /// (index into the entries, rank) in ranked order.
    ranked: Vec<(usize, Option<usize>)>,
    /// The best-ranked verified entry: every interval is against it.
    leader: Option<usize>,
    lower: bool,
}

fn ranking(board: &BoardRow, entries: &[EntryRow]) -> Ranking {
    let metrics: Vec<IndexMap<String, Option<f64>>> = entries
        .iter()
        .map(|e| crate::store::parse_json(&e.metrics_json))
        .collect();
    let primary = &board.primary_metric;
    let lower = LOWER_IS_BETTER.contains(&primary.as_str());
    // Hidden and withdrawn entries (listed for the owner only) take no rank.
    let candidates: Vec<Candidate> = entries
        .iter()
        .zip(&metrics)
        .map(|(e, m)| Candidate {
            value: m
                .get(primary)
                .copied()
                .flatten()
                .filter(|_| e.state == "visible"),
            created_ms: e.created_ms,
            id: e.id,
        })
        .collect();
    let ranked = rank::rank(&candidates, lower);
    let leader = ranked
        .iter()
        .find(|&&(i, r)| r.is_some() && entries[i].status == "verified")
        .map(|&(i, _)| i);
    Ranking {
        metrics,
        candidates,
        ranked,
        leader,
        lower,
    }
}

/// Ranked verified entries other than the leader without a cached interval, best first.
fn missing(
    entries: &[EntryRow],
    ranked: &[(usize, Option<usize>)],
    leader: usize,
    have: &HashMap<i64, LeaderInterval>,
) -> Vec<usize> {
    ranked
        .iter()
        .filter(|&&(i, r)| {
            r.is_some()
                && i != leader
                && entries[i].status == "verified"
                && !have.contains_key(&entries[i].id)
        })
        .map(|&(i, _)| i)
        .collect()
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

fn check_metric_names(
    bench: &dyn workbench::Benchmark,
    primary: &str,
    metrics: &[String],
) -> Result<(), LbError> {
    let known = bench.metrics();
    for m in std::iter::once(primary).chain(metrics.iter().map(String::as_str)) {
        if !known.contains(&m) {
            return Err(LbError::BadRequest(format!(
                "{} has no metric `{m}`; its metrics: {}",
                bench.label(),
                known.join(", ")
            )));
        }
    }
    Ok(())
}

/// File references and blobs of work files.
fn stored_files(files: &[WorkFile]) -> (Vec<FileRef>, Vec<Blob>) {
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
                Blob {
                    sha256,
                    bytes: f.bytes.to_vec(),
                },
            )
        })
        .unzip()
}

/// Prefix of team tokens (submit to a competition, see and cancel the team's submissions).
pub const TEAM_PREFIX: &str = "sbt_";

/// `POST /api/v1/leaderboards/{slug}/teams` body (owner).
#[derive(Debug, Deserialize)]
pub struct AddTeam {
    pub name: String,
}

/// One submission of a competition as its team and the owner see it.
#[derive(Debug, Clone, Serialize)]
pub struct SubmissionOut {
    pub entry: i64,
    pub team: Option<String>,
    pub model: String,
    /// `queued` | `scoring` | `done` | `failed` | `cancelled`.
    pub status: String,
    pub reason: Option<String>,
    pub attempts: i64,
    /// Times a result was committed (1 once done or failed).
    pub completions: i64,
    pub chosen: bool,
    pub counts_against_quota: bool,
    pub public_metrics: Option<IndexMap<String, Option<f64>>>,
    /// Once the phase is closed (and always for the owner).
    pub private_metrics: Option<IndexMap<String, Option<f64>>>,
    pub inputs: Vec<FileOut>,
    pub submitted: String,
    pub updated: String,
    pub scorer: Value,
}

fn shares_of(e: &EntryRow) -> competition::ShareScores {
    e.scores_json
        .as_deref()
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or_default()
}

/// The entries that count on a competition board: done ones, one per team (an entry without a
/// team counts alone), chosen by `counts` on the public share; each with the metrics shown now
/// (public share while open, every item once closed).
fn counted(board: &BoardRow, c: &Competition, entries: Vec<EntryRow>) -> Vec<EntryRow> {
    let primary = &board.primary_metric;
    let sign = if LOWER_IS_BETTER.contains(&primary.as_str()) {
        -1.0
    } else {
        1.0
    };
    let mut best: IndexMap<String, EntryRow> = IndexMap::new();
    for e in entries.into_iter().filter(|e| e.status == "done") {
        let key = e.team.clone().unwrap_or_else(|| format!("#{}", e.id));
        let public = |e: &EntryRow| {
            shares_of(e)
                .public
                .get(primary)
                .copied()
                .flatten()
                .map(|v| sign * v)
        };
        let replace = match best.get(&key) {
            None => true,
            Some(cur) => match c.counts {
                Counts::Latest => true,
                Counts::Chosen => e.chosen || !cur.chosen,
                // Strictly better replaces: ties keep the earlier entry.
                Counts::Best => match (public(&e), public(cur)) {
                    (Some(a), Some(b)) => a > b,
                    (Some(_), None) => true,
                    _ => false,
                },
            },
        };
        if replace {
            best.insert(key, e);
        }
    }
    best.into_values()
        .map(|mut e| {
            if c.closed_ms.is_none() {
                e.metrics_json = crate::store::json_text(&shares_of(&e).public);
            }
            e
        })
        .collect()
}

impl Boards {
    /// The team whose token this is, on a competition board.
    async fn team_of(&self, slug: &str, token: Option<&str>) -> Result<Option<String>, LbError> {
        let Some(t) = token else { return Ok(None) };
        Ok(self
            .store
            .teams(slug)
            .await?
            .into_iter()
            .find(|team| token::matches(t, &team.token_sha256))
            .map(|team| team.name))
    }

    /// Issue a team token (owner); returns it (shown once).
    pub async fn add_team(
        &self,
        slug: &str,
        token: Option<&str>,
        req: AddTeam,
    ) -> Result<String, LbError> {
        let board = self.owned(slug, token).await?;
        if board.competition.is_none() {
            return Err(LbError::BadRequest(format!(
                "`{slug}` is not a competition (create it with hidden gold)"
            )));
        }
        check_text("team name", &req.name, 100, true)?;
        let team_token = token::new_token(TEAM_PREFIX).map_err(internal)?;
        let now = now_ms();
        self.store
            .add_team(
                slug,
                TeamRow {
                    name: req.name.clone(),
                    token_sha256: token::hash(&team_token),
                    created_ms: now,
                },
                audit("owner", "add team", None, json!({"team": req.name})),
            )
            .await?;
        Ok(team_token)
    }

    /// Change the phase settings or close the phase (owner).
    pub async fn set_phase(
        &self,
        slug: &str,
        token: Option<&str>,
        settings: PhaseSettings,
    ) -> Result<CompetitionInfo, LbError> {
        let board = self.owned(slug, token).await?;
        let Some(mut c) = Competition::parse(board.competition.as_deref()) else {
            return Err(LbError::BadRequest(format!(
                "`{slug}` is not a competition (create it with hidden gold)"
            )));
        };
        if c.closed_ms.is_some() {
            return Err(LbError::Conflict(format!(
                "the phase of `{slug}` is closed: the ranking is final"
            )));
        }
        let before = c.clone();
        let close = settings.close;
        apply_settings(&mut c, settings)?;
        if close {
            let pending = self
                .store
                .entries(slug)
                .await?
                .iter()
                .filter(|e| e.status == "queued" || e.status == "scoring")
                .count();
            if pending > 0 {
                return Err(LbError::Conflict(format!(
                    "{pending} submission(s) are still queued or scoring; close when they are done"
                )));
            }
            c.closed_ms = Some(now_ms());
        }
        let detail = json!({"from": before, "to": c});
        self.store
            .set_competition(
                slug,
                crate::store::json_text(&c),
                audit(
                    "owner",
                    if close {
                        "close phase"
                    } else {
                        "phase settings"
                    },
                    None,
                    detail,
                ),
            )
            .await?;
        Ok(competition_info(&c, true))
    }

    /// Queue a submission to a competition board; returns (entry, entry token, team).
    pub async fn submit_competition(
        &self,
        slug: &str,
        token: Option<&str>,
        req: Submit,
        sender: Client,
        body: OwnedSemaphorePermit,
    ) -> Result<(i64, String, Option<String>, Vec<FileOut>), LbError> {
        check_text("model", &req.model, 200, true)?;
        let meta = check_meta(req.meta)?;
        let board = self.board(slug).await?;
        let Some(c) = Competition::parse(board.competition.as_deref()) else {
            return Err(LbError::BadRequest(format!(
                "`{slug}` is not a competition"
            )));
        };
        if req.client_report.is_some() {
            return Err(LbError::BadRequest(
                "a competition's gold is hidden: client numbers cannot be compared".into(),
            ));
        }
        let now = now_ms();
        if let Some(why) = c.window_refusal(now) {
            return Err(LbError::Conflict(why));
        }
        let has_teams = !self.store.teams(slug).await?.is_empty();
        let team = self.team_of(slug, token).await?;
        if has_teams && team.is_none() {
            return Err(LbError::Forbidden(format!(
                "`{slug}` takes submissions with a team token the owner issued \
                 (Authorization: Bearer sbt_…)"
            )));
        }
        if req.files.is_empty() {
            return Err(LbError::BadRequest("no prediction files".into()));
        }
        // The quota counts per team; without teams, per client address, which then also has
        // the anonymous hourly limits. Checked before the files are read, and again with the
        // insert (race-free).
        let limits = match &team {
            Some(t) => crate::store::Limits {
                quota: Some(Quota {
                    who: Submitter::Team(t.clone()),
                    daily: c.daily_quota,
                    total: c.total_quota,
                    since_ms: day_start(now),
                }),
                anonymous: None,
                max_board_bytes: Some(self.limits.max_board_bytes),
            },
            None => {
                let client = sender.key(slug);
                let mut limits = self.anonymous_limits(client.clone());
                limits.quota = Some(Quota {
                    who: Submitter::Client(client),
                    daily: c.daily_quota,
                    total: c.total_quota,
                    since_ms: day_start(now),
                });
                limits
            }
        };
        self.store.check_limits(slug, limits.clone()).await?;
        let benchmark = board.benchmark.clone();
        let files_in = req.files;
        let (files, _body) = tokio::task::spawn_blocking(move || {
            let work = || {
                let bench = scoring::benchmark(&benchmark)?;
                Ok::<_, LbError>(scoring::with_roles(bench, uploads(files_in)?, false)?)
            };
            (work(), body)
        })
        .await
        .map_err(internal)?;
        let files = files?;
        let entry_token = token::new_token(token::ENTRY_PREFIX).map_err(internal)?;
        let (refs, blobs) = stored_files(&files);
        let inputs: Vec<FileOut> = refs.iter().map(|f| file_out(slug, f)).collect();
        let row = EntryRow {
            meta,
            files: refs,
            scorer_json: scorer().to_string(),
            entry_token_sha256: Some(token::hash(&entry_token)),
            team: team.clone(),
            ..EntryRow::new(req.model.clone(), "queued", now)
        };
        let detail = json!({
            "model": req.model, "team": team,
            "inputs": inputs.iter().map(|f| json!({"name": f.name, "sha256": f.sha256})).collect::<Vec<_>>(),
        });
        let id = self
            .store
            .add_submission(
                slug,
                row,
                blobs,
                limits,
                audit("public", "submit", None, detail),
            )
            .await?;
        self.queue_notify.notify_one();
        Ok((id, entry_token, team, inputs))
    }

    /// Score a claimed job. `Err` only when the store failed (the lease then expires and the
    /// job is retried); a scoring error is a failed result with a reason the team may read.
    pub async fn score_job(&self, job: &Job) -> Result<JobResult, String> {
        let board = self.board(&job.slug).await.map_err(|e| e.to_string())?;
        let c = Competition::parse(board.competition.as_deref()).unwrap_or_default();
        let e = self
            .store
            .entry(&job.slug, job.entry)
            .await
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("entry {} of `{}` is gone", job.entry, job.slug))?;
        let gold = self.gold_files(&board).await.map_err(|e| e.to_string())?;
        let files = self.entry_files(&e).await.map_err(|e| e.to_string())?;
        let gold_names: Vec<String> = gold.iter().map(|f| f.name.clone()).collect();
        let (benchmark, variant) = (board.benchmark.clone(), board.variant.clone());
        let max_samples = self.limits.max_entry_samples;
        let slot = self.scoring_slot().await.map_err(|e| e.to_string())?;
        let scored = tokio::task::spawn_blocking(move || {
            let _slot = slot;
            competition::score_competition_entry(
                &benchmark,
                &variant,
                &gold,
                &files,
                &c,
                max_samples,
            )
        })
        .await
        .map_err(|e| e.to_string())?;
        let at_ms = now_ms();
        Ok(match scored {
            Ok((scored, shares)) => {
                let report = scored.report;
                JobResult {
                    status: "done".into(),
                    reason: None,
                    metrics_json: crate::store::json_text(&scoring::overall_scalars(&report)),
                    scores_json: Some(competition::scores_json(&shares)),
                    report_json: Some(serde_json::to_string(&report).map_err(|e| e.to_string())?),
                    at_ms,
                }
            }
            Err(e) => JobResult {
                status: "failed".into(),
                reason: Some(competition::public_reason(&e.0, &gold_names)),
                metrics_json: "{}".into(),
                scores_json: None,
                report_json: None,
                at_ms,
            },
        })
    }

    /// A competition's submissions: all for the owner, the team's own for a team token.
    pub async fn submissions(
        &self,
        slug: &str,
        token: Option<&str>,
    ) -> Result<Vec<SubmissionOut>, LbError> {
        let board = self.board(slug).await?;
        let Some(c) = Competition::parse(board.competition.as_deref()) else {
            return Err(LbError::BadRequest(format!(
                "`{slug}` is not a competition"
            )));
        };
        let owner = token.is_some_and(|t| token::matches(t, &board.owner_token_sha256));
        let team = if owner {
            None
        } else {
            match self.team_of(slug, token).await? {
                Some(t) => Some(t),
                None => {
                    return Err(LbError::Forbidden(format!(
                        "the owner token of `{slug}` or a team token is required"
                    )));
                }
            }
        };
        Ok(self
            .store
            .entries(slug)
            .await?
            .into_iter()
            .filter(|e| owner || e.team == team)
            .map(|e| {
                let shares = shares_of(&e);
                let done = e.status == "done";
                SubmissionOut {
                    entry: e.id,
                    team: e.team.clone(),
                    model: e.model.clone(),
                    status: e.status.clone(),
                    reason: e.reason.clone(),
                    attempts: e.attempts,
                    completions: e.completions,
                    chosen: e.chosen,
                    counts_against_quota: e.status != "failed" && e.status != "cancelled",
                    public_metrics: done.then(|| shares.public.clone()),
                    private_metrics: (done && (owner || c.closed_ms.is_some()))
                        .then(|| shares.private.clone()),
                    inputs: e.files.iter().map(|f| file_out(slug, f)).collect(),
                    submitted: iso8601(e.created_ms),
                    updated: iso8601(e.updated_ms),
                    scorer: serde_json::from_str(&e.scorer_json).unwrap_or(Value::Null),
                }
            })
            .collect())
    }

    /// The entry when `token` is its team's, its own entry token or the owner's.
    async fn team_entry(
        &self,
        slug: &str,
        id: i64,
        token: Option<&str>,
    ) -> Result<(BoardRow, EntryRow, &'static str), LbError> {
        let board = self.board(slug).await?;
        let e = self
            .store
            .entry(slug, id)
            .await?
            .ok_or_else(|| LbError::NotFound(format!("no entry {id} on `{slug}`")))?;
        let t = token.ok_or_else(|| {
            LbError::Forbidden("a token is required (Authorization: Bearer …)".into())
        })?;
        if token::matches(t, &board.owner_token_sha256) {
            return Ok((board, e, "owner"));
        }
        if e.entry_token_sha256
            .as_deref()
            .is_some_and(|h| token::matches(t, h))
        {
            return Ok((board, e, "entry"));
        }
        let team = self.team_of(slug, Some(t)).await?;
        if team.is_some() && team == e.team {
            return Ok((board, e, "team"));
        }
        Err(LbError::Forbidden(format!(
            "this token is not the owner's, the team's or entry {id}'s"
        )))
    }

    /// Cancel a queued submission (team, entry or owner token): it no longer counts against
    /// the quota.
    pub async fn cancel(&self, slug: &str, id: i64, token: Option<&str>) -> Result<(), LbError> {
        let (_, e, actor) = self.team_entry(slug, id, token).await?;
        let job = Job {
            slug: slug.into(),
            entry: id,
        };
        let detail = json!({"status": {"from": e.status, "to": "cancelled"}});
        if self
            .store
            .cancel_job(&job, audit(actor, "cancel", Some(id), detail))
            .await?
        {
            Ok(())
        } else {
            Err(LbError::Conflict(format!(
                "entry {id} is {}: only a queued submission can be cancelled",
                e.status
            )))
        }
    }

    /// Make a done entry its team's chosen one (team or entry token).
    pub async fn choose(&self, slug: &str, id: i64, token: Option<&str>) -> Result<(), LbError> {
        let (board, e, actor) = self.team_entry(slug, id, token).await?;
        let c = Competition::parse(board.competition.as_deref()).unwrap_or_default();
        if c.closed_ms.is_some() {
            return Err(LbError::Conflict("the phase is closed".into()));
        }
        let Some(team) = e.team.clone() else {
            return Err(LbError::BadRequest(format!("entry {id} has no team")));
        };
        if e.status != "done" {
            return Err(LbError::Conflict(format!(
                "entry {id} is {}: only a scored entry can be chosen",
                e.status
            )));
        }
        self.store
            .choose_entry(
                slug,
                &team,
                id,
                audit(actor, "choose", Some(id), json!({"team": team})),
            )
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_keys_are_canonical_and_links_http_only() {
        let m = |pairs: &[(&str, &str)]| {
            check_meta(
                pairs
                    .iter()
                    .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                    .collect(),
            )
        };
        let ok = m(&[("params", "7B"), ("Open-Weights", "Yes"), ("org", "x")]).unwrap();
        assert_eq!(ok["parameters"], "7B");
        assert_eq!(ok["open_weights"], "yes");
        assert_eq!(ok["organisation"], "x");
        assert!(m(&[("link", "javascript:alert(1)")]).is_err());
        assert!(m(&[("link", "https://example.org/m")]).is_ok());
        assert!(m(&[("open_weights", "maybe")]).is_err());
        assert!(m(&[("bad key!", "x")]).is_err());
    }

    fn board_row() -> BoardRow {
        BoardRow {
            slug: "c".into(),
            title: "c".into(),
            description: String::new(),
            benchmark: "eotgc".into(),
            variant: "official".into(),
            primary_metric: "score".into(),
            metrics: vec!["score".into()],
            gold: vec![],
            owner_token_sha256: String::new(),
            created_ms: 0,
            updated_ms: 0,
            competition: Some("{}".into()),
            description_html: None,
        }
    }

    fn done(id: i64, team: Option<&str>, public: f64, status: &str, chosen: bool) -> EntryRow {
        EntryRow {
            id,
            team: team.map(str::to_string),
            chosen,
            metrics_json: json!({"score": 0.5}).to_string(),
            scores_json: Some(
                json!({"public": {"score": public}, "private": {"score": 0.1}}).to_string(),
            ),
            ..EntryRow::new(format!("m{id}"), status, id)
        }
    }

    #[test]
    fn one_entry_per_team_counts_by_the_boards_rule() {
        let entries = || {
            vec![
                done(1, Some("a"), 0.7, "done", false),
                done(2, Some("a"), 0.9, "done", true),
                done(3, Some("a"), 0.9, "done", false),
                done(4, Some("a"), 0.99, "failed", false),
                done(5, Some("a"), 0.6, "done", false),
                done(6, None, 0.2, "done", false),
                done(7, None, 0.3, "queued", false),
            ]
        };
        let ids = |counts: Counts, closed: Option<i64>| {
            let c = Competition {
                counts,
                closed_ms: closed,
                ..Default::default()
            };
            counted(&board_row(), &c, entries())
                .iter()
                .map(|e| (e.id, e.metrics_json.clone()))
                .collect::<Vec<_>>()
        };
        let public = |v: f64| json!({"score": v}).to_string();
        // Best public score, the earlier of equal ones; failed and queued entries never count.
        assert_eq!(
            ids(Counts::Best, None),
            vec![(2, public(0.9)), (6, public(0.2))]
        );
        assert_eq!(ids(Counts::Latest, None)[0].0, 5);
        assert_eq!(ids(Counts::Chosen, None)[0].0, 2);
        // Closed: the metrics on every item.
        assert_eq!(
            ids(Counts::Best, Some(1))[0].1,
            json!({"score": 0.5}).to_string()
        );
    }

    #[test]
    fn slugs() {
        assert!(check_slug("eotgc-2025").is_ok());
        for bad in ["", "-x", "A", "a/b", "a b", &"x".repeat(65)] {
            assert!(check_slug(bad).is_err(), "{bad}");
        }
    }
}
