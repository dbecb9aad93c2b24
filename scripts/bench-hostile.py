#!/usr/bin/env python3
"""Hostile-load figures for issue 25 (printed, not a test): a release `scorebench serve` on
127.0.0.1 (SQLite in a temp dir, default limits) under the attacks the issue names, each against
a baseline measured in the same run.

1. Peak RSS above idle (VmHWM, reset before each phase through /proc/PID/clear_refs) for one
   zip-bomb submission (an Inspect .eval of ~1 MB whose header.json inflates to 1 GiB), three at
   once, the SAS-Bench golden submission (the baseline), 8 concurrent 200 MiB submissions (over
   --max-upload-mb: refused from their Content-Length), 8 concurrent 60 MiB pairs submissions
   (under it: read one budget at a time; 2 M records, over --max-entry-samples) and 8 at the
   sample limit (249,999 records, 7 MiB: scored and stored).
2. Board page time with the worst description allowed (20,000 characters nested 16 deep) against
   a one-line description; the time to write it (rendered once, then stored).
3. /api/health latency (p50/p99) alone and while 4 clients load the worst page in a loop.

Goals (issue 25): peak ≤ 64 MiB budget + 100 MiB above idle; worst page ≤ 50 ms; health p99
under the page load ≤ 50 ms.

Usage: scripts/bench-hostile.py BIN   (BIN: target/release/scorebench)"""
import base64, concurrent.futures as cf, io, json, os, random, socket, statistics, subprocess, sys
import tempfile, threading, time, urllib.error, urllib.request, zipfile

BIN = os.path.abspath(sys.argv[1])
tmp = tempfile.mkdtemp(prefix="hostile-bench-")
MiB = 1 << 20


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p


port = free_port(); host = f"127.0.0.1:{port}"; base = f"http://{host}"
server = subprocess.Popen([BIN, "serve", "--addr", host, "--db", os.path.join(tmp, "lb.sqlite3"),
                           "--dist", "/nonexistent", "--local-db", os.path.join(tmp, "local.sqlite3"),
                           # many submissions from this one address: the hourly limits are not measured here
                           "--anon-submits-per-hour", "100000", "--board-submits-per-hour", "100000",
                           "--anon-boards-per-hour", "100000"],
                          stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "server.log"), "w"))


def status_kb(field):
    for line in open(f"/proc/{server.pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(field)


def reset_peak():
    with open(f"/proc/{server.pid}/clear_refs", "w") as f:
        f.write("5")


def request(method, path, body=None, timeout=600):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def raw_post(path, length, chunk_source):
    """POST a JSON body of `length` bytes from `chunk_source()` (an iterator of bytes) on a raw
    socket; returns the status the server answered (it may answer before the body is sent)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=600)
    s.sendall(f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
              f"Content-Length: {length}\r\nConnection: close\r\n\r\n".encode())
    try:
        for chunk in chunk_source():
            s.sendall(chunk)
    except (BrokenPipeError, ConnectionResetError):
        pass
    reply = b""
    try:
        while True:
            part = s.recv(65536)
            if not part:
                break
            reply += part
    except (ConnectionResetError, socket.timeout):
        pass
    s.close()
    return int(reply.split(b" ", 2)[1]) if reply.startswith(b"HTTP/1.1 ") else 0


def submission_body(model, name, payload):
    return {"model": model, "files": [{"name": name, "base64": base64.b64encode(payload).decode()}]}


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def settle():
    """Wait (at most 15 s) until the allocator has handed back what earlier work freed (jemalloc
    purges on a ~10 s decay): each phase starts from a resting server."""
    last = status_kb("VmRSS")
    for _ in range(30):
        time.sleep(0.5)
        now = status_kb("VmRSS")
        if now <= last and now - idle < 48 * 1024:
            break
        last = now
    return status_kb("VmRSS")


def phase(label, run):
    settle()
    reset_peak()
    time.sleep(0.2)
    before = status_kb("VmRSS")
    started = time.perf_counter()
    outcome = run()
    took = time.perf_counter() - started
    time.sleep(0.5)
    peak = status_kb("VmHWM")
    after = status_kb("VmRSS")
    print(f"  {label}: {outcome}; {took:.2f} s; peak +{(peak - before) / 1024:.0f} MB above the "
          f"{before / 1024:.0f} MB before, 0.5 s after +{(after - before) / 1024:.0f} MB, "
          f"{settle() / 1024:.0f} MB once settled")
    return (peak - before) / 1024


try:
    for _ in range(100):
        try:
            request("GET", "/api/health"); break
        except Exception:
            time.sleep(0.1)
    time.sleep(0.5)
    idle = status_kb("VmRSS")
    print(f"scorebench serve (release), SQLite, default limits; idle RSS {idle / 1024:.0f} MB")

    # 1. Memory.
    print("memory (goal: peak ≤ 64 MiB budget + 100 MiB above idle):")
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("_journal/start.json", json.dumps({"version": 2, "eval": {"task": "bomb", "model": "m"}}))
        with z.open("header.json", "w") as h:
            h.write(b'{"version": 2, "status": "success", "eval": {"task": "bomb", "model": "m"}')
            block = b" " * (16 * MiB)
            for _ in range(64):
                h.write(block)
            h.write(b"}")
    bomb = bomb.getvalue()
    request("POST", "/api/v1/leaderboards", {"slug": "bombs", "title": "bombs", "benchmark": "inspect"})
    bomb_body = submission_body("bomb", "bomb.eval", bomb)

    def bombs(n):
        def run():
            with cf.ThreadPoolExecutor(n) as pool:
                codes = list(pool.map(lambda _: request("POST", "/api/v1/leaderboards/bombs/entries", bomb_body)[0], range(n)))
            return f"{len(bomb) / MiB:.1f} MB archive inflating to 1 GiB → statuses {sorted(codes)}"
        return run

    worst = [phase("1 zip bomb", bombs(1)), phase("3 zip bombs at once", bombs(3))]

    request("POST", "/api/v1/leaderboards", {"slug": "big", "title": "big", "benchmark": "pairs"})

    def big_submits(n, mib, records=None):
        # As the CLI and the page send files: base64 in JSON; a pairs JSONL file the server
        # scores (2 of 3 right) when the body is under the limit.
        prefix = b'{"model": "big", "files": [{"name": "p.jsonl", "base64": "'
        suffix = b'"}]}'
        room = (mib * MiB - len(prefix) - len(suffix)) // 4 * 3
        lines = b'{"gold": 1, "pred": 1}\n{"gold": 2, "pred": 2}\n{"gold": 1, "pred": 2}\n'
        copies = room // len(lines) if records is None else records // 3
        payload = base64.b64encode(lines * copies)
        length = len(prefix) + len(payload) + len(suffix)
        def source():
            yield prefix
            for at in range(0, len(payload), MiB):
                yield payload[at:at + MiB]
            yield suffix
        def run():
            with cf.ThreadPoolExecutor(n) as pool:
                codes = list(pool.map(lambda _: raw_post("/api/v1/leaderboards/big/entries", length, source), range(n)))
            return f"{n} × {length / MiB:.1f} MiB ({copies * 3:,} records) → statuses {sorted(codes)}"
        return run

    # A real submission as the baseline: SAS-Bench's 12 prediction files (4 MB).
    sas = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests/golden/sasbench/case_24")
    taxonomy = os.path.join(sas, "datasets/error_type.jsonl")
    request("POST", "/api/v1/leaderboards", {"slug": "sas", "title": "sas", "benchmark": "sasbench", "gold": [
        {"name": "error_type.jsonl", "base64": base64.b64encode(open(taxonomy, "rb").read()).decode()}]})
    preds = sorted(f for f in os.listdir(os.path.join(sas, "datasets_GoldenModel_Scored")) if f.endswith("_prediction.jsonl"))
    sas_body = {"model": "golden", "files": [
        {"name": f, "base64": base64.b64encode(open(os.path.join(sas, "datasets_GoldenModel_Scored", f), "rb").read()).decode()}
        for f in preds]}
    sas_mib = len(json.dumps(sas_body)) / MiB
    phase("baseline: the SAS-Bench golden submission", lambda: f"{sas_mib:.1f} MiB body → status {request('POST', '/api/v1/leaderboards/sas/entries', sas_body)[0]}")
    worst.append(phase("8 concurrent 200 MiB submissions", big_submits(8, 200)))
    worst.append(phase("8 concurrent 60 MiB submissions (over --max-entry-samples)", big_submits(8, 60)))
    worst.append(phase("8 concurrent submissions at the sample limit (stored)", big_submits(8, 0, 249_999)))
    print(f"  worst: +{max(worst):.0f} MB (goal ≤ 164 MB)")

    # 2. Descriptions.
    print("descriptions (goal: worst allowed page ≤ 50 ms):")
    line = "> " * 16 + "deep *quote* [link](https://example.org) `code`\n"
    worst_md = (line * (20_000 // len(line)))[:19_990]
    started = time.perf_counter()
    code, reply = request("POST", "/api/v1/leaderboards", {"slug": "deep-refused", "title": "t", "benchmark": "pairs",
                                                           "description": ">" * 19_999})
    print(f"  19,999 '>' refused at create: {code} in {(time.perf_counter() - started) * 1000:.1f} ms "
          f"({json.loads(reply)['error'][:60]}…)")
    timings = {}
    for slug, md in (("plain", "A one-line description."), ("worst", worst_md)):
        started = time.perf_counter()
        code, _ = request("POST", "/api/v1/leaderboards", {"slug": slug, "title": slug, "benchmark": "pairs", "description": md})
        wrote = (time.perf_counter() - started) * 1000
        assert code == 201, code
        times = []
        for _ in range(60):
            started = time.perf_counter()
            code, page = request("GET", f"/leaderboard/{slug}")
            times.append((time.perf_counter() - started) * 1000)
            assert code == 200
        timings[slug] = times
        print(f"  {slug} ({len(md):,} chars, {len(page):,} bytes of HTML): create {wrote:.1f} ms; page median "
              f"{statistics.median(times):.2f} ms, p99 {pct(times, 0.99):.2f} ms")
    print(f"  worst / plain page median: {statistics.median(timings['worst']) / statistics.median(timings['plain']):.2f}×")
    # What the line bound does not count, paid once when written: raw HTML nested 4,000 deep,
    # lists nested by indentation alone (one marker per line), 20,000 characters each.
    indented = "".join(" " * (2 * d) + "- x\n" for d in range(140))[:19_990]
    for label, md in (("raw HTML nested 4,000 deep", "<q>" * 4_000 + "x"),
                      ("lists nested by indentation", indented),
                      ("emphasis 6,000 deep", "*" * 6_000 + "x" + "*" * 6_000)):
        started = time.perf_counter()
        code, _ = request("POST", "/api/v1/leaderboards", {"slug": f"d{random.randrange(10**9)}", "title": "t",
                                                           "benchmark": "pairs", "description": md[:20_000]})
        print(f"  create with {label}: {code} in {(time.perf_counter() - started) * 1000:.1f} ms")

    # 3. Health under page load.
    print("/api/health under 4 clients loading the worst page (goal: p99 ≤ 50 ms):")

    def health_latencies(seconds):
        out = []
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            started = time.perf_counter()
            request("GET", "/api/health")
            out.append((time.perf_counter() - started) * 1000)
            time.sleep(0.01)
        return out

    alone = health_latencies(3)
    stop = threading.Event(); views = [0]

    def viewer():
        while not stop.is_set():
            request("GET", "/leaderboard/worst"); views[0] += 1

    threads = [threading.Thread(target=viewer) for _ in range(4)]
    for t in threads: t.start()
    loaded = health_latencies(5)
    stop.set()
    for t in threads: t.join()
    print(f"  alone: p50 {statistics.median(alone):.2f} ms, p99 {pct(alone, 0.99):.2f} ms ({len(alone)} requests)")
    print(f"  with 4 viewers ({views[0] / 5:.0f} pages/s): p50 {statistics.median(loaded):.2f} ms, "
          f"p99 {pct(loaded, 0.99):.2f} ms ({len(loaded)} requests); p99 ratio {pct(loaded, 0.99) / pct(alone, 0.99):.2f}×")
finally:
    server.kill(); server.wait()
