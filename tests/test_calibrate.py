"""evaluation.calibrate's labelling and judging: pure functions over cases and captured results."""
import pytest

from engine import Hit, Memory, RecallResult
from engine.calibration import Calibration
from evaluation.calibrate import expected_strings, judge, label, training_rows

pytestmark = pytest.mark.unit


def memory(id, text):
    return Memory(id=id, user_id="default", text=text, type="fact", subject="user", attribute="a", value="v",
                  importance=0.5)


def captured(case, *hits):
    cands = [Hit(memory(i, text), 0.0, sem, 0.0, 0.5, statement=sem, coverage=cov)
             for i, (text, sem, cov) in enumerate(hits, 1)]
    result = RecallResult(query=case["query"], user_id="default", hits=[], confidence="unknown", threshold=0.0,
                          alpha=0.8, importance_weight=0.0, top_k=20, include_history=False, candidates=cands)
    return {"case": case, "statuses": ["created"] * len(hits), "errors": [], "active": len(hits), "result": result}


ANSWERED = {"id": "a", "category": "direct_facts", "split": "dev", "messages": ["I live in Oslo"],
            "query": "Where do I live?", "top1_contains": "Oslo", "forbidden": ["Bergen"]}
UNKNOWN = {"id": "u", "category": "unknown_answers", "split": "dev", "messages": ["I live in Oslo"],
           "query": "What is my dog's name?", "expect_empty": True}


def test_labels_follow_the_case_expectations():
    assert expected_strings({"top1_contains": "a", "top1_contains_any": ["b"], "within_top_k": ["c"]}) == \
        ["a", "b", "c"]
    assert label(ANSWERED, "User lives in oslo.") == 1
    assert label(ANSWERED, "User works in Oslo but moved from Bergen.") == 0  # forbidden wins
    assert label(ANSWERED, "User likes tea.") == 0
    assert label(UNKNOWN, "User lives in Oslo.") == 0
    assert label({"expected_statuses": ["created"]}, "anything") is None


def test_training_rows_hold_one_row_of_features_per_labelled_candidate():
    x, y = training_rows([captured(ANSWERED, ("User lives in Oslo.", 0.7, 1.0), ("User likes tea.", 0.2, 0.0))],
                         alpha=0.8)
    assert y == [1, 0]
    assert x[0] == pytest.approx([0.7, 1.0, 0.0])


def test_judge_passes_the_answer_and_rejects_the_unknown_at_a_cut_between_them():
    cal = Calibration(bias=-5.0, relevance=10.0, coverage=0.0, lexical=0.0)  # p = 0.5 at relevance 0.5
    items = [captured(ANSWERED, ("User lives in Oslo.", 0.7, 1.0)), captured(UNKNOWN, ("User lives in Oslo.", 0.3, 0.0))]
    good = judge(items, threshold=0.5, companion_margin=0.0, calibration=cal, evidence_pooling=False, top_k=5)
    assert good["accuracy"] == 1.0 and good["unknown_rejection"] == 1.0
    loose = judge(items, threshold=0.05, companion_margin=0.0, calibration=cal, evidence_pooling=False, top_k=5)
    assert loose["failed"] == ["u"] and loose["unknown_rejection"] == 0.0
