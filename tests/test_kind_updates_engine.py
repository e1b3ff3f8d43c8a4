"""Another thing of the kind a memory names, said with a word of change, replaces it (resolve.py rule 14), and an end
said of a whole kind ends the things of that kind (rule 15): the real model, SQLite, Chroma and WordNet. Each
replacing row keeps both facts with its rule off (settings.kind_update_floor, ended_kind_floor), which is what the
rows pin; the rows that must keep both facts do so with it on. The sentences are our own, not evaluation cases."""
from __future__ import annotations

import pytest

from engine import MemoryEngine, Settings

pytestmark = pytest.mark.integration


def _on_and_off(tmp_path_factory, embedder, knob: str, value: float):
    """Two stores, {True: the rule on at `value`, False: off}."""
    made = {on: MemoryEngine(Settings(data_dir=tmp_path_factory.mktemp(f"{knob}-{on}"),
                                      **{knob: value if on else None}), embedder=embedder)
            for on in (True, False)}
    yield made
    for engine in made.values():
        engine.close()


@pytest.fixture(scope="module")
def stores(tmp_path_factory, embedder):
    yield from _on_and_off(tmp_path_factory, embedder, "kind_update_floor", 0.40)


def _said(engine: MemoryEngine, user: str, old: str, new: str) -> str:
    engine.ingest(old, user_id=user)
    return engine.ingest(new, user_id=user).status


@pytest.mark.parametrize("user, old, new, question, now, before", [
    # the old sentence is restated with the one thing swapped
    ("porridge", "I sweeten my porridge with sugar.", "porridge gets honey now, trying to cut down",
     "what do I sweeten my porridge with?", "honey", "sugar"),
    ("lunchboxes", "The kids have apples in their lunchboxes.", "lunchboxes get bananas now",
     "what fruit is in the kids' lunchboxes?", "bananas", "apples"),
    # "pine" only qualifies the wardrobe: the change is kept as said
    ("wardrobe", "The spare room has a pine wardrobe.", "spare room has an oak wardrobe now, the old one fell apart",
     "what wardrobe is in the spare room?", "oak", "pine"),
])
def test_another_of_its_kind_replaces_the_old_thing(stores, user, old, new, question, now, before):
    assert _said(stores[True], user, old, new) == "superseded"
    hits = stores[True].recall(question, user_id=user).hits
    assert hits and now in hits[0].memory.text
    assert not any(before in h.memory.text for h in hits)
    assert _said(stores[False], user, old, new) == "created"
    assert len(stores[False].list_memories(user_id=user)) == 2


@pytest.mark.parametrize("user, old, new", [
    # another garden: each names its own
    ("gardens", "We grow potatoes in the back garden.", "we grow carrots in the front garden now"),
    # one more, though said with "now"
    ("pond", "Our pond has goldfish.", "the pond has a few carp too now"),
    # someone else's
    ("coffee", "I put cream in my coffee.", "my wife puts milk in her coffee now"),
    # a wish
    ("wish", "Our pond has goldfish.", "we'd love carp in the pond one day"),
])
def test_both_things_stay(stores, user, old, new):
    assert _said(stores[True], user, old, new) == "created"
    assert len(stores[True].list_memories(user_id=user)) == 2


@pytest.fixture(scope="module")
def ending_stores(tmp_path_factory, embedder):
    yield from _on_and_off(tmp_path_factory, embedder, "ended_kind_floor", 0.25)


@pytest.mark.parametrize("user, old, new, question, before", [
    ("bacon", "I have a bacon sandwich every Saturday morning.", "gave up meat in the new year, feeling good",
     "what do I have on Saturday mornings?", "bacon"),
    ("poker", "I play poker online most nights.", "done with card games, lost too much money",
     "what do I play most nights?", "poker"),
    # said in a second language, without "don't" (extraction/second_language.py)
    ("beer", "I have a beer after work most days.", "I not drink alcohol anymore, my doctor told me to stop.",
     "what do I drink after work?", "beer"),
    ("lamb", "We have roast lamb every Sunday.", "we not eat meat any more, is too expensive",
     "what do we have on Sundays?", "lamb"),
])
def test_an_end_said_of_a_kind_ends_the_thing_of_that_kind(ending_stores, user, old, new, question, before):
    assert _said(ending_stores[True], user, old, new) == "superseded"
    assert not any(before in h.memory.text for h in ending_stores[True].recall(question, user_id=user).hits)
    assert _said(ending_stores[False], user, old, new) == "created"
    assert any(before in h.memory.text for h in ending_stores[False].recall(question, user_id=user).hits)


@pytest.mark.parametrize("user, old, new", [
    ("dad", "I have a bacon sandwich every Saturday morning.", "my dad gave up meat in the new year"),
    ("weekdays", "I have a bacon sandwich every Saturday morning.", "no more meat on weekdays for me"),
    ("wish", "I have a bacon sandwich every Saturday morning.", "I should really cut out meat"),
    ("porridge", "I have porridge every morning.", "gave up meat in the new year"),  # porridge is no meat
])
def test_the_habit_stays_beside_an_end_of_something_else(ending_stores, user, old, new):
    assert _said(ending_stores[True], user, old, new) == "created"
    assert len(ending_stores[True].list_memories(user_id=user)) == 2
