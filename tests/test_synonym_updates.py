"""The same thing called by another word (kinds.Kinds.same_thing, resolve.py rule 16): "new glasses" after "User's
specs are ...", "swapped to a lighter stroller" after "User's pram is ...". The sentences and word pairs are our own,
not evaluation cases: they pin the class."""
from __future__ import annotations

import pytest

from engine.extraction import Candidate
from engine.kinds import WordNetKinds
from engine.model import Memory
from engine.resolve import Neighbour, SlotState, plan_candidate

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def wordnet():
    return WordNetKinds()


@pytest.mark.parametrize("a, b", [
    ("specs", "glasses"), ("sofa", "couch"), ("film", "movie"), ("holiday", "vacation"), ("bike", "bicycle"),
    ("salary", "pay"), ("wage", "salary"), ("pram", "pushchair"), ("telly", "television"),
    ("flat", "apartment"),  # the seventh of "flat"'s senses, the first of "apartment"'s
    ("hairdresser", "stylist"), ("automobile", "car"), ("gym", "gymnasium"), ("lift", "elevator"),
    ("petrol", "gasoline"), ("attorney", "lawyer"), ("phone", "telephone"),
    # a word cut short, no noun of its own
    ("physio", "physiotherapist"), ("admin", "administrator"),
])
def test_two_words_for_one_thing(wordnet, a, b):
    assert wordnet.same_thing(a, b) and wordnet.same_thing(b, a)


@pytest.mark.parametrize("a, b", [
    ("car", "car"),  # one word is no other word for it
    ("coffee", "tea"), ("dog", "cat"),  # two things of one kind
    ("dog", "animal"), ("laptop", "computer"),  # a thing and its kind
    ("house", "flat"), ("lunch", "dinner"), ("dentist", "doctor"), ("fridge", "refrigerator"),
    ("car", "machine"),  # the car is only the fifth sense of "machine", and "machine" not the car's first word
    ("glasses", "glass"),  # a plural with a meaning of its own
    ("new", "fresh"), ("feel", "touch"),  # said of no thing
    ("quinoa", "zzzz"),
    # the first letters of a word that are a noun of their own, or too few of them
    ("photo", "photographer"), ("carp", "carpenter"), ("physio", "physician"), ("gymnast", "gymnastics"),
])
def test_not_one_thing(wordnet, a, b):
    assert not wordnet.same_thing(a, b)


@pytest.mark.parametrize("a, b, thing", [
    # things one has or uses, and people, are things; a place, a time or a doing is not
    ("pram", "pushchair", True), ("sofa", "couch", True), ("hairdresser", "stylist", True),
    ("place", "spot", False), ("holiday", "vacation", False),
])
def test_one_thing_had_or_used(wordnet, a, b, thing):
    assert wordnet.same_thing(a, b)
    assert wordnet.same_thing(a, b, things_only=True) is thing


# The same relation as a table, for the rule's tests below.
_SAME = {frozenset(p) for p in [("specs", "glasses"), ("pram", "stroller"), ("sofa", "couch"), ("film", "movie"),
                                ("flat", "apartment")]}


# (thing, a substance it is made with)
_MADE_WITH = {("espresso", "caffeine"), ("coffee", "caffeine")}


class TableKinds:
    def kinds_of(self, word: str) -> frozenset[str]:
        return frozenset()

    def kind_shared(self, a: str, b: str) -> str | None:
        return None

    def is_a(self, word: str, kind: str) -> bool:
        return False

    def covers(self, word: str, kind: str) -> bool:
        return self.is_a(word, kind) or (word, kind) in _MADE_WITH

    def same_thing(self, a: str, b: str, *, things_only: bool = False) -> bool:
        return frozenset((a, b)) in _SAME


def _memory(id: int, text: str, *, attribute: str = "note", user: str = "u") -> Memory:
    return Memory(id=id, user_id=user, text=text, type="fact", subject="user", attribute=attribute,
                  value=text.rstrip("."), importance=0.5, message_id=1)


def _clause(text: str) -> Candidate:
    clause = text.replace("User", "I")
    return Candidate(subject="user", attribute="note", value=clause, type="fact", importance=0.45, multi=True,
                     text=text, clause=clause, understood=False)


def _plan(text: str, old: Memory, similarity: float, *, floor: float | None = 0.10, kinds=TableKinds()):
    return plan_candidate(_clause(text), SlotState(), lambda n: [Neighbour(old, similarity)][:n], user_id="u",
                          message_id=99, conflict_threshold=0.5, cue_margin=0.15, kinds=kinds,
                          synonym_update_floor=floor)


SPECS = _memory(1, "User's specs are thin wire frames from Boots.", attribute="specs")
PRAM = _memory(2, "User's pram is a Silver Cross Wave.", attribute="pram")
SOFA = _memory(3, "User has a brown leather sofa in the lounge.")
FLAT = _memory(4, "User rents a flat in Hull.")


@pytest.mark.parametrize("old, new, similarity, replaced", [
    (SPECS, "User picked up new glasses last week, round Oliver Peoples.", 0.15, True),
    (SPECS, "User's glasses are Zenni ones now.", 0.2, True),
    (PRAM, "User switched to a stroller, the Joolz Aer, much lighter.", 0.15, True),
    (SOFA, "User finally got rid of the couch, the dog wrecked it.", 0.5, True),  # an end said of the thing
    (FLAT, "User moved into an apartment in Leeds.", 0.3, True),
    (FLAT, "User lives in an apartment in Leeds these days.", 0.3, True),
    # no word of change: one more thing said
    (SPECS, "User wears glasses for reading, round Oliver Peoples.", 0.3, False),
    # a wish, an addition, someone else's
    (SPECS, "User is thinking about new glasses, maybe Oliver Peoples.", 0.3, False),
    (SOFA, "User also got a couch for the office, a Habitat one.", 0.3, False),
    (FLAT, "User's parents moved into an apartment in Leeds.", 0.3, False),
    # "new" said of no thing of one's own: a film out, not one's favourite
    (_memory(5, "User's favourite film is Heat."), "The new movie by Nolan is out, Oppenheimer.", 0.3, False),
    # a new value of nothing: the same word said again is rule 7's, no other word for the thing
    (SPECS, "User got new Oakleys for cycling.", 0.3, False),
    # too far apart even for two words of one thing
    (SPECS, "User picked up new glasses last week, round Oliver Peoples.", 0.05, False),
    # an accumulating slot changes only when its value is named
    (_memory(6, "User collects vintage films, mostly Hitchcock.", attribute="hobbies"),
     "User collects movies on VHS now, mostly Carpenter.", 0.4, False),
])
def test_the_same_thing_in_other_words_with_a_word_of_change_replaces(old, new, similarity, replaced):
    assert (_plan(new, old, similarity).supersede_ids == [old.id]) is replaced


LAPTOP = _memory(7, "User's laptop is a ThinkPad X1.", attribute="laptop")
KETTLE = _memory(8, "User's kettle is a Breville.", attribute="kettle")


# An end said of "the old" thing by its own word: the memory holding that thing is ended (what follows it in the
# message may take its place, resolve.takes_the_place).
@pytest.mark.parametrize("old, new, similarity, replaced", [
    (LAPTOP, "User sold the old laptop last week.", 0.6, True),
    (KETTLE, "User binned the old kettle, it kept tripping the fuse.", 0.5, True),
    (SOFA, "User binned the old couch.", 0.5, True),  # and by another word for it
    (SOFA, "User got rid of the old sofa cushions.", 0.5, False),  # the cushions, not the sofa
    (LAPTOP, "User's brother sold his old laptop.", 0.5, False),  # someone else's
    (LAPTOP, "User loved the old laptop.", 0.5, False),  # no end
    (LAPTOP, "User left the old laptop at their mum's.", 0.6, False),  # left somewhere, not given up
    (SOFA, "User wants to get rid of the old sofa.", 0.5, False),  # a wish
    (LAPTOP, "User sold the old laptop.", 0.05, False),  # too far apart
])
def test_an_end_of_the_old_thing_ends_the_memory_holding_it(old, new, similarity, replaced):
    assert (_plan(new, old, similarity).supersede_ids == [old.id]) is replaced


def test_rule_16_is_off_without_kinds_or_a_floor():
    new = "User picked up new glasses last week, round Oliver Peoples."
    assert _plan(new, SPECS, 0.3, floor=None).supersede_ids == []
    assert _plan(new, SPECS, 0.3, kinds=None).supersede_ids == []
    assert "glasses" in _plan(new, SPECS, 0.3).reason
