"""BM25 over one user's active memories, kept in memory and updated incrementally.

Each user has an inverted index (term -> {memory id: term frequency}), so a query touches only the
postings of its own terms, never every document. Statistics (document frequency, average length)
are per user: one user's vocabulary never shapes another user's scores.

Normalization: a raw BM25 score is divided by the score of a document of average length that
contains every query term once (the sum of the query terms' idf), and capped at 1. The result
means "how much of the query's evidence this memory carries"; unlike max-normalization, a memory
that shares one weak word with the query does not get 1.0 just because nothing else matched.
"""
from __future__ import annotations

import heapq
import math
import threading
from collections import Counter
from typing import Callable, Iterable

K1 = 1.2
B = 0.75


class _UserIndex:
    __slots__ = ("postings", "lengths", "terms", "total_length")

    def __init__(self) -> None:
        self.postings: dict[str, dict[int, int]] = {}
        self.lengths: dict[int, int] = {}
        self.terms: dict[int, tuple[str, ...]] = {}  # so a removal touches only its own postings
        self.total_length = 0

    def add(self, doc_id: int, tokens: list[str]) -> None:
        if doc_id in self.lengths:
            self.remove(doc_id)
        counts = Counter(tokens)
        for term, tf in counts.items():
            self.postings.setdefault(term, {})[doc_id] = tf
        self.lengths[doc_id] = len(tokens)
        self.terms[doc_id] = tuple(counts)
        self.total_length += len(tokens)

    def remove(self, doc_id: int) -> None:
        length = self.lengths.pop(doc_id, None)
        if length is None:
            return
        self.total_length -= length
        for term in self.terms.pop(doc_id, ()):
            docs = self.postings.get(term)
            if docs is not None:
                docs.pop(doc_id, None)
                if not docs:
                    del self.postings[term]

    def idf(self, term: str) -> float:
        n = len(self.lengths)
        df = len(self.postings.get(term, ()))
        # BM25+ style idf that stays positive even for terms in most documents.
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def score(self, query_terms: list[str], doc_tokens: dict[int, list[str]] | None = None,
              limit: int | None = None) -> dict[int, float]:
        """Normalized scores of the documents that share at least one term with the query (the best `limit`)."""
        terms = list(dict.fromkeys(query_terms))
        if not terms or not self.lengths and not doc_tokens:
            return {}
        avg = (self.total_length / len(self.lengths)) if self.lengths else 1.0
        idfs = {t: self.idf(t) for t in terms}
        ceiling = sum(idfs.values())
        if ceiling <= 0:
            return {}
        raw: dict[int, float] = {}
        if doc_tokens is None:
            lengths, scale = self.lengths, B / max(avg, 1e-9)
            for term in terms:
                weight = idfs[term] * (K1 + 1)
                for doc_id, tf in self.postings.get(term, {}).items():
                    raw[doc_id] = raw.get(doc_id, 0.0) + weight * tf / (tf + K1 * (1 - B + scale * lengths[doc_id]))
        else:  # score documents outside the index (superseded memories) with this index's statistics
            for doc_id, tokens in doc_tokens.items():
                counts = Counter(tokens)
                norm = K1 * (1 - B + B * len(tokens) / max(avg, 1e-9))
                s = sum(idfs[t] * counts[t] * (K1 + 1) / (counts[t] + norm) for t in terms if counts.get(t))
                if s > 0:
                    raw[doc_id] = s
        # a common word scores thousands of documents: the best are taken (as capped) before any is normalized
        best = (heapq.nlargest(limit, raw.items(), key=lambda kv: min(kv[1], ceiling)) if limit is not None
                else raw.items())
        return {doc_id: min(1.0, s / ceiling) for doc_id, s in best}


class LexicalIndex:
    """Per-user BM25 indexes, each built on first use from a loader and then kept up to date.

    With `version_of` (server mode: other processes change the ledger), each user's index remembers
    the user's change counter it was built at and is rebuilt when the stored counter differs, read
    before every use: a worker never scores with an active set another worker has changed.
    """

    def __init__(self, loader: Callable[[str], Iterable[tuple[int, list[str]]]],
                 version_of: Callable[[str], int] | None = None):
        self._loader = loader
        self._version_of = version_of
        self._users: dict[str, _UserIndex] = {}
        self._versions: dict[str, int] = {}
        self._lock = threading.RLock()

    def _index(self, user_id: str) -> _UserIndex:
        index = self._users.get(user_id)
        if self._version_of is not None:
            # Read the counter before the texts: a write committed in between leaves a newer
            # counter behind, so the next use rebuilds again rather than keeping a stale index.
            version = self._version_of(user_id)
            if index is not None and self._versions.get(user_id) != version:
                index = None
            self._versions[user_id] = version
        if index is None:
            index = _UserIndex()
            for doc_id, tokens in self._loader(user_id):
                index.add(doc_id, tokens)
            self._users[user_id] = index
        return index

    def add(self, user_id: str, doc_id: int, tokens: list[str]) -> None:
        with self._lock:
            if user_id in self._users:  # not loaded yet: the loader will include it
                self._users[user_id].add(doc_id, tokens)

    def remove(self, user_id: str, doc_id: int) -> None:
        with self._lock:
            if user_id in self._users:
                self._users[user_id].remove(doc_id)

    def drop_user(self, user_id: str) -> None:
        with self._lock:
            self._users.pop(user_id, None)
            self._versions.pop(user_id, None)

    def reset(self) -> None:
        with self._lock:
            self._users.clear()
            self._versions.clear()

    def search(self, user_id: str, query_terms: list[str], limit: int) -> dict[int, float]:
        with self._lock:
            return self._index(user_id).score(query_terms, limit=limit)

    def has_term(self, user_id: str, term: str) -> bool:
        """Does any of the user's indexed documents carry the term?"""
        with self._lock:
            return bool(self._index(user_id).postings.get(term))

    def score_documents(self, user_id: str, query_terms: list[str], docs: dict[int, list[str]]) -> dict[int, float]:
        with self._lock:
            return self._index(user_id).score(query_terms, docs)

    def doc_ids(self, user_id: str) -> set[int]:
        with self._lock:
            return set(self._index(user_id).lengths)
