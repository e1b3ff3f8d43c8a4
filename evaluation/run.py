"""CLI: `python -m evaluation.run [--cases PATH] [--split dev|test|all] [--json OUT] [--min-accuracy X]
[--threshold T --alpha A --importance-weight B] [--extractor module:Class]`.

Prints the report table (with --split all also dev and test side by side and the gap), keeps every run's JSON under <data_dir>/runs/ (so runs can be compared later, e.g.
by the cockpit), and exits 1 below --min-accuracy so CI can gate on quality.
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from evaluation.runner import format_failures, format_report, format_split_report, load_cases, run_cases


def stderr_progress(done: int, total: int, result: dict[str, Any]) -> None:
    """A one-line progress ticker on stderr (stdout stays clean for the report)."""
    mark = "ok " if result["passed"] else "FAIL"
    sys.stderr.write(f"\r[{done:>3}/{total}] {mark} {result['id']:<10}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def save_report(report: dict[str, Any], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")
    return path


def default_report_path() -> Path:
    from engine import Settings

    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    path = Path(Settings().data_dir) / "runs" / f"run-{stamp}.json"
    n = 1
    while path.exists():  # two runs in one second must not overwrite each other
        n += 1
        path = path.with_name(f"run-{stamp}-{n}.json")
    return path


def load_extractor(spec: str) -> Any:
    """`module:Class` -> an instance (no arguments), e.g. engine.extraction:RuleExtractor."""
    module_name, sep, class_name = spec.partition(":")
    if not sep or not module_name or not class_name:
        raise ValueError(f"--extractor wants module:Class, got {spec!r}")
    extractor = getattr(importlib.import_module(module_name), class_name)()
    if not callable(getattr(extractor, "extract", None)):
        raise ValueError(f"{spec} has no extract(text, *, speaker=None) method")
    return extractor


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evaluation.run", description=__doc__.splitlines()[0])
    ap.add_argument("--cases", help="case file or directory (default: evaluation/cases/)")
    ap.add_argument("--split", choices=("dev", "test", "all"), default="all")
    ap.add_argument("--json", dest="json_out", help="also write the JSON report here")
    ap.add_argument("--min-accuracy", type=float, default=None, help="exit 1 if overall accuracy is below this (0..1)")
    ap.add_argument("--threshold", type=float)
    ap.add_argument("--alpha", type=float)
    ap.add_argument("--importance-weight", type=float)
    ap.add_argument("--database-url", help="server mode: a PostgreSQL URL; each case gets a new database beside it")
    ap.add_argument("--chroma-url", help="server mode: the Chroma server the cases' vectors go to")
    ap.add_argument("--failures", type=int, default=40, help="how many failed cases to list (default 40)")
    ap.add_argument("--quiet", action="store_true", help="no progress on stderr")
    ap.add_argument("--extractor", metavar="MODULE:CLASS",
                    help="the extractor to evaluate instead of the rule extractor (an engine.extraction.Extractor)")
    args = ap.parse_args(argv)
    try:
        extractor = load_extractor(args.extractor) if args.extractor else None
    except (ImportError, AttributeError, ValueError) as exc:
        print(f"cannot load --extractor {args.extractor}: {exc}", file=sys.stderr)
        return 2

    cases = load_cases(args.cases, split=args.split)
    if not cases:
        print(f"no cases for split {args.split!r}", file=sys.stderr)
        return 2
    overrides = {"threshold": args.threshold, "alpha": args.alpha, "importance_weight": args.importance_weight,
                 "database_url": args.database_url, "chroma_url": args.chroma_url}
    report = run_cases(cases, settings_overrides=overrides, progress=None if args.quiet else stderr_progress,
                       extractor=extractor)
    print(format_report(report))
    if args.split == "all":
        print(format_split_report(report))
    print(format_failures(report, limit=args.failures))
    saved = save_report(report, default_report_path())
    print(f"report saved to {saved}")
    if args.json_out:
        print(f"report saved to {save_report(report, Path(args.json_out))}")
    acc = report["metrics"]["accuracy"] or 0.0
    if args.min_accuracy is not None and acc < args.min_accuracy:
        print(f"accuracy {acc:.3f} is below --min-accuracy {args.min_accuracy}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
