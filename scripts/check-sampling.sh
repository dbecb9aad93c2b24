#!/usr/bin/env bash
# Repeated sampling through `scorebench serve` with the real `openai` Python client in the
# official MSQA toolkit's pattern (tests/sampling/toolkit_pattern.py): n × questions upstream
# calls on the first run, none on a second run in a new process, the same replies per question.
#
#   scripts/check-sampling.sh [BIN] [QUESTIONS] [N] [WORKERS]   (default: target/debug/scorebench 30 3 8)
#
# Installs openai into .venv-sampling/ (ignored by git) from PyPI the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${1:-target/debug/scorebench}"); QUESTIONS=${2:-30}; N=${3:-3}; WORKERS=${4:-8}
OPENAI_VERSION=3.51.0
VENV=.venv-sampling
if [ "$("$VENV/bin/python" -c 'import openai; print(openai.__version__)' 2>/dev/null || true)" != "$OPENAI_VERSION" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "openai==$OPENAI_VERSION"
fi
WD=$(mktemp -d)
cleanup() { kill "${SERVE:-}" "${MOCK:-}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$WD"; }
trap cleanup EXIT
python3 tests/sampling/count_mock.py "$WD/port" "$WD/count" & MOCK=$!
for _ in $(seq 50); do [ -s "$WD/port" ] && break; sleep 0.1; done
printf '[[upstream]]\nname = "mock"\nbase_url = "http://127.0.0.1:%s/v1"\nmodels = ["test-model"]\nmax_concurrency = 64\n' \
  "$(cat "$WD/port")" > "$WD/config.toml"
"$BIN" serve --addr 127.0.0.1:0 --db "$WD/db.sqlite3" --config "$WD/config.toml" --runs-dir "$WD/runs" \
  > "$WD/serve.out" 2> "$WD/serve.err" & SERVE=$!
for _ in $(seq 100); do grep -q listening "$WD/serve.out" 2>/dev/null && break; sleep 0.1; done
URL="$(sed -n 's#scorebench listening on \(http://[^/]*\)/#\1#p' "$WD/serve.out")/api/v1"
python3 -c "import json,sys; json.dump([{'true_false_question': f'Is material {i} stable?', 'true_false_question_answer': 'YES', 'question_type': 'x'} for i in range(int(sys.argv[1]))], open(sys.argv[2], 'w'))" \
  "$QUESTIONS" "$WD/dataset.json"
"$VENV/bin/python" tests/sampling/toolkit_pattern.py "$URL" "$WD/dataset.json" "$N" "$WORKERS" "$WD/first.json"
first_calls=$(cat "$WD/count")
"$VENV/bin/python" tests/sampling/toolkit_pattern.py "$URL" "$WD/dataset.json" "$N" "$WORKERS" "$WD/second.json"
second_calls=$(( $(cat "$WD/count") - first_calls ))
python3 - "$WD" "$QUESTIONS" "$N" "$first_calls" "$second_calls" <<'PY'
import json, sys
wd, questions, n, first_calls, second_calls = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
a, b = json.load(open(f"{wd}/first.json")), json.load(open(f"{wd}/second.json"))
same = sum(x == y for x, y in zip(a, b))
per_question = lambda r: sorted(sorted(r[q::questions]) for q in range(questions))
ok = first_calls == n * questions and second_calls == 0 and len(set(a)) == len(a) and per_question(a) == per_question(b)
print(f"sampling: {questions} questions x {n} samples: first run {first_calls} upstream calls, "
      f"second run (new process) {second_calls}; same reply sample for sample {same}/{len(a)}; "
      f"same replies per question: {per_question(a) == per_question(b)}")
print(f"{int(ok)} passed, {int(not ok)} failed")
sys.exit(0 if ok else 1)
PY
