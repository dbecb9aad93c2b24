//! The leaderboard pages of the app: the list of boards, a board (sortable, filterable,
//! paginated ranked table with statistical ties and rank ranges), an entry (its report, charts,
//! samples, and "Verify in my browser"), the comparison of two entries, and the workbench's
//! "Publish to a leaderboard" form.
//!
//! The server renders every board page as plain HTML first (it reads and unfurls without
//! JavaScript); when the app's wasm has loaded it replaces `<main id="leaderboard-ssr">` with
//! these components. No number is computed here: the ranked values, ranks and intervals are the
//! server's, and re-scoring runs in the worker with metrics-core.

pub mod api;
pub mod board;
pub mod boards;
pub mod compare;
pub mod competition;
pub mod console;
pub mod create;
pub mod entry;
pub mod entry_owner;
pub mod import;
pub mod publish;
pub mod texts;
pub mod tokens;
pub mod webhooks;

use leptos::prelude::*;

use crate::i18n::{Lang, t};

/// Which leaderboard page a path is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    Boards,
    Board { slug: String },
    Entry { slug: String, id: i64 },
    Compare { slug: String, a: i64, b: i64 },
}

impl Route {
    /// `/leaderboards`, `/leaderboard/{slug}`, `/leaderboard/{slug}/entry/{id}`,
    /// `/leaderboard/{slug}/compare/{a}/{b}`; anything else is the workbench's.
    pub fn parse(path: &str) -> Option<Route> {
        let decode = |s: &str| {
            js_sys::decode_uri_component(s)
                .ok()
                .and_then(|s| s.as_string())
                .unwrap_or_else(|| s.to_string())
        };
        let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
        match parts.as_slice() {
            ["leaderboards"] => Some(Route::Boards),
            ["leaderboard", slug] => Some(Route::Board { slug: decode(slug) }),
            ["leaderboard", slug, "entry", id] => Some(Route::Entry {
                slug: decode(slug),
                id: id.parse().ok()?,
            }),
            ["leaderboard", slug, "compare", a, b] => Some(Route::Compare {
                slug: decode(slug),
                a: a.parse().ok()?,
                b: b.parse().ok()?,
            }),
            _ => None,
        }
    }
}

/// Mount the leaderboard page for this location, replacing the server-rendered one; `false`
/// when the location is not a leaderboard page.
pub fn mount_if_routed() -> bool {
    let Some(window) = web_sys::window() else {
        return false;
    };
    let path = window.location().pathname().unwrap_or_default();
    let Some(route) = Route::parse(&path) else {
        return false;
    };
    if let Some(ssr) = window
        .document()
        .and_then(|d| d.get_element_by_id("leaderboard-ssr"))
    {
        ssr.remove();
    }
    leptos::mount::mount_to_body(move || view! { <LeaderboardApp route=route.clone() /> });
    true
}

/// The language from `?lang=`, else the browser's.
fn initial_lang() -> Lang {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .and_then(|q| {
            q.trim_start_matches('?')
                .split('&')
                .find_map(|kv| kv.strip_prefix("lang=").map(str::to_string))
        })
        .and_then(|l| Lang::parse(&l))
        .unwrap_or_else(Lang::from_browser)
}

#[component]
fn LeaderboardApp(route: Route) -> impl IntoView {
    let lang = RwSignal::new(initial_lang());
    provide_context(lang);
    Effect::new(move |_| {
        if let Some(root) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
        {
            let _ = root.set_attribute("lang", lang.get().key());
        }
    });
    let page = match route {
        Route::Boards => view! { <boards::BoardsPage /> }.into_any(),
        Route::Board { slug } => view! { <board::BoardPage slug=slug /> }.into_any(),
        Route::Entry { slug, id } => view! { <entry::EntryPage slug=slug id=id /> }.into_any(),
        Route::Compare { slug, a, b } => {
            view! { <compare::ComparePage slug=slug a=a b=b /> }.into_any()
        }
    };
    view! {
        <header>
            <div class="brand">
                <h1><a href="/" class="home">"scorebench"</a></h1>
                <p class="tagline">
                    <a href="/leaderboards">{move || t(lang.get(), "lb.boards")}</a>
                </p>
            </div>
            <button
                class="lang-switch"
                data-lang=move || lang.get().key()
                on:click=move |_| lang.set(lang.get_untracked().other())
            >
                {move || lang.get().other().name()}
            </button>
        </header>
        <main class="leaderboard-app" data-app="leaderboard">{page}</main>
    }
}

/// A metric value as the benchmark shows it (`value × scale`, `decimals`), `—` when undefined.
pub fn shown(value: Option<f64>, display: &api::Display) -> String {
    value.map_or_else(
        || "—".into(),
        |v| format!("{:.*}", display.decimals, v * display.scale),
    )
}

/// The full-precision value as JSON writes it (`data-value`, the hover title).
pub fn full(value: Option<f64>) -> String {
    value.map_or_else(
        || "null".into(),
        |v| serde_json::to_string(&v).unwrap_or_default(),
    )
}

/// A path segment, percent-encoded.
pub fn seg(s: &str) -> String {
    String::from(js_sys::encode_uri_component(s))
}
