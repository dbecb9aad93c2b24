//! The teacher's class view: the level distribution per grade (and per prompt), the essays
//! weakest first with filters and search (a virtualised list), the essay reader with the
//! teacher's level / comment / reviewed mark (kept in IndexedDB, never uploaded), agreement
//! between teacher and model, exports and a print view. Everything it shows comes from
//! `workbench::class`; this file renders.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;
use workbench::class::{
    Adjustment, ClassFilter, ClassRow, ClassView, GroupCounts, ModelResults, filter_class,
};
use workbench::norming::{ColleagueFile, DOWNLOAD_CSV, DOWNLOAD_TRACK1, DOWNLOAD_TRACK2};
use workbench::table::OVERALL;

use crate::adjustments::{self, Adjustments};
use crate::api;
use crate::components::ask_model::{AskModel, AskScope, can_ask};
use crate::components::norming::{Norming, str_of};
use crate::components::panel_table::tables_host;
use crate::components::share_view::ShareButton;
use crate::download::download_text;
use crate::i18n::{Lang, lang, level_name, level_short, model_name, t, tr};
use crate::worker_client::WorkbenchState;
use crate::xlsx;

const ROW_PX: f64 = 34.0;
const VIEW_PX: f64 = 520.0;
/// Classes up to this size keep every row in the page (a screen reader and find-in-page see
/// them all); bigger ones render only the rows in view.
const ALL_ROWS_UP_TO: usize = 600;

/// The class tab: every scored job that has a class view (usually one).
#[component]
pub fn ClassTab(state: WorkbenchState) -> impl IntoView {
    let chosen = RwSignal::new(0usize);
    move || {
        let l = lang().get();
        state.hashed.track();
        let classes: Vec<(String, usize, ClassView)> = state
            .outcomes
            .get()
            .into_iter()
            .filter_map(|o| {
                let view = o.class.clone()?;
                Some((
                    format!("{} · {}", model_name(l, &o.model), o.title),
                    o.id,
                    view,
                ))
            })
            .collect();
        if classes.is_empty() {
            return view! { <p class="hint" data-testid="class-empty">{t(l, "class.none")}</p> }
                .into_any();
        }
        let pick = chosen.get().min(classes.len() - 1);
        let picker = (classes.len() > 1).then(|| {
            let options = classes
                .iter()
                .enumerate()
                .map(|(i, (name, _, _))| view! { <option value=i.to_string() selected=i == pick>{name.clone()}</option> })
                .collect_view();
            view! { <select aria-label="class" on:change=move |ev| chosen.set(event_target_value(&ev).parse().unwrap_or(0))>{options}</select> }
        });
        let (_, outcome, class) = classes[pick].clone();
        let file = class.file.clone();
        view! {
            <section class="card class-view" data-class=file>
                <div class="class-share"><ShareButton state=state /></div>
                {picker}
                <ClassPanel class=class state=state outcome=outcome />
            </section>
        }
        .into_any()
    }
}

fn badge(view: &ClassView, rank: Option<usize>, l: Lang) -> AnyView {
    match rank.and_then(|k| view.levels.get(k).map(|name| (k, name))) {
        Some((k, name)) => view! {
            <span class=format!("badge l{k}") title=level_name(l, &name.chinese, &name.english)>
                {level_short(l, &name.chinese, &name.english)}
            </span>
        }
        .into_any(),
        None => view! { <span class="badge none">"—"</span> }.into_any(),
    }
}

fn flag_text(l: Lang, flag: Option<&str>) -> &'static str {
    match flag {
        Some("over") => t(l, "class.over"),
        Some("empty") => t(l, "class.empty"),
        _ => "",
    }
}

#[component]
fn ClassPanel(class: ClassView, state: WorkbenchState, outcome: usize) -> impl IntoView {
    let key = class.sha256.clone();
    let base = StoredValue::new(class);
    // Levels and comments the model wrote on request, filled in where the files had none.
    let results = RwSignal::new(ModelResults::default());
    let class = Memo::new(move |_| results.with(|r| base.with_value(|b| b.with_model_results(r))));
    let models = LocalResource::new(api::models);
    let ask = RwSignal::new(None::<AskScope>);
    let xlsx_busy = RwSignal::new(false);
    let adjustments = RwSignal::new(Adjustments::new());
    // What is computed from the adjustments (agreement, the exports, the norming panel) comes
    // from the worker (the Norming component asks); exports wait while a newer answer is due.
    let answer = RwSignal::new(None::<serde_json::Value>);
    let pending = RwSignal::new(true);
    let colleagues = RwSignal::new(Vec::<ColleagueFile>::new());
    let store_error = RwSignal::new(None::<String>);
    // The reader and its controls wait for the saved adjustments: a change made before them would be
    // replaced when they arrive (and the re-render would drop a comment being typed), and a
    // save before them would replace what was saved with the one change. Until the essays
    // file's SHA-256 (the adjustments' key) has come from the worker, nothing is loaded or
    // saved: the class tab mounts this panel again with the key.
    let loaded = RwSignal::new(false);
    if !key.is_empty() {
        let key = key.clone();
        spawn_local(async move {
            let held = adjustments::hold();
            match adjustments::load(&key).await {
                Ok(saved) => adjustments.set(saved),
                Err(e) => store_error.set(Some(e)),
            }
            match adjustments::load_colleagues(&key).await {
                Ok(saved) => colleagues.set(saved),
                Err(e) => store_error.set(Some(e)),
            }
            loaded.set(true);
            drop(held);
            match adjustments::load_model_results(&key).await {
                // Runs that finished while loading come after what was saved.
                Ok(saved) if !saved.is_empty() => results.update(|r| {
                    let mut all = saved;
                    all.levels.append(&mut r.levels);
                    all.comments.append(&mut r.comments);
                    *r = all;
                }),
                Ok(_) => {}
                Err(e) => store_error.set(Some(e)),
            }
        });
    }
    // What the model wrote is kept beside the adjustments, so a reload does not ask again.
    {
        let key = key.clone();
        Effect::new(move |first: Option<()>| {
            let current = results.get();
            if first.is_some() && !current.is_empty() && !key.is_empty() {
                let key = key.clone();
                spawn_local(async move {
                    if let Err(e) = adjustments::save_model_results(&key, &current).await {
                        store_error.set(Some(e));
                    }
                });
            }
        });
    }
    let save = {
        let key = key.clone();
        move || {
            if key.is_empty() {
                return;
            }
            let key = key.clone();
            let current = adjustments.get_untracked();
            spawn_local(async move {
                if let Err(e) = adjustments::save(&key, &current).await {
                    store_error.set(Some(e));
                }
            });
        }
    };
    let save = Callback::new(move |()| save());
    let adjust = move |id: String, change: Box<dyn FnOnce(&mut Adjustment)>| {
        adjustments.update(|all| change(all.entry(id).or_default()));
        save.run(());
    };
    let adjust = StoredValue::new(adjust);
    let filter = RwSignal::new(ClassFilter::default());
    let visible = Memo::new(move |_| {
        let f = filter.get();
        let adj = adjustments.get();
        class.with(|c| filter_class(c, &f, |id| adj.get(id).cloned()))
    });
    let selected = RwSignal::new(None::<usize>);
    // `selected` is an index into the list, which is sorted again when the model's results come
    // in: follow the essay by its id.
    let selected_id = StoredValue::new(None::<String>);
    Effect::new(move |_| {
        let i = selected.get();
        let id = i.and_then(|i| class.with_untracked(|c| c.essays.get(i).map(|e| e.id.clone())));
        selected_id.set_value(id);
    });
    Effect::new(move |_| {
        let at = class.with(|c| {
            let id = selected_id.get_value()?;
            c.essays.iter().position(|e| e.id == id)
        });
        if at.is_some() && at != selected.get_untracked() {
            selected.set(at);
        }
    });
    let (scroll, set_scroll) = signal(0.0f64);
    // The print view is built only when asked for (a class can have thousands of essays).
    let printing = RwSignal::new(false);
    let after_print = Closure::<dyn FnMut()>::new(move || printing.set(false));
    if let Some(w) = web_sys::window() {
        let _ =
            w.add_event_listener_with_callback("afterprint", after_print.as_ref().unchecked_ref());
    }
    let after_print = StoredValue::new_local(after_print);
    on_cleanup(move || {
        after_print.with_value(|f| {
            if let Some(w) = web_sys::window() {
                let _ =
                    w.remove_event_listener_with_callback("afterprint", f.as_ref().unchecked_ref());
            }
        })
    });

    // j / k (or the arrows) move through the list as filtered; not while typing.
    let step = move |delta: isize| {
        let list = visible.get_untracked();
        if list.is_empty() {
            return;
        }
        let at = selected
            .get_untracked()
            .and_then(|s| list.iter().position(|&i| i == s));
        let next = match at {
            Some(p) => (p as isize + delta).clamp(0, list.len() as isize - 1) as usize,
            None => 0,
        };
        selected.set(Some(list[next]));
    };
    let on_key =
        Closure::<dyn FnMut(web_sys::KeyboardEvent)>::new(move |ev: web_sys::KeyboardEvent| {
            let typing = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .is_some_and(|el| {
                    let text_input = el.tag_name() == "INPUT"
                        && !matches!(
                            el.get_attribute("type").as_deref(),
                            Some("checkbox" | "button" | "radio")
                        );
                    text_input
                        || matches!(el.tag_name().as_str(), "TEXTAREA" | "SELECT")
                        || el.closest("[role=dialog]").ok().flatten().is_some()
                });
            if typing || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
                return;
            }
            match ev.key().as_str() {
                "j" | "ArrowDown" => {
                    ev.prevent_default();
                    step(1);
                }
                "k" | "ArrowUp" => {
                    ev.prevent_default();
                    step(-1);
                }
                _ => {}
            }
        });
    if let Some(w) = web_sys::window() {
        let _ = w.add_event_listener_with_callback("keydown", on_key.as_ref().unchecked_ref());
    }
    let on_key = StoredValue::new_local(on_key);
    on_cleanup(move || {
        on_key.with_value(|f| {
            if let Some(w) = web_sys::window() {
                let _ =
                    w.remove_event_listener_with_callback("keydown", f.as_ref().unchecked_ref());
            }
        })
    });

    // On a phone the reader is a screen of its own (style.css). Opening it from the list adds a
    // history entry (at every width: the browser's back then closes the reader rather than
    // leaving the page), so the system's back or the reader's closes it onto the list as it was —
    // the list stays mounted, with its scroll position and filters.
    let history_entry = StoredValue::new(false);
    let open = move |i: usize| {
        if !history_entry.get_value() {
            let pushed = web_sys::window()
                .and_then(|w| w.history().ok())
                .is_some_and(|h| h.push_state_with_url(&"reader".into(), "", None).is_ok());
            history_entry.set_value(pushed);
        }
        selected.set(Some(i));
    };
    // The system's back closes the phone's reader.
    let on_pop = Closure::<dyn FnMut()>::new(move || {
        if history_entry.get_value() {
            history_entry.set_value(false);
            selected.set(None);
        }
    });
    if let Some(w) = web_sys::window() {
        let _ = w.add_event_listener_with_callback("popstate", on_pop.as_ref().unchecked_ref());
    }
    let on_pop = StoredValue::new_local(on_pop);
    on_cleanup(move || {
        on_pop.with_value(|f| {
            if let Some(w) = web_sys::window() {
                let _ =
                    w.remove_event_listener_with_callback("popstate", f.as_ref().unchecked_ref());
            }
        })
    });
    let back = move || {
        let went_back = history_entry.get_value()
            && web_sys::window()
                .and_then(|w| w.history().ok())
                .is_some_and(|h| h.back().is_ok());
        if !went_back {
            selected.set(None);
        }
    };
    let rows = move || {
        let l = lang().get();
        let list = visible.get();
        let adj = adjustments.get();
        let (first, count) = if list.len() <= ALL_ROWS_UP_TO {
            (0, list.len())
        } else {
            let first = (scroll.get() / ROW_PX).floor().max(0.0) as usize;
            (first, (VIEW_PX / ROW_PX).ceil() as usize + 2)
        };
        class.with(|c| {
            list.iter()
                .enumerate()
                .skip(first)
                .take(count)
                .map(|(position, &i)| {
                    let e: &ClassRow = &c.essays[i];
                    let a = adj.get(&e.id).cloned().unwrap_or_default();
                    let teacher = a.level.and_then(|k| c.levels.get(k)).map(|n| n.label.clone());
                    let gold = e.gold_rank.and_then(|k| c.levels.get(k)).map(|n| n.label.clone());
                    let top = position as f64 * ROW_PX;
                    view! {
                        <div
                            class="vrow essay"
                            class:selected=move || selected.get() == Some(i)
                            class:reviewed=a.reviewed
                            style=format!("top:{top}px")
                            data-essay-id=e.id.clone()
                            data-grade=e.grade.clone()
                            data-level=e.level.clone()
                            data-gold-level=gold
                            data-teacher-level=teacher
                            data-comment-chars=e.comment_chars.map(|n| n.to_string())
                            on:click=move |_| open(i)
                        >
                            <span class="c-id mono">{e.id.clone()}</span>
                            <span class="c-grade">{e.grade.clone()}</span>
                            <span class="c-title">{e.title.clone()}</span>
                            <span class="c-level">{badge(c, e.level_rank, l)}</span>
                            <span class="c-level">{e.gold_rank.map(|k| badge(c, Some(k), l))}</span>
                            <span class="c-level">{a.level.map(|k| badge(c, Some(k), l))}</span>
                            <span class="c-chars" class:flag=e.comment_flag.is_some() title=flag_text(l, e.comment_flag.as_deref())>
                                {e.comment_chars.map(|n| n.to_string()).unwrap_or_else(|| "—".into())}
                            </span>
                            <span class="c-check">{a.reviewed.then_some("✓")}</span>
                        </div>
                    }
                })
                .collect_view()
        })
    };

    let filters = move || {
        let l = lang().get();
        class.with(|c| {
            let grades = c
                .distribution
                .iter()
                .filter(|g| g.group != OVERALL)
                .map(|g| view! { <option value=g.group.clone()>{format!("{} {}", t(l, "class.grade"), g.group)}</option> })
                .collect_view();
            let levels = c
                .levels
                .iter()
                .enumerate()
                .map(|(k, n)| view! { <option value=k.to_string()>{level_name(l, &n.chinese, &n.english)}</option> })
                .collect_view();
            let empty_none = |v: String| (!v.is_empty()).then_some(v);
            view! {
                <div class="filters">
                    <select aria-label="grade" on:change=move |ev| filter.update(|f| f.grade = empty_none(event_target_value(&ev)))>
                        <option value="">{t(l, "class.all_grades")}</option>
                        {grades}
                    </select>
                    <select aria-label="level" on:change=move |ev| filter.update(|f| f.level = empty_none(event_target_value(&ev)))>
                        <option value="">{t(l, "class.all_levels")}</option>
                        {levels}
                        <option value="none">{t(l, "class.no_level")}</option>
                    </select>
                    <select aria-label="comment" on:change=move |ev| filter.update(|f| f.comment = empty_none(event_target_value(&ev)))>
                        <option value="">{t(l, "class.all_comments")}</option>
                        <option value="flagged">{t(l, "class.flagged")}</option>
                        <option value="over">{t(l, "class.over")}</option>
                        <option value="empty">{t(l, "class.empty")}</option>
                    </select>
                    <select aria-label="reviewed" on:change=move |ev| filter.update(|f| f.reviewed = empty_none(event_target_value(&ev)))>
                        <option value="">{t(l, "class.all_review")}</option>
                        <option value="yes">{t(l, "class.reviewed")}</option>
                        <option value="no">{t(l, "class.not_reviewed")}</option>
                    </select>
                    <label>
                        <input type="checkbox" aria-label="disagreements" on:change=move |ev| filter.update(|f| f.disagreements = event_target_checked(&ev)) />
                        {t(l, "class.disagree")}
                    </label>
                    <input
                        type="search"
                        placeholder=t(l, "class.search")
                        aria-label="search"
                        on:input=move |ev| filter.update(|f| f.query = event_target_value(&ev))
                    />
                    <span class="count" data-testid="essay-count">{move || format!("{} {}", visible.get().len(), t(lang().get(), "class.shown"))}</span>
                </div>
            }
        })
    };

    let reader = move || {
        let l = lang().get();
        let i = selected.get()?;
        // The reader (with the teacher's controls) opens once the saved adjustments are in.
        if !loaded.get() {
            return None;
        }
        let adj = adjustments.get();
        class.with(|c| {
            let e = c.essays.get(i)?.clone();
            let a = adj.get(&e.id).cloned().unwrap_or_default();
            let paragraphs = e
                .content
                .split('\n')
                .filter(|p| !p.trim().is_empty())
                .map(|p| view! { <p>{p.to_string()}</p> })
                .collect_view();
            let level_options = c
                .levels
                .iter()
                .enumerate()
                .map(|(k, n)| view! { <option value=k.to_string() selected=a.level == Some(k)>{level_name(l, &n.chinese, &n.english)}</option> })
                .collect_view();
            let id = e.id.clone();
            let (id2, id3, id4) = (id.clone(), id.clone(), id.clone());
            let lacks = e.level.is_none() || e.comment.is_none();
            Some(view! {
                <aside class="reader" data-testid="essay-reader" data-essay=e.id.clone()>
                    <div class="nav">
                        <button class="back" data-action="back-to-list" on:click=move |_| back()>{t(l, "class.back")}</button>
                        <button on:click=move |_| step(-1)>{t(l, "class.prev")}</button>
                        <button on:click=move |_| step(1)>{t(l, "class.next")}</button>
                        {move || (lacks && can_ask(models)).then(|| {
                            let id = id4.clone();
                            view! { <button data-action="model-fill-essay" on:click=move |_| ask.set(Some(AskScope::Essay(id.clone())))>{t(lang().get(), "ask.essay")}</button> }
                        })}
                    </div>
                    <h3>{format!("{} · {} {} · {}", e.id, t(l, "class.grade"), e.grade, e.title)}</h3>
                    <h4>{t(l, "class.requirement")}</h4>
                    <p class="requirement">{e.requirement.clone()}</p>
                    <h4>{t(l, "class.essay")}</h4>
                    <div class="essay-text">{paragraphs}</div>
                    <div class="levels">
                        <span>{t(l, "class.model_level")} " " {badge(c, e.level_rank, l)}</span>
                        {e.gold_rank.map(|k| view! { <span>{t(l, "class.gold_level")} " " {badge(c, Some(k), l)}</span> })}
                        <label>
                            {t(l, "class.teacher_level")} " "
                            <select aria-label="teacher level" on:change=move |ev| {
                                let v = event_target_value(&ev).parse::<usize>().ok();
                                adjust.with_value(|f| f(id.clone(), Box::new(move |a| a.level = v)));
                            }>
                                <option value="" selected=a.level.is_none()>{t(l, "class.keep_model")}</option>
                                {level_options}
                            </select>
                        </label>
                    </div>
                    <h4>
                        {t(l, "class.model_comment")}
                        <span class="chars" class:flag=e.comment_flag.is_some()>
                            {e.comment_chars.map(|n| format!(" · {n} {}", t(l, "class.chars"))).unwrap_or_default()}
                            {e.comment_flag.as_deref().map(|f| format!(" · {}", flag_text(l, Some(f))))}
                        </span>
                    </h4>
                    <p class="comment">{e.comment.clone().unwrap_or_else(|| "—".into())}</p>
                    <label class="teacher-comment">
                        {t(l, "class.your_comment")}
                        <textarea
                            aria-label="teacher comment"
                            prop:value=a.comment.clone().unwrap_or_default()
                            on:change=move |ev| {
                                let v = event_target_value(&ev);
                                let v = (!v.trim().is_empty()).then_some(v);
                                adjust.with_value(|f| f(id2.clone(), Box::new(move |a| a.comment = v)));
                            }
                        ></textarea>
                    </label>
                    <label class="reviewed">
                        <input
                            type="checkbox"
                            aria-label="reviewed"
                            prop:checked=a.reviewed
                            on:change=move |ev| {
                                let v = event_target_checked(&ev);
                                adjust.with_value(|f| f(id3.clone(), Box::new(move |a| a.reviewed = v)));
                            }
                        />
                        {t(l, "class.mark_reviewed")}
                    </label>
                </aside>
            })
        })
    };

    // Teacher against model, from the worker's answer (below): drawn by panel_table.
    let agreement_host = tables_host(answer, "agreement");
    let agreement_n = move || {
        answer.with(|a| {
            a.as_ref()
                .and_then(|a| a["agreement_n"].as_u64())
                .unwrap_or(0)
        })
    };
    // Shown once the first answer is in (a test or a tool reading `data-n` waits for it).
    let agreement_panel = move || {
        let l = lang().get();
        let n = agreement_n();
        answer.with(Option::is_some).then(|| {
            view! {
                <div class="agreement" data-testid="agreement" data-n=n.to_string() node_ref=agreement_host></div>
                {(n == 0).then(|| view! { <p class="hint">{t(l, "class.agreement_none")}</p> })}
            }
        })
    };

    // The job's numbers against the gold levels, as its table shows them (from the worker).
    let scores = class.with_untracked(|c| c.scores.clone());
    let gold_scores = (!scores.is_empty()).then(|| {
        let cells = scores
            .into_iter()
            .map(|c| {
                let json = c.data_value();
                view! {
                    <tr><th>{c.metric.clone()}</th><td class="num metric" data-metric=c.metric data-subset="overall" data-value=json>{c.display}</td></tr>
                }
            })
            .collect_view();
        view! {
            <div class="gold-scores" data-testid="class-gold-scores">
                <h3>{tr("class.gold_scores")}</h3>
                <table class="metrics">{cells}</table>
            </div>
        }
    });

    // The exports (a fieldset: one switch for all its buttons) wait for the answer to the
    // latest change.
    let not_ready = move || pending.get() || answer.with(Option::is_none);
    let download = move |k: usize, mime: &str| save_download(answer, k, mime);
    let exports = move || {
        let l = lang().get();
        let key = key.clone();
        let stem = class.with_untracked(|c| c.file.trim_end_matches(".json").to_string());
        view! {
            <fieldset class="exports" prop:disabled=not_ready>
                {move || can_ask(models).then(|| view! {
                    <button class="variant active" data-action="model-fill-class" on:click=move |_| ask.set(Some(AskScope::Class))>{t(lang().get(), "ask.class")}</button>
                })}
                <button data-export="class-csv" on:click=move |_| download(DOWNLOAD_CSV, "text/csv;charset=utf-8")>{t(l, "class.export_csv")}</button>
                <button data-export="class-xlsx" prop:disabled=xlsx_busy on:click=move |_| {
                    let Some(request) = answer.with_untracked(|a| a.as_ref().map(|a| str_of(&a["xlsx"]))) else {
                        return;
                    };
                    let name = format!("{stem}-class.xlsx");
                    xlsx_busy.set(true);
                    xlsx::export(name, request, move |result| {
                        xlsx_busy.set(false);
                        if let Err(e) = result {
                            store_error.set(Some(e));
                        }
                    });
                }>{move || t(lang().get(), if xlsx_busy.get() { "class.export_xlsx_busy" } else { "class.export_xlsx" })}</button>
                <button data-export="track1" on:click=move |_| download(DOWNLOAD_TRACK1, "application/json")>{t(l, "class.export_t1")}</button>
                <button data-export="track2" on:click=move |_| download(DOWNLOAD_TRACK2, "application/json")>{t(l, "class.export_t2")}</button>
                <button data-action="print" on:click=move |_| {
                    printing.set(true);
                    // Print on the next frame: the print view is in the page by then (the
                    // render runs before it), whatever the machine's speed.
                    let print = Closure::once_into_js(|| {
                        if let Some(w) = web_sys::window() {
                            let _ = w.print();
                        }
                    });
                    if let Some(w) = web_sys::window() {
                        let _ = w.request_animation_frame(print.unchecked_ref());
                    }
                }>{t(l, "class.print")}</button>
                <button class="link" on:click=move |_| {
                    let l = lang().get_untracked();
                    let ok = web_sys::window().and_then(|w| w.confirm_with_message(t(l, "class.reset_confirm")).ok()).unwrap_or(false);
                    if ok {
                        adjustments.set(Adjustments::new());
                        save.run(());
                        results.set(ModelResults::default());
                        let key = key.clone();
                        spawn_local(async move {
                            if let Err(e) = adjustments::save_model_results(&key, &ModelResults::default()).await {
                                store_error.set(Some(e));
                            }
                        });
                    }
                }>{t(l, "class.reset")}</button>
            </fieldset>
        }
    };

    view! {
        <div class="class-panel">
            <p class="hint">{tr("class.private")}</p>
            {move || store_error.get().map(|e| view! { <p class="error">{e}</p> })}
            {move || class.with(|c| view! { <Distribution class=c.clone() /> })}
            {gold_scores}
            <h3>{tr("class.agreement")}</h3>
            {agreement_panel}
            {exports}
            <Norming state=state outcome=outcome class=class adjustments=adjustments results=results
                colleagues=colleagues loaded=loaded answer=answer pending=pending store_error=store_error />
            <AskModel class=class models=models scope=ask results=results />
            {filters}
            <div class="class-body">
                <div class="class-list">
                    <div class="vhead essay">
                        <span class="c-id">{tr("class.id")}</span>
                        <span class="c-grade">{tr("class.grade")}</span>
                        <span class="c-title">{tr("class.title")}</span>
                        <span class="c-level">{tr("class.level")}</span>
                        <span class="c-level">{tr("class.gold")}</span>
                        <span class="c-level">{tr("class.teacher")}</span>
                        <span class="c-chars">{tr("class.comment")}</span>
                        <span class="c-check">"✓"</span>
                    </div>
                    <div
                        class="vlist"
                        tabindex="0"
                        style=format!("height:{VIEW_PX}px")
                        on:scroll=move |ev| {
                            let el: web_sys::HtmlElement = event_target(&ev);
                            set_scroll.set(el.scroll_top() as f64);
                        }
                    >
                        <div class="vspace" style=move || format!("height:{}px", visible.get().len() as f64 * ROW_PX)>
                            {rows}
                        </div>
                    </div>
                </div>
                {reader}
            </div>
            {move || printing.get().then(|| view! { <PrintView class=class adjustments=adjustments /> })}
        </div>
    }
}

/// Levels per grade as a table (every cell carries data-grade / data-level / data-count) and as
/// stacked bars; per prompt too when several essays share a title.
#[component]
fn Distribution(class: ClassView) -> impl IntoView {
    let class = StoredValue::new(class);
    move || {
        let l = lang().get();
        class.with_value(|c| {
            let head = c
                .levels
                .iter()
                .map(|n| view! { <th scope="col">{level_name(l, &n.chinese, &n.english)}</th> })
                .collect_view();
            let table = |groups: &[GroupCounts], by_grade: bool| {
                groups
                    .iter()
                    .map(|g| {
                        let label = if g.group == OVERALL {
                            t(l, "class.overall").to_string()
                        } else if by_grade {
                            format!("{} {}", t(l, "class.grade"), g.group)
                        } else {
                            g.group.clone()
                        };
                        let cells = g
                            .counts
                            .iter()
                            .zip(&c.levels)
                            .map(|(n, name)| {
                                let grade = by_grade.then(|| g.group.clone());
                                view! {
                                    <td class="num" data-grade=grade data-level=name.label.clone() data-count=n.to_string()>{n.to_string()}</td>
                                }
                            })
                            .collect_view();
                        let bar = g
                            .percent
                            .iter()
                            .enumerate()
                            .map(|(k, p)| view! { <span class=format!("seg l{k}") style=format!("width:{p:.3}%") title=format!("{p:.1}%")></span> })
                            .collect_view();
                        view! {
                            <tr>
                                <th scope="row">{label}</th>
                                {cells}
                                <td class="num">{g.unlevelled.to_string()}</td>
                                <td class="bar"><div class="stack">{bar}</div></td>
                            </tr>
                        }
                    })
                    .collect_view()
            };
            let grades = table(&c.distribution, true);
            let titles = (!c.by_title.is_empty()).then(|| {
                let rows = table(&c.by_title, false);
                let head = c
                    .levels
                    .iter()
                    .map(|n| view! { <th scope="col">{level_name(l, &n.chinese, &n.english)}</th> })
                    .collect_view();
                view! {
                    <details class="by-title">
                        <summary>{format!("{} ({})", t(l, "class.by_title"), c.by_title.len())}</summary>
                        <table class="distribution" tabindex="0">
                            <thead><tr><th></th>{head}<th>{t(l, "class.no_level")}</th><th></th></tr></thead>
                            <tbody>{rows}</tbody>
                        </table>
                    </details>
                }
            });
            view! {
                <h3>{t(l, "class.distribution")}</h3>
                <table class="distribution" data-testid="class-distribution" tabindex="0">
                    <thead><tr><th></th>{head}<th>{t(l, "class.no_level")}</th><th></th></tr></thead>
                    <tbody>{grades}</tbody>
                </table>
                {titles}
            }
        })
    }
}

/// What `window.print()` prints: a class summary page, then one essay per page with its level
/// and comment as released (the teacher's where set). Hidden on screen.
#[component]
fn PrintView(class: Memo<ClassView>, adjustments: RwSignal<Adjustments>) -> impl IntoView {
    move || {
        let l = lang().get();
        let adj = adjustments.get();
        class.with(|c| {
            let pages = c
                .print_order()
                .into_iter()
                .map(|e| {
                    let a = adj.get(&e.id).cloned().unwrap_or_default();
                    let (rank, comment) = e.adjusted(&a);
                    let comment = comment.unwrap_or_default().to_string();
                    let paragraphs = e
                        .content
                        .split('\n')
                        .filter(|p| !p.trim().is_empty())
                        .map(|p| view! { <p>{p.to_string()}</p> })
                        .collect_view();
                    view! {
                        <article class="print-essay">
                            <h2>{format!("{} · {} {} · {}", e.id, t(l, "class.grade"), e.grade, e.title)}</h2>
                            <p class="requirement">{e.requirement.clone()}</p>
                            <div class="essay-text">{paragraphs}</div>
                            <p>{t(l, "class.level")} ": " {badge(c, rank, l)}</p>
                            <p class="comment">{t(l, "class.comment")} ": " {comment}</p>
                        </article>
                    }
                })
                .collect_view();
            view! {
                <section class="print-only print-class">
                    <article class="print-summary">
                        <h1>{format!("{} · {}", t(l, "class.summary"), c.file)}</h1>
                        <Distribution class=c.clone() />
                    </article>
                    {pages}
                </section>
            }
        })
    }
}

/// Download file `k` of the latest answer's downloads (`DOWNLOAD_*`).
pub fn save_download(answer: RwSignal<Option<serde_json::Value>>, k: usize, mime: &str) {
    let file = answer.with_untracked(|a| {
        let f = &a.as_ref()?["downloads"][k];
        Some((str_of(&f[0]), str_of(&f[1])))
    });
    if let Some((name, text)) = file {
        download_text(&name, mime, &text);
    }
}
