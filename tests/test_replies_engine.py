"""A reply is kept with the question it answers, through the engine: real model, SQLite and Chroma."""
import pytest

from engine import MemoryEngine, Settings

pytestmark = pytest.mark.integration


def _texts(engine, user):
    return [m.text for m in engine.list_memories(user_id=user)]


def test_a_fragment_reply_is_found_by_a_question_about_it(engine):
    engine.ingest("Which university accepted you?", user_id="chat", speaker="Marco")
    engine.ingest("Edinburgh! I start in September.", user_id="chat", speaker="Yuki")
    assert sorted(_texts(engine, "chat")) == ["Edinburgh. (asked: Which university accepted Yuki?)",
                                              "Yuki starts in September."]
    res = engine.recall("Which university is Yuki going to?", user_id="chat")
    assert res.hits and "Edinburgh" in res.hits[0].memory.text
    assert res.hits[0].citation.speaker == "Yuki"


def test_without_the_question_the_same_reply_is_not_served(tmp_path, embedder):
    """The counterpart of the test above: the question is what makes the fragment findable."""
    with MemoryEngine(Settings(data_dir=tmp_path, reply_context=False), embedder=embedder) as eng:
        eng.ingest("Which university accepted you?", user_id="chat", speaker="Marco")
        eng.ingest("Edinburgh! I start in September.", user_id="chat", speaker="Yuki")
        assert not any("(asked:" in t for t in _texts(eng, "chat"))
        assert not eng.recall("Which university is Yuki going to?", user_id="chat").hits


def test_a_batch_reads_the_question_from_the_message_before_it(engine):
    engine.ingest_many([
        {"text": "What are you naming the boat?", "speaker": "Mo", "timestamp": "2026-06-01T18:00:00"},
        {"text": "Second Wind, after everything this year.", "speaker": "Clara", "timestamp": "2026-06-01T18:01:00"},
        {"text": "love it", "speaker": "Mo", "timestamp": "2026-06-01T18:01:30"},
    ], user_id="chat")
    texts = _texts(engine, "chat")
    assert any(t.startswith("Second Wind") and "(asked: What are Clara naming the boat?)" in t for t in texts)
    res = engine.recall("What is Clara's boat called?", user_id="chat")
    assert res.hits and "Second Wind" in res.hits[0].memory.text


@pytest.mark.parametrize("first, second", [
    ({"speaker": "Yuki"}, {"speaker": "Yuki"}),  # going on after one's own question
    ({}, {}),  # a user talking to the assistant: nobody named
    ({"speaker": "Marco", "timestamp": "2026-03-01T10:00:00"},
     {"speaker": "Yuki", "timestamp": "2026-03-04T10:00:00"}),  # days later: a new conversation
])
def test_no_question_at_hand_no_question_kept(engine, first, second):
    engine.ingest("Which university accepted you?", user_id="chat", **first)
    engine.ingest("Edinburgh! I start in September.", user_id="chat", **second)
    assert not any("(asked:" in t for t in _texts(engine, "chat"))


def test_another_users_question_is_not_at_hand(engine):
    engine.ingest("Which university accepted you?", user_id="other", speaker="Marco")
    engine.ingest("Edinburgh! I start in September.", user_id="chat", speaker="Yuki")
    assert not any("(asked:" in t for t in _texts(engine, "chat"))


def test_answers_to_the_same_question_do_not_replace_each_other(engine):
    """What was asked is not what was said: two answers to "what are you up to?" are two things done."""
    for answer in ("Hiking in the Peak District with my cousins.", "Baking bread, probably. Sourdough this time."):
        engine.ingest("What are you up to this weekend?", user_id="chat", speaker="Sara")
        engine.ingest(answer, user_id="chat", speaker="Dev")
    texts = _texts(engine, "chat")
    assert any(t.startswith("Hiking in the Peak District") for t in texts)
    assert any(t.startswith("Baking bread") for t in texts)
    assert not engine.list_memories(user_id="chat", status="superseded")


def test_a_chatbot_says_what_the_message_answers(engine):
    """The bot's own turn is not ingested: `in_reply_to` gives the question its user's answer needs."""
    r = engine.ingest("Berlin, since last spring.", user_id="u1", in_reply_to="Nice! Where are you based these days?")
    assert [m.text for m in r.memories] == ["Berlin, since last spring. (asked: Where are User based these days?)"]
    res = engine.recall("which city do I live in?", user_id="u1")
    assert res.hits and "Berlin" in res.hits[0].memory.text
    # a reply to no question, and a fact a rule understood, are stored as said
    assert engine.ingest("Sounds good.", user_id="u1", in_reply_to="I'll remember that.").status == "ignored"
    r = engine.ingest("I work as a nurse.", user_id="u1", in_reply_to="What do you do for a living?")
    assert [m.text for m in r.memories] == ["User works as a nurse."]


def test_in_reply_to_in_a_batch_and_its_checks(engine):
    [r] = engine.ingest_many([{"text": "Ginger, a tabby.", "in_reply_to": "What's your cat called?"}], user_id="u2")
    assert r.memories[0].text.endswith("(asked: What's User's cat called?)")
    with pytest.raises(ValueError, match="in_reply_to"):
        engine.ingest("Berlin.", user_id="u2", in_reply_to=42)
    with pytest.raises(ValueError, match="in_reply_to"):
        engine.ingest("Berlin.", user_id="u2", in_reply_to="x" * (engine.settings.max_text_chars + 1))
    with pytest.raises(ValueError, match="in_reply_to"):
        engine.ingest("Berlin.", user_id="u2", in_reply_to="   ")
