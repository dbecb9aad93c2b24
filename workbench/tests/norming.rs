//! Norming: two teachers and the model on one class. The expected agreement and α are the
//! reference libraries' on the same ratings (scikit-learn 1.9.1 `cohen_kappa_score(labels=[0..4],
//! weights="quadratic")`, krippendorff 0.9.0 `alpha(level_of_measurement="ordinal")`, run on
//! 2026-11-27 over model [0,1,2,3,4,2,1,3], teacher [0,2,2,3,–,2,–,4], colleague
//! [1,2,2,3,4,–,1,4]; grade 3 is essays 1–4, grade 4 essays 5–8).
#![allow(clippy::unwrap_used)] // a panic is how these tests report a mismatch

use std::collections::BTreeMap;

use workbench::class::{Adjustment, ClassRow, ClassView, eotgc_levels};
use workbench::norming::{
    RaterKind, class_raters, norming, parse_ratings, ratings_json, teacher_rater, with_colleagues,
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
    // A Track 1 submission is a rater too.
    let track1 = r#"[{"id": 1, "classification": "优秀"}, {"id": "2", "classification": "Good"}]"#;
    let r = parse_ratings(&view, "t1.json", track1, "").unwrap();
    assert_eq!((r.name.as_str(), r.levels.len()), ("t1.json", 2));
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
