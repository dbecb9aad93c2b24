//! The charts of one outcome. The scoring worker sends their data as JSON with the outcome's
//! summary; the chart module (`crate::charts`, its own wasm, started on this thread the first
//! time charts are shown) draws them in the page's language, again when the language changes.

use std::cell::RefCell;

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::charts::{DRAW_FUNCTION, DrawnChart, FAILED_EVENT, READY_EVENT, TEXT_KEYS};
use crate::components::chart_box::ChartBox;
use crate::i18n::{lang, t};
use crate::worker_client::WorkbenchState;

#[component]
pub fn ChartsView(state: WorkbenchState, outcome: usize) -> impl IntoView {
    let drawn = RwSignal::new(None::<Result<Vec<DrawnChart>, String>>);
    // The module loads while the worker is still at the samples.
    let _ = started();
    // This outcome's data only: another outcome's summary does not draw these again.
    let data = Memo::new(move |_| {
        state.charts.with(|all| {
            all.iter()
                .find(|(o, _)| *o == outcome)
                .map(|(_, data)| data.clone())
        })
    });
    Effect::new(move |_| {
        let l = lang().get();
        let Some(data) = data.get() else {
            return;
        };
        if data.is_empty() {
            return drawn.set(Some(Ok(Vec::new())));
        }
        let texts: Vec<(&str, &str)> = TEXT_KEYS.iter().map(|k| (*k, t(l, k))).collect();
        let texts = serde_json::to_string(&texts).unwrap_or_default();
        spawn_local(async move { drawn.set(Some(draw(texts, data).await)) });
    });
    view! {
        <div class="charts">
            {move || drawn.get().map(|charts| match charts {
                Ok(charts) => charts
                    .into_iter()
                    .map(|c| view! { <ChartBox name=c.name title=c.title svg=c.svg /> })
                    .collect_view()
                    .into_any(),
                Err(e) => view! { <p class="error">{e}</p> }.into_any(),
            })}
        </div>
    }
}

thread_local! {
    /// The chart module's start: resolves when it is ready (one start for every view).
    static STARTED: RefCell<Option<js_sys::Promise>> = const { RefCell::new(None) };
}

/// Start the chart module: its wasm-bindgen glue, then the loader that instantiates it; the
/// promise resolves on its ready event and rejects when a script fails to load.
fn start() -> js_sys::Promise {
    js_sys::Promise::new(&mut |resolve, reject| {
        let Some(window) = web_sys::window() else {
            let _ = reject.call1(&JsValue::NULL, &"no window".into());
            return;
        };
        let options = web_sys::AddEventListenerOptions::new();
        options.set_once(true);
        let _ = window.add_event_listener_with_callback_and_add_event_listener_options(
            READY_EVENT,
            &resolve,
            &options,
        );
        let _ = window.add_event_listener_with_callback_and_add_event_listener_options(
            FAILED_EVENT,
            &reject,
            &options,
        );
        let Some(document) = window.document() else {
            return;
        };
        let script = |src: &str| -> Option<web_sys::HtmlScriptElement> {
            let s: web_sys::HtmlScriptElement =
                document.create_element("script").ok()?.dyn_into().ok()?;
            s.set_src(src);
            s.set_onerror(Some(&reject));
            Some(s)
        };
        let (Some(glue), Some(loader), Some(head)) = (
            script("/charts.js"),
            script("/charts-loader.js"),
            document.head(),
        ) else {
            return;
        };
        // The loader calls the glue's `wasm_bindgen`: added once the glue has run.
        let head_for_loader = head.clone();
        let then = Closure::once_into_js(move || {
            let _ = head_for_loader.append_child(&loader);
        });
        glue.set_onload(Some(then.unchecked_ref()));
        let _ = head.append_child(&glue);
    })
}

/// The chart module's start, begun once.
fn started() -> js_sys::Promise {
    STARTED.with_borrow_mut(|s| s.get_or_insert_with(start).clone())
}

/// The charts drawn by the chart module (started if it is not yet).
async fn draw(texts: String, data: String) -> Result<Vec<DrawnChart>, String> {
    let window = web_sys::window().ok_or("no window")?;
    let function = |w: &web_sys::Window| {
        js_sys::Reflect::get(w, &DRAW_FUNCTION.into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
    };
    let draw = match function(&window) {
        Some(f) => f,
        None => {
            if wasm_bindgen_futures::JsFuture::from(started())
                .await
                .is_err()
            {
                STARTED.with_borrow_mut(|s| *s = None);
                return Err("the chart module did not load".into());
            }
            function(&window).ok_or("the chart module did not start")?
        }
    };
    let drawn = draw
        .call2(&JsValue::NULL, &texts.into(), &data.into())
        .map_err(|e| format!("the charts could not be drawn: {e:?}"))?;
    serde_json::from_str(&drawn.as_string().unwrap_or_default())
        .map_err(|e| format!("the chart module's answer: {e}"))
}
