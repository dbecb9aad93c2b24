// Unit tests only (the invariant checks skip what follows this attribute).
#[cfg(test)]
use super::*;

/// `tests/data/json_repair_cases.jsonl`: `{"text": T, "loads": json.dumps(json_repair.loads(T))}`
/// per line (`"loads": null` where json_repair raises), produced by json_repair 0.64.5
/// (`scripts/diff/json_repair_cases.py`).
const CASES: &str = include_str!("../../../tests/data/json_repair_cases.jsonl");

#[test]
fn json_repair_reference_cases() {
    let mut failures = Vec::new();
    let mut count = 0;
    for line in CASES.lines().filter(|l| !l.trim().is_empty()) {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let text = case["text"].as_str().unwrap();
        let expected = case["loads"].as_str();
        let ours = repair_loads(text).ok().map(|v| v.json_dumps());
        if ours.as_deref() != expected {
            failures.push(format!(
                "{text:?}\n  json_repair {expected:?}\n  ours        {ours:?}"
            ));
        }
        count += 1;
    }
    assert!(count > 0);
    assert!(
        failures.is_empty(),
        "{} of {count} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    // The browser's wasm stack is 1 MiB: parse on a thread that has no more.
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(|| {
            for text in [
                "[".repeat(100_000),
                "{\"a\":".repeat(100_000),
                "\"```json".repeat(50_000),
            ] {
                let _ = repair_loads(&text);
            }
            repair_loads(&"[".repeat(100_000))
        })
        .unwrap();
    assert_eq!(handle.join().unwrap(), Err(RepairError::TooDeep));
}
