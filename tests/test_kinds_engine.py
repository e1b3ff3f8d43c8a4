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
def stores(tmp_path_factory, embedder):
    made = {}
    for on in (True, False):
        engine = MemoryEngine(Settings(data_dir=tmp_path_factory.mktemp(f"kinds-{on}"), kind_terms=on),
                              embedder=embedder)
        for message in STORED:
            engine.ingest(message, user_id="u")
        made[on] = engine
    yield made
    for engine in made.values():
        engine.close()


@pytest.mark.parametrize("question, answer", [
    ("what medication do I take?", "metformin"),
    ("what reptile do I have?", "tortoise"),
])
def test_a_question_asked_by_kind_finds_the_instance(stores, question, answer):
    with_kinds = stores[True].recall(question, user_id="u")
    assert with_kinds.hits and answer in with_kinds.hits[0].memory.text
    without = stores[False].recall(question, user_id="u")
    assert not any(answer in h.memory.text for h in without.hits)


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
