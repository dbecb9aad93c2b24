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
//!              submission [{id, classification}] is read too
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::class::{Adjustment, ClassView};
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

/// A colleague's ratings from their ratings file (or a Track 1 submission), named `name` (the
/// file's own rater name when empty). Every id must be an essay of the class and every level one
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
        own_name.unwrap_or_else(|| file_name.to_string())
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
    disputed.sort_by_key(|(order, d)| {
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
    mut table: Vec<Vec<String>>,
    colleagues: &[Rater],
) -> Vec<Vec<String>> {
    let Some((header, rows)) = table.split_first_mut() else {
        return table;
    };
    for c in colleagues {
        header.push(format!("{}_level", c.name));
    }
    for row in rows {
        let id = row.first().cloned().unwrap_or_default();
        for c in colleagues {
            row.push(
                c.levels
                    .get(&id)
                    .and_then(|k| view.levels.get(*k))
                    .map(|l| l.label.clone())
                    .unwrap_or_default(),
            );
        }
    }
    table
}
