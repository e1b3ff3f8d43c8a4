"""Another thing of the kind an old memory names, said with a word of change (resolve.py rule 14,
compete.another_of_its_kind, compete.swap_thing), and an end said of a whole kind (rule 15, compete.ended_kinds):
pure, with the kinds given as a table. The sentences are our own, not evaluation cases."""
from __future__ import annotations

import pytest

from engine import text as textlib
from engine.extraction import Candidate
from engine.extraction.compete import ADDS, another_of_its_kind, ended_kinds, in_place, swap_thing
from engine.model import Memory
from engine.resolve import Neighbour, SlotState, plan_candidate

pytestmark = pytest.mark.unit

# word -> (its kind, the kinds it is an instance of)
_TABLE = {
    "oolong": ("tea", {"tea", "beverage"}), "rooibos": ("tea", {"tea", "beverage"}),
    "espresso": ("beverage", {"coffee", "beverage", "beverages"}), "coffee": ("beverage", {"beverage"}),
    "tea": ("beverage", {"beverage"}),
    "trumpet": ("brass", {"brass", "instrument"}), "trombone": ("brass", {"brass", "instrument"}),
    "collie": ("dog", {"dog"}), "poodle": ("dog", {"dog"}),
    "carrots": ("vegetable", {"vegetable"}), "beans": ("vegetable", {"vegetable"}),
    "tub": ("container", {"container"}), "jar": ("container", {"container"}),
}


# (thing, a substance it is made with)
_MADE_WITH = {("espresso", "caffeine"), ("coffee", "caffeine")}


class TableKinds:
    """Two words are of one kind when the table files both under it; kinds_of as kinds.Kinds gives them."""

    def kinds_of(self, word: str) -> frozenset[str]:
        return frozenset(textlib.term(k) for k in _TABLE.get(word, (None, ()))[1])

    def kind_shared(self, a: str, b: str) -> str | None:
        kind_a, kind_b = _TABLE.get(a, (None,))[0], _TABLE.get(b, (None,))[0]
        return kind_a if a != b and kind_a is not None and kind_a == kind_b else None

    def is_a(self, word: str, kind: str) -> bool:
        return kind in _TABLE.get(word, (None, ()))[1]

    def covers(self, word: str, kind: str) -> bool:
        return self.is_a(word, kind) or (word, kind) in _MADE_WITH

    def same_thing(self, a: str, b: str, *, things_only: bool = False) -> bool:
        return False


KINDS = TableKinds()


@pytest.mark.parametrize("old, new, found", [
    ("User drinks espresso after lunch.", "After lunch it's tea for User now.", ("espresso", "tea", "beverage")),
    ("User plays the trumpet in a brass band.", "The band has User on trombone now.", ("trumpet", "trombone", "brass")),
    # the verb after the subject names no thing ("drinks" is no beverage), nor does a word ending "-ing"
    ("User drinks oolong.", "User is drinking rooibos.", ("oolong", "rooibos", "tea")),
    # a word both say is the same thing, not another one
    ("User drinks espresso and tea.", "User has tea.", None),
    ("User drinks espresso after lunch.", "User walks the collie after lunch.", None),
    # names are no common words: "Poodle" is someone's
    ("User has a collie.", "User met Poodle.", None),
    # a word in a verb's place names no thing: "we jar" is putting into jars
    ("User keeps jam in a tub.", "Now we jar the jam.", None),
    ("User keeps jam in a tub.", "User keeps jam in a jar now.", ("tub", "jar", "container")),
])
def test_another_of_its_kind(old, new, found):
    assert another_of_its_kind(old, new, KINDS.kind_shared) == found


@pytest.mark.parametrize("text, old, new, swapped", [
    ("User grows carrots on the allotment.", "carrots", "beans", "User grows beans on the allotment."),
    ("User's dog is a collie.", "collie", "poodle", "User's dog is a poodle."),
    ("User drinks Espresso after lunch.", "espresso", "tea", "User drinks tea after lunch."),
    # a word only modifying the noun after it: "tea cake" is no kind of tea
    ("User has a tea cake every afternoon.", "tea", "coffee", None),
    ("User has oolong daily.", "rooibos", "tea", None),  # not in the sentence
])
def test_swap_thing(text, old, new, swapped):
    assert swap_thing(text, old, new) == swapped


@pytest.mark.parametrize("text, adds", [
    ("I play the trumpet too", True), ("got a poodle too now", True), ("me too!", True), ("mine too, lol", True),
    # "too" before a word says how much, not one more
    ("the garden got too shady, so it's beans now", False), ("too expensive so I switched", False),
    ("it was too much, beans now", False),
])
def test_too_adds_only_when_it_ends_what_it_is_said_of(text, adds):
    assert bool(ADDS.search(text)) is adds
    assert in_place(text) is not adds


def _memory(id: int, text: str, *, attribute: str = "note", subject: str = "user", user: str = "u") -> Memory:
    return Memory(id=id, user_id=user, text=text, type="fact", subject=subject, attribute=attribute,
                  value=text.rstrip("."), importance=0.5, message_id=1)


def _clause(clause: str, text: str) -> Candidate:
    return Candidate(subject="user", attribute="note", value=clause, type="fact", importance=0.45, multi=True,
                     text=text, clause=clause, understood=False)


def _plan(new: Candidate, old: Memory, similarity: float, kinds=KINDS, floor: float = 0.40):
    return plan_candidate(new, SlotState(), lambda n: [Neighbour(old, similarity)][:n], user_id="u", message_id=99,
                          conflict_threshold=0.5, cue_margin=0.15, kinds=kinds, kind_update_floor=floor)


CARROTS = _memory(1, "User grows carrots on the allotment.")
BEANS = ("the slugs won, it's only beans on the allotment now", "The slugs won, it's only beans on the allotment now.")


@pytest.mark.parametrize("old, new, similarity, replaced", [
    (CARROTS, BEANS, 0.45, True),
    # what the old memory is about may be said by an instance of it: a poodle is a dog
    (_memory(2, "User's dog is a collie.", attribute="dog"),
     ("we lost the old girl in May, a rescue poodle sleeps by the fire now",
      "User lost the old girl in May, a rescue poodle sleeps by the fire now."), 0.45, True),
    # no word of change: one more thing said, or a thing said once
    (CARROTS, ("beans on the allotment this year", "Beans on the allotment this year."), 0.45, False),
    # an addition
    (CARROTS, ("beans on the allotment as well now", "Beans on the allotment as well now."), 0.45, False),
    # not about the same thing: no topic word shared, none named by an instance
    (CARROTS, ("the kids eat beans now", "User's kids eat beans now."), 0.45, False),
    # too far in meaning
    (CARROTS, BEANS, 0.30, False),
    # an accumulating slot's memory changes only when its value is named
    (_memory(3, "User plays the trumpet.", attribute="hobbies"),
     ("the band has me on trombone now", "The band has User on trombone now."), 0.6, False),
    # someone else's memory
    (_memory(4, "User's sister grows carrots on the allotment.", attribute="note"), BEANS, 0.45, False),
])
def test_another_of_its_kind_with_a_word_of_change_replaces(old, new, similarity, replaced):
    p = _plan(_clause(*new), old, similarity)
    assert (p.supersede_ids == [old.id]) is replaced
    assert (p.swapped is not None) is replaced


def test_rule_14_is_off_without_kinds_or_with_a_floor_above_the_similarity():
    assert _plan(_clause(*BEANS), CARROTS, 0.45, kinds=None).supersede_ids == []
    assert _plan(_clause(*BEANS), CARROTS, 0.45, floor=0.5).supersede_ids == []
    replaced = _plan(_clause(*BEANS), CARROTS, 0.45)
    assert replaced.swapped == ("carrots", "beans") and "another vegetable" in replaced.reason


@pytest.mark.parametrize("clause, kinds", [
    ("gave up soft drinks, its just water now", ["soft drinks"]),
    ("I stopped eating fish altogether", ["fish"]),
    ("dont touch spirits anymore, sleeping way better", ["spirits"]),
    ("I don't play any instruments anymore", ["instruments"]),
    ("off card games these days, got boring", ["card games"]),
    ("been off the booze since new year", ["booze"]),
    ("dairy-free now", ["dairy"]),
    # only wished for, or no kind said ("stopped smoking" says a doing, "a day off work" no end)
    ("i should really cut out meat", []), ("trying to give up sugar", []), ("stopped smoking", []),
    ("took the day off work", []),
    # "off" opening a clause is a place unless said of these days; "-free" before a noun is said of that thing
    ("Off the court.", []), ("testing out dairy-free dessert recipes", []),
    # the same end in other words: the verb before the kind, around it, the kind first, an allergy found out
    ("ditched energy drinks, feel great", ["energy drinks"]), ("said goodbye to dairy last month", ["dairy"]),
    ("weaned myself off caffeine", ["caffeine"]), ("steering clear of gluten these days", ["gluten"]),
    ("put the cigarettes aside for good", ["cigarettes"]), ("knocked the booze on the head", ["booze"]),
    ("my stomach can't handle spicy food anymore", ["spicy food"]),
    ("haven't touched alcohol since new year", ["alcohol"]), ("honestly fizzy drinks are off the menu", ["fizzy drinks"]),
    ("booze and me are done", ["booze"]), ("takeaways are a thing of the past", ["takeaways"]),
    ("no caffeine for me these days", ["caffeine"]), ("turns out im allergic to shellfish so thats over", ["shellfish"]),
    ("doctor banned salt", ["salt"]), ("cut sugar out completely", ["sugar"]),
    # a fall, leaving, an avoidance said of one occasion, one order, an allergy with no news, a wish: no end of a kind
    ("I dropped my phone", []), ("I dropped out of uni", []), ("he dropped me off at work", []),
    ("avoiding sugar at the party", []), ("no ice for me thanks", []), ("I'm allergic to cats", []),
    ("i should really ditch sugar", []), ("put my bike away", []),
    # a kind is said bare: these are some things
    ("deleted the photos from my phone", []), ("binned my old trainers", []), ("ditched the car at the station", []),
])
def test_ended_kinds(clause, kinds):
    assert ended_kinds(clause) == kinds


ESPRESSO = _memory(5, "User drinks espresso after lunch.")


@pytest.mark.parametrize("clause, text, old, similarity, ended", [
    ("gave up coffee, it was wrecking my sleep", "User gave up coffee, it was wrecking their sleep.", ESPRESSO, 0.3,
     True),
    ("no more beverages for me, water only", "No more beverages for User, water only.", ESPRESSO, 0.3, True),
    # not a kind the memory's thing is of
    ("gave up tea", "User gave up tea.", ESPRESSO, 0.5, False),
    # said of some days or of one occasion, the habit holds beside it
    ("gave up coffee on weekdays", "User gave up coffee on weekdays.", ESPRESSO, 0.5, False),
    ("no more coffee after 3pm", "No more coffee after 3pm for User.", ESPRESSO, 0.5, False),
    ("no more coffee today, I'm buzzing", "No more coffee today, User is buzzing.", ESPRESSO, 0.5, False),
    # someone else's end
    ("my brother gave up coffee", "User's brother gave up coffee.", ESPRESSO, 0.5, False),
    # too far in meaning
    ("gave up coffee", "User gave up coffee.", ESPRESSO, 0.2, False),
    # a substance the thing is made with, said in other words
    ("ditched caffeine completely", "User ditched caffeine completely.", ESPRESSO, 0.3, True),
    ("i should ditch caffeine", "User should ditch caffeine.", ESPRESSO, 0.5, False),
])
def test_an_end_said_of_a_kind_replaces_the_things_of_that_kind(clause, text, old, similarity, ended):
    p = plan_candidate(_clause(clause, text), SlotState(), lambda n: [Neighbour(old, similarity)][:n], user_id="u",
                       message_id=99, conflict_threshold=0.5, cue_margin=0.15, kinds=KINDS, kind_update_floor=None,
                       ended_kind_floor=0.25)
    assert (p.supersede_ids == [old.id]) is ended


def test_rule_15_is_off_without_a_floor():
    p = plan_candidate(_clause("gave up coffee", "User gave up coffee."), SlotState(),
                       lambda n: [Neighbour(ESPRESSO, 0.5)][:n], user_id="u", message_id=99, conflict_threshold=0.5,
                       cue_margin=0.15, kinds=KINDS, ended_kind_floor=None)
    assert p.supersede_ids == []
