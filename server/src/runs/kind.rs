//! One definition per benchmark run: the [`RunKind`] trait, implemented once in each benchmark's
//! module, and [`REGISTRY`], the one list `scorebench run <key>` and `POST /api/v1/runs
//! {"benchmark": key}` dispatch through. Nothing outside a benchmark's module and its registry
//! line names a benchmark.
//!
//! ```text
//! CLI:  argv ──clap (RunKind::args)──▶ ArgMatches ──RunKind::plan_from_args──▶ CliPlan ─┐
//! HTTP: body ──RunKind::plan_from_body (validated, model served)──────────▶ Box<dyn Plan> ─┴▶ Plan::execute
//! ```

use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use futures_util::future::BoxFuture;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::{Progress, RunError};
use crate::gateway::Gateway;

/// A benchmark that scorebench can run against a model.
pub trait RunKind: Sync {
    /// The name in `scorebench run <key>`, in `{"benchmark": key}` and in the run records.
    fn key(&self) -> &'static str;
    /// One line for `scorebench run --help`.
    fn label(&self) -> &'static str;
    /// The files a run writes into its output folder that a client may download (the only
    /// names `GET /api/v1/runs/{id}/files/{name}` serves).
    fn files(&self) -> &'static [&'static str];
    /// Add the arguments of `scorebench run <key>` (a clap `Args` derive) to `command`.
    fn args(&self, command: clap::Command) -> clap::Command;
    /// The validated plan of parsed arguments (no IO: files are read when the plan executes).
    fn plan_from_args(&self, matches: &clap::ArgMatches) -> Result<CliPlan, clap::Error>;
    /// Whether `POST /api/v1/runs` starts this kind (then it implements [`Self::plan_from_body`]
    /// and [`Self::form`]).
    fn over_http(&self) -> bool {
        false
    }
    /// The form the page's Run panel renders for this kind (`GET /api/v1/runs/kinds`).
    fn form(&self) -> Option<&'static Form> {
        None
    }
    /// The validated plan of a `POST /api/v1/runs` body (the whole JSON object, `benchmark`
    /// included): every input problem is a [`RunError::Input`] here, before the run starts.
    fn plan_from_body(
        &self,
        _body: serde_json::Value,
        _gateway: &Gateway,
    ) -> Result<Box<dyn Plan>, RunError> {
        Err(RunError::Input(format!(
            "{} runs are started from the command line only",
            self.key()
        )))
    }
}

/// Work ready to run: the same for both front ends.
pub trait Plan: Send {
    /// The model asked (judge models joined by `,`), as the run records it.
    fn model(&self) -> String;
    /// Read the input files a command-line plan names (before the progress display starts;
    /// an error here is reported alone). Plans from HTTP bodies hold their input already.
    fn load(&mut self, _out_dir: &Path) -> Result<(), RunError> {
        Ok(())
    }
    /// Ask the model(s) through `gateway`, write the files into `out_dir`, keep `progress`
    /// current; the line the CLI prints when done.
    fn execute<'a>(
        self: Box<Self>,
        gateway: &'a Gateway,
        out_dir: &'a Path,
        progress: Arc<Progress>,
    ) -> BoxFuture<'a, Result<String, RunError>>;
}

/// A plan from the command line, with where it runs.
pub struct CliPlan {
    /// The upstream configuration file (`None`: a run that calls no model).
    pub config: Option<PathBuf>,
    /// The SQLite database (reply cache, runs).
    pub db: PathBuf,
    /// The output folder.
    pub out: PathBuf,
    pub plan: Box<dyn Plan>,
}

/// What the page needs to start a kind over HTTP: the request's fields and which files of the
/// finished run (and which of its own inputs) the workbench opens.
#[derive(Debug, serde::Serialize)]
pub struct Form {
    pub fields: &'static [Field],
    /// Files of the finished run handed to the workbench, when the run has them.
    pub open: &'static [&'static str],
    /// Inputs (record or files fields) handed to the workbench too (a gold file, a dataset
    /// folder's files).
    pub open_inputs: &'static [&'static str],
}

/// One field of a run request.
#[derive(Debug, serde::Serialize)]
pub struct Field {
    /// The request key.
    pub name: &'static str,
    #[serde(rename = "type")]
    pub kind: FieldKind,
    /// English label (the page translates known names).
    pub label: &'static str,
    pub required: bool,
    /// The default of an integer or choice field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<i64>,
    /// The values a choice field takes.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub choices: &'static [i64],
}

/// How the page asks for a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldKind {
    /// A JSON file holding an array of records, sent as that array.
    Records,
    /// Several text files (a dataset folder's), sent as `[{"name", "text"}]`.
    Files,
    /// One model the server serves.
    Model,
    /// Several models the server serves (a list).
    Models,
    /// A model the server serves, or none.
    OptionalModel,
    /// A whole number of at least 1.
    Integer,
    /// One of `choices`.
    Choice,
}

impl Field {
    pub const fn new(name: &'static str, kind: FieldKind, label: &'static str) -> Field {
        Field {
            name,
            kind,
            label,
            required: true,
            default: None,
            choices: &[],
        }
    }

    /// An integer field with a default (not required).
    pub const fn integer(name: &'static str, label: &'static str, default: i64) -> Field {
        Field {
            name,
            kind: FieldKind::Integer,
            label,
            required: false,
            default: Some(default),
            choices: &[],
        }
    }

    /// `workers` (default 8), as every kind takes it.
    pub const WORKERS: Field = Field::integer("workers", "workers", 8);
}

/// `GET /api/v1/runs/kinds`: the kinds started over HTTP, with their forms, in registry order.
pub fn kinds_json() -> serde_json::Value {
    let kinds: Vec<serde_json::Value> = REGISTRY
        .iter()
        .filter(|k| k.over_http())
        .filter_map(|k| {
            let form = k.form()?;
            Some(serde_json::json!({
                "key": k.key(),
                "label": k.label(),
                "files": k.files(),
                "fields": form.fields,
                "open": form.open,
                "open_inputs": form.open_inputs,
            }))
        })
        .collect();
    serde_json::json!({ "kinds": kinds })
}

/// Every run kind, in `scorebench run --help` order.
pub static REGISTRY: &[&dyn RunKind] = &[
    &super::msqa::Msqa,
    &super::eotgc::Eotgc,
    &super::sgi::deep_research::DeepResearch,
    &super::sgi::dry::Dry,
    &super::sgi::dry_exec::DryExec,
    &super::sgi::idea::Idea,
    &super::sasbench::Sasbench,
];

/// The run kind named `key`.
pub fn find(key: &str) -> Option<&'static dyn RunKind> {
    REGISTRY.iter().copied().find(|k| k.key() == key)
}

/// Keys of the kinds started over HTTP (`POST /api/v1/runs`), in registry order.
fn http_keys() -> &'static [&'static str] {
    static KEYS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        REGISTRY
            .iter()
            .filter(|k| k.over_http())
            .map(|k| k.key())
            .collect()
    });
    &KEYS
}

/// The `benchmark` of a run request, read the way serde reads an internally tagged enum (same
/// messages, with the position in the body): missing → "missing field `benchmark`", another
/// name → "unknown variant `x`, expected one of `msqa`, `eotgc`, …".
pub fn kind_of_body(body: &[u8]) -> Result<&'static dyn RunKind, serde_json::Error> {
    struct Head(&'static dyn RunKind);
    struct HeadVisitor;
    struct KindSeed;
    struct KindVisitor;

    impl<'de> Visitor<'de> for KindVisitor {
        type Value = &'static dyn RunKind;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("variant identifier")
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            find(v)
                .filter(|k| k.over_http())
                .ok_or_else(|| E::unknown_variant(v, http_keys()))
        }
    }
    impl<'de> DeserializeSeed<'de> for KindSeed {
        type Value = &'static dyn RunKind;
        fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_identifier(KindVisitor)
        }
    }
    impl<'de> Visitor<'de> for HeadVisitor {
        type Value = Head;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a run request object with \"benchmark\"")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Head, A::Error> {
            let mut kind = None;
            while let Some(key) = map.next_key::<String>()? {
                if key == "benchmark" && kind.is_none() {
                    kind = Some(map.next_value_seed(KindSeed)?);
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            kind.map(Head)
                .ok_or_else(|| de::Error::missing_field("benchmark"))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Head, A::Error> {
            let kind = seq
                .next_element_seed(KindSeed)?
                .ok_or_else(|| de::Error::missing_field("benchmark"))?;
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(Head(kind))
        }
    }
    impl<'de> de::Deserialize<'de> for Head {
        fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Head, D::Error> {
            d.deserialize_any(HeadVisitor)
        }
    }
    serde_json::from_slice::<Head>(body).map(|h| h.0)
}

/// `workers` of every run: between 1 and 4096.
pub fn check_workers(workers: usize) -> Result<(), RunError> {
    if workers == 0 || workers > MAX_WORKERS {
        return Err(RunError::Input(format!(
            "workers must be between 1 and {MAX_WORKERS}"
        )));
    }
    Ok(())
}

/// Most concurrent requests one run makes.
pub const MAX_WORKERS: usize = 4096;

/// The model of an HTTP run request must be served by a configured upstream.
pub fn check_served(gateway: &Gateway, model: &str) -> Result<(), RunError> {
    if gateway.upstreams.route(model).is_none() {
        return Err(RunError::Input(format!(
            "model {model:?} is not served here: GET /api/v1/models lists the allowed models"
        )));
    }
    Ok(())
}

/// A run request body as the kind's own type (`serde_json::from_value`, so messages carry no
/// position, as they did for the tagged enum).
pub fn body_as<T: de::DeserializeOwned>(body: serde_json::Value) -> Result<T, RunError> {
    serde_json::from_value(body).map_err(|e| RunError::Input(format!("not a run request: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique() {
        for (i, k) in REGISTRY.iter().enumerate() {
            assert!(
                REGISTRY[..i].iter().all(|o| o.key() != k.key()),
                "{}",
                k.key()
            );
            assert!(!k.files().is_empty(), "{}", k.key());
            // A kind the page can start describes its form, and opens only its own files.
            assert_eq!(k.over_http(), k.form().is_some(), "{}", k.key());
            if let Some(form) = k.form() {
                for file in form.open {
                    assert!(k.files().contains(file), "{}: {file}", k.key());
                }
                for input in form.open_inputs {
                    assert!(
                        form.fields.iter().any(|f| f.name == *input
                            && matches!(f.kind, FieldKind::Records | FieldKind::Files)),
                        "{}: {input}",
                        k.key()
                    );
                }
            }
        }
    }

    #[test]
    fn the_kind_of_a_body_reads_like_a_tagged_enum() {
        let err = |body: &str| kind_of_body(body.as_bytes()).err().unwrap().to_string();
        assert_eq!(err("{}"), "missing field `benchmark` at line 1 column 2");
        assert_eq!(err("[]"), "missing field `benchmark` at line 1 column 2");
        assert_eq!(
            err(r#"{"benchmark": "sgi"}"#),
            "unknown variant `sgi`, expected one of `msqa`, `eotgc`, `sgi-deep-research`, `sgi-dry`, `sgi-idea`, `sasbench` at line 1 column 19"
        );
        assert_eq!(
            err(r#"{"benchmark": 3}"#),
            "invalid type: integer `3`, expected variant identifier at line 1 column 15"
        );
        assert_eq!(err("{"), "EOF while parsing an object at line 1 column 1");
        let kind = kind_of_body(br#"{"model": "m", "benchmark": "eotgc", "x": [1]}"#).unwrap();
        assert_eq!(kind.key(), "eotgc");
    }
}
