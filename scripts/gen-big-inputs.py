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
  inspect/big.eval                Inspect AI .eval log (ZIP, Zstandard entries when the `zstandard`
                                  module is there, else deflate): INSPECT_SAMPLES samples (200,000)
  lm-eval/results_*.json + samples_*.jsonl  lm-evaluation-harness results and one samples file

Records are synthetic but shaped like the golden cases; text fields are padded so the record
count stays realistic. Usage: [STEPS="pairs msqa …"] gen-big-inputs.py OUT [SIZE_MB]"""
import hashlib, json, math, os, random, struct, sys, time, zlib

if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
    sys.exit(__doc__)
OUT = sys.argv[1]
SIZE = int(float(sys.argv[2] if len(sys.argv) > 2 else os.environ.get("SIZE_MB", "300")) * 1e6)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.environ.get("GOLDEN", os.path.join(ROOT, "..", "shared", "golden"))
rng = random.Random(7)
WORDS = "the of materials 晶体 结构 essay 作文 silicon band gap 能量 reasoning step answer".split()


ASCII = [w for w in WORDS if w.isascii()]


def text(n_chars, words=WORDS, gen=None):
    """Words (or sentences) picked by `gen` (the main generator) until `n_chars`."""
    gen = gen or rng
    out, size = [], 0
    while size < n_chars:
        w = gen.choice(words)
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


# Sentences of pseudo-words (a vocabulary of 5,000, so the text compresses as prose does, ~3×),
# for the long texts of the Inspect and lm-eval logs: picking sentences is fast enough for GBs.
# Their own generator, so the other inputs stay as they were.
lrng = random.Random(11)
VOCAB = ["".join(lrng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(lrng.randint(2, 10)))
         for _ in range(5000)]
SENTENCES = [" ".join(lrng.choices(VOCAB, k=lrng.randint(8, 24))).capitalize() + "."
             for _ in range(20000)]


def prose(n_chars):
    return text(n_chars, SENTENCES, lrng)


def numpy_pairwise_sum(a):
    """numpy's pairwise sum of float64 (blocks of 8 accumulators below 128 values)."""
    n = len(a)
    if n < 8:
        s = 0.0
        for x in a:
            s += x
        return s
    if n <= 128:
        r = list(a[:8])
        for i in range(8, n - n % 8, 8):
            for j in range(8):
                r[j] += a[i + j]
        s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for i in range(n - n % 8, n):
            s += a[i]
        return s
    half = n // 2
    half -= half % 8
    return numpy_pairwise_sum(a[:half]) + numpy_pairwise_sum(a[half:])


def inspect_stderr(values):
    """np.std(values, ddof=1) / np.sqrt(n), as Inspect's stderr() computes it."""
    n = len(values)
    if n < 2:
        return 0.0
    mean = numpy_pairwise_sum(values) / n
    return math.sqrt(numpy_pairwise_sum([(x - mean) * (x - mean) for x in values]) / (n - 1)) / math.sqrt(n)


class ZipWriter:
    """A ZIP archive written entry by entry as Inspect's (Python's zipfile) are: local headers,
    the central directory, ZIP64 end records when there are more than 65,535 entries. Method 93
    (Zstandard) is written here because zipfile before Python 3.14 cannot."""

    def __init__(self, p):
        self.f = open(p, "wb")
        self.central = []

    def add(self, name, data, zstd=None):
        raw = name.encode()
        if zstd is not None:
            method, body, version = 93, zstd.compress(data), 63
        else:
            c = zlib.compressobj(6, zlib.DEFLATED, -15)
            method, body, version = 8, c.compress(data) + c.flush(), 20
        crc, offset = zlib.crc32(data), self.f.tell()
        assert offset < 0xFFFFFFFF and len(data) < 0xFFFFFFFF
        self.f.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, version, 0, method, 0, 0x21, crc,
                                 len(body), len(data), len(raw), 0) + raw)
        self.f.write(body)
        self.central.append(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, version, version, 0, method,
                                        0, 0x21, crc, len(body), len(data), len(raw), 0, 0, 0, 0, 0,
                                        offset) + raw)

    def close(self):
        start = self.f.tell()
        for c in self.central:
            self.f.write(c)
        end, n = self.f.tell(), len(self.central)
        size = end - start
        if n > 0xFFFF:
            self.f.write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, n, n, size, start))
            self.f.write(struct.pack("<IIQI", 0x07064B50, 0, end, 1))
            n = 0xFFFF
        self.f.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, size, start, 0))
        self.f.close()


def subst(v, table):
    """`v` with every string found in `table` replaced."""
    if isinstance(v, str):
        return table.get(v, v)
    if isinstance(v, list):
        return [subst(x, table) for x in v]
    if isinstance(v, dict):
        return {k: subst(x, table) for k, x in v.items()}
    return v


def inspect_eval():
    """A finished Inspect log of INSPECT_SAMPLES samples (ids × 2 epochs, scorers `match` and
    `includes` reduced by mean) shaped as the fixture tests/imports/inspect/model-a.json:
    _journal/start.json, samples/<id>_epoch_<n>.json (the transcript: prompt ~2 KB, the reply
    and a tool's output sized so the archive comes to ~SIZE), _journal/summaries/<k>.json,
    summaries.json, reductions.json, header.json (its numbers computed as Inspect does)."""
    try:
        import zstandard
        zstd = zstandard.ZstdCompressor(level=3)
    except ImportError:
        zstd = None
        print("inspect_eval: no `zstandard` module, the entries are deflated", file=sys.stderr)
    log = json.load(open(os.path.join(ROOT, "tests", "imports", "inspect", "model-a.json")))
    template = log["samples"][0]
    n_samples = int(os.environ.get("INSPECT_SAMPLES", "200000"))
    epochs = 2
    ids = [f"q{i:06d}" for i in range(n_samples // epochs)]
    # The samples' share of SIZE: what is left after the summaries (written twice: in the journal
    # and in summaries.json), estimated from the first journal chunk; 70% until then.
    per_sample = 0.7 * SIZE / n_samples
    samples_bytes = 0
    scorers = ["match", "includes"]
    values = {s: {} for s in scorers}
    summaries, chunk = [], []
    z = ZipWriter(path("inspect", "big.eval"))
    start = {k: log[k] for k in ("version", "eval", "plan")}
    z.add("_journal/start.json", json.dumps(start).encode(), zstd)
    reply_chars = 3000
    written = 0
    for e in range(1, epochs + 1):
        for sid in ids:
            prompt = "Answer the question. " + prose(2000) + " What is the answer?"
            target = str(rng.randint(0, 999))
            right = rng.random() < 0.6
            answer = target if right else str(rng.randint(0, 999))
            reply = prose(reply_chars) + f" The answer is {answer}"
            scores = {"match": {"value": "C" if right else "I", "answer": answer, "explanation": reply[-200:], "history": []},
                      "includes": {"value": "C" if right or rng.random() < 0.3 else "I", "answer": reply[-200:],
                                   "explanation": reply[-200:], "history": []}}
            sample = subst(template, {"What is 3 + 2?": prompt, "It is 5, or rather 6": reply, "q00": sid, "5": target})
            sample["epoch"], sample["scores"] = e, scores
            sample["uuid"] = f"u{sid}e{e}"
            data = json.dumps(sample, ensure_ascii=False).encode()
            before = z.f.tell()
            z.add(f"samples/{sid}_epoch_{e}.json", data, zstd)
            written += 1
            samples_bytes += z.f.tell() - before
            # Steer the reply's length so the samples come to their share of SIZE.
            wanted = per_sample * written - samples_bytes
            reply_chars = max(200, min(200_000, int(reply_chars * (1 + 0.5 * wanted / max(1, z.f.tell() - before) / written ** 0.5))))
            for s in scorers:
                values[s].setdefault(sid, []).append(1.0 if scores[s]["value"] == "C" else 0.0)
            summary = {"id": sid, "epoch": e, "input": prompt[:5120], "target": target, "metadata": {},
                       "scores": scores, "model_usage": sample["model_usage"], "role_usage": {},
                       "started_at": sample["started_at"], "completed_at": sample["completed_at"],
                       "total_time": 0.43, "working_time": 0.41, "uuid": sample["uuid"], "retries": 0,
                       "completed": True, "message_count": 2, "turn_count": 1}
            summaries.append(summary)
            chunk.append(summary)
            if len(chunk) == 1000:
                before = z.f.tell()
                z.add(f"_journal/summaries/{len(summaries) // 1000}.json", json.dumps(chunk).encode(), zstd)
                if len(summaries) == 1000:
                    summaries_bytes = 2 * (z.f.tell() - before) * n_samples / 1000
                    per_sample = max(1000, 0.98 * SIZE - summaries_bytes) / n_samples
                chunk = []
    if chunk:
        z.add(f"_journal/summaries/{len(summaries) // 1000 + 1}.json", json.dumps(chunk).encode(), zstd)
    z.add("summaries.json", json.dumps(summaries, ensure_ascii=False).encode(), zstd)
    reductions, results = [], []
    for s in scorers:
        reduced = [(sid, sum(v) / len(v)) for sid, v in values[s].items()]
        reductions.append({"scorer": s, "reducer": "mean", "samples": [
            {"value": v, "history": [], "sample_id": sid} for sid, v in reduced]})
        floats = [v for _, v in reduced]
        accuracy = 0.0
        for v in floats:
            accuracy += v
        accuracy /= len(floats)
        results.append({"name": s, "scorer": s, "reducer": "mean", "scored_samples": len(floats),
                        "unscored_samples": 0, "params": {},
                        "metrics": {"accuracy": {"name": "accuracy", "value": accuracy, "params": {}},
                                    "stderr": {"name": "stderr", "value": inspect_stderr(floats), "params": {}}}})
    z.add("reductions.json", json.dumps(reductions).encode(), zstd)
    header = {k: log[k] for k in ("version", "status", "eval", "plan", "results", "stats", "invalidated", "tags", "metadata")}
    header["eval"] = dict(header["eval"], task="big_arith", dataset={"name": "big_arith", "samples": len(ids)})
    header["eval"]["config"] = dict(header["eval"]["config"], epochs=epochs)
    header["results"] = dict(header["results"], total_samples=len(summaries), completed_samples=len(summaries),
                             scores=results)
    z.add("header.json", json.dumps(header).encode(), zstd)
    z.close()


def lm_eval_samples():
    """One lm-eval multiple-choice task (5-shot prompts of ~1 KB, four choices) as
    `lm_eval --log_samples` writes it: samples_big_mc_<date>.jsonl of ~SIZE and results_<date>.json
    with the harness's numbers (Python's mean and lm-eval's mean_stderr of the rows)."""
    date = "2026-11-28T08-00-00.000000"
    task = "big_mc"
    acc, acc_norm = [], []
    shots = [prose(250) for _ in range(50)]
    p = path("lm-eval", f"samples_{task}_{date}.jsonl")
    with open(p, "w", encoding="utf-8") as f:
        doc_id = 0
        while f.tell() < SIZE:
            lines = []
            for _ in range(1000):
                question = prose(rng.randint(150, 400))
                choices = [prose(rng.randint(10, 60)) for _ in range(4)]
                label = rng.randrange(4)
                context = "\n\n".join(rng.sample(shots, 5)) + f"\n\nQuestion: {question}\nAnswer:"
                lls = [(-rng.random() * 8.0, rng.random() < 0.1) for _ in choices]
                norm = [ll / len(c) for (ll, _), c in zip(lls, choices)]
                a = 1.0 if max(range(4), key=lambda i: lls[i][0]) == label else 0.0
                an = 1.0 if max(range(4), key=lambda i: norm[i]) == label else 0.0
                acc.append(a)
                acc_norm.append(an)
                resps = [[[str(ll), str(g)]] for ll, g in lls]
                record = {"doc_id": doc_id, "doc": {"id": doc_id, "question": question, "choices": choices, "label": label},
                          "target": str(label),
                          "arguments": {f"gen_args_{i}": {"arg_0": context, "arg_1": " " + c} for i, c in enumerate(choices)},
                          "resps": resps, "filtered_resps": [r[0] for r in resps], "filter": "none",
                          "metrics": ["acc", "acc_norm"],
                          "doc_hash": hashlib.sha256(question.encode()).hexdigest(),
                          "prompt_hash": hashlib.sha256(context.encode()).hexdigest(),
                          "target_hash": hashlib.sha256(str(label).encode()).hexdigest(),
                          "acc": a, "acc_norm": an}
                lines.append(json.dumps(record, ensure_ascii=False) + "\n")
                doc_id += 1
            f.writelines(lines)

    def mean(arr):
        return sum(arr) / len(arr)

    def stderr(arr):
        mu = mean(arr)
        return math.sqrt(sum([(x - mu) ** 2 for x in arr]) / (len(arr) - 1)) / math.sqrt(len(arr))

    n = len(acc)
    results = {"results": {task: {"name": task, "alias": task, "sample_len": len(acc), "acc,none": mean(acc), "acc_stderr,none": stderr(acc),
                                  "acc_norm,none": mean(acc_norm), "acc_norm_stderr,none": stderr(acc_norm)}},
               "group_subtasks": {task: []}, "n-samples": {task: {"original": n, "effective": n}},
               "model_name": "big-model", "date": time.time()}
    json.dump(results, open(path("lm-eval", f"results_{date}.json"), "w"), indent=2)


STEPS = [eotgc, msqa, pairs, pairs_wide, asap_aes, sasbench, sgi_deep_research, eotgc_track2, sasbench_raw,
         sgi_logs, sgi_score, inspect_eval, lm_eval_samples]
# STEPS="pairs msqa" (environment): only these.
only = os.environ.get("STEPS", "").split()
for step in STEPS:
    if only and step.__name__ not in only:
        continue
    step()
    print(f"{step.__name__}: done", file=sys.stderr)
