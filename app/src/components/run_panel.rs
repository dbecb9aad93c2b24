//! Run a model over a benchmark through the server (which holds the keys): choose the
//! benchmark, a model the server allows, the dataset, workers and a limit; watch progress;
//! pause and resume; open the finished run's files in the workbench.
//! Hidden when the server has no upstream configured.

use std::time::Duration;

use js_sys::Uint8Array;
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;
use web_sys::HtmlInputElement;

use crate::api::{self, Model, RunProgress, StartRun};
use crate::files::list;
use crate::i18n::{lang, run_state, t, tf};
use crate::worker_client::WorkbenchState;

/// How often a running run's progress is asked for.
pub(crate) const POLL: Duration = Duration::from_millis(700);

pub(crate) async fn sleep(duration: Duration) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(window) = web_sys::window() {
            let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(
                &resolve,
                duration.as_millis() as i32,
            );
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// The files a finished run hands to the workbench: the run's outputs, plus the dataset when
/// it is the gold file (EOTGC).
fn outputs(progress: &RunProgress) -> Vec<&'static str> {
    match progress.benchmark.as_str() {
        "msqa" => vec!["evaluation.json"],
        _ if progress.files.iter().any(|f| f == "track1.json") => vec!["track1.json"],
        _ => vec!["track2.json"],
    }
}

#[component]
pub fn RunPanel(state: WorkbenchState) -> impl IntoView {
    let models = LocalResource::new(api::models);
    let benchmark = RwSignal::new("msqa".to_string());
    let model = RwSignal::new(String::new());
    let workers = RwSignal::new(8u32);
    let samples = RwSignal::new(1u32);
    let limit = RwSignal::new(0usize);
    let dataset = RwSignal::new(None::<(String, Vec<Value>)>);
    let progress = RwSignal::new(None::<RunProgress>);
    let error = RwSignal::new(None::<String>);
    let opened = RwSignal::new(false);

    let on_dataset = move |ev: web_sys::Event| {
        let input: HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|f| list(&f).into_iter().next()) else {
            return;
        };
        spawn_local(async move {
            let name = file.name();
            let text = wasm_bindgen_futures::JsFuture::from(file.text())
                .await
                .ok()
                .and_then(|t| t.as_string());
            match text.map(|t| serde_json::from_str::<Vec<Value>>(&t)) {
                Some(Ok(rows)) => {
                    error.set(None);
                    dataset.set(Some((name, rows)));
                }
                Some(Err(e)) => error.set(Some(format!(
                    "{name}: expected a JSON array of records: {e}"
                ))),
                None => error.set(Some(format!("{name}: cannot read the file"))),
            }
        });
    };

    let poll = move |id: String| {
        spawn_local(async move {
            loop {
                match api::run(&id).await {
                    Ok(p) => {
                        let finished = matches!(p.state.as_str(), "finished" | "failed");
                        progress.set(Some(p));
                        if finished {
                            break;
                        }
                    }
                    Err(e) => {
                        error.set(Some(e.to_string()));
                        break;
                    }
                }
                sleep(POLL).await;
            }
        });
    };

    let start = move |_| {
        let Some((_, rows)) = dataset.get_untracked() else {
            return error.set(Some(t(lang().get_untracked(), "run.need_dataset").into()));
        };
        let rows = match limit.get_untracked() {
            0 => rows,
            n => rows.into_iter().take(n).collect(),
        };
        let bench = benchmark.get_untracked();
        let (name, track) = match bench.as_str() {
            "eotgc-1" => ("eotgc", Some(1)),
            "eotgc-2" => ("eotgc", Some(2)),
            _ => ("msqa", None),
        };
        let body = StartRun {
            benchmark: name.into(),
            track,
            model: model.get_untracked(),
            dataset: rows,
            n: (name == "msqa").then(|| samples.get_untracked()),
            workers: workers.get_untracked(),
        };
        opened.set(false);
        error.set(None);
        spawn_local(async move {
            match api::start_run(&body).await {
                Ok(p) => {
                    let id = p.id.clone();
                    progress.set(Some(p));
                    poll(id);
                }
                Err(e) => error.set(Some(e.to_string())),
            }
        });
    };

    let open_in_workbench = move |_| {
        let Some(p) = progress.get_untracked() else {
            return;
        };
        let gold = dataset.get_untracked();
        spawn_local(async move {
            let mut names = Vec::new();
            let mut bytes = Vec::new();
            if p.benchmark == "eotgc"
                && let Some((name, rows)) = gold
                && let Ok(text) = serde_json::to_vec(&rows)
            {
                names.push(name);
                bytes.push(Uint8Array::from(text.as_slice()));
            }
            for file in outputs(&p) {
                match api::run_file(&p.id, file).await {
                    Ok(b) => {
                        names.push(file.to_string());
                        bytes.push(Uint8Array::from(b.as_slice()));
                    }
                    Err(e) => return error.set(Some(e.to_string())),
                }
            }
            opened.set(true);
            state.add_files(names, bytes);
        });
    };

    let model_options = move || {
        models.get().map(|result| match result {
            Ok(list) => {
                if model.get_untracked().is_empty()
                    && let Some(first) = list.first()
                {
                    model.set(first.id.clone());
                }
                list.into_iter()
                    .map(|Model { id, owned_by }| view! { <option value=id.clone()>{format!("{id} ({owned_by})")}</option> })
                    .collect_view()
                    .into_any()
            }
            Err(_) => ().into_any(),
        })
    };
    let available = move || matches!(models.get(), Some(Ok(ref list)) if !list.is_empty());

    view! {
        <Show when=available>
            <details class="run-panel card" data-testid="run-panel">
                <summary>{move || t(lang().get(), "run.title")}</summary>
                <p class="hint">{move || t(lang().get(), "run.hint")}</p>
                <div class="filters">
                    <label>{move || t(lang().get(), "run.benchmark")}
                        <select aria-label="benchmark" on:change=move |ev| benchmark.set(event_target_value(&ev))>
                            <option value="msqa">"MSQA_Short"</option>
                            <option value="eotgc-1">{move || t(lang().get(), "run.eotgc1")}</option>
                            <option value="eotgc-2">{move || t(lang().get(), "run.eotgc2")}</option>
                        </select>
                    </label>
                    <label>{move || t(lang().get(), "run.model")} <select aria-label="model" on:change=move |ev| model.set(event_target_value(&ev))>{model_options}</select></label>
                    <label>{move || t(lang().get(), "run.dataset")} <input type="file" accept=".json" aria-label="dataset" on:change=on_dataset /></label>
                    <label>{move || t(lang().get(), "run.samples")} <input type="number" min="1" aria-label="samples" prop:value=move || samples.get().to_string()
                        on:input=move |ev| samples.set(event_target_value(&ev).parse().unwrap_or(1).max(1)) /></label>
                    <label>{move || t(lang().get(), "run.workers")} <input type="number" min="1" aria-label="workers" prop:value=move || workers.get().to_string()
                        on:input=move |ev| workers.set(event_target_value(&ev).parse().unwrap_or(8).max(1)) /></label>
                    <label>{move || t(lang().get(), "run.limit")} <input type="number" min="0" aria-label="limit" prop:value=move || limit.get().to_string()
                        on:input=move |ev| limit.set(event_target_value(&ev).parse().unwrap_or(0)) /></label>
                    <button class="variant active" data-testid="start-run" on:click=start>{move || t(lang().get(), "run.start")}</button>
                </div>
                {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
                {move || progress.get().map(|p| {
                    let fraction = if p.total > 0 { p.done as f64 / p.total as f64 } else { 0.0 };
                    let id_pause = p.id.clone();
                    let id_resume = p.id.clone();
                    let state_text = p.state.clone();
                    let l = lang().get();
                    let cost = p.usage.model.cost.map(|c| tf(l, "run.cost", &[("c", &format!("{c:.4}"))])).unwrap_or_default();
                    let eta = p.eta_s.map(|s| tf(l, "run.eta", &[("s", &format!("{s:.0}"))])).unwrap_or_default();
                    let rate = p.rate_per_s.map(|r| tf(l, "run.rate", &[("r", &format!("{r:.1}"))])).unwrap_or_default();
                    let u = &p.usage.model;
                    let text = tf(l, "run.progress", &[
                        ("state", &run_state(l, &p.state)), ("done", &p.done.to_string()), ("total", &p.total.to_string()),
                        ("rate", &rate), ("eta", &eta), ("calls", &u.upstream_calls.to_string()), ("hits", &u.cache_hits.to_string()),
                        ("prompt", &u.prompt_tokens.to_string()), ("completion", &u.completion_tokens.to_string()), ("cost", &cost),
                    ]);
                    view! {
                        <div class="run-progress" data-testid="run-progress" data-state=state_text.clone() data-done=p.done.to_string() data-total=p.total.to_string()>
                            <progress max="1" value=fraction.to_string()></progress>
                            <span>{text}</span>
                            {(state_text == "running").then(|| view! {
                                <button class="export" on:click=move |_| { let id = id_pause.clone(); spawn_local(async move { if let Err(e) = api::pause(&id).await { error.set(Some(e.to_string())); } }); }>{t(l, "run.pause")}</button>
                            })}
                            {(state_text == "paused").then(|| view! {
                                <button class="export" on:click=move |_| { let id = id_resume.clone(); spawn_local(async move { if let Err(e) = api::resume(&id).await { error.set(Some(e.to_string())); } }); }>{t(l, "run.resume")}</button>
                            })}
                            {(state_text == "finished" && !opened.get()).then(|| view! {
                                <button class="variant active" data-testid="open-run" on:click=open_in_workbench>{t(l, "run.open")}</button>
                            })}
                            {p.error.clone().map(|e| view! { <p class="error">{e}</p> })}
                        </div>
                    }
                })}
            </details>
        </Show>
    }
}
