#!/usr/bin/env python3
"""Run every golden case through `scorebench score … --json --samples` (every variant) and write
each output (stdout, stderr's first line, exit status) to OUT/<name>.txt, so two builds can be
compared byte for byte:  scripts/cli_snapshot.py OLD_BIN /tmp/a && scripts/cli_snapshot.py NEW_BIN
/tmp/b && diff -r /tmp/a /tmp/b.  Reads ../shared/golden (or $GOLDEN)."""
import glob, json, os, subprocess, sys, tempfile

BIN, OUT = sys.argv[1], sys.argv[2]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.environ.get("GOLDEN", os.path.join(ROOT, "..", "shared", "golden"))
os.makedirs(OUT, exist_ok=True)
# A fixed place, so the report paths are the same in both runs.
tmp = os.path.join(tempfile.gettempdir(), "scorebench-cli-snapshot")
runs = 0


def run(name, args):
    global runs
    for variant_args, suffix in variants(args[0]):
        r = subprocess.run([BIN, "score", *args, *variant_args, "--json", "--samples"],
                           capture_output=True)
        first_err = r.stderr.decode("utf-8", "replace").splitlines()[:1]
        with open(os.path.join(OUT, f"{name}{suffix}.txt"), "wb") as f:
            f.write(b"exit %d\n" % r.returncode)
            f.write(("\n".join(first_err) + "\n").encode())
            f.write(r.stdout)
        runs += 1


# Each benchmark's variants, official first, as the registry lists them.
VARIANTS = {b["key"]: b["variants"] for b in
            json.loads(subprocess.run([BIN, "benchmarks", "--json"], capture_output=True,
                                      check=True).stdout)}


def variants(benchmark):
    yield [], ""
    for v in VARIANTS[benchmark][1:]:
        yield ["--variant", v], "." + v


def g(*parts):
    return sorted(glob.glob(os.path.join(GOLDEN, *parts)))


for case in g("sasbench", "case_*"):
    c = os.path.basename(case)
    tax = os.path.join(case, "datasets", "error_type.jsonl")
    preds = g(os.path.basename(os.path.dirname(case)), c, "datasets_*", "*_prediction.jsonl")
    if preds:
        run(f"sasbench.{c}.pred", ["sasbench", "--taxonomy", tax, *preds])
    raws = g("sasbench", c, "datasets_*", "*_scored.jsonl")
    if raws:
        run(f"sasbench.{c}.raw", ["sasbench", "--dataset", os.path.join(case, "datasets"), *raws])
for case in g("eotgc", "*", ""):
    c = os.path.basename(case.rstrip("/"))
    if os.path.exists(os.path.join(case, "gold.json")):
        run(f"eotgc.{c}", ["eotgc", "--gold", os.path.join(case, "gold.json"), os.path.join(case, "pred.json")])
    if os.path.exists(os.path.join(case, "input.json")):
        run(f"eotgc.{c}.track2", ["eotgc", "--track2", os.path.join(case, "input.json")])
for case in g("msqa", "*", ""):
    c = os.path.basename(case.rstrip("/"))
    expected = json.load(open(os.path.join(case, "expected.json")))
    records = expected.get("evaluation_json")
    if isinstance(records, list):
        path = os.path.join(tmp, c, "evaluation.json")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        json.dump(records, open(path, "w"), ensure_ascii=False, indent=2)
        run(f"msqa.{c}", ["msqa", path])
for task, key, log in [("wet_experiment", "sgi-wet", "step2_input.json"),
                       ("deep_research", "sgi-deep-research", "step2_input.json"),
                       ("dry_experiment", "sgi-dry", "step4_input.json"),
                       ("idea_generation", "sgi-idea", "step2_input.json")]:
    for case in g("sgibench", task, "*", ""):
        c = os.path.basename(case.rstrip("/"))
        path = os.path.join(case, log)
        if os.path.exists(path):
            run(f"{key}.{c}", [key, path])
for case in g("asap_aes", "*", ""):
    c = os.path.basename(case.rstrip("/"))
    run(f"asap-aes.{c}", ["asap-aes", "--gold", os.path.join(case, "training_set_rel3.tsv"),
                          os.path.join(case, "predictions.csv")])
print(f"{runs} runs written to {OUT}")
