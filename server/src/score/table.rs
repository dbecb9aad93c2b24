//! The human-readable form of a report (without `--json`).
//!
//! Generic layout: one row per subset plus the overall row, one column per scalar metric,
//! values at 4 decimals, `—` for undefined. Benchmarks with a paper layout (SAS-Bench) add
//! their own renderer here.

use metrics_core::{MetricValue, Metrics, Report};

pub fn render(report: &Report) -> String {
    if report.benchmark == "sasbench"
        && let Some(table) = super::sasbench::render_table(report)
    {
        return table;
    }
    let keys: Vec<&String> = report
        .overall
        .metrics
        .iter()
        .chain(report.subsets.iter().flat_map(|s| s.metrics.iter()))
        .filter(|(_, v)| matches!(v, MetricValue::Scalar(_)))
        .map(|(k, _)| k)
        .fold(Vec::new(), |mut acc, k| {
            if !acc.contains(&k) {
                acc.push(k);
            }
            acc
        });
    let mut rows: Vec<(String, usize, &Metrics)> = report
        .subsets
        .iter()
        .map(|s| (s.name.clone(), s.n, &s.metrics))
        .collect();
    rows.push(("overall".into(), report.overall.n, &report.overall.metrics));
    let name_width = rows
        .iter()
        .map(|r| r.0.chars().count())
        .max()
        .unwrap_or(7)
        .max(7);
    let mut out = format!("{} ({})\n", report.benchmark, report.variant);
    out.push_str(&format!("{:<name_width$} {:>8}", "subset", "n"));
    for k in &keys {
        out.push_str(&format!(" {:>14}", k));
    }
    out.push('\n');
    for (name, n, metrics) in rows {
        out.push_str(&format!("{name:<name_width$} {n:>8}"));
        for k in &keys {
            let cell = match metrics.get(*k).and_then(MetricValue::as_scalar) {
                Some(v) => format!("{v:.4}"),
                None => "—".into(),
            };
            out.push_str(&format!(" {cell:>14}"));
        }
        out.push('\n');
    }
    out
}
