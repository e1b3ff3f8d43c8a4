"""Per-user BM25: normalization, incremental updates, isolation between users."""
import pytest

from engine.lexical import LexicalIndex, _UserIndex
from engine.text import tokenize

pytestmark = pytest.mark.unit


def build(docs):
    index = _UserIndex()
    for doc_id, text in docs.items():
        index.add(doc_id, tokenize(text))
    return index


DOCS = {1: "User uses Arch Linux.", 2: "Project deadline is November 2.", 3: "User lives in Berlin.",
        4: "User loves hiking in the Alps."}


def test_scores_are_normalized_to_the_query_not_to_the_best_match():
    index = build(DOCS)
    full = index.score(tokenize("Arch Linux"))
    partial = index.score(tokenize("Arch Linux favourite food"))
    assert 0.5 < full[1] <= 1.0
    assert partial[1] < full[1]  # unmatched query words count against the memory


def test_a_shared_stopword_gives_no_score():
    index = build(DOCS)
    assert index.score(tokenize("What is the user's favourite food?")) == {}


def test_only_documents_with_query_terms_are_scored():
    assert set(build(DOCS).score(tokenize("When is the deadline?"))) == {2}


def test_remove_and_readd():
    index = build(DOCS)
    index.remove(2)
    assert index.score(tokenize("deadline")) == {}
    index.add(2, tokenize("deadline moved"))
    assert set(index.score(tokenize("deadline"))) == {2}
    assert index.total_length == sum(index.lengths.values())


def test_empty_index_and_empty_query():
    assert _UserIndex().score(["x"]) == {}
    assert build(DOCS).score([]) == {}


def test_users_are_isolated_and_loaded_lazily():
    corpora = {"a": [(1, tokenize("User uses Vim"))], "b": [(2, tokenize("User uses Emacs"))]}
    loads = []

    def loader(user):
        loads.append(user)
        return corpora.get(user, [])

    lex = LexicalIndex(loader)
    assert set(lex.search("a", tokenize("vim emacs"), 10)) == {1}
    assert set(lex.search("b", tokenize("vim emacs"), 10)) == {2}
    lex.add("a", 3, tokenize("User uses Emacs too"))
    assert set(lex.search("a", tokenize("emacs"), 10)) == {3}
    lex.search("a", tokenize("emacs"), 10)
    assert loads == ["a", "b"]


def test_documents_outside_the_index_use_its_statistics():
    lex = LexicalIndex(lambda user: [(1, tokenize("User lives in Oslo"))])
    scores = lex.score_documents("u", tokenize("Where did I live before, Berlin?"), {9: tokenize("User lives in Berlin")})
    assert 0 < scores[9] <= 1


@pytest.mark.parametrize("limit", [1, 2])
def test_search_limit(limit):
    lex = LexicalIndex(lambda user: [(i, tokenize(f"linux box {i}")) for i in range(5)])
    assert len(lex.search("u", tokenize("linux"), limit)) == limit


def test_search_keeps_the_best_scores_in_full_order():
    # The limit takes the best documents before normalizing; it must keep what a full sort would keep.
    docs = [(i, tokenize("linux " * (1 + i % 3) + "box " * (i % 5) + f"note{i}")) for i in range(40)]
    lex = LexicalIndex(lambda user: docs)
    everything = lex.search("u", tokenize("linux box"), 1000)
    best = sorted(everything.items(), key=lambda kv: kv[1], reverse=True)[:7]
    assert list(lex.search("u", tokenize("linux box"), 7).items()) == best


def test_has_term_follows_adds_and_removals():
    lex = LexicalIndex(lambda user: [(1, tokenize("User uses Vim"))] if user == "a" else [])
    assert lex.has_term("a", tokenize("vim")[0])
    assert not lex.has_term("b", tokenize("vim")[0])
    lex.remove("a", 1)
    assert not lex.has_term("a", tokenize("vim")[0])
