"""The one place where engine results become plain dicts, for REST responses, MCP tool results and
the CLI's --json output alike (so a hit looks the same on every surface)."""
from __future__ import annotations

from dataclasses import asdict
from typing import Any

from engine import Hit, IngestResult, Memory, RecallResult


def memory_dict(memory: Memory) -> dict[str, Any]:
    return asdict(memory)


def hit_dict(hit: Hit) -> dict[str, Any]:
    return {
        "memory": memory_dict(hit.memory),
        "score": hit.score,
        "semantic": hit.semantic,
        "lexical": hit.lexical,
        "importance": hit.importance,
        "historical": hit.historical,
        "replaced_by_memory": memory_dict(hit.replaced_by_memory) if hit.replaced_by_memory else None,
        "citation": asdict(hit.citation),
    }


def recall_dict(result: RecallResult) -> dict[str, Any]:
    out = result.to_dict()  # the knobs used, timings: whatever the engine reports
    out["hits"] = [hit_dict(h) for h in result.hits]
    out["below_threshold"] = [hit_dict(h) for h in result.below_threshold]
    return out


def context_dict(context: Any) -> dict[str, Any]:
    """engine.context(...): the block as sent (`text`) and its items."""
    return context.to_dict()


def profile_dict(profile: Any) -> dict[str, Any]:
    return profile.to_dict()


def summary_dict(summary: Any) -> dict[str, Any]:
    out = summary.to_dict()
    out["facts"] = [memory_dict(m) for m in summary.facts]
    out["memory"] = memory_dict(summary.memory) if summary.memory else None
    return out


def ingest_dict(result: IngestResult) -> dict[str, Any]:
    return {
        "status": result.status,
        "message": result.message,
        "message_id": result.message_id,
        "memories": [memory_dict(m) for m in result.memories],
        "superseded_ids": list(result.superseded_ids),
        "outcomes": [{"action": o.action, "memory": memory_dict(o.memory),
                      "superseded": [memory_dict(s) for s in o.superseded]} for o in result.outcomes],
        "trace": [t.to_dict() for t in result.trace],
    }
