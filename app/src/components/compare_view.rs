//! Model comparison: metrics per model, a paired bootstrap interval per metric difference
//! (computed in the worker, with progress), and the per-sample diff aligned on ids.

use leptos::prelude::*;

use crate::i18n::{lang, t, tf, tr};
use workbench::compare::metrics_table;

use crate::components::table_view::TableView;
use crate::protocol::OutcomeView;
use crate::worker_client::WorkbenchState;

/// Resamples by default (the issue asks for at least 1,000).
const DEFAULT_RESAMPLES: usize = 1000;
const DEFAULT_SEED: u64 = 20_251_122;
/// Rows of the per-sample diff shown (sorted by disagreement, largest first).
const DIFF_ROWS: usize = 200;

/// Outcomes that scored, grouped so that a comparison only pairs the same benchmark.
fn comparable(outcomes: &[OutcomeView]) -> Vec<OutcomeView> {
    let ok: Vec<&OutcomeView> = outcomes.iter().filter(|o| o.result.is_ok()).collect();
    let benchmark = ok
        .iter()
        .find(|o| ok.iter().filter(|p| p.benchmark == o.benchmark).count() >= 2)
        .map(|o| o.benchmark.clone());
    ok.into_iter()
        .filter(|o| Some(&o.benchmark) == benchmark.as_ref())
        .cloned()
        .collect()
}

fn name(o: &OutcomeView) -> String {
    format!(
        "{} · {}",
        o.model,
        o.files
            .iter()
            .find(|f| !f.contains("error_type"))
            .cloned()
            .unwrap_or_default()
    )
}

#[component]
pub fn CompareView(state: WorkbenchState) -> impl IntoView {
    let candidates = Memo::new(move |_| comparable(&state.outcomes.get()));
    let a = RwSignal::new(0usize);
    let b = RwSignal::new(1usize);
    let resamples = RwSignal::new(DEFAULT_RESAMPLES);
    let seed = RwSignal::new(DEFAULT_SEED);
    // The per-sample diff of the chosen pair, from the worker (which holds the samples): asked
    // again when the pair or the scoring changes.
    let asked = StoredValue::new(None::<(u64, usize, usize)>);
    Effect::new(move |_| {
        let scoring = state.scorings.get();
        let list = candidates.get();
        if list.len() < 2 {
            return;
        }
        let (ia, ib) = (a.get().min(list.len() - 1), b.get().min(list.len() - 1));
        let key = (scoring, list[ia].id, list[ib].id);
        if asked.get_value() != Some(key) {
            asked.set_value(Some(key));
            state.request_diff(key.1, key.2, DIFF_ROWS);
        }
    });

    move || {
        let list = candidates.get();
        if list.len() < 2 {
            return view! {
                <p class="hint" data-testid="compare-empty">
                    {tr("compare.none")}
                </p>
            }
            .into_any();
        }
        let options = |selected: RwSignal<usize>| {
            list.iter()
                .enumerate()
                .map(|(i, o)| view! { <option value=i.to_string() selected=move || selected.get() == i>{name(o)}</option> })
                .collect_view()
        };
        let (ia, ib) = (a.get().min(list.len() - 1), b.get().min(list.len() - 1));
        let (oa, ob) = (list[ia].clone(), list[ib].clone());
        let (ra, rb) = match (&oa.result, &ob.result) {
            (Ok(ra), Ok(rb)) => (ra.clone(), rb.clone()),
            _ => return view! { <p class="error">{tr("compare.not_scored")}</p> }.into_any(),
        };
        let (Some(ta), Some(tb)) = (oa.table.clone(), ob.table.clone()) else {
            return view! { <p class="error">{tr("compare.no_table")}</p> }.into_any();
        };
        let table = metrics_table(&[(name(&oa), &ra, &ta), (name(&ob), &rb, &tb)]);
        let (id_a, id_b) = (oa.id, ob.id);
        let diff = move || {
            state.diff.get().filter(|(x, y, _)| (*x, *y) == (id_a, id_b)).map(|(_, _, result)| match result {
                Err(e) => view! { <p class="error">{e}</p> }.into_any(),
                Ok((diff_len, diff)) => {
                    let diff_rows = diff
                        .into_iter()
                        .map(|d| {
                            view! {
                                <tr>
                                    <td>{d.subset}</td>
                                    <td class="mono">{d.id}</td>
                                    <td class="num">{d.gold}</td>
                                    <td class="num">{d.pred_a}</td>
                                    <td class="num">{d.pred_b}</td>
                                    <td class="num">{d.disagreement}</td>
                                </tr>
                            }
                        })
                        .collect_view();
                    view! {
                        <h3>{move || format!("{} ({} {})", t(lang().get(), "compare.diff"), diff_len, t(lang().get(), "compare.diff_hint"))}</h3>
                        <table class="metrics diff">
                            <thead><tr><th>{tr("samples.subset")}</th><th>{tr("samples.id")}</th><th>{tr("samples.gold")}</th><th>"A"</th><th>"B"</th><th>"|A − B|"</th></tr></thead>
                            <tbody>{diff_rows}</tbody>
                        </table>
                    }
                    .into_any()
                }
            })
        };
        let intervals = move || {
            state.compared.get().and_then(|(x, y, result)| {
                (x == id_a && y == id_b).then(|| match result {
                    Err(e) => view! { <p class="error">{e}</p> }.into_any(),
                    Ok(c) => {
                        let rows = c
                            .intervals
                            .iter()
                            .map(|m| {
                                let f = |v: Option<f64>| v.map(|v| format!("{v:.4}")).unwrap_or_else(|| "—".into());
                                let json = |v: Option<f64>| serde_json::to_string(&v).unwrap_or_else(|_| "null".into());
                                view! {
                                    <tr>
                                        <th scope="row">{m.metric.clone()}</th>
                                        <td class="num">{f(m.a)}</td>
                                        <td class="num">{f(m.b)}</td>
                                        <td
                                            class="num metric"
                                            data-metric=m.metric.clone()
                                            data-subset="overall"
                                            data-model="difference"
                                            data-value=json(m.difference)
                                            data-low=json(m.low)
                                            data-high=json(m.high)
                                        >
                                            {f(m.difference)}
                                        </td>
                                        <td class="num interval">{format!("[{}, {}]", f(m.low), f(m.high))}</td>
                                        <td class="num">{m.resamples_defined}</td>
                                    </tr>
                                }
                            })
                            .collect_view();
                        view! {
                            <table class="metrics intervals" data-testid="intervals">
                                <caption>
                                    {move || tf(lang().get(), "compare.caption", &[("resamples", &c.resamples.to_string()), ("seed", &c.seed.to_string()), ("aligned", &c.aligned_records.to_string())])}
                                </caption>
                                <thead><tr><th>{tr("compare.metric")}</th><th>"A"</th><th>"B"</th><th>"A − B"</th><th>{tr("compare.interval")}</th><th>{tr("compare.defined")}</th></tr></thead>
                                <tbody>{rows}</tbody>
                            </table>
                        }
                        .into_any()
                    }
                })
            })
        };
        view! {
            <div class="compare">
                <div class="filters">
                    <label>"A " <select on:change=move |ev| a.set(event_target_value(&ev).parse().unwrap_or(0))>{options(a)}</select></label>
                    <label>"B " <select on:change=move |ev| b.set(event_target_value(&ev).parse().unwrap_or(1))>{options(b)}</select></label>
                    <label>{tr("compare.resamples")} <input type="number" min="1000" step="500" prop:value=move || resamples.get().to_string()
                        on:input=move |ev| resamples.set(event_target_value(&ev).parse().unwrap_or(DEFAULT_RESAMPLES).max(1000)) /></label>
                    <label>{tr("compare.seed")} <input type="number" prop:value=move || seed.get().to_string()
                        on:input=move |ev| seed.set(event_target_value(&ev).parse().unwrap_or(DEFAULT_SEED)) /></label>
                    <button class="variant active" data-testid="run-bootstrap"
                        on:click=move |_| state.compare(id_a, id_b, seed.get_untracked(), resamples.get_untracked())>
                        {tr("compare.run")}
                    </button>
                </div>
                <TableView table=table />
                {intervals}
                {diff}
            </div>
        }
        .into_any()
    }
}
