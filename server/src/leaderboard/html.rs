//! Server-rendered pages that read (and unfurl) without JavaScript: `<title>`, OpenGraph and
//! Twitter meta, the ranked table in plain HTML, the SVG badge, and the export table.
//!
//! **Invariant:** every user string (title, model, metadata, file names) goes through
//! [`text`] or [`attr`] ([`super::markup`]); the description is Markdown rendered by pulldown-cmark and then
//! cleaned by ammonia (no scripts, no event handlers, no `javascript:` links).

use super::markup::{attr, plain, text};
use super::views::{BoardView, EntryOut};
use crate::store::BoardSummary;
use workbench::table::{Cell, Column, OVERALL, Row, Table};
use workbench::wire::EntryDetail;

/// A value as the board displays it (`—` for none); the feed and the embed show the same.
pub(super) fn shown(value: Option<f64>, scale: f64, decimals: usize) -> String {
    value.map_or_else(|| "—".into(), |v| format!("{:.*}", decimals, v * scale))
}

fn full(value: Option<f64>) -> String {
    value.map_or_else(
        || "null".into(),
        |v| serde_json::to_string(&v).unwrap_or_default(),
    )
}

/// The pages' stylesheet (inline; the CSP allows it by hash).
pub const STYLE: &str = "body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:72rem;\
padding:0 1rem;color:#1b1f24}table{border-collapse:collapse;margin:1rem 0}th,td{padding:.3rem .6rem;\
border-bottom:1px solid #d0d7de;text-align:left}td.num{text-align:right;font-variant-numeric:\
tabular-nums}.tied{color:#9a6700}.reported{color:#6e7781;font-style:italic}code{font-size:.9em}\
.muted{color:#6e7781}tr.tier-even{background:#f6f8fa}";

/// Where a server-rendered page asks for the app: [`crate::http`]'s `with_app_assets` puts the
/// `<link>` and `<script>` tags of the leaderboard pages' own build (nothing when it is
/// missing) there, so the page reads without JavaScript and the app takes over once its wasm
/// has loaded.
pub const APP_ASSETS_MARKER: &str = "<!--scorebench-app-assets-->";

/// A whole document; the app's assets go where [`APP_ASSETS_MARKER`] stands, so
/// the app takes over the page once its wasm has loaded (`<main id="leaderboard-ssr">` is what
/// it replaces).
fn document(title: &str, meta: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n{meta}<style>{STYLE}</style>\n{}\n</head>\n<body>\n\
         <main id=\"leaderboard-ssr\">\n{body}</main>\n</body>\n</html>\n",
        text(title),
        APP_ASSETS_MARKER
    )
}

fn meta_tags(title: &str, description: &str, url: &str) -> String {
    let (t, d, u) = (attr(title), attr(description), attr(url));
    format!(
        "<meta name=\"description\" content=\"{d}\">\n\
         <meta property=\"og:type\" content=\"website\">\n\
         <meta property=\"og:site_name\" content=\"scorebench\">\n\
         <meta property=\"og:title\" content=\"{t}\">\n\
         <meta property=\"og:description\" content=\"{d}\">\n\
         <meta property=\"og:url\" content=\"{u}\">\n\
         <meta name=\"twitter:card\" content=\"summary\">\n\
         <meta name=\"twitter:title\" content=\"{t}\">\n\
         <meta name=\"twitter:description\" content=\"{d}\">\n\
         <link rel=\"canonical\" href=\"{u}\">\n"
    )
}

pub fn error_page(message: &str) -> String {
    document(
        "scorebench leaderboard",
        "",
        &format!(
            "<h1>scorebench</h1>\n<p>{}</p>\n<p><a href=\"/leaderboards\">All leaderboards</a></p>\n",
            text(message)
        ),
    )
}

pub fn boards_page(boards: &[BoardSummary]) -> String {
    let mut body = String::from("<h1>Leaderboards</h1>\n");
    if boards.is_empty() {
        body.push_str("<p>No leaderboards yet.</p>\n");
    } else {
        body.push_str(
            "<table>\n<thead><tr><th>Leaderboard</th><th>Benchmark</th><th>Entries</th></tr></thead>\n<tbody>\n",
        );
        for b in boards {
            body.push_str(&format!(
                "<tr><td><a href=\"/leaderboard/{}\">{}</a></td><td>{}</td><td class=\"num\">{}</td></tr>\n",
                attr(&b.slug),
                text(&b.title),
                text(&b.benchmark),
                b.entries
            ));
        }
        body.push_str("</tbody>\n</table>\n");
    }
    document("scorebench leaderboards", "", &body)
}

/// "1. model (score 0.8835); 2. …" for the meta description.
fn top_entries(view: &BoardView, n: usize) -> String {
    let d = view.board.display;
    view.entries
        .iter()
        .filter(|e| e.rank.is_some())
        .take(n)
        .map(|e| {
            format!(
                "{}. {} ({} {})",
                e.rank.unwrap_or_default(),
                e.model,
                view.board.primary,
                shown(
                    e.metrics.get(&view.board.primary).copied().flatten(),
                    d.scale,
                    d.decimals
                )
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn rank_text(e: &EntryOut) -> String {
    match (e.rank, e.rank_range) {
        (Some(r), Some([lo, hi])) if lo != hi => {
            format!("{r} <span class=\"muted\">({lo}–{hi})</span>")
        }
        (Some(r), _) => r.to_string(),
        (None, _) => "—".into(),
    }
}

/// Rows of the ranked table per server-rendered page (`?page=N`, from 1): a 10,000-entry board
/// stays a small page that paints at once; the exports hold every row.
pub const PAGE_ROWS: usize = 100;

pub fn board_page(view: &BoardView, origin: &str, page: usize) -> String {
    let b = &view.board;
    let url = format!("{origin}/leaderboard/{}", b.slug);
    let summary = plain(&b.description_html, 160);
    let top = top_entries(view, 3);
    let description = match (summary.is_empty(), top.is_empty()) {
        (true, true) => format!("{} leaderboard on scorebench", b.benchmark_label),
        (true, false) => format!("{} leaderboard. Top: {top}", b.benchmark_label),
        (false, true) => summary,
        (false, false) => format!("{summary} Top: {top}"),
    };
    let mut body = format!(
        "<h1>{}</h1>\n<p class=\"muted\">{} · variant <code>{}</code> · ranked by <code>{}</code> at full precision{}</p>\n",
        text(&b.title),
        text(&b.benchmark_label),
        text(&b.variant),
        text(&b.primary),
        if b.display.scale == 1.0 {
            String::new()
        } else {
            format!(" · values ×{}", b.display.scale)
        }
    );
    if !b.description.is_empty() {
        body.push_str(&format!(
            "<section class=\"description\">\n{}</section>\n",
            b.description_html
        ));
    }
    if let Some(c) = &b.competition {
        body.push_str(&format!(
            "<p class=\"competition\">Competition with hidden gold · phase: {} · scores on the {}{}{} · {} entry per team counts</p>\n",
            text(&c.phase),
            text(&c.metrics_on),
            if c.metrics_on == "public share" {
                format!(" ({:.0} % of the items)", c.public_share * 100.0)
            } else {
                String::new()
            },
            c.closes
                .as_deref()
                .map(|t| format!(" · submissions until {}", text(t)))
                .unwrap_or_default(),
            match c.counts {
                super::competition::Counts::Best => "the best",
                super::competition::Counts::Latest => "the latest",
                super::competition::Counts::Chosen => "the chosen",
            }
        ));
    }
    let pages = view.entries.len().div_ceil(PAGE_ROWS).max(1);
    let page = page.clamp(1, pages);
    let first = (page - 1) * PAGE_ROWS;
    let rows =
        &view.entries[first.min(view.entries.len())..(first + PAGE_ROWS).min(view.entries.len())];
    body.push_str(&ranked_table(view, rows));
    if pages > 1 {
        let link = |p: usize, label: &str| {
            format!(
                "<a href=\"/leaderboard/{}?page={p}\" rel=\"{}\">{label}</a>",
                attr(&b.slug),
                if p < page { "prev" } else { "next" }
            )
        };
        body.push_str(&format!(
            "<p class=\"pager\">{}entries {}–{} of {} (page {page} of {pages}){}</p>\n",
            if page > 1 {
                format!("{} · ", link(page - 1, "← previous"))
            } else {
                String::new()
            },
            first + 1,
            first + rows.len(),
            view.entries.len(),
            if page < pages {
                format!(" · {}", link(page + 1, "next →"))
            } else {
                String::new()
            }
        ));
    }
    body.push_str(&format!(
        "<p class=\"muted\">≈ = not distinguishable from the leader: the 95 % paired bootstrap \
         interval of the difference ({} resamples, seed {}) contains 0. Rank ranges read those \
         intervals.</p>\n",
        view.bootstrap.resamples, view.bootstrap.seed
    ));
    if let Some(r) = view.bootstrap.resolution {
        let d = b.display;
        body.push_str(&format!(
            "<p class=\"muted\" data-testid=\"resolution\" data-value=\"{}\">Resolution: differences \
             in {} below {} are usually within this board's noise (the median half-width of the \
             intervals){}. Rows of one tier (shaded alike) are statistically tied with the tier's \
             first entry.</p>\n",
            full(Some(r)),
            text(&b.primary),
            shown(Some(r), d.scale, d.decimals),
            view.bootstrap
                .smallest_resolved
                .map(|x| format!(
                    "; the smallest difference from the leader resolved here is {}",
                    shown(Some(x), d.scale, d.decimals)
                ))
                .unwrap_or_default()
        ));
    }
    let api = format!("/api/v1/leaderboards/{}", attr(&b.slug));
    body.push_str(&format!(
        "<p>Export: <a href=\"{api}/export?format=csv\">CSV</a> · \
         <a href=\"{api}/export?format=markdown\">Markdown</a> · \
         <a href=\"{api}/export?format=latex\">LaTeX</a> · <a href=\"{api}\">JSON</a></p>\n"
    ));
    body.push_str(&format!(
        "<p>Follow: <a href=\"/leaderboard/{slug}/feed.atom\">Atom feed</a> (new verified entries, \
         new leaders) · Embed: <code>{}</code></p>\n",
        text(&workbench::wire::embed_snippet(origin, &b.slug)),
        slug = attr(&b.slug)
    ));
    if !b.gold.is_empty() {
        body.push_str("<h2>Gold files</h2>\n<ul>\n");
        for f in &b.gold {
            body.push_str(&format!(
                "<li><a href=\"{}\">{}</a> <code>{}</code></li>\n",
                attr(&f.url),
                text(&f.name),
                text(&f.sha256)
            ));
        }
        body.push_str("</ul>\n");
    }
    body.push_str("<p><a href=\"/leaderboards\">All leaderboards</a></p>\n");
    // The app fetches the board's JSON when it starts: start the download with the page.
    let preload = format!(
        "<link rel=\"preload\" href=\"/api/v1/leaderboards/{slug}\" as=\"fetch\" crossorigin=\"anonymous\">\n\
         <link rel=\"alternate\" type=\"application/atom+xml\" title=\"{}\" href=\"/leaderboard/{slug}/feed.atom\">\n",
        attr(&b.title),
        slug = attr(&b.slug)
    );
    document(
        &b.title,
        &format!("{}{preload}", meta_tags(&b.title, &description, &url)),
        &body,
    )
}

fn ranked_table(view: &BoardView, rows: &[EntryOut]) -> String {
    let b = &view.board;
    let d = b.display;
    let mut out = String::from(
        "<table class=\"ranked\">\n<thead><tr><th>Rank</th><th title=\"entries of one tier are \
         statistically tied with its first entry\">Tier</th><th>Model</th>",
    );
    for m in &b.metrics {
        let class = if *m == b.primary {
            " class=\"primary\""
        } else {
            ""
        };
        out.push_str(&format!(
            "<th data-metric=\"{}\"{class}>{}</th>",
            attr(m),
            text(m)
        ));
    }
    out.push_str(
        "<th>Status</th><th>Organisation</th><th>Parameters</th><th>Open weights</th><th>Submitted</th></tr></thead>\n<tbody>\n",
    );
    for e in rows {
        let tied = if e.tied_with_leader == Some(true) {
            " <span class=\"tied\" title=\"not distinguishable from the leader\">≈</span>"
        } else {
            ""
        };
        let link = e
            .meta
            .get("link")
            .filter(|l| l.starts_with("https://") || l.starts_with("http://"))
            .map(|l| {
                format!(
                    " <a href=\"{}\" rel=\"nofollow noopener ugc\" class=\"muted\">↗</a>",
                    attr(l)
                )
            })
            .unwrap_or_default();
        out.push_str(&format!(
            "<tr data-entry=\"{}\"{}><td class=\"num\">{}{tied}</td><td class=\"num\">{}</td><td><a href=\"/leaderboard/{}/entry/{}\">{}</a>{link}</td>",
            e.entry,
            e.tier.map_or_else(String::new, |t| format!(
                " data-tier=\"{t}\" class=\"tier-{}\"",
                if t % 2 == 0 { "even" } else { "odd" }
            )),
            rank_text(e),
            e.tier.map_or_else(|| "—".into(), |t| t.to_string()),
            attr(&b.slug),
            e.entry,
            text(&e.model)
        ));
        for m in &b.metrics {
            let v = e.metrics.get(m).copied().flatten();
            out.push_str(&format!(
                "<td class=\"num\" data-metric=\"{}\" data-value=\"{}\" title=\"{}\">{}</td>",
                attr(m),
                full(v),
                full(v),
                shown(v, d.scale, d.decimals)
            ));
        }
        let status = if e.status == crate::store::Status::Reported {
            "<span class=\"reported\">reported, not verified</span>".to_string()
        } else {
            "verified".to_string()
        };
        let meta = |k: &str| text(e.meta.get(k).map(String::as_str).unwrap_or(""));
        out.push_str(&format!(
            "<td>{status}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            meta("organisation"),
            meta("parameters"),
            meta("open_weights"),
            text(&e.submitted[..10.min(e.submitted.len())])
        ));
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

/// The entry page: metadata, inputs with their SHA-256, the report's table.
pub fn entry_page(view: &BoardView, detail: &EntryDetail, origin: &str) -> String {
    let b = &view.board;
    let id = detail.entry;
    let e = view.entries.iter().find(|e| e.entry == id);
    let model = detail.model.as_str();
    let title = format!("{model} on {}", b.title);
    let url = format!("{origin}/leaderboard/{}/entry/{id}", b.slug);
    let d = b.display;
    let primary_value = detail.metrics.get(&b.primary).copied().flatten();
    let description = format!(
        "{} {}: {}{}",
        b.benchmark_label,
        b.primary,
        shown(primary_value, d.scale, d.decimals),
        e.and_then(|e| e.rank)
            .map(|r| format!(", rank {r}"))
            .unwrap_or_default()
    );
    let mut body = format!(
        "<p><a href=\"/leaderboard/{}\">{}</a></p>\n<h1>{}</h1>\n<p class=\"muted\">entry {id} · {} · submitted {}</p>\n",
        attr(&b.slug),
        text(&b.title),
        text(model),
        text(detail.status.as_str()),
        text(&detail.submitted)
    );
    if !detail.meta.is_empty() {
        body.push_str("<table class=\"meta\">\n");
        for (k, v) in &detail.meta {
            body.push_str(&format!(
                "<tr><th>{}</th><td>{}</td></tr>\n",
                text(k),
                text(v)
            ));
        }
        body.push_str("</table>\n");
    }
    if let Some(table) = &detail.table {
        body.push_str(&report_table(table));
    }
    body.push_str("<h2>Inputs</h2>\n<ul>\n");
    for f in detail.inputs.iter().chain(&detail.gold) {
        body.push_str(&format!(
            "<li><a href=\"{}\">{}</a> <code>{}</code></li>\n",
            attr(&f.url),
            text(&f.name),
            text(&f.sha256)
        ));
    }
    body.push_str("</ul>\n");
    if detail.hidden_gold() {
        body.push_str(
            "<p class=\"muted\">The gold of this board is hidden, so this entry cannot be \
             re-scored in the browser: the SHA-256 above is that of the predictions the server \
             scored, with the scorer version below; compare it with the file you hold \
             (<code>sha256sum</code>).</p>\n",
        );
    }
    body.push_str(&format!(
        "<p class=\"muted\">scorer {}</p>\n<p><img src=\"/leaderboard/{}/badge/{id}.svg\" alt=\"badge\"></p>\n",
        text(&detail.scorer.to_string()),
        attr(&b.slug)
    ));
    document(&title, &meta_tags(&title, &description, &url), &body)
}

/// Two entries side by side: the comparison itself (aligned samples, paired bootstrap) runs in
/// the browser's worker; without JavaScript the page names both entries with the board's
/// primary metric and links to them.
pub fn compare_page(view: &BoardView, a: i64, b: i64, origin: &str) -> String {
    let board = &view.board;
    let d = board.display;
    let model = |id: i64| view.entries.iter().find(|e| e.entry == id);
    let name = |id: i64| model(id).map_or_else(|| format!("entry {id}"), |e| e.model.clone());
    let title = format!("{} vs {} on {}", name(a), name(b), board.title);
    let url = format!("{origin}/leaderboard/{}/compare/{a}/{b}", board.slug);
    let mut body = format!(
        "<p><a href=\"/leaderboard/{}\">{}</a></p>\n<h1>{}</h1>\n<table class=\"compare\">\n\
         <thead><tr><th>entry</th><th>model</th><th>{}</th></tr></thead>\n<tbody>\n",
        attr(&board.slug),
        text(&board.title),
        text(&title),
        text(&board.primary)
    );
    for id in [a, b] {
        let value = model(id).and_then(|e| e.metrics.get(&board.primary).copied().flatten());
        body.push_str(&format!(
            "<tr><td><a href=\"/leaderboard/{}/entry/{id}\">{id}</a></td><td>{}</td>\
             <td class=\"num\" data-value=\"{}\">{}</td></tr>\n",
            attr(&board.slug),
            text(&name(id)),
            full(value),
            shown(value, d.scale, d.decimals)
        ));
    }
    body.push_str(
        "</tbody>\n</table>\n<p class=\"muted\">The sample-by-sample comparison and its paired \
         bootstrap intervals are computed in your browser (JavaScript and WebAssembly).</p>\n",
    );
    let description = format!("{} on {}: {}", board.benchmark_label, board.title, title);
    document(&title, &meta_tags(&title, &description, &url), &body)
}

fn report_table(table: &Table) -> String {
    let mut out = format!(
        "<table class=\"report\">\n<caption>{}</caption>\n<thead><tr><th>{}</th>",
        text(&table.caption),
        text(&table.corner)
    );
    for c in &table.columns {
        out.push_str(&format!("<th>{}</th>", text(&c.label)));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for r in &table.rows {
        out.push_str(&format!("<tr><th>{}</th>", text(&r.label)));
        for c in &r.cells {
            out.push_str(&format!(
                "<td class=\"num\" data-subset=\"{}\" data-metric=\"{}\" data-value=\"{}\" title=\"{}\">{}</td>",
                attr(&c.subset),
                attr(&c.metric),
                c.data_value(),
                c.data_value(),
                text(&c.display)
            ));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

/// The SVG badge of one entry: benchmark and metric on the left, value and rank on the right.
pub fn badge(view: &BoardView, id: i64) -> Option<String> {
    let e = view.entries.iter().find(|e| e.entry == id)?;
    let b = &view.board;
    let left = format!("{} {}", b.benchmark_label, b.primary);
    let value = shown(
        e.metrics.get(&b.primary).copied().flatten(),
        b.display.scale,
        b.display.decimals,
    );
    let right = match e.rank {
        Some(r) => format!("{value} · #{r}"),
        None => value,
    };
    let width = |s: &str| 10 + 7 * s.chars().count();
    let (lw, rw) = (width(&left), width(&right));
    Some(format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"20\" role=\"img\" aria-label=\"{label}\">\
<title>{title}</title>\
<rect width=\"{lw}\" height=\"20\" fill=\"#555\"/><rect x=\"{lw}\" width=\"{rw}\" height=\"20\" fill=\"#2b7a3d\"/>\
<g fill=\"#fff\" font-family=\"Verdana,DejaVu Sans,sans-serif\" font-size=\"11\">\
<text x=\"5\" y=\"14\">{l}</text><text x=\"{rx}\" y=\"14\">{r}</text></g></svg>\n",
        w = lw + rw,
        label = attr(&format!("{left}: {right}")),
        title = text(&format!("{}: {} — {left}: {right}", b.title, e.model)),
        l = text(&left),
        r = text(&right),
        rx = lw + 5,
    ))
}

/// The ranked board as a workbench table (rank + the shown metrics, the benchmark's display), for
/// the CSV / Markdown / LaTeX exports.
pub fn export_table(view: &BoardView) -> Table {
    let b = &view.board;
    let d = b.display;
    let mut columns = vec![Column {
        key: "rank".into(),
        label: "rank".into(),
        n: None,
    }];
    columns.extend(b.metrics.iter().map(|m| Column {
        key: m.clone(),
        label: m.clone(),
        n: None,
    }));
    let rows = view
        .entries
        .iter()
        .map(|e| {
            let mut cells = vec![Cell {
                subset: OVERALL.into(),
                metric: "rank".into(),
                value: e.rank.map(|r| r as f64),
                display: e.rank.map_or_else(|| "—".into(), |r| r.to_string()),
                undefined_reason: None,
            }];
            cells.extend(b.metrics.iter().map(|m| {
                let v = e.metrics.get(m).copied().flatten();
                Cell {
                    subset: OVERALL.into(),
                    metric: m.clone(),
                    value: v,
                    display: shown(v, d.scale, d.decimals),
                    undefined_reason: None,
                }
            }));
            let label = if e.status == crate::store::Status::Reported {
                format!("{} (reported)", e.model)
            } else {
                e.model.clone()
            };
            Row {
                key: e.entry.to_string(),
                label,
                n: None,
                cells,
            }
        })
        .collect();
    Table {
        benchmark: b.benchmark.clone(),
        variant: b.variant.clone(),
        scale: d.scale,
        decimals: d.decimals,
        corner: "model".into(),
        columns,
        rows,
        caption: format!(
            "{} ({}, {}), ranked by {}{}",
            b.title,
            b.benchmark,
            b.variant,
            b.primary,
            if d.scale == 1.0 {
                String::new()
            } else {
                format!(", values ×{}", d.scale)
            }
        ),
    }
}
