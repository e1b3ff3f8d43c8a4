"""The PostgreSQL ledger: the same tables, invariants and `?`-style SQL as the SQLite ledger, shared by processes.

Server mode (issue 11) lets many workers open one store, so nothing here relies on a Python lock:
- the invariants are constraints (partial unique indexes, CHECKs, deferred self-references), exactly
  as in the SQLite schema (schema.py);
- a write transaction takes a transaction-level advisory lock per user, so one user's
  read-plan-write sequences run one at a time across every process, while different users run in
  parallel;
- schema migrations (postgres_schema.py) are numbered, recorded in `schema_migrations` and applied
  once, under an advisory lock, by whichever process gets there first.

Engine SQL is written with `?` placeholders (sqlite3's style); postgres_connection.py translates it.
psycopg is imported lazily so the embedded mode never needs it installed.
"""
from __future__ import annotations

import hashlib
import queue
import threading
from contextlib import contextmanager, suppress
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from ..model import EngineError, MessageIn
from .ledger import Ledger
from .postgres_connection import PgConnection, to_psycopg
from .postgres_schema import MIGRATION_LOCK, MIGRATIONS
from .queries import vector_to_blob


@contextmanager
def scratch_database(url: str, prefix: str = "scratch") -> Iterator[str]:
    """A new empty database on the server of `url` (which must allow CREATE DATABASE), dropped on exit:
    for tools that need one fresh store per run or per case (evaluation, load tests)."""
    import uuid

    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE {name} WITH (FORCE)")


def user_lock_key(user_id: str) -> int:
    """A stable signed 64-bit advisory-lock key for a user (the same in every process and Python version)."""
    digest = hashlib.blake2b(user_id.encode("utf-8"), digest_size=8, person=b"memengine-user").digest()
    return int.from_bytes(digest, "big", signed=True)


class PgLedger(Ledger):
    """The ledger on PostgreSQL: a small connection pool, per-user write serialisation, numbered migrations.

    It inherits the portable SQL (queries.py: every read and most writes) and replaces the SQLite
    plumbing (connections, transactions, migrations) and the statements that differ (ids, dialect).
    Each thread checks a connection out of the pool for one transaction or one read, so the
    engine's threads never share a connection (psycopg connections are not for concurrent use).
    """

    shared = True
    _NOT_SAME = "IS DISTINCT FROM"
    _SINGLE_SLOT_INDEX = ""  # PostgreSQL's planner picks the partial index from its statistics
    _CONTAINS = "strpos({haystack}, {needle}) > 0"

    def checkpoint(self) -> None:
        """Nothing to do: PostgreSQL has no WAL file of the store's own to truncate (its WAL is recycled
        by the server; a hard delete is complete once VACUUM reclaims the rows)."""

    def __init__(self, url: str, *, pool_size: int = 4, lock_timeout_s: float = 30.0,
                 connect_timeout_s: float = 10.0, migrate: bool = True):
        if not url.startswith(("postgresql://", "postgres://")):
            raise ValueError(f"not a PostgreSQL URL (postgresql://user@host:port/db): {url!r}")
        if pool_size < 1:
            raise ValueError(f"pool_size must be at least 1, got {pool_size}")
        if lock_timeout_s <= 0 or connect_timeout_s <= 0:
            raise ValueError("lock_timeout_s and connect_timeout_s must be positive")
        try:
            import psycopg
        except ImportError as exc:  # server mode only; the embedded mode never imports this module's driver
            raise EngineError("PostgreSQL needs the psycopg package: pip install 'psycopg[binary]'") from exc
        self._psycopg = psycopg
        self.IntegrityError = psycopg.IntegrityError
        self.url = url
        self.path = None
        self.lock_timeout_s = lock_timeout_s
        self.connect_timeout_s = connect_timeout_s
        self._idle: queue.LifoQueue = queue.LifoQueue()
        self._slots = threading.BoundedSemaphore(pool_size)
        # The connection of the transaction this thread is in: reads inside a transaction see its writes,
        # as with the SQLite ledger's single connection.
        self._local = threading.local()
        self._closed = False
        if migrate:
            self.migrate()

    # -- connections ---------------------------------------------------------------------------
    def _connect(self) -> Any:
        conn = self._psycopg.connect(self.url, autocommit=False, connect_timeout=max(1, int(self.connect_timeout_s)))
        # A writer waiting on another worker's user lock gives up after this long instead of hanging.
        conn.execute(f"SET lock_timeout = {int(self.lock_timeout_s * 1000)}")
        conn.commit()
        return conn

    @contextmanager
    def _checkout(self) -> Iterator[Any]:
        if self._closed:
            raise EngineError("the PostgreSQL ledger is closed")
        if not self._slots.acquire(timeout=self.lock_timeout_s):
            raise EngineError(f"no free PostgreSQL connection within {self.lock_timeout_s} s")
        conn = None
        try:
            try:
                conn = self._idle.get_nowait()
            except queue.Empty:
                conn = self._connect()
            yield conn
        finally:
            if conn is not None:
                healthy = not conn.closed and not conn.broken
                if healthy and conn.info.transaction_status != self._psycopg.pq.TransactionStatus.IDLE:
                    try:
                        conn.rollback()
                    except self._psycopg.Error:
                        healthy = False
                if healthy and not self._closed:
                    self._idle.put(conn)
                else:
                    conn.close()
            self._slots.release()

    @contextmanager
    def transaction(self, user_id: str | Iterable[str] | None = None) -> Iterator[PgConnection]:
        """One transaction: everything inside commits or nothing does.

        With `user_id` (one id or several), it first takes each user's transaction-level advisory
        lock, so a user's writes are serialised across every process; the locks go with the commit
        or rollback. Several users are locked in sorted order, so two such transactions cannot deadlock.
        """
        if getattr(self._local, "conn", None) is not None:
            raise EngineError("a transaction is already open on this thread; transactions do not nest")
        users: list[str] = []
        if isinstance(user_id, str):
            users = [user_id]
        elif user_id is not None:
            users = sorted(set(user_id))
        with self._checkout() as raw:
            self._local.conn = raw
            try:
                for key in sorted({user_lock_key(u) for u in users}):
                    raw.execute("SELECT pg_advisory_xact_lock(%s)", (key,))
                yield PgConnection(raw)
            except BaseException:
                with suppress(self._psycopg.Error):  # a lost connection must not hide the original error
                    raw.rollback()
                raise
            finally:
                self._local.conn = None
            raw.commit()

    @contextmanager
    def try_user_transaction(self, user_id: str) -> Iterator[PgConnection | None]:
        """A transaction holding the user's lock if it is free right now, else None (nothing waits)."""
        if getattr(self._local, "conn", None) is not None:
            raise EngineError("a transaction is already open on this thread; transactions do not nest")
        with self._checkout() as raw:
            got = raw.execute("SELECT pg_try_advisory_xact_lock(%s)", (user_lock_key(user_id),)).fetchone()[0]
            if not got:
                raw.rollback()
                yield None
                return
            self._local.conn = raw
            try:
                yield PgConnection(raw)
            except BaseException:
                with suppress(self._psycopg.Error):
                    raw.rollback()
                raise
            finally:
                self._local.conn = None
            raw.commit()

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        """A read: inside this thread's open transaction if there is one, else its own short transaction."""
        current = getattr(self._local, "conn", None)
        if current is not None:
            return current.execute(to_psycopg(sql), tuple(params)).fetchall()
        with self._checkout() as raw:
            rows = raw.execute(to_psycopg(sql), tuple(params)).fetchall()
            raw.rollback()
            return rows

    def close(self) -> None:
        self._closed = True
        while True:
            try:
                self._idle.get_nowait().close()
            except queue.Empty:
                return

    # -- schema ----------------------------------------------------------------------------------
    def migrate(self) -> list[int]:
        """Apply the migrations this database lacks, once, whichever process comes first; returns those applied.

        All pending migrations run in one transaction under an advisory lock: a second process
        waits, then finds them recorded and applies nothing; a crash mid-way leaves no half schema.
        """
        applied_now: list[int] = []
        with self._checkout() as raw:
            try:
                raw.execute("SELECT pg_advisory_xact_lock(%s, %s)", MIGRATION_LOCK)
                raw.execute("CREATE TABLE IF NOT EXISTS schema_migrations ("
                            "version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
                done = {r[0] for r in raw.execute("SELECT version FROM schema_migrations").fetchall()}
                for number, script in enumerate(MIGRATIONS, start=1):
                    if number in done:
                        continue
                    raw.execute(script)  # no parameters: psycopg sends it as one multi-statement query
                    raw.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (number,))
                    applied_now.append(number)
            except BaseException:
                with suppress(self._psycopg.Error):
                    raw.rollback()
                raise
            raw.commit()
        return applied_now

    @property
    def schema_version(self) -> int:
        return int(self.query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")[0][0])

    # -- the statements whose SQL differs from SQLite's (ids and sequences, the lineage walk) --------
    @staticmethod
    def insert_message(conn: PgConnection, message: MessageIn, created_at: str) -> int:
        return conn.insert_returning_id(
            "INSERT INTO messages (user_id, text, source_id, timestamp, speaker, created_at) VALUES (?,?,?,?,?,?)",
            (message.user_id, message.text, message.source_id, message.timestamp, message.speaker, created_at),
        )

    @staticmethod
    def defer_foreign_keys(conn: PgConnection) -> None:
        """Nothing to do: the self-references are declared DEFERRABLE INITIALLY DEFERRED."""

    @staticmethod
    def insert_memory(conn: PgConnection, *, user_id: str, text: str, type: str, subject: str,
                      attribute: str, value: str, value_key: str, multi_valued: bool, importance: float,
                      message_id: int | None, embedding: np.ndarray, created_at: str,
                      supersedes: int | None = None, status: str = "active", replaced_by: int | None = None,
                      updated_at: str | None = None, superseded_at: str | None = None,
                      memory_id: int | None = None) -> int:
        """Insert a memory; `memory_id` must come from `reserve_memory_ids` (or be None for the next one)."""
        columns = ("user_id, text, type, subject, attribute, value, value_key, multi_valued, importance, status, "
                   "replaced_by, supersedes, created_at, updated_at, superseded_at, message_id, embedding")
        params: list[Any] = [user_id, text, type, subject, attribute, value, value_key, int(multi_valued), importance,
                             status, replaced_by, supersedes, created_at, updated_at or created_at, superseded_at,
                             message_id, vector_to_blob(embedding)]
        if memory_id is not None:
            columns, params = "id, " + columns, [memory_id, *params]
        marks = ",".join("?" * len(params))
        return conn.insert_returning_id(f"INSERT INTO memories ({columns}) VALUES ({marks})", params)

    @staticmethod
    def reserve_memory_ids(conn: PgConnection, count: int) -> list[int]:
        """`count` new memory ids, increasing; no other process will ever get them (they come from the sequence).

        Unlike SQLite's max+1 they need not be consecutive (other workers draw from the same
        sequence), so the caller uses the list rather than `first + n`.
        """
        if count < 0:
            raise ValueError(f"count must not be negative, got {count}")
        rows = conn.execute(
            "SELECT nextval(pg_get_serial_sequence('memories', 'id')) FROM generate_series(1, ?)", (count,)
        ).fetchall()
        return sorted(int(r[0]) for r in rows)

    @classmethod
    def next_memory_id(cls, conn: PgConnection) -> int:
        return cls.reserve_memory_ids(conn, 1)[0]

    def chain_ids(self, memory_id: int) -> list[int]:
        """Every memory linked to this one by replacement, in either direction, oldest first.

        PostgreSQL allows one recursive reference per CTE (SQLite's version has two), so the links
        of the memory's user are listed both ways first and the chain walks them once.
        """
        rows = self.query(
            """
            WITH RECURSIVE links(a, b) AS (
                SELECT id, replaced_by FROM memories
                WHERE replaced_by IS NOT NULL AND user_id = (SELECT user_id FROM memories WHERE id = ?)
            ), edges(a, b) AS (
                SELECT a, b FROM links UNION ALL SELECT b, a FROM links
            ), chain(id) AS (
                SELECT CAST(? AS BIGINT)
                UNION
                SELECT e.b FROM edges e JOIN chain c ON e.a = c.id
            )
            SELECT id FROM chain ORDER BY id
            """,
            (memory_id, memory_id),
        )
        return [r[0] for r in rows]

    # -- server mode: outbox claims and the per-user change counter ------------------------------------
    @staticmethod
    def outbox_written(conn: PgConnection) -> set[tuple[str, str]]:
        """(user, op) of the outbox rows written by this very transaction (their xmin is its id)."""
        rows = conn.execute("SELECT DISTINCT user_id, op FROM index_outbox WHERE xmin = pg_current_xact_id()::xid")
        return {(r[0], r[1]) for r in rows.fetchall()}

    @staticmethod
    def delete_user_outbox(conn: PgConnection, user_id: str) -> None:
        conn.execute("DELETE FROM index_outbox WHERE user_id = ?", (user_id,))

    @staticmethod
    def claim_user_outbox(conn: PgConnection, user_id: str) -> list[tuple[int, str, str, int | None]]:
        """The user's pending outbox rows, oldest first, locked for this transaction. The caller holds
        the user's lock, so they are all committed and nobody else is applying them."""
        return conn.execute("SELECT id, op, user_id, memory_id FROM index_outbox WHERE user_id = ? ORDER BY id "
                            "FOR UPDATE SKIP LOCKED", (user_id,)).fetchall()

    def outbox_users(self, limit: int) -> list[str]:
        """Users with pending outbox rows, the oldest rows first: work another worker left behind."""
        rows = self.query("SELECT user_id FROM index_outbox GROUP BY user_id ORDER BY MIN(id) LIMIT ?", (limit,))
        return [r[0] for r in rows]

    def user_version(self, user_id: str) -> int:
        """The user's change counter: 0 when nothing was written (or the user was forgotten)."""
        rows = self.query("SELECT version FROM user_versions WHERE user_id = ?", (user_id,))
        return int(rows[0][0]) if rows else 0

    @staticmethod
    def bump_user_versions(conn: PgConnection, users: Iterable[str]) -> None:
        for user_id in sorted(set(users)):
            conn.execute("INSERT INTO user_versions (user_id, version) VALUES (?, nextval('user_versions_seq')) "
                         "ON CONFLICT (user_id) DO UPDATE SET version = excluded.version", (user_id,))

    @staticmethod
    def drop_user_version(conn: PgConnection, user_id: str) -> None:
        """A forgotten user leaves no row behind; the missing row reads as 0, unlike any cached number."""
        conn.execute("DELETE FROM user_versions WHERE user_id = ?", (user_id,))

    def active_ids_of(self, conn: PgConnection, user_id: str) -> set[int]:
        rows = conn.execute("SELECT id FROM memories WHERE user_id = ? AND status = 'active'", (user_id,))
        return {r[0] for r in rows.fetchall()}
