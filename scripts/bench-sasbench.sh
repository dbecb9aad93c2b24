#!/usr/bin/env bash
# SAS-Bench scoring speed (not part of the test suite):
# - whole-process `scorebench score sasbench --json` on golden case_24 (4,109 responses,
#   12 files; release build), both modes, median wall clock and median user+sys CPU over RUNS
#   runs after a warm-up, and the speed-up against the official Python pipeline (steps 2+3+4:
#   15.96 s on this case, golden README);
# - in-process stage times (metrics-core example sasbench_timing, best of RUNS);
# - Kendall's tau-b on 10^6 pairs: our kendall_tau_b (example kendall_bench) against
#   scipy.stats.kendalltau on the same data, best of 3 each.
# Timings depend on machine load: the load average is printed with the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-11}
CASE=tests/golden/sasbench/case_24
OFFICIAL_MS=15960

cargo build --release -q -p server
cargo build --release -q -p metrics-core --example kendall_bench --example sasbench_timing
BIN=target/release/scorebench
SCORED=$(ls "$CASE"/datasets_GoldenModel_Scored/*_scored.jsonl)
PRED=$(ls "$CASE"/datasets_GoldenModel_Scored/*_prediction.jsonl)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]}'; }

# whole_process LABEL command… → "wall_ms cpu_ms": medians over $RUNS runs after one warm-up.
whole_process() {
  local label=$1
  shift
  "$@" >/dev/null
  : >"$TMP/wall"
  : >"$TMP/cpu"
  for _ in $(seq "$RUNS"); do
    # Wall clock from a plain run; CPU time from a run under /usr/bin/time (10 ms wall resolution).
    local s e
    s=$(date +%s%N)
    "$@" >/dev/null
    e=$(date +%s%N)
    echo "$(((e - s) / 1000))" | awk '{print $1 / 1000}' >>"$TMP/wall"
    if [ -x /usr/bin/time ]; then
      /usr/bin/time -f "%U %S" -o "$TMP/t" "$@" >/dev/null
      awk '{print ($1 + $2) * 1000}' "$TMP/t" >>"$TMP/cpu"
    else
      echo nan >>"$TMP/cpu"
    fi
  done
  local wall cpu
  wall=$(median <"$TMP/wall")
  cpu=$(median <"$TMP/cpu")
  awk -v l="$label" -v w="$wall" -v c="$cpu" -v o="$OFFICIAL_MS" -v r="$RUNS" 'BEGIN {
    printf "%-34s median of %d: wall %6.1f ms (%4.0fx faster than %.2f s), user+sys %5.1f ms\n",
      l, r, w, o / w, o / 1000, c }'
}

echo "load: $(uptime)"
echo "whole process, scorebench score sasbench --json (case_24, 4,109 responses, 12 files):"
# shellcheck disable=SC2086 # the file lists are meant to split
whole_process "  raw replies (--dataset, step 2)" "$BIN" score sasbench --json --dataset "$CASE/datasets" $SCORED
# shellcheck disable=SC2086
whole_process "  prediction files (--taxonomy)" "$BIN" score sasbench --json --taxonomy "$CASE/datasets/error_type.jsonl" $PRED
echo "  (user+sys: 10 ms resolution and includes the input SHA-256 hashed on a second thread)"
echo -n "  CLI's own split, raw mode: "
# shellcheck disable=SC2086
"$BIN" score sasbench --json --timing --dataset "$CASE/datasets" $SCORED 2>&1 >/dev/null | grep timing
echo "in-process stages (best of $RUNS):"
target/release/examples/sasbench_timing "$CASE" "$RUNS" | sed 's/^/  /'

echo "Kendall tau-b, 10^6 pairs (integer x in 0..999, y = round(x + N(0, 300))):"
# SciPy from the differential tests' pinned venv (.venv/; the system python has no numpy).
python=$(scripts/python-env.sh)
"$python" - "$TMP" <<'PY'
import sys, time
import numpy as np
import scipy
from scipy.stats import kendalltau
rng = np.random.default_rng(12345)
n = 10**6
x = rng.integers(0, 1000, n).astype(np.float64)
y = (x + rng.normal(0, 300, n)).round()
x.tofile(f"{sys.argv[1]}/x.f64"); y.tofile(f"{sys.argv[1]}/y.f64")
best = float("inf")
for _ in range(3):
    s = time.perf_counter(); tau = kendalltau(x, y).statistic; best = min(best, time.perf_counter() - s)
print(f"  scipy {scipy.__version__} kendalltau  n={n} tau={float(tau)!r} best-of-3 {best*1e3:.1f} ms")
PY
echo -n "  "
target/release/examples/kendall_bench "$TMP/x.f64" "$TMP/y.f64"
echo "load: $(uptime)"
