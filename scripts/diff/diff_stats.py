"""Differential test of metrics-core's generic statistics against SciPy and scikit-learn on
hostile numbers: extreme magnitudes (1e-300 … 1e300, subnormals, sums that overflow),
near-constant and constant inputs, ties everywhere, huge n, NaN/±inf, tiny n, labels that are
not integers or beyond int64.

usage: diff_stats.py HARNESS N SEED [--max-n M] [--show K]
Compares pearson/spearman/kendall_tau_b (scipy.stats.pearsonr/spearmanr/kendalltau .statistic),
qwk (sklearn cohen_kappa_score(weights="quadratic")) and accuracy (accuracy_score), directly
and through `score pairs`, to 1e-12 (relative above 1); undefined (null) exactly where the
reference gives NaN or raises. Exits 1 on any mismatch.
"""

import argparse
import json
import math
import random
import subprocess
import sys
import warnings

import numpy as np
from scipy import stats
from sklearn.metrics import accuracy_score, cohen_kappa_score

TOLERANCE = 1e-12
METRICS = ["pearson", "spearman", "kendall_tau_b", "qwk", "accuracy"]


def reference(x, y):
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    calls = {
        "pearson": lambda: stats.pearsonr(x, y).statistic,
        "spearman": lambda: stats.spearmanr(x, y).statistic,
        "kendall_tau_b": lambda: stats.kendalltau(x, y).statistic,
        "qwk": lambda: cohen_kappa_score(x, y, weights="quadratic"),
        "accuracy": lambda: accuracy_score(x, y),
    }
    out = {}
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for name, call in calls.items():
            try:
                v = float(call())
                out[name] = None if math.isnan(v) else v
            except (ValueError, ZeroDivisionError, IndexError, MemoryError):
                out[name] = None
    return out


def normal(rng, n, scale=1.0, loc=0.0):
    return [loc + scale * rng.gauss(0, 1) for _ in range(n)]


def case(rng, max_n):
    kind = rng.choice(["normal", "magnitude", "mixed_magnitude", "near_constant", "constant", "ties",
                       "huge", "nonfinite", "tiny", "labels", "overflow", "subnormal", "signed_zero"])
    n = rng.randint(3, 60)
    if kind == "normal":
        x = normal(rng, n)
        y = [a * rng.uniform(-2, 2) + rng.gauss(0, 1) for a in x]
    elif kind == "magnitude":
        ex, ey = rng.randint(-300, 300), rng.randint(-300, 300)
        x = normal(rng, n, 10.0 ** ex)
        y = [a / 10.0 ** ex * 10.0 ** ey * rng.uniform(0.5, 1.5) + rng.gauss(0, 10.0 ** ey) for a in x]
    elif kind == "mixed_magnitude":
        x = [rng.gauss(0, 1) * 10.0 ** rng.randint(-300, 300) for _ in range(n)]
        y = [rng.gauss(0, 1) * 10.0 ** rng.randint(-300, 300) for _ in range(n)]
    elif kind == "near_constant":
        c = rng.choice([1.0, 1e6, 1e-6, 123.456, 1e200, -1e-200])
        eps = abs(c) * 10.0 ** rng.randint(-15, -8)
        x = normal(rng, n, eps, c)
        y = [a + rng.gauss(0, eps) for a in x] if rng.random() < 0.5 else normal(rng, n)
    elif kind == "constant":
        c = rng.choice([0.0, 1.0, 1e300, -5e-324, 3.0])
        x = [c] * n
        y = normal(rng, n)
        if rng.random() < 0.5:
            x[rng.randrange(n)] = math.nextafter(c, math.inf)
        if rng.random() < 0.5:
            x, y = y, x
    elif kind == "ties":
        k = rng.randint(1, 6)
        x = [float(rng.randint(0, k)) for _ in range(rng.randint(2, 400))]
        y = [float(min(k, max(0, a + rng.randint(-1, 1)))) for a in x]
    elif kind == "huge":
        n = rng.randint(max_n // 2, max_n)
        k = rng.choice([3, 10, 100])
        x = [float(rng.randint(0, k)) for _ in range(n)]
        y = [float(min(k, max(0, a + rng.randint(-2, 2)))) for a in x] if rng.random() < 0.7 else normal(rng, n)
    elif kind == "nonfinite":
        x, y = normal(rng, n), normal(rng, n)
        for _ in range(rng.randint(1, 3)):
            arr = x if rng.random() < 0.5 else y
            arr[rng.randrange(n)] = rng.choice([math.nan, math.inf, -math.inf])
    elif kind == "tiny":
        n = rng.randint(0, 3)
        x = [float(rng.randint(0, 2)) for _ in range(n)]
        y = [float(rng.randint(0, 2)) for _ in range(n)]
    elif kind == "labels":
        base = rng.choice([[0, 1, 2, 3], [-5, 0, 5], [2 ** 53, 2 ** 53 + 2], [0.5, 1.5, 2.0],
                           [2.0 ** 63, 0, 1], [-(2.0 ** 63), 0, 1], [1e300, 1], [0, 1e-300], [7]])
        x = [float(rng.choice(base)) for _ in range(n)]
        y = [float(rng.choice(base)) for _ in range(n)]
    elif kind == "overflow":
        x = [rng.choice([1, -1]) * 1.7e308 * rng.uniform(0.5, 1) for _ in range(n)]
        if rng.random() < 0.5:
            x = [abs(a) for a in x]
        y = normal(rng, n)
    elif kind == "subnormal":
        x = [5e-324 * rng.randint(-20, 20) for _ in range(n)]
        y = [5e-324 * rng.randint(-20, 20) for _ in range(n)]
    else:  # signed_zero
        x = [rng.choice([0.0, -0.0, 1.0]) for _ in range(n)]
        y = [rng.choice([0.0, -0.0, 1.0]) for _ in range(n)]
    if rng.random() < 0.5:
        x, y = y, x
    return kind, x, y


def encode(v):
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return v


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= TOLERANCE * max(1.0, abs(b))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("harness")
    ap.add_argument("n", type=int)
    ap.add_argument("seed", type=int)
    ap.add_argument("--max-n", type=int, default=20000)
    ap.add_argument("--show", type=int, default=20)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    cases = [case(rng, args.max_n) for _ in range(args.n)]
    payload = "".join(json.dumps({"x": [encode(v) for v in x], "y": [encode(v) for v in y]}) + "\n"
                      for _, x, y in cases)
    run = subprocess.run([args.harness], input=payload.encode(), capture_output=True, check=False)
    if run.returncode != 0:
        sys.exit(f"harness failed ({run.returncode}): {run.stderr.decode()[-2000:]}")
    answers = [json.loads(line) for line in run.stdout.decode().splitlines()]
    if len(answers) != len(cases):
        sys.exit(f"harness answered {len(answers)} of {len(cases)} cases")
    mismatches = []
    by_kind = {}
    compared = 0
    for (kind, x, y), ours in zip(cases, answers):
        want = reference(x, y)
        by_kind[kind] = by_kind.get(kind, 0) + 1
        for name in METRICS:
            compared += 1
            got = [("direct", ours[name])]
            if ours["pairs"] is not None:
                got.append(("pairs", ours["pairs"][name]))
            for path, value in got:
                if not close(value, want[name]):
                    shown = f"x={x[:6]}{'…' if len(x) > 6 else ''} y={y[:6]}{'…' if len(y) > 6 else ''} n={len(x)}"
                    mismatches.append(f"[{kind}] {name} ({path}): ours {value!r}, reference {want[name]!r}; {shown}")
    for m in mismatches[: args.show]:
        print(m)
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(by_kind.items()))
    print(f"cases: {len(cases)} ({kinds}); metric values compared: {compared}; mismatches: {len(mismatches)}")
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
