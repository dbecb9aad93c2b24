//! The board, entry and submission views the API sends and the pages render (no rule: built
//! from stored rows).

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::Value;

use crate::leaderboard::competition::{Competition, Counts};
use crate::leaderboard::dates::{iso8601, now_ms};
use crate::leaderboard::rank::LOWER_IS_BETTER;
use crate::leaderboard::scoring::LeaderInterval;
use crate::store::{BoardRow, FileRef};
use metrics_core::Report;

/// A board as the API shows it.
#[derive(Debug, Clone, Serialize)]
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
    pub status: crate::store::Status,
    /// `visible` | `hidden` | `withdrawn` (the last two only for the owner).
    pub state: crate::store::State,
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
pub(crate) fn report_table(report: Option<&Value>) -> Option<workbench::table::Table> {
    let report: Report = serde_json::from_value(report?.clone()).ok()?;
    Some(workbench::table(&report))
}

pub(crate) fn file_out(slug: &str, f: &FileRef) -> FileOut {
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
    for m in benchmark.metrics().iter().chain(benchmark.more_metrics()) {
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

pub(crate) fn competition_info(c: &Competition, owner: bool) -> CompetitionInfo {
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

pub(crate) fn board_info_for(board: &BoardRow, owner: bool) -> BoardInfo {
    let bench = workbench::registry::get(&board.benchmark);
    let comp = Competition::parse(board.competition.as_deref());
    BoardInfo {
        slug: board.slug.clone(),
        title: board.title.clone(),
        description: board.description.clone(),
        description_html: board.description_html.clone().unwrap_or_else(|| {
            // Written before the HTML was stored: rendered here, bounded like a new one (an
            // over-deep description is shown as text).
            super::markup::description_html(&board.description)
                .unwrap_or_else(|_| format!("<p>{}</p>", super::markup::text(&board.description)))
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

/// One submission of a competition as its team and the owner see it.
#[derive(Debug, Clone, Serialize)]
pub struct SubmissionOut {
    pub entry: i64,
    pub team: Option<String>,
    pub model: String,
    /// `queued` | `scoring` | `done` | `failed` | `cancelled`.
    pub status: crate::store::Status,
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
