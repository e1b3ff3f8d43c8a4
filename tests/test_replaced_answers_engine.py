"""A memory that replaced another answers what the other answered (settings.replaced_answers): the real model,
SQLite and Chroma. Each answered row is refused with replaced_answers off."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration

TOLD = [
    "We stream films on Amazon Prime.",
    # an ending, then what holds instead: Prime -> "cancelled Prime" -> Mubi, two steps back
    "cancelled Prime. we watch everything on Mubi now",
    "I'm reading Middlemarch.",
    "finished middlemarch!! started on the goldfinch last night",
    "My daughter Isla goes to Hillside Academy.",
    "isla changed schools in september, shes at Brookfield now and loves it",
    "My wife works at Barclays.",
    "she quit in march, Halima is at Deloitte now",
]


@pytest.fixture(scope="module")
def stores(stores_by):
    with stores_by("replaced_answers", (0.0, None), TOLD) as made:
        yield made


@pytest.mark.parametrize("question, answer", [
    ("what do we stream films on?", "Mubi"),  # "User watches everything on Mubi now." 0.76 through Prime, alone below
    ("what book am I reading?", "goldfinch"),  # "User started on the goldfinch last night." alone below
])
def test_the_replacement_answers_what_the_replaced_memory_answered(stores, question, answer):
    found = stores[0.0].recall(question, user_id="u")
    assert found.hits and answer in found.hits[0].memory.text
    assert not any(answer in h.memory.text for h in stores[None].recall(question, user_id="u").hits)


def test_an_ending_is_no_frame_for_what_holds_instead(stores):
    # restated in the ending's words, Mubi would be what was cancelled ("User cancelled Mubi.")
    active = [m.text for m in stores[0.0].list_memories(user_id="u")]
    assert "User watches everything on Mubi now." in active
    assert not any("cancelled Mubi" in text for text in active)


def test_a_question_about_the_past_gets_the_replaced_memory(stores):
    found = stores[0.0].recall("what did we stream films on before?", user_id="u")
    assert found.hits and found.hits[0].historical and "Amazon Prime" in found.hits[0].memory.text


@pytest.mark.parametrize("question, other", [
    ("which school does my son go to?", "which school does Isla go to?"),
    ("where does my husband work?", "where does my wife work?"),
])
def test_no_lift_from_a_replaced_memory_that_is_a_near_miss(stores, question, other):
    # "User's daughter Isla goes to ..." answers about another relative: what replaced it, which names no relative,
    # inherits nothing (it would score 0.59 for the son, 0.64 for the husband)
    assert stores[0.0].recall(question, user_id="u").hits == []
    assert stores[0.0].recall(other, user_id="u").hits
