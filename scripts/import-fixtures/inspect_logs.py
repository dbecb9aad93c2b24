"""Inspect AI logs for the import fixtures: a local task run by Inspect itself against its
`mockllm` provider, whose replies come from a deterministic function (two "models").

Usage: python inspect_logs.py DATA_DIR OUT_DIR   (inside a venv with inspect-ai)
"""
import json
import math
import re
import sys
from collections import Counter
from pathlib import Path

from inspect_ai import Task, eval as inspect_eval, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import Score, Target, includes, match, mean, scorer, stderr
from inspect_ai.solver import TaskState, generate

data_dir, out_dir = Path(sys.argv[1]), Path(sys.argv[2])
rows = [json.loads(l) for l in (data_dir / "arith.jsonl").read_text().splitlines()]
by_question = {r["question"]: (int(r["id"][1:]), r["answer"]) for r in rows}


def replies(model: str):
    """The mock model: right or wrong by item number, model and epoch (the k-th call of a question)."""
    calls: Counter = Counter()

    def reply(messages, tools, tool_choice, config):
        question = messages[-1].text
        i, answer = by_question[question]
        epoch = calls[question]
        calls[question] += 1
        if model == "model-a":
            wrong = i % 5 == 0 or (epoch == 1 and i % 7 == 3)
        else:
            wrong = i % 3 == 0 or (epoch == 1 and i % 4 == 1)
        if i % 9 == 4:
            text = "No idea."  # no number at all
        elif wrong and i % 2 == 0:
            text = f"It is {answer}, or rather {int(answer) + 1}"  # includes() yes, match() no
        elif wrong:
            text = f"The answer is {int(answer) - 1}"
        else:
            text = f"The answer is {answer}"
        output = ModelOutput.from_content(model=model, content=text)
        # Usage given, so Inspect does not count tokens with tiktoken (which downloads its tables).
        n_in, n_out = len(question.split()), len(text.split())
        output.usage = ModelUsage(input_tokens=n_in, output_tokens=n_out, total_tokens=n_in + n_out)
        return output

    return reply


@scorer(metrics=[mean(), stderr()])
def abs_error():
    """|number in the reply − target|; NaN when the reply has no number (a real NaN in the log)."""

    async def score(state: TaskState, target: Target) -> Score:
        found = re.findall(r"-?\d+", state.output.completion)
        value = abs(int(found[-1]) - int(target.text)) if found else math.nan
        return Score(value=value, answer=found[-1] if found else None)

    return score


@task
def arith(items: int, epochs: int):
    return Task(
        dataset=MemoryDataset(
            [Sample(id=r["id"], input=r["question"], target=r["answer"]) for r in rows[:items]],
            name="arith",
        ),
        solver=generate(),
        scorer=[match(numeric=True), includes(), abs_error()],
        epochs=epochs,
    )


# Every sample carries its transcript (~8 KB): the `.json` logs (not compressed) are kept short.
SIZES = {"eval": (16, 2), "json": (6, 1)}
# Both models as `.eval` (the default format); model A also as `.json` (NaN written as `NaN`).
for model, fmt in [("model-a", "eval"), ("model-b", "eval"), ("model-a", "json")]:
    if True:
        logs = inspect_eval(
            arith(*SIZES[fmt]),
            model=get_model(f"mockllm/{model}", custom_outputs=replies(model)),
            log_dir=str(out_dir / "raw"),
            log_format=fmt,
            display="none",
        )
        log = logs[0]
        src = Path(log.location)
        dst = out_dir / f"{model}.{fmt}"
        src.rename(dst)
        (out_dir / "raw").rmdir()
        printed = {
            s.name: {m.name: m.value for m in s.metrics.values()} for s in log.results.scores
        }
        print(json.dumps({"file": dst.name, "status": log.status, "scores": printed}))
