"""Load test of the REST API: a real uvicorn server, concurrent clients, then a check that nothing was lost.

    python scripts/load_test.py [--requests 2000] [--clients 8] [--max-seconds 900] [--json]
    python scripts/load_test.py --workers 2 --database-url postgresql://... --chroma-url http://...

Server mode (--database-url, a PostgreSQL server where it may create a database, and --chroma-url)
runs `serve --workers N` on a fresh database made for the run and dropped afterwards;
--kill-worker-after S sends SIGKILL to one worker S seconds into the run (requests it had in flight
fail and are not acknowledged; the verification still covers every acknowledged one).

Starts `python -m memengine serve` on 127.0.0.1 (free port, temporary data dir) in a subprocess, sends a
fixed, seeded mix of requests (ingests including conflicting updates, recalls, lists) from N threads
with httpx, and reports throughput, p50/p95/p99 latency per kind and the errors. Afterwards it verifies
that every acknowledged ingest's memories are in the store (GET /memory/{id}), that every reported
supersede is recorded, that the per-user totals match what was acknowledged, and that no single-valued
slot ended with two active memories. The server is stopped at the end, whatever happens.
Exit status: 0 when there were no request errors and the verification passed, 1 otherwise.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]

OSES = ["Arch Linux", "Ubuntu", "Fedora", "macOS", "Windows 11", "NixOS", "Debian", "FreeBSD"]
CITIES = ["Berlin", "Paris", "Lisbon", "Tokyo", "Toronto", "Nairobi", "Seoul", "Madrid"]
DATES = ["October 15", "November 2", "December 1", "January 20", "March 3", "May 9", "June 30", "July 4"]
EDITORS = ["Neovim", "VS Code", "Emacs", "Helix", "Sublime Text", "IntelliJ", "Zed", "Kate"]
DBS = ["PostgreSQL", "SQLite", "MySQL", "MongoDB", "Redis", "DuckDB"]
FIRST = [
    "I use {os}.", "My project deadline is {date}.", "I live in {city}.", "My favourite editor is {editor}.",
    "I prefer {db} for databases.", "I'm building a Next.js app.", "My goal is to learn Rust this year.",
]
UPDATES = [
    "Actually, I switched to {os}.", "Actually, the deadline moved to {date}.", "I moved to {city}.",
    "I switched to {editor}.", "Actually, I now prefer {db} for databases.",
]
SMALL_TALK = ["ok thanks", "sounds good", "hello", "cool"]
QUERIES = [
    "What OS does the user use?", "When is the project deadline?", "Where does the user live?",
    "Which editor does the user use?", "Which database does the user prefer?", "What is the user building?",
    "What is the user's favourite food?", "What does the user want to learn?",
]


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter = field(default_factory=Counter)
    statuses: Counter = field(default_factory=Counter)
    acked: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))  # user -> memory ids
    superseded: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    ingest_status: Counter = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_plan(n: int, users: int, seed: int) -> list[tuple[str, dict[str, Any]]]:
    """A seeded mix: ~45% ingest (a third of them conflicting updates), ~40% recall, ~15% list."""
    rnd = random.Random(seed)
    fill = {"os": OSES, "date": DATES, "city": CITIES, "editor": EDITORS, "db": DBS}

    def fmt(template: str) -> str:
        return template.format(**{k: rnd.choice(v) for k, v in fill.items()})

    plan: list[tuple[str, dict[str, Any]]] = []
    for i in range(n):
        user = f"load-user-{rnd.randrange(users)}"
        r = rnd.random()
        if r < 0.45:
            kind = rnd.random()
            if kind < 0.55:
                text = fmt(rnd.choice(FIRST))
            elif kind < 0.9:
                text = fmt(rnd.choice(UPDATES))
            else:
                text = rnd.choice(SMALL_TALK)
            plan.append(("ingest", {"message": text, "user_id": user, "source_id": f"load/{i}"}))
        elif r < 0.85:
            plan.append(("recall", {"query": rnd.choice(QUERIES), "user_id": user, "top_k": 5}))
        else:
            plan.append(("list", {"user_id": user, "limit": 50}))
    return plan


def worker(base: str, headers: dict[str, str], plan: list, cursor: list, cursor_lock: threading.Lock,
           stats: Stats, deadline: float) -> None:
    with httpx.Client(base_url=base, headers=headers, timeout=120) as client:
        while time.monotonic() < deadline:
            with cursor_lock:
                if cursor[0] >= len(plan):
                    return
                kind, payload = plan[cursor[0]]
                cursor[0] += 1
            t0 = time.perf_counter()
            try:
                if kind == "ingest":
                    r = client.post("/memory", json=payload)
                elif kind == "recall":
                    r = client.post("/recall", json=payload)
                else:
                    r = client.get("/memories", params=payload)
            except httpx.HTTPError as exc:
                with stats.lock:
                    stats.errors[f"{kind}: {type(exc).__name__}"] += 1
                continue
            ms = (time.perf_counter() - t0) * 1000
            with stats.lock:
                stats.latencies[kind].append(ms)
                stats.statuses[f"{kind} {r.status_code}"] += 1
                if r.status_code >= 400:
                    stats.errors[f"{kind}: HTTP {r.status_code} {r.text[:120]}"] += 1
                elif kind == "ingest":
                    body = r.json()
                    stats.ingest_status[body["status"]] += 1
                    for m in body["memories"]:
                        stats.acked[payload["user_id"]].add(m["id"])
                    stats.superseded[payload["user_id"]].update(body["superseded_ids"])


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))]


def verify(base: str, headers: dict[str, str], stats: Stats) -> dict[str, Any]:
    """Every acknowledged memory is there; supersedes are recorded; totals and slots are consistent."""
    missing, wrong_owner, not_superseded, dup_slots = [], [], [], []
    total_mismatch = {}
    checked = 0
    with httpx.Client(base_url=base, headers=headers, timeout=120) as c:
        for user, ids in sorted(stats.acked.items()):
            for mid in sorted(ids):
                r = c.get(f"/memory/{mid}", params={"user_id": user})
                checked += 1
                if r.status_code != 200:
                    missing.append((user, mid, r.status_code))
                elif r.json()["user_id"] != user:
                    wrong_owner.append((user, mid))
            for mid in sorted(stats.superseded.get(user, ())):
                r = c.get(f"/memory/{mid}", params={"user_id": user})
                if r.status_code != 200 or r.json()["status"] != "superseded":
                    not_superseded.append((user, mid, r.status_code, r.json().get("status")))
            every = c.get("/memories", params={"user_id": user, "status": "all", "limit": 1000}).json()
            known = ids | stats.superseded.get(user, set())
            if every["total"] != len(known):
                total_mismatch[user] = {"store": every["total"], "acknowledged": len(known)}
            active = c.get("/memories", params={"user_id": user, "status": "active", "limit": 1000}).json()
            slots = Counter((m["subject"], m["attribute"]) for m in active["memories"] if not m.get("multi_valued"))
            dup_slots += [(user, s, n) for s, n in slots.items() if n > 1]
    return {
        "memories_checked": checked,
        "missing": missing,
        "wrong_owner": wrong_owner,
        "superseded_not_recorded": not_superseded,
        "total_mismatch": total_mismatch,
        "duplicate_active_slots": dup_slots,
        "ok": not (missing or wrong_owner or not_superseded or total_mismatch or dup_slots),
    }


def start_server(port: int, data_dir: str, api_key: str | None, log_path: Path, *, workers: int = 1,
                 database_url: str | None = None, chroma_url: str | None = None) -> subprocess.Popen:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("MEMENGINE_API_KEY", None)
    if api_key:
        env["MEMENGINE_API_KEY"] = api_key
    if database_url:
        env["MEMENGINE_DATABASE_URL"], env["MEMENGINE_CHROMA_URL"] = database_url, chroma_url or ""
    log = open(log_path, "w", encoding="utf-8")
    return subprocess.Popen(
        [sys.executable, "-m", "memengine", "--data-dir", data_dir, "serve", "--host", "127.0.0.1", "--port", str(port),
         "--log-level", "warning", "--workers", str(workers)],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: stop_server can take the workers down with it
    )


def worker_pids(pid: int) -> list[int]:
    """The uvicorn worker processes of a `serve --workers N` (children running multiprocessing's spawn_main)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    found = []
    for child in children:
        try:
            if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                found.append(int(child))
        except OSError:
            continue
    return sorted(found)


@contextlib.contextmanager
def fresh_database(url: str | None):
    """A new empty database on the server of `url` for this run, dropped afterwards (None: embedded)."""
    if not url:
        yield None
        return
    import psycopg

    name = f"load_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE {name} WITH (FORCE)")


def stop_server(proc: subprocess.Popen) -> int | None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)  # uvicorn shuts down gracefully; the engine is closed
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            # Killing only the supervisor would leave its uvicorn workers running as orphans.
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
    return proc.returncode


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--users", type=int, default=8)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--max-seconds", type=float, default=900, help="stop sending after this long")
    ap.add_argument("--startup-timeout", type=float, default=180)
    ap.add_argument("--api-key", default="load-test-key", help="run the server with this API key ('' for none)")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--server-log", metavar="PATH", help="keep the server's log here (default: shown on failure)")
    ap.add_argument("--workers", type=int, default=1, help="uvicorn workers (above 1 needs --database-url)")
    ap.add_argument("--database-url", help="server mode: a PostgreSQL URL; the run uses a new database beside it")
    ap.add_argument("--chroma-url", help="server mode: the Chroma server (http://127.0.0.1:PORT)")
    ap.add_argument("--kill-worker-after", type=float, metavar="S", help="SIGKILL one worker S seconds into the run")
    args = ap.parse_args(argv)
    if not (1 <= args.requests <= 100_000 and 1 <= args.clients <= 64):
        ap.error("--requests must be 1..100000 and --clients 1..64")
    if (args.workers > 1 or args.kill_worker_after is not None) and not (args.database_url and args.chroma_url):
        ap.error("--workers above 1 and --kill-worker-after need --database-url and --chroma-url")
    with fresh_database(args.database_url) as database_url:
        return run(args, database_url)


def run(args: argparse.Namespace, database_url: str | None) -> int:

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    headers = {"X-API-Key": args.api_key} if args.api_key else {}
    with tempfile.TemporaryDirectory(prefix="memengine-load-") as tmp:
        log_path = Path(tmp) / "server.log"
        proc = start_server(port, str(Path(tmp) / "data"), args.api_key or None, log_path, workers=args.workers,
                            database_url=database_url, chroma_url=args.chroma_url)
        try:
            t0 = time.monotonic()
            while True:
                if proc.poll() is not None:
                    print(log_path.read_text(encoding="utf-8")[-3000:], file=sys.stderr)
                    print(f"server exited with {proc.returncode} during startup", file=sys.stderr)
                    return 1
                try:
                    if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() - t0 > args.startup_timeout:
                    print("server did not become healthy in time", file=sys.stderr)
                    return 1
                time.sleep(0.25)
            startup_s = time.monotonic() - t0

            plan = make_plan(args.requests, args.users, args.seed)
            stats = Stats()
            cursor, cursor_lock = [0], threading.Lock()
            deadline = time.monotonic() + args.max_seconds
            threads = [threading.Thread(target=worker, args=(base, headers, plan, cursor, cursor_lock, stats, deadline))
                       for _ in range(args.clients)]
            start = time.perf_counter()
            for t in threads:
                t.start()
            killed = None
            if args.kill_worker_after is not None:
                threads[0].join(args.kill_worker_after)
                pids = worker_pids(proc.pid)
                if pids:
                    killed = pids[0]
                    os.kill(killed, signal.SIGKILL)
            for t in threads:
                t.join()
            wall = time.perf_counter() - start
            sent = sum(len(v) for v in stats.latencies.values()) + sum(
                n for k, n in stats.errors.items() if "HTTP" not in k)
            check = verify(base, headers, stats)
        finally:
            code = stop_server(proc)
        server_log = log_path.read_text(encoding="utf-8")
    if args.server_log:
        Path(args.server_log).write_text(server_log, encoding="utf-8")

    all_lat = [x for v in stats.latencies.values() for x in v]
    report = {
        "requests_planned": args.requests,
        "requests_sent": sent,
        "clients": args.clients,
        "users": args.users,
        "server_startup_s": round(startup_s, 1),
        "wall_s": round(wall, 2),
        "throughput_rps": round(sent / wall, 1) if wall else None,
        "latency_ms": {
            kind: {"n": len(v), "p50": round(pct(v, 50), 1), "p95": round(pct(v, 95), 1),
                   "p99": round(pct(v, 99), 1), "mean": round(statistics.fmean(v), 1), "max": round(max(v), 1)}
            for kind, v in sorted({**stats.latencies, "all": all_lat}.items()) if v
        },
        "ingest_outcomes": dict(stats.ingest_status),
        "http_statuses": dict(sorted(stats.statuses.items())),
        "errors": dict(stats.errors),
        "verification": check,
        "server_exit_code": code,
        "server_log_tracebacks": server_log.count("Traceback"),
        "workers": args.workers,
        "mode": "server" if database_url else "embedded",
        "killed_worker": killed,
    }
    # With a worker killed on purpose, the requests it had in flight fail (never acknowledged);
    # everything acknowledged must still be there.
    failed_ok = killed is not None and all("HTTP" not in k for k in stats.errors)
    ok = (not stats.errors or failed_ok) and check["ok"] and sent == args.requests and (
        report["server_log_tracebacks"] == 0 or killed is not None)
    report["ok"] = ok
    if args.json:
        print(json.dumps(report, indent=2, default=str))
    else:
        print(f"{sent}/{args.requests} requests from {args.clients} clients in {wall:.1f} s "
              f"= {report['throughput_rps']} req/s (server startup {startup_s:.1f} s)")
        print(f"{'kind':<8}{'n':>6}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}")
        for kind, s in report["latency_ms"].items():
            print(f"{kind:<8}{s['n']:>6}{s['p50']:>9}{s['p95']:>9}{s['p99']:>9}{s['max']:>9}")
        print(f"ingest outcomes: {report['ingest_outcomes']}")
        print(f"errors: {report['errors'] or 'none'}")
        v = check
        print(f"verification: {v['memories_checked']} acknowledged memories checked; missing {len(v['missing'])}, "
              f"wrong owner {len(v['wrong_owner'])}, supersede not recorded {len(v['superseded_not_recorded'])}, "
              f"total mismatches {len(v['total_mismatch'])}, duplicate active slots {len(v['duplicate_active_slots'])}")
        for k in ("missing", "wrong_owner", "superseded_not_recorded", "total_mismatch", "duplicate_active_slots"):
            if v[k]:
                print(f"  {k}: {v[k] if isinstance(v[k], dict) else v[k][:10]}")
        print(f"server stopped (exit {code}); tracebacks in server log: {report['server_log_tracebacks']}")
        print("OK" if ok else "FAILED")
    if not ok and not args.server_log and report["server_log_tracebacks"]:
        first = server_log.find("Traceback")
        print("--- server log, first traceback ---\n" + server_log[max(0, first - 300):first + 4000], file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
