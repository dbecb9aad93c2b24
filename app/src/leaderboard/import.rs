//! "Import a published table" in the owner console: a Markdown document or CSV with its table
//! (prose around it, several tables, `**bold**`, `%`, Avg. columns) becomes reported entries.
//! The column-mapping dialog shows what the server reads — each column's target (model, a
//! metric, the overall value, a subset, metadata, ignored), the scale, the metric of subset
//! columns, which table — and the entries an import would make, asked again of the server
//! (`…/import/preview`, nothing stored) after each change. The rules are the server's
//! (`server/src/leaderboard/import.rs`); the page only sends the choices as the CLI's flags.

use std::collections::BTreeSet;

use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::api::{self, ImportColumn, ImportPreview, ImportRequest};
use crate::i18n::{lang, t, tr};

/// A column's choice as a `<select>` value.
fn choice(c: &ImportColumn) -> String {
    match c.kind.as_str() {
        "metric" => format!("metric:{}", c.name),
        other => other.to_string(),
    }
}

/// A `<select>` value as the `--map COLUMN=TARGET` it means.
fn mapping(header: &str, value: &str) -> String {
    match value {
        "subset" => format!("{header}={header}"),
        "meta" => format!("{header}=meta:{header}"),
        v => match v.strip_prefix("metric:") {
            Some(m) => format!("{header}={m}"),
            None => format!("{header}={v}"),
        },
    }
}

#[component]
pub fn ImportDialog(
    slug: String,
    token: RwSignal<Option<String>>,
    metrics: Vec<String>,
    on_done: Callback<()>,
) -> impl IntoView {
    let slug = StoredValue::new(slug);
    let metrics = StoredValue::new(metrics);
    let file = NodeRef::<html::Input>::new();
    let text = RwSignal::new(None::<String>);
    let format = RwSignal::new("markdown".to_string());
    let table = RwSignal::new(None::<usize>);
    let scale = RwSignal::new(String::new());
    let metric = RwSignal::new(String::new());
    // The columns the owner mapped (header → `COLUMN=TARGET`), in the order chosen.
    let maps = RwSignal::new(Vec::<(String, String)>::new());
    let preview = RwSignal::new(None::<ImportPreview>);
    let error = RwSignal::new(None::<String>);
    let status = RwSignal::new(None::<usize>);
    let asked = StoredValue::new(0u32);

    let request = move || -> Result<Option<ImportRequest>, String> {
        let Some(text) = text.get() else {
            return Ok(None);
        };
        let scale = match scale.get().trim() {
            "" => None,
            v => Some(
                v.parse::<f64>()
                    .map_err(|_| format!("{}: `{v}`", t(lang().get_untracked(), "lb.scale")))?,
            ),
        };
        Ok(Some(ImportRequest {
            format: format.get(),
            text,
            scale,
            metric: Some(metric.get()).filter(|m| !m.is_empty()),
            map: maps.get().into_iter().map(|(_, m)| m).collect(),
            table: table.get(),
        }))
    };
    // Ask for a preview after every change; a late answer to an older question is dropped.
    Effect::new(move |_| {
        let req = match request() {
            Ok(Some(r)) => r,
            Ok(None) => return,
            Err(e) => return error.set(Some(e)),
        };
        let Some(tok) = token.get_untracked() else {
            return;
        };
        asked.update_value(|n| *n += 1);
        let mine = asked.get_value();
        let slug = slug.get_value();
        spawn_local(async move {
            let answer = api::import_preview(&slug, &tok, &req).await;
            if asked.try_get_value() != Some(mine) {
                return;
            }
            match answer {
                Ok(p) => {
                    error.set(None);
                    let _ = preview.try_set(Some(p));
                }
                Err(e) => error.set(Some(e.0)),
            }
        });
    });

    let read = move |_| {
        let Some(f) = super::create::chosen_files(&file).into_iter().next() else {
            return;
        };
        let name = f.name().to_lowercase();
        format.set(
            if name.ends_with(".csv") {
                "csv"
            } else {
                "markdown"
            }
            .into(),
        );
        spawn_local(async move {
            match super::publish::read_file(&f).await.map(String::from_utf8) {
                Ok(Ok(s)) => {
                    maps.set(Vec::new());
                    table.set(None);
                    status.set(None);
                    text.set(Some(s));
                }
                Ok(Err(_)) => error.set(Some(format!("{name}: not UTF-8 text"))),
                Err(e) => error.set(Some(e)),
            }
        });
    };
    let set_map = move |header: String, value: String| {
        maps.update(|m| {
            m.retain(|(h, _)| *h != header);
            m.push((header.clone(), mapping(&header, &value)));
        });
    };
    let import = move |_| {
        let Ok(Some(req)) = request() else { return };
        let Some(tok) = token.get_untracked() else {
            return;
        };
        let slug = slug.get_value();
        spawn_local(async move {
            match api::import_table(&slug, &tok, &req).await {
                Ok(ids) => {
                    error.set(None);
                    status.set(Some(ids.len()));
                    text.set(None);
                    preview.set(None);
                    if let Some(input) = file.get_untracked() {
                        input.set_value("");
                    }
                    on_done.run(());
                }
                Err(e) => error.set(Some(e.0)),
            }
        });
    };

    let columns_view = move || {
        preview.get().map(|p| {
            // (value, text key or the metric's name)
            let options: Vec<(String, Result<&'static str, String>)> = [
                ("model", "lb.map_model"),
                ("ignore", "lb.map_ignore"),
                ("overall", "lb.map_overall"),
                ("subset", "lb.map_subset"),
                ("meta", "lb.map_meta"),
            ]
            .into_iter()
            .map(|(v, key)| (v.to_string(), Ok(key)))
            .chain(
                metrics
                    .get_value()
                    .into_iter()
                    .map(|m| (format!("metric:{m}"), Err(m))),
            )
            .collect();
            view! {
                <table class="metrics" data-testid="import-columns">
                    <thead><tr>
                        <th scope="col">{tr("lb.column")}</th>
                        <th scope="col">{tr("lb.holds")}</th>
                    </tr></thead>
                    <tbody>
                        {p.columns.into_iter().map(|c| {
                            let current = choice(&c);
                            let header = c.header.clone();
                            let options = options.clone();
                            view! {
                                <tr data-column=c.header.clone() data-kind=c.kind.clone() data-name=c.name.clone()>
                                    <td>{c.header.clone()}</td>
                                    <td>
                                        <select name="map" aria-label=c.header.clone()
                                            on:change=move |ev| set_map(header.clone(), event_target_value(&ev))>
                                            {options.into_iter().map(|(value, label)| {
                                                let selected = value == current;
                                                let text = match label {
                                                    Ok(key) => t(lang().get_untracked(), key).to_string(),
                                                    Err(metric) => metric,
                                                };
                                                view! { <option value=value selected=selected>{text}</option> }
                                            }).collect_view()}
                                        </select>
                                        {(c.kind == "subset" || c.kind == "meta").then(|| format!(" {}", c.name))}
                                    </td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </table>
            }
        })
    };
    let rows_view = move || {
        preview.get().filter(|p| p.error.is_none()).map(|p| {
            let mut metric_keys = Vec::<String>::new();
            let mut subset_keys = Vec::<String>::new();
            let mut meta_keys = BTreeSet::<String>::new();
            for r in &p.rows {
                for k in r.metrics.keys() {
                    if !metric_keys.contains(k) {
                        metric_keys.push(k.clone());
                    }
                }
                for k in r.subsets.keys() {
                    if !subset_keys.contains(k) {
                        subset_keys.push(k.clone());
                    }
                }
                meta_keys.extend(r.meta.keys().cloned());
            }
            let of = p.rows.first().and_then(|r| r.subsets_metric.clone()).unwrap_or_default();
            let n = p.rows.len();
            view! {
                <p class="hint" data-testid="import-count" data-rows=n.to_string()>
                    {tr("lb.import_preview")} " " {n}
                </p>
                <div class="scroll">
                <table class="metrics" data-testid="import-preview">
                    <thead><tr>
                        <th scope="col">{tr("lb.model")}</th>
                        {metric_keys.iter().map(|k| view! { <th scope="col" data-metric=k.clone()>{k.clone()}</th> }).collect_view()}
                        {subset_keys.iter().map(|k| view! { <th scope="col" data-subset=k.clone()>{format!("{of} · {k}")}</th> }).collect_view()}
                        {meta_keys.iter().map(|k| view! { <th scope="col" data-meta=k.clone()>{k.clone()}</th> }).collect_view()}
                    </tr></thead>
                    <tbody>
                        {p.rows.into_iter().map(|r| view! {
                            <tr data-model=r.model.clone()>
                                <td>{r.model.clone()}</td>
                                {metric_keys.iter().map(|k| {
                                    let v = super::full(r.metrics.get(k).copied().flatten());
                                    view! { <td class="num mono" data-metric=k.clone() data-value=v.clone()>{v.clone()}</td> }
                                }).collect_view()}
                                {subset_keys.iter().map(|k| {
                                    let v = super::full(r.subsets.get(k).copied().flatten());
                                    view! { <td class="num mono" data-subset=k.clone() data-value=v.clone()>{v.clone()}</td> }
                                }).collect_view()}
                                {meta_keys.iter().map(|k| view! { <td>{r.meta.get(k).cloned().unwrap_or_default()}</td> }).collect_view()}
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
                </div>
            }
        })
    };

    view! {
        <details class="import-table" data-testid="import-table">
            <summary>{tr("lb.import")}</summary>
            <p class="hint">{tr("lb.import_hint")}</p>
            {move || status.get().map(|n| view! {
                <p class="hint" role="status" data-testid="import-done" data-entries=n.to_string()>
                    {tr("lb.imported")} " " {n}
                </p>
            })}
            <div class="board-edit">
                <label>{tr("lb.import_file")} " "
                    <input type="file" name="import-file" accept=".md,.markdown,.csv,.txt" node_ref=file on:change=read />
                </label>
                <label>{tr("lb.format")} " "
                    <select name="import-format" on:change=move |ev| format.set(event_target_value(&ev))>
                        <option value="markdown" selected=move || format.get() == "markdown">"Markdown"</option>
                        <option value="csv" selected=move || format.get() == "csv">"CSV"</option>
                    </select>
                </label>
                {move || preview.get().filter(|p| p.tables.len() > 1).map(|p| view! {
                    <label>{tr("lb.table")} " "
                        <select name="import-table" on:change=move |ev| {
                            maps.set(Vec::new());
                            table.set(event_target_value(&ev).parse().ok());
                        }>
                            <option value="">"—"</option>
                            {p.tables.into_iter().map(|tb| {
                                let selected = p.table == Some(tb.number);
                                view! {
                                    <option value=tb.number.to_string() selected=selected>
                                        {format!("{} · {} {} · {}", tb.number, t(lang().get_untracked(), "lb.line"), tb.line, tb.header.join(" | "))}
                                    </option>
                                }
                            }).collect_view()}
                        </select>
                    </label>
                })}
                <label>{tr("lb.scale")} " "
                    <input type="number" name="import-scale" min="0" step="any" placeholder="1"
                        on:change=move |ev| scale.set(event_target_value(&ev)) />
                </label>
                <label>{tr("lb.subset_metric")} " "
                    <select name="import-metric" on:change=move |ev| metric.set(event_target_value(&ev))>
                        <option value="">"—"</option>
                        {metrics.get_value().into_iter().map(|m| view! { <option value=m.clone()>{m.clone()}</option> }).collect_view()}
                    </select>
                </label>
            </div>
            {move || error.get().or_else(|| preview.get().and_then(|p| p.error)).map(|e| view! {
                <p class="error" role="alert" data-testid="import-error">{e}</p>
            })}
            {columns_view}
            {rows_view}
            <button data-action="import" on:click=import
                disabled=move || !preview.with(|p| p.as_ref().is_some_and(|p| p.error.is_none() && !p.rows.is_empty()))>
                {tr("lb.import_now")}
            </button>
        </details>
    }
}
