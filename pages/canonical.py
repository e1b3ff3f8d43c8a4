"""Canonical test: the 4-turn walkthrough from the design, on a fresh temporary store."""
import pandas as pd
import streamlit as st

from cockpit import canonical, state, ui
from engine import EngineError

state.require_router("canonical")

ui.header("Canonical test", ":material/fact_check:",
          "Four messages, three questions, on a throwaway store that shares the loaded model. "
          "Your store is not touched.")

with st.container(border=True):
    left, right = st.columns([3, 1], vertical_alignment="center")
    left.markdown(
        "**Ingest** " + " → ".join(ui.quote(t) for t, _ in canonical.INGESTS)
        + "  \n**Ask** " + " · ".join(ui.quote(q["query"]) for q in canonical.QUERIES)
    )
    run = right.button("Run canonical test", key="canon_run", type="primary", icon=":material/play_arrow:",
                       width="stretch")

if run:
    with st.spinner("Running the walkthrough on a temporary store…"):
        try:
            st.session_state["canon_report"] = canonical.run_canonical(state.embedder())
        except (ValueError, EngineError) as exc:
            st.session_state.pop("canon_report", None)
            st.error(f"The canonical test could not run: {exc}", icon=":material/error:")

report = st.session_state.get("canon_report")
if report:
    verdict = f"{report['checks_passed']} / {report['checks_total']} checks passed in {report['elapsed_ms']:.0f} ms"
    if report["passed"]:
        st.success(f"All good: {verdict}.", icon=":material/verified:")
    else:
        st.error(f"Walkthrough failed: {verdict}.", icon=":material/error:")

    for step in report["steps"]:
        with st.container(border=True):
            head, badge = st.columns([5, 1], vertical_alignment="center")
            kind = ":material/input: ingest" if step["kind"] == "ingest" else ":material/search: recall"
            head.markdown(f"**Step {step['step']}** · {kind} {ui.quote(step['input'])}")
            badge.markdown(ui.pass_badge(step["passed"]))
            exp_col, got_col = st.columns([1, 2])
            exp_col.markdown(f"**Expected** {ui.esc(step['expect'])}")
            if step["kind"] == "ingest":
                got_col.markdown(f"**Got** {ui.outcome_badge(step['got'])} {ui.esc(step['detail'])}")
                if step["memories"]:
                    got_col.caption(" · ".join(
                        f"#{m['id']} `{m['subject']}.{m['attribute']}` = {ui.esc(m['value'])} ({m['type']}, "
                        f"importance {m['importance']:.2f})" for m in step["memories"]
                    ) + (f" · supersedes #{', #'.join(map(str, step['superseded_ids']))}"
                         if step["superseded_ids"] else ""))
            else:
                got_col.markdown(f"**Got** {ui.esc(step['got'])} {ui.confidence_badge(step['confidence'])}")
                rows = step["hits"] or step["below_threshold"]
                if rows:
                    df = pd.DataFrame(rows)
                    df.insert(0, "cleared", bool(step["hits"]))
                    got_col.dataframe(df, hide_index=True)
                    if not step["hits"]:
                        got_col.caption(f"Best candidates, all below the threshold {step['threshold']:.2f}.")
            st.markdown("  \n".join(f"{ui.pass_badge(c['passed'])} {c['check']}" for c in step["checks"]))
            st.caption(f"{step['latency_ms']:.1f} ms")
else:
    st.info("Press **Run canonical test** to run the walkthrough.", icon=":material/play_circle:")
