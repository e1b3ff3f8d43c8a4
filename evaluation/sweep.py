"""Calibration: `python -m evaluation.sweep [--split dev] [--json OUT]`.

Each case is ingested and recalled ONCE with a near-zero threshold to capture its candidates; the grid of
threshold x alpha x importance_weight is then explored with `eng.rescore` (no re-embedding), so the full grid
costs about as much as one evaluation run. Cases are judged by the same `check_case` the runner uses.
Pick settings on dev, report them on test (`python -m evaluation.run --split test --threshold ...`).
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from evaluation.checks import check_case, query_user
from evaluation.runner import git_commit, ingest_case, load_cases, settings_for

THRESHOLDS = [round(0.05 + 0.01 * i, 2) for i in range(91)]   # 0.05 .. 0.95: the calibrated score is a probability
ALPHAS = [round(0.60 + 0.05 * i, 2) for i in range(9)]         # 0.60 .. 1.00
WEIGHTS = [0.0, 0.05, 0.1, 0.15, 0.2]
CAPTURE_K = 20
EPS = 1e-9


def _rate(num: int, den: int) -> float | None:
    return num / den if den else None


def _run_lengths(flags: list[bool], i: int) -> int:
    """How many steps one can move from index i in both directions staying inside the plateau (min side)."""
    left = right = 0
    while i - left - 1 >= 0 and flags[i - left - 1]:
        left += 1
    while i + right + 1 < len(flags) and flags[i + right + 1]:
        right += 1
    return min(left, right)


def sweep(cases: list[dict[str, Any]], embedder: Any = None, *, thresholds: list[float] | None = None,
          alphas: list[float] | None = None, weights: list[float] | None = None,
          settings_overrides: dict[str, Any] | None = None,
          progress: Callable[[int, int, str], None] | None = None) -> dict[str, Any]:
    """Grid-search recall knobs on `cases`; returns a JSON-safe dict with the grid, curves and best setting.

    best: maximizes overall accuracy subject to unknown rejection = 100% when any grid point reaches it;
    among equally good points it takes the one deepest inside the plateau (threshold first), so a small
    shift in score distributions does not fall off an edge.
    """
    from engine import MemoryEngine, Settings, load_embedder

    ths, als, wts = thresholds or THRESHOLDS, alphas or ALPHAS, weights or WEIGHTS
    combos = [(t, a, w) for a in als for w in wts for t in ths]
    fails: dict[tuple[float, float, float], list[str]] = {c: [] for c in combos}
    r5: dict[tuple[float, float, float], list[float]] = {c: [] for c in combos}
    top1: dict[tuple[float, float, float], list[bool]] = {c: [] for c in combos}
    rejected: dict[tuple[float, float, float], int] = {c: 0 for c in combos}
    unknown_ids = [c["id"] for c in cases if c.get("expect_empty")]
    overrides = {k: v for k, v in (settings_overrides or {}).items() if v is not None}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="memsweep-") as root:
        if embedder is None:
            embedder = load_embedder(settings_for(Path(root) / "model", overrides))
        defaults = settings_for(Path(root), overrides)
        for n, case in enumerate(cases):
            data_dir = Path(root) / f"case-{n:04d}"
            with MemoryEngine(settings_for(data_dir, overrides), embedder=embedder) as eng:
                statuses, errors = ingest_case(eng, case)
                try:
                    active = eng.count_memories(user_id=query_user(case), status="active")
                    captured = eng.recall(case["query"], user_id=query_user(case), top_k=CAPTURE_K, threshold=0.0,
                                          include_history=case.get("include_history"))
                except Exception:  # counted as failed at every grid point; the runner shows the error text
                    captured = None
                for combo in combos:
                    if captured is None:
                        fails[combo].append(case["id"])
                        continue
                    t, a, w = combo
                    res = eng.rescore(captured, threshold=t, alpha=a, importance_weight=w, top_k=defaults.top_k)
                    hits = [{"text": h.memory.text, "score": h.score} for h in res.hits]
                    chk = check_case(case, hits, statuses, active)
                    if errors or not chk.passed:
                        fails[combo].append(case["id"])
                    if chk.recall_at_5 is not None:
                        r5[combo].append(chk.recall_at_5)
                    if chk.top1_ok is not None:
                        top1[combo].append(chk.top1_ok)
                    rejected[combo] += bool(chk.rejected)
            shutil.rmtree(data_dir, ignore_errors=True)
            if progress:
                progress(n + 1, len(cases), case["id"])

    n_all, n_unk = len(cases), len(unknown_ids)
    n_ans = n_all - n_unk

    def row(combo: tuple[float, float, float]) -> dict[str, Any]:
        t, a, w = combo
        failed = fails[combo]
        ans_failed = sum(1 for cid in failed if cid not in unknown_ids)
        return {
            "threshold": t, "alpha": a, "importance_weight": w,
            "accuracy": _rate(n_all - len(failed), n_all),
            "answer_accuracy": _rate(n_ans - ans_failed, n_ans),
            "unknown_rejection": _rate(rejected[combo], n_unk),
            "recall_at_5": sum(r5[combo]) / len(r5[combo]) if r5[combo] else None,
            "top1": _rate(sum(top1[combo]), len(top1[combo])),
        }

    rows = {c: row(c) for c in combos}
    feasible = [c for c in combos if n_unk == 0 or rows[c]["unknown_rejection"] >= 1 - EPS]
    constraint_met = bool(feasible)
    pool = feasible or combos
    best_acc = max(rows[c]["accuracy"] or 0 for c in pool)
    optimal = {c for c in pool if abs((rows[c]["accuracy"] or 0) - best_acc) < EPS}

    def depth(c: tuple[float, float, float]) -> tuple[float, ...]:
        t, a, w = c
        mt = _run_lengths([(x, a, w) in optimal for x in ths], ths.index(t))
        ma = _run_lengths([(t, x, w) in optimal for x in als], als.index(a))
        mw = _run_lengths([(t, a, x) in optimal for x in wts], wts.index(w))
        closeness = -abs(a - defaults.alpha) - abs(w - defaults.importance_weight)
        return (mt, ma + mw, closeness, -t)

    best = max(optimal, key=depth)
    unconstrained = max(combos, key=lambda c: (rows[c]["accuracy"] or 0, -abs(c[0] - defaults.threshold)))
    bt, ba, bw = best
    plateau = [t for t in ths if (t, ba, bw) in optimal]

    def curve(a: float, w: float) -> list[dict[str, Any]]:
        return [{k: v for k, v in rows[(t, a, w)].items() if k not in ("alpha", "importance_weight")} for t in ths]

    default_key = (round(defaults.threshold, 2), round(defaults.alpha, 2), round(defaults.importance_weight, 2))
    default_row = rows.get(default_key)
    return {
        "meta": {
            "timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "split": (lambda s: s.pop() if len(s) == 1 else "all")({c["split"] for c in cases}),
            "n_cases": n_all, "n_answerable": n_ans, "n_unknown": n_unk,
            "grid": {"thresholds": ths, "alphas": als, "importance_weights": wts, "capture_top_k": CAPTURE_K,
                     "top_k": defaults.top_k},
            "engine_defaults": {"threshold": defaults.threshold, "alpha": defaults.alpha,
                                "importance_weight": defaults.importance_weight},
            "git_commit": git_commit(),
            "duration_s": round(time.perf_counter() - started, 2),
        },
        "best": {**rows[best], "constraint_met": constraint_met,
                 "plateau": [plateau[0], plateau[-1]] if plateau else None,
                 "failed_ids": fails[best]},
        "best_unconstrained": rows[unconstrained],  # what ignoring the 100%-rejection rule would buy
        "default": ({**default_row, "failed_ids": fails[default_key]} if default_row else None),
        "curve": curve(ba, bw),
        "default_curve": curve(default_key[1], default_key[2]) if (ths[0], default_key[1], default_key[2]) in rows
        else None,
        "grid": [rows[c] for c in combos],
    }


def _pct(x: float | None) -> str:
    return "   n/a" if x is None else f"{100 * x:5.1f}%"


def format_sweep(result: dict[str, Any]) -> str:
    """The threshold trade-off at the best (alpha, importance_weight), and the chosen setting."""
    b = result["best"]
    lines = [f"Threshold trade-off at alpha={b['alpha']}, importance_weight={b['importance_weight']} "
             f"({result['meta']['n_answerable']} answerable, {result['meta']['n_unknown']} unknown cases)",
             f" {'threshold':>9} {'answer acc':>11} {'unknown rej':>12} {'overall':>8} {'recall@5':>9} {'top-1':>7}"]
    for r in result["curve"]:
        mark = "  <- best" if r["threshold"] == b["threshold"] else ""
        lines.append(f" {r['threshold']:>9.2f} {_pct(r['answer_accuracy']):>11} {_pct(r['unknown_rejection']):>12} "
                     f"{_pct(r['accuracy']):>8} {_pct(r['recall_at_5']):>9} {_pct(r['top1']):>7}{mark}")
    lines.append(f"BEST: threshold={b['threshold']} alpha={b['alpha']} importance_weight={b['importance_weight']}  "
                 f"accuracy={_pct(b['accuracy'])} answer_accuracy={_pct(b['answer_accuracy'])} "
                 f"unknown_rejection={_pct(b['unknown_rejection'])}  plateau={b['plateau']}  "
                 f"(rejection=100% {'reached' if b['constraint_met'] else 'NOT reachable'})")
    u = result.get("best_unconstrained")
    if u and u["accuracy"] != b["accuracy"]:
        lines.append(f"(without the rejection rule: threshold={u['threshold']} alpha={u['alpha']} "
                     f"importance_weight={u['importance_weight']} accuracy={_pct(u['accuracy'])} "
                     f"unknown_rejection={_pct(u['unknown_rejection'])})")
    d = result.get("default")
    if d:
        lines.append(f"ENGINE DEFAULTS: threshold={d['threshold']} alpha={d['alpha']} "
                     f"importance_weight={d['importance_weight']}  accuracy={_pct(d['accuracy'])} "
                     f"answer_accuracy={_pct(d['answer_accuracy'])} unknown_rejection={_pct(d['unknown_rejection'])}")
    lines.append(f"failed at best: {', '.join(b['failed_ids']) or 'none'}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evaluation.sweep", description=__doc__.splitlines()[0])
    ap.add_argument("--cases", help="case file or directory (default: evaluation/cases/)")
    ap.add_argument("--split", choices=("dev", "test", "all"), default="dev")
    ap.add_argument("--json", dest="json_out", help="write the sweep JSON here")
    args = ap.parse_args(argv)
    cases = load_cases(args.cases, split=args.split)

    def tick(done: int, total: int, cid: str) -> None:
        sys.stderr.write(f"\r[{done:>3}/{total}] {cid:<10}" + ("\n" if done == total else ""))
        sys.stderr.flush()

    result = sweep(cases, progress=tick)
    print(format_sweep(result))
    from engine import Settings

    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    outs = [Path(Settings().data_dir) / "runs" / f"sweep-{stamp}.json"] + ([Path(args.json_out)] if args.json_out else [])
    for out in outs:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=1), encoding="utf-8")
        print(f"sweep saved to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
