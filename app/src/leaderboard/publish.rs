//! "Publish to a leaderboard" on the workbench: after scoring in the page, upload a job's own
//! prediction files (not the gold: the board has its own) with the model's name and metadata,
//! and the report the worker computed. The server scores the files again and refuses the entry
//! when any number differs in any bit; the page then lists those values.
//!
//! **Invariant:** nothing is uploaded unless the user presses Publish.

use std::collections::BTreeMap;

use base64::Engine;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::api::{self, FileIn, PublishError, Submit, Submitted};
use crate::i18n::{lang, t, tr};
use crate::protocol::OutcomeView;
use crate::worker_client::WorkbenchState;

#[derive(Debug, Clone, PartialEq)]
enum Sent {
    Idle,
    Sending,
    Done(Submitted, String),
    Refused(PublishError),
}

/// The bytes of a dropped file, read again from its handle (the worker holds the scored copy).
pub(super) async fn read_file(file: &web_sys::File) -> Result<Vec<u8>, String> {
    if let Some(message) = crate::files::too_big(file) {
        return Err(message);
    }
    let buffer = wasm_bindgen_futures::JsFuture::from(file.array_buffer())
        .await
        .map_err(|e| format!("{}: cannot read the file: {e:?}", file.name()))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// A file for a request: as text when it is UTF-8, else as base64.
pub(super) fn file_in(name: String, bytes: Vec<u8>) -> FileIn {
    match String::from_utf8(bytes) {
        Ok(text) => FileIn {
            name,
            text: Some(text),
            base64: None,
            sha256: None,
        },
        Err(e) => FileIn {
            name,
            text: None,
            base64: Some(base64::engine::general_purpose::STANDARD.encode(e.as_bytes())),
            sha256: None,
        },
    }
}

/// The files (by name) of `outcome` that are its own, not shared gold: what a board takes.
fn own_files(state: &WorkbenchState, outcome: &OutcomeView) -> Vec<String> {
    state.files.with_untracked(|files| {
        outcome
            .files
            .iter()
            .filter(|name| {
                files
                    .iter()
                    .any(|f| &f.name == *name && f.model != "shared")
            })
            .cloned()
            .collect()
    })
}

#[component]
pub fn PublishPanel(
    state: WorkbenchState,
    /// The files the user dropped, kept as handles (nothing is read until Publish).
    dropped: StoredValue<Vec<web_sys::File>, LocalStorage>,
) -> impl IntoView {
    let scored = Memo::new(move |_| {
        state
            .outcomes
            .get()
            .into_iter()
            .filter(|o| o.result.is_ok())
            .collect::<Vec<_>>()
    });
    let boards = RwSignal::new(Vec::<api::BoardSummary>::new());
    let opened = RwSignal::new(false);
    Effect::new(move |_| {
        if opened.get() && boards.with_untracked(Vec::is_empty) {
            spawn_local(async move {
                if let Ok(list) = api::boards().await {
                    boards.set(list);
                }
            });
        }
    });
    let job = RwSignal::new(0usize);
    let slug = RwSignal::new(String::new());
    let model = RwSignal::new(String::new());
    let fields = ["organisation", "parameters", "link", "date", "notes"];
    let meta: RwSignal<BTreeMap<String, String>> = RwSignal::new(BTreeMap::new());
    let open_weights = RwSignal::new(String::new());
    let sent = RwSignal::new(Sent::Idle);
    // The language, read where there is no reactive owner (event handlers, tasks).
    let ui_lang = lang();

    let publish = move |_| {
        let outcomes = scored.get_untracked();
        let Some(outcome) = outcomes
            .get(job.get_untracked().min(outcomes.len().saturating_sub(1)))
            .cloned()
        else {
            return;
        };
        let (board, name) = (
            slug.get_untracked().trim().to_string(),
            model.get_untracked().trim().to_string(),
        );
        let fail = |key: &'static str| {
            sent.set(Sent::Refused(PublishError {
                message: t(ui_lang.get_untracked(), key).to_string(),
                differences: Vec::new(),
            }))
        };
        if board.is_empty() || name.is_empty() {
            return fail("lb.need_model");
        }
        let names = own_files(&state, &outcome);
        if names.is_empty() {
            return fail("lb.no_files");
        }
        let Ok(report) = outcome.result.clone() else {
            return;
        };
        let mut meta = meta.get_untracked();
        meta.retain(|_, v| !v.trim().is_empty());
        let ow = open_weights.get_untracked();
        if !ow.is_empty() {
            meta.insert("open_weights".into(), ow);
        }
        sent.set(Sent::Sending);
        spawn_local(async move {
            let handles = dropped.get_value();
            let mut files = Vec::new();
            for n in &names {
                // The last file dropped under this name is the one the worker holds.
                let Some(handle) = handles.iter().rev().find(|f| f.name() == *n) else {
                    // A run's output files reach the worker without a dropped file behind them.
                    return sent.set(Sent::Refused(PublishError {
                        message: format!("{n}: {}", t(ui_lang.get_untracked(), "lb.not_dropped")),
                        differences: Vec::new(),
                    }));
                };
                match read_file(handle).await {
                    Ok(bytes) => files.push(file_in(n.clone(), bytes)),
                    Err(message) => {
                        return sent.set(Sent::Refused(PublishError {
                            message,
                            differences: Vec::new(),
                        }));
                    }
                }
            }
            let body = Submit {
                model: name,
                meta,
                files,
                client_report: Some(report),
            };
            sent.set(match api::publish(&board, &body).await {
                Ok(done) => Sent::Done(done, board),
                Err(e) => Sent::Refused(e),
            });
        });
    };

    move || {
        let list = scored.get();
        (!list.is_empty()).then(|| {
            let jobs = list
                .iter()
                .enumerate()
                .map(|(i, o)| view! { <option value=i.to_string()>{format!("{} · {}", o.model, o.title)}</option> })
                .collect_view();
            let meta_inputs = fields
                .iter()
                .map(|&k| {
                    let label_key = match k {
                        "organisation" => "lb.organisation",
                        "parameters" => "lb.parameters",
                        "link" => "lb.link",
                        "date" => "lb.date",
                        _ => "lb.notes",
                    };
                    view! {
                        <label>
                            {move || t(lang().get(), label_key)} " "
                            <input type="text" data-meta=k
                                on:input=move |ev| meta.update(|m| { m.insert(k.to_string(), event_target_value(&ev)); }) />
                        </label>
                    }
                })
                .collect_view();
            view! {
                <details class="card publish" data-testid="publish" on:toggle=move |_| opened.set(true)>
                    <summary>{tr("lb.publish")}</summary>
                    <p class="hint">{tr("lb.publish_hint")}</p>
                    <div class="filters publish-form">
                        <label>{tr("lb.job")} " "
                            <select data-testid="publish-job" on:change=move |ev| job.set(event_target_value(&ev).parse().unwrap_or(0))>{jobs}</select>
                        </label>
                        <label>{tr("lb.slug")} " "
                            <input type="text" list="lb-boards" data-testid="publish-slug" on:input=move |ev| slug.set(event_target_value(&ev)) />
                        </label>
                        <datalist id="lb-boards">
                            {move || boards.get().into_iter().map(|b| view! { <option value=b.slug.clone()>{format!("{} ({})", b.title, b.benchmark)}</option> }).collect_view()}
                        </datalist>
                        <label>{tr("lb.model")} " "
                            <input type="text" data-testid="publish-model" on:input=move |ev| model.set(event_target_value(&ev)) />
                        </label>
                        {meta_inputs}
                        <label>{tr("lb.open_weights")} " "
                            <select data-meta="open_weights" on:change=move |ev| open_weights.set(event_target_value(&ev))>
                                <option value="">{tr("lb.unknown")}</option>
                                <option value="yes">{tr("lb.yes")}</option>
                                <option value="no">{tr("lb.no")}</option>
                            </select>
                        </label>
                        <button class="variant" data-testid="publish-go" on:click=publish disabled=move || sent.get() == Sent::Sending>
                            {tr("lb.publish_go")}
                        </button>
                    </div>
                    {move || match sent.get() {
                        Sent::Idle => ().into_any(),
                        Sent::Sending => view! { <p class="hint">{tr("lb.publishing")}</p> }.into_any(),
                        Sent::Done(done, board) => {
                            let board_href = format!("/leaderboard/{}", super::seg(&board));
                            view! {
                                <div data-testid="published" data-entry=done.entry.to_string()>
                                    <p>{tr("lb.published")}
                                        <a href=done.url.clone() data-testid="entry-link">{done.url.clone()}</a>
                                        " · " <a href=board_href data-testid="board-link">{board.clone()}</a>
                                    </p>
                                    <p class="hint">{tr("lb.entry_token")} <code class="mono" data-testid="entry-token">{done.entry_token.clone()}</code></p>
                                </div>
                            }.into_any()
                        }
                        Sent::Refused(e) => {
                            let diffs = e.differences.iter().map(|d| view! {
                                <li data-testid="difference" data-at=d.at.clone()>
                                    <code>{d.at.clone()}</code> ": " {d.server.to_string()} " → " {d.other.to_string()}
                                </li>
                            }).collect_view();
                            let any = !e.differences.is_empty();
                            view! {
                                <div class="error" role="alert" data-testid="publish-error">
                                    <p>{tr("lb.refused")} {e.message.clone()}</p>
                                    {any.then(|| view! { <p>{tr("lb.differs")}</p> })}
                                    <ul>{diffs}</ul>
                                </div>
                            }.into_any()
                        }
                    }}
                </details>
            }
        })
    }
}
