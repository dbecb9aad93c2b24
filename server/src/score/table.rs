//! The human-readable form of a report (without `--json`): the page's table view model
//! (`workbench::table`, the same layout as the exports) as aligned plain text.
//! SAS-Bench comes out in the paper's layout (leaderboard column order, ×100, "Avg."); other
//! benchmarks as one row per subset plus `overall`.

use metrics_core::Report;
use workbench::table;

pub fn render(report: &Report) -> String {
    let t = table(report);
    let has_row_n = t.rows.iter().any(|r| r.n.is_some());
    let has_column_n = t.columns.iter().any(|c| c.n.is_some());
    let label_width = t
        .rows
        .iter()
        .map(|r| r.label.chars().count())
        .chain([t.corner.chars().count(), 6])
        .max()
        .unwrap_or(6);
    // Each column as wide as its label, its cells and its record count.
    let widths: Vec<usize> = t
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let cells = t.rows.iter().filter_map(|r| r.cells.get(i));
            cells
                .map(|cell| cell.display.chars().count())
                .chain([
                    c.label.chars().count(),
                    c.n.map_or(0, |n| n.to_string().len()),
                    6,
                ])
                .max()
                .unwrap_or(6)
        })
        .collect();
    // `{:>w$}` pads by chars, so "—" aligns like a digit.
    let mut out = format!("{}\n{:<label_width$}", t.caption, t.corner);
    if has_row_n {
        out.push_str(&format!(" {:>8}", "n"));
    }
    for (c, width) in t.columns.iter().zip(&widths) {
        out.push_str(&format!(" {:>width$}", c.label));
    }
    out.push('\n');
    for row in &t.rows {
        out.push_str(&format!("{:<label_width$}", row.label));
        if has_row_n {
            let n = row.n.map(|n| n.to_string()).unwrap_or_default();
            out.push_str(&format!(" {n:>8}"));
        }
        for (cell, width) in row.cells.iter().zip(&widths) {
            out.push_str(&format!(" {:>width$}", cell.display));
        }
        out.push('\n');
    }
    if has_column_n {
        out.push_str(&format!("{:<label_width$}", "n"));
        for (c, width) in t.columns.iter().zip(&widths) {
            let n = c.n.map(|n| n.to_string()).unwrap_or_default();
            out.push_str(&format!(" {n:>width$}"));
        }
        out.push('\n');
    }
    out
}
