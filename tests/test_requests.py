"""Nothing worth keeping is dropped (issue 10): facts inside requests, reminders and questions, and
standing instructions to the assistant. Pure extraction, our own sentences."""
from __future__ import annotations

import pytest

from engine.extraction import extract

pytestmark = pytest.mark.unit


def kept(message):
    return [(c.attribute, c.text) for c in extract(message)]


@pytest.mark.parametrize("message, words", [
    ("Could you remind me that my boiler service is on Thursday at 8am?", "boiler service is on Thursday"),
    ("plz remind me my library books are due on the 3rd", "library books are due"),
    ("As you know, I'm gluten-free — any ideas for a birthday cake?", "gluten-free"),
    ("As I told you I'm left-handed, which guitar should I buy?", "left-handed"),
    ("My booking reference is QX77P — can you check which gate it leaves from?", "QX77P"),
    ("Help me plan a dinner for my aunt Ingrid's retirement, it's in Bruges in May.", "Ingrid"),
])
def test_facts_inside_requests_are_kept(message, words):
    assert any(words in text for _, text in kept(message)), kept(message)


@pytest.mark.parametrize("message", [
    "What's my booking reference?", "Can you remind me what my sister's birthday is?", "write me a limerick",
    "Could you summarise this article?", "thanks, that helps!",
    # a goodbye is not an instruction, even when it starts with a verb of talking
    "talk tomorrow", "Speak soon!", "chat later, bye", "talk to you tomorrow",
])
def test_questions_and_one_off_requests_keep_nothing(message):
    assert kept(message) == []


@pytest.mark.parametrize("message, value", [
    ("Please answer me in Portuguese from now on.", "Portuguese"),
    ("Reply in Dutch please, my partner reads along.", "Dutch"),
    ("Can you go back to English?", "English"),
])
def test_reply_language_is_a_single_valued_preference(message, value):
    found = [c for c in extract(message) if c.attribute == "reply_language"]
    assert [(c.value, c.type, c.multi) for c in found] == [(value, "preference", False)]
    assert found[0].text == f"User wants replies in {value}."


@pytest.mark.parametrize("message, words", [
    ("Never use exclamation marks when you write to me.", "never use exclamation marks"),
    ("When you plan trips for me, skip museums.", "skip museums"),
    ("I'd like you to keep answers short.", "keep answers short"),
    ("Stop calling me champ, please.", "stop calling them champ"),
])
def test_standing_instructions_are_kept_in_the_users_voice(message, words):
    found = [c for c in extract(message) if c.attribute == "assistant_instruction"]
    assert len(found) == 1 and found[0].type == "preference", extract(message)
    assert found[0].text.startswith("User wants the assistant to ") and words in found[0].text.lower()


# "Just use my name" says how to address the user from now on: a standing instruction without a marker.
@pytest.mark.parametrize("message, words", [
    ("Could you stop calling me 'chief'? Just use my name, Mateo.", "use their name, Mateo"),
    ("use my first name please", "use their first name"),
    ("just call me Bea", "call them Bea"),
])
def test_how_to_address_the_user_is_an_instruction(message, words):
    found = kept(message)
    assert any(attr == "assistant_instruction" and words in text for attr, text in found), found


# "When you <do X>, I want <Y>": a wish about what the assistant does, kept with its condition.
@pytest.mark.parametrize("message, words", [
    ("When you recommend hotels, I only want ones with a gym.", "User only wants ones with a gym, when the assistant recommends hotels"),
    ("whenever you plan my trips I prefer trains over planes", "User prefers trains over planes, whenever the assistant plans their trips"),
])
def test_a_wish_about_what_the_assistant_does_keeps_its_condition(message, words):
    found = kept(message)
    assert any(attr == "assistant_instruction" and words in text for attr, text in found), found
