//! Benchmarks defined by a spec, without code: which files, which fields, which metrics.
//!
//! A [`Spec`] is data (read from TOML by the CLI and the server, from JSON in the browser; the
//! format is `docs/benchmark-spec.md`, its JSON Schema `docs/benchmark-spec.schema.json`).
//! Scoring with it ([`score`]) reads each file into records ([`read`]), joins gold and
//! predictions, and runs the metrics of this crate — the very functions the built-in benchmarks
//! call — so a spec that restates a built-in benchmark gives its numbers bit for bit
//! (`specs/examples/asap-aes.toml` = `score asap-aes`, `specs/examples/pairs.toml` =
//! `score pairs`).
//!
//! ```text
//! files      role → format (jsonl | json | csv | tsv | auto), encoding, fields (id, gold,
//!            pred, subset, text); the role that maps `pred` is the model's file, the others
//!            are shared
//! join       by id (every gold record needs one prediction, no stray ids) or by position
//! metrics    [[metrics]]: a key, a metric from the library with its parameters, computed
//!            overall, per subset or both
//! aggregates [[aggregates]]: a per-subset metric folded over the subsets (mean, Fisher-z
//!            mean, mean weighted by n)
//! variants   [[variants]]: a name and the parameters it changes
//! ```
//! [`Spec::validate`] refuses contradictions with the path of the key at fault
//! ([`SpecError::path`]); the TOML reader turns that path into the spec file's line. Unknown
//! keys are refused when the spec is deserialised (`deny_unknown_fields`).

pub mod read;
pub mod score;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

pub use score::{Scored, score, score_records};

/// Most file roles, metrics, aggregates and variants a spec may declare.
pub const MAX_ROLES: usize = 8;
pub const MAX_METRICS: usize = 64;
pub const MAX_VARIANTS: usize = 16;

/// A benchmark defined by a spec file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// A display name.
    pub name: String,
    /// The key reports (`benchmark`), URLs and `score --spec` use: lowercase letters, digits
    /// and `-`.
    pub key: String,
    /// The spec's own version (any text; shown with the key).
    pub version: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The files, by role key, in the order `score --spec` takes them.
    pub files: IndexMap<String, FileSpec>,
    /// How gold and predictions pair up when they are in different files.
    #[serde(default)]
    pub join: Join,
    /// What the gold and predicted values are.
    #[serde(default)]
    pub values: Values,
    /// How subsets are named and ordered.
    #[serde(default)]
    pub subsets: Subsets,
    pub metrics: Vec<MetricSpec>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aggregates: Vec<AggregateSpec>,
    /// The metric a leaderboard ranks by (default: the first overall one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary: Option<String>,
    #[serde(default)]
    pub lower_is_better: bool,
    #[serde(default)]
    pub display: Display,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<VariantSpec>,
}

/// One file role.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct FileSpec {
    /// A label shown where the file is named (default: the role key).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub label: String,
    pub format: Format,
    /// `utf-8` (default) or `latin-1` (csv, tsv, auto); a UTF-8 byte-order mark always means
    /// UTF-8.
    #[serde(default)]
    pub encoding: Encoding,
    /// csv: `,` (default), another single character, or `auto` (a tab in the header line
    /// means tabs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delimiter: Option<String>,
    /// csv and tsv: whether `"` quotes fields (default: csv yes, tsv no — the Kaggle TSV has
    /// bare quotes in its essays).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quoting: Option<bool>,
    /// The id field; several names = the first present in the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Names>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gold: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pred: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subset: Option<String>,
    /// A record's weight (a number ≥ 0): the metrics that take weights average with them, as
    /// scikit-learn's `sample_weight` / `np.average(…, weights=…)` do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<String>,
    /// Text fields kept for the samples (question, essay, reply).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub text: Vec<String>,
    /// Named numeric fields a `mean` metric can average (name → field).
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub numbers: IndexMap<String, String>,
}

impl FileSpec {
    /// Whether a file whose fields `has` tells has this role's: gold, pred and subset when
    /// mapped, and one of the ids when mapped (how a file is recognised as this role's).
    pub fn has_fields(&self, has: impl Fn(&str) -> bool) -> bool {
        let ids: &[String] = self.id.as_ref().map_or(&[], |n| n.all());
        self.gold
            .iter()
            .chain(&self.pred)
            .chain(&self.subset)
            .chain(&self.weight)
            .all(|f| has(f))
            && (ids.is_empty() || ids.iter().any(|f| has(f)))
    }
}

/// A field name, or alternatives (the first present wins).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Names {
    One(String),
    Any(Vec<String>),
}

impl Names {
    pub fn all(&self) -> &[String] {
        match self {
            Self::One(name) => std::slice::from_ref(name),
            Self::Any(names) => names,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// One JSON object per line (blank lines skipped).
    Jsonl,
    /// A JSON array of objects.
    Json,
    /// Comma-separated (or [`FileSpec::delimiter`]) with a header row.
    #[default]
    Csv,
    /// Tab-separated with a header row.
    Tsv,
    /// JSONL when the first non-blank character is `{`, else CSV (the generic pairs rule).
    Auto,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Encoding {
    #[default]
    #[serde(rename = "utf-8")]
    Utf8,
    #[serde(rename = "latin-1")]
    Latin1,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Join {
    /// By the `id` fields: every gold record needs exactly one prediction.
    #[default]
    Id,
    /// The n-th gold record with the n-th prediction (equal counts).
    Position,
}

/// The types of the gold and predicted values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Values {
    #[serde(default)]
    pub gold: ValueType,
    #[serde(default)]
    pub pred: ValueType,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ValueType {
    /// A finite number (a JSON number or a numeric string).
    #[default]
    Number,
    /// A whole number.
    Integer,
    /// Text compared as text (a JSON number as it is written).
    Label,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Subsets {
    /// The subset's name from its value: `{}` is replaced by the value (`set_{}` → `set_1`).
    #[serde(default = "plain_name")]
    pub name: String,
    #[serde(default)]
    pub order: SubsetOrder,
    /// The values allowed (any when empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

fn plain_name() -> String {
    "{}".into()
}

impl Default for Subsets {
    fn default() -> Self {
        Self {
            name: plain_name(),
            order: SubsetOrder::default(),
            values: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum SubsetOrder {
    /// Numeric values ascending, then the others by text.
    #[default]
    Numeric,
    /// By text.
    Text,
    /// As first met in the gold file.
    File,
}

/// One metric of the report. Its parameters repeat [`Params`]' fields rather than flatten them:
/// serde's `flatten` lets unknown keys through, and a spec must refuse them with their line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricSpec {
    /// Its key in the report.
    pub key: String,
    pub metric: MetricKind,
    /// Where it is computed: overall and per subset (`both`, default), or one of them.
    #[serde(default)]
    pub scope: Scope,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formula: Option<QwkFormula>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<Vec<f64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<[i64; 2]>,
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub ranges: IndexMap<String, [i64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pred: Option<Transform>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clip: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalize: Option<Vec<Normalize>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub of: Option<String>,
}

impl MetricSpec {
    /// Its parameters (the fields after `scope`: see [`Params`]).
    pub fn params(&self) -> Params {
        Params {
            formula: self.formula,
            labels: self.labels.clone(),
            range: self.range,
            ranges: self.ranges.clone(),
            pred: self.pred,
            clip: self.clip,
            normalize: self.normalize.clone(),
            of: self.of.clone(),
        }
    }

    /// This metric with the parameters `p`.
    pub fn with_params(&self, p: Params) -> MetricSpec {
        MetricSpec {
            key: self.key.clone(),
            metric: self.metric,
            scope: self.scope,
            formula: p.formula,
            labels: p.labels,
            range: p.range,
            ranges: p.ranges,
            pred: p.pred,
            clip: p.clip,
            normalize: p.normalize,
            of: p.of,
        }
    }
}

/// A metric's parameters (each applies to some metrics: [`Spec::validate`] says which).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// qwk: `sklearn` (`cohen_kappa_score(weights="quadratic")`, default) or `kaggle`
    /// (ASAP's `quadratic_weighted_kappa`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formula: Option<QwkFormula>,
    /// qwk (sklearn): the declared label set (`labels=`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<Vec<f64>>,
    /// qwk (kaggle): the rating range `[min, max]` (default: observed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<[i64; 2]>,
    /// qwk (kaggle): a range per subset value (`"1" = [2, 12]`), used per subset.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub ranges: IndexMap<String, [i64; 2]>,
    /// Numeric metrics: what a prediction counts as — `as-is` (default), `truncate` (toward
    /// zero, numpy's int cast) or `round` (half to even, `np.rint`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pred: Option<Transform>,
    /// qwk (kaggle): clip the counted prediction to the range.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clip: Option<bool>,
    /// exact_match: normalisations applied to both sides, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalize: Option<Vec<Normalize>>,
    /// mean: the value averaged (`gold`, `pred` or a name in a file's `numbers`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub of: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricKind {
    Qwk,
    Pearson,
    Spearman,
    KendallTauB,
    Accuracy,
    F1Macro,
    F1Micro,
    ExactMatch,
    Mae,
    Rmse,
    Mean,
}

impl MetricKind {
    /// Its name in a spec (`kendall_tau_b`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Qwk => "qwk",
            Self::Pearson => "pearson",
            Self::Spearman => "spearman",
            Self::KendallTauB => "kendall_tau_b",
            Self::Accuracy => "accuracy",
            Self::F1Macro => "f1_macro",
            Self::F1Micro => "f1_micro",
            Self::ExactMatch => "exact_match",
            Self::Mae => "mae",
            Self::Rmse => "rmse",
            Self::Mean => "mean",
        }
    }

    /// Whether records' weights apply to it (scikit-learn's `sample_weight` of
    /// `accuracy_score` and the regression errors, `np.average`'s `weights`).
    pub fn takes_weights(self) -> bool {
        matches!(
            self,
            Self::Accuracy | Self::ExactMatch | Self::Mae | Self::Rmse | Self::Mean
        )
    }

    /// Whether it reads gold and predicted values as numbers.
    fn numeric(self) -> bool {
        !matches!(
            self,
            Self::ExactMatch | Self::Accuracy | Self::F1Macro | Self::F1Micro | Self::Mean
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QwkFormula {
    Sklearn,
    Kaggle,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Transform {
    AsIs,
    Truncate,
    Round,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Normalize {
    /// Python's `str.strip()`.
    Strip,
    /// Lowercase (Unicode).
    Lower,
    /// Runs of whitespace become one space.
    CollapseSpaces,
    /// ASCII punctuation removed.
    RemovePunctuation,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    #[default]
    Both,
    Overall,
    Subsets,
}

/// A per-subset metric folded into one overall number.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AggregateSpec {
    pub key: String,
    /// The per-subset metric it folds.
    pub of: String,
    pub how: Fold,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fold {
    /// `np.mean` over the subsets (macro).
    Mean,
    /// Kaggle's `mean_quadratic_weighted_kappa`: κ clipped to ±0.999, Fisher z, mean, back.
    FisherMean,
    /// Σ nₛ·vₛ / Σ nₛ.
    WeightedMean,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Display {
    /// 1 (default) or 100 (percentages).
    #[serde(default = "one")]
    pub scale: f64,
    #[serde(default = "four")]
    pub decimals: u8,
    /// Metric keys in table order (default: as declared).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<String>,
}

fn one() -> f64 {
    1.0
}

fn four() -> u8 {
    4
}

impl Default for Display {
    fn default() -> Self {
        Self {
            scale: 1.0,
            decimals: 4,
            columns: Vec::new(),
        }
    }
}

/// A variant: a name and the parameters it changes in some metrics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantSpec {
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// Metric key → the parameters set in this variant.
    pub metrics: IndexMap<String, Params>,
}

/// A contradiction in a spec, at the path of the key at fault (`["metrics", "2", "labels"]`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", self.dotted())]
pub struct SpecError {
    pub path: Vec<String>,
    pub message: String,
}

impl SpecError {
    fn at(path: &[&str], message: impl Into<String>) -> Self {
        Self {
            path: path.iter().map(|s| s.to_string()).collect(),
            message: message.into(),
        }
    }

    /// `metrics[2].labels`.
    pub fn dotted(&self) -> String {
        let mut out = String::new();
        for part in &self.path {
            if part.parse::<usize>().is_ok() {
                out.push_str(&format!("[{part}]"));
            } else {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(part);
            }
        }
        if out.is_empty() { "spec".into() } else { out }
    }
}

fn is_key(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 40
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
        && s.as_bytes()[0].is_ascii_alphanumeric()
}

impl Spec {
    /// The role whose file holds the gold values.
    pub fn gold_role(&self) -> Option<&str> {
        self.files
            .iter()
            .find(|(_, f)| f.gold.is_some())
            .map(|(k, _)| k.as_str())
    }

    /// The role whose file holds the predictions (one per model).
    pub fn pred_role(&self) -> Option<&str> {
        self.files
            .iter()
            .find(|(_, f)| f.pred.is_some())
            .map(|(k, _)| k.as_str())
    }

    /// The variant names, `official` first.
    pub fn variant_names(&self) -> Vec<&str> {
        std::iter::once("official")
            .chain(self.variants.iter().map(|v| v.name.as_str()))
            .collect()
    }

    /// The keys of the overall metrics, in table order.
    pub fn overall_keys(&self) -> Vec<&str> {
        let declared = self
            .metrics
            .iter()
            .filter(|m| m.scope != Scope::Subsets)
            .map(|m| m.key.as_str())
            .chain(self.aggregates.iter().map(|a| a.key.as_str()));
        if self.display.columns.is_empty() {
            declared.collect()
        } else {
            let mut keys: Vec<&str> = self
                .display
                .columns
                .iter()
                .map(String::as_str)
                .filter(|c| declared.clone().any(|k| k == *c))
                .collect();
            keys.extend(declared.filter(|k| !self.display.columns.iter().any(|c| c == k)));
            keys
        }
    }

    /// The primary metric: the declared one, else the first overall metric.
    pub fn primary_metric(&self) -> &str {
        match &self.primary {
            Some(p) => p,
            None => self.overall_keys().first().copied().unwrap_or(""),
        }
    }

    /// The metrics with `variant`'s parameters applied (`official`: as declared).
    pub fn metrics_of(&self, variant: &str) -> Option<Vec<MetricSpec>> {
        if variant == "official" {
            return Some(self.metrics.clone());
        }
        let v = self.variants.iter().find(|v| v.name == variant)?;
        Some(
            self.metrics
                .iter()
                .map(|m| match v.metrics.get(&m.key) {
                    Some(over) => m.with_params(m.params().merged(over)),
                    None => m.clone(),
                })
                .collect(),
        )
    }

    /// Every contradiction refused, with the path of the key at fault.
    pub fn validate(&self) -> Result<(), SpecError> {
        if self.name.trim().is_empty() {
            return Err(SpecError::at(&["name"], "empty"));
        }
        if !is_key(&self.key) {
            return Err(SpecError::at(
                &["key"],
                format!(
                    "{:?}: a key is 1 to 40 lowercase letters, digits, `-` or `_`",
                    self.key
                ),
            ));
        }
        if self.files.is_empty() || self.files.len() > MAX_ROLES {
            return Err(SpecError::at(
                &["files"],
                format!("declare 1 to {MAX_ROLES} file roles"),
            ));
        }
        for (role, file) in &self.files {
            self.validate_file(role, file)?;
        }
        let (Some(gold_role), Some(pred_role)) = (self.gold_role(), self.pred_role()) else {
            return Err(SpecError::at(
                &["files"],
                "one file role must map `gold` and one `pred` (they may be the same role)",
            ));
        };
        for key in ["gold", "pred"] {
            let n = self
                .files
                .values()
                .filter(|f| {
                    if key == "gold" {
                        f.gold.is_some()
                    } else {
                        f.pred.is_some()
                    }
                })
                .count();
            if n > 1 {
                return Err(SpecError::at(
                    &["files"],
                    format!("{n} roles map `{key}`: exactly one may"),
                ));
            }
        }
        if let Some((role, _)) = self.files.iter().find(|(r, f)| {
            r.as_str() != gold_role
                && r.as_str() != pred_role
                && f.gold.is_none()
                && f.pred.is_none()
        }) {
            return Err(SpecError::at(
                &["files", role],
                "this role maps neither `gold` nor `pred`: nothing would read it",
            ));
        }
        if gold_role != pred_role && self.join == Join::Id {
            for role in [gold_role, pred_role] {
                if self.files[role].id.is_none() {
                    return Err(SpecError::at(
                        &["files", role, "id"],
                        "gold and predictions are joined by id (`join = \"id\"`): map an `id` field, or set `join = \"position\"`",
                    ));
                }
            }
        }
        let subset_roles: Vec<&String> = self
            .files
            .iter()
            .filter(|(_, f)| f.subset.is_some())
            .map(|(k, _)| k)
            .collect();
        if subset_roles.len() > 1 {
            return Err(SpecError::at(
                &["files", subset_roles[1], "subset"],
                "only one role may map `subset`",
            ));
        }
        let has_subsets = !subset_roles.is_empty();
        let weight_roles: Vec<&String> = self
            .files
            .iter()
            .filter(|(_, f)| f.weight.is_some())
            .map(|(k, _)| k)
            .collect();
        if weight_roles.len() > 1 {
            return Err(SpecError::at(
                &["files", weight_roles[1], "weight"],
                "only one role may map `weight`",
            ));
        }
        if let Some(role) = weight_roles.first()
            && let Some((i, m)) = self
                .metrics
                .iter()
                .enumerate()
                .find(|(_, m)| !m.metric.takes_weights())
        {
            return Err(SpecError::at(
                &["metrics", &i.to_string(), "metric"],
                format!(
                    "`{}` takes no weights, and the role `{role}` maps `weight`: weights apply to accuracy, exact_match, mae, rmse and mean",
                    m.metric.name()
                ),
            ));
        }
        if !self.subsets.name.contains("{}") {
            return Err(SpecError::at(
                &["subsets", "name"],
                "the name needs `{}` where the subset's value goes",
            ));
        }
        if self.metrics.is_empty() || self.metrics.len() > MAX_METRICS {
            return Err(SpecError::at(
                &["metrics"],
                format!("declare 1 to {MAX_METRICS} metrics"),
            ));
        }
        let mut keys: Vec<&str> = Vec::new();
        for (i, m) in self.metrics.iter().enumerate() {
            let at = i.to_string();
            if !is_key(&m.key) {
                return Err(SpecError::at(
                    &["metrics", &at, "key"],
                    format!(
                        "{:?} is not a metric key (lowercase letters, digits, `_`, `-`)",
                        m.key
                    ),
                ));
            }
            if keys.contains(&m.key.as_str()) {
                return Err(SpecError::at(
                    &["metrics", &at, "key"],
                    format!("`{}` is declared twice", m.key),
                ));
            }
            keys.push(&m.key);
            if m.scope == Scope::Subsets && !has_subsets {
                return Err(SpecError::at(
                    &["metrics", &at, "scope"],
                    "`scope = \"subsets\"` needs a role that maps `subset`",
                ));
            }
            self.validate_params(m, &m.params(), &["metrics", &at], has_subsets)?;
        }
        for (i, a) in self.aggregates.iter().enumerate() {
            let at = i.to_string();
            if !is_key(&a.key) || keys.contains(&a.key.as_str()) {
                return Err(SpecError::at(
                    &["aggregates", &at, "key"],
                    format!("`{}` is not a new metric key", a.key),
                ));
            }
            match self.metrics.iter().find(|m| m.key == a.of) {
                None => {
                    return Err(SpecError::at(
                        &["aggregates", &at, "of"],
                        format!("no metric `{}`", a.of),
                    ));
                }
                Some(m) if m.scope == Scope::Overall || !has_subsets => {
                    return Err(SpecError::at(
                        &["aggregates", &at, "of"],
                        format!("`{}` is not computed per subset", a.of),
                    ));
                }
                Some(_) => {}
            }
            keys.push(&a.key);
        }
        let overall = self.overall_keys();
        if overall.is_empty() {
            return Err(SpecError::at(
                &["metrics"],
                "no overall number: give a metric `scope = \"both\"` or `\"overall\"`, or an aggregate",
            ));
        }
        if let Some(p) = &self.primary
            && !overall.contains(&p.as_str())
        {
            return Err(SpecError::at(
                &["primary"],
                format!("`{p}` is not an overall metric of this spec"),
            ));
        }
        if let Some(c) = self
            .display
            .columns
            .iter()
            .find(|c| !keys.contains(&c.as_str()))
        {
            return Err(SpecError::at(
                &["display", "columns"],
                format!("no metric `{c}`"),
            ));
        }
        if !(self.display.scale == 1.0 || self.display.scale == 100.0) {
            return Err(SpecError::at(&["display", "scale"], "1 or 100"));
        }
        if self.display.decimals > 12 {
            return Err(SpecError::at(&["display", "decimals"], "at most 12"));
        }
        if self.variants.len() > MAX_VARIANTS {
            return Err(SpecError::at(
                &["variants"],
                format!("at most {MAX_VARIANTS} variants"),
            ));
        }
        let mut names = vec!["official"];
        for (i, v) in self.variants.iter().enumerate() {
            let at = i.to_string();
            if !is_key(&v.name) || names.contains(&v.name.as_str()) {
                return Err(SpecError::at(
                    &["variants", &at, "name"],
                    format!("{:?} is not a new variant name", v.name),
                ));
            }
            names.push(&v.name);
            for (key, over) in &v.metrics {
                let Some(m) = self.metrics.iter().find(|m| &m.key == key) else {
                    return Err(SpecError::at(
                        &["variants", &at, "metrics", key],
                        format!("no metric `{key}`"),
                    ));
                };
                let merged = m.params().merged(over);
                self.validate_params(m, &merged, &["variants", &at, "metrics", key], has_subsets)?;
            }
        }
        Ok(())
    }

    fn validate_file(&self, role: &str, file: &FileSpec) -> Result<(), SpecError> {
        if !is_key(role) {
            return Err(SpecError::at(
                &["files", role],
                "a role key is lowercase letters, digits, `-` or `_`",
            ));
        }
        let json = matches!(file.format, Format::Jsonl | Format::Json);
        if json && file.encoding != Encoding::Utf8 {
            return Err(SpecError::at(&["files", role, "encoding"], "JSON is UTF-8"));
        }
        if file.delimiter.is_some() && file.format != Format::Csv {
            return Err(SpecError::at(
                &["files", role, "delimiter"],
                "a delimiter applies to `format = \"csv\"` (tsv is tabs)",
            ));
        }
        if let Some(d) = &file.delimiter
            && d != "auto"
            && !(d.chars().count() == 1 && d.is_ascii() && d != "\"" && d != "\n")
        {
            return Err(SpecError::at(
                &["files", role, "delimiter"],
                format!("{d:?}: one ASCII character, or \"auto\""),
            ));
        }
        if file.quoting.is_some() && !matches!(file.format, Format::Csv | Format::Tsv) {
            return Err(SpecError::at(
                &["files", role, "quoting"],
                "quoting applies to csv and tsv",
            ));
        }
        let fields = file
            .id
            .iter()
            .flat_map(|n| n.all())
            .chain(&file.gold)
            .chain(&file.pred)
            .chain(&file.subset)
            .chain(&file.weight)
            .chain(&file.text)
            .chain(file.numbers.values());
        for f in fields {
            if f.trim().is_empty() {
                return Err(SpecError::at(&["files", role], "an empty field name"));
            }
        }
        if let Some(Names::Any(names)) = &file.id
            && names.is_empty()
        {
            return Err(SpecError::at(
                &["files", role, "id"],
                "name at least one field",
            ));
        }
        Ok(())
    }

    fn validate_params(
        &self,
        m: &MetricSpec,
        p: &Params,
        at: &[&str],
        has_subsets: bool,
    ) -> Result<(), SpecError> {
        let here = |key: &str, message: String| {
            let mut path = at.to_vec();
            path.push(key);
            SpecError::at(&path, message)
        };
        let kind = m.metric;
        let kaggle = kind == MetricKind::Qwk && p.formula == Some(QwkFormula::Kaggle);
        let only = |key: &str, set: bool, allowed: bool, what: &str| {
            if set && !allowed {
                Err(here(key, format!("`{key}` applies to {what} only")))
            } else {
                Ok(())
            }
        };
        only(
            "formula",
            p.formula.is_some(),
            kind == MetricKind::Qwk,
            "qwk",
        )?;
        only(
            "labels",
            p.labels.is_some(),
            kind == MetricKind::Qwk && !kaggle,
            "qwk with formula = \"sklearn\"",
        )?;
        only(
            "range",
            p.range.is_some(),
            kaggle,
            "qwk with formula = \"kaggle\"",
        )?;
        only(
            "ranges",
            !p.ranges.is_empty(),
            kaggle,
            "qwk with formula = \"kaggle\"",
        )?;
        only(
            "clip",
            p.clip.is_some(),
            kaggle,
            "qwk with formula = \"kaggle\"",
        )?;
        only(
            "pred",
            p.pred.is_some(),
            kind.numeric(),
            "numeric metrics (qwk, pearson, spearman, kendall_tau_b, mae, rmse)",
        )?;
        only(
            "normalize",
            p.normalize.is_some(),
            kind == MetricKind::ExactMatch,
            "exact_match",
        )?;
        only("of", p.of.is_some(), kind == MetricKind::Mean, "mean")?;
        let bound = crate::asap_aes::MAX_ABS_SCORE;
        let bad_range = |lo: i64, hi: i64| {
            if lo >= hi {
                Some(format!("[{lo}, {hi}]: min must be below max"))
            } else if lo < -bound || hi > bound {
                Some(format!("[{lo}, {hi}]: scores are at most {bound} in size"))
            } else {
                None
            }
        };
        if let Some([lo, hi]) = p.range
            && let Some(why) = bad_range(lo, hi)
        {
            return Err(here("range", why));
        }
        for (value, [lo, hi]) in &p.ranges {
            if let Some(why) = bad_range(*lo, *hi) {
                return Err(here("ranges", format!("{value}: {why}")));
            }
        }
        if !p.ranges.is_empty() {
            if !has_subsets {
                return Err(here(
                    "ranges",
                    "per-subset ranges need a role that maps `subset`".into(),
                ));
            }
            if m.scope != Scope::Subsets && p.range.is_none() {
                return Err(here(
                    "ranges",
                    "an overall qwk needs one `range` too (or `scope = \"subsets\"`)".into(),
                ));
            }
        }
        if p.clip == Some(true) && p.range.is_none() && p.ranges.is_empty() {
            return Err(here("clip", "clipping needs a `range` or `ranges`".into()));
        }
        if let Some(labels) = &p.labels
            && (labels.is_empty() || labels.iter().any(|l| !l.is_finite()))
        {
            return Err(here("labels", "finite numbers, at least one".into()));
        }
        if kind == MetricKind::Mean {
            let Some(of) = &p.of else {
                return Err(here(
                    "of",
                    "a mean names what it averages: `gold`, `pred` or a name in a file's `numbers`"
                        .into(),
                ));
            };
            let known = of == "gold"
                || of == "pred"
                || self.files.values().any(|f| f.numbers.contains_key(of));
            if !known {
                return Err(here("of", format!("no value `{of}`")));
            }
            if (of == "gold" && self.values.gold == ValueType::Label)
                || (of == "pred" && self.values.pred == ValueType::Label)
            {
                return Err(here("of", format!("`{of}` is a label, not a number")));
            }
        }
        let labels = self.values.gold == ValueType::Label || self.values.pred == ValueType::Label;
        if labels && kind.numeric() {
            return Err(SpecError::at(
                &[at, &["metric"]].concat(),
                format!(
                    "`{}` needs numbers, and `values` declares labels",
                    kind.name()
                ),
            ));
        }
        if matches!(
            kind,
            MetricKind::Accuracy | MetricKind::F1Macro | MetricKind::F1Micro
        ) && (self.values.gold == ValueType::Label) != (self.values.pred == ValueType::Label)
        {
            return Err(SpecError::at(
                &["values"],
                "accuracy and F1 compare like with like: gold and pred both labels or both numbers",
            ));
        }
        Ok(())
    }
}

impl Params {
    /// These parameters with `over`'s set ones in their place.
    fn merged(&self, over: &Params) -> Params {
        Params {
            formula: over.formula.or(self.formula),
            labels: over.labels.clone().or_else(|| self.labels.clone()),
            range: over.range.or(self.range),
            ranges: if over.ranges.is_empty() {
                self.ranges.clone()
            } else {
                over.ranges.clone()
            },
            pred: over.pred.or(self.pred),
            clip: over.clip.or(self.clip),
            normalize: over.normalize.clone().or_else(|| self.normalize.clone()),
            of: over.of.clone().or_else(|| self.of.clone()),
        }
    }
}

#[cfg(test)]
mod tests;
