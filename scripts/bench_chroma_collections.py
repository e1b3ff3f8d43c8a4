"""Per-user Chroma collections vs one shared collection, on a real `chroma run` server on loopback.

`python scripts/bench_chroma_collections.py [--users 1000 10000] [--vectors-per-user 5] [--queries 200]`

For each user count it starts a fresh Chroma server (in a temp dir, 127.0.0.1, a free port) and measures:
- per-user layout: the cost of creating one collection per user (and adding the user's vectors),
  then the cost of a top-5 query in one user's collection;
- shared layout: one collection holding the same total number of vectors with a `user_id` metadata
  field, the cost of adding them in batches, then the cost of a top-5 query with `where={"user_id": ...}`.
It also reports the server's data directory size for each layout. Collections use Chroma's default
HNSW parameters with cosine space; `--engine-hnsw` uses the engine's own (engine/index.py: more
neighbours, wider search), which makes both layouts' queries slower and each collection a bit bigger. Vectors are random unit vectors of
MiniLM's dimension (384) from a seeded generator, so every run stores and asks the same things.
The figures are wall-clock times on whatever else the machine is doing: run it on a quiet machine.
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

DIMENSION = 384  # all-MiniLM-L6-v2
ADD_BATCH = 2_000  # vectors per add() call on the shared collection


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def chroma_executable() -> str:
    beside_python = Path(sys.executable).with_name("chroma")
    found = str(beside_python) if beside_python.exists() else shutil.which("chroma")
    if not found:
        raise SystemExit("the `chroma` command is not installed (pip install chromadb)")
    return found


@contextmanager
def chroma_server(path: Path) -> Iterator[tuple[int, int]]:
    """A `chroma run` on 127.0.0.1 with its data under `path`; yields (port, pid), stops the server after."""
    port = free_port()
    log = open(path.parent / f"{path.name}.log", "wb")
    proc = subprocess.Popen([chroma_executable(), "run", "--host", "127.0.0.1", "--port", str(port),
                             "--path", str(path)], stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"chroma run did not start; see {log.name}")
                time.sleep(0.2)
        yield port, proc.pid
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def collection_options(engine_hnsw: bool) -> dict[str, Any]:
    if engine_hnsw:
        from engine.index import HNSW

        return {"configuration": {"hnsw": dict(HNSW)}}
    return {"metadata": {"hnsw:space": "cosine"}}


def unit_vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.standard_normal((n, DIMENSION)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def open_files(pid: int) -> str:
    """The server's open file descriptors against its limit (Linux): per-user collections hold files open."""
    try:
        count = len(os.listdir(f"/proc/{pid}/fd"))
        with open(f"/proc/{pid}/limits") as limits:
            line = next(x for x in limits if x.startswith("Max open files"))
        return f"{count} of {line.split()[3]}"
    except (OSError, StopIteration):
        return "unknown"


def directory_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


def summary(samples_s: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples_s)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    return f"mean {statistics.fmean(ms):7.2f} ms  p50 {statistics.median(ms):7.2f} ms  p95 {p95:7.2f} ms"


def bench_per_user(workdir: Path, users: int, per_user: int, queries: int, seed: int, engine_hnsw: bool) -> None:
    import chromadb

    rng = np.random.default_rng(seed)
    path = workdir / f"per_user_{users}"
    with chroma_server(path) as (port, pid):
        client = chromadb.HttpClient(host="127.0.0.1", port=port)
        creates, adds = [], []
        started_all = time.perf_counter()
        for u in range(users):
            try:
                started = time.perf_counter()
                col = client.create_collection(f"user_{u}", **collection_options(engine_hnsw))
                creates.append(time.perf_counter() - started)
                vectors = unit_vectors(rng, per_user)
                started = time.perf_counter()
                col.add(ids=[f"{u}:{i}" for i in range(per_user)], embeddings=vectors.tolist())
                adds.append(time.perf_counter() - started)
            except Exception as exc:  # noqa: BLE001 - the failure is a result: report it, measure what was built
                print(f"  FAILED at collection {u + 1}: {type(exc).__name__}: {str(exc)[:160]}; "
                      f"server open files {open_files(pid)}", flush=True)
                users = len(adds)
                break
            if users >= 1000 and (u + 1) % (users // 10) == 0:
                print(f"  ... {u + 1} collections, {time.perf_counter() - started_all:.0f} s, "
                      f"server open files {open_files(pid)}", flush=True)
        if users == 0:
            return
        total = time.perf_counter() - started_all
        first, last = creates[: max(1, users // 10)], creates[-max(1, users // 10):]
        print(f"per-user, {users} collections x {per_user} vectors: built in {total:.1f} s")
        print(f"  create_collection (all)       {summary(creates)}")
        print(f"  create_collection (first 10%) {summary(first)}")
        print(f"  create_collection (last 10%)  {summary(last)}")
        print(f"  add {per_user} vectors (one user)  {summary(adds)}")
        lookups, answers = [], []
        for _ in range(queries):
            u = int(rng.integers(users))
            q = unit_vectors(rng, 1).tolist()
            try:
                started = time.perf_counter()
                col = client.get_collection(f"user_{u}")
                lookup = time.perf_counter() - started
                started = time.perf_counter()
                col.query(query_embeddings=q, n_results=min(5, per_user))
                answers.append(time.perf_counter() - started)
                lookups.append(lookup)
            except Exception as exc:  # noqa: BLE001 - e.g. the server is out of file descriptors
                print(f"  query FAILED: {type(exc).__name__}: {str(exc)[:160]}", flush=True)
                break
        if not answers:
            return
        print(f"  get_collection                {summary(lookups)}")
        print(f"  query top-5                   {summary(answers)}")
        print(f"  get + query                   {summary([a + b for a, b in zip(lookups, answers)])}")
    print(f"  data directory               {directory_mb(path):.1f} MB")


def bench_shared(workdir: Path, users: int, per_user: int, queries: int, seed: int, engine_hnsw: bool) -> None:
    import chromadb

    rng = np.random.default_rng(seed)
    path = workdir / f"shared_{users}"
    total_vectors = users * per_user
    with chroma_server(path) as (port, _pid):
        client = chromadb.HttpClient(host="127.0.0.1", port=port)
        started = time.perf_counter()
        col = client.create_collection("memories", **collection_options(engine_hnsw))
        create_s = time.perf_counter() - started
        adds = []
        started_all = time.perf_counter()
        for start in range(0, total_vectors, ADD_BATCH):
            n = min(ADD_BATCH, total_vectors - start)
            ids = range(start, start + n)
            vectors = unit_vectors(rng, n)
            started = time.perf_counter()
            col.add(ids=[str(i) for i in ids], embeddings=vectors.tolist(),
                    metadatas=[{"user_id": f"user_{i // per_user}"} for i in ids])
            adds.append(time.perf_counter() - started)
        total = time.perf_counter() - started_all
        print(f"shared, 1 collection x {total_vectors} vectors ({users} users): built in {total:.1f} s")
        print(f"  create_collection            {create_s * 1000:7.2f} ms")
        print(f"  add {ADD_BATCH} vectors (batch)     {summary(adds)}")
        answers = []
        for _ in range(queries):
            u = int(rng.integers(users))
            q = unit_vectors(rng, 1).tolist()
            started = time.perf_counter()
            col.query(query_embeddings=q, n_results=min(5, per_user), where={"user_id": f"user_{u}"})
            answers.append(time.perf_counter() - started)
        print(f"  query top-5 where user_id    {summary(answers)}")
    print(f"  data directory               {directory_mb(path):.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--vectors-per-user", type=int, default=5)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--engine-hnsw", action="store_true", help="the engine's HNSW parameters, not Chroma's")
    args = parser.parse_args()
    print(f"chroma run on 127.0.0.1; {os.cpu_count()} CPUs; {args.vectors_per_user} vectors per user; "
          f"{args.queries} queries per layout; dimension {DIMENSION}; "
          f"HNSW {'of the engine' if args.engine_hnsw else 'Chroma defaults'}", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench_chroma_") as tmp:
        for users in args.users:
            bench_shared(Path(tmp), users, args.vectors_per_user, args.queries, args.seed, args.engine_hnsw)
            bench_per_user(Path(tmp), users, args.vectors_per_user, args.queries, args.seed, args.engine_hnsw)
            print(flush=True)


if __name__ == "__main__":
    main()
