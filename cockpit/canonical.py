"""The canonical 4-turn walkthrough (memengine.txt), run on a fresh temporary store.

``run_canonical`` returns plain data (one dict per step with its checks) that the page draws.
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from engine import MemoryEngine, Settings

INGESTS: list[tuple[str, str]] = [
    ("I use Arch Linux.", "created"),
    ("I'm building a Next.js app.", "created"),
    ("My project deadline is October 15.", "created"),
    ("Actually, the deadline moved to November 2.", "superseded"),
]
QUERIES: list[dict[str, Any]] = [
    {"query": "What OS does the user use?", "first": "Arch Linux", "absent": None, "empty": False},
    {"query": "When is the project deadline?", "first": "November 2", "absent": "October 15", "empty": False},
    {"query": "What is the user's favourite food?", "first": None, "absent": None, "empty": True},
]
USER = "canonical"


def _check(desc: str, passed: bool) -> dict[str, Any]:
    return {"check": desc, "passed": bool(passed)}


def _hit_row(hit: Any) -> dict[str, Any]:
    return {
        "id": hit.memory.id,
        "text": hit.memory.text,
        "score": round(hit.score, 3),
        "semantic": round(hit.semantic, 3),
        "lexical": round(hit.lexical, 3),
        "importance": round(hit.importance, 3),
    }


def run_canonical(embedder: Any, settings_overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Ingest the four messages and ask the three questions on a throwaway store; check every expectation."""
    steps: list[dict[str, Any]] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="memengine-canonical-") as tmp:
        cfg = Settings(data_dir=Path(tmp), **(settings_overrides or {}))
        with MemoryEngine(cfg, embedder=embedder) as eng:
            deadline_id: int | None = None
            for n, (text, expected) in enumerate(INGESTS, start=1):
                t0 = time.perf_counter()
                r = eng.ingest(text, user_id=USER)
                ms = (time.perf_counter() - t0) * 1000
                mem = r.memories[0] if r.memories else None
                checks = [_check(f"status is `{expected}`", r.status == expected)]
                if "deadline is October 15" in text and mem is not None:
                    deadline_id = mem.id
                if expected == "superseded":
                    checks.append(
                        _check(
                            f"replaces the October 15 deadline (#{deadline_id})",
                            deadline_id is not None and deadline_id in r.superseded_ids,
                        )
                    )
                steps.append(
                    {
                        "step": n,
                        "kind": "ingest",
                        "input": text,
                        "expect": f"status {expected}",
                        "got": r.status,
                        "detail": r.message,
                        "memories": [
                            {"id": m.id, "text": m.text, "subject": m.subject, "attribute": m.attribute,
                             "value": m.value, "type": m.type, "importance": m.importance}
                            for m in r.memories
                        ],
                        "superseded_ids": list(r.superseded_ids),
                        "latency_ms": round(ms, 1),
                        "checks": checks,
                    }
                )
            for n, q in enumerate(QUERIES, start=len(INGESTS) + 1):
                t0 = time.perf_counter()
                res = eng.recall(q["query"], user_id=USER)
                ms = (time.perf_counter() - t0) * 1000
                texts = [h.memory.text for h in res.hits]
                checks = []
                if q["first"]:
                    checks.append(_check(f"`{q['first']}` ranked first", bool(texts) and q["first"] in texts[0]))
                if q["absent"]:
                    checks.append(_check(f"`{q['absent']}` returned nowhere", all(q["absent"] not in t for t in texts)))
                if q["empty"]:
                    checks.append(_check("returns `[]` (nothing clears the threshold)", not texts))
                if q["first"]:
                    expect = f"{q['first']} first" + (f", {q['absent']} nowhere" if q["absent"] else "")
                else:
                    expect = "[]"
                steps.append(
                    {
                        "step": n,
                        "kind": "recall",
                        "input": q["query"],
                        "expect": expect,
                        "got": texts[0] if texts else "[]",
                        "confidence": res.confidence,
                        "threshold": res.threshold,
                        "hits": [_hit_row(h) for h in res.hits],
                        "below_threshold": [_hit_row(h) for h in res.below_threshold[:3]],
                        "latency_ms": round(ms, 1),
                        "checks": checks,
                    }
                )
    for s in steps:
        s["passed"] = all(c["passed"] for c in s["checks"])
    checks_total = sum(len(s["checks"]) for s in steps)
    checks_passed = sum(c["passed"] for s in steps for c in s["checks"])
    return {
        "steps": steps,
        "passed": checks_passed == checks_total,
        "checks_passed": checks_passed,
        "checks_total": checks_total,
        "elapsed_ms": round((time.perf_counter() - started) * 1000, 1),
    }
