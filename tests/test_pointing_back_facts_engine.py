"""A clause that points back to the thing said before it ("I drive a VW Golf, had it about 5 years now") is kept in
that thing's memory: it answers questions about the thing, no question about anything else, and goes into history
with the thing when the thing is replaced. The real model, SQLite and Chroma."""
from __future__ import annotations

import pytest

from engine import MemoryEngine, Settings

pytestmark = pytest.mark.integration

TOLD = [
    "I drive a VW Golf, had it about 5 years now",
    "I'm allergic to peanuts, my mouth swells up if I eat them",
    "we got a rescue greyhound in may. she sleeps on the sofa most of the day",
]


@pytest.fixture(scope="module")
def store(tmp_path_factory, embedder):
    eng = MemoryEngine(Settings(data_dir=tmp_path_factory.mktemp("pointing-back")), embedder=embedder)
    for message in TOLD:
        eng.ingest(message, user_id="u")
    yield eng
    eng.close()


@pytest.mark.parametrize("question", [
    "how long have I been playing the piano?",  # the same kind of detail, of something never said
    "how long have I been vegetarian?",
    "where does my cat sleep?",
])
def test_a_detail_of_one_thing_answers_nothing_about_another(store, question):
    assert store.recall(question, user_id="u").hits == []


@pytest.mark.parametrize("question, thing, detail", [
    ("how long have I had my car?", "Golf", "5 years"),
    ("what happens when I eat peanuts?", "peanuts", "swells up"),
    ("where does the greyhound sleep?", "greyhound", "sofa"),
])
def test_the_detail_is_found_with_its_thing(store, question, thing, detail):
    top = store.recall(question, user_id="u").hits[0].memory.text
    assert thing in top and detail in top


def test_the_detail_goes_into_history_with_its_thing(engine):
    engine.ingest("I drive a VW Golf, had it about 5 years now", user_id="u")
    engine.ingest("sold the golf last week, I drive a Tesla Model 3 now", user_id="u")
    hits = engine.recall("what car do I drive?", user_id="u").hits
    assert hits and "Tesla" in hits[0].memory.text
    assert not any("5 years" in h.memory.text for h in hits)
