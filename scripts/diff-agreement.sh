#!/usr/bin/env bash
# Differential test of Krippendorff's α (metrics-core `agreement`) against the `krippendorff`
# package (PyPI 0.9.0) on N random rating matrices (default 400) from SEED (default 1): every
# level of measurement, missing ratings, declared domains. Exits 1 on any difference (bit for
# bit).   usage: scripts/diff-agreement.sh [N] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
python=$(scripts/python-env.sh)
cargo build --locked -q -p metrics-core --example agreement_diff
cd scripts/diff
exec "$python" diff_agreement.py ../../target/debug/examples/agreement_diff "${1:-400}" "${2:-1}" \
  --show "${SHOW:-20}"
