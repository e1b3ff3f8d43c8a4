"""Question rewriting for recall: does a query ask about the past, the query in the third person
memories are stored in, and the start of the statement a question asks for.

Pure functions of the query string, like text.py, and tested the same way.
"""
from __future__ import annotations

import re


# --- history cues in queries --------------------------------------------------------------------

_HISTORY_CUES = re.compile(
    r"\b(?:before|used to|use to|previously|previous|originally|original|formerly|former|earlier|"
    r"in the past|prior|back then|at first|anymore|no longer|changed from|old (?:address|job|city|name|"
    r"employer|one|place|phone|email|number))\b",
    re.IGNORECASE,
)


def wants_history(query: str) -> bool:
    """Does the question ask about the past ("where did I live before?")?"""
    return bool(_HISTORY_CUES.search(query))


# --- first-person questions -------------------------------------------------------------------

_QUESTION_PERSON = [
    (re.compile(r"\b(?:do|don't) i\b", re.IGNORECASE), "does the user"),
    (re.compile(r"\bam i\b", re.IGNORECASE), "is the user"),
    (re.compile(r"\b(?:have|haven't) i\b", re.IGNORECASE), "has the user"),
    (re.compile(r"\bwas i\b", re.IGNORECASE), "was the user"),
    (re.compile(r"\b(?:i am|i'm|im)\b", re.IGNORECASE), "the user is"),
    (re.compile(r"\bi've\b", re.IGNORECASE), "the user has"),
    (re.compile(r"\bi'd\b", re.IGNORECASE), "the user would"),
    (re.compile(r"\bi'll\b", re.IGNORECASE), "the user will"),
    (re.compile(r"\b(?:my|mine|our|ours)\b", re.IGNORECASE), "the user's"),
    (re.compile(r"\b(?:me|myself|us)\b", re.IGNORECASE), "the user"),
    (re.compile(r"\b(?:do|don't) we\b", re.IGNORECASE), "does the user"),
    (re.compile(r"\bi\b|\bwe\b", re.IGNORECASE), "the user"),
]


def as_third_person_question(query: str) -> str:
    """Memories are stored in the third person ("User lives in Oslo"); asking "where do I live?" as
    "where does the user live?" puts the question in the same voice, which MiniLM rewards."""
    for pattern, replacement in _QUESTION_PERSON:
        query = pattern.sub(replacement, query)
    return query


# --- the statement a question asks for -----------------------------------------------------------
# MiniLM scores a statement that repeats the question's words higher than the statement that answers
# it ("What is the user making?" vs "User is making a budgeting tool": cosine 0.36). Recall also embeds
# the start of the answering statement ("User is making") and takes the better match. Input is the
# third-person question (as_third_person_question); the output speaks in the voice memories are
# embedded in ("User ...").

_AUX_BE_HAVE_MODAL = "is|are|was|were|has|have|had|will|would|can|could|should"
_AUX_DO = "do|does|did"
_WH_NOUN = re.compile(r"^(?:what|which)\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?([^\W\d_]+)$", re.IGNORECASE)
_SUBJECT = r"the\s+user(?:'s\s+[^\W\d_]+)?"
_WH = r"what|which|who|whom|where|when|why|how(?:\s+(?:many|much))?"
_WH_QUESTION = re.compile(
    rf"^(?P<wh>(?:{_WH})(?:\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?[^\W\d_]+)?)\s+"
    rf"(?P<aux>{_AUX_BE_HAVE_MODAL}|{_AUX_DO})\s+(?P<subject>{_SUBJECT})\b\s*(?P<rest>.*)$",
    re.IGNORECASE)
_YES_NO = re.compile(rf"^(?P<aux>{_AUX_BE_HAVE_MODAL}|{_AUX_DO})\s+(?P<subject>{_SUBJECT})\b\s*(?P<rest>.*)$",
                     re.IGNORECASE)
_WH_CONTRACTED = re.compile(r"^(what|where|who|when|how)'s\b", re.IGNORECASE)
# What the answer adds after the statement: a time, a place, a reason.
_WH_TAIL = {"when": {"did": "on", "": "at"}, "where": {"": "in"}, "why": {"": "because"}}
# Questions whose wh-phrase asks for a time ("what time does ...") read like "when".
_TIME_NOUNS = frozenset({"time", "day", "date", "year", "month", "hour"})
_IRREGULAR_PAST = {
    "go": "went", "have": "had", "do": "did", "make": "made", "buy": "bought", "get": "got", "take": "took",
    "see": "saw", "meet": "met", "come": "came", "give": "gave", "find": "found", "think": "thought",
    "tell": "told", "say": "said", "leave": "left", "feel": "felt", "begin": "began", "run": "ran",
    "write": "wrote", "read": "read", "eat": "ate", "drink": "drank", "win": "won", "lose": "lost",
    "bring": "brought", "teach": "taught", "build": "built", "send": "sent", "spend": "spent", "pay": "paid",
    "sell": "sold", "grow": "grew", "know": "knew", "become": "became", "fly": "flew", "drive": "drove",
    "ride": "rode", "swim": "swam", "sing": "sang", "draw": "drew", "wear": "wore", "hear": "heard",
    "keep": "kept", "sleep": "slept", "sit": "sat", "catch": "caught", "fall": "fell", "break": "broke",
    "choose": "chose", "forget": "forgot", "hold": "held", "lead": "led", "put": "put", "set": "set",
    "cut": "cut", "hit": "hit", "let": "let", "quit": "quit", "speak": "spoke", "throw": "threw",
    "understand": "understood", "wake": "woke", "stand": "stood", "lend": "lent", "hurt": "hurt",
}
_PARTICIPLE_TAIL = re.compile(r"^(?P<head>.+?)\s+(?P<tail>(?:called|named|located|based|made|from|like)\b.*)$",
                              re.IGNORECASE)


def _present_third_person(verb: str) -> str:
    low = verb.lower()
    if low == "have":
        return "has"
    if low in ("do", "go"):
        return verb + "es"
    if re.search(r"(?:s|sh|ch|x|z)$", low):
        return verb + "es"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    return verb + "s"


def _past(verb: str) -> str:
    low = verb.lower()
    if low in _IRREGULAR_PAST:
        return _IRREGULAR_PAST[low]
    if low.endswith("e"):
        return verb + "d"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ied"
    return verb + "ed"


def _statement_subject(subject: str) -> str:
    return "User" + subject.strip()[len("the user"):] if subject else "User"


def as_statement(question: str) -> str | None:
    """The start of the statement a third-person question asks for, or None when it has no question shape.

    "What is the user making?" -> "User is making"; "When does the user work out?" -> "User works out at";
    "How many kids does the user have?" -> "User has kids"; "Is the user vegan?" -> "User is vegan".
    """
    q = re.sub(r"\s+", " ", question.strip().rstrip("?!. ").strip())
    q = _WH_CONTRACTED.sub(lambda m: f"{m.group(1)} is", q)
    wh_noun = ""
    match = _WH_QUESTION.match(q)
    if match:
        wh_words = match.group("wh").lower().split()
        wh = wh_words[0]
        noun = _WH_NOUN.match(match.group("wh"))
        if wh == "how" and len(wh_words) > 2:
            wh_noun = wh_words[-1]
        elif noun:
            wh_noun = noun.group(1).lower()
            if wh_noun in _TIME_NOUNS:
                wh, wh_noun = "when", ""
    else:
        match = _YES_NO.match(q)
        if not match:
            return None
        wh = ""
    aux = match.group("aux").lower()
    subject = _statement_subject(match.group("subject"))
    rest = match.group("rest").strip()
    if aux in ("do", "does", "did"):
        verb, _, rest = rest.partition(" ")
        if not verb:
            return None
        words = [subject, _past(verb) if aux == "did" else _present_third_person(verb), rest]
    else:
        if aux in ("is", "are", "was", "were") and subject != "User" and wh:
            noun_phrase = f"{subject} {rest}".strip()
            head_tail = _PARTICIPLE_TAIL.match(noun_phrase)
            if head_tail:  # "What are the user's kids called" -> "User's kids are called"
                words = [head_tail.group("head"), aux, head_tail.group("tail")]
            else:
                words = [noun_phrase, aux]
        else:
            words = [subject, aux, rest]
    tails = _WH_TAIL.get(wh, {})
    tail = tails.get(aux, tails.get("", ""))
    words += [wh_noun, tail]
    return " ".join(w for w in words if w)
