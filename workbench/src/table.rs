//! The report table as the page and the exports show it: one view model, four exports.
//!
//! ```text
//! default     rows = subsets + overall; columns = scalar metric keys in report order;
//!             display = value with 4 decimals (counts as integers)
//! benchmark   its own layout through the registry (SAS-Bench: the paper's files × metrics,
//!             ×100, 2 decimals)
//! ```
//! Every cell keeps the full-precision unscaled value (`data-value` on the page) and, when the
//! report has `null`, the reason (from the report's warnings where one names the metric).
//! Exports: [`to_csv`], [`to_markdown`], [`to_latex`] (booktabs) from the same [`Table`], and
//! [`to_json`] = [`Report::to_json_pretty`].

use serde::Serialize;

use metrics_core::report::{MetricValue, Metrics, Report};

/// The subset name of the overall row/column.
pub const OVERALL: &str = "overall";

/// One value of the table.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Cell {
    /// `data-subset`: the subset name, or `overall`.
    pub subset: String,
    /// `data-metric`: the metric key.
    pub metric: String,
    /// `data-value`: the report's value at full precision, unscaled; `None` = `null`.
    pub value: Option<f64>,
    /// The text to show (scaled, rounded; `—` when undefined).
    pub display: String,
    /// Why the value is undefined (only when `value` is `None`).
    pub undefined_reason: Option<String>,
}

impl Cell {
    /// `data-value` as JSON text: the number at full precision, or `null`.
    pub fn data_value(&self) -> String {
        match self.value {
            Some(v) => serde_json::to_string(&v).unwrap_or_else(|_| "null".into()),
            None => "null".into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Column {
    pub key: String,
    pub label: String,
    /// Records behind the column (SAS-Bench file columns).
    pub n: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Row {
    pub key: String,
    pub label: String,
    /// Records behind the row (subset rows).
    pub n: Option<usize>,
    pub cells: Vec<Cell>,
}

/// The table view model.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Table {
    pub benchmark: String,
    pub variant: String,
    /// Displayed value = value × `scale` (100 for SAS-Bench, else 1).
    pub scale: f64,
    pub decimals: usize,
    /// The header of the row-label column.
    pub corner: String,
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    /// A caption, e.g. "sasbench (official), values ×100".
    pub caption: String,
}

impl Table {
    /// The cell for `subset` × `metric`.
    pub fn cell(&self, subset: &str, metric: &str) -> Option<&Cell> {
        self.rows
            .iter()
            .flat_map(|r| &r.cells)
            .find(|c| c.subset == subset && c.metric == metric)
    }

    fn has_n(&self) -> bool {
        self.rows.iter().any(|r| r.n.is_some())
    }
}

/// How a benchmark's undefined cells are explained.
#[derive(Debug, Clone, Copy, Default)]
pub struct TableStyle {
    /// The overall value is the mean over subsets (SAS-Bench): an undefined overall cell says a
    /// subset's value is undefined.
    pub overall_is_mean_of_subsets: bool,
    /// The subset an input file's warnings are about (SAS-Bench: the file's subset name).
    pub subset_of_input: Option<fn(&str) -> String>,
    /// Metrics that are counts: shown as integers.
    pub counts: &'static [&'static str],
    /// Decimals of the other values (default 4).
    pub decimals: Option<usize>,
    /// What values are multiplied by when shown (default 1; 100 for percentages).
    pub scale: Option<f64>,
}

pub fn scalar(metrics: &Metrics, key: &str) -> Option<f64> {
    metrics.get(key).and_then(MetricValue::as_scalar)
}

fn display(value: Option<f64>, scale: f64, decimals: usize) -> String {
    match value {
        Some(v) => format!("{:.*}", decimals, v * scale),
        None => "—".into(),
    }
}

/// Why `metric` of `subset` is `null`: the best-matching warning of the report (`style`: its
/// benchmark's).
pub fn undefined_reason(report: &Report, style: &TableStyle, subset: &str, metric: &str) -> String {
    let mentions_metric = |m: &str| {
        m.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == metric)
    };
    let about_subset = |path: &str, message: &str| {
        message.starts_with(&format!("{subset}:"))
            || (subset != OVERALL && style.subset_of_input.is_some_and(|f| f(path) == subset))
    };
    let best = report
        .warnings
        .iter()
        .filter(|w| mentions_metric(&w.message))
        .max_by_key(|w| about_subset(&w.path, &w.message));
    let from_warning = best.filter(|w| subset == OVERALL || about_subset(&w.path, &w.message));
    match (
        from_warning,
        style.overall_is_mean_of_subsets && subset == OVERALL,
    ) {
        (Some(w), false) => w.message.clone(),
        (Some(w), true) => format!(
            "the mean over files is undefined because a file's value is: {}",
            w.message
        ),
        (None, true) => "the mean over files is undefined because a file's value is".into(),
        (None, false) => "undefined (null in the report)".into(),
    }
}

/// A cell of `report`'s table (`style`: its benchmark's): `value` shown × `t.0` with `t.1` decimals.
pub fn cell(
    report: &Report,
    style: &TableStyle,
    subset: &str,
    metric: &str,
    value: Option<f64>,
    t: (f64, usize),
) -> Cell {
    Cell {
        subset: subset.to_string(),
        metric: metric.to_string(),
        value,
        display: display(value, t.0, t.1),
        undefined_reason: value
            .is_none()
            .then(|| undefined_reason(report, style, subset, metric)),
    }
}

/// The scalar metric keys of a report, overall first, in order of appearance.
pub fn scalar_keys(report: &Report) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    let all =
        std::iter::once(&report.overall.metrics).chain(report.subsets.iter().map(|s| &s.metrics));
    for metrics in all {
        for (k, v) in metrics {
            if matches!(v, MetricValue::Scalar(_)) && !keys.contains(k) {
                keys.push(k.clone());
            }
        }
    }
    keys
}

/// The papers' one-row layout: the metric `row.0` (labelled `row.1`) in each subset (a column
/// each, labelled by `subset_label`), then the overall `aggregates` (key, label), with the scale
/// and decimals `t` (ASAP-AES's QWK table, and a spec's with one per-subset metric).
pub fn one_row_table(
    report: &Report,
    style: &TableStyle,
    t: (f64, usize),
    row: (&str, &str),
    subset_label: impl Fn(&str) -> String,
    aggregates: &[(&str, &str)],
    caption: String,
) -> Table {
    let (metric, label) = row;
    let mut columns: Vec<Column> = report
        .subsets
        .iter()
        .map(|s| Column {
            key: s.name.clone(),
            label: subset_label(&s.name),
            n: Some(s.n),
        })
        .collect();
    let mut cells: Vec<_> = report
        .subsets
        .iter()
        .map(|s| {
            cell(
                report,
                style,
                &s.name,
                metric,
                scalar(&s.metrics, metric),
                t,
            )
        })
        .collect();
    for &(key, label) in aggregates {
        columns.push(Column {
            key: key.into(),
            label: label.into(),
            n: Some(report.overall.n),
        });
        let v = scalar(&report.overall.metrics, key);
        cells.push(cell(report, style, OVERALL, key, v, t));
    }
    Table {
        benchmark: report.benchmark.clone(),
        variant: report.variant.clone(),
        scale: t.0,
        decimals: t.1,
        corner: String::new(),
        columns,
        rows: vec![Row {
            key: metric.into(),
            label: label.into(),
            n: None,
            cells,
        }],
        caption,
    }
}

/// The default layout: subsets (then overall) × scalar metrics; counts (`style.counts`) as
/// integers.
pub fn subset_table(report: &Report, style: TableStyle) -> Table {
    let (scale, decimals) = (style.scale.unwrap_or(1.0), style.decimals.unwrap_or(4));
    let keys = scalar_keys(report);
    let columns = keys
        .iter()
        .map(|k| Column {
            key: k.clone(),
            label: k.clone(),
            n: None,
        })
        .collect();
    let row = |name: &str, n: usize, metrics: &Metrics| Row {
        key: name.to_string(),
        label: name.to_string(),
        n: Some(n),
        cells: keys
            .iter()
            .map(|k| {
                let places = if style.counts.contains(&k.as_str()) {
                    0
                } else {
                    decimals
                };
                cell(report, &style, name, k, scalar(metrics, k), (scale, places))
            })
            .collect(),
    };
    let mut rows: Vec<Row> = report
        .subsets
        .iter()
        .map(|s| row(&s.name, s.n, &s.metrics))
        .collect();
    rows.push(row(OVERALL, report.overall.n, &report.overall.metrics));
    Table {
        benchmark: report.benchmark.clone(),
        variant: report.variant.clone(),
        scale,
        decimals,
        corner: "subset".into(),
        columns,
        rows,
        caption: format!("{} ({})", report.benchmark, report.variant),
    }
}

/// A CSV cell a spreadsheet will not run (OWASP "CSV injection"): text starting with `=`, `+`,
/// `-`, `@`, a tab or a carriage return is a formula to Excel and LibreOffice, so it gets a `'`
/// in front; numbers (`-0.25`) stay as they are.
pub fn csv_safe(cell: &str) -> String {
    let formula = cell.starts_with(['=', '+', '-', '@', '\t', '\r']);
    if formula && cell.trim().parse::<f64>().is_err() {
        format!("'{cell}")
    } else {
        cell.to_string()
    }
}

/// CSV: a header row (corner, `n` when shown, column labels), then one line per row. Undefined cells are
/// empty; values are the displayed (scaled, rounded) numbers. Text is [`csv_safe`].
pub fn to_csv(table: &Table) -> String {
    let mut out = csv::Writer::from_writer(Vec::new());
    let has_n = table.has_n();
    let corner = if table.corner.is_empty() {
        "metric"
    } else {
        &table.corner
    };
    let mut header = vec![corner.to_string()];
    if has_n {
        header.push("n".into());
    }
    header.extend(table.columns.iter().map(|c| c.label.clone()));
    // Writing to a Vec cannot fail for IO reasons; a csv error would leave the row out.
    let _ = out.write_record(header.iter().map(|h| csv_safe(h)));
    for row in &table.rows {
        let mut record = vec![csv_safe(&row.label)];
        if has_n {
            record.push(row.n.map(|n| n.to_string()).unwrap_or_default());
        }
        record.extend(row.cells.iter().map(|c| {
            if c.value.is_some() {
                c.display.clone()
            } else {
                String::new()
            }
        }));
        let _ = out.write_record(&record);
    }
    let bytes = out.into_inner().unwrap_or_default();
    String::from_utf8(bytes).unwrap_or_default()
}

/// A Markdown table cell: `|` escaped, HTML inert (`&`, `<`, `>` as entities), line breaks as
/// spaces (a newline would end the row).
fn md_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '|' => out.push_str("\\|"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' | '\r' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

/// A GitHub-flavoured Markdown table (`—` for undefined values).
pub fn to_markdown(table: &Table) -> String {
    let has_n = table.has_n();
    let mut header = vec![md_escape(&table.corner)];
    let mut rule = vec!["---".to_string()];
    if has_n {
        header.push("n".into());
        rule.push("---:".into());
    }
    for c in &table.columns {
        header.push(md_escape(&c.label));
        rule.push("---:".into());
    }
    let mut out = format!("| {} |\n|{}|\n", header.join(" | "), rule.join("|"));
    for row in &table.rows {
        let mut cells = vec![md_escape(&row.label)];
        if has_n {
            cells.push(row.n.map(|n| n.to_string()).unwrap_or_default());
        }
        cells.extend(row.cells.iter().map(|c| md_escape(&c.display)));
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out
}

/// Escape LaTeX's special characters in a label.
pub fn latex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '×' => out.push_str("$\\times$"),
            '—' => out.push_str("--"),
            _ => out.push(c),
        }
    }
    out
}

/// A booktabs `tabular` (`\toprule`, `\midrule`, `\bottomrule`), the paper's layout: for
/// SAS-Bench rows QWK/CCS/ECS, one column per file and Avg., values ×100 with 2 decimals.
/// Undefined values are `--`. Needs `\usepackage{booktabs}`.
pub fn to_latex(table: &Table) -> String {
    let has_n = table.has_n();
    let numeric = table.columns.len() + usize::from(has_n);
    let mut out = format!(
        "% {}\n\\begin{{tabular}}{{l{}}}\n\\toprule\n",
        latex_escape(&table.caption),
        "r".repeat(numeric)
    );
    let mut header = vec![latex_escape(&table.corner)];
    if has_n {
        header.push("$n$".into());
    }
    header.extend(table.columns.iter().map(|c| latex_escape(&c.label)));
    out.push_str(&format!("{} \\\\\n\\midrule\n", header.join(" & ")));
    for row in &table.rows {
        let mut cells = vec![latex_escape(&row.label)];
        if has_n {
            cells.push(row.n.map(|n| n.to_string()).unwrap_or_default());
        }
        cells.extend(row.cells.iter().map(|c| {
            if c.value.is_some() {
                c.display.clone()
            } else {
                "--".into()
            }
        }));
        out.push_str(&format!("{} \\\\\n", cells.join(" & ")));
    }
    out.push_str("\\bottomrule\n\\end{tabular}\n");
    out
}

/// The JSON export: exactly [`Report::to_json_pretty`] (what `scorebench score … --json
/// --samples` prints for the same files; see [`to_json_without_samples`] for `--json`).
pub fn to_json(report: &Report) -> String {
    report.to_json_pretty()
}

/// The report without `samples`, as `scorebench score … --json` prints it.
pub fn to_json_without_samples(report: &Report) -> String {
    let mut report = report.clone();
    report.samples = None;
    report.to_json_pretty()
}

fn values(v: Option<&MetricValue>) -> Vec<Option<u64>> {
    match v {
        None => vec![],
        Some(MetricValue::Scalar(x)) => vec![x.map(f64::to_bits)],
        Some(MetricValue::Vector(xs)) => xs.iter().map(|x| x.map(f64::to_bits)).collect(),
    }
}

/// The `(subset, metric)` cells whose value differs between two reports of the same files
/// (e.g. official vs corrected), bit for bit; `overall` for the overall row. Subsets and
/// metrics present in only one report count as changed.
pub fn changed_cells(a: &Report, b: &Report) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let scopes_a = std::iter::once((OVERALL, &a.overall.metrics))
        .chain(a.subsets.iter().map(|s| (s.name.as_str(), &s.metrics)));
    let mut seen: Vec<(String, String)> = Vec::new();
    let mut compare = |subset: &str, metric: &str| {
        let key = (subset.to_string(), metric.to_string());
        if seen.contains(&key) {
            return;
        }
        if values(a.metric(subset, metric)) != values(b.metric(subset, metric)) {
            out.push(key.clone());
        }
        seen.push(key);
    };
    for (subset, metrics) in scopes_a {
        for metric in metrics.keys() {
            compare(subset, metric);
        }
    }
    let scopes_b = std::iter::once((OVERALL, &b.overall.metrics))
        .chain(b.subsets.iter().map(|s| (s.name.as_str(), &s.metrics)));
    for (subset, metrics) in scopes_b {
        for metric in metrics.keys() {
            compare(subset, metric);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::table;
    use metrics_core::report::{InputFile, Overall, Subset, Warning};

    fn m(pairs: &[(&str, Option<f64>)]) -> Metrics {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), MetricValue::Scalar(*v)))
            .collect()
    }

    #[test]
    fn exports_keep_user_text_inert() {
        let mut r = report("pairs");
        r.subsets[0].name = "=HYPERLINK(\"http://x\")|<img src=x>\nnext".into();
        r.subsets.push(Subset {
            name: "-2+3".into(),
            ..r.subsets[0].clone()
        });
        let t = subset_table(&r, TableStyle::default());
        let csv = to_csv(&t);
        // A formula becomes text; a negative number stays a number.
        assert!(
            csv.contains("\"'=HYPERLINK(\"\"http://x\"\")|<img src=x>\nnext\""),
            "{csv}"
        );
        assert!(csv.contains("'-2+3,"), "{csv}");
        assert!(csv.contains("-1.0000"), "{csv}");
        for cell in ["@SUM(A1)", "+1+1", "\tx", "\rx", "-x"] {
            assert_eq!(csv_safe(cell), format!("'{cell}"));
        }
        for cell in ["-0.25", "1e-3", "plain", "", "a=b"] {
            assert_eq!(csv_safe(cell), cell);
        }
        // Markdown: one line per row, no raw HTML, the pipe escaped.
        let md = to_markdown(&t);
        assert_eq!(md.lines().count(), 2 + t.rows.len(), "{md}");
        assert!(
            md.contains("=HYPERLINK(\"http://x\")\\|&lt;img src=x&gt; next"),
            "{md}"
        );
        assert!(!md.contains("<img"), "{md}");
    }

    fn report(benchmark: &str) -> Report {
        Report {
            benchmark: benchmark.into(),
            variant: "official".into(),
            inputs: vec![InputFile::from_bytes("a", b"")],
            overall: Overall {
                n: 3,
                metrics: m(&[("acc_a", Some(0.5)), ("pearson", None)]),
            },
            subsets: vec![Subset {
                name: "grade 9".into(),
                n: 3,
                metrics: m(&[("acc_a", Some(0.123456)), ("pearson", Some(-1.0))]),
            }],
            samples: None,
            warnings: vec![Warning {
                path: "p.json".into(),
                line: None,
                message: "overall: pearson is undefined: constant".into(),
            }],
        }
    }

    #[test]
    fn subset_table_and_exports() {
        let t = table(&report("eotgc"));
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.rows[1].key, OVERALL);
        assert_eq!(t.cell("grade 9", "acc_a").unwrap().display, "0.1235");
        let undefined = t.cell(OVERALL, "pearson").unwrap();
        assert_eq!(undefined.data_value(), "null");
        assert_eq!(
            undefined.undefined_reason.as_deref(),
            Some("overall: pearson is undefined: constant")
        );
        assert_eq!(
            to_csv(&t),
            "subset,n,acc_a,pearson\ngrade 9,3,0.1235,-1.0000\noverall,3,0.5000,\n"
        );
        assert!(
            to_markdown(&t).starts_with("| subset | n | acc_a | pearson |\n|---|---:|---:|---:|\n")
        );
        let latex = to_latex(&t);
        assert!(latex.contains("\\toprule") && latex.contains("\\bottomrule"));
        assert!(latex.contains("overall & 3 & 0.5000 & -- \\\\"));
    }

    #[test]
    fn changed_cells_compares_bits() {
        let a = report("eotgc");
        let mut b = a.clone();
        assert!(changed_cells(&a, &b).is_empty());
        b.subsets[0]
            .metrics
            .insert("acc_a".into(), MetricValue::Scalar(Some(0.2)));
        b.overall
            .metrics
            .insert("pearson".into(), MetricValue::Scalar(Some(0.0)));
        assert_eq!(
            changed_cells(&a, &b),
            vec![
                (OVERALL.to_string(), "pearson".to_string()),
                ("grade 9".to_string(), "acc_a".to_string())
            ]
        );
    }

    #[test]
    fn latex_escapes_labels() {
        assert_eq!(latex_escape("7_Math & 5%"), "7\\_Math \\& 5\\%");
    }
}
