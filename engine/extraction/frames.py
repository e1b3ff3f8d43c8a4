"""A sentence's frame: who does what, to what, with which preposition, and the value after it.

"User's book club meets at the library." and "User meets at Jen's house now." keep one frame (meet ... at) with
another value; so do "User's coffee subscription is from Pact." and "User gets it from Rave now.", and "The kids'
swimming lessons are on Saturdays." and "They're on Sundays now.". Chat says an update that way: the thing is named
once (in the old fact, or in the message's clause before) and the new value comes with a pronoun or the speaker in
its place. Conflict resolution (rule 12, resolve.frame_kept) reads frames; nothing here knows about memories.

No tagger: a verb is a form of "be"/"have" or an "-s" word followed by a preposition, a pronoun or a determiner
(the memories are stored in the third person, so their verbs carry the "-s"); a noun phrase runs up to it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .. import text as textlib

_BE = frozenset("is are was were am 's 're 'm be been".split())
_HAVE = frozenset("has have had".split())
PREPOSITIONS = frozenset("at on in with from to through via by into along around near outside behind under inside".split())
# What may stand between a verb and its object or preposition: "meets now at", "is still with", "is usually on".
_ADVERBS = frozenset("now still usually normally currently mostly always just actually all mainly generally "
                     "basically officially finally out up off back over round "
                     # where, said before the place: "we meet upstairs at the Crown now"
                     "upstairs downstairs together nearby locally".split())
# Words that open a clause of their own before the subject: "Since the company downsized User works from home."
_OPENERS = frozenset("since because when after before while if as although though once until so".split())
# Words that stand for a thing said elsewhere.
_OBJECT_PRONOUNS = frozenset("it them him her one ones those these that this".split())
_THING_PRONOUNS = frozenset("it they its it's they're".split())
_DETERMINERS = frozenset("a an the my our your his her their its this that these those some".split())
# Where a value ends: a word of when, of change or of reason, or a new clause.
_VALUE_END = re.compile(
    r"\s+(?:now|these days|nowadays|this (?:year|term|season|time|month|week)|from now on|instead|anymore|"
    r"any more|again|since|because|as|so|but|and then|after|when|which|for now|lol|haha)\b.*$|[,;!?(].*$|:(?!\d).*$|"
    r"\.\s*$",
    re.IGNORECASE)


@dataclass(frozen=True)
class Frame:
    """subject: "user" (the user or the speaker said as "I"/"we"), "pronoun" (it, they: a thing said
    elsewhere) or "thing" (a noun phrase: `thing` holds its topic words); verb: a lemma ("be", "meet"); obj:
    "" (none), "pronoun" (it, them) or the object's topic words joined; prep: the preposition; value: the
    value's words as said (lowercase)."""

    subject: str
    thing: frozenset[str]
    verb: str
    obj: str
    prep: str
    value: str


def _lemma(word: str) -> str:
    word = word.casefold()
    if word in _BE:
        return "be"
    if word in _HAVE:
        return "have"
    return textlib.term(word)


def _is_verb(words: list[str], i: int, plural_subject: bool = False) -> bool:
    word = words[i].casefold()
    if word in _BE or word in _HAVE:
        return True
    after = words[i + 1].casefold() if i + 1 < len(words) else ""
    if plural_subject and word.isalpha() and word not in _DETERMINERS and word not in PREPOSITIONS:
        # "they go out on Mondays", "the bins go out on Thursdays": a plural subject's verb has no "-s"
        return after in PREPOSITIONS or after in _ADVERBS or after in _OBJECT_PRONOUNS
    if not word.endswith("s") or word.endswith(("ss", "'s", "us", "is")) or len(word) < 4:
        return False
    if _participle(after):
        return word == "gets"  # "gets collected on ..."
    return after in PREPOSITIONS or after in _OBJECT_PRONOUNS or after in _DETERMINERS or after in _ADVERBS


_TOKEN = re.compile(r"[A-Za-z0-9][\w'&.:+-]*[\w+]|[A-Za-z0-9&+]")


def _words(text: str) -> list[str]:
    out = []
    for word in _TOKEN.findall(text):
        low = word.casefold()
        for suffix in ("'s", "'re", "'m"):  # "It's" -> "It" + "'s"; "User's" stays a possessive (below)
            if low.endswith(suffix) and low[: -len(suffix)] in ("it", "they", "we", "i", "that", "he", "she"):
                out.extend([word[: -len(suffix)], suffix])
                break
        else:
            out.append(word)
    return out


@lru_cache(maxsize=8192)
def frame(text: str, said_lower: bool = False) -> Frame | None:
    """The frame of a third-person sentence, or None when it has no verb with a preposition after it.
    `said_lower`: its first word was written in lower case (a part of a chat sentence), so it is no name."""
    head = _VALUE_END.sub("", text.strip())
    words = _words(head)
    if len(words) < 3:
        return None
    first = words[0].casefold()
    if first == "user":
        start, subject = 1, "user"
    elif first in ("it", "they"):
        start, subject = 1, "pronoun"
    elif first in ("user's", "the", "our", "my") or words[0][:1].isupper():
        start, subject = 0, "thing"
    else:
        return None
    if subject != "thing":  # "User does yoga at ...", "They go out on ...": the word after the subject
        word = words[start].casefold()
        verb_at = start if (word in _BE or word.isalpha()) and word not in _DETERMINERS else None
    else:
        verb_at = next((i for i in range(1, min(len(words), 8))
                        if _is_verb(words, i, plural_subject=_plural(words[i - 1], first))), None)
    if verb_at is None or (subject != "thing" and verb_at != start):
        return None
    thing = frozenset()
    if subject == "thing":
        said = [w.casefold() for w in words[:verb_at]]
        if said[0] in _OPENERS or any(w in PREPOSITIONS or w == "user" for w in said):
            return None  # not a noun phrase: a clause of its own comes first
        noun_phrase = " ".join(w for w in words[:verb_at] if w.casefold() not in ("user's", "user"))
        thing = frozenset(textlib.tokenize(noun_phrase))
        if not thing:
            return None
        if (not said_lower and words[0][:1].isupper() and first not in ("user's", "the", "our", "my")
                and len(words[:verb_at]) == 1):
            return None  # "Marco is User's trainer": a person, not a thing
    i = verb_at + 1
    verb = words[verb_at]
    while _lemma(verb) in _AUXILIARIES and i < len(words) and (_participle(words[i]) or _lemma(words[i]) == "be"):
        # "User is living with ...", "it gets collected on ...", "User has been ordering them from ...": the verb
        # is the one the auxiliaries lead to
        verb, i = words[i], i + 1
    while i < len(words) and words[i].casefold() in _ADVERBS:
        i += 1
    prep_at = next((j for j in range(i, min(len(words), i + 5)) if words[j].casefold() in PREPOSITIONS), None)
    if prep_at is None or prep_at + 1 >= len(words):
        return None
    between = [w.casefold() for w in words[i:prep_at] if w.casefold() not in _ADVERBS]
    if not between:
        obj = ""
    elif all(w in _OBJECT_PRONOUNS for w in between):
        obj = "pronoun"
    else:
        obj = " ".join(sorted(textlib.tokenize(" ".join(between))))
        if not obj:
            return None
    value = " ".join(words[prep_at + 1:]).casefold().strip()
    if not value or value in _OBJECT_PRONOUNS:
        return None
    return Frame(subject=subject, thing=thing, verb=_lemma(verb), obj=obj, prep=words[prep_at].casefold(),
                 value=value)


# Where a chat sentence's parts meet: "council changed the rounds, they go out on monday nights now", "she retired,
# so he has them with Mr. Ortega now".
_PARTS = re.compile(r"\s*(?:[,;]|:(?!\d)|\s-\s|\bso\b|\band\b(?=\s+(?:i|we|it|they|it's|they're|we're|i'm)\b))\s*",
                    re.IGNORECASE)


def last_frame(text: str) -> tuple[Frame, str, str] | None:
    """The frame of the last part of a sentence that has one, with the sentence from that part on and the words
    before it ("Since the company downsized User works from home.": the part "User works from home.")."""
    starts = [0] + [m.end() for m in _PARTS.finditer(text)]
    for start in reversed(starts):
        part = text[start:].strip()
        said_lower = part[:1].islower()
        if said_lower:
            part = part[0].upper() + part[1:]
        found = frame(part, said_lower)
        if found is not None:
            return found, part, text[:start]
    for m in re.finditer(r"\b(?:User|It|They|it|they)\b", text):  # "Since moving out, User does it at ..."
        if m.start() == 0:
            continue
        part = text[m.start():]
        found = frame(part[0].upper() + part[1:])
        if found is not None:
            return found, part, text[:m.start()]
    return None


_AUXILIARIES = frozenset({"be", "get", "have", "been"})


def _participle(word: str) -> bool:
    word = word.casefold()
    return word.isalpha() and len(word) > 5 and word.endswith(("ing", "ed"))


def _plural(word: str, first: str) -> bool:
    word = word.casefold()
    return word == "they" or (first != "user" and word.endswith("s") and not word.endswith(("ss", "'s", "us", "is"))
                               and len(word) > 3)


def value_words(value: str) -> frozenset[str]:
    return frozenset(textlib.tokenize(value))


# A place is said "at" or "in" alike: "meets at the café" / "meets in Priya's front room".
_PLACE = {"at": "at", "in": "at"}


def kept(old: Frame, new: Frame) -> bool:
    """Does the new frame say the old one's verb and preposition again, of the same thing or of a pronoun or the
    speaker standing for it, with another value?"""
    if old.verb != new.verb or _PLACE.get(old.prep, old.prep) != _PLACE.get(new.prep, new.prep):
        return False
    if new.obj not in ("", "pronoun") and new.obj != old.obj:
        return False  # "User buys their clothes at Zara" names another thing than "their groceries"
    if new.subject == "thing" and not (old.subject == "thing" and old.thing & new.thing):
        return False  # "User's running group meets at the park": another thing than the book club
    if new.subject == "pronoun" and old.subject != "thing":
        return False
    old_value, new_value = value_words(old.value), value_words(new.value)
    return bool(new_value) and not new_value <= old_value and not old_value <= new_value


def restate(old_text: str, new_text: str) -> str | None:
    """The old sentence with the new sentence's value in its frame ("User's book club meets at the library." and
    "User meets at Jen's house now." -> "User's book club meets at Jen's house."), or None when the frames differ."""
    old, found = frame(old_text), last_frame(new_text)
    if old is None or found is None or not kept(old, found[0]):
        return None
    new, new_text = found[0], found[1]
    said_old = _VALUE_END.sub("", old_text.strip())
    said_new = _VALUE_END.sub("", new_text.strip())
    at_old = _value_start(said_old, old)
    at_new = _value_start(said_new, new)
    if at_old is None or at_new is None:
        return None
    return f"{said_old[:at_old]}{said_new[at_new:]}."


def _value_start(said: str, found: Frame) -> int | None:
    """Where the value starts in a sentence: after the last " <prep> " before its value as said."""
    end = len(said) - len(found.value)
    if end <= 0 or said[end:].casefold() != found.value:
        return None
    return end


def value_of_another_thing(old_topic: frozenset[str] | set[str], new_text: str) -> bool:
    """Does the sentence's last part, after another part, say its value of a thing of its own that the old memory
    is not about? "Standup ran long today, lunch is at 1 now." gives lunch's time, not the standup's."""
    found = last_frame(new_text)
    if found is None or not frozenset(textlib.tokenize(found[2])) & old_topic:
        return False  # no part before it about the old memory's thing ("New routine: lights out at 10:30")
    new = found[0]
    return new.subject == "thing" and not (new.thing & old_topic)
