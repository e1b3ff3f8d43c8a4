"""A memory that only wishes, hopes or plans answers no question about what the user does or has now
(settings.wish_filter): the real model, SQLite and Chroma. Each refused row is answered with wish_filter off."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration

TOLD = [
    "we really want to get a cat once we move somewhere bigger",
    "one day i'd love to learn to sail, its been a dream forever",
    "I play the trumpet in a brass band.",
]


@pytest.fixture(scope="module")
def stores(stores_by):
    with stores_by("wish_filter", (True, False), TOLD) as made:
        yield made


@pytest.mark.parametrize("question, wish", [
    ("do we have a pet?", "cat"),
    ("have I learned to sail?", "sail"),
])
def test_a_wish_answers_no_question_about_now(stores, question, wish):
    assert stores[True].recall(question, user_id="u").hits == []
    found = stores[False].recall(question, user_id="u")
    assert found.hits and wish in found.hits[0].memory.text


@pytest.mark.parametrize("question, answer", [
    ("what pet do we want to get?", "cat"),  # asked for the wish
    ("what would I love to learn one day?", "sail"),
    ("what instrument do I play?", "trumpet"),  # a fact beside the wishes
])
def test_the_wish_asked_for_and_the_facts_beside_it_are_answered(stores, question, answer):
    found = stores[True].recall(question, user_id="u")
    assert found.hits and answer in found.hits[0].memory.text
