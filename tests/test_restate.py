"""Restating a verb-phrased update as the fact it changes: pure, no model."""
import pytest

from engine.extraction.restate import restate

pytestmark = pytest.mark.unit

RESTATED = [
    # (old memory text, update clause, restated text, new value)
    ("User uses Trello for tasks.", "we dumped trello and replaced it with Linear", "User uses Linear for tasks.", "Linear"),
    ("User drives a Ford Focus.", "I've replaced my Ford with a Skoda Octavia.", "User drives a Skoda Octavia.", "Skoda Octavia"),
    ("User's bank is Barclays.", "I moved my accounts from Barclays to Monzo last week", "User's bank is Monzo.", "Monzo"),
    ("User's email is hosted on Gmail.", "Moved my mail off Gmail and onto Fastmail.", "User's email is hosted on Fastmail.",
     "Fastmail"),
    ("Team's chat tool is Slack.", "The team switched chat over to Discord in March.", "Team's chat tool is Discord.",
     "Discord"),
    ("The repo's default branch is called develop.", "we renamed develop to trunk", "The repo's default branch is called trunk.",
     "trunk"),
    ("User's electricity supplier is EDF.", "Swapped EDF for Octopus Energy since the spring.",
     "User's electricity supplier is Octopus Energy.", "Octopus Energy"),
    ("User plays a Yamaha P-45.", "Traded in the P-45 for a Roland FP-30.", "User plays a Roland FP-30.", "Roland FP-30"),
]

KEPT = [
    # nothing says what took the old value's place, or the old memory does not hold what was replaced
    ("User commutes by bus.", "I switched to cycling to work since spring."),
    ("User uses Trello for tasks.", "I replaced it."),
    ("User lives in Lyon.", "We replaced the kitchen with a new one."),
    ("User uses Trello for tasks.", "I switched to it"),
    ("User's phone is a Pixel 6.", "I moved the sofa from the hall to the living room."),
    # "renamed the X to Y" renames the thing, whose old name is not a capitalised name here
    ("The team's Discord server is called cozy-corner.", "We renamed the Discord server to night-owls."),
]


@pytest.mark.parametrize("old, clause, text, value", RESTATED)
def test_an_update_is_restated_as_the_fact_it_changes(old, clause, text, value):
    assert restate(old, clause) == (text, value)


@pytest.mark.parametrize("old, clause", KEPT)
def test_no_restatement_without_both_values(old, clause):
    assert restate(old, clause) is None
