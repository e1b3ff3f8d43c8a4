"""Question rewriting for recall: history cues, the third-person question, the statement it asks for."""
import pytest

from engine import questions

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("query, expected", [
    ("Where did I live before?", True), ("What editor did I use to have?", True),
    ("What was my original deadline?", True), ("Where do I live?", False), ("How old am I?", False),
    ("What's my first name?", False),
])
def test_wants_history(query, expected):
    assert questions.wants_history(query) is expected


# The statement a question asks for: the input is the third-person question recall embeds; the output is the
# start of the sentence that would answer it, in the voice memories are stored in ("User ..."). None when the
# question has no such shape (an imperative, a fragment), so recall embeds the question alone.
@pytest.mark.parametrize("question, statement", [
    # wh + be + the user + rest
    ("What is the user making?", "User is making"),
    ("what was the user reading last summer", "User was reading last summer"),
    ("Where are the user's parents?", "User's parents are in"),
    ("Who is the user's dentist?", "User's dentist is"),
    ("What's the user's favourite band?", "User's favourite band is"),
    ("What are the user's kids called?", "User's kids are called"),
    # wh + do/does/did + the user + verb
    ("When does the user work out?", "User works out at"),
    ("Where does the user live?", "User lives in"),
    ("What does the user teach?", "User teaches"),
    ("Who does the user study with?", "User studies with"),
    ("What did the user buy for the trip?", "User bought for the trip"),
    ("When did the user adopt the dog?", "User adopted the dog on"),
    ("what did the user research", "User researched"),
    ("Where did the user go hiking?", "User went hiking in"),
    ("Why did the user quit the band?", "User quit the band because"),
    # a noun after the wh-word moves to the end of the statement
    ("What kind of music does the user play?", "User plays music"),
    ("How many kids does the user have?", "User has kids"),
    ("Which database does the user's team use?", "User's team uses database"),
    ("What time does the user start work?", "User starts work at"),
    # has/have + participle
    ("What has the user been building?", "User has been building"),
    ("Where has the user travelled?", "User has travelled in"),
    # yes/no questions
    ("Is the user vegan?", "User is vegan"),
    ("Does the user have a pet?", "User has a pet"),
    ("Did the user finish the marathon?", "User finished the marathon"),
    ("Has the user ever been to Japan?", "User has ever been to Japan"),
    ("Can the user speak Spanish?", "User can speak Spanish"),
    # no question shape
    ("tell me about the user's job", None),
    ("the user's allergies", None),
    ("", None),
])
def test_as_statement(question, statement):
    assert questions.as_statement(question) == statement


def test_as_statement_composes_with_third_person_rewriting():
    def rewritten(question: str) -> str | None:
        return questions.as_statement(questions.as_third_person_question(question))

    assert rewritten("When do I work out?") == "User works out at"
    assert rewritten("What's my cat called?") == "User's cat is called"
