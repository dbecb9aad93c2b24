//! Unit tests of the ASAP-AES metric and report. Reference values come from the official code
//! (`ml_metrics` 0.1.4 = benhamner/Metrics @ 9a637aea, numpy 2.4.6); the call is in a comment.

use super::*;

fn essay(id: u64, set: u8, gold: i64, pred: f64) -> Essay {
    Essay {
        id,
        set,
        gold,
        pred,
        text: String::new(),
        line: id as usize + 1,
        pred_line: id as usize + 1,
    }
}

#[test]
fn official_truncates_corrected_rounds_half_to_even_and_clips() {
    let official = |p: f64| Variant::Official.scored_pred(1, p);
    // np.array([2.999, -0.6, -1.5, 3.5, -0.0], dtype=int) -> [2, 0, -1, 3, 0]
    assert_eq!(
        [2.999, -0.6, -1.5, 3.5, -0.0].map(official),
        [2, 0, -1, 3, 0]
    );
    let corrected = |set: u8, p: f64| Variant::Corrected.scored_pred(set, p);
    // np.clip(np.rint([2.5, 3.5, -0.5, 13.2, 1.49]), 2, 12) -> [2, 4, 2, 12, 2] (set 1: 2–12)
    assert_eq!(
        [2.5, 3.5, -0.5, 13.2, 1.49].map(|p| corrected(1, p)),
        [2, 4, 2, 12, 2]
    );
    // set 3 (0–3): np.clip(np.rint([-0.5, 0.5, 2.5, 3.7]), 0, 3) -> [0, 0, 2, 3]
    assert_eq!([-0.5, 0.5, 2.5, 3.7].map(|p| corrected(3, p)), [0, 0, 2, 3]);
    assert_eq!(declared_range(8), Some((0, 60)));
    assert_eq!(declared_range(0), None);
    assert_eq!(declared_range(9), None);
    assert_eq!(Variant::from_name("corrected"), Some(Variant::Corrected));
    assert_eq!(Variant::from_name("paper"), None);
}

#[test]
fn qwk_matches_the_official_function_bit_for_bit() {
    // quadratic_weighted_kappa([1,2,3,4,4,2], [1,2,4,4,3,3]) == 0.7906976744186047
    assert_eq!(
        quadratic_weighted_kappa(&[1, 2, 3, 4, 4, 2], &[1, 2, 4, 4, 3, 3], None),
        Ok(0.7906976744186047)
    );
    // quadratic_weighted_kappa([2,3,4,5,6], [2.999,-0.6,4.7,6.2,5.5]) == 0.6857142857142857
    let pred: Vec<i64> = [2.999, -0.6, 4.7, 6.2, 5.5]
        .iter()
        .map(|&p| Variant::Official.scored_pred(1, p))
        .collect();
    assert_eq!(
        quadratic_weighted_kappa(&[2, 3, 4, 5, 6], &pred, None),
        Ok(0.6857142857142857)
    );
    // quadratic_weighted_kappa([0,1,2,3,3,1], [0,0,2,3,2,1], 0, 3) == 0.8695652173913043
    assert_eq!(
        quadratic_weighted_kappa(&[0, 1, 2, 3, 3, 1], &[0, 0, 2, 3, 2, 1], Some((0, 3))),
        Ok(0.8695652173913043)
    );
}

/// The official double loop over every cell, transcribed.
fn dense_qwk(gold: &[i64], pred: &[i64], lo: i64, hi: i64) -> f64 {
    let k = (hi - lo + 1) as usize;
    let mut conf = vec![vec![0u64; k]; k];
    let (mut a, mut b) = (vec![0u64; k], vec![0u64; k]);
    for (&g, &p) in gold.iter().zip(pred) {
        conf[(g - lo) as usize][(p - lo) as usize] += 1;
        a[(g - lo) as usize] += 1;
        b[(p - lo) as usize] += 1;
    }
    let n = gold.len() as f64;
    let (mut num, mut den) = (0.0, 0.0);
    for i in 0..k {
        for j in 0..k {
            let expected = (a[i] * b[j]) as f64 / n;
            let d = (i as f64 - j as f64).powf(2.0) / ((k - 1) as f64).powf(2.0);
            num += d * conf[i][j] as f64 / n;
            den += d * expected / n;
        }
    }
    1.0 - num / den
}

#[test]
fn skipping_zero_cells_changes_no_bit() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |m: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % m
    };
    for case in 0..300 {
        let n = 2 + next(120) as usize;
        let spread = 2 + next(40) as i64;
        let gold: Vec<i64> = (0..n).map(|_| next(spread as u64) as i64 - 3).collect();
        let pred: Vec<i64> = gold
            .iter()
            .map(|&g| g + next(7) as i64 - 3 + if next(10) == 0 { 20 } else { 0 })
            .collect();
        let (lo, hi) = (
            *gold.iter().chain(&pred).min().unwrap(),
            *gold.iter().chain(&pred).max().unwrap(),
        );
        let sparse = quadratic_weighted_kappa(&gold, &pred, None).unwrap();
        assert_eq!(
            sparse.to_bits(),
            dense_qwk(&gold, &pred, lo, hi).to_bits(),
            "case {case}"
        );
        let wide = quadratic_weighted_kappa(&gold, &pred, Some((lo - 5, hi + 9))).unwrap();
        assert_eq!(
            wide.to_bits(),
            dense_qwk(&gold, &pred, lo - 5, hi + 9).to_bits(),
            "case {case} declared"
        );
    }
}

#[test]
fn qwk_undefined_where_the_official_code_raises() {
    // quadratic_weighted_kappa([3,3], [3,3]) and (…, 0, 4): ZeroDivisionError
    for range in [None, Some((0, 4))] {
        assert!(matches!(
            quadratic_weighted_kappa(&[3, 3], &[3, 3], range),
            Err(MetricError::Undefined { .. })
        ));
    }
    assert!(quadratic_weighted_kappa(&[3, 3], &[3, 4], None).is_ok());
    assert!(matches!(
        quadratic_weighted_kappa(&[3, 5], &[3, 4], Some((0, 4))),
        Err(MetricError::Undefined { .. })
    ));
    for far in [MAX_ABS_SCORE + 1, i64::MIN, i64::MAX] {
        assert!(matches!(
            quadratic_weighted_kappa(&[0, far], &[far, 0], None),
            Err(MetricError::Undefined { .. })
        ));
    }
    assert_eq!(
        quadratic_weighted_kappa(&[], &[], None),
        Err(MetricError::Empty)
    );
    assert_eq!(
        quadratic_weighted_kappa(&[1], &[], None),
        Err(MetricError::LengthMismatch { left: 1, right: 0 })
    );
}

#[test]
fn means_follow_numpy() {
    // k = [0.7013, 0.3824, 0.3012, 0.8664, 0.4361, 0.4401, 0.9386, 0.8671]
    // np.mean(k) == 0.6166499999999999 (left to right / 8 would give 0.61665)
    let k = [
        0.7013, 0.3824, 0.3012, 0.8664, 0.4361, 0.4401, 0.9386, 0.8671,
    ];
    assert_eq!(mean_qwk(&k), Ok(0.6166499999999999));
    // mean_quadratic_weighted_kappa(k) == 0.6968501263868071
    let fisher = mean_qwk_fisher(&k).unwrap();
    assert!((fisher - 0.6968501263868071).abs() < 1e-15, "{fisher}");
    // mean_quadratic_weighted_kappa([1.0, -1.0, 0.5]) == 0.18108287362775216 (κ clipped to ±0.999)
    let clipped = mean_qwk_fisher(&[1.0, -1.0, 0.5]).unwrap();
    assert!((clipped - 0.18108287362775216).abs() < 1e-15, "{clipped}");
    assert_eq!(mean_qwk(&[]), Err(MetricError::Empty));
    assert_eq!(mean_qwk_fisher(&[]), Err(MetricError::Empty));
}

#[test]
fn join_names_the_essay_id() {
    let gold = |ids: &[u64]| -> Vec<GoldEssay> {
        ids.iter()
            .map(|&id| GoldEssay {
                id,
                set: 1,
                score: 4,
                text: String::new(),
                line: id as usize + 1,
            })
            .collect()
    };
    let pred = |ids: &[u64]| -> Vec<Prediction> {
        ids.iter()
            .enumerate()
            .map(|(i, &id)| Prediction {
                id,
                score: 4.0,
                line: i + 2,
            })
            .collect()
    };
    let e = join("g.tsv", gold(&[1, 2, 3]), "p.csv", &pred(&[3, 1])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "p.csv: essay_id 2 has no prediction (g.tsv line 3)"
    );
    let e = join("g.tsv", gold(&[1, 2, 3, 4]), "p.csv", &pred(&[3])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "p.csv: essay_id 1 has no prediction (g.tsv line 2); 2 more without one: 2, 4"
    );
    let e = join("g.tsv", gold(&[1]), "p.csv", &pred(&[1, 7])).unwrap_err();
    assert_eq!(e.to_string(), "p.csv:3: essay_id 7 is not in g.tsv");
    let joined = join("g.tsv", gold(&[2, 1]), "p.csv", &pred(&[1, 2])).unwrap();
    assert_eq!(
        joined
            .iter()
            .map(|e| (e.id, e.pred_line))
            .collect::<Vec<_>>(),
        [(2, 3), (1, 2)]
    );
}

#[test]
fn report_sets_ascending_undefined_set_nulls_the_means() {
    let essays = vec![
        essay(1, 5, 2, 2.0),
        essay(2, 5, 3, 3.0),
        essay(3, 5, 1, 2.0),
        essay(4, 2, 4, 4.9),
        essay(5, 2, 4, 4.2),
    ];
    let report = report(&essays, Vec::new(), "p.csv", Variant::Official, false);
    assert_eq!(report.benchmark, "asap-aes");
    assert_eq!(report.variant, "official");
    let names: Vec<(&str, usize)> = report
        .subsets
        .iter()
        .map(|s| (s.name.as_str(), s.n))
        .collect();
    assert_eq!(names, [("set_2", 2), ("set_5", 3)]);
    assert_eq!(report.overall.n, 5);
    assert_eq!(
        report.metric("set_2", "qwk"),
        Some(&MetricValue::Scalar(None))
    );
    assert!(matches!(
        report.metric("set_5", "qwk"),
        Some(MetricValue::Scalar(Some(_)))
    ));
    for key in ["mean_qwk_fisher", "mean_qwk"] {
        assert_eq!(
            report.metric("overall", key),
            Some(&MetricValue::Scalar(None))
        );
    }
    assert_eq!(report.warnings.len(), 1);
    assert!(
        report.warnings[0].message.starts_with("set_2: qwk is null"),
        "{:?}",
        report.warnings
    );
    assert_eq!(report.warnings[0].path, "p.csv");
    assert!(report.samples.is_none());

    // Corrected: set 2's predictions round to 5 and 4, which defines its QWK; a gold score
    // outside the declared range is named.
    let mut essays = essays;
    essays.push(essay(6, 5, 7, 4.0));
    let report = super::report(&essays, Vec::new(), "p.csv", Variant::Corrected, true);
    assert_eq!(report.variant, "corrected");
    // quadratic_weighted_kappa([4, 4], np.clip(np.rint([4.9, 4.2]), 1, 6), 1, 6) == 0.0
    assert_eq!(
        report.metric("set_2", "qwk"),
        Some(&MetricValue::Scalar(Some(0.0)))
    );
    let messages: Vec<&str> = report.warnings.iter().map(|w| w.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "set_5: qwk is null (undefined: essay_id 6: gold score 7 is outside the declared range \
          0–4), so mean_qwk_fisher and mean_qwk are null"
        ]
    );
    let samples = report.samples.unwrap();
    assert_eq!(samples.len(), 6);
    assert_eq!(
        samples[3],
        serde_json::json!({"id": 4, "subset": "set_2", "set": 2, "line": 5, "gold": 4, "pred": 4.9, "pred_used": 5})
    );
}

#[test]
fn score_reads_bytes_and_hashes_inputs() {
    let gold = b"essay_id\tessay_set\tessay\tdomain1_score\r\n1\t3\tcaf\xE9\t1\r\n2\t3\tb\t2\r\n3\t3\tc\t3\r\n";
    let preds = b"\xEF\xBB\xBFprediction_id,predicted_score\n3,\"3.0\"\n2,1.99\n1,-0.4\n";
    let g = NamedBytes {
        name: "g.tsv",
        bytes: gold,
    };
    let p = NamedBytes {
        name: "p.csv",
        bytes: preds,
    };
    let official = score(g, p, Variant::Official).unwrap();
    assert_eq!(official.inputs.len(), 2);
    assert_eq!(official.inputs[0], InputFile::from_bytes("g.tsv", gold));
    // quadratic_weighted_kappa([1, 2, 3], [-0.4, 1.99, 3.0]) == 0.75
    assert_eq!(
        official.metric("set_3", "qwk"),
        Some(&MetricValue::Scalar(Some(0.75)))
    );
    let essays = parse(g, p).unwrap();
    assert_eq!(essays[0].text, "café");
    assert_eq!(essays[0].pred_used(Variant::Official), 0);
    let lean = score_with(
        g,
        p,
        Variant::Corrected,
        ReportOptions {
            samples: false,
            input_hashes: false,
        },
    )
    .unwrap();
    assert!(lean.inputs.is_empty() && lean.samples.is_none());
}
