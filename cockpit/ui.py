"""Small drawing helpers so every page looks the same (headers, badges, memory cards)."""
from __future__ import annotations

from typing import Any

import streamlit as st

# status / outcome / confidence -> (badge colour, material icon)
STATUS_STYLE: dict[str, tuple[str, str]] = {
    "active": ("green", ":material/check_circle:"),
    "superseded": ("orange", ":material/history:"),
    "deleted": ("red", ":material/delete:"),
}
OUTCOME_STYLE: dict[str, tuple[str, str]] = {
    "created": ("green", ":material/add_circle:"),
    "superseded": ("orange", ":material/swap_horiz:"),
    "confirmed": ("blue", ":material/verified:"),
    "ignored": ("gray", ":material/block:"),
}
CONFIDENCE_STYLE: dict[str, tuple[str, str]] = {
    "certain": ("green", ":material/task_alt:"),
    "vague": ("orange", ":material/help:"),
    "unknown": ("gray", ":material/do_not_disturb_on:"),
}
_MD_SPECIAL = ("\\", "*", "_", "`", "[", "]", "<", ">", "#", "|", "$", "~", ":")
STATUS_LABEL = {"active": "● active", "superseded": "◐ superseded", "deleted": "○ deleted"}


def header(title: str, icon: str, caption: str) -> None:
    st.title(f"{icon} {title}", anchor=False)
    st.caption(caption)


def badge_md(label: str, style: tuple[str, str]) -> str:
    """Inline badge markdown (can sit inside other markdown)."""
    color, icon = style
    return f":{color}-badge[{icon} {label}]"


def status_badge(status: str) -> str:
    return badge_md(status, STATUS_STYLE.get(status, ("gray", ":material/circle:")))


def outcome_badge(status: str) -> str:
    return badge_md(status, OUTCOME_STYLE.get(status, ("gray", ":material/circle:")))


def confidence_badge(level: str) -> str:
    return badge_md(level, CONFIDENCE_STYLE.get(level, ("gray", ":material/circle:")))


def pass_badge(passed: bool) -> str:
    return ":green-badge[:material/check: PASS]" if passed else ":red-badge[:material/close: FAIL]"


def when(ts: Any) -> str:
    """ISO timestamps shortened for display (2026-10-10T06:30:00.123+00:00 -> 2026-10-10 06:30:00)."""
    if not ts:
        return "—"
    text = str(ts).replace("T", " ")
    return text[:19]


def quote(text: Any, limit: int = 240) -> str:
    """A user message shown inline, escaped for markdown and shortened."""
    if text is None:
        return "—"
    s = " ".join(str(text).split())
    if len(s) > limit:
        s = s[: limit - 1] + "…"
    return f"“{esc(s)}”"


def triplet(memory: Any) -> str:
    return f"`{memory.subject}` · `{memory.attribute}` → **{esc(memory.value)}**"


def esc(text: Any) -> str:
    """User text made literal inside Streamlit markdown (incl. ``:emoji:`` and ``:color[...]`` directives)."""
    s = str(text)
    for ch in _MD_SPECIAL:
        s = s.replace(ch, "\\" + ch)
    return s


def memory_card(memory: Any, *, title: str | None = None) -> None:
    """One memory, compact: text, triplet, type, importance, status, source and time."""
    with st.container(border=True):
        head = title or f"#{memory.id}"
        st.markdown(f"**{head}** {status_badge(memory.status)} :gray-badge[{memory.type}]")
        st.markdown(f"**{esc(memory.text)}**")
        st.markdown(triplet(memory))
        st.caption(
            f"importance {memory.importance:.2f} · created {when(memory.created_at)}"
            + (f" · superseded {when(memory.superseded_at)}" if memory.superseded_at else "")
        )
        if memory.source_message:
            st.caption(f":material/chat: {quote(memory.source_message)}")
