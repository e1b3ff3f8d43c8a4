"""Recall: ask the store a question and see why each memory ranks where it does.

Moving a knob re-scores the last result (``eng.rescore``) instead of recalling again: the query is
not re-embedded and no index is touched, and only the knobs-and-results fragment re-runs (not the
page). A new query, user, history mode or a change in the store triggers a real ``eng.recall``.
"""
import dataclasses
import time

import pandas as pd
import streamlit as st

from cockpit import charts, decision, state, ui

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
    "knob_margin": min(float(cfg.companion_margin), 0.3),
}
# The history control's three states and what recall receives: "auto" lets the engine decide from
# the question ("what was the deadline before?" asks for history), the others force it.
HISTORY_MODES = {"auto": None, "never": False, "always": True}
HISTORY_LABELS = {"auto": "Auto (engine decides)", "never": "Never", "always": "Always"}
BENCH_OVERRIDES_KEY = "bench_overrides"  # read by pages/benchmark.py
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

# persist_state="session": the query and knobs survive a visit to another page.
query = st.text_input(
    "Query", key="recall_query", placeholder="Ask about the user, e.g. When is the project deadline?",
    persist_state="session",
)
# On its own row below the query: beside it, "Always" was cut at 1024 px.
history_mode = st.segmented_control(
    "History", list(HISTORY_MODES), key="recall_history", default="auto", format_func=HISTORY_LABELS.get,
    persist_state="session",
    help="Auto: superseded memories are searched when the question asks about the past. "
         "Never / Always override that.",
) or "auto"
include_history = HISTORY_MODES[history_mode]
st.pills("Sample queries", SAMPLES, key="recall_chip", on_change=_use_chip, label_visibility="collapsed")

def knobs() -> dict:
    """The scoring knobs, drawn inside the fragment so moving one re-runs only the results."""
    with st.container(border=True):
        k1, k2, k3 = st.columns(3, vertical_alignment="bottom")
        alpha = k1.slider("Alpha (semantic weight)", 0.0, 1.0, step=0.01, key="knob_alpha", persist_state="session",
                          help="Blend = alpha·semantic + (1−alpha)·lexical; the score takes max(semantic, blend).")
        threshold = k2.slider("Threshold", 0.0, 1.0, step=0.01, key="knob_threshold", persist_state="session",
                              help="A question is answered only when a candidate scores at least this.")
        margin = k3.slider("Companion margin", 0.0, 0.3, step=0.01, key="knob_margin", persist_state="session",
                           help="Once one candidate clears the threshold, others up to this much below it are "
                                "served too (companions). Effective cut-off = threshold − margin.")
        k4, k5 = st.columns(2, vertical_alignment="bottom")
        top_k = k4.slider("Top-k", 1, 20, step=1, key="knob_top_k", persist_state="session")
        weight = k5.slider("Importance weight", 0.0, 0.5, step=0.01, key="knob_importance", persist_state="session",
                           help="Adds weight·(importance − 0.5) to each score.")
        # buttons sized to their labels, in a row that wraps: never cut at 1024 px
        actions = st.container(horizontal=True, horizontal_alignment="right")
        actions.button("Reset", key="knob_reset", icon=":material/restart_alt:", on_click=_reset_knobs,
                       width="content", help="Back to the engine's defaults")
        bench = actions.button("Benchmark these settings", key="knob_bench", icon=":material/science:",
                               width="content",
                               help="Open the Benchmark page with these knobs as the run's settings overrides.")
    values = {"threshold": threshold, "alpha": alpha, "importance_weight": weight, "top_k": top_k}
    if bench:
        st.session_state[BENCH_OVERRIDES_KEY] = {**values, "companion_margin": margin}
        st.switch_page("pages/benchmark.py")
    return {**values, "companion_margin": margin}


def hit_card(rank: int, hit, kind: str, res) -> None:
    m = hit.memory
    with st.container(border=True):
        c_rank, c_body, c_score = st.columns([0.05, 0.63, 0.32], vertical_alignment="center")
        c_rank.markdown(f"#### {rank}")
        with c_body:
            badges = [f":gray-badge[{m.type}]", f":gray-badge[#{m.id}]"]
            if kind == decision.COMPANION:
                badges.append(":violet-badge[:material/group: companion]")
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
            margin = hit.score - res.threshold
            st.markdown(f"**score {hit.score:.3f}** · {'+' if margin >= 0 else ''}{margin:.3f} vs threshold")
            st.progress(min(max(hit.score, 0.0), 1.0))
            if kind == decision.COMPANION:
                st.caption(f"served as a companion: within the margin {res.companion_margin:.2f} of a hit")
            st.caption(f"semantic {hit.semantic:.3f} · lexical {hit.lexical:.3f} · importance {hit.importance:.2f}")


def candidate_table(hits, threshold: float, above: bool = False) -> pd.DataFrame:
    """Candidates not served; ``above``: they scored over the cut-off (top-k dropped them)."""
    return pd.DataFrame(
        [
            {
                "memory": h.memory.text,
                "score": round(h.score, 3),
                ("vs threshold" if above else "below by"): round((h.score - threshold) if above else (threshold - h.score), 3),
                "semantic": round(h.semantic, 3),
                "lexical": round(h.lexical, 3),
                "importance": round(h.importance, 2),
                "status": h.memory.status,
            }
            for h in hits
        ]
    )


def show(res, mode: str, server_ms: float) -> None:
    d = decision.decide(res)
    n = len(res.hits)
    summary = [
        ui.confidence_badge(res.confidence),
        f"**{n}** hit{'s' if n != 1 else ''} served at threshold **{res.threshold:.2f}**"
        + (f" (incl. {d.companions} companion{'s' if d.companions != 1 else ''})" if d.companions else ""),
        f"cut-off **{d.cutoff:.2f}**",
        ":blue-badge[:material/bolt: re-scored, no re-embedding]" if mode == "rescore"
        else ":violet-badge[:material/travel_explore: recalled]",
        f"{server_ms:.1f} ms",
    ]
    if d.cut_by_top_k:
        summary.append(f":orange-badge[:material/content_cut: {len(d.cut_by_top_k)} cut by top-k]")
    st.markdown(" · ".join(summary))
    st.caption(
        f"History: {'searched' if res.include_history else 'not searched'}"
        + (" (the question asks about the past)" if res.history_cue and res.include_history else "")
        + (" · " + " · ".join(f"{k} {v:.1f} ms" for k, v in res.timings_ms.items()) if res.timings_ms else "")
    )

    rows = ([(h, kind) for h, kind in d.served] + [(h, decision.CUT) for h in d.cut_by_top_k]
            + [(h, decision.BELOW) for h in d.below[:8]])
    if rows:
        part_rows, score_rows = [], []
        for i, (h, kind) in enumerate(rows, start=1):
            text = " ".join(h.memory.text.split())
            label = (f"{i}. {text[:60]}{'…' if len(text) > 60 else ''}" + (" (history)" if h.historical else "")
                     + ("" if kind == decision.HIT else f" ({kind})"))
            parts = charts.decompose(h.score, h.semantic, h.lexical, h.importance, res.alpha, res.importance_weight)
            for order, (part, value) in enumerate(parts.items()):
                part_rows.append({"label": label, "part": part, "value": value, "part_order": order})
            score_rows.append({"label": label, "score": h.score, "cleared": kind})
        st.vega_lite_chart(spec=charts.score_parts(part_rows, score_rows, res.threshold, d.cutoff), width="stretch")

    if res.hits:
        for rank, (hit, kind) in enumerate(d.served, start=1):
            hit_card(rank, hit, kind, res)
        if d.cut_by_top_k:
            with st.expander(f"Cut by top-k ({len(d.cut_by_top_k)}): above the cut-off, not served",
                             icon=":material/content_cut:", expanded=True):
                st.dataframe(candidate_table(d.cut_by_top_k, res.threshold, above=True), hide_index=True)
        if res.below_threshold:
            with st.expander(f"Just below the cut-off ({len(res.below_threshold)})", icon=":material/low_priority:"):
                st.dataframe(candidate_table(res.below_threshold, res.threshold), hide_index=True)
    else:
        st.warning(
            f"Nothing cleared the threshold {res.threshold:.2f}: recall returns `[]`.",
            icon=":material/do_not_disturb_on:",
        )
        if res.unknown_names:
            st.caption(f"The question asks about {ui.esc(', '.join(res.unknown_names))}, whom no memory or speaker "
                       f"of `{user}` mentions: nothing is served (`MEMENGINE_UNKNOWN_NAME_FILTER`).")
        elif res.below_threshold:
            best = res.below_threshold[0]
            st.markdown(
                f"Closest candidate: **{ui.esc(best.memory.text)}** scored **{best.score:.3f}**, "
                f"**{res.threshold - best.score:.3f}** below the threshold."
            )
            st.dataframe(candidate_table(res.below_threshold, res.threshold), hide_index=True)
        else:
            st.caption(f"`{user}` has no memories that match at all.")


@st.fragment
def results() -> None:
    """Knobs and results: a knob move re-runs only this (and re-scores), never the whole page."""
    values = knobs()
    q = (query or "").strip()
    if not q:
        st.info("Type a query or pick a sample above. Knobs re-score instantly once a result is shown.",
                icon=":material/lightbulb:")
        return
    margin = values.pop("companion_margin")
    # Anything that changes this user's memories changes one of these, and then a real recall runs.
    newest = eng.messages(user_id=user, limit=1)
    store_sig = (
        eng.count_memories(user_id=user, status="active"),
        eng.count_memories(user_id=user, status="all"),
        newest[0]["id"] if newest else None,
    )
    cache_key = (state.data_dir(), user, q, history_mode, store_sig)
    cached = st.session_state.get("recall_cache")
    t0 = time.perf_counter()
    if cached and cached["key"] == cache_key:
        base = dataclasses.replace(cached["base"], companion_margin=margin)
        res = state.call(eng.rescore, base, what="Re-scoring", **values)
        mode = "rescore"
    else:
        res = state.call(eng.recall, q, user_id=user, include_history=include_history, what="Recall", **values)
        mode = "recall"
        if res is not None:
            st.session_state["recall_cache"] = {"key": cache_key, "base": res}
            if abs(res.companion_margin - margin) > 1e-9:  # the slider differs from the engine's setting
                res = eng.rescore(dataclasses.replace(res, companion_margin=margin), **values)
    server_ms = (time.perf_counter() - t0) * 1000
    st.session_state["recall_mode"] = mode
    st.session_state["recall_server_ms"] = server_ms
    if res is not None:
        show(res, mode, server_ms)


if eng.count_memories(user_id=user, status="all") == 0:
    st.info(f"`{user}` has no memories yet: add some on the Ingest page first.", icon=":material/inbox:")
    st.page_link("pages/ingest.py", label="Go to Ingest", icon=":material/input:")
results()
