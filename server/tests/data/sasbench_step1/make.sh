#!/usr/bin/env bash
# Makes the fixtures of server/tests/all/run_sasbench.rs by running the OFFICIAL SAS-Bench step 1
# (sas_pipelines/1_predict_scores.py of PKU-DAIR/SAS-Bench at 4ef718b, unmodified) over golden
# dataset folders, with only its model client replaced by stub/main/predictor/openai.py (records
# every prompt, answers with a canned reply) and tqdm by a pass-through.
#   usage: make.sh SAS_BENCH_CHECKOUT PYTHON   (PYTHON with numpy and json_repair, e.g. .venv/bin/python)
# Writes <case>/calls.jsonl ({"prompt", "reply"} in call order) and <case>/out/*_scored.jsonl.
set -euo pipefail
repo=$1 py=$2
here=$(cd "$(dirname "$0")" && pwd)
golden=$(cd "$here/../../../../tests/golden/sasbench" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git -C "$repo" archive 4ef718b6433623d492d483a38d4045a4b32d6f45 | tar -x -C "$work"
cp "$here/stub/openai.py" "$work/main/predictor/openai.py"
printf 'def tqdm(x, *a, **k):\n    return x\n' > "$work/sas_pipelines/tqdm.py"
echo "sk-stub" > "$work/sas_pipelines/api_key.txt"
# case name, golden case, few-shot examples, few-shot seed, use_guideline
for spec in "zero_shot case_10 0 0 1" "few_shot case_06 3 0 1" "zero_steps case_14 0 0 1" \
            "few_shot_2_no_guideline case_06 2 5 0"; do
  set -- $spec
  name=$1 case=$2 few=$3 seed=$4 guideline=$5
  rm -rf "$here/$name" "$work/ds" "$work/ds_gpt-4o-mini_Scored"
  mkdir -p "$here/$name/out"
  cp -r "$golden/$case/datasets" "$work/ds"
  # the stub's canned replies: the golden raw replies, re-spaced so the official clean-up shows
  export STUB_GOLDEN="$golden/$case/datasets_GoldenModel_Scored" STUB_CALLS="$here/$name/calls.jsonl"
  : > "$STUB_CALLS"
  for f in "$work/ds"/[0-9]*_*.jsonl; do
    stem=$(basename "$f" .jsonl)
    export STUB_STEM=$stem STUB_SEED=$seed
    (cd "$work/sas_pipelines" && "$py" 1_predict_scores.py --file_dir ../ds --file_name "$stem" \
       --llm_name gpt-4o-mini --save_type_name gpt-4o-mini --few_shot_num "$few" \
       --use_guideline "$guideline" >/dev/null)
  done
  cp "$work/ds_gpt-4o-mini_Scored"/*_scored.jsonl "$here/$name/out/"
  echo "$name: $(wc -l < "$STUB_CALLS") calls"
done
