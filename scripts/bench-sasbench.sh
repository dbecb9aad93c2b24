#!/usr/bin/env bash
# SAS-Bench scoring speed: whole-process `scorebench score sasbench` on golden case_24
# (4,109 responses, 12 files; release build; median of RUNS runs), in-process parse+score time
# (--timing), and Kendall's tau-b on 10^6 pairs against scipy.stats.kendalltau.
# The official Python pipeline (steps 2+3+4) takes ~15.96 s on this case (golden README).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-7}
CASE=tests/golden/sasbench/case_24
cargo build --release -q -p server
cargo build --release -q -p metrics-core --example kendall_bench
BIN=target/release/scorebench
SCORED=$(ls "$CASE"/datasets_GoldenModel_Scored/*_scored.jsonl)
PRED=$(ls "$CASE"/datasets_GoldenModel_Scored/*_prediction.jsonl)

median_ms() { # command… → median wall-clock milliseconds over $RUNS runs
  local times=()
  for _ in $(seq "$RUNS"); do
    local s e
    s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N)
    times+=($(( (e - s) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.2f", a[int((NR+1)/2)]/1000}'
}

raw_ms=$(median_ms "$BIN" score sasbench --json --dataset "$CASE/datasets" $SCORED)
pred_ms=$(median_ms "$BIN" score sasbench --json --taxonomy "$CASE/datasets/error_type.jsonl" $PRED)
echo "whole process, raw replies (step 2 + QWK/CCS/ECS), median of $RUNS: ${raw_ms} ms"
echo "whole process, prediction files (QWK/CCS/ECS),    median of $RUNS: ${pred_ms} ms"
awk -v ms="$raw_ms" 'BEGIN {printf "speed-up vs the official pipeline (15.96 s): %.0fx\n", 15960 / ms}'
echo -n "in-process (raw mode): "
"$BIN" score sasbench --json --timing --dataset "$CASE/datasets" $SCORED 2>&1 >/dev/null | grep timing

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
python3 - "$TMP" <<'PY'
import sys, time
import numpy as np
from scipy.stats import kendalltau
rng = np.random.default_rng(12345)
n = 10**6
x = rng.integers(0, 1000, n).astype(np.float64)
y = (x + rng.normal(0, 300, n)).round()
x.tofile(f"{sys.argv[1]}/x.f64"); y.tofile(f"{sys.argv[1]}/y.f64")
best = float("inf")
for _ in range(3):
    s = time.perf_counter(); tau = kendalltau(x, y).statistic; best = min(best, time.perf_counter() - s)
print(f"scipy kendalltau      n={n} tau={tau!r} best-of-3 {best*1e3:.1f} ms")
PY
target/release/examples/kendall_bench "$TMP/x.f64" "$TMP/y.f64"
