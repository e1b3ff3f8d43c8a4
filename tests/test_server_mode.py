"""Server mode (issue 11) on a real PostgreSQL and a real `chroma run` (tests/servers.py): the engine
tests again on the shared store, several engines and processes on one store, and the REST API with
several uvicorn workers under conflicting load."""
from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import httpx
import pytest

from engine import MemoryEngine, Settings
# The engine tests run again here against the server-mode `engine` fixture below (pytest collects
# imported test functions as this module's own, with this module's fixtures).
from tests.test_core import (  # noqa: F401
    test_a_bare_correction_replaces_what_was_said_last,
    test_canonical_walkthrough,
    test_concurrent_conflicting_updates_leave_one_active_memory_per_slot,
    test_export_import_round_trip,
    test_facts_about_different_people_never_replace_each_other,
    test_history_queries_include_superseded_memories,
    test_hits_cite_their_source,
    test_in_a_group_chat_one_persons_facts_do_not_answer_for_another,
    test_ingest_many_matches_ingest,
    test_malformed_import_changes_nothing,
    test_multi_valued_attributes_accumulate,
    test_negation_retires_the_old_fact,
    test_rebuild_index_from_sqlite,
    test_remember_structured_memory_follows_the_same_rules,
    test_repeating_a_fact_confirms_it,
    test_rescore_matches_a_fresh_recall,
    test_several_facts_in_one_message,
    test_small_talk_is_logged_but_not_stored,
    test_soft_delete_leaves_recall_but_not_the_ledger,
    test_speaker_attribution,
    test_stats,
    test_supersede_keeps_lineage,
    test_switch_replaces_only_the_named_value,
    test_users_are_isolated,
    texts,
)
from tests.test_replies_engine import (  # noqa: F401
    test_a_batch_reads_the_question_from_the_message_before_it,
    test_a_fragment_reply_is_found_by_a_question_about_it,
    test_another_users_question_is_not_at_hand,
)

pytestmark = [pytest.mark.e2e, pytest.mark.servers]

REPO = Path(__file__).resolve().parents[1]
WAIT_S = 120


@pytest.fixture
def pg_database(postgres_url):
    """A URL of a fresh empty database on the session's cluster, dropped after the test."""
    import psycopg

    name = f"s_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield postgres_url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE {name} WITH (FORCE)")


@pytest.fixture
def server_settings(pg_database, chroma_server_url, tmp_path):
    # data_dir points at a directory that must stay unused: server mode keeps nothing on local disk
    return Settings(database_url=pg_database, chroma_url=chroma_server_url, data_dir=tmp_path / "unused")


@pytest.fixture
def engine(server_settings, embedder):
    """The server-mode engine the imported engine tests run against."""
    eng = MemoryEngine(server_settings, embedder=embedder)
    try:
        yield eng
    finally:
        eng.close()


def _ledger_invariants(url: str) -> dict:
    import psycopg

    with psycopg.connect(url) as conn:
        doubled = conn.execute(
            "SELECT COUNT(*) FROM (SELECT 1 FROM memories WHERE status = 'active' AND multi_valued = 0 "
            "GROUP BY user_id, subject, attribute HAVING COUNT(*) > 1) d").fetchone()[0]
        statuses = dict(conn.execute("SELECT status, COUNT(*) FROM memories GROUP BY status").fetchall())
    return {"doubled_slots": doubled, "statuses": statuses}


# -- construction ---------------------------------------------------------------------------------

def test_server_mode_needs_a_chroma_server_and_leaves_no_local_files(server_settings, embedder, tmp_path):
    with pytest.raises(ValueError, match="MEMENGINE_CHROMA_URL"):
        MemoryEngine(Settings(database_url=server_settings.database_url, data_dir=tmp_path / "x"), embedder=embedder)
    with MemoryEngine(server_settings, embedder=embedder) as eng:
        eng.ingest("I live in Oslo")
        assert eng.stats()["mode"] == "server"
    assert not (tmp_path / "unused").exists() and not (tmp_path / "x").exists()


def test_two_engines_open_one_store_and_see_each_others_writes_at_once(server_settings, embedder):
    first = MemoryEngine(server_settings, embedder=embedder)
    second = MemoryEngine(server_settings, embedder=embedder)  # no directory lock in server mode
    try:
        assert first.store_id == second.store_id
        first.ingest("I live in Oslo", user_id="ana")
        assert first.recall("Where does the user live?", user_id="ana").hits  # builds first's BM25 cache
        second.ingest("I moved to Lisbon", user_id="ana")  # resolved against first's memory
        for eng in (first, second):
            result = eng.recall("Where does the user live?", user_id="ana")
            assert texts(result)[:1] == ["User lives in Lisbon."]
            assert [m.text for m in eng.list_memories(user_id="ana")] == ["User lives in Lisbon."]
        # the same scores from both workers: first's BM25 cache was rebuilt from the change counter
        a = first.recall("Lisbon", user_id="ana", threshold=0.0)
        b = second.recall("Lisbon", user_id="ana", threshold=0.0)
        assert [(h.memory.id, h.lexical, h.semantic) for h in a.hits] == [
            (h.memory.id, h.lexical, h.semantic) for h in b.hits]
        assert a.hits and a.hits[0].lexical > 0
        second.forget_user("ana")
        assert first.recall("Lisbon", user_id="ana", threshold=0.0).hits == []
        first.ingest("I live in Porto", user_id="ana")  # a new collection after the other worker dropped it
        assert texts(second.recall("Where does the user live?", user_id="ana")) == ["User lives in Porto."]
        assert first.verify_index()["ok"] and second.verify_index()["ok"]
    finally:
        first.close()
        second.close()


def _engine_process(settings_json: str, commands, answers) -> None:
    """A second process with its own engine: runs (method, args, kwargs) and answers with JSON-able results."""
    settings = Settings.model_validate_json(settings_json)
    with MemoryEngine(settings) as eng:
        answers.put("ready")
        while True:
            command = commands.get(timeout=WAIT_S)
            if command is None:
                return
            method, args, kwargs = command
            result = getattr(eng, method)(*args, **kwargs)
            if method == "recall":
                result = texts(result)
            elif method == "ingest":
                result = [m.id for m in result.memories]
            answers.put(result)


def test_a_write_in_one_process_is_seen_by_another_at_once(server_settings, embedder):
    ctx = multiprocessing.get_context("spawn")
    commands, answers = ctx.Queue(), ctx.Queue()
    child = ctx.Process(target=_engine_process, args=(server_settings.model_dump_json(), commands, answers),
                        daemon=True)
    child.start()
    try:
        assert answers.get(timeout=WAIT_S) == "ready"
        with MemoryEngine(server_settings, embedder=embedder) as eng:
            commands.put(("ingest", ("I use Arch Linux.",), {"user_id": "bo"}))
            [arch] = answers.get(timeout=WAIT_S)
            assert texts(eng.recall("What OS does the user use?", user_id="bo")) == ["User uses Arch Linux."]
            ubuntu = eng.ingest("Actually, I switched to Ubuntu.", user_id="bo")
            assert ubuntu.superseded_ids == [arch]
            commands.put(("recall", ("What OS does the user use?",), {"user_id": "bo"}))
            assert answers.get(timeout=WAIT_S) == [m.text for m in ubuntu.memories]
            commands.put(("verify_index", (), {}))
            assert answers.get(timeout=WAIT_S)["ok"]
    finally:
        commands.put(None)
        child.join(WAIT_S)
        if child.is_alive():
            child.kill()
    assert child.exitcode == 0


def test_a_worker_killed_between_commit_and_index_leaves_rows_the_next_worker_applies(server_settings, embedder):
    with MemoryEngine(server_settings, embedder=embedder) as eng:
        eng.ingest("I live in Oslo", user_id="cy")
        # what a worker killed after its commit leaves: the ledger changed, Chroma did not
        memory = eng.list_memories(user_id="cy")[0]
        eng.index.remove("cy", [memory.id])
        with eng.ledger.transaction("cy") as conn:
            eng.ledger.outbox(conn, "add", "cy", memory.id)
        assert eng.index.ids("cy") == set()
    with MemoryEngine(server_settings, embedder=embedder) as other:
        assert other.last_repair["outbox_replayed"] == 1
        assert other.index.ids("cy") == {memory.id}
        assert other.verify_index()["ok"]


def test_replaying_the_same_rows_twice_is_harmless(engine):
    engine.ingest("I live in Oslo", user_id="di")
    engine.ingest("I moved to Rome", user_id="di")
    ids = {m.id: m.status for m in engine.list_memories(user_id="di", status="all")}
    with engine.ledger.transaction("di") as conn:
        for memory_id in ids:  # every row again, as if two workers had both replayed them
            engine.ledger.outbox(conn, "add", "di", memory_id)
            engine.ledger.outbox(conn, "remove", "di", memory_id)
            engine.ledger.outbox(conn, "add", "di", memory_id)
    assert engine.sync.drain() == 3 * len(ids)
    assert engine.index.ids("di") == {i for i, status in ids.items() if status == "active"}
    assert engine.verify_index()["ok"]


def test_rebuild_and_verify_in_server_mode(engine):
    engine.ingest_many(["I use Arch Linux.", "I live in Berlin", "I moved to Paris"], user_id="ed")
    engine.ingest("I play chess", user_id="fi")
    engine.index.drop_user("ed")
    report = engine.verify_index()
    assert not report["ok"] and report["vector_missing"] == 2
    assert engine.rebuild_index() == {"rebuilt_users": 2, "rebuilt_memories": 3}
    assert engine.verify_index()["ok"]


def test_import_locks_every_user_of_the_file_and_keeps_lineage(engine, tmp_path, embedder):
    with MemoryEngine(Settings(data_dir=tmp_path / "embedded"), embedder=embedder) as source:
        source.ingest("I live in Austin", user_id="a", source_id="m1")
        source.ingest("I moved to Denver", user_id="a")
        source.ingest("I play guitar", user_id="b")
        records = list(source.export_records())
        expected = [(m.user_id, m.text, m.status) for m in source.list_memories(status="all")]
    assert engine.import_records(records) == 3
    assert [(m.user_id, m.text, m.status) for m in engine.list_memories(status="all")] == expected
    denver = next(m for m in engine.list_memories(user_id="a"))
    assert [m.text for m in engine.history(denver.id)] == ["User lives in Austin.", "User lives in Denver."]
    with pytest.raises(ValueError, match="already imported"):
        engine.import_records(records)
    assert engine.verify_index()["ok"]


# -- the REST API with several uvicorn workers -------------------------------------------------------

def _load_test_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("load_test", REPO / "scripts" / "load_test.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("load_test", module)  # its dataclasses look their module up while being defined
    spec.loader.exec_module(module)
    return sys.modules["load_test"]


@pytest.mark.parametrize("kill_a_worker", [False, True], ids=["all-workers-live", "kill-9-one-worker"])
def test_three_workers_under_conflicting_load_keep_every_invariant(server_settings, embedder, tmp_path,
                                                                    kill_a_worker):
    load = _load_test_module()
    port = load.free_port()
    base = f"http://127.0.0.1:{port}"
    proc = load.start_server(port, str(tmp_path / "unused"), None, tmp_path / "server.log", workers=3,
                             database_url=server_settings.database_url, chroma_url=server_settings.chroma_url)
    try:
        deadline = time.monotonic() + 900  # three model loads on a shared 2-core machine can be slow
        while len(load.worker_pids(proc.pid)) < 3 or not _healthy(base):
            assert proc.poll() is None, (tmp_path / "server.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.5)
        # 3 users, conflicting updates of the same single-valued slots from 8 clients at once
        plan = load.make_plan(160, 3, seed=11)
        stats, cursor, cursor_lock = load.Stats(), [0], threading.Lock()
        threads = [threading.Thread(target=load.worker, args=(base, {}, plan, cursor, cursor_lock, stats,
                                                             time.monotonic() + 600)) for _ in range(8)]
        for t in threads:
            t.start()
        killed = None
        if kill_a_worker:
            while cursor[0] < len(plan) // 3:  # a third of the way in, mid-load
                time.sleep(0.05)
            killed = load.worker_pids(proc.pid)[0]
            os.kill(killed, signal.SIGKILL)
        for t in threads:
            t.join()
        assert all("HTTP" not in k for k in stats.errors), stats.errors  # no request failed inside a worker
        if not kill_a_worker:
            assert not stats.errors
        assert sum(len(ids) for ids in stats.acked.values()) > 10
        check = load.verify(base, {}, stats)  # every acknowledged memory and supersede, through the API
        assert check["ok"], check
    finally:
        load.stop_server(proc)
    assert _ledger_invariants(server_settings.database_url)["doubled_slots"] == 0
    with MemoryEngine(server_settings, embedder=embedder) as eng:  # a fresh worker: the index converged
        for user, ids in stats.acked.items():
            assert all(eng.get(i, user_id=user) for i in ids)
        report = eng.verify_index()
        assert report["ok"], report


def _healthy(base: str) -> bool:
    try:
        return httpx.get(f"{base}/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def test_migrate_copies_an_embedded_store_into_postgresql(server_settings, embedder, tmp_path, capsys):
    from adapters import cli

    source_dir = tmp_path / "embedded"
    with MemoryEngine(Settings(data_dir=source_dir), embedder=embedder) as source:
        source.ingest("I live in Austin", user_id="a", source_id="m1")
        source.ingest("We met at the fair", user_id="b", speaker="Ann")
        source.ingest("I moved to Denver", user_id="a")
        source.ingest("ok thanks", user_id="b")
        expected = [(m.user_id, m.text, m.status, m.source_id) for m in source.list_memories(status="all")]
        messages = [(m["user_id"], m["text"], m["speaker"]) for m in source.messages()]
    assert cli.main(["migrate", "--from", str(source_dir), "--to", server_settings.database_url,
                     "--chroma-url", server_settings.chroma_url]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report == {"memories": len(expected), "messages": 4, "users": 2, "index": True}
    with MemoryEngine(server_settings, embedder=embedder) as target:
        assert [(m.user_id, m.text, m.status, m.source_id) for m in target.list_memories(status="all")] == expected
        assert [(m["user_id"], m["text"], m["speaker"]) for m in target.messages()] == messages
        denver = target.list_memories(user_id="a")[0]
        assert [m.text for m in target.history(denver.id)] == ["User lives in Austin.", "User lives in Denver."]
    # a second run refuses to copy into a store that is no longer empty
    assert cli.main(["migrate", "--from", str(source_dir), "--to", server_settings.database_url,
                     "--chroma-url", server_settings.chroma_url]) == 2
