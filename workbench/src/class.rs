//! The teacher's class view: a class's essays with the model's level and comment (and the gold
//! level when the file has one), the level distribution per grade, the teacher's adjustments,
//! agreement between teacher and model, and the exports.
//!
//! ```text
//! essays        one row per essay: id, grade, prompt (requirement), title, text, the model's
//!               level as written in its file, the gold level, the comment and its length in
//!               characters (code points, as Python's len); flagged when over the limit or empty
//! order         weakest model level first (no level last), then file order
//! distribution  per grade (numeric order) and overall: essays per level, best level first
//! adjustments   the teacher's level / comment / reviewed mark per essay id (kept by the page)
//! agreement     on reviewed essays that have a model level: exact agreement, ACC_A, QWK over
//!               the five levels (sklearn's quadratic kappa with labels 0..4), confusion matrix
//! exports       CSV (UTF-8 with BOM), the two EOTGC submission files with the adjustments
//! ```
//! A benchmark offers this view through `Benchmark::class` (EOTGC does).

use serde::{Deserialize, Serialize};

use metrics_core::confusion::ConfusionMatrix;
use metrics_core::eotgc::{Level, track1_scores};
use metrics_core::qwk::quadratic_weighted_kappa_with_labels;

/// One level of the scale, best first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelName {
    /// The label as the class's files spell it (优秀 … by default).
    pub label: String,
    pub chinese: String,
    pub english: String,
}

/// One essay as the class view shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassRow {
    pub id: String,
    pub grade: String,
    pub requirement: String,
    pub title: String,
    pub content: String,
    /// The model's level as written in its file.
    pub level: Option<String>,
    /// Index of the model's level in [`ClassView::levels`] (0 = best).
    pub level_rank: Option<usize>,
    /// The gold level (its index in [`ClassView::levels`]).
    pub gold_rank: Option<usize>,
    pub comment: Option<String>,
    /// The comment's length in characters.
    pub comment_chars: Option<usize>,
    /// `over` (longer than the limit) or `empty`, when the comment breaks the task's rule.
    pub comment_flag: Option<String>,
}

impl ClassRow {
    /// The essay's level (its rank) and comment after the teacher's adjustment: the teacher's
    /// where they set one, the model's otherwise.
    pub fn adjusted<'a>(&'a self, a: &'a Adjustment) -> (Option<usize>, Option<&'a str>) {
        (
            a.level.or(self.level_rank),
            a.comment.as_deref().or(self.comment.as_deref()),
        )
    }
}

/// Essays per level in one grade (or `overall`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupCounts {
    pub group: String,
    /// Per level, in [`ClassView::levels`] order.
    pub counts: Vec<u64>,
    /// Essays without a model level.
    pub unlevelled: u64,
    /// Per level, its share of the group's essays in percent (for the stacked bars).
    pub percent: Vec<f64>,
}

impl GroupCounts {
    fn new(group: String, counts: Vec<u64>, unlevelled: u64) -> Self {
        let total = counts.iter().sum::<u64>() + unlevelled;
        let percent = counts
            .iter()
            .map(|&c| {
                if total == 0 {
                    0.0
                } else {
                    100.0 * c as f64 / total as f64
                }
            })
            .collect();
        Self {
            group,
            counts,
            unlevelled,
            percent,
        }
    }
}

/// Everything the class view shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassView {
    /// The essays file's name and SHA-256 (the key the teacher's adjustments are stored under).
    pub file: String,
    pub sha256: String,
    pub levels: Vec<LevelName>,
    /// Weakest first.
    pub essays: Vec<ClassRow>,
    /// Per grade (numeric order), then `overall`.
    pub distribution: Vec<GroupCounts>,
    /// Per title when several essays share one (a prompt's distribution), most essays first.
    pub by_title: Vec<GroupCounts>,
    pub has_gold: bool,
    /// The comment length limit, in characters.
    pub comment_limit: usize,
    /// The page opens this view first: a class without gold, or with the model's comments (a
    /// teacher's files rather than a researcher's gold + levels).
    pub open_first: bool,
    /// The job's numbers against the gold levels (the benchmark's metrics in the report, as its
    /// table shows them), filled in with the job's table; empty without gold.
    #[serde(default)]
    pub scores: Vec<crate::table::Cell>,
}

/// The five EOTGC levels, best first, spelled as `spellings` has them (the first spelling seen
/// for each level; the Chinese name otherwise).
pub fn eotgc_levels(spellings: &[(Level, String)]) -> Vec<LevelName> {
    Level::ALL
        .iter()
        .map(|&l| LevelName {
            label: spellings
                .iter()
                .find(|(s, _)| *s == l)
                .map_or_else(|| l.chinese().to_string(), |(_, label)| label.clone()),
            chinese: l.chinese().into(),
            english: english_name(l).into(),
        })
        .collect()
}

/// The guideline's English name of a level.
pub fn english_name(level: Level) -> &'static str {
    match level {
        Level::Excellent => "Excellent",
        Level::Good => "Good",
        Level::Average => "Average",
        Level::Qualified => "Qualified",
        Level::Unqualified => "Unqualified",
    }
}

/// The level at `rank` (0 = best).
pub fn level_at(rank: usize) -> Option<Level> {
    Level::ALL.get(rank).copied()
}

/// Counts per level of `rows` (by `rank`), in levels order.
fn counts<'a>(rows: impl Iterator<Item = &'a ClassRow>, n_levels: usize) -> (Vec<u64>, u64) {
    let mut out = vec![0u64; n_levels];
    let mut none = 0;
    for r in rows {
        match r.level_rank {
            Some(k) if k < n_levels => out[k] += 1,
            _ => none += 1,
        }
    }
    (out, none)
}

/// Sort grades numerically when they are numbers.
fn grade_order(g: &str) -> (u8, u64, String) {
    match g.parse::<u64>() {
        Ok(n) => (0, n, String::new()),
        Err(_) => (1, 0, g.to_string()),
    }
}

impl ClassView {
    /// The essays as a class is printed: by grade, then by id (numbers in numeric order, before
    /// text).
    pub fn print_order(&self) -> Vec<&ClassRow> {
        let mut rows: Vec<&ClassRow> = self.essays.iter().collect();
        crate::order::sort_by_key(&mut rows, |e| (grade_order(&e.grade), id_order(&e.id)));
        rows
    }

    /// A view of `essays` (file order), sorted weakest first, with the distributions.
    pub fn new(
        file: String,
        sha256: String,
        levels: Vec<LevelName>,
        mut essays: Vec<ClassRow>,
        comment_limit: usize,
    ) -> Self {
        let n = levels.len();
        let mut grades: Vec<String> = Vec::new();
        for e in &essays {
            if !grades.contains(&e.grade) {
                grades.push(e.grade.clone());
            }
        }
        crate::order::sort_by_key(&mut grades, |g| grade_order(g));
        let mut distribution: Vec<GroupCounts> = grades
            .iter()
            .map(|g| {
                let (counts, unlevelled) = counts(essays.iter().filter(|e| &e.grade == g), n);
                GroupCounts::new(g.clone(), counts, unlevelled)
            })
            .collect();
        let (all, none) = counts(essays.iter(), n);
        distribution.push(GroupCounts::new(crate::table::OVERALL.into(), all, none));
        let mut titles: Vec<(String, usize)> = Vec::new();
        for e in &essays {
            match titles.iter_mut().find(|(t, _)| *t == e.title) {
                Some((_, k)) => *k += 1,
                None => titles.push((e.title.clone(), 1)),
            }
        }
        titles.retain(|(t, k)| *k > 1 && !t.is_empty());
        crate::order::sort_by_key(&mut titles, |t| std::cmp::Reverse(t.1));
        let by_title = titles
            .iter()
            .map(|(t, _)| {
                let (counts, unlevelled) = counts(essays.iter().filter(|e| &e.title == t), n);
                GroupCounts::new(t.clone(), counts, unlevelled)
            })
            .collect();
        let has_gold = essays.iter().any(|e| e.gold_rank.is_some());
        let open_first = !has_gold || essays.iter().any(|e| e.comment.is_some());
        // Weakest first (highest rank), essays without a model level last; stable.
        crate::order::sort_by_key(&mut essays, |e| {
            std::cmp::Reverse(e.level_rank.map_or(0, |k| k + 1))
        });
        Self {
            file,
            sha256,
            levels,
            essays,
            distribution,
            by_title,
            has_gold,
            comment_limit,
            open_first,
            scores: Vec::new(),
        }
    }
}

/// Levels and comments a model wrote for essays that had none (the teacher's "ask the model"),
/// by essay id: the model's Track 1 label and Track 2 comment.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelResults {
    pub levels: Vec<(String, String)>,
    pub comments: Vec<(String, String)>,
}

impl ModelResults {
    pub fn is_empty(&self) -> bool {
        self.levels.is_empty() && self.comments.is_empty()
    }
}

impl ClassView {
    /// The essays that have no model level (`levels`) or no model comment (`comments`), in id
    /// order: what the model is asked for.
    pub fn missing(&self, levels: bool, comments: bool) -> Vec<&ClassRow> {
        let mut rows: Vec<&ClassRow> = self
            .essays
            .iter()
            .filter(|e| (levels && e.level.is_none()) || (comments && e.comment.is_none()))
            .collect();
        crate::order::sort_by_key(&mut rows, |e| id_order(&e.id));
        rows
    }

    /// This view with `results` filled in where an essay has no level or no comment; a level or
    /// comment the view already has is never replaced, and a label that names no level is
    /// skipped. The distributions are counted again; essays are listed weakest first, then in
    /// id order.
    pub fn with_model_results(&self, results: &ModelResults) -> ClassView {
        if results.is_empty() {
            return self.clone();
        }
        let level_of: std::collections::HashMap<&str, &str> = results
            .levels
            .iter()
            .map(|(id, l)| (id.as_str(), l.as_str()))
            .collect();
        let comment_of: std::collections::HashMap<&str, &str> = results
            .comments
            .iter()
            .map(|(id, c)| (id.as_str(), c.as_str()))
            .collect();
        let mut essays = self.essays.clone();
        for e in &mut essays {
            if e.level.is_none()
                && let Some(level) = level_of.get(e.id.as_str()).and_then(|l| Level::parse(l))
            {
                e.level_rank = Level::ALL.iter().position(|x| *x == level);
                e.level = e
                    .level_rank
                    .and_then(|k| self.levels.get(k))
                    .map(|n| n.label.clone());
            }
            if e.comment.is_none()
                && let Some(c) = comment_of.get(e.id.as_str())
            {
                e.comment_chars = Some(c.chars().count());
                e.comment_flag = comment_flag(c, self.comment_limit);
                e.comment = Some((*c).to_string());
            }
        }
        crate::order::sort_by_key(&mut essays, |e| id_order(&e.id));
        let mut view = ClassView::new(
            self.file.clone(),
            self.sha256.clone(),
            self.levels.clone(),
            essays,
            self.comment_limit,
        );
        view.open_first = self.open_first;
        // The job's numbers against the gold do not change with the model's answers here.
        view.scores = self.scores.clone();
        view
    }
}

impl ClassRow {
    /// The essay as a record of the EOTGC test file (`{id, grade, requirement, title,
    /// content}`, the id a number when it is one): what a model run is given.
    pub fn essay_record(&self) -> serde_json::Value {
        serde_json::json!({
            "id": id_value(&self.id),
            "grade": self.grade,
            "requirement": self.requirement,
            "title": self.title,
            "content": self.content,
        })
    }
}

/// One record of a run's `track1.json` / `track2.json` (null where the reply had no answer).
#[derive(Deserialize)]
struct RunRecord {
    id: serde_json::Value,
    #[serde(default)]
    classification: Option<String>,
    #[serde(default)]
    comment: Option<String>,
}

impl ModelResults {
    /// Adds a model run's output file (`track1.json` `[{id, classification}]` or `track2.json`
    /// `[{id, comment}]`); records whose answer is null are skipped. The error names `file`.
    pub fn add_run_output(&mut self, file: &str, text: &str) -> Result<(), String> {
        let records: Vec<RunRecord> = serde_json::from_str(text)
            .map_err(|e| format!("{file}: expected [{{id, classification|comment}}]: {e}"))?;
        for r in records {
            let id = match r.id {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            };
            if let Some(level) = r.classification {
                self.levels.push((id.clone(), level));
            }
            if let Some(comment) = r.comment {
                self.comments.push((id, comment));
            }
        }
        Ok(())
    }
}

/// The class list's filter; empty fields do not filter.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClassFilter {
    pub grade: Option<String>,
    /// A level rank, or `none` for essays without a model level (as text: `0`…`4`, `none`).
    pub level: Option<String>,
    /// `over`, `empty` or `flagged` (either).
    pub comment: Option<String>,
    /// `yes` / `no`.
    pub reviewed: Option<String>,
    /// Only essays where the teacher's level differs from the model's.
    pub disagreements: bool,
    /// Words that must all occur in the title or the text (case-insensitive).
    pub query: String,
}

/// Indices (into `view.essays`) that pass the filter, in list order.
pub fn filter_class(
    view: &ClassView,
    filter: &ClassFilter,
    adjustment: impl Fn(&str) -> Option<Adjustment>,
) -> Vec<usize> {
    let words: Vec<String> = filter
        .query
        .split_whitespace()
        .map(str::to_lowercase)
        .collect();
    view.essays
        .iter()
        .enumerate()
        .filter(|(_, e)| filter.grade.as_ref().is_none_or(|g| &e.grade == g))
        .filter(|(_, e)| {
            filter.level.as_deref().is_none_or(|l| match l {
                "none" => e.level_rank.is_none(),
                k => e.level_rank.map(|r| r.to_string()).as_deref() == Some(k),
            })
        })
        .filter(|(_, e)| {
            filter.comment.as_deref().is_none_or(|c| match c {
                "flagged" => e.comment_flag.is_some(),
                flag => e.comment_flag.as_deref() == Some(flag),
            })
        })
        .filter(|(_, e)| {
            let a = adjustment(&e.id).unwrap_or_default();
            let reviewed = filter
                .reviewed
                .as_deref()
                .is_none_or(|r| (r == "yes") == a.reviewed);
            let disagrees = !filter.disagreements
                || (a.reviewed && a.level.is_some() && a.level != e.level_rank);
            reviewed && disagrees
        })
        .filter(|(_, e)| {
            if words.is_empty() {
                return true;
            }
            let text = format!("{} {} {}", e.id, e.title, e.content).to_lowercase();
            words.iter().all(|w| text.contains(w.as_str()))
        })
        .map(|(i, _)| i)
        .collect()
}

/// The flag of a comment: over the limit, empty (blank), or fine.
pub fn comment_flag(comment: &str, limit: usize) -> Option<String> {
    if comment.chars().count() > limit {
        Some("over".into())
    } else if comment.trim().is_empty() {
        Some("empty".into())
    } else {
        None
    }
}

/// The teacher's adjustment of one essay.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Adjustment {
    /// The teacher's level (rank, 0 = best).
    pub level: Option<usize>,
    pub comment: Option<String>,
    pub reviewed: bool,
}

/// Teacher vs model on the reviewed essays that have a model level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Agreement {
    pub n: usize,
    /// Share of essays where the teacher kept the model's level.
    pub exact: Option<f64>,
    pub acc_a: Option<f64>,
    pub qwk: Option<f64>,
    /// Counts, teacher (rows) × model (columns), levels best first.
    pub confusion: Vec<Vec<u64>>,
}

/// Agreement between the teacher's levels (the model's where the teacher kept it) and the
/// model's, on reviewed essays with a model level.
pub fn agreement(view: &ClassView, adjustment: impl Fn(&str) -> Option<Adjustment>) -> Agreement {
    let n_levels = view.levels.len();
    let pairs: Vec<(usize, usize)> = view
        .essays
        .iter()
        .filter_map(|e| {
            let a = adjustment(&e.id).filter(|a| a.reviewed)?;
            let model = e.level_rank?;
            Some((a.level.unwrap_or(model), model))
        })
        .collect();
    let mut confusion = vec![vec![0u64; n_levels]; n_levels];
    for &(t, m) in &pairs {
        if t < n_levels && m < n_levels {
            confusion[t][m] += 1;
        }
    }
    let levels = |pick: fn(&(usize, usize)) -> usize| -> Option<Vec<Level>> {
        pairs.iter().map(|p| level_at(pick(p))).collect()
    };
    let (teacher, model) = (levels(|p| p.0), levels(|p| p.1));
    let scores = teacher
        .as_ref()
        .zip(model.as_ref())
        .filter(|(t, _)| !t.is_empty())
        .and_then(|(t, m)| track1_scores(t, m).ok());
    let values = |v: &Option<Vec<Level>>| -> Vec<f64> {
        v.as_ref()
            .map(|l| l.iter().map(|x| x.value()).collect())
            .unwrap_or_default()
    };
    let (tv, mv) = (values(&teacher), values(&model));
    let labels: Vec<f64> = (0..5).map(f64::from).collect();
    let kappa = (!tv.is_empty())
        .then(|| quadratic_weighted_kappa_with_labels(&tv, &mv, &labels).ok())
        .flatten();
    Agreement {
        n: pairs.len(),
        exact: (!pairs.is_empty())
            .then(|| pairs.iter().filter(|(t, m)| t == m).count() as f64 / pairs.len() as f64),
        acc_a: scores.as_ref().map(|s| s.acc_a),
        qwk: kappa,
        confusion,
    }
}

/// The levels and comments with the teacher's adjustments applied (what is released).
pub fn adjusted(
    view: &ClassView,
    adjustment: impl Fn(&str) -> Option<Adjustment>,
) -> Vec<(String, Option<String>, Option<String>)> {
    let mut rows: Vec<&ClassRow> = view.essays.iter().collect();
    crate::order::sort_by_key(&mut rows, |e| id_order(&e.id));
    rows.into_iter()
        .map(|e| {
            let a = adjustment(&e.id).unwrap_or_default();
            let level = a
                .level
                .and_then(|k| view.levels.get(k))
                .map(|l| l.label.clone())
                .or_else(|| e.level.clone());
            let comment = e.adjusted(&a).1.map(str::to_string);
            (e.id.clone(), level, comment)
        })
        .collect()
}

/// Ids in numeric order when they are numbers (the file order of the test data).
fn id_order(id: &str) -> (u8, u64, String) {
    grade_order(id)
}

/// A JSON value of an id: a number when the id is one, else a string.
fn id_value(id: &str) -> serde_json::Value {
    id.parse::<u64>()
        .map_or_else(|_| serde_json::Value::String(id.into()), Into::into)
}

/// The EOTGC Track 1 submission `[{id, classification}]` with the adjustments applied.
pub fn track1_json(view: &ClassView, adjustment: impl Fn(&str) -> Option<Adjustment>) -> String {
    let rows: Vec<serde_json::Value> = adjusted(view, adjustment)
        .into_iter()
        .filter_map(|(id, level, _)| {
            level.map(|l| serde_json::json!({"id": id_value(&id), "classification": l}))
        })
        .collect();
    serde_json::to_string_pretty(&rows).unwrap_or_default()
}

/// The EOTGC Track 2 submission `[{id, comment}]` with the adjustments applied.
pub fn track2_json(view: &ClassView, adjustment: impl Fn(&str) -> Option<Adjustment>) -> String {
    let rows: Vec<serde_json::Value> = adjusted(view, adjustment)
        .into_iter()
        .filter_map(|(id, _, comment)| {
            comment.map(|c| serde_json::json!({"id": id_value(&id), "comment": c}))
        })
        .collect();
    serde_json::to_string_pretty(&rows).unwrap_or_default()
}

/// The class as a spreadsheet table: a header and one row per essay (id order), with the
/// model's, the gold and the teacher's levels, the comment as released, its length, reviewed.
pub fn class_table(
    view: &ClassView,
    adjustment: impl Fn(&str) -> Option<Adjustment>,
) -> Vec<Vec<String>> {
    let mut rows: Vec<&ClassRow> = view.essays.iter().collect();
    crate::order::sort_by_key(&mut rows, |e| id_order(&e.id));
    let label = |k: Option<usize>| {
        k.and_then(|k| view.levels.get(k))
            .map(|l| l.label.clone())
            .unwrap_or_default()
    };
    let mut out = vec![
        [
            "id",
            "grade",
            "title",
            "model_level",
            "gold_level",
            "teacher_level",
            "comment",
            "comment_chars",
            "reviewed",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for e in rows {
        let a = adjustment(&e.id).unwrap_or_default();
        let comment = a
            .comment
            .clone()
            .or_else(|| e.comment.clone())
            .unwrap_or_default();
        out.push(vec![
            e.id.clone(),
            e.grade.clone(),
            e.title.clone(),
            e.level.clone().unwrap_or_default(),
            label(e.gold_rank),
            label(a.level),
            comment.clone(),
            comment.chars().count().to_string(),
            if a.reviewed { "yes" } else { "no" }.into(),
        ]);
    }
    out
}

/// The class as CSV, UTF-8 with a BOM (spreadsheet programs then read Chinese correctly);
/// every cell [`crate::table::csv_safe`] (a comment starting with `=` is text, not a formula; the
/// XLSX export writes cells as strings, which are never formulas).
pub fn class_csv(view: &ClassView, adjustment: impl Fn(&str) -> Option<Adjustment>) -> String {
    table_csv(class_table(view, adjustment))
}

/// A class table ([`class_table`], perhaps with more columns) as CSV, UTF-8 with a BOM, every
/// cell [`crate::table::csv_safe`].
pub fn table_csv(rows: Vec<Vec<String>>) -> String {
    let mut out = csv::Writer::from_writer(Vec::new());
    for row in rows {
        // Writing to memory cannot fail.
        let _ = out.write_record(row.iter().map(|c| crate::table::csv_safe(c)));
    }
    let bytes = out.into_inner().unwrap_or_default();
    format!("\u{feff}{}", String::from_utf8_lossy(&bytes))
}

/// The confusion matrix of the teacher's and the model's levels as the generic type the charts
/// draw.
pub fn agreement_matrix(a: &Agreement) -> ConfusionMatrix {
    let n = a.confusion.len();
    ConfusionMatrix {
        labels: (0..n).map(|k| k as f64).collect(),
        counts: a.confusion.iter().flatten().copied().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, grade: &str, rank: Option<usize>) -> ClassRow {
        ClassRow {
            id: id.into(),
            grade: grade.into(),
            requirement: String::new(),
            title: "t".into(),
            content: String::new(),
            level: rank.map(|k| Level::ALL[k].chinese().to_string()),
            level_rank: rank,
            gold_rank: None,
            comment: Some("好".into()),
            comment_chars: Some(1),
            comment_flag: None,
        }
    }

    fn view() -> ClassView {
        ClassView::new(
            "e.json".into(),
            "x".into(),
            eotgc_levels(&[]),
            vec![
                row("0", "10", Some(0)),
                row("1", "9", Some(4)),
                row("2", "9", None),
                row("3", "9", Some(2)),
            ],
            250,
        )
    }

    #[test]
    fn weakest_first_and_distribution_per_grade() {
        let v = view();
        let order: Vec<&str> = v.essays.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(order, ["1", "3", "0", "2"]);
        assert_eq!(v.distribution[0].group, "9");
        assert_eq!(v.distribution[0].counts, [0, 0, 1, 0, 1]);
        assert_eq!(v.distribution[0].unlevelled, 1);
        assert_eq!(v.distribution[2].group, "overall");
        assert_eq!(v.by_title[0].counts.iter().sum::<u64>(), 3);
    }

    #[test]
    fn filters() {
        let v = view();
        let none = |_: &str| None;
        let f = |filter: ClassFilter| filter_class(&v, &filter, none);
        assert_eq!(
            f(ClassFilter {
                grade: Some("9".into()),
                ..ClassFilter::default()
            })
            .len(),
            3
        );
        assert_eq!(
            f(ClassFilter {
                level: Some("none".into()),
                ..ClassFilter::default()
            }),
            [3]
        );
        assert_eq!(
            f(ClassFilter {
                level: Some("4".into()),
                ..ClassFilter::default()
            }),
            [0]
        );
        assert_eq!(
            f(ClassFilter {
                reviewed: Some("yes".into()),
                ..ClassFilter::default()
            }),
            Vec::<usize>::new()
        );
        assert_eq!(v.distribution[0].percent[2], 100.0 / 3.0);
    }

    #[test]
    fn model_results_fill_only_what_is_missing() {
        let mut v = view();
        v.essays[0].comment = None;
        assert_eq!(
            v.missing(true, false)
                .iter()
                .map(|e| e.id.as_str())
                .collect::<Vec<_>>(),
            ["2"]
        );
        assert_eq!(v.missing(false, true)[0].id, "1");
        let filled = v.with_model_results(&ModelResults {
            levels: vec![("2".into(), "较好".into()), ("0".into(), "不合格".into())],
            comments: vec![("1".into(), "新".into()), ("3".into(), "不用".into())],
        });
        let get = |id: &str| filled.essays.iter().find(|e| e.id == id).unwrap().clone();
        assert_eq!(get("2").level.as_deref(), Some("较好"));
        assert_eq!(get("2").level_rank, Some(1));
        assert_eq!(get("0").level_rank, Some(0), "an existing level is kept");
        assert_eq!(get("1").comment.as_deref(), Some("新"));
        assert_eq!(get("1").comment_chars, Some(1));
        assert_eq!(
            get("3").comment.as_deref(),
            Some("好"),
            "an existing comment is kept"
        );
        assert_eq!(filled.distribution[0].unlevelled, 0);
        assert_eq!(filled.distribution[0].counts, [0, 1, 1, 0, 1]);
        assert!(filled.missing(true, true).is_empty());
    }

    #[test]
    fn run_outputs_and_essay_records() {
        let mut r = ModelResults::default();
        r.add_run_output(
            "track1.json",
            r#"[{"id": 3, "classification": "一般"}, {"id": "x", "classification": null}]"#,
        )
        .unwrap();
        r.add_run_output("track2.json", r#"[{"id": 3, "comment": "好"}]"#)
            .unwrap();
        assert_eq!(r.levels, [("3".to_string(), "一般".to_string())]);
        assert_eq!(r.comments, [("3".to_string(), "好".to_string())]);
        let e = r.add_run_output("track1.json", "{}").unwrap_err();
        assert!(e.starts_with("track1.json: expected"), "{e}");
        let v = view();
        assert_eq!(v.essays[0].essay_record()["id"], 1);
        assert_eq!(v.essays[0].essay_record()["grade"], "9");
    }

    #[test]
    fn agreement_and_exports_apply_the_adjustments() {
        let v = view();
        let adj = |id: &str| match id {
            "0" => Some(Adjustment {
                level: Some(1),
                comment: Some("改".into()),
                reviewed: true,
            }),
            "1" => Some(Adjustment {
                level: None,
                comment: None,
                reviewed: true,
            }),
            _ => None,
        };
        let a = agreement(&v, adj);
        assert_eq!(a.n, 2);
        assert_eq!(a.exact, Some(0.5));
        assert_eq!(a.confusion[1][0], 1);
        assert_eq!(a.confusion[4][4], 1);
        let t1: serde_json::Value = serde_json::from_str(&track1_json(&v, adj)).unwrap();
        assert_eq!(t1[0]["id"], 0);
        assert_eq!(t1[0]["classification"], "较好");
        assert_eq!(t1.as_array().unwrap().len(), 3);
        let t2: serde_json::Value = serde_json::from_str(&track2_json(&v, adj)).unwrap();
        assert_eq!(t2[0]["comment"], "改");
        // One essay's adjusted level and comment: the teacher's where set, else the model's.
        let adjusted = |id: &str| {
            let e = v.essays.iter().find(|e| e.id == id).unwrap();
            let a = adj(id).unwrap_or_default();
            let (rank, comment) = e.adjusted(&a);
            (rank, comment.map(str::to_string))
        };
        assert_eq!(adjusted("0"), (Some(1), Some("改".into())));
        assert_eq!(adjusted("1"), (Some(4), Some("好".into())));
        assert_eq!(adjusted("2"), (None, Some("好".into())));
        // Printed by grade, then id in numeric order.
        let printed: Vec<&str> = v.print_order().iter().map(|e| e.id.as_str()).collect();
        assert_eq!(printed, ["1", "2", "3", "0"]);
        let csv = class_csv(&v, adj);
        assert!(csv.starts_with("\u{feff}id,grade,title,model_level"));
        assert!(csv.contains("0,10,t,优秀,,较好,改,1,yes"));
        // A teacher's comment that looks like a formula is text in a spreadsheet.
        let formula = |id: &str| {
            (id == "0").then(|| Adjustment {
                level: None,
                comment: Some("=HYPERLINK(\"http://x\",\"y\")".into()),
                reviewed: false,
            })
        };
        let csv = class_csv(&v, formula);
        assert!(
            csv.contains(",\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\","),
            "{csv}"
        );
        assert_eq!(
            comment_flag(&"字".repeat(251), 250).as_deref(),
            Some("over")
        );
        assert_eq!(comment_flag(" ", 250).as_deref(), Some("empty"));
    }
}
