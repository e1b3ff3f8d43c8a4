"""Recall scoring: pure functions, so the cockpit can re-score without touching the model or store.

Calibrated (the default, see calibration.py):
score = P(answers | relevance, coverage, lexical) + importance_weight * (importance - 0.5)
with relevance = max(r, alpha * r + (1 - alpha) * S_bm25), r = max(S_sem, S_statement).
Uncalibrated (calibration=None, the raw blend the model is fitted over):
score = max(S_sem, alpha * S_sem + (1 - alpha) * S_bm25) + importance_weight * (importance - 0.5)

The max() means lexical evidence can only lift a memory, never drag a strong semantic match down;
the importance term breaks near-ties toward deadlines and hard constraints and is symmetric around
0.5, so an average memory gets no boost at all.
"""
from __future__ import annotations

import math
from dataclasses import replace

from .calibration import Calibration, relevance_feature
from .model import Hit, RecallResult

BELOW_THRESHOLD_SHOWN = 10


def blend(semantic: float, lexical: float, importance: float, *, alpha: float, importance_weight: float) -> float:
    for name, value in (("alpha", alpha), ("importance_weight", importance_weight)):
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{name} must be between 0 and 1, got {value}")
    dense_first = max(semantic, alpha * semantic + (1.0 - alpha) * lexical)
    return dense_first + importance_weight * (importance - 0.5)


def hit_score(hit: Hit, *, alpha: float, importance_weight: float, calibration: Calibration | None) -> float:
    if calibration is None:
        return blend(hit.semantic, hit.lexical, hit.memory.importance, alpha=alpha,
                     importance_weight=importance_weight)
    if not 0.0 <= importance_weight <= 1.0:
        raise ValueError(f"importance_weight must be between 0 and 1, got {importance_weight}")
    relevance = relevance_feature(hit.semantic, hit.statement, hit.lexical, alpha)
    return (calibration.probability(relevance, hit.coverage, hit.lexical)
            + importance_weight * (hit.memory.importance - 0.5))


def pooled(scores: list[float]) -> float:
    """The chance that at least one of several independent pieces of evidence answers: 1 - prod(1 - p)."""
    return 1.0 - math.prod(1.0 - min(max(p, 0.0), 1.0) for p in scores)


def confidence(hits: list[Hit], threshold: float, certain_margin: float) -> str:
    """certain: the best hit clears the threshold by the margin; vague: it just clears it; unknown: no hit."""
    if not hits:
        return "unknown"
    return "certain" if hits[0].score >= threshold + certain_margin else "vague"


def rank(candidates: list[Hit], *, alpha: float, importance_weight: float, threshold: float,
         top_k: int, current_first: bool = False, companion_margin: float = 0.0,
         calibration: Calibration | None = None, evidence_pooling: bool = False,
         lexical_support: float | None = None) -> tuple[list[Hit], list[Hit], list[Hit]]:
    """Score every candidate; return (hits, best misses, all candidates ranked).

    current_first: superseded memories rank after every current one (history was asked for by a
    switch, not by the question, so the question is still about now).
    companion_margin: once one memory clears the threshold the question is known to be answerable,
    and memories up to this much below the threshold come along ("what's on my schedule?" has
    several answers, and the second-best often scores a little lower). A question nothing answers
    still gets [].
    evidence_pooling (calibrated scores only): when no memory clears the threshold alone but two or more
    are within the companion margin of it, the question counts as answerable when their pooled
    probability (pooled()) clears it ("what do I do on weekends?" answered by three half-sure hobbies).
    lexical_support: a memory within the companion margin below the threshold that also carries at least this
    share of the question's word evidence makes the question answerable ("what book did Dr. Ibrahim recommend?"
    against "User's mentor, Dr. Ibrahim, recommended ...", cosine 0.47); None: only the score decides.
    """
    if top_k < 1:
        raise ValueError(f"top_k must be at least 1, got {top_k}")
    scored = [
        replace(c, score=round(hit_score(c, alpha=alpha, importance_weight=importance_weight,
                                         calibration=calibration), 6))
        for c in candidates
    ]
    # Ties (rare) go to the newer memory: the more recent statement is the better guess.
    scored.sort(key=lambda h: (not (current_first and h.historical), h.score, h.memory.id), reverse=True)
    answerable = any(h.score >= threshold for h in scored)
    if not answerable and lexical_support is not None:
        answerable = any(h.score >= threshold - companion_margin and h.lexical >= lexical_support
                         for h in scored[:top_k])
    if not answerable and evidence_pooling and calibration is not None:
        near = [h.score for h in scored[:top_k] if h.score >= threshold - companion_margin]
        answerable = len(near) >= 2 and pooled(near) >= threshold
    floor = threshold - companion_margin if answerable else threshold
    passing = [h for h in scored if h.score >= floor]
    if not current_first:
        passing = _past_before_present(passing)
    misses = [h for h in scored if h.score < floor][:BELOW_THRESHOLD_SHOWN]
    return passing[:top_k], misses, scored


def _past_before_present(hits: list[Hit]) -> list[Hit]:
    """A question about the past ("where did I live before York?", "where did I use to work?") is answered by
    what was replaced, not by what replaced it: a superseded memory goes just before its replacement when both
    are served, whatever their scores (the replacement matches the question's words as well or better)."""
    served = {h.memory.id for h in hits}
    before: dict[int, list[Hit]] = {}
    for h in hits:
        replacement = h.replaced_by_memory
        if h.historical and replacement is not None and replacement.id in served:
            before.setdefault(replacement.id, []).append(h)
    if not before:
        return hits
    moved = {h.memory.id for group in before.values() for h in group}
    ordered: list[Hit] = []
    for h in hits:
        if h.memory.id in moved:
            continue
        ordered.extend(before.get(h.memory.id, []))
        ordered.append(h)
    return ordered


def rescore(result: RecallResult, *, threshold: float | None = None, alpha: float | None = None,
            importance_weight: float | None = None, top_k: int | None = None,
            certain_margin: float = 0.15) -> RecallResult:
    """The same candidates under other knobs. No embedding, no store access."""
    threshold = result.threshold if threshold is None else threshold
    alpha = result.alpha if alpha is None else alpha
    importance_weight = result.importance_weight if importance_weight is None else importance_weight
    top_k = result.top_k if top_k is None else top_k
    hits, misses, ranked = rank(result.candidates, alpha=alpha, importance_weight=importance_weight,
                                threshold=threshold, top_k=top_k, current_first=not result.history_cue,
                                companion_margin=result.companion_margin, calibration=result.calibration,
                                evidence_pooling=result.evidence_pooling, lexical_support=result.lexical_support)
    return replace(result, hits=hits, below_threshold=misses, candidates=ranked, threshold=threshold,
                   alpha=alpha, importance_weight=importance_weight, top_k=top_k,
                   confidence=confidence(hits, threshold, certain_margin))
