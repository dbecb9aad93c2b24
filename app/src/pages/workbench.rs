//! The workbench page: drop files, see what was recognised, the official report, charts,
//! samples and model comparison. All work happens in the worker; this page renders.

use leptos::prelude::*;
use workbench::Variant;
use workbench::drill::Filter;
use workbench::url_state::{Tab, ViewState};

use crate::components::charts_view::ChartsView;
use crate::components::class_view::ClassTab;
use crate::components::compare_view::CompareView;
use crate::components::drop_zone::DropZone;
use crate::components::files_panel::FilesPanel;
use crate::components::progress::ProgressBar;
use crate::components::report_table::ReportTable;
use crate::components::run_panel::RunPanel;
use crate::components::samples_view::SamplesView;
use crate::components::share_view::{ShareButton, ShareDialog, ShareOpen, provide_share_ui};
use crate::components::spec_form::{DefineSpecButton, KeptSpecs, SpecForm};
use crate::files::too_big;
use crate::i18n::{Lang, t};
use crate::protocol::OutcomeView;
use crate::worker_client::WorkbenchState;

#[component]
pub fn Workbench() -> impl IntoView {
    let state = WorkbenchState::new();
    state.keep_specs();
    // The worker loads when a file may come: a drag entering the window (long before the drop),
    // or the pointer/keyboard at the drop zone; a request (a run, a share link) starts it too.
    let _ = window_event_listener(leptos::ev::dragenter, move |_| state.wake());
    let initial = ViewState::from_query(&location_query());
    let tab = RwSignal::new(initial.tab);
    let view_filter = RwSignal::new(initial.filter());
    let lang = RwSignal::new(
        initial
            .lang
            .as_deref()
            .and_then(Lang::parse)
            .unwrap_or_else(Lang::from_browser),
    );
    provide_context(lang);
    provide_share_ui();
    let chosen_lang = RwSignal::new(initial.lang.clone());
    // <html lang> follows the interface language (fonts, screen readers).
    Effect::new(move |_| {
        let l = lang.get();
        if let Some(root) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
        {
            let _ = root.set_attribute("lang", l.key());
        }
    });
    // A class's essays open the class view by themselves, once per drop.
    let class_seen = RwSignal::new(false);
    Effect::new(move |_| {
        let has_class = state
            .outcomes
            .get()
            .iter()
            .any(|o| o.class.as_ref().is_some_and(|c| c.open_first));
        if has_class && !class_seen.get_untracked() {
            class_seen.set(true);
            tab.set(Tab::Class);
        } else if !has_class {
            class_seen.set(false);
        }
    });
    if initial.variant != Variant::Official {
        state.set_variant(initial.variant);
    }
    // The view lives in the URL: a reload or a copied link restores tab, filters and variant.
    Effect::new(move |_| {
        let f = view_filter.get();
        let view = ViewState {
            tab: tab.get(),
            subset: f.subset,
            error_type: f.error_type,
            min_disagreement: f.min_disagreement,
            query: f.query,
            variant: state.variant.get(),
            sample: None,
            lang: chosen_lang.get(),
        };
        set_location_query(&view.to_query());
    });
    // A private share link restores the sender's view (not their language).
    let apply_view = Callback::new(move |v: ViewState| {
        // The shared tab wins over the class view opening by itself.
        class_seen.set(true);
        view_filter.set(v.filter());
        tab.set(v.tab);
    });

    // The dropped files' handles, read again only if the user publishes to a leaderboard.
    let dropped = StoredValue::new_local(Vec::<web_sys::File>::new());
    // The worker reads dropped files itself, chunk by chunk straight into its wasm memory (the
    // page holds no copy), reporting progress.
    let on_files = Callback::new(move |files: Vec<web_sys::File>| {
        dropped.update_value(|d| d.extend(files.iter().cloned()));
        let mut names = Vec::new();
        let mut readable = Vec::new();
        for file in files {
            match too_big(&file) {
                Some(message) => state.errors.update(|v| v.push(message)),
                None => {
                    names.push(file.name());
                    readable.push(file);
                }
            }
        }
        if !names.is_empty() {
            state.add_dropped(names, readable);
        }
    });

    view! {
        <header>
            <div class="brand">
                <h1>"scorebench"</h1>
                <p class="tagline">{move || t(lang.get(), "tagline")}</p>
            </div>
            <button
                class="lang-switch"
                data-lang=move || lang.get().key()
                on:click=move |_| {
                    let next = lang.get_untracked().other();
                    lang.set(next);
                    chosen_lang.set(Some(next.key().to_string()));
                }
            >
                {move || lang.get().other().name()}
            </button>
            <ShareButton state=state />
        </header>
        <main>
            <ShareOpen state=state on_view=apply_view />
            <ShareDialog state=state />
            <DropZone on_files=on_files on_near=Callback::new(move |()| state.wake()) />
            <RunPanel state=state />
            <ProgressBar progress=state.progress.into() />
            <ul class="page-errors">
                {move || state.errors.get().into_iter().map(|e| view! { <li class="error" role="alert">{e}</li> }).collect_view()}
            </ul>
            <FilesPanel state=state />
            <DefineSpecButton state=state />
            <KeptSpecs state=state />
            <SpecForm state=state />
            <VariantToggle state=state />
            <nav class="tabs" role="tablist">
                {Tab::all()
                    .iter()
                    .map(|&t| {
                        view! {
                            <button
                                class="tab"
                                role="tab"
                                data-tab=t.key()
                                class:active=move || tab.get() == t
                                on:click=move |_| tab.set(t)
                            >
                                {move || tab_label(lang.get(), t)}
                            </button>
                        }
                    })
                    .collect_view()}
            </nav>
            <div class="outcomes" data-ready=move || state.warm.get().to_string() data-tab=move || tab.get().key()>
                {move || match tab.get() {
                    Tab::Table => view! {
                        <For each=move || { state.hashed.track(); state.outcomes.get() } key=card_key let:outcome>
                            <OutcomeCard outcome=outcome />
                        </For>
                    }.into_any(),
                    Tab::Charts => view! { <ChartsTab state=state /> }.into_any(),
                    Tab::Samples => view! { <SamplesTab state=state view_filter=view_filter /> }.into_any(),
                    Tab::Compare => view! { <CompareView state=state /> }.into_any(),
                    Tab::Class => view! { <ClassTab state=state /> }.into_any(),
                }}
            </div>
            <crate::leaderboard::publish::PublishPanel state=state dropped=dropped />
            <p class="timing" data-phases=move || state.phases.get()>
                {move || state.elapsed_ms.get().map(|ms| format!("{} {ms:.0} ms", t(lang.get(), "scored.in")))}
            </p>
        </main>
    }
}

/// What re-draws an outcome's card: a new scoring, or its inputs' hashes filled in (its JSON
/// export carries them).
fn card_key(o: &OutcomeView) -> (usize, Variant, String, bool, bool) {
    let hashed = o
        .result
        .as_ref()
        .is_ok_and(|r| r.inputs.iter().all(|i| !i.sha256.is_empty()));
    (o.id, o.variant, o.title.clone(), o.result.is_ok(), hashed)
}

/// Official / corrected (or paper) toggle, shown when a scored benchmark offers a variant.
#[component]
fn VariantToggle(state: WorkbenchState) -> impl IntoView {
    let offered = move || {
        let mut all: Vec<Variant> = Vec::new();
        for o in state.outcomes.get() {
            for v in o.variants {
                if !all.contains(&v) {
                    all.push(v);
                }
            }
        }
        all
    };
    move || {
        let variants = offered();
        (variants.len() > 1).then(|| {
            let buttons = variants
                .into_iter()
                .map(|v| {
                    view! {
                        <button
                            class="variant"
                            class:active=move || state.variant.get() == v
                            data-variant=v.key()
                            on:click=move |_| state.set_variant(v)
                        >
                            {v.key()}
                        </button>
                    }
                })
                .collect_view();
            view! {
                <div class="variant-toggle" role="group" aria-label="variant">
                    {move || t(crate::i18n::lang().get(), "variant")} {buttons}
                    <span class="hint">{move || t(crate::i18n::lang().get(), "variant.hint")}</span>
                </div>
            }
        })
    }
}

#[component]
fn OutcomeCard(outcome: OutcomeView) -> impl IntoView {
    let hashed = card_key(&outcome).4;
    // The inputs' SHA-256, once known (as the report's JSON carries them).
    let sha256 = match &outcome.result {
        Ok(report) if hashed => report
            .inputs
            .iter()
            .map(|i| i.sha256.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    };
    let body = match outcome.result {
        Ok(report) => {
            let table = outcome.table.unwrap_or_else(|| workbench::table::Table {
                benchmark: report.benchmark.clone(),
                variant: report.variant.clone(),
                scale: 1.0,
                decimals: 4,
                corner: String::new(),
                columns: Vec::new(),
                rows: Vec::new(),
                caption: String::new(),
            });
            view! { <ReportTable report=report table=table changed=outcome.changed model=None /> }
                .into_any()
        }
        Err(e) => {
            view! { <p class="error" role="alert" data-testid="file-error">{e.to_string()}</p> }
                .into_any()
        }
    };
    view! {
        <section
            class="card"
            data-model=outcome.model.clone()
            data-job=outcome.title.clone()
            data-benchmark=outcome.benchmark.clone()
            data-files=outcome.files.join(" ")
            data-hashed=hashed.to_string()
            data-sha256=sha256
        >
            <h2>{let (m, job) = (outcome.model.clone(), outcome.title.clone()); move || format!("{} · {}", crate::i18n::model_name(crate::i18n::lang().get(), &m), job)}</h2>
            <p class="files-line mono">{outcome.files.join(", ")}</p>
            {body}
        </section>
    }
}

fn tab_label(lang: Lang, tab: Tab) -> &'static str {
    match tab {
        Tab::Table => t(lang, "tab.table"),
        Tab::Charts => t(lang, "tab.charts"),
        Tab::Samples => t(lang, "tab.samples"),
        Tab::Compare => t(lang, "tab.compare"),
        Tab::Class => t(lang, "tab.class"),
    }
}

fn location_query() -> String {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

fn set_location_query(query: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let path = window.location().pathname().unwrap_or_else(|_| "/".into());
    // The fragment stays (a private share link's key).
    let hash = window.location().hash().unwrap_or_default();
    let url = if query.is_empty() {
        format!("{path}{hash}")
    } else {
        format!("{path}?{query}{hash}")
    };
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

#[component]
fn ChartsTab(state: WorkbenchState) -> impl IntoView {
    move || {
        state
            .outcomes
            .get()
            .into_iter()
            .filter_map(|o| {
                o.result.as_ref().ok()?;
                Some(view! {
                    <section class="card" data-benchmark=o.benchmark.clone() data-files=o.files.join(" ")>
                        <h2>{format!("{} · {}", o.model, o.title)}</h2>
                        <ChartsView state=state outcome=o.id />
                    </section>
                })
            })
            .collect_view()
    }
}

#[component]
fn SamplesTab(state: WorkbenchState, view_filter: RwSignal<Filter>) -> impl IntoView {
    let chosen = RwSignal::new(0usize);
    move || {
        let outcomes: Vec<OutcomeView> = state
            .outcomes
            .get()
            .into_iter()
            .filter(|o| o.result.is_ok())
            .collect();
        if outcomes.is_empty() {
            return view! { <p class="hint">{move || t(crate::i18n::lang().get(), "samples.none")}</p> }.into_any();
        }
        let pick = chosen.get().min(outcomes.len() - 1);
        let options = outcomes
            .iter()
            .enumerate()
            .map(|(i, o)| view! { <option value=i.to_string() selected=i == pick>{format!("{} · {}", o.model, o.title)}</option> })
            .collect_view();
        let outcome = outcomes[pick].clone();
        view! {
            <section class="card">
                <select aria-label="scored job" on:change=move |ev| chosen.set(event_target_value(&ev).parse().unwrap_or(0))>{options}</select>
                <SamplesView state=state outcome=outcome.id summary=outcome.summary view_filter=view_filter />
            </section>
        }
        .into_any()
    }
}
