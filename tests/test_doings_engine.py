"""A doing said by its verb alone ("I surf whenever the waves are decent") answers a question asking by its kind
("what sport do I do?"): its -ing noun is the instance (kinds.doings), and the memory is compared said with that
noun, since MiniLM does not put "User surfs" near "User does surfing". A kind said in two words must be the
phrase WordNet knows ("water sport"), a verb with something done to is another doing, and a wish is no doing. The
real model, SQLite, Chroma and WordNet; with `doing_words` off the rows that need it are not answered, which is what
they pin. The sentences are our own, not evaluation cases."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration

# (user, what the user said, besides a fact of another kind, the question, a word the answer says or None)
DOINGS = [
    ("surf", "I surf whenever the waves are decent", "what sport do I do?", "surfs"),
    ("row", "I row on the canal before work most days", "what sport do I do before work?", "rows"),
    ("water", "I swim three mornings a week at the lido", "what water sport do I do?", "swims"),
    ("pair", "me and my daughter skate at the rink on saturdays", "which sport do my daughter and I do?", "skate"),
    # a long chatty memory: compared as said by its verb, "User does boxing" and it stay apart
    ("box", "I box twice a week at a little gym by the station, best stress relief there is", "what sport do I do?",
     "boxes"),
    # not a doing of its kind: something done to, only wished for, a kind WordNet does not give it
    ("bakery", "I run a small bakery on the high street", "what sport do I do?", None),
    ("orders", "I box up the orders for my shop every friday", "what sport do I do on fridays?", None),
    ("wish", "I'd love to surf one day, never tried it", "what sport do I do?", None),
    ("combat", "I surf whenever the waves are decent", "what combat sport do I do?", None),
]
OTHER_FACT = "My sister lives in Bristol."


@pytest.fixture(scope="module")
def stores(stores_by):
    with stores_by("doing_words", (True, False)) as made:
        for store in made.values():
            for user, said, _, _ in DOINGS:
                store.ingest(OTHER_FACT, user_id=user)
                store.ingest(said, user_id=user)
        yield made


@pytest.mark.parametrize("user, said, question, answer", DOINGS, ids=[d[0] for d in DOINGS])
def test_a_doing_said_by_its_verb_answers_its_kind(stores, user, said, question, answer):
    hits = stores[True].recall(question, user_id=user).hits
    if answer is None:
        assert hits == []
    else:
        assert hits and answer in hits[0].memory.text


def test_with_doing_words_off_the_verb_is_not_read_as_its_noun(stores):
    refused = {user for user, _, question, answer in DOINGS
               if answer and not stores[False].recall(question, user_id=user).hits}
    assert refused == {"surf", "row", "box"}  # the others the model puts near enough on its own ("swims", "skate")


def test_a_memory_that_only_wishes_gets_no_statement_said_with_its_instance(stores_by, monkeypatch):
    """With the wish filter off, the model alone may serve a wish ("would love to learn the cello one day" for "what
    instrument do I play?"), but the statement said with the instance ("User plays cello") must not lift it: its
    score is the same with the kind statements off. (With the filter on, the default, it is no candidate at all.)"""
    wish = "I would love to learn the cello one day"
    monkeypatch.setenv("MEMENGINE_WISH_FILTER", "false")
    with stores_by("kind_statements", (8, 0), [wish]) as made:
        scores = {n: [h.score for h in store.recall("what instrument do I play?", user_id="u").candidates
                      if "cello" in h.memory.text] for n, store in made.items()}
    assert scores[8] and scores[8] == scores[0]
    monkeypatch.delenv("MEMENGINE_WISH_FILTER")
    with stores_by("kind_statements", (8,), [wish]) as made:
        assert made[8].recall("what instrument do I play?", user_id="u").candidates == []
