"""LoCoMo-format retrieval: `python -m evaluation.locomo --data PATH [--conversations N] [--k 1,5,10] [--json OUT]`.

Reads the public LoCoMo layout (list of samples with `conversation` sessions and `qa` items), ingests every
turn as its conversation's user with source_id = dia_id, and checks whether recall brings back the turns the
answer is grounded in (evidence). Two views per question, from one recall:
  * ranking  - threshold 0: is the evidence among the top k at all (pure retrieval quality);
  * served   - the engine's threshold: what a chatbot would actually be handed.
Category 5 (adversarial, unanswerable) is scored by how often the served result is empty. Each conversation's
answerable questions are also asked of the next conversation's user (a ring): the share served nothing there is
the refusal rate for questions about someone else's life. Malformed evidence ids are normalised; ids that name no
turn of the conversation are dropped and counted.
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


def iter_sessions(sample: dict[str, Any]) -> Iterator[list[tuple[dict[str, Any], str | None]]]:
    """The turns of each session together, in order (one ingest_many batch each)."""
    session: list[tuple[dict[str, Any], str | None]] = []
    for turn, when in iter_turns(sample):
        if session and when != session[-1][1]:
            yield session
            session = []
        session.append((turn, when))
    if session:
        yield session


def _ingest_session(eng: Any, user: str, session: list[tuple[dict[str, Any], str | None]],
                    stats: dict[str, Any]) -> None:
    """One session through ingest_many (one embedding batch); a batch that fails is retried turn by turn so
    one bad turn costs only itself and is named in the errors."""
    messages = [{"text": turn["text"], "source_id": turn.get("dia_id"), "timestamp": when,
                 "speaker": turn.get("speaker")} for turn, when in session]
    try:
        results = eng.ingest_many(messages, user_id=user)
    except Exception:
        results = []
        for message in messages:
            try:
                results.append(eng.ingest(message.pop("text"), user_id=user, **message))
            except Exception as exc:
                stats["errors"].append(f"{user}/{message.get('source_id')}: {type(exc).__name__}: {exc}")
    stats["ignored"] += sum(r.status == "ignored" for r in results)
    # Chat is mostly things said once: a memory replaced while a conversation is read is worth a look.
    stats["superseded"] += sum(len(r.superseded_ids) for r in results)


def evidence_ids(qa: dict[str, Any]) -> list[str]:
    """Evidence dia_ids as written, split where the public files pack several into one string ('D8:6; D9:17')."""
    out: list[str] = []
    for e in qa.get("evidence") or []:
        out += [x for x in re.split(r"[;,\s]+", str(e)) if x]
    return out


def normalize_evidence_id(raw: str) -> str | None:
    """Canonical 'D<session>:<turn>' of one evidence id, or None when it has no such shape.

    Covers the malformed forms in the public file: 'D:11:26' (stray colon), 'D30:05' (zero-padded turn),
    lower case and spaces. Whether the turn exists is checked by the caller against the conversation.
    """
    m = re.fullmatch(r"[Dd]\s*:?\s*0*(\d+)\s*:\s*0*(\d+)", raw.strip())
    return f"D{int(m.group(1))}:{int(m.group(2))}" if m else None


def resolve_evidence(qa: dict[str, Any], known: set[str]) -> tuple[list[str], list[str]]:
    """(evidence ids that name a turn of this conversation, deduplicated in order; raw ids dropped)."""
    resolved: list[str] = []
    dropped: list[str] = []
    for raw in evidence_ids(qa):
        norm = normalize_evidence_id(raw)
        if norm is None or norm not in known:
            dropped.append(raw)
        elif norm not in resolved:
            resolved.append(norm)
    return resolved, dropped


def _score(sids: list[str | None], evidence: list[str], k: int) -> tuple[float, bool]:
    top = set(s for s in sids[:k] if s)
    found = sum(1 for e in set(evidence) if e in top)
    return (found / len(set(evidence)) if evidence else 0.0), found > 0


def _hit_record(hit: Any) -> dict[str, Any]:
    return {"source_id": hit.memory.source_id, "text": hit.memory.text, "score": round(float(hit.score), 4)}


def evaluate(samples: list[dict[str, Any]], *, embedder: Any = None, ks: tuple[int, ...] = (1, 5, 10),
             settings_overrides: dict[str, Any] | None = None,
             progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Ingest every sample into one fresh store (one user per sample) and score evidence retrieval.

    Besides the per-question records ("questions") and per-category rows ("categories"), the result has
    "summary" (the headline figures) and "cross" (answerable questions of each conversation asked of the next
    conversation's user, in a ring: a served hit there is an answer from someone else's life).
    """
    from engine import MemoryEngine, load_embedder

    ks = tuple(sorted(set(ks)))
    kmax = ks[-1]
    overrides = {k: v for k, v in (settings_overrides or {}).items() if v is not None}
    started = time.perf_counter()
    questions: list[dict[str, Any]] = []
    cross: list[dict[str, Any]] = []
    ingest_stats: dict[str, Any] = {"turns": 0, "ignored": 0, "superseded": 0, "errors": []}
    evidence_stats: dict[str, Any] = {"ids": 0, "resolved": 0, "dropped": 0, "dropped_ids": [],
                                      "questions_without_evidence": 0}
    lat: list[float] = []
    timings: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="memlocomo-") as root:
        if embedder is None:
            embedder = load_embedder(settings_for(Path(root) / "model", overrides))
        settings = settings_for(Path(root) / "store", overrides)
        with MemoryEngine(settings, embedder=embedder) as eng:
            # Everything is ingested before any question, so the cross-conversation questions meet full stores.
            t_ingest = time.perf_counter()
            turn_text: dict[str, dict[str, str]] = {}
            stored: dict[str, set[str | None]] = {}
            for sample in samples:
                user = str(sample["sample_id"])
                turn_text[user] = {}
                if progress:
                    progress(f"ingesting {user}")
                for session in iter_sessions(sample):
                    ingest_stats["turns"] += len(session)
                    for turn, _ in session:
                        if turn.get("dia_id"):
                            turn_text[user][turn["dia_id"]] = turn.get("text", "")
                    _ingest_session(eng, user, session, ingest_stats)
                stored[user] = {m.source_id for m in _all_memories(eng, user)}
            timings["ingest_s"] = round(time.perf_counter() - t_ingest, 2)

            t_ask = time.perf_counter()
            users = [str(s["sample_id"]) for s in samples]
            for n, sample in enumerate(samples):
                user = users[n]
                if progress:
                    progress(f"asking {len(sample.get('qa', []))} questions of {user}")
                for qa in sample.get("qa", []):
                    raw = evidence_ids(qa)
                    ev, dropped = resolve_evidence(qa, set(turn_text[user]))
                    evidence_stats["ids"] += len(raw)
                    evidence_stats["resolved"] += len(ev)
                    evidence_stats["dropped"] += len(dropped)
                    evidence_stats["dropped_ids"] += [f"{user}: {d}" for d in dropped]
                    category = int(qa.get("category", 0))
                    if category in ANSWERABLE and not ev:
                        evidence_stats["questions_without_evidence"] += 1
                    t0 = time.perf_counter()
                    ranked = eng.recall(qa["question"], user_id=user, top_k=kmax, threshold=0.0)
                    lat.append((time.perf_counter() - t0) * 1000)
                    served = eng.rescore(ranked, threshold=settings.threshold, top_k=kmax)
                    rs = [h.memory.source_id for h in ranked.hits]
                    ss = [h.memory.source_id for h in served.hits]
                    q = {"sample_id": user, "question": qa["question"], "category": category,
                         "answer": qa.get("answer", qa.get("adversarial_answer")),
                         "evidence": ev, "evidence_dropped": dropped,
                         "evidence_texts": [{"source_id": e, "text": turn_text[user][e]} for e in ev],
                         "evidence_stored": sum(1 for e in ev if e in stored[user]),
                         "ranked_sources": rs, "served_sources": ss, "served_empty": not served.hits,
                         "ranked": [_hit_record(h) for h in ranked.hits],
                         "served": [_hit_record(h) for h in served.hits]}
                    for k in ks:
                        q[f"recall@{k}"], q[f"hit@{k}"] = _score(rs, ev, k)
                        q[f"served_recall@{k}"], q[f"served_hit@{k}"] = _score(ss, ev, k)
                    questions.append(q)
                if len(samples) > 1:
                    other = users[(n + 1) % len(users)]
                    for qa in sample.get("qa", []):
                        if int(qa.get("category", 0)) not in ANSWERABLE:
                            continue
                        res = eng.recall(qa["question"], user_id=other, top_k=kmax)
                        cross.append({"sample_id": user, "asked_of": other, "question": qa["question"],
                                      "category": int(qa["category"]), "served_empty": not res.hits,
                                      "served": [_hit_record(h) for h in res.hits]})
            timings["questions_s"] = round(time.perf_counter() - t_ask, 2)
    categories = summarize(questions, ks)
    return {"meta": {"timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                     "samples": len(samples), "questions": len(questions), "ks": list(ks),
                     "threshold": settings.threshold, "git_commit": git_commit(),
                     "duration_s": round(time.perf_counter() - started, 2), **timings,
                     "recall_p50_ms": percentile(lat, 50), "recall_p95_ms": percentile(lat, 95)},
            "ingest": ingest_stats, "evidence": evidence_stats, "categories": categories,
            "summary": headline(questions, cross, ks), "questions": questions, "cross": cross}


ANSWERABLE = (1, 2, 3, 4)


def headline(questions: list[dict[str, Any]], cross: list[dict[str, Any]], ks: tuple[int, ...]) -> dict[str, Any]:
    """The figures issue 10 asks for, over categories 1-4 unless named otherwise (None when not measurable)."""
    def mean(values: list[float]) -> float | None:
        return sum(values) / len(values) if values else None

    answerable = [q for q in questions if q["category"] in ANSWERABLE and q["evidence"]]
    adversarial = [q for q in questions if q["category"] == 5]
    out: dict[str, Any] = {"answerable_n": len(answerable), "adversarial_n": len(adversarial),
                           "cross_n": len(cross)}
    for k in ks:
        out[f"ranking_recall@{k}"] = mean([q[f"recall@{k}"] for q in answerable])
        out[f"served_recall@{k}"] = mean([q[f"served_recall@{k}"] for q in answerable])
    out["answerable_refused"] = mean([float(q["served_empty"]) for q in answerable])
    out["adversarial_abstention"] = mean([float(q["served_empty"]) for q in adversarial])
    out["cross_refusal"] = mean([float(c["served_empty"]) for c in cross])
    return out


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
    groups.append(("1-4", "answerable", [q for q in questions if q["category"] in ANSWERABLE]))
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
             f"{result['ingest']['turns']} turns ({result['ingest']['ignored']} ignored, "
             f"{result['ingest'].get('superseded', 0)} memories superseded while reading them), "
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
    sm, ev = result.get("summary"), result.get("evidence")
    if sm:
        def pct(x: float | None) -> str:
            return "n/a" if x is None else f"{100 * x:.1f}%"
        rk = " ".join(f"R@{k} {sm[f'ranking_recall@{k}']:.3f}" for k in ks if sm.get(f"ranking_recall@{k}") is not None)
        sv = " ".join(f"R@{k} {sm[f'served_recall@{k}']:.3f}" for k in ks if sm.get(f"served_recall@{k}") is not None)
        lines += [f"categories 1-4 ({sm['answerable_n']} questions with evidence): ranking only {rk}; "
                  f"at threshold {result['meta']['threshold']} {sv}",
                  f"answerable refused (served nothing): {pct(sm['answerable_refused'])}; "
                  f"category 5 abstention: {pct(sm['adversarial_abstention'])} of {sm['adversarial_n']}; "
                  f"asked of another conversation, refused: {pct(sm['cross_refusal'])} of {sm['cross_n']}"]
    if ev:
        lines.append(f"evidence ids: {ev['ids']} given, {ev['resolved']} resolved, {ev['dropped']} dropped "
                     f"({', '.join(ev['dropped_ids'][:8])}); answerable questions left without evidence: "
                     f"{ev['questions_without_evidence']}")
    m = result["meta"]
    if "ingest_s" in m:
        lines.append(f"time: ingest {m['ingest_s']} s, questions {m['questions_s']} s, total {m['duration_s']} s; "
                     f"recall p50 {m['recall_p50_ms']:.1f} ms")
    if result["ingest"]["errors"]:
        lines.append(f"ingest errors: {len(result['ingest']['errors'])}, first: {result['ingest']['errors'][0]}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evaluation.locomo", description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(SAMPLE_PATH), help="LoCoMo JSON file (default: the bundled sample)")
    ap.add_argument("--k", default="1,5,10", help="comma-separated k values")
    ap.add_argument("--threshold", type=float, help="served threshold (default: the engine's)")
    ap.add_argument("--json", dest="json_out", help="write the result JSON here")
    ap.add_argument("--conversations", type=int, help="only the first N conversations")
    args = ap.parse_args(argv)
    ks = tuple(int(x) for x in args.k.split(",") if x.strip())
    samples = load_locomo(args.data)
    if args.conversations is not None:
        if args.conversations < 1:
            ap.error("--conversations must be at least 1")
        samples = samples[:args.conversations]
    result = evaluate(samples, ks=ks, settings_overrides={"threshold": args.threshold},
                      progress=lambda msg: print(msg, file=sys.stderr))
    print(format_locomo(result))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
        print(f"saved to {args.json_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
