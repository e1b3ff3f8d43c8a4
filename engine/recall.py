"""The recall pipeline: query rewriting, dense ∪ lexical (∪ history) candidates, the group-chat
speaker filter, scoring (scoring.py) and the result with its citations."""
from __future__ import annotations

import re
import threading
import time

import numpy as np

from . import scoring
from . import text as textlib
from .embed import Embedder
from .limits import THRESHOLD_MAX, THRESHOLD_MIN, TOP_K_MAX, TOP_K_MIN
from .model import Hit, RecallResult
from .settings import Settings
from .storage import Ledger
from .sync import IndexSync, lexical_document


class SpeakerCache:
    """Per user: the speakers their messages named (read once from the ledger, then kept current)."""

    def __init__(self, ledger: Ledger):
        self.ledger = ledger
        self._lock = threading.Lock()
        self._known: dict[str, set[str]] = {}

    def get(self, user_id: str) -> set[str]:
        with self._lock:
            known = self._known.get(user_id)
        if known is None:
            known = self.ledger.speakers(user_id)
            with self._lock:
                self._known[user_id] = known
        return known

    def add(self, user_id: str, speaker: str) -> None:
        with self._lock:
            if user_id in self._known:  # an unread user is read whole on first use
                self._known[user_id].add(speaker)

    def forget(self, user_id: str) -> None:
        with self._lock:
            self._known.pop(user_id, None)


class Recall:
    def __init__(self, *, ledger: Ledger, sync: IndexSync, embedder: Embedder, settings: Settings,
                 speakers: SpeakerCache):
        self.ledger = ledger
        self.sync = sync
        self.embedder = embedder
        self.settings = settings
        self.speakers = speakers

    def __call__(self, query: str, user_id: str, top_k: int | None, threshold: float | None, alpha: float | None,
                 include_history: bool | None, importance_weight: float | None) -> RecallResult:
        started = time.perf_counter()
        s = self.settings
        top_k = s.top_k if top_k is None else int(top_k)
        threshold = s.threshold if threshold is None else float(threshold)
        alpha = s.alpha if alpha is None else float(alpha)
        importance_weight = s.importance_weight if importance_weight is None else float(importance_weight)
        if not TOP_K_MIN <= top_k <= TOP_K_MAX:
            raise ValueError(f"top_k must be between {TOP_K_MIN} and {TOP_K_MAX}, got {top_k}")
        if not THRESHOLD_MIN <= threshold <= THRESHOLD_MAX:
            raise ValueError(f"threshold must be between {THRESHOLD_MIN:g} and {THRESHOLD_MAX:g}, got {threshold}")
        history_cue = textlib.wants_history(query)
        history = history_cue if include_history is None else bool(include_history)
        timings: dict[str, float] = {}

        t = time.perf_counter()
        # The embedding sees the question about "the user"; BM25 keeps the names, which is how it tells
        # two people's memories apart when their content is alike.
        query_text = textlib.as_third_person_question(self._alias_names(user_id, query))
        lexical_text = textlib.as_third_person_question(query)
        # The statement the question asks for is embedded in the same encode call as the question.
        # (Only the calibrated score uses it: the raw blend would pay for an encode it ignores.)
        statement_text = textlib.as_statement(query_text) if s.statement_query and s.calibrated else None
        if statement_text:
            qvec, svec = self.embedder.encode_queries([query_text, statement_text])
        else:
            qvec = svec = self.embedder.encode_query(query_text)
        timings["embed"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        n = max(s.candidate_k, top_k * 2)
        dense = self.sync.nearest(user_id, qvec, n)
        timings["dense"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        terms = textlib.tokenize(lexical_text)
        lexical = self.sync.lexical.search(user_id, terms, n)
        timings["lexical"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        ids = set(dense) | set(lexical)
        memories = self.ledger.get_many(sorted(ids))
        candidates: list[Hit] = []
        # The statement's cosine needs every candidate's vector; without a statement only the lexical-only
        # candidates need theirs.
        wanted = [i for i in ids if i in memories and (svec is not qvec or i not in dense)]
        vectors = self.ledger.embeddings(wanted) if wanted else {}
        for memory_id, memory in memories.items():
            if memory.status != "active" or memory.user_id != user_id:
                continue  # an index a moment behind the ledger must never leak a stale or foreign memory
            sem = dense.get(memory_id)
            if sem is None:
                sem = float(vectors[memory_id] @ qvec)
            stmt = float(vectors[memory_id] @ svec) if svec is not qvec else sem
            candidates.append(Hit(memory, 0.0, round(sem, 6), round(lexical.get(memory_id, 0.0), 6), memory.importance,
                                  statement=round(stmt, 6), coverage=self._coverage(terms, memory)))
        if history:
            candidates.extend(self._historical_candidates(user_id, qvec, svec, terms, n))
        candidates = self._about_named_people(user_id, query, candidates)
        timings["score"] = (time.perf_counter() - t) * 1000
        calibration = s.calibration()
        hits, misses, ranked = scoring.rank(candidates, alpha=alpha, importance_weight=importance_weight,
                                            threshold=threshold, top_k=top_k, current_first=not history_cue,
                                            companion_margin=s.companion_margin, calibration=calibration,
                                            evidence_pooling=s.evidence_pooling)
        timings["total"] = (time.perf_counter() - started) * 1000
        return RecallResult(
            query=query, user_id=user_id, hits=hits, confidence=scoring.confidence(hits, threshold, s.certain_margin),
            threshold=threshold, alpha=alpha, importance_weight=importance_weight, top_k=top_k,
            include_history=history, history_cue=history_cue, companion_margin=s.companion_margin,
            below_threshold=misses, timings_ms={k: round(v, 3) for k, v in timings.items()},
            candidates=ranked, calibration=calibration, evidence_pooling=s.evidence_pooling,
        )

    @staticmethod
    def _coverage(terms: list[str], memory) -> float:
        return round(textlib.content_coverage(terms, lexical_document(memory.text, memory.attribute)), 6)

    def _alias_names(self, user_id: str, query: str) -> str:
        """Memories are embedded with their person as "User" (see extract.embedding_text); a question
        that names that person ("What does Sam do?", "Where did Maya go?") is asked about "the user"
        too, so the name, which every memory of theirs shares, does not decide the match."""
        names = self.ledger.active_names(user_id) | self.speakers.get(user_id)
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
        speakers = self.speakers.get(user_id)
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

    def _historical_candidates(self, user_id: str, qvec: np.ndarray, svec: np.ndarray, terms: list[str],
                               n: int) -> list[Hit]:
        rows = self.ledger.superseded_for_user(user_id, self.settings.history_pool)
        if not rows:
            return []
        sims = {mid: float(vector @ qvec) for mid, vector in rows}
        statement_sims = {mid: float(vector @ svec) for mid, vector in rows}
        best = sorted(sims, key=sims.get, reverse=True)[:n]
        memories = self.ledger.get_many(best)
        docs = {mid: lexical_document(m.text, m.attribute) for mid, m in memories.items()}
        lexical = self.sync.lexical.score_documents(user_id, terms, docs)
        replacements = self.ledger.get_many([m.replaced_by for m in memories.values() if m.replaced_by])
        out = []
        for mid in best:
            m = memories[mid]
            out.append(Hit(m, 0.0, round(sims[mid], 6), round(lexical.get(mid, 0.0), 6), m.importance,
                           historical=True, replaced_by_memory=replacements.get(m.replaced_by),
                           statement=round(statement_sims[mid], 6), coverage=self._coverage(terms, m)))
        return out
