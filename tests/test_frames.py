"""Frames (engine/extraction/frames.py) and rule 12 (resolve.frame_kept) on plain inputs: no model, no store.

The sentences are our own, not the suite's: they pin the class (a change said in the old fact's verb and
preposition, with a pronoun or the speaker where the old fact named its thing), not the cases."""
from __future__ import annotations

import pytest

from engine.extraction import Candidate
from engine.extraction.extractor import informative
from engine.extraction.frames import frame, kept, last_frame, restate
from engine.model import Memory
from engine.resolve import Neighbour, frame_kept

pytestmark = pytest.mark.unit

NEW_MESSAGE = 99


@pytest.mark.parametrize("text, subject, verb, obj, prep, value", [
    ("User's choir rehearses at the church hall.", "thing", "rehears", "", "at", "the church hall"),
    ("User rehearses at the scout hut now.", "user", "rehears", "", "at", "the scout hut"),
    ("User's broadband is with Virgin.", "thing", "be", "", "with", "virgin"),
    ("User is with Sky this year.", "user", "be", "", "with", "sky"),
    ("User orders it from Abel & Cole now.", "user", "order", "pronoun", "from", "abel & cole"),
    ("User orders their veg from Riverford.", "user", "order", "veg", "from", "riverford"),
    ("The recycling goes out on Tuesdays.", "thing", "go", "", "on", "tuesdays"),
    ("They go out on Fridays now.", "pronoun", "go", "", "on", "fridays"),
    ("It's on Wednesday evenings these days.", "pronoun", "be", "", "on", "wednesday evenings"),
    ("User is living with two flatmates.", "user", "liv", "", "with", "two flatmates"),
    ("User meets upstairs at the Rose and Crown now.", "user", "meet", "", "at", "the rose and crown"),
    ("User's nephews play at the rec on Saturdays.", "thing", "play", "", "at", "the rec on saturdays"),
])
def test_a_frame_is_who_does_what_with_which_preposition(text, subject, verb, obj, prep, value):
    found = frame(text)
    assert found is not None
    assert (found.subject, found.verb, found.obj, found.prep, found.value) == (subject, verb, obj, prep, value)


@pytest.mark.parametrize("text", [
    "Dana is User's personal trainer.",  # a person, not a thing
    "Since the move User goes by bus.",  # a clause of its own comes first
    "User loves it.",  # no preposition
    "User is happy.",
    "Users of the forum meet at noon.",  # a preposition inside the subject
])
def test_no_frame(text):
    assert frame(text) is None


def test_the_last_part_of_a_sentence_with_a_frame():
    found, part, before = last_frame("The council changed the rounds, they go out on Mondays now.")
    assert (found.subject, found.verb, found.prep, found.value) == ("pronoun", "go", "on", "mondays")
    assert part == "They go out on Mondays now." and before.startswith("The council")
    found, part, _ = last_frame("Since moving to Leith User swims at the Commonwealth Pool.")
    assert (found.subject, found.verb, found.value) == ("user", "swim", "the commonwealth pool")


@pytest.mark.parametrize("old, new, same", [
    ("User's choir rehearses at the church hall.", "User rehearses at the scout hut now.", True),
    ("User's choir rehearses at the church hall.", "User rehearses in Tom's barn now.", True),  # at / in: a place
    ("User orders their veg from Riverford.", "User orders it from Abel & Cole now.", True),
    ("User orders their veg from Riverford.", "User orders their meat from Donald Russell now.", False),
    ("User's choir rehearses at the church hall.", "User's darts team rehearses at the Crown.", False),
    ("The recycling goes out on Tuesdays.", "They go out on Fridays now.", True),
    ("User's broadband is with Virgin.", "User is with Sky this year.", True),
    ("User's broadband is with Virgin.", "User's broadband is with Virgin again.", False),  # the same value
    ("User's choir rehearses at the church hall.", "User sings at the church hall.", False),  # another verb
    ("User's broadband is with Virgin.", "It's on Sky now.", False),  # another preposition
])
def test_a_frame_kept_with_another_value(old, new, same):
    assert kept(frame(old), last_frame(new)[0]) is same


@pytest.mark.parametrize("old, new, restated", [
    ("User's choir rehearses at the church hall.", "User rehearses at the scout hut now.",
     "User's choir rehearses at the scout hut."),
    ("User's broadband is with Virgin.", "Renewal was a joke, User is with Sky this year.",
     "User's broadband is with Sky."),
    ("The recycling goes out on Tuesdays.", "They go out on Fridays now.", "The recycling goes out on Fridays."),
    ("User goes to bed at midnight.", "User goes to bed at 10:30 now.", "User goes to bed at 10:30."),  # a clock time
    ("User's broadband is with Virgin.", "User is at the gym now.", None),
])
def test_restated_in_the_old_frame(old, new, restated):
    assert restate(old, new) == restated


def _memory(id: int, text: str, *, attribute: str = "note", message_id: int = 1) -> Memory:
    return Memory(id=id, user_id="u", text=text, type="fact", subject="user", attribute=attribute, value=text,
                  importance=0.5, status="active", message_id=message_id, multi_valued=False)


def _clause(clause: str, text: str) -> Candidate:
    return Candidate(subject="user", attribute="note", value=clause, type="fact", importance=0.45, multi=True,
                     text=text, clause=clause, understood=False)


def _replaced(memories: list[Memory], clause: str, text: str, rest: str = "") -> list[int]:
    found, _ = frame_kept(_clause(clause, text), rest, [Neighbour(m, 0.3) for m in memories], user_id="u",
                          message_id=NEW_MESSAGE)
    return found


CHOIR = _memory(1, "User's choir rehearses at the church hall.")
BROADBAND = _memory(2, "User's broadband is with Virgin.")
VEG = _memory(3, "User orders their veg from Riverford.")
GYM = _memory(4, "User's gym is on Mill Road.")
CLASS = _memory(5, "User's pottery class is on Tuesdays.")


@pytest.mark.parametrize("memories, clause, text, rest, replaced", [
    # the only memory said that way: the speaker or a pronoun stands for its thing
    ([CHOIR, BROADBAND], "we rehearse at the scout hut now", "User rehearses at the scout hut now.", "", [1]),
    ([VEG, CHOIR], "I order it from Abel & Cole now", "User orders it from Abel & Cole now.", "", [3]),
    # two memories of one frame: the rest of the message names which
    ([GYM, CLASS], "it's on Thursdays now", "It's on Thursdays now.", "pottery teacher changed jobs", [5]),
    ([GYM, CLASS], "it's on Thursdays now", "It's on Thursdays now.", "", []),
    # "be with" said by the speaker stands for a thing only when the message names it
    ([BROADBAND], "I'm with Sky this year", "User is with Sky this year.", "the broadband renewal was silly", [2]),
    ([BROADBAND], "I'm with Sam now", "User is with Sam now.", "", []),
    # no word of change: an addition or a habit, not an update
    ([CHOIR], "we rehearse at the scout hut", "User rehearses at the scout hut.", "", []),
    ([CHOIR], "we also rehearse at the scout hut now", "User also rehearses at the scout hut now.", "", []),
    # a thing of its own is not a pronoun standing for the old one
    ([CHOIR], "my band rehearses at the scout hut now", "User's band rehearses at the scout hut now.", "", []),
    # someone else's fact is not the user's
    ([_memory(6, "User's brother works at Arup.")], "I work at Atkins now", "User works at Atkins now.", "", []),
    # a memory of the same message is never replaced
    ([_memory(1, "User's choir rehearses at the church hall.", message_id=NEW_MESSAGE)],
     "we rehearse at the scout hut now", "User rehearses at the scout hut now.", "", []),
])
def test_rule_12_the_old_frame_said_again(memories, clause, text, rest, replaced):
    assert _replaced(memories, clause, text, rest) == replaced


def test_rule_12_never_touches_an_accumulating_slot():
    hobby = _memory(7, "User plays at the tennis club.", attribute="hobbies")
    assert _replaced([hobby], "I play at the leisure centre now", "User plays at the leisure centre now.") == []


@pytest.mark.parametrize("clause, kept_it", [
    ("I get it from Rave now", True),  # a name after a preposition is the fact, however short
    ("we're with EDF", True),
    ("I'm on Vodafone", True),
    ("I get it.", False),  # talk
    ("I get it from you", False),
    # thinking something over is talk, however many words
    ("need to sleep on it", False),
    ("I'll have to think about it first", False),
    ("gotta mull it over", False),
    ("I think about my dad a lot", True),  # a thought with something in it stays
])
def test_what_a_few_words_keep(clause, kept_it):
    assert informative(clause) is kept_it


@pytest.mark.parametrize("old, new, apart", [
    ("User's sister works at Deloitte.", "User works at KPMG now.", True),
    ("User's dad lives in Leeds.", "User lives in York now.", True),
    ("User's daughter's allowance is 5 euros.", "User increased her allowance to 7 euros.", False),  # "her"
    ("User's dentist is Dr. Patel on King Street.", "User had to find a new dentist.", False),  # a role named
    ("User's landlord is Mr. Hughes.", "User's new landlord is some company.", False),
    ("User works at Arup.", "User works at Atkins now.", False),
])
def test_a_fact_about_the_user_alone_is_not_about_a_relatives_life(old, new, apart):
    from engine.resolve import _own_against_relatives
    assert _own_against_relatives(old, new) is apart


@pytest.mark.parametrize("text, verb, obj, value", [
    ("User's recycling gets collected on Mondays.", "collect", "", "mondays"),  # a passive with "get"
    ("It gets emptied on Fridays now.", "empty", "", "fridays"),
    ("User's bike is serviced at Evans Cycles.", "servic", "", "evans cycles"),  # a passive with "be"
    ("User walks her along the canal now.", "walk", "pronoun", "the canal"),  # "her": the dog
])
def test_a_frame_through_a_participle_or_a_pronoun_object(text, verb, obj, value):
    found = last_frame(text)[0]
    assert (found.verb, found.obj, found.value) == (verb, obj, value)


@pytest.mark.parametrize("text, one", [
    ("User's GP surgery is Parkside Medical.", True),  # one holder named, whatever slot a guess filed it under
    ("Dr. Amadi is User's GP.", True),
    ("User's friend is Sam.", False),  # friends are held several at a time
    ("User's favourite bands are Muse and Blur.", False),
    ("User's hobby is chess.", False),  # no name
    ("User's sister's school is Oakfield.", False),  # someone else's
    ("User plays guitar.", False),
])
def test_a_sentence_naming_the_one_holder_of_a_role(text, one):
    from engine.extraction.compete import holds_one
    assert holds_one(text) is one


@pytest.mark.parametrize("old, new, other", [
    ("User's standup is at 9:30.", "Standup ran long today, lunch is at 1 now.", True),  # lunch's time
    ("User's pottery class is on Tuesdays.", "Pottery was fun, my swimming lesson is on Fridays now.", True),
    ("User's standup is at 9:30.", "New manager wants it earlier, standup is at 9 now.", False),
    ("User's standup is at 9:30.", "Standup is at 9 now.", False),  # one part: other rules judge it
    ("User's standup is at 9:30.", "New manager wants it earlier, it's at 9 now.", False),  # a pronoun
    ("User goes to bed at midnight.", "New routine: lights out at 10:30.", False),  # the part before is a label
])
def test_the_value_of_another_thing_said_after_a_part_about_the_old_one(old, new, other):
    from engine.extraction.compete import topic_words
    from engine.extraction.frames import value_of_another_thing
    assert value_of_another_thing(topic_words(old), new) is other
