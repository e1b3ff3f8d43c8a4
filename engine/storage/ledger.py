"""The SQLite ledger: the source of truth for memories, messages, lineage and store metadata.

The vector and lexical indexes are derived from it. Invariants live in the schema (see schema.py), so
no code path can break them: one active memory per single-valued (user, subject, attribute) slot, no
duplicate active value in a slot, and a memory is only ever replaced by a newer one (chains are acyclic).
Every SQL statement of the engine is in this package.
"""
from __future__ import annotations

import os
import sqlite3
import threading
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from ..model import Memory, MessageIn, OutboxRow
from . import schema

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


def private_files(db_path: Path) -> None:
    """The database and its WAL/SHM are readable by their owner only. SQLite gives the WAL and SHM the
    database file's mode, so creating that file 0600 first covers the others; older stores are fixed here."""
    if not db_path.exists():
        os.close(os.open(db_path, os.O_RDWR | os.O_CREAT, 0o600))
    for suffix in ("", "-wal", "-shm"):
        try:
            os.chmod(f"{db_path}{suffix}", 0o600)
        except FileNotFoundError:
            pass


class Ledger:
    """One SQLite connection shared by the engine's threads behind a lock.

    The PostgreSQL ledger (postgres.py) inherits the portable SQL below and replaces the plumbing and
    the few dialect statements (`_NOT_SAME`, `_CONTAINS`, ids), so both backends have one interface.
    """

    IntegrityError = sqlite3.IntegrityError  # what a schema invariant raises on this backend
    shared = False  # True when other processes write the same store (server mode)
    _NOT_SAME = "IS NOT"  # "differs, NULL-aware"
    _CONTAINS = schema.CONTAINS

    def __init__(self, path: Path, *, busy_timeout_s: float = 30.0):
        self.path = path
        private_files(path)
        self._conn = sqlite3.connect(
            str(path), timeout=busy_timeout_s, check_same_thread=False, isolation_level=None
        )
        self.lock = threading.RLock()
        c = self._conn
        for pragma in schema.CONNECTION_PRAGMAS:
            c.execute(pragma)
        c.execute(schema.SET_BUSY_TIMEOUT.format(millis=int(busy_timeout_s * 1000)))
        self._migrate()
        private_files(path)  # the WAL and SHM files exist now

    # -- plumbing --------------------------------------------------------------------------
    def _migrate(self) -> None:
        with self.lock:
            version = self._conn.execute(schema.GET_SCHEMA_VERSION).fetchone()[0]
            for number, script in enumerate(schema.MIGRATIONS[version:], start=version + 1):
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    for statement in script.split(";\n"):
                        if statement.strip():
                            self._conn.execute(statement)
                    self._conn.execute(schema.SET_SCHEMA_VERSION.format(number=number))
                    self._conn.execute("COMMIT")
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise

    @property
    def schema_version(self) -> int:
        return self._conn.execute(schema.GET_SCHEMA_VERSION).fetchone()[0]

    @contextmanager
    def transaction(self, user_id: str | Iterable[str] | None = None) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT under the engine lock; everything inside commits or nothing does.

        `user_id` names the users the transaction writes; SQLite already serialises every writer (one
        process owns the store), so it only matters to the PostgreSQL ledger's per-user locks.
        """
        with self.lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            try:
                self._conn.execute("COMMIT")
            except BaseException:
                # A COMMIT that fails (disk full, a deferred foreign key) may leave the transaction open;
                # end it, or every later BEGIN fails too.
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise

    def checkpoint(self) -> None:
        """Move the WAL into the database file and truncate it (after a hard delete: the WAL's old
        frames still hold the deleted rows)."""
        with self.lock:
            self._conn.execute(schema.CHECKPOINT_TRUNCATE).fetchall()

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self.lock:
            return self._conn.execute(sql, params).fetchall()

    def close(self) -> None:
        with self.lock:
            self._conn.close()

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
    def insert_message(conn: sqlite3.Connection, message: MessageIn, created_at: str) -> int:
        cur = conn.execute(
            "INSERT INTO messages (user_id, text, source_id, timestamp, speaker, created_at) VALUES (?,?,?,?,?,?)",
            (message.user_id, message.text, message.source_id, message.timestamp, message.speaker, created_at),
        )
        return int(cur.lastrowid)

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
    @staticmethod
    def insert_memory(conn: sqlite3.Connection, *, user_id: str, text: str, type: str, subject: str,
                      attribute: str, value: str, value_key: str, multi_valued: bool, importance: float,
                      message_id: int | None, embedding: np.ndarray, created_at: str,
                      supersedes: int | None = None, status: str = "active", replaced_by: int | None = None,
                      updated_at: str | None = None, superseded_at: str | None = None,
                      memory_id: int | None = None) -> int:
        cur = conn.execute(
            "INSERT INTO memories (id, user_id, text, type, subject, attribute, value, value_key, multi_valued, "
            "importance, status, replaced_by, supersedes, created_at, updated_at, superseded_at, message_id, "
            "embedding) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (memory_id, user_id, text, type, subject, attribute, value, value_key, int(multi_valued), importance,
             status, replaced_by, supersedes, created_at, updated_at or created_at, superseded_at, message_id,
             vector_to_blob(embedding)),
        )
        return int(cur.lastrowid)

    @staticmethod
    def next_memory_id(conn: sqlite3.Connection) -> int:
        row = conn.execute(schema.AUTOINCREMENT_SEQUENCE, ("memories",)).fetchone()
        top = conn.execute("SELECT COALESCE(MAX(id), 0) FROM memories").fetchone()[0]
        return max(row[0] if row else 0, top) + 1

    @classmethod
    def reserve_memory_ids(cls, conn: sqlite3.Connection, count: int) -> list[int]:
        """`count` new memory ids, increasing, for one transaction (the writer holds SQLite's lock)."""
        if count < 0:
            raise ValueError(f"count must not be negative, got {count}")
        first = cls.next_memory_id(conn)
        return list(range(first, first + count))

    @staticmethod
    def mark_superseded(conn: sqlite3.Connection, old_id: int, new_id: int, at: str) -> None:
        cur = conn.execute(
            "UPDATE memories SET status = 'superseded', replaced_by = ?, superseded_at = ?, updated_at = ? "
            "WHERE id = ? AND status = 'active'", (new_id, at, at, old_id),
        )
        if cur.rowcount != 1:
            raise sqlite3.IntegrityError(f"memory {old_id} is no longer active")

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

    def chain_ids(self, memory_id: int) -> list[int]:
        """Every memory linked to this one by replacement, in either direction, oldest first."""
        rows = self.query(
            """
            WITH RECURSIVE chain(id) AS (
                SELECT ?
                UNION
                SELECT m.id FROM memories m JOIN chain c ON m.replaced_by = c.id
                UNION
                SELECT m.replaced_by FROM memories m JOIN chain c ON m.id = c.id WHERE m.replaced_by IS NOT NULL
            )
            SELECT id FROM chain ORDER BY id
            """,
            (memory_id,),
        )
        return [r[0] for r in rows]

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
        rows = conn.execute(f"SELECT id, embedding FROM memories WHERE {self._SLOT} AND multi_valued = 0",
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

    @staticmethod
    def restore_deleted(conn: sqlite3.Connection, memory_id: int, status: str, at: str) -> None:
        """A soft-deleted memory back to `status` (active, or superseded when it still has its replacement)."""
        cur = conn.execute("UPDATE memories SET status = ?, updated_at = ? WHERE id = ? AND status = 'deleted'",
                           (status, at, memory_id))
        if cur.rowcount != 1:
            raise sqlite3.IntegrityError(f"memory {memory_id} is no longer deleted")

    # -- vectors -----------------------------------------------------------------------------------
    def embedding_inputs(self) -> list[tuple[int, str, str | None, str, str]]:
        """(id, text, speaker, attribute, type) of every memory: what its vector is computed from."""
        return self.query("SELECT m.id, m.text, s.speaker, m.attribute, m.type FROM memories m "
                          "LEFT JOIN messages s ON s.id = m.message_id ORDER BY m.id")

    @staticmethod
    def set_embeddings(conn: sqlite3.Connection, vectors: Iterable[tuple[int, np.ndarray]]) -> None:
        conn.executemany("UPDATE memories SET embedding = ? WHERE id = ?",
                         [(vector_to_blob(v), mid) for mid, v in vectors])

    @staticmethod
    def defer_foreign_keys(conn: sqlite3.Connection) -> None:
        conn.execute(schema.DEFER_FOREIGN_KEYS)

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
