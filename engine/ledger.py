"""The SQLite ledger: the source of truth for memories, messages, lineage and store metadata.

The vector and lexical indexes are derived from it. Invariants live in the schema, so no code path
can break them: one active memory per single-valued (user, subject, attribute) slot, no duplicate
active value in a slot, and a memory is only ever replaced by a newer one (chains are acyclic).
"""
from __future__ import annotations

import sqlite3
import threading
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from .model import Memory

MIGRATIONS: list[str] = [
    # 1: the initial schema
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id TEXT NOT NULL,
        text TEXT NOT NULL,
        source_id TEXT,
        timestamp TEXT,
        speaker TEXT,
        outcome TEXT,
        created_at TEXT NOT NULL
    );
    CREATE INDEX messages_user ON messages (user_id, id);
    CREATE TABLE memories (
        -- AUTOINCREMENT: an id is never reused, so a citation or a replaced_by link always means one memory
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id TEXT NOT NULL,
        text TEXT NOT NULL,
        type TEXT NOT NULL CHECK (type IN ('fact', 'preference', 'project_detail', 'event', 'goal')),
        subject TEXT NOT NULL,
        attribute TEXT NOT NULL,
        value TEXT NOT NULL,
        value_key TEXT NOT NULL,
        multi_valued INTEGER NOT NULL DEFAULT 0 CHECK (multi_valued IN (0, 1)),
        importance REAL NOT NULL CHECK (importance >= 0 AND importance <= 1),
        status TEXT NOT NULL CHECK (status IN ('active', 'superseded', 'deleted')),
        replaced_by INTEGER REFERENCES memories (id) ON DELETE SET NULL,
        supersedes INTEGER REFERENCES memories (id) ON DELETE SET NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        superseded_at TEXT,
        message_id INTEGER REFERENCES messages (id) ON DELETE SET NULL,
        embedding BLOB NOT NULL,
        CHECK (replaced_by IS NULL OR replaced_by > id),
        CHECK (supersedes IS NULL OR supersedes < id),
        CHECK (status != 'superseded' OR replaced_by IS NOT NULL)
    );
    CREATE UNIQUE INDEX one_active_per_single_slot
        ON memories (user_id, subject, attribute) WHERE status = 'active' AND multi_valued = 0;
    CREATE UNIQUE INDEX one_active_per_value
        ON memories (user_id, subject, attribute, value_key) WHERE status = 'active';
    CREATE INDEX memories_user_status ON memories (user_id, status, id);
    CREATE INDEX memories_replaced_by ON memories (replaced_by);
    CREATE INDEX memories_supersedes ON memories (supersedes);
    -- Changes the vector index has not applied yet, written in the same transaction as the change,
    -- so a crash between SQLite and Chroma is repaired on the next open.
    CREATE TABLE index_outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: the engine reads "rows after the last seen"
        op TEXT NOT NULL CHECK (op IN ('add', 'remove', 'drop_user')),
        user_id TEXT NOT NULL,
        memory_id INTEGER
    );
    """,
    # 2: slot lookups (every new fact checks its slot) and per-user speaker names without table scans
    """
    CREATE INDEX memories_slot ON memories (user_id, subject, attribute, status);
    CREATE INDEX messages_user_speaker ON messages (user_id, speaker);
    """,
]

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


class Ledger:
    """One SQLite connection shared by the engine's threads behind a lock."""

    def __init__(self, path: Path, *, busy_timeout_s: float = 30.0):
        self.path = path
        self._conn = sqlite3.connect(
            str(path), timeout=busy_timeout_s, check_same_thread=False, isolation_level=None
        )
        self.lock = threading.RLock()
        c = self._conn
        c.execute("PRAGMA journal_mode=WAL")
        c.execute("PRAGMA synchronous=FULL")  # an acknowledged write survives a crash or power cut
        c.execute("PRAGMA foreign_keys=ON")
        c.execute(f"PRAGMA busy_timeout={int(busy_timeout_s * 1000)}")
        self._migrate()

    # -- plumbing --------------------------------------------------------------------------
    def _migrate(self) -> None:
        with self.lock:
            version = self._conn.execute("PRAGMA user_version").fetchone()[0]
            for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    for statement in script.split(";\n"):
                        if statement.strip():
                            self._conn.execute(statement)
                    self._conn.execute(f"PRAGMA user_version={number}")
                    self._conn.execute("COMMIT")
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise

    @property
    def schema_version(self) -> int:
        return self._conn.execute("PRAGMA user_version").fetchone()[0]

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT under the engine lock; everything inside commits or nothing does."""
        with self.lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self.lock:
            return self._conn.execute(sql, params).fetchall()

    def close(self) -> None:
        with self.lock:
            self._conn.close()

    # -- metadata ---------------------------------------------------------------------------
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
    def insert_message(conn: sqlite3.Connection, user_id: str, text: str, source_id: str | None,
                       timestamp: str | None, speaker: str | None, created_at: str) -> int:
        cur = conn.execute(
            "INSERT INTO messages (user_id, text, source_id, timestamp, speaker, created_at) VALUES (?,?,?,?,?,?)",
            (user_id, text, source_id, timestamp, speaker, created_at),
        )
        return int(cur.lastrowid)

    @staticmethod
    def set_message_outcome(conn: sqlite3.Connection, message_id: int, outcome: str) -> None:
        conn.execute("UPDATE messages SET outcome = ? WHERE id = ?", (outcome, message_id))

    def messages(self, user_id: str | None, limit: int, offset: int) -> list[dict[str, Any]]:
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
        row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'memories'").fetchone()
        top = conn.execute("SELECT COALESCE(MAX(id), 0) FROM memories").fetchone()[0]
        return max(row[0] if row else 0, top) + 1

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
        where, params = self._filter(user_id, status)
        rows = self.query(
            f"SELECT {_MEMORY_COLUMNS} FROM {_MEMORY_FROM} {where} ORDER BY m.id LIMIT ? OFFSET ?",
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

    def superseded_for_user(self, user_id: str, limit: int) -> list[tuple[int, bytes]]:
        return self.query(
            "SELECT id, embedding FROM memories WHERE user_id = ? AND status = 'superseded' "
            "ORDER BY id DESC LIMIT ?", (user_id, limit),
        )
