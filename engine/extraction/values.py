"""Turning the words a rule captured into a stored value, and values into comparable keys."""
from __future__ import annotations

import re

from .. import text as textlib
from .vocabulary import CUE_PREFIX, TRAILING_NOISE, TRAILING_WHEN


def strip_cue_prefix(clause: str) -> str:
    """"Actually, the deadline moved" -> "the deadline moved"; a bare "Correction" -> ""."""
    return CUE_PREFIX.sub("", clause).strip()


def clean_value(value: str) -> str:
    value = value.strip().strip("\"'")
    value = TRAILING_NOISE.sub("", value)
    value = re.sub(r"[\s.,;:!]+$", "", value)
    return value.strip().strip("\"'")


def strip_when(value: str) -> str:
    """"Lisbon last month" -> "Lisbon": when something happened is not part of where or who."""
    stripped = TRAILING_WHEN.sub("", value).strip(" ,")
    return stripped or value


def value_key(value: str) -> str:
    """The comparable form of a value: casefolded, no articles or punctuation."""
    key = value.casefold()
    key = re.sub(r"\b(?:a|an|the|my|our|in|at|to|on)\b", " ", key)
    key = re.sub(r"[^\w+#]+", " ", key)
    return " ".join(key.split())


def slug(words: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", words.lower()).strip("_")[:40] or "note"


def event_subject(name: str) -> str:
    """Word order and small words do not make another event: "meeting with the investors" is
    "investor meeting"."""
    words = sorted(set(textlib.tokenize(name)) - _HOW_OFTEN) or [name]
    return "event:" + " ".join(words)


# How often or which one of a recurring event is not another event: "daily standup" is the standup.
_HOW_OFTEN = frozenset(textlib.tokenize("daily weekly monthly yearly annual usual regular next upcoming"))
