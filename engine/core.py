"""MemoryEngine: the facade that wires extraction, resolution, the ledger and both indexes."""
from __future__ import annotations

import fcntl
import json
import logging
import os
import re
import sqlite3
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np

from . import extraction as extractlib
from . import scoring
from .context import Context, Profile, SessionSummary, build_context, build_profile, parse_since, summarize
from . import text as textlib
from .embed import Embedder, load_embedder
from .index import open_index
from .ledger import Ledger, blob_to_vector, now_iso
from .lexical import LexicalIndex
from .model import (
    MEMORY_TYPES, STATUSES, EngineError, FactOutcome, Hit, IngestResult, Memory, ModelMismatchError,
    NotFoundError, RecallResult, StoreInUseError,
)
from .resolve import Plan, plan_candidate
from .settings import Settings

log = logging.getLogger(__name__)

DB_NAME = "memengine.db"
MAX_FIELD_CHARS = 512  # source_id, timestamp, speaker
VECTOR_FLUSH_AT = 64
# A memory's vector is its own embedding plus this much of its slot description's embedding
# ("User lives in Oslo." leans toward "where the person lives: city, country, ..."): questions ask
# for a kind of fact more often than they repeat a memory's words. Chosen on the dev split.
DOC_EXPANSION = 0.35
EXPORT_VERSION = 1


def _lexical_document(text: str, attribute: str) -> list[str]:
    """What BM25 sees: the memory text plus its attribute's words ("job title"), so a question that
    names the slot ("what's my job?") finds the memory even when the text words differ."""
    return textlib.tokenize(f"{text} {attribute.replace('_', ' ')}")


class _DirLock:
    """An exclusive lock on the data directory, held for the engine's life (any process, any thread)."""

    def __init__(self, path: Path):
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(self._fd, 64, 0).decode(errors="replace").strip() or "unknown"
            os.close(self._fd)
            raise StoreInUseError(
                f"the store at {path.parent} is in use by another engine (pid {holder}); "
                "close it first, or point this one at another data_dir"
            ) from None
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, str(os.getpid()).encode(), 0)

    def release(self) -> None:
        if self._fd >= 0:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = -1


class MemoryEngine:
    """A user-scoped memory store: ingest messages, recall facts, keep lineage.

    Thread-safe. One engine per data directory at a time; a second one gets StoreInUseError.
    """

    def __init__(self, settings: Settings | None = None, *, embedder: Embedder | None = None,
                 migrate_model: bool = False):
        self.settings = settings if settings is not None else Settings()
        self.data_dir = Path(self.settings.data_dir).expanduser().resolve()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._dir_lock = _DirLock(self.data_dir / "engine.lock")
        self._write_lock = threading.RLock()
        self._closed = False
        self._outbox_seen = 0  # highest outbox row handed to the indexes
        self._applied_outbox: list[int] = []  # outbox rows Chroma has applied; deleted with the next write
        self._index_lock = threading.RLock()
        self._vector_queue: list[tuple] = []  # committed changes not yet written to Chroma
        self._unflushed: dict[str, dict[int, np.ndarray]] = {}  # their vectors, which recall scores directly
        self._speaker_cache: dict[str, set[str]] = {}  # per user: the speakers their messages named
        try:
            self.ledger = Ledger(self.data_dir / DB_NAME, busy_timeout_s=self.settings.busy_timeout_s)
            self.embedder = embedder if embedder is not None else load_embedder(self.settings)
            if embedder is not None and embedder.model_name != self.settings.model_name:
                raise ValueError(
                    f"the embedder given ({embedder.model_name}) is not the configured model ({self.settings.model_name})"
                )
            model_changed = self._check_model(migrate_model)
            store_id = self.ledger.get_meta("store_id")
            if store_id is None:
                store_id = uuid.uuid4().hex
                self.ledger.set_meta("store_id", store_id)
            self.store_id = store_id
            chroma_path = None if self.settings.chroma_url else self.data_dir / "chroma"
            self.index, index_note = open_index(path=chroma_path, url=self.settings.chroma_url, namespace=store_id)
            self.lexical = LexicalIndex(self._lexical_rows)
            self._slot_names = [n for n in extractlib.SLOTS if n != "note"]
            self._slot_matrix: np.ndarray | None = None
            self.last_repair = self._repair_on_open(index_rebuilt=index_note is not None)
            if index_note:
                self.last_repair["note"] = index_note
            if model_changed:
                self.reembed()
        except BaseException:
            if getattr(self, "index", None) is not None:
                self.index.close()
            if getattr(self, "ledger", None) is not None:
                self.ledger.close()
            self._dir_lock.release()
            raise

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        if self._closed:
            return
        with self._write_lock:
            self._flush_vectors()
            self._flush_outbox()
            self.ledger.set_meta("clean_shutdown", "1")
            self.ledger.close()
            self.index.close()
            self._closed = True
            self._dir_lock.release()

    def __enter__(self) -> "MemoryEngine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_open(self) -> None:
        if self._closed:
            raise EngineError("this engine is closed")

    def _check_model(self, migrate: bool) -> bool:
        stored = self.ledger.get_meta("embedding_model")
        current = self.embedder.model_id
        if stored is None:
            self.ledger.set_meta("embedding_model", current)
            return False
        if stored == current:
            return False
        if migrate:
            return True
        raise ModelMismatchError(
            f"this store was built with the embedding model {stored!r}, but {current!r} is configured. "
            f"Vectors from different models do not mix. Either set MEMENGINE_MODEL_NAME back to "
            f"{stored.rsplit(':', 1)[0]!r}, or migrate the store once with `python -m engine reembed "
            f"--data-dir {self.data_dir}` (MemoryEngine(settings, migrate_model=True))."
        )

    # ------------------------------------------------------------------ index sync
    def _lexical_rows(self, user_id: str):
        for memory_id, text, attribute in self.ledger.active_texts(user_id):
            yield memory_id, _lexical_document(text, attribute)

    def _repair_on_open(self, *, index_rebuilt: bool) -> dict[str, Any]:
        """Apply index changes a crash left pending, and check the index against SQLite."""
        report: dict[str, Any] = {"outbox_replayed": 0, "users_repaired": 0, "checked": False}
        clean = self.ledger.get_meta("clean_shutdown") == "1"
        self.ledger.set_meta("clean_shutdown", "0")
        pending = self.ledger.query("SELECT id, op, user_id, memory_id FROM index_outbox ORDER BY id")
        self._outbox_seen = pending[-1][0] if pending else 0
        if pending:
            self._apply_outbox(pending)
            report["outbox_replayed"] = len(pending)
        if index_rebuilt:
            report.update(self.rebuild_index())
            report["checked"] = True
        elif not clean or pending:
            fixed = self._verify_and_fix(fix=True)
            report["users_repaired"] = len(fixed["users_fixed"])
            report["checked"] = True
        if report["outbox_replayed"] or report["users_repaired"]:
            log.warning("index repaired on open: %s", report)
        return report

    def _apply_outbox(self, rows: list[tuple], *, defer: bool = False) -> None:
        """Bring the indexes in line with committed changes.

        The lexical index changes at once. Vector writes cost a Chroma call each, so on the ingest
        path they wait in a small queue and go to Chroma in batches; until then recall scores the
        waiting vectors directly (`_unflushed`). The outbox rows stay in SQLite until Chroma has
        them, so a crash loses nothing: they are replayed on the next open.
        """
        added = [r[3] for r in rows if r[1] == "add"]
        memories = self.ledger.get_many(added) if added else {}
        vectors = self.ledger.embeddings([i for i in added if i in memories]) if added else {}
        with self._index_lock:
            for _, op, user_id, memory_id in rows:
                if op == "add":
                    memory = memories.get(memory_id)
                    if memory is not None and memory.status == "active":
                        self.lexical.add(user_id, memory_id, _lexical_document(memory.text, memory.attribute))
                        self._unflushed.setdefault(user_id, {})[memory_id] = vectors[memory_id]
                elif op == "remove":
                    self.lexical.remove(user_id, memory_id)
                    self._unflushed.get(user_id, {}).pop(memory_id, None)
                elif op == "drop_user":
                    self.lexical.drop_user(user_id)
                    self._unflushed.pop(user_id, None)
            self._vector_queue.extend(rows)
            if not defer or len(self._vector_queue) >= VECTOR_FLUSH_AT:
                self._flush_vectors_locked()

    def _new_outbox_rows(self, conn: sqlite3.Connection) -> list[tuple]:
        """Outbox rows written since the last call (older ones are queued or applied already)."""
        rows = conn.execute("SELECT id, op, user_id, memory_id FROM index_outbox WHERE id > ? ORDER BY id",
                            (self._outbox_seen,)).fetchall()
        if rows:
            self._outbox_seen = rows[-1][0]
        return rows

    def _flush_vectors(self) -> None:
        with self._index_lock:
            self._flush_vectors_locked()

    def _flush_vectors_locked(self) -> None:
        rows, self._vector_queue = self._vector_queue, []
        if not rows:
            return
        adds: dict[str, list[int]] = {}
        for _, op, user_id, memory_id in rows:
            if op == "add":
                adds.setdefault(user_id, []).append(memory_id)
            elif op == "remove":
                self._write_adds(adds)
                self.index.remove(user_id, [memory_id])
            elif op == "drop_user":
                self._write_adds(adds)
                self.index.drop_user(user_id)
        self._write_adds(adds)
        self._applied_outbox.extend(r[0] for r in rows)

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

    def _flush_outbox(self) -> None:
        """Forget outbox rows the index has applied (batched into the next write, or done on close)."""
        if self._applied_outbox:
            ids, self._applied_outbox = self._applied_outbox, []
            with self.ledger.transaction() as conn:
                conn.executemany("DELETE FROM index_outbox WHERE id = ?", [(i,) for i in ids])

    def _verify_and_fix(self, *, fix: bool) -> dict[str, Any]:
        self._flush_vectors()
        truth = self.ledger.active_ids_by_user()
        users_fixed, missing_total, extra_total = [], 0, 0
        for user_id, ids in truth.items():
            if self.index.count(user_id) == len(ids):
                indexed = None
            else:
                indexed = self.index.ids(user_id)
            if indexed is None:
                continue
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
        known = {self.index.collection_name(u) for u in self.ledger.users()}
        orphans = self.index.user_collections() - known
        if fix and orphans:
            for name in orphans:
                self.index._client.delete_collection(name)
        return {"users_fixed": users_fixed, "missing": missing_total, "extra": extra_total,
                "orphan_collections": len(orphans)}

    def verify_index(self) -> dict[str, Any]:
        """Compare the vector and lexical indexes with SQLite, exactly (after writing queued vectors)."""
        self._check_open()
        self._flush_vectors()
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
        known = {self.index.collection_name(u) for u in self.ledger.users()}
        report["orphan_collections"] = len(self.index.user_collections() - known)
        report["ok"] = not any(report[k] for k in ("vector_missing", "vector_extra", "lexical_missing",
                                                   "lexical_extra", "orphan_collections"))
        return report

    def rebuild_index(self) -> dict[str, Any]:
        """Drop the vector and lexical indexes and rebuild both from SQLite (no re-embedding)."""
        self._check_open()
        with self._write_lock, self._index_lock:
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
                conn.execute("DELETE FROM index_outbox")
            self._applied_outbox.clear()
            return {"rebuilt_users": len(truth), "rebuilt_memories": sum(map(len, truth.values()))}

    def reembed(self, batch_size: int = 256) -> int:
        """Recompute every stored vector with the configured model, then rebuild the index."""
        self._check_open()
        with self._write_lock:
            rows = self.ledger.query(
                "SELECT m.id, m.text, s.speaker, m.attribute, m.type FROM memories m "
                "LEFT JOIN messages s ON s.id = m.message_id ORDER BY m.id")
            for start in range(0, len(rows), batch_size):
                chunk = rows[start:start + batch_size]
                vectors = self._embed_memories([row[1:] for row in chunk])
                with self.ledger.transaction() as conn:
                    conn.executemany("UPDATE memories SET embedding = ? WHERE id = ?",
                                     [(v.astype(np.float32).tobytes(), row[0]) for row, v in zip(chunk, vectors)])
            self.ledger.set_meta("embedding_model", self.embedder.model_id)
            self.rebuild_index()
            return len(rows)

    # ------------------------------------------------------------------ validation
    def _user(self, user_id: object) -> str:
        return textlib.validate_user_id(user_id, max_chars=self.settings.max_user_id_chars)

    @staticmethod
    def _optional_field(value: object, name: str) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str):
            raise ValueError(f"{name} must be a string or None, not {type(value).__name__}")
        if "\x00" in value:
            raise ValueError(f"{name} contains a NUL byte")
        if len(value) > MAX_FIELD_CHARS:
            raise ValueError(f"{name} is longer than {MAX_FIELD_CHARS} characters")
        return value.strip() or None

    def _message_args(self, text: object, user_id: object, source_id: object, timestamp: object,
                      speaker: object) -> tuple[str, str, str | None, str | None, str | None]:
        return (
            textlib.validate_text(text, max_chars=self.settings.max_text_chars, what="message"),
            self._user(user_id),
            self._optional_field(source_id, "source_id"),
            self._optional_field(timestamp, "timestamp"),
            self._optional_field(speaker, "speaker"),
        )

    # ------------------------------------------------------------------ ingest
    def ingest(self, text: str, user_id: str = "default", source_id: str | None = None,
               timestamp: str | None = None, speaker: str | None = None) -> IngestResult:
        """Log a message and keep the durable facts in it."""
        self._check_open()
        args = self._message_args(text, user_id, source_id, timestamp, speaker)
        return self._ingest_batch([args])[0]

    def ingest_many(self, messages: Iterable[str | Mapping[str, Any]], user_id: str = "default") -> list[IngestResult]:
        """Ingest several messages with one embedding batch. Every message is validated before any is stored."""
        self._check_open()
        items = []
        for n, message in enumerate(messages):
            try:
                if isinstance(message, str):
                    items.append(self._message_args(message, user_id, None, None, None))
                elif isinstance(message, Mapping):
                    unknown = set(message) - {"text", "message", "user_id", "source_id", "timestamp", "speaker"}
                    if unknown:
                        raise ValueError(f"unknown keys {sorted(unknown)}")
                    items.append(self._message_args(
                        message.get("text", message.get("message")), message.get("user_id", user_id),
                        message.get("source_id"), message.get("timestamp"), message.get("speaker"),
                    ))
                else:
                    raise ValueError(f"expected a string or a mapping, not {type(message).__name__}")
            except ValueError as exc:
                raise ValueError(f"message {n + 1}: {exc}") from None
        results: list[IngestResult] = []
        for start in range(0, len(items), 256):
            results.extend(self._ingest_batch(items[start:start + 256]))
        return results

    def _ingest_batch(self, items: list[tuple[str, str, str | None, str | None, str | None]]) -> list[IngestResult]:
        extracted = self._resolve_elliptical(items, [extractlib.extract(text, speaker=speaker)
                                                     for text, _, _, _, speaker in items])
        speakers = [item[4] for item, cands in zip(items, extracted) for _ in cands]
        flat = [c for cands in extracted for c in cands]
        plain = self.embedder.encode([extractlib.embedding_text(c.text, sp) for c, sp in zip(flat, speakers)])
        flat = self._assign_fallback_attributes(flat, plain)
        vectors = self._expand(plain, [(c.attribute, c.type) for c in flat])
        for _, user_id, _, _, speaker in items:
            if speaker:
                with self._index_lock:
                    if user_id in self._speaker_cache:
                        self._speaker_cache[user_id].add(speaker)
        batch, position = [], 0
        for item, cands in zip(items, extracted):
            n = len(cands)
            batch.append((item, flat[position:position + n], vectors[position:position + n]))
            position += n
        return self._store_messages(batch)

    def _resolve_elliptical(self, items: list[tuple], extracted: list[list[extractlib.Candidate]]
                            ) -> list[list[extractlib.Candidate]]:
        """A bare correction ("oops, I meant Tuesday") replaces the value of what the user said last:
        the last fact of an earlier message in this batch, else their newest active memory."""
        last: dict[str, Any] = {}
        out = []
        for item, cands in zip(items, extracted):
            user_id = item[1]
            if any(not c.elliptical for c in cands):  # the message restates its fact in full
                cands = [c for c in cands if not c.elliptical]
            kept = []
            for cand in cands:
                if cand.elliptical:
                    previous = last.get(user_id) or self.ledger.latest_active(user_id)
                    cand = extractlib.correct(previous, cand) if previous is not None else None
                if cand is not None:
                    kept.append(cand)
            if kept:
                last[user_id] = kept[-1]
            out.append(kept)
        return out

    def _slot_vectors(self) -> np.ndarray:
        """Embeddings of the canonical slots' descriptions (rows in the order of _slot_names)."""
        if self._slot_matrix is None:
            self._slot_matrix = self.embedder.encode([extractlib.SLOTS[n].description for n in self._slot_names])
        return self._slot_matrix

    def _expand(self, plain: np.ndarray, slots: list[tuple[str, str]]) -> np.ndarray:
        """Memory vectors: each plain embedding plus DOC_EXPANSION of its slot's description, unit length."""
        if not len(plain):
            return np.zeros((0, self.embedder.dim), np.float32)
        matrix, index = self._slot_vectors(), {n: i for i, n in enumerate(self._slot_names)}
        out = np.array(plain, dtype=np.float32, copy=True)
        for row, (attribute, mem_type) in enumerate(slots):
            slot = extractlib.slot_of(attribute, mem_type)
            if slot is not None and slot.name in index:
                out[row] += DOC_EXPANSION * matrix[index[slot.name]]
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def _embed_memories(self, rows: list[tuple[str, str | None, str, str]]) -> np.ndarray:
        """(text, speaker, attribute, type) -> stored vectors; the one definition ingest, reembed and import share."""
        plain = self.embedder.encode([extractlib.embedding_text(text, speaker) for text, speaker, _, _ in rows])
        return self._expand(plain, [(attribute, mem_type) for _, _, attribute, mem_type in rows])

    def _assign_fallback_attributes(self, cands: list[extractlib.Candidate],
                                    plain: np.ndarray) -> list[extractlib.Candidate]:
        """A clause no rule understood goes under the nearest canonical attribute, when one is near enough."""
        if all(c.understood for c in cands):
            return cands
        matrix = self._slot_vectors()
        out = []
        for cand, vector in zip(cands, plain):
            if not cand.understood:
                sims = matrix @ vector
                best = int(np.argmax(sims))
                if sims[best] >= 0.30:
                    slot = extractlib.SLOTS[self._slot_names[best]]
                    cand = extractlib.replace(cand, attribute=slot.name, type=slot.type, multi=True)
            out.append(cand)
        return out

    def _store_messages(self, batch: list[tuple[tuple, list[extractlib.Candidate], np.ndarray]]) -> list[IngestResult]:
        """Log the messages and apply their facts in ONE transaction, then bring the indexes along."""
        now = now_iso()
        logged: list[tuple[int, str, list[tuple[Plan, int]]]] = []
        with self._write_lock:
            with self.ledger.transaction() as conn:
                if self._applied_outbox:
                    conn.executemany("DELETE FROM index_outbox WHERE id = ?", [(i,) for i in self._applied_outbox])
                    self._applied_outbox = []
                for (text, user_id, source_id, timestamp, speaker), cands, vectors in batch:
                    message_id = self.ledger.insert_message(conn, user_id, text, source_id, timestamp, speaker, now)
                    plans = [self._apply_candidate(conn, user_id, cand, vector, message_id, now)
                             for cand, vector in zip(cands, vectors)]
                    status = _overall_status(plans)
                    self.ledger.set_message_outcome(conn, message_id, status)
                    logged.append((message_id, status, plans))
                pending = self._new_outbox_rows(conn)
            # Committed: SQLite is the truth now. A crash before the indexes catch up is repaired on open.
            self._apply_outbox(pending, defer=True)
        wanted = [i for _, _, plans in logged for p, mid in plans for i in (mid, *p.supersede_ids)]
        memories = self.ledger.get_many(wanted)
        results = []
        for message_id, status, plans in logged:
            outcomes = [FactOutcome(p.action, memories[mid], [memories[i] for i in p.supersede_ids]) for p, mid in plans]
            results.append(IngestResult(
                status=status, memories=[o.memory for o in outcomes],
                superseded_ids=[m.id for o in outcomes for m in o.superseded],
                message=_describe(status, outcomes), message_id=message_id, outcomes=outcomes,
            ))
        return results

    def _apply_candidate(self, conn: sqlite3.Connection, user_id: str, cand: extractlib.Candidate,
                         vector: np.ndarray, message_id: int, now: str) -> tuple[Plan, int]:
        plan = plan_candidate(conn, self, user_id, cand, vector, message_id)
        if plan.action == "confirmed":
            return plan, plan.confirmed_id
        new_id = self.ledger.next_memory_id(conn)
        # The old memory points at the new one before the new row exists; checked at commit.
        conn.execute("PRAGMA defer_foreign_keys = ON")
        for old_id in plan.supersede_ids:
            self.ledger.mark_superseded(conn, old_id, new_id, now)
            self.ledger.outbox(conn, "remove", user_id, old_id)
        self.ledger.insert_memory(
            conn, memory_id=new_id, user_id=user_id, text=cand.text, type=cand.type, subject=cand.subject,
            attribute=cand.attribute, value=cand.value, value_key=extractlib.value_key(cand.value),
            multi_valued=plan.multi, importance=cand.importance, message_id=message_id, embedding=vector,
            created_at=now, supersedes=plan.supersede_ids[0] if plan.supersede_ids else None,
        )
        self.ledger.outbox(conn, "add", user_id, new_id)
        return plan, new_id

    def remember(self, subject: str, attribute: str, value: str, type: str = "fact", user_id: str = "default",
                 importance: float | None = None) -> IngestResult:
        """Store a structured memory directly; the same conflict rules apply as for messages."""
        self._check_open()
        user_id = self._user(user_id)
        for name, field in (("subject", subject), ("attribute", attribute), ("value", value)):
            textlib.validate_text(field, max_chars=MAX_FIELD_CHARS, what=name)
        if type not in MEMORY_TYPES:
            raise ValueError(f"type must be one of {', '.join(MEMORY_TYPES)}, got {type!r}")
        cand = extractlib.structured(subject, attribute, value, type)
        if importance is not None:
            if not 0.0 <= float(importance) <= 1.0:
                raise ValueError(f"importance must be between 0 and 1, got {importance}")
            cand = extractlib.replace(cand, importance=float(importance))
        vectors = self._embed_memories([(cand.text, None, cand.attribute, cand.type)])
        return self._store_messages([((cand.clause, user_id, None, None, None), [cand], vectors)])[0]

    # ------------------------------------------------------------------ recall
    def recall(self, query: str, user_id: str = "default", top_k: int | None = None,
               threshold: float | None = None, alpha: float | None = None, include_history: bool | None = None,
               importance_weight: float | None = None) -> RecallResult:
        """The user's memories relevant to the query, best first; [] when nothing clears the threshold."""
        self._check_open()
        started = time.perf_counter()
        s = self.settings
        query = textlib.validate_text(query, max_chars=s.max_text_chars, what="query")
        user_id = self._user(user_id)
        top_k = s.top_k if top_k is None else int(top_k)
        threshold = s.threshold if threshold is None else float(threshold)
        alpha = s.alpha if alpha is None else float(alpha)
        importance_weight = s.importance_weight if importance_weight is None else float(importance_weight)
        if not 1 <= top_k <= 100:
            raise ValueError(f"top_k must be between 1 and 100, got {top_k}")
        if not -1.0 <= threshold <= 2.0:
            raise ValueError(f"threshold must be between -1 and 2, got {threshold}")
        history_cue = textlib.wants_history(query)
        history = history_cue if include_history is None else bool(include_history)
        timings: dict[str, float] = {}

        t = time.perf_counter()
        # The embedding sees the question about "the user"; BM25 keeps the names, which is how it tells
        # two people's memories apart when their content is alike.
        query_text = textlib.as_third_person_question(self._alias_names(user_id, query))
        lexical_text = textlib.as_third_person_question(query)
        qvec = self.embedder.encode_query(query_text)
        timings["embed"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        n = max(s.candidate_k, top_k * 2)
        dense = self._nearest(user_id, qvec, n)
        timings["dense"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        terms = textlib.tokenize(lexical_text)
        lexical = self.lexical.search(user_id, terms, n)
        timings["lexical"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        ids = set(dense) | set(lexical)
        memories = self.ledger.get_many(sorted(ids))
        candidates: list[Hit] = []
        missing_vectors = [i for i in ids if i not in dense and i in memories]
        extra_vectors = self.ledger.embeddings(missing_vectors) if missing_vectors else {}
        for memory_id, memory in memories.items():
            if memory.status != "active" or memory.user_id != user_id:
                continue  # an index a moment behind the ledger must never leak a stale or foreign memory
            sem = dense.get(memory_id)
            if sem is None:
                sem = float(extra_vectors[memory_id] @ qvec)
            candidates.append(Hit(memory, 0.0, round(sem, 6), round(lexical.get(memory_id, 0.0), 6), memory.importance))
        if history:
            candidates.extend(self._historical_candidates(user_id, qvec, terms, n))
        candidates = self._about_named_people(user_id, query, candidates)
        timings["score"] = (time.perf_counter() - t) * 1000
        hits, misses, ranked = scoring.rank(candidates, alpha=alpha, importance_weight=importance_weight,
                                            threshold=threshold, top_k=top_k, current_first=not history_cue,
                                            companion_margin=s.companion_margin)
        timings["total"] = (time.perf_counter() - started) * 1000
        return RecallResult(
            query=query, user_id=user_id, hits=hits, confidence=scoring.confidence(hits, threshold, s.certain_margin),
            threshold=threshold, alpha=alpha, importance_weight=importance_weight, top_k=top_k,
            include_history=history, history_cue=history_cue, companion_margin=s.companion_margin,
            below_threshold=misses, timings_ms={k: round(v, 3) for k, v in timings.items()},
            candidates=ranked,
        )

    def _nearest(self, user_id: str, vector: np.ndarray, n: int) -> dict[int, float]:
        """The user's active memories nearest to a vector: Chroma's answer plus the queued vectors
        Chroma has not been given yet. {memory id: cosine}; may hold ids a moment out of date."""
        with self._index_lock:  # snapshot before querying Chroma: a flush in between cannot hide a memory
            waiting = dict(self._unflushed.get(user_id, {}))
        found = self.index.query(user_id, vector, n)
        for memory_id, queued in waiting.items():
            found.setdefault(memory_id, float(queued @ vector))
        return found

    def _alias_names(self, user_id: str, query: str) -> str:
        """Memories are embedded with their person as "User" (see extract.embedding_text); a question
        that names that person ("What does Sam do?", "Where did Maya go?") is asked about "the user"
        too, so the name, which every memory of theirs shares, does not decide the match."""
        rows = self.ledger.query(
            "SELECT value FROM memories WHERE user_id = ? AND subject = 'user' AND attribute = 'name' "
            "AND status = 'active' LIMIT 3", (user_id,),
        )
        names = {value for (value,) in rows} | self._speakers(user_id)
        for name in sorted(names, key=len, reverse=True):
            first = name.split()[0] if name.split() else ""
            for alias in dict.fromkeys((name, first)):
                if len(alias) >= 2:
                    query = re.sub(rf"(?<!\w){re.escape(alias)}'s(?!\w)", "the user's", query, flags=re.IGNORECASE)
                    query = re.sub(rf"(?<!\w){re.escape(alias)}(?!\w)", "the user", query, flags=re.IGNORECASE)
        return query

    def _about_named_people(self, user_id: str, query: str, candidates: list[Hit]) -> list[Hit]:
        """In a conversation between several people, a question that names some of them is answered
        only by what those people said or what mentions them: Marta's sister is not Kenji's."""
        speakers = self._speakers(user_id)
        if len(speakers) < 2:
            return candidates
        named = {name for name in speakers if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", query, re.IGNORECASE)}
        if not named:
            return candidates

        def about_them(hit: Hit) -> bool:
            speaker = hit.memory.speaker
            if speaker is None or speaker in named:
                return True
            return any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", hit.memory.text, re.IGNORECASE) for n in named)

        return [h for h in candidates if about_them(h)]

    def _speakers(self, user_id: str) -> set[str]:
        with self._index_lock:
            known = self._speaker_cache.get(user_id)
        if known is None:
            known = self.ledger.speakers(user_id)
            with self._index_lock:
                self._speaker_cache[user_id] = known
        return known

    def _historical_candidates(self, user_id: str, qvec: np.ndarray, terms: list[str], n: int) -> list[Hit]:
        rows = self.ledger.superseded_for_user(user_id, 2000)
        if not rows:
            return []
        sims = {mid: float(blob_to_vector(blob) @ qvec) for mid, blob in rows}
        best = sorted(sims, key=sims.get, reverse=True)[:n]
        memories = self.ledger.get_many(best)
        docs = {mid: _lexical_document(m.text, m.attribute) for mid, m in memories.items()}
        lexical = self.lexical.score_documents(user_id, terms, docs)
        replacements = self.ledger.get_many([m.replaced_by for m in memories.values() if m.replaced_by])
        out = []
        for mid in best:
            m = memories[mid]
            out.append(Hit(m, 0.0, round(sims[mid], 6), round(lexical.get(mid, 0.0), 6), m.importance,
                           historical=True, replaced_by_memory=replacements.get(m.replaced_by)))
        return out

    def rescore(self, result: RecallResult, threshold: float | None = None, alpha: float | None = None,
                importance_weight: float | None = None, top_k: int | None = None) -> RecallResult:
        """Apply other knobs to a recall's candidates without embedding the query again."""
        return scoring.rescore(result, threshold=threshold, alpha=alpha, importance_weight=importance_weight,
                               top_k=top_k, certain_margin=self.settings.certain_margin)

    # ------------------------------------------------------------------ reading
    def _owned(self, memory_id: object, user_id: str | None) -> Memory:
        if isinstance(memory_id, bool) or not isinstance(memory_id, (int, np.integer)):
            raise ValueError(f"memory id must be an integer, not {type(memory_id).__name__}")
        memory = self.ledger.get(int(memory_id))
        if memory is None or (user_id is not None and memory.user_id != self._user(user_id)):
            raise NotFoundError(f"no memory #{memory_id}")
        return memory

    def get(self, memory_id: int, user_id: str | None = None) -> Memory:
        self._check_open()
        return self._owned(memory_id, user_id)

    def list_memories(self, user_id: str | None = None, status: str = "active", limit: int = 100,
                      offset: int = 0) -> list[Memory]:
        self._check_open()
        self._check_status(status)
        limit, offset = int(limit), int(offset)
        if not 0 <= limit <= 100_000 or offset < 0:
            raise ValueError("limit must be 0..100000 and offset >= 0")
        return self.ledger.list(self._user(user_id) if user_id is not None else None, status, limit, offset)

    def count_memories(self, user_id: str | None = None, status: str = "active") -> int:
        self._check_open()
        self._check_status(status)
        return self.ledger.count(self._user(user_id) if user_id is not None else None, status)

    @staticmethod
    def _check_status(status: str) -> None:
        if status not in (*STATUSES, "all"):
            raise ValueError(f"status must be one of {', '.join((*STATUSES, 'all'))}, got {status!r}")

    def messages(self, user_id: str | None = None, limit: int = 100, offset: int = 0) -> list[dict[str, Any]]:
        self._check_open()
        return self.ledger.messages(self._user(user_id) if user_id is not None else None, int(limit), int(offset))

    def history(self, memory_id: int, user_id: str | None = None) -> list[Memory]:
        """The whole supersede chain that contains the memory, oldest first."""
        self._check_open()
        memory = self._owned(memory_id, user_id)
        ids = self.ledger.chain_ids(memory.id)
        chain = self.ledger.get_many(ids)
        return [chain[i] for i in ids if chain[i].user_id == memory.user_id]

    def users(self) -> list[str]:
        self._check_open()
        return self.ledger.users()

    # ------------------------------------------------------------------ deleting
    def delete(self, memory_id: int, user_id: str | None = None) -> Memory:
        """Soft delete: the memory stays in the ledger as 'deleted' and leaves recall."""
        self._check_open()
        with self._write_lock:
            memory = self._owned(memory_id, user_id)
            if memory.status == "deleted":
                return memory
            now = now_iso()
            with self.ledger.transaction() as conn:
                conn.execute("UPDATE memories SET status = 'deleted', updated_at = ? WHERE id = ?", (now, memory.id))
                if memory.status == "active":
                    self.ledger.outbox(conn, "remove", memory.user_id, memory.id)
                pending = self._new_outbox_rows(conn)
            self._apply_outbox(pending)
            return self.ledger.get(memory.id)

    def forget_user(self, user_id: str) -> dict[str, int]:
        """Hard-delete every memory and message of one user, and nobody else's."""
        self._check_open()
        user_id = self._user(user_id)
        with self._write_lock:
            with self.ledger.transaction() as conn:
                memories = conn.execute("DELETE FROM memories WHERE user_id = ?", (user_id,)).rowcount
                messages = conn.execute("DELETE FROM messages WHERE user_id = ?", (user_id,)).rowcount
                conn.execute("DELETE FROM index_outbox WHERE user_id = ?", (user_id,))
                self.ledger.outbox(conn, "drop_user", user_id)
            with self._index_lock:
                self._speaker_cache.pop(user_id, None)
                pending = self._new_outbox_rows(conn)
            self._apply_outbox(pending)
            return {"memories": memories, "messages": messages}

    # ------------------------------------------------------------------ export / import
    def export_jsonl(self, path: str | os.PathLike, user_id: str | None = None) -> int:
        """Write messages and memories (every status, lineage included) as JSON lines. Returns lines written."""
        self._check_open()
        user = self._user(user_id) if user_id is not None else None
        lines = 0
        with open(path, "w", encoding="utf-8") as out:
            for record in self.iter_export(user):
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
                lines += 1
        return lines

    def iter_export(self, user_id: str | None = None) -> Iterable[dict[str, Any]]:
        where, params = ("WHERE user_id = ?", (user_id,)) if user_id is not None else ("", ())
        yield {"kind": "header", "format": "memengine-export", "version": EXPORT_VERSION,
               "model": self.embedder.model_id, "exported_at": now_iso()}
        for row in self.ledger.query(
            f"SELECT id, user_id, text, source_id, timestamp, speaker, outcome, created_at FROM messages {where} ORDER BY id", params
        ):
            yield dict(zip(("id", "user_id", "text", "source_id", "timestamp", "speaker", "outcome", "created_at"), row),
                       kind="message")
        for row in self.ledger.query(
            "SELECT id, user_id, text, type, subject, attribute, value, multi_valued, importance, status, replaced_by, "
            f"supersedes, created_at, updated_at, superseded_at, message_id FROM memories {where} ORDER BY id", params
        ):
            keys = ("id", "user_id", "text", "type", "subject", "attribute", "value", "multi_valued", "importance",
                    "status", "replaced_by", "supersedes", "created_at", "updated_at", "superseded_at", "message_id")
            record = dict(zip(keys, row), kind="memory")
            record["multi_valued"] = bool(record["multi_valued"])
            yield record

    def import_jsonl(self, path: str | os.PathLike) -> int:
        """Load an export. All or nothing: a malformed line or a conflict leaves the store untouched."""
        self._check_open()
        messages, memories = _read_export(Path(path), self)
        speakers = {m["id"]: m.get("speaker") for m in messages}
        vectors = self._embed_memories([(m["text"], speakers.get(m.get("message_id")), m["attribute"], m["type"])
                                        for m in memories])
        with self._write_lock:
            try:
                with self.ledger.transaction() as conn:
                    conn.execute("PRAGMA defer_foreign_keys = ON")
                    message_ids: dict[int, int] = {}
                    for m in messages:
                        message_ids[m["id"]] = self.ledger.insert_message(
                            conn, m["user_id"], m["text"], m.get("source_id"), m.get("timestamp"), m.get("speaker"),
                            m.get("created_at") or now_iso())
                        if m.get("outcome"):
                            self.ledger.set_message_outcome(conn, message_ids[m["id"]], m["outcome"])
                    # New ids keep the old order, so "replaced by a newer memory" still holds.
                    first = self.ledger.next_memory_id(conn)
                    memory_ids = {m["id"]: first + n for n, m in enumerate(memories)}
                    for m, vector in zip(memories, vectors):
                        self.ledger.insert_memory(
                            conn, memory_id=memory_ids[m["id"]], user_id=m["user_id"], text=m["text"], type=m["type"],
                            subject=m["subject"], attribute=m["attribute"], value=m["value"],
                            value_key=extractlib.value_key(m["value"]), multi_valued=bool(m.get("multi_valued")),
                            importance=float(m["importance"]), status=m["status"],
                            replaced_by=memory_ids.get(m.get("replaced_by")), supersedes=memory_ids.get(m.get("supersedes")),
                            message_id=message_ids.get(m.get("message_id")), embedding=vector,
                            created_at=m["created_at"], updated_at=m.get("updated_at"), superseded_at=m.get("superseded_at"),
                        )
                        if m["status"] == "active":
                            self.ledger.outbox(conn, "add", m["user_id"], memory_ids[m["id"]])
                    pending = self._new_outbox_rows(conn)
            except sqlite3.IntegrityError as exc:
                raise ValueError(f"import conflicts with the store ({exc}); nothing was imported") from None
            self._apply_outbox(pending)
        return len(memories)

    # ------------------------------------------------------------------ stats
    def stats(self) -> dict[str, Any]:
        self._check_open()
        counts = dict(self.ledger.query("SELECT status, COUNT(*) FROM memories GROUP BY status"))
        db_path = self.data_dir / DB_NAME
        size = sum(p.stat().st_size for p in self.data_dir.rglob("*") if p.is_file())
        return {
            "data_dir": str(self.data_dir),
            "store_id": self.store_id,
            "model": self.embedder.model_id,
            "index": self.settings.chroma_url or str(self.data_dir / "chroma"),
            "schema_version": self.ledger.schema_version,
            "users": len(self.ledger.users()),
            "memories": {status: counts.get(status, 0) for status in STATUSES},
            "total_memories": sum(counts.values()),
            "messages": self.ledger.query("SELECT COUNT(*) FROM messages")[0][0],
            "db_bytes": db_path.stat().st_size if db_path.exists() else 0,
            "store_bytes": size,
            "query_cache": {"hits": self.embedder.cache_hits, "misses": self.embedder.cache_misses},
            "last_repair": self.last_repair,
        }

    # ------------------------------------------------------------------ chat (engine/context.py)
    def context(self, query: str, user_id: str = "default", *, budget_chars: int | None = None,
                include_history: bool | None = None, top_k: int | None = None,
                threshold: float | None = None) -> Context:
        """The memories relevant to a turn as a block for an LLM prompt (.text) and as data (.items)."""
        self._check_open()
        budget = self.settings.context_budget_chars if budget_chars is None else int(budget_chars)
        return build_context(self, query, self._user(user_id), budget_chars=budget,
                             include_history=include_history, top_k=top_k, threshold=threshold)

    def profile(self, user_id: str = "default", limit: int = 5) -> Profile:
        """The user's most important current facts (importance, then recency) and a greeting."""
        self._check_open()
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 50:
            raise ValueError(f"limit must be an integer between 1 and 50, got {limit!r}")
        return build_profile(self, self._user(user_id), limit=limit)

    def summarize_session(self, user_id: str = "default", message_ids: list[int] | None = None, *,
                          since: object = None, summarizer: object = None) -> SessionSummary:
        """One `event` memory summarising a session's messages (by id, or since a moment), cited to them."""
        self._check_open()
        if (message_ids is None) == (since is None):
            raise ValueError("give either message_ids or since")
        if message_ids is not None:
            if not isinstance(message_ids, (list, tuple)) or not message_ids or any(
                    isinstance(i, bool) or not isinstance(i, int) for i in message_ids):
                raise ValueError("message_ids must be a non-empty list of integers")
        return summarize(self, self._user(user_id), message_ids=list(message_ids) if message_ids else None,
                         since=parse_since(since) if since is not None else None, summarizer=summarizer)


def _overall_status(plans: list[tuple[Plan, int]]) -> str:
    """One word for a message with several facts: the most consequential thing that happened."""
    actions = {p.action for p, _ in plans}
    for status in ("superseded", "created", "confirmed"):
        if status in actions:
            return status
    return "ignored"


def _describe(status: str, outcomes: list[FactOutcome]) -> str:
    if status == "ignored":
        return "Nothing to remember: the message was logged but holds no durable fact (small talk, a question or a request)."
    parts = []
    for o in outcomes:
        if o.action == "superseded":
            old = ", ".join(f"#{s.id}" for s in o.superseded)
            parts.append(f"Memory #{o.memory.id} created, superseding {old}.")
        elif o.action == "created":
            parts.append(f"Memory #{o.memory.id} created.")
        else:
            parts.append(f"Memory #{o.memory.id} confirmed (already known).")
    return " ".join(parts)


_REQUIRED_MEMORY_KEYS = ("id", "user_id", "text", "type", "subject", "attribute", "value", "importance", "status",
                         "created_at")


def _read_export(path: Path, engine: MemoryEngine) -> tuple[list[dict], list[dict]]:
    """Parse and validate every line before anything is written."""
    messages: list[dict] = []
    memories: list[dict] = []
    try:
        handle = open(path, encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    with handle:
        for n, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"line {n}: not JSON ({exc.msg})") from None
            if not isinstance(record, dict):
                raise ValueError(f"line {n}: expected a JSON object")
            kind = record.get("kind")
            try:
                if kind == "header":
                    if record.get("format") != "memengine-export":
                        raise ValueError("not a memengine export")
                elif kind == "message":
                    record["user_id"] = engine._user(record.get("user_id"))
                    record["text"] = textlib.validate_text(record.get("text"), max_chars=engine.settings.max_text_chars,
                                                           what="message text")
                    if not isinstance(record.get("id"), int):
                        raise ValueError("message id must be an integer")
                    messages.append(record)
                elif kind == "memory":
                    missing = [k for k in _REQUIRED_MEMORY_KEYS if record.get(k) is None]
                    if missing:
                        raise ValueError(f"missing {', '.join(missing)}")
                    record["user_id"] = engine._user(record["user_id"])
                    for field in ("text", "subject", "attribute", "value"):
                        record[field] = textlib.validate_text(record[field], max_chars=engine.settings.max_text_chars,
                                                              what=field)
                    if not isinstance(record["id"], int):
                        raise ValueError("memory id must be an integer")
                    if record["type"] not in MEMORY_TYPES:
                        raise ValueError(f"unknown type {record['type']!r}")
                    if record["status"] not in STATUSES:
                        raise ValueError(f"unknown status {record['status']!r}")
                    importance = record["importance"]
                    if isinstance(importance, bool) or not isinstance(importance, (int, float)) or not 0 <= importance <= 1:
                        raise ValueError("importance must be a number between 0 and 1")
                    memories.append(record)
                else:
                    raise ValueError(f"unknown kind {kind!r}")
            except ValueError as exc:
                raise ValueError(f"line {n}: {exc}") from None
    memories.sort(key=lambda m: m["id"])
    ids = {m["id"] for m in memories}
    for m in memories:
        for link in ("replaced_by", "supersedes"):
            if m.get(link) is not None and m[link] not in ids:
                m[link] = None  # a partial export (one user's lineage is always complete)
        if m.get("replaced_by") is not None and m["replaced_by"] <= m["id"]:
            raise ValueError(f"memory {m['id']}: replaced_by must point to a newer memory")
        if m["status"] == "superseded" and m.get("replaced_by") is None:
            raise ValueError(f"memory {m['id']}: superseded but replaced by nothing in this file")
    return messages, memories
