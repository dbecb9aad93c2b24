#!/usr/bin/env python3
"""Leaderboard figures (printed, not a test): N EOTGC entries submitted over HTTP from 8 threads
to a fresh server on 127.0.0.1 (SQLite in a temp dir, or PostgreSQL with --db postgres://…), then
the submit latency (p50/p99), `scorebench leaderboard show --json` time and size, the HTML page
time and size, and how long the background bootstrap takes to give every entry its interval.

With --page the server serves the built app (dist/) and scripts/bench-leaderboard-page.mjs measures
the page in Chromium: first paint, the app's ranked table, sorting, paging.

Usage: scripts/bench-leaderboard.py BIN [N] [--db URL] [--page]   (BIN: target/release/scorebench)"""
import base64, concurrent.futures as cf, json, os, random, shutil, socket, subprocess, sys, tempfile, time
import urllib.request

args = [a for a in sys.argv[1:] if not a.startswith("--")]
PAGE = "--page" in sys.argv
BIN = os.path.abspath(args[0]); N = int(args[1]) if len(args) > 1 else 10_000
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASE = os.path.join(ROOT, "tests/golden/eotgc/eotgc_11_full_size_185")
tmp = tempfile.mkdtemp(prefix="lb-bench-")
db = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--db=")), os.path.join(tmp, "lb.sqlite3"))

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

port = free_port(); base = f"http://127.0.0.1:{port}"
server = subprocess.Popen([BIN, "serve", "--addr", f"127.0.0.1:{port}", "--db", db, "--dist", os.path.join(ROOT, "dist") if PAGE else "/nonexistent",
                           "--local-db", os.path.join(tmp, "local.sqlite3"),
                           # N submissions from this one address: the anonymous hourly limits are not measured here
                           "--anon-submits-per-hour", "10000000", "--board-submits-per-hour", "10000000",
                           "--anon-boards-per-hour", "10000000"],
                          stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "server.log"), "w"))

def request(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method, headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=600) as r:
        return r.read()

try:
    for _ in range(100):
        try:
            request("GET", "/api/health"); break
        except Exception:
            time.sleep(0.1)
    gold = open(os.path.join(CASE, "gold.json"), "rb").read()
    slug = f"bench-{random.randrange(10**9)}"
    request("POST", "/api/v1/leaderboards", {"slug": slug, "title": "bench", "benchmark": "eotgc",
             "gold": [{"name": "gold.json", "base64": base64.b64encode(gold).decode()}]})
    preds = json.load(open(os.path.join(CASE, "pred.json")))
    levels = ["优秀", "较好", "一般", "合格", "不合格"]
    rng = random.Random(1)

    def body(i):
        q = [dict(r) for r in preds]
        for r in rng.sample(q, rng.randrange(0, 60)):
            if r.get("classification") in levels:
                r["classification"] = rng.choice(levels)
        text = json.dumps(q, ensure_ascii=False).encode()
        return {"model": f"model-{i}", "meta": {"parameters": f"{i % 70}B"},
                "files": [{"name": "pred.json", "base64": base64.b64encode(text).decode()}]}

    bodies = [body(i) for i in range(N)]
    latencies = []

    def submit(b):
        t = time.perf_counter(); request("POST", f"/api/v1/leaderboards/{slug}/entries", b)
        latencies.append(time.perf_counter() - t)

    t0 = time.perf_counter()
    with cf.ThreadPoolExecutor(8) as ex:
        list(ex.map(submit, bodies))
    wall = time.perf_counter() - t0
    latencies.sort()
    pct = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000
    print(f"submit: {N} entries in {wall:.1f} s ({N / wall:.0f}/s, 8 clients); latency p50 {pct(0.5):.1f} ms, p99 {pct(0.99):.1f} ms")

    def show():
        t = time.perf_counter()
        p = subprocess.run([BIN, "leaderboard", "show", "--slug", slug, "--json", "--server", base],
                           capture_output=True, timeout=600)
        return time.perf_counter() - t, p.stdout
    dt, out = show()
    board = json.loads(out)
    print(f"show --json (first, bootstrap pending {board['bootstrap']['pending']}): {dt:.2f} s, {len(out) / 1e6:.1f} MB, {len(board['entries'])} entries")
    times = [show()[0] for _ in range(3)]
    print(f"show --json again: {min(times):.2f} s (best of 3)")
    t = time.perf_counter(); page = request("GET", f"/leaderboard/{slug}"); dt = time.perf_counter() - t
    print(f"HTML /leaderboard/{slug}: {dt:.2f} s, {len(page) / 1e6:.1f} MB")
    if PAGE:
        subprocess.run(["node", os.path.join(ROOT, "scripts/bench-leaderboard-page.mjs"), base, slug], check=True)
    t = time.perf_counter()
    while True:
        b = json.loads(request("GET", f"/api/v1/leaderboards/{slug}"))
        if b["bootstrap"]["pending"] == 0:
            break
        time.sleep(2)
    print(f"background bootstrap: every interval computed {time.perf_counter() - t:.0f} s after the first show")
    if PAGE:
        t = time.perf_counter(); page = request("GET", f"/leaderboard/{slug}"); dt = time.perf_counter() - t
        print(f"settled (every interval computed): HTML /leaderboard/{slug}: {dt:.2f} s")
        subprocess.run(["node", os.path.join(ROOT, "scripts/bench-leaderboard-page.mjs"), base, slug], check=True)
    print(f"db: {'postgres' if db.startswith('postgres') else f'sqlite {os.path.getsize(db) / 1e6:.0f} MB'}")
finally:
    server.kill(); server.wait(); shutil.rmtree(tmp, ignore_errors=True)
