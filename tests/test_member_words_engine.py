"""A question naming a relative, pet or carer one way is answered by the memory naming the same one another way
(settings.member_words): the real model, SQLite and Chroma. Each answered row is refused with member_words off."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration

TOLD = [
    "nana still lives in the old farmhouse in galway",
    "my husband's a tram driver in manchester",
    "the spaniel sleeps at the foot of our bed every night",
    "gramps was a coal miner for thirty years",
    # "her" is the gran (vocabulary.RELATIVES): kept as "User visits her on sundays" it answered the mother (0.62)
    "my gran's in a care home in swansea now, we visit her on sundays",
]


@pytest.fixture(scope="module")
def stores(stores_by):
    with stores_by("member_words", (8, 0), TOLD) as made:
        yield made


def test_the_question_said_in_the_memorys_word_finds_it(stores):
    # "what was the user's gramps's job?" is near "Gramps was a coal miner" (0.59); "grandfather" is not (0.35)
    question = "what was my grandfather's job?"
    found = stores[8].recall(question, user_id="u")
    assert found.hits and "miner" in found.hits[0].memory.text
    assert not any("miner" in h.memory.text for h in stores[0].recall(question, user_id="u").hits)


@pytest.mark.parametrize("question", [
    "where does my mother live?",  # nana and gran are another relative: dropped as near misses
    "what does my brother do for a living?",
    "where does my cat sleep?",
    "what does my wife do for work?",
])
def test_another_member_is_said_with_no_other_word(stores, question):
    assert stores[8].recall(question, user_id="u").hits == []
