use serde_json::json;

use super::*;

fn spec(value: serde_json::Value) -> Spec {
    serde_json::from_value(value).unwrap()
}

fn pairs_spec() -> serde_json::Value {
    json!({
        "name": "pairs", "key": "pairs-spec", "version": "1",
        "files": {"pairs": {"format": "auto", "gold": "gold", "pred": "pred"}},
        "metrics": [
            {"key": "qwk", "metric": "qwk"},
            {"key": "pearson", "metric": "pearson"},
            {"key": "spearman", "metric": "spearman"},
            {"key": "kendall_tau_b", "metric": "kendall_tau_b"},
            {"key": "accuracy", "metric": "accuracy"}
        ]
    })
}

#[test]
fn pairs_through_a_spec_equal_the_built_in_pairs() {
    let s = spec(pairs_spec());
    s.validate().unwrap();
    for (name, text) in [
        (
            "a.jsonl",
            "{\"gold\": 1, \"pred\": 2}\n\n{\"gold\": \"3\", \"pred\": 3}\n{\"gold\": 2, \"pred\": 2}\n",
        ),
        ("a.csv", "id,Pred,gold\nx,2,1\ny, 0.5 ,3\nz,2,2\n"),
    ] {
        let scored = score(&s, &[("pairs", name, text.as_bytes())], "official", true).unwrap();
        let pairs = crate::pairs::parse_pairs(name, text).unwrap();
        let built_in = crate::pairs::score_pairs(
            crate::report::InputFile::from_bytes(name, text.as_bytes()),
            &pairs,
            &crate::pairs::PairsOptions::default(),
        );
        assert_eq!(scored.report.overall, built_in.overall, "{name}");
        assert_eq!(scored.report.inputs, built_in.inputs);
        assert_eq!(scored.report.samples.unwrap().len(), 3);
    }
}

#[test]
fn bad_values_and_joins_name_file_line_and_id() {
    let s = spec(pairs_spec());
    let e = score(
        &s,
        &[(
            "pairs",
            "p.jsonl",
            b"{\"gold\": 1, \"pred\": 2}\n{\"gold\": 1, \"pred\": \"x\"}\n",
        )],
        "official",
        false,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "p.jsonl:2: `pred` must be a finite number, found \"x\""
    );
    let e = score(&s, &[("pairs", "p.csv", b"a,b\n1,2\n")], "official", false).unwrap_err();
    assert_eq!(
        e.to_string(),
        "p.csv:1: no `gold` column (the header has: a, b)"
    );
    let e = score(&s, &[("pairs", "p.csv", b"gold,pred\n")], "official", false).unwrap_err();
    assert_eq!(e.to_string(), "p.csv: no records");

    let joined = spec(json!({
        "name": "j", "key": "j", "version": "1",
        "files": {
            "gold": {"format": "jsonl", "id": "id", "gold": "label"},
            "pred": {"format": "csv", "id": ["qid", "id"], "pred": "answer"}
        },
        "values": {"gold": "label", "pred": "label"},
        "metrics": [{"key": "em", "metric": "exact_match", "normalize": ["strip", "lower"]}]
    }));
    joined.validate().unwrap();
    let gold = b"{\"id\": 1, \"label\": \"Yes\"}\n{\"id\": 2, \"label\": \"no\"}\n";
    let ok = score(
        &joined,
        &[
            ("gold", "g.jsonl", gold),
            ("pred", "p.csv", b"id,answer\n2,NO\n1, yes \n"),
        ],
        "official",
        false,
    )
    .unwrap();
    assert_eq!(
        ok.report.overall.metrics["em"],
        crate::MetricValue::Scalar(Some(1.0))
    );
    // F1 on labels is scikit-learn's: f1_score(["Yes", "no"], ["yes", "NO"], average="macro")
    // == 0.0 (four classes, none hit): text compares without normalising.
    let mut f1 = joined.clone();
    f1.metrics
        .push(serde_json::from_value(json!({"key": "f1", "metric": "f1_macro"})).unwrap());
    f1.validate().unwrap();
    let pred = b"id,answer\n2,NO\n1,yes\n";
    let scored = score(
        &f1,
        &[("gold", "g.jsonl", gold), ("pred", "p.csv", pred)],
        "official",
        false,
    )
    .unwrap();
    assert_eq!(
        scored.report.overall.metrics["f1"],
        crate::MetricValue::Scalar(Some(0.0))
    );
    let e = score(
        &joined,
        &[
            ("gold", "g.jsonl", gold),
            ("pred", "p.csv", b"id,answer\n1,yes\n3,no\n"),
        ],
        "official",
        false,
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "p.csv:3: id 3 is not in g.jsonl");
    let e = score(
        &joined,
        &[
            ("gold", "g.jsonl", gold),
            ("pred", "p.csv", b"qid,answer\n1,yes\n"),
        ],
        "official",
        false,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "p.csv: id 2 has no prediction (g.jsonl line 2)"
    );
    let e = score(
        &joined,
        &[
            ("gold", "g.jsonl", gold),
            ("pred", "p.csv", b"qid,answer\n1,yes\n2,a\n1,b\n"),
        ],
        "official",
        false,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "p.csv:4: qid 1: a second record (the first is on line 2)"
    );
}

#[test]
fn contradictions_are_refused_with_the_path_of_the_key() {
    let refused = |patch: &dyn Fn(&mut serde_json::Value)| {
        let mut v = pairs_spec();
        patch(&mut v);
        let s = spec(v.clone());
        s.validate()
            .map(|()| format!("accepted: {v}"))
            .unwrap_or_else(|e| e.dotted())
    };
    assert_eq!(refused(&|v| v["key"] = json!("Bad Key")), "key");
    assert_eq!(
        refused(&|v| v["metrics"][1]["labels"] = json!([0, 1])),
        "metrics[1].labels"
    );
    assert_eq!(
        refused(&|v| v["metrics"][0]["range"] = json!([0, 3])),
        "metrics[0].range"
    );
    assert_eq!(
        refused(&|v| v["metrics"][2]["key"] = json!("qwk")),
        "metrics[2].key"
    );
    assert_eq!(
        refused(&|v| v["metrics"][0]["scope"] = json!("subsets")),
        "metrics[0].scope"
    );
    assert_eq!(refused(&|v| v["primary"] = json!("f1")), "primary");
    assert_eq!(
        refused(&|v| {
            v["files"]["pairs"]["format"] = json!("jsonl");
            v["files"]["pairs"]["encoding"] = json!("latin-1");
        }),
        "files.pairs.encoding"
    );
    assert_eq!(
        refused(&|v| v["display"]["columns"] = json!(["nope"])),
        "display.columns"
    );
    assert_eq!(
        refused(&|v| v["variants"] =
            json!([{"name": "x", "metrics": {"pearson": {"formula": "kaggle"}}}])),
        "variants[0].metrics.pearson.formula"
    );
    assert_eq!(
        refused(&|v| v["values"] = json!({"gold": "label", "pred": "label"})),
        "metrics[0].metric"
    );
    // Unknown keys fail when the spec is read.
    let mut v = pairs_spec();
    v["metrics"][0]["lables"] = json!([1]);
    assert!(
        serde_json::from_value::<Spec>(v)
            .unwrap_err()
            .to_string()
            .contains("lables")
    );
}

fn weighted_spec(metrics: serde_json::Value) -> Spec {
    spec(json!({
        "name": "w", "key": "w", "version": "1",
        "files": {"pairs": {"format": "csv", "gold": "gold", "pred": "pred", "weight": "w"}},
        "metrics": metrics
    }))
}

fn overall(s: &Spec, text: &str) -> crate::report::Metrics {
    score(s, &[("pairs", "w.csv", text.as_bytes())], "official", false)
        .unwrap()
        .report
        .overall
        .metrics
}

/// Weights of 1 are `np.average` with equal weights: the unweighted numbers bit for bit; other
/// weights move them (the values themselves are checked against scikit-learn by
/// scripts/diff-spec-metrics.sh).
#[test]
fn weights_of_one_give_the_unweighted_numbers() {
    let metrics = json!([
        {"key": "accuracy", "metric": "accuracy"},
        {"key": "mae", "metric": "mae"},
        {"key": "rmse", "metric": "rmse"},
        {"key": "mean", "metric": "mean", "of": "gold"},
        {"key": "em", "metric": "exact_match"}
    ]);
    let weighted = weighted_spec(metrics.clone());
    weighted.validate().unwrap();
    let mut plain = weighted.clone();
    plain.files[0].weight = None;
    for rows in [
        "gold,pred,w\n1,2,1\n3,3,1\n0,7,1\n5,-2,1\n2,2,1\n",
        "gold,pred,w\n1,2,1\n3,3,1\n0.1,0.7,1\n5,-2,1\n2,2,1\n",
    ] {
        assert_eq!(overall(&weighted, rows), overall(&plain, rows), "{rows}");
    }
    let rows = "gold,pred,w\n1,2,1\n3,3,4\n0,7,1\n5,-2,1\n2,2,1\n";
    let moved = overall(&weighted, rows);
    assert_ne!(moved, overall(&plain, rows));
    // Hits weigh 4 + 1 of 8.
    assert_eq!(
        moved["accuracy"],
        crate::report::MetricValue::Scalar(Some(5.0 / 8.0))
    );
}

#[test]
fn weights_are_checked() {
    // A metric that takes no weights is refused, naming it.
    let s = weighted_spec(json!([{"key": "r", "metric": "pearson"}]));
    let e = s.validate().unwrap_err();
    assert_eq!(e.path, ["metrics", "0", "metric"]);
    assert!(e.to_string().contains("`pearson` takes no weights"), "{e}");
    // A weight that is not a number ≥ 0: file, line and field.
    let s = weighted_spec(json!([{"key": "mae", "metric": "mae"}]));
    for bad in ["-1", "x", ""] {
        let e = score(
            &s,
            &[(
                "pairs",
                "w.csv",
                format!("gold,pred,w\n1,1,1\n1,2,{bad}\n").as_bytes(),
            )],
            "official",
            false,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("w.csv") && e.contains('3') && e.contains("`w` must be a finite number ≥ 0"),
            "{e}"
        );
    }
    // Weights summing to zero: undefined, as numpy's ZeroDivisionError.
    let m = overall(&s, "gold,pred,w\n1,2,0\n3,3,0\n");
    assert_eq!(m["mae"], crate::report::MetricValue::Scalar(None));
}
