//! Importing an existing results table (CSV, or a GitHub Markdown table such as EOTGC's
//! Results.md) as `reported` entries: shown marked "reported, not verified", never verified.
//!
//! ```text
//! model column   the first header named model / name / system / team / method / submission
//!                (also "System Name", "Team Name", "Model Name")
//! metric columns headers equal to a metric of the board's benchmark (its headline metrics and
//!                the ones some of its reports add), or to another name the benchmark gives
//!                one (EOTGC's Results.md: Track1 → score), ignoring case, spaces, `-` and `_`
//!                (ACC_A, Acc-A, acc a → acc_a)
//! derived        metrics the benchmark computes from the others when the table lacks them
//!                (EOTGC: total = 0.4·score + 0.6·track2); a number the table gives is kept
//! skipped        rank / # / no. columns
//! other columns  metadata (organisation, parameters, link, …)
//! values         numbers as written (a trailing % and `**bold**` are stripped), divided by
//!                `scale` (100 for a table of percentages); an empty or `-` cell is null
//! ```

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde::Deserialize;

/// One imported row.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportedRow {
    pub model: String,
    pub metrics: IndexMap<String, Option<f64>>,
    pub meta: BTreeMap<String, String>,
}

/// `POST /api/v1/leaderboards/{slug}/import` body.
#[derive(Debug, Deserialize)]
pub struct ImportRequest {
    /// `csv` or `markdown`.
    pub format: String,
    pub text: String,
    /// Stored value = written value / scale (default 1).
    #[serde(default)]
    pub scale: Option<f64>,
}

fn normalise(header: &str) -> String {
    header
        .trim()
        .trim_matches('*')
        .to_ascii_lowercase()
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_'))
        .collect()
}

fn clean_cell(cell: &str) -> String {
    cell.trim().trim_matches('*').trim().to_string()
}

/// Table text → header + rows of cells.
fn cells(format: &str, text: &str) -> Result<Vec<Vec<String>>, String> {
    match format {
        "csv" => {
            let mut reader = csv::ReaderBuilder::new()
                .has_headers(false)
                .flexible(true)
                .from_reader(text.trim_start_matches('\u{feff}').as_bytes());
            reader
                .records()
                .enumerate()
                .map(|(i, r)| {
                    r.map(|r| r.iter().map(clean_cell).collect())
                        .map_err(|e| format!("line {}: {e}", i + 1))
                })
                .collect()
        }
        "markdown" | "md" => Ok(text
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with('|'))
            .filter(|l| !l.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t')))
            .map(|l| {
                let inner = l.trim_matches('|');
                // `\|` inside a cell is a literal bar.
                inner
                    .replace("\\|", "\u{0}")
                    .split('|')
                    .map(|c| clean_cell(&c.replace('\u{0}', "|")))
                    .collect()
            })
            .collect()),
        other => Err(format!("format `{other}`: expected csv or markdown")),
    }
}

fn number(cell: &str, scale: f64) -> Result<Option<f64>, String> {
    let t = cell.trim().trim_end_matches('%').trim();
    if t.is_empty() || t == "-" || t == "—" || t.eq_ignore_ascii_case("null") {
        return Ok(None);
    }
    t.parse::<f64>()
        .map(|v| Some(v / scale))
        .map_err(|_| format!("`{cell}` is not a number"))
}

/// Parse a table against the benchmark's `metrics`; errors name the line (1-based, counting
/// table rows, header = 1).
pub fn parse(
    request: &ImportRequest,
    bench: &dyn workbench::Benchmark,
    source: &str,
) -> Result<Vec<ReportedRow>, String> {
    let metrics = [bench.metrics(), bench.more_metrics()].concat();
    let scale = request.scale.unwrap_or(1.0);
    if !(scale.is_finite() && scale > 0.0) {
        return Err(format!("scale {scale}: expected a positive number"));
    }
    let table = cells(&request.format, &request.text).map_err(|e| format!("{source}: {e}"))?;
    let Some((header, rows)) = table.split_first() else {
        return Err(format!("{source}: no table"));
    };
    let names: Vec<String> = header.iter().map(|h| normalise(h)).collect();
    let model_col = names
        .iter()
        .position(|h| {
            matches!(
                h.as_str(),
                "model"
                    | "name"
                    | "system"
                    | "team"
                    | "method"
                    | "submission"
                    | "modelname"
                    | "systemname"
                    | "teamname"
            )
        })
        .ok_or_else(|| {
            format!("{source}: line 1: no model column (model, name, system, team or method)")
        })?;
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
    if !names.iter().any(|h| metric_of(h).is_some()) {
        return Err(format!(
            "{source}: line 1: no column names a metric of this benchmark ({})",
            metrics.join(", ")
        ));
    }
    rows.iter()
        .enumerate()
        .map(|(i, row)| {
            let line = i + 2;
            let at = |e: String| format!("{source}: line {line}: {e}");
            let model = row.get(model_col).cloned().unwrap_or_default();
            if model.is_empty() {
                return Err(at("empty model name".into()));
            }
            let mut out = ReportedRow {
                model,
                metrics: IndexMap::new(),
                meta: BTreeMap::new(),
            };
            for (c, h) in names.iter().enumerate() {
                let cell = row.get(c).map(String::as_str).unwrap_or("");
                if c == model_col || matches!(h.as_str(), "rank" | "#" | "no." | "no" | "") {
                    continue;
                }
                match metric_of(h) {
                    Some(m) => {
                        out.metrics.insert(m, number(cell, scale).map_err(at)?);
                    }
                    None if !cell.is_empty() => {
                        let key: String = header[c]
                            .trim()
                            .to_ascii_lowercase()
                            .chars()
                            .map(|ch| if ch.is_ascii_alphanumeric() { ch } else { '_' })
                            .collect();
                        out.meta.insert(key, cell.to_string());
                    }
                    None => {}
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
        .collect()
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

    #[test]
    fn csv_errors_name_the_line() {
        let req = ImportRequest {
            format: "csv".into(),
            text: "model,score,org\nm1,0.5,x\nm2,abc,y\n".into(),
            scale: None,
        };
        let e = parse(&req, eotgc(), "t.csv").unwrap_err();
        assert!(e.starts_with("t.csv: line 3:"), "{e}");
        let req = ImportRequest {
            format: "csv".into(),
            text: "who,score\n".into(),
            scale: None,
        };
        assert!(
            parse(&req, eotgc(), "t.csv")
                .unwrap_err()
                .contains("line 1")
        );
    }
}
