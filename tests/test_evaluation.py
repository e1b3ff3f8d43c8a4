"""Tests of the evaluation package: case schema, the shared check function, runner, sweep, LoCoMo, CLI.

The model is loaded once per session (the `embedder` fixture of conftest.py); engine-backed tests use a
handful of cases so the file stays quick.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from evaluation.checks import (CATEGORIES, HASH_SPLIT_CATEGORIES, SUPERSEDE_CATEGORIES, UNKNOWN_CATEGORIES,
                               check_case, hash_splits, validate_case)
from evaluation.runner import load_cases, percentile

pytestmark = pytest.mark.integration
# Categories of two-message updates, each with controls whose two facts must both stay.
UPDATE_OR_CONTROL = ("updates_in_passing", "same_kind_updates", "amount_deltas", "topic_in_another_clause",
                     "kept_frame_updates")

REPO = Path(__file__).resolve().parent.parent
# The CI machine keeps the LoCoMo release next to the repository; it is CC BY-NC and never copied into the repo.
# (../shared/data/ from the repo; from a worktree under wt/, one level further up).
LOCOMO_FULL = next((p for p in (REPO.parent / "shared" / "data" / "locomo10.json",
                                REPO.parent.parent / "shared" / "data" / "locomo10.json") if p.exists()),
                   REPO.parent / "shared" / "data" / "locomo10.json")


@pytest.fixture(scope="session")
def all_cases():
    return load_cases()


# ------------------------------------------------------------------------------------------------ schema

def test_cases_schema(all_cases):
    assert len(all_cases) >= 500
    assert sum(c["split"] == "test" for c in all_cases) >= 250
    ids = [c["id"] for c in all_cases]
    assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1]
    assert {c["category"] for c in all_cases} == set(CATEGORIES)
    for c in all_cases:
        assert validate_case(c) == [], c["id"]
    for cat in CATEGORIES:
        splits = Counter(c["split"] for c in all_cases if c["category"] == cat)
        assert splits["dev"] > 0 and splits["test"] > 0, cat
    dev_share = sum(c["split"] == "dev" for c in all_cases) / len(all_cases)
    assert 0.3 <= dev_share <= 0.5


def test_cases_are_meaningful(all_cases):
    """Each category asks what it claims to: unknowns expect [], history cases ask for history, etc."""
    for c in all_cases:
        if c["category"] in UNKNOWN_CATEGORIES:
            assert c.get("expect_empty") is True and len(c["messages"]) >= 2, c["id"]
        if c["category"] == "relative_dates":  # the answer is a date only the message time can resolve
            assert c.get("top1_contains_any") and all(isinstance(m, dict) and m.get("timestamp")
                                                      for m in c["messages"]), c["id"]
        if c["category"] == "historical_queries":
            assert c.get("include_history") is True and c.get("within_top_k"), c["id"]
        if c["category"] == "multi_user_isolation":
            users = {m["user_id"] for m in c["messages"] if isinstance(m, dict)}
            assert len(users) >= 2 and c.get("query_user_id") in users, c["id"]
        if c["category"] == "repeated_statements":
            assert "confirmed" in c["expected_statuses"], c["id"]
        if c["category"] in UPDATE_OR_CONTROL:  # an update, or a control whose two facts both stay
            assert (c.get("forbidden") and c["expected_statuses"] == ["created", "superseded"]
                    or c["expected_statuses"] == ["created", "created"] and not c.get("forbidden")), c["id"]
        if c["category"] in SUPERSEDE_CATEGORIES or c["category"] in UPDATE_OR_CONTROL and c.get("forbidden"):
            assert c.get("forbidden") and "superseded" in c["expected_statuses"], c["id"]
            # the outdated value was said before the update and is not repeated by it
            texts = [(m if isinstance(m, str) else m["text"]).casefold() for m in c["messages"]]
            for f in c["forbidden"]:
                assert f.casefold() not in texts[-1] and any(f.casefold() in t for t in texts[:-1]), (c["id"], f)
    # No single template: a generated set repeats its questions within itself. Across sets, written by different
    # hands, everyday questions recur ("what car do I drive?" is asked by 9 cases of 7 sets), so the whole suite is held
    # to a lower bar than each category.
    by_category: dict[str, list[str]] = {}
    for c in all_cases:
        by_category.setdefault(c["category"], []).append(c["query"].lower())
    for category, queries in by_category.items():
        assert len(set(queries)) >= 0.8 * len(queries), category
    assert len({c["query"].lower() for c in all_cases}) > 0.85 * len(all_cases)


def test_hash_split_rule_reproduces_stored_splits(all_cases):
    """The issue 10 categories were split by checks.hash_splits before any run: the stored splits must be exactly
    what the rule gives, so nobody can move a case between dev and test after seeing its result."""
    assert set(HASH_SPLIT_CATEGORIES) <= set(CATEGORIES)
    n_new = 0
    for cat in HASH_SPLIT_CATEGORIES:
        cases = [c for c in all_cases if c["category"] == cat]
        assert len(cases) >= 30, cat
        expected = hash_splits([c["id"] for c in cases])
        assert {c["id"]: c["split"] for c in cases} == expected, cat
        n_new += len(cases)
    assert n_new >= 300


def test_hash_splits_rule():
    ids = [f"x-{i:02d}" for i in range(11)]
    a, b = hash_splits(ids), hash_splits(list(reversed(ids)))
    assert a == b  # depends on the ids only, not their order
    assert sum(v == "test" for v in a.values()) == 6 and sum(v == "dev" for v in a.values()) == 5
    with pytest.raises(ValueError):
        hash_splits(["x-01", "x-01"])


def test_load_cases_split_filter(all_cases):
    dev, test = load_cases(split="dev"), load_cases(split="test")
    assert len(dev) + len(test) == len(all_cases)
    assert {c["split"] for c in dev} == {"dev"}
    with pytest.raises(ValueError):
        load_cases(split="train")


@pytest.mark.parametrize("bad", [
    {"category": "nope"},
    {"split": "train"},
    {"expected_statuses": ["created", "created"]},   # one message, two statuses
    {"within_top_k": "Oslo"},                          # must be a list
    {"expect_empty": True},                            # contradicts top1_contains
    {"surprise": 1},                                   # unknown key (typo guard)
    {"messages": [{"text": "I live in Oslo.", "timestamp": "next Friday"}]},   # timestamp must be ISO date-time
    {"messages": [{"text": "I live in Oslo.", "timestamp": "2026-03-09"}]},    # a date alone has no time
    {"messages": [{"text": "I live in Oslo.", "time": "2026-03-09T10:00:00"}]},  # unknown message key
    {"messages": [{"text": "I live in Oslo.", "speaker": ""}]},                 # empty speaker
    {"top1_contains_any": "Oslo"},                     # must be a list (and not with top1_contains)
    {"top1_contains_any": ["Oslo"]},                   # both top1_contains and top1_contains_any
])
def test_load_cases_rejects_invalid(tmp_path, bad):
    case = {"id": "x-01", "category": "direct_facts", "split": "dev", "messages": ["I live in Oslo."],
            "query": "where do I live?", "top1_contains": "Oslo", **bad}
    f = tmp_path / "cases.json"
    f.write_text(json.dumps([case]))
    with pytest.raises(ValueError):
        load_cases(f)


def test_message_with_speaker_and_timestamp_is_valid():
    case = {"id": "x-02", "category": "relative_dates", "split": "test", "query": "when is the dentist?",
            "messages": [{"text": "Dentist tomorrow.", "user_id": "u", "speaker": "Ana",
                          "timestamp": "2026-03-09T10:15:00"}],
            "top1_contains_any": ["March 10", "10 March", "2026-03-10"]}
    assert validate_case(case) == []


def test_load_cases_rejects_duplicate_ids(tmp_path):
    case = {"id": "x-01", "category": "direct_facts", "split": "dev", "messages": ["I live in Oslo."],
            "query": "where do I live?", "top1_contains": "Oslo"}
    f = tmp_path / "cases.json"
    f.write_text(json.dumps([case, case]))
    with pytest.raises(ValueError, match="duplicate"):
        load_cases(f)


# ------------------------------------------------------------------------------------------- check_case

def H(*texts):
    return [{"text": t, "score": 0.9 - 0.1 * i} for i, t in enumerate(texts)]


BASE = {"id": "t", "category": "direct_facts", "split": "dev", "messages": ["a", "b"], "query": "q"}


@pytest.mark.parametrize("expect, hits, statuses, active, ok", [
    ({"top1_contains": "munich"}, H("User lives in Munich."), None, None, True),
    ({"top1_contains": "Munich"}, H("User lives in Berlin.", "User lives in Munich."), None, None, False),
    ({"top1_contains": "Munich"}, [], None, None, False),
    ({"within_top_k": ["Bruno", "Miso"]}, H("dog Bruno", "x", "y", "z", "cat Miso"), None, None, True),
    ({"within_top_k": ["Bruno", "Miso"]}, H("dog Bruno", "x", "y", "z", "w", "cat Miso"), None, None, False),
    ({"forbidden": ["Berlin"]}, H("User lives in Munich."), None, None, True),
    ({"forbidden": ["Berlin"]}, H("User lives in Munich.", "used to live in BERLIN"), None, None, False),
    ({"expect_empty": True}, [], None, None, True),
    ({"expect_empty": True}, H("User uses Arch Linux."), None, None, False),
    ({"expected_statuses": ["created", "superseded"]}, [], ["created", "superseded"], None, True),
    ({"expected_statuses": ["created", "superseded"]}, [], ["created", "created"], None, False),
    ({"active_count": 1}, [], None, 1, True),
    ({"active_count": 1}, [], None, 2, False),
])
def test_check_case_each_expectation(expect, hits, statuses, active, ok):
    res = check_case({**BASE, **expect}, hits, statuses, active)
    assert res.passed is ok
    assert bool(res.failures) is (not ok)
    assert all(isinstance(f, str) and f for f in res.failures)


DATE_FORMS = ["March 13", "13 March", "2026-03-13"]


@pytest.mark.parametrize("top, ok", [
    ("Dentist appointment on Friday, March 13 at 3pm.", True),
    ("Dentist appointment on 13 March.", True),
    ("Dentist appointment on March 13th.", True),
    ("Dentist appointment (2026-03-13).", True),
    ("Dentist appointment on March 1.", False),
    ("Dentist appointment on March 130.", False),
    ("Dentist appointment on 113 March.", False),
    ("Dentist appointment this Friday.", False),   # unresolved: not an answer to "when"
])
def test_check_case_top1_contains_any(top, ok):
    res = check_case({**BASE, "top1_contains_any": DATE_FORMS}, H(top, "x"))
    assert res.passed is ok and res.top1_ok is ok
    assert res.recall_at_5 == (1.0 if ok else 0.0)
    assert check_case({**BASE, "top1_contains_any": DATE_FORMS}, []).passed is False


def test_check_case_metric_parts():
    upd = {**BASE, "category": "updated_information", "top1_contains": "Munich", "forbidden": ["Berlin"],
           "expected_statuses": ["created", "superseded"]}
    bad = check_case(upd, H("lives in Munich", "lives in Berlin"), ["created", "superseded"], 1)
    assert bad.integrity_ok is False and bad.top1_ok is True and bad.recall_at_5 == 1.0
    good = check_case(upd, H("lives in Munich"), ["created", "superseded"], 1)
    assert good.integrity_ok is True and good.passed
    nfs = {**BASE, "category": "no_false_supersede", "top1_contains": "rock",
           "expected_statuses": ["created", "created"], "active_count": 2}
    assert check_case(nfs, H("likes rock music"), ["created", "superseded"], 1).false_supersede is True
    assert check_case(nfs, H("likes rock music"), ["created", "created"], 2).false_supersede is False
    unk = {**BASE, "category": "unknown_answers", "expect_empty": True}
    assert check_case(unk, [], None, None).rejected is True
    assert check_case(unk, H("x"), None, None).rejected is False


def _result(cid, category, split, passed, rejected=None):
    return {"id": cid, "category": category, "split": split, "passed": passed, "failures": [] if passed else ["x"],
            "recall_at_5": 1.0 if passed else 0.0, "top1_ok": passed if rejected is None else None,
            "rejected": rejected, "integrity_ok": None, "false_supersede": None, "latency_ms": 1.0}


def test_split_summary_and_gap():
    from evaluation.runner import format_split_report, split_summary

    results = [_result("a", "direct_facts", "dev", True), _result("b", "direct_facts", "dev", True),
               _result("c", "direct_facts", "test", True), _result("d", "direct_facts", "test", False),
               _result("e", "unknown_answers", "dev", True, rejected=True),
               _result("f", "unknown_answers", "test", False, rejected=False)]
    sp = split_summary(results)
    assert sp["dev"]["metrics"]["accuracy"] == 1.0 and sp["test"]["metrics"]["accuracy"] == pytest.approx(1 / 3)
    assert sp["gap"]["accuracy"] == pytest.approx(2 / 3)
    assert sp["gap"]["unknown_rejection"] == pytest.approx(1.0)
    assert sp["gap"]["supersede_integrity"] is None  # not measured on either side
    rows = {r["category"]: r for r in sp["categories"]}
    assert rows["direct_facts"]["dev_total"] == 2 and rows["direct_facts"]["test_passed"] == 1
    assert rows["direct_facts"]["gap_accuracy"] == pytest.approx(0.5)
    text = format_split_report({"cases": results})
    assert "DEV vs TEST" in text and "+50.0" in text and "Unknown rejection" in text


def test_percentile():
    assert percentile([], 50) is None
    assert percentile([5.0], 95) == 5.0
    assert percentile(list(range(1, 101)), 95) == 95
    assert percentile([3, 1, 2], 50) == 2


# ------------------------------------------------------------------------------------- engine-backed

def _pick(all_cases, ids):
    by_id = {c["id"]: c for c in all_cases}
    return [by_id[i] for i in ids]


def test_run_cases_report_shape(all_cases, embedder):
    from evaluation.runner import format_report, run_cases

    cases = _pick(all_cases, ["dir-02", "upd-01", "unk-01", "rep-03"])
    seen = []
    report = run_cases(cases, embedder=embedder, progress=lambda d, t, r: seen.append((d, t, r["id"])))
    json.dumps(report)  # JSON-safe
    assert [s[0] for s in seen] == [1, 2, 3, 4] and seen[-1][1] == 4
    assert report["meta"]["n_cases"] == 4 and "threshold" in report["meta"]["settings"]
    assert len(report["cases"]) == 4
    for r in report["cases"]:
        assert {"id", "category", "split", "passed", "failures", "hits", "statuses", "latency_ms"} <= set(r)
        assert r["passed"] is (not r["failures"])
        assert len(r["statuses"]) == len(_pick(all_cases, [r["id"]])[0]["messages"])
        assert r["latency_ms"] is not None and r["latency_ms"] > 0
        for h in r["hits"]:
            assert {"text", "score", "semantic", "lexical", "importance"} <= set(h)
    m = report["metrics"]
    for key in ("accuracy", "recall_at_5", "top1_accuracy", "unknown_rejection", "supersede_integrity"):
        assert m[key] is None or 0.0 <= m[key] <= 1.0, key
    assert m["total"] == 4 and m["unknown_total"] == 1 and m["latency_p95_ms"] >= m["latency_p50_ms"]
    assert sum(row["total"] for row in report["categories"]) == 4
    text = format_report(report)
    assert "TOTAL / OVERALL" in text and "Direct Facts" in text


def test_runner_passes_speaker_and_timestamp(tmp_path, embedder):
    """A case message's speaker and timestamp reach ingest (relative dates and group chats depend on them)."""
    from engine import MemoryEngine, Settings
    from evaluation.runner import run_case

    case = {"id": "ts-01", "category": "third_party_facts", "split": "dev", "query": "what's Tom's dog called?",
            "messages": [{"text": "I just adopted a greyhound called Pip!", "speaker": "Tom",
                          "timestamp": "2026-03-09T10:15:00", "user_id": "chat"}],
            "query_user_id": "chat", "top1_contains": "Pip"}
    with MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder) as eng:
        result = run_case(eng, case)
        messages = eng.messages(user_id="chat")
    assert result["statuses"] == ["created"]
    assert messages and messages[0]["speaker"] == "Tom" and messages[0]["timestamp"] == "2026-03-09T10:15:00"


def test_run_cases_isolation_between_cases(all_cases, embedder):
    """Two cases with the same user must not see each other's memories (fresh store per case)."""
    from evaluation.runner import run_cases

    a = {"id": "iso-a", "category": "direct_facts", "split": "dev", "messages": ["I live in Trondheim."],
         "query": "where do I live?", "top1_contains": "Trondheim", "active_count": 1}
    b = {"id": "iso-b", "category": "direct_facts", "split": "dev", "messages": ["I work as a baker."],
         "query": "where do I live?", "forbidden": ["Trondheim"], "active_count": 1}
    report = run_cases([a, b], embedder=embedder)
    assert report["cases"][1]["active_count"] == 1
    assert not any("Trondheim" in h["text"] for h in report["cases"][1]["hits"])


def test_sweep_returns_curve(all_cases, embedder):
    from evaluation.sweep import format_sweep, sweep

    ths = [0.2, 0.3, 0.4, 0.5, 0.6]
    result = sweep(_pick(all_cases, ["dir-02", "unk-01"]), embedder, thresholds=ths, alphas=[0.8, 0.9],
                   weights=[0.0, 0.1])
    json.dumps(result)
    assert [p["threshold"] for p in result["curve"]] == ths
    assert len(result["grid"]) == len(ths) * 2 * 2
    best = result["best"]
    assert best["threshold"] in ths and best["alpha"] in (0.8, 0.9) and best["importance_weight"] in (0.0, 0.1)
    for p in result["curve"]:
        for k in ("accuracy", "answer_accuracy", "unknown_rejection"):
            assert 0.0 <= p[k] <= 1.0
    # rejection can only grow with the threshold
    rej = [p["unknown_rejection"] for p in result["curve"]]
    assert rej == sorted(rej)
    assert "BEST:" in format_sweep(result)


def test_sweep_agrees_with_runner(all_cases, embedder):
    """At the engine's own settings, re-scoring captured candidates must judge cases exactly as recall does."""
    from engine import Settings
    from evaluation.runner import run_cases
    from evaluation.sweep import sweep

    cases = _pick(all_cases, ["dir-04", "pref-02", "upd-02", "unk-02", "mul-02", "hist-02"])
    st = Settings()
    report = run_cases(cases, embedder=embedder)
    result = sweep(cases, embedder, thresholds=[st.threshold], alphas=[st.alpha], weights=[st.importance_weight])
    failed = sorted(r["id"] for r in report["cases"] if not r["passed"])
    assert sorted(result["best"]["failed_ids"]) == failed
    assert result["best"]["accuracy"] == pytest.approx(report["metrics"]["accuracy"])


def test_locomo_sample(embedder):
    from evaluation.locomo import (SAMPLE_PATH, evaluate, evidence_ids, format_locomo, iter_turns, load_locomo,
                                   parse_date)

    samples = load_locomo(SAMPLE_PATH)
    dia = {t["dia_id"] for s in samples for k, v in s["conversation"].items() if k.startswith("session_")
           and isinstance(v, list) for t in v}
    for s in samples:  # the sample's evidence points at real turns
        for qa in s["qa"]:
            assert set(evidence_ids(qa)) <= dia and 1 <= qa["category"] <= 5
    result = evaluate(samples, embedder=embedder, ks=(1, 5))
    json.dumps(result)
    cats = {r["category"] for r in result["categories"]}
    assert {"1", "2", "3", "4", "5", "1-4"} <= cats
    for r in result["categories"]:
        for k, v in r.items():
            if k not in ("category", "name", "n") and v is not None:
                assert 0.0 <= v <= 1.0, (r["category"], k, v)
        assert r["recall@1"] <= r["recall@5"] + 1e-9
    assert result["meta"]["questions"] == sum(len(s["qa"]) for s in samples)
    assert "adversarial" in format_locomo(result)
    assert parse_date("1:56 pm on 8 May, 2023") == "2023-05-08T13:56:00"
    assert evidence_ids({"evidence": ["D8:6; D9:17", "D1:2"]}) == ["D8:6", "D9:17", "D1:2"]
    # a dashboard shows each question's evidence turns next to what was recalled
    turns = {(str(s["sample_id"]), t["dia_id"]): t["text"] for s in samples for t, _ in iter_turns(s)}
    for q in result["questions"]:
        assert [e["source_id"] for e in q["evidence_texts"]] == q["evidence"]
        assert all(e["text"] == turns[(q["sample_id"], e["source_id"])] for e in q["evidence_texts"])
        assert [h["source_id"] for h in q["ranked"]] == q["ranked_sources"]
        assert len(q["served"]) <= len(q["ranked"])

    # cross-conversation refusal: each conversation's answerable questions asked of the other's user (a ring)
    answerable = [(str(s["sample_id"]), qa) for s in samples for qa in s["qa"] if qa["category"] in (1, 2, 3, 4)]
    cross = result["cross"]
    assert len(cross) == len(answerable)
    users = [str(s["sample_id"]) for s in samples]
    for c in cross:
        assert c["asked_of"] == users[(users.index(c["sample_id"]) + 1) % len(users)] != c["sample_id"]
        assert c["served_empty"] is (not c["served"])
        # whatever is served comes from the asked user's own conversation, never the asker's
        assert all((c["asked_of"], h["source_id"]) in turns for h in c["served"])
    sm = result["summary"]
    assert sm["cross_n"] == len(cross)
    assert sm["cross_refusal"] == pytest.approx(sum(c["served_empty"] for c in cross) / len(cross))
    q5 = [q for q in result["questions"] if q["category"] == 5]
    assert sm["adversarial_abstention"] == pytest.approx(sum(q["served_empty"] for q in q5) / len(q5))
    assert 0.0 <= sm["answerable_refused"] <= 1.0 and sm["ranking_recall@1"] <= sm["ranking_recall@5"] + 1e-9
    assert result["evidence"]["dropped"] == 0 and "asked of another conversation" in format_locomo(result)


@pytest.mark.parametrize("raw, norm", [
    ("D8:6", "D8:6"), ("D:11:26", "D11:26"), ("D30:05", "D30:5"), (" d3:4 ", "D3:4"), ("D", None), ("8:6", None),
    ("D8", None), ("D8:6:1", None),
])
def test_locomo_normalize_evidence_id(raw, norm):
    from evaluation.locomo import normalize_evidence_id

    assert normalize_evidence_id(raw) == norm


def test_locomo_resolve_evidence_drops_and_counts():
    from evaluation.locomo import resolve_evidence

    known = {"D8:6", "D9:17", "D11:26", "D30:5"}
    qa = {"evidence": ["D8:6; D9:17", "D:11:26", "D30:05", "D", "D10:19", "D8:6"]}
    assert resolve_evidence(qa, known) == (["D8:6", "D9:17", "D11:26", "D30:5"], ["D", "D10:19"])
    assert resolve_evidence({}, known) == ([], [])


@pytest.mark.skipif(not LOCOMO_FULL.exists(), reason=f"LoCoMo release not found at {LOCOMO_FULL} (CC BY-NC, "
                    "not in the repo; put locomo10.json there to run this test)")
def test_locomo_full_file_evidence_normalisation():
    """On the real release every malformed id is resolved or dropped and counted; only 3 ids name no turn."""
    from evaluation.locomo import evidence_ids, iter_turns, load_locomo, resolve_evidence

    samples = load_locomo(LOCOMO_FULL)
    assert len(samples) == 10 and sum(len(s["qa"]) for s in samples) == 1986
    dropped = []
    for s in samples:
        known = {t["dia_id"] for t, _ in iter_turns(s)}
        for qa in s["qa"]:
            ev, dr = resolve_evidence(qa, known)
            assert set(ev) <= known and len(ev) + len(dr) <= len(evidence_ids(qa))
            dropped += [(s["sample_id"], d) for d in dr]
    assert sorted(dropped) == [("conv-42", "D"), ("conv-42", "D10:19"), ("conv-47", "D4:36")]


def test_cli_exits_nonzero_below_min_accuracy(tmp_path):
    cases = [{"id": "cli-01", "category": "direct_facts", "split": "dev", "messages": ["I live in Tromsø."],
              "query": "where do I live?", "top1_contains": "Tromsø"},
             {"id": "cli-02", "category": "direct_facts", "split": "test", "messages": ["I work as a welder."],
              "query": "what's my job?", "top1_contains": "welder"}]
    f = tmp_path / "small.json"
    f.write_text(json.dumps(cases))
    out = tmp_path / "report.json"
    env = {**os.environ, "MEMENGINE_DATA_DIR": str(tmp_path / "data")}
    proc = subprocess.run([sys.executable, "-m", "evaluation.run", "--split", "dev", "--cases", str(f),
                           "--min-accuracy", "1.01", "--json", str(out), "--quiet"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = json.loads(out.read_text())
    assert [c["id"] for c in report["cases"]] == ["cli-01"]
    assert list((tmp_path / "data" / "runs").glob("run-*.json"))
    assert "TOTAL / OVERALL" in proc.stdout
