#!/usr/bin/env bash
# The Python venv of the differential tests (.venv/, git-ignored): json_repair, numpy, SciPy and
# scikit-learn pinned in scripts/diff/requirements.txt. Idempotent: with everything installed it
# only checks the versions (~1 s). Prints the venv's python on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv
req=scripts/diff/requirements.txt
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" >&2
fi
if ! "$venv/bin/python" - "$req" >/dev/null 2>&1 <<'PY'
import sys
from importlib.metadata import version
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if line:
        name, want = line.split("==")
        assert version(name) == want, (name, version(name), want)
PY
then
  printf 'python-env: installing %s into %s\n' "$req" "$venv" >&2
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$req" >&2
fi
echo "$PWD/$venv/bin/python"
