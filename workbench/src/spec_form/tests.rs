use super::*;
use metrics_core::InputFile;
use metrics_core::pairs::{PairsOptions, parse_pairs, score_pairs};

fn draft_of(files: &[(&str, &str)]) -> Draft {
    first_draft(
        files
            .iter()
            .enumerate()
            .map(|(i, (name, text))| {
                let (format, encoding, fields) = fields_of(name, text.as_bytes()).unwrap();
                (i, name.to_string(), format, encoding, fields)
            })
            .collect(),
    )
}

fn uses(d: &Draft, file: usize) -> Vec<(&str, Use)> {
    let f = &d.files[file];
    f.fields
        .iter()
        .map(|x| x.name.as_str())
        .zip(f.uses.iter().copied())
        .collect()
}

#[test]
fn fields_and_samples_of_each_format() {
    let (format, enc, fields) = fields_of(
        "a.csv",
        b"essay_id,human,\"model, v2\"\n1,3,2.5\n2,4,4\n3,1,1\n4,2,2\n",
    )
    .unwrap();
    assert_eq!((format, enc), (Format::Csv, Encoding::Utf8));
    assert_eq!(fields[2].name, "model, v2");
    assert_eq!(fields[2].samples, ["2.5", "4", "1"]);

    let (format, _, fields) = fields_of("a.tsv", b"id\ttext\n1\tsaid \"hi\n").unwrap();
    assert_eq!(format, Format::Tsv);
    assert_eq!(fields[1].samples, ["said \"hi"]);

    let (format, _, fields) = fields_of(
        "a.jsonl",
        b"{\"id\": 1, \"gold\": \"A\"}\n\n{\"id\": 2, \"gold\": \"B\", \"note\": [1]}\n",
    )
    .unwrap();
    assert_eq!(format, Format::Jsonl);
    let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["id", "gold", "note"]);
    assert_eq!(fields[0].samples, ["1", "2"]);
    assert_eq!(fields[2].samples, ["[1]"]);

    let (format, _, fields) = fields_of(
        "a.json",
        b" [ {\"q\": \"x\"}, {\"q\": \"y\"},{\"q\":3},{\"q\":4} ]",
    )
    .unwrap();
    assert_eq!(format, Format::Json);
    assert_eq!(fields[0].samples, ["x", "y", "3"]);

    let (_, enc, fields) = fields_of("l.csv", b"nom,note\nh\xe9l\xe8ne,3\n").unwrap();
    assert_eq!(enc, Encoding::Latin1);
    assert_eq!(fields[0].samples, ["hélène"]);

    let long = format!("id\n{}\n", "x".repeat(100));
    let (_, _, fields) = fields_of("long.csv", long.as_bytes()).unwrap();
    assert_eq!(fields[0].samples[0].chars().count(), SAMPLE_CHARS + 1);

    let err = fields_of("empty.csv", b"  \n").unwrap_err().to_string();
    assert!(
        err.contains("empty.csv") && err.contains("no fields"),
        "{err}"
    );
}

#[test]
fn a_head_cut_inside_a_character_is_read_to_its_last_line() {
    let mut text = String::from("id,名字\n");
    while text.len() < HEAD_BYTES + 10 {
        text.push_str("1,汉字汉字汉字\n");
    }
    let (_, enc, fields) = fields_of("big.csv", text.as_bytes()).unwrap();
    assert_eq!(enc, Encoding::Utf8);
    assert_eq!(fields[1].samples[0], "汉字汉字汉字");
}

#[test]
fn one_file_guesses_id_gold_pred_subset_text() {
    let d = draft_of(&[(
        "class 7B.csv",
        "essay_id,essay,essay_set,human_score,model_score\n1,a,1,3,2\n2,b,1,4,4\n",
    )]);
    assert_eq!(
        uses(&d, 0),
        [
            ("essay_id", Use::Id),
            ("essay", Use::Text),
            ("essay_set", Use::Subset),
            ("human_score", Use::Gold),
            ("model_score", Use::Pred),
        ]
    );
    assert_eq!(d.values, ValueType::Integer);
    assert_eq!(d.metrics[0], MetricKind::Qwk);
    assert_eq!(d.key, "class-7b");
    assert_eq!(d.name, "class 7B");
    let spec = d.spec().unwrap();
    assert_eq!(spec.files.keys().collect::<Vec<_>>(), ["records"]);
    assert_eq!(spec.join, Join::Id);
    assert!(!spec.lower_is_better);
}

#[test]
fn two_files_gold_first_score_columns_by_file() {
    // The predictions file dropped first: the file named gold is the gold.
    let d = draft_of(&[
        ("model_a.csv", "id,score\n1,2\n2,3\n"),
        ("gold.csv", "id,score,topic\n1,2.5,x\n2,3,y\n"),
    ]);
    assert_eq!(d.files[0].name, "gold.csv");
    assert_eq!(uses(&d, 0)[1], ("score", Use::Gold));
    assert_eq!(uses(&d, 1)[1], ("score", Use::Pred));
    assert_eq!(d.values, ValueType::Number);
    assert_eq!(d.roles(), ["gold", "predictions"]);
    let spec = d.spec().unwrap();
    assert_eq!(spec.join, Join::Id);

    // No field by name: the first whose samples are numbers.
    let d = draft_of(&[("rubric.csv", "student,section,teacher,model\ns1,A,3,2\n")]);
    assert_eq!(uses(&d, 0)[2], ("teacher", Use::Gold));
    assert_eq!(uses(&d, 0)[3], ("model", Use::Pred));
    assert_eq!(d.values, ValueType::Integer);

    // No id in one file: joined by position.
    let d = draft_of(&[("gold.csv", "id,y\n1,2\n"), ("preds.csv", "p\n2\n")]);
    assert_eq!(uses(&d, 1), [("p", Use::Pred)]);
    assert_eq!(d.spec().unwrap().join, Join::Position);
}

#[test]
fn labels_get_label_metrics_and_mistakes_are_named() {
    let mut d = draft_of(&[("qa.jsonl", "{\"gold\": \"A\", \"pred\": \"B\"}\n")]);
    assert_eq!(d.values, ValueType::Label);
    assert_eq!(d.metrics[0], MetricKind::Accuracy);
    d.files[0].uses = vec![Use::Gold, Use::Gold];
    let err = d.spec().unwrap_err();
    assert!(err.contains("`gold` and `pred` are `gold`"), "{err}");
    d.files[0].uses = vec![Use::Gold, Use::Unused];
    assert!(d.spec().unwrap_err().contains("pred"));
    d.files[0].uses = vec![Use::Gold, Use::Pred];
    d.key = "Bad Key".into();
    assert!(d.spec().unwrap_err().contains("key"));
    d.key = "ok".into();
    d.metrics = vec![MetricKind::Mae];
    d.values = ValueType::Number;
    assert!(d.spec().unwrap().lower_is_better);
}

#[test]
fn keys_are_slugs_and_avoid_built_in_keys() {
    assert_eq!(key_of("My Essays (2024)"), "my-essays-2024");
    assert_eq!(key_of("汉字"), "my-benchmark");
    for b in crate::registry::REGISTRY {
        assert_eq!(key_of(b.key()), format!("{}-spec", b.key()));
    }
    assert!(key_of(&"a".repeat(100)).len() <= 40);
}

/// Seeded xorshift: the same files every run.
fn numbers(seed: &mut u64, n: usize, integer: bool) -> Vec<String> {
    (0..n)
        .map(|_| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            let v = (*seed % 6) as f64
                + if integer {
                    0.0
                } else {
                    (*seed % 7) as f64 / 8.0
                };
            format!("{v}")
        })
        .collect()
}

/// The form's spec of a gold/pred CSV (renamed columns) gives the generic pairs scorer's numbers
/// bit for bit (QWK, Pearson, Spearman, Kendall τ-b, accuracy), integers and floats.
#[test]
fn the_forms_spec_of_pairs_equals_the_pairs_scorer() {
    let mut seed = 0x5eed_u64;
    let mut numbers_seen = 0;
    for case in 0..40 {
        let n = 2 + case * 3;
        let integer = case % 2 == 0;
        let gold = numbers(&mut seed, n, true);
        let pred = numbers(&mut seed, n, integer);
        let mut ours = String::from("human,model\n");
        let mut theirs = String::from("gold,pred\n");
        for (g, p) in gold.iter().zip(&pred) {
            ours.push_str(&format!("{g},{p}\n"));
            theirs.push_str(&format!("{g},{p}\n"));
        }
        let mut d = draft_of(&[("ours.csv", &ours)]);
        assert_eq!(uses(&d, 0), [("human", Use::Gold), ("model", Use::Pred)]);
        d.values = ValueType::Number;
        d.metrics = vec![
            MetricKind::Qwk,
            MetricKind::Pearson,
            MetricKind::Spearman,
            MetricKind::KendallTauB,
            MetricKind::Accuracy,
        ];
        let spec = d.spec().unwrap();
        let (report, table) = d.preview(&spec, &[ours.as_bytes()]).unwrap();
        let pairs = parse_pairs("theirs.csv", theirs.as_str()).unwrap();
        let expected = score_pairs(
            InputFile::from_bytes("theirs.csv", theirs.as_bytes()),
            &pairs,
            &PairsOptions::default(),
        );
        for key in ["qwk", "pearson", "spearman", "kendall_tau_b", "accuracy"] {
            let a = serde_json::to_string(&report.overall.metrics.get(key)).unwrap();
            let b = serde_json::to_string(&expected.overall.metrics.get(key)).unwrap();
            assert_eq!(a, b, "case {case} {key}");
            numbers_seen += usize::from(a.parse::<f64>().is_ok());
        }
        assert_eq!(report.overall.n, expected.overall.n);
        assert_eq!(table.benchmark, spec.key);
    }
    assert!(
        numbers_seen > 150,
        "{numbers_seen} of 200 values are numbers"
    );
}

#[test]
fn the_forms_names_are_the_specs() {
    for (m, name) in METRICS.iter().zip(METRIC_NAMES) {
        assert_eq!(m.name(), name);
        assert_eq!(serde_json::to_value(m).unwrap(), name);
    }
    for name in VALUE_TYPES {
        let v: ValueType = serde_json::from_value(name.into()).unwrap();
        assert_eq!(serde_json::to_value(v).unwrap(), name);
    }
    for u in Use::ALL {
        assert_eq!(serde_json::to_value(u).unwrap(), u.as_str());
    }
    assert!(is_spec_file("a/B.TOML") && !is_spec_file("toml") && !is_spec_file("汉字"));
}
