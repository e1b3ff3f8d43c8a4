"""A role or task handed to someone else replaces who held it: the new holder typed in lower case and named first
(extraction/casing.py, Candidate.opens_with_name), or taking it over ("took over", resolve._CHANGE_WORDS), also
when the clause's slot is a guess of an accumulating one. The real model, SQLite, Chroma and WordNet. With
`name_case` off the lower-case rows keep both facts, which is what they pin. The sentences are our own, not
evaluation cases."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def stores(stores_by):
    with stores_by("name_case", (True, False)) as made:
        yield made


# (user, the old holder, the message, whom "who ...?" names after it, or None when the old holder stays)
HANDOVERS = [
    # the new holder typed in lower case, named first
    ("walks", "Our dog walker is Imogen.", "teodor from the next street walks our dog now", "who walks our dog?",
     "Teodor"),
    ("cleaning", "Our cleaner is Magda.", "oksana from the flat below does our cleaning now", "who does our cleaning?",
     "Oksana"),
    # taken over
    ("guitar", "My guitar teacher is Mr Hollis, lessons are on Thursdays.",
     "his daughter tess took over my guitar lessons when he moved away", "who teaches me guitar?", "Tess"),
    # once, not from now on; someone else's; a place taken over, no one holding the role
    ("once", "Our window cleaner is Bartek.", "bartek was away so nadia cleaned our windows this time",
     "who cleans our windows?", None),
    ("hers", "Our window cleaner is Bartek.", "my sister's window cleaner is nadia now", "who cleans our windows?",
     None),
    ("room", "My guitar teacher is Mr Hollis.", "my guitar stuff took over the spare room lol",
     "who teaches me guitar?", None),
]


@pytest.mark.parametrize("user, old, new, question, holder", HANDOVERS, ids=[h[0] for h in HANDOVERS])
def test_who_holds_the_role_after_the_message(stores, user, old, new, question, holder):
    store = stores[True]
    store.ingest(old, user_id=user)
    status = store.ingest(new, user_id=user).status
    hits = store.recall(question, user_id=user).hits
    if holder is None:
        assert status == "created" and len(store.list_memories(user_id=user)) == 2
        return
    assert status == "superseded"
    assert hits and holder in hits[0].memory.text
    assert [m.text for m in store.list_memories(user_id=user)] == [hits[0].memory.text]


@pytest.mark.parametrize("user, old, new", [h[:3] for h in HANDOVERS[:2]], ids=[h[0] for h in HANDOVERS[:2]])
def test_typed_in_lower_case_with_name_case_off_both_stay(stores, user, old, new):
    stores[False].ingest(old, user_id=user)
    assert stores[False].ingest(new, user_id=user).status == "created"
    assert len(stores[False].list_memories(user_id=user)) == 2
