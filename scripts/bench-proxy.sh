#!/usr/bin/env bash
# Proxy load benchmark (figures printed, not a test). Loopback only.
#
# 1,757 concurrent chat completions (one per MSQA question) through `scorebench serve --config`
# to a mock upstream, against the same load sent to the mock directly: proxy overhead at p50/p99,
# errors, and the server's RSS. Goal: p50 overhead <= 1 ms, no errors, RSS <= 100 MB.
# Three proxy passes: cache misses (fresh prompts), cache hits (the same prompts again), and
# steady single requests (sequential, one at a time: the per-request overhead with no queueing).
set -euo pipefail
cd "$(dirname "$0")/.."
N="${N:-1757}"
ROUNDS="${ROUNDS:-3}"
# The upstream limit: requests beyond it wait in the proxy (a real upstream config uses 16-256).
MAX_CONCURRENCY="${MAX_CONCURRENCY:-256}"

cargo build --release -p server --bin scorebench --example bench_mock_upstream --example bench_client >&2
BIN=target/release
work="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

"$BIN/examples/bench_mock_upstream" >"$work/mock.out" &
pids+=($!)
for _ in $(seq 100); do grep -q listening "$work/mock.out" 2>/dev/null && break; sleep 0.05; done
MOCK="$(sed -n 's/^mock listening on //p' "$work/mock.out")"

cat >"$work/config.toml" <<TOML
[[upstream]]
name = "bench"
base_url = "$MOCK"
api_key_env = "BENCH_KEY"
models = ["bench-model"]
max_concurrency = ${MAX_CONCURRENCY}
TOML
BENCH_KEY=bench-secret "$BIN/scorebench" serve --addr 127.0.0.1:0 --config "$work/config.toml" \
  --db "$work/db.sqlite3" --dist "$work/dist" --runs-dir "$work/runs" >"$work/serve.out" 2>"$work/serve.err" &
SERVE_PID=$!
pids+=($SERVE_PID)
for _ in $(seq 100); do grep -q listening "$work/serve.out" 2>/dev/null && break; sleep 0.05; done
PROXY="$(sed -n 's/^scorebench listening on //p' "$work/serve.out" | sed 's#/$##')/api/v1"

echo "mock $MOCK  proxy $PROXY  n=$N concurrent, $ROUNDS rounds each"
for r in $(seq "$ROUNDS"); do
  echo "round $r"
  printf '  direct      '; "$BIN/examples/bench_client" "$MOCK" "$N" bench-model "direct-$r"
  printf '  proxy miss  '; "$BIN/examples/bench_client" "$PROXY" "$N" bench-model "proxy-$r"
  printf '  proxy hit   '; "$BIN/examples/bench_client" "$PROXY" "$N" bench-model "proxy-$r"
done
echo "sequential: 500 requests one at a time on a kept-alive connection (overhead without queueing)"
printf '  direct      '; "$BIN/examples/bench_client" "$MOCK" 500 bench-model seq-d sequential
printf '  proxy miss  '; "$BIN/examples/bench_client" "$PROXY" 500 bench-model seq-p sequential
printf '  proxy hit   '; "$BIN/examples/bench_client" "$PROXY" 500 bench-model seq-p sequential
echo "server RSS: $(grep -E 'VmRSS|VmHWM' /proc/$SERVE_PID/status | tr -s ' \t' ' ' | tr '\n' ' ')"
grep -c bench-secret "$work"/serve.* "$work/db.sqlite3" 2>/dev/null | sed 's/^/key occurrences (must be 0): /' || true
