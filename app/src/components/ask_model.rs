//! "Ask the model": levels and/or comments for essays that have none, written by the server's
//! EOTGC Track 1 / Track 2 runs through its proxy, for one essay or the whole class, with
//! progress and cost. No essay text leaves the browser before the teacher has read where it
//! goes (the model and its upstream, by their configured names) and said yes. The results are
//! filled in by `workbench::class::ClassView::with_model_results`; nothing the files already
//! had is replaced.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;
use workbench::class::{ClassRow, ClassView, ModelResults};

use crate::api::{self, ApiError, Model, RunProgress};
use crate::components::run_panel::{POLL, sleep};
use crate::i18n::{lang, run_state, t, tf};
use workbench::benchmarks::eotgc::RunRequest as EotgcRun;

/// Requests in flight per run (the upstream's own limit applies on the server too).
const WORKERS: usize = 4;

/// What the teacher asked for: the whole class, or one essay (by id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AskScope {
    Class,
    Essay(String),
}

/// One run started from the dialog: Track 1 (levels) or Track 2 (comments).
#[derive(Debug, Clone, PartialEq)]
struct AskJob {
    track: u8,
    progress: Option<RunProgress>,
    error: Option<String>,
    /// Its results are in the view.
    merged: bool,
}

/// The models the server may run: `None` while asking, empty when none is configured.
pub type Models = LocalResource<Result<Vec<Model>, ApiError>>;

/// Whether the server can run a model (it has upstreams with models).
pub fn can_ask(models: Models) -> bool {
    matches!(models.get(), Some(Ok(ref list)) if !list.is_empty())
}

/// The essays of `scope` that lack a level (track 1) or a comment (track 2).
fn lacking(class: &ClassView, scope: &AskScope, track: u8) -> Vec<ClassRow> {
    class
        .missing(track == 1, track == 2)
        .into_iter()
        .filter(|e| match scope {
            AskScope::Class => true,
            AskScope::Essay(id) => &e.id == id,
        })
        .cloned()
        .collect()
}

fn output_file(track: u8) -> &'static str {
    if track == 1 {
        "track1.json"
    } else {
        "track2.json"
    }
}

/// Start one run and follow it to its end; on success its output joins `results`.
async fn run_track(
    index: usize,
    body: EotgcRun,
    jobs: RwSignal<Vec<AskJob>>,
    results: RwSignal<ModelResults>,
) {
    let set = move |f: &dyn Fn(&mut AskJob)| {
        jobs.update(|all| {
            if let Some(job) = all.get_mut(index) {
                f(job);
            }
        })
    };
    let track = body.track;
    let mut progress = match api::start_run(&body).await {
        Ok(p) => p,
        Err(e) => return set(&|j| j.error = Some(e.to_string())),
    };
    loop {
        let p = progress.clone();
        set(&|j| j.progress = Some(p.clone()));
        match progress.state.as_str() {
            "running" | "paused" => {}
            "finished" => break,
            _ => {
                let why = progress
                    .error
                    .clone()
                    .unwrap_or_else(|| progress.state.as_str().to_string());
                return set(&|j| j.error = Some(why.clone()));
            }
        }
        sleep(POLL).await;
        progress = match api::run(&progress.id).await {
            Ok(p) => p,
            Err(e) => return set(&|j| j.error = Some(e.to_string())),
        };
    }
    let file = output_file(track);
    let text = match api::run_file(&progress.id, file).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => return set(&|j| j.error = Some(e.to_string())),
    };
    let mut added = ModelResults::default();
    match added.add_run_output(file, &text) {
        Ok(()) => {
            results.update(|r| {
                r.levels.append(&mut added.levels);
                r.comments.append(&mut added.comments);
            });
            set(&|j| j.merged = true);
        }
        Err(e) => set(&|j| j.error = Some(e.clone())),
    }
}

/// The consent dialog (while `scope` is set) and the progress of the runs it started.
#[component]
pub fn AskModel(
    class: Memo<ClassView>,
    models: Models,
    scope: RwSignal<Option<AskScope>>,
    results: RwSignal<ModelResults>,
) -> impl IntoView {
    let jobs = RwSignal::new(Vec::<AskJob>::new());
    let want_levels = RwSignal::new(true);
    let want_comments = RwSignal::new(true);
    let chosen = RwSignal::new(String::new());
    // Each time the dialog opens, it offers both (what is not missing is disabled).
    Effect::new(move |_| {
        if scope.get().is_some() {
            want_levels.set(true);
            want_comments.set(true);
        }
    });
    let model_list = move || match models.get() {
        Some(Ok(list)) => list,
        _ => Vec::new(),
    };
    // The model the dialog names: the chosen one, else the first the server offers.
    let model = move || {
        let list = model_list();
        let pick = chosen.get();
        list.iter().find(|m| m.id == pick).or(list.first()).cloned()
    };
    // Per track, the essays that would be sent (empty when not wanted).
    let plan = move || {
        let Some(sc) = scope.get() else {
            return (Vec::new(), Vec::new());
        };
        class.with(|c| {
            let one = if want_levels.get() {
                lacking(c, &sc, 1)
            } else {
                Vec::new()
            };
            let two = if want_comments.get() {
                lacking(c, &sc, 2)
            } else {
                Vec::new()
            };
            (one, two)
        })
    };
    let counts = move || {
        let sc = scope.get()?;
        Some(class.with(|c| (lacking(c, &sc, 1).len(), lacking(c, &sc, 2).len())))
    };
    let accept = move |_| {
        let Some(m) = model() else {
            return;
        };
        let (one, two) = plan();
        scope.set(None);
        for (track, rows) in [(1u8, one), (2u8, two)] {
            if rows.is_empty() {
                continue;
            }
            let body = EotgcRun::new(
                track,
                rows.iter()
                    .map(ClassRow::essay_record)
                    .collect::<Vec<Value>>(),
                m.id.clone(),
                WORKERS,
            );
            let index = jobs.with_untracked(Vec::len);
            jobs.update(|all| {
                all.push(AskJob {
                    track,
                    progress: None,
                    error: None,
                    merged: false,
                })
            });
            spawn_local(run_track(index, body, jobs, results));
        }
    };

    // What the dialog says: essays sent (each once), their characters, the model, its upstream.
    let summary = move || {
        let (one, two) = plan();
        let mut sent: Vec<&ClassRow> = one.iter().chain(two.iter()).collect();
        sent.sort_by(|a, b| a.id.cmp(&b.id));
        sent.dedup_by(|a, b| a.id == b.id);
        let chars: usize = sent
            .iter()
            .map(|e| {
                e.requirement.chars().count() + e.title.chars().count() + e.content.chars().count()
            })
            .sum();
        let (name, upstream) = model().map(|m| (m.id, m.owned_by)).unwrap_or_default();
        (sent.len(), chars, name, upstream)
    };
    // The dialog opens with Cancel focused (Enter does not send by accident); Escape closes it.
    let cancel_button = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if let Some(button) = cancel_button.get() {
            let _ = button.focus();
        }
    });
    let dialog = move || {
        scope.get()?;
        let l = lang().get();
        let options = model_list()
            .into_iter()
            .map(|o| {
                let selected = o.id == chosen.get_untracked();
                view! { <option value=o.id.clone() selected=selected>{format!("{} ({})", o.id, o.owned_by)}</option> }
            })
            .collect_view();
        let consent = move || {
            let (n, chars, name, upstream) = summary();
            if n == 0 {
                return view! { <p class="hint" data-testid="consent-text">{t(l, "ask.nothing")}</p> }
                    .into_any();
            }
            let text = tf(
                l,
                "ask.where",
                &[
                    ("n", &n.to_string()),
                    ("chars", &chars.to_string()),
                    ("model", &name),
                    ("upstream", &upstream),
                ],
            );
            view! { <p class="consent" data-testid="consent-text">{text}</p> }.into_any()
        };
        let n1 = move || counts().unwrap_or_default().0;
        let n2 = move || counts().unwrap_or_default().1;
        Some(view! {
            <div class="dialog-backdrop" on:keydown=move |ev: web_sys::KeyboardEvent| {
                if ev.key() == "Escape" {
                    scope.set(None);
                }
            }>
                <div class="dialog card" role="dialog" aria-modal="true" aria-labelledby="consent-title" data-testid="consent-dialog"
                    data-essays=move || summary().0.to_string() data-model=move || summary().2>
                    <h3 id="consent-title">{t(l, "ask.title")}</h3>
                    <label>{t(l, "ask.model")}
                        <select aria-label="ask model" on:change=move |ev| chosen.set(event_target_value(&ev))>{options}</select>
                    </label>
                    <label class="choice">
                        <input type="checkbox" aria-label="ask levels" prop:checked=want_levels prop:disabled=move || n1() == 0
                            on:change=move |ev| want_levels.set(event_target_checked(&ev)) />
                        {move || tf(l, "ask.levels", &[("n", &n1().to_string())])}
                    </label>
                    <label class="choice">
                        <input type="checkbox" aria-label="ask comments" prop:checked=want_comments prop:disabled=move || n2() == 0
                            on:change=move |ev| want_comments.set(event_target_checked(&ev)) />
                        {move || tf(l, "ask.comments", &[("n", &n2().to_string())])}
                    </label>
                    {consent}
                    <div class="dialog-buttons">
                        <button class="variant active" data-testid="consent-accept" prop:disabled=move || summary().0 == 0 on:click=accept>
                            {move || tf(l, "ask.send", &[("model", &summary().2)])}
                        </button>
                        <button data-testid="consent-cancel" node_ref=cancel_button on:click=move |_| scope.set(None)>{t(l, "ask.cancel")}</button>
                    </div>
                </div>
            </div>
        })
    };

    let progress = move || {
        let l = lang().get();
        jobs.get()
            .into_iter()
            .map(|job| {
                let what = t(l, if job.track == 1 { "ask.track1" } else { "ask.track2" });
                let (state, done, total, fraction, text) = match &job.progress {
                    Some(p) => {
                        let u = &p.usage.model;
                        let cost = u.cost.map_or_else(|| t(l, "ask.no_price").to_string(), |c| format!("{c:.4}"));
                        let text = tf(
                            l,
                            "ask.progress",
                            &[
                                ("what", what),
                                ("done", &p.done.to_string()),
                                ("total", &p.total.to_string()),
                                ("state", &run_state(l, p.state.as_str())),
                                ("calls", &u.upstream_calls.to_string()),
                                ("hits", &u.cache_hits.to_string()),
                                ("tokens", &(u.prompt_tokens + u.completion_tokens).to_string()),
                                ("cost", &cost),
                            ],
                        );
                        let fraction = if p.total > 0 { p.done as f64 / p.total as f64 } else { 0.0 };
                        (p.state.as_str().to_string(), p.done, p.total, fraction, text)
                    }
                    None => ("starting".into(), 0, 0, 0.0, what.to_string()),
                };
                view! {
                    <div class="model-progress run-progress" data-testid="model-progress" data-track=job.track.to_string()
                        data-state=state data-done=done.to_string() data-total=total.to_string() data-merged=job.merged.to_string()>
                        <progress max="1" value=fraction.to_string()></progress>
                        <span>{text}</span>
                        {job.merged.then(|| view! { <span class="ok">{format!(" · {}", t(l, "ask.done"))}</span> })}
                        {job.error.clone().map(|e| view! { <p class="error" role="alert">{e}</p> })}
                    </div>
                }
            })
            .collect_view()
    };

    view! {
        {dialog}
        <div class="model-runs">{progress}</div>
    }
}
