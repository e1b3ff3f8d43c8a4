"""MemoryEngine: the facade. It validates arguments (arguments.py), owns the lifecycle and delegates the
work to ingest.py, recall.py, removal.py, sync.py and transfer.py, with every SQL statement in storage/."""
from __future__ import annotations

import os
import threading
import uuid
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from . import arguments, heap, scoring, transfer
from . import extraction as extractlib
from . import text as textlib
from .context import Context, Profile, SessionSummary, build_context, build_profile, parse_since, summarize
from .lock import DirectoryLock
from .embed import Embedder, load_embedder
from .kinds import Kinds, WordNetKinds
from .lexicon import WordNetLexicon
from .index import open_index
from .ingest import Ingest
from .limits import INGEST_BATCH, STATUSES
from .model import EngineError, IngestResult, Memory, MessageIn, ModelMismatchError, NotFoundError, RecallResult
from .recall import Recall, SpeakerCache
from .removal import Removal
from .settings import Settings
from .storage import DB_NAME, Ledger, open_ledger
from .sync import IndexSync
from .vectors import MemoryVectors



class MemoryEngine:
    """A user-scoped memory store: ingest messages, recall facts, keep lineage.

    Thread-safe. Embedded (the default): one engine per data directory at a time; a second one gets
    StoreInUseError. Server mode (settings.database_url and chroma_url set): any number of engines in
    any number of processes share the store (server_sync.py).
    `extractor` turns a message into candidate facts (default: the rule extractor).
    `kinds` says what a word names a kind of, for questions asked by kind; which two things are of one kind, for
    updates to another of them; whether a thing is of a kind an end names; and which two words name one thing, for
    updates that call it by another word (default: WordNet's, when settings.kind_terms, kind_update_floor,
    ended_kind_floor or synonym_update_floor is on).
    """

    def __init__(self, settings: Settings | None = None, *, embedder: Embedder | None = None,
                 extractor: extractlib.Extractor | None = None, kinds: Kinds | None = None,
                 migrate_model: bool = False):
        self.settings = settings if settings is not None else Settings()
        if extractor is not None and not callable(getattr(extractor, "extract", None)):
            raise ValueError("extractor must have an extract(text, *, speaker=None) method")
        s = self.settings
        resolve_kinds = (s.kind_update_floor is not None or s.ended_kind_floor is not None
                         or s.synonym_update_floor is not None)
        if kinds is None and (s.kind_terms or resolve_kinds):
            kinds = WordNetKinds(self.settings.wordnet_dir)  # a wrong wordnet_dir fails before anything is opened
        if extractor is None:
            lexicon = WordNetLexicon(self.settings.wordnet_dir) if s.name_case else None
            extractor = extractlib.RuleExtractor(lexicon=lexicon, join_pointing_back=s.join_pointing_back)
        self.extractor = extractor
        self.data_dir = Path(self.settings.data_dir).expanduser().resolve()
        # Server mode: no directory and no directory lock; PostgreSQL's per-user locks order the writers.
        self.server_mode = bool(self.settings.database_url)
        if self.server_mode and not self.settings.chroma_url:
            raise ValueError("server mode (MEMENGINE_DATABASE_URL) needs MEMENGINE_CHROMA_URL too: an embedded "
                             "Chroma directory cannot be shared by processes")
        self._dir_lock: DirectoryLock | None = None
        if not self.server_mode:
            self._private_store_dir()
            self._dir_lock = DirectoryLock(self.data_dir / "engine.lock")
            if self.settings.scrub_freed_memory:  # before Chroma allocates anything it may write to disk
                heap.scrub_freed_memory()
        self._write_lock = threading.RLock()
        self._closed = False
        self.ledger: Ledger | None = None
        self.index = None
        try:
            if self._dir_lock is not None:
                os.chmod(self._dir_lock.path, 0o600)
            s = self.settings
            self.ledger = open_ledger(database_url=s.database_url, data_dir=self.data_dir,
                                      busy_timeout_s=s.busy_timeout_s, pool_size=s.database_pool_size)
            self.embedder = embedder if embedder is not None else load_embedder(s)
            if embedder is not None and embedder.model_name != s.model_name:
                raise ValueError(
                    f"the embedder given ({embedder.model_name}) is not the configured model ({s.model_name})"
                )
            model_changed = self._check_model(migrate_model)
            # First writer wins: workers opening a fresh shared store at once agree on one id.
            self.store_id = self.ledger.setdefault_meta("store_id", uuid.uuid4().hex)
            chroma_path = None if s.chroma_url else self.data_dir / "chroma"
            if chroma_path is not None:
                chroma_path.mkdir(mode=0o700, exist_ok=True)
                os.chmod(chroma_path, 0o700)
            self.index, index_note = open_index(path=chroma_path, url=s.chroma_url, namespace=self.store_id)
            if self.server_mode:
                from .server_sync import LedgerSpeakers, SharedIndexSync

                self.sync = SharedIndexSync(self.ledger, self.index)
                speakers = LedgerSpeakers(self.ledger)
            else:
                self.sync = IndexSync(self.ledger, self.index, flush_at=s.vector_flush_at)
                speakers = SpeakerCache(self.ledger)
            self.vectors = MemoryVectors(self.embedder, doc_expansion=s.doc_expansion,
                                         slot_guess_floor=s.slot_guess_floor)
            self._speakers = speakers
            self._ingest = Ingest(ledger=self.ledger, sync=self.sync, vectors=self.vectors, extractor=self.extractor,
                                  settings=s, write_lock=self._write_lock, speakers=speakers,
                                  kinds=kinds if resolve_kinds else None)
            self._recall = Recall(ledger=self.ledger, sync=self.sync, embedder=self.embedder, settings=s,
                                  speakers=speakers, kinds=kinds if s.kind_terms else None)
            self._removal = Removal(ledger=self.ledger, sync=self.sync, index=self.index, speakers=speakers)
            self.last_repair = self.sync.repair_on_open(index_rebuilt=index_note is not None)
            if index_note:
                self.last_repair["note"] = index_note
            if model_changed:
                self.reembed()
        except BaseException:
            if self.index is not None:
                self.index.close()
            if self.ledger is not None:
                self.ledger.close()
            if self._dir_lock is not None:
                self._dir_lock.release()
            raise

    def _private_store_dir(self) -> None:
        """The store holds people's messages: its directory is the owner's only (0700). A directory that
        exists already is tightened only when it is a store, never some shared folder it was pointed at."""
        existed = self.data_dir.exists()
        self.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not existed or (self.data_dir / DB_NAME).exists():
            os.chmod(self.data_dir, 0o700)

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Write what is queued and mark the shutdown clean. The store is released even when that last
        write fails (a full disk): the next open then repairs as after a crash."""
        if self._closed:
            return
        with self._write_lock:
            self._closed = True
            try:
                self.sync.flush()
                self.sync.forget_applied()
                if not self.server_mode:  # "clean" means nothing of one store: other workers are still running
                    self.ledger.set_meta("clean_shutdown", "1")
            finally:
                try:
                    self.ledger.close()
                    self.index.close()
                finally:
                    if self._dir_lock is not None:
                        self._dir_lock.release()

    def __enter__(self) -> "MemoryEngine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_open(self) -> None:
        if self._closed:
            raise EngineError("this engine is closed")

    def _check_model(self, migrate: bool) -> bool:
        current = self.embedder.model_id
        stored = self.ledger.setdefault_meta("embedding_model", current)  # a new store takes this model
        if stored == current:
            return False
        if migrate:
            return True
        raise ModelMismatchError(
            f"this store was built with the embedding model {stored!r}, but {current!r} is configured. "
            f"Vectors from different models do not mix. Either set MEMENGINE_MODEL_NAME back to "
            f"{stored.rsplit(':', 1)[0]!r}, or migrate the store once with `memengine reembed "
            f"--data-dir {self.data_dir}` (MemoryEngine(settings, migrate_model=True))."
        )

    # ------------------------------------------------------------------ the indexes
    def verify_index(self) -> dict[str, Any]:
        """Compare the vector and lexical indexes with SQLite, exactly (after writing queued vectors)."""
        self._check_open()
        return self.sync.verify()

    def rebuild_index(self) -> dict[str, Any]:
        """Drop the vector and lexical indexes and rebuild both from SQLite (no re-embedding)."""
        self._check_open()
        with self._write_lock:
            return self.sync.rebuild()

    def reembed(self, batch_size: int = 256) -> int:
        """Recompute every stored vector with the configured model, then rebuild the index."""
        self._check_open()
        with self._write_lock:
            rows = self.ledger.embedding_inputs()
            for start in range(0, len(rows), batch_size):
                chunk = rows[start:start + batch_size]
                vectors = self.vectors.embed_memories([row[1:] for row in chunk])
                with self.ledger.transaction() as conn:
                    self.ledger.set_embeddings(conn, [(row[0], v) for row, v in zip(chunk, vectors)])
            self.ledger.set_meta("embedding_model", self.embedder.model_id)
            self.sync.rebuild()
            return len(rows)

    # ------------------------------------------------------------------ validation
    def _user(self, user_id: object) -> str:
        return arguments.user(user_id, self.settings)

    # ------------------------------------------------------------------ ingest
    def ingest(self, text: str, user_id: str = "default", source_id: str | None = None,
               timestamp: str | None = None, speaker: str | None = None,
               in_reply_to: str | None = None) -> IngestResult:
        """Log a message and keep the durable facts in it. `in_reply_to`: what the message answers when
        that was not ingested, e.g. the chatbot's own last turn ("Where are you based?" before "Berlin")."""
        self._check_open()
        message = arguments.message(text, user_id, source_id, timestamp, speaker, self.settings, in_reply_to)
        return self._ingest.messages([message])[0]

    def ingest_many(self, messages: Iterable[str | Mapping[str, Any]], user_id: str = "default") -> list[IngestResult]:
        """Ingest several messages with one embedding batch. Every message is validated before any is stored."""
        self._check_open()
        items = arguments.messages(messages, user_id, self.settings)
        results: list[IngestResult] = []
        for start in range(0, len(items), INGEST_BATCH):
            results.extend(self._ingest.messages(items[start:start + INGEST_BATCH]))
        return results

    def remember(self, subject: str, attribute: str, value: str, type: str = "fact", user_id: str = "default",
                 importance: float | None = None) -> IngestResult:
        """Store a structured memory directly; the same conflict rules apply as for messages."""
        self._check_open()
        user_id = self._user(user_id)
        cand = arguments.structured_memory(subject, attribute, value, type, importance)
        vectors = self.vectors.embed_memories([(cand.text, None, cand.attribute, cand.type)])
        return self._ingest.store([(MessageIn(cand.clause, user_id), [cand], vectors)])[0]

    # ------------------------------------------------------------------ recall
    def recall(self, query: str, user_id: str = "default", top_k: int | None = None,
               threshold: float | None = None, alpha: float | None = None, include_history: bool | None = None,
               importance_weight: float | None = None) -> RecallResult:
        """The user's memories relevant to the query, best first; [] when nothing clears the threshold."""
        self._check_open()
        query = textlib.validate_text(query, max_chars=self.settings.max_text_chars, what="query")
        return self._recall(query, self._user(user_id), top_k, threshold, alpha, include_history, importance_weight)

    def rescore(self, result: RecallResult, threshold: float | None = None, alpha: float | None = None,
                importance_weight: float | None = None, top_k: int | None = None) -> RecallResult:
        """Apply other knobs to a recall's candidates without embedding the query again."""
        return scoring.rescore(result, threshold=threshold, alpha=alpha, importance_weight=importance_weight,
                               top_k=top_k, certain_margin=self.settings.certain_margin)

    # ------------------------------------------------------------------ reading
    def _owned(self, memory_id: object, user_id: str | None) -> Memory:
        memory = self.ledger.get(arguments.record_id(memory_id, "memory"))
        if memory is None or (user_id is not None and memory.user_id != self._user(user_id)):
            raise NotFoundError(f"no memory #{memory_id}")
        return memory

    def get(self, memory_id: int, user_id: str | None = None) -> Memory:
        self._check_open()
        return self._owned(memory_id, user_id)

    def list_memories(self, user_id: str | None = None, status: str = "active", limit: int = 100,
                      offset: int = 0) -> list[Memory]:
        """A page of memories, newest first."""
        self._check_open()
        arguments.check_status(status)
        limit, offset = arguments.page(limit, offset)
        return self.ledger.list(self._user(user_id) if user_id is not None else None, status, limit, offset)

    def count_memories(self, user_id: str | None = None, status: str = "active") -> int:
        self._check_open()
        arguments.check_status(status)
        return self.ledger.count(self._user(user_id) if user_id is not None else None, status)

    def messages(self, user_id: str | None = None, limit: int = 100, offset: int = 0) -> list[dict[str, Any]]:
        """A page of logged messages, newest first."""
        self._check_open()
        limit, offset = arguments.page(limit, offset)
        return self.ledger.messages(self._user(user_id) if user_id is not None else None, limit, offset)

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

    # ------------------------------------------------------------------ deleting (engine/removal.py)
    def delete(self, memory_id: int, user_id: str | None = None) -> Memory:
        """Soft delete: the memory stays in the ledger as 'deleted' and leaves recall."""
        self._check_open()
        with self._write_lock:
            return self._removal.delete(self._owned(memory_id, user_id))

    def forget_user(self, user_id: str) -> dict[str, int]:
        """Hard-delete every memory and message of one user, and nobody else's."""
        self._check_open()
        user_id = self._user(user_id)
        with self._write_lock:
            return self._removal.forget_user(user_id)

    def erase(self, memory_id: int, user_id: str | None = None) -> dict[str, int]:
        """Hard delete of one memory: its row, its vector and its lineage links go. Its source message
        goes too when no other memory was derived from it (else use erase_message). A memory it had
        replaced is left deleted (restore brings it back), never current again on its own."""
        self._check_open()
        with self._write_lock:
            return self._removal.erase(self._owned(memory_id, user_id))

    def erase_message(self, message_id: int, user_id: str | None = None) -> dict[str, int]:
        """Hard delete of one source message and of every memory derived from it (see erase)."""
        self._check_open()
        message_id = arguments.record_id(message_id, "message")
        owner = self._user(user_id) if user_id is not None else None
        with self._write_lock:
            return self._removal.erase_message(message_id, owner)

    def restore(self, memory_id: int, user_id: str | None = None) -> Memory:
        """Undo a soft delete: the memory is active again (or superseded, when it had been replaced
        before it was deleted). Refused with ValueError when its slot now holds a newer value it would
        contradict, or when it is not deleted."""
        self._check_open()
        with self._write_lock:
            return self._removal.restore(self._owned(memory_id, user_id))

    # ------------------------------------------------------------------ export / import
    def export_records(self, user_id: str | None = None) -> Iterator[dict[str, Any]]:
        """A header, then messages and memories (every status, lineage included), oldest first."""
        self._check_open()
        user = self._user(user_id) if user_id is not None else None
        return transfer.export_records(self.ledger, self.embedder.model_id, user)

    def import_records(self, records: Iterable[Mapping[str, Any]]) -> int:
        """Load exported records. All or nothing: a malformed record or a conflict leaves the store
        untouched. Returns the number of memories imported."""
        self._check_open()
        return self._import((f"record {n}", r) for n, r in enumerate(records, start=1))

    def export_jsonl(self, path: str | os.PathLike, user_id: str | None = None) -> int:
        """Write export_records() as JSON lines. Returns lines written."""
        return transfer.write_jsonl(path, self.export_records(user_id))

    def import_jsonl(self, path: str | os.PathLike) -> int:
        """Load a JSON-lines export (see import_records)."""
        self._check_open()
        return self._import(transfer.read_jsonl(path))

    def _import(self, labelled: Iterable[tuple[str, object]]) -> int:
        messages, memories = transfer.validate_records(labelled, check_user=self._user,
                                                       max_text_chars=self.settings.max_text_chars)
        speakers = {m["id"]: m["speaker"] for m in messages}
        vectors = self.vectors.embed_memories([(m["text"], speakers.get(m["message_id"]), m["attribute"], m["type"])
                                               for m in memories])
        with self._write_lock:
            try:
                # Every user of the file is locked (in sorted order) for the one all-or-nothing transaction.
                users = {m["user_id"] for m in messages} | {m["user_id"] for m in memories}
                imported = self.sync.write(lambda conn: transfer.import_records(self.ledger, messages, memories,
                                                                                vectors, conn), users=users)
            except self.ledger.IntegrityError as exc:
                raise ValueError(transfer.conflict_message(exc)) from None
            for user_id in {m["user_id"] for m in messages}:
                self._speakers.forget(user_id)  # re-read with the imported speaker names on next use
            return imported

    # ------------------------------------------------------------------ stats
    def stats(self) -> dict[str, Any]:
        self._check_open()
        counts = self.ledger.status_counts()
        db_path = self.data_dir / DB_NAME
        size = 0 if self.server_mode else sum(p.stat().st_size for p in self.data_dir.rglob("*") if p.is_file())
        return {
            "data_dir": str(self.data_dir),
            "mode": "server" if self.server_mode else "embedded",
            "store_id": self.store_id,
            "model": self.embedder.model_id,
            "index": self.settings.chroma_url or str(self.data_dir / "chroma"),
            "schema_version": self.ledger.schema_version,
            "users": len(self.ledger.users()),
            "memories": {status: counts.get(status, 0) for status in STATUSES},
            "total_memories": sum(counts.values()),
            "messages": self.ledger.message_count(),
            "db_bytes": db_path.stat().st_size if not self.server_mode and db_path.exists() else 0,
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
        limit = arguments.profile_limit(limit)
        return build_profile(self, self._user(user_id), limit=limit)

    def summarize_session(self, user_id: str = "default", message_ids: list[int] | None = None, *,
                          since: object = None, summarizer: object = None) -> SessionSummary:
        """One `event` memory summarising a session's messages (by id, or since a moment), cited to them."""
        self._check_open()
        message_ids = arguments.session_message_ids(message_ids, since)
        return summarize(self, self._user(user_id), message_ids=message_ids,
                         since=parse_since(since) if since is not None else None, summarizer=summarizer)
