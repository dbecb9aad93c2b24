# Stand-in for main/predictor/openai.py of the official SAS-Bench step 1 (used only by make.sh):
# records each prompt and answers with the golden raw reply of the record asked, re-spaced.
# Also makes the few-shot draw reproducible: random.choice picks bucket entry
# sha256(f"{seed}/{stem}/{k}") mod len, k = 0 low / 1 mid / 2 high (scorebench's rule).
import hashlib, json, os, random

_golden = {}
_stem = os.environ["STUB_STEM"]
with open(os.path.join(os.environ["STUB_GOLDEN"], _stem + "_scored.jsonl"), encoding="utf-8") as f:
    for line in f:
        rid, content = line.rstrip("\n").split("\t", 1)
        _golden[rid] = json.loads(content)


def _bucket(item):
    share = float(item["manual_label"]) / float(item["total"])
    return 0 if share < 0.333 else 1 if share < 0.667 else 2


def _choice(seq):
    k = _bucket(seq[0])
    digest = hashlib.sha256(f'{os.environ["STUB_SEED"]}/{_stem}/{k}'.encode()).digest()
    return seq[int.from_bytes(digest[:8], "big") % len(seq)]


random.choice = _choice


class Predictor:
    def __init__(self, *args, **kwargs):
        with open(os.path.join(os.environ["STUB_GOLDEN"], "..", "datasets", _stem + ".jsonl"), encoding="utf-8") as f:
            self.ids = [json.loads(l)["id"] for l in f]
        self.n = 0

    def __call__(self, query, history=None, model="gpt-4o-mini", **kwargs):
        rid = self.ids[self.n]
        self.n += 1
        reply = _golden.get(rid)
        if not isinstance(reply, str):
            reply = "no total here"
        reply = reply.replace(",", ", ").replace(":", ": ").replace("{", "{\n  ")
        with open(os.environ["STUB_CALLS"], "a", encoding="utf-8") as f:
            f.write(json.dumps({"prompt": query, "reply": reply}, ensure_ascii=False) + "\n")
        return reply, []
