"""The ledger's portable SQL: every query both backends run unchanged, as the `LedgerQueries` base of
the SQLite ledger (ledger.py) and, through it, of the PostgreSQL ledger (postgres.py).

The SQL is standard with `?` parameters; a subclass supplies the connection handling (`transaction`,
`query`), its constraint error (`IntegrityError`) and the dialect fragments (`_NOT_SAME`, `_CONTAINS`,
`_SINGLE_SLOT_INDEX`).
"""
from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from ..model import Memory, MessageIn, OutboxRow

_MEMORY_COLUMNS = (
    "m.id, m.user_id, m.text, m.type, m.subject, m.attribute, m.value, m.importance, m.status, m.replaced_by, "
    "m.supersedes, m.created_at, m.updated_at, m.superseded_at, s.source_id, s.text, "
    "COALESCE(s.timestamp, s.created_at), s.speaker, "
    "m.message_id, m.multi_valued"
)
_MEMORY_FROM = "memories m LEFT JOIN messages s ON s.id = m.message_id"


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def _row_to_memory(row: Sequence[Any]) -> Memory:
    return Memory(
        id=row[0], user_id=row[1], text=row[2], type=row[3], subject=row[4], attribute=row[5], value=row[6],
        importance=row[7], status=row[8], replaced_by=row[9], supersedes=row[10], created_at=row[11],
        updated_at=row[12], superseded_at=row[13], source_id=row[14], source_message=row[15],
        source_timestamp=row[16], speaker=row[17], message_id=row[18], multi_valued=bool(row[19]),
    )


def vector_to_blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def blob_to_vector(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype=np.float32)


class LedgerQueries:
    """The queries of the ledger interface that read the same on SQLite and on PostgreSQL."""

    IntegrityError: type[Exception]  # what a schema invariant raises on this backend
    _NOT_SAME: str  # "differs, NULL-aware": IS NOT, IS DISTINCT FROM
    _CONTAINS: str  # "a contains b", with {haystack} and {needle}
    _SINGLE_SLOT_INDEX: str  # an index hint where the planner needs one, else ""

    # -- metadata ---------------------------------------------------------------------------
    def setdefault_meta(self, key: str, value: str) -> str:
        """The stored value of `key`, storing `value` first if there is none (first writer wins)."""
        with self.transaction() as c:
            c.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING", (key, value))
        return self.get_meta(key)

    def get_meta(self, key: str) -> str | None:
        rows = self.query("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str, conn: sqlite3.Connection | None = None) -> None:
        sql = "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
        if conn is not None:
            conn.execute(sql, (key, value))
        else:
            with self.transaction() as c:
                c.execute(sql, (key, value))

    # -- messages ---------------------------------------------------------------------------
    @staticmethod
    def set_message_outcome(conn: sqlite3.Connection, message_id: int, outcome: str) -> None:
        conn.execute("UPDATE messages SET outcome = ? WHERE id = ?", (outcome, message_id))

    def messages(self, user_id: str | None, limit: int, offset: int) -> list[dict[str, Any]]:
        """A page of messages, newest first."""
        where, params = ("WHERE user_id = ?", [user_id]) if user_id is not None else ("", [])
        rows = self.query(
            f"SELECT id, user_id, text, source_id, timestamp, speaker, outcome, created_at FROM messages {where} "
            "ORDER BY id DESC LIMIT ? OFFSET ?", (*params, limit, offset),
        )
        keys = ("id", "user_id", "text", "source_id", "timestamp", "speaker", "outcome", "created_at")
        return [dict(zip(keys, row)) for row in rows]

    # -- memories: writes (inside a transaction) -------------------------------------------------
    def mark_superseded(self, conn: sqlite3.Connection, old_id: int, new_id: int, at: str) -> None:
        cur = conn.execute(
            "UPDATE memories SET status = 'superseded', replaced_by = ?, superseded_at = ?, updated_at = ? "
            "WHERE id = ? AND status = 'active'", (new_id, at, at, old_id),
        )
        if cur.rowcount != 1:
            raise self.IntegrityError(f"memory {old_id} is no longer active")

    @staticmethod
    def outbox(conn: sqlite3.Connection, op: str, user_id: str, memory_id: int | None = None) -> None:
        conn.execute("INSERT INTO index_outbox (op, user_id, memory_id) VALUES (?,?,?)", (op, user_id, memory_id))

    # -- memories: reads -----------------------------------------------------------------------
    def get(self, memory_id: int) -> Memory | None:
        rows = self.query(f"SELECT {_MEMORY_COLUMNS} FROM {_MEMORY_FROM} WHERE m.id = ?", (memory_id,))
        return _row_to_memory(rows[0]) if rows else None

    def get_many(self, ids: Sequence[int]) -> dict[int, Memory]:
        out: dict[int, Memory] = {}
        ids = list(ids)
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            marks = ",".join("?" * len(chunk))
            for row in self.query(f"SELECT {_MEMORY_COLUMNS} FROM {_MEMORY_FROM} WHERE m.id IN ({marks})", chunk):
                memory = _row_to_memory(row)
                out[memory.id] = memory
        return out

    def embeddings(self, ids: Sequence[int]) -> dict[int, np.ndarray]:
        out: dict[int, np.ndarray] = {}
        ids = list(ids)
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            marks = ",".join("?" * len(chunk))
            for mid, blob in self.query(f"SELECT id, embedding FROM memories WHERE id IN ({marks})", chunk):
                out[mid] = blob_to_vector(blob)
        return out

    def replaced_embeddings(self, ids: Sequence[int], depth: int = 3) -> dict[int, list[tuple[str, np.ndarray]]]:
        """For each memory of `ids`, the (text, vector) of the memories it replaced, and of those they replaced, up
        to `depth` steps back along the supersede chain, newest first."""
        out: dict[int, list[tuple[str, np.ndarray]]] = {}
        newest = {mid: mid for mid in ids}  # a memory of the chain -> the memory of `ids` it led to
        for _ in range(depth):
            if not newest:
                break
            found: dict[int, int] = {}
            keys = list(newest)
            for start in range(0, len(keys), 500):
                chunk = keys[start:start + 500]
                marks = ",".join("?" * len(chunk))
                for mid, replaced_by, text, blob in self.query(
                        f"SELECT id, replaced_by, text, embedding FROM memories WHERE replaced_by IN ({marks}) "
                        "AND status = 'superseded' ORDER BY id DESC", chunk):
                    out.setdefault(newest[replaced_by], []).append((text, blob_to_vector(blob)))
                    found[mid] = newest[replaced_by]
            newest = found
        return out

    def list(self, user_id: str | None, status: str, limit: int, offset: int) -> list[Memory]:
        """A page of memories, newest first."""
        where, params = self._filter(user_id, status)
        rows = self.query(
            f"SELECT {_MEMORY_COLUMNS} FROM {_MEMORY_FROM} {where} ORDER BY m.id DESC LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return [_row_to_memory(r) for r in rows]

    def count(self, user_id: str | None, status: str) -> int:
        where, params = self._filter(user_id, status)
        return self.query(f"SELECT COUNT(*) FROM memories m {where}", params)[0][0]

    @staticmethod
    def _filter(user_id: str | None, status: str) -> tuple[str, list[Any]]:
        clauses, params = [], []
        if user_id is not None:
            clauses.append("m.user_id = ?")
            params.append(user_id)
        if status != "all":
            clauses.append("m.status = ?")
            params.append(status)
        return ("WHERE " + " AND ".join(clauses)) if clauses else "", params

    def users(self) -> list[str]:
        rows = self.query("SELECT user_id FROM memories UNION SELECT user_id FROM messages ORDER BY 1")
        return [r[0] for r in rows]

    def active_ids_by_user(self) -> dict[str, set[int]]:
        out: dict[str, set[int]] = {}
        for user_id, mid in self.query("SELECT user_id, id FROM memories WHERE status = 'active'"):
            out.setdefault(user_id, set()).add(mid)
        return out

    def single_valued_violations(self, attributes: Sequence[str]) -> int:
        """Slots (user, subject, attribute) of these single-valued attributes holding more than one
        active memory: the invariant an update keeps (issue 12)."""
        if not attributes:
            return 0
        marks = ", ".join("?" * len(attributes))
        rows = self.query(f"SELECT COUNT(*) FROM (SELECT 1 FROM memories WHERE status = 'active' AND attribute IN "
                          f"({marks}) GROUP BY user_id, subject, attribute HAVING COUNT(*) > 1)", list(attributes))
        return int(rows[0][0])

    def active_texts(self, user_id: str) -> list[tuple[int, str, str]]:
        """(id, text, attribute) for a user's active memories: what the lexical index is built from."""
        return self.query(
            "SELECT id, text, attribute FROM memories WHERE user_id = ? AND status = 'active'", (user_id,)
        )

    def latest_active(self, user_id: str) -> Memory | None:
        rows = self.query(f"SELECT {_MEMORY_COLUMNS} FROM {_MEMORY_FROM} WHERE m.user_id = ? AND m.status = 'active' "
                          "ORDER BY m.id DESC LIMIT 1", (user_id,))
        return _row_to_memory(rows[0]) if rows else None

    def last_message(self, user_id: str) -> MessageIn | None:
        """The user's newest logged message (what a new message may be a reply to)."""
        rows = self.query("SELECT text, user_id, source_id, timestamp, speaker FROM messages WHERE user_id = ? "
                          "ORDER BY id DESC LIMIT 1", (user_id,))
        return MessageIn(*rows[0]) if rows else None

    def speakers(self, user_id: str) -> set[str]:
        rows = self.query("SELECT DISTINCT speaker FROM messages WHERE user_id = ? AND speaker IS NOT NULL", (user_id,))
        return {r[0] for r in rows}

    def superseded_for_user(self, user_id: str, limit: int) -> list[tuple[int, np.ndarray]]:
        """(id, vector) of the user's newest superseded memories."""
        rows = self.query(
            "SELECT id, embedding FROM memories WHERE user_id = ? AND status = 'superseded' "
            "ORDER BY id DESC LIMIT ?", (user_id, limit),
        )
        return [(mid, blob_to_vector(blob)) for mid, blob in rows]

    def recent_memories(self, conn: sqlite3.Connection, user_id: str, message_id: int, messages: int,
                        limit: int = 12) -> list[Memory]:
        """Up to `limit` active memories of the user's last `messages` messages before this one, newest first: what a
        pronoun in this message can point back to. Memory ids grow with the messages they come from."""
        said = [r[0] for r in conn.execute("SELECT id FROM messages WHERE user_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
                                           (user_id, message_id, messages)).fetchall()]
        if not said:
            return []
        rows = conn.execute(
            f"SELECT id FROM memories WHERE user_id = ? AND status = 'active' AND message_id IN ({', '.join('?' * len(said))}) "
            "ORDER BY id DESC LIMIT ?", (user_id, *said, limit)).fetchall()
        return self._get_in(conn, [r[0] for r in rows])

    def active_names(self, user_id: str, limit: int = 3) -> set[str]:
        """The names the user gave themselves (subject 'user', attribute 'name')."""
        rows = self.query(
            "SELECT value FROM memories WHERE user_id = ? AND subject = 'user' AND attribute = 'name' "
            "AND status = 'active' LIMIT ?", (user_id, limit),
        )
        return {value for (value,) in rows}

    def status_counts(self) -> dict[str, int]:
        return dict(self.query("SELECT status, COUNT(*) FROM memories GROUP BY status"))

    def message_count(self) -> int:
        return self.query("SELECT COUNT(*) FROM messages")[0][0]

    # -- one slot, inside the writing transaction (what conflict resolution needs) -----------------
    _SLOT = "user_id = ? AND subject = ? AND attribute = ? AND status = 'active'"

    def slot_same_value(self, conn: sqlite3.Connection, slot: tuple[str, str, str], key: str) -> Memory | None:
        row = conn.execute(f"SELECT id FROM memories WHERE {self._SLOT} AND value_key = ?", (*slot, key)).fetchone()
        return self._get_in(conn, [row[0]])[0] if row else None

    def slot_single_holders(self, conn: sqlite3.Connection, slot: tuple[str, str, str]
                            ) -> list[tuple[Memory, np.ndarray]]:
        """The slot's single-valued active memories with their vectors (the schema allows at most one)."""
        rows = conn.execute(f"SELECT id, embedding FROM memories {self._SINGLE_SLOT_INDEX} "
                            f"WHERE {self._SLOT} AND multi_valued = 0",
                            slot).fetchall()
        memories = self._get_in(conn, [r[0] for r in rows])
        return [(m, blob_to_vector(blob)) for m, (_, blob) in zip(memories, rows)]

    def slot_active(self, conn: sqlite3.Connection, slot: tuple[str, str, str], limit: int = 2) -> list[Memory]:
        """Up to `limit` active memories of the slot."""
        rows = conn.execute(f"SELECT id FROM memories WHERE {self._SLOT} ORDER BY id LIMIT ?", (*slot, limit)).fetchall()
        return self._get_in(conn, [r[0] for r in rows])

    def slot_others(self, conn: sqlite3.Connection, slot: tuple[str, str, str], message_id: int,
                    limit: int = 2) -> list[Memory]:
        """Up to `limit` active memories of the slot from other messages: 0, 1 or "more" is all the
        rules need, without reading a slot of thousands."""
        rows = conn.execute(f"SELECT id FROM memories WHERE {self._SLOT} AND message_id {self._NOT_SAME} ? ORDER BY id LIMIT ?",
                            (*slot, message_id, limit)).fetchall()
        return self._get_in(conn, [r[0] for r in rows])

    def slot_value_overlaps(self, conn: sqlite3.Connection, slot: tuple[str, str, str], message_id: int,
                            key: str) -> list[Memory]:
        """Active memories of the slot from other messages whose value key contains the key or is in it."""
        contains = " OR ".join((self._CONTAINS.format(haystack="value_key", needle="?"),
                                self._CONTAINS.format(haystack="?", needle="value_key")))
        rows = conn.execute(
            f"SELECT id FROM memories WHERE {self._SLOT} AND message_id {self._NOT_SAME} ? AND value_key != '' AND ({contains}) "
            "ORDER BY id", (*slot, message_id, key, key)).fetchall()
        return self._get_in(conn, [r[0] for r in rows])

    @staticmethod
    def _get_in(conn: sqlite3.Connection, ids: Sequence[int]) -> list[Memory]:
        """Memories by id, in the order given, read on the transaction's own connection."""
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        rows = conn.execute(f"SELECT {_MEMORY_COLUMNS} FROM {_MEMORY_FROM} WHERE m.id IN ({marks})", list(ids))
        by_id = {m.id: m for m in map(_row_to_memory, rows)}
        return [by_id[i] for i in ids if i in by_id]

    def get_many_in(self, conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, Memory]:
        out: dict[int, Memory] = {}
        ids = list(ids)
        for start in range(0, len(ids), 500):
            out.update((m.id, m) for m in self._get_in(conn, ids[start:start + 500]))
        return out

    # -- the index outbox --------------------------------------------------------------------------
    def pending_outbox(self, after_id: int = 0, conn: sqlite3.Connection | None = None) -> list[OutboxRow]:
        """Outbox rows with an id above after_id, oldest first."""
        sql, params = "SELECT id, op, user_id, memory_id FROM index_outbox WHERE id > ? ORDER BY id", (after_id,)
        rows = conn.execute(sql, params).fetchall() if conn is not None else self.query(sql, params)
        return [OutboxRow(*r) for r in rows]

    @staticmethod
    def delete_outbox(conn: sqlite3.Connection, ids: Iterable[int]) -> None:
        conn.executemany("DELETE FROM index_outbox WHERE id = ?", [(i,) for i in ids])

    @staticmethod
    def clear_outbox(conn: sqlite3.Connection) -> None:
        conn.execute("DELETE FROM index_outbox")

    # -- deleting ----------------------------------------------------------------------------------
    @staticmethod
    def soft_delete(conn: sqlite3.Connection, memory_id: int, at: str) -> None:
        conn.execute("UPDATE memories SET status = 'deleted', updated_at = ? WHERE id = ?", (at, memory_id))

    @staticmethod
    def delete_user(conn: sqlite3.Connection, user_id: str) -> tuple[int, int]:
        """Hard-delete a user's memories, messages and pending outbox rows: (memories, messages) removed."""
        memories = conn.execute("DELETE FROM memories WHERE user_id = ?", (user_id,)).rowcount
        messages = conn.execute("DELETE FROM messages WHERE user_id = ?", (user_id,)).rowcount
        conn.execute("DELETE FROM index_outbox WHERE user_id = ?", (user_id,))
        return memories, messages

    @staticmethod
    def erase_memories(conn: sqlite3.Connection, ids: Sequence[int], at: str) -> int:
        """Hard-delete memories (the lineage links to them go with them: the foreign keys set them NULL).
        A memory one of them had replaced becomes 'deleted': it must not come back as current on its own,
        and a superseded row needs its replacement (restore can bring it back)."""
        ids = list(ids)
        if not ids:
            return 0
        marks = ",".join("?" * len(ids))
        conn.execute(f"UPDATE memories SET status = 'deleted', replaced_by = NULL, updated_at = ? "
                     f"WHERE status = 'superseded' AND replaced_by IN ({marks}) AND id NOT IN ({marks})",
                     (at, *ids, *ids))
        return conn.execute(f"DELETE FROM memories WHERE id IN ({marks})", ids).rowcount

    @staticmethod
    def message_owner(conn: sqlite3.Connection, message_id: int) -> str | None:
        row = conn.execute("SELECT user_id FROM messages WHERE id = ?", (message_id,)).fetchone()
        return row[0] if row else None

    @staticmethod
    def memories_of_message(conn: sqlite3.Connection, message_id: int) -> list[tuple[int, str]]:
        """(id, status) of every memory derived from one message."""
        return conn.execute("SELECT id, status FROM memories WHERE message_id = ? ORDER BY id",
                            (message_id,)).fetchall()

    @staticmethod
    def delete_message(conn: sqlite3.Connection, message_id: int) -> int:
        return conn.execute("DELETE FROM messages WHERE id = ?", (message_id,)).rowcount

    def restore_deleted(self, conn: sqlite3.Connection, memory_id: int, status: str, at: str) -> None:
        """A soft-deleted memory back to `status` (active, or superseded when it still has its replacement)."""
        cur = conn.execute("UPDATE memories SET status = ?, updated_at = ? WHERE id = ? AND status = 'deleted'",
                           (status, at, memory_id))
        if cur.rowcount != 1:
            raise self.IntegrityError(f"memory {memory_id} is no longer deleted")  # the backend's own type

    # -- vectors -----------------------------------------------------------------------------------
    def embedding_inputs(self) -> list[tuple[int, str, str | None, str, str]]:
        """(id, text, speaker, attribute, type) of every memory: what its vector is computed from."""
        return self.query("SELECT m.id, m.text, s.speaker, m.attribute, m.type FROM memories m "
                          "LEFT JOIN messages s ON s.id = m.message_id ORDER BY m.id")

    @staticmethod
    def set_embeddings(conn: sqlite3.Connection, vectors: Iterable[tuple[int, np.ndarray]]) -> None:
        conn.executemany("UPDATE memories SET embedding = ? WHERE id = ?",
                         [(vector_to_blob(v), mid) for mid, v in vectors])

    # -- export / import ---------------------------------------------------------------------------
    _MESSAGE_FIELDS = ("id", "user_id", "text", "source_id", "timestamp", "speaker", "outcome", "created_at")
    _MEMORY_FIELDS = ("id", "user_id", "text", "type", "subject", "attribute", "value", "multi_valued", "importance",
                      "status", "replaced_by", "supersedes", "created_at", "updated_at", "superseded_at", "message_id")

    def export_messages(self, user_id: str | None) -> Iterator[dict[str, Any]]:
        where, params = ("WHERE user_id = ?", (user_id,)) if user_id is not None else ("", ())
        for row in self.query(f"SELECT {', '.join(self._MESSAGE_FIELDS)} FROM messages {where} ORDER BY id", params):
            yield dict(zip(self._MESSAGE_FIELDS, row))

    def export_memories(self, user_id: str | None) -> Iterator[dict[str, Any]]:
        where, params = ("WHERE user_id = ?", (user_id,)) if user_id is not None else ("", ())
        for row in self.query(f"SELECT {', '.join(self._MEMORY_FIELDS)} FROM memories {where} ORDER BY id", params):
            record = dict(zip(self._MEMORY_FIELDS, row))
            record["multi_valued"] = bool(record["multi_valued"])
            yield record

    @staticmethod
    def active_same_values(conn: sqlite3.Connection, keys: Iterable[tuple[str, str, str, str]]) -> list[int]:
        """Ids of active memories that already hold one of these (user, subject, attribute, value_key)."""
        found = []
        for key in keys:
            row = conn.execute("SELECT id FROM memories WHERE user_id = ? AND subject = ? AND attribute = ? "
                               "AND value_key = ? AND status = 'active'", key).fetchone()
            if row:
                found.append(row[0])
        return sorted(found)
