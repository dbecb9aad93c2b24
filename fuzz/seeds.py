"""Write the seed corpus (fuzz/corpus/<target>/<sha1>) from the golden files in tests/golden,
the json_repair regression cases and a few hand-made inputs. Inputs of several files are the
files joined with NUL bytes (see targets/metrics_core.rs). Run from anywhere; idempotent.
Files larger than 64 KiB are skipped (the fuzzer mutates small inputs best)."""

import hashlib
import json
import struct
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
CORPUS = ROOT / "fuzz" / "corpus"
LIMIT = 64 * 1024


def put(target, *parts):
    data = b"\0".join(p if isinstance(p, bytes) else p.encode() for p in parts)
    if len(data) > LIMIT:
        return
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def read(p):
    return p.read_bytes()


def sasbench():
    for case in sorted((GOLDEN / "sasbench").glob("case_*")):
        taxonomy = case / "datasets" / "error_type.jsonl"
        tax = read(taxonomy) if taxonomy.exists() else b""
        for pred in sorted((case / "datasets_GoldenModel_Scored").glob("*_prediction.jsonl")):
            put("sasbench_predictions", tax, read(pred))
        for scored in sorted((case / "datasets_GoldenModel_Scored").glob("*_scored.jsonl")):
            dataset = case / "datasets" / scored.name.replace("_scored.jsonl", ".jsonl")
            if dataset.exists():
                put("sasbench_raw", tax, read(dataset), read(scored))
            for line in read(scored).decode().splitlines()[:3]:
                if "\t" in line:
                    put("lenient_json", str(json.loads(line.split("\t", 1)[1])))
    cases = ROOT / "metrics-core" / "tests" / "data" / "json_repair_cases.jsonl"
    for line in cases.read_text(encoding="utf-8").splitlines()[::4]:
        put("lenient_json", json.loads(line)["text"])


def eotgc():
    for case in sorted((GOLDEN / "eotgc").glob("eotgc_*")):
        gold, pred, inp = case / "gold.json", case / "pred.json", case / "input.json"
        if gold.exists() and pred.exists():
            put("eotgc", read(gold), read(pred))
        if inp.exists():
            put("eotgc", b"", b"", read(inp), read(inp))


def msqa():
    for case in sorted((GOLDEN / "msqa").glob("msqa_*")):
        expected = json.loads(read(case / "expected.json"))
        if "evaluation_json" in expected:
            put("msqa", json.dumps(expected["evaluation_json"], ensure_ascii=False))


def sgibench():
    for f in sorted((GOLDEN / "sgibench").glob("*/*/*.json")):
        if f.name.startswith(("step", "input", "mock_judge", "mock_llm")):
            put("sgibench", read(f))


def imports():
    """Logs of other tools (tests/imports/, made by the tools): lm-eval results \0 samples,
    EvalScope report \0 reviews (both cut to a few records), a small Inspect JSON log with a bare
    NaN, and the same log as a deflate ZIP archive (the .eval layout of older Inspect versions)."""
    import io
    import zipfile
    imp = ROOT / "tests" / "imports"
    for run in sorted((imp / "lm-eval").glob("dummy-*")):
        results = next(run.glob("results_*.json"))
        samples = sorted(run.glob("samples_*.jsonl"))[0]
        put("imports", read(results), b"".join(read(samples).splitlines(True)[:4]))
    for model in sorted((imp / "evalscope").glob("model-*")):
        report = next(model.glob("reports/*/*.json"))
        reviews = sorted(model.glob("reviews/*/*.jsonl"))[0]
        put("imports", read(report), b"".join(read(reviews).splitlines(True)[:3]))
    header = {"status": "success", "eval": {"task": "t", "model": "m"},
              "results": {"scores": [{"name": "s", "scored_samples": 1, "metrics": {
                  "accuracy": {"name": "accuracy", "value": 0.5, "params": {}},
                  "stderr": {"name": "stderr", "value": float("nan"), "params": {}}}}]}}
    samples = [{"id": i, "epoch": 1, "input": "q", "target": "a",
                "scores": {"s": {"value": v, "answer": "a"}}} for i, v in [(1, "C"), (2, float("nan"))]]
    reductions = [{"scorer": "s", "samples": [{"value": 1.0, "sample_id": 1},
                                              {"value": float("nan"), "sample_id": 2}]}]
    put("imports", json.dumps({**header, "samples": samples, "reductions": reductions}))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", json.dumps(header))
        z.writestr("summaries.json", json.dumps(samples))
        z.writestr("reductions.json", json.dumps(reductions))
    put("imports", buf.getvalue())


def small():
    put("pairs", "gold,pred\n0,0\n1,2\n2,2\n3,2\n")
    put("pairs", '{"gold": 1, "pred": "2"}\n{"gold": 3.5, "pred": 1e300}\n\n{"gold": -0.0, "pred": 0}\n')
    put("pairs", "\ufeffid,pred,gold\nx,2,1\ny,0.5,3\n")
    for xs in ([1.0, 2.0, 3.0, 4.0], [1e300, -1e-300, 5e-324, 0.0], [2.0, 2.0, 2.0, 2.0]):
        put("stats", b"".join(struct.pack("<dd", a, b) for a, b in zip(xs, reversed(xs))))
    for s in [" 3\n", "1_0", "\u0663", "-9223372036854775809", '{"a": [1, 2.5, NaN, "x\\ud83c"]}', "\u200b'\""]:
        put("python", s)
    put("config_toml", '[[upstream]]\nname = "local"\nbase_url = "http://127.0.0.1:9/v1"\n'
                       'api_key_env = "KEY"\nmodels = ["m"]\nmax_concurrency = 4\nretries = 2\n')
    put("config_toml", '[[upstream]]\nname = "a"\nmodels = []\n[[upstream]]\nname = "a"\n')
    put("http_bodies", json.dumps({"benchmark": "msqa", "model": "m", "dataset": [
        {"question": "Q?", "answer": "YES", "type": "yes_no"}]}))
    put("http_bodies", json.dumps({"benchmark": "eotgc", "track": 1, "model": "m", "dataset": [
        {"id": "1", "grade": "3", "requirement": "r", "title": "t", "content": "c"}], "workers": 0}))


if __name__ == "__main__":
    sasbench()
    eotgc()
    msqa()
    sgibench()
    small()
    imports()
    for d in sorted(CORPUS.iterdir()):
        print(d.name, len(list(d.iterdir())))
