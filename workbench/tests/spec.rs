//! A spec as a registry entry (`workbench::benchmarks::spec`): registered once, its files are
//! recognised, planned and scored like a built-in benchmark's — ASAP-AES restated as
//! `specs/examples/asap-aes.toml` gives the built-in adapter's report on the golden cases — and
//! its table, sample rows and detail come from the spec. (Its own test binary: registering
//! changes the process's registry.)

#![cfg(feature = "toml")]
#![allow(clippy::unwrap_used)]

use metrics_core::spec::Spec;
use workbench::registry;
use workbench::scoring::{plan, score_job};
use workbench::session::{ScoreOptions, Variant};
use workbench::{WorkFile, table};

fn example(name: &str) -> (Spec, Vec<u8>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../specs/examples")
        .join(name);
    let text = std::fs::read_to_string(path).unwrap();
    let spec: Spec = workbench::spec_toml::parse(name, &text).unwrap();
    (spec, text.into_bytes())
}

fn golden(case: &str, file: &str) -> WorkFile {
    let path = testkit::path(&format!("asap_aes/{case}/{file}"));
    WorkFile::new(file, std::fs::read(path).unwrap())
}

#[test]
fn a_registered_spec_scores_like_the_built_in_benchmark() {
    // Built-in detection before the spec is registered.
    let gold = golden("asap_03_all_sets", "training_set_rel3.tsv");
    assert_eq!(gold.role.key(), "asap-gold");

    let (spec, source) = example("asap-aes.toml");
    let entry = registry::register_spec(spec.clone(), source.clone()).unwrap();
    assert_eq!(
        entry.sha256,
        metrics_core::InputFile::from_bytes("", &source).sha256
    );
    assert!(std::ptr::eq(
        entry,
        registry::register_spec(spec.clone(), source.clone()).unwrap()
    ));
    let edited = [&source[..], b"\n# edited\n"].concat();
    let clash = registry::register_spec(spec, edited).unwrap_err();
    assert!(
        clash.contains("another spec with the key `asap-aes-spec`"),
        "{clash}"
    );
    let (mut builtin, _) = example("pairs.toml");
    builtin.key = "asap-aes".into();
    assert!(
        registry::register_spec(builtin, Vec::new())
            .unwrap_err()
            .contains("built-in")
    );
    assert_eq!(
        registry::get("asap-aes-spec").unwrap().metrics(),
        ["mean_qwk_fisher", "mean_qwk"]
    );
    assert!(registry::listing().iter().any(|l| l.key == "asap-aes-spec"));
    // Spec `asap` with the role `aes-spec-gold` would make `asap-aes-spec-gold` a second time.
    let (mut clashing, source) = example("pairs.toml");
    clashing.key = "asap".into();
    let file = clashing.files.shift_remove("pairs").unwrap();
    clashing.files.insert("aes-spec-gold".into(), file);
    let why = registry::register_spec(clashing, source).unwrap_err();
    assert!(
        why.contains("makes the role key `asap-aes-spec-gold`"),
        "{why}"
    );

    for case in [
        "asap_01_basic",
        "asap_02_float_predictions",
        "asap_03_all_sets",
    ] {
        // The spec, loaded by the user, is asked first: its roles win.
        let files = vec![
            golden(case, "predictions.csv"),
            golden(case, "training_set_rel3.tsv"),
        ];
        assert_eq!(files[0].role.key(), "asap-aes-spec-predictions");
        assert_eq!(files[1].role.key(), "asap-aes-spec-gold");
        let jobs = plan(&files);
        assert_eq!(jobs.len(), 1, "{case}: {jobs:?}");
        assert_eq!(jobs[0].benchmark, "asap-aes-spec");
        for variant in [Variant::Official, Variant::Corrected] {
            let options = ScoreOptions {
                variant,
                samples_later: false,
            };
            let outcome = score_job(&files, &jobs[0], &options);
            let by_spec = outcome.result.unwrap().report;
            let built_in = metrics_core::asap_aes::score(
                metrics_core::asap_aes::NamedBytes {
                    name: "training_set_rel3.tsv",
                    bytes: &files[1].bytes,
                },
                metrics_core::asap_aes::NamedBytes {
                    name: "predictions.csv",
                    bytes: &files[0].bytes,
                },
                metrics_core::asap_aes::Variant::from_name(variant.key()).unwrap(),
            )
            .unwrap();
            assert_eq!(by_spec.overall, built_in.overall, "{case} {variant:?}");
            assert_eq!(by_spec.subsets, built_in.subsets, "{case} {variant:?}");
            assert_eq!(
                by_spec.variant,
                if variant == Variant::Official {
                    "official"
                } else {
                    "corrected"
                }
            );
            // The papers' layout: one row of QWK, a column per set, then the two means, each
            // cell the report's value (no cell stands for a value the report has not).
            let t = table(&by_spec);
            assert_eq!(t.decimals, 3);
            assert_eq!(t.rows.len(), 1);
            let cells: Vec<(&str, &str, Option<f64>)> = t.rows[0]
                .cells
                .iter()
                .map(|c| (c.subset.as_str(), c.metric.as_str(), c.value))
                .collect();
            let mut want: Vec<(&str, &str, Option<f64>)> = by_spec
                .subsets
                .iter()
                .map(|s| (s.name.as_str(), "qwk", s.metrics["qwk"].as_scalar()))
                .collect();
            for key in ["mean_qwk_fisher", "mean_qwk"] {
                want.push(("overall", key, by_spec.overall.metrics[key].as_scalar()));
            }
            assert_eq!(cells, want, "{case}");
            assert_eq!(by_spec.samples.as_ref().unwrap().len(), built_in.overall.n);
        }
    }
}

/// A spec written as TOML reads back as the same spec: the examples (every kind of key they
/// use: per-subset ranges, variants, aggregates, display) and specs the page's form makes.
#[test]
fn a_written_spec_reads_back_the_same() {
    use workbench::spec_form::{Use, fields_of, first_draft};
    let mut specs: Vec<Spec> = ["asap-aes.toml", "pairs.toml"]
        .iter()
        .map(|n| example(n).0)
        .collect();
    let files = [
        ("gold.csv", "essay_id,essay,set,score\n1,\"a, b\",1,3\n"),
        ("model.jsonl", "{\"essay_id\": 1, \"score\": 2.5}\n"),
    ];
    let read: Vec<_> = files
        .iter()
        .enumerate()
        .map(|(i, (name, text))| {
            let (format, encoding, fields) = fields_of(name, text.as_bytes()).unwrap();
            (i, name.to_string(), format, encoding, fields)
        })
        .collect();
    let mut draft = first_draft(read.clone());
    specs.push(draft.spec().unwrap());
    draft.files[0].uses = vec![Use::Id, Use::Text, Use::Subset, Use::Gold];
    draft.name = "引号 \"quoted\" \\ name".into();
    specs.push(draft.spec().unwrap());
    let one = first_draft(read[..1].to_vec());
    let mut one = one;
    one.files[0].uses = vec![Use::Id, Use::Pred, Use::Unused, Use::Gold];
    specs.push(one.spec().unwrap());
    // Weighted records (metrics that take weights).
    one.files[0].uses = vec![Use::Id, Use::Pred, Use::Weight, Use::Gold];
    one.metrics = vec![
        metrics_core::spec::MetricKind::Accuracy,
        metrics_core::spec::MetricKind::Mae,
    ];
    let weighted = one.spec().unwrap();
    assert_eq!(weighted.files["records"].weight.as_deref(), Some("set"));
    specs.push(weighted);
    for spec in specs {
        let text = workbench::spec_toml::write(&spec).unwrap();
        let back = workbench::spec_toml::parse("written.toml", &text)
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(back, spec, "{text}");
    }
}
