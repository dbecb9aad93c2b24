//! The workbench over the golden vectors: every golden file's detected role, `score_files` equal
//! to the benchmark APIs, exports that round-trip, and the page state.

#![allow(clippy::unwrap_used)] // a panic is how these tests report a mismatch

use std::path::{Path, PathBuf};

use metrics_core::eotgc;
use metrics_core::msqa;
use metrics_core::sasbench::{
    self, NamedText, RawFile, RawInputs, SasInputs, Variant as SasVariant,
};
use metrics_core::sgibench::{deep_research, dry, idea, wet};
use serde_json::Value;
use workbench::detect::Role;
use workbench::registry::{self, detect};
use workbench::scoring::score_files;
use workbench::session::{ScoreOptions, Variant, WorkFile};
use workbench::table::{self, OVERALL};

fn role(key: &str) -> Role {
    Role::from_key(key).unwrap()
}

fn golden_root() -> PathBuf {
    testkit::root()
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    testkit::files_under(dir)
}

fn rel(path: &Path) -> String {
    path.strip_prefix(golden_root())
        .unwrap()
        .display()
        .to_string()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// What each golden file is (by its place in the golden tree).
fn expected_role(rel: &str) -> Role {
    let base = rel.rsplit('/').next().unwrap();
    let in_dir = |d: &str| rel.contains(d);
    match () {
        _ if base == "error_type.jsonl" => role("sas-taxonomy"),
        _ if in_dir("sasbench/") && in_dir("/datasets/") => role("sas-dataset"),
        _ if base.ends_with("_prediction.jsonl") => role("sas-prediction"),
        _ if base.ends_with("_scored.jsonl") => role("sas-raw"),
        _ if in_dir("eotgc/") && base == "gold.json" => role("eotgc-gold"),
        _ if in_dir("eotgc/") && base == "pred.json" => role("eotgc-submission"),
        _ if in_dir("eotgc/") && base == "input.json" => role("eotgc-track2"),
        _ if base == "evaluation.log" => role("msqa-evaluation"),
        _ if in_dir("wet_experiment/") && base == "step2_input.json" => role("sgi-wet-log"),
        _ if in_dir("deep_research/") && base == "step2_input.json" => {
            role("sgi-deep-research-log")
        }
        _ if in_dir("dry_experiment/") && base == "step4_input.json" => role("sgi-dry-log"),
        _ if in_dir("idea_generation/") && base == "step2_input.json" => role("sgi-idea-log"),
        _ if in_dir("experimental_reasoning/") && base == "step2_input.json" => {
            role("sgi-reasoning-log")
        }
        _ if in_dir("sgi_score/") && base == "input.json" => role("sgi-score-input"),
        _ if in_dir("asap_aes/") && base == "training_set_rel3.tsv" => role("asap-gold"),
        _ if in_dir("asap_aes/") && base == "predictions.csv" => role("asap-predictions"),
        _ => role("unknown"),
    }
}

#[test]
fn every_golden_file_is_detected() {
    let mut checked = 0;
    let mut wrong = Vec::new();
    for path in files_under(&golden_root()) {
        let rel = rel(&path);
        let bytes = std::fs::read(&path).unwrap();
        let d = detect(&rel, &bytes);
        if d.role != expected_role(&rel) {
            wrong.push(format!(
                "{rel}: {:?} ({}), expected {:?}",
                d.role,
                d.why,
                expected_role(&rel)
            ));
        }
        assert_eq!(d.benchmark, d.role.benchmark_key());
        checked += 1;
    }
    assert!(checked > 300, "{checked}");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// ASAP-AES through the workbench (what the page runs) gives the CLI's report: every golden
/// case, both variants; the bootstrap of a model against itself is zero.
#[test]
fn asap_aes_scores_in_the_workbench_as_on_the_command_line() {
    let mut checked = 0;
    for dir in testkit::case_dirs("asap_aes") {
        let gold_path = dir.join("training_set_rel3.tsv");
        let pred_path = dir.join("predictions.csv");
        let files = vec![
            WorkFile::new(rel(&gold_path), std::fs::read(&gold_path).unwrap()),
            WorkFile::new(rel(&pred_path), std::fs::read(&pred_path).unwrap()),
        ];
        let expected: Value = serde_json::from_str(&read(&dir.join("expected.json"))).unwrap();
        for variant in [Variant::Official, Variant::Corrected] {
            let outcomes = score_files(
                &files,
                &ScoreOptions {
                    variant,
                    ..ScoreOptions::default()
                },
            );
            assert_eq!(outcomes.len(), 1, "{dir:?}");
            let outcome = &outcomes[0];
            if let Some(error) = expected["error"].as_str() {
                let e = outcome.result.as_ref().unwrap_err();
                assert!(e.message.contains(error), "{e}");
                continue;
            }
            let report = outcome.report().unwrap();
            let overall = if variant == Variant::Official {
                &expected
            } else {
                &expected["corrected"]
            };
            let got = report.overall.metrics["mean_qwk_fisher"]
                .as_scalar()
                .unwrap();
            assert!((got - overall["mean_qwk_fisher"].as_f64().unwrap()).abs() <= 1e-12);
            let rows = workbench::samples::sample_rows(outcome.result.as_ref().unwrap());
            assert_eq!(rows.len(), report.overall.n);
            let detail = workbench::samples::sample_detail(&files, outcome, 0).unwrap();
            assert!(
                detail
                    .fields
                    .iter()
                    .any(|(l, t)| l == "Essay" && !t.is_empty())
            );
            let scored = outcome.result.as_ref().unwrap();
            let mut boot =
                workbench::bootstrap::Bootstrap::new(scored, scored, variant, 7, 1000).unwrap();
            boot.step(100);
            for i in boot.finish() {
                assert_eq!(i.difference, Some(0.0), "{i:?}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 6, "{checked}");
}

/// The toolkit's evaluation.json of each MSQA case (stored inside expected.json).
fn msqa_evaluations() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in testkit::case_dirs("msqa") {
        let expected: Value = serde_json::from_str(&read(&dir.join("expected.json"))).unwrap();
        if let Some(records) = expected.get("evaluation_json").filter(|v| v.is_array()) {
            out.push((
                rel(&dir.join("evaluation.json")),
                serde_json::to_string_pretty(records).unwrap(),
            ));
        }
    }
    out.sort();
    assert!(out.len() >= 5);
    out
}

#[test]
fn msqa_evaluation_json_is_detected_and_scored_as_the_api_does() {
    let mut checked_details = 0;
    for (name, text) in msqa_evaluations() {
        assert_eq!(
            detect(&name, text.as_bytes()).role,
            role("msqa-evaluation"),
            "{name}"
        );
        let outcomes = score_files(
            &[WorkFile::new(&name, text.clone().into_bytes())],
            &ScoreOptions::default(),
        );
        assert_eq!(outcomes.len(), 1);
        let expected = msqa::score_evaluation_text(&name, &text);
        assert_eq!(
            outcomes[0].result.as_ref().map(|s| &s.report),
            expected.as_ref(),
            "{name}"
        );
        // Each sample's detail shows its record's texts, read from the file (the records keep
        // no reasoning).
        if outcomes[0].result.is_err() {
            continue;
        }
        let files = [WorkFile::new(&name, text.clone().into_bytes())];
        let records: Vec<Value> = serde_json::from_str(&text).unwrap();
        for (i, record) in records.iter().enumerate() {
            let detail = workbench::samples::sample_detail(&files, &outcomes[0], i).unwrap();
            for (label, key) in [
                ("Reasoning", "reasoning_content"),
                ("Model reply", "content"),
            ] {
                let shown = detail.fields.iter().find(|(l, _)| l == label);
                let want = record["generation"][key].as_str();
                assert_eq!(shown.map(|(_, t)| t.as_str()), want, "{name} {i} {label}");
            }
        }
        checked_details += records.len();
    }
    assert!(checked_details >= 10, "{checked_details}");
}

fn work_files(paths: &[PathBuf]) -> Vec<WorkFile> {
    paths
        .iter()
        .map(|p| WorkFile::new(rel(p), std::fs::read(p).unwrap()))
        .collect()
}

fn sas_cases() -> Vec<PathBuf> {
    let cases = testkit::case_dirs("sasbench");
    assert!(cases.len() >= 10);
    cases
}

fn with_suffix(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    files_under(dir)
        .into_iter()
        .filter(|p| p.to_str().unwrap().ends_with(suffix))
        .collect()
}

#[test]
fn sasbench_cases_score_as_score_predictions_and_score_raw() {
    for case in sas_cases() {
        let taxonomy = case.join("datasets/error_type.jsonl");
        let predictions = with_suffix(
            &case.join("datasets_GoldenModel_Scored"),
            "_prediction.jsonl",
        );
        let raws = with_suffix(&case.join("datasets_GoldenModel_Scored"), "_scored.jsonl");
        for variant in [Variant::Official, Variant::Corrected] {
            let sas_variant = match variant {
                Variant::Official => SasVariant::Official,
                Variant::Corrected => SasVariant::Corrected,
            };
            let options = ScoreOptions {
                variant,
                ..ScoreOptions::default()
            };
            // Prediction files + taxonomy.
            let mut paths = vec![taxonomy.clone()];
            paths.extend(predictions.iter().cloned());
            let files = work_files(&paths);
            let outcomes = score_files(&files, &options);
            assert_eq!(outcomes.len(), 1, "{case:?}");
            let texts: Vec<String> = paths.iter().map(|p| read(p)).collect();
            let names: Vec<String> = paths.iter().map(|p| rel(p)).collect();
            let inputs = SasInputs {
                taxonomy: NamedText {
                    name: &names[0],
                    text: &texts[0],
                },
                predictions: (1..paths.len())
                    .map(|i| NamedText {
                        name: &names[i],
                        text: &texts[i],
                    })
                    .collect(),
            };
            let expected = sasbench::score_predictions(&inputs, sas_variant);
            assert_eq!(
                outcomes[0].result.as_ref().map(|s| &s.report),
                expected.as_ref(),
                "{case:?}"
            );
            if let Ok(report) = &expected {
                assert!(report.samples.as_ref().is_some_and(|s| !s.is_empty()));
            }

            // Raw replies + dataset files + taxonomy (step 2 first).
            if raws.is_empty() {
                continue;
            }
            let datasets: Vec<PathBuf> = raws
                .iter()
                .map(|r| {
                    case.join("datasets").join(format!(
                        "{}.jsonl",
                        sasbench::subset_name(r.to_str().unwrap())
                    ))
                })
                .collect();
            let mut paths = vec![taxonomy.clone()];
            paths.extend(datasets.iter().cloned());
            paths.extend(raws.iter().cloned());
            let files = work_files(&paths);
            let outcomes = score_files(&files, &options);
            assert_eq!(outcomes.len(), 1, "{case:?}");
            let text = |p: &Path| read(p);
            let (dt, st): (Vec<String>, Vec<String>) = (
                datasets.iter().map(|p| text(p)).collect(),
                raws.iter().map(|p| text(p)).collect(),
            );
            let (dn, sn): (Vec<String>, Vec<String>) = (
                datasets.iter().map(|p| rel(p)).collect(),
                raws.iter().map(|p| rel(p)).collect(),
            );
            let tax_text = read(&taxonomy);
            let tax_name = rel(&taxonomy);
            let inputs = RawInputs {
                taxonomy: NamedText {
                    name: &tax_name,
                    text: &tax_text,
                },
                files: (0..raws.len())
                    .map(|i| RawFile {
                        dataset: NamedText {
                            name: &dn[i],
                            text: &dt[i],
                        },
                        scored: NamedText {
                            name: &sn[i],
                            text: &st[i],
                        },
                    })
                    .collect(),
            };
            let expected = sasbench::score_raw(&inputs, sas_variant);
            assert_eq!(
                outcomes[0].result.as_ref().map(|s| &s.report),
                expected.as_ref(),
                "{case:?} raw"
            );
        }
    }
}

/// A submission's Track 2 scores attach to the Track 1 job when there is one submission (the
/// report adds `track2` and the organisers' total); with two submissions nobody can tell whose
/// they are, so they are scored alone.
#[test]
fn eotgc_track2_scores_attach_to_the_one_submission() {
    let dir = golden_root().join("eotgc/eotgc_11_full_size_185");
    let gold = WorkFile::new("gold.json", read(&dir.join("gold.json")).into_bytes());
    let pred = WorkFile::new("pred.json", read(&dir.join("pred.json")).into_bytes());
    let scores = WorkFile::new(
        "scores.json",
        br#"{"ppl": 5.0, "bertscore": 0.7, "human": 80.0}"#.to_vec(),
    );
    assert_eq!(scores.role, role("eotgc-track2-scores"));
    let one = score_files(
        &[gold.clone(), pred.clone(), scores.clone()],
        &ScoreOptions::default(),
    );
    assert_eq!(one.len(), 1);
    let m = &one[0].report().unwrap().overall.metrics;
    let scalar = |k: &str| {
        m.get(k)
            .and_then(metrics_core::report::MetricValue::as_scalar)
    };
    // The golden case's expected.json: track2_score of {5.0, 0.7, 80.0} is 0.78.
    assert_eq!(scalar("track2"), Some(0.78));
    let score = scalar("score").unwrap();
    assert_eq!(scalar("total"), Some(eotgc::leaderboard_total(score, 0.78)));
    let two = score_files(
        &[
            gold,
            pred.clone(),
            WorkFile::new("pred2.json", pred.bytes.to_vec()),
            scores,
        ],
        &ScoreOptions::default(),
    );
    let titles: Vec<&str> = two.iter().map(|o| o.job.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "EOTGC Track 1: pred.json",
            "EOTGC Track 1: pred2.json",
            "EOTGC Track 2 scores: scores.json"
        ]
    );
    assert!(
        two[0]
            .report()
            .unwrap()
            .overall
            .metrics
            .get("total")
            .is_none()
    );
}

#[test]
fn eotgc_and_sgi_cases_score_as_their_apis() {
    let mut essay_details = 0;
    for dir in testkit::case_dirs("eotgc") {
        let files = work_files(&files_under(&dir));
        let outcomes = score_files(&files, &ScoreOptions::default());
        assert_eq!(outcomes.len(), 1, "{dir:?}");
        let expected = if dir.join("gold.json").exists() {
            eotgc::score_track1(
                &rel(&dir.join("gold.json")),
                &read(&dir.join("gold.json")),
                &rel(&dir.join("pred.json")),
                &read(&dir.join("pred.json")),
            )
        } else {
            let name = rel(&dir.join("input.json"));
            let text = read(&dir.join("input.json"));
            let parsed = eotgc::parse_track2_file(&name, &text).unwrap();
            eotgc::score_track2_file(
                metrics_core::InputFile::from_bytes(name, text.as_bytes()),
                &parsed,
            )
        };
        assert_eq!(
            outcomes[0].result.as_ref().map(|s| &s.report),
            expected.as_ref(),
            "{dir:?}"
        );
        // A Track 1 sample's detail shows the gold record with its id, read from the file.
        let (Ok(scored), true) = (&outcomes[0].result, dir.join("gold.json").exists()) else {
            continue;
        };
        let gold: Vec<Value> = serde_json::from_str(&read(&dir.join("gold.json"))).unwrap();
        let samples = scored.report.samples.as_deref().unwrap_or_default();
        for (i, sample) in samples.iter().enumerate() {
            let detail = workbench::samples::sample_detail(&files, &outcomes[0], i).unwrap();
            // Ids are numbers or strings in the files, text in the samples.
            let text = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
            let record = gold
                .iter()
                .find(|r| text(&r["id"]) == text(&sample["id"]))
                .unwrap();
            let essay = detail.fields.iter().find(|(l, _)| l == "Essay");
            assert_eq!(
                essay.map(|(_, t)| t.as_str()),
                record["content"].as_str(),
                "{dir:?} {i}"
            );
            essay_details += 1;
        }
    }
    assert!(essay_details >= 20, "{essay_details}");
    let mut logs = 0;
    for path in files_under(&golden_root().join("sgibench")) {
        let name = rel(&path);
        let text = read(&path);
        let expected = match expected_role(&name).key() {
            "sgi-wet-log" => wet::score_log(&name, &text),
            "sgi-dry-log" => dry::score_log(&name, &text, None),
            "sgi-deep-research-log" => deep_research::score_log(&name, &text),
            "sgi-idea-log" => idea::score_log(&name, &text, None),
            _ => continue,
        };
        let outcomes = score_files(
            &[WorkFile::new(&name, text.into_bytes())],
            &ScoreOptions::default(),
        );
        assert_eq!(
            outcomes[0].result.as_ref().map(|s| &s.report),
            expected.as_ref(),
            "{name}"
        );
        logs += 1;
    }
    assert!(logs >= 20, "{logs}");
}

#[test]
fn a_whole_case_folder_gives_one_report_per_job() {
    // Dropping a SAS-Bench case folder as it is: predictions and raw replies are two jobs with
    // the same numbers; expected.json and meta.json are not used.
    let case = golden_root().join("sasbench/case_02");
    let files = work_files(&files_under(&case));
    let outcomes = score_files(&files, &ScoreOptions::default());
    assert_eq!(outcomes.len(), 2);
    let (a, b) = (outcomes[0].report().unwrap(), outcomes[1].report().unwrap());
    assert_eq!(a.overall, b.overall);
    assert_eq!(a.subsets, b.subsets);
}

fn sas_report(case: &str, variant: Variant) -> metrics_core::Report {
    let dir = golden_root().join(case);
    let mut paths = vec![dir.join("datasets/error_type.jsonl")];
    paths.extend(with_suffix(
        &dir.join("datasets_GoldenModel_Scored"),
        "_prediction.jsonl",
    ));
    let outcomes = score_files(
        &work_files(&paths),
        &ScoreOptions {
            variant,
            ..ScoreOptions::default()
        },
    );
    outcomes[0].report().unwrap().clone()
}

/// A case with several files (for the column order and the exports).
fn biggest_sas_case() -> String {
    sas_cases()
        .into_iter()
        .max_by_key(|c| {
            with_suffix(&c.join("datasets_GoldenModel_Scored"), "_prediction.jsonl").len()
        })
        .map(|c| rel(&c))
        .unwrap()
}

#[test]
fn sasbench_table_is_the_leaderboard_layout_and_exports_round_trip() {
    let case = biggest_sas_case();
    let report = sas_report(&case, Variant::Official);
    let t = registry::table(&report);
    assert_eq!(t.scale, 100.0);
    assert_eq!(
        t.rows.iter().map(|r| r.key.as_str()).collect::<Vec<_>>(),
        ["qwk", "ccs", "ecs"]
    );
    let order = ["0", "2", "1", "3", "4", "5", "6", "7", "10", "8", "9", "11"];
    let ids: Vec<&str> = t
        .columns
        .iter()
        .map(|c| c.key.split('_').next().unwrap())
        .collect();
    let positions: Vec<usize> = ids[..ids.len() - 1]
        .iter()
        .map(|id| order.iter().position(|o| o == id).unwrap())
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    assert_eq!(t.columns.last().unwrap().label, "Avg.");
    assert_eq!(t.columns.last().unwrap().key, OVERALL);

    // CSV cells parse back to the ×100 values (2 decimals).
    let csv = table::to_csv(&t);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(header.len(), t.columns.len() + 1);
    let mut cells = 0;
    for (row, record) in t.rows.iter().zip(reader.records()) {
        let record = record.unwrap();
        for (i, cell) in row.cells.iter().enumerate() {
            let text = &record[i + 1];
            match cell.value {
                Some(v) => {
                    let parsed: f64 = text.parse().unwrap();
                    assert!((parsed - v * 100.0).abs() <= 0.005 + 1e-9, "{text} vs {v}");
                    assert_eq!(text, format!("{:.2}", v * 100.0));
                    cells += 1;
                }
                None => {
                    assert_eq!(text, "");
                    assert!(cell.undefined_reason.is_some());
                }
            }
        }
    }
    assert!(cells > 0);
    // Markdown and LaTeX carry the same displayed values.
    let md = table::to_markdown(&t);
    let latex = table::to_latex(&t);
    for cell in t
        .rows
        .iter()
        .flat_map(|r| &r.cells)
        .filter(|c| c.value.is_some())
    {
        assert!(md.contains(&cell.display));
        assert!(latex.contains(&cell.display));
    }
    assert!(
        latex.contains("\\toprule")
            && latex.contains("\\midrule")
            && latex.contains("\\bottomrule")
    );
    assert!(latex.contains("QWK &"));
    // JSON export is the report's own JSON, and parses back to the same report.
    let json = table::to_json(&report);
    assert_eq!(json, report.to_json_pretty());
    let back: metrics_core::Report = serde_json::from_str(&json).unwrap();
    assert_eq!(back, report);
    let without = table::to_json_without_samples(&report);
    assert!(
        serde_json::from_str::<Value>(&without)
            .unwrap()
            .get("samples")
            .is_none()
    );
}

#[test]
fn official_and_corrected_differ_in_named_cells() {
    let case = biggest_sas_case();
    let official = sas_report(&case, Variant::Official);
    let corrected = sas_report(&case, Variant::Corrected);
    let changed = table::changed_cells(&official, &corrected);
    for (subset, metric) in &changed {
        assert_ne!(
            official.metric(subset, metric),
            corrected.metric(subset, metric)
        );
    }
    // Every unchanged cell is equal.
    for s in official
        .subsets
        .iter()
        .map(|s| s.name.clone())
        .chain([OVERALL.to_string()])
    {
        for m in ["qwk", "ccs", "ecs", "ecs_tiers"] {
            if !changed.contains(&(s.clone(), m.to_string())) {
                assert_eq!(official.metric(&s, m), corrected.metric(&s, m));
            }
        }
    }
}

mod bootstrap {
    use workbench::bootstrap::Bootstrap;
    use workbench::compare::{metrics_table, sample_diff};
    use workbench::samples;
    use workbench::scoring::score_files;
    use workbench::session::{ScoreOptions, Scored, Variant, WorkFile};

    fn pairs_file(name: &str, gold: &[i64], pred: &[i64]) -> Scored {
        let text: String = gold
            .iter()
            .zip(pred)
            .map(|(g, p)| format!("{{\"gold\": {g}, \"pred\": {p}}}\n"))
            .collect();
        let outcomes = score_files(
            &[WorkFile::new(name, text.into_bytes())],
            &ScoreOptions::default(),
        );
        outcomes[0].result.clone().unwrap()
    }

    fn models() -> (Scored, Scored) {
        let gold: Vec<i64> = (0..20).map(|i| i % 4).collect();
        let a = [1, 1, 2, 3, 0, 2, 2, 3, 0, 1, 3, 3, 0, 1, 2, 0, 0, 1, 2, 3];
        let b = [2, 1, 2, 1, 0, 1, 0, 3, 0, 3, 2, 3, 2, 1, 2, 1, 0, 1, 0, 3];
        (
            pairs_file("a.jsonl", &gold, &a),
            pairs_file("b.jsonl", &gold, &b),
        )
    }

    /// The browser's rows, built from the records, are the rows of the report's samples.
    #[test]
    fn gold_pred_rows_from_the_records_are_the_samples_rows() {
        let text: String = [(1, 1.5), (2, 3.0), (3, 3.0), (0, -2.0)]
            .iter()
            .map(|(g, p)| format!("{{\"gold\": {g}, \"pred\": {p}}}\n\n"))
            .collect();
        let files = [WorkFile::new("g.jsonl", text.into_bytes())];
        let later = score_files(
            &files,
            &ScoreOptions {
                samples_later: true,
                ..ScoreOptions::default()
            },
        );
        let at_once = score_files(&files, &ScoreOptions::default());
        let (l, a) = (
            later[0].result.as_ref().unwrap(),
            at_once[0].result.as_ref().unwrap(),
        );
        assert_eq!(l.report.samples, None);
        let rows = samples::sample_rows(l);
        assert_eq!(rows, samples::sample_rows(a));
        assert_eq!(rows.len(), 4);
        assert_eq!(
            (
                rows[3].id.as_str(),
                rows[3].pred.as_str(),
                rows[0].pred.as_str()
            ),
            ("line 7", "-2", "1.5")
        );
        assert_eq!(samples::summarize(l), samples::summarize(a));
    }

    #[test]
    fn accuracy_interval_matches_a_python_port() {
        // Python: the same splitmix64/xoshiro256** and Lemire draws (seed 2024, 20 indices per
        // resample), then d.append(np.mean(g[idx]==A[idx]) - np.mean(g[idx]==B[idx])) for 1,000
        // resamples; np.percentile(d, [2.5, 97.5]) == [-0.09999999999999998, 0.4];
        // np.mean(g==A) - np.mean(g==B) == 0.15000000000000002.
        let (a, b) = models();
        let mut boot = Bootstrap::new(&a, &b, Variant::Official, 2024, 1000).unwrap();
        while !boot.is_done() {
            boot.step(100);
        }
        let intervals = boot.finish();
        let acc = intervals.iter().find(|i| i.metric == "accuracy").unwrap();
        assert_eq!(acc.difference, Some(0.15000000000000002));
        assert!(
            (acc.low.unwrap() - -0.09999999999999998).abs() < 1e-12,
            "{acc:?}"
        );
        assert!((acc.high.unwrap() - 0.4).abs() < 1e-12, "{acc:?}");
        assert_eq!(acc.resamples_defined, 1000);
        // The interval contains the observed difference, for every metric.
        for i in &intervals {
            if let (Some(d), Some(lo), Some(hi)) = (i.difference, i.low, i.high) {
                assert!(lo <= d && d <= hi, "{i:?}");
            }
        }
    }

    #[test]
    fn same_seed_same_intervals_in_any_chunking() {
        let (a, b) = models();
        let mut one = Bootstrap::new(&a, &b, Variant::Official, 9, 1000).unwrap();
        one.step(1000);
        let mut many = Bootstrap::new(&a, &b, Variant::Official, 9, 1000).unwrap();
        let mut last = many.progress();
        while !many.is_done() {
            let p = many.step(37);
            assert!(p.done > last.done && p.done <= p.total);
            last = p;
        }
        assert_eq!(last.fraction, 1.0);
        assert_eq!(one.finish(), many.finish());
        let mut other = Bootstrap::new(&a, &b, Variant::Official, 10, 1000).unwrap();
        other.step(1000);
        assert_ne!(one.finish(), other.finish());
    }

    #[test]
    fn identical_models_give_zero_intervals() {
        let (a, _) = models();
        let mut boot = Bootstrap::new(&a, &a, Variant::Official, 1, 10).unwrap();
        assert_eq!(boot.progress().total, 1000);
        boot.step(usize::MAX);
        for i in boot.finish() {
            assert_eq!((i.low, i.high), (Some(0.0), Some(0.0)), "{i:?}");
            assert_eq!(i.difference, Some(0.0));
        }
    }

    #[test]
    fn mismatched_gold_is_refused_and_tables_and_diffs_align() {
        let (a, b) = models();
        let other = pairs_file("c.jsonl", &[1, 2], &[1, 2]);
        assert!(Bootstrap::new(&a, &other, Variant::Official, 1, 1000).is_err());
        let (ta, tb) = (workbench::table(&a.report), workbench::table(&b.report));
        let t = metrics_table(&[("A".into(), &a.report, &ta), ("B".into(), &b.report, &tb)]);
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.cell("overall", "accuracy").unwrap().value, Some(0.8));
        let diff = sample_diff(&samples::sample_rows(&a), &samples::sample_rows(&b));
        assert_eq!(diff.len(), 20);
        // Line 1: a says 1, b says 2 → 1; line 7: a 2, b 0 → 2 (the largest).
        assert_eq!(diff[0].disagreement, 2.0);
        assert!(
            diff.windows(2)
                .all(|w| w[0].disagreement >= w[1].disagreement)
        );
    }
}

mod sas_views {
    use super::*;
    use workbench::benchmarks::sasbench::{SasRecords, ecs_error_frequencies};
    use workbench::bootstrap::Bootstrap;
    use workbench::charts;
    use workbench::samples;

    /// The non-crash cases with their prediction-file outcomes.
    fn scored_cases() -> Vec<(PathBuf, Vec<WorkFile>, workbench::session::Outcome)> {
        let mut out = Vec::new();
        for case in sas_cases() {
            let mut paths = vec![case.join("datasets/error_type.jsonl")];
            paths.extend(with_suffix(
                &case.join("datasets_GoldenModel_Scored"),
                "_prediction.jsonl",
            ));
            paths.extend(with_suffix(
                &case.join("datasets_GoldenModel_Scored"),
                "_scored.jsonl",
            ));
            paths.extend(
                with_suffix(&case.join("datasets"), ".jsonl")
                    .into_iter()
                    .filter(|p| !p.ends_with("error_type.jsonl")),
            );
            let files = work_files(&paths);
            let outcomes = score_files(&files, &ScoreOptions::default());
            for o in outcomes {
                if o.result.is_ok() {
                    out.push((case.clone(), files.clone(), o));
                }
            }
        }
        assert!(out.len() >= 10);
        out
    }

    #[test]
    fn ecs_error_frequencies_are_the_official_matrices() {
        let mut checked = 0;
        for (case, _, outcome) in scored_cases() {
            let expected: Value = serde_json::from_str(&read(&case.join("expected.json"))).unwrap();
            let records = outcome
                .result
                .as_ref()
                .unwrap()
                .records::<SasRecords>()
                .unwrap();
            for (subset, result) in ecs_error_frequencies(records, Variant::Official) {
                let Ok(chart) = result else { continue };
                let file = format!("{subset}_prediction.jsonl");
                let detail = &expected["files"][&file]["ecs_detail"];
                if detail.is_null() {
                    continue;
                }
                for tier in &chart.tiers {
                    let row = |key: &str| -> Vec<f64> {
                        detail[key][tier.tier]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|v| v.as_f64().unwrap())
                            .collect()
                    };
                    assert_eq!(tier.gold, row("gold_error_matrix"), "{case:?} {subset}");
                    assert_eq!(tier.pred, row("pred_error_matrix"), "{case:?} {subset}");
                }
                checked += 1;
            }
        }
        assert!(checked >= 10, "{checked}");
    }

    #[test]
    fn rows_charts_and_details_of_every_case() {
        for (case, files, outcome) in scored_cases() {
            let report = outcome.report().unwrap();
            let rows = samples::sample_rows(outcome.result.as_ref().unwrap());
            assert_eq!(rows.len(), report.samples.as_ref().unwrap().len());
            let cm = charts::confusion(&rows).unwrap();
            assert_eq!(cm.counts.iter().sum::<u64>() as usize, rows.len());
            let h = charts::histogram(&rows);
            assert_eq!(h.gold.iter().sum::<u64>() as usize, rows.len());
            assert_eq!(charts::subset_bars(report).len(), 3);
            // The detail of the most disagreeing sample: question, steps side by side, and for
            // raw jobs the model's reply.
            let worst = (0..rows.len())
                .max_by(|&i, &j| rows[i].disagreement.total_cmp(&rows[j].disagreement))
                .unwrap();
            let detail = samples::sample_detail(&files, &outcome, worst).unwrap();
            let labels: Vec<&str> = detail.fields.iter().map(|(l, _)| l.as_str()).collect();
            assert!(labels.contains(&"Question"), "{case:?} {labels:?}");
            assert!(!detail.steps.is_empty(), "{case:?}");
            let raw = outcome.job.files.iter().any(|(r, _)| r.key() == "sas-raw");
            assert_eq!(labels.contains(&"Model reply"), raw, "{case:?}");
            let sample = &report.samples.as_ref().unwrap()[worst];
            let pred_steps: Vec<String> =
                detail.steps.iter().map(|s| s.pred_score.clone()).collect();
            if let Some(p) = sample["pred_steps"].as_array() {
                let expected: Vec<String> = p.iter().map(|v| v.to_string()).collect();
                assert_eq!(pred_steps, expected, "{case:?}");
            }
        }
    }

    /// The browser leaves SAS-Bench samples out of the report and builds each from the records
    /// when it is asked for: they must be the samples of the command line's report (scored from
    /// the same files by metrics-core, in its order), row for row and detail for detail.
    #[test]
    fn samples_built_on_demand_are_the_command_lines() {
        let mut checked = 0;
        for (case, files, held) in scored_cases() {
            let text = |role: &str| -> Vec<(&str, &str)> {
                held.job
                    .files
                    .iter()
                    .filter(|(r, _)| r.key() == role)
                    .map(|&(_, i)| (files[i].name.as_str(), files[i].text().unwrap()))
                    .collect()
            };
            let taxonomy = text("sas-taxonomy")[0];
            let taxonomy = NamedText {
                name: taxonomy.0,
                text: taxonomy.1,
            };
            let raw = held.job.files.iter().any(|(r, _)| r.key() == "sas-raw");
            let cli = if raw {
                let datasets = text("sas-dataset");
                let scored = text("sas-raw");
                let inputs = RawInputs {
                    taxonomy,
                    files: datasets
                        .iter()
                        .zip(&scored)
                        .map(|(&(dn, dt), &(sn, st))| RawFile {
                            dataset: NamedText { name: dn, text: dt },
                            scored: NamedText { name: sn, text: st },
                        })
                        .collect(),
                };
                sasbench::score_raw(&inputs, SasVariant::Official).unwrap()
            } else {
                let inputs = SasInputs {
                    taxonomy,
                    predictions: text("sas-prediction")
                        .into_iter()
                        .map(|(name, text)| NamedText { name, text })
                        .collect(),
                };
                sasbench::score_predictions(&inputs, SasVariant::Official).unwrap()
            };
            let expected = cli.samples.unwrap();
            let outcome = score_files(
                &files,
                &ScoreOptions {
                    samples_later: true,
                    ..ScoreOptions::default()
                },
            )
            .into_iter()
            .find(|o| o.job.title == held.job.title)
            .unwrap();
            let scored = outcome.result.as_ref().unwrap();
            assert_eq!(scored.report.samples, None, "{case:?}");
            let samples = samples::Samples::of(scored);
            assert_eq!(samples.len(), expected.len(), "{case:?}");
            for (i, want) in expected.iter().enumerate() {
                let got = samples.get(i).unwrap();
                assert_eq!(
                    &Value::Object(got.into_owned()),
                    want,
                    "{case:?} sample {i}"
                );
            }
            assert!(samples.get(expected.len()).is_none());
            let held_scored = held.result.as_ref().unwrap();
            assert_eq!(
                samples::sample_rows(scored),
                samples::sample_rows(held_scored)
            );
            assert_eq!(samples::summarize(scored), samples::summarize(held_scored));
            for i in [0, expected.len() / 2, expected.len() - 1] {
                assert_eq!(
                    samples::sample_detail(&files, &outcome, i).unwrap(),
                    samples::sample_detail(&files, &held, i).unwrap(),
                    "{case:?} detail {i}"
                );
            }
            checked += 1;
        }
        assert!(checked >= 10, "{checked}");
    }

    #[test]
    fn sasbench_bootstrap_of_a_model_against_itself_is_zero() {
        let (_, _, outcome) = scored_cases()
            .into_iter()
            .find(|(_, _, o)| {
                o.report()
                    .is_some_and(|r| r.overall.metrics["qwk"].as_scalar().is_some())
            })
            .unwrap();
        let scored = outcome.result.unwrap();
        let mut boot = Bootstrap::new(&scored, &scored, Variant::Official, 3, 1000).unwrap();
        boot.step(50);
        for i in boot.finish() {
            assert_eq!(i.difference.map(|d| d == 0.0), i.a.map(|_| true), "{i:?}");
            if i.resamples_defined > 0 {
                assert_eq!((i.low, i.high), (Some(0.0), Some(0.0)), "{i:?}");
            }
        }
    }
}

/// The teacher's view of a class in the samples layout (gold inside, no ids) with a levels and a
/// comments file: the Track 1 report and the class view come from one job, and the comments
/// file is also checked on its own.
#[test]
fn teacher_class_with_gold_in_the_samples_layout() {
    let levels = ["优秀", "较好", "一般", "合格", "不合格"];
    let samples: Vec<Value> = (0..10)
        .map(|i| serde_json::json!({"grade": "3", "title": "t", "content": "c\nd", "classification": levels[i % 5], "comment": "好"}))
        .collect();
    let preds: Vec<Value> = (0..10)
        .map(|i| serde_json::json!({"id": i, "classification": levels[(i + 1) % 5]}))
        .collect();
    let comments: Vec<Value> = (0..10)
        .map(|i| serde_json::json!({"id": i, "comment": "字".repeat(if i == 0 { 251 } else { 3 })}))
        .collect();
    let bytes = |v: &Vec<Value>| serde_json::to_vec(v).unwrap();
    let files = vec![
        WorkFile::new("samples.json", bytes(&samples)),
        WorkFile::new("t1.json", bytes(&preds)),
        WorkFile::new("t2.json", bytes(&comments)),
    ];
    let outcomes = score_files(&files, &ScoreOptions::default());
    let titles: Vec<&str> = outcomes.iter().map(|o| o.job.title.as_str()).collect();
    assert_eq!(
        titles,
        ["EOTGC Track 1: t1.json", "EOTGC comment check: t2.json"]
    );
    let track1 = outcomes[0].result.as_ref().unwrap();
    assert!(track1.report.overall.metrics.contains_key("acc_a"));
    let class = outcomes[0].job.benchmark().unwrap().class(track1).unwrap();
    assert!(class.has_gold);
    assert_eq!(class.essays.len(), 10);
    let first = class.essays.iter().find(|e| e.id == "0").unwrap();
    assert_eq!(first.comment_flag.as_deref(), Some("over"));
    assert_eq!(first.level.as_deref(), Some("较好"));
    assert_eq!(first.gold_rank, Some(0));
    let check = &outcomes[1].result.as_ref().unwrap().report;
    assert_eq!(check.variant, "comments");
}

/// Logs made by the real tools (`tests/imports/`): dropped as the page drops them (base names
/// only), recognised, planned into one job per run, scored to the tools' own numbers, and two
/// runs of each tool compared with paired intervals.
mod imports {
    use super::*;
    use workbench::bootstrap::Bootstrap;

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/imports")
    }

    /// Every log file of a tool (not the numbers, the console output or the run config).
    fn dropped(tool: &str) -> Vec<WorkFile> {
        let mut paths = files_under(&root().join(tool));
        paths.retain(|p| {
            let name = p.file_name().unwrap().to_str().unwrap();
            !["numbers.json", "printed.txt", "task_config.yaml"].contains(&name)
        });
        paths.sort();
        paths
            .iter()
            .map(|p| {
                let name = p.file_name().unwrap().to_str().unwrap().to_string();
                WorkFile::new(name, std::fs::read(p).unwrap())
            })
            .collect()
    }

    fn numbers(tool: &str) -> Value {
        serde_json::from_str(&read(&root().join(tool).join("numbers.json"))).unwrap()
    }

    fn scored(files: &[WorkFile]) -> Vec<workbench::session::Scored> {
        score_files(files, &ScoreOptions::default())
            .into_iter()
            .map(|o| o.result.unwrap())
            .collect()
    }

    fn metric(report: &metrics_core::Report, subset: &str, key: &str) -> Option<u64> {
        report
            .metric(subset, key)
            .and_then(|m| m.as_scalar())
            .map(f64::to_bits)
    }

    fn compared(a: &workbench::session::Scored, b: &workbench::session::Scored, keys: &[&str]) {
        let mut boot = Bootstrap::new(a, b, Variant::Official, 11, 1000).unwrap();
        assert!(boot.aligned_records > 0);
        boot.step(usize::MAX);
        let intervals = boot.finish();
        for key in keys {
            let i = intervals
                .iter()
                .find(|i| i.metric == *key)
                .unwrap_or_else(|| panic!("no interval for {key}: {intervals:?}"));
            let (lo, hi, d) = (i.low.unwrap(), i.high.unwrap(), i.difference.unwrap());
            assert!(lo <= d && d <= hi && lo < hi, "{i:?}");
            assert_eq!(i.resamples_defined, 1000);
        }
    }

    #[test]
    fn lm_eval_runs_are_recognised_planned_scored_and_compared() {
        let files = dropped("lm-eval");
        for f in &files {
            let expected = if f.name.starts_with("results_") {
                "lm-eval-results"
            } else {
                "lm-eval-samples"
            };
            assert_eq!(f.role, role(expected), "{}", f.name);
        }
        let runs = scored(&files);
        assert_eq!(runs.len(), 2);
        let expected = numbers("lm-eval");
        for (run, name) in runs.iter().zip(["dummy-a", "dummy-b"]) {
            assert!(run.report.warnings.is_empty(), "{:?}", run.report.warnings);
            for (task, metrics) in expected["runs"][name].as_object().unwrap() {
                for (key, value) in metrics.as_object().unwrap() {
                    assert_eq!(
                        metric(&run.report, task, key),
                        value.as_f64().map(f64::to_bits),
                        "{name} {task} {key}"
                    );
                }
            }
            assert_eq!(run.report.samples.as_ref().unwrap().len(), 36);
        }
        compared(&runs[0], &runs[1], &["acc,none", "acc_norm,none"]);
        // Multiple choice: the answer is the choice with the highest log-likelihood.
        let first = &runs[0].report.samples.as_ref().unwrap()[0];
        assert!(
            first["response"].as_str().unwrap().starts_with("choice "),
            "{first}"
        );
        // The observed values are the pooled means over both tasks: the group's acc.
        let mut boot = Bootstrap::new(&runs[0], &runs[1], Variant::Official, 1, 1000).unwrap();
        boot.step(1);
        let acc = boot
            .finish()
            .into_iter()
            .find(|i| i.metric == "acc,none")
            .unwrap();
        let group = expected["runs"]["dummy-a"]["arith_mc"]["acc,none"]
            .as_f64()
            .unwrap();
        assert!((acc.a.unwrap() - group).abs() < 1e-12);
    }

    #[test]
    fn inspect_logs_are_recognised_scored_and_compared() {
        let files = dropped("inspect");
        assert!(files.iter().all(|f| f.role == role("inspect-log")));
        let runs = scored(&files);
        assert_eq!(runs.len(), 3);
        let expected = numbers("inspect");
        for (run, file) in runs.iter().zip(&files) {
            assert!(run.report.warnings.is_empty(), "{:?}", run.report.warnings);
            for (scorer, metrics) in expected["logs"][&file.name].as_object().unwrap() {
                for (key, value) in metrics.as_object().unwrap() {
                    assert_eq!(
                        metric(&run.report, scorer, key),
                        value.as_f64().map(f64::to_bits),
                        "{} {scorer} {key}",
                        file.name
                    );
                }
            }
        }
        // model-a.eval, model-a.json, model-b.eval in name order.
        compared(&runs[0], &runs[2], &["match", "includes"]);
        // The detail of a sample shows the model's reply: from its own entry of the .eval
        // archive, from the sample itself in the .json log (q00 epoch 1 in both).
        let outcomes = score_files(&files, &ScoreOptions::default());
        for outcome in &outcomes[..2] {
            let detail = workbench::samples::sample_detail(&files, outcome, 0).unwrap();
            let output = detail.fields.iter().find(|(k, _)| k == "Model output");
            assert_eq!(
                output.map(|(_, v)| v.as_str()),
                Some("It is 5, or rather 6"),
                "{}",
                outcome.job.title
            );
        }
        // Read in part (the browser's way with a .eval): by its name it may be; its directory
        // names the entries scoring reads; the detail names the sample's own entry.
        assert!(workbench::prepare::may_read_in_part("model-a.eval"));
        assert!(!workbench::prepare::may_read_in_part("model-a.json"));
        assert!(!workbench::prepare::may_read_in_part("pairs.jsonl"));
        let eval = files
            .iter()
            .find(|f| f.name.ends_with("model-a.eval"))
            .unwrap();
        let archive = metrics_core::imports::zip::Archive::new(&eval.bytes).unwrap();
        let names: Vec<&str> = archive.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            workbench::prepare::archive_entries(&eval.name, &eval.bytes, &names).unwrap(),
            ["header.json", "reductions.json", "summaries.json"]
        );
        assert_eq!(
            workbench::prepare::archive_entries("model-a.json", b"{}", &names),
            None
        );
        let eval_outcome = outcomes
            .iter()
            .find(|o| o.job.title.contains("model-a.eval"))
            .unwrap();
        assert_eq!(
            workbench::samples::detail_entries(eval_outcome, 0),
            ["samples/q00_epoch_1.json"]
        );
    }

    #[test]
    fn evalscope_runs_are_recognised_planned_by_order_scored_and_compared() {
        let files = dropped("evalscope");
        for f in &files {
            let expected = if f.name.ends_with(".json") {
                "evalscope-report"
            } else {
                "evalscope-reviews"
            };
            assert_eq!(f.role, role(expected), "{}", f.name);
        }
        // Base names only: the two models' files have the same names and are told apart by order.
        let runs = scored(&files);
        assert_eq!(runs.len(), 2);
        let expected = numbers("evalscope");
        for (run, model) in runs.iter().zip(["model-a", "model-b"]) {
            assert!(run.report.warnings.is_empty(), "{:?}", run.report.warnings);
            let m = &expected["runs"][model][0];
            let name = m["name"].as_str().unwrap();
            assert_eq!(
                metric(&run.report, "overall", name),
                m["score"].as_f64().map(f64::to_bits)
            );
            assert_eq!(run.report.samples.as_ref().unwrap().len(), 36);
        }
        compared(&runs[0], &runs[1], &["accuracy"]);
    }
}

/// A SAS-Bench job past the browser's limit is refused before it is parsed, naming its biggest
/// file and the CLI; the same files under it score.
#[test]
fn sasbench_past_the_page_limit_is_refused_with_the_cli_named() {
    let case = golden_root().join("sasbench/case_24");
    let taxonomy = case.join("datasets/error_type.jsonl");
    let prediction = with_suffix(
        &case.join("datasets_GoldenModel_Scored"),
        "_prediction.jsonl",
    )
    .into_iter()
    .next()
    .unwrap();
    let files = work_files(&[taxonomy, prediction]);
    let scored = score_files(&files, &ScoreOptions::default());
    assert!(scored[0].result.is_ok());
    let mut big = files.clone();
    // Its size as the worker gives it for a file read in slices.
    big[1].size = workbench::benchmarks::sasbench::PAGE_MAX_BYTES;
    let refused = score_files(&big, &ScoreOptions::default());
    let e = refused[0].result.as_ref().unwrap_err();
    assert_eq!(e.path, big[1].name, "{e}");
    let limit = workbench::benchmarks::sasbench::PAGE_MAX_BYTES;
    assert!(
        e.message
            .contains(&format!("the browser scores at most {limit} ")),
        "{e}"
    );
    assert!(e.message.contains("scorebench score sasbench"), "{e}");
}
