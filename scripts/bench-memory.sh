#!/usr/bin/env bash
# Peak memory of `scorebench score` on big inputs (not part of the test suite): generates
# ~SIZE_MB-megabyte files of every benchmark once (scripts/gen-big-inputs.py, kept in DATA) and
# prints, per benchmark, the input size, the peak RSS (/usr/bin/time -v), their ratio and the
# wall time. The CLI reads its inputs as streams, so the peak is the records it keeps (well
# under the input) plus the process itself.
#   SIZE_MB=300 BIN=target/release/scorebench scripts/bench-memory.sh
#   SIZE_MB=1000 GEN_STEPS="pairs pairs_wide msqa sasbench" ONLY="pairs msqa sasbench" \
#     scripts/bench-memory.sh      (ONLY: rows whose label starts with one of the words)
# With OUT=DIR each run's JSON report is kept as DIR/<label>.json (to compare two builds).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MB=${SIZE_MB:-300}
BIN=${BIN:-target/release/scorebench}
DATA=${DATA:-/tmp/scorebench-bench-memory-$SIZE_MB}
[ -x "$BIN" ] || nice -n 10 cargo build --release -q -p server
if [ ! -e "$DATA/.done" ]; then
  STEPS=${GEN_STEPS:-} python3 scripts/gen-big-inputs.py "$DATA" "$SIZE_MB"
  touch "$DATA/.done"
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# measure LABEL INPUT_BYTES command… → one table row.
measure() {
  local label=$1 bytes=$2
  shift 2
  if [ -n "${ONLY:-}" ]; then
    local want keep=
    for want in $ONLY; do [[ $label == "$want"* ]] && keep=1; done
    [ -n "$keep" ] || return 0
    [ "$bytes" != 0 ] || return 0  # not generated at this size
  fi
  local status=0 out=/dev/null
  if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT"
    out="$OUT/$(printf '%s' "$label" | tr -c 'A-Za-z0-9.-' '_').json"
  fi
  /usr/bin/time -v -o "$TMP/time" "$@" >"$out" 2>"$TMP/err" || status=$?
  if [ "$status" != 0 ]; then
    echo "$label: exit $status: $(head -c 300 "$TMP/err")" >&2
  fi
  local rss_kb wall
  rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$TMP/time")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$TMP/time")
  awk -v l="$label" -v b="$bytes" -v r="$rss_kb" -v w="$wall" -v s="$status" 'BEGIN {
    printf "%-26s %9.1f MB %9.1f MB %6.2fx %10s%s\n", l, b / 1e6, r * 1024 / 1e6, r * 1024 / b, w,
      (s == 0 ? "" : "  (exit " s ")") }'
}

# Total bytes of the files (0 for a missing one: with ONLY, rows not generated are skipped).
size() { stat -c %s "$@" 2>/dev/null | awk '{s += $1} END {print s + 0}'; }

D=$DATA
echo "$BIN, inputs ~${SIZE_MB} MB in $D, $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-26s %12s %12s %7s %10s\n" benchmark input "peak RSS" ratio wall
measure "eotgc (gold + pred)" "$(size "$D/eotgc/gold.json" "$D/eotgc/pred.json")" \
  "$BIN" score eotgc --json --gold "$D/eotgc/gold.json" "$D/eotgc/pred.json"
measure "eotgc --track2" "$(size "$D/eotgc/track2.json")" \
  "$BIN" score eotgc --json --track2 "$D/eotgc/track2.json"
measure "eotgc --comments" "$(size "$D/eotgc/comments.json")" \
  "$BIN" score eotgc --json --comments "$D/eotgc/comments.json"
measure "msqa (evaluation.json)" "$(size "$D/msqa/evaluation.json")" \
  "$BIN" score msqa --json "$D/msqa/evaluation.json"
measure "msqa --variant paper" "$(size "$D/msqa/inference.json")" \
  "$BIN" score msqa --json --variant paper "$D/msqa/inference.json"
measure "msqa paper (evaluation)" "$(size "$D/msqa/evaluation.json")" \
  "$BIN" score msqa --json --variant paper "$D/msqa/evaluation.json"
measure "pairs (jsonl)" "$(size "$D/pairs/pairs.jsonl")" \
  "$BIN" score pairs --json "$D/pairs/pairs.jsonl"
measure "pairs (jsonl, 1 KB records)" "$(size "$D/pairs/pairs_wide.jsonl")" \
  "$BIN" score pairs --json "$D/pairs/pairs_wide.jsonl"
measure "asap-aes (tsv + csv)" "$(size "$D/asap-aes/gold.tsv" "$D/asap-aes/pred.csv")" \
  "$BIN" score asap-aes --json --gold "$D/asap-aes/gold.tsv" "$D/asap-aes/pred.csv"
measure "sasbench (prediction)" "$(size "$D"/sasbench/pred/*.jsonl)" \
  "$BIN" score sasbench --json --taxonomy "$D/sasbench/datasets/error_type.jsonl" "$D"/sasbench/pred/*.jsonl
measure "sasbench (raw, --dataset)" "$(size "$D"/sasbench/raw/dataset/*.jsonl "$D"/sasbench/raw/*.jsonl)" \
  "$BIN" score sasbench --json --dataset "$D/sasbench/raw/dataset" "$D"/sasbench/raw/*_scored.jsonl
for kind in deep-research wet dry idea reasoning; do
  measure "sgi-$kind (log)" "$(size "$D/sgi-$kind/log.json")" \
    "$BIN" score "sgi-$kind" --json "$D/sgi-$kind/log.json"
done
measure "sgi-score (input)" "$(size "$D/sgi-score/input.json")" \
  "$BIN" score sgi-score --json "$D/sgi-score/input.json"
measure "sgi-score (five logs)" "$(size "$D"/sgi-score/logs/[1-5].json)" \
  "$BIN" score sgi-score --json --deep-research "$D/sgi-score/logs/1.json" \
  --idea "$D/sgi-score/logs/2.json" --dry "$D/sgi-score/logs/3.json" \
  --wet "$D/sgi-score/logs/4.json" --reasoning "$D/sgi-score/logs/5.json"
measure "inspect (.eval)" "$(size "$D/inspect/big.eval")" \
  "$BIN" score inspect --json "$D/inspect/big.eval"
measure "lm-eval (results + samples)" "$(size "$D"/lm-eval/results_*.json "$D"/lm-eval/samples_*.jsonl)" \
  "$BIN" score lm-eval --json "$D"/lm-eval/results_*.json "$D"/lm-eval/samples_*.jsonl
