//! The JSON the server sends and the page reads: one set of serde types for both (the
//! leaderboards here: `server/src/leaderboard` builds them, `app/src/leaderboard` reads them;
//! models and runs in [`runs`]), so a change on one side is a compile error on the other
//! instead of a runtime one.

pub mod runs;

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How an entry came to be, and where a competition submission is in the scoring queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Scored by this server from its files.
    Verified,
    /// Imported from a results table: never verified.
    Reported,
    Queued,
    Scoring,
    Done,
    Failed,
    Cancelled,
}

/// Who may see an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    Visible,
    /// By the owner.
    Hidden,
    /// By the submitter.
    Withdrawn,
}

/// The stored names of [`Status`] and [`State`] (the API and the pages show the same).
macro_rules! stored_names {
    ($t:ident { $($v:ident = $name:literal),* $(,)? }) => {
        impl $t {
            pub fn as_str(self) -> &'static str {
                match self { $($t::$v => $name),* }
            }

            /// The value stored as `name`.
            pub fn parse(name: &str) -> Option<Self> {
                match name { $($name => Some($t::$v),)* _ => None }
            }
        }

        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

stored_names!(Status {
    Verified = "verified",
    Reported = "reported",
    Queued = "queued",
    Scoring = "scoring",
    Done = "done",
    Failed = "failed",
    Cancelled = "cancelled",
});
stored_names!(State {
    Visible = "visible",
    Hidden = "hidden",
    Withdrawn = "withdrawn",
});

/// The `<iframe>` snippet a board's pages offer to copy: the board's embed
/// (`GET /embed/leaderboard/{slug}`, the top rows without JavaScript) on the server at `origin`.
pub fn embed_snippet(origin: &str, slug: &str) -> String {
    format!(
        "<iframe src=\"{origin}/embed/leaderboard/{slug}\" title=\"scorebench leaderboard\" \
         width=\"480\" height=\"360\" style=\"border:0\" loading=\"lazy\"></iframe>"
    )
}

/// A board as the API shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoardInfo {
    pub slug: String,
    pub title: String,
    pub description: String,
    /// The description's Markdown as sanitised HTML (`markup::markdown`: no scripts, event
    /// handlers, `javascript:` links or images), for pages that show it rendered.
    pub description_html: String,
    pub benchmark: String,
    pub benchmark_label: String,
    pub variant: String,
    pub primary: String,
    pub lower_is_better: bool,
    pub metrics: Vec<String>,
    /// Every metric a board of this benchmark can rank by or show (its headline metrics and
    /// the ones some of its reports add): what an owner chooses from.
    #[serde(default)]
    pub available_metrics: Vec<String>,
    /// Displayed value = value × scale, rounded to `decimals` (the benchmark's table).
    pub display: Display,
    pub gold: Vec<FileOut>,
    pub created: String,
    pub updated: String,
    /// Competition boards: the gold is hidden; the phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub competition: Option<CompetitionInfo>,
}

impl BoardInfo {
    /// A competition whose gold is never served.
    pub fn hidden_gold(&self) -> bool {
        self.competition.as_ref().is_some_and(|c| c.hidden_gold)
    }
}

/// A competition board's public settings (the seed is the owner's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// Which of a team's entries counts on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Counts {
    /// The best public score (ties: the earlier).
    #[default]
    Best,
    /// The latest scored entry.
    Latest,
    /// The entry the team chose (else its latest).
    Chosen,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Display {
    pub scale: f64,
    pub decimals: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileOut {
    pub name: String,
    pub role: String,
    pub sha256: String,
    pub size_bytes: u64,
    /// Download path.
    pub url: String,
}

/// An entry as the API shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntryOut {
    pub entry: i64,
    pub rank: Option<usize>,
    pub rank_range: Option<[usize; 2]>,
    /// Entries of one tier are statistically tied with its first entry (rank ranges that
    /// can share a place); `null` without a rank range.
    #[serde(default)]
    pub tier: Option<usize>,
    /// The interval of (entry − leader) contains 0; `null` for the leader and when not computed.
    pub tied_with_leader: Option<bool>,
    pub versus_leader: Option<LeaderInterval>,
    pub model: String,
    pub metrics: IndexMap<String, Option<f64>>,
    /// `verified` | `reported`.
    pub status: Status,
    /// `visible` | `hidden` | `withdrawn` (the last two only for the owner).
    pub state: State,
    pub inputs: Vec<FileOut>,
    pub meta: BTreeMap<String, String>,
    pub submitted: String,
    pub submitted_ms: i64,
    pub scorer: Value,
    /// Competition boards: the team, the metrics on the public share, and (once closed) on the
    /// private share.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_metrics: Option<IndexMap<String, Option<f64>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_metrics: Option<IndexMap<String, Option<f64>>>,
}

/// The paired bootstrap of an entry against the leader on one metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeaderInterval {
    /// entry − leader on the aligned records.
    pub difference: Option<f64>,
    /// 2.5 % and 97.5 % percentiles of the resampled differences.
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub resamples_defined: usize,
    /// Why there is no interval (the benchmark keeps no per-sample records, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BootstrapInfo {
    pub metric: String,
    pub seed: u64,
    pub resamples: usize,
    /// The entry every interval is against.
    pub leader: Option<i64>,
    pub computed: usize,
    /// Verified entries whose interval is not computed yet (a later request computes them).
    pub pending: usize,
    /// The median half-width of the computed intervals: differences on the primary metric
    /// smaller than this are usually within this board's noise.
    #[serde(default)]
    pub resolution: Option<f64>,
    /// The smallest |difference| from the leader that an interval resolves (excludes 0).
    #[serde(default)]
    pub smallest_resolved: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoardView {
    pub board: BoardInfo,
    pub bootstrap: BootstrapInfo,
    pub entries: Vec<EntryOut>,
}

/// One submission of a competition as its team and the owner see it
/// (`GET /api/v1/leaderboards/{slug}/submissions`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Submission {
    pub entry: i64,
    pub team: Option<String>,
    pub model: String,
    pub status: Status,
    /// A queued submission's place in the board's queue (1: scored next on this board).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<i64>,
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

/// `GET /api/v1/leaderboards/{slug}/submissions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Submissions {
    pub submissions: Vec<Submission>,
}

/// A competition's team as its owner sees it (`GET /api/v1/leaderboards/{slug}/teams`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Team {
    pub name: String,
    pub created: String,
    /// Submissions in all, and those that count against the quota (not failed or cancelled).
    pub submissions: usize,
    pub counting: usize,
}

/// `GET /api/v1/leaderboards/{slug}/teams`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Teams {
    pub teams: Vec<Team>,
}

/// `POST /api/v1/leaderboards/{slug}/teams`: the new team's token, shown once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TeamCreated {
    pub team: String,
    pub team_token: String,
}

/// `POST /api/v1/leaderboards`: the new board's owner token (shown once) and page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoardCreated {
    pub slug: String,
    pub owner_token: String,
    pub url: String,
}

/// `POST /api/v1/leaderboards/{slug}/webhooks` (owner).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebhookIn {
    pub url: String,
}

/// A new webhook: its secret is shown once (deliveries are signed with it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebhookCreated {
    pub id: i64,
    pub url: String,
    pub secret: String,
}

/// A board's webhook as its owner sees it (no secret).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Webhook {
    pub id: i64,
    pub url: String,
    pub created: String,
}

/// One delivery of an event to a webhook, with its last attempt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Delivery {
    pub id: i64,
    pub webhook: i64,
    pub url: String,
    /// `entry.created` | `leader.changed`.
    pub event: String,
    /// `pending` | `delivered` | `failed`.
    pub state: String,
    pub attempts: i64,
    /// The last attempt's HTTP status, or its error.
    pub last_status: Option<i64>,
    pub last_error: Option<String>,
    /// When a pending delivery is tried next.
    pub next_attempt: Option<String>,
    pub created: String,
    pub updated: String,
}

/// `GET /api/v1/leaderboards/{slug}/webhooks` (owner): the hooks and the latest deliveries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Webhooks {
    pub webhooks: Vec<Webhook>,
    pub deliveries: Vec<Delivery>,
}

/// `POST /api/v1/leaderboards/{slug}/import` (and `…/import/preview`): a published table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ImportRequest {
    /// `csv` or `markdown`.
    pub format: String,
    pub text: String,
    /// Stored value = written value / scale (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<f64>,
    /// The metric a table whose value columns are subsets holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric: Option<String>,
    /// `COLUMN=TARGET` column mappings (TARGET: a metric, a subset, `overall`, `meta:KEY`,
    /// `model` or `ignore`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub map: Vec<String>,
    /// Which table of a document (1-based) when it has several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<usize>,
}

/// `POST /api/v1/leaderboards/{slug}/import/preview` (owner): what an import would do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportPreview {
    pub tables: Vec<ImportTable>,
    /// The table read (1-based).
    pub table: Option<usize>,
    /// Its columns, each with what it holds.
    pub columns: Vec<ImportColumn>,
    /// The entries an import would make.
    pub rows: Vec<ImportedRow>,
    /// Why an import would fail (then no rows).
    pub error: Option<String>,
}

/// A table of an imported document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportTable {
    pub number: usize,
    pub line: usize,
    /// The line above it (Markdown), lower case.
    pub caption: String,
    pub header: Vec<String>,
    pub rows: usize,
}

/// What a column of an imported table holds: `kind` `model` | `ignore` | `metric` (`name`) |
/// `overall` (the request's metric) | `subset` (`name`) | `meta` (`name` the key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportColumn {
    pub header: String,
    pub kind: String,
    pub name: String,
}

/// An entry an import would make.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportedRow {
    pub model: String,
    pub metrics: IndexMap<String, Option<f64>>,
    pub subsets: IndexMap<String, Option<f64>>,
    pub subsets_metric: Option<String>,
    pub meta: BTreeMap<String, String>,
}

/// `GET /api/v1/leaderboards/{slug}/audit` (owner): every change, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditLog {
    pub audit: Vec<AuditLine>,
}

/// One change of a board.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditLine {
    /// ISO 8601, UTC.
    pub at: String,
    pub at_ms: i64,
    /// `public` | `owner` | `entry` | `team` | `worker`.
    pub actor: String,
    /// `create board`, `submit`, `edit board`, `edit`, `hide`, `restore`, `withdraw`,
    /// `delete`, `import`, `add team`, `rotate token`, …
    pub action: String,
    pub entry: Option<i64>,
    pub detail: Value,
}

/// `PATCH /api/v1/leaderboards/{slug}` body (owner): what changes; the rest stays.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EditBoard {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Markdown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary: Option<String>,
    /// The columns shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<Vec<String>>,
}

/// `PATCH /api/v1/leaderboards/{slug}/entries/{id}` body (the entry's token).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EditEntry {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Replaces the metadata; a key with an empty value is removed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<BTreeMap<String, String>>,
}

/// `POST /api/v1/leaderboards/{slug}/owner-token`: the new owner token, shown once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OwnerToken {
    pub slug: String,
    pub owner_token: String,
}

/// One line of the board list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoardSummary {
    pub slug: String,
    pub title: String,
    pub benchmark: String,
    pub entries: i64,
    pub created_ms: i64,
}

/// `GET /api/v1/leaderboards/{slug}/entries/{id}`: one entry with its stored report. `R` is the
/// report as the server holds it (a JSON value, samples kept or not); the page reads it as a
/// [`metrics_core::Report`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntryDetail<R = Value> {
    pub board: String,
    pub benchmark: String,
    pub variant: String,
    pub entry: i64,
    pub model: String,
    #[serde(default)]
    pub meta: BTreeMap<String, String>,
    pub status: Status,
    /// Not on a competition board (its entries are visible once scored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<State>,
    #[serde(default)]
    pub metrics: IndexMap<String, Option<f64>>,
    #[serde(default)]
    pub inputs: Vec<FileOut>,
    /// The board's gold files (none on a competition board: its gold is hidden).
    #[serde(default)]
    pub gold: Vec<FileOut>,
    pub submitted: String,
    /// `{"version", "commit"}` of the scorer that scored it.
    #[serde(default)]
    pub scorer: Value,
    /// The report's table in its benchmark's layout (computed by the server, so the page does
    /// not link every benchmark's code).
    #[serde(default)]
    pub table: Option<crate::table::Table>,
    /// The whole report (on a competition board only for the owner: per-item results hold the
    /// hidden gold).
    #[serde(default = "Option::default")]
    pub report: Option<R>,
    // A competition board's entry adds these (absent on an open board; `Some(None)` is a
    // `null` the API sends). Plain fields, not a flattened struct: serde's `flatten` buffers the
    // whole entry and compiles the report's reader twice into the page.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub team: Option<Option<String>>,
    /// Which items `metrics` covers: `public share` while the competition is open, `all items`
    /// once closed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics_on: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub public_metrics: Option<Option<IndexMap<String, Option<f64>>>>,
    /// Once closed (or for the owner).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub private_metrics: Option<Option<IndexMap<String, Option<f64>>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden_gold: Option<bool>,
    // For the owner, the entry's team and its token: where the entry is in the scoring queue.
    /// Why scoring failed or was cancelled.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub reason: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempts: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<i64>,
    /// The team's entry that counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chosen: Option<bool>,
    /// A verified entry's signed receipt (`crate::receipt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt: Option<crate::receipt::Receipt>,
}

impl<R> EntryDetail<R> {
    /// What a receipt of this entry attests (`crate::receipt`).
    pub fn signed(&self) -> crate::receipt::Signed {
        let files = |files: &[FileOut]| {
            files
                .iter()
                .map(|f| crate::receipt::SignedFile {
                    name: f.name.clone(),
                    role: f.role.clone(),
                    sha256: f.sha256.clone(),
                })
                .collect()
        };
        crate::receipt::Signed {
            board: self.board.clone(),
            entry: self.entry,
            benchmark: self.benchmark.clone(),
            variant: self.variant.clone(),
            model: self.model.clone(),
            scorer: self.scorer.clone(),
            inputs: files(&self.inputs),
            gold: files(&self.gold),
            metrics: self.metrics.clone(),
            submitted: self.submitted.clone(),
        }
    }

    /// Whether the gold of this entry is hidden (a competition's).
    pub fn hidden_gold(&self) -> bool {
        self.hidden_gold == Some(true)
    }
}

/// A field that may be absent (`None`) or present and `null` (`Some(None)`).
fn present<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// A file in a request: its name and content, as UTF-8 `text` or `base64` (standard
/// alphabet), or the `sha256` of a file sent before on its own (`POST …/uploads`, for files
/// larger than a request may be). `B` is how base64 is held: the page sends a `String`, the
/// server decodes it while the request is parsed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileIn<B = String> {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default = "Option::default", skip_serializing_if = "Option::is_none")]
    pub base64: Option<B>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// `POST /api/v1/leaderboards`: a new board. `B` is how base64 is held (see [`FileIn`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateBoard<B = String> {
    pub slug: String,
    pub title: String,
    #[serde(default)]
    pub description: String,
    pub benchmark: String,
    /// The variant's report name; the benchmark's official one by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// By default the benchmark's first metric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary: Option<String>,
    /// The metrics shown; by default the benchmark's headline metrics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<Vec<String>>,
    #[serde(default = "Vec::new", skip_serializing_if = "Vec::is_empty")]
    pub gold: Vec<FileIn<B>>,
    /// A competition board (issue 14): gold stored, never served; submissions queued.
    #[serde(default = "Vec::new", skip_serializing_if = "Vec::is_empty")]
    pub hidden_gold: Vec<FileIn<B>>,
    /// Its settings (default: public share 0.3, a random seed, no window, no quota, best counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub competition: Option<PhaseSettings>,
}

/// A competition's phase settings (`POST …/phase`, and `competition` at creation). Absent
/// fields keep their value.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhaseSettings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_share: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// RFC 3339 / ISO 8601 UTC (`2026-05-01T00:00:00Z`) or Unix milliseconds; `null` removes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opens: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closes: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub daily_quota: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_quota: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts: Option<Counts>,
    /// Close the phase now: private scores revealed, ranking final.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub close: bool,
}

/// `POST /api/v1/leaderboards/{slug}/teams` (owner).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AddTeam {
    pub name: String,
}

/// A benchmark a board can be made of (`GET /api/v1/benchmarks`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkInfo {
    pub key: String,
    pub label: String,
    pub variants: Vec<String>,
    pub metrics: Vec<String>,
    /// The file roles: `shared` ones are the gold.
    pub roles: Vec<BenchmarkRole>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkRole {
    pub key: String,
    pub label: String,
    pub shared: bool,
}

/// `GET /api/v1/benchmarks`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Benchmarks {
    pub benchmarks: Vec<BenchmarkInfo>,
}

/// `POST /api/v1/leaderboards/{slug}/entries`: the files, and (from the workbench's Publish)
/// the numbers the page computed: refused when any differs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Submit<B = String> {
    pub model: String,
    #[serde(default)]
    pub meta: BTreeMap<String, String>,
    pub files: Vec<FileIn<B>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_report: Option<metrics_core::Report>,
}

/// The answer to a [`Submit`]: the entry, its token (shown once) and its page; the report when
/// it was scored at once; on a competition board `status` `queued`, the team and the inputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Submitted {
    pub entry: i64,
    pub entry_token: String,
    /// Sent, never read back: the page that submitted has the numbers (skipping it keeps the
    /// report's reader out of the page).
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub report: Option<metrics_core::Report>,
    pub url: String,
    // A competition board's answer adds these; like the report, the page does not read them
    // back (it links the entry's page), which keeps their readers out of its first paint.
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub team: Option<Option<String>>,
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Vec<FileOut>>,
}

/// `GET /api/v1/leaderboards`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoardList {
    pub leaderboards: Vec<BoardSummary>,
}

/// `POST /api/v1/shares`: the stored share (an encrypted envelope the server cannot read).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShareCreated {
    pub id: String,
    /// `/s/{id}`.
    pub path: String,
    /// Shown once: deletes the share.
    pub delete_token: String,
    pub created_ms: i64,
    pub expires_ms: i64,
    pub expires_in_days: u32,
    pub size_bytes: usize,
    /// The largest share the server stores.
    pub max_bytes: usize,
}
