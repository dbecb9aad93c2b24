"""A seeded generator of SAS-Bench model replies with every step-2 quirk of the spec.

`replies(n, seed)` yields (field, n_steps): `field` is the second TAB field of a `_scored.jsonl`
line (json.dumps of the decoded reply, usually a string), `n_steps` the gold record's steps.
Quirks, alone and combined: single/double/smart quotes, code fences, // and /* */ comments
(and URLs), <think> decoys holding their own {"total" ...}, lists, prose around the object,
trailing and missing commas, missing colons and quotes, truncation anywhere, concatenated
values, odd scalars (strings, floats, bools, None, NaN/Infinity, big and full-width numbers),
nesting, unicode (CJK, emoji, smart quotes, escapes), Python dict reprs.
"""

import json
import random

ERROR_NAMES = ["步骤正确", "计算错误", "概念错误", "单位错误", "公式错误", "漏写步骤", "答非所问",
               "unit error", "sign error", "it's wrong", 'say "no"', "a/b", "x//y", "100%"]
PROSE = ["Here is my grading:", "好的，我来评分。", "Sure!", "评分如下", "Answer:", "The result",
         "see http://example.com/x for details", "I think the total is 3.", "注意：不要给满分",
         "", " ", "\n", "Note: {braces} and [brackets] in prose", "step 1: ok, step 2: wrong",
         "“quoted” prose", "a 'single' quote", "emoji 🎉 here", "tab\there", "final}```"]
EXTRA_KEYS = ["analysis", "comment", "reason", "理由", "feedback", "confidence", "error_type"]


def odd_scalar(rng):
    choices = [
        lambda: rng.randint(0, 10), lambda: rng.randint(-3, 12), lambda: round(rng.uniform(-2, 10), rng.choice([1, 2, 3])),
        lambda: str(rng.randint(0, 10)), lambda: f"{rng.randint(0, 9)}.5", lambda: f"{rng.randint(0, 9)}.0",
        lambda: " 3 ", lambda: "３", lambda: "1_0", lambda: "abc", lambda: "", lambda: True, lambda: False,
        lambda: None, lambda: "NaN", lambda: "Infinity", lambda: 1e300, lambda: 10 ** 20, lambda: -(10 ** 19),
        lambda: 2 ** 63 - 1, lambda: 1e-7, lambda: 12345678901234567890123, lambda: [1], lambda: {"v": 2},
        lambda: "2分", lambda: "满分", lambda: -0.0, lambda: 5e15, lambda: 1.5e16,
    ]
    return rng.choice(choices)()


def score(rng):
    return rng.randint(0, 6) if rng.random() < 0.6 else odd_scalar(rng)


def text_value(rng):
    parts = [rng.choice(PROSE), rng.choice(ERROR_NAMES), "line\nbreak", 'has "quotes" inside', "back\\slash",
             "unicode \u4e2d\u6587", "smart “quotes”", "„low quote“", "colon: here", "comma, here", "brace } here",
             "bracket ] here", "a # hash", "{\"nested\": 1}", "ends with backslash \\", "\t", "¼ and ²", "İ"]
    return "".join(rng.choice(parts) for _ in range(rng.randint(1, 3)))


def step(rng):
    s = {}
    if rng.random() < 0.9:
        s["step_score"] = score(rng)
    if rng.random() < 0.85:
        k = rng.randint(0, 4)
        if rng.random() < 0.9:
            s["errors"] = [rng.choice(ERROR_NAMES) if rng.random() < 0.9 else odd_scalar(rng) for _ in range(k)]
        else:
            s["errors"] = rng.choice(["计算错误", None, 3, {"name": "x"}])
    for _ in range(rng.randint(0, 2) if rng.random() < 0.3 else 0):
        s[rng.choice(EXTRA_KEYS)] = text_value(rng) if rng.random() < 0.7 else odd_scalar(rng)
    if rng.random() < 0.05:
        s = rng.choice(["bad", 3, None, [1, 2], True])
    if rng.random() < 0.05 and isinstance(s, dict):
        s["sub"] = {"deep": [step(rng) if rng.random() < 0.3 else 1, {"x": [[], {}]}]}
    return s


def reply_object(rng):
    obj = {}
    keys = ["total", "pred_score", "steps"]
    if rng.random() < 0.1:
        rng.shuffle(keys)
        keys.remove("total")
        keys.insert(0, "total")  # "{"total"" must start the object to be found
    for k in keys:
        if k == "total":
            obj["total"] = rng.randint(1, 10) if rng.random() < 0.9 else odd_scalar(rng)
        elif k == "pred_score" and rng.random() < 0.92:
            obj["pred_score"] = score(rng)
        elif k == "steps" and rng.random() < 0.93:
            if rng.random() < 0.95:
                obj["steps"] = [step(rng) for _ in range(rng.randint(0, 6))]
            else:
                obj["steps"] = odd_scalar(rng)
    for _ in range(rng.randint(0, 2) if rng.random() < 0.3 else 0):
        obj[rng.choice(EXTRA_KEYS)] = text_value(rng)
    return obj


class Writer:
    """Serialises a value with random deviations from strict JSON."""

    def __init__(self, rng, style):
        self.rng = rng
        self.style = style

    def chance(self, name, default=0.0):
        return self.rng.random() < self.style.get(name, default)

    def sp(self):
        return self.rng.choice(["", " ", "\n", "\n  ", "\t"]) if self.chance("spaces") else ""

    def string(self, s, key=False):
        if key and self.chance("bare_keys"):
            return s
        if not key and self.chance("bare_values") and s and "," not in s:
            return s
        q = self.style.get("quote", '"')
        if q == "'":
            body = s.replace("\\", "\\\\").replace("'", "\\'") if self.chance("escape_quotes", 0.7) else s
            return "'" + body + "'"
        if q == "“":
            return "“" + s + "”"
        if self.chance("raw_strings"):
            return '"' + s + '"'  # unescaped quotes/newlines/backslashes
        body = json.dumps(s, ensure_ascii=self.chance("ascii"))[1:-1]
        return '"' + body + '"'

    def scalar(self, v):
        if v is True:
            return "True" if self.chance("python_literals") else "true"
        if v is False:
            return "False" if self.chance("python_literals") else "false"
        if v is None:
            return "None" if self.chance("python_literals") else "null"
        if isinstance(v, float):
            if self.chance("odd_numbers"):
                return self.rng.choice([repr(v), f"{v:.2f}", "NaN", "Infinity", "-Infinity", "1e999", "+1", ".5",
                                        "1.", "1e5", "0x1F", "1_000", "00", "-0", "1,5", "3/4", "1.2.3"])
            return json.dumps(v)
        if isinstance(v, int):
            return str(v)
        return self.string(v)

    def value(self, v):
        if isinstance(v, dict):
            items = []
            for k, x in v.items():
                colon = "" if self.chance("missing_colon") else ":"
                items.append(self.sp() + self.string(k, key=True) + self.sp() + colon + self.sp() + self.value(x))
                if self.chance("comments"):
                    items[-1] += self.rng.choice([" // note", "/* c */", " # hash comment\n", "//x\n"])
            return "{" + self.join(items) + self.sp() + "}"
        if isinstance(v, list):
            return "[" + self.join([self.sp() + self.value(x) for x in v]) + self.sp() + "]"
        return self.scalar(v)

    def join(self, items):
        out = ""
        for i, item in enumerate(items):
            if i > 0:
                out += "" if self.chance("missing_commas") else ","
            out += item
        if items and self.chance("trailing_commas"):
            out += ","
        return out


def random_style(rng):
    style = {}
    for name in ["spaces", "bare_keys", "bare_values", "escape_quotes", "raw_strings", "ascii", "python_literals",
                 "odd_numbers", "missing_colon", "comments", "missing_commas", "trailing_commas"]:
        if rng.random() < 0.25:
            style[name] = rng.choice([0.05, 0.2, 0.6, 1.0])
    style["quote"] = rng.choices(['"', "'", "“"], weights=[8, 2, 1])[0]
    return style


def wrap(rng, body):
    """Prose, fences, think blocks and other values around the reply object."""
    pieces = []
    if rng.random() < 0.3:
        decoy = json.dumps({"total": rng.randint(1, 9), "pred_score": rng.randint(0, 9), "steps": []})
        think = rng.choice(["<think>", "<think>\n"]) + rng.choice(PROSE) + (decoy if rng.random() < 0.5 else "")
        pieces.append(think + ("</think>" if rng.random() < 0.9 else ""))
    if rng.random() < 0.5:
        pieces.append(rng.choice(PROSE))
    fence = rng.random() < 0.4
    if fence:
        pieces.append(rng.choice(["```json\n", "```json", "```\n", "``` json\n", "```JSON\n"]))
    if rng.random() < 0.08:
        body = "[" + body + rng.choice(["]", "", ", {\"total\": 1}]"])
    pieces.append(body)
    if fence:
        pieces.append(rng.choice(["\n```", "```", "", "\n``` trailing"]))
    if rng.random() < 0.25:
        pieces.append(rng.choice(PROSE))
    if rng.random() < 0.15:
        other = rng.choice(['{"total": 5}', '{"other": 1}', '[1, 2]', '{"total":', '"str"', "3", "{}",
                            '{"total": 1, "pred_score": 1, "steps": []}'])
        pieces.append(rng.choice(["", "\n", " ", ","]) + other)
    sep = rng.choice(["", "\n", " ", "\n\n"])
    return sep.join(pieces)


def mutate(rng, text):
    r = rng.random()
    if r < 0.25 and text:
        return text[: rng.randint(0, len(text))]  # truncation anywhere
    if r < 0.32 and text:
        i = rng.randrange(len(text))
        return text[:i] + rng.choice(['"', "'", ",", "}", "]", "{", "[", ":", "\\", "\n", "“", "#", "/", "`"]) + text[i:]
    if r < 0.37 and text:
        i = rng.randrange(len(text))
        return text[:i] + text[i + 1:]
    return text


def reply_text(rng):
    style = random_style(rng)
    body = Writer(rng, style).value(reply_object(rng))
    text = mutate(rng, wrap(rng, body))
    if rng.random() < 0.2:  # the official step 1 strips spaces and newlines
        text = text.replace(" ", "").replace("\n", "")
    return text


def decoded_reply(rng):
    r = rng.random()
    if r < 0.04:
        return reply_object(rng)  # a JSON object: str() gives a Python dict repr ({'total': ...})
    if r < 0.05:
        return rng.choice([False, True, None, 3, 2.5, [reply_object(rng)], "false"])
    return reply_text(rng)


def replies(n, seed):
    rng = random.Random(seed)
    for _ in range(n):
        yield json.dumps(decoded_reply(rng), ensure_ascii=rng.random() < 0.5), rng.randint(0, 5)


if __name__ == "__main__":
    import sys

    for field, n in replies(int(sys.argv[1]), int(sys.argv[2])):
        print(n, field)
