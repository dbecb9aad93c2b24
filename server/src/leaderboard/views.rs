//! The board, entry and submission views the API sends and the pages render (no rule: built
//! from stored rows).

use serde_json::Value;

use crate::leaderboard::competition::Competition;
use crate::leaderboard::dates::{iso8601, now_ms};
use crate::store::{BoardRow, FileRef};
use metrics_core::Report;
pub use workbench::wire::{
    BoardInfo, BoardView, BootstrapInfo, CompetitionInfo, Display, EntryOut, FileOut,
};

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
        lower_is_better: crate::leaderboard::rank::lower_is_better(
            &board.benchmark,
            &board.primary_metric,
        ),
        metrics: board.metrics.clone(),
        available_metrics: bench.map_or_else(Vec::new, |b| {
            [b.metrics(), b.more_metrics()]
                .concat()
                .into_iter()
                .map(String::from)
                .collect()
        }),
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
pub use workbench::wire::Submission as SubmissionOut;
