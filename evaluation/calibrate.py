"""Fit the calibrated relevance: `python -m evaluation.calibrate [--split dev] [--cache PATH] [--json OUT]`.

Each case is ingested and recalled ONCE with threshold 0 (as the sweep does) to capture its candidates and their
score features (engine/calibration.py). A candidate is labelled an answer when its text carries one of the case's
expected strings (top1_contains, top1_contains_any, within_top_k) and none of its forbidden ones; every candidate
of an unanswerable case is a non-answer. A logistic model is fitted on those labels, then the threshold, the
companion margin and evidence pooling are chosen on the same cases, judged by `check_case` as the runner judges:
the best accuracy among settings that reject every unanswerable question, deepest inside the threshold plateau.
It prints the numbers to put in engine/settings.py. Dev only: the test split is for reporting.
"""
from __future__ import annotations

import argparse
import json
import pickle
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from evaluation.checks import check_case, query_user
from evaluation.runner import ingest_case, load_cases, settings_for

CAPTURE_K = 20
TRAIN_DEPTH = 10  # candidates per case the model learns from, best raw score first: where the decisions are
THRESHOLDS = [round(0.05 + 0.01 * i, 2) for i in range(91)]  # 0.05 .. 0.95
MARGINS = [0.0, 0.05, 0.1, 0.15, 0.2, 0.25]
EPS = 1e-9


def capture(cases: list[dict[str, Any]], embedder: Any = None, settings_overrides: dict[str, Any] | None = None,
            progress: Callable[[int, int, str], None] | None = None) -> list[dict[str, Any]]:
    """Per case: its ingest statuses, errors, active count and the RecallResult of one threshold-0 recall."""
    from engine import MemoryEngine, load_embedder

    overrides = {k: v for k, v in (settings_overrides or {}).items() if v is not None}
    out = []
    with tempfile.TemporaryDirectory(prefix="memcalib-") as root:
        if embedder is None:
            embedder = load_embedder(settings_for(Path(root) / "model", overrides))
        for n, case in enumerate(cases):
            data_dir = Path(root) / f"case-{n:04d}"
            with MemoryEngine(settings_for(data_dir, overrides), embedder=embedder) as eng:
                statuses, errors = ingest_case(eng, case)
                try:
                    active = eng.count_memories(user_id=query_user(case), status="active")
                    captured = eng.recall(case["query"], user_id=query_user(case), top_k=CAPTURE_K, threshold=0.0,
                                          include_history=case.get("include_history"))
                except Exception as exc:
                    active, captured = None, None
                    errors = [*errors, f"recall raised {type(exc).__name__}: {exc}"]
            shutil.rmtree(data_dir, ignore_errors=True)
            out.append({"case": case, "statuses": statuses, "errors": errors, "active": active, "result": captured})
            if progress:
                progress(n + 1, len(cases), case["id"])
    return out


def expected_strings(case: dict[str, Any]) -> list[str]:
    found = [case["top1_contains"]] if case.get("top1_contains") else []
    return found + list(case.get("top1_contains_any", [])) + list(case.get("within_top_k", []))


def label(case: dict[str, Any], text: str) -> int | None:
    """1 = the memory answers the case's question, 0 = it does not, None = the case does not say."""
    low = text.casefold()
    if case.get("expect_empty"):
        return 0
    if any(f.casefold() in low for f in case.get("forbidden", [])):
        return 0
    wanted = expected_strings(case)
    if not wanted:
        return None
    return int(any(w.casefold() in low for w in wanted))


def training_rows(captured: list[dict[str, Any]], alpha: float) -> tuple[list[list[float]], list[int]]:
    from engine.calibration import relevance_feature
    from engine.scoring import blend

    x, y = [], []
    for item in captured:
        result = item["result"]
        if result is None:
            continue
        raw = sorted(result.candidates, reverse=True,
                     key=lambda h: blend(h.semantic, h.lexical, 0.5, alpha=alpha, importance_weight=0.0))
        for hit in raw[:TRAIN_DEPTH]:
            y_hit = label(item["case"], hit.memory.text)
            if y_hit is None:
                continue
            x.append([relevance_feature(hit.semantic, hit.statement, hit.lexical, alpha), hit.coverage, hit.lexical])
            y.append(y_hit)
    return x, y


def judge(captured: list[dict[str, Any]], *, threshold: float, companion_margin: float, calibration: Any,
          evidence_pooling: bool, top_k: int) -> dict[str, Any]:
    """Accuracy and unknown rejection of one setting over captured cases (pure re-scoring)."""
    from engine.scoring import rescore

    passed = rejected = unknown = 0
    failed: list[str] = []
    for item in captured:
        case, result = item["case"], item["result"]
        unknown += bool(case.get("expect_empty"))
        if result is None:
            failed.append(case["id"])
            continue
        moved = rescore(replace(result, calibration=calibration, evidence_pooling=evidence_pooling,
                                companion_margin=companion_margin), threshold=threshold, top_k=top_k)
        hits = [{"text": h.memory.text, "score": h.score} for h in moved.hits]
        check = check_case(case, hits, item["statuses"], item["active"])
        ok = check.passed and not item["errors"]
        passed += ok
        rejected += bool(check.rejected)
        if not ok:
            failed.append(case["id"])
    n = len(captured)
    return {"threshold": threshold, "companion_margin": companion_margin, "evidence_pooling": evidence_pooling,
            "accuracy": passed / n if n else None, "unknown_rejection": rejected / unknown if unknown else None,
            "failed": failed}


def choose(captured: list[dict[str, Any]], calibration: Any, top_k: int) -> tuple[dict[str, Any], list[dict]]:
    rows = [judge(captured, threshold=t, companion_margin=m, calibration=calibration, evidence_pooling=p,
                  top_k=top_k) for p in (False, True) for m in MARGINS for t in THRESHOLDS]
    feasible = [r for r in rows if r["unknown_rejection"] is None or r["unknown_rejection"] >= 1 - EPS] or rows
    best_acc = max(r["accuracy"] for r in feasible)
    optimal = [r for r in feasible if abs(r["accuracy"] - best_acc) < EPS]

    def depth(r: dict[str, Any]) -> tuple[int, float]:
        same = sorted(o["threshold"] for o in optimal if o["companion_margin"] == r["companion_margin"]
                      and o["evidence_pooling"] == r["evidence_pooling"])
        i = same.index(r["threshold"])
        left = right = 0
        while i - left - 1 >= 0 and abs(same[i - left - 1] - (same[i] - 0.01 * (left + 1))) < 1e-6:
            left += 1
        while i + right + 1 < len(same) and abs(same[i + right + 1] - (same[i] + 0.01 * (right + 1))) < 1e-6:
            right += 1
        return (min(left, right), -abs(r["companion_margin"] - 0.1))

    return max(optimal, key=depth), rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evaluation.calibrate", description=__doc__.splitlines()[0])
    ap.add_argument("--cases", help="case file or directory (default: evaluation/cases/)")
    ap.add_argument("--split", default="dev", choices=["dev", "test", "all"])
    ap.add_argument("--cache", nargs="+", help="pickles of captured candidates (e.g. shards): read and joined "
                    "when all are present, else the capture is written to the first")
    ap.add_argument("--json", help="write the fitted numbers and the chosen setting here")
    args = ap.parse_args(argv)
    if args.split != "dev":
        print("note: fitting on anything but dev spends the held-out split", file=sys.stderr)
    from engine import Settings
    from engine.calibration import fit

    defaults = Settings()
    started = time.perf_counter()
    if args.cache and all(Path(c).exists() for c in args.cache):
        # Only ever read captures this tool wrote: a pickle runs code when loaded.
        captured = [item for c in args.cache for item in pickle.loads(Path(c).read_bytes())]
    else:
        cases = load_cases(args.cases, split=args.split)

        def tick(done: int, total: int, cid: str) -> None:
            sys.stderr.write(f"\r[{done:>3}/{total}] {cid:<12}")
            sys.stderr.flush()

        captured = capture(cases, progress=tick)
        sys.stderr.write("\n")
        if args.cache:
            Path(args.cache[0]).write_bytes(pickle.dumps(captured))
    x, y = training_rows(captured, defaults.alpha)
    calibration = fit(x, y)
    best, rows = choose(captured, calibration, defaults.top_k)
    raw = judge(captured, threshold=0.48, companion_margin=0.08, calibration=None, evidence_pooling=False,
                top_k=defaults.top_k)
    print(f"{len(captured)} cases, {len(y)} labelled candidates ({sum(y)} answers)")
    print(f"fitted: calibration_bias={calibration.bias} calibration_relevance={calibration.relevance} "
          f"calibration_coverage={calibration.coverage} calibration_lexical={calibration.lexical}")
    print(f"chosen: threshold={best['threshold']} companion_margin={best['companion_margin']} "
          f"evidence_pooling={best['evidence_pooling']}: accuracy {best['accuracy']:.1%}, unknown rejection "
          f"{best['unknown_rejection'] if best['unknown_rejection'] is None else format(best['unknown_rejection'], '.0%')}")
    plateau = sorted(r["threshold"] for r in rows if r["companion_margin"] == best["companion_margin"]
                     and r["evidence_pooling"] == best["evidence_pooling"]
                     and abs(r["accuracy"] - best["accuracy"]) < EPS
                     and (r["unknown_rejection"] is None or r["unknown_rejection"] >= 1 - EPS))
    print(f"thresholds with the same result: {plateau[0]}-{plateau[-1]} ({len(plateau)} points)")
    print(f"for comparison, the raw blend at threshold 0.48, margin 0.08: accuracy {raw['accuracy']:.1%}")
    print(f"({time.perf_counter() - started:.0f} s)")
    if args.json:
        Path(args.json).write_text(json.dumps({"calibration": calibration.__dict__, "chosen": best, "raw_blend": raw},
                                              indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
