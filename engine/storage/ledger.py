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
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from ..model import MessageIn
from . import schema
from .queries import LedgerQueries, vector_to_blob


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


class Ledger(LedgerQueries):
    """One SQLite connection shared by the engine's threads behind a lock.

    The queries both backends run unchanged are inherited from LedgerQueries (queries.py); this class adds
    the SQLite plumbing and the statements in SQLite's own dialect. The PostgreSQL ledger (postgres.py)
    inherits from it and replaces those (`_NOT_SAME`, `_CONTAINS`, ids), so both backends have one interface.
    """

    IntegrityError = sqlite3.IntegrityError  # what a schema invariant raises on this backend
    shared = False  # True when other processes write the same store (server mode)
    _NOT_SAME = "IS NOT"  # "differs, NULL-aware"
    # Without it SQLite reads the slot through memories_slot and filters multi_valued row by row: a slot of
    # thousands of multi-valued notes cost every ingest milliseconds. The partial index holds the few rows.
    _SINGLE_SLOT_INDEX = "INDEXED BY one_active_per_single_slot"
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

    # -- the statements in SQLite's own dialect (ids, the lineage walk, deferred foreign keys) ---------
    @staticmethod
    def insert_message(conn: sqlite3.Connection, message: MessageIn, created_at: str) -> int:
        cur = conn.execute(
            "INSERT INTO messages (user_id, text, source_id, timestamp, speaker, created_at) VALUES (?,?,?,?,?,?)",
            (message.user_id, message.text, message.source_id, message.timestamp, message.speaker, created_at),
        )
        return int(cur.lastrowid)

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

    @staticmethod
    def defer_foreign_keys(conn: sqlite3.Connection) -> None:
        conn.execute(schema.DEFER_FOREIGN_KEYS)
