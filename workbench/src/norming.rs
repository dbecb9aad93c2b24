//! Several teachers on one class (norming): each rater's levels of the class's essays — the
//! model, the gold, this teacher, colleagues whose ratings were imported — and how they agree.
//!
//! ```text
//! rater        name + levels by essay id (rank, 0 = best); a teacher's are the reviewed essays
//! pairs        every two raters on the essays both rated: exact, adjacent (±1 level), QWK
//!              (metrics-core: agreement::pair_agreement, qwk over the class's level ranks)
//! alpha        Krippendorff's α, ordinal (metrics-core agreement), per grade then overall:
//!              across the teachers, and across the teachers and the model
//! disputed     essays two or more raters rated, levels apart, widest spread first
//! ratings file {"scorebench": "class-ratings", "class": SHA-256, "file", "rater",
//!               "levels": {id: label}} — what a teacher exports for colleagues; a Track 1
//!              submission [{id, classification}] is read too (named by its file)
//! answer       what the worker sends the class view for the page's adjustments and
//!              colleagues' files (NormingRequest → NormingAnswer): teacher-vs-model agreement
//!              and the norming tables (`table::Table`s), the export files, refused files
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::class::{Adjustment, ClassView};
use crate::table::{Cell, Column, Row, Table};
use metrics_core::agreement::{Level, krippendorff_alpha, pair_agreement};
use metrics_core::qwk::quadratic_weighted_kappa_with_labels;

/// Who a rater is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RaterKind {
    Model,
    Gold,
    /// The teacher using this browser.
    Teacher,
    /// A colleague whose ratings were imported.
    Colleague,
}

/// One rater's levels of the class.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rater {
    pub name: String,
    pub kind: RaterKind,
    /// Level rank (0 = best) by essay id, for the essays this rater rated.
    pub levels: BTreeMap<String, usize>,
}

/// Agreement of two raters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairRow {
    pub a: String,
    pub b: String,
    /// Essays both rated.
    pub n: usize,
    pub exact: Option<f64>,
    pub adjacent: Option<f64>,
    pub qwk: Option<f64>,
}

/// Krippendorff's α (ordinal) of one grade, or `overall`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupAlpha {
    pub group: String,
    /// Essays at least two teachers rated.
    pub essays: usize,
    /// Across the teachers (this one and the colleagues).
    pub teachers: Option<f64>,
    /// Across the teachers and the model.
    pub with_model: Option<f64>,
}

/// An essay raters put at different levels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Disputed {
    pub id: String,
    pub grade: String,
    pub title: String,
    /// Per rater, in [`Norming::raters`] order.
    pub levels: Vec<Option<usize>>,
    /// Ranks between the highest and the lowest level given.
    pub spread: usize,
}

/// What the norming panel shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Norming {
    pub raters: Vec<Rater>,
    pub pairs: Vec<PairRow>,
    /// Per grade (the class's order), then `overall`.
    pub alpha: Vec<GroupAlpha>,
    /// Widest spread first, then most raters, then the class's print order.
    pub disputed: Vec<Disputed>,
}

/// The model's levels and, when the class has them, the gold levels.
pub fn class_raters(view: &ClassView, model: &str, gold: &str) -> Vec<Rater> {
    let of = |pick: fn(&crate::class::ClassRow) -> Option<usize>| -> BTreeMap<String, usize> {
        view.essays
            .iter()
            .filter_map(|e| Some((e.id.clone(), pick(e)?)))
            .collect()
    };
    let mut raters = vec![Rater {
        name: model.into(),
        kind: RaterKind::Model,
        levels: of(|e| e.level_rank),
    }];
    if view.has_gold {
        raters.push(Rater {
            name: gold.into(),
            kind: RaterKind::Gold,
            levels: of(|e| e.gold_rank),
        });
    }
    raters
}

/// This teacher's levels: the essays they reviewed, at their level (the model's where they
/// kept it).
pub fn teacher_rater(
    view: &ClassView,
    name: &str,
    adjustment: impl Fn(&str) -> Option<Adjustment>,
) -> Rater {
    let levels = view
        .essays
        .iter()
        .filter_map(|e| {
            let a = adjustment(&e.id).filter(|a| a.reviewed)?;
            Some((e.id.clone(), a.level.or(e.level_rank)?))
        })
        .collect();
    Rater {
        name: name.into(),
        kind: RaterKind::Teacher,
        levels,
    }
}

/// The ratings file a teacher gives colleagues (module doc).
pub fn ratings_json(view: &ClassView, rater: &Rater) -> String {
    let levels: serde_json::Map<String, Value> = view
        .print_order()
        .into_iter()
        .filter_map(|e| {
            let rank = *rater.levels.get(&e.id)?;
            Some((
                e.id.clone(),
                Value::String(view.levels.get(rank)?.label.clone()),
            ))
        })
        .collect();
    let file = serde_json::json!({
        "scorebench": "class-ratings",
        "class": view.sha256,
        "file": view.file,
        "rater": rater.name,
        "levels": levels,
    });
    serde_json::to_string_pretty(&file).unwrap_or_default()
}

/// A colleague's ratings from their ratings file (or a Track 1 submission), named `name` (when
/// empty: the file's own rater name, else the file's name without `.json`). Every id must be an essay of the class and every level one
/// of its levels; a ratings file made for another class is refused.
pub fn parse_ratings(
    view: &ClassView,
    file_name: &str,
    text: &str,
    name: &str,
) -> Result<Rater, String> {
    let value: Value = serde_json::from_str(text.trim_start_matches('\u{feff}'))
        .map_err(|e| format!("{file_name}: not JSON: {e}"))?;
    let (pairs, own_name): (Vec<(String, String)>, Option<String>) = match &value {
        Value::Object(o)
            if o.get("scorebench").and_then(Value::as_str) == Some("class-ratings") =>
        {
            if let Some(class) = o.get("class").and_then(Value::as_str)
                && !view.sha256.is_empty()
                && class != view.sha256
            {
                return Err(format!(
                    "{file_name}: these ratings are of another class file ({})",
                    o.get("file").and_then(Value::as_str).unwrap_or("?")
                ));
            }
            let levels = o
                .get("levels")
                .and_then(Value::as_object)
                .ok_or_else(|| format!("{file_name}: no \"levels\" object"))?;
            let pairs = levels
                .iter()
                .map(|(id, l)| match l.as_str() {
                    Some(l) => Ok((id.clone(), l.to_string())),
                    None => Err(format!("{file_name}: essay {id}: the level is not text")),
                })
                .collect::<Result<_, _>>()?;
            (
                pairs,
                o.get("rater").and_then(Value::as_str).map(String::from),
            )
        }
        Value::Array(rows) => {
            let pairs = rows
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let id = match r.get("id") {
                        Some(Value::String(s)) => s.clone(),
                        Some(Value::Number(n)) => n.to_string(),
                        _ => return Err(format!("{file_name}: record {}: no \"id\"", i + 1)),
                    };
                    let level =
                        r.get("classification")
                            .and_then(Value::as_str)
                            .ok_or_else(|| {
                                format!("{file_name}: record {}: no \"classification\"", i + 1)
                            })?;
                    Ok((id, level.to_string()))
                })
                .collect::<Result<_, String>>()?;
            (pairs, None)
        }
        _ => {
            return Err(format!(
                "{file_name}: expected a class ratings file or a Track 1 submission [{{\"id\", \"classification\"}}]"
            ));
        }
    };
    let mut levels = BTreeMap::new();
    for (id, label) in pairs {
        if !view.essays.iter().any(|e| e.id == id) {
            return Err(format!("{file_name}: essay {id} is not in this class"));
        }
        let rank = level_rank(view, &label)
            .ok_or_else(|| format!("{file_name}: essay {id}: unknown level {label:?}"))?;
        levels.insert(id, rank);
    }
    let name = if name.trim().is_empty() {
        own_name.unwrap_or_else(|| file_name.trim_end_matches(".json").to_string())
    } else {
        name.trim().to_string()
    };
    Ok(Rater {
        name,
        kind: RaterKind::Colleague,
        levels,
    })
}

/// The rank of a level label as the class spells it, or by its Chinese or English name.
fn level_rank(view: &ClassView, label: &str) -> Option<usize> {
    let label = label.trim();
    view.levels.iter().position(|l| {
        l.label == label || l.chinese == label || l.english.eq_ignore_ascii_case(label)
    })
}

/// How `raters` agree on the class.
pub fn norming(view: &ClassView, raters: &[Rater]) -> Norming {
    let essays = view.print_order();
    let labels: Vec<f64> = (0..view.levels.len()).map(|k| k as f64).collect();
    let column = |r: &Rater, ids: &[&str]| -> Vec<Option<f64>> {
        ids.iter()
            .map(|id| r.levels.get(*id).map(|k| *k as f64))
            .collect()
    };
    let all_ids: Vec<&str> = essays.iter().map(|e| e.id.as_str()).collect();
    let columns: Vec<Vec<Option<f64>>> = raters.iter().map(|r| column(r, &all_ids)).collect();
    let mut pairs = Vec::new();
    for (i, a) in raters.iter().enumerate() {
        for (j, b) in raters.iter().enumerate().skip(i + 1) {
            let (x, y) = (&columns[i], &columns[j]);
            let p = pair_agreement(x, y);
            let (gx, gy): (Vec<f64>, Vec<f64>) = x
                .iter()
                .zip(y)
                .filter_map(|(x, y)| Some(((*x)?, (*y)?)))
                .unzip();
            let qwk = (!gx.is_empty())
                .then(|| quadratic_weighted_kappa_with_labels(&gx, &gy, &labels).ok())
                .flatten();
            pairs.push(PairRow {
                a: a.name.clone(),
                b: b.name.clone(),
                n: p.n,
                exact: p.exact,
                adjacent: p.adjacent,
                qwk,
            });
        }
    }
    let teachers: Vec<&Rater> = raters
        .iter()
        .filter(|r| matches!(r.kind, RaterKind::Teacher | RaterKind::Colleague))
        .collect();
    let with_model: Vec<&Rater> = raters
        .iter()
        .filter(|r| r.kind != RaterKind::Gold)
        .collect();
    let alpha_of = |group: &[&Rater], ids: &[&str]| -> Option<f64> {
        let data: Vec<Vec<Option<f64>>> = group.iter().map(|r| column(r, ids)).collect();
        krippendorff_alpha(&data, Level::Ordinal).ok()
    };
    let rated_twice = |ids: &[&str]| {
        ids.iter()
            .filter(|id| {
                teachers
                    .iter()
                    .filter(|r| r.levels.contains_key(**id))
                    .count()
                    >= 2
            })
            .count()
    };
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for e in &essays {
        match groups.iter_mut().find(|(g, _)| *g == e.grade) {
            Some((_, ids)) => ids.push(&e.id),
            None => groups.push((e.grade.clone(), vec![&e.id])),
        }
    }
    groups.push((crate::table::OVERALL.into(), all_ids.clone()));
    let alpha = groups
        .iter()
        .map(|(group, ids)| GroupAlpha {
            group: group.clone(),
            essays: rated_twice(ids),
            teachers: alpha_of(&teachers, ids),
            with_model: alpha_of(&with_model, ids),
        })
        .collect();
    let mut disputed: Vec<(usize, Disputed)> = essays
        .iter()
        .enumerate()
        .filter_map(|(order, e)| {
            let levels: Vec<Option<usize>> = raters
                .iter()
                .map(|r| r.levels.get(&e.id).copied())
                .collect();
            let given: Vec<usize> = levels.iter().flatten().copied().collect();
            let spread = given.iter().max()? - given.iter().min()?;
            (given.len() >= 2 && spread > 0).then(|| {
                (
                    order,
                    Disputed {
                        id: e.id.clone(),
                        grade: e.grade.clone(),
                        title: e.title.clone(),
                        levels,
                        spread,
                    },
                )
            })
        })
        .collect();
    crate::order::sort_by_key(&mut disputed, |(order, d)| {
        (
            std::cmp::Reverse(d.spread),
            std::cmp::Reverse(d.levels.iter().flatten().count()),
            *order,
        )
    });
    Norming {
        raters: raters.to_vec(),
        pairs,
        alpha,
        disputed: disputed.into_iter().map(|(_, d)| d).collect(),
    }
}

/// The class table ([`crate::class::class_table`]) with one more column per colleague: their
/// level of each essay (`<name>_level`).
pub fn with_colleagues(
    view: &ClassView,
    table: Vec<Vec<String>>,
    colleagues: &[Rater],
) -> Vec<Vec<String>> {
    let columns = colleague_columns(view, &table, colleagues);
    with_columns(table, columns)
}

/// Each colleague's level of the essays of `table` (a class table: header, then a row per
/// essay, the id first), row by row: `<name>_level`, then the level's label or nothing.
pub fn colleague_columns(
    view: &ClassView,
    table: &[Vec<String>],
    colleagues: &[Rater],
) -> Vec<Vec<String>> {
    let Some((_, rows)) = table.split_first() else {
        return Vec::new();
    };
    let header = colleagues.iter().map(|c| format!("{}_level", c.name));
    std::iter::once(header.collect())
        .chain(rows.iter().map(|row| {
            let id = row.first().map_or("", String::as_str);
            colleagues
                .iter()
                .map(|c| {
                    c.levels
                        .get(id)
                        .and_then(|k| view.levels.get(*k))
                        .map(|l| l.label.clone())
                        .unwrap_or_default()
                })
                .collect()
        }))
        .collect()
}

/// `table` with `columns` (row by row, as [`colleague_columns`] makes them) appended.
pub fn with_columns(mut table: Vec<Vec<String>>, columns: Vec<Vec<String>>) -> Vec<Vec<String>> {
    for (row, more) in table.iter_mut().zip(columns) {
        row.extend(more);
    }
    table
}

/// A colleague's ratings file as the page keeps it (IndexedDB, beside the adjustments) and
/// sends it: the name the teacher gave (empty: the file's own), the file's name and text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ColleagueFile {
    pub name: String,
    pub file: String,
    pub text: String,
}

/// What the page asks for the norming panel (the worker answers: the page holds no formula and
/// none of the agreement code).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NormingRequest {
    /// Echoed in the answer; the page keeps only the answer to its latest request.
    pub seq: u64,
    /// This teacher's adjustments by essay id.
    pub adjustments: std::collections::HashMap<String, Adjustment>,
    /// Levels the model wrote on request (the page's class view has them).
    pub results: crate::class::ModelResults,
    pub colleagues: Vec<ColleagueFile>,
    /// The raters' names in the page's language.
    pub me: String,
    pub model: String,
    pub gold: String,
    /// The page is in English: levels are named "English · 中文" in the disputed essays' cells
    /// (as the page's `level_name` does), else by their Chinese name.
    pub english: bool,
}

/// Positions in [`NormingAnswer::downloads`].
pub const DOWNLOAD_CSV: usize = 0;
pub const DOWNLOAD_TRACK1: usize = 1;
pub const DOWNLOAD_TRACK2: usize = 2;
pub const DOWNLOAD_RATINGS: usize = 3;

/// What the class view shows and exports, computed from what the page holds: the norming
/// panel and the exports with every rater's level.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NormingAnswer {
    pub seq: u64,
    /// Per colleague's file of the request, in order: (the rater's name, how many essays they
    /// rated) when kept, ("", why) when refused, both empty when a later file of the same name
    /// replaced it.
    pub files: Vec<(String, String)>,
    /// The tables to draw, `[[data-testid, table], …]` ([`Table`]s as JSON values: the page
    /// walks them and keeps no typed reader of its own): `agreement-numbers` and
    /// `agreement-confusion` (teacher against model, when an essay was reviewed), then
    /// `norming-pairs`, `norming-alpha` and `norming-disputed` ([`panel`], with a colleague).
    pub tables: Value,
    /// The XLSX writer's request (app `xlsx.rs`: `{"sheet", "rows"}`): the class table with the
    /// adjustments and a `<name>_level` column per colleague ([`crate::class::class_table`],
    /// [`colleague_columns`]), as the CSV has it.
    pub xlsx: String,
    /// The files the class view downloads, (name, text), at the `DOWNLOAD_*` positions: the
    /// class as CSV ([`crate::class::table_csv`] of `rows`), the EOTGC Track 1 and Track 2
    /// files with the adjustments ([`crate::class::track1_json`], [`crate::class::track2_json`]),
    /// this teacher's ratings file ([`ratings_json`]).
    pub downloads: Vec<(String, String)>,
    /// Essays behind the teacher-against-model tables ([`crate::class::agreement`]).
    pub agreement_n: usize,
}

/// Answer `request` on `view` (the class with the model's requested levels applied), the
/// first `shown` disputed essays listed.
pub fn answer(view: &ClassView, request: &NormingRequest, shown: usize) -> NormingAnswer {
    let mut kept: Vec<(usize, Rater)> = Vec::new();
    let mut files = vec![(String::new(), String::new()); request.colleagues.len()];
    for (index, f) in request.colleagues.iter().enumerate() {
        match parse_ratings(view, &f.file, &f.text, &f.name) {
            Ok(rater) => {
                kept.retain(|(_, r)| r.name != rater.name);
                kept.push((index, rater));
            }
            Err(why) => files[index].1 = why,
        }
    }
    for (index, r) in &kept {
        files[*index] = (r.name.clone(), r.levels.len().to_string());
    }
    let colleagues: Vec<Rater> = kept.into_iter().map(|(_, r)| r).collect();
    let adjustment = |id: &str| request.adjustments.get(id).cloned();
    let me = teacher_rater(view, &request.me, adjustment);
    let mine = ratings_json(view, &me);
    let tables = (!colleagues.is_empty()).then(|| {
        let mut raters = class_raters(view, &request.model, &request.gold);
        raters.push(me);
        raters.extend(colleagues.iter().cloned());
        let level = |k: usize| {
            view.levels
                .get(k)
                .map_or_else(String::new, |l| match request.english {
                    true => format!("{} · {}", l.english, l.chinese),
                    false => l.chinese.clone(),
                })
        };
        panel(&norming(view, &raters), level, shown)
    });
    let rows = with_colleagues(
        view,
        crate::class::class_table(view, adjustment),
        &colleagues,
    );
    let (agreement_n, mut all) = agreement_tables(view, adjustment);
    let stem = view.file.trim_end_matches(".json");
    if let Some(t) = tables {
        all.extend([
            ("norming-pairs".to_string(), t.pairs),
            ("norming-alpha".to_string(), t.alpha),
            ("norming-disputed".to_string(), t.disputed),
        ]);
    }
    NormingAnswer {
        seq: request.seq,
        files,
        tables: serde_json::to_value(&all).unwrap_or_default(),
        downloads: vec![
            (
                format!("{stem}-class.csv"),
                crate::class::table_csv(rows.clone()),
            ),
            (
                format!("{stem}-track1.json"),
                crate::class::track1_json(view, adjustment),
            ),
            (
                format!("{stem}-track2.json"),
                crate::class::track2_json(view, adjustment),
            ),
            (format!("{stem}-ratings.json"), mine),
        ],
        xlsx: serde_json::json!({"sheet": "class", "rows": rows}).to_string(),
        agreement_n,
    }
}

/// Teacher against model ([`crate::class::agreement`]) as two tables: the numbers, a row per
/// metric (four decimals), and the confusion counts (teacher's level by row, model's by column).
fn agreement_tables(
    view: &ClassView,
    adjustment: impl Fn(&str) -> Option<Adjustment>,
) -> (usize, Vec<(String, Table)>) {
    let a = crate::class::agreement(view, adjustment);
    if a.n == 0 {
        return (0, Vec::new());
    }
    let row = |metric: &str, label: &str, value: Option<f64>, decimals: usize| {
        let cells = vec![number(metric, value, decimals)];
        (metric.to_string(), label.to_string(), cells)
    };
    let numbers = norming_table(
        "",
        "",
        &[("", "")],
        vec![
            row("n", "n", Some(a.n as f64), 0),
            row("exact", "class.exact", a.exact, 4),
            row("acc_a", "ACC_A", a.acc_a, 4),
            row("qwk", "QWK", a.qwk, 4),
        ],
    );
    let names: Vec<(&str, &str)> = view
        .levels
        .iter()
        .map(|l| ("", l.chinese.as_str()))
        .collect();
    let counts = a
        .confusion
        .iter()
        .zip(&view.levels)
        .map(|(counts, level)| {
            let cells = counts.iter().map(|n| text(n.to_string())).collect();
            (level.label.clone(), level.chinese.clone(), cells)
        })
        .collect();
    let confusion = norming_table("class.confusion", "", &names, counts);
    let tables = vec![
        ("agreement-numbers".to_string(), numbers),
        ("agreement-confusion".to_string(), confusion),
    ];
    (a.n, tables)
}

/// A norming table: `columns` as (metric key, label — an i18n key the page translates), a
/// row per (key, label, cells). A cell with a number keeps it whole in `value` (`data-value`),
/// shown with three decimals; a text cell has no metric.
fn norming_table(
    caption: &str,
    corner: &str,
    columns: &[(&str, &str)],
    rows: Vec<(String, String, Vec<Cell>)>,
) -> Table {
    Table {
        benchmark: String::new(),
        variant: String::new(),
        scale: 1.0,
        decimals: 3,
        corner: corner.into(),
        columns: columns
            .iter()
            .map(|(key, label)| Column {
                key: (*key).into(),
                label: (*label).into(),
                n: None,
            })
            .collect(),
        rows: rows
            .into_iter()
            .map(|(key, label, cells)| Row {
                cells: cells
                    .into_iter()
                    .map(|c| Cell {
                        subset: key.clone(),
                        ..c
                    })
                    .collect(),
                key,
                label,
                n: None,
            })
            .collect(),
        caption: caption.into(),
    }
}

/// A number cell of `metric`.
fn number(metric: &str, value: Option<f64>, decimals: usize) -> Cell {
    Cell {
        subset: String::new(),
        metric: metric.into(),
        value,
        display: value.map_or_else(|| "—".into(), |v| format!("{v:.decimals$}")),
        undefined_reason: None,
    }
}

/// A text cell.
fn text(display: String) -> Cell {
    Cell {
        subset: String::new(),
        metric: String::new(),
        value: None,
        display,
        undefined_reason: None,
    }
}

/// The panel's three tables: every pair's agreement (rows keyed `a|b`), α per grade (keyed by
/// the grade, then `overall`), and the first `shown` disputed essays (keyed by id; their levels
/// named by `level`, a column per rater) with how many more there are.
pub fn panel(n: &Norming, level: impl Fn(usize) -> String, shown: usize) -> NormingTables {
    let pairs = norming_table(
        "norming.pairs",
        "",
        &[
            ("n", "n"),
            ("exact", "class.exact"),
            ("adjacent", "norming.adjacent"),
            ("qwk", "QWK"),
        ],
        n.pairs
            .iter()
            .map(|p| {
                (
                    format!("{}|{}", p.a, p.b),
                    format!("{} · {}", p.a, p.b),
                    vec![
                        number("n", Some(p.n as f64), 0),
                        number("exact", p.exact, 3),
                        number("adjacent", p.adjacent, 3),
                        number("qwk", p.qwk, 3),
                    ],
                )
            })
            .collect(),
    );
    let alpha = norming_table(
        "norming.alpha",
        "class.grade",
        &[
            ("essays", "norming.essays"),
            ("alpha_teachers", "norming.teachers"),
            ("alpha_with_model", "norming.with_model"),
        ],
        n.alpha
            .iter()
            .map(|g| {
                let label = if g.group == crate::table::OVERALL {
                    "class.overall".to_string()
                } else {
                    g.group.clone()
                };
                (
                    g.group.clone(),
                    label,
                    vec![
                        number("essays", Some(g.essays as f64), 0),
                        number("alpha_teachers", g.teachers, 3),
                        number("alpha_with_model", g.with_model, 3),
                    ],
                )
            })
            .collect(),
    );
    let mut columns = vec![
        ("grade", "class.grade"),
        ("title", "class.title"),
        ("spread", "norming.spread"),
    ];
    columns.extend(n.raters.iter().map(|r| ("", r.name.as_str())));
    let disputed = norming_table(
        "norming.disputed",
        "class.id",
        &columns,
        n.disputed
            .iter()
            .take(shown)
            .map(|d| {
                let mut cells = vec![
                    text(d.grade.clone()),
                    text(d.title.clone()),
                    number("spread", Some(d.spread as f64), 0),
                ];
                cells.extend(
                    d.levels
                        .iter()
                        .map(|k| text(k.map_or_else(|| "—".into(), &level))),
                );
                (d.id.clone(), d.id.clone(), cells)
            })
            .collect(),
    );
    let more = n.disputed.len().saturating_sub(shown);
    let mut disputed = disputed;
    if more > 0 {
        // The essays not listed, counted in a last row (the page's "more", `+N`).
        disputed.rows.push(Row {
            key: "more".into(),
            label: "norming.more".into(),
            n: Some(more),
            cells: vec![text(format!("+{more}"))],
        });
    }
    NormingTables {
        pairs,
        alpha,
        disputed,
        more,
    }
}

/// The norming panel's tables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NormingTables {
    pub pairs: Table,
    pub alpha: Table,
    pub disputed: Table,
    /// Disputed essays beyond those listed.
    pub more: usize,
}
