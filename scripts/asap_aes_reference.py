#!/usr/bin/env python3
"""Write metrics-core/tests/data/asap_aes_reference.json: seeded random ASAP-AES cases scored by
the official Kaggle metric code, for the differential test in metrics-core/tests/golden_asap_aes.rs.

The official code is PyPI `ml_metrics` 0.1.4 (benhamner/Metrics, `quadratic_weighted_kappa.py`,
the same functions as commit 9a637aea). Its setup.py needs setuptools < 58 (`use_2to3`):

    python3 -m venv .venv-asap
    .venv-asap/bin/pip install "setuptools<58" numpy
    .venv-asap/bin/pip install --no-build-isolation ml_metrics==0.1.4
    .venv-asap/bin/python scripts/asap_aes_reference.py

Official variant: quadratic_weighted_kappa(gold, pred) on the predictions as floats (the
function casts with dtype=int: truncation). Corrected variant: the same function with the
declared range and np.clip(np.rint(pred), lo, hi). A ZeroDivisionError is null, and then both
means are null.
"""

import json
import platform
import random
from pathlib import Path

import numpy as np
from ml_metrics.quadratic_weighted_kappa import (
    mean_quadratic_weighted_kappa,
    quadratic_weighted_kappa,
)

DECLARED = {1: (2, 12), 2: (1, 6), 3: (0, 3), 4: (0, 3), 5: (0, 4), 6: (0, 4), 7: (0, 30), 8: (0, 60)}
OUT = Path(__file__).resolve().parent.parent / "metrics-core/tests/data/asap_aes_reference.json"
CASES = 320


def cell(rng, value, style):
    """The predicted_score cell as a submission might write it."""
    if style == "int":
        return str(int(round(value)))
    if style == "float":
        return f"{value:.{rng.randint(1, 3)}f}"
    if style == "repr":
        return repr(value)
    if style == "quoted":
        return f'"{round(value):.1f}"'
    if style == "half":  # exact .5 ties for np.rint's half to even
        return f"{np.floor(value) + 0.5:.1f}"
    raise ValueError(style)


def make_set(rng, s, kind):
    lo, hi = DECLARED[s]
    n = rng.choices([1, 2, rng.randint(3, 12), rng.randint(10, 24)], [1, 1, 7, 5])[0]
    gold = [rng.randint(lo, hi) for _ in range(n)]
    if kind == "constant":
        gold = [gold[0]] * n
        return [(s, g, str(g)) for g in gold]
    if kind == "perfect":
        return [(s, g, str(g)) for g in gold]
    if kind == "reversed":
        return [(s, g, str(lo + hi - g)) for g in gold]
    noise = rng.choice([0.3, 0.8, 1.5, (hi - lo) / 3])
    style = rng.choice(["int", "float", "repr", "quoted", "half", "mixed"])
    rows = []
    for g in gold:
        value = g + rng.gauss(0, noise)
        if rng.random() < 0.05:  # out of the declared range, sometimes negative
            value = rng.choice([lo - rng.uniform(0.1, 3), hi + rng.uniform(0.1, 3), -rng.uniform(0, 1)])
        st = rng.choice(["int", "float", "repr", "quoted", "half"]) if style == "mixed" else style
        rows.append((s, g, cell(rng, value, st)))
    return rows


def score(essays, corrected):
    sets = {}
    for s, g, c in essays:
        gs, ps = sets.setdefault(s, ([], []))
        gs.append(g)
        ps.append(float(c.strip('"')))
    out = {}
    for s in sorted(sets):
        gold, pred = sets[s]
        try:
            if corrected:
                lo, hi = DECLARED[s]
                kappa = quadratic_weighted_kappa(gold, np.clip(np.rint(pred), lo, hi), lo, hi)
            else:
                kappa = quadratic_weighted_kappa(gold, pred)
            out[str(s)] = float(kappa)
        except ZeroDivisionError:
            out[str(s)] = None
    kappas = list(out.values())
    defined = all(k is not None for k in kappas)
    return {
        "sets": out,
        "mean_qwk_fisher": float(mean_quadratic_weighted_kappa(kappas)) if defined else None,
        "mean_qwk": float(np.mean(kappas)) if defined else None,
    }


def main():
    cases = []
    for seed in range(CASES):
        rng = random.Random(seed)
        count = 8 if seed % 5 == 0 else rng.randint(1, 8)
        chosen = sorted(rng.sample(range(1, 9), count))
        essays = []
        for s in chosen:
            kind = rng.choices(["noisy", "constant", "perfect", "reversed"], [20, 1, 1, 1])[0]
            essays.extend(make_set(rng, s, kind))
        if seed % 2:  # interleave the sets in the file; each set keeps its own order
            order = sorted(range(len(essays)), key=lambda k: (rng.random(), k))
            per_set = {}
            for k in order:
                per_set.setdefault(essays[k][0], []).append(k)
            for ks in per_set.values():
                ks.sort()
            queues = {s: iter(ks) for s, ks in per_set.items()}
            essays = [essays[next(queues[essays[k][0]])] for k in order]
        cases.append({
            "seed": seed,
            "essays": [list(e) for e in essays],
            "official": score(essays, corrected=False),
            "corrected": score(essays, corrected=True),
        })
    header = {
        "generator": "scripts/asap_aes_reference.py",
        "official": "PyPI ml_metrics 0.1.4 (benhamner/Metrics quadratic_weighted_kappa.py)",
        "python": platform.python_version(),
        "numpy": np.__version__,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w") as f:
        f.write("{\n")
        for key, value in header.items():
            f.write(f" {json.dumps(key)}: {json.dumps(value)},\n")
        f.write(' "cases": [\n')
        f.write(",\n".join("  " + json.dumps(c, separators=(",", ":")) for c in cases))
        f.write("\n ]\n}\n")
    print(f"{len(cases)} cases -> {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
