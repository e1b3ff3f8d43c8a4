"""English written as a second language leaves out the auxiliary before "not" and the "it" before "is"; the rules
read the standard forms (extraction/second_language.py). The sentences are our own, not evaluation cases."""
from __future__ import annotations

import pytest

from engine.extraction import extract
from engine.extraction.second_language import standard_forms

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("said, standard", [
    # "not" with no auxiliary before a verb
    ("I not drink coffee anymore", "I don't drink coffee anymore"),
    ("we not use slack now, only teams", "we don't use slack now, only teams"),
    ("my brother he not eat meat", "my brother he doesn't eat meat"),
    ("she not likes the new flat", "she doesn't like the new flat"),
    ("he not watches tv since the move", "he doesn't watch tv since the move"),
    ("They not study there any more.", "They don't study there any more."),
    # ... before a verb in -ing: the missing word is "am"/"are"/"is"
    ("i not working at the bank anymore", "i'm not working at the bank anymore"),
    ("they not living in Leeds now", "they are not living in Leeds now"),
    # "is"/"was" with no "it", after a comma or "because"
    ("i change it last month, now is with Three", "i changed it last month, now it is with Three"),
    ("I go by train because is more cheap", "I go by train because it is more cheap"),
    ("we sold the car, was too old", "we sold the car, it was too old"),
    # a verb of change in its base form with a time that is past
    ("last month I change my bank to Monzo", "last month I changed my bank to Monzo"),
    ("we move to Leeds two weeks ago", "we moved to Leeds two weeks ago"),
    ("yesterday I buy a new bike", "yesterday I bought a new bike"),
    ("my sister leave her job last year", "my sister left her job last year"),
    ("I just switch to oat milk", "I just switched to oat milk"),
    # a job said without its article, or with "like" for "as"
    ("I am chef now at the same hotel", "I am a chef now at the same hotel"),
    ("she is working like nurse in the hospital", "she is working as a nurse in the hospital"),
    ("I work like accountant for a small firm", "I work as an accountant for a small firm"),
])
def test_left_out_words_are_put_back(said, standard):
    assert standard_forms(said) == standard


@pytest.mark.parametrize("said", [
    "I not sure yet",  # a describing word, not a verb
    "we not happy with the landlord",
    "I not only cook but also clean",
    "I'm not sure",
    "I do not drink",
    "I don't drink",
    "not bad at all",
    "why not?",
    "The plan now is to move in May",  # "is" has its subject
    "tea, is it ok?",  # a question
    "my sister lives in Rome and is a nurse",  # "is" shares "my sister"
    "It is not my car",
    "she is not here",
    "I asked my brother not to tell her",
    "I not went to the gym",  # a past form: what it should be is not this module's guess
    "I change trains at Crewe every day",  # a habit: no past time
    "I take the bus to work, but yesterday I walked",  # the past time is another clause's
    "I buy coffee every morning, yesterday was awful",
    "next month I move to Leeds",  # to come
    "I work like a dog",  # no job
    "I am a nurse",
    "I'm retired now",  # a describing word takes no article
    "she is unemployed since March",
    "I am chef's assistant",
])
def test_standard_english_is_left_as_it_is(said):
    assert standard_forms(said) == said


@pytest.mark.parametrize("message, stored", [
    ("I not eat pork.", "User doesn't eat pork."),
    ("my wife not drinks coffee", "User's wife doesn't drink coffee."),
])
def test_memories_are_stored_in_the_standard_form(message, stored):
    assert [c.text for c in extract(message)] == [stored]
