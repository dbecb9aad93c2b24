#!/usr/bin/env python3
"""Write ~SIZE_MB-megabyte inputs of every benchmark into OUT (for scripts/bench-memory.sh):

  eotgc/gold.json + pred.json     Track 1 (the gold file carries the essays: the big one)
  msqa/evaluation.json            toolkit evaluation.json (long generations)
  msqa/inference.json             the paper authors' inference file (--variant paper)
  pairs/pairs.jsonl               gold/pred JSONL (22-byte lines: as many pairs as fit)
  pairs/pairs_wide.jsonl          gold/pred JSONL with a ~1 KB text field per record
  asap-aes/gold.tsv + pred.csv    ASAP-AES training_set_rel3.tsv layout + predictions
  sasbench/datasets/ + pred/      one SAS-Bench subject: dataset and its *_prediction.jsonl
  sasbench/raw/                   one subject's gold dataset + raw *_scored.jsonl (--dataset)
  eotgc/track2.json, comments.json  Track 2 inputs (numbers) and a Track 2 submission
  sgi-deep-research/log.json      SGI-Bench deep-research step-2 log
  sgi-{wet,dry,idea,reasoning}/log.json  the other SGI-Bench logs (golden records repeated)
  sgi-score/input.json + logs/    SGI-Score's input: five scored logs in one object, and as files

Records are synthetic but shaped like the golden cases; text fields are padded so the record
count stays realistic. Usage: [STEPS="pairs msqa …"] gen-big-inputs.py OUT [SIZE_MB]"""
import json, os, random, sys

if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
    sys.exit(__doc__)
OUT = sys.argv[1]
SIZE = int(float(sys.argv[2] if len(sys.argv) > 2 else os.environ.get("SIZE_MB", "300")) * 1e6)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.environ.get("GOLDEN", os.path.join(ROOT, "..", "shared", "golden"))
rng = random.Random(7)
WORDS = "the of materials 晶体 结构 essay 作文 silicon band gap 能量 reasoning step answer".split()


ASCII = [w for w in WORDS if w.isascii()]


def text(n_chars, words=WORDS):
    out, size = [], 0
    while size < n_chars:
        w = rng.choice(words)
        out.append(w)
        size += len(w) + 1
    return " ".join(out)


def path(*parts):
    p = os.path.join(OUT, *parts)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    return p


def json_array(p, records, size=None):
    """Write a JSON array record by record until `size` (SIZE) bytes; returns the count."""
    size = SIZE if size is None else size
    n = 0
    with open(p, "w", encoding="utf-8") as f:
        f.write("[\n")
        for n, record in enumerate(records, 1):
            if n > 1:
                f.write(",\n")
            f.write(json.dumps(record, ensure_ascii=False))
            if f.tell() >= size:
                break
        f.write("\n]\n")
    return n


def repeated(records):
    """Golden SGI-Bench records over and over, each with its own idx and a padded question (as a
    scored log carries its texts)."""
    for i in range(10**9):
        r = dict(records[i % len(records)])
        r["idx"] = f"{r.get('idx', 'X')}_{i}"
        r["question"] = text(2000)
        yield r


def eotgc():
    levels = ["优秀", "较好", "一般", "合格", "不合格"]
    gold = ({"id": i, "grade": str(3 + i % 7), "requirement": text(200), "title": text(30),
             "content": text(3000), "classification": rng.choice(levels)} for i in range(10**9))
    n = json_array(path("eotgc", "gold.json"), gold)
    with open(path("eotgc", "pred.json"), "w", encoding="utf-8") as f:
        json.dump([{"id": i, "classification": rng.choice(levels)} for i in range(n)], f,
                  ensure_ascii=False)


def msqa():
    def record(i):
        answer, gold = rng.choice(["YES", "NO"]), rng.choice(["YES", "NO"])
        # The stored pred and result as the toolkit writes them (the rule's own: no warnings).
        return {"id": f"{i:032x}", "task": "Material", "subtask": rng.choice(["properties", "synthesis"]),
                "question": text(300) + "\nYou must answer the question with YES or NO.",
                "generation": {"reasoning_content": text(2500), "content": text(80) + " " + answer},
                "gold": gold, "pred": answer, "result": answer == gold,
                "usage": {"completion_tokens": rng.randint(10, 4000), "finish_reason": "stop"}}
    json_array(path("msqa", "evaluation.json"), (record(i) for i in range(10**9)))

    def item(i):
        return {"dataset_item": {"question": text(300), "question_type": "properties",
                                 "true_false_question_answer": rng.choice(["YES", "NO"])},
                "inference_result": text(2500) + " " + rng.choice(["YES", "NO"])}
    json_array(path("msqa", "inference.json"), (item(i) for i in range(10**9)))


def pairs():
    with open(path("pairs", "pairs.jsonl"), "w") as f:
        while f.tell() < SIZE:
            f.write("".join(json.dumps({"gold": rng.randint(0, 4), "pred": rng.randint(0, 4)}) + "\n"
                            for _ in range(10000)))


def pairs_wide():
    # Issue 16's shape: ~1 KB records (1,000,000 of them in 1 GB), the pair plus a text field.
    with open(path("pairs", "pairs_wide.jsonl"), "w", encoding="utf-8") as f:
        while f.tell() < SIZE:
            f.write("".join(json.dumps({"gold": rng.randint(0, 4), "pred": rng.randint(0, 4),
                                        "text": text(1000, ASCII)}) + "\n" for _ in range(1000)))


def asap_aes():
    ranges = {1: (2, 12), 2: (1, 6), 3: (0, 3), 4: (0, 3), 5: (0, 4), 6: (0, 4), 7: (0, 30), 8: (0, 60)}
    header = "essay_id\tessay_set\tessay\trater1_domain1\trater2_domain1\trater3_domain1\tdomain1_score\trater1_domain2\trater2_domain2\tdomain2_score\n"
    ids = []
    with open(path("asap-aes", "gold.tsv"), "w", encoding="latin-1") as f:
        f.write(header)
        i = 0
        while f.tell() < SIZE:
            i += 1
            s = 1 + i % 8
            lo, hi = ranges[s]
            score = rng.randint(lo, hi)
            f.write(f"{i}\t{s}\t{text(2000, ASCII)}\t{score}\t{score}\t\t{score}\t\t\t\n")
            ids.append((i, lo, hi))
    with open(path("asap-aes", "pred.csv"), "w") as f:
        f.write("essay_id,predicted_score\n")
        f.writelines(f"{i},{rng.randint(lo, hi)}\n" for i, lo, hi in ids)


def sasbench():
    case = os.path.join(GOLDEN, "sasbench", "case_24")
    subject = "0_Physics_ShortAns"
    data = [json.loads(l) for l in open(os.path.join(case, "datasets", subject + ".jsonl"), encoding="utf-8") if l.strip()]
    preds = [json.loads(l) for l in open(os.path.join(case, "datasets_GoldenModel_Scored", subject + "_prediction.jsonl"), encoding="utf-8") if l.strip()]
    tax = open(os.path.join(case, "datasets", "error_type.jsonl"), encoding="utf-8").read()
    with open(path("sasbench", "datasets", "error_type.jsonl"), "w", encoding="utf-8") as f:
        f.write(tax)
    # Repeat the subject's predictions (ids made unique per copy) until SIZE.
    id_keys = [k for k in preds[0] if k in ("id", "idx", "question_id")]
    with open(path("sasbench", "pred", subject + "_prediction.jsonl"), "w", encoding="utf-8") as f:
        copy = 0
        while f.tell() < SIZE:
            for p in preds:
                q = dict(p)
                for k in id_keys:
                    q[k] = f"{q[k]}_{copy}" if isinstance(q[k], str) else q[k] + copy * 10**6
                f.write(json.dumps(q, ensure_ascii=False) + "\n")
            copy += 1
    del data


def sgi_deep_research():
    def record(i):
        answer = f"{rng.random():.4f}"
        return {"idx": f"DR_{i:07d}", "question": text(400), "steps": [text(200) for _ in range(4)],
                "answer": answer, "discipline": rng.choice(["physics", "chemistry", "life"]),
                "direction": "synthetic", "type": "data",
                "model_answer_with_thinking": text(2500) + f"\n<answer>{answer}</answer>",
                "model_answer": answer, "model_answer_after_llm_paser": answer}
    json_array(path("sgi-deep-research", "log.json"), (record(i) for i in range(10**9)))


def eotgc_track2():
    rows = ({"ppl": round(rng.uniform(1, 100), 3), "bertscore": round(rng.uniform(0.5, 0.9), 4),
             "human": round(rng.uniform(40, 100), 2)} for _ in range(10**10))
    with open(path("eotgc", "track2.json"), "w", encoding="utf-8") as f:
        f.write('{"track2_inputs": [\n')
        for n, row in enumerate(rows):
            f.write((",\n" if n else "") + json.dumps(row))
            if f.tell() >= SIZE:
                break
        f.write('\n], "leaderboard_track_scores": [{"team": "a", "track1": 60.5, "track2": 70.25}]}\n')
    json_array(path("eotgc", "comments.json"),
               ({"id": i, "comment": text(rng.randint(100, 240))} for i in range(10**9)))


def sasbench_raw():
    case = os.path.join(GOLDEN, "sasbench", "case_24")
    subject = "0_Physics_ShortAns"
    data = [l for l in open(os.path.join(case, "datasets", subject + ".jsonl"), encoding="utf-8") if l.strip()]
    scored = [l for l in open(os.path.join(case, "datasets_GoldenModel_Scored", subject + "_scored.jsonl"), encoding="utf-8") if l.strip()]
    tax = open(os.path.join(case, "datasets", "error_type.jsonl"), encoding="utf-8").read()
    with open(path("sasbench", "raw", "dataset", "error_type.jsonl"), "w", encoding="utf-8") as f:
        f.write(tax)
    # The gold records and their replies, repeated in step until both files together hold SIZE.
    with open(path("sasbench", "raw", "dataset", subject + ".jsonl"), "w", encoding="utf-8") as g, \
         open(path("sasbench", "raw", subject + "_scored.jsonl"), "w", encoding="utf-8") as r:
        while g.tell() + r.tell() < SIZE:
            g.writelines(data)
            r.writelines(scored)


def sgi_logs():
    # Golden cases that score cleanly (the ones scripts/bad_input.py starts from).
    sources = {
        "sgi-wet": "wet_experiment/wet_01_identical/step2_input.json",
        "sgi-dry": "dry_experiment/dry_02_judge_decides_non_exact/step4_input.json",
        "sgi-idea": "idea_generation/idea_01_json_full_win/step2_input.json",
        "sgi-reasoning": "experimental_reasoning/er_01_mca_rv_extraction/step2_input.json",
    }
    for key, source in sources.items():
        records = [r for r in json.load(open(os.path.join(GOLDEN, "sgibench", source), encoding="utf-8"))
                   if isinstance(r, dict)]
        json_array(path(key, "log.json"), repeated(records))


def sgi_score():
    # The records of a golden case (scored logs), repeated, with a padded field per record as a
    # scored log carries its texts: five logs of a fifth of the size each (sgi-score/logs/), and
    # the same five in one object (sgi-score/input.json).
    case = os.path.join(GOLDEN, "sgibench", "sgi_score", "sgi_02_idea_error_record_crash", "input.json")
    logs = json.load(open(case, encoding="utf-8"))
    idea = next(k for k in logs if k.startswith("task_2_"))
    logs[idea] = [r for r in logs[idea] if "effectiveness" in r]  # drop the crashing record
    parts = []
    for n, (key, records) in enumerate(logs.items()):
        part = path("sgi-score", "logs", f"{n + 1}.json")
        json_array(part, repeated(records), SIZE // 5)
        parts.append((key, part))
    with open(path("sgi-score", "input.json"), "wb") as f:
        f.write(b"{")
        for n, (key, part) in enumerate(parts):
            f.write((b",\n" if n else b"\n") + json.dumps(key).encode() + b": ")
            with open(part, "rb") as p:
                while chunk := p.read(1 << 20):
                    f.write(chunk)
        f.write(b"}\n")


STEPS = [eotgc, msqa, pairs, pairs_wide, asap_aes, sasbench, sgi_deep_research, eotgc_track2, sasbench_raw,
         sgi_logs, sgi_score]
# STEPS="pairs msqa" (environment): only these.
only = os.environ.get("STEPS", "").split()
for step in STEPS:
    if only and step.__name__ not in only:
        continue
    step()
    print(f"{step.__name__}: done", file=sys.stderr)
