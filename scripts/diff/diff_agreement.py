"""Differential test of Krippendorff's α (metrics-core `agreement`) against the `krippendorff`
package (PyPI 0.9.0) on random rating matrices: 2-8 raters, 1-400 units, missing ratings, 2-12
values (small integers like essay levels, spaced or negative values, a few halves), each level of
measurement, with and without a declared domain. A case matches when both are undefined (the
package raises or gives NaN) or both give the same float bit for bit.

usage: diff_agreement.py RUST_EXAMPLE N SEED [--show K]"""
import argparse
import json
import struct
import subprocess
import sys
import warnings

import krippendorff
import numpy as np

LEVELS = ["nominal", "ordinal", "interval", "ratio"]


def case(rng):
    raters = int(rng.integers(2, 9))
    units = int(rng.integers(1, 401))
    k = int(rng.integers(2, 13))
    kind = rng.integers(0, 4)
    if kind == 0:
        values = np.arange(k, dtype=float)            # levels 0..k-1
    elif kind == 1:
        values = np.arange(1, k + 1, dtype=float)      # levels 1..k
    elif kind == 2:
        values = np.sort(rng.choice(np.arange(-20, 40), size=k, replace=False)).astype(float)
    else:
        values = np.arange(k, dtype=float) / 2.0       # halves
    # Raters agree around a true level per unit, with noise.
    truth = rng.integers(0, k, size=units)
    noise = rng.integers(-1, 2, size=(raters, units)) * (rng.random((raters, units)) < rng.random())
    idx = np.clip(truth + noise, 0, k - 1)
    data = values[idx].astype(float)
    missing = rng.random((raters, units)) < rng.choice([0.0, 0.1, 0.4, 0.8])
    data[missing] = np.nan
    level = LEVELS[int(rng.integers(0, 4))]
    domain = values.tolist() if rng.random() < 0.3 else None
    return data, level, domain


def reference(data, level, domain):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            a = krippendorff.alpha(reliability_data=data, level_of_measurement=level,
                                   value_domain=domain)
        except ValueError:
            return None
    a = float(a)
    return None if np.isnan(a) or np.isinf(a) else a


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("example")
    ap.add_argument("n", type=int)
    ap.add_argument("seed", type=int)
    ap.add_argument("--show", type=int, default=20)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    cases = [case(rng) for _ in range(args.n)]
    lines = []
    for data, level, domain in cases:
        ratings = [[None if np.isnan(v) else v for v in row] for row in data.tolist()]
        lines.append(json.dumps({"ratings": ratings, "level": level, "domain": domain}))
    out = subprocess.run([args.example], input="\n".join(lines) + "\n", capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert len(out) == len(cases), (len(out), len(cases))
    mismatches = []
    defined = 0
    for i, ((data, level, domain), line) in enumerate(zip(cases, out)):
        want = reference(data, level, domain)
        got = json.loads(line)["alpha"]
        if want is not None:
            defined += 1
        same = (want is None and got is None) or (
            want is not None and got is not None
            and struct.pack("<d", want) == struct.pack("<d", got))
        if not same:
            mismatches.append((i, level, data.shape, domain is not None, want, got))
    print(f"krippendorff alpha: {len(cases)} cases ({defined} defined), "
          f"{len(cases) - len(mismatches)} identical bit for bit, {len(mismatches)} differ")
    for m in mismatches[: args.show]:
        print("  case %d %s raters×units=%s declared=%s: package %r, metrics-core %r" % m)
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
