"""A question asked by kind is answered by the memory that says the instance (settings.kind_terms): the real
model, SQLite, Chroma and WordNet. Each answered row is refused with kind_terms off, which is what the rows pin."""
from __future__ import annotations

import pytest

from engine import MemoryEngine, Settings

pytestmark = pytest.mark.integration

STORED = [
    "I take metformin every day.",
    "I keep a tortoise called Shelby.",
    "My bank is Starling.",
    "My daughter Ava is learning the cello.",
]


@pytest.fixture(scope="module")
def stores(stores_by):
    with stores_by("kind_terms", (True, False), STORED) as made:
        yield made


@pytest.mark.parametrize("question, answer", [
    ("what medication do I take?", "metformin"),
    ("what reptile do I have?", "tortoise"),
])
def test_a_question_asked_by_kind_finds_the_instance(stores, question, answer):
    with_kinds = stores[True].recall(question, user_id="u")
    assert with_kinds.hits and answer in with_kinds.hits[0].memory.text
    without = stores[False].recall(question, user_id="u")
    assert not any(answer in h.memory.text for h in without.hits)


# A yes/no question asks by kind too ("do I take a medication?", "is there a ... I ..."): the instance answers it.
@pytest.mark.parametrize("question, answer", [
    ("do I take a medication?", "metformin"),
    ("have I got a reptile?", "tortoise"),
    ("is there a medication I take every day?", "metformin"),
])
def test_a_yes_no_question_asked_by_kind_finds_the_instance(stores, question, answer):
    hits = stores[True].recall(question, user_id="u").hits
    assert hits and answer in hits[0].memory.text


@pytest.mark.parametrize("question", [
    "do I keep a bird?",
    "does my daughter play a sport?",
    "is there a car I drive?",
])
def test_a_yes_no_question_of_a_kind_nothing_stored_is_gets_nothing(stores, question):
    assert stores[True].recall(question, user_id="u").hits == []


@pytest.mark.parametrize("question", [
    "what bird do I keep?",  # Starling is a bank's name, no bird
    "what pet do I have?",  # nothing stored is a pet
    "which car do I drive?",
    "what sport does my daughter play?",  # the cello is an instrument
])
def test_a_kind_nothing_stored_is_gets_nothing(stores, question):
    assert stores[True].recall(question, user_id="u").hits == []


def test_a_wordnet_dir_without_wordnet_is_refused_before_the_store_opens(tmp_path, embedder):
    with pytest.raises(ValueError, match="no WordNet noun files"):
        MemoryEngine(Settings(data_dir=tmp_path / "store", wordnet_dir=str(tmp_path)), embedder=embedder)
    assert not (tmp_path / "store").exists()


CHATTY = [
    "Honestly I can't start a morning without a double espresso, it's basically a ritual at this point.",
    "I've been vegetarian since 2019.",
    "My mother is turning seventy in June.",
    "found out the hard way as a kid that i'm allergic to penicillin",
    "our kitchen is painted sage green and i love it",
    "the allotment tomatoes never do well but the courgettes go mad every summer",
]


@pytest.fixture(scope="module")
def chatty(stores_by):
    with stores_by("kind_statements", (8, 0), CHATTY) as made:
        yield made


def test_the_statement_said_with_the_instance_finds_a_chatty_memory(chatty):
    # "User's usual espresso first thing in the day is" is near the memory; the question's own words are not
    question = "What's my usual drink first thing in the day?"
    with_statements = chatty[8].recall(question, user_id="u")
    assert with_statements.hits and "espresso" in with_statements.hits[0].memory.text
    assert not any("espresso" in h.memory.text for h in chatty[0].recall(question, user_id="u").hits)


def test_a_negation_that_is_another_things_does_not_keep_the_user_away(chatty):
    # "never" is the tomatoes', not the user's: "User grows courgettes" still says the memory (0.43, 0.35 without)
    question = "what vegetable do I grow?"
    assert any("courgettes" in h.memory.text for h in chatty[8].recall(question, user_id="u").hits)
    assert not any("courgettes" in h.memory.text for h in chatty[0].recall(question, user_id="u").hits)


@pytest.mark.parametrize("question", [
    "What's my sister's usual drink first thing in the day?",  # said with the instance, only "sister" differs
    "What's my usual snack first thing in the day?",  # an espresso is no snack
])
def test_the_statement_said_with_the_instance_is_no_answer_to_a_neighbouring_question(chatty, question):
    assert not any("espresso" in h.memory.text for h in chatty[8].recall(question, user_id="u").hits)


@pytest.mark.parametrize("question, kept", [
    ("what medication do I take every day?", "penicillin"),  # "User takes penicillin every day": 0.6 without
    ("what colour is my car?", "green"),  # "User's car colour is green" against the kitchen's paint
])
def test_a_thing_kept_away_from_or_of_another_thing_is_no_instance(chatty, question, kept):
    assert not any(kept in h.memory.text for h in chatty[8].recall(question, user_id="u").hits)
