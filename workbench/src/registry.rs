//! The benchmark registry: every benchmark is one type implementing
//! [`crate::benchmark::Benchmark`], listed once in [`REGISTRY`], and the lookups that need the
//! whole list: a benchmark by key, a role by key ([`Role::all`], [`Role::from_key`]), file
//! recognition ([`detect`]), a report's table ([`table`]). Nothing outside a benchmark's own
//! module matches on which benchmark it is.
//!
//! Layers (no module imports one above it; `scripts/check-import-circles.py` checks):
//! ```text
//! session, detect, drill, table, charts, class, compare   types and pure helpers
//! benchmark                                              the trait
//! benchmarks/*                                           one module per benchmark
//! registry                                               the list and the lookups over it
//! scoring, samples, bootstrap, prepare, verify           what the page and the CLI call
//! ```

use serde::{Deserialize, Deserializer, Serialize};

use crate::benchmark::Benchmark;
use crate::benchmarks;
use crate::benchmarks::spec::{MAX_LOADED_SPECS, SpecBenchmark};
use std::sync::{Arc, PoisonError, RwLock};

use crate::detect::{
    DETECT_HEAD_BYTES, Detected, Role, Sniff, base_name, head_text, shape, unrecognised,
};
use crate::session::{Job, Prepared, WorkFile};
use crate::table::{Table, TableStyle, subset_table};
use metrics_core::Report;

/// Every registered benchmark, in recognition order (the first that recognises a file wins;
/// generic gold/pred files last).
pub static REGISTRY: &[&dyn Benchmark] = &[
    &benchmarks::sasbench::SasBench,
    &benchmarks::eotgc::Eotgc,
    &benchmarks::msqa::Msqa,
    &benchmarks::sgibench::SgiDry,
    &benchmarks::sgibench::SgiIdea,
    &benchmarks::sgibench::SgiDeepResearch,
    &benchmarks::sgibench::SgiWet,
    &benchmarks::sgibench::SgiReasoning,
    &benchmarks::sgibench::SgiScore,
    &benchmarks::asap_aes::AsapAes,
    &benchmarks::lm_eval::LmEval,
    &benchmarks::inspect::Inspect,
    &benchmarks::evalscope::EvalScope,
    &benchmarks::pairs::PairsBenchmark,
];

/// Every benchmark: the specs loaded at run time ([`register_spec`]: first, so a file that
/// fits a spec the user loaded is the spec's), then [`REGISTRY`].
static LOADED: RwLock<Option<&'static [&'static dyn Benchmark]>> = RwLock::new(None);

/// Every registered benchmark.
pub fn all() -> &'static [&'static dyn Benchmark] {
    let loaded = *LOADED.read().unwrap_or_else(PoisonError::into_inner);
    loaded.unwrap_or(REGISTRY)
}

/// Register a benchmark defined by a spec (checked: `Spec::validate`) read from the file
/// `source` (kept: a board publishes it). The same spec again (same key, same file SHA-256) is the entry already registered; another spec under a key in use,
/// a built-in key, or more than [`MAX_LOADED_SPECS`] specs are refused, saying why.
pub fn register_spec(
    spec: metrics_core::spec::Spec,
    source: Vec<u8>,
) -> Result<&'static SpecBenchmark, String> {
    let sha256 = metrics_core::InputFile::from_bytes("", &source).sha256;
    let mut loaded = LOADED.write().unwrap_or_else(PoisonError::into_inner);
    if REGISTRY.iter().any(|b| b.key() == spec.key) {
        return Err(format!(
            "`{}` is a built-in benchmark's key: give the spec another `key`",
            spec.key
        ));
    }
    let specs: Vec<&'static SpecBenchmark> =
        SPECS.read().unwrap_or_else(PoisonError::into_inner).clone();
    if let Some(same) = specs.iter().find(|b| b.spec.key == spec.key) {
        return if same.sha256 == sha256 {
            Ok(same)
        } else {
            Err(format!(
                "another spec with the key `{}` is loaded (SHA-256 {}): give this one another `key` or `version`",
                spec.key, same.sha256
            ))
        };
    }
    if specs.len() >= MAX_LOADED_SPECS {
        return Err(format!(
            "{MAX_LOADED_SPECS} specs are loaded: no room for `{}`",
            spec.key
        ));
    }
    // Role keys are "<spec key>-<role>": spec `a` with role `b-c` and spec `a-b` with role `c`
    // would share one.
    // (The lock is held: the registry is read through `all_with`, not `all`.)
    let taken = |key: &str| {
        all_with(*loaded)
            .iter()
            .any(|b| b.roles().iter().any(|r| r.key == key))
    };
    if let Some((role, _)) = spec
        .files
        .iter()
        .find(|(role, _)| taken(&format!("{}-{role}", spec.key)))
    {
        return Err(format!(
            "the file role `{role}` of `{}` makes the role key `{}-{role}`, which another benchmark has: rename the role or the key",
            spec.key, spec.key
        ));
    }
    let entry: &'static SpecBenchmark =
        Box::leak(Box::new(SpecBenchmark::new(spec, source, sha256)));
    let list: Vec<&'static dyn Benchmark> = std::iter::once(entry as &'static dyn Benchmark)
        .chain(all_with(*loaded).iter().copied())
        .collect();
    *loaded = Some(Box::leak(list.into_boxed_slice()));
    SPECS
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .push(entry);
    Ok(entry)
}

fn all_with(
    loaded: Option<&'static [&'static dyn Benchmark]>,
) -> &'static [&'static dyn Benchmark] {
    loaded.unwrap_or(REGISTRY)
}

/// The specs registered, in order.
static SPECS: RwLock<Vec<&'static SpecBenchmark>> = RwLock::new(Vec::new());

/// The spec benchmark with this key, when one is registered.
pub fn spec(key: &str) -> Option<&'static SpecBenchmark> {
    SPECS
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .copied()
        .find(|b| b.spec.key == key)
}

/// Every registered spec.
pub fn specs() -> Vec<&'static SpecBenchmark> {
    SPECS.read().unwrap_or_else(PoisonError::into_inner).clone()
}

/// The benchmark with this key (`sasbench`, `eotgc`, …, or a registered spec's).
pub fn get(key: &str) -> Option<&'static dyn Benchmark> {
    all().iter().copied().find(|b| b.key() == key)
}

/// Every run of every benchmark (`scorebench run <key>`), in registry order, with the
/// benchmark whose files it writes.
#[cfg(feature = "cli")]
pub fn runs() -> impl Iterator<Item = (&'static dyn Benchmark, &'static crate::runs::RunSpec)> {
    all()
        .iter()
        .flat_map(|b| b.runs().iter().map(move |r| (*b, *r)))
}

/// The run named `key` and its benchmark.
#[cfg(feature = "cli")]
pub fn run(key: &str) -> Option<(&'static dyn Benchmark, &'static crate::runs::RunSpec)> {
    runs().find(|(_, r)| r.key == key)
}

/// What `scorebench benchmarks --json` prints for one benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct Listing {
    pub key: &'static str,
    pub label: &'static str,
    pub metrics: &'static [&'static str],
    /// Metrics some of its reports add, which a board may show and rank by.
    pub more_metrics: &'static [&'static str],
    pub variants: Vec<&'static str>,
    pub roles: Vec<ListedRole>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ListedRole {
    pub key: &'static str,
    pub label: &'static str,
    /// Gold data shared by every model's predictions (a gold file, a taxonomy).
    pub shared: bool,
}

/// The registry as `scorebench benchmarks` lists it.
pub fn listing() -> Vec<Listing> {
    all()
        .iter()
        .map(|b| Listing {
            key: b.key(),
            label: b.label(),
            metrics: b.metrics(),
            more_metrics: b.more_metrics(),
            variants: b.variants().iter().map(|v| v.report_name).collect(),
            roles: b
                .roles()
                .iter()
                .map(|r| ListedRole {
                    key: r.key,
                    label: r.label,
                    shared: r.shared,
                })
                .collect(),
        })
        .collect()
}

/// Lookups over every benchmark's roles. They live here, above the benchmarks that define the
/// roles ([`crate::detect`] holds the role type itself).
impl Role {
    /// Every role of every registered benchmark, then "Not used" (dropdown order).
    pub fn all() -> Vec<Role> {
        all()
            .iter()
            .flat_map(|b| b.roles().iter().map(|r| Role(r)))
            .chain(std::iter::once(Role::UNKNOWN))
            .collect()
    }

    pub fn from_key(key: &str) -> Option<Role> {
        Self::all().into_iter().find(|r| r.key() == key)
    }

    /// The benchmark this role belongs to (`None` for [`Role::UNKNOWN`]).
    pub fn benchmark(self) -> Option<&'static dyn Benchmark> {
        all()
            .iter()
            .copied()
            .find(|b| b.roles().iter().any(|r| r.key == self.0.key))
    }

    /// The benchmark key (`unknown` for [`Role::UNKNOWN`]).
    pub fn benchmark_key(self) -> &'static str {
        self.benchmark().map_or("unknown", |b| b.key())
    }
}

impl Job {
    /// The registered benchmark of this job.
    pub fn benchmark(&self) -> Option<&'static dyn Benchmark> {
        get(self.benchmark)
    }
}

/// Files recognised when they come in.
impl WorkFile {
    /// A file with its detected role.
    pub fn new(name: impl Into<String>, bytes: impl Into<Arc<Vec<u8>>>) -> Self {
        let name = name.into();
        let bytes = bytes.into();
        let role = detect(&name, &bytes[..bytes.len().min(DETECT_HEAD_BYTES)]).role;
        Self {
            name,
            size: bytes.len(),
            bytes,
            role,
            sha256: None,
            prepared: None,
        }
    }

    /// A file whose records were parsed while it was read and whose bytes come after its
    /// numbers: the browser worker scores a dropped file before it copies it into its memory
    /// (growing wasm memory by the file's size is ~50 ms of ~300 for 100 MB). `head` is its
    /// first bytes (at least the detection head, or the whole file), `size` its size; its hash is
    /// "" (to be filled) and its text an error until the worker puts its bytes in `bytes`.
    pub fn read_later(
        name: impl Into<String>,
        head: Vec<u8>,
        size: usize,
        prepared: Prepared,
    ) -> Self {
        let mut file = Self::new(name, head);
        file.size = size;
        file.sha256 = Some(String::new());
        file.prepared = Some(prepared);
        file
    }

    /// Recognise the file again if no benchmark recognised it (a spec was registered since).
    pub fn detect_if_unknown(&mut self) {
        if self.role == Role::UNKNOWN {
            self.role = self.detect().role;
        }
    }

    /// What detection says about this file (independent of the current role).
    pub fn detect(&self) -> Detected {
        detect(
            &self.name,
            &self.bytes[..self.bytes.len().min(DETECT_HEAD_BYTES)],
        )
    }
}

/// Recognise a file from its name and the start of its content (`head`: at least the first
/// [`DETECT_HEAD_BYTES`] bytes, or the whole file when shorter).
pub fn detect(name: &str, head: &[u8]) -> Detected {
    let base = base_name(name);
    let sniff = Sniff {
        name: base,
        lower: base.to_ascii_lowercase(),
        shape: shape(head_text(head)),
    };
    all()
        .iter()
        .find_map(|b| b.recognise(&sniff))
        .or_else(|| all().iter().find_map(|b| b.recognise_by_name(&sniff)))
        .unwrap_or_else(|| unrecognised(&sniff))
}

impl<'de> Deserialize<'de> for Role {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let key = String::deserialize(d)?;
        Role::from_key(&key).ok_or_else(|| serde::de::Error::custom(format!("unknown role {key}")))
    }
}

/// The report's table, in its benchmark's layout.
pub fn table(report: &Report) -> Table {
    match get(&report.benchmark) {
        Some(b) => b.table(report),
        None => subset_table(report, TableStyle::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Variant;

    #[test]
    fn keys_and_role_keys_are_unique() {
        let mut keys: Vec<&str> = all().iter().map(|b| b.key()).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), all().len());
        let mut roles: Vec<&str> = all()
            .iter()
            .flat_map(|b| b.roles().iter().map(|r| r.key))
            .collect();
        let n = roles.len();
        roles.sort_unstable();
        roles.dedup();
        assert_eq!(roles.len(), n);
        for b in all() {
            assert_eq!(b.variants()[0].variant, Variant::Official, "{}", b.key());
            assert!(get(b.key()).is_some());
        }
    }
}
