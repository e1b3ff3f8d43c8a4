"""English written as a second language, in the standard forms the rules read.

A speaker of a first language without "do" support or with a dropped subject writes "I not drink alcohol anymore"
and "now is with Three because is more cheap". The rules that read an end ("don't drink ... anymore") or a value
said again of a thing ("it is with Three now") look for the auxiliary and the "it" such a sentence leaves out, so
the missing word is put back before any rule reads the message. Only where the form is unmistakable: a pronoun
subject ("I", "we", "my wife") right before "not", and "is"/"was" right after a clause break with nothing that could be its subject.
"""
from __future__ import annotations

import re

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


def standard_forms(text: str) -> str:
    """The text with the auxiliary before "not" and the "it" before a clause's "is"/"was" put back where a second
    language left them out ("I not drink coffee" -> "I don't drink coffee", "now is with Three" -> "now it is with
    Three"); standard English comes back as it was."""
    text = _NOT_WITHOUT_AUXILIARY.sub(_auxiliary_put_back, text)
    if "?" in text:
        return text
    return _SUBJECTLESS_BE.sub(lambda m: f"{m['before']}it {m['be']}", text)
