//! "Create a board" on the list of boards: a public board (its gold served, every entry
//! re-scorable in a visitor's browser) or a competition (hidden gold, submissions queued and
//! scored by the server, teams and a phase). The owner token the server answers is shown once
//! and kept in this browser (`super::tokens`), so the board's page opens its console at once.

use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::api::{self, BenchmarkInfo, BoardCreated, CreateBoard, FileIn, PhaseSettings};
use super::competition::{PhaseFields, phase_settings};
use super::publish::{file_in, read_file};
use super::{seg, tokens};
use crate::i18n::{lang, t, tr};

/// The files chosen in a file input.
pub(super) fn chosen_files(input: &NodeRef<html::Input>) -> Vec<web_sys::File> {
    let Some(files) = input.get_untracked().and_then(|i| i.files()) else {
        return Vec::new();
    };
    (0..files.length()).filter_map(|i| files.get(i)).collect()
}

/// Read every chosen file into a request's files.
pub(super) async fn read_files(files: Vec<web_sys::File>) -> Result<Vec<FileIn>, String> {
    let mut out = Vec::new();
    for f in files {
        out.push(file_in(f.name(), read_file(&f).await?));
    }
    Ok(out)
}

/// The benchmark choice "defined by a spec" (not a benchmark key: keys have no `:`).
const SPEC_CHOICE: &str = ":spec";

#[component]
pub fn CreateBoardForm() -> impl IntoView {
    let benchmarks = RwSignal::new(Vec::<BenchmarkInfo>::new());
    spawn_local(async move {
        if let Ok(list) = api::benchmarks().await {
            benchmarks.set(list);
        }
    });
    let slug = RwSignal::new(String::new());
    let title = RwSignal::new(String::new());
    let description = RwSignal::new(String::new());
    let benchmark = RwSignal::new(String::new());
    let variant = RwSignal::new(String::new());
    let competition = RwSignal::new(false);
    let phase = PhaseFields::default();
    let gold = NodeRef::<html::Input>::new();
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let created = RwSignal::new(None::<BoardCreated>);

    let chosen = move || {
        let key = benchmark.get();
        benchmarks.with(|l| l.iter().find(|b| b.key == key).cloned())
    };
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let l = lang().get_untracked();
        // A benchmark defined by a spec: its `.toml` comes with the gold, and the server takes
        // the board's benchmark from it.
        let by_spec = benchmark.get_untracked() == SPEC_CHOICE;
        let key = match chosen() {
            Some(bench) => bench.key,
            None if by_spec => String::new(),
            None => return error.set(Some(t(l, "lb.choose_benchmark").into())),
        };
        let files = chosen_files(&gold);
        if files.is_empty() {
            return error.set(Some(t(l, "lb.gold_needed").into()));
        }
        let settings = match competition.get_untracked() {
            true => match phase_settings(&phase) {
                Ok(s) => Some(s).filter(|s| *s != PhaseSettings::default()),
                Err(e) => return error.set(Some(e)),
            },
            false => None,
        };
        let hidden = competition.get_untracked();
        let mut body = CreateBoard {
            slug: slug.get_untracked().trim().to_string(),
            title: title.get_untracked().trim().to_string(),
            description: description.get_untracked(),
            benchmark: key,
            variant: Some(variant.get_untracked()).filter(|v| !v.is_empty()),
            primary: None,
            metrics: None,
            gold: Vec::new(),
            hidden_gold: Vec::new(),
            competition: settings,
        };
        busy.set(true);
        error.set(None);
        spawn_local(async move {
            let result = match read_files(files).await {
                Ok(files) => {
                    if hidden {
                        body.hidden_gold = files;
                    } else {
                        body.gold = files;
                    }
                    api::create_board(&body).await.map_err(|e| e.0)
                }
                Err(e) => Err(e),
            };
            busy.set(false);
            match result {
                Ok(made) => {
                    tokens::keep(&tokens::owner_key(&made.slug), &made.owner_token);
                    created.set(Some(made));
                }
                Err(e) => error.set(Some(e)),
            }
        });
    };

    view! {
        <details class="create-board" data-testid="create-board">
            <summary>{tr("lb.create")}</summary>
            {move || created.get().map(|made| view! {
                <div class="created" role="status" data-testid="created-board" data-slug=made.slug.clone()>
                    <p>{tr("lb.created")} " "
                        <a href=format!("/leaderboard/{}", seg(&made.slug))>{made.url.clone()}</a>
                    </p>
                    <p class="hint">{tr("lb.created_token")} " "
                        <code class="mono" data-testid="created-owner-token">{made.owner_token.clone()}</code>
                    </p>
                </div>
            })}
            {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="create-error">{e}</p> })}
            <form class="board-edit" on:submit=submit>
                <label>{tr("lb.slug_field")} " "
                    <input name="slug" required pattern="[a-z0-9][a-z0-9-]*" autocomplete="off"
                        on:input=move |ev| slug.set(event_target_value(&ev)) />
                </label>
                <label>{tr("lb.title")} " "
                    <input name="title" required on:input=move |ev| title.set(event_target_value(&ev)) />
                </label>
                <label>{tr("lb.description")}
                    <textarea name="description" rows="3"
                        on:input=move |ev| description.set(event_target_value(&ev))></textarea>
                </label>
                <label>{tr("lb.benchmark")} " "
                    <select name="benchmark" required on:change=move |ev| {
                        benchmark.set(event_target_value(&ev));
                        variant.set(String::new());
                    }>
                        <option value="">"—"</option>
                        {move || benchmarks.get().into_iter().map(|b| view! {
                            <option value=b.key.clone()>{format!("{} ({})", b.label, b.key)}</option>
                        }).collect_view()}
                        <option value=SPEC_CHOICE>{tr("lb.by_spec")}</option>
                    </select>
                </label>
                {move || (benchmark.get() == SPEC_CHOICE).then(|| view! {
                    <p class="hint" data-testid="by-spec-hint">{tr("lb.by_spec_hint")}</p>
                })}
                {move || chosen().filter(|b| b.variants.len() > 1).map(|b| view! {
                    <label>{tr("lb.variant")} " "
                        <select name="variant" on:change=move |ev| variant.set(event_target_value(&ev))>
                            {b.variants.into_iter().map(|v| view! { <option value=v.clone()>{v.clone()}</option> }).collect_view()}
                        </select>
                    </label>
                })}
                <label>{tr("lb.gold_files")} " "
                    <input type="file" name="gold" multiple node_ref=gold />
                </label>
                {move || chosen().map(|b| {
                    let gold: Vec<String> = b.roles.iter().filter(|r| r.shared).map(|r| r.label.clone()).collect();
                    view! { <p class="hint">{tr("lb.gold_roles")} " " {gold.join(", ")}</p> }
                })}
                <label class="check">
                    <input type="checkbox" name="competition" on:change=move |ev| competition.set(event_target_checked(&ev)) />
                    " " {tr("lb.as_competition")}
                </label>
                {move || competition.get().then(|| view! {
                    <fieldset data-testid="create-phase">
                        <legend>{tr("lb.phase")}</legend>
                        <super::competition::PhaseInputs fields=phase />
                    </fieldset>
                })}
                <button type="submit" data-action="create-board" disabled=move || busy.get()>
                    {tr("lb.create")}
                </button>
            </form>
        </details>
    }
}
