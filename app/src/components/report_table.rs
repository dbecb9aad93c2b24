//! A report's table in the benchmark's layout, every value with its `data-*` attributes
//! (specs/report.md), changed cells highlighted, and exports.

use leptos::prelude::*;
use metrics_core::Report;
use workbench::table::{OVERALL, Table, to_json_without_samples};
use workbench::{to_csv, to_latex, to_markdown};

use crate::download::download_text;
use crate::i18n::{lang, t as text};

/// A header that may wrap after underscores (SAS-Bench file names are long).
fn breakable(label: &str) -> String {
    label.replace('_', "_\u{200b}")
}

/// Warnings listed on the page (a gigabyte file can have one per record; the JSON export has
/// them all).
const WARNINGS_SHOWN: usize = 200;

/// Largest export also put in its button's `data-content` (what the tests read).
const EXPORT_ATTRIBUTE_MAX_BYTES: usize = 1 << 20;

#[component]
pub fn ReportTable(
    report: Report,
    /// The report's table (computed in the worker, in its benchmark's layout).
    table: Table,
    /// Cells (subset, metric) that differ from the official variant's.
    #[prop(optional)]
    changed: Vec<(String, String)>,
    /// Shown on `data-model` when several models are on the page.
    #[prop(optional_no_strip)]
    model: Option<String>,
) -> impl IntoView {
    let t = table;
    let header = t
        .columns
        .iter()
        .map(|c| {
            let title = c.n.map(|n| format!("{n} records")).unwrap_or_default();
            // The overall column (SAS-Bench's Avg.) stays in view while the table scrolls.
            view! { <th scope="col" title=title class:summary=c.key == OVERALL>{breakable(&c.label)}</th> }
        })
        .collect_view();
    let has_n = t.rows.iter().any(|r| r.n.is_some());
    let rows = t
        .rows
        .iter()
        .map(|row| {
            let cells = row
                .cells
                .iter()
                .enumerate()
                .map(|(j, cell)| {
                    let is_changed = changed.iter().any(|(s, m)| *s == cell.subset && *m == cell.metric);
                    let title = match (&cell.value, &cell.undefined_reason) {
                        (Some(v), _) => format!("{v}"),
                        (None, Some(why)) => format!("undefined: {why}"),
                        (None, None) => "undefined".into(),
                    };
                    view! {
                        <td
                            class="metric"
                            class:changed=is_changed
                            class:undefined=cell.value.is_none()
                            class:summary=t.columns.get(j).is_some_and(|c| c.key == OVERALL)
                            data-metric=cell.metric.clone()
                            data-subset=cell.subset.clone()
                            data-value=cell.data_value()
                            data-model=model.clone()
                            title=title
                        >
                            {cell.display.clone()}
                        </td>
                    }
                })
                .collect_view();
            let n = has_n.then(|| view! { <td class="num n">{row.n.map(|n| n.to_string()).unwrap_or_default()}</td> });
            view! {
                <tr data-row=row.key.clone()>
                    <th scope="row">{row.label.clone()}</th>
                    {n}
                    {cells}
                </tr>
            }
        })
        .collect_view();
    let n_header = has_n.then(|| view! { <th scope="col">"n"</th> });
    let stem = format!("{}-{}", report.benchmark, report.variant);
    let hash_pending = report.inputs.iter().any(|i| i.sha256.is_empty());
    let (csv, md, tex, json) = (
        to_csv(&t),
        to_markdown(&t),
        to_latex(&t),
        to_json_without_samples(&report),
    );
    let exports = [
        ("CSV", "csv", "text/csv", csv),
        ("Markdown", "md", "text/markdown", md),
        ("LaTeX", "tex", "application/x-tex", tex),
        ("JSON", "json", "application/json", json),
    ]
    .into_iter()
    .map(|(label, ext, mime, content)| {
        let file_name = format!("{stem}.{ext}");
        // Tests read a small export from the page; a big one is only downloaded.
        let attribute = (content.len() <= EXPORT_ATTRIBUTE_MAX_BYTES).then(|| content.clone());
        let for_click = content;
        // The JSON names its inputs' SHA-256s: it waits for them (the worker hashes dropped
        // files after their numbers; the card is drawn again when they come).
        let pending = ext == "json" && hash_pending;
        view! {
            <button
                class="export"
                data-export=ext
                disabled=pending
                title=pending.then_some("SHA-256 …")
                data-content=attribute
                on:click=move |_| download_text(&file_name, mime, &for_click)
            >
                {label}
            </button>
        }
    })
    .collect_view();
    let warnings = report
        .warnings
        .iter()
        .take(WARNINGS_SHOWN)
        .map(|w| {
            let at = w.line.map(|l| format!(":{l}")).unwrap_or_default();
            view! { <li>{format!("{}{at}: {}", w.path, w.message)}</li> }
        })
        .collect_view();
    let (warned, hidden) = (
        report.warnings.len(),
        report.warnings.len().saturating_sub(WARNINGS_SHOWN),
    );
    view! {
        <div class="report-table">
            <table class="metrics" data-benchmark=report.benchmark.clone() data-variant=report.variant.clone()>
                <caption>{t.caption.clone()}</caption>
                <thead>
                    <tr>
                        <th scope="col">{t.corner.clone()}</th>
                        {n_header}
                        {header}
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
            <div class="exports">{move || text(lang().get(), "export")} {exports}</div>
            {(!report.warnings.is_empty()).then(|| view! {
                <details class="warnings" data-warnings=warned>
                    <summary>{move || format!("{warned} {}", text(lang().get(), "warnings"))}</summary>
                    <ul>{warnings}</ul>
                    {(hidden > 0).then(|| view! {
                        <p class="more">{move || format!("{hidden} {}", text(lang().get(), "warnings.more"))}</p>
                    })}
                </details>
            })}
        </div>
    }
}
