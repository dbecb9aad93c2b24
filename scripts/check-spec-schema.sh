#!/usr/bin/env bash
# The JSON Schema of benchmark specs (docs/benchmark-spec.schema.json) agrees with what
# scorebench accepts: the shipped examples and the documented example validate, and the broken
# specs of scripts/bad_input.py that scorebench refuses for a key it does not know or a value of
# the wrong kind are refused by the schema too.   usage: scripts/check-spec-schema.sh
set -euo pipefail
cd "$(dirname "$0")/.."
python=$(scripts/python-env.sh)
exec "$python" - <<'PY'
import json, re, sys, tomllib
import jsonschema
sys.path.insert(0, "scripts")
from bad_input import spec_variants

schema = json.load(open("docs/benchmark-spec.schema.json"))
jsonschema.Draft202012Validator.check_schema(schema)
valid = jsonschema.Draft202012Validator(schema)
accepted = {p: tomllib.load(open(p, "rb")) for p in ["specs/examples/asap-aes.toml", "specs/examples/pairs.toml"]}
doc = open("docs/benchmark-spec.md").read()
accepted["docs example"] = tomllib.loads(re.search(r"## A whole example\n\n```toml\n(.*?)```", doc, re.S).group(1))
bad = 0
for name, spec in accepted.items():
    errors = list(valid.iter_errors(spec))
    for e in errors:
        print(f"{name}: the schema refuses what scorebench accepts: {e.message}")
    bad += len(errors)
# Refused by the model's keys and types: the schema must refuse them too.
must_refuse = {"spec-unknown-key", "spec-unknown-metric", "spec-wrong-type", "spec-negative-decimals", "spec-bad-key", "spec-no-metrics"}
refused = 0
for name, data in spec_variants(open("specs/examples/asap-aes.toml", "rb").read()):
    if name not in must_refuse:
        continue
    try:
        spec = tomllib.loads(data.decode())
    except tomllib.TOMLDecodeError:
        continue
    if valid.is_valid(spec):
        print(f"{name}: scorebench refuses it, the schema accepts it")
        bad += 1
    else:
        refused += 1
print(f"spec schema: {len(accepted)} accepted specs valid, {refused} broken specs refused, {bad} disagreements")
sys.exit(1 if bad or refused < len(must_refuse) - 1 else 0)
PY
