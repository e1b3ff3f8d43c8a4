"""A clause that points back to the thing said before it ("I drive a VW Golf, had it about 5 years now") is kept in
that thing's memory (settings.join_pointing_back): it answers questions about the thing, no question about anything
else, and goes into history with the thing when the thing is replaced. The real model, SQLite and Chroma. Each row
fails with join_pointing_back off."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration

TOLD = [
    "I drive a VW Golf, had it about 5 years now",
    "I'm allergic to peanuts, my mouth swells up if I eat them",
    "we got a rescue greyhound in may. she sleeps on the sofa most of the day",
]


@pytest.fixture(scope="module")
def stores(stores_by):
    with stores_by("join_pointing_back", (True, False), TOLD) as made:
        yield made


@pytest.mark.parametrize("question, alone", [
    # the same kind of detail, of something never said: answered by the clause alone when it stands apart
    ("how long have I been playing the piano?", "had it about 5 years"),
    ("how long have I been vegetarian?", "had it about 5 years"),
    ("where does my cat sleep?", "sleeps on the sofa"),
])
def test_a_detail_of_one_thing_answers_nothing_about_another(stores, question, alone):
    assert stores[True].recall(question, user_id="u").hits == []
    assert any(alone in h.memory.text for h in stores[False].recall(question, user_id="u").hits)


@pytest.mark.parametrize("question, thing, detail", [
    ("how long have I had my car?", "Golf", "5 years"),
    ("what happens when I eat peanuts?", "peanuts", "swells up"),
    ("where does the greyhound sleep?", "greyhound", "sofa"),
])
def test_the_detail_is_found_with_its_thing(stores, question, thing, detail):
    top = stores[True].recall(question, user_id="u").hits[0].memory.text
    assert thing in top and detail in top
    assert not any(thing in h.memory.text and detail in h.memory.text
                   for h in stores[False].recall(question, user_id="u").hits)


@pytest.mark.parametrize("joined", [True, False])
def test_the_detail_goes_into_history_with_its_thing(stores_by, joined):
    told = ["I drive a VW Golf, had it about 5 years now", "sold the golf last week, I drive a Tesla Model 3 now"]
    with stores_by("join_pointing_back", (joined,), told) as made:
        hits = made[joined].recall("how long have I had my car?", user_id="u").hits
    assert (not any("5 years" in h.memory.text for h in hits)) is joined
