//! Every run kind, listed once: `scorebench run <key>` and `POST /api/v1/runs {"benchmark": key}`
//! dispatch through [`REGISTRY`].

use std::sync::LazyLock;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::kind::RunKind;
use workbench::wire::runs::{RunKindInfo, RunKinds};

/// `GET /api/v1/runs/kinds`: the kinds started over HTTP, with their forms, in registry order.
pub fn kinds(gateway: Option<&crate::gateway::Gateway>) -> RunKinds {
    let strings = |list: &[&str]| list.iter().map(|s| s.to_string()).collect();
    let kinds = REGISTRY
        .iter()
        .filter(|k| k.over_http() && k.available(gateway))
        .filter_map(|k| {
            let form = k.form()?;
            Some(RunKindInfo {
                key: k.key().into(),
                label: k.label().into(),
                files: strings(k.files()),
                fields: form.fields.clone(),
                open: strings(form.open),
                open_inputs: strings(form.open_inputs),
            })
        })
        .collect();
    RunKinds { kinds }
}

/// The run kinds of benchmark `key` as `scorebench benchmarks --json` lists them: key, label,
/// the files a run writes, whether the page starts it, and its form when it does.
pub fn runs_of(benchmark: &str) -> Vec<serde_json::Value> {
    REGISTRY
        .iter()
        .filter(|k| k.benchmark() == benchmark)
        .map(|k| {
            let form = k.form().map(|f| {
                serde_json::json!({"fields": f.fields, "open": f.open, "open_inputs": f.open_inputs})
            });
            serde_json::json!({
                "key": k.key(),
                "label": k.label(),
                "files": k.files(),
                "over_http": k.over_http(),
                "form": form,
            })
        })
        .collect()
}

/// Every run kind, in `scorebench run --help` order: each benchmark's runs, in the workbench
/// registry's order.
pub static REGISTRY: LazyLock<Vec<RunKind>> = LazyLock::new(|| {
    workbench::registry::runs()
        .map(|(benchmark, spec)| RunKind::new(spec, benchmark.key()))
        .collect()
});

/// The run kind named `key`.
pub fn find(key: &str) -> Option<&'static RunKind> {
    REGISTRY.iter().find(|k| k.key() == key)
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
pub fn kind_of_body(body: &[u8]) -> Result<&'static RunKind, serde_json::Error> {
    struct Head(&'static RunKind);
    struct HeadVisitor;
    struct KindSeed;
    struct KindVisitor;

    impl<'de> Visitor<'de> for KindVisitor {
        type Value = &'static RunKind;
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
        type Value = &'static RunKind;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runs::kind::FieldKind;

    #[test]
    fn keys_are_unique() {
        for (i, k) in REGISTRY.iter().enumerate() {
            assert!(
                REGISTRY[..i].iter().all(|o| o.key() != k.key()),
                "{}",
                k.key()
            );
            assert!(!k.files().is_empty(), "{}", k.key());
            // Listed by `scorebench benchmarks` under a registered benchmark.
            assert!(
                workbench::registry::get(k.benchmark()).is_some(),
                "{}: no benchmark `{}`",
                k.key(),
                k.benchmark()
            );
            assert!(runs_of(k.benchmark()).iter().any(|r| r["key"] == k.key()));
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
            "unknown variant `sgi`, expected one of `sasbench`, `eotgc`, `msqa`, `sgi-dry`, `sgi-dry-exec`, `sgi-idea`, `sgi-deep-research` at line 1 column 19"
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
