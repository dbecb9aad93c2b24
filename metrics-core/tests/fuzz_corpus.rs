//! Replays the committed fuzz corpus (`fuzz/corpus/<target>/`, seeds plus every input a fuzz run
//! found interesting or crashing) through the same target functions `cargo fuzz` runs
//! (`fuzz/targets/metrics_core.rs`): the CI form of the fuzzing (`scripts/fuzz.sh` runs the
//! coverage-guided engine). Each input must finish within a time limit: a hang fails too.

#[path = "../../fuzz/targets/metrics_core.rs"]
mod targets;

#[path = "../../fuzz/targets/replay.rs"]
mod replay;

#[test]
fn every_metrics_core_target_survives_its_corpus() {
    let inputs = replay::replay_all(&targets::TARGETS, targets::run);
    assert!(inputs > 0, "no corpus found under fuzz/corpus");
}
