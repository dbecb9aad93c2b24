//! A metrics-core `Table` view model as an HTML table (used for model comparison).

use leptos::prelude::*;
use workbench::Table;

#[component]
pub fn TableView(table: Table) -> impl IntoView {
    let header = table
        .columns
        .iter()
        .map(|c| view! { <th scope="col">{c.label.clone()}</th> })
        .collect_view();
    let rows = table
        .rows
        .iter()
        .map(|row| {
            let model = row.label.clone();
            let cells = row
                .cells
                .iter()
                .map(|cell| {
                    view! {
                        <td
                            class="metric"
                            class:undefined=cell.value.is_none()
                            data-metric=cell.metric.clone()
                            data-subset=cell.subset.clone()
                            data-model=model.clone()
                            data-value=cell.data_value()
                            title=cell.undefined_reason.clone().unwrap_or_else(|| cell.data_value())
                        >
                            {cell.display.clone()}
                        </td>
                    }
                })
                .collect_view();
            view! { <tr><th scope="row">{row.label.clone()}</th>{cells}</tr> }
        })
        .collect_view();
    view! {
        <table class="metrics">
            <caption>{table.caption.clone()}</caption>
            <thead><tr><th scope="col">{table.corner.clone()}</th>{header}</tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}
