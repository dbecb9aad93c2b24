"""Differential test of scorebench's SAS-Bench step 2 against the official logic run on the real
json_repair: generated replies (gen_replies.py) go through step2_reference.py and through the
Rust harness (metrics-core example `step2_diff`), reply by reply.

usage: diff_json_repair.py HARNESS N SEED [--show K] [--cases FILE]
Prints the number of replies compared and every mismatch (up to K), exits 1 on any mismatch.
--cases FILE appends the mismatching json_repair inputs to FILE as regression cases.
"""

import argparse
import json
import math
import subprocess
import sys

import json_repair

import gen_replies
import step2_reference

INT64 = (-(2 ** 63), 2 ** 63 - 1)


def lossy(value):
    """What scorebench's serde_json values keep of a Python value (NaN/inf → None, ints beyond
    64 bits → float); documented in step2::Step2Output."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value if INT64[0] <= value <= INT64[1] else float(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, list):
        return [lossy(v) for v in value]
    return {k: lossy(v) for k, v in value.items()}


def no_surrogates(text):
    """A lone surrogate becomes U+FFFD in Rust strings."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace") if text else text


def dumps(value):
    return no_surrogates(json.dumps(value, ensure_ascii=False))


def out_of_range(result):
    """Python kept an int that an i64 cannot hold: scorebench reports an error instead."""
    if "error" in result:
        return False
    if not INT64[0] <= result["pred_label"] <= INT64[1]:
        return True
    return any(type(s) is dict and not INT64[0] <= s["step_score"] <= INT64[1] for s in result["pred_steps"])


def expected_predict(result):
    return {
        "label": result["pred_label"],
        "step_scores": [s["step_score"] for s in result["pred_steps"]],
        "errors": [no_surrogates(str(e)) for s in result["pred_steps"] for e in s["errors"]],
    }


def compare(field, n, py, rust):
    """Mismatch descriptions for one reply (empty when equal)."""
    problems = []
    if "field_error" in rust:
        return [f"the field is not JSON for serde_json: {rust['field_error']}"]
    if "error" in py or out_of_range(py):
        for path in ("process", "predict"):
            if "error" not in rust[path]:
                problems.append(f"{path}: Python raises {py.get('error', 'nothing (int beyond 64 bits)')}, Rust gives {rust[path]}")
        return problems
    proc = rust["process"]
    if "error" in proc:
        problems.append(f"process: Rust error {proc['error']!r}, Python {py['pred_label']} {dumps(py['pred_steps'])}")
    else:
        if proc["pred_label"] != py["pred_label"]:
            problems.append(f"process: pred_label Rust {proc['pred_label']} Python {py['pred_label']}")
        if proc["pred_steps"] != dumps(lossy(py["pred_steps"])):
            problems.append(f"process: pred_steps\n    Rust   {proc['pred_steps']}\n    Python {dumps(lossy(py['pred_steps']))}")
    pred = rust["predict"]
    want = expected_predict(py)
    if pred != want:
        problems.append(f"predict: Rust {pred}\n    Python {want}")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("harness")
    ap.add_argument("n", type=int)
    ap.add_argument("seed", type=int)
    ap.add_argument("--show", type=int, default=20)
    ap.add_argument("--cases")
    args = ap.parse_args()

    replies = list(gen_replies.replies(args.n, args.seed))
    requests = []
    for field, n in replies:
        requests.append({"op": "step2", "field": field, "n": n})
        text = step2_reference.cleaned_text(field)
        if text is not None:
            requests.append({"op": "loads", "text": text})
    payload = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in requests)
    run = subprocess.run([args.harness], input=payload.encode(), capture_output=True, check=False)
    if run.returncode != 0:
        sys.exit(f"harness failed ({run.returncode}): {run.stderr.decode()[-2000:]}")
    answers = [json.loads(line) for line in run.stdout.decode().splitlines()]
    if len(answers) != len(requests):
        sys.exit(f"harness answered {len(answers)} of {len(requests)} requests")

    mismatches = []
    loads_compared = loads_mismatches = 0
    new_cases = []
    for request, answer in zip(requests, answers):
        if request["op"] == "loads":
            loads_compared += 1
            try:
                want = {"value": dumps(json_repair.loads(request["text"]))}
            except Exception as e:  # noqa: BLE001 - the official step 2 stops on any
                want = {"error": type(e).__name__}
            if ("error" in want) != ("error" in answer) or want.get("value") != answer.get("value"):
                loads_mismatches += 1
                new_cases.append({"text": request["text"], "loads": want.get("value")})
                mismatches.append(f"json_repair.loads({request['text']!r})\n    Python {want}\n    Rust   {answer}")
            continue
        py = step2_reference.process(request["field"], request["n"])
        for problem in compare(request["field"], request["n"], py, answer):
            mismatches.append(f"reply {request['field']} (n={request['n']})\n    {problem}")

    for m in mismatches[: args.show]:
        print(m)
    print(f"replies compared: {len(replies)}; json_repair.loads calls compared: {loads_compared}; "
          f"mismatches: {len(mismatches)} ({loads_mismatches} in json_repair.loads)")
    if args.cases and new_cases:
        with open(args.cases, "a", encoding="utf-8") as f:
            for case in new_cases:
                f.write(json.dumps(case, ensure_ascii=False) + "\n")
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
