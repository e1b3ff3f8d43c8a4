"""MemoryEngine end to end on real SQLite, real ChromaDB and the real MiniLM model."""
import json
import sqlite3
import threading

import pytest

from engine import MemoryEngine, ModelMismatchError, NotFoundError, Settings, StoreInUseError

pytestmark = pytest.mark.integration


def texts(result):
    return [h.memory.text for h in result.hits]


def test_canonical_walkthrough(engine):
    assert engine.ingest("I use Arch Linux.").status == "created"
    assert engine.ingest("I'm building a Next.js app.").status == "created"
    assert engine.ingest("My project deadline is October 15.").status == "created"
    update = engine.ingest("Actually, the deadline moved to November 2.")
    assert update.status == "superseded" and len(update.superseded_ids) == 1

    os_hits = engine.recall("What OS does the user use?")
    assert "Arch Linux" in os_hits.hits[0].memory.text
    deadline = engine.recall("When is the project deadline?")
    assert "November 2" in deadline.hits[0].memory.text
    assert not any("October 15" in t for t in texts(deadline))
    food = engine.recall("What is the user's favourite food?")
    assert food.hits == [] and food.confidence == "unknown"


def test_supersede_keeps_lineage(engine):
    old = engine.ingest("My project deadline is October 15.").memories[0]
    new = engine.ingest("Actually, the deadline moved to November 2.").memories[0]
    old_now = engine.get(old.id)
    assert old_now.status == "superseded" and old_now.replaced_by == new.id and old_now.superseded_at
    assert new.supersedes == old.id and new.status == "active"
    assert [m.id for m in engine.history(new.id)] == [old.id, new.id] == [m.id for m in engine.history(old.id)]
    assert engine.count_memories(status="superseded") == 1


def test_small_talk_is_logged_but_not_stored(engine):
    result = engine.ingest("ok thanks")
    assert result.status == "ignored" and result.memories == []
    assert engine.count_memories(status="all") == 0
    assert engine.messages()[0]["text"] == "ok thanks" and engine.messages()[0]["outcome"] == "ignored"


def test_a_fact_after_a_pleasantry_is_kept(engine):
    result = engine.ingest("Thanks! By the way, I moved to Oslo")
    assert result.status == "created" and "Oslo" in result.memories[0].text


def test_several_facts_in_one_message(engine):
    result = engine.ingest("I'm Sam, I live in Austin and I work as a UX designer")
    assert len(result.memories) == 3
    assert "Austin" in engine.recall("Where does the user live?").hits[0].memory.text
    assert "designer" in engine.recall("What does Sam do for work?").hits[0].memory.text


def test_repeating_a_fact_confirms_it(engine):
    first = engine.ingest("I live in Berlin")
    again = engine.ingest("I live in Berlin.")
    assert again.status == "confirmed" and again.memories[0].id == first.memories[0].id
    assert engine.count_memories() == 1


def test_multi_valued_attributes_accumulate(engine):
    engine.ingest("I play guitar")
    assert engine.ingest("I also play the piano").status == "created"
    assert engine.count_memories() == 2
    hits = texts(engine.recall("What instruments does the user play?"))
    assert any("guitar" in t for t in hits) and any("piano" in t for t in hits)


@pytest.mark.parametrize("first, second", [
    ("My favourite food is ramen", "I love jazz music"),
    ("I have a dog named Rex", "I also have a cat called Miso"),
    ("I live in Berlin", "My sister lives in Munich"),
])
def test_unrelated_facts_never_supersede_each_other(engine, first, second):
    engine.ingest(first)
    assert engine.ingest(second).status == "created"
    assert engine.count_memories() == 2 and engine.count_memories(status="superseded") == 0


def test_switch_replaces_only_the_named_value(engine):
    engine.ingest("I code in Python")
    engine.ingest("I code in Go")
    result = engine.ingest("I switched from Python to Rust")
    assert result.status == "superseded"
    active = {m.value for m in engine.list_memories()}
    assert active == {"Go", "Rust"}


def test_negation_retires_the_old_fact(engine):
    engine.ingest("I use Vim")
    result = engine.ingest("I no longer use Vim")
    assert result.status == "superseded"
    assert "no longer" in engine.recall("Which editor does the user use?").hits[0].memory.text


def test_history_queries_include_superseded_memories(engine):
    engine.ingest("I live in Austin")
    engine.ingest("I moved to Denver")
    now = engine.recall("Where does the user live?")
    assert "Denver" in now.hits[0].memory.text and not any("Austin" in t for t in texts(now))
    before = engine.recall("Where did I live before?")
    assert before.include_history
    old = [h for h in before.hits if h.historical]
    assert old and "Austin" in old[0].memory.text and "Denver" in old[0].replaced_by_memory.text
    forced = engine.recall("Where does the user live?", include_history=True)
    assert any(h.historical for h in forced.hits)
    assert not forced.hits[0].historical  # asked about now: the current fact leads


def test_hits_cite_their_source(engine):
    engine.ingest("I work at Spotify", source_id="msg-17", timestamp="2026-03-01T10:00:00Z")
    hit = engine.recall("Where does the user work?").hits[0]
    assert hit.citation.source_id == "msg-17"
    assert hit.citation.timestamp == "2026-03-01T10:00:00Z"
    assert hit.citation.source_message == "I work at Spotify"
    assert hit.semantic > 0 and 0 <= hit.lexical <= 1 and hit.score >= engine.settings.threshold


def test_speaker_attribution(engine):
    engine.ingest("I live in Lisbon", user_id="chat", speaker="Maya")
    engine.ingest("I live in Porto", user_id="chat", speaker="Tom")
    assert engine.count_memories(user_id="chat") == 2  # two people, two locations, no supersede
    hit = engine.recall("Where does Maya live?", user_id="chat").hits[0]
    assert hit.memory.text == "Maya lives in Lisbon." and hit.citation.speaker == "Maya"


def test_users_are_isolated(engine):
    a = engine.ingest("My favourite food is sushi", user_id="alice").memories[0]
    engine.ingest("My favourite food is tacos", user_id="bob")
    assert texts(engine.recall("What is my favourite food?", user_id="alice")) == ["User's favorite food is sushi."]
    assert all(m.user_id == "bob" for m in engine.list_memories(user_id="bob"))
    for call in (engine.get, engine.history, engine.delete):
        with pytest.raises(NotFoundError):
            call(a.id, user_id="bob")
    assert engine.recall("What is my favourite food?", user_id="carol").hits == []
    engine.forget_user("bob")
    assert engine.count_memories(user_id="bob", status="all") == 0 and engine.messages(user_id="bob") == []
    assert engine.get(a.id).status == "active" and engine.count_memories(user_id="alice") == 1


def test_soft_delete_leaves_recall_but_not_the_ledger(engine):
    memory = engine.ingest("I drive a Tesla").memories[0]
    engine.delete(memory.id)
    assert engine.get(memory.id).status == "deleted"
    assert engine.recall("What car does the user drive?").hits == []
    assert engine.verify_index()["ok"]


@pytest.mark.parametrize("bad_call, match", [
    (lambda e: e.ingest(""), "empty"),
    (lambda e: e.ingest("   "), "empty"),
    (lambda e: e.ingest("x" * 20_001), "limit"),
    (lambda e: e.ingest("bin\x00ary"), "NUL"),
    (lambda e: e.ingest("I live in Oslo", user_id=""), "user_id"),
    (lambda e: e.ingest("I live in Oslo", user_id="u" * 500), "user_id"),
    (lambda e: e.recall(""), "empty"),
    (lambda e: e.recall("where?", top_k=0), "top_k"),
    (lambda e: e.list_memories(status="bogus"), "status"),
    (lambda e: e.remember("user", "color", "green", type="opinion"), "type"),
    (lambda e: e.ingest_many(["I live in Oslo", ""]), "message 2"),
])
def test_bad_input_is_refused_and_the_store_is_untouched(engine, bad_call, match):
    engine.ingest("I use Arch Linux.")
    before = (engine.count_memories(status="all"), len(engine.messages()))
    with pytest.raises(ValueError, match=match):
        bad_call(engine)
    assert (engine.count_memories(status="all"), len(engine.messages())) == before


@pytest.mark.parametrize("message, query, expected", [
    ("Ich wohne in München und arbeite bei Siemens.", "Wo wohnt der Nutzer?", "München"),
    ("私の猫の名前はミソです", "猫の名前は?", "ミソ"),
    ("My favourite emoji is 🦊 and I love foxes", "What animal does the user love?", "🦊"),
    ("My password hint is '; DROP TABLE memories; --", "What is the password hint?", "DROP TABLE"),
    ("I use 100% cotton_sheets and like %_% patterns", "What sheets does the user use?", "cotton"),
])
def test_any_language_and_hostile_looking_text_round_trips(engine, message, query, expected):
    engine.ingest(message)
    result = engine.recall(query, threshold=0.0)
    assert any(expected in t for t in texts(result))
    assert engine.verify_index()["ok"]


def test_ingest_many_matches_ingest(engine):
    results = engine.ingest_many(["I use Arch Linux.", "ok thanks", {"text": "I live in Rome", "source_id": "s2"},
                                  "I moved to Milan"])
    assert [r.status for r in results] == ["created", "ignored", "created", "superseded"]
    assert engine.get(results[2].memories[0].id).source_id == "s2"


def test_remember_structured_memory_follows_the_same_rules(engine):
    first = engine.remember("user", "favorite color", "green", type="preference")
    assert first.status == "created"
    assert engine.remember("user", "favorite color", "green", type="preference").status == "confirmed"
    assert engine.remember("user", "favorite color", "blue", type="preference").status == "superseded"


def test_rescore_matches_a_fresh_recall(engine):
    engine.ingest("I use Arch Linux.")
    engine.ingest("I live in Berlin")
    base = engine.recall("What OS does the user use?", threshold=1.5)  # above any score: nothing served
    assert base.hits == [] and base.below_threshold
    moved = engine.rescore(base, threshold=0.3, alpha=0.7)
    fresh = engine.recall("What OS does the user use?", threshold=0.3, alpha=0.7)
    assert [(h.memory.id, h.score) for h in moved.hits] == [(h.memory.id, h.score) for h in fresh.hits]
    assert engine.embedder.cache_hits >= 1  # the second recall did not embed the query again


def test_export_import_round_trip(engine, tmp_path, embedder):
    engine.ingest("I live in Austin", user_id="a", source_id="m1")
    engine.ingest("I moved to Denver", user_id="a")
    engine.ingest("I play guitar", user_id="b")
    path = tmp_path / "export.jsonl"
    assert engine.export_jsonl(path) > 0
    with MemoryEngine(Settings(data_dir=tmp_path / "restored"), embedder=embedder) as restored:
        assert restored.import_jsonl(path) == 3
        originals = engine.list_memories(status="all")
        copies = restored.list_memories(status="all")
        strip = lambda m: (m.user_id, m.text, m.status, m.value, m.source_id, m.source_message, m.created_at)
        assert [strip(m) for m in copies] == [strip(m) for m in originals]
        denver = next(m for m in copies if "Denver" in m.text)
        assert [m.text for m in restored.history(denver.id)] == ["User lives in Austin.", "User lives in Denver."]
        assert texts(restored.recall("Where does the user live?", user_id="a")) == \
            texts(engine.recall("Where does the user live?", user_id="a"))
        assert restored.verify_index()["ok"]


@pytest.mark.parametrize("content, match", [
    ("not json\n", "line 1"),
    ('{"kind": "memory", "id": 1}\n', "missing"),
    ('{"kind": "alien"}\n', "unknown kind"),
    ('[1, 2]\n', "JSON object"),
])
def test_malformed_import_changes_nothing(engine, tmp_path, content, match):
    engine.ingest("I use Arch Linux.")
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(ValueError, match=match):
        engine.import_jsonl(path)
    assert engine.count_memories(status="all") == 1


def test_schema_enforces_the_invariants(engine):
    engine.ingest("I live in Berlin")
    conn = sqlite3.connect(engine.data_dir / "memengine.db")
    row = conn.execute("SELECT user_id, subject, attribute, embedding FROM memories").fetchone()
    insert = ("INSERT INTO memories (user_id, text, type, subject, attribute, value, value_key, multi_valued, importance, "
              "status, replaced_by, created_at, updated_at, embedding) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
    with pytest.raises(sqlite3.IntegrityError):  # a second active value in a single-valued slot
        conn.execute(insert, (*row[:1], "x", "fact", row[1], row[2], "Oslo", "oslo", 0, 0.5, "active", None, "t", "t", row[3]))
    with pytest.raises(sqlite3.IntegrityError):  # replaced by an older memory: a cycle
        conn.execute("UPDATE memories SET status = 'superseded', replaced_by = id WHERE id = 1")
    with pytest.raises(sqlite3.IntegrityError):  # superseded without a replacement
        conn.execute("UPDATE memories SET status = 'superseded' WHERE id = 1")
    conn.close()


def test_concurrent_conflicting_updates_leave_one_active_memory_per_slot(engine):
    cities = ["Oslo", "Rome", "Lima", "Kyiv", "Pune", "Doha", "Nice", "Bern"]
    acknowledged, errors = [], []

    def writer(n):
        try:
            for i in range(6):
                r = engine.ingest(f"I moved to {cities[(n + i) % 8]}", user_id="shared")
                acknowledged.extend(m.id for m in r.memories)
                engine.ingest(f"My project deadline is March {n + i + 1}", user_id="shared")
        except Exception as exc:  # noqa: BLE001 - the test reports any failure
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    active = engine.list_memories(user_id="shared")
    assert sorted(m.attribute for m in active) == ["deadline", "location"]
    assert all(engine.get(i) for i in acknowledged)
    assert engine.verify_index()["ok"]


def test_one_engine_per_store(tmp_path, embedder):
    first = MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder)
    with pytest.raises(StoreInUseError, match="in use"):
        MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder)
    first.close()
    MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder).close()


def test_the_store_refuses_another_model(tmp_path, embedder):
    with MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder) as eng:
        eng.ingest("I use Arch Linux.")
        eng.ledger.set_meta("embedding_model", "some-other-model:768")
    with pytest.raises(ModelMismatchError, match="some-other-model"):
        MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder)
    with MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder, migrate_model=True) as eng:
        assert eng.ledger.get_meta("embedding_model") == embedder.model_id
        assert "Arch" in eng.recall("What OS does the user use?").hits[0].memory.text


def test_index_damage_is_detected_and_repaired_on_open(tmp_path, embedder):
    with MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder) as eng:
        ids = [r.memories[0].id for r in eng.ingest_many(["I use Arch Linux.", "I live in Berlin", "I play chess"])]
        eng.sync.flush()
        eng.sync.forget_applied()  # nothing pending: only the full check can find the damage
        eng.index.remove("default", ids[:2])  # the vector index loses two memories behind the ledger's back
        assert not eng.verify_index()["ok"]
        eng.ledger.set_meta("clean_shutdown", "0")
        eng._closed = True  # simulate a crash: no clean close
        eng.ledger.close()
        eng._dir_lock.release()
    with MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder) as eng:
        assert eng.last_repair["users_repaired"] == 1
        assert eng.verify_index()["ok"]
        assert "Arch" in eng.recall("What OS does the user use?").hits[0].memory.text


def test_pending_index_changes_are_replayed_on_open(tmp_path, embedder):
    with MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder) as eng:
        memory = eng.ingest("I use Arch Linux.").memories[0]
        eng.sync.flush()
        eng.index.remove("default", [memory.id])
        with eng.ledger.transaction() as conn:
            eng.ledger.outbox(conn, "add", "default", memory.id)
    with MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder) as eng:
        assert eng.last_repair["outbox_replayed"] == 1 and eng.verify_index()["ok"]


def test_rebuild_index_from_sqlite(engine):
    engine.ingest_many(["I use Arch Linux.", "I live in Berlin", "I moved to Paris"])
    engine.index.reset()
    assert engine.rebuild_index() == {"rebuilt_users": 1, "rebuilt_memories": 2}
    assert engine.verify_index()["ok"]


def test_stats(engine):
    engine.ingest("I live in Berlin")
    engine.ingest("I moved to Paris")
    stats = engine.stats()
    assert stats["memories"] == {"active": 1, "superseded": 1, "deleted": 0}
    assert stats["model"].startswith("all-MiniLM-L6-v2") and stats["messages"] == 2
    json.dumps(stats)


def test_results_serialize(engine):
    result = engine.ingest("I'm Sam and I live in Austin")
    json.dumps(result.to_dict())
    json.dumps(engine.recall("Where does Sam live?").to_dict())


def test_closed_engine_refuses_work(tmp_path, embedder):
    eng = MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder)
    eng.close()
    eng.close()  # idempotent
    with pytest.raises(Exception, match="closed"):
        eng.recall("anything")


def test_a_question_naming_a_speaker_does_not_match_on_the_name_alone(engine):
    for text in ("I loved that book so much", "I went hiking in the Alps yesterday", "I live in Lisbon"):
        engine.ingest(text, user_id="chat", speaker="Maya")
    assert engine.recall("What is the name of Maya's sister?", user_id="chat").hits == []
    assert "Lisbon" in engine.recall("Where does Maya live?", user_id="chat").hits[0].memory.text


def test_a_correction_finds_a_fact_whose_vector_is_still_queued(engine):
    engine.ingest("My flight to Lisbon lands at 18:40.")
    assert engine.sync._vector_queue  # not yet written to Chroma
    result = engine.ingest("I misread the ticket, my flight lands at 16:40.")
    assert result.status == "superseded"


def test_in_a_group_chat_one_persons_facts_do_not_answer_for_another(engine):
    engine.ingest("My sister Elena is getting married in June", user_id="chat", speaker="Marta")
    engine.ingest("I finally fixed my bike", user_id="chat", speaker="Kenji")
    engine.ingest("Kenji's sister is visiting next week", user_id="chat", speaker="Marta")
    assert [h.memory.text for h in engine.recall("Who is getting married, Marta's sister?", user_id="chat").hits][:1] == \
        ["Marta's sister Elena is getting married in June."]
    kenji = engine.recall("What is Kenji's sister doing?", user_id="chat", threshold=0.0).hits
    assert kenji and all("Elena" not in h.memory.text for h in kenji)


@pytest.mark.parametrize("first, correction, expected, gone", [
    ("I'm allergic to shellfish", "Oops, I meant peanuts", "peanuts", "shellfish"),
    ("The standup is on Monday at 9", "Sorry, Tuesday, not Monday", "Tuesday", "Monday"),
    ("My flight lands at 18:40", "make that 16:40", "16:40", "18:40"),
])
def test_a_bare_correction_replaces_what_was_said_last(engine, first, correction, expected, gone):
    engine.ingest("I live in Oslo")
    engine.ingest(first)
    result = engine.ingest(correction)
    assert result.status == "superseded"
    texts_now = [m.text for m in engine.list_memories()]
    assert any(expected in t for t in texts_now) and not any(gone in t for t in texts_now)
    assert any("Oslo" in t for t in texts_now)  # only the last fact was corrected


def test_a_bare_value_without_a_correction_cue_is_not_a_correction(engine):
    engine.ingest("I'm allergic to shellfish")
    assert engine.ingest("peanuts").status != "superseded"


@pytest.mark.parametrize("message", [
    "My deadline is May 3 and the deadline is May 5",
    "I moved to Oslo, I live in Bergen",
    "sorry, autocorrect. my partner's name is Jonah",
])
def test_two_values_for_one_slot_in_one_message_never_break_the_store(engine, message):
    engine.ingest("My partner's name is Jonas.")
    result = engine.ingest(message)
    assert result.status in ("created", "superseded")
    assert engine.verify_index()["ok"]


def test_facts_about_different_people_never_replace_each_other(engine):
    engine.ingest("My colleague Dara Silva works as a backend developer.")
    engine.ingest("My colleague Omar Okafor lives in Oslo.")
    assert engine.ingest("Dara Haddad switched jobs and now works as a nurse.").status == "created"
    assert engine.ingest("Actually, my colleague Viktor Haddad moved to Oslo.").status == "created"
    assert engine.count_memories(status="superseded") == 0
    assert engine.ingest("Actually, my colleague Omar Okafor moved to Bergen.").status == "superseded"


def test_a_question_about_someone_never_mentioned_gets_nothing(engine):
    """Asked about a person the store has never heard of, the memories that score well are about someone
    else ("When did Priya start at Google?" is not answered by the user's own job)."""
    engine.ingest("I started at Google in March.", user_id="u", speaker="Tomas")
    engine.ingest("My colleague Anja moved to Graz.", user_id="u", speaker="Tomas")
    refused = engine.recall("When did Priya start at Google?", user_id="u")
    assert refused.hits == [] and refused.unknown_names == ["Priya"]
    assert refused.to_dict()["unknown_names"] == ["Priya"]
    assert engine.recall("What is Priya's job?", user_id="u").hits == []
    # people the store knows: a speaker, someone mentioned in a memory
    assert "Google" in engine.recall("When did Tomas start at Google?", user_id="u").hits[0].memory.text
    assert "Graz" in engine.recall("Where did Anja move?", user_id="u").hits[0].memory.text


def test_a_fact_said_with_chat_abbreviations_answers_the_spelled_out_question(engine):
    engine.ingest("My mgr is Dana Whitfield.", user_id="u")
    engine.ingest("I walk the dog every morning.", user_id="u")
    hits = engine.recall("who is my manager?", user_id="u").hits  # "mgr" alone: cosine 0.35, under the threshold
    assert [h.memory.text for h in hits][:1] == ["User's mgr is Dana Whitfield."]  # stored as said
