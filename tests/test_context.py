"""The chat glue on the real model: the context block, the profile, the session summary."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from engine import Context
from engine.context import ABSTAIN_LINE, OLD_HEADER, format_context, to_second_person

pytestmark = pytest.mark.integration

STORY = [
    "I live in Berlin.",
    "I use Arch Linux.",
    "My project deadline is October 15.",
    "My name is Ana.",
    "Actually, the deadline moved to November 2.",
    "I moved to Lisbon.",
]


@pytest.fixture
def told(engine):
    results = [engine.ingest(m, user_id="ana") for m in STORY]
    assert [r.status for r in results][-2:] == ["superseded", "superseded"]
    return engine


def test_current_fact_with_citation_and_no_old_one_unless_asked(told):
    ctx = told.context("When is the project deadline?", user_id="ana")
    assert isinstance(ctx, Context) and not ctx.abstained
    top = ctx.items[0]
    assert top.status == "current" and "November 2" in top.text
    assert f"[#{top.memory_id}]" in ctx.text and top.line in ctx.text.splitlines()
    assert "October 15" not in ctx.text and OLD_HEADER not in ctx.text
    assert top.message_id is not None and top.timestamp


def test_history_cue_marks_old_facts_after_current_ones_with_their_replacement(told):
    ctx = told.context("Where did I live before?", user_id="ana")
    statuses = [i.status for i in ctx.items]
    assert "old" in statuses and "current" in statuses
    assert statuses == sorted(statuses, key=lambda s: s == "old")  # every current item before every old one
    old = next(i for i in ctx.items if i.status == "old")
    assert "Berlin" in old.text and "Lisbon" in old.replaced_by_text
    lines = ctx.text.splitlines()
    assert lines.index(OLD_HEADER) > lines.index(next(i.line for i in ctx.items if i.status == "current"))
    assert old.line.startswith("- OLD: ") and f"[#{old.replaced_by_id}]" in old.line


def test_history_flag_without_a_cue(told):
    plain = told.context("When is the project deadline?", user_id="ana", include_history=True)
    assert any(i.status == "old" and "October 15" in i.text for i in plain.items)


def test_abstention_line_when_nothing_is_relevant(told):
    ctx = told.context("What is my favourite food?", user_id="ana")
    assert ctx.abstained and ctx.items == [] and ctx.text.endswith(ABSTAIN_LINE)
    assert told.context("Where do I live?", user_id="somebody-else").abstained


def test_budget_keeps_whole_lines_and_counts_what_it_left_out(told):
    # "what", not "when": a "when" question drops every memory that says no time, and this test wants them all.
    full = told.context("What is the project deadline?", user_id="ana", include_history=True, threshold=0.0)
    assert len(full.items) >= 3 and full.omitted == 0
    budget = len(full.text) - 1
    cut = format_context(full.recall, budget_chars=budget)
    assert len(cut.text) <= budget and cut.omitted >= 1
    assert len(cut.items) + cut.omitted == len(full.items)
    assert [i.memory_id for i in cut.items] == [i.memory_id for i in full.items][: len(cut.items)]
    for line in cut.text.splitlines()[1:-1]:
        assert line in full.text.splitlines()  # never a line cut in the middle
    assert f"({cut.omitted} more relevant" in cut.text.splitlines()[-1]
    with pytest.raises(ValueError):
        told.context("Where do I live?", user_id="ana", budget_chars=10)


def test_profile_ranks_by_importance_then_recency_in_second_person(told):
    prof = told.profile("ana", limit=3)
    assert len(prof.items) == 3 and prof.total_current == 4
    keys = [(i.importance, i.updated_at) for i in prof.items]
    assert keys == sorted(keys, reverse=True)
    assert "November 2" in prof.items[0].text  # a deadline is the most important fact
    assert prof.greeting.startswith("Welcome back: ")
    assert "you live in Lisbon" in told.profile("ana", limit=10).greeting
    assert "Berlin" not in told.profile("ana", limit=10).greeting  # current facts only
    assert told.profile("nobody").items == [] and "don't know" in told.profile("nobody").greeting
    with pytest.raises(ValueError):
        told.profile("ana", limit=0)


@pytest.mark.parametrize("stored, said", [
    ("User lives in Lisbon.", "you live in Lisbon"),
    ("User's name is Ana.", "your name is Ana"),
    ("User is a nurse.", "you are a nurse"),
    ("User has a dog.", "you have a dog"),
    ("User watches anime.", "you watch anime"),
    ("User studies law.", "you study law"),
    ("Project deadline is November 2.", "your project deadline is November 2"),
    ("Dara works at Acme.", "Dara works at Acme"),
])
def test_second_person(stored, said):
    assert to_second_person(stored) == said


def test_session_summary_is_one_event_cited_to_its_messages_and_replaces_no_fact(told):
    before = {m.id for m in told.list_memories("ana")}
    ids = [m["id"] for m in told.messages("ana")]
    summary = told.summarize_session("ana", ids)
    mem = summary.memory
    assert mem.type == "event" and mem.status == "active" and not summary.by_llm
    assert summary.message_ids == sorted(ids)
    assert all(f"#{i}" in mem.text for i in ids)  # the citation leads back to every message
    assert {m.id for m in told.list_memories("ana")} == before | {mem.id}  # nothing superseded
    # the extracted facts, in the order they were said (the old deadline before the new one)
    assert mem.text.index("October 15") < mem.text.index("November 2") < mem.text.index("Lisbon")
    assert "session" not in told.profile("ana", limit=50).greeting  # a summary is not a profile fact

    again = told.summarize_session("ana", since=datetime(2000, 1, 1, tzinfo=timezone.utc))
    assert again.message_ids == sorted(ids)  # the summary's own log line is not a session message


def test_session_summary_by_a_summarizer_and_bad_arguments(told):
    ids = [m["id"] for m in told.messages("ana")][:2]
    seen = {}

    def summarizer(messages, facts):
        seen["n"] = (len(messages), len(facts))
        return "The user talked about moving."

    summary = told.summarize_session("ana", ids, summarizer=summarizer)
    assert summary.by_llm and seen["n"][0] == 2 and "talked about moving" in summary.memory.text
    with pytest.raises(ValueError):
        told.summarize_session("ana")
    with pytest.raises(ValueError):
        told.summarize_session("ana", [999_999])
    with pytest.raises(ValueError):
        told.summarize_session("ana", since="yesterday")
    assert told.summarize_session("ana", since="2999-01-01T00:00:00").memory is None


def test_example_chatbot_in_a_subprocess(tmp_path):
    """examples/chatbot.py as a user would run it: stdin lines in, replies and a summary out."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMENGINE_")}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    lines = ["My project deadline is October 15.", "Actually, the deadline moved to November 2.",
             "When is the project deadline?", "/memories", "/quit"]
    run = subprocess.run([sys.executable, str(root / "examples" / "chatbot.py"), "--data-dir", str(tmp_path / "d"),
                          "--user", "ana"], input="\n".join(lines) + "\n", capture_output=True, text=True,
                         env=env, cwd=tmp_path, timeout=600)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "don't know anything about you yet" in out and "template replies" in out
    assert "memory: superseded: Project deadline is November 2." in out
    after = out[out.rindex("AI: Here is what I remember"):].split("You: ")[0]  # the reply to the question
    assert "November 2" in after and "October 15" not in after
    assert "Old (replaced by #" in out and "Session summary saved as memory #" in out
