//! The `Report`: the one value the CLI prints and the page renders (see `shared/specs/report.md`).
//!
//! Metric values are plain unscaled floats at full precision; an undefined value is `null`.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// One metric's value: a number (or `null` when undefined), or a vector such as `ecs_tiers`.
/// In JSON it is the bare number, `null` or array (serialized untagged; read by
/// [`MetricValueVisitor`], which takes the same shapes without serde's buffering of untagged
/// enums: that buffering made every report reader in the browser larger).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum MetricValue {
    Scalar(Option<f64>),
    Vector(Vec<Option<f64>>),
}

impl<'de> Deserialize<'de> for MetricValue {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MetricValueVisitor)
    }
}

/// Reads a number, `null` or an array of numbers and `null`s.
struct MetricValueVisitor;

impl<'de> serde::de::Visitor<'de> for MetricValueVisitor {
    type Value = MetricValue;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a number, null, or an array of numbers and nulls")
    }

    fn visit_f64<E>(self, v: f64) -> Result<MetricValue, E> {
        Ok(MetricValue::Scalar(Some(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<MetricValue, E> {
        Ok(MetricValue::Scalar(Some(v as f64)))
    }

    fn visit_u64<E>(self, v: u64) -> Result<MetricValue, E> {
        Ok(MetricValue::Scalar(Some(v as f64)))
    }

    fn visit_unit<E>(self) -> Result<MetricValue, E> {
        Ok(MetricValue::Scalar(None))
    }

    fn visit_none<E>(self) -> Result<MetricValue, E> {
        Ok(MetricValue::Scalar(None))
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<MetricValue, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<MetricValue, A::Error> {
        let mut values = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element::<Option<f64>>()? {
            values.push(v);
        }
        Ok(MetricValue::Vector(values))
    }
}

impl MetricValue {
    /// A scalar, `null` when the metric is undefined.
    pub fn from_result<E>(value: Result<f64, E>) -> Self {
        Self::Scalar(value.ok().filter(|v| v.is_finite()))
    }

    pub fn as_scalar(&self) -> Option<f64> {
        match self {
            Self::Scalar(v) => *v,
            Self::Vector(_) => None,
        }
    }
}

/// Metric key → value, in the benchmark's natural key order.
pub type Metrics = IndexMap<String, MetricValue>;

/// An input file, identified by the name the user gave and the SHA-256 of its bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputFile {
    pub path: String,
    pub sha256: String,
}

impl InputFile {
    pub fn from_bytes(path: impl Into<String>, bytes: &[u8]) -> Self {
        Self {
            path: path.into(),
            sha256: hex::encode(Sha256::digest(bytes)),
        }
    }
}

/// The whole-benchmark numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Overall {
    pub n: usize,
    pub metrics: Metrics,
}

/// One subset (a SAS-Bench file, an EOTGC grade, an MSQA subtask, …).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Subset {
    pub name: String,
    pub n: usize,
    pub metrics: Metrics,
}

/// Something the user should know that did not stop scoring.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub benchmark: String,
    pub variant: String,
    pub inputs: Vec<InputFile>,
    pub overall: Overall,
    pub subsets: Vec<Subset>,
    /// Per-record results, only when asked for (`--samples`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<Vec<serde_json::Value>>,
    pub warnings: Vec<Warning>,
}

impl Report {
    /// The report as pretty JSON, as `scorebench score … --json` prints it.
    pub fn to_json_pretty(&self) -> String {
        // A Report holds only strings, integers, finite floats and nulls: serialisation cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }

    /// The value of `metric` for `subset` (`"overall"` for the overall row).
    pub fn metric(&self, subset: &str, metric: &str) -> Option<&MetricValue> {
        if subset == "overall" {
            return self.overall.metrics.get(metric);
        }
        self.subsets
            .iter()
            .find(|s| s.name == subset)?
            .metrics
            .get(metric)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What serde derives for the same enum: the hand-written reader must take and refuse
    /// exactly what it took and refused.
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(untagged)]
    enum Derived {
        Scalar(Option<f64>),
        Vector(Vec<Option<f64>>),
    }

    #[test]
    fn the_metric_value_reader_takes_what_the_derived_untagged_enum_takes() {
        let inputs = [
            "0",
            "-0",
            "1",
            "-7",
            "0.5",
            "-2.5e-300",
            "1e308",
            "18446744073709551615",
            "-9223372036854775808",
            "123456789012345678901234567890",
            "null",
            "[]",
            "[null]",
            "[1, null, 0.25, -3]",
            "[[1]]",
            "[\"1\"]",
            "[true]",
            "\"0.5\"",
            "true",
            "{}",
            "{\"a\": 1}",
            "[1, {}]",
            "[null, null, 1e-320]",
        ];
        for input in inputs {
            let ours = serde_json::from_str::<MetricValue>(input);
            let derived = serde_json::from_str::<Derived>(input);
            match (ours, derived) {
                (Ok(MetricValue::Scalar(a)), Ok(Derived::Scalar(b))) => {
                    assert_eq!(a.map(f64::to_bits), b.map(f64::to_bits), "{input}")
                }
                (Ok(MetricValue::Vector(a)), Ok(Derived::Vector(b))) => {
                    let bits = |v: Vec<Option<f64>>| -> Vec<Option<u64>> {
                        v.into_iter().map(|x| x.map(f64::to_bits)).collect()
                    };
                    assert_eq!(bits(a), bits(b), "{input}")
                }
                (Err(_), Err(_)) => {}
                (ours, derived) => panic!("{input}: ours {ours:?}, derived {derived:?}"),
            }
        }
    }

    #[test]
    fn undefined_values_serialise_as_null_and_round_trip() {
        let mut metrics = Metrics::new();
        metrics.insert("qwk".into(), MetricValue::Scalar(None));
        metrics.insert(
            "ecs_tiers".into(),
            MetricValue::Vector(vec![Some(0.5), None, Some(0.0)]),
        );
        let report = Report {
            benchmark: "pairs".into(),
            variant: "official".into(),
            inputs: vec![InputFile::from_bytes("a.jsonl", b"abc")],
            overall: Overall {
                n: 0,
                metrics: metrics.clone(),
            },
            subsets: vec![],
            samples: None,
            warnings: vec![],
        };
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["overall"]["metrics"]["qwk"], serde_json::Value::Null);
        assert_eq!(
            json["overall"]["metrics"]["ecs_tiers"],
            serde_json::json!([0.5, null, 0.0])
        );
        // sha256("abc"), FIPS 180-2 test vector.
        assert_eq!(
            json["inputs"][0]["sha256"],
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(json.get("samples").is_none());
        let back: Report = serde_json::from_value(json).unwrap();
        assert_eq!(back, report);
    }

    #[test]
    fn non_finite_results_become_null() {
        assert_eq!(
            MetricValue::from_result::<()>(Ok(f64::NAN)),
            MetricValue::Scalar(None)
        );
        assert_eq!(
            MetricValue::from_result::<()>(Err(())),
            MetricValue::Scalar(None)
        );
        assert_eq!(
            MetricValue::from_result::<()>(Ok(0.25)),
            MetricValue::Scalar(Some(0.25))
        );
    }
}
