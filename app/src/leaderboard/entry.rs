//! An entry: its metadata, inputs with their SHA-256, the stored report, and "Verify in my
//! browser": the entry's files and the board's gold are downloaded, scored by the worker
//! (metrics-core in wasm, which also hashes every input), and compared bit for bit with the
//! published report ([`workbench::verify::metric_differences`], the check the server and
//! `scorebench leaderboard verify` use). Hidden-gold boards show the published SHA-256 instead.

use std::collections::BTreeMap;

use leptos::prelude::*;
use leptos::task::spawn_local;
use metrics_core::Report;
use workbench::Variant;
use workbench::drill::Filter;
use workbench::verify::Verdict;

use super::api::{self, BoardView, EntryDetail, FileOut, Status};
use super::seg;
use crate::components::charts_view::ChartsView;
use crate::components::progress::ProgressBar;
use crate::components::report_table::ReportTable;
use crate::components::samples_view::SamplesView;
use crate::i18n::{lang, t, tr};
use crate::protocol::{FileView, OutcomeView, RoleView};
use crate::worker_client::WorkbenchState;

/// The version of the scorer this page runs (the workspace's).
pub const SCORER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The board's variant (its report name) as the worker names it: every benchmark has at most
/// two variants, `official` first; its second (`corrected`, MSQA's `paper`) is
/// [`Variant::Corrected`]. (Asking the registry would link every benchmark into the page.)
pub fn variant_of(name: &str) -> Variant {
    if name == Variant::Official.key() {
        Variant::Official
    } else {
        Variant::Corrected
    }
}

/// Download `files` and hand them to the worker as one drop (one model), with the roles the
/// server gave them when detection alone would not.
pub async fn load_into(state: WorkbenchState, files: &[FileOut]) -> Result<(), String> {
    let mut names = Vec::new();
    let mut bytes = Vec::new();
    for f in files {
        bytes.push(api::file(f).await.map_err(|e| e.to_string())?);
        names.push(f.name.clone());
    }
    state.add_files(names, bytes);
    Ok(())
}

/// Give files the roles the server stored when the worker's detection differs (an unrecognised
/// file takes the benchmark's only role on the server).
pub fn keep_roles(state: WorkbenchState, roles: BTreeMap<String, String>) {
    Effect::new(move |_| {
        let known = state.roles.get();
        for f in state.files.get() {
            if let Some(role) = roles.get(&f.name)
                && !role.is_empty()
                && *role != f.role
                && known.iter().any(|r| r.key == *role)
            {
                state.set_role(f.index, role.clone());
            }
        }
    });
}

/// Compare the published report and files with what the browser computed: the hash of every
/// downloaded file (`held`: the worker's list, in the order the files were loaded, each hashed
/// before scoring) and the re-scoring.
pub fn verdict(
    published: &Report,
    published_files: &[FileOut],
    held: &[FileView],
    ours: &Result<Report, String>,
) -> Verdict {
    let files = published_files.iter().enumerate().map(|(i, f)| {
        let computed = held
            .get(i)
            .filter(|h| h.name == f.name)
            .or_else(|| held.iter().find(|h| h.name == f.name))
            .and_then(|h| h.sha256.clone());
        (f.name.as_str(), f.sha256.as_str(), computed)
    });
    Verdict::new(published, files, ours.as_ref().map_err(Clone::clone))
}

/// The worker holds every published file with the role the board stored (where this page knows
/// the role: [`keep_roles`] sets it after the first detection), so its scoring is the entry's.
fn roles_settled(held: &[FileView], published: &[FileOut], known: &[RoleView]) -> bool {
    held.len() == published.len()
        && held.iter().zip(published).all(|(h, p)| {
            h.name == p.name
                && (p.role.is_empty() || h.role == p.role || !known.iter().any(|r| r.key == p.role))
        })
}

/// The worker's result for `benchmark` (the first job of it).
pub fn outcome_of(outcomes: &[OutcomeView], benchmark: &str) -> Option<OutcomeView> {
    outcomes
        .iter()
        .find(|o| o.benchmark == benchmark)
        .or_else(|| outcomes.first())
        .cloned()
}

#[component]
pub fn EntryPage(slug: String, id: i64) -> impl IntoView {
    let loaded: RwSignal<Option<Result<(BoardView, EntryDetail), String>>> = RwSignal::new(None);
    {
        let slug = slug.clone();
        spawn_local(async move {
            let result = async {
                let board = api::board(&slug).await?;
                let entry = api::entry(&slug, id).await?;
                Ok((board, entry))
            }
            .await
            .map_err(|e: crate::api::ApiError| e.to_string());
            loaded.set(Some(result));
        });
    }
    move || match loaded.get() {
        None => view! { <p class="hint">{tr("lb.loading")}</p> }.into_any(),
        Some(Err(e)) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
        Some(Ok((board, entry))) => view! { <Entry board=board entry=entry /> }.into_any(),
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Verify {
    Idle,
    Running,
    Done(Verdict),
    Failed(String),
}

#[component]
fn Entry(board: BoardView, entry: EntryDetail) -> impl IntoView {
    let b = board.board.clone();
    let slug = b.slug.clone();
    let hidden_gold = entry.hidden_gold() || b.hidden_gold();
    let reported = entry.status == Status::Reported;
    let ranked = board
        .entries
        .iter()
        .find(|e| e.entry == entry.entry)
        .cloned();
    let published_files: Vec<FileOut> = entry
        .inputs
        .iter()
        .chain(entry.gold.iter())
        .cloned()
        .collect();
    let stored = entry.report.clone();
    let stored_for_table = entry.report.clone().zip(entry.table.clone());
    let scorer = format!(
        "{} ({})",
        entry.scorer["version"].as_str().unwrap_or("?"),
        entry.scorer["commit"].as_str().unwrap_or("?")
    );

    let owner_panel = (!hidden_gold && !reported).then(|| {
        view! {
            <super::entry_owner::EntryOwner slug=slug.clone() id=entry.entry model=entry.model.clone() meta=entry.meta.clone() />
        }
    });
    let receipt_entry = entry.clone();
    let verify = RwSignal::new(Verify::Idle);
    // Verifications started on this page: the verdict says which one it is (`data-run`).
    let runs = RwSignal::new(0u32);
    // A benchmark defined by a spec: the board publishes the spec (role `<key>:spec`) among its
    // gold files; the worker reads and registers it before the others (`app::spectoml`).
    let state = (!hidden_gold && !reported).then(WorkbenchState::new);
    let view_filter = RwSignal::new(Filter::default());
    let tab = RwSignal::new("table");
    if let Some(state) = state {
        state.set_variant(variant_of(&b.variant));
        keep_roles(
            state,
            published_files
                .iter()
                .map(|f| (f.name.clone(), f.role.clone()))
                .collect(),
        );
        // The verdict, once the worker has scored what was downloaded.
        let (stored, files, benchmark) =
            (stored.clone(), published_files.clone(), b.benchmark.clone());
        Effect::new(move |_| {
            let outcomes = state.outcomes.get();
            let held = state.files.get();
            if verify.get_untracked() != Verify::Running
                || state.progress.get().is_some()
                || !state.outcomes_current.get()
                || !roles_settled(&held, &files, &state.roles.get())
            {
                return;
            }
            let Some(outcome) = outcome_of(&outcomes, &benchmark) else {
                return;
            };
            let ours = outcome.result.clone().map_err(|e| e.to_string());
            let next = match &stored {
                Some(published) => Verify::Done(verdict(published, &files, &held, &ours)),
                None => Verify::Failed(t(lang().get_untracked(), "lb.no_report").into()),
            };
            verify.set(next);
        });
    }
    let on_verify = {
        let files = published_files.clone();
        move |_| {
            let Some(state) = state else { return };
            if verify.get_untracked() == Verify::Running {
                return;
            }
            verify.set(Verify::Running);
            runs.update(|n| *n += 1);
            state.clear();
            let files = files.clone();
            spawn_local(async move {
                if let Err(e) = load_into(state, &files).await {
                    verify.set(Verify::Failed(e));
                }
            });
        }
    };

    let meta_rows = entry
        .meta
        .iter()
        .map(|(k, v)| view! { <tr><th scope="row">{k.clone()}</th><td data-meta=k.clone()>{v.clone()}</td></tr> })
        .collect_view();
    let file_rows = published_files
        .iter()
        .map(|f| {
            view! {
                <li data-file=f.name.clone()>
                    <a href=f.url.clone()>{f.name.clone()}</a> " "
                    <span class="muted">{f.role.clone()}</span> " "
                    <code class="mono" data-testid="published-sha">{f.sha256.clone()}</code>
                </li>
            }
        })
        .collect_view();
    let stored_table = move || {
        stored_for_table
            .clone()
            .map(|(report, table)| view! { <ReportTable report=report table=table model=None /> })
    };
    let rank_line = ranked.as_ref().and_then(|e| e.rank).map(|r| {
        let range = ranked
            .as_ref()
            .and_then(|e| e.rank_range)
            .filter(|[lo, hi]| lo != hi)
            .map(|[lo, hi]| format!(" ({lo}–{hi})"))
            .unwrap_or_default();
        format!("#{r}{range}")
    });
    let tied = ranked.as_ref().and_then(|e| e.tied_with_leader) == Some(true);
    let badge = format!("/leaderboard/{}/badge/{}.svg", seg(&slug), entry.entry);

    view! {
        <p><a href=format!("/leaderboard/{}", seg(&slug))>{b.title.clone()}</a></p>
        <section class="entry" data-entry=entry.entry.to_string() data-status=entry.status.as_str()>
            <h2 class="entry-model" data-testid="model">{entry.model.clone()}</h2>
            <p class="hint">
                {tr("lb.entry")} " " {entry.entry} " · "
                {rank_line} {tied.then(|| view! { " " <span class="tied" title=tr("lb.tied")>"≈"</span> })}
                " · " {if reported {
                    view! { <span class="reported">{tr("lb.reported")}</span> }.into_any()
                } else {
                    view! { <span class="verified">{tr("lb.verified")}</span> }.into_any()
                }}
                " · " {entry.submitted.clone()}
            </p>
            <h3>{tr("lb.metadata")}</h3>
            <table class="metrics meta" data-testid="meta"><tbody>{meta_rows}</tbody></table>
            <h3>{tr("lb.inputs")}</h3>
            <ul class="files">{file_rows}</ul>
            <p class="hint">{tr("lb.scorer")} " " <span class="mono" data-testid="scorer">{scorer.clone()}</span></p>
            <super::entry_owner::ReceiptCheck entry=receipt_entry />
            <p><img src=badge alt="badge" /></p>
            {reported.then(|| view! { <p class="hint">{tr("lb.reported_entry")}</p> })}
            {hidden_gold.then(|| view! { <p class="hint" data-testid="hidden-gold">{tr("lb.hidden_gold")}</p> })}
            {state.map(|_| view! {
                <div class="verify">
                    <button class="variant" data-testid="verify" on:click=on_verify
                        disabled=move || verify.get() == Verify::Running>
                        {tr("lb.verify")}
                    </button>
                    <span class="hint">{tr("lb.verify_hint")}</span>
                </div>
            })}
            {state.map(|s| view! { <ProgressBar progress=s.progress.into() /> })}
            {move || verify_view(verify.get(), runs.get_untracked(), scorer_line())}
            {owner_panel}
            <h3>{tr("lb.report")}</h3>
            {move || {
                let ours = state.and_then(|s| outcome_of(&s.outcomes.get(), &b.benchmark).map(|o| (s, o)));
                match ours {
                    Some((s, o)) if o.result.is_ok() => scored_views(s, o, tab, view_filter).into_any(),
                    _ => view! { <div class="stored-report">{stored_table()}</div> }.into_any(),
                }
            }}
        </section>
    }
}

fn scorer_line() -> String {
    SCORER_VERSION.to_string()
}

fn verify_view(v: Verify, run: u32, version: String) -> impl IntoView {
    match v {
        Verify::Idle => ().into_any(),
        Verify::Running => {
            view! { <p class="hint" data-testid="verifying">{tr("lb.verifying")}</p> }.into_any()
        }
        Verify::Failed(e) => {
            view! { <p class="error" role="alert" data-testid="verify-error">{e}</p> }.into_any()
        }
        Verify::Done(verdict) => {
            let ok = verdict.identical();
            let hash_rows = verdict
                .files
                .iter()
                .map(|f| {
                    let (same, used) = (f.same(), f.used);
                    let mark = if same { "✓" } else { "✗" };
                    view! {
                        <tr data-testid="sha-row" data-file=f.name.clone() data-same=same.to_string() data-used=used.to_string()>
                            <td>{f.name.clone()}</td>
                            <td class="mono">{f.computed.clone().unwrap_or_else(|| "—".into())}</td>
                            <td>{mark}
                                {(!used).then(|| view! { " " <span class="hint" data-testid="not-used">{tr("lb.not_used")}</span> })}
                            </td>
                        </tr>
                    }
                })
                .collect_view();
            let diffs = verdict
                .differences
                .iter()
                .map(|d| {
                    view! {
                        <li data-testid="difference" data-at=d.at.clone()>
                            <code>{d.at.clone()}</code> ": " {d.server.to_string()} " → " {d.other.to_string()}
                        </li>
                    }
                })
                .collect_view();
            let bad_files: Vec<String> = verdict.bad_files().map(|f| f.name.clone()).collect();
            let any_hash_bad = !bad_files.is_empty();
            let unused = verdict.files.iter().any(|f| !f.used);
            let bad_files = bad_files.join(", ");
            view! {
                <div class="verdict" class:ok=ok data-testid="verdict" data-ok=ok.to_string() data-run=run.to_string()>
                    {if ok {
                        view! { <p class="ok" data-testid="verified-ok">{tr("lb.verified_ok")}</p> }.into_any()
                    } else {
                        view! {
                            {verdict.error.clone().map(|e| view! { <p class="error" role="alert">{e}</p> })}
                            {any_hash_bad.then(|| view! { <p class="error" data-testid="hash-bad">{tr("lb.hash_bad")} " " <span class="mono">{bad_files.clone()}</span></p> })}
                            {(!verdict.differences.is_empty()).then(|| view! { <p class="error">{tr("lb.verified_bad")}</p> })}
                            <ul class="differences">{diffs}</ul>
                        }.into_any()
                    }}
                    <table class="metrics hashes">
                        <caption>{tr("lb.sha_browser")}</caption>
                        <tbody>{hash_rows}</tbody>
                    </table>
                    {unused.then(|| view! { <p class="hint" data-testid="not-used-hint">{tr("lb.not_used_hint")}</p> })}
                    <p class="hint">{tr("lb.scored_by")} " " <span class="mono" data-testid="browser-scorer">{version}</span></p>
                </div>
            }
            .into_any()
        }
    }
}

/// The worker's report, charts and samples of the re-scored entry.
pub fn scored_views(
    state: WorkbenchState,
    outcome: OutcomeView,
    tab: RwSignal<&'static str>,
    view_filter: RwSignal<Filter>,
) -> impl IntoView {
    let Ok(report) = outcome.result.clone() else {
        return ().into_any();
    };
    let Some(table) = outcome.table.clone() else {
        return ().into_any();
    };
    let tabs = [("table", "tab.table"), ("charts", "tab.charts"), ("samples", "tab.samples")]
        .into_iter()
        .map(|(key, label)| {
            view! {
                <button class="tab" data-tab=key class:active=move || tab.get() == key on:click=move |_| tab.set(key)>
                    {move || t(lang().get(), label)}
                </button>
            }
        })
        .collect_view();
    let (summary, id) = (outcome.summary.clone(), outcome.id);
    view! {
        <nav class="tabs" role="tablist">{tabs}</nav>
        <div class="card" data-benchmark=outcome.benchmark.clone()>
            {move || match tab.get() {
                "charts" => view! { <ChartsView state=state outcome=id /> }.into_any(),
                "samples" => view! { <SamplesView state=state outcome=id summary=summary.clone() view_filter=view_filter /> }.into_any(),
                _ => view! { <ReportTable report=report.clone() table=table.clone() model=None /> }.into_any(),
            }}
        </div>
    }
    .into_any()
}
