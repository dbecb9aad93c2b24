//! The workbench page: drop files, see what was recognised, the official report, charts,
//! samples and model comparison. All work happens in the worker; this page renders.

use js_sys::Uint8Array;
use leptos::prelude::*;
use leptos::task::spawn_local;
use metrics_core::workbench::Variant;

use crate::components::drop_zone::DropZone;
use crate::components::files_panel::FilesPanel;
use crate::components::progress::ProgressBar;
use crate::components::report_table::ReportTable;
use crate::files::read_in_chunks;
use crate::protocol::OutcomeView;
use crate::worker_client::{Progress, WorkbenchState};

#[component]
pub fn Workbench() -> impl IntoView {
    let state = WorkbenchState::new();

    let on_files = Callback::new(move |files: Vec<web_sys::File>| {
        spawn_local(async move {
            let total: f64 = files.iter().map(|f| f.size()).sum();
            let mut done = 0.0;
            let mut names = Vec::new();
            let mut bytes: Vec<Uint8Array> = Vec::new();
            for file in &files {
                let base = done;
                let progress = move |read: f64| {
                    state.progress.set(Some(Progress { stage: "reading".into(), done: base + read, total }));
                };
                match read_in_chunks(file, progress).await {
                    Ok(b) => {
                        names.push(file.name());
                        bytes.push(b);
                    }
                    Err(message) => state.errors.update(|v| v.push(message)),
                }
                done += file.size();
            }
            if names.is_empty() {
                state.progress.set(None);
            } else {
                state.add_files(names, bytes);
            }
        });
    });

    view! {
        <header>
            <div class="brand">
                <h1>"scorebench"</h1>
                <p class="tagline">"Official benchmark numbers, computed in your browser. Nothing is uploaded."</p>
            </div>
        </header>
        <main>
            <DropZone on_files=on_files />
            <ProgressBar progress=state.progress.into() />
            <ul class="page-errors">
                {move || state.errors.get().into_iter().map(|e| view! { <li class="error" role="alert">{e}</li> }).collect_view()}
            </ul>
            <FilesPanel state=state />
            <VariantToggle state=state />
            <div class="outcomes" data-ready=move || state.ready.get().to_string()>
                <For each=move || state.outcomes.get() key=|o| (o.id, o.variant, o.title.clone(), o.result.is_ok()) let:outcome>
                    <OutcomeCard outcome=outcome />
                </For>
            </div>
            <p class="timing">
                {move || state.elapsed_ms.get().map(|ms| format!("scored in {ms:.0} ms"))}
            </p>
        </main>
    }
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
                    "Variant: " {buttons}
                    <span class="hint">"Cells that differ from the official numbers are highlighted."</span>
                </div>
            }
        })
    }
}

#[component]
fn OutcomeCard(outcome: OutcomeView) -> impl IntoView {
    let body = match outcome.result {
        Ok(report) => view! { <ReportTable report=report official=outcome.official model=None /> }.into_any(),
        Err(e) => view! { <p class="error" role="alert" data-testid="file-error">{e.to_string()}</p> }.into_any(),
    };
    view! {
        <section
            class="card"
            data-job=outcome.title.clone()
            data-benchmark=outcome.benchmark.key()
            data-files=outcome.files.join(" ")
        >
            <h2>{outcome.title.clone()}</h2>
            <p class="files-line mono">{outcome.files.join(", ")}</p>
            {body}
        </section>
    }
}
