"""LoCoMo-format retrieval: `python -m evaluation.locomo --data PATH [--k 1,5,10] [--json OUT]`.

Reads the public LoCoMo layout (list of samples with `conversation` sessions and `qa` items), ingests every
turn as its conversation's user with source_id = dia_id, and checks whether recall brings back the turns the
answer is grounded in (evidence). Two views per question, from one recall:
  * ranking  - threshold 0: is the evidence among the top k at all (pure retrieval quality);
  * served   - the engine's threshold: what a chatbot would actually be handed.
Category 5 (adversarial, unanswerable) is scored by how often the served result is empty.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

from evaluation.runner import git_commit, percentile, settings_for

CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
SAMPLE_PATH = Path(__file__).parent / "data" / "locomo_sample.json"


def load_locomo(path: str | Path) -> list[dict[str, Any]]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if isinstance(data, dict):  # tolerate a single sample
        data = [data]
    if not isinstance(data, list) or not all(isinstance(s, dict) and "conversation" in s for s in data):
        raise ValueError(f"{path}: not LoCoMo format (expected a list of samples with 'conversation')")
    return data


def parse_date(text: str | None) -> str | None:
    """'1:56 pm on 8 May, 2023' -> '2023-05-08T13:56:00'; anything else is passed through unchanged."""
    if not text:
        return None
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"):
        try:
            return datetime.strptime(text.strip(), fmt).isoformat()
        except ValueError:
            pass
    return text


def iter_turns(sample: dict[str, Any]) -> Iterator[tuple[dict[str, Any], str | None]]:
    """(turn, session timestamp) in session order."""
    conv = sample["conversation"]
    nums = sorted(int(m.group(1)) for k in conv if (m := re.fullmatch(r"session_(\d+)", k)))
    for n in nums:
        when = parse_date(conv.get(f"session_{n}_date_time"))
        for turn in conv[f"session_{n}"] or []:
            yield turn, when


def evidence_ids(qa: dict[str, Any]) -> list[str]:
    """Evidence dia_ids; the public files sometimes pack several into one string ('D8:6; D9:17')."""
    out: list[str] = []
    for e in qa.get("evidence") or []:
        out += [x for x in re.split(r"[;,\s]+", str(e)) if x]
    return out


def _score(sids: list[str | None], evidence: list[str], k: int) -> tuple[float, bool]:
    top = set(s for s in sids[:k] if s)
    found = sum(1 for e in set(evidence) if e in top)
    return (found / len(set(evidence)) if evidence else 0.0), found > 0


def evaluate(samples: list[dict[str, Any]], *, embedder: Any = None, ks: tuple[int, ...] = (1, 5, 10),
             settings_overrides: dict[str, Any] | None = None,
             progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Ingest every sample into one fresh store (one user per sample) and score evidence retrieval."""
    from engine import MemoryEngine, load_embedder

    ks = tuple(sorted(set(ks)))
    kmax = ks[-1]
    overrides = {k: v for k, v in (settings_overrides or {}).items() if v is not None}
    started = time.perf_counter()
    questions: list[dict[str, Any]] = []
    ingest_stats: dict[str, Any] = {"turns": 0, "ignored": 0, "errors": []}
    lat: list[float] = []
    with tempfile.TemporaryDirectory(prefix="memlocomo-") as root:
        if embedder is None:
            embedder = load_embedder(settings_for(Path(root) / "model", overrides))
        settings = settings_for(Path(root) / "store", overrides)
        with MemoryEngine(settings, embedder=embedder) as eng:
            for sample in samples:
                user = str(sample["sample_id"])
                if progress:
                    progress(f"ingesting {user}")
                for turn, when in iter_turns(sample):
                    ingest_stats["turns"] += 1
                    try:
                        r = eng.ingest(turn["text"], user_id=user, source_id=turn.get("dia_id"), timestamp=when,
                                       speaker=turn.get("speaker"))
                        ingest_stats["ignored"] += r.status == "ignored"
                    except Exception as exc:
                        ingest_stats["errors"].append(f"{user}/{turn.get('dia_id')}: {type(exc).__name__}: {exc}")
                stored = {m.source_id for m in _all_memories(eng, user)}
                if progress:
                    progress(f"asking {len(sample.get('qa', []))} questions of {user}")
                for qa in sample.get("qa", []):
                    ev = evidence_ids(qa)
                    t0 = time.perf_counter()
                    ranked = eng.recall(qa["question"], user_id=user, top_k=kmax, threshold=0.0)
                    lat.append((time.perf_counter() - t0) * 1000)
                    served = eng.rescore(ranked, threshold=settings.threshold, top_k=kmax)
                    rs = [h.memory.source_id for h in ranked.hits]
                    ss = [h.memory.source_id for h in served.hits]
                    q = {"sample_id": user, "question": qa["question"], "category": int(qa.get("category", 0)),
                         "evidence": ev, "evidence_stored": sum(1 for e in set(ev) if e in stored),
                         "ranked_sources": rs, "served_sources": ss, "served_empty": not served.hits}
                    for k in ks:
                        q[f"recall@{k}"], q[f"hit@{k}"] = _score(rs, ev, k)
                        q[f"served_recall@{k}"], q[f"served_hit@{k}"] = _score(ss, ev, k)
                    questions.append(q)
    return {"meta": {"timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                     "samples": len(samples), "questions": len(questions), "ks": list(ks),
                     "threshold": settings.threshold, "git_commit": git_commit(),
                     "duration_s": round(time.perf_counter() - started, 2),
                     "recall_p50_ms": percentile(lat, 50), "recall_p95_ms": percentile(lat, 95)},
            "ingest": ingest_stats, "categories": summarize(questions, ks), "questions": questions}


def _all_memories(eng: Any, user: str) -> list[Any]:
    out: list[Any] = []
    while True:
        page = eng.list_memories(user_id=user, status="all", limit=500, offset=len(out))
        out += page
        if len(page) < 500:
            return out


def summarize(questions: list[dict[str, Any]], ks: tuple[int, ...]) -> list[dict[str, Any]]:
    """Per-category means (and an 'answerable' row over categories 1-4)."""
    rows = []
    groups = [(str(c), CATEGORY_NAMES.get(c, str(c)), [q for q in questions if q["category"] == c])
              for c in sorted({q["category"] for q in questions})]
    groups.append(("1-4", "answerable", [q for q in questions if q["category"] in (1, 2, 3, 4)]))
    for cid, name, qs in groups:
        if not qs:
            continue
        row: dict[str, Any] = {"category": cid, "name": name, "n": len(qs)}
        for k in ks:
            for key in (f"recall@{k}", f"hit@{k}", f"served_recall@{k}", f"served_hit@{k}"):
                row[key] = sum(float(q[key]) for q in qs) / len(qs)
        row["served_empty"] = sum(q["served_empty"] for q in qs) / len(qs)
        ev = sum(len(set(q["evidence"])) for q in qs)
        row["evidence_stored"] = sum(q["evidence_stored"] for q in qs) / ev if ev else None
        rows.append(row)
    return rows


def format_locomo(result: dict[str, Any]) -> str:
    ks = result["meta"]["ks"]
    head = f" {'category':<18} {'n':>3} " + " ".join(f"{'R@' + str(k):>6} {'hit@' + str(k):>6}" for k in ks)
    head += "  " + " ".join(f"{'sR@' + str(k):>6}" for k in ks) + f" {'empty':>6} {'ev.stored':>9}"
    lines = [f"LoCoMo retrieval: {result['meta']['samples']} conversations, {result['meta']['questions']} questions, "
             f"{result['ingest']['turns']} turns ({result['ingest']['ignored']} ignored), "
             f"served threshold {result['meta']['threshold']}", head]
    for r in result["categories"]:
        cells = " ".join(f"{r[f'recall@{k}']:>6.2f} {r[f'hit@{k}']:>6.2f}" for k in ks)
        served = " ".join(f"{r[f'served_recall@{k}']:>6.2f}" for k in ks)
        stored = "n/a" if r["evidence_stored"] is None else f"{r['evidence_stored']:.2f}"
        lines.append(f" {r['category'] + ' ' + r['name']:<18} {r['n']:>3} {cells}  {served} "
                     f"{r['served_empty']:>6.2f} {stored:>9}")
    lines.append("R@k/hit@k: ranking without threshold; sR@k: what the engine serves at its threshold; "
                 "empty: share of questions served nothing (the goal for 5 adversarial); "
                 "ev.stored: share of evidence turns that became memories.")
    if result["ingest"]["errors"]:
        lines.append(f"ingest errors: {len(result['ingest']['errors'])}, first: {result['ingest']['errors'][0]}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evaluation.locomo", description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(SAMPLE_PATH), help="LoCoMo JSON file (default: the bundled sample)")
    ap.add_argument("--k", default="1,5,10", help="comma-separated k values")
    ap.add_argument("--threshold", type=float, help="served threshold (default: the engine's)")
    ap.add_argument("--json", dest="json_out", help="write the result JSON here")
    args = ap.parse_args(argv)
    ks = tuple(int(x) for x in args.k.split(",") if x.strip())
    result = evaluate(load_locomo(args.data), ks=ks, settings_overrides={"threshold": args.threshold},
                      progress=lambda msg: print(msg, file=sys.stderr))
    print(format_locomo(result))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
        print(f"saved to {args.json_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
