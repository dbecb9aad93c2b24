#!/usr/bin/env bash
# The architecture's invariants (ARCHITECTURE.md), checked mechanically.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { printf 'invariant broken: %s\n' "$*" >&2; exit 1; }

# 1. metrics-core builds for wasm32 (the browser runs the same code as the CLI).
cargo check --locked -q -p metrics-core --target wasm32-unknown-unknown \
  || fail "metrics-core does not build for wasm32-unknown-unknown"

# 2. metrics-core depends on no IO / async / network crate.
deps=$(cargo tree --locked -p metrics-core -e normal --prefix none --format '{p}' | awk '{print $1}' | sort -u)
[ -n "$deps" ] || fail "cargo tree listed no dependencies for metrics-core"
for crate in tokio reqwest hyper axum rusqlite mio socket2 async-std; do
  if printf '%s\n' "$deps" | grep -x "$crate" >/dev/null; then
    fail "metrics-core depends on $crate"
  fi
done
# …and its source does no IO, reads no clock, spawns no thread.
# (Unit-test modules, `#[cfg(test)]` at the end of a file, may read golden files: they are cut off.)
library_code() {
  find metrics-core/src -name '*.rs' -print0 | sort -z |
    xargs -0 awk '/^#\[cfg\(test\)\]/ { nextfile } { print FILENAME ":" FNR ": " $0 }'
}
[ "$(library_code | wc -l)" -gt 1000 ] || fail "could not read metrics-core/src"
if library_code | grep -E 'std::(fs|net|process|env)\b|Instant::now|SystemTime::now|thread::spawn|println!|eprintln!'; then
  fail "metrics-core/src does IO, reads the clock or spawns threads (see the lines above)"
fi

# 3. The app holds no metric formula: every number comes from metrics-core.
if grep -rnE '\.(sqrt|powi|powf|ln|exp)\(|f64::consts|\bsum::<f64>|\.sum::<f64>|abs_diff|/ *n as f64' app/src; then
  fail "app/src contains arithmetic that belongs in metrics-core (see the lines above)"
fi
if grep -rnE '^\s*(pub )?fn (pearson|spearman|kendall|qwk|kappa|ccs|ecs|accuracy)' app/src; then
  fail "app/src defines a metric function"
fi

# 4. No API key or upstream URL reaches the browser: the app never names one, and the built
#    bundle (when present) carries none.
if grep -rnE 'api_key|API_KEY|Authorization|Bearer ' app/src index.html public; then
  fail "the browser code mentions API keys or auth headers"
fi
if [ -d dist ] && grep -rlE 'sk-[A-Za-z0-9]{16,}|Bearer [A-Za-z0-9]' dist >/dev/null 2>&1; then
  fail "dist/ contains something that looks like a key"
fi
echo "invariants hold"
