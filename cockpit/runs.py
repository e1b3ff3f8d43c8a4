"""Saved benchmark runs and sweeps: JSON files under ``<data_dir>/runs/``, listed and compared."""
from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

# (canonical key, label, keys to look for in a report's "metrics", first found wins)
METRICS = (
    ("accuracy", "Accuracy", ("accuracy",)),
    ("recall_at_5", "Recall@5", ("recall_at_5",)),
    ("top1", "Top-1", ("top1_accuracy", "top1")),
    ("unknown_rejection", "Unknown rejection", ("unknown_rejection",)),
    ("supersede_integrity", "Supersede integrity", ("supersede_integrity",)),
    ("false_supersede_rate", "False supersede rate", ("false_supersede_rate",)),
    ("mean_latency_ms", "Mean recall latency (ms)", ("latency_mean_ms", "mean_latency_ms")),
    ("p95_latency_ms", "p95 recall latency (ms)", ("latency_p95_ms", "p95_latency_ms")),
)
RATE_METRICS = {"accuracy", "recall_at_5", "top1", "unknown_rejection", "supersede_integrity", "false_supersede_rate"}
# For these, lower is better (used to colour deltas).
LOWER_IS_BETTER = {"false_supersede_rate", "mean_latency_ms", "p95_latency_ms"}


def metric(metrics: dict[str, Any], key: str) -> Any:
    """A metric by its canonical key, whatever name the report used for it."""
    for k, _label, names in METRICS:
        if k == key:
            return next((metrics[n] for n in names if metrics.get(n) is not None), None)
    return metrics.get(key)


def runs_dir(data_dir: str | Path) -> Path:
    return Path(data_dir) / "runs"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "run"


def save(report: dict[str, Any], data_dir: str | Path, kind: str, label: str) -> Path:
    """Write one run (kind: "run" like `python -m evaluation.run`, or "sweep") as
    ``<kind>-<local time>-<label>.json``; returns the path."""
    folder = runs_dir(data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S-%f")[:-3]  # local time, like evaluation.run
    path = folder / f"{kind}-{stamp}-{_slug(label)}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(report, indent=1, default=str), encoding="utf-8")
    tmp.replace(path)
    return path


def list_runs(data_dir: str | Path, kind: str) -> list[Path]:
    """Saved runs of a kind, newest first."""
    folder = runs_dir(data_dir)
    if not folder.is_dir():
        return []
    return sorted(folder.glob(f"{kind}-*.json"), key=lambda p: p.name, reverse=True)


def load(path: str | Path) -> dict[str, Any]:
    """A saved run; ValueError naming the file when it is not a readable JSON object."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read {Path(path).name}: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{Path(path).name} is not a saved run (expected a JSON object)")
    return data


def label(path: str | Path) -> str:
    """``run-20261010-063000-123-dev.json`` -> ``2026-10-10 06:30:00 · dev`` (CLI runs have no suffix)."""
    stem = Path(path).stem
    m = re.match(r"^[a-z]+-(\d{8})-(\d{6})(?:-\d{3})?(?:-(.*))?$", stem)
    if not m:
        return stem
    d, t, rest = m.groups()
    when = f"{d[:4]}-{d[4:6]}-{d[6:]} {t[:2]}:{t[2:4]}:{t[4:]}"
    return f"{when} · {rest}" if rest else f"{when} · CLI"


# (key, label, format) of the settings a run records, in the order a reader compares them
RUN_SETTINGS = (
    ("threshold", "threshold", "{:.2f}"),
    ("alpha", "alpha", "{:.2f}"),
    ("importance_weight", "importance weight", "{:.2f}"),
    ("companion_margin", "companion margin", "{:.2f}"),
    ("top_k", "top-k", "{}"),
    ("model_name", "model", "{}"),
    ("extractor", "extractor", "{}"),
    ("git_commit", "commit", "{}"),
)


def run_settings(report: dict[str, Any]) -> dict[str, str]:
    """The settings a run was made with, formatted (missing ones, e.g. in old runs, are "n/a")."""
    meta = report.get("meta", {}) or {}
    used = {**(meta.get("settings") or {}), "extractor": meta.get("extractor"), "git_commit": meta.get("git_commit")}
    out = {}
    for key, name, fmt in RUN_SETTINGS:
        value = used.get(key)
        out[name] = "n/a" if value is None else (fmt.format(value) if isinstance(value, (int, float)) else str(value))
    return out


def settings_tag(values: dict[str, Any]) -> str:
    """A short file-name tag of the scoring knobs: ``t0.40-a0.70-w0.10-m0.08-k5``."""
    parts = [("t", "threshold", "{:.2f}"), ("a", "alpha", "{:.2f}"), ("w", "importance_weight", "{:.2f}"),
             ("m", "companion_margin", "{:.2f}"), ("k", "top_k", "{}")]
    return "-".join(f"{p}{fmt.format(values[k])}" for p, k, fmt in parts if values.get(k) is not None)


def settings_diff(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    """Every recorded setting of two runs side by side, with whether it changed."""
    sa, sb = run_settings(a), run_settings(b)
    return [{"setting": k, "A": sa[k], "B": sb[k], "changed": sa[k] != sb[k]} for k in sa]


def compare(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Metric deltas (b - a) and the cases whose outcome differs between two reports."""
    ma, mb = a.get("metrics", {}), b.get("metrics", {})
    deltas = []
    for key, name, _names in METRICS:
        va, vb = metric(ma, key), metric(mb, key)
        if va is None and vb is None:
            continue
        delta = (vb - va) if isinstance(va, (int, float)) and isinstance(vb, (int, float)) else None
        better = None
        if delta:
            better = (delta < 0) if key in LOWER_IS_BETTER else (delta > 0)
        deltas.append({"metric": name, "key": key, "a": va, "b": vb, "delta": delta, "better": better})
    ca = {c["id"]: c for c in a.get("cases", [])}
    cb = {c["id"]: c for c in b.get("cases", [])}
    flipped = []
    for cid in sorted(set(ca) | set(cb), key=str):
        x, y = ca.get(cid), cb.get(cid)
        pa = x.get("passed") if x else None
        pb = y.get("passed") if y else None
        if pa == pb:
            continue
        if x is None or y is None:
            change = "only in B" if x is None else "only in A"
        else:
            change = "fixed" if pb else "broke"
        src = y or x or {}
        flipped.append(
            {
                "id": cid,
                "category": src.get("category"),
                "change": change,
                "A": _verdict(pa),
                "B": _verdict(pb),
                "why (B)": "; ".join(map(str, (y or {}).get("failures") or [])),
            }
        )
    return {"deltas": deltas, "flipped": flipped, "common": len(set(ca) & set(cb))}


def _verdict(passed: bool | None) -> str:
    return "—" if passed is None else ("pass" if passed else "fail")
