"""The sidebar every page shares: which store, how big, and which user the pages work on."""
from __future__ import annotations

from typing import Any

import streamlit as st

from cockpit import state

NEW_USER = "New user…"


def _on_user_select() -> None:
    choice = st.session_state.get("user_select")
    if choice and choice != NEW_USER:
        state.set_user(choice)


def _on_new_user() -> None:
    name = (st.session_state.get("new_user") or "").strip()
    if not name:
        st.session_state["new_user_error"] = "Type a user id first."
        return
    try:
        state.engine().count_memories(user_id=name)  # the engine's own user id rules decide
    except ValueError as exc:
        st.session_state["new_user_error"] = f"Not a valid user id: {exc}"
        return
    st.session_state.pop("new_user_error", None)
    state.set_user(name)
    st.session_state["user_select"] = name
    st.session_state["new_user"] = ""


def begin() -> Any:
    """Draw the brand and the user selector; return the container that ``finish`` fills with store facts.

    app.py calls ``begin`` before the page runs (pages need the user) and ``finish`` after it, so the
    counts already include what the page just wrote.
    """
    eng = state.engine()
    user = state.current_user()
    with st.sidebar:
        st.markdown("### :material/memory: MemEngine cockpit")
        st.caption("Local-first memory engine: ingest, recall, lineage, evaluation.")
        store_box = st.container(border=True)
        with st.container(border=True):
            st.markdown("**:material/person: User**")
            users = sorted(set(eng.users()) | {user})
            if st.session_state.get("user_select") != NEW_USER:
                st.session_state["user_select"] = user
            choice = st.selectbox(
                "Work as user",
                users + [NEW_USER],
                key="user_select",
                on_change=_on_user_select,
                help="Every page reads and writes this user's memories.",
            )
            if choice == NEW_USER:
                st.text_input("New user id", key="new_user", placeholder="e.g. alice")
                st.button("Use this user", key="new_user_go", icon=":material/person_add:", on_click=_on_new_user,
                          width="stretch")
                if st.session_state.get("new_user_error"):
                    st.warning(st.session_state["new_user_error"], icon=":material/warning:")
            user_box = st.empty()
    return store_box, user_box


def finish(boxes: Any) -> None:
    """Fill in the store's path, model and memory counts (after the page ran)."""
    store_box, user_box = boxes
    eng = state.engine()
    cfg = state.settings()
    user = state.current_user()
    with store_box:
        st.markdown("**:material/database: Store**")
        st.code(state.data_dir(), language=None, wrap_lines=True)
        st.caption(f":material/neurology: Model `{cfg.model_name}`")
        active = eng.count_memories(user_id=None, status="active")
        total = eng.count_memories(user_id=None, status="all")
        left, right = st.columns(2)
        left.metric("Active", active, help="Active memories in this store (all users)")
        right.metric("Total", total, help="All memories, including superseded and deleted")
    user_box.caption(f"`{user}` has **{eng.count_memories(user_id=user, status='active')}** active memories.")
