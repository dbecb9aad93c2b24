#!/usr/bin/env bash
# Differential test of pearson, spearman, kendall_tau_b, qwk and accuracy (directly and through
# `score pairs`) against SciPy 1.17.1 / scikit-learn 1.9.1 on hostile numbers: N cases (default
# 300) from SEED (default 1), inputs up to MAX_N values (default 20000). Prints the count and
# the mismatches; exits 1 on any.   usage: scripts/diff-stats.sh [N] [SEED] [MAX_N]
set -euo pipefail
cd "$(dirname "$0")/.."
python=$(scripts/python-env.sh)
cargo build --locked -q -p metrics-core --example stats_diff
cd scripts/diff
exec "$python" diff_stats.py ../../target/debug/examples/stats_diff "${1:-300}" "${2:-1}" \
  --max-n "${3:-20000}" --show "${SHOW:-20}"
