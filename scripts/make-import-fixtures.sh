#!/usr/bin/env bash
# Recreate tests/imports/ (all but its README.md): real logs of lm-evaluation-harness, Inspect AI and EvalScope, made by
# the tools themselves (pinned versions from PyPI, each in its own throw-away venv: their pins
# conflict), offline, on the small local datasets of scripts/import-fixtures/make_data.py:
#   Inspect AI   its `mockllm` provider with deterministic replies (two "models")
#   lm-eval      its `dummy` model (log-likelihoods from `random`, seeded: two seeds = two runs)
#   EvalScope    a loopback OpenAI-compatible mock server (scripts/import-fixtures/mock_openai.py)
# and numbers.json per tool: the numbers each tool wrote in its own results (read back with
# Python's json). CI reads the committed fixtures and installs none of this (lm-eval would pull
# in large dependencies). Usage: scripts/make-import-fixtures.sh [VENV_ROOT (default /tmp)]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venvs=${1:-/tmp}
here=$root/scripts/import-fixtures
out=$root/tests/imports
INSPECT_VERSION=0.3.285
LM_EVAL_VERSION=0.4.13
EVALSCOPE_VERSION=1.14.1

venv() { # name, pip requirement
  local dir=$venvs/venv-$1
  if [ ! -x "$dir/bin/python" ]; then python3 -m venv "$dir"; fi
  "$dir/bin/pip" install -q "$2"
  echo "$dir/bin"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rm -rf "$out/data" "$out/inspect" "$out/lm-eval" "$out/evalscope"   # README.md stays
mkdir -p "$out/data" "$out/inspect" "$out/lm-eval" "$out/evalscope"
python3 "$here/make_data.py" "$out/data"

# Inspect AI: .eval of both models, .json of model A.
bin=$(venv inspect "inspect-ai==$INSPECT_VERSION")
HOME=$work/home "$bin/python" "$here/inspect_logs.py" "$out/data" "$out/inspect" > "$work/inspect.jsonl"
python3 - "$work/inspect.jsonl" "$out/inspect/numbers.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
json.dump({"tool": "inspect-ai", "logs": {r["file"]: r["scores"] for r in rows}},
          open(sys.argv[2], "w"), indent=1)
PY

# lm-evaluation-harness: two seeds of the dummy model.
bin=$(venv lmeval "lm-eval==$LM_EVAL_VERSION")
PATH=$bin:$PATH "$here/lmeval_logs.sh" "$out/data" "$out/lm-eval"
python3 - "$out/lm-eval" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
runs = {}
for run in sorted(os.listdir(out)):
    for f in glob.glob(f"{out}/{run}/results_*.json"):
        results = json.load(open(f))["results"]
        runs[run] = {task: {k: v for k, v in entries.items() if "," in k}
                     for task, entries in results.items()}
json.dump({"tool": "lm-eval", "runs": runs}, open(f"{out}/numbers.json", "w"), indent=1)
PY

# EvalScope: two models behind the mock server.
bin=$(venv evalscope "evalscope==$EVALSCOPE_VERSION")
PATH=$bin:$PATH "$here/evalscope_logs.sh" "$out/data" "$work/evalscope"
python3 - "$work/evalscope" "$out/evalscope" <<'PY'
import glob, json, os, shutil, sys
src, out = sys.argv[1], sys.argv[2]
runs = {}
for model in sorted(os.listdir(src)):
    # Keep what scorebench reads (report, reviews), the run's config and what EvalScope printed.
    for sub in ["reports", "reviews", "configs"]:
        for f in glob.glob(f"{src}/{model}/{sub}/**/*", recursive=True):
            if os.path.isfile(f) and not f.endswith(".html"):
                dst = f"{out}/{model}/{os.path.relpath(f, f'{src}/{model}')}"
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy(f, dst)
    shutil.copy(f"{src}/{model}/printed.txt", f"{out}/{model}/printed.txt")
    report = json.load(open(glob.glob(f"{src}/{model}/reports/*/*.json")[0]))
    runs[model] = [{
        "name": m.get("legacy_name") or m["identity"]["name"],
        "num": m["num"], "score": m["score"], "macro_score": m["macro_score"],
        "categories": [{"name": c["name"], "num": c["num"], "score": c["score"],
                        "macro_score": c["macro_score"],
                        "subsets": [{"name": s["name"], "num": s["num"], "score": s["score"]}
                                    for s in c["subsets"]]} for c in m["categories"]],
    } for m in report["metrics"]]
json.dump({"tool": "evalscope", "runs": runs}, open(f"{out}/numbers.json", "w"), indent=1)
PY
du -sh "$out"/*
