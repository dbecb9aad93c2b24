#!/usr/bin/env bash
# Coverage-guided fuzzing (cargo-fuzz / libFuzzer, nightly) of every input reader: each target
# in fuzz/fuzz_targets for SECONDS (default 60), starting from the committed corpus
# fuzz/corpus/<target>. Prints executions, corpus growth and crashes per target; crash inputs
# stay in fuzz/artifacts/<target>/. With --merge, inputs that add coverage are merged into the
# committed corpus (the CI replay, `cargo test`, then runs them too).
#   usage: scripts/fuzz.sh [SECONDS] [--merge] [TARGET …]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60
merge=""
targets=()
for arg in "$@"; do
  case "$arg" in
    --merge) merge=1 ;;
    ''|*[!0-9]*) targets+=("$arg") ;;
    *) seconds=$arg ;;
  esac
done
export PATH="$HOME/.cargo/bin:$PATH"
# Nightly comes from rustup (libFuzzer's instrumentation needs -Z flags); cargo-fuzz from crates.io.
if ! cargo +nightly --version >/dev/null 2>&1; then
  rustup toolchain install nightly --profile minimal >&2
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked >&2
fi
cd fuzz
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi
cargo +nightly fuzz build -O >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-22s %12s %8s %8s %8s\n' target executions exec/s "corpus+" crashes
total_crashes=0
for t in "${targets[@]}"; do
  mkdir -p "$work/$t" "artifacts/$t" "corpus/$t"
  before=$(find "artifacts/$t" -type f | wc -l)
  # -rss_limit_mb: bounded memory; -timeout: a hang is a crash; -max_len: large enough for the
  # multi-file inputs of the seed corpus.
  cargo +nightly fuzz run -O "$t" "$work/$t" "corpus/$t" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=262144 \
    -print_final_stats=1 > "$work/$t.log" 2>&1 || true
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$work/$t.log" | grep -oE '[0-9]+$' || echo 0)
  speed=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$work/$t.log" | grep -oE '[0-9]+$' || echo 0)
  new=$(find "$work/$t" -type f | wc -l)
  crashes=$(( $(find "artifacts/$t" -type f | wc -l) - before ))
  total_crashes=$((total_crashes + crashes))
  printf '%-22s %12s %8s %8s %8s\n' "$t" "$runs" "$speed" "$new" "$crashes"
  if [ "$crashes" -gt 0 ]; then
    grep -E 'panicked|ERROR: libFuzzer|SUMMARY' "$work/$t.log" | head -5 >&2
  fi
  if [ -n "$merge" ] && [ "$new" -gt 0 ]; then
    cargo +nightly fuzz run -O "$t" "corpus/$t" "$work/$t" -- -merge=1 -max_len=262144 \
      > "$work/$t.merge.log" 2>&1 || true
  fi
done
echo "crashes: $total_crashes"
[ "$total_crashes" -eq 0 ]
