//! Norming: two teachers and the model on one class. The expected agreement and α are the
//! reference libraries' on the same ratings (scikit-learn 1.9.1 `cohen_kappa_score(labels=[0..4],
//! weights="quadratic")`, krippendorff 0.9.0 `alpha(level_of_measurement="ordinal")`, run on
//! 2026-11-27 over model [0,1,2,3,4,2,1,3], teacher [0,2,2,3,–,2,–,4], colleague
//! [1,2,2,3,4,–,1,4]; grade 3 is essays 1–4, grade 4 essays 5–8).
#![allow(clippy::unwrap_used)] // a panic is how these tests report a mismatch

use std::collections::BTreeMap;

use workbench::class::{Adjustment, ClassRow, ClassView, eotgc_levels};
use workbench::norming::{
    ColleagueFile, DOWNLOAD_CSV, DOWNLOAD_RATINGS, NormingRequest, RaterKind, answer, class_raters,
    norming, panel, parse_ratings, ratings_json, teacher_rater, with_colleagues,
};

const MODEL: [usize; 8] = [0, 1, 2, 3, 4, 2, 1, 3];
const TEACHER: [Option<usize>; 8] = [
    Some(0),
    Some(2),
    Some(2),
    Some(3),
    None,
    Some(2),
    None,
    Some(4),
];
const COLLEAGUE: [Option<usize>; 8] = [
    Some(1),
    Some(2),
    Some(2),
    Some(3),
    Some(4),
    None,
    Some(1),
    Some(4),
];

fn class() -> ClassView {
    let levels = eotgc_levels(&[]);
    let essays = (0..8)
        .map(|i| ClassRow {
            id: (i + 1).to_string(),
            grade: if i < 4 { "3" } else { "4" }.into(),
            requirement: String::new(),
            title: format!("t{i}"),
            content: String::new(),
            level: Some(levels[MODEL[i]].label.clone()),
            level_rank: Some(MODEL[i]),
            gold_rank: None,
            comment: None,
            comment_chars: None,
            comment_flag: None,
        })
        .collect();
    ClassView::new("class.json".into(), "abc".into(), levels, essays, 250)
}

/// The teacher reviewed the essays of `TEACHER`, keeping the model's level where it agrees.
fn adjustments() -> BTreeMap<String, Adjustment> {
    TEACHER
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let level = (*t)?;
            Some((
                (i + 1).to_string(),
                Adjustment {
                    level: (level != MODEL[i]).then_some(level),
                    comment: None,
                    reviewed: true,
                },
            ))
        })
        .collect()
}

fn colleague_file(view: &ClassView) -> String {
    let levels: serde_json::Map<String, serde_json::Value> = COLLEAGUE
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            Some((
                (i + 1).to_string(),
                view.levels[(*c)?].english.clone().into(),
            ))
        })
        .collect();
    serde_json::json!({"scorebench": "class-ratings", "class": "abc", "file": "class.json",
        "rater": "Ms Li", "levels": levels})
    .to_string()
}

#[test]
fn two_teachers_and_the_model_agree_as_the_reference_libraries_say() {
    let view = class();
    let adj = adjustments();
    let teacher = teacher_rater(&view, "me", |id| adj.get(id).cloned());
    let colleague = parse_ratings(&view, "li.json", &colleague_file(&view), "").unwrap();
    assert_eq!(colleague.name, "Ms Li");
    let mut raters = class_raters(&view, "model", "gold");
    assert_eq!(raters.len(), 1, "no gold in this class");
    raters.extend([teacher, colleague]);
    let n = norming(&view, &raters);
    let pair = |a: &str, b: &str| {
        n.pairs
            .iter()
            .find(|p| p.a == a && p.b == b)
            .unwrap()
            .clone()
    };
    let mt = pair("model", "me");
    assert_eq!(
        (mt.n, mt.exact, mt.adjacent, mt.qwk),
        (
            6,
            Some(0.6666666666666666),
            Some(1.0),
            Some(0.8775510204081632)
        )
    );
    let mc = pair("model", "Ms Li");
    assert_eq!(
        (mc.n, mc.exact, mc.adjacent, mc.qwk),
        (
            7,
            Some(0.5714285714285714),
            Some(1.0),
            Some(0.8695652173913043)
        )
    );
    let tc = pair("me", "Ms Li");
    assert_eq!(
        (tc.n, tc.exact, tc.adjacent, tc.qwk),
        (5, Some(0.8), Some(1.0), Some(0.9295774647887324))
    );
    let alpha: Vec<(&str, usize, Option<f64>, Option<f64>)> = n
        .alpha
        .iter()
        .map(|g| (g.group.as_str(), g.essays, g.teachers, g.with_model))
        .collect();
    assert_eq!(
        alpha,
        [
            ("3", 4, Some(0.976027397260274), Some(0.8854166666666666)),
            // One essay both teachers rated, at one level: α is NaN in the package.
            ("4", 1, None, Some(0.897119341563786)),
            (
                "overall",
                5,
                Some(0.9882352941176471),
                Some(0.9275718546193426)
            ),
        ]
    );
    // Essay 8: model 3, both teachers 4 — spread 1 with three raters; essay 1 (0, 0, 1) too;
    // ties keep the class order.
    let first: Vec<(&str, usize)> = n
        .disputed
        .iter()
        .map(|d| (d.id.as_str(), d.spread))
        .collect();
    assert!(first.iter().all(|(_, s)| *s >= 1));
    assert_eq!(n.disputed[0].levels.len(), 3);
    let spreads: Vec<usize> = n.disputed.iter().map(|d| d.spread).collect();
    assert!(spreads.windows(2).all(|w| w[0] >= w[1]), "{spreads:?}");
}

/// The panel's tables carry every value whole (three decimals shown), a key per row, one level
/// column per rater.
#[test]
fn the_panel_tables_carry_the_exact_values() {
    let view = class();
    let adj = adjustments();
    let mut raters = class_raters(&view, "model", "gold");
    raters.push(teacher_rater(&view, "me", |id| adj.get(id).cloned()));
    raters.push(parse_ratings(&view, "li.json", &colleague_file(&view), "").unwrap());
    let n = norming(&view, &raters);
    let tables = panel(&n, |k| format!("L{k}"), 2);
    let pairs = &tables.pairs;
    assert_eq!(pairs.rows.len(), 3);
    for p in &n.pairs {
        let key = format!("{}|{}", p.a, p.b);
        assert_eq!(pairs.cell(&key, "n").unwrap().value, Some(p.n as f64));
        assert_eq!(pairs.cell(&key, "exact").unwrap().value, p.exact);
        assert_eq!(pairs.cell(&key, "adjacent").unwrap().value, p.adjacent);
        assert_eq!(pairs.cell(&key, "qwk").unwrap().value, p.qwk);
    }
    assert_eq!(pairs.rows[0].key, "model|me");
    assert_eq!(
        pairs.cell("model|me", "qwk").unwrap().display,
        "0.878",
        "QWK 0.8775510204081632 shown with three decimals"
    );
    let overall = tables.alpha.rows.last().unwrap();
    assert_eq!(
        (overall.key.as_str(), overall.label.as_str()),
        ("overall", "class.overall")
    );
    // Grade 4's teachers' α is undefined: a dash, no value.
    let g4 = tables.alpha.cell("4", "alpha_teachers").unwrap();
    assert_eq!((g4.display.as_str(), g4.value), ("—", None));
    let disputed = &tables.disputed;
    // Two listed, then the row that counts the rest.
    assert_eq!(disputed.rows.len(), 3);
    let rest = disputed.rows.last().unwrap();
    assert_eq!(
        (rest.key.as_str(), rest.cells[0].display.clone(), rest.n),
        (
            "more",
            format!("+{}", n.disputed.len() - 2),
            Some(n.disputed.len() - 2)
        )
    );
    assert_eq!(tables.more, n.disputed.len() - 2);
    assert_eq!(disputed.columns.len(), 3 + raters.len());
    let first = &disputed.rows[0];
    assert_eq!(first.key, n.disputed[0].id);
    let levels: Vec<&str> = first.cells[3..]
        .iter()
        .map(|c| c.display.as_str())
        .collect();
    let want: Vec<String> = n.disputed[0]
        .levels
        .iter()
        .map(|k| k.map_or_else(|| "—".to_string(), |k| format!("L{k}")))
        .collect();
    assert_eq!(levels, want);
}

/// What the worker answers the page: a refused file says why, a later file of the same name
/// replaces an earlier one, the exports carry the colleague's level, the teacher's own ratings
/// file reads back.
#[test]
fn the_answer_keeps_refuses_and_replaces_colleagues_files() {
    let view = class();
    let adj: std::collections::HashMap<String, Adjustment> = adjustments().into_iter().collect();
    let li = colleague_file(&view);
    let request = NormingRequest {
        seq: 7,
        adjustments: adj,
        colleagues: vec![
            ColleagueFile {
                name: String::new(),
                file: "li-old.json".into(),
                text: li.replace("\"4\": \"较好\"", "\"4\": \"一般\""),
            },
            ColleagueFile {
                name: String::new(),
                file: "broken.json".into(),
                text: "[{\"id\": 99, \"classification\": \"优秀\"}]".into(),
            },
            ColleagueFile {
                name: String::new(),
                file: "li.json".into(),
                text: li,
            },
        ],
        me: "me".into(),
        model: "model".into(),
        gold: "gold".into(),
        english: true,
        ..NormingRequest::default()
    };
    let a = answer(&view, &request, 20);
    assert_eq!(a.seq, 7);
    assert_eq!(
        a.files[0],
        (String::new(), String::new()),
        "replaced by li.json"
    );
    assert_eq!(a.files[1].1, "broken.json: essay 99 is not in this class");
    assert_eq!(a.files[2], ("Ms Li".to_string(), "7".to_string()));
    let tables: Vec<(String, workbench::table::Table)> =
        serde_json::from_value(a.tables.clone()).unwrap();
    let ids: Vec<&str> = tables.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "agreement-numbers",
            "agreement-confusion",
            "norming-pairs",
            "norming-alpha",
            "norming-disputed"
        ]
    );
    assert_eq!(a.agreement_n, 6);
    assert_eq!(tables[2].1.rows.len(), 3, "model, me, Ms Li");
    let xlsx: serde_json::Value = serde_json::from_str(&a.xlsx).unwrap();
    let rows = xlsx["rows"].as_array().unwrap();
    assert_eq!((xlsx["sheet"].as_str(), rows.len()), (Some("class"), 9));
    assert_eq!(rows[0].as_array().unwrap().last().unwrap(), "Ms Li_level");
    let names: Vec<&str> = a.downloads.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "class-class.csv",
            "class-track1.json",
            "class-track2.json",
            "class-ratings.json"
        ]
    );
    let csv = &a.downloads[DOWNLOAD_CSV].1;
    assert!(csv.starts_with('\u{feff}') && csv.contains("Ms Li_level"));
    let mine = parse_ratings(&view, "mine.json", &a.downloads[DOWNLOAD_RATINGS].1, "").unwrap();
    assert_eq!(mine.levels.len(), 6);
}

#[test]
fn ratings_files_round_trip_and_bad_ones_say_why() {
    let view = class();
    let adj = adjustments();
    let teacher = teacher_rater(&view, "me", |id| adj.get(id).cloned());
    let text = ratings_json(&view, &teacher);
    let back = parse_ratings(&view, "me.json", &text, "Mr Wang").unwrap();
    assert_eq!(
        (back.name.as_str(), back.kind, &back.levels),
        ("Mr Wang", RaterKind::Colleague, &teacher.levels)
    );
    // A Track 1 submission is a rater too, named by its file.
    let track1 = r#"[{"id": 1, "classification": "优秀"}, {"id": "2", "classification": "Good"}]"#;
    let r = parse_ratings(&view, "t1.json", track1, "").unwrap();
    assert_eq!((r.name.as_str(), r.levels.len()), ("t1", 2));
    for (text, message) in [
        ("{", "t.json: not JSON"),
        (
            r#"[{"id": 99, "classification": "优秀"}]"#,
            "essay 99 is not in this class",
        ),
        (
            r#"[{"id": 1, "classification": "great"}]"#,
            "unknown level \"great\"",
        ),
        (
            r#"{"scorebench": "class-ratings", "class": "other", "file": "b.json", "levels": {}}"#,
            "another class file (b.json)",
        ),
        ("3", "expected a class ratings file"),
    ] {
        let e = parse_ratings(&view, "t.json", text, "").unwrap_err();
        assert!(e.contains(message), "{e}");
    }
    let table = with_colleagues(
        &view,
        vec![vec!["id".into()], vec!["1".into()], vec!["5".into()]],
        &[back],
    );
    assert_eq!(table[0], ["id", "Mr Wang_level"]);
    assert_eq!(table[1][1], view.levels[0].label);
    assert_eq!(table[2][1], "", "essay 5 was not rated");
}
