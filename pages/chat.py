"""Chat: talk to a bot that remembers, and see memory at work beside every reply."""
import pandas as pd
import streamlit as st

from cockpit import chat, state, ui
from engine import EngineError
from engine.llm import LLMError, client_from_settings

state.require_router("chat")

SESSION_KEY = "chat_session"
FORGET_KEY = "chat_pending_forget"
SUMMARY_KEY = "chat_last_summary"

eng = state.engine()
user = state.current_user()
cfg = state.settings()
try:
    client = client_from_settings(cfg)
except ValueError as exc:
    client = None
    st.error(f"MEMENGINE_LLM_URL / MEMENGINE_LLM_MODEL are not usable ({exc}); using the template reply.",
             icon=":material/error:")

ui.header("Chat", ":material/forum:",
          f"Talk as `{user}`. Each reply is built from what is recalled; the message is remembered after the reply.")
st.caption(f":material/smart_toy: Replies from `{cfg.llm_model}` at `{client.endpoint}`" if client else
           ":material/description: No LLM configured (MEMENGINE_LLM_URL): transparent template replies; "
           "nothing leaves this machine.")

session: chat.Session | None = st.session_state.get(SESSION_KEY)
if session is None or session.user_id != user:  # a new session greets with the profile
    session = chat.Session(user, eng.profile(user).greeting)
    st.session_state[SESSION_KEY] = session
    st.session_state.pop(FORGET_KEY, None)


def end_session() -> None:
    """Summarise the session into one memory; a failing LLM falls back to the summary without it."""
    ids = session.message_ids
    summary, note = None, ""
    if ids:
        try:
            try:
                summary = eng.summarize_session(user, ids, summarizer=client)
            except LLMError as exc:
                note = f" (the LLM failed: {exc}; summarised without it)"
                summary = eng.summarize_session(user, ids)
        except (ValueError, EngineError) as exc:
            st.session_state["chat_error"] = f"Session summary failed, the session stays open: {exc}"
            return
    st.session_state[SUMMARY_KEY] = (summary, note)
    st.session_state.pop(SESSION_KEY, None)


def forget_now() -> None:
    counts = eng.forget_user(user)
    st.session_state.pop(FORGET_KEY, None)
    st.session_state.pop(SESSION_KEY, None)
    st.session_state["chat_flash"] = f"Forgot user `{user}`: {counts['memories']} memories, {counts['messages']} messages deleted."


def ledger_link(memory_id: int, key: str) -> None:
    if st.button(f"#{memory_id} → ledger", key=key, type="tertiary", icon=":material/account_tree:"):
        st.session_state["ledger_pick"] = memory_id
        st.switch_page("pages/ledger.py")


top_l, top_r = st.columns([3, 1], vertical_alignment="center")
if "chat_flash" in st.session_state:
    top_l.success(st.session_state.pop("chat_flash"), icon=":material/check:")
if "chat_error" in st.session_state:
    top_l.error(st.session_state.pop("chat_error"), icon=":material/error:")
ended = st.session_state.pop(SUMMARY_KEY, None)
if ended is not None:
    summary, note = ended
    if summary is not None and summary.memory is not None:
        top_l.success(f"Session summary saved as memory #{summary.memory.id}{note}: {summary.memory.text}",
                      icon=":material/summarize:")
    else:
        top_l.info("The session had no messages; nothing to summarise.", icon=":material/info:")
if top_r.button("End session", key="chat_end", icon=":material/logout:", width="stretch",
                help="Write one summary memory of this session's messages, then start a new session."):
    end_session()
    st.rerun()


def show_recalled(turn: chat.Turn, n: int) -> None:
    ctx = turn.context
    st.markdown("**:material/search: Recalled**")
    if ctx.abstained:
        st.caption("Nothing cleared the threshold: the bot must say it does not know.")
    else:
        st.dataframe(pd.DataFrame(chat.recalled_rows(ctx)), hide_index=True, width="stretch")
    if ctx.omitted:
        st.caption(f"{ctx.omitted} more left out to fit the {ctx.budget_chars}-character budget.")
    with st.expander("Context block, exactly as sent", expanded=False):
        st.code(ctx.text, language=None, wrap_lines=True)
        if turn.prompt:
            st.caption("System prompt sent to the LLM:")
            st.code(turn.prompt[0]["content"], language=None, wrap_lines=True)


def show_changes(turn: chat.Turn, n: int) -> None:
    st.markdown("**:material/edit_note: Memory changes**")
    if turn.ingest_error:
        st.error(f"Not remembered: {turn.ingest_error}", icon=":material/error:")
        return
    if turn.ingest is None:
        st.caption("Updating memory…")
        return
    icons = {"created": ":material/add_circle:", "superseded": ":material/swap_horiz:",
             "confirmed": ":material/check_circle:", "ignored": ":material/block:"}
    for j, row in enumerate(chat.change_rows(turn.ingest)):
        if row["memory_id"] is None:
            st.markdown(f"{icons['ignored']} **ignored**: nothing durable to keep.")
            continue
        st.markdown(f"{icons.get(row['action'], '')} **{row['action']}** #{row['memory_id']}: {row['text']}")
        if row["replaced"]:
            st.markdown(f":material/history: replaces {row['replaced']} (now old)")
        ledger_link(row["memory_id"], key=f"chat_ledger_{n}_{j}")


def show_command(turn: chat.Turn, n: int) -> None:
    with st.chat_message("assistant"):
        if turn.command == "/help":
            st.markdown(chat.HELP)
        elif turn.command == "/memories":
            rows = turn.data
            if rows:
                st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
                cur = sum(r["status"] == "Current" for r in rows)
                st.caption(f"{cur} current | {len(rows) - cur} old | {len(rows)} total")
            else:
                st.markdown("No memories stored yet.")
        elif turn.command == "/categories":
            if not turn.data:
                st.markdown("No memories stored yet.")
            for kind, texts in turn.data.items():
                st.markdown(f"**{kind}** ({len(texts)})\n" + "\n".join(f"- {t}" for t in texts))
        elif turn.command == "/forget":
            st.markdown(turn.data)


def show_turn(turn: chat.Turn, n: int, live: bool = False) -> None:
    if turn.command:
        with st.chat_message("user"):
            st.markdown(turn.text)
        show_command(turn, n)
        return
    talk, side = st.columns([3, 2])
    with talk:
        with st.chat_message("user"):
            st.markdown(turn.text)
        with st.chat_message("assistant"):
            if live and client is not None:
                st.write_stream(chat.stream_reply(turn, session, client))
            else:
                if live:
                    chat.template(turn)
                st.markdown(turn.reply)
            if turn.error:
                st.warning(f"The LLM failed, so this is the template reply: {turn.error}", icon=":material/error:")
    with side:
        show_recalled(turn, n)
        changes = st.empty()
        with changes.container():
            show_changes(turn, n)
    if live:  # the reply is on screen; only now does the message go into memory
        chat.remember(eng, user, turn, in_reply_to=chat.answered(session, turn))
        with changes.container():
            show_changes(turn, n)


with st.chat_message("assistant", avatar=":material/waving_hand:"):
    st.markdown(session.greeting)

for n, turn in enumerate(session.turns):
    show_turn(turn, n)

if st.session_state.get(FORGET_KEY):
    st.warning(chat.forget_warning(eng, user), icon=":material/warning:")
    yes, no, _ = st.columns([1, 1, 3])
    yes.button("Yes, forget everything", key="chat_forget_yes", type="primary", on_click=forget_now,
               icon=":material/delete_forever:")
    no.button("Cancel", key="chat_forget_no", on_click=lambda: st.session_state.pop(FORGET_KEY, None))

text = st.chat_input("Say something, or /help", key="chat_input")
if text and text.strip():
    command = chat.parse_command(text)
    if command:
        data = None
        if command == "/memories":
            data = chat.memories_rows(eng, user)
        elif command == "/categories":
            data = chat.categories(eng, user)
        elif command == "/forget":
            data = "Confirm below (or cancel); nothing is deleted until you do."
            st.session_state[FORGET_KEY] = True
        turn = chat.Turn(text=text.strip(), command=command, data=data)
        session.turns.append(turn)
        st.rerun()
    else:
        turn = state.call(chat.recall, eng, user, text.strip(), what="Recall")
        if turn is not None:
            session.turns.append(turn)
            show_turn(turn, len(session.turns) - 1, live=True)
