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

from evaluation.checks import CATEGORIES, check_case, validate_case
from evaluation.runner import load_cases, percentile

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def all_cases():
    return load_cases()


# ------------------------------------------------------------------------------------------------ schema

def test_cases_schema(all_cases):
    assert len(all_cases) >= 150
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
        if c["category"] == "unknown_answers":
            assert c.get("expect_empty") is True and len(c["messages"]) >= 2, c["id"]
        if c["category"] == "historical_queries":
            assert c.get("include_history") is True and c.get("within_top_k"), c["id"]
        if c["category"] == "multi_user_isolation":
            users = {m["user_id"] for m in c["messages"] if isinstance(m, dict)}
            assert len(users) >= 2 and c.get("query_user_id") in users, c["id"]
        if c["category"] == "repeated_statements":
            assert "confirmed" in c["expected_statuses"], c["id"]
        if c["category"] in ("updated_information", "contradictions_corrections"):
            assert c.get("forbidden") and "superseded" in c["expected_statuses"], c["id"]
    assert len({c["query"].lower() for c in all_cases}) > 0.9 * len(all_cases)  # no single template


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
])
def test_load_cases_rejects_invalid(tmp_path, bad):
    case = {"id": "x-01", "category": "direct_facts", "split": "dev", "messages": ["I live in Oslo."],
            "query": "where do I live?", "top1_contains": "Oslo", **bad}
    f = tmp_path / "cases.json"
    f.write_text(json.dumps([case]))
    with pytest.raises(ValueError):
        load_cases(f)


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
    from evaluation.locomo import SAMPLE_PATH, evaluate, evidence_ids, format_locomo, load_locomo, parse_date

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
