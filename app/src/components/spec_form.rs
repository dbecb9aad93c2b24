//! "Define a benchmark from these files": the worker's draft (`workbench::spec_form::Draft`,
//! as JSON) drawn as a form — each file's fields with sample values and what each is, the value
//! type, the metrics — with the report its spec gives on the files. Every change goes to the
//! worker, which checks the draft and answers with the preview; "save" has the worker write the
//! spec (TOML, downloaded and kept in this browser) and score the files with it.

use leptos::prelude::*;
use serde_json::Value;
use workbench::spec_form::{METRIC_NAMES, Use, VALUE_TYPES};

use crate::components::report_table::ReportTable;
use crate::i18n::{lang, t, tr};
use crate::worker_client::WorkbenchState;

fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// The draft with one change, sent to the worker for a preview.
fn edit(state: WorkbenchState, draft: &Value, change: impl FnOnce(&mut Value)) {
    state.edit_spec(draft, change);
}

/// The "define a benchmark" button: shown while a held file fits no benchmark.
#[component]
pub fn DefineSpecButton(state: WorkbenchState) -> impl IntoView {
    let unknown = move || {
        state
            .files
            .get()
            .iter()
            .filter(|f| f.role == "unknown")
            .map(|f| f.index)
            .collect::<Vec<_>>()
    };
    move || {
        let files = unknown();
        (!files.is_empty() && state.spec_form.with(Option::is_none)).then(|| {
            view! {
                <button class="variant" data-testid="define-spec"
                    on:click=move |_| state.define_spec(files.clone())>
                    {tr("spec.define")}
                </button>
            }
        })
    }
}

/// The specs kept in this browser: each downloads again or is forgotten.
#[component]
pub fn KeptSpecs(state: WorkbenchState) -> impl IntoView {
    move || {
        let kept = state.kept.get();
        (!kept.is_empty()).then(|| {
            let items = kept
                .into_iter()
                .map(|(key, spec)| {
                    let (forget, shown) = (key.clone(), key.clone());
                    view! {
                        <li data-spec=key>
                            <button class="link" data-testid="kept-spec-download"
                                on:click=move |_| crate::download::download_text(&spec.name, "application/toml", &spec.toml)>
                                {shown}
                            </button>
                            " "
                            <button class="link" data-testid="kept-spec-forget" title=tr("spec.forget")
                                on:click=move |_| state.forget_spec(&forget)>"✕"</button>
                        </li>
                    }
                })
                .collect_view();
            view! {
                <details class="kept-specs" data-testid="kept-specs">
                    <summary>{tr("spec.kept")}</summary>
                    <ul>{items}</ul>
                    <p class="hint">{tr("spec.forget_hint")}</p>
                </details>
            }
        })
    }
}

#[component]
pub fn SpecForm(state: WorkbenchState) -> impl IntoView {
    move || {
        state
            .spec_form
            .get()
            .map(|(draft, preview)| form(state, draft, preview))
    }
}

fn form(
    state: WorkbenchState,
    draft: Value,
    preview: Result<crate::protocol::SpecPreview, String>,
) -> impl IntoView {
    let l = lang().get_untracked();
    let d = &draft;
    let input = |label: &'static str, field: &'static str, testid: &'static str| {
        let draft = draft.clone();
        view! {
            <label>{tr(label)} " "
                <input type="text" data-testid=testid prop:value=text(&draft[field])
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        edit(state, &draft, |d| d[field] = v.into());
                    } />
            </label>
        }
    };
    let files = d["files"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(i, file)| {
            let rows = file["fields"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .enumerate()
                .map(|(j, field)| {
                    let used = text(&file["uses"][j]);
                    let options = Use::ALL
                        .iter()
                        .map(|u| {
                            let u = u.as_str();
                            view! { <option value=u selected=u == used>{t(l, use_label(u))}</option> }
                        })
                        .collect_view();
                    let samples = field["samples"]
                        .as_array()
                        .map(|s| s.iter().map(text).collect::<Vec<_>>().join(" · "))
                        .unwrap_or_default();
                    let draft = draft.clone();
                    view! {
                        <tr data-field=text(&field["name"])>
                            <td class="mono">{text(&field["name"])}</td>
                            <td class="muted">{samples}</td>
                            <td>
                                <select data-testid="spec-use" aria-label=t(l, "spec.use")
                                    on:change=move |ev| {
                                        let v = event_target_value(&ev);
                                        edit(state, &draft, |d| d["files"][i]["uses"][j] = v.into());
                                    }>
                                    {options}
                                </select>
                            </td>
                        </tr>
                    }
                })
                .collect_view();
            view! {
                <table class="metrics spec-fields" data-file=text(&file["name"])>
                    <caption>{text(&file["name"])} " · " {text(&file["format"])}</caption>
                    <thead><tr><th>{tr("spec.field")}</th><th>{tr("spec.samples")}</th><th>{tr("spec.use")}</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            }
        })
        .collect_view();
    let values = {
        let now = text(&d["values"]);
        let draft = draft.clone();
        view! {
            <label>{tr("spec.values")} " "
                <select data-testid="spec-values" on:change=move |ev| {
                    let v = event_target_value(&ev);
                    edit(state, &draft, |d| d["values"] = v.into());
                }>
                    {VALUE_TYPES.iter().map(|v| view! { <option value=*v selected=*v == now>{t(l, value_label(v))}</option> }).collect_view()}
                </select>
            </label>
        }
    };
    let chosen: Vec<String> = d["metrics"]
        .as_array()
        .map(|m| m.iter().map(text).collect())
        .unwrap_or_default();
    let metrics = METRIC_NAMES
        .iter()
        .map(|&m| {
            let on = chosen.iter().any(|c| c == m);
            let draft = draft.clone();
            view! {
                <label class="metric-choice">
                    <input type="checkbox" data-metric=m prop:checked=on on:change=move |_| {
                        // Kept in the offered order: the first is the primary metric.
                        edit(state, &draft, |d| {
                            let had: Vec<String> = d["metrics"].as_array().map(|a| a.iter().map(text).collect()).unwrap_or_default();
                            d["metrics"] = METRIC_NAMES
                                .iter()
                                .filter(|n| (**n == m) != had.iter().any(|h| h == *n))
                                .map(|n| Value::from(*n))
                                .collect();
                        });
                    } />
                    " " {m}
                </label>
            }
        })
        .collect_view();
    let ok = preview.is_ok();
    let shown = match preview {
        Ok(p) => view! {
            <div data-testid="spec-preview"><ReportTable report=p.report table=p.table model=None /></div>
        }
        .into_any(),
        Err(e) => view! { <p class="error" data-testid="spec-error">{e}</p> }.into_any(),
    };
    view! {
        <section class="spec-form" data-testid="spec-form">
            <h2>{tr("spec.title")}</h2>
            <p class="hint">{tr("spec.hint")}</p>
            <p>{input("spec.name", "name", "spec-name")} " " {input("spec.key", "key", "spec-key")}</p>
            {files}
            <p>{values}</p>
            <fieldset><legend>{tr("spec.metrics")}</legend>{metrics}</fieldset>
            {shown}
            <p>
                <button class="variant" data-testid="spec-save"
                    disabled=move || { !ok || state.spec_pending.get() != 0 }
                    on:click=move |_| state.save_spec()>{tr("spec.save")}</button>
                " "
                <button class="link" data-testid="spec-cancel" on:click=move |_| state.close_spec()>{tr("spec.cancel")}</button>
            </p>
        </section>
    }
}

fn use_label(u: &str) -> &'static str {
    match u {
        "id" => "spec.use_id",
        "gold" => "spec.use_gold",
        "pred" => "spec.use_pred",
        "subset" => "spec.use_subset",
        "text" => "spec.use_text",
        "weight" => "spec.use_weight",
        _ => "spec.use_unused",
    }
}

fn value_label(v: &str) -> &'static str {
    match v {
        "integer" => "spec.integer",
        "number" => "spec.number",
        _ => "spec.label",
    }
}
