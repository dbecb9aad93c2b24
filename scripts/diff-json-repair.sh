#!/usr/bin/env bash
# Differential test of SAS-Bench step 2 against the official logic on the real json_repair
# 0.64.5: N generated replies (default 2000) from SEED (default 1), compared reply by reply
# with the Rust step 2 (and every json_repair.loads call with our port). Prints the count and
# the mismatches; exits 1 on any.   usage: scripts/diff-json-repair.sh [N] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-2000}
seed=${2:-1}
python=$(scripts/python-env.sh)
cargo build --locked -q -p metrics-core --example step2_diff
cd scripts/diff
exec "$python" diff_json_repair.py ../../target/debug/examples/step2_diff "$n" "$seed" --show "${SHOW:-20}"
