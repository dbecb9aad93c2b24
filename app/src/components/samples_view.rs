//! Per-sample drill-down: filters, a virtualised table (only visible rows are in the DOM, so
//! 100,000 rows stay smooth), and a detail pane with the sample side by side.

use leptos::prelude::*;

use crate::i18n::{lang, t};
use workbench::drill::{Filter, SampleRow, error_types, filter, subsets};

use crate::worker_client::WorkbenchState;

const ROW_PX: f64 = 30.0;
const VIEW_PX: f64 = 480.0;

#[component]
pub fn SamplesView(
    state: WorkbenchState,
    outcome: usize,
    rows: Vec<SampleRow>,
    view_filter: RwSignal<Filter>,
) -> impl IntoView {
    let rows = StoredValue::new(rows);
    let subset_options = rows.with_value(|r| subsets(r));
    let error_options = rows.with_value(|r| error_types(r));
    let visible = Memo::new(move |_| rows.with_value(|r| filter(r, &view_filter.get())));
    let (scroll, set_scroll) = signal(0.0f64);
    let selected = RwSignal::new(None::<usize>);

    let window_rows = move || {
        let indices = visible.get();
        let first = (scroll.get() / ROW_PX).floor().max(0.0) as usize;
        let count = (VIEW_PX / ROW_PX).ceil() as usize + 2;
        rows.with_value(|all| {
            indices
                .iter()
                .enumerate()
                .skip(first)
                .take(count)
                .map(|(position, &i)| {
                    let r = &all[i];
                    let top = position as f64 * ROW_PX;
                    let index = r.index;
                    view! {
                        <div
                            class="vrow"
                            class:selected=move || selected.get() == Some(index)
                            style=format!("top:{top}px")
                            data-sample=index
                            on:click=move |_| {
                                selected.set(Some(index));
                                state.request_detail(outcome, index);
                            }
                        >
                            <span class="c-subset">{r.subset.clone()}</span>
                            <span class="c-id mono">{r.id.clone()}</span>
                            <span class="c-num">{r.gold.clone()}</span>
                            <span class="c-num">{r.pred.clone()}</span>
                            <span class="c-num">{format!("{}", r.disagreement)}</span>
                            <span class="c-errors">{r.error_types.join(", ")}</span>
                        </div>
                    }
                })
                .collect_view()
        })
    };

    let subset_select = subset_options
        .into_iter()
        .map(|s| view! { <option value=s.clone()>{s.clone()}</option> })
        .collect_view();
    let error_select = error_options
        .into_iter()
        .map(|(e, n)| view! { <option value=e.clone()>{format!("{e} ({n})")}</option> })
        .collect_view();
    let empty_to_none = |v: String| (!v.is_empty()).then_some(v);

    view! {
        <div class="samples">
            <div class="filters">
                <select aria-label="subset" on:change=move |ev| view_filter.update(|f| f.subset = empty_to_none(event_target_value(&ev)))>
                    <option value="">{move || t(lang().get(), "samples.all_subsets")}</option>
                    {subset_select}
                </select>
                <select aria-label="error type" on:change=move |ev| view_filter.update(|f| f.error_type = empty_to_none(event_target_value(&ev)))>
                    <option value="">{move || t(lang().get(), "samples.all_errors")}</option>
                    {error_select}
                </select>
                <label>
                    {move || t(lang().get(), "samples.min")}
                    <input
                        type="number"
                        min="0"
                        step="0.5"
                        aria-label="minimum disagreement"
                        prop:value=move || view_filter.get().min_disagreement.map(|v| v.to_string()).unwrap_or_default()
                        on:input=move |ev| view_filter.update(|f| f.min_disagreement = event_target_value(&ev).parse().ok())
                    />
                </label>
                <input
                    type="search"
                    placeholder=move || t(lang().get(), "samples.search")
                    aria-label="search"
                    prop:value=move || view_filter.get().query
                    on:input=move |ev| view_filter.update(|f| f.query = event_target_value(&ev))
                />
                <span class="count" data-testid="sample-count">{move || format!("{} {}", visible.get().len(), t(lang().get(), "samples.count"))}</span>
            </div>
            <div class="vhead">
                <span class="c-subset">{move || t(lang().get(), "samples.subset")}</span>
                <span class="c-id">{move || t(lang().get(), "samples.id")}</span>
                <span class="c-num">{move || t(lang().get(), "samples.gold")}</span>
                <span class="c-num">{move || t(lang().get(), "samples.pred")}</span>
                <span class="c-num">"|Δ|"</span>
                <span class="c-errors">{move || t(lang().get(), "samples.errors")}</span>
            </div>
            <div
                class="vlist"
                style=format!("height:{VIEW_PX}px")
                on:scroll=move |ev| {
                    let el: web_sys::HtmlElement = event_target(&ev);
                    set_scroll.set(el.scroll_top() as f64);
                }
            >
                <div class="vspace" style=move || format!("height:{}px", visible.get().len() as f64 * ROW_PX)>
                    {window_rows}
                </div>
            </div>
            <SampleDetailPane state=state />
        </div>
    }
}

#[component]
fn SampleDetailPane(state: WorkbenchState) -> impl IntoView {
    move || {
        state.detail.get().map(|(_, _, detail)| match detail {
            Err(e) => view! { <p class="error">{e}</p> }.into_any(),
            Ok(d) => {
                let fields = d
                    .fields
                    .iter()
                    .map(|(k, v)| view! { <div class="field"><h4>{k.clone()}</h4><pre>{v.clone()}</pre></div> })
                    .collect_view();
                let steps = (!d.steps.is_empty()).then(|| {
                    let rows = d
                        .steps
                        .iter()
                        .map(|s| {
                            view! {
                                <tr class:differs=s.gold_score != s.pred_score>
                                    <td class="num">{s.step + 1}</td>
                                    <td class="step-text">{s.response.clone()}</td>
                                    <td class="num">{s.gold_score.clone()}</td>
                                    <td class="num">{s.pred_score.clone()}</td>
                                    <td>{s.gold_errors.join(", ")}</td>
                                    <td>{s.pred_errors.join(", ")}</td>
                                </tr>
                            }
                        })
                        .collect_view();
                    view! {
                        <table class="steps">
                            <thead><tr><th>{move || t(lang().get(), "samples.step")}</th><th>{move || t(lang().get(), "samples.response")}</th><th>{move || t(lang().get(), "samples.gold")}</th><th>{move || t(lang().get(), "samples.pred")}</th><th>{move || t(lang().get(), "samples.gold_errors")}</th><th>{move || t(lang().get(), "samples.pred_errors")}</th></tr></thead>
                            <tbody>{rows}</tbody>
                        </table>
                    }
                });
                view! {
                    <aside class="detail" data-testid="sample-detail">
                        <h3>{format!("{} · {}", d.row.subset, d.row.id)}</h3>
                        <p class="scores">{format!("gold {} · predicted {}", d.row.gold, d.row.pred)}</p>
                        {fields}
                        {steps}
                    </aside>
                }
                .into_any()
            }
        })
    }
}
