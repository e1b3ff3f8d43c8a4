"""Run the hand-written cases against the engine and build a JSON-safe report (used by the CLI and cockpit).

Every case runs on its own fresh data directory, so no case can pass or fail because of another one; the
embedding model is loaded once and shared, which is what makes ~200 isolated stores affordable.
"""
from __future__ import annotations

import contextlib
import json
import math
import platform
import shutil
import subprocess
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

from evaluation.checks import CATEGORIES, CheckResult, check_case, message_fields, query_user, validate_case

CASES_DIR = Path(__file__).parent / "cases"
REPO_DIR = Path(__file__).resolve().parent.parent

Progress = Callable[[int, int, dict[str, Any]], None]


class RunCancelled(Exception):
    """run_cases stopped because its should_stop callback said so."""


def load_cases(path: str | Path | None = None, split: str = "all") -> list[dict[str, Any]]:
    """Cases from a JSON file or a directory of JSON files (default: evaluation/cases/), validated.

    Splits were assigned once, deterministically and stratified per category (group index i within a
    category goes to dev when i % 5 in (1, 3)), before any engine result was seen.
    Raises ValueError listing every schema problem, so a broken case file never yields a silent 0%.
    """
    if split not in ("dev", "test", "all"):
        raise ValueError(f"split must be dev, test or all, not {split!r}")
    p = Path(path) if path else CASES_DIR
    files = sorted(p.glob("*.json")) if p.is_dir() else [p]
    if not files:
        raise ValueError(f"no case files in {p}")
    cases: list[dict[str, Any]] = []
    for f in files:
        data = json.loads(f.read_text(encoding="utf-8"))
        if not isinstance(data, list):
            raise ValueError(f"{f}: expected a JSON list of cases")
        cases.extend(data)
    errors = [e for c in cases for e in validate_case(c)]
    seen: set[str] = set()
    for c in cases:
        if isinstance(c, dict) and c.get("id") in seen:
            errors.append(f"duplicate id {c['id']!r}")
        seen.add(c.get("id") if isinstance(c, dict) else None)
    if errors:
        raise ValueError("invalid cases:\n  " + "\n  ".join(errors))
    return [c for c in cases if split == "all" or c["split"] == split]


def git_commit() -> str | None:
    """HEAD of the repo (with '-dirty' when the tree has changes), or None outside git / before a commit."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=REPO_DIR, capture_output=True,
                              text=True, timeout=5)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO_DIR,
                               capture_output=True, text=True, timeout=5).stdout.strip()
        return head.stdout.strip() + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return None


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100); None for no values."""
    if not values:
        return None
    s = sorted(values)
    k = max(0, min(len(s) - 1, math.ceil(q / 100 * len(s)) - 1))
    return s[k]


def hit_to_dict(hit: Any) -> dict[str, Any]:
    """The parts of an engine Hit a report reader needs (text and how its score was made)."""
    m = hit.memory
    return {
        "memory_id": m.id,
        "text": m.text,
        "score": round(float(hit.score), 4),
        "semantic": round(float(hit.semantic), 4),
        "lexical": round(float(hit.lexical), 4),
        "importance": round(float(hit.importance), 4),
        "historical": bool(hit.historical),
        "status": m.status,
        "source_id": m.source_id,
    }


def settings_for(data_dir: Path, overrides: dict[str, Any] | None) -> Any:
    """Settings for a case store: the caller's overrides, but always our own throwaway data_dir."""
    from engine import Settings

    kw = {k: v for k, v in (overrides or {}).items() if k != "data_dir"}
    return Settings(data_dir=data_dir, **kw)


@contextlib.contextmanager
def case_store(overrides: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Server mode (a database_url override): each case gets a new database beside it, dropped after."""
    if not overrides.get("database_url"):
        yield overrides
        return
    from engine.storage.postgres import scratch_database

    with scratch_database(overrides["database_url"], prefix="evalcase") as url:
        yield {**overrides, "database_url": url}


def ingest_case(eng: Any, case: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Feed the case's messages one by one; returns (statuses, errors)."""
    statuses: list[str] = []
    errors: list[str] = []
    for i, m in enumerate(case["messages"]):
        f = message_fields(m)
        try:
            statuses.append(eng.ingest(f["text"], user_id=f["user_id"], timestamp=f["timestamp"],
                                       speaker=f["speaker"]).status)
        except Exception as exc:  # an engine crash is a finding, not a reason to stop the run
            statuses.append("error")
            errors.append(f"ingest of message {i + 1} raised {type(exc).__name__}: {exc}")
    return statuses, errors


def run_case(eng: Any, case: dict[str, Any]) -> dict[str, Any]:
    """Ingest, recall and judge one case on an open engine; never raises."""
    statuses, errors = ingest_case(eng, case)
    hits: list[dict[str, Any]] = []
    below: list[dict[str, Any]] = []
    latency = None
    active = None
    try:
        t0 = time.perf_counter()
        res = eng.recall(case["query"], user_id=query_user(case), include_history=case.get("include_history"))
        latency = (time.perf_counter() - t0) * 1000
        hits = [hit_to_dict(h) for h in res.hits]
        # what did not make it: the inspector shows why a case got [] or missed its expected memory
        below = [hit_to_dict(h) for h in res.below_threshold]
    except Exception as exc:
        errors.append(f"recall raised {type(exc).__name__}: {exc}")
    try:
        active = eng.count_memories(user_id=query_user(case), status="active")
    except Exception as exc:
        errors.append(f"count_memories raised {type(exc).__name__}: {exc}")
    check = check_case(case, hits, statuses, active)
    result = case_result(case, check, hits, statuses, active, latency, errors)
    result["below_threshold"] = below
    return result


def extractor_name(eng: Any) -> str:
    """The name of the engine's fact extractor ("rules" when it does not say)."""
    return getattr(getattr(eng, "extractor", None), "name", None) or "rules"


def case_result(case: dict[str, Any], check: CheckResult, hits: list[dict[str, Any]], statuses: list[str],
                active: int | None, latency: float | None, errors: list[str]) -> dict[str, Any]:
    failures = errors + check.failures
    return {
        "id": case["id"],
        "category": case["category"],
        "split": case["split"],
        "query": case["query"],
        "passed": not failures,
        "failures": failures,
        "hits": hits,
        "statuses": statuses,
        "expected_statuses": case.get("expected_statuses"),
        "active_count": active,
        "latency_ms": round(latency, 3) if latency is not None else None,
        "recall_at_5": check.recall_at_5,
        "top1_ok": check.top1_ok,
        "rejected": check.rejected,
        "integrity_ok": check.integrity_ok,
        "false_supersede": check.false_supersede,
    }


def _share(flags: list[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def summarize(results: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(key metrics, per-category rows) from per-case results."""
    def rows_for(rs: list[dict[str, Any]]) -> dict[str, Any]:
        r5 = [r["recall_at_5"] for r in rs if r["recall_at_5"] is not None]
        t1 = [r["top1_ok"] for r in rs if r["top1_ok"] is not None]
        passed = sum(r["passed"] for r in rs)
        return {"passed": passed, "total": len(rs), "accuracy": passed / len(rs) if rs else None,
                "recall_at_5": sum(r5) / len(r5) if r5 else None, "top1": _share(t1)}

    cats = []
    for cat, label in CATEGORIES.items():
        rs = [r for r in results if r["category"] == cat]
        if rs:
            cats.append({"category": cat, "label": label, **rows_for(rs)})
    overall = rows_for(results)
    lat = [r["latency_ms"] for r in results if r["latency_ms"] is not None]
    rej = [r["rejected"] for r in results if r["rejected"] is not None]
    integ = [r["integrity_ok"] for r in results if r["integrity_ok"] is not None]
    fsup = [r["false_supersede"] for r in results if r["false_supersede"] is not None]
    metrics = {
        "passed": overall["passed"],
        "total": overall["total"],
        "accuracy": overall["accuracy"],
        "recall_at_5": overall["recall_at_5"],
        "top1_accuracy": overall["top1"],
        "unknown_rejection": _share(rej),
        "unknown_rejected": sum(rej), "unknown_total": len(rej),
        "supersede_integrity": _share(integ),
        "supersede_ok": sum(integ), "supersede_total": len(integ),
        "false_supersede_rate": _share(fsup),
        "false_supersede": sum(fsup), "false_supersede_total": len(fsup),
        "latency_mean_ms": sum(lat) / len(lat) if lat else None,
        "latency_p50_ms": percentile(lat, 50),
        "latency_p95_ms": percentile(lat, 95),
    }
    return metrics, cats


def run_cases(cases: list[dict[str, Any]], *, embedder: Any = None, settings_overrides: dict[str, Any] | None = None,
              progress: Progress | None = None, extractor: Any = None,
              should_stop: Callable[[], bool] | None = None) -> dict[str, Any]:
    """Run cases, each on a fresh isolated store, and return the report dict (see module docstring).

    embedder: a loaded embedder to share; loaded once here when None.
    settings_overrides: Settings fields (threshold, alpha, importance_weight, top_k, ...); recall uses the
    engine's defaults for everything not overridden.
    progress: called as progress(done, total, case_result) after each case.
    extractor: an engine.extraction.Extractor to use instead of the rule extractor.
    should_stop: asked before each case; when it answers True the run ends with RunCancelled (the cockpit's
    cancel button), so no partial report passes for a full one.
    """
    from engine import MemoryEngine, load_embedder

    started = time.perf_counter()
    overrides = {k: v for k, v in (settings_overrides or {}).items() if v is not None}
    with tempfile.TemporaryDirectory(prefix="memeval-") as root:
        if embedder is None:
            embedder = load_embedder(settings_for(Path(root) / "model", overrides))
        results = []
        extractor_label = getattr(extractor, "name", None) or "rules"
        for i, case in enumerate(cases):
            if should_stop is not None and should_stop():
                raise RunCancelled(f"cancelled after {i} of {len(cases)} cases")
            data_dir = Path(root) / f"case-{i:04d}"
            try:
                with case_store(overrides) as case_overrides, MemoryEngine(
                        settings_for(data_dir, case_overrides), embedder=embedder, extractor=extractor) as eng:
                    extractor_label = extractor_name(eng)
                    result = run_case(eng, case)
            except Exception as exc:  # engine failed to open/close: record, keep going
                result = case_result(case, CheckResult(), [], [], None, None,
                                     [f"engine raised {type(exc).__name__}: {exc}"])
            shutil.rmtree(data_dir, ignore_errors=True)  # ~200 stores would otherwise pile up until the end
            results.append(result)
            if progress:
                progress(i + 1, len(cases), result)
        used = settings_for(Path(root), overrides)
    metrics, cats = summarize(results)
    by_split = split_summary(results)
    splits = sorted({c["split"] for c in cases})
    return {
        "meta": {
            "timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "split": splits[0] if len(splits) == 1 else "all",
            "n_cases": len(cases),
            "settings": {k: v for k, v in used.model_dump(mode="json").items() if k not in ("data_dir", "api_key")},
            "overrides": {k: v for k, v in overrides.items() if k != "api_key"},
            "extractor": extractor_label,
            "git_commit": git_commit(),
            "python": platform.python_version(),
            "duration_s": round(time.perf_counter() - started, 2),
        },
        "metrics": metrics,
        "categories": cats,
        "splits": by_split,
        "cases": results,
    }


# Metrics compared across splits (key in summarize's metrics -> label); all shares in 0..1.
SPLIT_METRICS = {"accuracy": "Accuracy", "recall_at_5": "Recall@5", "top1_accuracy": "Top-1",
                 "unknown_rejection": "Unknown rejection", "supersede_integrity": "Supersede integrity",
                 "false_supersede_rate": "False supersede rate"}


def _gap(dev: float | None, test: float | None) -> float | None:
    return None if dev is None or test is None else dev - test


def split_summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Dev and test side by side: each split's metrics and category rows, and the gap (dev - test) of every
    metric and of every category's accuracy. A large positive gap is the cost of rules fitted to dev."""
    parts = {sp: summarize([r for r in results if r["split"] == sp]) for sp in ("dev", "test")}
    out: dict[str, Any] = {sp: {"metrics": m, "categories": c} for sp, (m, c) in parts.items()}
    out["gap"] = {k: _gap(parts["dev"][0][k], parts["test"][0][k]) for k in SPLIT_METRICS}
    rows = []
    for cat, label in CATEGORIES.items():
        d = next((r for r in parts["dev"][1] if r["category"] == cat), None)
        t = next((r for r in parts["test"][1] if r["category"] == cat), None)
        if d is None and t is None:
            continue
        row: dict[str, Any] = {"category": cat, "label": label}
        for key in ("accuracy", "recall_at_5", "top1"):
            dv, tv = (d or {}).get(key), (t or {}).get(key)
            row[f"dev_{key}"], row[f"test_{key}"], row[f"gap_{key}"] = dv, tv, _gap(dv, tv)
        row["dev_passed"], row["dev_total"] = (d or {}).get("passed", 0), (d or {}).get("total", 0)
        row["test_passed"], row["test_total"] = (t or {}).get("passed", 0), (t or {}).get("total", 0)
        rows.append(row)
    out["categories"] = rows
    return out


def _pp(x: float | None) -> str:
    return "   n/a" if x is None else f"{100 * x:+6.1f}"


def format_split_report(report: dict[str, Any]) -> str:
    """Dev and test side by side with the gap (dev - test, in percentage points), overall and per category."""
    sp = report.get("splits") or split_summary(report["cases"])
    w = 100
    dm, tm = sp["dev"]["metrics"], sp["test"]["metrics"]
    out = ["=" * w, "DEV vs TEST (gap = dev - test, percentage points)".center(w), "=" * w,
           f" {'Category':<30} {'dev passed':>12} {'dev acc':>8} {'test passed':>12} {'test acc':>9} {'gap':>7}",
           "-" * w]
    for r in sp["categories"]:
        out.append(f" {r['label']:<30} {r['dev_passed']:>5} / {r['dev_total']:<4} {_pct(r['dev_accuracy']):>8} "
                   f"{r['test_passed']:>5} / {r['test_total']:<4} {_pct(r['test_accuracy']):>9} "
                   f"{_pp(r['gap_accuracy']):>7}")
    out += ["-" * w, f" {'Metric':<30} {'dev':>12} {'test':>22} {'gap':>7}"]
    for key, label in SPLIT_METRICS.items():
        out.append(f" {label:<30} {_pct(dm[key]):>12} {_pct(tm[key]):>22} {_pp(sp['gap'][key]):>7}")
    out.append(f" {'Cases':<30} {dm['total']:>12} {tm['total']:>22}")
    out.append("=" * w)
    return "\n".join(out)


def _pct(x: float | None) -> str:
    return "  n/a" if x is None else f"{100 * x:5.1f}%"


def _ms(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f} ms"


def format_report(report: dict[str, Any]) -> str:
    """The report as a fixed-width table plus key metrics, in the spirit of the original benchmark printout."""
    w = 100
    line, dline = "-" * w, "=" * w
    out = [dline, "MEMENGINE EVALUATION REPORT".center(w)]
    meta = report.get("meta", {})
    st = meta.get("settings", {})
    out.append(f"split={meta.get('split')}  cases={meta.get('n_cases')}  threshold={st.get('threshold')}  "
               f"alpha={st.get('alpha')}  importance_weight={st.get('importance_weight')}  top_k={st.get('top_k')}  "
               f"commit={meta.get('git_commit')}".center(w))
    out += [dline, f" {'Category':<30} {'Passed / Total':>14} {'Accuracy':>10} {'Recall@5':>10} {'Top-1':>8}   Status",
            line]
    for row in report["categories"]:
        status = "PASS" if row["passed"] == row["total"] else "FAIL"
        out.append(f" {row['label']:<30} {row['passed']:>6} / {row['total']:<5} {_pct(row['accuracy']):>10} "
                   f"{_pct(row['recall_at_5']):>10} {_pct(row['top1']):>8}   {status}")
    m = report["metrics"]
    out += [line, f" {'TOTAL / OVERALL':<30} {m['passed']:>6} / {m['total']:<5} {_pct(m['accuracy']):>10} "
            f"{_pct(m['recall_at_5']):>10} {_pct(m['top1_accuracy']):>8}   "
            f"{'PASS' if m['passed'] == m['total'] else 'FAIL'}", dline, " Key Metrics:",
            f" • Overall Accuracy:        {_pct(m['accuracy'])} ({m['passed']} / {m['total']} cases meeting all criteria)",
            f" • Recall@5:                {_pct(m['recall_at_5'])} (expected facts found in the top 5 hits)",
            f" • Top-1 Accuracy:          {_pct(m['top1_accuracy'])} (expected memory ranked first)",
            f" • Unknown Rejection Rate:  {_pct(m['unknown_rejection'])} ({m['unknown_rejected']} / "
            f"{m['unknown_total']} unanswerable queries returned [])",
            f" • Supersede Integrity:     {_pct(m['supersede_integrity'])} ({m['supersede_ok']} / "
            f"{m['supersede_total']} update cases returned no outdated value)",
            f" • False Supersede Rate:    {_pct(m['false_supersede_rate'])} ({m['false_supersede']} / "
            f"{m['false_supersede_total']} multi-value cases lost a fact wrongly)",
            f" • Recall Latency:          mean {_ms(m['latency_mean_ms'])}, p50 {_ms(m['latency_p50_ms'])}, "
            f"p95 {_ms(m['latency_p95_ms'])}",
            dline]
    return "\n".join(out)


def format_failures(report: dict[str, Any], limit: int | None = None) -> str:
    """One block per failed case: id, query and why, so a reader can act without opening the JSON."""
    failed = [r for r in report["cases"] if not r["passed"]]
    lines = [f"Failed cases ({len(failed)}):"] if failed else ["No failed cases."]
    for r in failed[:limit]:
        lines.append(f" {r['id']:<9} [{r['category']}] {r['query']!r}")
        lines += [f"     - {f}" for f in r["failures"]]
    if limit is not None and len(failed) > limit:
        lines.append(f" ... {len(failed) - limit} more in the JSON report")
    return "\n".join(lines)
