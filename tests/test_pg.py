"""Server mode groundwork on real servers: the fixtures, and the PostgreSQL ledger layer (engine/storage/postgres.py)."""
from __future__ import annotations

import json
import multiprocessing
import threading
import urllib.request
import uuid

import numpy as np
import pytest

from engine import EngineError
from engine.model import MessageIn
from engine.storage.postgres import PgLedger, user_lock_key
from engine.storage.postgres_connection import to_psycopg
from engine.storage.postgres_schema import MIGRATIONS

pytestmark = pytest.mark.e2e

NOW = "2026-12-01T00:00:00.000000+00:00"
WAIT_S = 30  # generous bound for "the other side got there"; the tests never depend on it being short


@pytest.mark.servers
def test_postgres_fixture_gives_a_working_database_on_loopback(postgres_url):
    import psycopg

    assert postgres_url.startswith("postgresql://postgres@127.0.0.1:")
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE fixture_probe (id integer PRIMARY KEY, note text NOT NULL)")
        conn.execute("INSERT INTO fixture_probe VALUES (1, 'hello')")
        assert conn.execute("SELECT note FROM fixture_probe WHERE id = 1").fetchone() == ("hello",)
        assert conn.execute("SHOW listen_addresses").fetchone() == ("127.0.0.1",)
        assert conn.execute("SELECT current_setting('server_version_num')::int").fetchone()[0] >= 150000
        conn.execute("DROP TABLE fixture_probe")


@pytest.mark.servers
def test_chroma_fixture_answers_heartbeat_and_stores_vectors(chroma_server_url):
    import chromadb

    with urllib.request.urlopen(f"{chroma_server_url}/api/v2/heartbeat", timeout=5) as response:
        assert "nanosecond heartbeat" in json.loads(response.read())
    host, port = chroma_server_url.removeprefix("http://").split(":")
    client = chromadb.HttpClient(host=host, port=int(port))
    collection = client.create_collection("fixture_probe")
    collection.add(ids=["a", "b"], embeddings=[[1.0, 0.0], [0.0, 1.0]])
    assert collection.query(query_embeddings=[[0.9, 0.1]], n_results=1)["ids"] == [["a"]]
    client.delete_collection("fixture_probe")


@pytest.mark.parametrize("env, outcome", [
    ({}, pytest.skip.Exception),
    ({"MEMENGINE_REQUIRE_SERVERS": "1"}, pytest.fail.Exception),
    ({"CI": "true"}, pytest.fail.Exception),
])
def test_a_missing_server_skips_only_when_servers_are_not_required(monkeypatch, env, outcome):
    from tests.servers import unavailable

    monkeypatch.delenv("CI", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(outcome, match="PostgreSQL is not installed"):
        unavailable("PostgreSQL is not installed")


# -- engine/storage/postgres.py: the PostgreSQL ledger -------------------------------------------------------------

@pytest.fixture
def pg_database(postgres_url):
    """A URL of a fresh empty database on the session's cluster, dropped after the test."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield postgres_url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE {name} WITH (FORCE)")


@pytest.fixture
def ledger(pg_database):
    led = PgLedger(pg_database)
    try:
        yield led
    finally:
        led.close()


def add_memory(conn, user_id="u1", subject="user", attribute="city", value="Oslo", *, multi=False, message_id=None,
               embedding=None, **extra):
    return PgLedger.insert_memory(
        conn, user_id=user_id, text=f"{subject} {attribute} {value}", type="fact", subject=subject,
        attribute=attribute, value=value, value_key=value.lower(), multi_valued=multi, importance=0.5,
        message_id=message_id, embedding=np.ones(4, dtype=np.float32) if embedding is None else embedding,
        created_at=NOW, **extra,
    )


@pytest.mark.parametrize("sql, expected", [
    ("SELECT * FROM t WHERE a = ? AND b = ?", "SELECT * FROM t WHERE a = %s AND b = %s"),
    ("SELECT '?', \"a?\" FROM t WHERE a = ?", "SELECT '?', \"a?\" FROM t WHERE a = %s"),
    ("SELECT 'it''s ?' WHERE x LIKE '10%' AND y = ?", "SELECT 'it''s ?' WHERE x LIKE '10%%' AND y = %s"),
    ("SELECT 5 % ? -- why? 100%\n, ?", "SELECT 5 %% %s -- why? 100%%\n, %s"),
    ("SELECT /* a ? */ ?", "SELECT /* a ? */ %s"),
])
def test_question_mark_placeholders_become_psycopg_ones_outside_literals(sql, expected):
    assert to_psycopg(sql) == expected


def test_user_lock_keys_are_stable_signed_64_bit_and_distinct():
    keys = {user_lock_key(f"user-{i}") for i in range(10_000)}
    assert len(keys) == 10_000
    assert all(-(2 ** 63) <= k < 2 ** 63 for k in keys)
    assert user_lock_key("alice") == user_lock_key("alice") != user_lock_key("Alice")


def test_bad_arguments_raise_value_error():
    with pytest.raises(ValueError, match="PostgreSQL URL"):
        PgLedger("sqlite:///tmp/x.db")
    with pytest.raises(ValueError, match="pool_size"):
        PgLedger("postgresql://u@127.0.0.1:1/db", pool_size=0)


@pytest.mark.servers
def test_migrations_apply_once_and_are_idempotent(pg_database):
    first = PgLedger(pg_database, migrate=False)
    try:
        assert first.migrate() == list(range(1, len(MIGRATIONS) + 1))
        assert first.migrate() == []
        assert first.schema_version == len(MIGRATIONS)
        second = PgLedger(pg_database)  # migrates on open: nothing left to do
        second.close()
        rows = first.query("SELECT version FROM schema_migrations ORDER BY version")
        assert [r[0] for r in rows] == list(range(1, len(MIGRATIONS) + 1))
        tables = {r[0] for r in first.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
        assert {"meta", "messages", "memories", "index_outbox", "schema_migrations"} <= tables
    finally:
        first.close()


def _migrate_in_process(url, barrier, results):
    barrier.wait()
    led = PgLedger(url, migrate=False)
    try:
        results.put(led.migrate())
    finally:
        led.close()


def _run_to_the_end(procs, timeout_s=120):
    """Start the processes and wait for them; any still running at the end is killed, so a failed test never
    leaves a child behind (multiprocessing would wait for it when pytest exits, and CI would hang)."""
    try:
        for p in procs:
            p.start()
        for p in procs:
            p.join(timeout_s)
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
                p.join(10)
    return [p.exitcode for p in procs]


@pytest.mark.servers
def test_two_processes_migrating_at_once_apply_each_migration_exactly_once(pg_database):
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_migrate_in_process, args=(pg_database, barrier, results), daemon=True)
             for _ in range(2)]
    assert _run_to_the_end(procs) == [0, 0]
    applied = sorted([results.get(timeout=5), results.get(timeout=5)])
    assert applied == [[], list(range(1, len(MIGRATIONS) + 1))]  # one did all the work, the other none
    led = PgLedger(pg_database, migrate=False)
    try:
        assert led.query("SELECT COUNT(*), COUNT(DISTINCT version) FROM schema_migrations")[0] == (
            len(MIGRATIONS), len(MIGRATIONS))
    finally:
        led.close()


@pytest.mark.servers
def test_meta_messages_outbox_round_trip(ledger):
    with ledger.transaction("u1") as conn:
        ledger.set_meta("model", "all-MiniLM-L6-v2", conn)
        message_id = ledger.insert_message(conn, MessageIn("I live in Oslo (100% sure?)", "u1", "s1", None, "Ana"), NOW)
        memory_id = add_memory(conn, message_id=message_id)
        ledger.outbox(conn, "add", "u1", memory_id)
    ledger.set_meta("model", "other")
    assert ledger.get_meta("model") == "other"
    assert ledger.get_meta("missing") is None
    assert ledger.query("SELECT text, speaker FROM messages WHERE id = ?", (message_id,)) == [
        ("I live in Oslo (100% sure?)", "Ana")]
    assert ledger.query("SELECT op, user_id, memory_id FROM index_outbox") == [("add", "u1", memory_id)]
    assert ledger.query("SELECT message_id FROM memories WHERE id = ?", (memory_id,)) == [(message_id,)]
    blob = ledger.query("SELECT embedding FROM memories WHERE id = ?", (memory_id,))[0][0]
    assert np.frombuffer(blob, dtype=np.float32).tolist() == [1.0, 1.0, 1.0, 1.0]


@pytest.mark.servers
def test_a_failed_transaction_leaves_nothing(ledger):
    with pytest.raises(RuntimeError):
        with ledger.transaction("u1") as conn:
            add_memory(conn)
            raise RuntimeError("boom")
    assert ledger.query("SELECT COUNT(*) FROM memories") == [(0,)]


@pytest.mark.servers
def test_superseding_the_engine_way_commits_and_keeps_the_chain(ledger):
    with ledger.transaction("u1") as conn:
        old = add_memory(conn, value="Oslo")
    with ledger.transaction("u1") as conn:
        new = ledger.next_memory_id(conn)
        ledger.mark_superseded(conn, old, new, NOW)  # points at a row that does not exist yet: checked at commit
        assert add_memory(conn, value="Bergen", memory_id=new, supersedes=old) == new
    assert ledger.query("SELECT id, status, replaced_by FROM memories ORDER BY id") == [
        (old, "superseded", new), (new, "active", None)]
    with ledger.transaction("u1") as conn:
        with pytest.raises(Exception, match="no longer active"):
            ledger.mark_superseded(conn, old, new + 1, NOW)


@pytest.mark.servers
def test_replaced_embeddings_walk_the_chain_back_to_its_depth(ledger):
    vectors = [np.eye(4, dtype=np.float32)[i] for i in range(4)]
    ids = []
    for i, city in enumerate(("Oslo", "Bergen", "Tromso", "Bodo")):  # each replaces the one before
        with ledger.transaction("u1") as conn:
            new = ledger.next_memory_id(conn)
            if ids:
                ledger.mark_superseded(conn, ids[-1], new, NOW)
            ids.append(add_memory(conn, value=city, memory_id=new, supersedes=ids[-1] if ids else None,
                                  embedding=vectors[i]))
    with ledger.transaction("u1") as conn:
        lone = add_memory(conn, attribute="pet", value="cat")
    walked = ledger.replaced_embeddings([ids[-1], lone])
    assert [(text, v.tolist()) for text, v in walked[ids[-1]]] == [
        ("user city Tromso", vectors[2].tolist()), ("user city Bergen", vectors[1].tolist()),
        ("user city Oslo", vectors[0].tolist())]
    assert lone not in walked
    assert [text for text, _ in ledger.replaced_embeddings([ids[-1]], depth=1)[ids[-1]]] == ["user city Tromso"]


@pytest.mark.servers
def test_memory_ids_are_never_reused(ledger):
    with ledger.transaction("u1") as conn:
        first = add_memory(conn, value="Oslo")
    with ledger.transaction("u1") as conn:
        conn.execute("DELETE FROM memories WHERE id = ?", (first,))
    with pytest.raises(RuntimeError):
        with ledger.transaction("u1") as conn:
            rolled_back = add_memory(conn, value="Rome")
            raise RuntimeError("abandon")
    with ledger.transaction("u1") as conn:
        reserved = ledger.reserve_memory_ids(conn, 3)
        latest = add_memory(conn, value="Bergen")
    assert first < rolled_back < reserved[0] < reserved[1] < reserved[2] < latest


def _violation(ledger, write):
    import psycopg

    with pytest.raises(psycopg.IntegrityError) as caught:
        with ledger.transaction("u1") as conn:
            write(conn)
    return caught.value


@pytest.mark.servers
def test_the_schema_refuses_rows_that_break_the_invariants(ledger):
    import psycopg.errors as errors

    with ledger.transaction("u1") as conn:
        oslo = add_memory(conn, value="Oslo")
        add_memory(conn, attribute="likes", value="tea", multi=True)
    before = ledger.query("SELECT COUNT(*) FROM memories")

    # a second active value in a single-valued slot
    assert isinstance(_violation(ledger, lambda c: add_memory(c, value="Bergen")), errors.UniqueViolation)
    # the same active value twice in a multi-valued slot
    assert isinstance(_violation(ledger, lambda c: add_memory(c, attribute="likes", value="Tea", multi=True)),
                      errors.UniqueViolation)
    # replaced by an older (or the same) memory: a cycle
    assert "replaced_by_newer" in str(_violation(ledger, lambda c: c.execute(
        "UPDATE memories SET status = 'superseded', replaced_by = ? WHERE id = ?", (oslo, oslo))))
    # supersedes a newer memory
    assert "supersedes_older" in str(_violation(ledger, lambda c: add_memory(
        c, user_id="u2", memory_id=1_000, supersedes=2_000)))
    # superseded without pointing at its replacement
    assert "superseded_points_at_replacement" in str(_violation(ledger, lambda c: c.execute(
        "UPDATE memories SET status = 'superseded' WHERE id = ?", (oslo,))))
    # pointing at a replacement that never appears (caught at commit)
    assert isinstance(_violation(ledger, lambda c: c.execute(
        "UPDATE memories SET status = 'superseded', replaced_by = ? WHERE id = ?", (oslo + 10_000, oslo))),
        errors.ForeignKeyViolation)
    # a type or status outside the enums
    assert isinstance(_violation(ledger, lambda c: c.execute("UPDATE memories SET status = 'gone'")),
                      errors.CheckViolation)
    assert ledger.query("SELECT COUNT(*) FROM memories") == before
    assert ledger.query("SELECT status FROM memories WHERE id = ?", (oslo,)) == [("active",)]


def _writers_waiting_on_a_user_lock(watcher) -> int:
    """Backends of this test's database blocked on an advisory lock: we watch PostgreSQL, not the clock."""
    return watcher.query(
        "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() "
        "AND wait_event_type = 'Lock' AND wait_event = 'advisory'")[0][0]


def _start_writer(ledger, user_id, entered: threading.Event) -> threading.Thread:
    def write():
        with ledger.transaction(user_id) as conn:
            entered.set()
            add_memory(conn, user_id=user_id, attribute="job", value="writer")
    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


@pytest.mark.servers
def test_the_user_lock_serialises_one_users_writers_but_not_different_users(pg_database):
    writers = PgLedger(pg_database)
    holder = PgLedger(pg_database, pool_size=1)
    watcher = PgLedger(pg_database, pool_size=1)
    try:
        with holder.transaction("alice") as conn:
            add_memory(conn, user_id="alice")
            # another user's writer goes straight through while alice's lock is held
            bob_entered = threading.Event()
            bob = _start_writer(writers, "bob", bob_entered)
            bob.join(WAIT_S)
            assert bob_entered.is_set() and not bob.is_alive()
            # alice's second writer waits on the advisory lock inside PostgreSQL until the holder commits
            alice_entered = threading.Event()
            alice = _start_writer(writers, "alice", alice_entered)
            pause = threading.Event()
            for _ in range(WAIT_S * 20):
                if _writers_waiting_on_a_user_lock(watcher) == 1:
                    break
                pause.wait(0.05)
            assert _writers_waiting_on_a_user_lock(watcher) == 1
            assert not alice_entered.is_set()
        alice.join(WAIT_S)  # the commit released the lock
        assert alice_entered.is_set() and not alice.is_alive()
        assert _writers_waiting_on_a_user_lock(watcher) == 0
        assert watcher.query("SELECT user_id, COUNT(*) FROM memories GROUP BY user_id ORDER BY 1") == [
            ("alice", 2), ("bob", 1)]
    finally:
        writers.close()
        holder.close()
        watcher.close()


def _increment_counter(url, user_id, times, barrier):
    led = PgLedger(url, migrate=False)
    try:
        barrier.wait()
        for _ in range(times):
            # read-modify-write: without the user lock, two processes would lose each other's increments
            with led.transaction(user_id) as conn:
                row = conn.execute("SELECT value FROM meta WHERE key = ?", (f"counter:{user_id}",)).fetchone()
                led.set_meta(f"counter:{user_id}", str(int(row[0]) + 1), conn)
    finally:
        led.close()


@pytest.mark.servers
def test_two_processes_writing_one_user_lose_no_update(ledger, pg_database):
    ledger.set_meta("counter:carol", "0")
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(2)
    procs = [ctx.Process(target=_increment_counter, args=(pg_database, "carol", 50, barrier), daemon=True)
             for _ in range(2)]
    assert _run_to_the_end(procs) == [0, 0]
    assert ledger.get_meta("counter:carol") == "100"


@pytest.mark.servers
def test_reads_inside_a_transaction_see_its_writes_on_the_same_connection(pg_database):
    ledger = PgLedger(pg_database, pool_size=1, lock_timeout_s=2)  # a second connection would not be there
    try:
        with ledger.transaction("u1") as conn:
            memory_id = add_memory(conn)
            assert ledger.query("SELECT id, '100%' FROM memories WHERE user_id = ?", ("u1",)) == [(memory_id, "100%")]
            with pytest.raises(EngineError, match="do not nest"):
                with ledger.transaction("u1"):
                    pass
        assert ledger.query("SELECT COUNT(*) FROM memories") == [(1,)]
    finally:
        ledger.close()
