"""Issue 10, 12 (High 2) and 13 conflict mechanisms on the real engine (SQLite, Chroma, MiniLM).
Our own sentences, not evaluation cases."""
from __future__ import annotations

import sqlite3

import pytest

pytestmark = pytest.mark.integration


def active_texts(engine, user):
    return [m.text for m in engine.list_memories(user_id=user, status="active")]


def test_the_user_speaking_as_themself_updates_their_own_facts(engine):
    engine.ingest("I work at Zalando.", user_id="alice")
    result = engine.ingest("I now work at Spotify.", user_id="alice", speaker="Alice")
    assert result.status == "superseded"
    assert [m.subject for m in result.memories] == ["user"]
    assert not any("Zalando" in t for t in active_texts(engine, "alice"))


def test_a_switch_replaces_the_named_value_filed_under_another_attribute(engine):
    first = engine.ingest("I'm building a recipe sharing site with Django.", user_id="u")
    assert "project_description" in [m.attribute for m in first.memories]
    result = engine.ingest("I switched from Django to FastAPI.", user_id="u")
    assert result.status == "superseded"
    assert set(result.superseded_ids) == {m.id for m in first.memories}


def test_a_raised_amount_replaces_the_old_amount(engine):
    engine.ingest("My water bill is 40 dollars a month.", user_id="u")
    engine.ingest("I live in Leeds.", user_id="u")
    result = engine.ingest("The water company raised my bill to 48 dollars.", user_id="u")
    assert result.status == "superseded"
    texts = active_texts(engine, "u")
    assert not any("40 dollars" in t for t in texts) and any("Leeds" in t for t in texts)


def test_accumulating_kinds_are_not_replaced(engine):
    engine.ingest("I speak Greek.", user_id="u")
    engine.ingest("I play squash.", user_id="u")
    engine.ingest("I now also speak Turkish.", user_id="u")
    engine.ingest("I play badminton now too.", user_id="u")
    texts = active_texts(engine, "u")
    assert any("Greek" in t for t in texts) and any("squash" in t for t in texts)


def test_one_value_per_single_valued_slot(engine):
    engine.ingest("I live in Graz. Well, actually I live in Linz.", user_id="u")
    assert [t for t in active_texts(engine, "u") if "lives in" in t] == ["User lives in Linz."]
    engine.ingest("I moved to Salzburg.", user_id="u")
    assert [t for t in active_texts(engine, "u") if "lives in" in t] == ["User lives in Salzburg."]
    assert engine.verify_index()["single_valued_violations"] == 0


def test_verify_reports_a_single_valued_slot_with_two_active_values(engine):
    """The invariant check sees an outdated value kept beside the current one (as a store written
    before the fix could hold: the second row flagged multi-valued)."""
    engine.ingest("I work at Acme.", user_id="u")
    conn = sqlite3.connect(engine.data_dir / "memengine.db")
    row = conn.execute("SELECT user_id, subject, attribute, embedding FROM memories").fetchone()
    conn.execute("INSERT INTO memories (user_id, text, type, subject, attribute, value, value_key, multi_valued, "
                 "importance, status, replaced_by, created_at, updated_at, embedding) "
                 "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                 (row[0], "User works at Initech.", "fact", row[1], row[2], "Initech", "initech", 1, 0.5, "active",
                  None, "t", "t", row[3]))
    conn.commit()
    conn.close()
    assert engine.verify_index()["single_valued_violations"] == 1


def test_a_clause_that_fits_no_slot_stays_a_note(engine):
    result = engine.ingest("I usually swim at 7pm after work.", user_id="u")
    assert [m.attribute for m in result.memories] == ["note"]


def test_an_update_said_as_a_change_is_stored_as_the_fact_it_changes(engine):
    first = engine.ingest("I use Trello for tasks.", user_id="u")
    result = engine.ingest("we dumped trello and replaced it with Linear", user_id="u")
    assert result.status == "superseded" and result.superseded_ids == [m.id for m in first.memories]
    new = result.memories[0]
    assert new.text == "User uses Linear for tasks."
    assert (new.subject, new.attribute) == (first.memories[0].subject, first.memories[0].attribute)
    assert new.source_message == "we dumped trello and replaced it with Linear"  # the user's words stay cited
    assert "restated" in result.trace[0].reason
    hits = engine.recall("which tool do I use for tasks?", user_id="u").hits
    assert [h.memory.text for h in hits][:1] == ["User uses Linear for tasks."]


def test_an_update_that_only_says_the_new_value_is_restated_with_it(engine):
    first = engine.ingest("My yoga class is on Tuesdays.", user_id="u")
    result = engine.ingest("yoga got moved, it's Thursdays now", user_id="u")
    assert result.superseded_ids == [m.id for m in first.memories]
    # the fact as read, then the user's sentence it was read from (the change did not name what it replaced)
    assert result.memories[0].text == "User's yoga class is on Thursdays. Yoga got moved, it's Thursdays now."
    hits = engine.recall("what day is my yoga class?", user_id="u").hits
    assert [h.memory.id for h in hits][:1] == [result.memories[0].id]


def test_a_change_that_does_not_say_the_new_value_is_not_restated(engine):
    engine.ingest("I use Trello for tasks.", user_id="u")
    result = engine.ingest("I switched away from trello, it was too slow.", user_id="u")
    assert result.trace and all("restated" not in t.reason for t in result.trace)
    assert any("switched away from trello" in t for t in active_texts(engine, "u"))  # kept in the user's words


def test_a_relatives_fact_is_not_replaced_by_the_users_own(engine):
    """No rule reads "my brother Tomas works at Siemens"; filed under the user's employer slot by meaning,
    the user's own "I work at Bosch" would replace it."""
    engine.ingest("My brother Tomas works at Siemens in Munich.", user_id="u")
    result = engine.ingest("I work at Bosch.", user_id="u")
    assert result.status == "created"
    assert any("Siemens" in t for t in active_texts(engine, "u"))
    hits = engine.recall("where does my brother work?", user_id="u").hits
    assert hits and "Siemens" in hits[0].memory.text


def test_two_people_restated_to_the_same_value_are_both_kept(engine):
    """Restating "Ana moved to Porto" as "User's colleague Ana Ruiz lives in Porto." must not give two
    memories in one slot the same value: the second update once failed the whole message on the
    one-value-per-slot index."""
    for message in ["My colleague Ana Ruiz lives in Faro.", "My colleague Ben Cole lives in Braga.",
                    "Actually, my colleague Ana Ruiz moved to Porto.", "Actually, my colleague Ben Cole moved to Porto."]:
        engine.ingest(message, user_id="u")
    active = active_texts(engine, "u")
    assert any("Ana Ruiz" in t and "Porto" in t for t in active) and any("Ben Cole" in t and "Porto" in t for t in active)
    assert not any("Faro" in t or "Braga" in t for t in active)


def test_a_correction_said_once_applies_to_every_clause_of_its_sentence(engine):
    first = engine.ingest("My dog is called Biscuit.", user_id="u")
    result = engine.ingest("oops, I meant Biscuit is the cat, my dog is called Pepper", user_id="u")
    assert first.memories[0].id in result.superseded_ids
    assert not any("dog is called Biscuit" in t for t in active_texts(engine, "u"))


def test_without_a_correction_a_second_pet_name_sits_beside_the_first(engine):
    engine.ingest("My dog is called Biscuit.", user_id="u")
    engine.ingest("We adopted a puppy last week, my other dog is called Pepper", user_id="u")
    texts = active_texts(engine, "u")
    assert any("Biscuit" in t for t in texts) and any("Pepper" in t for t in texts)


def test_a_correction_swaps_a_pet_name_kept_in_the_slot_words(engine):
    # the pets slot keeps "cat named Miso", the sentence says "called Miso": the name is what is corrected
    engine.ingest("My cat is called Miso.", user_id="u")
    result = engine.ingest("oops, I meant Mochi", user_id="u")
    assert result.status == "superseded"
    texts = active_texts(engine, "u")
    assert any("Mochi" in t for t in texts) and not any("Miso" in t for t in texts)
