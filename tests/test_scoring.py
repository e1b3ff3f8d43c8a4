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


def test_a_question_about_the_past_gets_what_was_replaced_before_what_replaced_it():
    leeds, york, other = hit(1, 0.55), hit(2, 0.81), hit(3, 0.7)
    leeds.historical, leeds.replaced_by_memory = True, york.memory
    asked_past, _, _ = rank([leeds, york, other], alpha=0.85, importance_weight=0.0, threshold=0.5, top_k=5)
    assert [h.memory.id for h in asked_past] == [1, 2, 3]
    # a replacement that is not served leaves the order by score
    alone, _, _ = rank([leeds, other], alpha=0.85, importance_weight=0.0, threshold=0.5, top_k=5)
    assert [h.memory.id for h in alone] == [3, 1]
    # a question about now keeps current facts first
    now, _, _ = rank([leeds, york, other], alpha=0.85, importance_weight=0.0, threshold=0.5, top_k=5,
                     current_first=True)
    assert [h.memory.id for h in now] == [2, 3, 1]


def test_companions_come_along_only_when_the_question_is_answerable():
    answered, _, _ = rank([hit(1, 0.50), hit(2, 0.40), hit(3, 0.30)], alpha=0.85, importance_weight=0.0,
                          threshold=0.45, top_k=5, companion_margin=0.08)
    assert [h.memory.id for h in answered] == [1, 2]
    unknown, misses, _ = rank([hit(2, 0.40), hit(3, 0.30)], alpha=0.85, importance_weight=0.0, threshold=0.45,
                              top_k=5, companion_margin=0.08)
    assert unknown == [] and [h.memory.id for h in misses] == [2, 3]



# A memory just under the threshold is served when it also carries enough of the question's words; never when
# it carries too few, nor when it is further below than the companion margin. (alpha 1.0: the score is the cosine.)
@pytest.mark.parametrize("semantic, lexical, support, served", [
    (0.45, 0.50, 0.40, True),
    (0.45, 0.30, 0.40, False),   # too little word evidence
    (0.45, 0.50, None, False),   # off: the score alone decides
    (0.36, 0.90, 0.40, False),   # further below than the margin
    (0.50, 0.00, 0.40, True),    # over the threshold it needs no words
])
def test_lexical_support_makes_a_near_threshold_memory_an_answer(semantic, lexical, support, served):
    hits, _, _ = rank([hit(1, semantic, lexical), hit(2, 0.41)], alpha=1.0, importance_weight=0.0, threshold=0.48,
                      top_k=5, companion_margin=0.08, lexical_support=support)
    assert bool(hits) is served
    if served and semantic < 0.48:
        assert [h.memory.id for h in hits] == [1, 2]  # answerable, so its companions come along


def test_rescore_keeps_the_lexical_support_of_the_result():
    hits, misses, ranked = rank([hit(1, 0.45, 0.6)], alpha=1.0, importance_weight=0.0, threshold=0.48, top_k=5,
                                companion_margin=0.08, lexical_support=0.4)
    result = RecallResult(query="q", user_id="u", hits=hits, confidence="unknown", threshold=0.48, alpha=1.0,
                          importance_weight=0.0, top_k=5, include_history=False, companion_margin=0.08,
                          below_threshold=misses, candidates=ranked, lexical_support=0.4)
    assert [h.memory.id for h in rescore(result, threshold=0.50).hits] == [1]
    assert rescore(result, threshold=0.60).hits == []


# --- calibrated relevance ------------------------------------------------------------------------

from engine.calibration import Calibration, fit, relevance_feature  # noqa: E402
from engine.scoring import pooled  # noqa: E402

CAL = Calibration(bias=-6.0, relevance=10.0, coverage=1.5, lexical=1.0)


def qhit(id, semantic, statement=None, lexical=0.0, coverage=0.0, importance=0.5):
    return Hit(memory(id, importance), 0.0, semantic, lexical, importance,
               statement=semantic if statement is None else statement, coverage=coverage)


def test_relevance_feature_takes_the_better_cosine_and_lets_bm25_only_lift():
    assert relevance_feature(0.36, 0.62, 0.0, 0.8) == pytest.approx(0.62)
    assert relevance_feature(0.62, 0.36, 0.0, 0.8) == pytest.approx(0.62)
    assert relevance_feature(0.5, 0.4, 1.0, 0.8) == pytest.approx(0.8 * 0.5 + 0.2)
    with pytest.raises(ValueError):
        relevance_feature(0.5, 0.5, 0.5, 1.2)


def test_calibrated_score_is_a_probability_that_grows_with_every_feature():
    base = CAL.probability(0.5, 0.5, 0.5)
    assert 0.0 < base < 1.0
    assert CAL.probability(0.6, 0.5, 0.5) > base
    assert CAL.probability(0.5, 1.0, 0.5) > base
    assert CAL.probability(0.5, 0.5, 1.0) > base
    assert CAL.probability(-10.0, 0.0, 0.0) == 0.0  # far below: no overflow


def test_full_coverage_lifts_a_low_cosine_answer_past_a_same_cosine_stranger():
    """"What is the user making?" vs "User is making a budgeting tool": cosine 0.36, every content word there."""
    hits, _, ranked = rank([qhit(1, 0.36, coverage=1.0, lexical=0.6), qhit(2, 0.36)], alpha=0.8,
                           importance_weight=0.0, threshold=0.2, top_k=5, calibration=CAL)
    assert [h.memory.id for h in ranked] == [1, 2]
    assert ranked[0].score > ranked[1].score


def test_statement_cosine_answers_when_the_question_cosine_does_not():
    hits, _, _ = rank([qhit(1, 0.40, statement=0.70)], alpha=0.8, importance_weight=0.0, threshold=0.5,
                      top_k=5, calibration=CAL)
    assert [h.memory.id for h in hits] == [1]
    hits, _, _ = rank([qhit(1, 0.40, statement=0.40)], alpha=0.8, importance_weight=0.0, threshold=0.5,
                      top_k=5, calibration=CAL)
    assert hits == []


def _near(p):
    """A relevance whose calibrated probability (no coverage, no BM25) is exactly p."""
    import math
    return (math.log(p / (1 - p)) - CAL.bias) / CAL.relevance


def test_pooled_is_noisy_or():
    assert pooled([0.4, 0.4]) == pytest.approx(0.64)
    assert pooled([0.9]) == pytest.approx(0.9)
    assert pooled([]) == 0.0


def test_evidence_pooling_serves_several_near_threshold_memories_and_never_one_alone():
    two = [qhit(1, _near(0.42)), qhit(2, _near(0.40)), qhit(3, _near(0.05))]
    kw = dict(alpha=1.0, importance_weight=0.0, threshold=0.5, top_k=5, companion_margin=0.1, calibration=CAL)
    hits, _, _ = rank(two, evidence_pooling=True, **kw)
    assert [h.memory.id for h in hits] == [1, 2]  # pooled 0.65 >= 0.5; the unrelated one stays out
    assert rank(two, evidence_pooling=False, **kw)[0] == []
    one = [qhit(1, _near(0.45)), qhit(3, _near(0.05))]
    assert rank(one, evidence_pooling=True, **kw)[0] == []
    far = [qhit(1, _near(0.35)), qhit(2, _near(0.35))]  # both more than the margin below: no evidence
    assert rank(far, evidence_pooling=True, **kw)[0] == []


def test_rescore_keeps_the_calibration_and_pooling_of_the_result():
    cands = [qhit(1, _near(0.42)), qhit(2, _near(0.40))]
    hits, misses, ranked = rank(cands, alpha=1.0, importance_weight=0.0, threshold=0.9, top_k=5,
                                companion_margin=0.1, calibration=CAL, evidence_pooling=True)
    result = RecallResult(query="q", user_id="u", hits=hits, confidence="unknown", threshold=0.9, alpha=1.0,
                          importance_weight=0.0, top_k=5, include_history=False, companion_margin=0.1,
                          below_threshold=misses, candidates=ranked, calibration=CAL, evidence_pooling=True)
    moved = rescore(result, threshold=0.5)
    assert [h.memory.id for h in moved.hits] == [1, 2]
    assert moved.hits[0].score == pytest.approx(0.42, abs=1e-5)


def test_fit_learns_the_direction_of_the_evidence_and_is_deterministic():
    # answers: high relevance or full coverage; non-answers: low relevance and partial coverage
    rows, labels = [], []
    for i in range(20):
        r = 0.2 + 0.03 * i
        for cov in (0.0, 0.5, 1.0):
            rows.append([r, cov, 0.1 * (i % 3)])
            labels.append(int(r + 0.2 * cov > 0.6))
    first = fit(rows, labels)
    assert first == fit(rows, labels)
    assert first.relevance > 0 and first.coverage > 0
    assert first.probability(0.8, 1.0, 0.1) > 0.8 > 0.2 > first.probability(0.25, 0.0, 0.1)


@pytest.mark.parametrize("rows, labels", [
    ([[0.1, 0.2, 0.3]], [1]),              # one class only
    ([[0.1, 0.2]], [0]),                   # wrong width
    ([[0.1, 0.2, 0.3], [0.2, 0.2, 0.2]], [0, 2]),  # not 0/1
    ([], []),
])
def test_fit_rejects_bad_input(rows, labels):
    with pytest.raises(ValueError):
        fit(rows, labels)
