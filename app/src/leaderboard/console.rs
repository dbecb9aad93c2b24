//! The owner console on a board page: every owner action of the API without curl — edit the
//! board (title, description, ranking metric, shown metrics), hide, restore and delete entries,
//! read the audit log, rotate the owner token, delete the board.
//!
//! The owner token is kept in this browser's `localStorage` (`scorebench.owner.<slug>`) once it
//! was pasted (and checked against the server) or rotated here; "Forget" removes it. Nothing
//! else of the board is stored. Every control is a form element or a button, so the console is
//! usable from the keyboard.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::api::{self, AuditLine, BoardView, EditBoard, State};
use super::tokens;
use crate::i18n::{lang, t, tr};

fn saved_token(slug: &str) -> Option<String> {
    tokens::saved(&tokens::owner_key(slug))
}

fn keep_token(slug: &str, token: &str) {
    tokens::keep(&tokens::owner_key(slug), token);
}

fn forget_token(slug: &str) {
    tokens::forget(&tokens::owner_key(slug));
}

/// What the console shows once open: the owner's view of the board and its audit log.
#[derive(Clone)]
struct Loaded {
    view: BoardView,
    audit: Vec<AuditLine>,
}

#[component]
pub fn OwnerConsole(slug: String, on_change: Callback<()>) -> impl IntoView {
    let token = RwSignal::new(saved_token(&slug));
    let loaded = RwSignal::new(None::<Loaded>);
    let error = RwSignal::new(None::<String>);
    let status = RwSignal::new(None::<&'static str>);
    let new_token = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let slug = StoredValue::new(slug);

    // Load the owner's view with the token; a refused token is forgotten.
    let load = move || {
        let Some(tok) = token.get_untracked() else {
            return;
        };
        let slug = slug.get_value();
        spawn_local(async move {
            let view = api::owner_board(&slug, &tok).await;
            let audit = api::audit(&slug, &tok).await;
            match (view, audit) {
                (Ok(view), Ok(audit)) => {
                    keep_token(&slug, &tok);
                    error.set(None);
                    loaded.set(Some(Loaded {
                        view,
                        audit: audit.audit,
                    }));
                }
                (Err(e), _) | (_, Err(e)) => {
                    if e.0.starts_with("403") {
                        forget_token(&slug);
                        token.set(None);
                    }
                    loaded.set(None);
                    error.set(Some(e.0));
                }
            }
        });
    };
    load();

    // Run an owner call, then reload the console and the board.
    let act = move |done: &'static str, call: Box<dyn FnOnce(String, String) -> ActFuture>| {
        let Some(tok) = token.get_untracked() else {
            return;
        };
        busy.set(true);
        status.set(None);
        let slug = slug.get_value();
        spawn_local(async move {
            let result = call(slug, tok).await;
            busy.set(false);
            match result {
                Ok(()) => {
                    status.set(Some(done));
                    error.set(None);
                    load();
                    on_change.run(());
                }
                Err(e) => error.set(Some(e.0)),
            }
        });
    };
    let act: Act = StoredValue::new_local(Box::new(act));

    let unlock = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let input = event_target_input(&ev, "owner-token");
        if !input.trim().is_empty() {
            token.set(Some(input.trim().to_string()));
            load();
        }
    };
    let forget = move |_| {
        forget_token(&slug.get_value());
        token.set(None);
        loaded.set(None);
        new_token.set(None);
    };

    // A competition's part, mounted once (its settings follow as a signal, its messages and
    // typed fields stay over reloads).
    let competition = Memo::new(move |_| {
        loaded.with(|l| {
            l.as_ref().and_then(|l| {
                let b = &l.view.board;
                b.competition.as_ref().map(|_| b.primary.clone())
            })
        })
    });
    let phase = Signal::derive(move || {
        loaded.with(|l| l.as_ref().and_then(|l| l.view.board.competition.clone()))
    });

    // The import dialog, mounted again only when the board's metrics change.
    let import_metrics = Memo::new(move |_| {
        loaded.with(|l| {
            l.as_ref().map(|l| {
                let b = &l.view.board;
                if b.available_metrics.is_empty() {
                    b.metrics.clone()
                } else {
                    b.available_metrics.clone()
                }
            })
        })
    });

    view! {
        <section class="owner-console" data-testid="owner-console"
            data-state=move || if loaded.with(Option::is_some) { "open" } else { "locked" }>
            <h2>{tr("lb.console")}</h2>
            {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="owner-error">{e}</p> })}
            {move || status.get().map(|s| view! { <p class="hint" role="status" data-testid="owner-status" data-done=s>{move || t(lang().get(), s)}</p> })}
            {move || new_token.get().map(|tok| view! {
                <p class="hint" data-testid="new-owner-token-note">
                    {tr("lb.new_token")} " " <code class="mono" data-testid="new-owner-token">{tok}</code>
                </p>
            })}
            {move || match loaded.get() {
                None => view! {
                    <form data-testid="owner-unlock" on:submit=unlock>
                        <label>
                            {tr("lb.owner_token")} " "
                            <input type="password" name="owner-token" autocomplete="off" aria-label="owner token" />
                        </label>
                        " " <button type="submit">{tr("lb.console_open")}</button>
                    </form>
                }.into_any(),
                Some(Loaded { view, audit }) => view! {
                    <BoardEditForm view=view.clone() busy=busy act=act />
                    <OwnerEntries view=view busy=busy act=act />
                    <details data-testid="audit-log">
                        <summary>{tr("lb.audit")} " (" {audit.len()} ")"</summary>
                        <ol data-testid="audit">
                            {audit.into_iter().map(|a| view! {
                                <li data-action=a.action.clone() data-actor=a.actor.clone() data-entry=a.entry.map(|e| e.to_string())>
                                    <span class="mono">{a.at.clone()}</span> " · " {a.actor.clone()} " · " <strong>{a.action.clone()}</strong>
                                    {a.entry.map(|e| format!(" · #{e}"))}
                                </li>
                            }).collect_view()}
                        </ol>
                    </details>
                    <p>
                        <button data-action="rotate-token" disabled=move || busy.get() on:click=move |_| {
                            let l = lang().get_untracked();
                            if !confirm(t(l, "lb.rotate_confirm")) {
                                return;
                            }
                            let Some(tok) = token.get_untracked() else { return };
                            let slug = slug.get_value();
                            busy.set(true);
                            spawn_local(async move {
                                let result = api::rotate_owner_token(&slug, &tok).await;
                                busy.set(false);
                                match result {
                                    Ok(made) => {
                                        keep_token(&slug, &made.owner_token);
                                        token.set(Some(made.owner_token.clone()));
                                        new_token.set(Some(made.owner_token));
                                        status.set(Some("lb.rotated"));
                                        load();
                                    }
                                    Err(e) => error.set(Some(e.0)),
                                }
                            });
                        }>{tr("lb.rotate")}</button>
                        " "
                        <button data-action="forget-token" on:click=forget>{tr("lb.forget")}</button>
                    </p>
                    <DeleteBoard slug=slug.get_value() busy=busy token=token error=error />
                }.into_any(),
            }}
            {move || import_metrics.with(Option::is_some).then(|| view! {
                <super::webhooks::WebhooksPanel slug=slug.get_value() token=token />
            })}
            {move || import_metrics.get().map(|metrics| view! {
                <super::import::ImportDialog slug=slug.get_value() token=token metrics=metrics
                    on_done=Callback::new(move |()| { load(); on_change.run(()); }) />
            })}
            {move || competition.get().map(|primary| view! {
                <super::competition::CompetitionOwner slug=slug.get_value() token=token info=phase
                    primary=primary on_change=Callback::new(move |()| { load(); on_change.run(()); }) />
            })}
        </section>
    }
}

type ActFuture =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), crate::api::ApiError>>>>;
type Act = StoredValue<
    Box<dyn Fn(&'static str, Box<dyn FnOnce(String, String) -> ActFuture>)>,
    LocalStorage,
>;

pub(super) fn confirm(message: &str) -> bool {
    web_sys::window()
        .and_then(|w| w.confirm_with_message(message).ok())
        .unwrap_or(false)
}

/// The value of the input `name` of a submit event's form.
pub(super) fn event_target_input(ev: &leptos::ev::SubmitEvent, name: &str) -> String {
    use wasm_bindgen::JsCast;
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|form| {
            form.query_selector(&format!("[name={name}]"))
                .ok()
                .flatten()
        })
        .and_then(|el| el.dyn_into::<web_sys::HtmlInputElement>().ok())
        .map(|i| i.value())
        .unwrap_or_default()
}

#[component]
fn BoardEditForm(view: BoardView, busy: RwSignal<bool>, act: Act) -> impl IntoView {
    let b = view.board;
    let available = if b.available_metrics.is_empty() {
        b.metrics.clone()
    } else {
        b.available_metrics.clone()
    };
    let title = RwSignal::new(b.title.clone());
    let description = RwSignal::new(b.description.clone());
    let primary = RwSignal::new(b.primary.clone());
    let shown = RwSignal::new(b.metrics.clone());
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let edit = EditBoard {
            title: Some(title.get_untracked()),
            description: Some(description.get_untracked()),
            primary: Some(primary.get_untracked()),
            metrics: Some(shown.get_untracked()),
        };
        act.with_value(|act| {
            act(
                "lb.saved",
                Box::new(move |slug, tok| {
                    Box::pin(async move { api::edit_board(&slug, &tok, &edit).await })
                }),
            )
        });
    };
    let options = available.clone();
    view! {
        <form class="board-edit" data-testid="board-edit" on:submit=save>
            <label>{tr("lb.title")} " "
                <input name="title" prop:value=move || title.get() on:input=move |ev| title.set(event_target_value(&ev)) />
            </label>
            <label>{tr("lb.description")}
                <textarea name="description" rows="4" prop:value=move || description.get()
                    on:input=move |ev| description.set(event_target_value(&ev))></textarea>
            </label>
            <label>{tr("lb.primary")} " "
                <select name="primary" on:change=move |ev| primary.set(event_target_value(&ev))>
                    {options.into_iter().map(|m| {
                        let selected = m == b.primary;
                        view! { <option value=m.clone() selected=selected>{m.clone()}</option> }
                    }).collect_view()}
                </select>
            </label>
            <fieldset>
                <legend>{tr("lb.shown_metrics")}</legend>
                {available.into_iter().map(|m| {
                    let key = m.clone();
                    let checked = shown.with_untracked(|s| s.contains(&m));
                    view! {
                        <label class="check">
                            <input type="checkbox" name="metric" value=m.clone() prop:checked=checked
                                on:change=move |ev| {
                                    let on = event_target_checked(&ev);
                                    shown.update(|s| {
                                        s.retain(|x| x != &key);
                                        if on { s.push(key.clone()); }
                                    });
                                } />
                            " " {m}
                        </label>
                    }
                }).collect_view()}
            </fieldset>
            <button type="submit" disabled=move || busy.get()>{tr("lb.save")}</button>
        </form>
    }
}

#[component]
fn OwnerEntries(view: BoardView, busy: RwSignal<bool>, act: Act) -> impl IntoView {
    let rows = view.entries.into_iter().map(|e| {
        let id = e.entry;
        let state = e.state;
        let button = move |action: &'static str, label: &'static str| {
            view! {
                <button data-action=action disabled=move || busy.get() on:click=move |_| {
                    if action == "delete" && !confirm(t(lang().get_untracked(), "lb.delete_entry_confirm")) {
                        return;
                    }
                    act.with_value(|act| act(
                        "lb.done",
                        Box::new(move |slug, tok| Box::pin(async move {
                            if action == "delete" {
                                api::delete_entry(&slug, &tok, id).await
                            } else {
                                api::entry_action(&slug, &tok, id, action).await
                            }
                        })),
                    ));
                }>{move || t(lang().get(), label)}</button>
            }
        };
        view! {
            <tr data-entry=id.to_string() data-state=state.as_str()>
                <td class="num">{id}</td>
                <td>{e.model.clone()}</td>
                <td>{e.status.as_str()}</td>
                <td>{state.as_str()}</td>
                <td>
                    {(state == State::Visible).then(|| button("hide", "lb.hide"))}
                    {(state == State::Hidden).then(|| button("restore", "lb.restore"))}
                    " " {button("delete", "lb.delete")}
                </td>
            </tr>
        }
    }).collect_view();
    view! {
        <table class="owner-entries" data-testid="owner-entries">
            <thead><tr>
                <th scope="col">"#"</th>
                <th scope="col">{tr("lb.model")}</th>
                <th scope="col">{tr("lb.status")}</th>
                <th scope="col">{tr("lb.visibility")}</th>
                <th scope="col">{tr("lb.actions")}</th>
            </tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

#[component]
fn DeleteBoard(
    slug: String,
    busy: RwSignal<bool>,
    token: RwSignal<Option<String>>,
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    let typed = RwSignal::new(String::new());
    let expected = slug.clone();
    let matches = move || typed.get() == expected;
    let delete = move |_| {
        let Some(tok) = token.get_untracked() else {
            return;
        };
        let slug = slug.clone();
        busy.set(true);
        spawn_local(async move {
            match api::delete_board(&slug, &tok).await {
                Ok(()) => {
                    forget_token(&slug);
                    if let Some(w) = web_sys::window() {
                        let _ = w.location().set_href("/leaderboards");
                    }
                }
                Err(e) => {
                    busy.set(false);
                    error.set(Some(e.0));
                }
            }
        });
    };
    view! {
        <details class="danger" data-testid="delete-board">
            <summary>{tr("lb.delete_board")}</summary>
            <p class="hint">{tr("lb.delete_board_hint")}</p>
            <input name="confirm-slug" aria-label="confirm slug" autocomplete="off"
                on:input=move |ev| typed.set(event_target_value(&ev)) />
            " " <button data-action="delete-board" disabled=move || busy.get() || !matches() on:click=delete>
                {tr("lb.delete_board")}
            </button>
        </details>
    }
}
