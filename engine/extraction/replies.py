"""A reply is kept with the question it answers.

In a conversation between people, an answer is often only a fragment of the fact: "Lisbon, in June!"
after "Where are you two getting married?", "Cello. My fingers hurt" after "What instrument are you
learning?". Kept alone, such a memory matches no question about it (its words are the answer's, not
the topic's) and tells a reader nothing. So the first clause no rule understood, said right after another
person asked something, is stored with that question, put to the one answering it:
"Cello. (asked: What instrument are Dev learning?)". A fact a rule understood
("Maya works at a bakery") already says its topic and is stored as said.

Only what is at hand counts as the question answered: the message just before this one in the same
conversation (the same user's log), by another named speaker, within `window_s` when both messages
carry a time (a new session days later answers nothing of the last one); or what the caller says the
message replies to (`ingest(..., in_reply_to=)`: a chatbot's own last turn, which it does not ingest).
"""
from __future__ import annotations

import re
from dataclasses import replace

from .. import text as textlib
from ..limits import REPLY_QUESTION_CHARS
from .candidate import Candidate
from .dates import parse_timestamp

# Besides what text.starts_as_question knows, a question put to the other person in chat spelling and
# without a question mark: "did u get the tickets", "r u coming", "have you seen it".
_ASKED_OF_YOU = re.compile(r"^(?:did|do|does|are|is|was|were|have|has|will|can|could|would|r)\s+(?:you|u|ya)\b",
                           re.IGNORECASE)


def questions_asked(text: str) -> list[str]:
    """The sentences of a message that ask something ("Congrats! Which team did you sign with?" -> the
    second one). A greeting said as a question ("How have you been?") asks about no topic."""
    return [s for s in textlib.split_sentences(text)
            if (s.endswith("?") or textlib.starts_as_question(s)
                or _ASKED_OF_YOU.match(textlib.strip_leading_filler(s)))
            and not textlib.is_small_talk(s)]


def question_answered(previous_text: str | None, previous_speaker: str | None, previous_time: str | None,
                      speaker: str | None, time: str | None, *, window_s: float) -> str | None:
    """The question a message by `speaker` answers, if the message before it (by `previous_speaker`)
    asked one; None when there is no such question at hand."""
    if not previous_text or not (previous_speaker or "").strip() or not (speaker or "").strip():
        return None
    if previous_speaker.strip().casefold() == speaker.strip().casefold():
        return None  # someone going on with their own question answers nothing
    before, now = parse_timestamp(previous_time), parse_timestamp(time)
    if before is not None and now is not None:
        if before.tzinfo is None or now.tzinfo is None:  # compare like with like
            before, now = before.replace(tzinfo=None), now.replace(tzinfo=None)
        if abs((now - before).total_seconds()) > window_s:
            return None
    return question_in(previous_text)


def question_in(text: str) -> str | None:
    """What a message asks, for the reply to keep: its question sentences, at most REPLY_QUESTION_CHARS
    (the end of them: the last question is the one answered); None when it asks nothing."""
    asked = " ".join(questions_asked(text))
    if not asked:
        return None
    if len(asked) > REPLY_QUESTION_CHARS:
        asked = "..." + asked[-REPLY_QUESTION_CHARS:].split(" ", 1)[-1]
    return asked


# "you" in the question is the person answering it. A verb agreeing with "you" is left as it is
# ("are Dev learning"): the sentence is read by the embedding and BM25, which do not mind.
_YOU = [
    (re.compile(r"(?<!\w)(?:you're|youre|you are)(?!\w)", re.IGNORECASE), "{name} is"),
    (re.compile(r"(?<!\w)(?:your|yours|ur)(?!\w)", re.IGNORECASE), "{name}'s"),
    (re.compile(r"(?<!\w)(?:you|u|ya|yourself)(?!\w)", re.IGNORECASE), "{name}"),
]


def addressed_to(question: str, name: str) -> str:
    """"Which team did you sign with?" asked of John -> "Which team did John sign with?"."""
    name = " ".join(name.split())
    if name.casefold() == "user":  # a speaker called "user" is the user, written as memories write them
        name = "User"
    for pattern, replacement in _YOU:
        question = pattern.sub(replacement.format(name=name), question)
    return question


_ASKED_MARK = " (asked: "


def in_reply(candidates: list[Candidate], replier: str, question: str) -> list[Candidate]:
    """The reply's first clause no rule understood is its answer and keeps the question ("Crumb & Co."
    after "What are you calling the bakery?"); what follows it ("My daughter came up with it.") and the
    facts a rule understood are stored as said. One clause, not the whole reply: a long reply joined
    into one memory blurs every fact of it for the embedding."""
    for n, cand in enumerate(candidates):
        if not cand.understood:
            return [*candidates[:n], replace(cand, asked=addressed_to(question, replier)), *candidates[n + 1:]]
    return candidates


def stored_text(cand: Candidate) -> str:
    """What is stored and embedded for a candidate: 'Crumb & Co. (asked: So what are Tom calling the
    bakery?)'. Who asked is not written: a name in a memory says it is about that person too (recall's
    speaker filter), and the question is about the one answering it."""
    return f"{cand.text}{_ASKED_MARK}{cand.asked})" if cand.asked else cand.text


def said(text: str) -> str:
    """A stored memory's text without the question it answers: what conflict resolution compares."""
    at = text.rfind(_ASKED_MARK)
    return text[:at] if at > 0 and text.endswith(")") else text
