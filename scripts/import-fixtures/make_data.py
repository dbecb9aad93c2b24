"""Writes the small local datasets the import fixtures are made from (no download)."""
import json
import sys
from pathlib import Path

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)

# 40 arithmetic questions with one integer answer each (Inspect, lm-eval generation, EvalScope QA).
qa = []
for i in range(40):
    a, b = 3 + (i * 7) % 23, 2 + (i * 11) % 17
    op = "+" if i % 2 == 0 else "*"
    qa.append({"id": f"q{i:02d}", "question": f"What is {a} {op} {b}?", "answer": str(a + b if op == "+" else a * b)})
(out / "arith.jsonl").write_text("".join(json.dumps(r) + "\n" for r in qa))

# 36 four-choice questions (lm-eval multiple choice, EvalScope MCQ), two subsets.
mcq = []
for i in range(36):
    a, b = 2 + (i * 5) % 19, 3 + (i * 13) % 11
    right = a + b
    choices = [right, right + 1, right - 2, right + 3]
    k = i % 4
    choices[0], choices[k] = choices[k], choices[0]
    mcq.append({"id": i, "subset": "easy" if i < 18 else "hard", "question": f"{a} + {b} = ?",
                "choices": [str(c) for c in choices], "answer": "ABCD"[k], "label": k})
(out / "mcq.jsonl").write_text("".join(json.dumps(r) + "\n" for r in mcq))
