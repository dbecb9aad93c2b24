//! `scorebench score --spec`: ASAP-AES and generic pairs restated as specs
//! (`specs/examples/`) give the built-in commands' numbers bit for bit — on every golden
//! ASAP-AES case in both variants, and on seeded random inputs of the whole class (float and
//! negative predictions, sets with one score, gold outside the declared range; pairs of
//! integers, floats, constants, ties, JSONL and CSV) — and bad specs name their file and line.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{score_fails, score_json, scorebench};

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../specs/examples")
        .join(name)
        .to_str()
        .unwrap()
        .to_string()
}

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("scorebench-spec-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What both reports must share: n, every overall and per-subset metric (compared as JSON,
/// i.e. to the bit), the subsets' names and sizes, the variant.
fn numbers(report: &Value) -> Value {
    serde_json::json!({
        "variant": report["variant"],
        "overall": report["overall"],
        "subsets": report["subsets"],
        "warnings": report["warnings"].as_array().map_or(0, Vec::len),
    })
}

fn same_asap(gold: &str, pred: &str, what: &str) -> usize {
    let spec = example("asap-aes.toml");
    let mut compared = 0;
    for variant in ["official", "corrected"] {
        let built_in = scorebench(&[
            "score",
            "asap-aes",
            "--gold",
            gold,
            pred,
            "--variant",
            variant,
            "--json",
        ]);
        let by_spec = scorebench(&[
            "score",
            "--spec",
            &spec,
            gold,
            pred,
            "--variant",
            variant,
            "--json",
        ]);
        assert_eq!(
            built_in.status.code(),
            by_spec.status.code(),
            "{what} {variant}"
        );
        if built_in.status.success() {
            let (a, b): (Value, Value) = (
                serde_json::from_slice(&built_in.stdout).unwrap(),
                serde_json::from_slice(&by_spec.stdout).unwrap(),
            );
            assert_eq!(numbers(&a), numbers(&b), "{what} {variant}");
            assert_eq!(a["inputs"], b["inputs"], "{what}");
            assert_eq!(b["benchmark"], "asap-aes-spec");
        } else {
            // Both refuse the input with the same message (the error names the essay_id).
            assert_eq!(
                String::from_utf8_lossy(&built_in.stderr),
                String::from_utf8_lossy(&by_spec.stderr),
                "{what} {variant}"
            );
        }
        compared += 1;
    }
    compared
}

#[test]
fn asap_aes_restated_equals_the_built_in_on_every_golden_case() {
    let cases = testkit::case_dirs("asap_aes");
    let mut compared = 0;
    for case in &cases {
        let gold = case.join("training_set_rel3.tsv");
        let pred = case.join("predictions.csv");
        compared += same_asap(
            gold.to_str().unwrap(),
            pred.to_str().unwrap(),
            &format!("{case:?}"),
        );
        // The files in the other order are assigned to their roles by their headers.
        if case.ends_with("asap_01_basic") {
            let swapped = score_json(&[
                "score",
                "--spec",
                &example("asap-aes.toml"),
                pred.to_str().unwrap(),
                gold.to_str().unwrap(),
                "--json",
            ]);
            let built_in = score_json(&[
                "score",
                "asap-aes",
                "--gold",
                gold.to_str().unwrap(),
                pred.to_str().unwrap(),
                "--json",
            ]);
            assert_eq!(swapped["overall"], built_in["overall"]);
        }
    }
    assert_eq!(compared, 2 * cases.len());
}

/// xorshift64*: seeded, no crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[test]
fn asap_aes_restated_equals_the_built_in_on_random_cases() {
    let dir = scratch("asap");
    let mut rng = Rng(0x5EED_A5A9);
    let declared = [
        (2, 12),
        (1, 6),
        (0, 3),
        (0, 3),
        (0, 4),
        (0, 4),
        (0, 30),
        (0, 60),
    ];
    let mut compared = 0;
    for case in 0..40 {
        let mut gold = String::from("essay_id\tessay_set\tessay\tdomain1_score\n");
        let mut pred = String::from("essay_id,predicted_score\n");
        let sets: Vec<u8> = (1..=8).filter(|_| rng.below(3) > 0).collect();
        let sets = if sets.is_empty() { vec![1] } else { sets };
        let mut id = 1000 * case;
        for &set in &sets {
            let (lo, hi) = declared[usize::from(set) - 1];
            let n = 2 + rng.below(40);
            let constant = rng.below(10) == 0;
            for _ in 0..n {
                id += 1 + rng.below(3);
                let mut g = if constant {
                    lo
                } else {
                    lo + rng.below((hi - lo + 1) as u64) as i64
                };
                if rng.below(50) == 0 {
                    g = hi + 1; // outside the declared range: corrected is null there
                }
                let p = match rng.below(4) {
                    0 => format!("{}", g),
                    1 => format!(
                        "{:.3}",
                        g as f64 + (rng.below(2000) as f64 - 1000.0) / 500.0
                    ),
                    2 => format!("\"{}.5\"", lo + rng.below((hi - lo + 1) as u64) as i64),
                    _ => format!("{}", -(rng.below(3) as f64) * 0.75),
                };
                gold.push_str(&format!(
                    "{id}\t{set}\tan \"essay\" text\t{}\n",
                    if constant { lo } else { g }
                ));
                pred.push_str(&format!("{id},{p}\n"));
            }
        }
        let (g, p) = (
            dir.join(format!("g{case}.tsv")),
            dir.join(format!("p{case}.csv")),
        );
        std::fs::write(&g, gold).unwrap();
        std::fs::write(&p, pred).unwrap();
        compared += same_asap(
            g.to_str().unwrap(),
            p.to_str().unwrap(),
            &format!("random case {case}"),
        );
    }
    assert_eq!(compared, 80);
}

#[test]
fn pairs_restated_equals_the_built_in_on_random_files() {
    let dir = scratch("pairs");
    let spec = example("pairs.toml");
    let mut rng = Rng(0xA11_5EED);
    for case in 0..60 {
        let n = 1 + rng.below(60) as usize;
        let kind = case % 4;
        let value = |rng: &mut Rng| -> String {
            match kind {
                0 => format!("{}", rng.below(5)),
                1 => format!("{:.2}", rng.below(1000) as f64 / 37.0 - 5.0),
                2 => "3".to_string(),
                _ => format!("{}", rng.below(3) as i64 - 1),
            }
        };
        let jsonl = case % 2 == 0;
        let mut text = if jsonl {
            String::new()
        } else {
            "id,gold,pred\n".to_string()
        };
        for i in 0..n {
            let (g, p) = (value(&mut rng), value(&mut rng));
            if jsonl {
                text.push_str(&format!(
                    "{{\"id\": {i}, \"gold\": {g}, \"pred\": \"{p}\"}}\n"
                ));
            } else {
                text.push_str(&format!("{i},{g},{p}\n"));
            }
        }
        let path = dir.join(format!("p{case}.{}", if jsonl { "jsonl" } else { "csv" }));
        std::fs::write(&path, text).unwrap();
        let path = path.to_str().unwrap();
        let a = score_json(&["score", "pairs", path, "--json"]);
        let b = score_json(&["score", "--spec", &spec, path, "--json"]);
        assert_eq!(a["overall"], b["overall"], "case {case}");
        assert_eq!(
            a["warnings"].as_array().unwrap().len(),
            b["warnings"].as_array().unwrap().len()
        );
    }
}

#[test]
fn a_bad_spec_names_its_file_and_line_and_exits_2() {
    let dir = scratch("bad");
    let text = std::fs::read_to_string(example("pairs.toml")).unwrap();
    let data = dir.join("d.csv");
    std::fs::write(&data, "gold,pred\n1,1\n2,1\n").unwrap();
    for (what, old, new, want) in [
        (
            "unknown key",
            "metric = \"spearman\"",
            "metric = \"spearman\"\nscop = \"overall\"",
            "unknown field `scop`",
        ),
        (
            "contradiction",
            "metric = \"spearman\"",
            "metric = \"spearman\"\nformula = \"kaggle\"",
            "metrics[2].formula: `formula` applies to qwk only",
        ),
        (
            "bad value",
            "metric = \"spearman\"",
            "metric = \"spearmann\"",
            "unknown variant `spearmann`",
        ),
    ] {
        let broken = text.replacen(old, new, 1);
        let line = broken
            .lines()
            .position(|l| l == new.lines().last().unwrap())
            .unwrap()
            + 1;
        let path = dir.join("broken.toml");
        std::fs::write(&path, &broken).unwrap();
        let stderr = score_fails(&[
            "score",
            "--spec",
            path.to_str().unwrap(),
            data.to_str().unwrap(),
            "--json",
        ]);
        assert!(
            stderr.contains(&format!("broken.toml:{line}: ")),
            "{what}: {stderr}"
        );
        assert!(stderr.contains(want), "{what}: {stderr}");
    }
    let stderr = score_fails(&[
        "score",
        "--spec",
        &example("pairs.toml"),
        "--variant",
        "corrected",
        data.to_str().unwrap(),
    ]);
    assert!(
        stderr.contains("has no variant `corrected` (it has: official)"),
        "{stderr}"
    );
}

/// The seeded random cases the official Kaggle code scored (metrics-core's fixture, 300+ cases,
/// both variants): through `specs/examples/asap-aes.toml` every value equals the built-in
/// adapter's bit for bit and the official value within the spec's 1e-12.
#[test]
fn asap_aes_restated_matches_the_official_code_on_the_reference_cases() {
    use metrics_core::asap_aes::{self, NamedBytes, Variant};
    let spec = server::score::spec_file::parse(
        "asap-aes.toml",
        &std::fs::read_to_string(example("asap-aes.toml")).unwrap(),
    )
    .unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../metrics-core/tests/data/asap_aes_reference.json");
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = fixture["cases"].as_array().unwrap();
    assert!(cases.len() >= 300, "{}", cases.len());
    let (mut values, mut nulls) = (0, 0);
    for case in cases {
        let mut gold = String::from("essay_id\tessay_set\tessay\tdomain1_score\r\n");
        let mut preds = String::from("essay_id,predicted_score\n");
        for (k, e) in case["essays"].as_array().unwrap().iter().enumerate() {
            let id = 1000 + (k * 7919) % 100_003;
            gold.push_str(&format!(
                "{id}\t{}\tessay {k} caf\u{e9}\t{}\r\n",
                e[0], e[1]
            ));
            preds.push_str(&format!("{id},{}\n", e[2].as_str().unwrap()));
        }
        let gold: Vec<u8> = gold.chars().map(|c| c as u8).collect(); // Latin-1 bytes
        for (variant, expected) in [
            (Variant::Official, &case["official"]),
            (Variant::Corrected, &case["corrected"]),
        ] {
            let built_in = asap_aes::score(
                NamedBytes {
                    name: "gold.tsv",
                    bytes: &gold,
                },
                NamedBytes {
                    name: "pred.csv",
                    bytes: preds.as_bytes(),
                },
                variant,
            )
            .unwrap();
            let by_spec = metrics_core::spec::score(
                &spec,
                &[
                    ("gold", "gold.tsv", &gold),
                    ("predictions", "pred.csv", preds.as_bytes()),
                ],
                variant.name(),
                false,
            )
            .unwrap()
            .report;
            let what = format!("seed {} {}", case["seed"], variant.name());
            assert_eq!(by_spec.overall, built_in.overall, "{what}");
            assert_eq!(by_spec.subsets, built_in.subsets, "{what}");
            assert_eq!(by_spec.warnings.len(), built_in.warnings.len(), "{what}");
            let mut expect = |actual: Option<f64>, e: &Value| match (actual, e.as_f64()) {
                (Some(a), Some(e)) => {
                    assert!((a - e).abs() <= 1e-12, "{what}: {a} vs {e}");
                    values += 1;
                }
                (None, None) => nulls += 1,
                other => panic!("{what}: {other:?}"),
            };
            for (set, e) in expected["sets"].as_object().unwrap() {
                expect(
                    by_spec
                        .metric(&format!("set_{set}"), "qwk")
                        .and_then(|v| v.as_scalar()),
                    e,
                );
            }
            for key in ["mean_qwk_fisher", "mean_qwk"] {
                expect(
                    by_spec.metric("overall", key).and_then(|v| v.as_scalar()),
                    &expected[key],
                );
            }
        }
    }
    assert!(nulls > 0 && values > 1000, "{values} values, {nulls} nulls");
}

/// A board of a benchmark defined by a spec: the owner uploads the spec's `.toml` with the gold;
/// entries are scored as `score --spec` scores them; the spec is published among the gold files
/// with its SHA-256; `leaderboard verify` (a fresh process that knows no spec) fetches the
/// spec, checks its hash and re-scores bit for bit; a restarted server (or another one on the
/// same database) registers the spec from the stored board; `serve --spec DIR` boards publish
/// the registered spec; a broken spec is refused naming its line. SQLite and PostgreSQL.
#[test]
fn boards_of_a_spec_score_publish_verify_and_survive_a_restart() {
    use crate::leaderboard::{Server, lb, lb_json, p, slug, stores, temp};
    let case = testkit::path("asap_aes/asap_02_float_predictions");
    let (gold, pred) = (
        case.join("training_set_rel3.tsv"),
        case.join("predictions.csv"),
    );
    let spec = example("asap-aes.toml");
    let want = score_json(&["score", "--spec", &spec, p(&gold), p(&pred), "--json"]);
    let spec_sha = metrics_core::InputFile::from_bytes("", &std::fs::read(&spec).unwrap()).sha256;
    for db in stores() {
        let s = slug("spec");
        let server = Server::start(&db);
        lb_json(
            &server,
            &[
                "create",
                "--slug",
                &s,
                "--title",
                "spec",
                "--benchmark",
                "asap-aes-spec",
                p(&gold),
                &spec,
            ],
        );
        let out = lb_json(
            &server,
            &["submit", "--slug", &s, "--model", "m1", p(&pred)],
        );
        assert_eq!(out["report"]["overall"], want["overall"], "{db}");
        assert_eq!(out["report"]["subsets"], want["subsets"], "{db}");
        let shown = lb_json(&server, &["show", "--slug", &s, "--json"]);
        let gold_files = shown["board"]["gold"].as_array().unwrap();
        let published = gold_files
            .iter()
            .find(|f| f["role"] == "asap-aes-spec:spec")
            .unwrap();
        assert_eq!(published["name"], "asap-aes.toml");
        assert_eq!(published["sha256"], spec_sha.as_str());
        let verify = lb(&server, &["verify", "--slug", &s]);
        assert!(
            verify.status.success(),
            "{}",
            String::from_utf8_lossy(&verify.stderr)
        );
        assert!(String::from_utf8_lossy(&verify.stdout).contains("identical"));

        // Without a benchmark, the uploaded spec names it.
        let keyless = slug("keyless");
        lb_json(
            &server,
            &[
                "create",
                "--slug",
                &keyless,
                "--title",
                "spec",
                p(&gold),
                &spec,
            ],
        );
        let shown = lb_json(&server, &["show", "--slug", &keyless, "--json"]);
        assert_eq!(shown["board"]["benchmark"], "asap-aes-spec");
        let none = lb(
            &server,
            &["create", "--slug", &slug("none"), "--title", "x", p(&gold)],
        );
        assert!(String::from_utf8_lossy(&none.stderr).contains("name the board's benchmark"));
        // A broken spec is refused with its line; a spec whose key is not the benchmark too.
        let dir = temp("spec-board");
        let broken = dir.join("broken.toml");
        let text = std::fs::read_to_string(&spec).unwrap();
        std::fs::write(&broken, text.replace("how = \"mean\"", "how = \"median\"")).unwrap();
        let refused = lb(
            &server,
            &[
                "create",
                "--slug",
                &slug("bad"),
                "--title",
                "x",
                "--benchmark",
                "asap-aes-spec",
                p(&gold),
                p(&broken),
            ],
        );
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(
            !refused.status.success()
                && stderr.contains("broken.toml:")
                && stderr.contains("median"),
            "{stderr}"
        );
        let other = lb(
            &server,
            &[
                "create",
                "--slug",
                &slug("bad"),
                "--title",
                "x",
                "--benchmark",
                "rubric",
                p(&gold),
                &spec,
            ],
        );
        let stderr = String::from_utf8_lossy(&other.stderr);
        assert!(
            stderr.contains("the spec's key is `asap-aes-spec`"),
            "{stderr}"
        );
        drop(server);

        // Restarted: the spec comes back from the stored board.
        if !db.starts_with("postgres") {
            let server = Server::start(&db);
            let out = lb_json(
                &server,
                &["submit", "--slug", &s, "--model", "m2", p(&pred)],
            );
            assert_eq!(out["report"]["overall"], want["overall"], "after a restart");
        }
    }
    // `serve --spec DIR`: a board of a registered spec without an upload publishes the spec.
    let db = temp("spec-serve").join("lb.sqlite3");
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../specs/examples");
    let server = Server::start_with(p(&db), &["--spec", p(&examples)]);
    let s = slug("pairs-spec");
    lb_json(
        &server,
        &[
            "create",
            "--slug",
            &s,
            "--title",
            "pairs",
            "--benchmark",
            "pairs-spec",
        ],
    );
    let dir = temp("spec-pairs");
    let pairs = dir.join("p.csv");
    std::fs::write(&pairs, "gold,pred\n1,1\n2,3\n3,3\n").unwrap();
    let out = lb_json(
        &server,
        &["submit", "--slug", &s, "--model", "m", p(&pairs)],
    );
    let built_in = score_json(&["score", "pairs", p(&pairs), "--json"]);
    assert_eq!(out["report"]["overall"], built_in["overall"]);
    let verify = lb(&server, &["verify", "--slug", &s]);
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stderr)
    );
}

/// A spec that says `lower_is_better` ranks its primary metric ascending on a board.
#[test]
fn a_lower_is_better_spec_ranks_ascending() {
    use crate::leaderboard::{Server, lb_json, p, slug, temp};
    let dir = temp("spec-mae");
    let spec = dir.join("mae.toml");
    std::fs::write(
        &spec,
        "name = \"MAE\"\nkey = \"mae-spec\"\nversion = \"1\"\nprimary = \"mae\"\nlower_is_better = true\n\
         [files.pairs]\nformat = \"csv\"\ngold = \"gold\"\npred = \"pred\"\n\
         [[metrics]]\nkey = \"mae\"\nmetric = \"mae\"\n",
    )
    .unwrap();
    let (near, far) = (dir.join("near.csv"), dir.join("far.csv"));
    std::fs::write(&near, "gold,pred\n1,1.5\n2,2\n").unwrap();
    std::fs::write(&far, "gold,pred\n1,3\n2,5\n").unwrap();
    let server = Server::start(p(&temp("spec-mae-db").join("lb.sqlite3")));
    let s = slug("mae");
    lb_json(
        &server,
        &[
            "create",
            "--slug",
            &s,
            "--title",
            "mae",
            "--benchmark",
            "mae-spec",
            p(&spec),
        ],
    );
    lb_json(
        &server,
        &["submit", "--slug", &s, "--model", "far", p(&far)],
    );
    lb_json(
        &server,
        &["submit", "--slug", &s, "--model", "near", p(&near)],
    );
    let shown = lb_json(&server, &["show", "--slug", &s, "--json"]);
    assert_eq!(shown["board"]["lower_is_better"], true);
    let ranked: Vec<(String, i64)> = shown["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["model"].as_str().unwrap().to_string(),
                e["rank"].as_i64().unwrap(),
            )
        })
        .collect();
    assert!(
        ranked.contains(&("near".into(), 1)) && ranked.contains(&("far".into(), 2)),
        "{ranked:?}"
    );
    // mae = mean(|0.5|, 0) = 0.25 and mean(2, 3) = 2.5
    let near_mae = shown["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["model"] == "near")
        .unwrap()["metrics"]["mae"]
        .as_f64();
    assert_eq!(near_mae, Some(0.25));
}
