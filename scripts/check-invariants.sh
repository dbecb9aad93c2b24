#!/usr/bin/env bash
# The architecture's invariants (ARCHITECTURE.md), checked mechanically.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { printf 'invariant broken: %s\n' "$*" >&2; exit 1; }

# 1. The pure crates (metrics-core with fast-records, workbench) build for wasm32 (the browser
#    runs the same code as the CLI).
for pure in metrics-core fast-records workbench; do
  cargo check --locked -q -p "$pure" --target wasm32-unknown-unknown \
    || fail "$pure does not build for wasm32-unknown-unknown"

  # 2. …depend on no IO / async / network crate…
  deps=$(cargo tree --locked -p "$pure" -e normal --prefix none --format '{p}' | awk '{print $1}' | sort -u)
  [ -n "$deps" ] || fail "cargo tree listed no dependencies for $pure"
  for crate in tokio reqwest hyper axum rusqlite mio socket2 async-std; do
    if printf '%s\n' "$deps" | grep -x "$crate" >/dev/null; then
      fail "$pure depends on $crate"
    fi
  done
  # …and their source does no IO, reads no clock, spawns no thread.
  # (Unit-test modules, `#[cfg(test)]` at the end of a file, may read golden files: cut off.)
  library_code() {
    find "$pure/src" -name '*.rs' -print0 | sort -z |
      xargs -0 awk '/^#\[cfg\(test\)\]/ { nextfile } { print FILENAME ":" FNR ": " $0 }'
  }
  case $pure in fast-records) least=50 ;; *) least=1000 ;; esac
  [ "$(library_code | wc -l)" -gt "$least" ] || fail "could not read $pure/src"
  if library_code | grep -E 'std::(fs|net|process|env)\b|Instant::now|SystemTime::now|thread::spawn|println!|eprintln!'; then
    fail "$pure/src does IO, reads the clock or spawns threads (see the lines above)"
  fi
done

# The benchmark registry: no benchmark key is spelled out in the workbench outside a benchmark's
# own module (workbench/src/benchmarks/) — everything else goes through the registry. The keys
# are the registry's own (`scorebench benchmarks --json`).
registry_keys=$(cargo run --locked -q -p server --bin scorebench -- benchmarks --json |
  python3 -c 'import json, re, sys; print("|".join(re.escape(b["key"]) for b in json.load(sys.stdin)))')
[ -n "$registry_keys" ] || fail "scorebench benchmarks --json listed no benchmark"
keys_outside=$(find workbench/src -name '*.rs' -not -path 'workbench/src/benchmarks/*' -print0 | sort -z |
  xargs -0 awk '/^#\[cfg\(test\)\]/ { nextfile } { print FILENAME ":" FNR ": " $0 }' |
  grep -E "\"($registry_keys)\"" || true)
if [ -n "$keys_outside" ]; then
  printf '%s\n' "$keys_outside"
  fail "a benchmark key is spelled out in the workbench outside its module (see the lines above)"
fi

# Layers without circles: no module of the server or the workbench imports, through any chain,
# a module that imports it back (types and traits below, the lists and the operations above).
# The checker's self-test plants a circle and must find it.
python3 scripts/check-import-circles.py --self-test >/dev/null || fail "the import-circle checker missed a planted circle"
python3 scripts/check-import-circles.py server/src workbench/src || fail "an import circle (see above)"

# 3. The app holds no metric formula: every number comes from metrics-core.
if grep -rnE '\.(sqrt|powi|powf|ln|exp)\(|f64::consts|\bsum::<f64>|\.sum::<f64>|abs_diff|/ *n as f64' app/src; then
  fail "app/src contains arithmetic that belongs in metrics-core (see the lines above)"
fi
if grep -rnE '^\s*(pub )?fn (pearson|spearman|kendall|qwk|kappa|ccs|ecs|accuracy)' app/src; then
  fail "app/src defines a metric function"
fi

# The pages link no benchmark: the registry and everything that looks a benchmark up (scoring,
# recognition, a report's table) run in the worker, so the first paint stays small (a class view
# that built a table in the page took the page's wasm from 485 to 701 KB gzip).
if grep -rnE "workbench::(registry|scoring|workspace|prepare)|workbench::samples::(sample_rows|sample_detail|summarize|filter_report|page|row_at|rows)\b|workbench::(table|detect|plan|score_files|score_job|rescore|sample_rows|sample_detail)\(|Role::(all|from_key)|\.benchmark\(\)" \
    app/src --include=*.rs | grep -v '^app/src/worker.rs:\|^app/src/worker/\|^app/src/bin/worker.rs:'; then
  fail "page code looks a benchmark up (see the lines above): that belongs in the worker"
fi

# The app's texts: every key named has both languages, every key in the table is used.
python3 scripts/check-i18n.py || fail "the app's texts and the keys the code names differ (see above)"

# 4. No API key or upstream URL reaches the browser: the app never names one, and the built
#    bundle (when present) carries none.
#    Board tokens (owner, entry: the user's own, for this server) travel in one file only,
#    app/src/leaderboard/tokens.rs, which must not mention an API key either.
if grep -rnE 'api_key|API_KEY|Authorization|Bearer ' app/src index.html public \
    | grep -v '^app/src/leaderboard/tokens.rs:.*\(Authorization\|Bearer \)'; then
  fail "the browser code mentions API keys or auth headers"
fi
if [ -d dist ] && grep -rlE 'sk-[A-Za-z0-9]{16,}|Bearer [A-Za-z0-9]' dist >/dev/null 2>&1; then
  fail "dist/ contains something that looks like a key"
fi
echo "invariants hold"
