//! One metric value on the page, with the `data-*` attributes tests read (specs/report.md).

use leptos::prelude::*;
use metrics_core::MetricValue;

/// Shows a scalar at 4 decimals (`—` when undefined); `data-value` holds full precision JSON.
#[component]
pub fn MetricCell(
    metric: String,
    subset: String,
    value: MetricValue,
    #[prop(optional)] why: Option<String>,
) -> impl IntoView {
    let data_value = serde_json::to_string(&value).unwrap_or_else(|_| "null".into());
    let (text, title) = match value.as_scalar() {
        Some(v) => (format!("{v:.4}"), data_value.clone()),
        None => ("—".to_string(), why.unwrap_or_else(|| "undefined".into())),
    };
    view! {
        <td class="metric" data-metric=metric data-subset=subset data-value=data_value title=title>
            {text}
        </td>
    }
}
