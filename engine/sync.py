"""Keeping the vector and lexical indexes in line with the ledger.

Every change to memories writes outbox rows in the same transaction (see storage/schema.py). The
lexical index applies them at once; vector writes cost a Chroma call each, so on the ingest path they
wait in a small queue and go to Chroma in batches, and until then recall scores the waiting vectors
directly. The outbox rows stay in SQLite until Chroma has them, so a crash loses nothing: they are
replayed on the next open, and an unclean shutdown triggers an exact check of the index.
"""
from __future__ import annotations

import logging
import threading
import uuid
from typing import Any, Callable, Iterable

import numpy as np

from . import text as textlib
from .extraction import SLOTS
from .index import VectorIndex
from .lexical import LexicalIndex
from .model import OutboxRow
from .storage import Connection, Ledger

log = logging.getLogger(__name__)


def lexical_document(text: str, attribute: str) -> list[str]:
    """What BM25 sees: the memory text plus its attribute's words ("job title"), so a question that
    names the slot ("what's my job?") finds the memory even when the text words differ."""
    return textlib.tokenize(f"{text} {attribute.replace('_', ' ')}")


class IndexSync:
    """The outbox consumer: owns the vector queue and the not-yet-flushed vectors. Thread-safe."""

    def __init__(self, ledger: Ledger, index: VectorIndex, *, flush_at: int):
        self.ledger = ledger
        self.index = index
        self.lexical = LexicalIndex(self._lexical_rows)
        self.flush_at = flush_at
        self.lock = threading.RLock()
        self._outbox_seen = 0  # highest outbox row handed to the indexes
        self._applied_outbox: list[int] = []  # outbox rows Chroma has applied; deleted with the next write
        self._vector_queue: list[OutboxRow] = []  # committed changes not yet written to Chroma
        self._unflushed: dict[str, dict[int, np.ndarray]] = {}  # their vectors, which recall scores directly

    def _lexical_rows(self, user_id: str):
        for memory_id, text, attribute in self.ledger.active_texts(user_id):
            yield memory_id, lexical_document(text, attribute)

    # -- the outbox ----------------------------------------------------------------------------
    def repair_on_open(self, *, index_rebuilt: bool) -> dict[str, Any]:
        """Apply index changes a crash left pending, and check the index against SQLite."""
        report: dict[str, Any] = {"outbox_replayed": 0, "users_repaired": 0, "checked": False}
        clean = self.ledger.get_meta("clean_shutdown") == "1"
        self.ledger.set_meta("clean_shutdown", "0")
        # The index generation is written to SQLite and to the index together; an index that lost it
        # (its directory deleted while the store was closed, a fresh Chroma server) is rebuilt even after
        # a clean shutdown. One lookup per open, whatever the number of users.
        generation = self.ledger.get_meta("index_generation")
        index_lost = generation is not None and self.index.generation() != generation
        pending = self.ledger.pending_outbox()
        self._outbox_seen = pending[-1].id if pending else 0
        if pending:
            self.apply(pending)
            report["outbox_replayed"] = len(pending)
        if index_rebuilt or index_lost:
            report.update(self.rebuild())
            report["checked"] = True
            report["index_lost"] = index_lost
        elif not clean or pending or generation is None:
            fixed = self.verify_and_fix(fix=True)
            report["users_repaired"] = len(fixed["users_fixed"])
            report["checked"] = True
        if report["checked"] or generation is None:
            generation = uuid.uuid4().hex
            self.index.set_generation(generation)  # index first: a crash in between means one more rebuild
            self.ledger.set_meta("index_generation", generation)
        if report["outbox_replayed"] or report["users_repaired"] or report.get("index_lost"):
            log.warning("index repaired on open: %s", report)
        return report

    def new_rows(self, conn: Connection) -> list[OutboxRow]:
        """Outbox rows written since the last committed change (older ones are queued or applied already).
        The cursor moves in `write`, after the COMMIT: a COMMIT that fails rolls the rows and their ids
        back, and the next change reuses those ids."""
        return self.ledger.pending_outbox(self._outbox_seen, conn)

    def take_applied(self) -> list[int]:
        """Outbox rows Chroma has applied, for the next write transaction to delete."""
        ids, self._applied_outbox = self._applied_outbox, []
        return ids

    def apply(self, rows: list[OutboxRow], *, defer: bool = False) -> None:
        """Bring the indexes in line with committed changes (see the module docstring)."""
        added = [r.memory_id for r in rows if r.op == "add"]
        memories = self.ledger.get_many(added) if added else {}
        vectors = self.ledger.embeddings([i for i in added if i in memories]) if added else {}
        with self.lock:
            for row in rows:
                if row.op == "add":
                    memory = memories.get(row.memory_id)
                    if memory is not None and memory.status == "active":
                        self.lexical.add(row.user_id, row.memory_id, lexical_document(memory.text, memory.attribute))
                        self._unflushed.setdefault(row.user_id, {})[row.memory_id] = vectors[row.memory_id]
                elif row.op == "remove":
                    self.lexical.remove(row.user_id, row.memory_id)
                    self._unflushed.get(row.user_id, {}).pop(row.memory_id, None)
                elif row.op == "drop_user":
                    self.lexical.drop_user(row.user_id)
                    self._unflushed.pop(row.user_id, None)
            self._vector_queue.extend(rows)
            if not defer or len(self._vector_queue) >= self.flush_at:
                self._flush_locked()

    def flush(self) -> None:
        with self.lock:
            self._flush_locked()

    def _flush_locked(self) -> None:
        rows, self._vector_queue = self._vector_queue, []
        if not rows:
            return
        adds: dict[str, list[int]] = {}
        for row in rows:
            if row.op == "add":
                adds.setdefault(row.user_id, []).append(row.memory_id)
            elif row.op == "remove":
                self._write_adds(adds)
                self.index.remove(row.user_id, [row.memory_id])
            elif row.op == "drop_user":
                self._write_adds(adds)
                self.index.drop_user(row.user_id)
        self._write_adds(adds)
        self._applied_outbox.extend(r.id for r in rows)

    def _write_adds(self, adds: dict[str, list[int]]) -> None:
        for user_id, ids in adds.items():
            memories = self.ledger.get_many(ids)
            live = [i for i in ids if i in memories and memories[i].status == "active"]
            if live:
                vectors = self.ledger.embeddings(live)
                self.index.add(user_id, live, np.stack([vectors[i] for i in live]))
            waiting = self._unflushed.get(user_id, {})
            for i in ids:
                waiting.pop(i, None)
        adds.clear()

    def forget_applied(self) -> None:
        """Delete outbox rows the index has applied (batched into the next write, or done on close)."""
        if self._applied_outbox:
            ids = self.take_applied()
            with self.ledger.transaction() as conn:
                self.ledger.delete_outbox(conn, ids)

    def write(self, change: Callable[[Connection], Any], *, defer: bool = False, users: Iterable[str] = ()) -> Any:
        """Run a change in one transaction (with the applied outbox rows deleted in it), then apply
        the outbox rows it wrote to the indexes. Returns what `change` returned. `users` are the users
        the change writes: one process owns an embedded store, so only server mode locks them
        (server_sync.py)."""
        with self.ledger.transaction() as conn:
            applied = self.take_applied()
            if applied:
                self.ledger.delete_outbox(conn, applied)
            result = change(conn)
            pending = self.new_rows(conn)
        if pending:
            self._outbox_seen = max(self._outbox_seen, pending[-1].id)
        # Committed: SQLite is the truth now. A crash before the indexes catch up is repaired on open.
        self.apply(pending, defer=defer)
        return result

    def purge_user(self, user_id: str) -> None:
        """Rewrite one user's vector collection from SQLite and compact the index's files: a removed
        vector is otherwise only marked deleted in Chroma's HNSW files and left on its SQLite free pages."""
        with self.lock:
            self._flush_locked()
            self.index.drop_user(user_id)
            ids = sorted(memory_id for memory_id, _, _ in self.ledger.active_texts(user_id))
            for start in range(0, len(ids), 2000):
                chunk = ids[start:start + 2000]
                vectors = self.ledger.embeddings(chunk)
                self.index.add(user_id, chunk, np.stack([vectors[i] for i in chunk]))
            self.index.compact()

    # -- reading -------------------------------------------------------------------------------
    def nearest(self, user_id: str, vector: np.ndarray, n: int) -> dict[int, float]:
        """The user's active memories nearest to a vector: Chroma's answer plus the queued vectors
        Chroma has not been given yet. {memory id: cosine}; may hold ids a moment out of date."""
        with self.lock:  # snapshot before querying Chroma: a flush in between cannot hide a memory
            waiting = dict(self._unflushed.get(user_id, {}))
        found = self.index.query(user_id, vector, n)
        for memory_id, queued in waiting.items():
            found.setdefault(memory_id, float(queued @ vector))
        return found

    # -- checking and rebuilding -----------------------------------------------------------------
    def verify_and_fix(self, *, fix: bool) -> dict[str, Any]:
        self.flush()
        truth = self.ledger.active_ids_by_user()
        users_fixed, missing_total, extra_total = [], 0, 0
        for user_id, ids in truth.items():
            if self.index.count(user_id) == len(ids):
                continue
            indexed = self.index.ids(user_id)
            missing, extra = ids - indexed, indexed - ids
            missing_total += len(missing)
            extra_total += len(extra)
            if fix and (missing or extra):
                users_fixed.append(user_id)
                if missing:
                    vectors = self.ledger.embeddings(sorted(missing))
                    order = sorted(vectors)
                    self.index.add(user_id, order, np.stack([vectors[i] for i in order]))
                self.index.remove(user_id, sorted(extra))
                self.lexical.drop_user(user_id)
        orphans = self._orphans()
        if fix and orphans:
            for name in orphans:
                self.index._client.delete_collection(name)
        return {"users_fixed": users_fixed, "missing": missing_total, "extra": extra_total,
                "orphan_collections": len(orphans)}

    def _orphans(self) -> set[str]:
        known = {self.index.collection_name(u) for u in self.ledger.users()}
        return self.index.user_collections() - known

    def verify(self) -> dict[str, Any]:
        """Compare the vector and lexical indexes with SQLite, exactly (after writing queued vectors)."""
        self.flush()
        truth = self.ledger.active_ids_by_user()
        report: dict[str, Any] = {"users": len(truth), "active": sum(map(len, truth.values())),
                                  "vector_missing": 0, "vector_extra": 0, "lexical_missing": 0, "lexical_extra": 0}
        for user_id, ids in truth.items():
            indexed = self.index.ids(user_id)
            report["vector_missing"] += len(ids - indexed)
            report["vector_extra"] += len(indexed - ids)
            lexical = self.lexical.doc_ids(user_id)
            report["lexical_missing"] += len(ids - lexical)
            report["lexical_extra"] += len(lexical - ids)
        report["orphan_collections"] = len(self._orphans())
        # A data invariant, not an index fault (so not part of "ok", which rebuilds would not fix):
        # a single-valued slot with several active values means an update left an outdated value.
        report["single_valued_violations"] = self.ledger.single_valued_violations(
            [name for name, slot in SLOTS.items() if not slot.multi])
        report["ok"] = not any(report[k] for k in ("vector_missing", "vector_extra", "lexical_missing",
                                                   "lexical_extra", "orphan_collections"))
        return report

    def rebuild(self) -> dict[str, Any]:
        """Drop the vector and lexical indexes and rebuild both from SQLite (no re-embedding)."""
        with self.lock:
            self._vector_queue.clear()
            self._unflushed.clear()
            self.index.reset()
            self.lexical.reset()
            truth = self.ledger.active_ids_by_user()
            for user_id, ids in truth.items():
                order = sorted(ids)
                for start in range(0, len(order), 2000):
                    chunk = order[start:start + 2000]
                    vectors = self.ledger.embeddings(chunk)
                    self.index.add(user_id, chunk, np.stack([vectors[i] for i in chunk]))
            with self.ledger.transaction() as conn:
                self.ledger.clear_outbox(conn)
            self._applied_outbox.clear()
            return {"rebuilt_users": len(truth), "rebuilt_memories": sum(map(len, truth.values()))}
