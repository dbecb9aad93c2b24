//! `scorebench score pairs`: the generic gold/pred path.

use crate::support::{score_fails, score_json};

fn write(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("scorebench-cli-pairs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn jsonl_and_csv_score_the_same() {
    let jsonl = write(
        "p.jsonl",
        "{\"gold\":0,\"pred\":0}\n{\"gold\":1,\"pred\":2}\n{\"gold\":2,\"pred\":2}\n{\"gold\":3,\"pred\":2}\n",
    );
    let csv = write("p.csv", "gold,pred\n0,0\n1,2\n2,2\n3,2\n");
    let a = score_json(&["score", "pairs", jsonl.to_str().unwrap(), "--json"]);
    let b = score_json(&["score", "pairs", csv.to_str().unwrap(), "--json"]);
    assert_eq!(a["overall"]["n"], 4);
    assert_eq!(a["overall"]["metrics"], b["overall"]["metrics"]);
    assert_eq!(a["benchmark"], "pairs");
    assert_eq!(a["inputs"][0]["sha256"].as_str().unwrap().len(), 64);
    // scikit-learn: cohen_kappa_score([0,1,2,3], [0,2,2,2], weights="quadratic")
    let qwk = a["overall"]["metrics"]["qwk"].as_f64().unwrap();
    assert_eq!(qwk, 0.75);
}

#[test]
fn bad_input_exits_2_with_file_and_line() {
    let bad = write(
        "bad.jsonl",
        "{\"gold\":0,\"pred\":0}\n{\"gold\":1,\"pred\":\"two\"}\n",
    );
    let stderr = score_fails(&["score", "pairs", bad.to_str().unwrap(), "--json"]);
    assert!(stderr.contains("bad.jsonl:2:"), "{stderr}");
    let stderr = score_fails(&["score", "pairs", "/definitely/not/here.jsonl", "--json"]);
    assert!(
        stderr.contains("/definitely/not/here.jsonl: no such file"),
        "{stderr}"
    );
}

#[test]
fn reports_every_generic_statistic_in_order() {
    let path = write(
        "stats.jsonl",
        "{\"gold\":1,\"pred\":1}\n{\"gold\":2,\"pred\":3}\n{\"gold\":3,\"pred\":2}\n{\"gold\":4,\"pred\":4}\n{\"gold\":5,\"pred\":5}\n",
    );
    let report = score_json(&["score", "pairs", path.to_str().unwrap(), "--json"]);
    let metrics = report["overall"]["metrics"].as_object().unwrap();
    let keys: Vec<&String> = metrics.keys().collect();
    assert_eq!(
        keys,
        ["qwk", "pearson", "spearman", "kendall_tau_b", "accuracy"]
    );
    // scipy.stats.pearsonr([1,2,3,4,5], [1,3,2,4,5]).statistic == 0.9 (to 1e-15)
    // scipy.stats.spearmanr([1,2,3,4,5], [1,3,2,4,5]).statistic == 0.8999999999999998
    // scipy.stats.kendalltau([1,2,3,4,5], [1,3,2,4,5]).statistic == 0.7999999999999999
    // sklearn.metrics.accuracy_score([1,2,3,4,5], [1,3,2,4,5]) == 0.6
    assert!((metrics["pearson"].as_f64().unwrap() - 0.9).abs() < 1e-15);
    assert!((metrics["spearman"].as_f64().unwrap() - 0.8999999999999998).abs() < 1e-15);
    assert_eq!(metrics["kendall_tau_b"].as_f64(), Some(0.7999999999999999));
    assert_eq!(metrics["accuracy"].as_f64(), Some(0.6));
}
