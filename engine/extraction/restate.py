"""An update said as a change ("replaced Trello with Linear", "moved my mail off Gmail and onto
Fastmail") restated as the fact it changes: the old memory's sentence with the new value in the old
one's place ("User uses Linear for tasks.").

When the change names neither the old value nor what it changed ("Weigh-in day is Sunday now." against
"User weighs themselves on Mondays."), the one new value of the old value's kind (a time, an amount, a
name) takes its place, if there is exactly one of each.

Said as a change, the new fact would be stored in the words of the change, under whatever slot the
clause looked nearest to, and a question about the thing ("which task tool do I use?") would meet a
sentence about switching. Restated, it answers like the memory it replaces, and the user's own words
stay with it as its source message.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from .. import text as textlib
from . import deltas
from .compete import new_level
from .voice import PAST_TENSE


class Restated(NamedTuple):
    text: str  # the old memory's sentence with the new value in the old one's place
    value: str  # the new value
    inferred: bool = False  # found by kind of value, not named by the change ("from X to Y")

_DETERMINER = r"(?:a|an|the|my|our|their|his|her|its|your)"
_PRONOUNS = {"it", "them", "that", "this", "one", "ones", "those", "these", "him", "her", "something"}

# The change names the old value: "from X to Y", "replaced X with Y", "off X onto Y", "renamed X to Y".
_NAMED = [
    re.compile(r"\bfrom\s+(?P<old>.+?)\s+(?:over\s+)?(?:to|onto)\s+(?P<new>.+)", re.IGNORECASE),
    re.compile(r"\breplac(?:ed|ing|e)\s+(?P<old>.+?)\s+with\s+(?P<new>.+)", re.IGNORECASE),
    re.compile(r"\b(?:off|away from)\s+(?P<old>.+?)\s+(?:and\s+)?(?:onto|on to|over to|to)\s+(?P<new>.+)",
               re.IGNORECASE),
    re.compile(r"\b(?:renamed|swapped|traded|exchanged)\s+(?:in\s+)?(?P<old>.+?)\s+(?:for|to|with)\s+(?P<new>.+)",
               re.IGNORECASE),
]
# "from this month ...", "from next week ...": when a change holds from, not the value it replaces.
_WHEN_FROM = re.compile(r"(?:this|next|last|the start of|the end of|now|today|tomorrow|monday|tuesday|wednesday|"
                        r"thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|"
                        r"september|october|november|december)\b", re.IGNORECASE)
# A new value said as a clause of its own ("... to school is our neighbour Olga") is no value.
_A_CLAUSE = re.compile(r"^\s*\w+(?:\s+\w+)?\s+(?:is|are|was|were)\s", re.IGNORECASE)
# "renamed master to main" names the old value; "renamed the Slack workspace to acme-eng" names the thing.
_RENAMED_THING = re.compile(rf"\brenamed\s+{_DETERMINER}\s", re.IGNORECASE)
# The change names what changed, not its old value: "switched payroll over to Personio".
_TOPIC = re.compile(r"\b(?:switched|changed|migrated|moved|upgraded|downgraded|ported|shifted)\s+"
                    r"(?:(?P<topic>.+?)\s+)?(?:over\s+)?(?:to|onto)\s+(?P<new>.+)", re.IGNORECASE)
_RENAMED_TO = re.compile(r"\brenamed\s+(?P<topic>.+?)\s+to\s+(?P<new>.+)", re.IGNORECASE)
# Where a new value stops: a time, a reason or the next clause follows it, or how long ago it changed ("to Hoka
# Cliftons a month ago", "to Dr. Mehta a couple of months back").
_VALUE_END = re.compile(r"\s+(?:in|on|at|since|for|last|this|next|because|as|when|but|so|after|before|ago|and|"
                        r"now|from|with|today|yesterday|recently|instead)\b.*$|\s*[,;:!?]+.*$|\.+\s*$|"
                        r"\s+(?:a|an|one|two|three|four|five|six|a few|a couple of|several|\d+)\s+"
                        r"(?:minutes?|hours?|days?|weeks?|months?|years?)\s+(?:ago|back|before)\b.*$",
                        re.IGNORECASE)
# A title's full stop is no sentence's end: "Mr. Hughes" and "Dr. Okafor" are one name each.
_TITLE = r"(?:(?:Mr|Mrs|Ms|Mx|Dr|Prof|St)\.\s+)?"
_NAME_TOKEN = re.compile(rf"\b{_TITLE}[A-Z0-9][\w+-]*(?:\.[\w+-]+)*")
_MAX_VALUE_WORDS = 5


def restate(old_text: str, clause: str) -> Restated | None:
    """The old memory restated with the value the clause puts in its place, and that value; None when
    the clause does not say both what was replaced in ``old_text`` and what replaced it."""
    delta = deltas.find(clause)
    if delta is not None:
        # "put the rent up by 75": the number is how far the amount moved, never the amount (deltas.py)
        moved = deltas.apply(old_text, delta)
        if moved is not None:
            return Restated(*moved)
    for pattern in _NAMED:
        match = pattern.search(clause)
        if match and _WHEN_FROM.match(match.group("old")):
            continue  # "from this month the driver ... is ...": when it changes, not what it was
        if match and not _RENAMED_THING.search(clause):
            new = _new_value(match.group("new"))
            old = re.sub(r"\s+(?:in|back|up|off|away)$", "", _bare(match.group("old")), flags=re.IGNORECASE)
            if new is None:
                return None
            span = (_find(old_text, old) if old.casefold() not in _PRONOUNS
                    else _only_name(old_text, clause, named=True))
            return _put(old_text, span, new)  # naming a value this memory does not hold: not this memory's change
    level = _level(old_text, clause)
    if level is not None:
        return level
    match = _TOPIC.search(clause) or _RENAMED_TO.search(clause)
    if match:
        new = _new_value(match.group("new"))
        if new is not None:
            if not _NAME_TOKEN.search(new):
                return None  # a name replaced by a plain phrase ("changed the venue to a hotel"): not like for like
            placed = _put(old_text, _only_name(old_text, clause, named=False), new)
            if placed is not None:
                return placed
            # "moved it to 5:30" against a memory of several values: the one value of the new one's kind, if any
    return None if delta is not None else _by_kind(old_text, clause)


# Values by kind, for a change that only says the new value. A clock time, a day of the month, a weekday or a
# month; an amount
# (a number not after a name, which would make it a version: "iPhone 12"), two numbers read as one
# ("140 over 90", "122/80"); a name (a capitalised word or several, not the sentence's first word).
_TIME_VALUE = re.compile(
    r"(?<![\w:])(?:\d{1,2}(?::\d\d)?\s*(?:am|pm)|\d{1,2}:\d\d|\d{1,2}(?:st|nd|rd|th)|noon|midnight|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?|january|february|march|april|june|july|august|september|"
    r"october|november|december)(?![\w:])", re.IGNORECASE)
_AMOUNT_VALUE = re.compile(r"(?<![\w.,:/])\d[\d,.]*(?:k|%|mg|g|kg|km|ml|l|cm|mm|lbs?|oz|gb|tb)?"
                           r"(?:\s*(?:/|over)\s*\d[\d,.]*)?(?![\w:/])", re.IGNORECASE)
_NAME_VALUE = re.compile(rf"(?<![\w'-]){_TITLE}[A-Z][\w+-]*(?:\.[\w+-]+)*(?:\s+[A-Z0-9][\w+-]*(?:\.[\w+-]+)*)*")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+)$")


def _spans(text: str, kind: str, known: str = "") -> tuple[list[tuple[int, int]], int]:
    """The values of a kind in a text, and how many more there may be: a capitalised first word of a sentence
    may be a name ("Anna and Priya run the team now") or not ("Landlord bumped it up"), so it is never taken
    as the value but makes the choice ambiguous when it could be one and is not in ``known`` (the old memory's
    words: "Lucy retired, so I go to Sam" names the old value first)."""
    if kind == "time":
        return [m.span() for m in _TIME_VALUE.finditer(text)], 0
    if kind == "amount":
        return [m.span() for m in _AMOUNT_VALUE.finditer(text.rstrip(".")) if not _after_name(text, m.start())], 0
    spans, maybe = [], 0
    for m in _NAME_VALUE.finditer(text):
        word = m.group(0).split()[0]
        if word.casefold() in {"user", "user's", "i", "i'm", "i've", "i'd", "i'll"} or _TIME_VALUE.fullmatch(word):
            continue
        if _SENTENCE_START.search(text[:m.start()]) and not re.search(r"[a-z][A-Z]|\d", word):
            bare = word.casefold()
            # a verb ("Closed my account…", "Got…") or an adverb opening the sentence is no name
            maybe += (bare not in textlib.STOPWORDS and not bare.endswith(("ly", "ed", "ing")) and bare not in PAST_TENSE
                      and " " not in m.group(0) and not re.search(rf"\b{re.escape(bare)}\b", known))
            continue
        spans.append(m.span())
    return spans, maybe


def _after_name(text: str, start: int) -> bool:
    before = text[:start].split()
    return bool(before) and before[-1][:1].isupper() and before[-1].casefold() not in {"user", "user's"}


def _by_kind(old_text: str, clause: str) -> Restated | None:
    """The old value replaced by the clause's one new value of the same kind; None unless the old memory holds
    exactly one value (of any kind) and the clause exactly one of that kind it does not already hold."""
    said = old_text.casefold()
    held = {kind: _spans(old_text, kind)[0] for kind in ("time", "amount", "name")}
    if sum(len(spans) for spans in held.values()) != 1:
        # "pays 12 euros for Spotify": the price was Spotify's, and would be wrong for what replaced it; a time
        # said alone still has its one place ("at 4:45 on Thursdays" moved "to 5:30")
        return _by_time_of_a_kind(old_text, clause)
    for kind in ("time", "amount", "name"):
        old = held[kind]
        if len(old) != 1:
            continue
        spans, maybe = _spans(clause, kind, known=said)
        new = {clause[a:b] for a, b in spans
               if not re.search(rf"(?<!\w){re.escape(clause[a:b].casefold())}(?!\w)", said)}
        if len(new) == 1 and not maybe:
            return _put(old_text, old[0], new.pop(), inferred=True)
    return _by_time_of_a_kind(old_text, clause)


# Kinds of time that never stand for one another: a clock time, a weekday, a month, a day of the month.
_TIME_KINDS = (
    re.compile(r"(?<![\w:])(?:\d{1,2}(?::\d\d)?\s*(?:am|pm)|\d{1,2}:\d\d|noon|midnight)(?![\w:])", re.IGNORECASE),
    re.compile(r"(?<!\w)(?:mon|tues|wednes|thurs|fri|satur|sun)days?(?!\w)", re.IGNORECASE),
    re.compile(r"(?<!\w)(?:january|february|march|april|june|july|august|september|october|november|december)(?!\w)",
               re.IGNORECASE),
    re.compile(r"(?<!\w)\d{1,2}(?:st|nd|rd|th)(?!\w)", re.IGNORECASE),
)


def _by_time_of_a_kind(old_text: str, clause: str) -> Restated | None:
    """A memory holding several values ("Leo's swimming lessons are at 4:45 on Thursdays.") against a change that
    says one time ("they moved it to 5:30"): a clock time replaces the one clock time, a weekday the one weekday.
    Only when the clause says no other value of any kind: "moved it to 5:30 on Fridays" says two."""
    said = old_text.casefold()
    new_values = [m for kind in _TIME_KINDS for m in kind.finditer(clause)
                  if not re.search(rf"(?<!\w){re.escape(m.group(0).casefold())}(?!\w)", said)]
    if len(new_values) != 1 or _spans(clause, "amount")[0] or _spans(clause, "name", known=said) != ([], 0):
        return None
    kind = next(k for k in _TIME_KINDS if k.fullmatch(new_values[0].group(0)))
    old = [m.span() for m in kind.finditer(old_text)]
    if len(old) != 1:
        return None
    return _put(old_text, old[0], new_values[0].group(0), inferred=True)


# The level of a plan in a memory: the word before the level noun ("the Pro plan", "the free tier").
_LEVEL_NOUN = r"(?:plan|tier|subscription|membership|package|tariff|bundle|edition|licen[cs]e)"
_LEVEL_WORD = re.compile(rf"\b[\w+-]+(?=\s+{_LEVEL_NOUN}\b)", re.IGNORECASE)


def _level(old_text: str, clause: str) -> Restated | None:
    """A plan taken up or down ("downgraded to basic") against "User is on the Pro plan.": the level word
    replaced ("User is on the basic plan."); a new level said with its noun ("to the plus plan") replaces the
    old one's level word and noun."""
    said = new_level(clause)
    if said is None:
        return None
    new = _new_value(said)
    spans = [m.span() for m in _LEVEL_WORD.finditer(old_text)]
    if new is None or len(spans) != 1:
        return None
    new = _bare(new)
    with_noun = re.match(rf"^(?P<level>.+?)\s+{_LEVEL_NOUN}$", new, re.IGNORECASE)
    if with_noun:
        new = with_noun["level"]
    if len(new.split()) > 2:
        return None
    return _put(old_text, spans[0], new)


def _bare(phrase: str) -> str:
    return re.sub(rf"^(?:{_DETERMINER}\s+)+", "", phrase.strip(), flags=re.IGNORECASE)


def _new_value(phrase: str) -> str | None:
    if _A_CLAUSE.search(phrase):
        return None  # "school is our neighbour Olga": a clause of its own, no value
    value = phrase.strip()
    while True:
        cut = _VALUE_END.sub("", value).strip()
        if cut == value:
            break
        value = cut
    words = value.split()
    if not words or len(words) > _MAX_VALUE_WORDS or words[-1].casefold() in _PRONOUNS:
        return None
    return value


def _find(text: str, value: str) -> tuple[int, int] | None:
    """Where ``value`` (or its last word) is in ``text``, widened over the name it starts
    ("Ford" in "a Ford Focus" is the Ford Focus)."""
    for probe in (value, value.split()[-1] if value.split() else ""):
        if not probe:
            continue
        match = re.search(rf"(?<![\w-]){re.escape(probe)}(?![\w-])", text, re.IGNORECASE)
        if match:
            start, end = match.span()
            while (more := re.match(r"\s+[A-Z0-9][\w+-]*(?:\.[\w+-]+)*", text[end:])):
                end += more.end()
            while ((less := re.search(r"(?<=\s)[A-Z0-9][\w+-]*(?:\.[\w+-]+)*\s+$", text[:start]))
                   and less.group(0).split()[0].casefold() not in {"user", "user's"}):
                start = less.start()  # "Yaris" in "a Toyota Yaris" is the Toyota Yaris
            return start, end
    return None


def _only_name(text: str, clause: str, *, named: bool) -> tuple[int, int] | None:
    """The one name in ``text`` that can be the replaced value. ``named``: the clause names it ("ripped
    out jenkins and replaced it"); otherwise the clause names the topic, so the value is the name it
    does not repeat ("switched payroll over to Personio" against "payroll is done in Sage")."""
    spans, said = [], clause.casefold()
    for match in _NAME_TOKEN.finditer(text):
        if match.start() == 0 or match.group(0).casefold() in {"user", "user's"}:
            continue
        if spans and text[spans[-1][1]:match.start()] == " ":
            spans[-1] = (spans[-1][0], match.end())  # one name of several words
        else:
            spans.append((match.start(), match.end()))
    mentioned = [s for s in spans if re.search(rf"(?<!\w){re.escape(text[s[0]:s[1]].casefold())}(?!\w)", said)]
    fitting = mentioned if named else [s for s in spans if s not in mentioned]
    if len(fitting) == 1:
        return fitting[0]
    # One name in the memory is its value, also when the change repeats it ("moved my accounts over to Revolut,
    # Barclays fees were a joke" against "User's bank is Barclays").
    return spans[0] if len(spans) == 1 else None


def _put(text: str, span: tuple[int, int] | None, new: str, inferred: bool = False) -> Restated | None:
    if span is None:
        return None
    start, end = span
    before = text[:start]
    if re.search(rf"\b{_DETERMINER}\s+$", before, re.IGNORECASE):
        new = _bare(new)  # "a Ford Focus" -> "a Skoda Octavia", not "a a Skoda Octavia"
    return Restated(before + new + text[end:], new, inferred)
