//! Per-sample drill-down: filters, a virtualised table and a detail pane with the sample side
//! by side. The rows stay in the worker (a million of them would not fit the page twice): it
//! filters them and sends the window in view, so only the visible rows are ever in the page.

use leptos::prelude::*;

use crate::i18n::{lang, t, tr};
use workbench::drill::Filter;
use workbench::samples::RowsSummary;

use crate::worker_client::WorkbenchState;

const ROW_PX: f64 = 30.0;
const VIEW_PX: f64 = 480.0;
/// Rows asked of the worker at a time: the visible ones and some on either side.
const PAGE_ROWS: usize = 200;

#[component]
pub fn SamplesView(
    state: WorkbenchState,
    outcome: usize,
    summary: Option<RowsSummary>,
    view_filter: RwSignal<Filter>,
) -> impl IntoView {
    let Some(summary) = summary else {
        return view! { <p class="hint" data-testid="samples-loading">{tr("samples.loading")}</p> }
            .into_any();
    };
    let (scroll, set_scroll) = signal(0.0f64);
    let selected = RwSignal::new(None::<usize>);
    let count = (VIEW_PX / ROW_PX).ceil() as usize + 2;
    let first = Memo::new(move |_| (scroll.get() / ROW_PX).floor().max(0.0) as usize);
    // The worker's window of rows for this outcome and the current filter, if it has come.
    let page = Memo::new(move |_| {
        let filter = view_filter.get();
        state.rows.with(|r| {
            r.as_ref()
                .filter(|(o, f, _)| *o == outcome && *f == filter)
                .map(|(_, _, p)| p.clone())
        })
    });
    // Rows that pass the filter: the last count the worker gave (all of them at first).
    let total = Memo::new(move |before: Option<&usize>| {
        page.with(|p| p.as_ref().map(|p| p.total))
            .or(before.copied())
            .unwrap_or(summary.total)
    });
    let asked = StoredValue::new(None::<(Filter, usize)>);
    Effect::new(move |_| {
        let (filter, first) = (view_filter.get(), first.get());
        let shown = page.with(|p| {
            p.as_ref().is_some_and(|p| {
                let end = p.offset + p.rows.len();
                p.offset <= first && (first + count <= end || end >= p.total)
            })
        });
        let offset = first.saturating_sub(PAGE_ROWS / 4);
        if shown || asked.with_value(|a| a.as_ref() == Some(&(filter.clone(), offset))) {
            return;
        }
        asked.set_value(Some((filter.clone(), offset)));
        state.request_rows(outcome, filter, offset, PAGE_ROWS);
    });

    let window_rows = move || {
        let first = first.get();
        page.with(|p| {
            p.as_ref().map(|p| {
                p.rows
                    .iter()
                    .enumerate()
                    .map(|(k, r)| (p.offset + k, r))
                    .filter(|(position, _)| (first..first + count).contains(position))
                    .map(|(position, r)| {
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
        })
    };

    let subset_select = summary
        .subsets
        .into_iter()
        .map(|s| view! { <option value=s.clone()>{s.clone()}</option> })
        .collect_view();
    let error_select = summary
        .error_types
        .into_iter()
        .map(|(e, n)| view! { <option value=e.clone()>{format!("{e} ({n})")}</option> })
        .collect_view();
    let empty_to_none = |v: String| (!v.is_empty()).then_some(v);

    view! {
        <div class="samples">
            <div class="filters">
                <select aria-label="subset" on:change=move |ev| view_filter.update(|f| f.subset = empty_to_none(event_target_value(&ev)))>
                    <option value="">{tr("samples.all_subsets")}</option>
                    {subset_select}
                </select>
                <select aria-label="error type" on:change=move |ev| view_filter.update(|f| f.error_type = empty_to_none(event_target_value(&ev)))>
                    <option value="">{tr("samples.all_errors")}</option>
                    {error_select}
                </select>
                <label>
                    {tr("samples.min")}
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
                    placeholder=tr("samples.search")
                    aria-label="search"
                    prop:value=move || view_filter.get().query
                    on:input=move |ev| view_filter.update(|f| f.query = event_target_value(&ev))
                />
                <span class="count" data-testid="sample-count">{move || format!("{} {}", total.get(), t(lang().get(), "samples.count"))}</span>
            </div>
            <div class="vhead">
                <span class="c-subset">{tr("samples.subset")}</span>
                <span class="c-id">{tr("samples.id")}</span>
                <span class="c-num">{tr("samples.gold")}</span>
                <span class="c-num">{tr("samples.pred")}</span>
                <span class="c-num">"|Δ|"</span>
                <span class="c-errors">{tr("samples.errors")}</span>
            </div>
            <div
                class="vlist"
                style=format!("height:{VIEW_PX}px")
                on:scroll=move |ev| {
                    let el: web_sys::HtmlElement = event_target(&ev);
                    set_scroll.set(el.scroll_top() as f64);
                }
            >
                <div class="vspace" style=move || format!("height:{}px", total.get() as f64 * ROW_PX)>
                    {window_rows}
                </div>
            </div>
            <SampleDetailPane state=state />
        </div>
    }
    .into_any()
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
                            <thead><tr><th>{tr("samples.step")}</th><th>{tr("samples.response")}</th><th>{tr("samples.gold")}</th><th>{tr("samples.pred")}</th><th>{tr("samples.gold_errors")}</th><th>{tr("samples.pred_errors")}</th></tr></thead>
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
