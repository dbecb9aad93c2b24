//! Importing a published results table (CSV, or a Markdown document such as EOTGC's Results.md
//! or the SAS-Bench README, prose and all) as `reported` entries: shown marked "reported, not
//! verified", never verified.
//!
//! ```text
//! table          Markdown: each run of `|` lines is a table; the one whose header has a model
//!                column and a value column is taken (several → `table` says which, 1-based);
//!                CSV: the file is one table
//! columns        in this order, each header (case, spaces, `-`, `_`, `.`, `*` ignored):
//!   map          `COLUMN=TARGET` pairs say it: a metric, `overall` (of `metric`), `meta:KEY`,
//!                `ignore`, `model`, or any other name = a subset (of `metric`)
//!   model        the first named model(s) / name / system / team / method / submission /
//!                participant (also "System Name", "Team Name", "Model Name", "Method Name")
//!   skipped      rank / # / no.
//!   metric       a metric of the board's benchmark (its headline metrics and the ones some of
//!                its reports add), or another name the benchmark gives one (EOTGC's Results.md:
//!                Track1 → score)
//!   overall      with `metric` M: Avg. / Average / Overall / Mean / All → M's overall value
//!   subset       with `metric` M: a column of numbers → M on the subset named by the header
//!   metadata     anything else (organisation, parameters, link, …)
//! derived        metrics the benchmark computes from the others when the table lacks them
//!                (EOTGC: total = 0.4·score + 0.6·track2); a number the table gives is kept
//! values         numbers as written (`**bold**`, `_italic_`, a trailing %, U+2212 minus
//!                read), divided by `scale` (100 for a table of percentages); an empty, `-` or
//!                `—` cell is null
//! ```
//! Errors name the file's line (Markdown: the document's own line numbers).

use std::collections::BTreeMap;

use indexmap::IndexMap;
use workbench::wire::{ImportColumn, ImportPreview, ImportTable, ImportedRow};

/// One imported row.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportedRow {
    pub model: String,
    pub metrics: IndexMap<String, Option<f64>>,
    /// The values of the request's `metric` per subset (empty without one).
    pub subsets: IndexMap<String, Option<f64>>,
    /// That metric.
    pub subsets_metric: Option<String>,
    pub meta: BTreeMap<String, String>,
}

/// `POST /api/v1/leaderboards/{slug}/import` body.
pub use workbench::wire::ImportRequest;

fn normalise(header: &str) -> String {
    header
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_' | '.' | '*'))
        .collect()
}

/// A cell without its Markdown emphasis (`**b**`, `*i*`, `__b__`, `_i_`) and outer spaces.
fn clean_cell(cell: &str) -> String {
    let mut t = cell.trim();
    loop {
        let inner = t
            .strip_prefix("**")
            .and_then(|x| x.strip_suffix("**"))
            .or_else(|| t.strip_prefix("__").and_then(|x| x.strip_suffix("__")))
            .or_else(|| t.strip_prefix('*').and_then(|x| x.strip_suffix('*')))
            .or_else(|| t.strip_prefix('_').and_then(|x| x.strip_suffix('_')));
        match inner {
            Some(x) if !x.is_empty() => t = x.trim(),
            _ => return t.to_string(),
        }
    }
}

/// A table of a document: its first line's number and its rows of cells (header first).
struct Table {
    line: usize,
    /// The last non-empty line before it (Markdown), lowercased: "- ccs", "### leaderboard".
    caption: String,
    /// (line number, cells)
    rows: Vec<(usize, Vec<String>)>,
}

/// Table text → its tables.
fn tables(format: &str, text: &str) -> Result<Vec<Table>, String> {
    match format {
        "csv" => {
            let mut reader = csv::ReaderBuilder::new()
                .has_headers(false)
                .flexible(true)
                .from_reader(text.trim_start_matches('\u{feff}').as_bytes());
            let rows = reader
                .records()
                .enumerate()
                .map(|(i, r)| {
                    r.map(|r| (i + 1, r.iter().map(clean_cell).collect()))
                        .map_err(|e| format!("line {}: {e}", i + 1))
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(vec![Table {
                line: 1,
                caption: String::new(),
                rows,
            }])
        }
        "markdown" | "md" => {
            let mut out: Vec<Table> = Vec::new();
            let mut open = false;
            let mut caption = "";
            let mut fenced = false;
            for (i, line) in text.lines().enumerate() {
                let l = line.trim();
                // A fenced code block's `|` lines (a directory tree) are not a table.
                if l.starts_with("```") || l.starts_with("~~~") {
                    fenced = !fenced;
                    open = false;
                    continue;
                }
                if fenced {
                    continue;
                }
                if !l.starts_with('|') {
                    open = false;
                    if !l.is_empty() {
                        caption = l;
                    }
                    continue;
                }
                if !open {
                    out.push(Table {
                        line: i + 1,
                        caption: caption.to_lowercase(),
                        rows: Vec::new(),
                    });
                    open = true;
                }
                if l.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t')) {
                    continue;
                }
                let inner = l.strip_prefix('|').unwrap_or(l);
                let inner = inner.strip_suffix('|').unwrap_or(inner);
                // `\|` inside a cell is a literal bar.
                let cells = inner
                    .replace("\\|", "\u{0}")
                    .split('|')
                    .map(|c| clean_cell(&c.replace('\u{0}', "|")))
                    .collect();
                if let Some(t) = out.last_mut() {
                    t.rows.push((i + 1, cells));
                }
            }
            Ok(out)
        }
        other => Err(format!("format `{other}`: expected csv or markdown")),
    }
}

fn number(cell: &str, scale: f64) -> Result<Option<f64>, String> {
    let t = clean_cell(cell);
    let t = t.trim_end_matches('%').trim().replace('\u{2212}', "-");
    if t.is_empty() || t == "-" || t == "—" || t == "–" || t.eq_ignore_ascii_case("null") {
        return Ok(None);
    }
    t.parse::<f64>()
        .map(|v| Some(v / scale))
        .map_err(|_| format!("`{cell}` is not a number"))
}

/// What a column holds.
#[derive(Debug, Clone, PartialEq)]
enum Target {
    Model,
    Skip,
    Metric(String),
    /// `metric`'s overall value.
    Overall,
    /// `metric` on this subset.
    Subset(String),
    Meta(String),
}

const MODEL_NAMES: &[&str] = &[
    "model",
    "models",
    "name",
    "system",
    "systems",
    "team",
    "teams",
    "method",
    "methods",
    "submission",
    "participant",
    "modelname",
    "systemname",
    "teamname",
    "methodname",
];
const OVERALL_NAMES: &[&str] = &["avg", "average", "overall", "mean", "all"];

fn meta_key(header: &str) -> String {
    header
        .trim()
        .to_ascii_lowercase()
        .chars()
        .map(|ch| if ch.is_ascii_alphanumeric() { ch } else { '_' })
        .collect()
}

/// The column plan of one table.
struct Plan {
    targets: Vec<Target>,
    model: Option<usize>,
    values: usize,
}

fn plan(
    header: &[String],
    body: &[(usize, Vec<String>)],
    metric_of: &dyn Fn(&str) -> Option<String>,
    maps: &[(String, String)],
    metric: Option<&str>,
) -> Result<Plan, String> {
    let mut targets = Vec::with_capacity(header.len());
    let mut model = None;
    for (c, h) in header.iter().enumerate() {
        let n = normalise(h);
        let mapped = maps.iter().find(|(col, _)| normalise(col) == n);
        let numeric = || {
            body.iter()
                .all(|(_, row)| row.get(c).is_none_or(|cell| number(cell, 1.0).is_ok()))
                && body
                    .iter()
                    .any(|(_, row)| row.get(c).is_some_and(|x| !x.is_empty()))
        };
        let target = match mapped {
            Some((_, t)) => match t.trim() {
                "ignore" => Target::Skip,
                "model" => Target::Model,
                "overall" => Target::Overall,
                t if t.starts_with("meta:") => Target::Meta(meta_key(&t["meta:".len()..])),
                t => match metric_of(&normalise(t)) {
                    Some(m) => Target::Metric(m),
                    None => Target::Subset(t.to_string()),
                },
            },
            None if model.is_none() && MODEL_NAMES.contains(&n.as_str()) => Target::Model,
            None if matches!(n.as_str(), "rank" | "#" | "no" | "") => Target::Skip,
            None => match metric_of(&n) {
                Some(m) => Target::Metric(m),
                None if metric.is_some() && OVERALL_NAMES.contains(&n.as_str()) => Target::Overall,
                None if metric.is_some() && numeric() => Target::Subset(h.trim().to_string()),
                None => Target::Meta(meta_key(h)),
            },
        };
        if matches!(target, Target::Overall | Target::Subset(_)) && metric.is_none() {
            return Err(format!(
                "column `{h}` is mapped to {}: say which metric the table holds (--metric)",
                if target == Target::Overall {
                    "overall"
                } else {
                    "a subset"
                }
            ));
        }
        if target == Target::Model && model.is_none() {
            model = Some(c);
        }
        targets.push(target);
    }
    let values = targets
        .iter()
        .filter(|t| matches!(t, Target::Metric(_) | Target::Overall | Target::Subset(_)))
        .count();
    Ok(Plan {
        targets,
        model,
        values,
    })
}

/// Parse a table against the benchmark's metrics; errors name the source's line.
pub fn parse(
    request: &ImportRequest,
    bench: &dyn workbench::Benchmark,
    source: &str,
) -> Result<Vec<ReportedRow>, String> {
    parse_full(request, bench, source).map(|(_, _, rows)| rows)
}

/// What a column is, for the page's mapping dialog.
fn column(header: &str, target: &Target) -> ImportColumn {
    let (kind, name) = match target {
        Target::Model => ("model", String::new()),
        Target::Skip => ("ignore", String::new()),
        Target::Metric(m) => ("metric", m.clone()),
        Target::Overall => ("overall", String::new()),
        Target::Subset(s) => ("subset", s.clone()),
        Target::Meta(k) => ("meta", k.clone()),
    };
    ImportColumn {
        header: header.to_string(),
        kind: kind.into(),
        name,
    }
}

/// The document's tables, the one chosen with its columns' targets, and the entries an import
/// would make, or why it would fail: what the page shows before importing.
pub fn preview(
    request: &ImportRequest,
    bench: &dyn workbench::Benchmark,
    source: &str,
) -> ImportPreview {
    let found = tables(&request.format, &request.text).unwrap_or_default();
    let tables = found
        .iter()
        .filter(|t| !t.rows.is_empty())
        .enumerate()
        .map(|(i, t)| ImportTable {
            number: i + 1,
            line: t.line,
            caption: t.caption.clone(),
            header: t.rows[0].1.clone(),
            rows: t.rows.len() - 1,
        })
        .collect();
    match parse_full(request, bench, source) {
        Ok((table, columns, rows)) => ImportPreview {
            tables,
            table: Some(table + 1),
            columns,
            rows: rows
                .into_iter()
                .map(|r| ImportedRow {
                    model: r.model,
                    metrics: r.metrics,
                    subsets: r.subsets,
                    subsets_metric: r.subsets_metric,
                    meta: r.meta,
                })
                .collect(),
            error: None,
        },
        Err(e) => ImportPreview {
            tables,
            table: request.table,
            columns: Vec::new(),
            rows: Vec::new(),
            error: Some(e),
        },
    }
}

/// [`parse`], with the chosen table's index and its columns.
fn parse_full(
    request: &ImportRequest,
    bench: &dyn workbench::Benchmark,
    source: &str,
) -> Result<(usize, Vec<ImportColumn>, Vec<ReportedRow>), String> {
    let metrics = [bench.metrics(), bench.more_metrics()].concat();
    let scale = request.scale.unwrap_or(1.0);
    if !(scale.is_finite() && scale > 0.0) {
        return Err(format!("scale {scale}: expected a positive number"));
    }
    let metric_of = |h: &str| {
        metrics
            .iter()
            .find(|m| normalise(m) == h)
            .or_else(|| {
                bench
                    .metric_aliases()
                    .iter()
                    .find(|(alias, _)| normalise(alias) == h)
                    .map(|(_, m)| m)
            })
            .map(|m| (*m).to_string())
    };
    let metric = match request.metric.as_deref() {
        Some(m) => Some(metric_of(&normalise(m)).ok_or_else(|| {
            format!(
                "--metric {m}: not a metric of this benchmark ({})",
                metrics.join(", ")
            )
        })?),
        None => None,
    };
    let maps = request
        .map
        .iter()
        .map(|m| {
            m.split_once('=')
                .map(|(c, t)| (c.trim().to_string(), t.trim().to_string()))
                .filter(|(c, t)| !c.is_empty() && !t.is_empty())
                .ok_or_else(|| format!("--map {m:?}: expected COLUMN=TARGET"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let all = tables(&request.format, &request.text).map_err(|e| format!("{source}: {e}"))?;
    let all: Vec<Table> = all.into_iter().filter(|t| !t.rows.is_empty()).collect();
    if all.is_empty() {
        return Err(format!("{source}: no table"));
    }
    let planned = |t: &Table| {
        let empty = Vec::new();
        let (header, body) = t
            .rows
            .split_first()
            .map_or((&empty, &[][..]), |(h, b)| (&h.1, b));
        plan(header, body, &metric_of, &maps, metric.as_deref())
    };
    let (table, plan) = match request.table {
        Some(n) => {
            let t = all.get(n.wrapping_sub(1)).ok_or_else(|| {
                format!("{source}: table {n}: the file has {} table(s)", all.len())
            })?;
            (
                t,
                planned(t).map_err(|e| format!("{source}: line {}: {e}", t.line))?,
            )
        }
        None => {
            let mut usable = Vec::new();
            let mut first_error = None;
            for t in &all {
                match planned(t) {
                    Ok(p) if p.model.is_some() && p.values > 0 => usable.push((t, p)),
                    Ok(_) => {}
                    Err(e) => {
                        first_error.get_or_insert(format!("{source}: line {}: {e}", t.line));
                    }
                }
            }
            // Several: the one whose caption names the metric ("- CCS" above the CCS table).
            if usable.len() > 1
                && let Some(m) = metric.as_deref()
            {
                let named = |t: &Table| {
                    t.caption
                        .split(|c: char| !c.is_alphanumeric() && c != '_')
                        .any(|w| normalise(w) == normalise(m))
                };
                if usable.iter().filter(|(t, _)| named(t)).count() == 1 {
                    usable.retain(|(t, _)| named(t));
                }
            }
            if usable.len() > 1 {
                let list: Vec<String> = all
                    .iter()
                    .enumerate()
                    .map(|(i, t)| {
                        format!(
                            "table {} (line {}: {})",
                            i + 1,
                            t.line,
                            t.rows[0].1.join(" | ")
                        )
                    })
                    .collect();
                return Err(format!(
                    "{source}: {} tables have a model column and values: choose one (--table \
                     N): {}",
                    usable.len(),
                    list.join("; ")
                ));
            }
            match usable.pop() {
                Some(found) => found,
                None => {
                    if let Some(e) = first_error {
                        return Err(e);
                    }
                    // Say what the nearest table lacks: the first with a model column.
                    let with_model = all
                        .iter()
                        .find(|t| planned(t).is_ok_and(|p| p.model.is_some()));
                    let t = with_model.unwrap_or(&all[0]);
                    let p = planned(t).map_err(|e| format!("{source}: line {}: {e}", t.line))?;
                    (t, p)
                }
            }
        }
    };
    let Some(model_col) = plan.model else {
        return Err(format!(
            "{source}: line {}: no model column (model, name, system, team or method; or \
             --map COLUMN=model)",
            table.line
        ));
    };
    if plan.values == 0 {
        return Err(format!(
            "{source}: line {}: no column names a metric of this benchmark ({}); with --metric \
             M, Avg./Overall columns are M's overall value and other number columns M on a \
             subset",
            table.line,
            metrics.join(", ")
        ));
    }
    let index = all.iter().position(|t| std::ptr::eq(t, table)).unwrap_or(0);
    let columns = table.rows[0]
        .1
        .iter()
        .zip(&plan.targets)
        .map(|(h, t)| column(h, t))
        .collect();
    let rows = table.rows[1..]
        .iter()
        .map(|(line, row)| {
            let at = |e: String| format!("{source}: line {line}: {e}");
            let model = row.get(model_col).cloned().unwrap_or_default();
            if model.is_empty() {
                return Err(at("empty model name".into()));
            }
            let mut out = ReportedRow {
                model,
                metrics: IndexMap::new(),
                subsets: IndexMap::new(),
                subsets_metric: metric.clone(),
                meta: BTreeMap::new(),
            };
            for (c, target) in plan.targets.iter().enumerate() {
                let cell = row.get(c).map(String::as_str).unwrap_or("");
                match target {
                    Target::Model | Target::Skip => {}
                    Target::Metric(m) => {
                        out.metrics
                            .insert(m.clone(), number(cell, scale).map_err(at)?);
                    }
                    Target::Overall => {
                        if let Some(m) = &metric {
                            out.metrics
                                .insert(m.clone(), number(cell, scale).map_err(at)?);
                        }
                    }
                    Target::Subset(name) => {
                        out.subsets
                            .insert(name.clone(), number(cell, scale).map_err(at)?);
                    }
                    Target::Meta(key) if !cell.is_empty() => {
                        out.meta.insert(key.clone(), cell.to_string());
                    }
                    Target::Meta(_) => {}
                }
            }
            let have = |m: &str| out.metrics.get(m).copied().flatten();
            for (metric, value) in bench.derived_metrics(&have) {
                if !out.metrics.contains_key(metric) {
                    out.metrics.insert(metric.to_string(), Some(value));
                }
            }
            Ok(out)
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok((index, columns, rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eotgc() -> &'static dyn workbench::Benchmark {
        workbench::registry::get("eotgc").unwrap()
    }

    #[test]
    fn markdown_table_with_rank_bold_and_percent() {
        let text = "| Rank | Team | ACC_A | Pearson | Score |\n|---|---|---:|---:|---:|\n\
                    | 1 | **A\\|B** | 87.4% | 78.5 | 88.35 |\n| 2 | C | 80 | - | 81 |\n";
        let req = ImportRequest {
            format: "markdown".into(),
            text: text.into(),
            scale: Some(100.0),
            ..ImportRequest::default()
        };
        let rows = parse(&req, eotgc(), "Results.md").unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].model, "A|B");
        assert_eq!(rows[0].metrics["acc_a"], Some(87.4 / 100.0));
        assert_eq!(rows[1].metrics["pearson"], None);
    }

    #[test]
    fn eotgc_results_md_maps_track1_and_derives_a_missing_total() {
        // The organisers' Results.md header, and the same rows without the Total column.
        let with_total = "| Rank | System Name | Track1 | Track2 | Total |\n| ---- | ---- | ---- | ---- | ---- |\n\
                          | 4 | Prompt | 0.7307 | 0.6838 | 0.7025 |\n";
        let req = |text: &str| ImportRequest {
            format: "markdown".into(),
            text: text.into(),
            scale: None,
            ..ImportRequest::default()
        };
        let rows = parse(&req(with_total), eotgc(), "Results.md").unwrap();
        assert_eq!(rows[0].model, "Prompt");
        assert_eq!(rows[0].metrics["score"], Some(0.7307));
        assert_eq!(rows[0].metrics["track2"], Some(0.6838));
        assert_eq!(
            rows[0].metrics["total"],
            Some(0.7025),
            "a reported total is kept"
        );
        let without =
            "| System Name | Track1 | Track2 |\n|---|---|---|\n| Prompt | 0.7307 | 0.6838 |\n";
        let rows = parse(&req(without), eotgc(), "Results.md").unwrap();
        // Python: 0.4*0.7307 + 0.6*0.6838 == 0.7025600000000001
        assert_eq!(rows[0].metrics["total"], Some(0.7025600000000001));
        let track1_only = "| Team | Track1 |\n|---|---|\n| A | 0.5 |\n";
        let rows = parse(&req(track1_only), eotgc(), "Results.md").unwrap();
        assert!(!rows[0].metrics.contains_key("total"));
    }

    /// The SAS-Bench README as published (tests/published/SOURCES.md).
    const SAS_README: &str = include_str!("../../../tests/published/sasbench-Readme.md");

    fn sas() -> &'static dyn workbench::Benchmark {
        workbench::registry::get("sasbench").unwrap()
    }

    fn readme(metric: Option<&str>, map: &[&str], table: Option<usize>) -> ImportRequest {
        ImportRequest {
            format: "markdown".into(),
            text: SAS_README.into(),
            scale: Some(100.0),
            metric: metric.map(String::from),
            map: map.iter().map(|m| m.to_string()).collect(),
            table,
        }
    }

    #[test]
    fn the_metric_picks_its_table_and_reads_italics_bold_and_negatives() {
        let rows = parse(&readme(Some("ECS"), &[], None), sas(), "Readme.md").unwrap();
        assert_eq!(rows.len(), 16);
        let qwq = rows.iter().find(|r| r.model == "QwQ-32B").unwrap();
        assert_eq!(qwq.subsets["Eng. (G.)"], Some(-22.53 / 100.0));
        assert_eq!(qwq.subsets["Geo. (S.)"], Some(70.04 / 100.0), "_70.04_");
        assert_eq!(qwq.metrics["ecs"], Some(45.90 / 100.0));
        let r1 = &rows[0];
        assert_eq!(
            (r1.model.as_str(), r1.metrics["ecs"]),
            ("Deepseek-R1", Some(55.90 / 100.0))
        );
        assert_eq!(r1.subsets.len(), 12);
        assert_eq!(r1.subsets_metric.as_deref(), Some("ecs"));
        assert!(r1.meta.is_empty(), "{:?}", r1.meta);
    }

    #[test]
    fn without_a_metric_or_with_an_unnamed_one_the_message_says_what_to_add() {
        let e = parse(&readme(None, &[], None), sas(), "Readme.md").unwrap_err();
        assert!(
            e.contains("no column names a metric") && e.contains("--metric"),
            "{e}"
        );
        // QWK's numbers are a figure: two tables could hold it; the list names them.
        let e = parse(&readme(Some("qwk"), &[], None), sas(), "Readme.md").unwrap_err();
        assert!(e.contains("2 tables") && e.contains("--table N"), "{e}");
        assert!(e.contains("table 2 (line 243: Models | Phy. (S.)"), "{e}");
        let rows = parse(&readme(Some("qwk"), &[], Some(3)), sas(), "Readme.md").unwrap();
        assert_eq!(
            rows[0].metrics["qwk"],
            Some(55.90 / 100.0),
            "the ECS table, as asked"
        );
        let e = parse(&readme(Some("qwk"), &[], Some(9)), sas(), "Readme.md").unwrap_err();
        assert!(e.contains("table 9: the file has 3 table(s)"), "{e}");
        let e = parse(&readme(Some("bleu"), &[], None), sas(), "Readme.md").unwrap_err();
        assert!(e.contains("--metric bleu: not a metric"), "{e}");
    }

    #[test]
    fn maps_say_what_a_column_is() {
        let rows = parse(
            &readme(
                Some("ccs"),
                &[
                    "Avg.=ignore",
                    "Phy. (M.)=meta:physics_m",
                    "Math (S.)=Mathematics",
                ],
                None,
            ),
            sas(),
            "Readme.md",
        )
        .unwrap();
        let r1 = &rows[0];
        assert!(!r1.metrics.contains_key("ccs"), "Avg. ignored");
        assert_eq!(r1.meta["physics_m"], "95.01");
        assert_eq!(r1.subsets["Mathematics"], Some(57.85 / 100.0));
        assert!(!r1.subsets.contains_key("Math (S.)"));
        assert_eq!(r1.subsets.len(), 11);
        let e = parse(
            &readme(None, &["Avg.=overall"], Some(2)),
            sas(),
            "Readme.md",
        )
        .unwrap_err();
        assert!(e.contains("line 243") && e.contains("--metric"), "{e}");
        let e = parse(&readme(Some("ccs"), &["Avg."], None), sas(), "Readme.md").unwrap_err();
        assert!(e.contains("expected COLUMN=TARGET"), "{e}");
        // A metric target, and a column renamed to the model.
        let rows = parse(
            &readme(
                Some("ccs"),
                &["Avg.=qwk", "Models=ignore", "Chi. (G.)=model"],
                None,
            ),
            sas(),
            "Readme.md",
        )
        .unwrap();
        assert_eq!(rows[0].model, "95.09");
        assert_eq!(rows[0].metrics["qwk"], Some(73.76 / 100.0));
    }

    #[test]
    fn csv_errors_name_the_line() {
        let req = ImportRequest {
            format: "csv".into(),
            text: "model,score,org\nm1,0.5,x\nm2,abc,y\n".into(),
            scale: None,
            ..ImportRequest::default()
        };
        let e = parse(&req, eotgc(), "t.csv").unwrap_err();
        assert!(e.starts_with("t.csv: line 3:"), "{e}");
        let req = ImportRequest {
            format: "csv".into(),
            text: "who,score\n".into(),
            scale: None,
            ..ImportRequest::default()
        };
        assert!(
            parse(&req, eotgc(), "t.csv")
                .unwrap_err()
                .contains("line 1")
        );
    }
}
