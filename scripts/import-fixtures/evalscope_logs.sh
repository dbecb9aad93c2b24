#!/usr/bin/env bash
# EvalScope logs for the import fixtures: its `general_mcq` benchmark over a local dataset
# (two subsets of 18 questions from ../data) run by EvalScope itself against a loopback
# OpenAI-compatible mock server (mock_openai.py) that answers as two "models".
# Usage: evalscope_logs.sh DATA_DIR OUT_DIR   (with /tmp/venv-evalscope/bin first on PATH)
set -euo pipefail
here=$(dirname "$(realpath "$0")")
data=$(realpath "$1"); out=$2
work=$(mktemp -d)
port=${MOCK_PORT:-18731}
python "$here/mock_openai.py" "$port" & server=$!
trap 'kill "$server"; rm -rf "$work"' EXIT
python - "$data" "$work" <<'PY'
import json, sys
data, work = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in open(f"{data}/mcq.jsonl")]
for subset in ["easy", "hard"]:
    picked = [r for r in rows if r["subset"] == subset]
    with open(f"{work}/{subset}_val.jsonl", "w") as f:
        for r in picked:
            rec = {"id": r["id"], "question": r["question"], **dict(zip("ABCD", r["choices"])), "answer": r["answer"]}
            f.write(json.dumps(rec) + "\n")
PY
sleep 1
export HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 HF_HOME="$work/hf" MODELSCOPE_CACHE="$work/ms"
for model in model-a model-b; do
  evalscope eval --model "$model" --api-url "http://127.0.0.1:$port/v1" --api-key none \
    --eval-type openai_api --datasets general_mcq \
    --dataset-args "{\"general_mcq\": {\"local_path\": \"$work\", \"subset_list\": [\"easy\", \"hard\"]}}" \
    --work-dir "$work/out-$model" --no-timestamp > "$work/printed-$model.txt" 2>&1 \
    || { tail -50 "$work/printed-$model.txt" >&2; exit 1; }
  mkdir -p "$out/$model"
  cp -r "$work/out-$model/." "$out/$model/"
  cp "$work/printed-$model.txt" "$out/$model/printed.txt"
done
