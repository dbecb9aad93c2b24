//! A board: the ranked table at full precision (the server's ranks, rank ranges and ties with
//! the leader), sortable by any metric column, filterable by metadata, one page of rows at a
//! time (a 10,000-entry board renders 100 rows), exports, badges, and two entries to compare.

use std::collections::BTreeSet;

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::api::{self, BoardView, EntryOut};
use super::{full, seg, shown};
use crate::i18n::{lang, t, tr};

/// Rows rendered at once.
pub const PAGE_ROWS: usize = 100;

/// How the table is ordered: the server's ranking, or one metric column.
#[derive(Debug, Clone, PartialEq)]
pub enum Order {
    Rank,
    Metric { key: String, descending: bool },
}

/// What the filters hold.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Filters {
    /// A metadata key, or empty for any field (model included).
    pub key: String,
    pub query: String,
    /// `verified` | `reported` | empty for both.
    pub status: String,
}

/// The entries (as indices into `entries`, which is in rank order) that pass `filters`, in
/// `order`. Sorting moves values, it computes none: undefined values go last either way, and
/// equal values keep the rank order.
pub fn arrange(entries: &[EntryOut], filters: &Filters, order: &Order) -> Vec<usize> {
    let query = filters.query.trim().to_lowercase();
    let mut out: Vec<usize> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| filters.status.is_empty() || e.status.as_str() == filters.status)
        .filter(|(_, e)| {
            if query.is_empty() {
                return true;
            }
            let has = |s: &str| s.to_lowercase().contains(&query);
            if filters.key.is_empty() {
                has(&e.model) || e.meta.values().any(|v| has(v))
            } else {
                e.meta.get(&filters.key).is_some_and(|v| has(v))
            }
        })
        .map(|(i, _)| i)
        .collect();
    if let Order::Metric { key, descending } = order {
        let value = |i: usize| entries[i].metrics.get(key).copied().flatten();
        out.sort_by(|&a, &b| match (value(a), value(b)) {
            (Some(x), Some(y)) if *descending => y.total_cmp(&x),
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
    }
    out
}

#[component]
pub fn BoardPage(slug: String) -> impl IntoView {
    let loaded: RwSignal<Option<Result<BoardView, String>>> = RwSignal::new(None);
    let slug = StoredValue::new(slug);
    // Fetch the board; while intervals are still being computed, again every 2 s, so the page
    // fills in its rank ranges and tiers by itself.
    fn fetch(slug: StoredValue<String>, loaded: RwSignal<Option<Result<BoardView, String>>>) {
        let slug = slug.get_value();
        spawn_local(async move {
            let started = js_sys::Date::now();
            let result = api::board(&slug).await.map_err(|e| e.to_string());
            let pending = result.as_ref().is_ok_and(|v| v.bootstrap.pending > 0);
            loaded.set(Some(result));
            mark_timing("board-loaded", started);
            if pending {
                let slug = StoredValue::new(slug);
                set_timeout(
                    move || fetch(slug, loaded),
                    std::time::Duration::from_secs(2),
                );
            }
        });
    }
    fetch(slug, loaded);
    let refresh = Callback::new(move |()| fetch(slug, loaded));
    // A competition's phase, and the participants' panel (mounted once, not on every fetch).
    let phase = Memo::new(move |_| {
        loaded.with(|l| match l {
            Some(Ok(v)) => v.board.competition.clone(),
            _ => None,
        })
    });
    let primary = Memo::new(move |_| {
        loaded.with(|l| match l {
            Some(Ok(v)) if v.board.competition.is_some() => Some(v.board.primary.clone()),
            _ => None,
        })
    });
    view! {
        {move || match loaded.get() {
            None => view! { <p class="hint">{tr("lb.loading")}</p> }.into_any(),
            Some(Err(e)) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
            Some(Ok(view)) => view! { <Board view=view /> }.into_any(),
        }}
        {move || phase.get().map(|info| view! { <super::competition::PhaseLine info=info /> })}
        {move || primary.get().map(|primary| view! {
            <super::competition::TeamPanel slug=slug.get_value() primary=primary on_change=refresh />
        })}
        <super::console::OwnerConsole slug=slug.get_value() on_change=refresh />
    }
}

/// Record how long something took since `started` in `<body data-{name}-ms>` (the 10k-entry
/// measurement reads it) and on the console's timeline.
fn mark_timing(name: &str, started: f64) {
    let ms = js_sys::Date::now() - started;
    if let Some(body) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body())
    {
        let _ = body.set_attribute(&format!("data-{name}-ms"), &format!("{ms:.0}"));
    }
}

/// `?page=N` of the location, 1 when absent.
fn query_page() -> usize {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .and_then(|q| {
            q.trim_start_matches('?')
                .split('&')
                .find_map(|kv| kv.strip_prefix("page=")?.parse().ok())
        })
        .unwrap_or(1)
}

#[component]
fn Board(view: BoardView) -> impl IntoView {
    let BoardView {
        board,
        bootstrap,
        entries,
    } = view;
    let entries = StoredValue::new(entries);
    let board = StoredValue::new(board);
    let order = RwSignal::new(Order::Rank);
    let filters = RwSignal::new(Filters::default());
    // The server's `?page=N` (from 1) is where the app starts too.
    let page = RwSignal::new(query_page().saturating_sub(1));
    let picked: RwSignal<Vec<i64>> = RwSignal::new(Vec::new());
    let arranged = Memo::new(move |_| {
        let (f, o) = (filters.get(), order.get());
        entries.with_value(|e| arrange(e, &f, &o))
    });
    // A new filter or order starts at the first page.
    Effect::new(move |first_run: Option<()>| {
        arranged.track();
        if first_run.is_some() {
            page.set(0);
        }
    });
    let meta_keys: Vec<String> = entries.with_value(|e| {
        e.iter()
            .flat_map(|e| e.meta.keys().cloned())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    });
    let any_reported = entries.with_value(|e| e.iter().any(|e| e.status == api::Status::Reported));
    let (slug, title, description, label, variant, primary, display, metrics) =
        board.with_value(|b| {
            (
                b.slug.clone(),
                b.title.clone(),
                b.description_html.clone(),
                b.benchmark_label.clone(),
                b.variant.clone(),
                b.primary.clone(),
                b.display,
                b.metrics.clone(),
            )
        });
    let hidden_gold = board.with_value(|b| b.hidden_gold());
    let gold = board.with_value(|b| b.gold.clone());
    let total = entries.with_value(Vec::len);
    let api_base = format!("/api/v1/leaderboards/{}", seg(&slug));
    let slug_follow = seg(&slug);
    let embed_snippet = workbench::wire::embed_snippet(
        &web_sys::window()
            .and_then(|w| w.location().origin().ok())
            .unwrap_or_default(),
        &seg(&slug),
    );
    let scale_note = (display.scale != 1.0).then(|| {
        let scale = display.scale;
        view! { " · " {tr("lb.values_x")} {scale.to_string()} }
    });

    let header_cells = metrics
        .iter()
        .map(|m| {
            let key = m.clone();
            let is_primary = *m == primary;
            let arrow = {
                let key = key.clone();
                move || match order.get() {
                    Order::Metric { key: k, descending } if k == key => {
                        if descending {
                            " ▼"
                        } else {
                            " ▲"
                        }
                    }
                    _ => "",
                }
            };
            let on_click = {
                let key = key.clone();
                move |_| {
                    let next = match order.get_untracked() {
                        Order::Metric { key: k, descending } if k == key => Order::Metric {
                            key: key.clone(),
                            descending: !descending,
                        },
                        _ => Order::Metric {
                            key: key.clone(),
                            descending: true,
                        },
                    };
                    order.set(next);
                }
            };
            view! {
                <th scope="col" class="num sortable" class:primary=is_primary data-sort=key.clone()>
                    <button class="link sort" on:click=on_click title=tr("lb.sort_hint")>
                        {key.clone()}{arrow}
                    </button>
                </th>
            }
        })
        .collect_view();

    let rows = {
        let (slug, metrics, display) = (slug.clone(), metrics.clone(), display);
        move || {
            let idx = arranged.get();
            let start = page.get() * PAGE_ROWS;
            let shown_idx: Vec<usize> = idx.iter().skip(start).take(PAGE_ROWS).copied().collect();
            entries.with_value(|all| {
                shown_idx
                    .into_iter()
                    .map(|i| entry_row(&all[i], &slug, &metrics, &display, picked))
                    .collect_view()
            })
        }
    };

    let pages = move || arranged.with(|a| a.len().div_ceil(PAGE_ROWS).max(1));
    let compare_link = {
        let slug = slug.clone();
        move || {
            let p = picked.get();
            (p.len() == 2).then(|| {
                let href = format!("/leaderboard/{}/compare/{}/{}", seg(&slug), p[0], p[1]);
                view! { <a class="button" data-testid="compare-link" href=href>{tr("lb.compare_go")}</a> }
            })
        }
    };
    let key_options = meta_keys
        .iter()
        .map(|k| view! { <option value=k.clone()>{k.clone()}</option> })
        .collect_view();

    view! {
        <section class="board" data-slug=slug.clone() data-entries=total.to_string()>
            <h2 class="board-title">{title}</h2>
            <p class="hint">
                {label} " · " {tr("lb.variant")} " " <code>{variant}</code> " · "
                {tr("lb.ranked_by")} " " <code>{primary.clone()}</code> " "
                {tr("lb.full_precision")} {scale_note}
            </p>
            {(!description.is_empty()).then(|| view! { <div class="description" inner_html=description></div> })}
            <div class="filters">
                <select aria-label="metadata field" data-testid="filter-key"
                    on:change=move |ev| filters.update(|f| f.key = event_target_value(&ev))>
                    <option value="">{tr("lb.any_key")}</option>
                    {key_options}
                </select>
                <input type="search" data-testid="filter" placeholder=tr("lb.filter")
                    on:input=move |ev| filters.update(|f| f.query = event_target_value(&ev)) />
                {any_reported.then(|| view! {
                    <select aria-label="status" data-testid="filter-status"
                        on:change=move |ev| filters.update(|f| f.status = event_target_value(&ev))>
                        <option value="">{tr("lb.all_status")}</option>
                        <option value="verified">{tr("lb.only_verified")}</option>
                        <option value="reported">{tr("lb.only_reported")}</option>
                    </select>
                })}
                <button class="link" data-testid="sort-rank" on:click=move |_| order.set(Order::Rank)>
                    {tr("lb.rank")}
                </button>
                <span class="count" data-testid="count">
                    {move || arranged.with(Vec::len)} " " {tr("lb.of")} " " {total}
                </span>
            </div>
            <div class="report-table">
                <table class="metrics ranked" data-testid="ranked">
                    <thead>
                        <tr>
                            <th scope="col">{tr("lb.rank")}</th>
                            <th scope="col" title=tr("lb.tier_hint")>{tr("lb.tier")}</th>
                            <th scope="col">{tr("lb.model")}</th>
                            {header_cells}
                            <th scope="col">{tr("lb.status")}</th>
                            <th scope="col">{tr("lb.organisation")}</th>
                            <th scope="col">{tr("lb.parameters")}</th>
                            <th scope="col">{tr("lb.open_weights")}</th>
                            <th scope="col">{tr("lb.submitted")}</th>
                            <th scope="col">{tr("lb.badges")}</th>
                            <th scope="col" title=tr("lb.compare_pick")>{tr("lb.compare")}</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <nav class="pager">
                <button class="link" data-testid="prev" disabled=move || page.get() == 0
                    on:click=move |_| page.update(|p| *p = p.saturating_sub(1))>
                    {tr("lb.prev")}
                </button>
                <span data-testid="page">{tr("lb.page")} " " {move || page.get() + 1} " / " {pages}</span>
                <button class="link" data-testid="next" disabled=move || { page.get() + 1 >= pages() }
                    on:click=move |_| page.update(|p| *p += 1)>
                    {tr("lb.next")}
                </button>
            </nav>
            <p class="hint">
                {tr("lb.ties_note")}
                " (" {tr("compare.resamples")} {bootstrap.resamples} ", " {tr("compare.seed")} {bootstrap.seed} ")"
                {(bootstrap.pending > 0).then(|| view! { " · " {tr("lb.pending")} " " {bootstrap.pending} })}
            </p>
            {bootstrap.resolution.map(|r| {
                let smallest = bootstrap.smallest_resolved;
                let primary = bootstrap.metric.clone();
                view! {
                    <p class="hint" data-testid="resolution" data-value=full(Some(r))>
                        {tr("lb.resolution")} " " <code>{primary.clone()}</code> " < "
                        {shown(Some(r), &display)}
                        {smallest.map(|x| view! { " · " {tr("lb.smallest_resolved")} " " {shown(Some(x), &display)} })}
                        " · " {tr("lb.tier_hint")}
                    </p>
                }
            })}
            <p class="hint">{tr("lb.compare_pick")} " " {compare_link}</p>
            <p class="exports" data-testid="exports">
                {tr("lb.export")}
                <a href=format!("{api_base}/export?format=csv")>"CSV"</a>
                <a href=format!("{api_base}/export?format=markdown")>"Markdown"</a>
                <a href=format!("{api_base}/export?format=latex")>"LaTeX"</a>
                <a href=format!("{api_base}/export?format=json")>"JSON"</a>
            </p>
            <p class="hint" data-testid="follow">
                {tr("lb.follow")} " "
                <a href=format!("/leaderboard/{slug_follow}/feed.atom") data-testid="feed">{tr("lb.feed")}</a>
                " · " {tr("lb.embed")} " "
                <code class="mono" data-testid="embed-snippet">{embed_snippet}</code>
            </p>
            {(!hidden_gold && !gold.is_empty()).then(|| view! {
                <h3>{tr("lb.gold")}</h3>
                <ul class="files">
                    {gold.into_iter().map(|f| view! {
                        <li><a href=f.url.clone()>{f.name.clone()}</a> " " <code class="mono">{f.sha256.clone()}</code></li>
                    }).collect_view()}
                </ul>
            })}
        </section>
    }
}

fn entry_row(
    e: &EntryOut,
    slug: &str,
    metrics: &[String],
    display: &api::Display,
    picked: RwSignal<Vec<i64>>,
) -> impl IntoView + use<> {
    let id = e.entry;
    let rank = e.rank.map_or_else(|| "—".to_string(), |r| r.to_string());
    let range = match e.rank_range {
        Some([lo, hi]) if lo != hi => Some(format!("{lo}–{hi}")),
        _ => None,
    };
    let tied = e.tied_with_leader == Some(true);
    // The interval behind the mark: entry − leader on the primary metric, 95 %.
    let interval = e
        .versus_leader
        .as_ref()
        .map(|v| {
            format!(
                " ({} [{}, {}])",
                full(v.difference),
                full(v.low),
                full(v.high)
            )
        })
        .unwrap_or_default();
    let cells = metrics
        .iter()
        .map(|m| {
            let v = e.metrics.get(m).copied().flatten();
            view! {
                <td class="metric num" data-metric=m.clone() data-value=full(v) title=full(v)>
                    {shown(v, display)}
                </td>
            }
        })
        .collect_view();
    let meta = |k: &str| e.meta.get(k).cloned().unwrap_or_default();
    let reported = e.status == api::Status::Reported;
    let state = e.state;
    let entry_href = format!("/leaderboard/{}/entry/{id}", seg(slug));
    let badge = format!("/leaderboard/{}/badge/{id}.svg", seg(slug));
    let link = e
        .meta
        .get("link")
        .filter(|l| l.starts_with("https://") || l.starts_with("http://"))
        .cloned();
    view! {
        <tr data-entry=id.to_string() data-status=e.status.as_str() class:reported=reported
            data-tier=e.tier.map(|t| t.to_string()) class:tier-even=e.tier.is_some_and(|t| t % 2 == 0)>
            <td class="num rank">
                <span data-testid="rank">{rank}</span>
                {range.map(|r| view! { " " <span class="muted rank-range" title=tr("lb.rank_range")>"(" {r} ")"</span> })}
                {tied.then(|| view! { " " <span class="tied" data-testid="tied" title=move || format!("{}{interval}", t(lang().get(), "lb.tied"))>"≈"</span> })}
            </td>
            <td class="num tier">{e.tier.map_or_else(|| "—".to_string(), |t| t.to_string())}</td>
            <td class="model">
                <a href=entry_href>{e.model.clone()}</a>
                {link.map(|l| view! { " " <a href=l rel="nofollow noopener ugc" class="muted">"↗"</a> })}
                {(state != api::State::Visible).then(|| {
                    let key = if state == api::State::Hidden { "lb.hidden" } else { "lb.withdrawn" };
                    view! { " " <span class="muted">"(" {move || t(lang().get(), key)} ")"</span> }
                })}
            </td>
            {cells}
            <td class="status">
                {if reported {
                    view! { <span class="reported" data-testid="reported">{tr("lb.reported")}</span> }.into_any()
                } else {
                    view! { <span class="verified">{tr("lb.verified")}</span> }.into_any()
                }}
            </td>
            <td>{meta("organisation")}</td>
            <td>{meta("parameters")}</td>
            <td>{meta("open_weights")}</td>
            <td class="mono">{e.submitted.chars().take(10).collect::<String>()}</td>
            <td><a href=badge class="badge-link">{tr("lb.badge")}</a></td>
            <td>
                {(!reported).then(|| view! {
                    <input type="checkbox" data-testid="pick" aria-label="compare"
                        prop:checked=move || picked.with(|p| p.contains(&id))
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            picked.update(|p| {
                                p.retain(|&x| x != id);
                                if on {
                                    p.push(id);
                                    if p.len() > 2 {
                                        p.remove(0);
                                    }
                                }
                            });
                        } />
                })}
            </td>
        </tr>
    }
}
