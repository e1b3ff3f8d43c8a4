"""Ledger & lineage: every memory with its status, what replaced it, and its whole supersede chain."""
import math
import sqlite3
from functools import partial

import pandas as pd
import streamlit as st

from cockpit import lineage, state, transfer, ui
from engine import EngineError
from engine.limits import LIST_LIMIT_MAX, MEMORY_TYPES
from engine.limits import STATUSES as MEMORY_STATUSES

state.require_router("ledger")

PAGE_SIZE = 25
SCAN_LIMIT = LIST_LIMIT_MAX  # list_memories' own maximum
STATUSES = ["all", *MEMORY_STATUSES]
TYPES = list(MEMORY_TYPES)
SCOPES = ["this user", "all users"]

eng = state.engine()
user = state.current_user()

ui.header("Ledger & lineage", ":material/account_tree:",
          "The audit trail: nothing is overwritten. Superseded and deleted memories stay, "
          "linked to what replaced them.")


# ---------------------------------------------------------------- actions (callbacks run before the page draws)
def _flash(kind: str, text: str) -> None:
    st.session_state["ledger_flash"] = (kind, text)


def _ask_delete(memory_id: int) -> None:
    st.session_state["ledger_pending_delete"] = memory_id


def _cancel(key: str) -> None:
    st.session_state.pop(key, None)


def _do_delete(memory_id: int) -> None:
    st.session_state.pop("ledger_pending_delete", None)
    try:
        m = eng.delete(memory_id)
        _flash("success",
               f"Memory #{m.id} soft-deleted: it stays in the ledger with status `deleted` and leaves recall.")
    except (ValueError, EngineError) as exc:
        _flash("error", f"Delete failed: {exc}")


def _do_restore(memory_id: int, user_id: str) -> None:
    try:
        m = eng.restore(memory_id, user_id=user_id)
        _flash("success", f"Memory #{m.id} restored: it is `{m.status}` again and back in recall.")
    except (ValueError, EngineError) as exc:
        _flash("error", f"Restore failed: {exc}")


def _ask_erase(memory_id: int) -> None:
    st.session_state["ledger_pending_erase"] = memory_id


def _do_erase(memory_id: int, user_id: str) -> None:
    st.session_state.pop("ledger_pending_erase", None)
    try:
        eng.erase(memory_id, user_id=user_id)
        _flash("success", f"Memory #{memory_id} erased for good: its text and vector are gone from the ledger "
                          "and the index.")
    except (ValueError, EngineError) as exc:
        _flash("error", f"Erase failed: {exc}")


def _ask_forget() -> None:
    st.session_state["ledger_pending_forget"] = st.session_state.get("forget_pick")


def _do_forget(user_id: str) -> None:
    st.session_state.pop("ledger_pending_forget", None)
    try:
        n = eng.forget_user(user_id)
        _flash("success", f"Forgot user `{user_id}`: {n.get('memories', 0)} memories and "
                          f"{n.get('messages', 0)} messages erased for good.")
        if state.current_user() == user_id:
            state.set_user(state.DEFAULT_USER)
    except (ValueError, EngineError) as exc:
        _flash("error", f"Forget failed: {exc}")


def _do_import() -> None:
    upload = st.session_state.get("ledger_import_file")
    if upload is None:
        _flash("error", "Choose a .jsonl file to import first.")
        return
    try:
        n = transfer.import_bytes(eng, upload.getvalue())
        _flash("success", f"Imported {n} memories from {upload.name}.")
    except (ValueError, EngineError) as exc:
        _flash("error", f"Import failed: {exc}")
    except sqlite3.IntegrityError as exc:  # the engine lets a duplicate id through as a raw constraint error
        _flash("error", f"Import failed: {upload.name} holds memories that are already in this store "
                        f"(was it exported from here or imported before?). Nothing was imported. ({exc})")


def _open(memory_id: int) -> None:
    """Show one memory (and its chain) in the lineage pane, wherever it is in the ledger."""
    st.session_state["ledger_pick"] = memory_id


def _row_clicked(table_key: str, ids: tuple[int, ...]) -> None:
    """A row of a table was selected: open that memory. Fired on a change only, so a stale selection left in
    a table never overrides a later choice made elsewhere."""
    rows = (st.session_state.get(table_key) or {}).get("selection", {}).get("rows") or []
    if rows and rows[0] < len(ids):
        _open(ids[rows[0]])


def _first_page() -> None:
    st.session_state["ledger_page"] = 1


flash = st.session_state.pop("ledger_flash", None)
if flash:
    # A toast beside the action (top right), not a banner that pushes the page down; a failure also
    # stays on the page, since a toast fades before it can be read in full.
    st.toast(flash[1], icon="✅" if flash[0] == "success" else "⚠️")
    if flash[0] != "success":
        st.error(flash[1], icon=":material/error:")

# ---------------------------------------------------------------- filters
f1, f2, f3, f4 = st.columns([1, 1, 1.6, 2])
status = f1.selectbox("Status", STATUSES, key="ledger_status", on_change=_first_page)
scope = f2.selectbox("Users", SCOPES, key="ledger_scope", on_change=_first_page,
                     format_func=lambda s: f"{user}" if s == "this user" else s)
types = f3.multiselect("Type", TYPES, key="ledger_types", on_change=_first_page, placeholder="all types")
search = f4.text_input("Search", key="ledger_search", on_change=_first_page,
                       placeholder="text, subject, attribute or value")

uid = user if scope == "this user" else None
total = eng.count_memories(user_id=uid, status=status)
needle = (search or "").strip().lower()
if types or needle:
    # Type and text filters are not in the engine's API: filter the (capped) list here.
    everything = eng.list_memories(user_id=uid, status=status, limit=min(max(total, 1), SCAN_LIMIT), offset=0)
    matches = [
        m for m in everything
        if (not types or m.type in types)
        and (not needle or needle in f"{m.text} {m.subject} {m.attribute} {m.value}".lower())
    ]
    n_rows = len(matches)
else:
    matches = None
    n_rows = total

n_pages = max(1, math.ceil(n_rows / PAGE_SIZE))
if st.session_state.get("ledger_page", 1) > n_pages:
    st.session_state["ledger_page"] = 1
table_box = st.container()
p1, p2 = st.columns([3, 1], vertical_alignment="center")
with p1:
    page = st.pagination(n_pages, key="ledger_page") if n_pages > 1 else 1
start = (page - 1) * PAGE_SIZE
rows = matches[start : start + PAGE_SIZE] if matches is not None else eng.list_memories(
    user_id=uid, status=status, limit=PAGE_SIZE, offset=start)
p2.caption(f"{n_rows} memories · page {page} of {n_pages}")

row_ids = tuple(m.id for m in rows)
# One key per set of rows shown: a selection belongs to the rows it was made on (not to the next page's).
table_key = f"ledger_table::{abs(hash(row_ids))}"
with table_box:
    if rows:
        st.caption(":material/touch_app: Click a row to open its lineage below; the full text is there too.")
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "id": m.id,
                        "status": ui.STATUS_LABEL.get(m.status, m.status),
                        "memory": m.text,
                        "type": m.type,
                        "slot": f"{m.subject}.{m.attribute}",
                        "value": m.value,
                        "importance": m.importance,
                        "replaced by": f"→ #{m.replaced_by}" if m.replaced_by else "",
                        **({"user": m.user_id} if uid is None else {}),
                        "created": ui.when(m.created_at)[5:16],
                        "source message": m.source_message or "",
                    }
                    for m in rows
                ]
            ),
            hide_index=True,
            column_config={
                "id": st.column_config.NumberColumn("id", format="#%d", width=60),
                "status": st.column_config.TextColumn("status", width=105),
                "memory": st.column_config.TextColumn("memory", width="medium"),
                "type": st.column_config.TextColumn("type", width=105),
                "importance": st.column_config.ProgressColumn("importance", min_value=0.0, max_value=1.0,
                                                              format="%.2f", width=90),
                "replaced by": st.column_config.TextColumn("replaced by", width=90),
                "created": st.column_config.TextColumn("created", width=95, help="month-day hour:minute"),
            },
            key=table_key,
            on_select=partial(_row_clicked, table_key, row_ids),
            selection_mode="single-row",
        )
    else:
        st.info("No memories match these filters.", icon=":material/filter_alt_off:")

# ---------------------------------------------------------------- inspector: lineage of one memory
if rows:
    st.subheader(":material/timeline: Lineage", anchor=False)
    by_id = {m.id: m for m in rows}
    wanted = st.session_state.get("ledger_pick")
    if wanted is not None and wanted not in by_id:
        # opened from a link or a chain row: it may be on another page or hidden by the filters
        try:
            by_id = {wanted: eng.get(wanted, user_id=uid), **by_id}
        except (ValueError, EngineError):
            # Gone, or another user's (the user was switched): inspect the first row instead. Set, not popped:
            # only a value the script sets is sent to the browser, which would otherwise go on showing the
            # old pick's label while this page inspects another memory.
            st.session_state["ledger_pick"] = next(iter(by_id))
    pick = st.selectbox(
        "Memory to inspect",
        list(by_id),
        key="ledger_pick",
        format_func=lambda i: f"#{i} · {by_id[i].status} · {by_id[i].text[:80]}",
    )
    chain = state.call(eng.history, pick, what="Loading the lineage") or []
    selected = next((m for m in chain if m.id == pick), by_id[pick])
    g_col, d_col = st.columns([1.5, 1])
    with g_col:
        st.graphviz_chart(lineage.lineage_dot(chain, selected_id=pick), width="content")
        st.caption(f"{len(chain)} version{'s' if len(chain) != 1 else ''} in this chain, oldest first.")
        if len(chain) > 1:
            chain_ids = tuple(m.id for m in chain)
            chain_key = f"ledger_chain::{abs(hash(chain_ids))}"
            st.dataframe(
                pd.DataFrame(
                    [
                        {
                            "id": m.id,
                            "status": ui.STATUS_LABEL.get(m.status, m.status),
                            "value": m.value,
                            "created": ui.when(m.created_at)[5:],
                            "superseded": ui.when(m.superseded_at)[5:] if m.superseded_at else "",
                            "source message": m.source_message or "",
                        }
                        for m in chain
                    ]
                ),
                hide_index=True,
                key=chain_key,
                on_select=partial(_row_clicked, chain_key, chain_ids),
                selection_mode="single-row",
            )
    with d_col:
        ui.memory_card(selected)
        if selected.replaced_by:
            st.button(f"→ #{selected.replaced_by}", key="ledger_goto_next", icon=":material/subdirectory_arrow_right:",
                      on_click=_open, args=(selected.replaced_by,),
                      help=f"Replaced by memory #{selected.replaced_by}: open it")
        earlier = [m for m in chain if m.replaced_by == selected.id]
        for m in earlier:
            st.button(f"← #{m.id}", key=f"ledger_goto_prev::{m.id}", icon=":material/history:", on_click=_open,
                      args=(m.id,), help=f"Memory #{m.id} was replaced by this one: open it")
        if selected.status != "deleted":
            pending = st.session_state.get("ledger_pending_delete")
            if pending == selected.id:
                st.warning(f"Soft-delete memory #{selected.id}? It leaves recall but stays in the ledger.",
                           icon=":material/warning:")
                c1, c2 = st.columns(2)
                c1.button("Confirm delete", key="ledger_delete_confirm", type="primary", icon=":material/delete:",
                          on_click=_do_delete, args=(selected.id,), width="stretch")
                c2.button("Cancel", key="ledger_delete_cancel", on_click=_cancel, args=("ledger_pending_delete",),
                          width="stretch")
            else:
                st.button(f"Delete #{selected.id}", key="ledger_delete", icon=":material/delete:",
                          on_click=_ask_delete, args=(selected.id,))
        # Only a soft-deleted memory can be restored; erasing is offered for every memory.
        if selected.status == "deleted":
            st.button(f"Restore #{selected.id}", key="ledger_restore", icon=":material/restore_from_trash:",
                      on_click=_do_restore, args=(selected.id, selected.user_id))
        if st.session_state.get("ledger_pending_erase") == selected.id:
            st.error(f"Erase memory #{selected.id} for good? Its text, value and vector are destroyed; no "
                     "restore, no history. This cannot be undone.", icon=":material/delete_forever:")
            c1, c2 = st.columns(2)
            c1.button("Erase for good", key="ledger_erase_confirm", type="primary",
                      icon=":material/delete_forever:", on_click=_do_erase, args=(selected.id, selected.user_id),
                      width="stretch")
            c2.button("Cancel", key="ledger_erase_cancel", on_click=_cancel, args=("ledger_pending_erase",),
                      width="stretch")
        else:
            st.button(f"Erase #{selected.id} for good…", key="ledger_erase", icon=":material/delete_forever:",
                      on_click=_ask_erase, args=(selected.id,))

# ---------------------------------------------------------------- export / import / forget
st.subheader(":material/swap_vert: Export, import, forget", anchor=False)
e_col, i_col, x_col = st.columns(3)
with e_col.container(border=True):
    st.markdown("**:material/download: Export JSONL**")
    # Keyed on the user: a new user gets new widgets, so the label, the file name and the data a click
    # downloads all belong to the same user (an export named after one user never holds another's).
    export_scope = st.selectbox("Export", SCOPES, key=f"export_scope::{user}",
                                format_func=lambda s: f"{user}'s memories" if s == "this user" else "the whole store")
    export_uid = user if export_scope == "this user" else None
    st.download_button(
        "Download .jsonl",
        data=lambda uid=export_uid: transfer.export_bytes(eng, uid),
        file_name=f"memengine-{export_uid or 'all'}.jsonl",
        mime="application/jsonl",
        key=f"ledger_export::{user}",
        icon=":material/download:",
        on_click="ignore",
    )
    st.caption(f"{eng.count_memories(user_id=export_uid, status='all')} memories, every status, with lineage.")
with i_col.container(border=True):
    st.markdown("**:material/upload: Import JSONL**")
    st.file_uploader("JSONL export", type=["jsonl"], key="ledger_import_file")
    st.button("Import", key="ledger_import_go", icon=":material/upload:", on_click=_do_import)
with x_col.container(border=True):
    st.markdown("**:material/person_remove: Forget a user**")
    users = eng.users()
    if users:
        st.selectbox("User", users, key="forget_pick",
                     index=users.index(user) if user in users else 0)
        victim = st.session_state.get("ledger_pending_forget")
        if victim:
            st.warning(f"Erase every memory and message of `{victim}`? This is a hard delete and cannot be undone.",
                       icon=":material/warning:")
            c1, c2 = st.columns(2)
            c1.button("Forget for good", key="forget_confirm", type="primary", icon=":material/delete_forever:",
                      on_click=_do_forget, args=(victim,), width="stretch")
            c2.button("Cancel", key="forget_cancel", on_click=_cancel, args=("ledger_pending_forget",),
                      width="stretch")
        else:
            st.button("Forget user…", key="forget_go", icon=":material/person_remove:", on_click=_ask_forget)
    else:
        st.caption("No users in this store yet.")
