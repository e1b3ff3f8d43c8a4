"""A message typed all in lower case has its names capitalised before the rules read it (extraction/casing.py), with
the words English knows from WordNet (lexicon.py). The sentences are our own, not evaluation cases."""
from __future__ import annotations

import pytest

from engine.extraction import extract
from engine.extraction.casing import names_capitalised, opens_with_name
from engine.extraction.compete import competes
from engine.lexicon import WordNetLexicon, base_forms

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def lexicon():
    return WordNetLexicon()


@pytest.mark.parametrize("word, known", [
    ("walks", True), ("stopped", True), ("nicer", True), ("babies", True), ("bought", True), ("doctor's", True),
    ("fixs", True),  # "fix" with a stray "s": read as its verb, not as a name
    ("lunchboxes", True), ("bookcase", True),  # two words run together
    ("callum", False), ("ilya", False), ("spotify", False), ("tbh", False),
])
def test_english_words_and_their_inflections(lexicon, word, known):
    assert lexicon.is_word(word) is known


@pytest.mark.parametrize("word, name", [
    ("leeds", True), ("norway", True), ("cardiff", True),
    ("jack", False), ("bath", False), ("starling", False),  # names that are also things
    ("walks", False), ("callum", False),  # a word, and a word English does not know at all
])
def test_words_known_only_as_names(lexicon, word, name):
    assert lexicon.is_name(word) is name


def test_base_forms_undo_a_doubled_consonant():
    assert "stop" in base_forms("stopped") and "run" in base_forms("running")


@pytest.mark.parametrize("typed, read", [
    # a word English does not know
    ("kasia from next door walks the dog now", "Kasia from next door walks the dog now"),
    ("my cousin ilya fixes my car these days", "my cousin Ilya fixes my car these days"),
    ("we moved the builds to circleci", "we moved the builds to Circleci"),
    # after "called" or "named", whatever the word
    ("im registered with dr oyelaran now", "im registered with dr Oyelaran now"),  # the title: _titled_names
    ("got a kitten named biscuit", "got a kitten named Biscuit"),
    ("a lovely guy called rob cuts my hair", "a lovely guy called Rob cuts my hair"),
    # a word known only as a name
    ("my sister moved to leeds for work", "my sister moved to Leeds for work"),
    # shorthand, function words, inflections and slips of the keys stay as typed
    ("ngl everything tastes better since i quit sugar tbh", "ngl everything tastes better since i quit sugar tbh"),
    ("finaly got the flat, completly buzzing", "finaly got the flat, completly buzzing"),
    ("she fixs bikes for a living", "she fixs bikes for a living"),
    ("me and us and it", "me and us and it"),  # not Maine, the US, IT
    # an email address and a hyphened word are left whole
    ("my email is kasia.nowak@example.org", "my email is kasia.nowak@example.org"),
    ("five-a-side on thursdays", "five-a-side on thursdays"),
    # a message with any capital letter is read as typed
    ("Kasia walks the dog now, ilya too", "Kasia walks the dog now, ilya too"),
    # a run of letters longer than any name is left alone, and quickly
    ("x" * 5000 + " walks the dog now", "x" * 5000 + " walks the dog now"),
    # a paste of many words English does not know, below a third of the message: left as typed
    (" ".join(f"the zq{chr(97 + i // 26)}{chr(97 + i % 26)}x walks the dog" for i in range(60)),
     " ".join(f"the zq{chr(97 + i // 26)}{chr(97 + i % 26)}x walks the dog" for i in range(60))),
    # another language: left as it is
    ("me gusta mucho el queso manchego y la tortilla", "me gusta mucho el queso manchego y la tortilla"),
])
def test_names_in_a_lower_case_message_are_capitalised(lexicon, typed, read):
    assert names_capitalised(typed, lexicon) == read


def test_the_rules_read_a_capitalised_name_as_the_value(lexicon):
    # the user's trainer, typed in lower case: the name is the value of the slot, as when typed with capitals
    typed = [c.value for c in extract("my personal trainer is oksana", lexicon=lexicon)]
    capitalised = [c.value for c in extract("my personal trainer is Oksana")]
    assert typed == capitalised and "Oksana" in typed[0]
    assert "Oksana" not in extract("my personal trainer is oksana")[0].value


@pytest.mark.parametrize("sentence, opens", [
    ("Callum from up the road walks Bobby now.", True),
    ("Oksana trains User on Mondays now.", True),
    ("Leeds is where User's brother lives.", True),  # known only as a name
    ("Salary goes into Starling now.", False),  # an English word, capitalised as a sentence's first
    ("Work is stressful now.", False),
    ("Lunchboxes get bananas now.", False),
    ("User's cousin Ilya fixes their car.", False),
    ("The 1975 are User's favourite band.", False),
])
def test_a_sentence_opening_with_a_name(lexicon, sentence, opens):
    assert opens_with_name(sentence, lexicon) is opens


def test_a_holder_named_first_competes_with_the_old_holder(lexicon):
    # who walks the dog now, named first: a name of the same kind as the old walker's, so the two compete
    old, new = "User's dog walker is Gemma.", "Callum from up the road walks the dog now."
    assert not competes(old, new)
    assert competes(old, new, new_opens_with_name=True)
    [candidate] = extract("callum from up the road walks the dog now", lexicon=lexicon)
    assert candidate.opens_with_name
    assert not extract("callum from up the road walks the dog now")[0].opens_with_name


def test_a_directory_without_wordnet_is_refused(tmp_path):
    with pytest.raises(ValueError, match="no WordNet index files"):
        WordNetLexicon(tmp_path)
