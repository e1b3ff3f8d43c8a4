"""A question about one thing, or about someone else, is not answered by a memory of another thing of its kind
(settings.sibling_filter) or by the user's own fact (settings.contrast_filter): the real model, SQLite and Chroma.
Each refused row is answered with its filter off."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration

TOLD = [
    "I've played guitar in a covers band for ten years",
    "I'm allergic to kiwi",
    "I drive a VW Golf",
    "my boyfriend Tom is a nurse at St Thomas'",
    "I have an iPhone 13",
    "I drink coffee every morning",
    "actually I switched to tea",
    "just started an apprenticeship as a plumber",
    "We keep all our customer files on Dropbox.",
]


@pytest.fixture(scope="module")
def by_sibling(stores_by):
    with stores_by("sibling_filter", (True, False), TOLD) as made:
        yield made


@pytest.fixture(scope="module")
def by_contrast(stores_by):
    with stores_by("contrast_filter", (True, False), TOLD) as made:
        yield made


@pytest.mark.parametrize("question, other", [
    ("how long have I been playing the piano?", "guitar"),
    ("am I allergic to pineapple?", "kiwi"),
])
def test_another_thing_of_the_kind_answers_nothing(by_sibling, question, other):
    assert by_sibling[True].recall(question, user_id="u").hits == []
    found = by_sibling[False].recall(question, user_id="u")
    assert found.hits and other in found.hits[0].memory.text


@pytest.mark.parametrize("question, answer", [
    ("how long have I been playing guitar?", "guitar"),  # the thing itself
    ("what instrument do I play?", "guitar"),  # asked by its kind
    ("do I still drink coffee?", "tea"),  # a replacement answers in the words of what it replaced
    ("what do I do for work?", "plumber"),  # "work" names a whole field of things, any job answers
])
def test_the_thing_itself_and_its_kind_are_answered(by_sibling, question, answer):
    found = by_sibling[True].recall(question, user_id="u")
    assert found.hits and answer in found.hits[0].memory.text


@pytest.mark.parametrize("question, own", [
    ("what car does my sister drive?", "Golf"),
    ("what phone does Tom have?", "iPhone"),  # named: Tom is known, but this memory is not about him
])
def test_a_question_about_someone_else_is_not_answered_by_the_users_own_fact(by_contrast, question, own):
    assert not any(own in hit.memory.text for hit in by_contrast[True].recall(question, user_id="u").hits)
    found = by_contrast[False].recall(question, user_id="u")
    assert any(own in hit.memory.text for hit in found.hits)


@pytest.mark.parametrize("question, answer", [
    ("what car do I drive?", "Golf"),
    ("what does my boyfriend do?", "nurse"),
    ("what does Tom do?", "nurse"),
    ("where are our client files stored?", "Dropbox"),  # "client" only says whose files
])
def test_the_users_own_and_the_other_persons_facts_are_answered(by_contrast, question, answer):
    found = by_contrast[True].recall(question, user_id="u")
    assert found.hits and answer in found.hits[0].memory.text
