#!/usr/bin/env bash
# Differential test of the metrics a spec adds to the library (mae, rmse, mean, exact_match,
# accuracy on labels, f1_macro and f1_micro on labels and on integer classes; mae, rmse, mean,
# accuracy and exact_match of weighted records, as `sample_weight` / `np.average`) against
# scikit-learn 1.9.1 / numpy 2.4.6, through `scorebench score --spec`: N random files (default
# 200) from SEED (default 1) of floats of mixed magnitudes, integers and labels; every value must
# be bit for bit the reference's.   usage: scripts/diff-spec-metrics.sh [N] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
python=$(scripts/python-env.sh)
cargo build --locked -q -p server
exec "$python" - target/debug/scorebench "${1:-200}" "${2:-1}" <<'PY'
import json, os, random, subprocess, sys, tempfile
import numpy as np
from sklearn.metrics import accuracy_score, f1_score, mean_absolute_error, root_mean_squared_error

binary, n_cases, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
work = tempfile.mkdtemp(prefix="scorebench-diff-spec-")
spec = os.path.join(work, "s.toml")
with open(spec, "w") as f:
    f.write('name = "diff"\nkey = "diff"\nversion = "1"\n'
            '[files.pairs]\nformat = "jsonl"\ngold = "gold"\npred = "pred"\nnumbers = { t = "t" }\n'
            '[[metrics]]\nkey = "mae"\nmetric = "mae"\n'
            '[[metrics]]\nkey = "rmse"\nmetric = "rmse"\n'
            '[[metrics]]\nkey = "mean_pred"\nmetric = "mean"\nof = "pred"\n'
            '[[metrics]]\nkey = "mean_t"\nmetric = "mean"\nof = "t"\n')
labels = os.path.join(work, "l.toml")
with open(labels, "w") as f:
    f.write('name = "labels"\nkey = "labels"\nversion = "1"\n'
            '[files.pairs]\nformat = "jsonl"\ngold = "gold"\npred = "pred"\n'
            '[values]\ngold = "label"\npred = "label"\n'
            '[[metrics]]\nkey = "accuracy"\nmetric = "accuracy"\n'
            '[[metrics]]\nkey = "em"\nmetric = "exact_match"\nnormalize = ["strip", "lower"]\n'
            '[[metrics]]\nkey = "f1_macro"\nmetric = "f1_macro"\n'
            '[[metrics]]\nkey = "f1_micro"\nmetric = "f1_micro"\n')
classes = os.path.join(work, "c.toml")
with open(classes, "w") as f:
    f.write('name = "classes"\nkey = "classes"\nversion = "1"\n'
            '[files.pairs]\nformat = "jsonl"\ngold = "gold"\npred = "pred"\n'
            '[[metrics]]\nkey = "f1_macro"\nmetric = "f1_macro"\n'
            '[[metrics]]\nkey = "f1_micro"\nmetric = "f1_micro"\n')

weighted = os.path.join(work, "w.toml")
with open(weighted, "w") as f:
    f.write('name = "weighted"\nkey = "weighted"\nversion = "1"\n'
            '[files.pairs]\nformat = "jsonl"\ngold = "gold"\npred = "pred"\nweight = "w"\n'
            '[[metrics]]\nkey = "mae"\nmetric = "mae"\n'
            '[[metrics]]\nkey = "rmse"\nmetric = "rmse"\n'
            '[[metrics]]\nkey = "mean_pred"\nmetric = "mean"\nof = "pred"\n'
            '[[metrics]]\nkey = "accuracy"\nmetric = "accuracy"\n')
weighted_labels = os.path.join(work, "wl.toml")
with open(weighted_labels, "w") as f:
    f.write('name = "weighted labels"\nkey = "wlabels"\nversion = "1"\n'
            '[files.pairs]\nformat = "jsonl"\ngold = "gold"\npred = "pred"\nweight = "w"\n'
            '[values]\ngold = "label"\npred = "label"\n'
            '[[metrics]]\nkey = "accuracy"\nmetric = "accuracy"\n'
            '[[metrics]]\nkey = "em"\nmetric = "exact_match"\nnormalize = ["strip", "lower"]\n')

def weights(n):
    w = [float(rng.randint(0, 4)) if rng.random() < 0.5 else rng.uniform(0, 3) for _ in range(n)]
    if sum(w) == 0:
        w[0] = 1.0
    return w

def value(kind):
    if kind == 0:
        return float(rng.randint(-5, 5))
    if kind == 1:
        return rng.uniform(-1, 1) * 10 ** rng.randint(-8, 8)
    return rng.gauss(0, 1)

def score(spec_path, path):
    out = subprocess.run([binary, "score", "--spec", spec_path, path, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{path}: {out.stderr}")
    return json.loads(out.stdout)["overall"]["metrics"]

bad = compared = 0
for case in range(n_cases):
    n = rng.choice([1, 2, 3, 7, 100, rng.randint(1, 5000)])
    kind = case % 3
    g = [value(kind) for _ in range(n)]
    p = [value(kind) for _ in range(n)]
    t = [value(1) for _ in range(n)]
    path = os.path.join(work, f"c{case}.jsonl")
    with open(path, "w") as f:
        for a, b, c in zip(g, p, t):
            f.write(json.dumps({"gold": a, "pred": b, "t": c}) + "\n")
    got = score(spec, path)
    want = {
        "mae": mean_absolute_error(g, p),
        "rmse": root_mean_squared_error(g, p),
        "mean_pred": np.mean(np.array(p)),
        "mean_t": np.mean(np.array(t)),
    }
    for k, w in want.items():
        compared += 1
        if float(got[k]).hex() != float(w).hex():
            bad += 1
            print(f"case {case} (n={n}) {k}: scorebench {got[k]!r} vs reference {float(w)!r}")
    words = ["yes", "Yes ", "no", " NO", "maybe", "42", "42.0"]
    lg = [rng.choice(words) for _ in range(n)]
    lp = [rng.choice(words) for _ in range(n)]
    path = os.path.join(work, f"l{case}.jsonl")
    with open(path, "w") as f:
        for a, b in zip(lg, lp):
            f.write(json.dumps({"gold": a, "pred": b}) + "\n")
    got = score(labels, path)
    norm = lambda s: s.strip().lower()
    want = {"accuracy": accuracy_score(lg, lp), "em": accuracy_score([norm(x) for x in lg], [norm(x) for x in lp]),
            "f1_macro": f1_score(lg, lp, average="macro", zero_division=0.0),
            "f1_micro": f1_score(lg, lp, average="micro", zero_division=0.0)}
    for k, w in want.items():
        compared += 1
        if float(got[k]).hex() != float(w).hex():
            bad += 1
            print(f"case {case} (n={n}) {k}: scorebench {got[k]!r} vs reference {float(w)!r}")
    w = weights(n)
    path = os.path.join(work, f"w{case}.jsonl")
    with open(path, "w") as f:
        for a, b, c in zip(g, p, w):
            f.write(json.dumps({"gold": a, "pred": b, "w": c}) + "\n")
    got = score(weighted, path)
    try:
        weighted_accuracy = accuracy_score(g, p, sample_weight=w)
    except ValueError:  # continuous targets: undefined
        weighted_accuracy = None
    want = {"mae": mean_absolute_error(g, p, sample_weight=w),
            "rmse": root_mean_squared_error(g, p, sample_weight=w),
            "mean_pred": np.average(np.array(p), weights=np.array(w)),
            "accuracy": weighted_accuracy}
    for k, v in want.items():
        compared += 1
        if v is None or got[k] is None:
            if v is not None or got[k] is not None:
                bad += 1
                print(f"case {case} (n={n}) weighted {k}: scorebench {got[k]!r} vs reference {v!r}")
        elif float(got[k]).hex() != float(v).hex():
            bad += 1
            print(f"case {case} (n={n}) weighted {k}: scorebench {got[k]!r} vs reference {float(v)!r}")
    path = os.path.join(work, f"wl{case}.jsonl")
    with open(path, "w") as f:
        for a, b, c in zip(lg, lp, w):
            f.write(json.dumps({"gold": a, "pred": b, "w": c}) + "\n")
    got = score(weighted_labels, path)
    want = {"accuracy": accuracy_score(lg, lp, sample_weight=w),
            "em": accuracy_score([norm(x) for x in lg], [norm(x) for x in lp], sample_weight=w)}
    for k, v in want.items():
        compared += 1
        if float(got[k]).hex() != float(v).hex():
            bad += 1
            print(f"case {case} (n={n}) weighted labels {k}: scorebench {got[k]!r} vs reference {float(v)!r}")
    k = rng.randint(2, 12)
    cg = [rng.randint(-2, k) for _ in range(n)]
    cp = [rng.randint(-2, k) if rng.random() < 0.6 else g for g in cg]
    path = os.path.join(work, f"k{case}.jsonl")
    with open(path, "w") as f:
        for a, b in zip(cg, cp):
            f.write(json.dumps({"gold": a, "pred": b}) + "\n")
    got = score(classes, path)
    want = {"f1_macro": f1_score(cg, cp, average="macro", zero_division=0.0),
            "f1_micro": f1_score(cg, cp, average="micro", zero_division=0.0)}
    for k, w in want.items():
        compared += 1
        if float(got[k]).hex() != float(w).hex():
            bad += 1
            print(f"case {case} (n={n}) classes {k}: scorebench {got[k]!r} vs reference {float(w)!r}")
print(f"spec metrics vs scikit-learn/numpy: {compared} values, {bad} differ")
sys.exit(1 if bad else 0)
PY
