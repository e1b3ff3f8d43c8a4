"""Data safety (issue 12, Medium 3/4/7/8 and the engine Low items; issue 13 restore), on real stores:
real SQLite, embedded Chroma and the MiniLM model. Each test failed before its fix."""
from __future__ import annotations

import shutil
import sqlite3
import stat
from pathlib import Path

import numpy as np
import pytest

from engine import MemoryEngine, NotFoundError, Settings
from engine.recall import NameIndex

pytestmark = pytest.mark.integration


def files_holding(root: Path, needle: bytes) -> list[str]:
    """Every file under root whose bytes contain the needle."""
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes())


def vector_bytes(eng: MemoryEngine, memory_id: int) -> bytes:
    """A memory's vector as float32 bytes, the form SQLite, Chroma's log and its HNSW files keep it in."""
    return np.asarray(eng.ledger.embeddings([memory_id])[memory_id], dtype=np.float32).tobytes()[:64]


# --- Medium 3: a missing vector index is noticed after a clean shutdown ---------------------------

def test_a_vector_index_deleted_after_a_clean_shutdown_is_rebuilt_on_open(tmp_path, embedder):
    with MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder) as eng:
        eng.ingest("I live in Oslo.", user_id="ana")
        eng.ingest("My favourite colour is green.", user_id="ben")
    shutil.rmtree(tmp_path / "chroma")
    with MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder) as eng:
        report = eng.verify_index()
        assert report["ok"] and report["active"] == 2, report
        assert eng.last_repair["checked"], eng.last_repair
        assert [h.memory.value for h in eng.recall("Where do I live?", user_id="ana").hits][:1] == ["Oslo"]


def test_a_clean_reopen_does_not_recheck_the_index(tmp_path, embedder):
    with MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder) as eng:
        eng.ingest("I live in Oslo.", user_id="ana")
    with MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder) as eng:
        assert not eng.last_repair["checked"], eng.last_repair


# --- Medium 4: forgetting leaves no recoverable traces ---------------------------------------------

def test_forget_user_leaves_no_trace_in_any_file(tmp_path, embedder):
    marker = "Zqxmarkerville"
    with MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder) as eng:
        eng.ingest("I live in Oslo.", user_id="keep")
        result = eng.ingest(f"I live in {marker}.", user_id="gone")
        vector = vector_bytes(eng, result.memories[0].id)
        assert files_holding(tmp_path, marker.encode()) != []  # the test sees the text where it is
        eng.forget_user("gone")
        # While the store is still open (a server keeps running): the WAL held the text until checkpointed.
        assert files_holding(tmp_path, marker.encode()) == []
        assert files_holding(tmp_path, vector) == []
    assert files_holding(tmp_path, marker.encode()) == []
    assert files_holding(tmp_path, vector) == []
    with MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder) as eng:
        assert eng.verify_index()["ok"]
        assert eng.recall("Where do I live?", user_id="keep").hits


def test_secure_delete_is_on(engine):
    assert engine.ledger.query("PRAGMA secure_delete")[0][0] == 1


def test_erase_removes_one_memory_and_its_message_everywhere(tmp_path, embedder):
    marker = "Qwvmarkerton"
    with MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder) as eng:
        kept = eng.ingest("My favourite colour is green.", user_id="ana").memories[0]
        gone = eng.ingest(f"I live in {marker}.", user_id="ana").memories[0]
        vector = vector_bytes(eng, gone.id)
        report = eng.erase(gone.id, user_id="ana")
        assert report["memories"] == 1 and report["messages"] == 1, report
        with pytest.raises(NotFoundError):
            eng.get(gone.id)
        assert eng.get(kept.id).status == "active"
        assert eng.verify_index()["ok"]
        assert files_holding(tmp_path, marker.encode()) == []
    assert files_holding(tmp_path, marker.encode()) == []
    assert files_holding(tmp_path, vector) == []


def test_erase_of_a_replacement_leaves_a_consistent_chain(engine):
    old = engine.ingest("I live in Oslo.", user_id="ana").memories[0]
    new = engine.ingest("I moved to Paris.", user_id="ana").memories[0]
    assert engine.get(old.id).status == "superseded"
    engine.erase(new.id, user_id="ana")
    # The value it had replaced does not come back on its own: it is soft-deleted, so restore can.
    assert engine.get(old.id).status == "deleted" and engine.get(old.id).replaced_by is None
    assert engine.restore(old.id, user_id="ana").status == "active"
    assert engine.verify_index()["ok"]


def test_erase_message_removes_the_message_and_everything_derived_from_it(tmp_path, embedder):
    marker = "Plokmarkerburg"
    with MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder) as eng:
        eng.ingest("I live in Oslo.", user_id="ana")
        res = eng.ingest(f"I moved to {marker}. My favourite colour is {marker}blue.", user_id="ana")
        assert len(res.memories) == 2
        vectors = [vector_bytes(eng, m.id) for m in res.memories]
        later = eng.ingest("I moved to Rome.", user_id="ana").memories[0]  # replaces the marker city
        report = eng.erase_message(res.message_id, user_id="ana")
        assert report["memories"] == 2 and report["messages"] == 1, report
        assert eng.get(later.id).status == "active" and eng.get(later.id).supersedes is None
        assert eng.verify_index()["ok"]
        with pytest.raises(NotFoundError):
            eng.erase_message(res.message_id, user_id="ana")
        assert files_holding(tmp_path, marker.encode()) == []
    assert files_holding(tmp_path, marker.encode()) == []
    for vector in vectors:
        assert files_holding(tmp_path, vector) == []


def test_erase_is_scoped_to_the_user(engine):
    memory = engine.ingest("I live in Oslo.", user_id="ana").memories[0]
    with pytest.raises(NotFoundError):
        engine.erase(memory.id, user_id="ben")
    with pytest.raises(NotFoundError):
        engine.erase_message(memory.message_id, user_id="ben")
    assert engine.get(memory.id).status == "active"


# --- Issue 13: restore after a soft delete --------------------------------------------------------

def test_restore_brings_a_soft_deleted_memory_back_into_recall(engine):
    memory = engine.ingest("My favourite colour is green.", user_id="ana").memories[0]
    engine.delete(memory.id, user_id="ana")
    assert not engine.recall("What is my favourite colour?", user_id="ana").hits
    restored = engine.restore(memory.id, user_id="ana")
    assert restored.status == "active"
    assert [h.memory.id for h in engine.recall("What is my favourite colour?", user_id="ana").hits][:1] == [memory.id]
    assert engine.verify_index()["ok"]


def test_restore_refuses_when_a_newer_value_holds_the_slot(engine):
    old = engine.ingest("I live in Oslo.", user_id="ana").memories[0]
    engine.delete(old.id, user_id="ana")
    engine.ingest("I live in Paris.", user_id="ana")
    with pytest.raises(ValueError, match="slot"):
        engine.restore(old.id, user_id="ana")
    assert engine.get(old.id).status == "deleted"


def test_restore_refuses_a_memory_that_is_not_deleted(engine):
    memory = engine.ingest("I live in Oslo.", user_id="ana").memories[0]
    with pytest.raises(ValueError, match="not deleted"):
        engine.restore(memory.id, user_id="ana")
    with pytest.raises(NotFoundError):
        engine.restore(memory.id, user_id="ben")


# --- Medium 7: many speaker names ------------------------------------------------------------------

def test_the_name_index_looks_at_few_names_per_query():
    names = [f"Speaker{n:05d} Lastname{n}" for n in range(20_000)] + ["Marta", "Kenji Sato", "Jean-Luc"]
    index = NameIndex(names)
    query = "What did kenji sato and Marta say to jean-luc about Speaker00042 Lastname42?"
    assert index.find(query) == {"Kenji Sato", "Marta", "Jean-Luc", "Speaker00042 Lastname42"}
    # Bounded work: only the names whose first word is a word of the query are compared.
    assert len(index.candidates(query)) <= 5
    assert index.find("Martabella and Kenji") == set()  # whole names only
    assert index.find("What about Speaker00042?") == set()


def test_imported_speakers_reach_the_speaker_filter(engine):
    engine.ingest("My sister lives in Lima.", user_id="grp", speaker="Marta")
    engine.ingest("My sister lives in Kyiv.", user_id="grp", speaker="Kenji")
    assert engine._speakers.get("grp") == {"Marta", "Kenji"}
    header = next(iter(engine.export_records("grp")))
    engine.import_records([header, {"kind": "message", "id": 900, "user_id": "grp", "text": "My sister lives in Pune.",
                                    "speaker": "Ola", "created_at": "2024-01-01T00:00:00+00:00"}])
    assert "Ola" in engine._speakers.get("grp")


# --- Medium 8: file permissions ---------------------------------------------------------------------

def test_the_store_is_private_to_its_owner(tmp_path, embedder):
    data = tmp_path / "store"
    with MemoryEngine(Settings(data_dir=data), embedder=embedder) as eng:
        eng.ingest("I live in Oslo.", user_id="ana")
        for name in ("memengine.db", "memengine.db-wal", "memengine.db-shm", "engine.lock"):
            assert stat.S_IMODE((data / name).stat().st_mode) == 0o600, name
        assert stat.S_IMODE(data.stat().st_mode) == 0o700
        assert stat.S_IMODE((data / "chroma").stat().st_mode) == 0o700
        out = tmp_path / "export.jsonl"
        eng.export_jsonl(out)
        assert stat.S_IMODE(out.stat().st_mode) == 0o600


# --- Low: a failed COMMIT ---------------------------------------------------------------------------

def test_a_failed_commit_does_not_skip_the_next_change(engine):
    first = engine.ingest("I live in Oslo.", user_id="ana").memories[0]

    def failing(conn):
        # A foreign key is checked at COMMIT when deferred: the COMMIT itself fails, as on a full disk.
        engine.ledger.defer_foreign_keys(conn)
        engine.ledger.outbox(conn, "remove", "ana", first.id)
        conn.execute("UPDATE memories SET message_id = 987654 WHERE id = ?", (first.id,))

    with pytest.raises(sqlite3.IntegrityError):
        engine.sync.write(failing)
    second = engine.ingest("My favourite colour is green.", user_id="ana").memories[0]
    assert second.id in engine.sync.lexical.doc_ids("ana")
    assert engine.verify_index()["ok"]


def test_close_releases_the_store_even_when_the_last_write_fails(tmp_path, embedder):
    eng = MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder)
    eng.ingest("I live in Oslo.", user_id="ana")
    eng.ledger.query("PRAGMA query_only = ON")  # every write now fails, as on a full or read-only disk
    with pytest.raises(sqlite3.Error):
        eng.close()
    with MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder) as again:
        assert again.count_memories("ana") == 1


# --- The routes: REST, CLI, MCP --------------------------------------------------------------------

def test_rest_restore_erase_and_rebuild(engine, tmp_path):
    from fastapi.testclient import TestClient

    from adapters.rest import create_app

    app = create_app(Settings(data_dir=tmp_path, api_key="k3y-for-safety"), engine=engine)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        # Every POST carries a JSON Content-Type, also without a body: a browser cannot send that without
        # a CORS preflight (see BrowserGuard).
        key = {"X-API-Key": "k3y-for-safety", "Content-Type": "application/json"}
        first = engine.ingest("My favourite colour is green.", user_id="ana").memories[0]
        second = engine.ingest("I live in Oslo.", user_id="ana").memories[0]
        assert client.post("/admin/rebuild", headers={"Content-Type": "application/json"}).status_code == 401
        assert client.post("/admin/rebuild", headers={"X-API-Key": "k3y-for-safety"}).status_code == 415
        r = client.post("/admin/rebuild", headers=key)
        assert r.status_code == 200 and r.json()["rebuilt_memories"] == 2, r.text
        client.delete(f"/memory/{first.id}", params={"user_id": "ana"}, headers=key)
        r = client.post(f"/memory/{first.id}/restore", params={"user_id": "ana"}, headers=key)
        assert r.status_code == 200 and r.json()["status"] == "active", r.text
        r = client.post(f"/memory/{first.id}/restore", params={"user_id": "ana"}, headers=key)
        assert r.status_code == 422 and "not deleted" in r.json()["detail"]
        assert client.post(f"/memory/{first.id}/erase", params={"user_id": "ben"}, headers=key).status_code == 404
        r = client.post(f"/memory/{first.id}/erase", params={"user_id": "ana"}, headers=key)
        assert r.status_code == 200 and r.json()["erased"] == {"memories": 1, "messages": 1}, r.text
        r = client.post(f"/messages/{second.message_id}/erase", params={"user_id": "ana"}, headers=key)
        assert r.status_code == 200 and r.json()["erased"] == {"memories": 1, "messages": 1}, r.text
        assert client.post(f"/messages/{second.message_id}/erase", params={"user_id": "ana"},
                           headers=key).status_code == 404
    assert engine.count_memories("ana", status="all") == 0


def test_cli_rebuild_restore_and_erase(tmp_path, embedder, monkeypatch, capsys):
    from adapters import cli

    monkeypatch.setattr(cli, "MemoryEngine", lambda settings, **kw: MemoryEngine(settings, embedder=embedder, **kw))
    with MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder) as eng:
        first = eng.ingest("My favourite colour is green.", user_id="ana").memories[0]
        second = eng.ingest("I live in Oslo.", user_id="ana").memories[0]
        eng.delete(first.id, user_id="ana")
    shutil.rmtree(tmp_path / "chroma")
    base = ["--data-dir", str(tmp_path), "--user", "ana"]
    assert cli.main([*base, "rebuild"]) == 0
    assert "1 memories" in capsys.readouterr().out
    assert cli.main([*base, "restore", str(first.id)]) == 0
    assert cli.main([*base, "restore", str(first.id)]) == 2  # not deleted: bad input
    assert cli.main([*base, "erase", str(first.id)]) == 0
    assert cli.main([*base, "erase", str(first.id)]) == 1  # not found
    assert cli.main([*base, "erase-message", str(second.message_id)]) == 0
    with MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder) as eng:
        assert eng.count_memories("ana", status="all") == 0 and eng.messages("ana") == []


def test_mcp_forget_says_soft_and_erase_really_forgets(engine):
    import asyncio

    from adapters.mcp_server import build_server

    server = build_server(engine)
    tools = {t.name: t for t in asyncio.run(server.list_tools())}
    assert "soft delete" in tools["forget"].description.lower()
    memory = engine.ingest("I live in Oslo.", user_id="ana").memories[0]
    asyncio.run(server.call_tool("forget", {"memory_id": memory.id, "user_id": "ana"}))
    assert engine.get(memory.id).status == "deleted"
    asyncio.run(server.call_tool("restore", {"memory_id": memory.id, "user_id": "ana"}))
    assert engine.get(memory.id).status == "active"
    asyncio.run(server.call_tool("erase", {"memory_id": memory.id, "user_id": "ana"}))
    with pytest.raises(NotFoundError):
        engine.get(memory.id)
