//! A competition on its board's page: the owner's part of the console (the phase — window,
//! quotas, which entry counts, closing it —, the teams and their tokens, the scoring queue) and
//! a participant's panel (the team token pasted once, submitting prediction files, the team's
//! own submissions with their state, place in the queue and scores).
//!
//! Nothing is computed here: states, positions and scores are the server's. While a
//! submission is queued or being scored, the tables ask again every 1.5 s.

use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use super::api::{self, CompetitionInfo, Counts, PhaseSettings, Status, Submission, Submit, Team};
use super::console::{confirm, event_target_input};
use super::create::{chosen_files, read_files};
use super::tokens;
use crate::i18n::{lang, t, tr};

/// How often the queue is asked again while something is pending.
const POLL: std::time::Duration = std::time::Duration::from_millis(1500);

/// The phase form's fields, as typed.
#[derive(Clone, Copy)]
pub struct PhaseFields {
    opens: RwSignal<String>,
    closes: RwSignal<String>,
    daily: RwSignal<String>,
    total: RwSignal<String>,
    share: RwSignal<String>,
    counts: RwSignal<String>,
}

impl Default for PhaseFields {
    fn default() -> Self {
        Self::from_info(None)
    }
}

impl PhaseFields {
    fn from_info(info: Option<&CompetitionInfo>) -> Self {
        let text = |v: Option<String>| RwSignal::new(v.unwrap_or_default());
        let num = |v: Option<i64>| RwSignal::new(v.map(|v| v.to_string()).unwrap_or_default());
        Self {
            opens: text(info.and_then(|i| i.opens.clone())),
            closes: text(info.and_then(|i| i.closes.clone())),
            daily: num(info.and_then(|i| i.daily_quota)),
            total: num(info.and_then(|i| i.total_quota)),
            share: text(info.map(|i| i.public_share.to_string())),
            counts: text(info.map(|i| counts_name(i.counts).to_string())),
        }
    }
}

fn counts_name(c: Counts) -> &'static str {
    match c {
        Counts::Best => "best",
        Counts::Latest => "latest",
        Counts::Chosen => "chosen",
    }
}

/// The settings the fields give (an empty field: unchanged, or the default at creation).
pub fn phase_settings(f: &PhaseFields) -> Result<PhaseSettings, String> {
    let text =
        |s: RwSignal<String>| Some(s.get_untracked().trim().to_string()).filter(|s| !s.is_empty());
    let whole = |what: &str, s: RwSignal<String>| {
        text(s)
            .map(|v| {
                v.parse::<i64>()
                    .map_err(|_| format!("{what}: `{v}` is not a whole number"))
            })
            .transpose()
    };
    let l = lang().get_untracked();
    Ok(PhaseSettings {
        opens: text(f.opens).map(Value::String),
        closes: text(f.closes).map(Value::String),
        daily_quota: whole(t(l, "lb.daily_quota"), f.daily)?,
        total_quota: whole(t(l, "lb.total_quota"), f.total)?,
        public_share: text(f.share)
            .map(|v| {
                v.parse::<f64>()
                    .map_err(|_| format!("{}: `{v}` is not a number", t(l, "lb.public_share")))
            })
            .transpose()?,
        counts: match text(f.counts).as_deref() {
            None => None,
            Some("best") => Some(Counts::Best),
            Some("latest") => Some(Counts::Latest),
            Some("chosen") => Some(Counts::Chosen),
            Some(other) => return Err(format!("counts: `{other}`")),
        },
        seed: None,
        close: false,
    })
}

/// The phase's inputs (the create form's and the owner console's).
#[component]
pub fn PhaseInputs(fields: PhaseFields) -> impl IntoView {
    let input = move |name: &'static str,
                      label: &'static str,
                      s: RwSignal<String>,
                      kind: &'static str,
                      hint: &'static str| {
        view! {
            <label>{move || t(lang().get(), label)} " "
                <input name=name type=kind placeholder=hint autocomplete="off" min="0" step="any"
                    prop:value=move || s.get() on:input=move |ev| s.set(event_target_value(&ev)) />
            </label>
        }
    };
    view! {
        {input("opens", "lb.opens", fields.opens, "text", "2026-05-01T00:00:00Z")}
        {input("closes", "lb.closes", fields.closes, "text", "2026-06-01T00:00:00Z")}
        {input("daily_quota", "lb.daily_quota", fields.daily, "number", "")}
        {input("total_quota", "lb.total_quota", fields.total, "number", "")}
        {input("public_share", "lb.public_share", fields.share, "number", "0.3")}
        <label>{tr("lb.counts")} " "
            <select name="counts" on:change=move |ev| fields.counts.set(event_target_value(&ev))>
                {[("", "—"), ("best", "lb.counts_best"), ("latest", "lb.counts_latest"), ("chosen", "lb.counts_chosen")]
                    .into_iter()
                    .map(|(v, label)| view! {
                        <option value=v selected=move || fields.counts.get() == v>
                            {move || if v.is_empty() { label } else { t(lang().get(), label) }}
                        </option>
                    })
                    .collect_view()}
            </select>
        </label>
        <p class="hint">{tr("lb.phase_hint")}</p>
    }
}

/// The phase as one line: state, window, quotas, which entry counts.
#[component]
pub fn PhaseLine(info: CompetitionInfo) -> impl IntoView {
    let window = match (&info.opens, &info.closes) {
        (None, None) => None,
        (o, c) => Some(format!(
            "{} → {}",
            o.as_deref().unwrap_or("…"),
            c.as_deref().unwrap_or("…")
        )),
    };
    let quota = [
        info.daily_quota.map(|q| ("lb.daily_quota", q)),
        info.total_quota.map(|q| ("lb.total_quota", q)),
    ];
    view! {
        <p class="phase" data-testid="phase" data-phase=info.phase.clone()>
            <strong>{tr("lb.phase")}</strong> ": " {info.phase.clone()}
            {window.map(|w| format!(" · {w}"))}
            {quota.into_iter().flatten().map(|(label, q)| view! {
                " · " {move || t(lang().get(), label)} " " {q}
            }).collect_view()}
            " · " {tr("lb.counts")} " " {counts_name(info.counts)}
        </p>
    }
}

/// A table of submissions; `actions` adds cancel (queued) and choose (done) for `token`.
#[component]
fn SubmissionsTable(
    rows: RwSignal<Vec<Submission>>,
    primary: String,
    testid: &'static str,
    slug: StoredValue<String>,
    token: Signal<Option<String>>,
    error: RwSignal<Option<String>>,
    on_done: Callback<()>,
    choose: bool,
) -> impl IntoView {
    let metric = StoredValue::new(primary.clone());
    let act = move |id: i64, action: &'static str| {
        let Some(tok) = token.get_untracked() else {
            return;
        };
        let slug = slug.get_value();
        spawn_local(async move {
            match api::entry_action(&slug, &tok, id, action).await {
                Ok(()) => on_done.run(()),
                Err(e) => error.set(Some(e.0)),
            }
        });
    };
    let value = move |s: &Submission, public: bool| {
        let m = if public {
            &s.public_metrics
        } else {
            &s.private_metrics
        };
        m.as_ref()
            .map(|m| super::full(m.get(&metric.get_value()).copied().flatten()))
            .unwrap_or_else(|| "—".into())
    };
    view! {
        <table class="metrics submissions" data-testid=testid>
            <thead><tr>
                <th scope="col">"#"</th>
                <th scope="col">{tr("lb.team")}</th>
                <th scope="col">{tr("lb.model")}</th>
                <th scope="col">{tr("lb.status")}</th>
                <th scope="col">{tr("lb.position")}</th>
                <th scope="col">{tr("lb.attempts")}</th>
                <th scope="col">{format!("{primary} ")}{tr("lb.public")}</th>
                <th scope="col">{format!("{primary} ")}{tr("lb.private")}</th>
                <th scope="col">{tr("lb.submitted_at")}</th>
                <th scope="col">{tr("lb.actions")}</th>
            </tr></thead>
            <tbody>
                {move || rows.get().into_iter().map(|s| {
                    let id = s.entry;
                    view! {
                        <tr data-entry=id.to_string() data-status=s.status.as_str()
                            data-position=s.position.map(|p| p.to_string())>
                            <td class="num">{id}</td>
                            <td>{s.team.clone().unwrap_or_default()}</td>
                            <td>{s.model.clone()}</td>
                            <td title=s.reason.clone().unwrap_or_default()>{s.status.as_str()}{s.chosen.then_some(" ★")}</td>
                            <td class="num">{s.position.map(|p| p.to_string()).unwrap_or_default()}</td>
                            <td class="num">{s.attempts}</td>
                            <td class="num mono">{value(&s, true)}</td>
                            <td class="num mono">{value(&s, false)}</td>
                            <td class="mono">{s.submitted.clone()}</td>
                            <td>
                                {(s.status == Status::Queued).then(|| view! {
                                    <button data-action="cancel" on:click=move |_| act(id, "cancel")>
                                        {tr("lb.cancel")}
                                    </button>
                                })}
                                {(choose && s.status == Status::Done && !s.chosen).then(|| view! {
                                    <button data-action="choose" on:click=move |_| act(id, "choose")>
                                        {tr("lb.choose")}
                                    </button>
                                })}
                            </td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
}

fn pending(rows: &[Submission]) -> bool {
    rows.iter()
        .any(|s| matches!(s.status, Status::Queued | Status::Scoring))
}

fn done_count(rows: &[Submission]) -> usize {
    rows.iter().filter(|s| s.status == Status::Done).count()
}

/// Load `slug`'s submissions with `token` into `rows`, and again every [`POLL`] while one is
/// pending; `on_done` runs when a submission finished scoring (the board changed). Stops when
/// the component that owns `rows` is gone.
fn watch(
    slug: String,
    token: String,
    rows: RwSignal<Vec<Submission>>,
    polling: RwSignal<bool>,
    error: RwSignal<Option<String>>,
    on_done: Callback<()>,
) {
    spawn_local(async move {
        let result = api::submissions(&slug, &token).await;
        let Some(before) = rows.try_with_untracked(|r| done_count(r)) else {
            return;
        };
        match result {
            Ok(list) => {
                let again = pending(&list);
                let finished = done_count(&list) != before;
                if rows.try_set(list).is_some() {
                    return;
                }
                if finished {
                    on_done.run(());
                }
                if again {
                    polling.set(true);
                    set_timeout(
                        move || watch(slug, token, rows, polling, error, on_done),
                        POLL,
                    );
                } else {
                    polling.set(false);
                }
            }
            Err(e) => {
                polling.set(false);
                error.set(Some(e.0));
            }
        }
    });
}

/// The owner's part of the console on a competition board.
#[component]
pub fn CompetitionOwner(
    slug: String,
    token: RwSignal<Option<String>>,
    info: Signal<Option<CompetitionInfo>>,
    primary: String,
    on_change: Callback<()>,
) -> impl IntoView {
    let slug = StoredValue::new(slug);
    let fields = PhaseFields::from_info(info.get_untracked().as_ref());
    let teams = RwSignal::new(Vec::<Team>::new());
    let queue = RwSignal::new(Vec::<Submission>::new());
    let polling = RwSignal::new(false);
    let new_team = RwSignal::new(None::<(String, String)>);
    let error = RwSignal::new(None::<String>);
    let status = RwSignal::new(None::<&'static str>);
    let busy = RwSignal::new(false);
    let team_name = RwSignal::new(String::new());

    let reload = move || {
        let Some(tok) = token.get_untracked() else {
            return;
        };
        let s = slug.get_value();
        {
            let (s, tok) = (s.clone(), tok.clone());
            spawn_local(async move {
                match api::teams(&s, &tok).await {
                    Ok(list) => {
                        let _ = teams.try_set(list);
                    }
                    Err(e) => error.set(Some(e.0)),
                }
            });
        }
        if !polling.get_untracked() {
            watch(s, tok, queue, polling, error, on_change);
        }
    };
    reload();
    let after = Callback::new(move |()| {
        reload();
        on_change.run(());
    });

    let save_phase = move |close: bool| {
        let l = lang().get_untracked();
        if close && !confirm(t(l, "lb.close_confirm")) {
            return;
        }
        let settings = match close {
            true => PhaseSettings {
                close: true,
                ..PhaseSettings::default()
            },
            false => match phase_settings(&fields) {
                Ok(s) => s,
                Err(e) => return error.set(Some(e)),
            },
        };
        let Some(tok) = token.get_untracked() else {
            return;
        };
        let s = slug.get_value();
        busy.set(true);
        spawn_local(async move {
            let result = api::set_phase(&s, &tok, &settings).await;
            busy.set(false);
            match result {
                Ok(()) => {
                    error.set(None);
                    status.set(Some(if close { "lb.phase_closed" } else { "lb.saved" }));
                    after.run(());
                }
                Err(e) => error.set(Some(e.0)),
            }
        });
    };
    let add_team = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let name = team_name.get_untracked().trim().to_string();
        let Some(tok) = token.get_untracked() else {
            return;
        };
        if name.is_empty() {
            return;
        }
        let s = slug.get_value();
        busy.set(true);
        spawn_local(async move {
            let result = api::add_team(&s, &tok, &name).await;
            busy.set(false);
            match result {
                Ok(made) => {
                    error.set(None);
                    team_name.set(String::new());
                    new_team.set(Some((made.team, made.team_token)));
                    reload();
                }
                Err(e) => error.set(Some(e.0)),
            }
        });
    };

    view! {
        <section class="competition-console" data-testid="competition-console">
            <h3>{tr("lb.competition")}</h3>
            {move || info.get().map(|i| view! { <PhaseLine info=i /> })}
            {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="competition-error">{e}</p> })}
            {move || status.get().map(|s| view! { <p class="hint" role="status" data-testid="competition-status" data-done=s>{move || t(lang().get(), s)}</p> })}
            <form class="board-edit" data-testid="phase-form" on:submit=move |ev| { ev.prevent_default(); save_phase(false); }>
                <PhaseInputs fields=fields />
                <button type="submit" disabled=move || busy.get()>{tr("lb.save_phase")}</button>
                " "
                <button type="button" data-action="close-phase" disabled=move || busy.get() || info.with(|i| i.as_ref().is_some_and(|i| i.closed.is_some()))
                    on:click=move |_| save_phase(true)>{tr("lb.close_phase")}</button>
            </form>

            <h4>{tr("lb.teams")}</h4>
            {move || new_team.get().map(|(team, tok)| view! {
                <p class="hint" data-testid="new-team-token-note">
                    {tr("lb.new_team_token")} " " <strong>{team.clone()}</strong> ": "
                    <code class="mono" data-testid="new-team-token" data-team=team.clone()>{tok}</code>
                </p>
            })}
            <table class="metrics" data-testid="teams">
                <thead><tr>
                    <th scope="col">{tr("lb.team")}</th>
                    <th scope="col">{tr("lb.submissions")}</th>
                    <th scope="col">{tr("lb.counting")}</th>
                    <th scope="col">{tr("lb.team_added")}</th>
                </tr></thead>
                <tbody>
                    {move || teams.get().into_iter().map(|team| view! {
                        <tr data-team=team.name.clone()>
                            <td>{team.name.clone()}</td>
                            <td class="num">{team.submissions}</td>
                            <td class="num">{team.counting}</td>
                            <td class="mono">{team.created.clone()}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
            <form data-testid="add-team" on:submit=add_team>
                <label>{tr("lb.team_name")} " "
                    <input name="team-name" autocomplete="off" prop:value=move || team_name.get()
                        on:input=move |ev| team_name.set(event_target_value(&ev)) />
                </label>
                " " <button type="submit" disabled=move || busy.get()>{tr("lb.add_team")}</button>
            </form>

            <h4>{tr("lb.queue")}
                {move || polling.get().then(|| view! { " " <span class="hint" data-testid="queue-polling">"⟳"</span> })}
                " " <button type="button" data-action="refresh-queue" on:click=move |_| reload()>
                    {tr("lb.refresh")}
                </button>
            </h4>
            <SubmissionsTable rows=queue primary=primary testid="queue" slug=slug
                token=token.into() error=error on_done=after choose=false />
        </section>
    }
}

/// A participant's panel on a competition board: the team token, submitting, the team's own
/// submissions.
#[component]
pub fn TeamPanel(slug: String, primary: String, on_change: Callback<()>) -> impl IntoView {
    let key = tokens::team_key(&slug);
    let slug = StoredValue::new(slug);
    let token = RwSignal::new(tokens::saved(&key));
    let key = StoredValue::new(key);
    let mine = RwSignal::new(Vec::<Submission>::new());
    let polling = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let status = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let model = RwSignal::new(String::new());
    let files = NodeRef::<html::Input>::new();

    // The team's submissions; a refused token is forgotten.
    let load = move || {
        let Some(tok) = token.get_untracked() else {
            return;
        };
        let s = slug.get_value();
        spawn_local(async move {
            match api::submissions(&s, &tok).await {
                Ok(list) => {
                    tokens::keep(&key.get_value(), &tok);
                    error.set(None);
                    let again = pending(&list);
                    if mine.try_set(list).is_some() {
                        return;
                    }
                    if again && !polling.get_untracked() {
                        watch(s, tok, mine, polling, error, on_change);
                    }
                }
                Err(e) => {
                    if e.0.starts_with("403") {
                        tokens::forget(&key.get_value());
                        token.set(None);
                    }
                    error.set(Some(e.0));
                }
            }
        });
    };
    load();

    let unlock = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let typed = event_target_input(&ev, "team-token").trim().to_string();
        if !typed.is_empty() {
            token.set(Some(typed));
            load();
        }
    };
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let l = lang().get_untracked();
        let chosen = chosen_files(&files);
        let name = model.get_untracked().trim().to_string();
        if chosen.is_empty() || name.is_empty() {
            return error.set(Some(t(l, "lb.submit_needs").into()));
        }
        let Some(tok) = token.get_untracked() else {
            return;
        };
        let s = slug.get_value();
        busy.set(true);
        status.set(None);
        spawn_local(async move {
            let result = match read_files(chosen).await {
                Ok(files) => {
                    let body = Submit {
                        model: name,
                        meta: Default::default(),
                        files,
                        client_report: None,
                    };
                    api::submit_to_competition(&s, &tok, &body)
                        .await
                        .map_err(|e| e.0)
                }
                Err(e) => Err(e),
            };
            busy.set(false);
            match result {
                Ok(made) => {
                    error.set(None);
                    status.set(Some(format!("#{}", made.entry)));
                    if let Some(input) = files.get_untracked() {
                        input.set_value("");
                    }
                    load();
                }
                Err(e) => error.set(Some(e)),
            }
        });
    };
    let forget = move |_| {
        tokens::forget(&key.get_value());
        token.set(None);
        mine.set(Vec::new());
        status.set(None);
        error.set(None);
    };

    view! {
        <section class="team-panel" data-testid="team-panel"
            data-state=move || if token.with(Option::is_some) { "open" } else { "locked" }>
            <h2>{tr("lb.participate")}</h2>
            {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="team-error">{e}</p> })}
            {move || match token.get() {
                None => view! {
                    <form data-testid="team-unlock" on:submit=unlock>
                        <label>{tr("lb.team_token")} " "
                            <input type="password" name="team-token" autocomplete="off" />
                        </label>
                        " " <button type="submit">{tr("lb.team_open")}</button>
                    </form>
                }.into_any(),
                Some(_) => view! {
                    <form class="board-edit" data-testid="team-submit" on:submit=submit>
                        <label>{tr("lb.model")} " "
                            <input name="model" required autocomplete="off"
                                on:input=move |ev| model.set(event_target_value(&ev)) />
                        </label>
                        <label>{tr("lb.prediction_files")} " "
                            <input type="file" name="predictions" multiple node_ref=files />
                        </label>
                        <button type="submit" data-action="submit" disabled=move || busy.get()>
                            {tr("lb.submit")}
                        </button>
                        {move || status.get().map(|s| view! {
                            <span class="hint" role="status" data-testid="team-submitted"> " " {tr("lb.queued_as")} " " {s.clone()}</span>
                        })}
                    </form>
                    <h3>{tr("lb.my_submissions")}</h3>
                    <SubmissionsTable rows=mine primary=primary.clone() testid="my-submissions" slug=slug
                        token=token.into() error=error on_done=Callback::new(move |()| load()) choose=true />
                    <p><button data-action="forget-team-token" on:click=forget>{tr("lb.forget")}</button></p>
                }.into_any(),
            }}
        </section>
    }
}
