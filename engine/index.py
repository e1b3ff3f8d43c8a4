"""The ChromaDB vector index: one collection per user holding only that user's active memories.

Why this layout: recall then asks an unfiltered nearest-neighbour query of a small collection.
A shared collection filtered by `where={"user_id":..., "status": "active"}` costs about ten times as
much per query (environment.md) and would let a filter bug leak one user's memories to another.
Superseded and deleted memories leave the collection; their vectors stay in SQLite, which is what
the index is rebuilt from.
"""
from __future__ import annotations

import hashlib
import logging
import shutil
import sqlite3
import threading
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Sequence
from urllib.parse import urlparse

import numpy as np

log = logging.getLogger(__name__)

HNSW = {"space": "cosine", "ef_construction": 200, "max_neighbors": 32, "ef_search": 200}
MAX_BATCH = 5000  # Chroma refuses batches above 5461
QUERY_ATTEMPTS = 3  # a query that met another process's half-done write is asked again (see VectorIndex.query)


def _client(path: Path | None, url: str | None):
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False, allow_reset=True)
    if url:
        parsed = urlparse(url if "://" in url else f"http://{url}")
        return chromadb.HttpClient(
            host=parsed.hostname or "127.0.0.1", port=parsed.port or 8000, ssl=parsed.scheme == "https",
            settings=chroma_settings,
        )
    return chromadb.PersistentClient(path=str(path), settings=chroma_settings)


class VectorIndex:
    def __init__(self, *, path: Path | None, url: str | None, namespace: str):
        self.path = path
        self.url = url
        self.namespace = namespace  # the store's id: stores sharing a Chroma server never collide
        self._client = _client(path, url)
        self._collections: dict[str, object] = {}
        self._lock = threading.RLock()
        # Embedded Chroma reads and writes a collection in this process; they take turns (see query). A Chroma
        # server orders its own requests.
        self._io_lock = threading.RLock() if url is None else nullcontext()

    def collection_name(self, user_id: str) -> str:
        digest = hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:32]
        return f"mem-{self.namespace[:12]}-{digest}"

    def _collection(self, user_id: str, create: bool = True):
        with self._lock:
            col = self._collections.get(user_id)
            if col is not None:
                return col
            name = self.collection_name(user_id)
            if create:
                col = self._client.get_or_create_collection(
                    name, embedding_function=None, configuration={"hnsw": dict(HNSW)}, metadata={"user": "hashed"}
                )
            else:
                try:
                    col = self._client.get_collection(name, embedding_function=None)
                except Exception:  # chroma raises NotFoundError / ValueError depending on the backend
                    return None
            self._collections[user_id] = col
            return col

    def add(self, user_id: str, ids: Sequence[int], vectors: np.ndarray) -> None:
        """Add vectors. An id already present is left as it is (a memory's vector never changes but by
        reembed, which rebuilds), so replaying a change twice is harmless; add costs half an upsert."""
        if not len(ids):
            return
        col = self._collection(user_id)
        with self._io_lock:  # see query
            for start in range(0, len(ids), MAX_BATCH):
                chunk = ids[start:start + MAX_BATCH]
                col.add(ids=[str(i) for i in chunk],
                        embeddings=np.asarray(vectors[start:start + MAX_BATCH], dtype=np.float32))

    def remove(self, user_id: str, ids: Sequence[int]) -> None:
        if not len(ids):
            return
        col = self._collection(user_id, create=False)
        if col is not None:
            with self._io_lock:  # see query
                col.delete(ids=[str(i) for i in ids])

    def query(self, user_id: str, vector: np.ndarray, n: int) -> dict[int, float]:
        """Up to n nearest active memories of one user: {memory id: cosine similarity}."""
        col = self._collection(user_id, create=False)
        if col is None:
            return {}
        # Embedded Chroma can fail a query that meets a write of the same collection half done ("Error finding
        # id": the id list already changed, the HNSW graph not yet), so this process's reads and writes of the index
        # take turns (_io_lock); another process's write may still meet a query, which is asked again.
        for attempt in range(QUERY_ATTEMPTS):
            try:
                with self._io_lock:
                    result = col.query(query_embeddings=[np.asarray(vector, dtype=np.float32)], n_results=n,
                                       include=["distances"])
                break
            except Exception as exc:  # chromadb.errors.InternalError; its module differs between client kinds
                if "Error finding id" not in str(exc) or attempt == QUERY_ATTEMPTS - 1:
                    raise
                time.sleep(0.05 * (attempt + 1))
        ids = result["ids"][0] if result["ids"] else []
        distances = result["distances"][0] if result.get("distances") else []
        return {int(i): 1.0 - float(d) for i, d in zip(ids, distances)}

    def ids(self, user_id: str) -> set[int]:
        col = self._collection(user_id, create=False)
        if col is None:
            return set()
        with self._io_lock:
            return {int(i) for i in col.get(include=[])["ids"]}

    def count(self, user_id: str) -> int:
        col = self._collection(user_id, create=False)
        if col is None:
            return 0
        with self._io_lock:
            return col.count()

    def drop_user(self, user_id: str) -> None:
        with self._lock:
            self._collections.pop(user_id, None)
            try:
                self._client.delete_collection(self.collection_name(user_id))
            except Exception:  # already gone
                pass

    def forget_handle(self, user_id: str) -> None:
        """Drop a cached collection handle (server mode: another process may have dropped the collection)."""
        with self._lock:
            self._collections.pop(user_id, None)

    def drop_collection(self, name: str) -> None:
        try:
            self._client.delete_collection(name)
        except Exception:  # already gone (another worker dropped it)
            pass

    def user_collections(self) -> set[str]:
        prefix = f"mem-{self.namespace[:12]}-"
        names = [c if isinstance(c, str) else c.name for c in self._client.list_collections()]
        return {n for n in names if n.startswith(prefix)}

    # -- the index generation: a stamp the ledger holds too (see IndexSync.repair_on_open) ----------
    def _generation_name(self) -> str:
        return f"generation-{self.namespace[:12]}"

    def generation(self) -> str | None:
        try:
            col = self._client.get_collection(self._generation_name(), embedding_function=None)
        except Exception:  # chroma raises NotFoundError / ValueError depending on the backend
            return None
        return (col.metadata or {}).get("generation")

    def set_generation(self, generation: str) -> None:
        with self._lock:
            try:
                self._client.delete_collection(self._generation_name())
            except Exception:  # not there yet
                pass
            self._client.create_collection(self._generation_name(), embedding_function=None,
                                           metadata={"generation": generation})

    def compact(self) -> None:
        """Rewrite the embedded index's SQLite file without its free pages, where deleted vectors stay
        readable otherwise. A Chroma server manages its own files."""
        if self.path is None:
            return
        db = self.path / "chroma.sqlite3"
        if not db.exists():
            return
        with self._lock:
            conn = sqlite3.connect(str(db), timeout=30)
            try:
                conn.execute("PRAGMA secure_delete=ON")
                conn.execute("VACUUM")
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            finally:
                conn.close()

    def close(self) -> None:
        """Release Chroma's handles on the store (its in-process cache keeps them otherwise)."""
        with self._lock:
            self._collections.clear()
            close = getattr(self._client, "close", None)
            if close is not None:
                close()

    def reset(self) -> None:
        """Drop every collection of this store (before a rebuild)."""
        with self._lock:
            self._collections.clear()
            for name in self.user_collections():
                self._client.delete_collection(name)


def _evict_cached_system(path: Path) -> None:
    """Chroma caches one client system per directory for the life of the process; a system whose
    files were unreadable stays cached half-built and would poison the fresh index. Drop that one
    entry (not the whole cache: other stores in this process keep theirs)."""
    from chromadb.api.shared_system_client import SharedSystemClient

    with SharedSystemClient._refcount_lock:
        SharedSystemClient._identifier_to_system.pop(str(path), None)
        SharedSystemClient._identifier_to_refcount.pop(str(path), None)


def open_index(*, path: Path | None, url: str | None, namespace: str) -> tuple[VectorIndex, str | None]:
    """Open the index; if an embedded one is unreadable (say, a crash mid-write), start it afresh.

    Returns the index and a note of what was repaired, if anything. SQLite holds every vector,
    so a fresh index is rebuilt without re-embedding.
    """
    try:
        index = VectorIndex(path=path, url=url, namespace=namespace)
        index.user_collections()
        return index, None
    except Exception as exc:  # corrupted embedded files
        if url or path is None:
            raise
        log.warning("vector index at %s unreadable (%s); rebuilding it from SQLite", path, exc)
        _evict_cached_system(path)
        shutil.rmtree(path, ignore_errors=True)
        return VectorIndex(path=path, url=None, namespace=namespace), f"index unreadable ({exc}); rebuilt"
