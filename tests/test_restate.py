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
    ("User's car is a 2012 Golf.", "Traded the Golf in for a Model 3.", "User's car is a Model 3.", "Model 3"),
    # the change names what changed and repeats the old value beside it
    ("User's energy supplier is EDF.", "moved the energy bills over to Octopus, EDF kept overcharging",
     "User's energy supplier is Octopus.", "Octopus"),
    # a plan taken up or down: its level word replaced, with or without the thing named
    ("User is on the Pro plan.", "I downgraded to basic, wasn't using half the features", "User is on the basic plan.",
     "basic"),
    ("User is on the Team plan for Slack.", "we bumped slack up to enterprise last month",
     "User is on the enterprise plan for Slack.", "enterprise"),
    ("User is on the free plan of Notion.", "upgraded notion to the plus plan", "User is on the plus plan of Notion.",
     "plus"),
    # how long ago the change was is no part of the new value
    ("User runs in Brooks Ghost shoes.", "switched my running shoes to Saucony Rides a month ago",
     "User runs in Saucony Rides shoes.", "Saucony Rides"),
    ("User's broadband is with Sky.", "moved the broadband over to Vodafone two weeks ago, much faster",
     "User's broadband is with Vodafone.", "Vodafone"),
    ("User's dentist is Dr. Ross.", "changed dentists to Dr. Mehta a couple of months back",
     "User's dentist is Dr. Mehta.", "Dr. Mehta"),
]

KEPT = [
    # "from this month" says when, not what was replaced; "to school is ..." is a clause, no value
    ("User's husband drives the kids to school every morning.",
     "from this month the driver for the kids to school is our neighbour Olga"),
    ("User's gym is PureGym.", "from next week the gym near the office to train is the plan"),
    # nothing says what took the old value's place, or the old memory does not hold what was replaced
    ("User commutes by bus.", "I switched to cycling to work since spring."),
    ("User uses Trello for tasks.", "I replaced it."),
    ("User lives in Lyon.", "We replaced the kitchen with a new one."),
    ("User uses Trello for tasks.", "I switched to it"),
    ("User's phone is a Pixel 6.", "I moved the sofa from the hall to the living room."),
    ("User pays for Spotify Premium Family.", "upgraded to the student tier"),  # no level word to put it in
    # "renamed the X to Y" renames the thing, whose old name is not a capitalised name here
    ("The team's Discord server is called cozy-corner.", "We renamed the Discord server to night-owls."),
]


@pytest.mark.parametrize("old, clause, text, value", RESTATED)
def test_an_update_is_restated_as_the_fact_it_changes(old, clause, text, value):
    assert restate(old, clause) == (text, value, False)


@pytest.mark.parametrize("old, clause", KEPT)
def test_no_restatement_without_both_values(old, clause):
    assert restate(old, clause) is None


RESTATED_BY_KIND = [
    # the change names neither the old value nor a "to": the one new value of the old value's kind takes its place
    ("User's yoga class is on Tuesdays.", "yoga got moved, it's Thursdays now", "User's yoga class is on Thursdays.",
     "Thursdays"),
    ("User wakes up at 6:30.", "New alarm: 5:45 every weekday.", "User wakes up at 5:45.", "5:45"),
    ("User's rent is 1,200 euros a month.", "Landlord bumped it up, paying 1,350 now",
     "User's rent is 1,350 euros a month.", "1,350"),
    ("User's resting heart rate is 62.", "my watch says 58 these days", "User's resting heart rate is 58.", "58"),
    ("User takes 50mg of sertraline.", "Doctor upped my dose to 100mg.", "User takes 100mg of sertraline.", "100mg"),
    ("User's blood pressure was 140 over 90.", "Doctor measured 122/80 this morning.",
     "User's blood pressure was 122/80.", "122/80"),
    ("User banks with Santander.", "opened an account at Revolut and closed the old one",
     "User banks with Revolut.", "Revolut"),
    ("The backend is written in Ruby.", "The backend rewrite in Go shipped, Ruby is gone.",
     "The backend is written in Go.", "Go"),
    ("User's standup is at 9:30.", "Standup is 10:15 from next week.", "User's standup is at 10:15.", "10:15"),
    # a verb or the old value at the start of the sentence is no new name
    ("User banks with HSBC.", "Closed my HSBC account and opened one with Starling.", "User banks with Starling.",
     "Starling"),
    ("User's hairdresser is Lucy.", "Lucy retired, so I go to Sam at the same salon now.", "User's hairdresser is Sam.",
     "Sam"),
    ("The deploy freeze starts on the 15th.", "Freeze got pushed to the 20th.", "The deploy freeze starts on the 20th.",
     "20th"),
    # a title's full stop is part of the name, not a sentence's end
    ("User's optician is Mrs. Lowe.", "the optician retired, I see Dr. Amadi there now", "User's optician is Dr. Amadi.",
     "Dr. Amadi"),
]

# A memory of several values: a time replaces the one time of its own kind (a clock time, a weekday, a month).
RESTATED_BY_KIND += [
    ("User's flight is on Friday at 7am.", "It's Saturday now", "User's flight is on Saturday at 7am.", "Saturday"),
    ("Leo's swimming lessons are at 4:45 on Thursdays.", "they moved it to 5:30, the pool was too full",
     "Leo's swimming lessons are at 5:30 on Thursdays.", "5:30"),
    ("The book club meets at 7pm on Mondays.", "it's on Tuesdays now", "The book club meets at 7pm on Tuesdays.",
     "Tuesdays"),
]

KEPT_BY_KIND = [
    ("User's gym days are Mondays.", "now it's Tuesdays and Fridays"),  # two new values: which one replaces?
    ("User's flight is on Friday at 7am.", "It's the 9th now"),  # a day of the month: the old memory holds none
    ("User's swim class is at 4:45 on Thursdays.", "they moved it to 5:30 on Fridays"),  # two new times
    ("User's swim class is at 4:45 and 6:00 on Thursdays.", "they moved it to 5:30"),  # two old clock times
    ("User lives in Lyon.", "we finally moved house"),  # no new value
    ("User has an iPhone 12.", "the 12 is dying"),  # the clause repeats the old value
    ("User's manager is Tom.", "Anna and Priya run the team now"),  # two new names
    # the thing changed to is no name: "a barn in Kent" is not "a barn in a hotel"
    ("The wedding venue is a barn in Kent.", "We changed the venue to a hotel in Brighton."),
    # the old memory holds another value tied to the one replaced: its price was Spotify's, not Apple Music's
    ("User pays 12 euros for Spotify.", "Cancelled Spotify, using Apple Music"),
]


@pytest.mark.parametrize("old, clause, text, value", RESTATED_BY_KIND)
def test_the_one_new_value_of_the_old_values_kind_takes_its_place(old, clause, text, value):
    assert restate(old, clause) == (text, value, True)  # inferred: the change did not name what it replaced


@pytest.mark.parametrize("old, clause", KEPT_BY_KIND)
def test_no_restatement_when_the_value_to_replace_is_ambiguous(old, clause):
    assert restate(old, clause) is None
