"""The blend formula, ranking, confidence and re-scoring: pure, no model or store."""
import pytest

from engine import Hit, Memory, RecallResult
from engine.scoring import blend, confidence, rank, rescore

pytestmark = pytest.mark.unit


def memory(id, importance=0.5):
    return Memory(id=id, user_id="u", text=f"m{id}", type="fact", subject="user", attribute="a", value="v",
                  importance=importance)


def hit(id, semantic, lexical=0.0, importance=0.5):
    m = memory(id, importance)
    return Hit(m, 0.0, semantic, lexical, importance)


@pytest.mark.parametrize("sem, lex, imp, alpha, beta, expected", [
    (0.6, 0.0, 0.5, 0.85, 0.1, 0.6),                 # no lexical evidence: the semantic score stands
    (0.6, 1.0, 0.5, 0.85, 0.1, 0.85 * 0.6 + 0.15),   # lexical lifts
    (0.9, 0.1, 0.5, 0.85, 0.1, 0.9),                 # but never drags a strong semantic match down
    (0.5, 0.0, 0.9, 0.85, 0.1, 0.54),                # importance above 0.5 adds
    (0.5, 0.0, 0.1, 0.85, 0.1, 0.46),                # and below 0.5 subtracts
    (0.5, 1.0, 0.5, 0.0, 0.0, 1.0),                  # alpha 0: lexical only (through the max)
])
def test_blend(sem, lex, imp, alpha, beta, expected):
    assert blend(sem, lex, imp, alpha=alpha, importance_weight=beta) == pytest.approx(expected)


@pytest.mark.parametrize("alpha, beta", [(-0.1, 0.1), (1.1, 0.1), (0.5, -0.2), (0.5, 1.5)])
def test_blend_rejects_out_of_range_knobs(alpha, beta):
    with pytest.raises(ValueError):
        blend(0.5, 0.5, 0.5, alpha=alpha, importance_weight=beta)


def test_rank_applies_threshold_and_top_k():
    hits, misses, ranked = rank([hit(1, 0.2), hit(2, 0.7), hit(3, 0.5), hit(4, 0.45)],
                                alpha=0.85, importance_weight=0.0, threshold=0.46, top_k=1)
    assert [h.memory.id for h in hits] == [2]
    assert [h.memory.id for h in misses] == [4, 1]
    assert [h.memory.id for h in ranked] == [2, 3, 4, 1]


def test_rank_rejects_bad_top_k():
    with pytest.raises(ValueError):
        rank([], alpha=0.85, importance_weight=0.1, threshold=0.5, top_k=0)


@pytest.mark.parametrize("scores, expected", [([], "unknown"), ([0.9], "certain"), ([0.5], "vague")])
def test_confidence(scores, expected):
    hits = [Hit(memory(i), s, s, 0.0, 0.5) for i, s in enumerate(scores)]
    assert confidence(hits, 0.4, 0.15) == expected


def test_rescore_moves_knobs_without_new_candidates():
    candidates = [hit(1, 0.42, lexical=0.9), hit(2, 0.45)]
    result = RecallResult(query="q", user_id="u", hits=[], confidence="unknown", threshold=0.9, alpha=0.85,
                          importance_weight=0.1, top_k=5, include_history=False, candidates=candidates)
    looser = rescore(result, threshold=0.4)
    assert [h.memory.id for h in looser.hits] == [1, 2] and looser.confidence == "vague"
    lexical_off = rescore(result, threshold=0.4, alpha=1.0)
    assert [h.memory.id for h in lexical_off.hits] == [2, 1]
    assert rescore(result).hits == []


def test_current_facts_rank_first_unless_the_question_asks_about_the_past():
    old = hit(1, 0.8)
    old.historical = True
    new = hit(2, 0.7)
    by_score, _, _ = rank([old, new], alpha=0.85, importance_weight=0.0, threshold=0.5, top_k=5)
    assert [h.memory.id for h in by_score] == [1, 2]
    current_first, _, _ = rank([old, new], alpha=0.85, importance_weight=0.0, threshold=0.5, top_k=5,
                               current_first=True)
    assert [h.memory.id for h in current_first] == [2, 1]


def test_companions_come_along_only_when_the_question_is_answerable():
    answered, _, _ = rank([hit(1, 0.50), hit(2, 0.40), hit(3, 0.30)], alpha=0.85, importance_weight=0.0,
                          threshold=0.45, top_k=5, companion_margin=0.08)
    assert [h.memory.id for h in answered] == [1, 2]
    unknown, misses, _ = rank([hit(2, 0.40), hit(3, 0.30)], alpha=0.85, importance_weight=0.0, threshold=0.45,
                              top_k=5, companion_margin=0.08)
    assert unknown == [] and [h.memory.id for h in misses] == [2, 3]
