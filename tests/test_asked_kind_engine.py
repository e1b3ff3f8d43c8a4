"""A question asking for a thing by its kind ("which foods am I allergic to?") is not answered by a memory naming
nothing of that kind ("User is allergic to latex"), unless one of its things is near the kind in meaning
(settings.asked_kind_floor): WordNet does not file a whippet under "pet". The real model, SQLite and Chroma. Each near
miss is served with the filter off (None); each instance is dropped when the floor asks for more than MiniLM gives."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration

TOLD = [
    "I'm allergic to latex, found out at the dentist",
    "we adopted a whippet last spring",
    "i always grab a bag of Wotsits after work",
]


@pytest.fixture(scope="module")
def stores(stores_by):
    with stores_by("asked_kind_floor", (0.35, None, 0.99), TOLD) as made:
        yield made


@pytest.mark.parametrize("question, near_miss", [
    ("which foods am I allergic to?", "latex"),
    ("what food am I allergic to?", "latex"),
])
def test_a_memory_naming_nothing_of_the_asked_kind_answers_nothing(stores, question, near_miss):
    assert stores[0.35].recall(question, user_id="u").hits == []
    assert any(near_miss in h.memory.text for h in stores[None].recall(question, user_id="u").hits)


def test_an_instance_near_the_kind_in_meaning_is_kept(stores):
    # WordNet files a whippet under dogs, not pets; MiniLM puts the two words near
    question = "what pet do we have?"
    assert "whippet" in stores[0.35].recall(question, user_id="u").hits[0].memory.text
    assert stores[0.99].recall(question, user_id="u").hits == []


def test_a_name_the_dictionary_does_not_know_is_kept(stores):
    # "Wotsits" is capitalised and the question does not say it: it may be an instance, whatever the floor
    for floor in (0.35, 0.99):
        assert "Wotsits" in stores[floor].recall("what snack do I have after work?", user_id="u").hits[0].memory.text
