//! Several teachers on one class (norming): export this teacher's ratings for colleagues, import
//! theirs (their files kept in IndexedDB beside the adjustments), and show how every pair of
//! raters agrees, Krippendorff's α per grade and the essays raters disagree on most. The worker
//! reads the files and computes everything (`workbench::norming::answer`, metrics-core
//! underneath); this component sends what the page holds and draws the tables it gets.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;
use web_sys::HtmlInputElement;
use workbench::class::{ClassView, ModelResults};
use workbench::norming::{ColleagueFile, DOWNLOAD_RATINGS, NormingRequest};

use crate::adjustments::{self, Adjustments};
use crate::components::class_view::save_download;
use crate::components::panel_table::tables_host;
use crate::i18n::{Lang, lang, t};
use crate::worker_client::WorkbenchState;

/// The norming section of the class view of outcome `outcome`.
#[component]
pub fn Norming(
    state: WorkbenchState,
    outcome: usize,
    class: Memo<ClassView>,
    adjustments: RwSignal<Adjustments>,
    results: RwSignal<ModelResults>,
    colleagues: RwSignal<Vec<ColleagueFile>>,
    /// False until the saved adjustments and colleagues are loaded (nothing is asked before).
    loaded: RwSignal<bool>,
    /// The answer to the latest request (the class view's exports read it too), and whether a
    /// newer request is on its way.
    answer: RwSignal<Option<Value>>,
    pending: RwSignal<bool>,
    store_error: RwSignal<Option<String>>,
) -> impl IntoView {
    let key = class.with_untracked(|c| c.sha256.clone());
    let import_error = RwSignal::new(None::<String>);
    let seq = StoredValue::new(0u64);
    // The colleagues' files as last saved.
    let saved = StoredValue::new(None::<Vec<ColleagueFile>>);

    // Ask again whenever what the panel depends on changes.
    Effect::new(move |_| {
        let l = lang().get();
        if !loaded.get() {
            return;
        }
        let request = NormingRequest {
            seq: seq.get_value() + 1,
            adjustments: adjustments.get(),
            results: results.get(),
            colleagues: colleagues.get(),
            me: t(l, "norming.me").into(),
            model: t(l, "norming.model").into(),
            gold: t(l, "class.gold").into(),
            english: l == Lang::En,
        };
        seq.set_value(request.seq);
        pending.set(true);
        state.request_norming(outcome, request);
    });

    // Take the answer to the latest request: refused files out (saying why), a file replaced
    // by a later one of the same name out, what is left saved.
    let key2 = key.clone();
    Effect::new(move |_| {
        let current = state.norming.with(|n| {
            n.as_ref()
                .is_some_and(|(o, a)| *o == outcome && a["seq"].as_u64() == Some(seq.get_value()))
        });
        let Some((_, got)) = current
            .then(|| state.norming.try_update_untracked(Option::take).flatten())
            .flatten()
        else {
            return;
        };
        let files = colleagues.get_untracked();
        // Per file sent: [name, essays rated] when kept, ["", why] when refused, ["", ""] when
        // replaced by a later file of the same name.
        let states: Vec<(String, String)> = got["files"]
            .as_array()
            .map(|all| all.iter().map(|f| (str_of(&f[0]), str_of(&f[1]))).collect())
            .unwrap_or_default();
        let refused: Vec<&str> = states
            .iter()
            .filter(|(name, why)| name.is_empty() && !why.is_empty())
            .map(|(_, why)| why.as_str())
            .collect();
        if !refused.is_empty() {
            import_error.set(Some(refused.join("\n")));
        }
        let keep: Vec<ColleagueFile> = files
            .iter()
            .zip(&states)
            .filter(|(_, (name, _))| !name.is_empty())
            .map(|(f, _)| f.clone())
            .collect();
        if keep.len() != files.len() {
            colleagues.set(keep); // asks again
            return;
        }
        // Nothing is written for a class that never had a colleague.
        let unchanged = saved.with_value(|s| s.as_ref().map_or(keep.is_empty(), |s| *s == keep));
        if !unchanged && !key2.is_empty() {
            saved.set_value(Some(keep.clone()));
            let key = key2.clone();
            spawn_local(async move {
                if let Err(e) = adjustments::save_colleagues(&key, &keep).await {
                    store_error.set(Some(e));
                }
            });
        }
        answer.set(Some(got));
        pending.set(false);
    });
    let export = move |_| save_download(answer, DOWNLOAD_RATINGS, "application/json");
    let on_file = move |ev: web_sys::Event| {
        let input: HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return;
        };
        input.set_value("");
        spawn_local(async move {
            let file_name = file.name();
            if let Some(message) = crate::files::too_big(&file) {
                import_error.set(Some(message));
                return;
            }
            let text = wasm_bindgen_futures::JsFuture::from(file.text()).await;
            let Some(text) = text.ok().and_then(|t| t.as_string()) else {
                import_error.set(Some(format!("{file_name}: cannot read the file")));
                return;
            };
            import_error.set(None);
            colleagues.update(|all| {
                all.push(ColleagueFile {
                    name: String::new(),
                    file: file_name,
                    text,
                })
            });
        });
    };

    // The tables, drawn by panel_table (no view per table shape).
    let host = tables_host(answer, "norming");

    // Each colleague's file kept, with a button that removes it.
    let listed = move || {
        let l = lang().get();
        let files = answer.with(|a| {
            a.as_ref()
                .and_then(|a| a["files"].as_array().cloned())
                .unwrap_or_default()
        });
        files
            .into_iter()
            .map(|f| (str_of(&f[0]), str_of(&f[1])))
            .enumerate()
            .filter(|(_, (name, _))| !name.is_empty())
            .map(|(index, (name, essays))| {
                view! {
                    <li data-colleague=name.clone()>
                        {format!("{name} ({essays}) ")}
                        <button class="link" on:click=move |_| {
                            colleagues.update(|all| {
                                if index < all.len() {
                                    all.remove(index);
                                }
                            });
                        }>{t(l, "norming.remove")}</button>
                    </li>
                }
            })
            .collect_view()
    };

    // One text closure for the section's texts (each reactive text costs the page code).
    let texts = move || {
        let l = lang().get();
        view! {
            <h3>{t(l, "norming.title")}</h3>
            <p class="hint">{t(l, "norming.hint")}</p>
            <div class="exports">
                <button data-export="ratings" on:click=export>{t(l, "norming.export")}</button>
                <label class="file-button">
                    {t(l, "norming.import")}
                    " "
                    <input type="file" accept=".json" data-testid="colleague-file" on:change=on_file />
                </label>
            </div>
        }
    };
    view! {
        <section class="norming" data-testid="norming">
            {texts}
            {move || import_error.get().map(|e| view! { <p class="error" role="alert" data-testid="norming-error">{e}</p> })}
            <ul class="colleagues">{listed}</ul>
            <div class="agreement" node_ref=host></div>
        </section>
    }
}

/// A JSON value's text ("" when it is not text).
pub fn str_of(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}
