"""Recall time with many speaker names (issue 12, Medium 7): the speaker lookup must not grow with them.

`python scripts/bench_many_speakers.py [--speakers 20000] [--queries 20]`

Builds a store in a temp dir with a few real memories, imports one logged message per distinct speaker
(messages only: nothing to embed), then times recall for questions that name a speaker and questions
that name nobody, and prints the medians next to the same store before the import. Wall-clock times on
whatever else the machine is doing: run it on a quiet machine. Uses the configured embedding model.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import MemoryEngine, Settings  # noqa: E402

QUESTIONS = ["What does Marta's sister do?", "Where does Kenji live?", "What is the favourite food?",
             "Who likes hiking?"]


def median_recall_ms(eng: MemoryEngine, queries: int) -> float:
    times = []
    for n in range(queries):
        started = time.perf_counter()
        eng.recall(QUESTIONS[n % len(QUESTIONS)], user_id="group")
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--speakers", type=int, default=20_000)
    parser.add_argument("--queries", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memengine-speakers-") as tmp:
        with MemoryEngine(Settings(data_dir=tmp)) as eng:
            eng.ingest("My sister is a nurse in Lima.", user_id="group", speaker="Marta")
            eng.ingest("I live in Kyoto.", user_id="group", speaker="Kenji")
            eng.ingest("My favourite food is ramen.", user_id="group", speaker="Kenji")
            eng.recall("warm-up", user_id="group")
            before = median_recall_ms(eng, args.queries)
            header = next(iter(eng.export_records("group")))
            records = [header] + [
                {"kind": "message", "id": 10_000_000 + n, "user_id": "group", "text": f"Hello from person {n}.",
                 "speaker": f"Person{n:06d} Family{n}", "created_at": "2024-01-01T00:00:00+00:00"}
                for n in range(args.speakers)]
            started = time.perf_counter()
            eng.import_records(records)
            imported_s = time.perf_counter() - started
            after = median_recall_ms(eng, args.queries)
            speakers = len(eng._speakers.get("group"))
    print(f"speakers known: {speakers} (import of {args.speakers} messages: {imported_s:.1f} s)")
    print(f"median recall: {before:.1f} ms with 2 speakers, {after:.1f} ms with {speakers} speakers "
          f"({args.queries} queries each)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
