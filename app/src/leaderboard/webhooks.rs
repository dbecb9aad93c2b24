//! Webhooks in the owner console: the board's hooks (add one: its signing secret is shown
//! once; delete), and the delivery log — each event's state, attempts and last answer. Where
//! deliveries may go is the server operator's choice (`serve --webhook-hosts`): a refused URL
//! says which hosts are allowed.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::api::{self, Webhooks};
use crate::i18n::tr;

#[component]
pub fn WebhooksPanel(slug: String, token: RwSignal<Option<String>>) -> impl IntoView {
    let slug = StoredValue::new(slug);
    let hooks = RwSignal::new(None::<Webhooks>);
    let error = RwSignal::new(None::<String>);
    let secret = RwSignal::new(None::<(i64, String)>);
    let url = RwSignal::new(String::new());
    let busy = RwSignal::new(false);

    let load = move || {
        let Some(tok) = token.get_untracked() else {
            return;
        };
        let s = slug.get_value();
        spawn_local(async move {
            match api::webhooks(&s, &tok).await {
                Ok(h) => {
                    let _ = hooks.try_set(Some(h));
                }
                Err(e) => error.set(Some(e.0)),
            }
        });
    };
    let add = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Some(tok) = token.get_untracked() else {
            return;
        };
        let target = url.get_untracked().trim().to_string();
        if target.is_empty() {
            return;
        }
        let s = slug.get_value();
        busy.set(true);
        spawn_local(async move {
            let result = api::add_webhook(&s, &tok, &target).await;
            busy.set(false);
            match result {
                Ok(made) => {
                    error.set(None);
                    url.set(String::new());
                    secret.set(Some((made.id, made.secret)));
                    load();
                }
                Err(e) => error.set(Some(e.0)),
            }
        });
    };
    let delete = move |id: i64| {
        let Some(tok) = token.get_untracked() else {
            return;
        };
        let s = slug.get_value();
        spawn_local(async move {
            match api::delete_webhook(&s, &tok, id).await {
                Ok(()) => load(),
                Err(e) => error.set(Some(e.0)),
            }
        });
    };

    view! {
        <details class="webhooks" data-testid="webhooks" on:toggle=move |_| load()>
            <summary>{tr("lb.webhooks")}</summary>
            <p class="hint">{tr("lb.webhooks_hint")}</p>
            {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="webhook-error">{e}</p> })}
            {move || secret.get().map(|(id, s)| view! {
                <p class="hint" data-testid="webhook-secret-note">
                    {tr("lb.webhook_secret")} " "
                    <code class="mono" data-testid="webhook-secret" data-webhook=id.to_string()>{s}</code>
                </p>
            })}
            <form data-testid="add-webhook" on:submit=add>
                <label>"URL "
                    <input type="url" name="webhook-url" autocomplete="off" placeholder="https://hooks.example.org/scorebench"
                        prop:value=move || url.get() on:input=move |ev| url.set(event_target_value(&ev)) />
                </label>
                " " <button type="submit" disabled=move || busy.get()>{tr("lb.add_webhook")}</button>
                " " <button type="button" data-action="refresh-webhooks" on:click=move |_| load()>{tr("lb.refresh")}</button>
            </form>
            {move || hooks.get().map(|h| view! {
                <table class="metrics" data-testid="webhook-list">
                    <thead><tr>
                        <th scope="col">"#"</th>
                        <th scope="col">"URL"</th>
                        <th scope="col">{tr("lb.team_added")}</th>
                        <th scope="col">{tr("lb.actions")}</th>
                    </tr></thead>
                    <tbody>
                        {h.webhooks.into_iter().map(|w| {
                            let id = w.id;
                            view! {
                                <tr data-webhook=id.to_string()>
                                    <td class="num">{id}</td>
                                    <td class="mono">{w.url.clone()}</td>
                                    <td class="mono">{w.created.clone()}</td>
                                    <td><button data-action="delete-webhook" on:click=move |_| delete(id)>
                                        {tr("lb.delete")}
                                    </button></td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </table>
                <h4>{tr("lb.deliveries")}</h4>
                <table class="metrics" data-testid="deliveries">
                    <thead><tr>
                        <th scope="col">"#"</th>
                        <th scope="col">{tr("lb.event")}</th>
                        <th scope="col">"URL"</th>
                        <th scope="col">{tr("lb.status")}</th>
                        <th scope="col">{tr("lb.attempts")}</th>
                        <th scope="col">{tr("lb.last_answer")}</th>
                        <th scope="col">{tr("lb.next_attempt")}</th>
                    </tr></thead>
                    <tbody>
                        {h.deliveries.into_iter().map(|d| view! {
                            <tr data-delivery=d.id.to_string() data-state=d.state.clone() data-event=d.event.clone()>
                                <td class="num">{d.id}</td>
                                <td class="mono">{d.event.clone()}</td>
                                <td class="mono">{d.url.clone()}</td>
                                <td>{d.state.clone()}</td>
                                <td class="num">{d.attempts}</td>
                                <td>{d.last_status.map(|s| s.to_string()).or(d.last_error.clone()).unwrap_or_default()}</td>
                                <td class="mono">{d.next_attempt.clone().unwrap_or_default()}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            })}
        </details>
    }
}
