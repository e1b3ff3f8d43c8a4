"""The thing a question names said as a memory calls it by another word for it (settings.thing_words, rule 16's
WordNet pairs, things only), and an update that calls the thing by another word (resolve rule 16): the real model,
SQLite and Chroma. The answered row is refused with thing_words off."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration

TOLD = [
    "we take the baby out in a joolz aer stroller, so much easier on the tube",
    "my favourite spot to read is the window seat at the library",
]


@pytest.fixture(scope="module")
def stores(stores_by):
    with stores_by("thing_words", (True, False), TOLD) as made:
        yield made


def test_the_question_said_in_the_memorys_word_finds_it(stores):
    question = "what pushchair do we use?"  # "pushchair" and "stroller" are one WordNet sense, an artifact (0.21)
    found = stores[True].recall(question, user_id="u")
    assert found.hits and "joolz" in found.hits[0].memory.text.casefold()  # typed in lower case, stored as "Joolz"
    assert not any("joolz" in h.memory.text.casefold() for h in stores[False].recall(question, user_id="u").hits)


def _score(store, question: str, word: str) -> float:
    found = store.recall(question, user_id="u", threshold=0.0)
    return next(h.score for h in found.hits + found.below_threshold if word in h.memory.text)


def test_a_place_is_no_thing_said_in_other_words(stores):
    # "places" and "spot" share a sense, a location: said as "spot" (0.45 against 0.37) the question would ask
    # nothing of places
    question = "what kind of places do I like to go on holiday?"
    assert _score(stores[True], question, "window seat") == _score(stores[False], question, "window seat")


def test_an_update_calling_the_thing_by_another_word_replaces_it(stores):
    store = stores[True]
    store.ingest("Our pram is a Silver Cross Wave.", user_id="v")
    result = store.ingest("switched to a lighter stroller, the joolz aer, so much easier on the bus", user_id="v")
    assert result.status == "superseded" and "another word" in result.trace[0].reason
    old = [m for m in store.list_memories(user_id="v", status="all") if "Silver Cross" in m.text]
    assert [m.status for m in old] == ["superseded"]
