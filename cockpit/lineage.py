"""A memory's supersede chain as a Graphviz DOT string (rendered by st.graphviz_chart, no graphviz package)."""
from __future__ import annotations

from typing import Any, Iterable

FILL = {"active": "#dcfce7", "superseded": "#ffedd5", "deleted": "#fee2e2"}
BORDER = {"active": "#16a34a", "superseded": "#ea580c", "deleted": "#dc2626"}


def _esc(text: Any, limit: int = 60) -> str:
    s = " ".join(str(text if text is not None else "").split())
    if len(s) > limit:
        s = s[: limit - 1] + "…"
    return s.replace("\\", "\\\\").replace('"', '\\"')


def _ts(ts: Any) -> str:
    return str(ts).replace("T", " ")[:19] if ts else "—"


def lineage_dot(chain: Iterable[Any], selected_id: int | None = None) -> str:
    """DOT for a chain of memories (oldest first), each linked to the one that replaced it.

    Each node shows id, status, the fact, its creation time and the message that stated it;
    each edge says when the older memory was superseded. The selected memory gets a thick border.
    """
    chain = list(chain)
    lines = [
        "digraph lineage {",
        '  rankdir="TB";',
        '  nodesep=0.3; ranksep=0.45;',
        '  bgcolor="transparent";',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11, margin="0.15,0.08"];',
        '  edge [fontname="Helvetica", fontsize=9, color="#6b7280", fontcolor="#374151"];',
    ]
    ids = {m.id for m in chain}
    for m in chain:
        label = "\\n".join(
            [
                f"#{m.id} · {m.status}",
                _esc(m.text),
                f"{_esc(m.subject, 30)}.{_esc(m.attribute, 30)} = {_esc(m.value, 40)}",
                f"created {_ts(m.created_at)}",
                f"“{_esc(m.source_message, 50)}”" if m.source_message else "(no source message)",
            ]
        )
        width = "3" if m.id == selected_id else "1"
        lines.append(
            f'  m{m.id} [label="{label}", fillcolor="{FILL.get(m.status, "#f3f4f6")}", '
            f'color="{BORDER.get(m.status, "#9ca3af")}", penwidth={width}];'
        )
    for m in chain:
        if m.replaced_by is not None and m.replaced_by in ids:
            lines.append(f'  m{m.id} -> m{m.replaced_by} [label="superseded\\n{_ts(m.superseded_at)}"];')
    lines.append("}")
    return "\n".join(lines)
