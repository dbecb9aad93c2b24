//! On an entry's page: its submitter's panel (the entry token, pasted once and kept in this
//! browser's `localStorage` as `scorebench.entry.<slug>.<id>`: edit the model name and the
//! metadata, withdraw the entry), and the check of the entry's signed receipt against the
//! server's public key (`workbench::receipt::check`, the rule `scorebench leaderboard verify
//! --receipt` follows), done here in the browser.

use std::collections::BTreeMap;

use gloo_net::http::Request;
use leptos::prelude::*;
use leptos::task::spawn_local;
use workbench::receipt::PublicKey;

use super::api::{self, EditEntry, EntryDetail};
use super::tokens;
use crate::api::{ApiError, checked, json};
use crate::i18n::{lang, t, tr};

/// `key=value` lines → metadata (blank lines skipped; a line without `=` is an error).
fn parse_meta(text: &str) -> Result<BTreeMap<String, String>, String> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            l.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .ok_or_else(|| format!("{l:?}: expected key=value"))
        })
        .collect()
}

fn reload() {
    if let Some(w) = web_sys::window() {
        let _ = w.location().reload();
    }
}

#[component]
pub fn EntryOwner(
    slug: String,
    id: i64,
    model: String,
    meta: BTreeMap<String, String>,
) -> impl IntoView {
    let token = RwSignal::new(tokens::saved(&tokens::entry_key(&slug, id)).unwrap_or_default());
    let model = RwSignal::new(model);
    let meta_text = RwSignal::new(
        meta.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("\n"),
    );
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let slug = StoredValue::new(slug);
    let keep = move |tok: &str| tokens::keep(&tokens::entry_key(&slug.get_value(), id), tok);
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let meta = match parse_meta(&meta_text.get_untracked()) {
            Ok(m) => m,
            Err(e) => return error.set(Some(e)),
        };
        let body = EditEntry {
            model: Some(model.get_untracked()),
            meta: Some(meta),
        };
        let tok = token.get_untracked();
        busy.set(true);
        spawn_local(async move {
            match api::edit_entry(&slug.get_value(), &tok, id, &body).await {
                Ok(()) => {
                    keep(&tok);
                    reload();
                }
                Err(e) => {
                    busy.set(false);
                    error.set(Some(e.0));
                }
            }
        });
    };
    let withdraw_it = move |_| {
        let ok = web_sys::window()
            .and_then(|w| {
                w.confirm_with_message(t(lang().get_untracked(), "lb.withdraw_confirm"))
                    .ok()
            })
            .unwrap_or(false);
        if !ok {
            return;
        }
        let tok = token.get_untracked();
        busy.set(true);
        spawn_local(async move {
            match api::entry_action(&slug.get_value(), &tok, id, "withdraw").await {
                Ok(()) => reload(),
                Err(e) => {
                    busy.set(false);
                    error.set(Some(e.0));
                }
            }
        });
    };
    view! {
        <details class="entry-owner" data-testid="entry-owner">
            <summary>{tr("lb.your_entry")}</summary>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            <form on:submit=save>
                <label>{tr("lb.entry_token_label")} " "
                    <input type="password" name="entry-token" autocomplete="off" prop:value=move || token.get()
                        on:input=move |ev| token.set(event_target_value(&ev)) />
                </label>
                <label>{tr("lb.model")} " "
                    <input name="model" prop:value=move || model.get() on:input=move |ev| model.set(event_target_value(&ev)) />
                </label>
                <label>{tr("lb.meta_lines")}
                    <textarea name="meta" rows="4" prop:value=move || meta_text.get()
                        on:input=move |ev| meta_text.set(event_target_value(&ev))></textarea>
                </label>
                <button type="submit" disabled=move || busy.get() || token.with(|t| t.trim().is_empty())>
                    {tr("lb.save")}
                </button>
                " "
                <button type="button" data-action="withdraw" disabled=move || busy.get() || token.with(|t| t.trim().is_empty())
                    on:click=withdraw_it>{tr("lb.withdraw")}</button>
            </form>
        </details>
    }
}

/// The outcome of a receipt check.
#[derive(Clone, PartialEq)]
enum Checked {
    Idle,
    Holds(String),
    Fails(Vec<String>),
}

/// "Check the receipt": the server's public key, fetched, and the receipt checked here.
#[component]
pub fn ReceiptCheck(entry: EntryDetail) -> impl IntoView {
    let Some(receipt) = entry.receipt.clone() else {
        return ().into_any();
    };
    let shown = entry.signed();
    let outcome = RwSignal::new(Checked::Idle);
    let receipt = StoredValue::new(receipt);
    let shown = StoredValue::new(shown);
    let check = move |_| {
        spawn_local(async move {
            let key: Result<PublicKey, ApiError> = async {
                json(checked(Request::get("/.well-known/scorebench-key").send().await).await?).await
            }
            .await;
            let result = match key {
                Err(e) => Checked::Fails(vec![e.0]),
                Ok(key) => match receipt
                    .with_value(|r| shown.with_value(|s| workbench::receipt::check(r, &key, s)))
                {
                    Ok(()) => Checked::Holds(key.key_id),
                    Err(f) => Checked::Fails(f.receipt.into_iter().chain(f.fields).collect()),
                },
            };
            outcome.set(result);
        });
    };
    view! {
        <p class="receipt" data-testid="receipt"
            data-ok=move || match outcome.get() { Checked::Idle => None, Checked::Holds(_) => Some("true"), Checked::Fails(_) => Some("false") }>
            <button data-action="check-receipt" on:click=check>{tr("lb.check_receipt")}</button>
            " "
            {move || match outcome.get() {
                Checked::Idle => ().into_any(),
                Checked::Holds(key) => view! { <span class="ok">"✓ " {tr("lb.receipt_holds")} " " <code class="mono">{key.clone()}</code></span> }.into_any(),
                Checked::Fails(problems) => view! {
                    <span class="error" role="alert">"✗ " {tr("lb.receipt_fails")}</span>
                    <ul>{problems.into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}</ul>
                }.into_any(),
            }}
        </p>
    }
    .into_any()
}
