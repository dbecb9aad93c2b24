//! Bit-for-bit comparison of two reports of the same files: what `scorebench leaderboard verify`,
//! the server's check of a client's numbers on publish, and the page's "Verify in my browser"
//! all use, so the three agree on what "the same number" means (the same `f64` bits).

use metrics_core::Report;
use metrics_core::report::{MetricValue, Metrics};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One value two reports disagree on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    /// `overall.score`, `subsets[7_Math_ShortAns].qwk`, `overall.n`, …
    pub at: String,
    pub server: Value,
    pub other: Value,
}

fn same_bits(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(p), Some(q)) if x.is_f64() || y.is_f64() => p.to_bits() == q.to_bits(),
            _ => x == y,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_bits(p, q))
        }
        _ => a == b,
    }
}

type Section<'a> = (String, Option<&'a Metrics>, Option<usize>);

/// Every metric (overall and per subset, scalars and vectors) and every `n` on which `other`
/// differs from `server` in any bit; a metric or subset missing on one side is a difference.
pub fn metric_differences(server: &Report, other: &Report) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut compare = |at: String, a: Value, b: Value| {
        if !same_bits(&a, &b) {
            out.push(Difference {
                at,
                server: a,
                other: b,
            });
        }
    };
    let value = |v: Option<&MetricValue>| {
        v.map_or(Value::String("(missing)".into()), |v| {
            serde_json::to_value(v).unwrap_or(Value::Null)
        })
    };
    let mut sections: Vec<Section<'_>> = vec![(
        "overall".into(),
        Some(&server.overall.metrics),
        Some(server.overall.n),
    )];
    let mut theirs: Vec<Section<'_>> = vec![(
        "overall".into(),
        Some(&other.overall.metrics),
        Some(other.overall.n),
    )];
    let mut names: Vec<&str> = server.subsets.iter().map(|s| s.name.as_str()).collect();
    for s in &other.subsets {
        if !names.contains(&s.name.as_str()) {
            names.push(&s.name);
        }
    }
    for name in names {
        let a = server.subsets.iter().find(|s| s.name == name);
        let b = other.subsets.iter().find(|s| s.name == name);
        sections.push((
            format!("subsets[{name}]"),
            a.map(|s| &s.metrics),
            a.map(|s| s.n),
        ));
        theirs.push((
            format!("subsets[{name}]"),
            b.map(|s| &s.metrics),
            b.map(|s| s.n),
        ));
    }
    for ((at, a, an), (_, b, bn)) in sections.into_iter().zip(theirs) {
        compare(
            format!("{at}.n"),
            an.map_or(Value::Null, Value::from),
            bn.map_or(Value::Null, Value::from),
        );
        let mut keys: Vec<&String> = a.map(|m| m.keys().collect()).unwrap_or_default();
        for k in b.map(|m| m.keys().collect::<Vec<_>>()).unwrap_or_default() {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        for k in keys {
            compare(
                format!("{at}.{k}"),
                value(a.and_then(|m| m.get(k))),
                value(b.and_then(|m| m.get(k))),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use metrics_core::report::{Overall, Subset};

    fn report(score: f64, subset_n: usize) -> Report {
        let mut metrics = metrics_core::report::Metrics::new();
        metrics.insert("score".into(), MetricValue::Scalar(Some(score)));
        Report {
            benchmark: "pairs".into(),
            variant: "official".into(),
            inputs: vec![],
            overall: Overall {
                n: 3,
                metrics: metrics.clone(),
            },
            subsets: vec![Subset {
                name: "a".into(),
                n: subset_n,
                metrics,
            }],
            samples: None,
            warnings: vec![],
        }
    }

    #[test]
    fn differences_are_found_in_the_last_bit() {
        let a = report(0.1 + 0.2, 3);
        assert!(metric_differences(&a, &a.clone()).is_empty());
        let b = report(0.3, 3);
        let d = metric_differences(&a, &b);
        assert_eq!(
            d.iter().map(|d| d.at.as_str()).collect::<Vec<_>>(),
            ["overall.score", "subsets[a].score"]
        );
        let c = report(0.1 + 0.2, 4);
        assert_eq!(metric_differences(&a, &c)[0].at, "subsets[a].n");
    }
}
