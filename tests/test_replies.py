"""A reply kept with the question it answers (engine/extraction/replies.py): pure, no model."""
import pytest

from engine.extraction import Candidate, extract
from engine.extraction.replies import addressed_to, in_reply, question_answered, questions_asked, said, stored_text
from engine.limits import REPLY_QUESTION_CHARS

pytestmark = pytest.mark.unit

HOUR = 3600.0

ASKED = [
    ("Congrats!! Which team did you sign with?", ["Which team did you sign with?"]),
    ("what car did u buy in the end", ["what car did u buy in the end"]),
    ("wat game r u playing rn", ["wat game r u playing rn"]),
    ("did you get the tickets. I hope so", ["did you get the tickets."]),
    ("So how did it go? Tell me everything.", ["So how did it go?"]),
    ("Oh, where are you staying", ["Oh, where are you staying"]),
    ("I got the tickets. See you there!", []),
    ("Hey! How have you been? What are you working on?", ["What are you working on?"]),
    ("how are you doing??", []),
    ("Do it, you won't regret it.", []),
    ("", []),
]


@pytest.mark.parametrize("text, questions", ASKED)
def test_the_questions_of_a_message(text, questions):
    assert questions_asked(text) == questions


ANSWERED = [
    # (previous text, previous speaker, previous time, speaker, time) -> the question answered or None
    (("What instrument are you learning?", "Sara", None, "Dev", None), "What instrument are you learning?"),
    (("Nice. Where to?", "Sara", "2026-05-01T10:00:00", "Dev", "2026-05-01T10:02:00"), "Where to?"),
    # the same person going on after their own question answers nothing
    (("What instrument are you learning?", "Sara", None, "sara ", None), None),
    # nobody named: a user's own earlier message is no question put to them
    (("What should I learn?", None, None, None, None), None),
    (("What should I learn?", "Sara", None, None, None), None),
    # no question asked
    (("I'm learning the cello.", "Sara", None, "Dev", None), None),
    # a new session hours later answers nothing of the last one
    (("Where are you staying?", "Sara", "2026-05-01T10:00:00", "Dev", "2026-05-03T09:00:00"), None),
    (("Where are you staying?", "Sara", "2026-05-01T10:00:00+00:00", "Dev", "2026-05-01T11:00:00"),
     "Where are you staying?"),
    (("Where are you staying?", "Sara", "not a time", "Dev", "2026-05-03T09:00:00"), "Where are you staying?"),
]


@pytest.mark.parametrize("args, expected", ANSWERED)
def test_the_question_a_message_answers(args, expected):
    assert question_answered(*args, window_s=3 * HOUR) == expected


def test_a_long_question_keeps_its_end():
    asked = "What " + "really " * 80 + "made you quit the band?"
    got = question_answered(asked, "Nadia", None, "Jack", None, window_s=HOUR)
    assert got.endswith("made you quit the band?") and len(got) <= REPLY_QUESTION_CHARS + 3


@pytest.mark.parametrize("question, name, expected", [
    ("Which team did you sign with?", "John", "Which team did John sign with?"),
    ("What's your dissertation on?", "Nina", "What's Nina's dissertation on?"),
    ("Are you sure you're ok?", "Ben", "Are Ben sure Ben is ok?"),
    ("how far is it from ur flat", "Ada", "how far is it from Ada's flat"),
    ("Did the youth club call?", "Ada", "Did the youth club call?"),  # "you" only as a word
    ("Where are you based?", "user", "Where are User based?"),
])
def test_the_question_is_put_to_the_one_answering(question, name, expected):
    assert addressed_to(question, name) == expected


def test_the_first_clause_no_rule_understood_is_the_answer():
    cands = extract("Crumb & Co. My daughter came up with the name.", speaker="Tom")
    assert [c.understood for c in cands] == [False, False]
    out = in_reply(cands, "Tom", "So what are you calling the bakery?")
    assert [stored_text(c) for c in out] == ["Crumb & Co. (asked: So what are Tom calling the bakery?)",
                                             "Tom's daughter came up with the name."]
    # conflict resolution reads what was said
    assert out[0].text == cands[0].text and out[0].value == cands[0].value and not out[0].understood
    assert said(stored_text(out[0])) == "Crumb & Co." and said(stored_text(out[1])) == out[1].text


def test_an_understood_fact_stays_as_said_beside_the_answer():
    understood = Candidate("maya", "job", "baker", "fact", 0.7, False, "Maya works as a baker.", "I work as a baker")
    note = Candidate("maya", "note", "Since March", "fact", 0.5, True, "Since March.", "since March", understood=False)
    out = in_reply([understood, note], "Maya", "What do you do now?")
    assert out[0] is understood
    assert stored_text(out[1]) == "Since March. (asked: What do Maya do now?)"
    assert in_reply([understood], "Maya", "What do you do now?") == [understood]


@pytest.mark.parametrize("text", ["User likes tea (a lot).", "(asked: nothing)", "Plain text."])
def test_said_leaves_a_text_without_a_question_as_it_is(text):
    assert said(text) == text
