"""Recall: ask the store a question and see why each memory ranks where it does.

Moving a knob re-scores the last result (``eng.rescore``) instead of recalling again: the query is
not re-embedded and no index is touched. A new query, user, history toggle or a change in the store
triggers a real ``eng.recall``.
"""
import time

import pandas as pd
import streamlit as st

from cockpit import charts, state, ui

state.require_router("recall")

SAMPLES = [
    "What OS does the user use?",
    "When is the project deadline?",
    "What framework is the project built with?",
    "What is the user's favourite food?",
]

eng = state.engine()
cfg = state.settings()
user = state.current_user()

DEFAULTS = {
    "knob_alpha": float(cfg.alpha),
    "knob_threshold": min(float(cfg.threshold), 1.0),
    "knob_top_k": min(int(cfg.top_k), 20),
    "knob_importance": min(float(cfg.importance_weight), 0.5),
}
for key, value in DEFAULTS.items():
    st.session_state.setdefault(key, value)


def _use_chip() -> None:
    chip = st.session_state.get("recall_chip")
    if chip:
        st.session_state["recall_query"] = chip
        st.session_state["recall_chip"] = None  # a chip is a one-click shortcut, not a lasting selection


def _reset_knobs() -> None:
    st.session_state.update(DEFAULTS)


ui.header("Recall", ":material/search:", f"Hybrid recall over `{user}`'s memories, with every score part visible.")

q_col, h_col = st.columns([4, 1], vertical_alignment="bottom")
# persist_state="session": the query and knobs survive a visit to another page.
query = q_col.text_input(
    "Query", key="recall_query", placeholder="Ask about the user, e.g. When is the project deadline?",
    persist_state="session",
)
include_history = h_col.toggle(
    "Include history", key="recall_history", help="Also search superseded memories (marked with what replaced them).",
    persist_state="session",
)
st.pills("Sample queries", SAMPLES, key="recall_chip", on_change=_use_chip, label_visibility="collapsed")

with st.container(border=True):
    k1, k2, k3, k4, k5 = st.columns([1, 1, 1, 1, 0.55], vertical_alignment="bottom")
    alpha = k1.slider("Alpha (semantic weight)", 0.0, 1.0, step=0.01, key="knob_alpha", persist_state="session",
                      help="Blend = alpha·semantic + (1−alpha)·lexical; the score takes max(semantic, blend).")
    threshold = k2.slider("Threshold", 0.0, 1.0, step=0.01, key="knob_threshold", persist_state="session",
                          help="Hits scoring below this are not returned.")
    top_k = k3.slider("Top-k", 1, 20, step=1, key="knob_top_k", persist_state="session")
    weight = k4.slider("Importance weight", 0.0, 0.5, step=0.01, key="knob_importance", persist_state="session",
                       help="Adds weight·(importance − 0.5) to each score.")
    k5.button("Reset", key="knob_reset", icon=":material/restart_alt:", on_click=_reset_knobs, width="stretch",
              help="Back to the engine's defaults")


def hit_card(rank: int, hit, threshold: float) -> None:
    m = hit.memory
    with st.container(border=True):
        c_rank, c_body, c_score = st.columns([0.05, 0.63, 0.32], vertical_alignment="center")
        c_rank.markdown(f"#### {rank}")
        with c_body:
            badges = [f":gray-badge[{m.type}]", f":gray-badge[#{m.id}]"]
            if hit.historical:
                badges.append(":orange-badge[:material/history: historical]")
            st.markdown(f"**{ui.esc(m.text)}** " + " ".join(badges))
            st.markdown(ui.triplet(m))
            said = ui.when(m.source_timestamp or m.created_at)
            src = ui.quote(m.source_message) if m.source_message else "no source message"
            st.caption(f":material/chat: {src} · {said}" + (f" · message #{m.message_id}" if m.message_id else ""))
            if hit.historical:
                new = hit.replaced_by_memory
                if new is not None:
                    st.markdown(f":material/subdirectory_arrow_right: replaced by **#{new.id}**: {ui.esc(new.text)}")
                elif m.replaced_by is not None:
                    st.markdown(f":material/subdirectory_arrow_right: replaced by **#{m.replaced_by}**")
        with c_score:
            margin = hit.score - threshold
            st.markdown(f"**score {hit.score:.3f}** · {'+' if margin >= 0 else ''}{margin:.3f} vs threshold")
            st.progress(min(max(hit.score, 0.0), 1.0))
            st.caption(f"semantic {hit.semantic:.3f} · lexical {hit.lexical:.3f} · importance {hit.importance:.2f}")


def below_table(hits, threshold: float) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "memory": h.memory.text,
                "score": round(h.score, 3),
                "below by": round(threshold - h.score, 3),
                "semantic": round(h.semantic, 3),
                "lexical": round(h.lexical, 3),
                "importance": round(h.importance, 2),
                "status": h.memory.status,
            }
            for h in hits
        ]
    )


def show(res, mode: str, server_ms: float) -> None:
    summary = [
        ui.confidence_badge(res.confidence),
        f"**{len(res.hits)}** hit{'s' if len(res.hits) != 1 else ''} at threshold **{res.threshold:.2f}**",
        ":blue-badge[:material/bolt: re-scored, no re-embedding]" if mode == "rescore"
        else ":violet-badge[:material/travel_explore: recalled]",
        f"{server_ms:.1f} ms",
    ]
    st.markdown(" · ".join(summary))
    if res.timings_ms:
        st.caption("Engine timings: " + " · ".join(f"{k} {v:.1f} ms" for k, v in res.timings_ms.items()))

    candidates = [(h, True) for h in res.hits] + [(h, False) for h in res.below_threshold[:8]]
    if candidates:
        part_rows, score_rows = [], []
        for i, (h, cleared) in enumerate(candidates, start=1):
            text = " ".join(h.memory.text.split())
            label = (f"{i}. {text[:70]}{'…' if len(text) > 70 else ''}" + (" (history)" if h.historical else "")
                     + ("" if cleared else " (below)"))
            parts = charts.decompose(h.score, h.semantic, h.lexical, h.importance, res.alpha, res.importance_weight)
            for order, (part, value) in enumerate(parts.items()):
                part_rows.append({"label": label, "part": part, "value": value, "part_order": order})
            score_rows.append({"label": label, "score": h.score, "cleared": cleared})
        st.altair_chart(
            charts.score_parts(pd.DataFrame(part_rows), pd.DataFrame(score_rows), res.threshold),
            width="stretch",
        )

    if res.hits:
        for rank, hit in enumerate(res.hits, start=1):
            hit_card(rank, hit, res.threshold)
        if res.below_threshold:
            with st.expander(f"Just below the threshold ({len(res.below_threshold)})", icon=":material/low_priority:"):
                st.dataframe(below_table(res.below_threshold, res.threshold), hide_index=True)
    else:
        st.warning(
            f"Nothing cleared the threshold {res.threshold:.2f}: recall returns `[]`.",
            icon=":material/do_not_disturb_on:",
        )
        if res.below_threshold:
            best = res.below_threshold[0]
            st.markdown(
                f"Closest candidate: **{ui.esc(best.memory.text)}** scored **{best.score:.3f}**, "
                f"**{res.threshold - best.score:.3f}** below the threshold."
            )
            st.dataframe(below_table(res.below_threshold, res.threshold), hide_index=True)
        else:
            st.caption(f"`{user}` has no memories that match at all.")


def main() -> None:
    q = (query or "").strip()
    if not q:
        st.info("Type a query or pick a sample above. Knobs re-score instantly once a result is shown.",
                icon=":material/lightbulb:")
        return
    knobs = {"threshold": threshold, "alpha": alpha, "importance_weight": weight, "top_k": top_k}
    # Anything that changes this user's memories changes one of these, and then a real recall runs.
    newest = eng.messages(user_id=user, limit=1)
    store_sig = (
        eng.count_memories(user_id=user, status="active"),
        eng.count_memories(user_id=user, status="all"),
        newest[0]["id"] if newest else None,
    )
    cache_key = (state.data_dir(), user, q, bool(include_history), store_sig)
    cached = st.session_state.get("recall_cache")
    t0 = time.perf_counter()
    if cached and cached["key"] == cache_key:
        res = state.call(eng.rescore, cached["base"], what="Re-scoring", **knobs)
        mode = "rescore"
    else:
        res = state.call(eng.recall, q, user_id=user, include_history=bool(include_history), what="Recall", **knobs)
        mode = "recall"
        if res is not None:
            st.session_state["recall_cache"] = {"key": cache_key, "base": res}
    server_ms = (time.perf_counter() - t0) * 1000
    st.session_state["recall_mode"] = mode
    st.session_state["recall_server_ms"] = server_ms
    if res is not None:
        show(res, mode, server_ms)


main()
