#!/usr/bin/env python3
"""The official MSQA_Short toolkit's call pattern (ScienceOne-AI/ScienceEval run.py +
openai_server.py), re-created for the sampling check: the real `openai` client, a NEW client per
call (so a new connection each time), a thread pool of --workers taking the calls in
sample-major order (for sample in range(n): for question in dataset), up to 3 attempts 10 s
apart, the same body for every sample (model, messages, temperature) and no extra header.
Writes the replies as a JSON list in task order.

Usage: toolkit_pattern.py BASE_URL DATASET.json N WORKERS OUT.json"""
import json
import sys
import time
from multiprocessing.dummy import Pool as ThreadPool

from openai import OpenAI

SUFFIX = "\nYou must answer the question with YES or NO. Do not include other words."
base_url, dataset, n, workers, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rows = json.load(open(dataset, encoding="utf-8"))


def ask(question):
    for attempt in range(3):
        try:
            client = OpenAI(base_url=base_url, api_key="EMPTY", timeout=3600)
            completion = client.chat.completions.create(
                model="test-model",
                messages=[{"role": "user", "content": question + SUFFIX}],
                temperature=0.7,
            )
            return completion.model_dump()["choices"][0]["message"]["content"]
        except Exception:
            if attempt == 2:
                return None
            time.sleep(10)


pool = ThreadPool(processes=workers)
pending = [pool.apply_async(ask, (row["true_false_question"],)) for _ in range(n) for row in rows]
pool.close()
pool.join()
json.dump([p.get() for p in pending], open(out, "w"))
