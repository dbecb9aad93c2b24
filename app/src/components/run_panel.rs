//! Run a model or a judge over a benchmark through the server (which holds the keys): choose the
//! kind of run, fill the form the server describes for it (`GET /api/v1/runs/kinds`: record
//! files, models, numbers), watch progress; pause and resume, or resume a stopped run by its id;
//! open the finished run's files in the workbench. Names no benchmark: every kind the server
//! registers appears. Hidden when the server has no upstream configured.

use std::collections::HashMap;
use std::time::Duration;

use js_sys::Uint8Array;
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::{Map, Value, json};
use web_sys::HtmlInputElement;

use crate::api::{self, FormField, Model, RunKind, RunProgress};
use crate::files::list;
use crate::i18n::{Lang, lang, run_state, t, tf, tr};
use crate::worker_client::WorkbenchState;
use workbench::wire::runs::FieldKind;

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

/// What the user gave for one field.
#[derive(Debug, Clone, PartialEq)]
enum Input {
    /// A JSON file's array: (file name, records).
    Records(String, Vec<Value>),
    /// Several text files: (file name, text).
    Files(Vec<(String, String)>),
    Text(String),
    Number(i64),
}

/// The `POST /api/v1/runs` body of `kind` from the form's inputs (`limit` > 0 keeps that many
/// records of each file); or what is missing.
fn request_body(
    kind: &RunKind,
    inputs: &HashMap<String, Input>,
    first_model: Option<&str>,
    limit: usize,
) -> Result<Value, String> {
    let mut body = Map::new();
    body.insert("benchmark".into(), json!(kind.key));
    for field in &kind.fields {
        let given = inputs.get(field.name.as_ref());
        let value = match (field.kind.as_str(), given) {
            ("records", Some(Input::Records(_, rows))) => {
                let rows: Vec<Value> = match limit {
                    0 => rows.clone(),
                    n => rows.iter().take(n).cloned().collect(),
                };
                Some(Value::Array(rows))
            }
            ("records", _) => None,
            ("files", Some(Input::Files(files))) if !files.is_empty() => Some(Value::Array(
                files
                    .iter()
                    .map(|(name, text)| json!({"name": name, "text": text}))
                    .collect(),
            )),
            ("model", Some(Input::Text(m))) if !m.is_empty() => Some(json!(m)),
            ("model", _) => first_model.map(|m| json!(m)),
            ("optional_model" | "text", Some(Input::Text(m))) if !m.trim().is_empty() => {
                Some(json!(m.trim()))
            }
            ("models", Some(Input::Text(list))) => {
                let names: Vec<&str> = list
                    .split(',')
                    .map(str::trim)
                    .filter(|m| !m.is_empty())
                    .collect();
                (!names.is_empty()).then(|| json!(names))
            }
            ("integer" | "choice", Some(Input::Number(n))) => Some(json!(n)),
            ("integer" | "choice", _) => field.default.map(|n| json!(n)),
            _ => None,
        };
        match value {
            Some(v) => {
                body.insert(field.name.to_string(), v);
            }
            None if field.required => return Err(format!("{}: required", field.label)),
            None => {}
        }
    }
    Ok(Value::Object(body))
}

/// The files a finished run hands to the workbench: its outputs named by the form that it has,
/// then the record inputs the form names (a gold file) and the files of a files input (a
/// dataset folder), under their file names.
fn workbench_inputs(kind: &RunKind, inputs: &HashMap<String, Input>) -> Vec<(String, Vec<u8>)> {
    kind.open_inputs
        .iter()
        .flat_map(|name| match inputs.get(name) {
            Some(Input::Records(file, rows)) => serde_json::to_vec(rows)
                .ok()
                .map(|b| (file.clone(), b))
                .into_iter()
                .collect(),
            Some(Input::Files(files)) => files
                .iter()
                .map(|(file, text)| (file.clone(), text.as_bytes().to_vec()))
                .collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// A field's label in the interface language: the i18n table's text for a known field name
/// (and kind), else the English label the server sends.
fn field_label(l: Lang, name: &str, kind: &str, server_label: &str) -> String {
    let key = match name {
        "dataset" if kind == "files" => "run.field.dataset_files",
        "dataset" => "run.dataset",
        "model" if kind == "text" => "run.field.step2_model",
        "model" => "run.model",
        "n" => "run.samples",
        "workers" => "run.workers",
        "log" => "run.field.log",
        "judge_model" => "run.field.judge_model",
        "judge_models" => "run.field.judge_models",
        "embedding_model" => "run.field.embedding_model",
        "track" => "run.field.track",
        "few_shot" => "run.field.few_shot",
        "seed" => "run.field.seed",
        _ => return format!("{server_label} "),
    };
    match t(l, key) {
        text if text == key => format!("{server_label} "),
        text => text.to_string(),
    }
}

#[component]
fn FieldInput(
    field: FormField,
    models: Vec<Model>,
    inputs: RwSignal<HashMap<String, Input>>,
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    let name = field.name.to_string();
    let set = move |value: Input| {
        let name = name.clone();
        inputs.update(|m| {
            m.insert(name, value);
        });
    };
    let (label_name, label_kind, server_label) = (
        field.name.to_string(),
        field.kind.as_str(),
        field.label.to_string(),
    );
    let label = move || field_label(lang().get(), &label_name, label_kind, &server_label);
    let aria = field.name.clone();
    let model_options = move |none: bool| {
        let mut options: Vec<_> = models
            .iter()
            .map(|Model { id, owned_by, .. }| {
                view! { <option value=id.clone()>{format!("{id} ({owned_by})")}</option> }
                    .into_any()
            })
            .collect();
        if none {
            options.insert(0, view! { <option value="">"—"</option> }.into_any());
        }
        options
    };
    let control = match field.kind.as_str() {
        "records" => {
            let on_file = move |ev: web_sys::Event| {
                let input: HtmlInputElement = event_target(&ev);
                let Some(file) = input.files().and_then(|f| list(&f).into_iter().next()) else {
                    return;
                };
                let set = set.clone();
                spawn_local(async move {
                    let name = file.name();
                    let text = wasm_bindgen_futures::JsFuture::from(file.text())
                        .await
                        .ok()
                        .and_then(|t| t.as_string());
                    match text.map(|t| serde_json::from_str::<Vec<Value>>(&t)) {
                        Some(Ok(rows)) => {
                            error.set(None);
                            set(Input::Records(name, rows));
                        }
                        Some(Err(e)) => error.set(Some(format!(
                            "{name}: expected a JSON array of records: {e}"
                        ))),
                        None => error.set(Some(format!("{name}: cannot read the file"))),
                    }
                });
            };
            view! { <input type="file" accept=".json" aria-label=aria on:change=on_file /> }
                .into_any()
        }
        "files" => {
            let on_files = move |ev: web_sys::Event| {
                let input: HtmlInputElement = event_target(&ev);
                let Some(files) = input.files().map(|f| list(&f)) else {
                    return;
                };
                let set = set.clone();
                spawn_local(async move {
                    let mut read = Vec::new();
                    for file in files {
                        let name = file.name();
                        let text = wasm_bindgen_futures::JsFuture::from(file.text())
                            .await
                            .ok()
                            .and_then(|t| t.as_string());
                        match text {
                            Some(text) => read.push((name, text)),
                            None => {
                                error.set(Some(format!("{name}: cannot read the file")));
                                return;
                            }
                        }
                    }
                    error.set(None);
                    set(Input::Files(read));
                });
            };
            view! { <input type="file" multiple accept=".jsonl" aria-label=aria on:change=on_files /> }
                .into_any()
        }
        "model" | "optional_model" => {
            let none = field.kind == FieldKind::OptionalModel;
            view! {
                <select aria-label=aria on:change=move |ev| set(Input::Text(event_target_value(&ev)))>
                    {model_options(none)}
                </select>
            }
            .into_any()
        }
        "models" => view! {
            <input type="text" aria-label=aria placeholder="a, b, c"
                on:input=move |ev| set(Input::Text(event_target_value(&ev))) />
        }
        .into_any(),
        "text" => view! {
            <input type="text" aria-label=aria
                on:input=move |ev| set(Input::Text(event_target_value(&ev))) />
        }
        .into_any(),
        "choice" => {
            let options: Vec<_> = field
                .choices
                .iter()
                .map(|c| view! { <option value=c.to_string() selected=Some(*c) == field.default>{c.to_string()}</option> })
                .collect();
            view! {
                <select aria-label=aria on:change=move |ev| {
                    if let Ok(n) = event_target_value(&ev).parse() { set(Input::Number(n)) }
                }>{options}</select>
            }
            .into_any()
        }
        _ => {
            let default = field.default.unwrap_or(1);
            view! {
                <input type="number" min="1" aria-label=aria value=default.to_string()
                    on:input=move |ev| set(Input::Number(event_target_value(&ev).parse().unwrap_or(default).max(1))) />
            }
            .into_any()
        }
    };
    // `data-set`: the field holds a value the user gave (a chosen file is read by then).
    let (field_name, given) = (field.name.to_string(), field.name.to_string());
    let set_now = move || inputs.with(|m| m.contains_key(&given)).to_string();
    view! { <label data-field=field_name data-set=set_now>{label}{control}</label> }
}

#[component]
pub fn RunPanel(state: WorkbenchState) -> impl IntoView {
    let models = LocalResource::new(api::models);
    let kinds = LocalResource::new(api::run_kinds);
    let kind_key = RwSignal::new(String::new());
    let inputs = RwSignal::new(HashMap::<String, Input>::new());
    let limit = RwSignal::new(0usize);
    let progress = RwSignal::new(None::<RunProgress>);
    let error = RwSignal::new(None::<String>);
    let opened = RwSignal::new(false);
    let run_id = RwSignal::new(String::new());
    // The kind and inputs of the run shown (for "Open in the workbench").
    let shown = RwSignal::new(None::<(RunKind, HashMap<String, Input>)>);

    let kind_list = move || match kinds.get() {
        Some(Ok(list)) => list,
        _ => Vec::new(),
    };
    let model_list = move || match models.get() {
        Some(Ok(list)) => list,
        _ => Vec::new(),
    };
    let current = move || {
        let list = kind_list();
        let key = kind_key.get();
        list.iter()
            .find(|k| k.key == key)
            .or_else(|| list.first())
            .cloned()
    };

    let poll = move |id: String| {
        spawn_local(async move {
            loop {
                match api::run(&id).await {
                    Ok(p) => {
                        let running = matches!(p.state.as_str(), "running" | "paused");
                        progress.set(Some(p));
                        if !running {
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
        let Some(kind) = current() else {
            return;
        };
        let given = inputs.get_untracked();
        let first = model_list().first().map(|m| m.id.clone());
        let body = match request_body(&kind, &given, first.as_deref(), limit.get_untracked()) {
            Ok(body) => body,
            Err(e) => return error.set(Some(e)),
        };
        opened.set(false);
        error.set(None);
        shown.set(Some((kind, given)));
        spawn_local(async move {
            match api::start_run(&body).await {
                Ok(p) => {
                    let id = p.id.clone();
                    run_id.set(id.clone());
                    progress.set(Some(p));
                    poll(id);
                }
                Err(e) => error.set(Some(e.to_string())),
            }
        });
    };

    // A run by its id (one started earlier, perhaps before the server restarted).
    let look_up = move |_| {
        let id = run_id.get_untracked().trim().to_string();
        if id.is_empty() {
            return;
        }
        opened.set(false);
        error.set(None);
        spawn_local(async move {
            match api::run(&id).await {
                Ok(p) => {
                    if shown
                        .get_untracked()
                        .is_none_or(|(k, _)| k.key != p.benchmark)
                    {
                        let kind = kind_list().into_iter().find(|k| k.key == p.benchmark);
                        shown.set(kind.map(|k| (k, HashMap::new())));
                    }
                    let running = matches!(p.state.as_str(), "running" | "paused");
                    progress.set(Some(p));
                    if running {
                        poll(id);
                    }
                }
                Err(e) => error.set(Some(e.to_string())),
            }
        });
    };

    let resume = move |id: String| {
        spawn_local(async move {
            match api::resume(&id).await {
                Ok(()) => poll(id),
                Err(e) => error.set(Some(e.to_string())),
            }
        });
    };

    let open_in_workbench = move |_| {
        let (Some(p), Some((kind, given))) = (progress.get_untracked(), shown.get_untracked())
        else {
            return;
        };
        spawn_local(async move {
            let mut names = Vec::new();
            let mut bytes = Vec::new();
            for (name, data) in workbench_inputs(&kind, &given) {
                names.push(name);
                bytes.push(Uint8Array::from(data.as_slice()));
            }
            for file in kind.open.iter().filter(|f| p.files.contains(f)) {
                match api::run_file(&p.id, file).await {
                    Ok(b) => {
                        names.push(file.clone());
                        bytes.push(Uint8Array::from(b.as_slice()));
                    }
                    Err(e) => return error.set(Some(e.to_string())),
                }
            }
            opened.set(true);
            state.add_files(names, bytes);
        });
    };

    let kind_options = move || {
        kind_list()
            .into_iter()
            .map(|k| view! { <option value=k.key.clone() title=k.label.clone()>{k.key.clone()}</option> })
            .collect_view()
    };
    let fields = move || {
        let models = model_list();
        current().map(|kind| {
            kind.fields
                .into_iter()
                .map(|field| view! { <FieldInput field=field models=models.clone() inputs=inputs error=error /> })
                .collect_view()
        })
    };
    let available = move || !model_list().is_empty() && !kind_list().is_empty();

    view! {
        <Show when=available>
            <details class="run-panel card" data-testid="run-panel">
                <summary>{tr("run.title")}</summary>
                <p class="hint">{tr("run.hint")}</p>
                <div class="filters">
                    <label>{tr("run.benchmark")}
                        <select aria-label="benchmark" on:change=move |ev| {
                            inputs.set(HashMap::new());
                            kind_key.set(event_target_value(&ev));
                        }>{kind_options}</select>
                    </label>
                    {move || current().map(|k| view! { <span class="hint">{k.label}</span> })}
                </div>
                <div class="filters" data-testid="run-fields">
                    {fields}
                    <label>{tr("run.limit")} <input type="number" min="0" aria-label="limit" prop:value=move || limit.get().to_string()
                        on:input=move |ev| limit.set(event_target_value(&ev).parse().unwrap_or(0)) /></label>
                    <button class="variant active" data-testid="start-run" on:click=start>{tr("run.start")}</button>
                </div>
                <div class="filters">
                    <label>{tr("run.id")} <input type="text" aria-label="run id" prop:value=move || run_id.get()
                        on:input=move |ev| run_id.set(event_target_value(&ev)) /></label>
                    <button class="export" data-testid="find-run" on:click=look_up>{tr("run.show")}</button>
                </div>
                {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
                {move || progress.get().map(|p| {
                    let fraction = if p.total > 0 { p.done as f64 / p.total as f64 } else { 0.0 };
                    let id_pause = p.id.clone();
                    let id_resume = p.id.clone();
                    let state_text = p.state.as_str().to_string();
                    let l = lang().get();
                    let usage = |key: &'static str, u: &api::Usage| {
                        let cost = u.cost.map(|c| tf(l, "run.cost", &[("c", &format!("{c:.4}"))])).unwrap_or_default();
                        tf(l, key, &[
                            ("calls", &u.upstream_calls.to_string()), ("hits", &u.cache_hits.to_string()),
                            ("prompt", &u.prompt_tokens.to_string()), ("completion", &u.completion_tokens.to_string()), ("cost", &cost),
                        ])
                    };
                    let judge = &p.usage.judge;
                    let judge_used = judge.upstream_calls + judge.cache_hits > 0;
                    let eta = p.eta_s.map(|s| tf(l, "run.eta", &[("s", &format!("{s:.0}"))])).unwrap_or_default();
                    let rate = p.rate_per_s.map(|r| tf(l, "run.rate", &[("r", &format!("{r:.1}"))])).unwrap_or_default();
                    let text = tf(l, "run.progress", &[
                        ("state", &run_state(l, p.state.as_str())), ("done", &p.done.to_string()), ("total", &p.total.to_string()),
                        ("rate", &rate), ("eta", &eta), ("model_usage", &usage("run.usage_model", &p.usage.model)),
                        ("judge_usage", &if judge_used { usage("run.usage_judge", judge) } else { String::new() }),
                    ]);
                    let resumable = matches!(state_text.as_str(), "failed" | "cancelled" | "interrupted");
                    let links: Vec<_> = p.files.iter().map(|f| {
                        let href = format!("/api/v1/runs/{}/files/{f}", p.id);
                        view! { <a class="export" href=href download=f.clone()>{f.clone()}</a>" " }
                    }).collect();
                    view! {
                        <div class="run-progress" data-testid="run-progress" data-run=p.id.clone() data-state=state_text.clone() data-done=p.done.to_string() data-total=p.total.to_string()>
                            <progress max="1" value=fraction.to_string()></progress>
                            <span>{text}</span>
                            {(state_text == "running").then(|| view! {
                                <button class="export" on:click=move |_| { let id = id_pause.clone(); spawn_local(async move { if let Err(e) = api::pause(&id).await { error.set(Some(e.to_string())); } }); }>{t(l, "run.pause")}</button>
                            })}
                            {(state_text == "paused" || resumable).then(|| view! {
                                <button class="export" data-testid="resume-run" on:click=move |_| resume(id_resume.clone())>{t(l, "run.resume")}</button>
                            })}
                            {(state_text == "finished" && !opened.get()).then(|| view! {
                                <button class="variant active" data-testid="open-run" on:click=open_in_workbench>{t(l, "run.open")}</button>
                            })}
                            <span class="run-files">" "{links}</span>
                            {p.error.clone().map(|e| view! { <p class="error">{e}</p> })}
                        </div>
                    }
                })}
            </details>
        </Show>
    }
}
