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
    ("Never use exclamation marks when you write to me.", "never to use exclamation marks"),
    ("When you plan trips for me, skip museums.", "skip museums"),
    ("I'd like you to keep answers short.", "keep answers short"),
    ("Stop calling me champ, please.", "stop calling them champ"),
])
def test_standing_instructions_are_kept_in_the_users_voice(message, words):
    found = [c for c in extract(message) if c.attribute == "assistant_instruction"]
    assert len(found) == 1 and found[0].type == "preference", extract(message)
    assert found[0].text.startswith("User wants the assistant ") and words in found[0].text.lower()


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


# A bare imperative about a kind of thing ("keep recipes…", "use metric units") says how the assistant should
# work from now on; one about a particular thing ("this article", "a haiku", "my code") is a one-off request.
@pytest.mark.parametrize("message, text", [
    ("Please keep recipes under 500 calories for me.",
     "User wants the assistant to keep recipes under 500 calories for them."),
    ("Explain code with comments, I learn better that way.", "User wants the assistant to explain code with comments."),
    ("Please use metric units.", "User wants the assistant to use metric units."),
    ("Please format dates as DD/MM/YYYY.", "User wants the assistant to format dates as DD/MM/YYYY."),
    ("Be blunt with feedback on my writing.", "User wants the assistant to be blunt with feedback on their writing."),
    ("Make answers shorter please", "User wants the assistant to make answers shorter."),
    ("Don't use emojis with me.", "User wants the assistant not to use emojis with them."),
    ("please never recommend chain restaurants", "User wants the assistant never to recommend chain restaurants."),
    ("No jargon please, I'm not technical.", "User wants no jargon."),
    ("Prices in euros please.", "User wants prices in euros."),
    # always / never / don't before any verb: how things are to be from now on
    ("don't bother with small talk", "User wants the assistant not to bother with small talk."),
    ("Always round prices to the nearest pound.", "User wants the assistant to always round prices to the nearest pound."),
    ("never bring up my divorce", "User wants the assistant never to bring up their divorce."),
    # leave given to the assistant
    ("You can be sarcastic with me, I can take it.", "User allows the assistant to be sarcastic with them."),
    ("feel free to use slang", "User allows the assistant to use slang."),
])
def test_a_standing_imperative_is_an_instruction(message, text):
    found = kept(message)
    assert ("assistant_instruction", text) in found, found


@pytest.mark.parametrize("message", [
    "Please summarise this article for me.", "Please translate the following into Spanish.",
    "Write a haiku about autumn.", "Fix my code please", "Tell me a joke", "Show me the logs",
    "Explain it again please", "Please recommend a good thriller.", "Yes please", "More please",
    "Don't you think?",  # a question said with "don't" orders nothing
])
def test_a_one_off_imperative_keeps_nothing(message):
    assert kept(message) == []


# The reason given with an instruction is a fact about the user, kept beside it.
@pytest.mark.parametrize("message, instruction_text, fact", [
    ("Keep explanations short, I'm a beginner.", "User wants the assistant to keep explanations short.",
     "User is a beginner."),
    ("When you suggest hikes, keep them under 10 km, my knees are bad.",
     "User wants the assistant to keep hikes under 10 km, when the assistant suggests hikes.", "User's knees are bad."),
    ("No jargon please, I'm not technical.", "User wants no jargon.", "User is not technical."),
])
def test_the_reason_for_an_instruction_is_kept_as_a_fact(message, instruction_text, fact):
    texts = [text for _, text in kept(message)]
    assert instruction_text in texts and fact in texts, texts


@pytest.mark.parametrize("message, text", [
    ("Explain things like I'm five, I'm new to finance.", "User wants the assistant to explain things like they are five."),
    ("Write commit messages like a senior engineer would.",
     "User wants the assistant to write commit messages like a senior engineer would."),
])
def test_an_imperative_with_a_manner_is_an_instruction(message, text):
    assert ("assistant_instruction", text) in kept(message), kept(message)


# A request that names something of the user's is kept as a note even when another sentence of the message
# states a fact: "Any tips for my trip to Kyoto in April? I'll be there a week." keeps the trip.
def test_a_request_naming_the_users_thing_is_kept_beside_other_facts():
    texts = [text for _, text in kept("Any tips for my trip to Kyoto in April? I'll be there a week.")]
    assert any("Kyoto" in t for t in texts) and any("a week" in t for t in texts), texts


def test_a_request_naming_only_a_person_keeps_the_person_not_the_request():
    assert kept("Can you suggest a gift for my wife Lena?") == [("note", "User's wife is called Lena.")]


@pytest.mark.parametrize("message", ["Explain water cycles", "Please explain the offside rule", "Summarise chapter two"])
def test_a_task_about_a_topic_is_no_instruction(message):
    assert all(c.attribute != "assistant_instruction" for c in extract(message)), extract(message)


@pytest.mark.parametrize("said, voiced", [
    ("when you suggest workouts", "when the assistant suggests workouts"),
    ("when you and I plan trips", "when the assistant and I plan trips"),
    ("keep your answers short", "keep its answers short"),
])
def test_what_is_said_to_the_assistant_is_said_of_it(said, voiced):
    from engine.extraction.requests import assistant_voice
    assert assistant_voice(said) == voiced


@pytest.mark.parametrize("message", ["Never been to Iceland.", "always wanted a dog", "Never liked olives.",
                                     "don't worry about it", "don't get me wrong"])
def test_something_the_speaker_did_or_felt_is_no_order(message):
    assert all(c.attribute != "assistant_instruction" for c in extract(message))


@pytest.mark.parametrize("message, text", [
    ("Remind me to stretch whenever I've been coding for two hours.",
     "User wants to be reminded to stretch whenever User has been coding for two hours."),
    ("could you remind me to water the plants on Sunday?", "User wants to be reminded to water the plants on Sunday."),
])
def test_what_the_user_wants_to_be_reminded_of_is_kept_in_their_voice(message, text):
    assert [c.text for c in extract(message)] == [text]
