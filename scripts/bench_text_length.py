"""Ingest time against message length: `python scripts/bench_text_length.py`.

Prints the curve for natural text and for regex-hungry input (long runs of one character, of
spaces, of a repeated phrase) from 1,000 to 20,000 characters. Linear growth shows as a steady
ms-per-1,000-characters column.
"""
from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import MemoryEngine, Settings, load_embedder  # noqa: E402

SENTENCES = ("I live in Oslo and I work at a small design studio. My sister Ana is a nurse in Bergen. "
             "We love hiking in the mountains on weekends, and I am learning Japanese. ")
SHAPES = {
    "natural text": lambda n: (SENTENCES * (n // len(SENTENCES) + 1))[:n],
    "one character": lambda n: "a" * n,
    "spaces": lambda n: "I live in" + " " * (n - 10) + "x",
    "repeated phrase": lambda n: ("my x is " * (n // 8 + 1))[:n],
}
LENGTHS = (1_000, 2_500, 5_000, 10_000, 20_000)


def main() -> None:
    embedder = load_embedder(Settings())
    with tempfile.TemporaryDirectory() as tmp, MemoryEngine(Settings(data_dir=tmp), embedder=embedder) as eng:
        eng.ingest("warm up")
        print(f"{'input':<16} {'chars':>7} {'ms':>9} {'ms per 1k chars':>16}")
        for name, make in SHAPES.items():
            for n in LENGTHS:
                text = make(n)
                runs = []
                for i in range(3):
                    started = time.perf_counter()
                    eng.ingest(text, user_id=f"{name}-{n}-{i}")
                    runs.append((time.perf_counter() - started) * 1000)
                ms = statistics.median(runs)
                print(f"{name:<16} {n:>7} {ms:>9.1f} {ms / (n / 1000):>16.2f}")


if __name__ == "__main__":
    main()
