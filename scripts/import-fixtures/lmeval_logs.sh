#!/usr/bin/env bash
# lm-evaluation-harness logs for the import fixtures: a local two-task group (multiple choice,
# 18 + 18 questions from ../data) run by lm-eval itself with its `dummy` model, whose
# log-likelihoods come from Python's `random` seeded by `--seed`: two seeds = two "models".
# Usage: lmeval_logs.sh DATA_DIR OUT_DIR   (with /tmp/venv-lmeval/bin first on PATH)
set -euo pipefail
data=$(realpath "$1"); out=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python - "$data" "$work" <<'PY'
import json, sys
data, work = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in open(f"{data}/mcq.jsonl")]
for subset in ["easy", "hard"]:
    with open(f"{work}/{subset}.jsonl", "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows if r["subset"] == subset)
    open(f"{work}/arith_mc_{subset}.yaml", "w").write(f"""task: arith_mc_{subset}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {work}/{subset}.jsonl
test_split: test
output_type: multiple_choice
doc_to_text: "Question: {{{{question}}}}\\nAnswer:"
doc_to_choice: "{{{{choices}}}}"
doc_to_target: label
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
  - metric: acc_norm
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
""")
open(f"{work}/arith_mc.yaml", "w").write("""group: arith_mc
task:
  - arith_mc_easy
  - arith_mc_hard
aggregate_metric_list:
  - metric: acc
    weight_by_size: true
  - metric: acc_norm
    weight_by_size: true
metadata:
  version: 1.0
""")
PY
export HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 HF_HOME="$work/hf"
for m in a:1234 b:42; do
  name=${m%%:*}; seed=${m#*:}
  lm_eval --model dummy --tasks arith_mc --include_path "$work" --seed "$seed" \
    --log_samples --output_path "$work/out-$name" > "$work/printed-$name.txt" 2> "$work/stderr-$name.txt" \
    || { cat "$work/stderr-$name.txt" >&2; exit 1; }
  mkdir -p "$out/dummy-$name"
  find "$work/out-$name" -name '*.json*' -exec cp {} "$out/dummy-$name/" \;
  cp "$work/printed-$name.txt" "$out/dummy-$name/printed.txt"
done
