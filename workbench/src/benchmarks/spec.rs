//! A benchmark defined by a spec file (`docs/benchmark-spec.md`): one registry entry made at run
//! time from a [`Spec`] ([`crate::registry::register_spec`]), so its files are recognised,
//! planned, scored, tabled and drilled into like any built-in benchmark's.
//!
//! ```text
//! roles     one per file role of the spec (key "<spec key>-<role>"); the role that maps
//!           `pred` is the model's file, the others are shared
//! recognise a CSV header or first record with the role's mapped fields (gold, pred, subset,
//!           one of the ids)
//! jobs      each predictions file with the one file of every shared role
//! variants  official, and the spec's first declared variant as the page's second toggle
//!           position (`score --spec --variant` reaches every one)
//! samples   id, subset, gold, pred; detail = the record's text fields
//! ```
//! The spec's strings live as long as the process (`Box::leak`): the registry hands out
//! `&'static` keys and labels, and a process loads at most [`MAX_LOADED_SPECS`] specs.

use serde_json::{Map, Value};

use crate::benchmark::{Benchmark, OFFICIAL_ONLY, VariantInfo};
use crate::detect::{Confidence, Detected, Role, RoleInfo, Shape, Sniff};
use crate::drill::{self, Fields, SampleRow, StepComparison, display_number, number_of, text_of};
use crate::session::{Job, Outcome, PlanFile, Scored, Variant, WorkFile, input, the_one};
use crate::table::{self, Table, TableStyle};
use metrics_core::InputError;
use metrics_core::Report;
use metrics_core::spec::score::{Record, records, score_records};
use metrics_core::spec::{FileSpec, MetricSpec, Scope, Spec};

/// Most specs one process registers (each leaks a few hundred bytes of names).
pub const MAX_LOADED_SPECS: usize = 256;

/// The role of the spec file itself: `<key>-spec.toml`'s role is `<key>` + this (a board keeps
/// its spec among its gold files, so it is published and hashed with them).
pub const SPEC_ROLE_SUFFIX: &str = ":spec";

/// A spec as a registry entry.
pub struct SpecBenchmark {
    pub spec: Spec,
    /// The spec file's bytes (a board publishes them among its gold files).
    pub source: Vec<u8>,
    /// SHA-256 of the spec file's bytes (shown with a board, checked by visitors' browsers).
    pub sha256: String,
    key: &'static str,
    label: &'static str,
    metrics: &'static [&'static str],
    primary: &'static str,
    roles: &'static [&'static RoleInfo],
    variants: &'static [VariantInfo],
}

impl std::fmt::Debug for SpecBenchmark {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpecBenchmark")
            .field("key", &self.key)
            .field("sha256", &self.sha256)
            .finish()
    }
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

impl SpecBenchmark {
    /// The registry entry of a checked spec (`spec.validate()` passed).
    pub fn new(spec: Spec, source: Vec<u8>, sha256: String) -> Self {
        let key = leak(spec.key.clone());
        let label = leak(spec.name.clone());
        let metrics: Vec<&'static str> = spec
            .overall_keys()
            .into_iter()
            .map(|k| leak(k.to_string()))
            .collect();
        let primary = metrics
            .iter()
            .copied()
            .find(|m| *m == spec.primary_metric())
            .unwrap_or("");
        let pred_role = spec.pred_role().unwrap_or("");
        let mut roles: Vec<&'static RoleInfo> = spec
            .files
            .iter()
            .map(|(role, file)| {
                &*Box::leak(Box::new(RoleInfo {
                    key: leak(format!("{key}-{role}")),
                    label: leak(if file.label.is_empty() {
                        format!("{}: {role}", spec.name)
                    } else {
                        file.label.clone()
                    }),
                    shared: role != pred_role,
                }))
            })
            .collect();
        // The spec file itself, published with a board beside its gold files.
        roles.push(Box::leak(Box::new(RoleInfo {
            key: leak(format!("{key}{SPEC_ROLE_SUFFIX}")),
            label: leak(format!("{}: the spec (TOML)", spec.name)),
            shared: true,
        })));
        let variants: &'static [VariantInfo] = match spec.variants.first() {
            None => OFFICIAL_ONLY,
            Some(v) => Box::leak(Box::new([
                OFFICIAL_ONLY[0],
                VariantInfo {
                    variant: Variant::Corrected,
                    report_name: leak(v.name.clone()),
                    label: leak(if v.label.is_empty() {
                        v.name.clone()
                    } else {
                        v.label.clone()
                    }),
                },
            ])),
        };
        Self {
            key,
            label,
            metrics: Box::leak(metrics.into_boxed_slice()),
            primary,
            roles: Box::leak(roles.into_boxed_slice()),
            variants,
            spec,
            source,
            sha256,
        }
    }

    /// The role of the spec file itself.
    pub fn spec_file_role(&self) -> Role {
        Role(self.roles[self.roles.len() - 1])
    }

    /// The spec's role key of a registry role (`asap-aes-spec-gold` → `gold`).
    fn spec_role(&self, role: Role) -> Option<&str> {
        role.key()
            .strip_prefix(self.key)
            .and_then(|r| r.strip_prefix('-'))
            .filter(|r| self.spec.files.contains_key(*r))
    }

    fn role(&self, spec_role: &str) -> Option<Role> {
        self.roles
            .iter()
            .find(|r| self.spec_role(Role(r)) == Some(spec_role))
            .map(|r| Role(r))
    }
}

/// Whether the head's shape has every field `file` maps (CSV headers compare lower-cased, as
/// [`crate::detect::shape`] gives them; a dotted JSON path by its first key).
fn fits(file: &FileSpec, sniff: &Sniff<'_>) -> bool {
    let shaped = matches!(sniff.shape, Shape::CsvHeader(_)) || sniff.is_records();
    shaped
        && file.has_fields(|f| match &sniff.shape {
            Shape::CsvHeader(columns) => columns.iter().any(|c| c.eq_ignore_ascii_case(f.trim())),
            _ => sniff.has(f) || f.split_once('.').is_some_and(|(head, _)| sniff.has(head)),
        })
}

impl Benchmark for SpecBenchmark {
    #[cfg(feature = "cli")]
    fn command(&self) -> &'static crate::cli::Command {
        &SPEC_COMMAND
    }

    fn key(&self) -> &'static str {
        self.key
    }

    fn label(&self) -> &'static str {
        self.label
    }

    fn metrics(&self) -> &'static [&'static str] {
        self.metrics
    }

    fn primary_metric(&self) -> &'static str {
        self.primary
    }

    fn variants(&self) -> &'static [VariantInfo] {
        self.variants
    }

    fn roles(&self) -> &'static [&'static RoleInfo] {
        self.roles
    }

    fn recognise(&self, sniff: &Sniff<'_>) -> Option<Detected> {
        // The role with the most mapped fields first (a gold file with a subset column
        // before a predictions file that maps only id and pred).
        let mut roles: Vec<(&String, &FileSpec)> = self.spec.files.iter().collect();
        roles.sort_by_key(|(_, f)| {
            std::cmp::Reverse(
                usize::from(f.gold.is_some())
                    + usize::from(f.pred.is_some())
                    + usize::from(f.subset.is_some()),
            )
        });
        roles
            .into_iter()
            .find(|(_, f)| fits(f, sniff))
            .and_then(|(role, _)| self.role(role))
            .map(|role| {
                Detected::new(
                    role,
                    Confidence::High,
                    format!("the fields of {} in the spec `{}`", role.label(), self.key),
                )
            })
    }

    fn plan(&self, files: &[PlanFile<'_>]) -> Vec<Job> {
        let Some(pred_role) = self.spec.pred_role().and_then(|r| self.role(r)) else {
            return Vec::new();
        };
        let shared: Vec<Role> = self
            .spec
            .files
            .keys()
            .filter_map(|r| self.role(r))
            .filter(|r| *r != pred_role)
            .collect();
        files
            .iter()
            .filter(|f| f.role == pred_role)
            .map(|p| {
                let mut job_files = Vec::new();
                for role in &shared {
                    let candidates: Vec<&PlanFile<'_>> =
                        files.iter().filter(|f| f.role == *role).collect();
                    let missing = format!("predictions need the {}: add it", role.label());
                    match the_one(&candidates, &missing, role.label()) {
                        Ok(f) => job_files.push((*role, f.index)),
                        Err(why) => return Job::unusable(self, p, why),
                    }
                }
                job_files.push((pred_role, p.index));
                Job::new(self, format!("{}: {}", self.spec.name, p.name), job_files)
            })
            .collect()
    }

    fn score(&self, files: &[WorkFile], job: &Job, variant: Variant) -> Result<Scored, InputError> {
        let mut given = Vec::new();
        let mut inputs = Vec::new();
        for &(role, i) in &job.files {
            let f = files
                .get(i)
                .ok_or_else(|| InputError::whole_file(&job.title, "a file is gone"))?;
            let spec_role = self
                .spec_role(role)
                .ok_or_else(|| InputError::whole_file(&f.name, "not a file of this spec"))?;
            given.push((spec_role, f.name.as_str(), &f.bytes[..]));
            inputs.push(input(files, i)?);
        }
        let records = records(&self.spec, &given)?;
        let pred_name = job
            .files
            .iter()
            .find(|(r, _)| !r.is_shared())
            .and_then(|&(_, i)| files.get(i))
            .map_or("", |f| f.name.as_str());
        let name = self.report_name(variant).unwrap_or("official");
        let report = score_records(&self.spec, &records, inputs, pred_name, name, true)
            .map_err(|e| InputError::whole_file(pred_name, e))?;
        Ok(Scored::with_records(report, records))
    }

    fn table(&self, report: &Report) -> Table {
        spec_table(&self.spec, report)
    }

    fn sample_row(&self, index: usize, s: &Map<String, Value>) -> SampleRow {
        let get = |k: &str| s.get(k);
        let mut row = drill::empty_row(index, s);
        if let Some(subset) = get("subset") {
            row.subset = text_of(Some(subset));
        }
        row.id = match get("id") {
            Some(id) => text_of(Some(id)),
            None => format!("line {}", text_of(get("line"))),
        };
        row.gold_value = number_of(get("gold"));
        row.pred_value = number_of(get("pred"));
        if row.gold_value.is_some() {
            row.gold = display_number(row.gold_value);
        }
        if row.pred_value.is_some() {
            row.pred = display_number(row.pred_value);
        }
        drill::finish_row(row, Vec::new())
    }

    fn detail(
        &self,
        _files: &[WorkFile],
        outcome: &Outcome,
        index: usize,
        _sample: &Map<String, Value>,
    ) -> Result<(Fields, Vec<StepComparison>), InputError> {
        let scored = outcome.result.as_ref().map_err(Clone::clone)?;
        let fields = scored
            .records::<Vec<Record>>()
            .and_then(|r| r.get(index))
            .map(|r| r.text.clone())
            .unwrap_or_default();
        Ok((fields, Vec::new()))
    }
}

/// A spec's report as a table, in the spec's display (scale, decimals): a spec with one metric,
/// per subset only, whose overall numbers are its aggregates (ASAP-AES restated) gets the papers'
/// layout — one row, a column per subset and per aggregate; any other the subsets × metrics table.
pub fn spec_table(spec: &Spec, report: &Report) -> Table {
    let display = &spec.display;
    let style = TableStyle {
        decimals: Some(usize::from(display.decimals)),
        scale: Some(display.scale),
        ..TableStyle::default()
    };
    match spec.metrics.as_slice() {
        [m] if m.scope == Scope::Subsets && !report.subsets.is_empty() => {
            aggregate_table(spec, m, report, &style)
        }
        _ => table::subset_table(report, style),
    }
}

/// One row, the metric `m`: its value in each subset, then its aggregates (overall).
fn aggregate_table(spec: &Spec, m: &MetricSpec, report: &Report, style: &TableStyle) -> Table {
    let aggregates: Vec<(&str, &str)> = spec
        .aggregates
        .iter()
        .map(|a| (a.key.as_str(), a.key.as_str()))
        .collect();
    table::one_row_table(
        report,
        style,
        (style.scale.unwrap_or(1.0), style.decimals.unwrap_or(4)),
        (&m.key, &m.key),
        str::to_string,
        &aggregates,
        format!("{} ({})", report.benchmark, report.variant),
    )
}

/// A spec benchmark is scored on the command line with `score --spec FILE.toml FILE…`.
#[cfg(feature = "cli")]
static SPEC_COMMAND: crate::cli::Command = crate::cli::Command {
    about: "A benchmark defined by a spec file: scorebench score --spec FILE.toml FILE…",
    args: &[],
    run: |_, _| {
        Err(crate::cli::ScoreError::Usage(
            "a spec benchmark is scored with `scorebench score --spec FILE.toml FILE…`".into(),
        ))
    },
};
