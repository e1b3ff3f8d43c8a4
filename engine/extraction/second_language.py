"""English written as a second language, in the standard forms the rules read.

A speaker of a first language without "do" support or with a dropped subject writes "I not drink alcohol anymore"
and "now is with Three because is more cheap". The rules that read an end ("don't drink ... anymore") or a value
said again of a thing ("it is with Three now") look for the auxiliary and the "it" such a sentence leaves out, so
the missing word is put back before any rule reads the message. Only where the form is unmistakable: a pronoun
subject ("I", "we", "my wife") right before "not", and "is"/"was" right after a clause break with nothing that
could be its subject.
"""
from __future__ import annotations

import re

from .vocabulary import JOB_NOUNS
from .voice import PAST_TENSE

# What follows "not" without being a verb: a describing word ("I not sure"), or a word that qualifies what comes
# after it ("I not only cook ..."), or "to" ("asked my brother not to"). Verbs in -ing or -ed are told by their
# ending; a past form ("I not went") is left as said.
_NOT_A_VERB = frozenset("""
only just even yet always ever really very so too that much many all any a an the my our your his her their this
sure happy ready able good bad well fine ok okay sorry afraid alone busy free sick ill hungry home here there keen
vegan vegetarian fan big rich poor single pregnant mad sad angry available allowed interested married worried into
to at in on for with from because but if when as
""".split())
_PLURAL_SUBJECTS = frozenset({"we", "you", "they"})
_NOT_WITHOUT_AUXILIARY = re.compile(r"\b(?P<subject>i|we|you|they|he|she|(?:my|our|your|his|her|their)\s+[a-z]+)\s+"
                                    r"not\s+(?P<word>[a-z]+)\b", re.IGNORECASE)
# "is"/"was" opening a clause with no subject: after a comma or semicolon, or after "because" ("because is more
# cheap"), with at most one word of time between ("now is with Three"). Not in a question ("tea, is it ok?").
_SUBJECTLESS_BE = re.compile(r"(?P<before>(?:[,;]|\b(?:because|cause|cos|coz))\s+(?:(?:now|still|also|only)\s+)?)"
                             r"(?P<be>is|was)\b(?!\s+(?:it|there|that|this|he|she)\b)", re.IGNORECASE)


def _base_form(verb: str) -> str:
    """"likes" -> "like", "watches" -> "watch", "studies" -> "study" (after "doesn't" the verb takes no -s)."""
    low = verb.casefold()
    if low.endswith("ies") and len(low) > 4:
        return verb[:-3] + "y"
    if low.endswith(("ches", "shes", "sses", "xes", "zes", "oes")):
        return verb[:-2]
    if low.endswith("s") and not low.endswith(("ss", "us", "is")):
        return verb[:-1]
    return verb


def _auxiliary_put_back(match: re.Match[str]) -> str:
    subject, word = match["subject"], match["word"]
    low = word.casefold()
    if low in _NOT_A_VERB or low in PAST_TENSE or low.endswith(("ed", "ly")):
        return match.group(0)
    if low.endswith("ing"):
        be = "'m" if subject.casefold() == "i" else " are" if subject.casefold() in _PLURAL_SUBJECTS else " is"
        return f"{subject}{be} not {word}"
    if _one_person_or_thing(subject):
        return f"{subject} doesn't {_base_form(word)}"
    return f"{subject} don't {word}"


def _one_person_or_thing(subject: str) -> bool:
    """"he", "she", "my wife"; not "we", "they", "my kids"."""
    words = subject.casefold().split()
    if len(words) == 1:
        return words[0] in ("he", "she")
    return not (words[-1].endswith("s") and not words[-1].endswith("ss"))


# A verb of change in its base form, said with a time that is past ("last month I change my bank to Monzo", "we move
# to Leeds two weeks ago"): the past form, which the rules read as a change done. Only with such a time: "I change
# trains at Crewe" is a habit, "next month I move" a plan.
_CHANGE_PAST = {"change": "changed", "switch": "switched", "move": "moved", "buy": "bought", "sell": "sold",
                "start": "started", "stop": "stopped", "join": "joined", "leave": "left", "promote": "promoted",
                "get": "got", "find": "found", "take": "took", "rent": "rented", "sign": "signed",
                "cancel": "cancelled", "finish": "finished", "begin": "began", "become": "became",
                "marry": "married", "adopt": "adopted", "transfer": "transferred", "upgrade": "upgraded",
                "replace": "replaced", "swap": "swapped", "open": "opened", "close": "closed", "sell off": "sold off"}
_PAST_TIME = re.compile(r"\b(?:last\s+(?:week|weekend|month|year|night|spring|summer|autumn|fall|winter|monday|tuesday|"
                        r"wednesday|thursday|friday|saturday|sunday|time)|yesterday|ago|the other day|recently|"
                        r"already|just)\b", re.IGNORECASE)
_BASE_CHANGE = re.compile(r"\b(?P<subject>i|we|he|she|they|(?:my|our)\s+[a-z]+)\s+(?P<adverb>(?:just|already|recently|"
                          r"finally)\s+)?(?P<verb>" + "|".join(sorted(_CHANGE_PAST, key=len, reverse=True)) +
                          r")\b(?!\s+(?:to|for)\s+(?:\w+\s+)?(?:buy|get|find|move|change)\b)", re.IGNORECASE)
_JOB = JOB_NOUNS.pattern.removeprefix(r"\b")  # the job nouns, to be preceded by more than a word boundary
# A job said without its article ("I am chef now") or with "like" for "as" ("working like nurse").
# ("retired" and "unemployed" describe: "I'm retired" takes no article.)
_JOB_WITHOUT_ARTICLE = re.compile(rf"\b(?P<be>(?:i|he|she)\s+(?:am|is)|i'm|he's|she's)\s+(?!retired|unemployed)"
                                  rf"(?P<job>{_JOB})(?!'s)", re.IGNORECASE)
_WORK_LIKE = re.compile(rf"\b(?P<work>work(?:s|ing|ed)?)\s+like\s+(?:an?\s+)?(?!retired|unemployed)"
                        rf"(?P<job>{_JOB})", re.IGNORECASE)


# Where a clause ends: the past time must be said in the verb's own clause ("I take the bus to work, but yesterday I
# walked" says nothing past of the bus).
_CLAUSE_BREAK = re.compile(r"[,.;:!?]|\s(?:but|and|so|because|while|although)\s", re.IGNORECASE)


def _past_if_said_so(match: re.Match[str], text: str) -> str:
    breaks = [b.start() for b in _CLAUSE_BREAK.finditer(text)]
    start = max((b for b in breaks if b < match.start()), default=0)
    end = min((b for b in breaks if b >= match.end()), default=len(text))
    if not _PAST_TIME.search(text[start:end]):
        return match.group(0)
    return f"{match['subject']} {match['adverb'] or ''}{_CHANGE_PAST[match['verb'].casefold()]}"


def _article(word: str) -> str:
    return "an" if word[:1].casefold() in "aeiou" else "a"


def standard_forms(text: str) -> str:
    """The text with what a second language left out or wrote otherwise put in the standard form: the auxiliary
    before "not" ("I not drink coffee" -> "I don't drink coffee"), the "it" before a clause's "is"/"was" ("now is
    with Three" -> "now it is with Three"), a verb of change in the past with a past time ("last month I change" ->
    "last month I changed"), and a job's article ("I am chef" -> "I am a chef", "working like nurse" -> "working as
    a nurse"). Standard English comes back as it was."""
    text = _NOT_WITHOUT_AUXILIARY.sub(_auxiliary_put_back, text)
    if _PAST_TIME.search(text):
        text = _BASE_CHANGE.sub(lambda m: _past_if_said_so(m, text), text)
    text = _JOB_WITHOUT_ARTICLE.sub(lambda m: f"{m['be']} {_article(m['job'])} {m['job']}", text)
    text = _WORK_LIKE.sub(lambda m: f"{m['work']} as {_article(m['job'])} {m['job']}", text)
    if "?" in text:
        return text
    return _SUBJECTLESS_BE.sub(lambda m: f"{m['before']}it {m['be']}", text)
