"""Throw broken files at `scorebench score <benchmark> …` and count what happens.

For every benchmark and every file argument it takes, the argument is replaced by broken
variants of a valid file (empty, truncated, wrong JSON types, NaN/Infinity literals, UTF-16,
BOMs, CRLF, invalid UTF-8, binary, deep nesting, a directory, a missing path, a 2 GB sparse
file, /dev/null, and every other benchmark's valid file) while the other arguments stay
valid. Each run is classified:

  clean error   exit 2, stderr names the file (`file:line: …` or `file: …`), no panic
  accepted      exit 0 (the input still scores, e.g. a BOM or CRLF file)
  panic         exit 101 or "panicked" on stderr
  timeout       longer than the time limit
  other         anything else (exit 1, or an error that does not name the file)

usage: bad_input.py SCOREBENCH_BINARY GOLDEN_DIR WORK_DIR [--timeout S] [--verbose]
Exits 1 when there is a panic, a timeout or an `other`.
"""

import argparse
import json
import resource
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path


def variants(valid: bytes):
    """(name, bytes) broken versions of a valid file."""
    text = valid.decode("utf-8", "replace")
    out = [
        ("empty", b""),
        ("blank-lines", b"\n \n\t\n"),
        ("truncated-half", valid[: len(valid) // 2]),
        ("truncated-last-byte", valid[:-1]),
        ("utf8-bom", b"\xef\xbb\xbf" + valid),
        ("utf16-le-bom", b"\xff\xfe" + text.encode("utf-16-le")),
        ("utf16-be-bom", b"\xfe\xff" + text.encode("utf-16-be")),
        ("crlf", valid.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")),
        ("invalid-utf8", valid[: len(valid) // 3] + b"\xff\xc3(" + valid[len(valid) // 3:]),
        ("binary", bytes(range(256)) * 16),
        ("nul-bytes", valid.replace(b",", b",\0", 3)),
        ("json-null", b"null"),
        ("json-empty-object", b"{}"),
        ("json-empty-array", b"[]"),
        ("json-string", b'"just a string"'),
        ("json-array-of-numbers", b"[1, 2, 3]"),
        ("json-array-of-empty-objects", b"[{}, {}]"),
        ("jsonl-empty-objects", b"{}\n{}\n"),
        ("deep-nesting-array", b"[" * 200_000),
        ("deep-nesting-object", b'{"a":' * 100_000),
        ("long-line", b'"' + b"x" * 20_000_000 + b'"'),
    ]
    # Wrong types: numbers become strings/objects, strings become numbers.
    out.append(("numbers-as-strings", re.sub(rb"(?<=: )(-?\d+(\.\d+)?)", rb'"\1x"', valid)))
    out.append(("numbers-as-objects", re.sub(rb"(?<=:)\s*(-?\d+(\.\d+)?)", rb'{"v": \1}', valid)))
    out.append(("strings-as-numbers", re.sub(rb'(?<=: )"[^"\\]*"', b"7", valid)))
    out.append(("lists-as-strings", re.sub(rb"\[\]", b'"[]"', valid)))
    for literal in (b"NaN", b"Infinity", b"-Infinity", b"1e999"):
        out.append((f"numbers-{literal.decode()}", re.sub(rb"(?<=[:\[,] )-?\d+(\.\d+)?|(?<=[:\[,])-?\d+(\.\d+)?", literal, valid)))
    return [(n, b) for n, b in out if n in ("empty",) or b != valid]


def spec_variants(valid: bytes):
    """(name, bytes) specs that parse as TOML but break the spec's rules, or its TOML."""
    text = valid.decode()
    edits = [
        ("unknown-key", "how = \"mean\"", "how = \"mean\"\nhwo = 1"),
        ("unknown-metric", "metric = \"qwk\"", "metric = \"qwkk\""),
        ("wrong-type", "decimals = 3", "decimals = \"three\""),
        ("negative-decimals", "decimals = 3", "decimals = -3"),
        ("bad-key", "key = \"asap-aes-spec\"", "key = \"ASAP AES\""),
        ("duplicate-metric", "key = \"mean_qwk\"", "key = \"qwk\""),
        ("aggregate-of-nothing", "of = \"qwk\"", "of = \"kappa\""),
        ("labels-on-kaggle", "formula = \"kaggle\"", "formula = \"kaggle\"\nlabels = [1, 2]"),
        ("range-backwards", "clip = true", "clip = true\nrange = [5, 1]"),
        ("primary-unknown", "primary = \"mean_qwk_fisher\"", "primary = \"f1\""),
        ("no-pred-role", "pred = \"predicted_score\"", ""),
        ("two-gold-roles", "pred = \"predicted_score\"", "pred = \"predicted_score\"\ngold = \"x\""),
        ("json-latin1", "format = \"tsv\"", "format = \"jsonl\""),
        ("no-metrics", "[[metrics]]", "[[nometrics]]"),
        ("duplicate-table", "[values]", "[values]\ngold = \"integer\"\n[values]"),
        ("huge-range", "ranges = {", "range = [-9223372036854775808, 9223372036854775807]\nranges = {"),
        ("deep-inline", "[display]", "x = " + "[" * 5000 + "]" * 5000 + "\n[display]"),
        ("weight-on-qwk", "pred = \"predicted_score\"", "pred = \"predicted_score\"\nweight = \"w\""),
        ("weight-empty", "pred = \"predicted_score\"", "pred = \"predicted_score\"\nweight = \"\""),
    ]
    out = []
    for name, old, new in edits:
        assert old in text, (name, old)
        out.append(("spec-" + name, text.replace(old, new, 1).encode()))
    return out


def names_file(stderr: str, path: str) -> bool:
    first = stderr.strip().splitlines()[0] if stderr.strip() else ""
    return first.startswith(path) or first.startswith("error: " + path) or Path(path).name in first


def run(cmd, timeout):
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return None, "", time.monotonic() - start, 0
    return proc.returncode, err.decode("utf-8", "replace"), time.monotonic() - start, 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("golden", type=Path)
    ap.add_argument("work", type=Path)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    g = args.golden
    work = args.work
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)

    # Valid inputs of every benchmark.
    sas = g / "sasbench" / "case_01"
    valid = {
        "pairs": b"gold,pred\n0,0\n1,2\n2,2\n3,2\n",
        "sasbench-taxonomy": (sas / "datasets" / "error_type.jsonl").read_bytes(),
        "sasbench-gold": (sas / "datasets" / "7_Math_ShortAns.jsonl").read_bytes(),
        "sasbench-prediction": (sas / "datasets_GoldenModel_Scored" / "7_Math_ShortAns_prediction.jsonl").read_bytes(),
        "sasbench-scored": (sas / "datasets_GoldenModel_Scored" / "7_Math_ShortAns_scored.jsonl").read_bytes(),
        "eotgc-gold": (g / "eotgc" / "eotgc_01_perfect_chinese_labels" / "gold.json").read_bytes(),
        "eotgc-pred": (g / "eotgc" / "eotgc_01_perfect_chinese_labels" / "pred.json").read_bytes(),
        "eotgc-track2": (g / "eotgc" / "eotgc_12_track2_and_total" / "input.json").read_bytes(),
        "eotgc-comments": json.dumps([{"id": "1", "comment": "好"}], ensure_ascii=False).encode(),
        "msqa": json.dumps(json.loads((g / "msqa" / "msqa_01_basic_yes_no" / "expected.json").read_bytes())["evaluation_json"], ensure_ascii=False).encode(),
        "sgi-wet": (g / "sgibench" / "wet_experiment" / "wet_01_identical" / "step2_input.json").read_bytes(),
        "sgi-dry": (g / "sgibench" / "dry_experiment" / "dry_02_judge_decides_non_exact" / "step4_input.json").read_bytes(),
        "sgi-deep-research": (g / "sgibench" / "deep_research" / "dr_01_basic_exact_match" / "step2_input.json").read_bytes(),
        "sgi-idea": (g / "sgibench" / "idea_generation" / "idea_01_json_full_win" / "step2_input.json").read_bytes(),
    }
    # Logs of other tools (tests/imports/, made by the tools themselves).
    imp = g.parent / "imports"
    lm = sorted((imp / "lm-eval" / "dummy-a").glob("*.json*"))
    es = imp / "evalscope" / "model-a"
    valid["lm-eval-results"] = next(p for p in lm if p.name.startswith("results_")).read_bytes()
    valid["lm-eval-samples"] = next(p for p in lm if p.name.startswith("samples_")).read_bytes()
    valid["inspect-eval"] = (imp / "inspect" / "model-a.eval").read_bytes()
    valid["inspect-json"] = (imp / "inspect" / "model-a.json").read_bytes()
    valid["evalscope-report"] = (es / "reports" / "model-a" / "general_mcq.json").read_bytes()
    valid["evalscope-reviews"] = (es / "reviews" / "model-a" / "general_mcq_easy.jsonl").read_bytes()
    asap = g / "asap_aes" / "asap_01_basic"
    valid["spec-asap"] = Path("specs/examples/asap-aes.toml").read_bytes()
    valid["spec-pairs"] = Path("specs/examples/pairs.toml").read_bytes()
    valid["asap-gold"] = (asap / "training_set_rel3.tsv").read_bytes()
    valid["asap-pred"] = (asap / "predictions.csv").read_bytes()
    files = {}
    for key, data in valid.items():
        d = work / "valid" / key
        d.mkdir(parents=True)
        name = {"sasbench-taxonomy": "error_type.jsonl", "sasbench-gold": "7_Math_ShortAns.jsonl",
                "sasbench-prediction": "7_Math_ShortAns_prediction.jsonl",
                "sasbench-scored": "7_Math_ShortAns_scored.jsonl",
                "lm-eval-results": "results_2026-01-01T00-00-00.000000.json",
                "lm-eval-samples": "samples_t_2026-01-01T00-00-00.000000.jsonl",
                "inspect-eval": "log.eval", "evalscope-report": "general_mcq.json",
                "evalscope-reviews": "general_mcq_easy.jsonl", "spec-asap": "asap-aes.toml",
                "spec-pairs": "pairs.toml", "asap-gold": "training_set_rel3.tsv",
                "asap-pred": "predictions.csv"}.get(key, key + (".csv" if key == "pairs" else ".json"))
        files[key] = d / name
        files[key].write_bytes(data)
    dataset_dir = work / "valid" / "dataset"
    dataset_dir.mkdir()
    shutil.copy(files["sasbench-taxonomy"], dataset_dir)
    shutil.copy(files["sasbench-gold"], dataset_dir)

    # (benchmark, slot, argv with "@" for the broken file; "@DIR" for a dataset dir whose gold
    # file is the broken one).
    cases = [
        ("pairs", "pairs", ["pairs", "@"]),
        ("sasbench", "prediction", ["sasbench", "--taxonomy", str(files["sasbench-taxonomy"]), "@"]),
        ("sasbench", "taxonomy", ["sasbench", "--taxonomy", "@", str(files["sasbench-prediction"])]),
        ("sasbench", "scored", ["sasbench", "--dataset", str(dataset_dir), "@"]),
        ("sasbench", "dataset-gold", ["sasbench", "--dataset", "@DIR", str(files["sasbench-scored"])]),
        ("eotgc", "gold", ["eotgc", "--gold", "@", str(files["eotgc-pred"])]),
        ("eotgc", "pred", ["eotgc", "--gold", str(files["eotgc-gold"]), "@"]),
        ("eotgc", "track2", ["eotgc", "--track2", "@"]),
        ("eotgc", "comments", ["eotgc", "--comments", "@"]),
        ("msqa", "evaluation", ["msqa", "@"]),
        ("sgi-wet", "log", ["sgi-wet", "@"]),
        ("sgi-dry", "log", ["sgi-dry", "@"]),
        ("sgi-dry", "judge-replies", ["sgi-dry", str(files["sgi-dry"]), "--judge-replies", "@"]),
        ("sgi-deep-research", "log", ["sgi-deep-research", "@"]),
        ("sgi-idea", "log", ["sgi-idea", "@"]),
        ("sgi-idea", "embeddings", ["sgi-idea", str(files["sgi-idea"]), "--embeddings", "@"]),
        ("lm-eval", "lm-eval-results", ["lm-eval", "@", str(files["lm-eval-samples"])]),
        ("lm-eval", "lm-eval-samples", ["lm-eval", str(files["lm-eval-results"]), "@"]),
        ("inspect", "inspect-eval", ["inspect", "@"]),
        ("inspect", "inspect-json", ["inspect", "@"]),
        ("evalscope", "evalscope-report", ["evalscope", "@", str(files["evalscope-reviews"])]),
        ("evalscope", "evalscope-reviews", ["evalscope", str(files["evalscope-report"]), "@"]),
        ("asap-aes", "asap-gold", ["asap-aes", "--gold", "@", str(files["asap-pred"])]),
        ("asap-aes", "asap-pred", ["asap-aes", "--gold", str(files["asap-gold"]), "@"]),
        ("spec", "spec-asap", ["--spec", "@", str(files["asap-gold"]), str(files["asap-pred"])]),
        ("spec", "asap-gold", ["--spec", str(files["spec-asap"]), "@", str(files["asap-pred"])]),
        ("spec", "asap-pred", ["--spec", str(files["spec-asap"]), str(files["asap-gold"]), "@"]),
        ("spec", "pairs", ["--spec", str(files["spec-pairs"]), "@"]),
    ]
    slot_valid = {"pairs": "pairs", "prediction": "sasbench-prediction", "taxonomy": "sasbench-taxonomy",
                  "scored": "sasbench-scored", "dataset-gold": "sasbench-gold", "gold": "eotgc-gold",
                  "pred": "eotgc-pred", "track2": "eotgc-track2", "comments": "eotgc-comments",
                  "evaluation": "msqa", "judge-replies": "sgi-dry", "embeddings": "sgi-idea",
                  **{k: k for k in ["lm-eval-results", "lm-eval-samples", "inspect-eval", "inspect-json",
                                    "evalscope-report", "evalscope-reviews", "spec-asap",
                                    "asap-gold", "asap-pred"]}}

    sparse = work / "sparse-2GB.json"
    with open(sparse, "wb") as f:
        f.truncate(2 * 1024 ** 3)
    special = [("directory", work / "valid"), ("missing", work / "no-such-file.json"),
               ("sparse-2GB", sparse), ("dev-null", Path("/dev/null"))]

    counts = {"clean error": 0, "accepted": 0, "panic": 0, "timeout": 0, "other": 0}
    problems = []
    slowest = (0.0, "")
    tries = 0
    for bench, slot, template in cases:
        key = slot_valid.get(slot, bench)
        base = files[key].name
        trials = []
        extra = spec_variants(valid[key]) if key == "spec-asap" else []
        for vname, data in variants(valid[key]) + extra:
            p = work / "broken" / bench / slot / vname / base
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
            trials.append((vname, p))
        for other, path in files.items():
            if other != key:
                p = work / "broken" / bench / slot / ("other-" + other) / base
                p.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(path, p)
                trials.append(("other-" + other, p))
        trials += special
        for vname, path in trials:
            argv = []
            for a in template:
                if a == "@DIR":
                    d = work / "dirs" / bench / slot / vname
                    d.mkdir(parents=True, exist_ok=True)
                    shutil.copy(files["sasbench-taxonomy"], d)
                    target = d / "7_Math_ShortAns.jsonl"
                    if path.is_dir() or not path.exists() or path == sparse or str(path) == "/dev/null":
                        if target.exists() or target.is_symlink():
                            target.unlink()
                        target.symlink_to(path)
                    else:
                        shutil.copy(path, target)
                    shown = str(target)
                    argv.append(str(d))
                elif a == "@":
                    shown = str(path)
                    argv.append(str(path))
                else:
                    argv.append(a)
            cmd = [args.binary, "score", *argv, "--json"]
            rc, err, seconds, _ = run(cmd, args.timeout)
            tries += 1
            if seconds > slowest[0]:
                slowest = (seconds, f"{bench} {slot} {vname}")
            if rc is None:
                kind = "timeout"
            elif rc == 101 or "panicked" in err:
                kind = "panic"
            elif rc == 0:
                kind = "accepted"
            elif rc == 2 and names_file(err, shown):
                kind = "clean error"
            else:
                kind = "other"
            counts[kind] += 1
            line = f"{kind:12} {bench} {slot} {vname}: rc={rc} {err.strip().splitlines()[0][:160] if err.strip() else ''}"
            if kind in ("panic", "timeout", "other"):
                problems.append(line)
            if args.verbose:
                print(line)
    for p in problems:
        print(p)
    summary = ", ".join(f"{k}: {v}" for k, v in counts.items())
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"tries: {tries}; {summary}; slowest: {slowest[0]:.1f} s ({slowest[1]}); "
          f"peak RSS of a run: {peak_mb:.0f} MB")
    shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
