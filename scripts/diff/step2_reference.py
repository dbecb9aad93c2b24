"""SAS-Bench step 2 for one reply, re-created from ../shared/specs/sasbench.md (step 2).

`process(field, n_steps)` takes the second TAB field of a `_scored.jsonl` line (a JSON text) and
the gold record's step count, and returns {"pred_label": int, "pred_steps": [...]} or
{"error": "<ExceptionType>"} where the official `2_process_prediction.py` raises.
"""

import json
import re

import json_repair

LINE_COMMENT = re.compile(r"//.*$", flags=re.MULTILINE)
BLOCK_COMMENT = re.compile(r"/\*[\s\S]*?\*/")


def zero_steps(n):
    return [{"step_score": 0, "errors": []} for _ in range(n)]


def repaired_item(field, n_steps):
    text = str(json.loads(field))
    if "{'total'" in text and '{"total"' not in text:
        text = text.replace("'", '"')
    start = text.find('{"total"')
    if start < 0:
        return {"total": 0, "pred_score": 0, "steps": zero_steps(n_steps)}
    text = text[start:].replace("}```", "}")
    text = LINE_COMMENT.sub("", text)
    text = BLOCK_COMMENT.sub("", text)
    item = json_repair.loads(text)
    if isinstance(item, list):
        item = item[0]
    return item


def cleaned_text(field):
    """The text handed to json_repair.loads, or None when no `{"total"` is found."""
    text = str(json.loads(field))
    if "{'total'" in text and '{"total"' not in text:
        text = text.replace("'", '"')
    start = text.find('{"total"')
    if start < 0:
        return None
    text = text[start:].replace("}```", "}")
    return BLOCK_COMMENT.sub("", LINE_COMMENT.sub("", text))


def unwrap(field, n_steps):
    item = repaired_item(field, n_steps)
    # Membership tests and item assignment on a non-dict raise, as in the official code.
    if "steps" not in item or type(item["steps"]) is not list:
        item["steps"] = zero_steps(n_steps)
    if "pred_score" not in item:
        item["pred_score"] = 0
    steps = item["steps"]
    for k, step in enumerate(steps):
        if type(step) is not dict:
            steps[k] = {}
            step = steps[k]
        if "step_score" not in step:
            step["step_score"] = 0
        try:
            step["step_score"] = int(step["step_score"])
        except Exception:
            step["step_score"] = 0
        if "errors" not in step or type(step["errors"]) is not list:
            step["errors"] = []
    return item


def process(field, n_steps):
    try:
        item = unwrap(field, n_steps)
    except RecursionError:
        return {"error": "RecursionError"}
    except Exception as e:  # the official script stops here
        return {"error": type(e).__name__}
    try:
        pred_label = int(item["pred_score"])
    except Exception:
        pred_label = 0
    pred_steps = item["steps"][:n_steps]
    pred_steps += zero_steps(n_steps - len(pred_steps))
    return {"pred_label": pred_label, "pred_steps": pred_steps}
