#!/usr/bin/env python3
"""Several servers, one store (issue 29): submissions per second with one and with two
`scorebench serve` processes on one PostgreSQL and one S3 bucket (printed, not a test).

For each server count: an open EOTGC board (each submission scored before its reply) and a
competition (submissions queued with 202, scored by the servers' queue workers); N submissions
from 8 threads, spread round-robin over the servers. Prints acknowledged/s on the open board,
accepted/s and scored/s on the competition, and the two-server figures as ratios of the
one-server ones measured in the same run.

Starts a throw-away PostgreSQL (scripts/pg.sh) and S3 server (scripts/s3.sh) unless PG_URL and
S3_URL are set.

Usage: [QUEUE_WORKERS=1] scripts/bench-servers.py BIN [N]   (BIN: target/release/scorebench; N: 300;
QUEUE_WORKERS: each server's --queue-workers)"""
import base64, concurrent.futures as cf, json, os, random, socket, subprocess, sys, tempfile, time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.abspath(sys.argv[1]); N = int(sys.argv[2]) if len(sys.argv) > 2 else 300
CASE = os.path.join(ROOT, "tests/golden/eotgc/eotgc_11_full_size_185")
tmp = tempfile.mkdtemp(prefix="servers-bench-")
started = []  # (script, args) to stop


def env_of(script):
    out = subprocess.run([os.path.join(ROOT, "scripts", script), "start"], check=True,
                         capture_output=True, text=True).stdout
    values = dict(line.split("=", 1) for line in out.splitlines() if "=" in line and not line.startswith("export"))
    os.environ.update(values)
    return values


if not os.environ.get("PG_URL"):
    started.append(("pg.sh", [env_of("pg.sh")["PG_DIR"]]))
if not os.environ.get("S3_URL"):
    s3 = env_of("s3.sh")
    started.append(("s3.sh", [s3["S3_DIR"], s3["S3_PID"]]))
PG, S3 = os.environ["PG_URL"], os.environ["S3_URL"]


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p


def serve(run):
    port = free_port()
    p = subprocess.Popen([BIN, "serve", "--addr", f"127.0.0.1:{port}", "--db", PG, "--files", f"{S3}/{run}",
                          "--dist", "/nonexistent", "--local-db", os.path.join(tmp, f"local-{port}.sqlite3"),
                          "--anon-submits-per-hour", "1000000", "--board-submits-per-hour", "10000000",
                          "--anon-boards-per-hour", "1000000",
                          "--queue-workers", os.environ.get("QUEUE_WORKERS", "1")],
                         stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, f"server-{port}.log"), "w"))
    base = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            urllib.request.urlopen(base + "/api/health", timeout=5).read(); break
        except Exception:
            if p.poll() is not None:
                sys.exit("the server stopped: " + open(os.path.join(tmp, f"server-{port}.log")).read()[-2000:])
            time.sleep(0.05)
    return p, base


def request(base, method, path, body=None, token=None):
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(req, timeout=600) as r:
        return r.status, json.loads(r.read() or b"null")


gold = open(os.path.join(CASE, "gold.json"), "rb").read()
preds = json.load(open(os.path.join(CASE, "pred.json")))
levels = ["优秀", "较好", "一般", "合格", "不合格"]


def bodies(seed):
    rng = random.Random(seed)
    out = []
    for i in range(N):
        q = [dict(r) for r in preds]
        for r in rng.sample(q, rng.randrange(0, 60)):
            if r.get("classification") in levels:
                r["classification"] = rng.choice(levels)
        text = json.dumps(q, ensure_ascii=False).encode()
        out.append({"model": f"model-{i}", "files": [{"name": "pred.json", "base64": base64.b64encode(text).decode()}]})
    return out


def submit_all(bases, slug, items, want):
    def one(i):
        status, _ = request(bases[i % len(bases)], "POST", f"/api/v1/leaderboards/{slug}/entries", items[i])
        assert status == want, status
    t = time.perf_counter()
    with cf.ThreadPoolExecutor(8) as ex:
        list(ex.map(one, range(len(items))))
    return time.perf_counter() - t


def measure(count):
    run = f"bench-{random.randrange(10**9)}"
    servers = [serve(run) for _ in range(count)]
    bases = [b for _, b in servers]
    try:
        # Open board: scored before each reply.
        slug = f"open-{run}"
        request(bases[0], "POST", "/api/v1/leaderboards", {"slug": slug, "title": "bench", "benchmark": "eotgc",
                "gold": [{"name": "gold.json", "base64": base64.b64encode(gold).decode()}]})
        open_s = submit_all(bases, slug, bodies(1), 201)
        # Competition: queued, scored by every server's queue worker.
        comp = f"comp-{run}"
        gold_path = os.path.join(CASE, "gold.json")
        out = subprocess.run([BIN, "leaderboard", "create", "--slug", comp, "--title", "bench", "--benchmark", "eotgc",
                              "--hidden-gold", gold_path, "--server", bases[0]], check=True, capture_output=True, text=True)
        owner = json.loads(out.stdout)["owner_token"]
        t = time.perf_counter()
        accept_s = submit_all(bases, comp, bodies(2), 202)
        while True:
            _, subs = request(bases[0], "GET", f"/api/v1/leaderboards/{comp}/submissions", token=owner)
            rows = subs["submissions"]
            if len(rows) == N and all(r["status"] in ("done", "failed") for r in rows):
                break
            time.sleep(0.05)
        scored_s = time.perf_counter() - t
        done = sum(r["status"] == "done" for r in rows)
        twice = sum(r.get("completions", 1) != 1 for r in rows)
        assert done == N and twice == 0, (done, twice)
        return N / open_s, N / accept_s, N / scored_s
    finally:
        for p, _ in servers:
            p.terminate(); p.wait()


try:
    print(f"servers bench: {N} EOTGC submissions (185 essays each), 8 client threads, PostgreSQL + S3 (s3s-fs) on loopback, "
          f"{os.cpu_count()} cores, --queue-workers {os.environ.get('QUEUE_WORKERS', '1')} per server")
    one = measure(1)
    two = measure(2)
    print(f"{'':24}{'1 server':>12}{'2 servers':>12}{'ratio':>8}")
    for name, a, b in zip(["open board, scored/s", "competition, accepted/s", "competition, scored/s"], one, two):
        print(f"{name:24}{a:12.1f}{b:12.1f}{b / a:8.2f}")
finally:
    for script, rest in started:
        subprocess.run([os.path.join(ROOT, "scripts", script), "stop", *rest], capture_output=True)
    subprocess.run(["rm", "-rf", tmp])
