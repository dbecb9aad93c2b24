//! Replays the committed fuzz corpus of the server's targets (`fuzz/targets/server.rs`): the CI
//! form of `scripts/fuzz.sh` for the config TOML and the run request bodies.

#[path = "../../../fuzz/targets/server.rs"]
mod targets;

#[path = "../../../fuzz/targets/replay.rs"]
mod replay;

#[test]
fn every_server_target_survives_its_corpus() {
    let inputs = replay::replay_all(&targets::TARGETS, targets::run);
    assert!(inputs > 0, "no corpus found under fuzz/corpus");
}
