#!/usr/bin/env bash
# Every test: installs what is missing, then formatting, lints, invariants, native tests,
# metrics-core under wasm, the app build, and the end-to-end browser test.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
# Each step's name and start time, printed as a table of durations at the end (also when a step
# fails), so a slow step shows.
steps=()
step() {
  steps+=("$(date +%s.%N)|$*")
  printf '\n=== %s\n' "$*" >&2
}
step_times() {
  local now last="" name="" out=""
  now=$(date +%s.%N)
  for s in "${steps[@]}" "$now|end"; do
    if [ -n "$last" ]; then
      out+=$(awk -v a="$last" -v b="${s%%|*}" -v n="$name" 'BEGIN { printf "%8.1f s  %s\n", b - a, n }')$'\n'
    fi
    last=${s%%|*}
    name=${s#*|}
  done
  printf '\ntime per step:\n%s' "$out" >&2
}
start=$(date +%s)
PG_DIR=""
S3_DIR=""
on_exit() {
  local rc=$?
  step_times
  if [ -n "$PG_DIR" ]; then scripts/pg.sh stop "$PG_DIR" || true; fi
  if [ -n "$S3_DIR" ]; then scripts/s3.sh stop "$S3_DIR" "$S3_PID" || true; fi
  if [ "$rc" -eq 0 ]; then
    printf '\nall tests passed in %ss\n' "$(( $(date +%s) - start ))" >&2
  else
    local last="(before the first step)"
    if [ ${#steps[@]} -gt 0 ]; then last=${steps[-1]#*|}; fi
    printf '\nFAILED (exit %s) in step: %s\n' "$rc" "$last" >&2
  fi
}
trap on_exit EXIT

step "setup (installs only what is missing)"
scripts/setup.sh
cargo fetch --locked >/dev/null

step "format"
cargo fmt --all --check

step "lints (native, and the app for wasm32)"
cargo clippy --locked -q -p metrics-core -p fast-records -p workbench -p server --all-targets -- -D warnings
cargo clippy --locked -q -p app --target wasm32-unknown-unknown -- -D warnings

step "invariants"
scripts/check-invariants.sh

step "PostgreSQL (a throw-away cluster on loopback for the leaderboard tests)"
pg_env=$(scripts/pg.sh start)
eval "$pg_env"
export PG_URL

step "S3 (s3s-fs on loopback: the board files of the servers on PostgreSQL)"
s3_env=$(scripts/s3.sh start)
eval "$s3_env"

step "native tests"
cargo test --locked -p metrics-core -p fast-records -p workbench -p server

step "differential tests against the reference libraries (json_repair, SciPy, scikit-learn, krippendorff; the spec metrics and schema)"
scripts/diff-json-repair.sh 2000 1
scripts/diff-stats.sh 300 1
scripts/diff-agreement.sh 400 1
scripts/diff-spec-metrics.sh 200 1
scripts/check-spec-schema.sh

step "metrics-core under wasm (node)"
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo test --locked -p metrics-core --target wasm32-unknown-unknown --test wasm

step "app build (trunk, release, offline)"
scripts/build-app.sh

step "end-to-end (real server, Debian Chromium via Playwright)"
cargo build --locked -q -p server
node --test --test-concurrency=1 tests/e2e/

step "repeated sampling with the real openai client (the official toolkit's call pattern)"
scripts/check-sampling.sh target/debug/scorebench

# The contract checks of the open issues, when ../shared is beside the checkout (as in CI).
if [ -d ../shared/checks ]; then
  step "contract checks (../shared/checks)"
  python3 ../shared/checks/security.py target/debug/scorebench
  python3 ../shared/checks/server_hardening.py target/debug/scorebench
  python3 ../shared/checks/leaderboard.py target/debug/scorebench
  python3 ../shared/checks/competition.py target/debug/scorebench
  NODE_PATH="$PWD/tools/node_modules" SHOTS="$PWD/tests/e2e/artifacts" \
    bash ../shared/checks/teacher.sh target/debug/scorebench
  if [ -f ../shared/checks/scale.sh ]; then bash ../shared/checks/scale.sh target/debug/scorebench; fi
fi
