"""Server mode's index upkeep: many processes share one PostgreSQL ledger and one Chroma server.

The embedded IndexSync (sync.py) keeps state in the process: an outbox cursor, a queue of vectors
not yet in Chroma, incrementally updated BM25 indexes. Another worker cannot see any of it, so here:

- a write transaction takes its users' advisory locks, first brings Chroma up to date with any
  outbox rows those users still have (so conflict resolution's nearest-neighbour search sees every
  committed memory), runs the change, and sets the users' change counters;
- after the commit the same worker applies the users' outbox rows to Chroma under the user's lock,
  reading each memory's status at that moment, and deletes the rows. Applying is idempotent (add of a
  present id, delete of an absent id and drop of a missing collection are no-ops), and all of a
  user's appliers hold that user's lock, so Chroma changes in ledger order; a worker killed mid-way
  leaves its rows for the next writer of that user or for any worker's drain;
- every write also drains a few other users' leftover rows with a try-lock (nobody waits);
- BM25 indexes are rebuilt when the user's change counter moved (lexical.py), speakers are read
  from the ledger on each recall, and Chroma collection handles are fetched again when another
  worker dropped the collection.
"""
from __future__ import annotations

import logging
from typing import Any, Callable, Iterable

import numpy as np

from .index import VectorIndex
from .lexical import LexicalIndex
from .recall import SpeakerCache
from .storage.postgres import PgLedger
from .storage.postgres_connection import PgConnection
from .sync import IndexSync

log = logging.getLogger(__name__)

DRAIN_USERS_PER_WRITE = 8  # leftover users a write looks at: bounded work per request


class LedgerSpeakers(SpeakerCache):
    """Speaker names read from the ledger on every use: another worker may add one at any time."""

    def get(self, user_id: str) -> set[str]:
        return self.ledger.speakers(user_id)

    def add(self, user_id: str, speaker: str) -> None:
        pass

    def forget(self, user_id: str) -> None:
        pass


class SharedIndexSync(IndexSync):
    """The outbox consumer for a store shared by processes. Keeps no vector queue."""

    def __init__(self, ledger: PgLedger, index: VectorIndex):
        super().__init__(ledger, index, flush_at=1)
        self.ledger: PgLedger = ledger
        self.lexical = LexicalIndex(self._lexical_rows, version_of=ledger.user_version)

    # -- Chroma calls that survive a collection another worker dropped --------------------------------
    def _fresh(self, user_id: str, call: Callable[[], Any]) -> Any:
        try:
            return call()
        except Exception:  # a cached handle of a collection dropped (and maybe recreated) elsewhere
            self.index.forget_handle(user_id)
            return call()

    # -- writing -----------------------------------------------------------------------------------
    def write(self, change: Callable[[Any], Any], *, defer: bool = False, users: Iterable[str] = ()) -> Any:
        """Run a change in one transaction holding its users' locks, then apply its outbox rows."""
        users = sorted(set(users))
        with self.ledger.transaction(users) as conn:
            for user_id in users:
                self._apply_user(conn, user_id)
            result = change(conn)
            written = self.ledger.outbox_written(conn)
            dropped = {u for u, op in written if op == "drop_user"}
            touched = set(users) | {u for u, _ in written}
            self.ledger.bump_user_versions(conn, touched - dropped)
            for user_id in dropped:
                self.ledger.drop_user_version(conn, user_id)
        # Committed: the ledger is the truth. Rows a crash leaves here are applied by the next worker.
        for user_id in sorted(touched):
            with self.ledger.transaction(user_id) as conn:
                self._apply_user(conn, user_id)
        self.drain(DRAIN_USERS_PER_WRITE, skip=touched)
        return result

    def _apply_user(self, conn: PgConnection, user_id: str) -> int:
        """Make the user's Chroma collection agree with the ledger for every memory named by the
        user's pending outbox rows, then delete them. The caller holds the user's lock."""
        rows = self.ledger.claim_user_outbox(conn, user_id)
        if not rows:
            return 0
        ids = {memory_id for _, op, _, memory_id in rows if op != "drop_user" and memory_id is not None}
        if any(op == "drop_user" for _, op, _, _ in rows):
            self._fresh(user_id, lambda: self.index.drop_user(user_id))
            ids |= self.ledger.active_ids_of(conn, user_id)  # anything written since the forget
        memories = self.ledger.get_many_in(conn, sorted(ids))
        live = sorted(i for i in ids if i in memories and memories[i].status == "active"
                      and memories[i].user_id == user_id)
        dead = sorted(ids - set(live))
        if live:
            vectors = self.ledger.embeddings(live)  # on this thread's transaction: the same snapshot
            self._fresh(user_id, lambda: self.index.add(user_id, live, np.stack([vectors[i] for i in live])))
        if dead:
            self._fresh(user_id, lambda: self.index.remove(user_id, dead))
        self.ledger.delete_outbox(conn, [row[0] for row in rows])
        return len(rows)

    def drain(self, limit: int | None = None, *, skip: Iterable[str] = ()) -> int:
        """Apply outbox rows other workers left behind (killed, or between commit and apply), for up
        to `limit` users whose lock is free now. Returns the rows applied."""
        skip = set(skip)
        done = 0
        for user_id in self.ledger.outbox_users(limit if limit is not None else 1_000_000):
            if user_id in skip:
                continue
            with self.ledger.try_user_transaction(user_id) as conn:
                if conn is not None:
                    done += self._apply_user(conn, user_id)
        return done

    def apply(self, rows: list, *, defer: bool = False) -> None:  # the embedded path; unused here
        raise NotImplementedError("server mode applies outbox rows per user under the user's lock")

    def flush(self) -> None:
        """Nothing waits in this process: a write applies its rows before it returns."""

    def repair_on_open(self, *, index_rebuilt: bool) -> dict[str, Any]:
        """Apply whatever other workers left in the outbox (no whole-index check: other workers are
        live, and the outbox already names every change Chroma may lack)."""
        replayed = self.drain()
        if replayed:
            log.warning("server mode: applied %d outbox rows left by another worker", replayed)
        return {"outbox_replayed": replayed, "users_repaired": 0, "checked": False}

    # -- reading -------------------------------------------------------------------------------
    def nearest(self, user_id: str, vector: np.ndarray, n: int) -> dict[int, float]:
        return self._fresh(user_id, lambda: self.index.query(user_id, vector, n))

    # -- checking and rebuilding -----------------------------------------------------------------
    def verify(self) -> dict[str, Any]:
        """Compare Chroma and the BM25 index with the ledger, one user at a time under that user's lock
        (an exact snapshot per user while other workers keep writing)."""
        self.drain()
        report: dict[str, Any] = {"users": 0, "active": 0, "vector_missing": 0, "vector_extra": 0,
                                  "lexical_missing": 0, "lexical_extra": 0}
        for user_id in self.ledger.users():
            with self.ledger.transaction(user_id) as conn:
                self._apply_user(conn, user_id)
                truth = self.ledger.active_ids_of(conn, user_id)
                indexed = self._fresh(user_id, lambda: self.index.ids(user_id))
                lexical = self.lexical.doc_ids(user_id)
            if truth:
                report["users"] += 1
                report["active"] += len(truth)
            report["vector_missing"] += len(truth - indexed)
            report["vector_extra"] += len(indexed - truth)
            report["lexical_missing"] += len(truth - lexical)
            report["lexical_extra"] += len(lexical - truth)
        report["orphan_collections"] = len(self._orphans())
        report["ok"] = not any(report[k] for k in ("vector_missing", "vector_extra", "lexical_missing",
                                                   "lexical_extra", "orphan_collections"))
        return report

    def rebuild(self) -> dict[str, Any]:
        """Rebuild every user's collection from the ledger, each under that user's lock, so workers
        writing meanwhile lose nothing; then drop collections no user of the ledger owns."""
        rebuilt_users = rebuilt_memories = 0
        for user_id in self.ledger.users():
            with self.ledger.transaction(user_id) as conn:
                self._fresh(user_id, lambda: self.index.drop_user(user_id))
                active = sorted(self.ledger.active_ids_of(conn, user_id))
                for start in range(0, len(active), 2000):
                    chunk = active[start:start + 2000]
                    vectors = self.ledger.embeddings(chunk)
                    self.index.add(user_id, chunk, np.stack([vectors[i] for i in chunk]))
                self.ledger.delete_user_outbox(conn, user_id)
            if active:
                rebuilt_users += 1
                rebuilt_memories += len(active)
        for name in self._orphans():
            self.index.drop_collection(name)
        self.lexical.reset()
        return {"rebuilt_users": rebuilt_users, "rebuilt_memories": rebuilt_memories}
