//! What a board sends beyond its own pages: an Atom feed of its news
//! (`GET /leaderboard/{slug}/feed.atom`) and an embeddable widget of its top rows
//! (`GET /embed/leaderboard/{slug}`, plain HTML that works without JavaScript).
//!
//! The feed's items, newest first (at most [`FEED_ITEMS`]):
//! ```text
//! new entry     every visible verified entry, at its submission time
//! new leader    replaying the verified entries in submission order, each time the best value
//!               of the primary metric (lower when the board says so) passes to another entry;
//!               a value equal to the leader's does not take the lead (the earlier entry keeps it)
//! ```
//! Reported entries (imported tables) are not news of the board: they have no files to check.
//!
//! **Invariant:** every user string goes through [`xml`] (feed) or [`text`]/[`attr`] (embed).

use super::markup::{attr, text};
use super::views::{BoardView, EntryOut};
use workbench::wire::Status;

/// Items one feed holds.
pub const FEED_ITEMS: usize = 50;
/// Rows the embed shows by default, and at most.
pub const EMBED_ROWS: usize = 10;
pub const EMBED_MAX_ROWS: usize = 100;

/// XML character data: `&`, `<`, `>`, quotes escaped; characters XML 1.0 cannot hold (C0
/// controls other than tab, newline and carriage return) left out.
pub fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

/// An entry's primary value as the board displays it.
fn shown(view: &BoardView, e: &EntryOut) -> String {
    let d = view.board.display;
    let value = e.metrics.get(&view.board.primary).copied().flatten();
    super::html::shown(value, d.scale, d.decimals)
}

/// One feed item.
struct Item<'a> {
    id: String,
    title: String,
    summary: String,
    updated: &'a str,
    at_ms: i64,
    link: String,
}

/// The board's Atom feed; `origin` is the server's public origin.
pub fn atom(view: &BoardView, origin: &str) -> String {
    let b = &view.board;
    let board_url = format!("{origin}/leaderboard/{}", b.slug);
    let mut verified: Vec<&EntryOut> = view
        .entries
        .iter()
        .filter(|e| e.status == Status::Verified)
        .collect();
    verified.sort_by_key(|e| (e.submitted_ms, e.entry));
    let mut items = Vec::new();
    let mut leader: Option<(&EntryOut, f64)> = None;
    for e in &verified {
        let link = format!("{board_url}/entry/{}", e.entry);
        items.push(Item {
            id: link.clone(),
            title: format!("New entry: {} ({} {})", e.model, b.primary, shown(view, e)),
            summary: format!(
                "Entry {} on {}: {} {} (rank {} now). Scored by the server from its files; \
                 re-score it in your browser from the entry page.",
                e.entry,
                b.title,
                b.primary,
                shown(view, e),
                e.rank.map_or("—".into(), |r| r.to_string())
            ),
            updated: &e.submitted,
            at_ms: e.submitted_ms,
            link: link.clone(),
        });
        let Some(value) = e.metrics.get(&b.primary).copied().flatten() else {
            continue;
        };
        let better = match leader {
            None => true,
            Some((_, best)) if b.lower_is_better => value < best,
            Some((_, best)) => value > best,
        };
        if better {
            let before = leader.map(|(l, _)| l.model.clone());
            leader = Some((e, value));
            items.push(Item {
                id: format!("{board_url}/leader/{}", e.entry),
                title: format!("New leader: {} ({} {})", e.model, b.primary, shown(view, e)),
                summary: match before {
                    Some(m) => format!("{} takes the lead on {} from {m}.", e.model, b.title),
                    None => format!("{} is the first entry to lead {}.", e.model, b.title),
                },
                updated: &e.submitted,
                at_ms: e.submitted_ms,
                link,
            });
        }
    }
    // Newest first (a leader change above the entry that made it).
    items.reverse();
    items.truncate(FEED_ITEMS);
    let updated = items
        .iter()
        .max_by_key(|i| i.at_ms)
        .map_or(b.updated.as_str(), |i| i.updated);
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\
         <feed xmlns=\"http://www.w3.org/2005/Atom\">\n\
         <title>{}</title>\n<subtitle>{} leaderboard on scorebench, ranked by {}</subtitle>\n\
         <id>{}</id>\n<link rel=\"self\" type=\"application/atom+xml\" href=\"{}/feed.atom\"/>\n\
         <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n<updated>{}</updated>\n\
         <author><name>scorebench</name></author>\n<generator>scorebench</generator>\n",
        xml(&b.title),
        xml(&b.benchmark_label),
        xml(&b.primary),
        xml(&board_url),
        xml(&board_url),
        xml(&board_url),
        xml(updated)
    );
    for i in &items {
        out.push_str(&format!(
            "<entry>\n<id>{}</id>\n<title>{}</title>\n<link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n\
             <updated>{}</updated>\n<summary>{}</summary>\n</entry>\n",
            xml(&i.id),
            xml(&i.title),
            xml(&i.link),
            xml(i.updated),
            xml(&i.summary)
        ));
    }
    out.push_str("</feed>\n");
    out
}

/// The embed's stylesheet (allowed by its hash in the embed's CSP); light, dark, or the
/// reader's preference.
pub const EMBED_STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:0;padding:.5rem;\
color:#1b1f24;background:#fff}body.dark{color:#e6edf3;background:#0d1117}\
@media (prefers-color-scheme:dark){body.auto{color:#e6edf3;background:#0d1117}}\
table{border-collapse:collapse;width:100%}th,td{padding:.25rem .5rem;border-bottom:1px solid #8884;\
text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}a{color:inherit}\
.muted{opacity:.7;font-size:.9em}";

/// The embed's colour scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
    /// The reader's `prefers-color-scheme`.
    Auto,
}

impl Theme {
    pub fn parse(s: Option<&str>) -> Theme {
        match s {
            Some("light") => Theme::Light,
            Some("dark") => Theme::Dark,
            _ => Theme::Auto,
        }
    }

    fn class(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
            Theme::Auto => "auto",
        }
    }
}

/// The embed page: the board's top `rows` ranked rows, each linking to its entry page.
pub fn embed(view: &BoardView, origin: &str, rows: usize, theme: Theme) -> String {
    let b = &view.board;
    let board_url = format!("{origin}/leaderboard/{}", b.slug);
    let mut body = format!(
        "<p><a href=\"{}\" target=\"_blank\" rel=\"noopener\"><strong>{}</strong></a> \
         <span class=\"muted\">{} · {}</span></p>\n<table>\n<thead><tr><th>#</th><th>Model</th>\
         <th>{}</th><th></th></tr></thead>\n<tbody>\n",
        attr(&board_url),
        text(&b.title),
        text(&b.benchmark_label),
        text(&b.primary),
        text(&b.primary)
    );
    let ranked = view.entries.iter().filter(|e| e.rank.is_some()).take(rows);
    let mut any = false;
    for e in ranked {
        any = true;
        body.push_str(&format!(
            "<tr><td class=\"num\">{}</td><td><a href=\"{}/entry/{}\" target=\"_blank\" \
             rel=\"noopener\">{}</a></td><td class=\"num\">{}</td><td class=\"muted\">{}</td></tr>\n",
            e.rank.unwrap_or_default(),
            attr(&board_url),
            e.entry,
            text(&e.model),
            shown(view, e),
            if e.status == Status::Verified {
                "verified"
            } else {
                "reported"
            }
        ));
    }
    if !any {
        body.push_str("<tr><td colspan=\"4\" class=\"muted\">No entries yet.</td></tr>\n");
    }
    body.push_str("</tbody>\n</table>\n");
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{EMBED_STYLE}</style>\n</head>\n<body class=\"{}\">\n{body}</body>\n</html>\n",
        text(&b.title),
        theme.class()
    )
}
