"""A value said for a stretch of time with its end in sight is an exception beside the standing fact, not a change
of it (resolve.for_a_while)."""
from __future__ import annotations

import pytest

from engine.resolve import for_a_while

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("clause", [
    "I'm taking the tram until Thursday",
    "we're rehearsing in the church hall till the end of the month",
    "my sister is walking the dog until next Tuesday",
    "I'm parking at the station until the roadworks are done",
    "the office is closed so I'm working from the library until it's fixed",
    "I'm staying at my brother's for the next two weeks",
    "training at the outdoor track for the coming few days",
    "I'm using my old laptop for the next couple of weeks",
    "the pool is shut so I'm swimming at the lido this week instead",
    "taking the car instead today",
    "tonight we're eating at Marco's instead",
    "I'm on nights instead for now",
    "Lunch is at the canteen instead just for this week",
    "my mum is picking the kids up instead this time",
    "I'm driving in instead tomorrow",
])
def test_said_for_a_while(clause):
    assert for_a_while(clause)


@pytest.mark.parametrize("clause", [
    # a change, whenever it was said to happen
    "I moved to Leeds this week",
    "this week I switched to Linear instead of Jira",
    "we changed the meeting to Thursdays instead",
    "I take the bus instead now",
    "starting today all invoices go through Xero",
    "from next week we train at the Oval",
    "I've been vegan for two weeks",
    # a bound in the past ends an old fact, it is no exception to a current one
    "I lived in Oslo until last year",
    "I worked at Acme until Friday",
    # open-ended
    "I'm working from home until further notice",
    "we're at the new address for good",
    "I'm in Bristol now",
    # "until" of something else
    "I can't drive until I pass my test",
    "I wait until the kids are asleep to read",
])
def test_not_said_for_a_while(clause):
    assert not for_a_while(clause)
