"""An amount said as how far it moved (engine/extraction/deltas.py, resolve.py rule 10, restate.py). Pure: no model,
no store. The sentences are our own, not evaluation cases."""
from __future__ import annotations

import pytest

from engine.extraction import Candidate, deltas, restate
from engine.model import Memory
from engine.resolve import Neighbour, SlotState, plan_candidate

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("clause, amount, up, unit, thing, pay", [
    ("the council put my parking permit up by 20", 20, True, None, "my parking permit", False),
    ("they bumped the membership fee up by 5 euros", 5, True, "euros", "the membership fee", False),
    ("my manager cut my hours by 4 a week", 4, False, None, "my hours", False),
    ("raised the kids' pocket money by 2", 2, True, None, "the kids' pocket money", False),
    ("got a 2k pay rise!!", 2000, True, None, "", True),
    ("a 500 pound pay cut, brutal", 500, False, "pound", "", True),
    ("they gave me a raise of 300 dollars", 300, True, "dollars", "", True),
    ("the electricity bill dropped by 12 dollars", 12, False, "dollars", "electricity bill", False),
    ("after the review our team budget fell by 5k", 5000, False, None, "team budget", False),
    ("water bill went up 8 euros", 8, True, "euros", "water bill", False),
    ("the bus fare has gone down by 30 cents", 30, False, "cents", "bus fare", False),
    ("doing 5 more laps each swim", 5, True, None, "laps", False),
    ("there are 4 fewer people in the book club now", 4, False, None, "people", False),
    ("shaved 3 minutes off my 5k time", 3, False, "minutes", "my 5k time", False),
    ("added 2 kids to the carpool", 2, True, None, "the carpool", False),
    ("put on 3 kilos over christmas", 3, True, "kilos", "", False),
    ("lost two kg this month", 2, False, "kg", "", False),
    ("walked another 40 km on the pilgrimage", 40, True, "km", "the", False),
    ("the plan is 5 cheaper since the promo", 5, False, None, "since", False),
])
def test_a_change_said_as_how_far_it_moved(clause, amount, up, unit, thing, pay):
    delta = deltas.find(clause)
    assert delta is not None, clause
    assert (delta.amount, delta.up, delta.unit, delta.pay) == (amount, up, unit, pay)
    assert delta.thing == thing or not thing or thing in delta.thing


@pytest.mark.parametrize("clause", [
    "the new gym is 10 cheaper than my old one",  # a comparison with another thing
    "my sister is 3 years older than me",
    "I'd need 2 more hours a day to finish it",  # a wish, not a change
    "we could cut the budget by 10k if sales drop",
    "my rent is 950 a month now",  # a new value said as the value
    "I moved to Berlin in 2019",
    "grew up in Dublin",
    "I'm up by 6am most days",  # a time, not an amount
    "the trip took 3 hours",
    "conversion went up by 2%",  # of the amount, or points of it: not guessed
])
def test_no_change_of_an_amount(clause):
    assert deltas.find(clause) is None


@pytest.mark.parametrize("old, clause, moved", [
    ("User's parking permit is 60 a year.", "the council put my parking permit up by 20",
     "User's parking permit is 80 a year."),
    ("User's salary is 41k.", "got a 2k pay rise", "User's salary is 43k."),
    ("The membership fee is €45 a month.", "knocked 5 off the membership fee", "The membership fee is €40 a month."),
    ("User's budget is 1,200 dollars.", "upped my budget by 250 dollars", "User's budget is 1,450 dollars."),
    ("User weighs 68.5 kg.", "put on 1.5 kilos", "User weighs 70.0 kg."),
    ("User's pocket money is 3 pounds a week.", "my parents gave me 2 pounds more a week", "User's pocket money is 5 pounds a week."),
    ("User swims 40 laps.", "doing 5 more laps each swim", "User swims 45 laps."),
    ("User earns 60000 a year.", "got a 5k raise", "User earns 65000 a year."),
])
def test_the_memory_restated_with_the_amount_moved(old, clause, moved):
    delta = deltas.find(clause)
    assert deltas.apply(old, delta)[0] == moved
    assert restate(old, clause).text == moved  # restating an update reads the change, not its number


@pytest.mark.parametrize("old, clause", [
    ("User's blood pressure is 150 over 95.", "the meds brought it down by 20"),  # two amounts: which one?
    ("User weighs 80 kg.", "the bus fare went up by 10 cents"),  # a unit the memory does not count in
    ("User's commute is 40 minutes.", "added 2 km to my run"),
    ("User lives in Leeds.", "the rent went up by 50"),  # no amount
    ("User has 2 cats.", "5 fewer cats"),  # below nothing
])
def test_no_amount_the_change_fits(old, clause):
    delta = deltas.find(clause)
    assert delta is not None
    assert deltas.apply(old, delta) is None
    assert restate(old, clause) is None  # never the change's number as the value


@pytest.mark.parametrize("old, clause, same", [
    ("User's parking permit is 60 a year.", "the council put my parking permit up by 20", True),
    ("User's rent is 900 a month.", "rent's gone up by 40", True),
    ("User earns 41k a year.", "got a 2k pay rise", True),
    ("User's salary is 3000 euro per month.", "a 200 euro raise", True),
    ("User weighs 80 kg.", "put on 3 kilos over christmas", True),  # the unit counted is the thing
    ("User's hourly rate is 60 dollars.", "charging 10 dollars more per hour", True),
    ("User runs 20 km a week.", "adding 5 km to my weekly running", True),
    ("Project team is 7 engineers.", "the sales team grew by 3", False),  # another team
    ("User's Spotify plan is 11 euros.", "the Netflix plan went up 2 euros", False),  # another plan
    ("User's rent is 900 a month.", "got a 2k pay rise", False),
    ("User's rent is 900 a month.", "petrol went up by 10 cents", False),
    ("User's rent is 1000 a month.", "I spent 100 more on groceries", False),
])
def test_the_change_is_of_the_memory_s_thing(old, clause, same):
    assert deltas.same_thing(old, deltas.find(clause)) is same


NEW = 99


def _mem(id, text, *, attribute="note"):
    return Memory(id=id, user_id="u", text=text, type="fact", subject="user", attribute=attribute, value=text,
                  importance=0.5, status="active", message_id=1, multi_valued=False)


def _cand(clause, text):
    return Candidate(subject="user", attribute="note", value=clause, type="fact", importance=0.5, multi=True,
                     text=text, clause=clause, update_cue=False, replaced_value=None, understood=False)


def _plan(cand, *pairs, **kw):
    return plan_candidate(cand, SlotState(), lambda n: [Neighbour(m, s) for m, s in pairs][:n], user_id="u",
                          message_id=NEW, conflict_threshold=0.5, cue_margin=0.15, **kw)


PERMIT = _mem(1, "User's parking permit is 60 a year.", attribute="parking_permit")
PAY = _mem(2, "User earns 41k a year.")
GYM = _mem(3, "The gym costs 35 a month.")


def test_rule_10_replaces_the_memory_whose_amount_moved():
    plan = _plan(_cand("the council put my parking permit up by 20", "The council put User's parking permit up by 20."),
                 (PERMIT, 0.62), (PAY, 0.4))
    assert (plan.action, plan.supersede_ids) == ("superseded", [PERMIT.id])
    assert "how far" in plan.reason


def test_rule_10_needs_the_memory_near_enough():
    plan = _plan(_cand("the council put my parking permit up by 20", "The council put User's parking permit up by 20."),
                 (PERMIT, 0.2))
    assert plan.action == "created" and plan.multi


def test_rule_10_moves_nothing_of_someone_else():
    plan = _plan(_cand("my sister got a 2k pay rise", "User's sister got a 2k pay rise."), (PAY, 0.6))
    assert plan.action == "created"


def test_an_amount_in_comparison_replaces_nothing():
    # without rule 10 the open-world rules read "5" as the gym's new price
    plan = _plan(_cand("the pool is 5 cheaper than my gym", "The pool is 5 cheaper than User's gym."), (GYM, 0.7))
    assert plan.action == "created"


def test_the_change_s_number_is_never_a_new_value():
    # no memory of that thing holds an amount: kept beside, whatever else is near
    plan = _plan(_cand("the water bill went up by 8", "The water bill went up by 8."), (GYM, 0.7), (PAY, 0.6))
    assert plan.action == "created"


def test_rule_10_off():
    plan = _plan(_cand("the council put my parking permit up by 20", "The council put User's parking permit up by 20."),
                 (PERMIT, 0.62), delta_floor=None)
    assert plan.action == "created"


def test_a_switch_said_beside_an_amount_moved_goes_by_the_switch():
    # the amount is the reason, the switch the news: the other rules still read the clause
    insurer = _mem(4, "User's insurer is Direct Line.", attribute="insurer")
    clause = "Moved the home insurance over to Aviva, Direct Line wanted 200 more"
    plan = _plan(_cand(clause, "User moved the home insurance over to Aviva, Direct Line wanted 200 more."),
                 (insurer, 0.55))
    assert (plan.action, plan.supersede_ids) == ("superseded", [insurer.id])
    assert restate(insurer.text, clause).text == "User's insurer is Aviva."
