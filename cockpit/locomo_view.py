"""LoCoMo results (``evaluation.locomo.evaluate``) shaped for the Benchmark page: headline figures, the
per-category table and the per-question inspector's rows. Pure functions over the saved result dict."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from evaluation.locomo import CATEGORY_NAMES, load_locomo

MISSED, FOUND, ALL = "missed at k", "found at k", "all"


def load_samples(path: str, limit: int | None) -> list[dict[str, Any]]:
    """The first `limit` conversations of a LoCoMo-format file; ValueError with a readable reason."""
    p = Path(path.strip()).expanduser()
    if not path.strip():
        raise ValueError("give the path of a LoCoMo-format JSON file")
    if not p.is_file():
        raise ValueError(f"no file at {p} (relative paths start at {Path.cwd()})")
    try:
        samples = load_locomo(p)
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read {p}: {exc}") from None
    except ValueError as exc:  # json.JSONDecodeError is a ValueError too
        raise ValueError(f"{p.name} is not LoCoMo JSON: {exc}") from None
    if limit is not None:
        if limit < 1:
            raise ValueError("limit conversations must be at least 1")
        samples = samples[:limit]
    if not samples:
        raise ValueError(f"{p.name} holds no conversations")
    return samples


def headline_k(result: dict[str, Any]) -> int:
    """The k the page headlines: 5 when measured, else the largest k."""
    ks = result.get("meta", {}).get("ks") or [5]
    return 5 if 5 in ks else max(ks)


def category_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per category (and the answerable 1-4 row): ranking and served recall per k, and the share served
    nothing (the abstention for category 5, a refusal for the others)."""
    ks = result.get("meta", {}).get("ks") or []
    out = []
    for r in result.get("categories", []):
        row: dict[str, Any] = {"category": f"{r['category']} {r['name']}", "questions": r["n"]}
        for k in ks:
            row[f"R@{k}"] = r.get(f"recall@{k}")
        for k in ks:
            row[f"served R@{k}"] = r.get(f"served_recall@{k}")
        row["served nothing"] = r.get("served_empty")
        row["evidence stored"] = r.get("evidence_stored")
        out.append(row)
    return out


def question_label(q: dict[str, Any], k: int) -> str:
    mark = "—" if not q.get("evidence") else ("found" if q.get(f"hit@{k}") else "MISSED")
    name = CATEGORY_NAMES.get(q["category"], str(q["category"]))
    return f"{mark} · {q['sample_id']} · {name} · {q['question']}"


def pick_questions(result: dict[str, Any], category: int | None, which: str, k: int) -> list[int]:
    """Indexes into result["questions"]: one category (None = all), and missed / found at k or all."""
    out = []
    for i, q in enumerate(result.get("questions", [])):
        if category is not None and q["category"] != category:
            continue
        if which != ALL:
            if not q.get("evidence"):
                continue  # nothing to find (category 5, or evidence ids that name no turn)
            if (which == MISSED) == bool(q.get(f"hit@{k}")):
                continue
        out.append(i)
    return out


def recalled_rows(q: dict[str, Any]) -> list[dict[str, Any]]:
    """What recall ranked (threshold 0), each row saying whether it is evidence and whether it was served."""
    evidence = set(q.get("evidence") or [])
    served = {(h.get("source_id"), h.get("text")) for h in q.get("served") or []}
    return [{"rank": n, "turn": h.get("source_id") or "", "evidence": "✓" if h.get("source_id") in evidence else "",
             "served": "✓" if (h.get("source_id"), h.get("text")) in served else "", "score": h.get("score"),
             "memory": h.get("text", "")}
            for n, h in enumerate(q.get("ranked") or [], start=1)]


def default_path() -> Path:
    """What the path box starts with: the bundled two-conversation sample, relative to the working directory
    when it lies below it (so the box reads like the paths a developer types)."""
    from evaluation.locomo import SAMPLE_PATH

    try:
        return SAMPLE_PATH.relative_to(Path.cwd())
    except ValueError:
        return SAMPLE_PATH
