"""Ingest: feed messages to the engine and see what it made of each one."""
import pandas as pd
import streamlit as st

from cockpit import batch, state, ui
from engine import EngineError
from engine.limits import INGEST_STATUSES

state.require_router("ingest")

CHUNK = 16  # messages per ingest_many call: one embedding batch each, and a progress step

eng = state.engine()
user = state.current_user()

ui.header("Ingest", ":material/input:",
          f"Messages become memories for `{user}`: created, superseded, confirmed or ignored as small talk.")


def ingest_batch(messages: list[dict]) -> None:
    """Ingest in chunks with a progress bar; a rejected chunk is retried message by message to name the culprit."""
    done: list[tuple[str, object]] = []
    errors: list[dict] = []
    bar = st.progress(0.0, text=f"Ingesting {len(messages)} messages…")
    for i, chunk in enumerate(batch.chunks(messages, CHUNK)):
        try:
            results = eng.ingest_many(chunk, user_id=user)
            done.extend((m["text"], r) for m, r in zip(chunk, results))
        except ValueError:
            for m in chunk:
                extra = {k: v for k, v in m.items() if k != "text"}
                extra.setdefault("user_id", user)
                try:
                    done.append((m["text"], eng.ingest(m["text"], **extra)))
                except (ValueError, EngineError) as exc:
                    errors.append({"message": m["text"][:120], "error": str(exc)})
        n = min((i + 1) * CHUNK, len(messages))
        bar.progress(n / len(messages), text=f"Ingested {n} / {len(messages)} messages")
    bar.empty()
    st.session_state["ingest_results"] = {"kind": "batch", "results": done, "errors": errors}


tab_one, tab_batch = st.tabs([":material/chat: Single message", ":material/playlist_add: Batch"])

with tab_one:
    # A refused message comes back into the box (the form clears on submit), with the reason under it.
    restore = st.session_state.pop("ingest_restore", None)
    if restore:
        st.session_state["ingest_text"] = restore[0]
    with st.form("ingest_form", clear_on_submit=True):
        # max_chars: the engine's own limit, so the box shows a live character counter against it
        text = st.text_area("Message", key="ingest_text", height=90, max_chars=state.settings().max_text_chars,
                            placeholder="e.g. Actually, the deadline moved to November 2.")
        c1, c2, c3 = st.columns([1, 1, 1], vertical_alignment="bottom")
        speaker = c1.text_input("Speaker (optional)", key="ingest_speaker", placeholder="user")
        source = c2.text_input("Source id (optional)", key="ingest_source", placeholder="chat-42")
        submitted = c3.form_submit_button("Ingest message", key="ingest_submit", type="primary",
                                          icon=":material/send:", width="stretch")
    if restore:
        st.error(restore[1], icon=":material/error:")
    if submitted:
        try:
            r = eng.ingest(text or "", user_id=user, speaker=speaker or None, source_id=source or None)
        except (ValueError, EngineError) as exc:
            st.session_state["ingest_restore"] = (text or "", f"Ingest failed: {exc}")
            st.rerun()
        st.session_state["ingest_results"] = {"kind": "single", "results": [(text, r)], "errors": []}

with tab_batch:
    st.caption("One message per line, or upload a `.txt` (one per line) or `.jsonl` file "
               '(`"text"` or `{"text": ..., "speaker": ..., "timestamp": ..., "source_id": ...}` per line).')
    b1, b2 = st.columns([3, 2])
    lines = b1.text_area("Messages", key="batch_text", height=150,
                         placeholder="I use Arch Linux.\nI'm building a Next.js app.\n"
                                     "My project deadline is October 15.")
    upload = b2.file_uploader("…or a file", type=["txt", "jsonl"], key="batch_file")
    typed = batch.parse_lines(lines or "") if (lines or "").strip() else []
    b1.caption(f"{len(typed)} message{'s' if len(typed) != 1 else ''} · {len(lines or '')} characters")
    if upload and typed:
        st.info(f"Both typed lines and a file are given: **the file `{upload.name}` is used**; "
                "remove it to ingest the typed lines.", icon=":material/info:")
    if st.button("Ingest batch", key="batch_go", type="primary", icon=":material/playlist_add_check:"):
        try:
            messages = batch.parse_upload(upload.name, upload.getvalue()) if upload else batch.parse_lines(lines or "")
        except ValueError as exc:
            st.error(f"Could not read the batch: {exc}", icon=":material/error:")
            messages = None
        if messages is not None and not messages:
            st.error("The batch is empty: type one message per line or upload a file.", icon=":material/error:")
        elif messages:
            ingest_batch(messages)


# ---------------------------------------------------------------- outcome of the last ingest
TRACE_COMPARED = 5  # compared memories shown per candidate, most similar first


def trace_view(r) -> None:
    """How the engine read the message: clause -> candidate (and the rule that made it) -> the memories
    it was weighed against, with their similarity -> the decision and the rule behind it."""
    st.markdown("**:material/account_tree: Trace**")
    if not r.trace:
        st.caption("No clause of this message held a durable fact: no candidate, nothing compared.")
        return
    clauses: dict[str, list] = {}
    for step in r.trace:
        clauses.setdefault(step.clause, []).append(step)
    for n, (clause, steps) in enumerate(clauses.items(), start=1):
        st.markdown(f"Clause {n}: {ui.quote(clause)}")
        for step in steps:
            with st.container(border=True):
                st.markdown(f"Candidate from rule `{step.rule or 'unknown'}`: {ui.esc(step.text)}  \n"
                            f"`{step.subject}` · `{step.attribute}` = **{ui.esc(step.value)}** "
                            f"· {step.type} · importance {step.importance:.2f}")
                if step.compared:
                    st.caption(f"Compared with {len(step.compared)} existing "
                               f"memor{'y' if len(step.compared) == 1 else 'ies'} (cosine similarity):")
                    for c in step.compared[:TRACE_COMPARED]:
                        st.progress(min(max(c.similarity, 0.0), 1.0),
                                    text=f"{c.similarity:.2f} · #{c.memory_id} {ui.esc(c.text)} ({c.status})")
                    if len(step.compared) > TRACE_COMPARED:
                        st.caption(f"…and {len(step.compared) - TRACE_COMPARED} more.")
                else:
                    st.caption("Compared with no existing memory.")
                target = {"superseded": ", ".join(f"#{i}" for i in step.superseded_ids),
                          "confirmed": f"#{step.memory_id}"}.get(step.action, f"#{step.memory_id}")
                st.markdown(f"{ui.outcome_badge(step.action)} {target}: because {ui.esc(step.reason or 'no rule said')}")


def outcome_card(text: str, r) -> None:
    with st.container(border=True):
        st.markdown(f"{ui.outcome_badge(r.status)} {ui.quote(text)}")
        st.caption(r.message)
        if r.outcomes:
            st.dataframe(
                pd.DataFrame(
                    [
                        {
                            "action": o.action,
                            "memory": f"#{o.memory.id}",
                            "subject": o.memory.subject,
                            "attribute": o.memory.attribute,
                            "value": o.memory.value,
                            "type": o.memory.type,
                            "importance": round(o.memory.importance, 2),
                            "text": o.memory.text,
                        }
                        for o in r.outcomes
                    ]
                ),
                hide_index=True,
            )
        for o in r.outcomes:
            for old in o.superseded:
                left, mid, right = st.columns([1, 0.08, 1], vertical_alignment="center")
                with left:
                    ui.memory_card(old, title=f"Before: #{old.id}")
                mid.markdown("### :material/arrow_forward:")
                with right:
                    ui.memory_card(o.memory, title=f"Now: #{o.memory.id}")
        trace_view(r)


last = st.session_state.get("ingest_results")
if last:
    st.subheader(":material/assignment_turned_in: Last ingest", anchor=False)
    results = last["results"]
    for err in last["errors"]:
        st.error(f"Rejected: {ui.quote(err['message'])}: {err['error']}", icon=":material/error:")
    if last["kind"] == "batch":
        counts = {s: sum(r.status == s for _, r in results) for s in INGEST_STATUSES}
        cols = st.columns(5)
        cols[0].metric("Messages", len(results), border=True)
        for col, (status, n) in zip(cols[1:], counts.items()):
            col.metric(status.capitalize(), n, border=True)
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "#": i,
                        "message": t,
                        "status": r.status,
                        "memories": ", ".join(f"#{m.id} {m.text}" for m in r.memories),
                        "superseded": ", ".join(f"#{x}" for x in r.superseded_ids),
                    }
                    for i, (t, r) in enumerate(results, start=1)
                ]
            ),
            hide_index=True,
        )
        shown = [(t, r) for t, r in results if r.status != "ignored"][:20]
        if shown:
            with st.expander(f"Details ({len(shown)} messages that changed memory)", icon=":material/list_alt:"):
                for t, r in shown:
                    outcome_card(t, r)
    else:
        for t, r in results:
            outcome_card(t, r)

# ---------------------------------------------------------------- message log
st.subheader(":material/forum: Message log", anchor=False)
log = eng.messages(user_id=user, limit=50)
if log:
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "#": m.get("id"),
                    "logged": ui.when(m.get("created_at")),
                    "text": m.get("text"),
                    "outcome": m.get("outcome") or "",
                    "speaker": m.get("speaker") or "",
                    "source": m.get("source_id") or "",
                    "said at": m.get("timestamp") or "",
                }
                for m in log
            ]
        ),
        hide_index=True,
        column_config={
            "#": st.column_config.NumberColumn("#", width=50),
            "logged": st.column_config.TextColumn("logged", width=150),
            "text": st.column_config.TextColumn("text", width="large"),
            "outcome": st.column_config.TextColumn("outcome", width=100),
        },
    )
    st.caption(f"The {len(log)} most recent messages from `{user}`, newest first (small talk included).")
else:
    st.caption(f"No messages from `{user}` yet.")
