"""Turn an informative clause into (subject, attribute, value) candidates.

The package: vocabulary (slots, gazetteer, word lists, cues), voice (third person, names), values
(cleaning and comparing values), handlers and rules (the declarative rule table, every row with
examples), extractor (extract, correct, structured, the Extractor protocol and RuleExtractor).
"""
from dataclasses import replace

from .candidate import Candidate
from .dates import parse_timestamp, resolve_relative_dates
from .extractor import (
    MAX_RULE_CLAUSE, Extractor, RuleExtractor, correct, extract, informative, slot_of, structured,
)
from .handlers import Found
from .replies import in_reply, question_answered, question_in, questions_asked, said, stored_text
from .restate import restate
from .rules import RULES, Rule, apply_rules
from .values import clean_value, event_subject, slug, strip_cue_prefix, strip_when, value_key
from .vocabulary import CATCH_ALL, SLOTS, UPDATE_CUES, Slot, known_slot
from .voice import embedding_text, finish_sentence, person_names, third_person

__all__ = [
    "CATCH_ALL", "MAX_RULE_CLAUSE", "RULES", "SLOTS", "UPDATE_CUES", "Candidate", "Extractor", "Found", "Rule", "RuleExtractor",
    "Slot", "apply_rules", "clean_value", "correct", "embedding_text", "event_subject", "extract", "finish_sentence",
    "in_reply", "informative", "known_slot", "parse_timestamp", "person_names", "question_answered", "question_in", "questions_asked", "replace", "resolve_relative_dates", "restate", "slot_of",
    "said", "slug", "stored_text", "strip_cue_prefix", "strip_when", "structured", "third_person", "value_key",
]
