//! The fuzz targets over metrics-core's readers, one `pub fn NAME(data: &[u8])` each: run by
//! `cargo fuzz` (fuzz/fuzz_targets/NAME.rs) and replayed over the committed corpus by
//! `cargo test -p metrics-core --test fuzz_corpus`. A target fails by panicking: on a panic of
//! the code under test, and where two paths that must agree do not.
//!
//! Inputs with several files are split at NUL bytes: `file1 \0 file2 \0 …` (missing files are
//! empty), so a seed corpus is made of real files joined with `\0`.

#![allow(dead_code)] // each fuzz binary uses one target

use metrics_core::sasbench::{
    self, NamedText, RawFile, RawInputs, ReportOptions, SasInputs, Variant, format, lenient_json,
    step2,
};
use metrics_core::{eotgc, msqa, pairs, sgibench};

/// The names of the targets, for the corpus replay.
pub const TARGETS: [&str; 10] = [
    "lenient_json",
    "sasbench_raw",
    "sasbench_predictions",
    "eotgc",
    "msqa",
    "sgibench",
    "pairs",
    "stats",
    "python",
    "imports",
];

/// Run the target called `name`.
pub fn run(name: &str, data: &[u8]) {
    match name {
        "lenient_json" => lenient_json(data),
        "sasbench_raw" => sasbench_raw(data),
        "sasbench_predictions" => sasbench_predictions(data),
        "eotgc" => eotgc(data),
        "msqa" => msqa(data),
        "sgibench" => sgibench(data),
        "pairs" => pairs(data),
        "stats" => stats(data),
        "python" => python(data),
        "imports" => imports(data),
        _ => panic!("no fuzz target {name}"),
    }
}

/// `N` texts split at NUL bytes (lossy UTF-8, as a browser or the CLI's reader would refuse or
/// replace invalid bytes before parsing).
fn texts<const N: usize>(data: &[u8]) -> [String; N] {
    let mut parts = data.split(|&b| b == 0);
    std::array::from_fn(|_| String::from_utf8_lossy(parts.next().unwrap_or(&[])).into_owned())
}

/// json_repair port and step 2: no panic, and the two step-2 paths (borrowed fast path and
/// processed records) agree on every reply.
pub fn lenient_json(data: &[u8]) {
    let [text] = texts::<1>(data);
    let _ = lenient_json::repair_loads(&text);
    let _ = lenient_json::json_loads(&text);
    let n_steps = text.len() % 7;
    let fast = step2::predict(&text, n_steps);
    let full = step2::process_reply_text(&text, n_steps);
    match (&fast, &full) {
        (Ok(p), Ok(out)) => {
            assert_eq!(p.label, out.pred_label, "pred_label of {text:?}");
            let scores: Vec<i64> = out
                .pred_steps
                .iter()
                .map(|s| s["step_score"].as_i64().unwrap_or(i64::MIN))
                .collect();
            assert_eq!(p.step_scores, scores, "step scores of {text:?}");
        }
        (Err(_), Err(_)) => {}
        _ => panic!("predict {fast:?} but process_reply_text {full:?} for {text:?}"),
    }
}

/// Raw SAS-Bench files: taxonomy \0 dataset \0 scored, through step 2 and scoring (both
/// variants), and the `Value` reading of the same files.
pub fn sasbench_raw(data: &[u8]) {
    let [taxonomy, dataset, scored] = texts::<3>(data);
    let inputs = RawInputs {
        taxonomy: NamedText {
            name: "error_type.jsonl",
            text: &taxonomy,
        },
        files: vec![RawFile {
            dataset: NamedText {
                name: "7_Math_ShortAns.jsonl",
                text: &dataset,
            },
            scored: NamedText {
                name: "7_Math_ShortAns_scored.jsonl",
                text: &scored,
            },
        }],
    };
    let fast = sasbench::process_raw_file(&inputs.files[0]);
    // The documented equivalence of the borrowed path and the `Value` path.
    let slow = format::parse_records("7_Math_ShortAns.jsonl", &dataset).and_then(|gold| {
        let replies = format::parse_scored("7_Math_ShortAns_scored.jsonl", &scored)?;
        if gold.is_empty() {
            return Err(step2::no_gold_records("7_Math_ShortAns.jsonl"));
        }
        step2::process_file(
            "7_Math_ShortAns.jsonl",
            "7_Math_ShortAns_scored.jsonl",
            &gold,
            &replies,
        )?
        .iter()
        .map(|r| format::Response::from_record("7_Math_ShortAns.jsonl", r))
        .collect::<Result<Vec<_>, _>>()
    });
    if fast != slow {
        assert!(
            same_but_for_big_ints(&fast, &slow),
            "the two readings of a raw file differ:\n{fast:?}\n{slow:?}"
        );
    }
    for variant in [Variant::Official, Variant::Corrected] {
        let _ = sasbench::score_raw_with(&inputs, variant, ReportOptions::default());
    }
}

/// The one documented difference of the two readings of a raw file: step 2's processed record
/// (`step2::Step2Output`, a `serde_json::Value`) holds an integer beyond 64 bits as the nearest
/// float, so an error name with one reads `1e+20` there, where the borrowed reading and Python
/// keep `100000000000000000000` (`scripts/diff/diff_json_repair.py` pins the same loss). Every
/// other field, and every other name, must be equal.
fn same_but_for_big_ints(
    fast: &Result<Vec<format::Response>, metrics_core::InputError>,
    slow: &Result<Vec<format::Response>, metrics_core::InputError>,
) -> bool {
    let (Ok(fast), Ok(slow)) = (fast, slow) else {
        return false;
    };
    let names_match =
        |f: &format::Response, s: &format::Response| match (&f.pred_errors, &s.pred_errors) {
            (Ok(a), Ok(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|(a, b)| **a == **b || as_floats(a) == **b)
            }
            (a, b) => a == b,
        };
    fast.len() == slow.len()
        && fast.iter().zip(slow).all(|(f, s)| {
            names_match(f, s)
                && format::Response {
                    pred_errors: Ok(Vec::new()),
                    ..f.clone()
                } == format::Response {
                    pred_errors: Ok(Vec::new()),
                    ..s.clone()
                }
        })
}

/// `text` with every integer literal beyond 64 bits written as Python writes the nearest float.
fn as_floats(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(|c: char| c.is_ascii_digit()) {
        let sign = usize::from(rest[..start].ends_with('-'));
        let end = rest[start..]
            .find(|c: char| !c.is_ascii_digit())
            .map_or(rest.len(), |e| start + e);
        let literal = &rest[start - sign..end];
        out.push_str(&rest[..start - sign]);
        match literal.parse::<i64>() {
            Err(_) if !rest[end..].starts_with(['.', 'e', 'E']) => {
                let f: f64 = literal.parse().unwrap_or(f64::NAN);
                out.push_str(&metrics_core::python::py_repr(&serde_json::json!(f)));
            }
            _ => out.push_str(literal),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Processed SAS-Bench files: taxonomy \0 prediction file.
pub fn sasbench_predictions(data: &[u8]) {
    let [taxonomy, predictions] = texts::<2>(data);
    let inputs = SasInputs {
        taxonomy: NamedText {
            name: "error_type.jsonl",
            text: &taxonomy,
        },
        predictions: vec![NamedText {
            name: "7_Math_ShortAns_prediction.jsonl",
            text: &predictions,
        }],
    };
    for variant in [Variant::Official, Variant::Corrected] {
        let _ = sasbench::score_predictions_with(&inputs, variant, ReportOptions::default());
    }
}

/// EOTGC: gold \0 predictions \0 track-2 file \0 comments.
pub fn eotgc(data: &[u8]) {
    let [gold, pred, track2, comments] = texts::<4>(data);
    let _ = eotgc::score_track1("gold.json", &gold, "pred.json", &pred);
    if let Ok(parsed) = eotgc::track2::parse_track2_file("track2.json", &track2) {
        let input = metrics_core::InputFile::from_bytes("track2.json", track2.as_bytes());
        let _ = eotgc::track2::score_track2_file(input, &parsed);
    }
    if let Ok(parsed) = eotgc::format::parse_comments("comments.json", &comments) {
        let input = metrics_core::InputFile::from_bytes("comments.json", comments.as_bytes());
        let _ = eotgc::track2::comments_report(input, &parsed);
    }
}

/// MSQA: evaluation.json \0 inference file \0 good-questions file.
pub fn msqa(data: &[u8]) {
    let [evaluation, inference, good] = texts::<3>(data);
    let _ = msqa::score_evaluation_text("evaluation.json", &evaluation);
    let good = msqa::paper::parse_good_questions("good.json", &good).ok();
    if let Ok(items) = msqa::paper::parse_inference("inference.jsonl", &inference) {
        for last_five in [false, true] {
            let options = msqa::paper::PaperOptions {
                last_five,
                good_questions: good.clone(),
            };
            let _ = msqa::paper::score_paper(Vec::new(), "inference.jsonl", &items, &options);
        }
    }
}

/// SGI-Bench logs: one text read as every task's log \0 judge replies.
pub fn sgibench(data: &[u8]) {
    let [log, replies] = texts::<2>(data);
    let _ = sgibench::deep_research::score_log("log.json", &log);
    let _ = sgibench::wet::score_log("log.json", &log);
    let _ = sgibench::dry::score_log("log.json", &log, None);
    let _ = sgibench::dry::score_log("log.json", &log, Some(("replies.json", &replies)));
    let _ = sgibench::idea::score_log("log.json", &log, None);
    let _ = sgibench::idea::score_log_with(
        "log.json",
        &log,
        &sgibench::idea::IdeaSources {
            embeddings: None,
            judge_replies: Some(("replies.json", &replies)),
        },
    );
    let _ = sgibench::idea_parse::parse_generated_idea(&log);
    let _ = sgibench::idea::parse_judge_reply(&log);
    let _ = sgibench::reasoning::extract_boxed_letter(&log);
    let _ = sgibench::deep_research::model_answer(&log);
}

/// Generic pairs, JSONL or CSV, through the report.
pub fn pairs(data: &[u8]) {
    let [text] = texts::<1>(data);
    if let Ok(parsed) = pairs::parse_pairs("pairs", &text) {
        let input = metrics_core::InputFile::from_bytes("pairs", text.as_bytes());
        let _ = pairs::score_pairs(input, &parsed, &pairs::PairsOptions::default());
        let labels = Some(parsed.gold.iter().take(5).copied().collect());
        let _ = pairs::score_pairs(
            metrics_core::InputFile::from_bytes("pairs", b""),
            &parsed,
            &pairs::PairsOptions { labels },
        );
    }
}

/// The statistics on arbitrary float bit patterns (16 bytes per pair): no panic, correlations
/// in [−1, 1], accuracy in [0, 1].
pub fn stats(data: &[u8]) {
    let (x, y): (Vec<f64>, Vec<f64>) = data
        .chunks_exact(16)
        .map(|c| {
            let a = f64::from_le_bytes(c[..8].try_into().unwrap_or([0; 8]));
            let b = f64::from_le_bytes(c[8..].try_into().unwrap_or([0; 8]));
            (a, b)
        })
        .unzip();
    for r in [
        metrics_core::pearson::pearson(&x, &y),
        metrics_core::spearman::spearman(&x, &y),
        metrics_core::kendall_tau_b::kendall_tau_b(&x, &y),
    ]
    .into_iter()
    .flatten()
    {
        assert!((-1.0..=1.0).contains(&r), "correlation {r} of {x:?} {y:?}");
    }
    let _ = metrics_core::qwk::quadratic_weighted_kappa(&x, &y);
    if let Ok(a) = metrics_core::accuracy::accuracy(&x, &y) {
        assert!((0.0..=1.0).contains(&a));
    }
}

/// Python semantics helpers on arbitrary text.
pub fn python(data: &[u8]) {
    let [text] = texts::<1>(data);
    let _ = metrics_core::python::str_to_int(&text);
    let _ = metrics_core::python::py_repr_str(&text);
    let _ = metrics_core::python::strip(&text);
    if let Ok(v) = lenient_json::json_loads(&text) {
        let _ = (v.py_str(), v.json_dumps(), v.py_int(), v.to_value());
    }
}

/// Logs of other tools: lm-eval (results \0 samples) and EvalScope (report \0 reviews) through
/// their reports, the whole input as an Inspect log (`.eval` archive or `.json`), and the ZIP
/// reader over every entry.
pub fn imports(data: &[u8]) {
    use metrics_core::imports::{NamedBytes, evalscope, inspect, lm_eval, zip};
    let mut parts = data.splitn(2, |&b| b == 0);
    let (a, b) = (parts.next().unwrap_or(&[]), parts.next().unwrap_or(&[]));
    let named = |name, bytes| NamedBytes { name, bytes };
    let _ = lm_eval::score(
        &[
            named("results_2026-01-01T00-00-00.000000.json", a),
            named("samples_t_2026-01-01T00-00-00.000000.jsonl", b),
        ],
        true,
    );
    let _ = evalscope::score(
        &[
            named("general_mcq.json", a),
            named("general_mcq_easy.jsonl", b),
        ],
        true,
    );
    let _ = inspect::score(named("log.eval", data), true);
    if let Ok(archive) = zip::Archive::new(data) {
        for entry in &archive.entries {
            let _ = archive.read(entry);
        }
    }
}
