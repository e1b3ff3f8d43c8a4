"""The Candidate: one fact an extractor found in a message, before conflict resolution."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Candidate:
    subject: str
    attribute: str
    value: str
    type: str
    importance: float
    multi: bool
    text: str  # the memory as stored, third person
    clause: str  # the clause it came from
    update_cue: bool = False
    replaced_value: str | None = None  # "switched from X to Y", "no longer X": the X
    understood: bool = True  # False when no rule matched and the attribute is a best guess
    elliptical: bool = False  # "oops, I meant Tuesday": a bare value correcting the last thing said
    correction: bool = False  # its sentence says it corrects what was said ("oops, I meant …, my dog is Pepper")
    # Which rule produced it: a row name of the rule table, "<row> (negated)" for "I no longer …",
    # "fallback" for a clause kept as a note, "correction" for an elliptical correction and what it
    # becomes, "structured" for a fact given as (subject, attribute, value).
    rule: str = ""
    # The question this clause answers, put to the one answering it (extraction/replies.py): stored and
    # embedded with the memory, never read by conflict resolution (what was asked is not what was said).
    asked: str | None = None
    # Its sentence opens with a name, by a lexicon (casing.opens_with_name): "Callum walks Bobby now" says who
    # holds it now, though a sentence's first word is capitalised whatever it is.
    opens_with_name: bool = False
