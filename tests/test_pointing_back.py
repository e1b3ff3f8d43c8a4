"""Rule 13 (resolve.pointed_back) on plain inputs: no model, no store.

A change said with a word pointing back ("it", "they", "he", "that", "not anymore") replaces the newest memory of
the user's last messages holding a value of its kind. The sentences are our own, not the suite's: they pin the
class, not the cases."""
from __future__ import annotations

import pytest

from engine.extraction import Candidate
from engine.model import Memory
from engine.resolve import pointed_back

pytestmark = pytest.mark.unit

NEW_MESSAGE = 99


def _memory(id: int, text: str, *, message_id: int, attribute: str = "note", subject: str = "user",
            speaker: str | None = None) -> Memory:
    return Memory(id=id, user_id="u", text=text, type="fact", subject=subject, attribute=attribute, value=text,
                  importance=0.5, status="active", message_id=message_id, multi_valued=False, speaker=speaker)


def _replaced(recent: list[Memory], message: str, clause: str, text: str) -> list[int]:
    cand = Candidate(subject="user", attribute="note", value=clause, type="fact", importance=0.45, multi=True,
                     text=text, clause=clause, understood=False)
    found, why = pointed_back(cand, message, sorted(recent, key=lambda m: -m.id), user_id="u", message_id=NEW_MESSAGE)
    assert bool(found) == bool(why)
    return found


FEE = _memory(1, "User's gym membership is 42 pounds a month.", message_id=10)
CLASS = _memory(2, "User's salsa class is at 7pm on Wednesdays.", message_id=11)
PLUMBER = _memory(3, "User's plumber is Kenny Doyle.", message_id=12)
ENERGY = _memory(4, "User gets their electricity from Octopus.", message_id=13)
COUSIN = _memory(5, "User's cousin lives in Bristol.", message_id=14)
SAVINGS = _memory(6, "User's savings account is with Nationwide.", message_id=15)


@pytest.mark.parametrize("recent, message, clause, text, replaced", [
    # an amount or a time pointed back to, with a word saying it moved
    ([FEE], "ugh they put it up to 49 pounds", "they put it up to 49 pounds", "They put it up to 49 pounds.", [1]),
    ([CLASS], "the teacher moved it to 8:15", "the teacher moved it to 8:15", "The teacher moved it to 8:15.", [2]),
    # the newest memory holding a value of that kind is the one pointed back to
    ([FEE, CLASS], "it's been shifted to 6:30", "it's been shifted to 6:30", "It's been shifted to 6:30.", [2]),
    ([CLASS, FEE], "they hiked it to 55 quid", "they hiked it to 55 quid", "They hiked it to 55 quid.", [1]),
    # a name: the old holder left, or "now" with nothing said besides the name
    ([PLUMBER], "he retired, a woman called Ines Moreau does it now", "a woman called Ines Moreau does it now",
     "A woman called Ines Moreau does it now.", [3]),
    ([PLUMBER], "a woman called Ines Moreau does it now", "a woman called Ines Moreau does it now",
     "A woman called Ines Moreau does it now.", []),  # "now" alone, and "woman", "does": more than the memory says
    ([PLUMBER], "he retired, so it's Ines Moreau now", "it's Ines Moreau now", "It's Ines Moreau now.", [3]),
    ([ENERGY], "it's Ovo now", "it's Ovo now", "It's Ovo now.", [4]),
    ([ENERGY], "cancelled that, went with Ovo instead", "cancelled that, went with Ovo instead",
     "User cancelled that, went with Ovo instead.", [4]),
    # "he"/"she" point to a person: the newest memory of a person, not the newest of a name
    ([COUSIN, SAVINGS], "he moved to Exeter in the end", "he moved to Exeter in the end",
     "He moved to Exeter in the end.", [5]),
    # "now" alone says a clock, a price or the weather as often as a change
    ([CLASS], "it's 5pm now, off to the shop", "it's 5pm now", "It's 5pm now.", []),
    ([ENERGY], "it's sunny in Seville now", "it's sunny in Seville now", "It's sunny in Seville now.", []),
    # someone doing it to the thing pointed back to is no thing of its own
    ([FEE], "the owner pushed it up to 47 pounds", "the owner pushed it up to 47 pounds",
     "The owner pushed it up to 47 pounds.", [1]),
    # no word pointing back, or a thing of its own: not this rule's
    ([FEE], "moved up to 49 pounds", "moved up to 49 pounds", "Moved up to 49 pounds.", []),
    ([FEE], "my phone bill went up to 30 pounds", "my phone bill went up to 30 pounds",
     "User's phone bill went up to 30 pounds.", []),
    # for one occasion, an addition, a wish: nothing replaced
    ([CLASS], "it's at 9pm this time, the hall is booked", "it's at 9pm this time", "It's at 9pm this time.", []),
    ([CLASS], "the teacher moved it to 8:15 tomorrow", "the teacher moved it to 8:15 tomorrow",
     "The teacher moved it to 8:15 tomorrow.", []),
    ([ENERGY], "it's also from Ovo now", "it's also from Ovo now", "It's also from Ovo now.", []),
    ([FEE], "they want to put it up to 49 pounds", "they want to put it up to 49 pounds",
     "They want to put it up to 49 pounds.", []),
    # a value of another kind than the memory's
    ([FEE], "they moved it to Thursdays", "they moved it to Thursdays", "They moved it to Thursdays.", []),
    # two memories of one message holding such a value: anyone's guess
    ([_memory(7, "User's piano lesson is at 4pm.", message_id=20), _memory(8, "User's violin lesson is at 5pm.",
                                                                            message_id=20)],
     "they moved it to 6pm", "they moved it to 6pm", "They moved it to 6pm.", []),
    # a title's full stop ends no sentence
    ([PLUMBER], "he retired, so I call Mr. Ince now", "I call Mr. Ince now", "User calls Mr. Ince now.", [3]),
    # a pointer or a change in another sentence of the message is about something else
    ([PLUMBER], "Don't quit on it! Sam helps me now", "Sam helps me now", "Sam helps User now.", []),
    ([ENERGY], "Loved it. Showing them round was a moving day with Ovo", "Showing them round was a moving day with Ovo",
     "Showing them round was a moving day with Ovo.", []),
    # the people of the conversation are no value to replace: their names are in every sentence
    ([_memory(11, "Talking to Priya makes Tom feel calm.", message_id=16, subject="tom", speaker="Priya")],
     "he switched it, it's Ravi now", "it's Ravi now", "It's Ravi now.", []),
    # a chat sentence's capitalised first word is no name: "Keep" is no new value, "Tom" talks
    ([_memory(12, "Tom is sure the puppies will settle in at Greenfields.", message_id=17, subject="tom",
              speaker="Tom")], "Keep me updated on their progress", "Keep me updated on their progress",
     "Keep Tom updated on their progress.", []),
    # a memory of the same message, or of an accumulating slot, is never replaced
    ([_memory(9, "User's rent is 800 euros.", message_id=NEW_MESSAGE)], "it went up to 850 euros",
     "it went up to 850 euros", "It went up to 850 euros.", []),
    ([_memory(10, "User plays at the Riverside club at 6pm.", message_id=30, attribute="hobbies")],
     "they moved it to 7pm", "they moved it to 7pm", "They moved it to 7pm.", []),
])
def test_rule_13_a_change_pointing_back(recent, message, clause, text, replaced):
    assert _replaced(recent, message, clause, text) == replaced


def test_the_recent_memories_are_read_only_for_a_clause_that_points_back_with_a_change():
    def never() -> list[Memory]:
        raise AssertionError("read for a clause with no word pointing back")

    cand = Candidate(subject="user", attribute="note", value="I moved to Exeter", type="fact", importance=0.45,
                     multi=True, text="User moved to Exeter.", clause="I moved to Exeter", understood=False)
    assert pointed_back(cand, "I moved to Exeter", never, user_id="u", message_id=NEW_MESSAGE) == ([], "")
    said = Candidate(subject="user", attribute="note", value="he moved to Exeter", type="fact", importance=0.45,
                     multi=True, text="He moved to Exeter.", clause="he moved to Exeter", understood=False)
    assert pointed_back(said, "he moved to Exeter", lambda: [COUSIN], user_id="u", message_id=NEW_MESSAGE)[0] == [5]
