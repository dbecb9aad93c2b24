//! Scoring with a spec: files → records (gold joined with predictions) → the report.
//!
//! ```text
//! records   the gold role's rows in file order, each with its prediction (join by id: a
//!           stray or repeated id, or a gold record without a prediction, is an error naming
//!           the id; by position: equal counts)
//! metrics   per scope: overall over every record, per subset over its records (subsets in
//!           the spec's order); each the library function the built-in benchmarks call:
//!             qwk sklearn    crate::qwk (cohen_kappa_score, weights="quadratic")
//!             qwk kaggle     crate::asap_aes::quadratic_weighted_kappa on whole numbers
//!             pearson, spearman, kendall_tau_b, accuracy   crate::{pearson, …}
//!             f1_macro, f1_micro   crate::f1 (f1_score average="macro" / "micro")
//!             mae, rmse      np.mean(|p − g|), sqrt(np.mean((g − p)²)) in numpy's summation
//!             exact_match    share of equal texts after the normalisations
//!             mean           np.mean of a value
//! aggregates mean = np.mean, fisher-mean = Kaggle's mean_quadratic_weighted_kappa,
//!            weighted-mean = Σ n·v / Σ n, over the subsets; null when a subset's value is
//! ```
//! An undefined value is `null` with a warning, as in every report.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::read::{Cell, Row, Rows, read};
use super::{
    Fold, MetricKind, MetricSpec, Normalize, QwkFormula, Scope, Spec, SubsetOrder, Transform,
};
use crate::error::{InputError, MetricError};
use crate::numpy_sum::numpy_sum;
use crate::report::{InputFile, MetricValue, Metrics, Overall, Report, Subset, Warning};

/// One gold record with its prediction.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub id: Option<String>,
    pub subset: Option<String>,
    pub gold: Cell,
    pub pred: Cell,
    /// 1-based line in the gold file and in the predictions file.
    pub line: usize,
    pub pred_line: usize,
    /// The `text` fields of every role (field name, text).
    pub text: Vec<(String, String)>,
    /// The `numbers` of every role (name, value).
    pub numbers: Vec<(String, f64)>,
    /// The record's weight, when a role maps `weight`.
    pub weight: Option<f64>,
}

/// A report and the records behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    pub report: Report,
    pub records: Vec<Record>,
}

/// A file given to [`score`]: its role, name and bytes.
pub type RoleFile<'a> = (&'a str, &'a str, &'a [u8]);

/// Score the files (one per role of the spec) with `variant` (`official` or a declared one).
pub fn score(
    spec: &Spec,
    files: &[RoleFile<'_>],
    variant: &str,
    samples: bool,
) -> Result<Scored, InputError> {
    let records = records(spec, files)?;
    let inputs = spec
        .files
        .keys()
        .filter_map(|role| files.iter().find(|(r, _, _)| r == role))
        .map(|(_, name, bytes)| InputFile::from_bytes(*name, bytes))
        .collect();
    let pred_name = spec
        .pred_role()
        .and_then(|role| files.iter().find(|(r, _, _)| *r == role))
        .map_or("", |(_, name, _)| *name);
    let report = score_records(spec, &records, inputs, pred_name, variant, samples)
        .map_err(|e| InputError::whole_file(pred_name, e))?;
    Ok(Scored { report, records })
}

/// Read and join the files into records.
pub fn records(spec: &Spec, files: &[RoleFile<'_>]) -> Result<Vec<Record>, InputError> {
    let file_of = |role: &str| {
        files
            .iter()
            .find(|(r, _, _)| *r == role)
            .ok_or_else(|| InputError::whole_file(role, format!("no file for the role `{role}`")))
    };
    let (Some(gold_role), Some(pred_role)) = (spec.gold_role(), spec.pred_role()) else {
        return Err(InputError::whole_file(
            &spec.key,
            "the spec maps no gold or no pred",
        ));
    };
    let (_, gold_name, gold_bytes) = *file_of(gold_role)?;
    let gold = read(spec, gold_role, gold_name, gold_bytes)?;
    if gold_role == pred_role {
        return Ok(gold
            .rows
            .into_iter()
            .map(|r| record(spec, gold_role, r, None, pred_role))
            .collect());
    }
    let (_, pred_name, pred_bytes) = *file_of(pred_role)?;
    let pred = read(spec, pred_role, pred_name, pred_bytes)?;
    match spec.join {
        super::Join::Position => {
            if gold.rows.len() != pred.rows.len() {
                return Err(InputError::whole_file(
                    pred_name,
                    format!(
                        "{} predictions for {} gold records ({gold_name}): joined by position, the counts must be equal",
                        pred.rows.len(),
                        gold.rows.len()
                    ),
                ));
            }
            Ok(gold
                .rows
                .into_iter()
                .zip(pred.rows)
                .map(|(g, p)| record(spec, gold_role, g, Some(p), pred_role))
                .collect())
        }
        super::Join::Id => join_by_id(
            spec,
            (gold_role, gold_name, gold),
            (pred_role, pred_name, pred),
        ),
    }
}

fn join_by_id(
    spec: &Spec,
    (gold_role, gold_name, gold): (&str, &str, Rows),
    (pred_role, pred_name, pred): (&str, &str, Rows),
) -> Result<Vec<Record>, InputError> {
    let id_name = |rows: &Rows| rows.id_field.clone().unwrap_or_else(|| "id".into());
    let (gold_id, pred_id) = (id_name(&gold), id_name(&pred));
    let index =
        |rows: &Rows, name: &str, field: &str| -> Result<HashMap<String, usize>, InputError> {
            let mut seen: HashMap<String, usize> = HashMap::with_capacity(rows.rows.len());
            for (i, row) in rows.rows.iter().enumerate() {
                let id = row.id.clone().unwrap_or_default();
                if let Some(first) = seen.insert(id.clone(), i) {
                    return Err(InputError::at_line(
                        name,
                        row.line,
                        format!(
                            "{field} {id}: a second record (the first is on line {})",
                            rows.rows[first].line
                        ),
                    ));
                }
            }
            Ok(seen)
        };
    let gold_ids = index(&gold, gold_name, &gold_id)?;
    let mut pred_ids = index(&pred, pred_name, &pred_id)?;
    if let Some(stray) = pred
        .rows
        .iter()
        .find(|p| !gold_ids.contains_key(p.id.as_deref().unwrap_or("")))
    {
        return Err(InputError::at_line(
            pred_name,
            stray.line,
            format!(
                "{pred_id} {} is not in {gold_name}",
                stray.id.as_deref().unwrap_or("")
            ),
        ));
    }
    let missing: Vec<(String, usize)> = gold
        .rows
        .iter()
        .filter(|g| !pred_ids.contains_key(g.id.as_deref().unwrap_or("")))
        .map(|g| (g.id.clone().unwrap_or_default(), g.line))
        .collect();
    if !missing.is_empty() {
        return Err(crate::error::no_prediction(
            pred_name, &gold_id, gold_name, &missing,
        ));
    }
    let mut preds: Vec<Option<Row>> = pred.rows.into_iter().map(Some).collect();
    Ok(gold
        .rows
        .into_iter()
        .map(|g| {
            let p = pred_ids
                .remove(g.id.as_deref().unwrap_or(""))
                .and_then(|i| preds[i].take());
            record(spec, gold_role, g, p, pred_role)
        })
        .collect())
}

/// A record from the gold row and (when the predictions are another file) its prediction row.
fn record(spec: &Spec, gold_role: &str, g: Row, p: Option<Row>, pred_role: &str) -> Record {
    let named_text = |role: &str, row: &Row| {
        spec.files[role]
            .text
            .iter()
            .cloned()
            .zip(row.text.iter().cloned())
            .collect::<Vec<_>>()
    };
    let named_numbers = |role: &str, row: &Row| {
        spec.files[role]
            .numbers
            .keys()
            .cloned()
            .zip(row.numbers.iter().copied())
            .collect::<Vec<_>>()
    };
    let mut text = named_text(gold_role, &g);
    let mut numbers = named_numbers(gold_role, &g);
    let empty = Cell {
        text: String::new(),
        number: None,
    };
    match p {
        None => Record {
            id: g.id,
            subset: g.subset,
            gold: g.gold.unwrap_or_else(|| empty.clone()),
            pred: g.pred.unwrap_or(empty),
            line: g.line,
            pred_line: g.line,
            text,
            numbers,
            weight: g.weight,
        },
        Some(p) => {
            text.extend(named_text(pred_role, &p));
            numbers.extend(named_numbers(pred_role, &p));
            Record {
                id: g.id,
                subset: g.subset.or(p.subset),
                gold: g.gold.unwrap_or_else(|| empty.clone()),
                pred: p.pred.unwrap_or(empty),
                line: g.line,
                pred_line: p.line,
                text,
                numbers,
                weight: g.weight.or(p.weight),
            }
        }
    }
}

/// The subsets present, in the spec's order: (value, indices of its records).
pub fn subsets(spec: &Spec, records: &[Record]) -> Vec<(String, Vec<usize>)> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    for (i, r) in records.iter().enumerate() {
        let Some(s) = r.subset.as_deref() else {
            continue;
        };
        let g = *at.entry(s).or_insert_with(|| {
            groups.push((s.to_string(), Vec::new()));
            groups.len() - 1
        });
        groups[g].1.push(i);
    }
    match spec.subsets.order {
        SubsetOrder::File => {}
        SubsetOrder::Text => groups.sort_by(|a, b| a.0.cmp(&b.0)),
        SubsetOrder::Numeric => groups.sort_by(|a, b| {
            let num = |s: &str| s.parse::<f64>().ok().filter(|v| v.is_finite());
            match (num(&a.0), num(&b.0)) {
                (Some(x), Some(y)) => x.total_cmp(&y).then_with(|| a.0.cmp(&b.0)),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => a.0.cmp(&b.0),
            }
        }),
    }
    groups
}

/// The report of joined records under `variant`. `Err` names an unknown variant.
pub fn score_records(
    spec: &Spec,
    records: &[Record],
    inputs: Vec<InputFile>,
    pred_file: &str,
    variant: &str,
    samples: bool,
) -> Result<Report, String> {
    let metrics = spec.metrics_of(variant).ok_or_else(|| {
        format!(
            "the spec `{}` has no variant `{variant}` (it has: {})",
            spec.key,
            spec.variant_names().join(", ")
        )
    })?;
    let mut warnings = Vec::new();
    let mut warn = |message: String| {
        warnings.push(Warning {
            path: pred_file.to_string(),
            line: None,
            message,
        })
    };
    let name_of = |value: &str| spec.subsets.name.replace("{}", value);
    let groups = subsets(spec, records);
    let mut subset_values: HashMap<&str, Vec<Option<f64>>> = HashMap::new();
    let subsets: Vec<Subset> = groups
        .iter()
        .map(|(value, indices)| {
            let name = name_of(value);
            let mut m = Metrics::new();
            for metric in metrics.iter().filter(|m| m.scope != Scope::Overall) {
                let result = compute(metric, records, indices, Some(value));
                if let Err(e) = &result {
                    // As ASAP-AES words it: the aggregates it makes null are named here.
                    let folded: Vec<&str> = spec
                        .aggregates
                        .iter()
                        .filter(|a| a.of == metric.key)
                        .map(|a| a.key.as_str())
                        .collect();
                    let so = if folded.is_empty() {
                        String::new()
                    } else {
                        format!(
                            ", so {} {} null",
                            folded.join(" and "),
                            if folded.len() == 1 { "is" } else { "are" }
                        )
                    };
                    warn(format!("{name}: {} is null ({e}){so}", metric.key));
                }
                subset_values
                    .entry(metric.key.as_str())
                    .or_default()
                    .push(result.clone().ok());
                m.insert(metric.key.clone(), MetricValue::from_result(result));
            }
            Subset {
                name,
                n: indices.len(),
                metrics: m,
            }
        })
        .collect();
    let all: Vec<usize> = (0..records.len()).collect();
    let mut overall = Metrics::new();
    for key in spec.overall_keys() {
        if let Some(metric) = metrics.iter().find(|m| m.key == key) {
            let result = compute(metric, records, &all, None);
            if let Err(e) = &result {
                warn(format!("{key}: {e}"));
            }
            overall.insert(key.to_string(), MetricValue::from_result(result));
        } else if let Some(agg) = spec.aggregates.iter().find(|a| a.key == key) {
            let values = subset_values
                .get(agg.of.as_str())
                .cloned()
                .unwrap_or_default();
            let result = fold(agg.how, &values, &groups);
            // An undefined subset value was warned about with its subset.
            if let Err(e) = &result
                && values.iter().all(Option::is_some)
            {
                warn(format!("{key}: {e}"));
            }
            overall.insert(
                key.to_string(),
                MetricValue::from_result(result.map_err(|e| {
                    // Name the first undefined subset, as ASAP-AES's warning does.
                    match values.iter().position(Option::is_none) {
                        Some(i) => MetricError::undefined(format!(
                            "{}'s {} is undefined",
                            name_of(&groups[i].0),
                            agg.of
                        )),
                        None => e,
                    }
                })),
            );
        }
    }
    let samples = samples.then(|| {
        records
            .iter()
            .map(|r| {
                let mut s = serde_json::Map::new();
                if let Some(id) = &r.id {
                    s.insert("id".into(), json!(id));
                }
                if let Some(subset) = &r.subset {
                    s.insert("subset".into(), json!(name_of(subset)));
                }
                s.insert("line".into(), json!(r.line));
                s.insert("gold".into(), cell_json(&r.gold));
                s.insert("pred".into(), cell_json(&r.pred));
                Value::Object(s)
            })
            .collect()
    });
    Ok(Report {
        benchmark: spec.key.clone(),
        variant: variant.to_string(),
        inputs,
        overall: Overall {
            n: records.len(),
            metrics: overall,
        },
        subsets,
        samples,
        warnings,
    })
}

fn cell_json(c: &Cell) -> Value {
    match c.number {
        Some(n) => json!(n),
        None => json!(c.text),
    }
}

/// Fold the per-subset values of a metric.
fn fold(
    how: Fold,
    values: &[Option<f64>],
    groups: &[(String, Vec<usize>)],
) -> Result<f64, MetricError> {
    let values: Option<Vec<f64>> = values.iter().copied().collect();
    let Some(values) = values else {
        return Err(MetricError::undefined("a subset's value is undefined"));
    };
    match how {
        Fold::Mean => crate::asap_aes::mean_qwk(&values),
        Fold::FisherMean => crate::asap_aes::mean_qwk_fisher(&values),
        Fold::WeightedMean => {
            if values.is_empty() {
                return Err(MetricError::Empty);
            }
            let weighted: Vec<f64> = values
                .iter()
                .zip(groups)
                .map(|(v, (_, idx))| v * idx.len() as f64)
                .collect();
            let n: usize = groups.iter().map(|(_, idx)| idx.len()).sum();
            Ok(numpy_sum(&weighted) / n as f64)
        }
    }
}

/// A prediction as the metric counts it.
fn transformed(v: f64, t: Option<Transform>) -> f64 {
    match t {
        None | Some(Transform::AsIs) => v,
        Some(Transform::Truncate) => v.trunc(),
        Some(Transform::Round) => v.round_ties_even(),
    }
}

/// One metric over the records `indices` (`subset`: the subset's value, for per-subset ranges).
fn compute(
    m: &MetricSpec,
    records: &[Record],
    indices: &[usize],
    subset: Option<&str>,
) -> Result<f64, MetricError> {
    let numbers = |pick: fn(&Record) -> &Cell| -> Result<Vec<f64>, MetricError> {
        indices
            .iter()
            .map(|&i| {
                pick(&records[i])
                    .number
                    .ok_or_else(|| MetricError::undefined("a value is not a number"))
            })
            .collect()
    };
    let gold = || numbers(|r| &r.gold);
    let pred = || -> Result<Vec<f64>, MetricError> {
        Ok(numbers(|r| &r.pred)?
            .into_iter()
            .map(|v| transformed(v, m.pred))
            .collect())
    };
    // Weighted records (a role maps `weight`): `np.average(values, weights=w)`, as
    // scikit-learn's `sample_weight` averages accuracy and the regression errors.
    let weighted = m.metric.takes_weights()
        && indices
            .first()
            .is_some_and(|&i| records[i].weight.is_some());
    let weights: Option<Vec<f64>> = if weighted {
        indices.iter().map(|&i| records[i].weight).collect()
    } else {
        None
    };
    if let Some(w) = &weights {
        let values: Vec<f64> = match m.metric {
            MetricKind::Mae => {
                let (g, p) = (gold()?, pred()?);
                p.iter().zip(&g).map(|(p, g)| (p - g).abs()).collect()
            }
            MetricKind::Rmse => {
                let (g, p) = (gold()?, pred()?);
                g.iter().zip(&p).map(|(g, p)| (g - p) * (g - p)).collect()
            }
            MetricKind::Mean => mean_values(m, records, indices)?,
            MetricKind::Accuracy if both_numbers(records, indices) => {
                // scikit-learn refuses continuous targets, weighted or not.
                crate::qwk::check_classification_targets(&gold()?)?;
                crate::qwk::check_classification_targets(&numbers(|r| &r.pred)?)?;
                indices
                    .iter()
                    .map(|&i| f64::from(u8::from(hit(m, &records[i]))))
                    .collect()
            }
            _ => indices
                .iter()
                .map(|&i| f64::from(u8::from(hit(m, &records[i]))))
                .collect(),
        };
        let average = weighted_average(&values, w)?;
        return Ok(if m.metric == MetricKind::Rmse {
            average.sqrt()
        } else {
            average
        });
    }
    match m.metric {
        MetricKind::Qwk => match m.formula.unwrap_or(QwkFormula::Sklearn) {
            QwkFormula::Sklearn => match &m.labels {
                Some(labels) => {
                    crate::qwk::quadratic_weighted_kappa_with_labels(&gold()?, &pred()?, labels)
                }
                None => crate::qwk::quadratic_weighted_kappa(&gold()?, &pred()?),
            },
            QwkFormula::Kaggle => kaggle_qwk(m, records, indices, subset, &gold()?, &pred()?),
        },
        MetricKind::Pearson => crate::pearson::pearson(&gold()?, &pred()?),
        MetricKind::Spearman => crate::spearman::spearman(&gold()?, &pred()?),
        MetricKind::KendallTauB => crate::kendall_tau_b::kendall_tau_b(&gold()?, &pred()?),
        MetricKind::Mae | MetricKind::Rmse => {
            let (g, p) = (gold()?, pred()?);
            if g.is_empty() {
                return Err(MetricError::Empty);
            }
            let n = g.len() as f64;
            if m.metric == MetricKind::Mae {
                let d: Vec<f64> = p.iter().zip(&g).map(|(p, g)| (p - g).abs()).collect();
                Ok(numpy_sum(&d) / n)
            } else {
                let d: Vec<f64> = g.iter().zip(&p).map(|(g, p)| (g - p) * (g - p)).collect();
                Ok((numpy_sum(&d) / n).sqrt())
            }
        }
        MetricKind::Accuracy => {
            if both_numbers(records, indices) {
                crate::accuracy::accuracy(&gold()?, &numbers(|r| &r.pred)?)
            } else {
                share(indices, |i| hit(m, &records[i]))
            }
        }
        MetricKind::F1Macro | MetricKind::F1Micro => {
            match (m.metric, both_numbers(records, indices)) {
                (MetricKind::F1Macro, true) => {
                    crate::f1::f1_macro(&gold()?, &numbers(|r| &r.pred)?)
                }
                (_, true) => crate::f1::f1_micro(&gold()?, &numbers(|r| &r.pred)?),
                (MetricKind::F1Macro, false) => {
                    let text = |pick: fn(&Record) -> &Cell| -> Vec<&str> {
                        indices
                            .iter()
                            .map(|&i| pick(&records[i]).text.as_str())
                            .collect()
                    };
                    crate::f1::f1_macro_labels(&text(|r| &r.gold), &text(|r| &r.pred))
                }
                (_, false) => share(indices, |i| records[i].gold.text == records[i].pred.text),
            }
        }
        MetricKind::ExactMatch => share(indices, |i| hit(m, &records[i])),
        MetricKind::Mean => {
            let values = mean_values(m, records, indices)?;
            if values.is_empty() {
                return Err(MetricError::Empty);
            }
            Ok(numpy_sum(&values) / values.len() as f64)
        }
    }
}

/// Whether the values are numbers (the first record's gold and prediction): accuracy and F1
/// compare them as classes, else as text.
fn both_numbers(records: &[Record], indices: &[usize]) -> bool {
    indices
        .first()
        .is_some_and(|&i| records[i].gold.number.is_some() && records[i].pred.number.is_some())
}

/// The values a `mean` averages: gold, pred or a named number of each record.
fn mean_values(
    m: &MetricSpec,
    records: &[Record],
    indices: &[usize],
) -> Result<Vec<f64>, MetricError> {
    let of = m.of.as_deref().unwrap_or("pred");
    indices
        .iter()
        .map(|&i| {
            let r = &records[i];
            let v = match of {
                "gold" => r.gold.number,
                "pred" => r.pred.number,
                name => r.numbers.iter().find(|(n, _)| n == name).map(|(_, v)| *v),
            };
            v.ok_or_else(|| MetricError::undefined(format!("no number `{of}`")))
        })
        .collect()
}

/// Whether a record counts as a hit for accuracy or exact match, weighted or not (accuracy on
/// numbers unweighted is the library's `accuracy`, which counts the same hits).
fn hit(m: &MetricSpec, r: &Record) -> bool {
    match m.metric {
        MetricKind::ExactMatch => {
            let norm = m.normalize.as_deref().unwrap_or(&[]);
            normalized(&r.gold.text, norm) == normalized(&r.pred.text, norm)
        }
        _ => match (r.gold.number, r.pred.number) {
            (Some(g), Some(p)) => g == p,
            _ => r.gold.text == r.pred.text,
        },
    }
}

/// `np.average(values, weights=weights)`: Σ vᵢwᵢ / Σ wᵢ, each sum in numpy's pairwise order;
/// weights that sum to zero are numpy's `ZeroDivisionError`.
fn weighted_average(values: &[f64], weights: &[f64]) -> Result<f64, MetricError> {
    let scale = numpy_sum(weights);
    if scale == 0.0 {
        return Err(MetricError::undefined("the weights sum to zero"));
    }
    let products: Vec<f64> = values.iter().zip(weights).map(|(v, w)| v * w).collect();
    Ok(numpy_sum(&products) / scale)
}

/// The share of `indices` for which `hit` holds.
fn share(indices: &[usize], hit: impl Fn(usize) -> bool) -> Result<f64, MetricError> {
    if indices.is_empty() {
        return Err(MetricError::Empty);
    }
    let hits = indices.iter().filter(|&&i| hit(i)).count();
    Ok(hits as f64 / indices.len() as f64)
}

fn normalized(text: &str, steps: &[Normalize]) -> String {
    let mut s = text.to_string();
    for step in steps {
        s = match step {
            Normalize::Strip => crate::python::strip(&s).to_string(),
            Normalize::Lower => s.to_lowercase(),
            Normalize::CollapseSpaces => s.split_whitespace().collect::<Vec<_>>().join(" "),
            Normalize::RemovePunctuation => {
                s.chars().filter(|c| !c.is_ascii_punctuation()).collect()
            }
        };
    }
    s
}

/// Kaggle's QWK on whole numbers over the subset's range (declared, else observed); a gold value
/// outside a declared range is undefined, naming the record.
fn kaggle_qwk(
    m: &MetricSpec,
    records: &[Record],
    indices: &[usize],
    subset: Option<&str>,
    gold: &[f64],
    pred: &[f64],
) -> Result<f64, MetricError> {
    let range = subset
        .and_then(|s| m.ranges.get(s).copied())
        .or(m.range)
        .map(|[lo, hi]| (lo, hi));
    let whole = |v: f64, what: &str| -> Result<i64, MetricError> {
        if v.fract() != 0.0 {
            return Err(MetricError::undefined(format!(
                "{what} value {v} is not a whole number (set `pred = \"truncate\"` or `\"round\"`)"
            )));
        }
        // Beyond ±MAX_ABS_SCORE the rating range is refused below; saturating is harmless.
        Ok(v as i64)
    };
    let g: Vec<i64> = gold
        .iter()
        .map(|&v| whole(v, "a gold"))
        .collect::<Result<_, _>>()?;
    let mut p: Vec<i64> = pred
        .iter()
        .map(|&v| whole(v, "a predicted"))
        .collect::<Result<_, _>>()?;
    if let Some((lo, hi)) = range {
        if let Some(k) = g.iter().position(|v| !(lo..=hi).contains(v)) {
            let id = records[indices[k]].id.as_deref().unwrap_or("?");
            return Err(MetricError::undefined(format!(
                "id {id}: gold score {} is outside the declared range {lo}–{hi}",
                g[k]
            )));
        }
        if m.clip == Some(true) {
            for v in &mut p {
                *v = (*v).clamp(lo, hi);
            }
        }
    }
    crate::asap_aes::quadratic_weighted_kappa(&g, &p, range)
}
