"""REST adapter: every route, its error paths, user scoping, the API key, and one real uvicorn run."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from fastapi.testclient import TestClient

from adapters.rest import create_app
from engine import MemoryEngine, Settings

pytestmark = pytest.mark.integration

KEY = "s3cret-key-0123"
BASE = "http://127.0.0.1"
NDJSON = {"Content-Type": "application/x-ndjson"}


def make_client(engine, tmp_path, **settings_kw) -> TestClient:
    app = create_app(Settings(data_dir=tmp_path, **settings_kw), engine=engine)
    return TestClient(app, base_url=BASE)  # the API accepts loopback Host names only


@pytest.fixture
def client(engine, tmp_path):
    with make_client(engine, tmp_path) as c:
        yield c


def ingest(client, message, user_id="alice", **kw):
    r = client.post("/memory", json={"message": message, "user_id": user_id, **kw})
    assert r.status_code in (200, 201), r.text
    return r.json()


def first_memory_id(result) -> int:
    assert result["memories"], result
    return result["memories"][0]["id"]


# ------------------------------------------------------------------------------------------
# health, docs
# ------------------------------------------------------------------------------------------

def test_health(client):
    ingest(client, "I use Arch Linux.")
    r = client.get("/health")
    assert r.status_code == 200
    body = r.json()
    assert body["status"] == "ok"
    assert body["version"]
    assert body["model"]
    assert body["counts"]["active"] >= 1
    assert body["counts"]["users"] == 1


def test_openapi_docs_have_examples(client):
    assert client.get("/docs").status_code == 200
    spec = client.get("/openapi.json").json()
    for path in ("/memory", "/recall", "/memories", "/memory/{memory_id}", "/memory/{memory_id}/history",
                 "/users/{user_id}", "/health", "/export", "/import", "/context", "/profile", "/session/summary"):
        assert path in spec["paths"], path
    schemas = spec["components"]["schemas"]
    assert schemas["MemoryIn"].get("examples"), "request examples missing"
    assert schemas["RecallIn"].get("examples")


# ------------------------------------------------------------------------------------------
# POST /memory
# ------------------------------------------------------------------------------------------

def test_ingest_in_reply_to_the_bots_question(client):
    r = client.post("/memory", json={"message": "Berlin, since last spring.", "user_id": "ana",
                                     "in_reply_to": "Where are you based these days?"})
    assert r.status_code == 201, r.text
    assert r.json()["memories"][0]["text"] == "Berlin, since last spring. (asked: Where are User based these days?)"
    hits = client.post("/recall", json={"query": "which city do I live in?", "user_id": "ana"}).json()["hits"]
    assert hits and "Berlin" in hits[0]["memory"]["text"]


def test_ingest_created_confirmed_ignored_superseded(client):
    r = client.post("/memory", json={"message": "My project deadline is October 15.", "user_id": "alice",
                                     "source_id": "chat-1/turn-3", "timestamp": "2026-10-01T09:00:00Z",
                                     "speaker": "user"})
    assert r.status_code == 201, r.text
    created = r.json()
    assert created["status"] == "created"
    mem = created["memories"][0]
    assert mem["user_id"] == "alice"
    assert mem["status"] == "active"
    assert mem["source_id"] == "chat-1/turn-3"
    assert mem["source_message"] == "My project deadline is October 15."

    again = client.post("/memory", json={"message": "My project deadline is October 15.", "user_id": "alice"})
    assert again.status_code == 200, again.text
    assert again.json()["status"] == "confirmed"

    small = client.post("/memory", json={"message": "ok thanks", "user_id": "alice"})
    assert small.status_code == 200
    assert small.json()["status"] == "ignored"
    assert small.json()["memories"] == []

    upd = client.post("/memory", json={"message": "Actually, the deadline moved to November 2.", "user_id": "alice"})
    assert upd.status_code == 201, upd.text
    assert upd.json()["status"] == "superseded"
    assert mem["id"] in upd.json()["superseded_ids"]
    old = client.get(f"/memory/{mem['id']}", params={"user_id": "alice"}).json()
    assert old["status"] == "superseded"
    assert old["replaced_by"] == first_memory_id(upd.json())


def test_structured_memory(client):
    r = client.post("/memory", json={"subject": "user", "attribute": "editor", "value": "Neovim",
                                     "type": "preference", "user_id": "alice", "importance": 0.7})
    assert r.status_code == 201, r.text
    m = r.json()["memories"][0]
    assert (m["subject"], m["attribute"], m["value"], m["type"]) == ("user", "editor", "Neovim", "preference")
    rec = client.post("/recall", json={"query": "Which editor does the user use?", "user_id": "alice"}).json()
    assert rec["hits"] and rec["hits"][0]["memory"]["id"] == m["id"]


@pytest.mark.parametrize(
    "body, fragment",
    [
        ({}, "send 'message'"),
        ({"user_id": "alice"}, "send 'message'"),
        ({"message": "I use Arch.", "subject": "user"}, "not both"),
        ({"subject": "user", "attribute": "os"}, "missing 'value'"),
        ({"subject": "u", "attribute": "a", "value": "v", "speaker": "x"}, "only apply to a 'message'"),
        ({"subject": "u", "attribute": "a", "value": "v", "in_reply_to": "Why?"}, "only apply to a 'message'"),
        ({"message": "Berlin.", "in_reply_to": ""}, "at least 1 character"),
        ({"message": ""}, "at least 1 character"),
        ({"message": "hi", "colour": "red"}, "Extra inputs"),
        ({"message": "hi", "timestamp": "yesterday"}, "ISO 8601"),
        ({"subject": "u", "attribute": "a", "value": "v", "type": "opinion"}, "type"),
        ({"message": "hi", "user_id": ""}, "user_id"),
        ({"message": 42}, "valid string"),
    ],
)
def test_ingest_bad_input_422(client, body, fragment):
    r = client.post("/memory", json=body)
    assert r.status_code == 422, r.text
    assert fragment in r.text


def test_ingest_engine_value_error_is_422_with_its_message(client, engine):
    r = client.post("/memory", json={"message": "bad \x00 byte", "user_id": "alice"})
    assert r.status_code == 422
    assert isinstance(r.json()["detail"], str) and r.json()["detail"]
    too_long = "x" * (engine.settings.max_text_chars + 1) if hasattr(engine, "settings") else "x" * 20_001
    r = client.post("/memory", json={"message": too_long, "user_id": "alice"})
    assert r.status_code == 422
    assert isinstance(r.json()["detail"], str)
    assert client.get("/memories", params={"user_id": "alice"}).json()["total"] == 0


def test_body_too_large_413(client):
    r = client.post("/memory", content=b'{"message": "' + b"a" * (1024 * 1024 + 10) + b'"}',
                    headers={"content-type": "application/json"})
    assert r.status_code == 413


def test_malformed_json_422(client):
    r = client.post("/memory", content=b'{"message": ', headers={"content-type": "application/json"})
    assert r.status_code == 422


# ------------------------------------------------------------------------------------------
# POST /recall
# ------------------------------------------------------------------------------------------

def test_recall_hits_score_parts_and_citation(client):
    ingest(client, "I use Arch Linux.", source_id="chat-9", timestamp="2026-10-01T09:00:00Z", speaker="user")
    ingest(client, "I'm building a Next.js app.")
    r = client.post("/recall", json={"query": "What OS does the user use?", "user_id": "alice", "top_k": 3})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["confidence"] in ("certain", "vague")
    top = body["hits"][0]
    assert "Arch" in top["memory"]["text"]
    for part in ("score", "semantic", "lexical", "importance"):
        assert isinstance(top[part], float)
    assert top["citation"]["source_message"] == "I use Arch Linux."
    assert top["citation"]["source_id"] == "chat-9"
    assert top["citation"]["timestamp"]
    assert top["citation"]["speaker"] == "user"
    assert body["memories"][0]["id"] == top["memory"]["id"]
    assert body["memories"][0]["score"] == top["score"]
    assert len(body["hits"]) <= 3


def test_recall_unknown_is_empty(client):
    ingest(client, "I use Arch Linux.")
    body = client.post("/recall", json={"query": "What is the user's favourite food?", "user_id": "alice"}).json()
    assert body["hits"] == []
    assert body["memories"] == []
    assert body["confidence"] == "unknown"


def test_recall_knobs_and_history(client):
    ingest(client, "My project deadline is October 15.")
    ingest(client, "Actually, the deadline moved to November 2.")
    q = {"query": "When is the project deadline?", "user_id": "alice"}
    now = client.post("/recall", json=q).json()
    texts = [h["memory"]["text"] for h in now["hits"]]
    assert any("November 2" in t for t in texts)
    assert not any("October 15" in t for t in texts)
    hist = client.post("/recall", json={**q, "include_history": True, "threshold": 0.0, "top_k": 10}).json()
    old = [h for h in hist["hits"] if "October 15" in h["memory"]["text"]]
    assert old and old[0]["historical"] is True
    strict = client.post("/recall", json={**q, "threshold": 1.5}).json()
    assert strict["hits"] == [] and strict["confidence"] == "unknown"
    assert strict["threshold"] == 1.5


@pytest.mark.parametrize(
    "body",
    [
        {"user_id": "alice"},
        {"query": "", "user_id": "alice"},
        {"query": "x", "top_k": 0},
        {"query": "x", "top_k": 101},
        {"query": "x", "threshold": 2.5},
        {"query": "x", "alpha": -0.1},
        {"query": "x", "include_history": "maybe"},
        {"query": "x", "extra": 1},
    ],
)
def test_recall_bad_input_422(client, body):
    assert client.post("/recall", json=body).status_code == 422


# ------------------------------------------------------------------------------------------
# GET /memories, GET /memory/{id}, history, DELETE
# ------------------------------------------------------------------------------------------

def test_list_memories_status_and_paging(client):
    ingest(client, "My project deadline is October 15.")
    ingest(client, "Actually, the deadline moved to November 2.")
    ingest(client, "I use Arch Linux.")
    act = client.get("/memories", params={"user_id": "alice"}).json()
    assert act["total"] == 2 and len(act["memories"]) == 2
    assert all(m["status"] == "active" for m in act["memories"])
    sup = client.get("/memories", params={"user_id": "alice", "status": "superseded"}).json()
    assert sup["total"] == 1 and "October 15" in sup["memories"][0]["text"]
    assert sup["memories"][0]["replaced_by"] is not None
    every = client.get("/memories", params={"user_id": "alice", "status": "all"}).json()
    assert every["total"] == 3
    page = client.get("/memories", params={"user_id": "alice", "status": "all", "limit": 2, "offset": 2}).json()
    assert page["total"] == 3 and len(page["memories"]) == 1
    ids = {m["id"] for m in every["memories"]}
    assert page["memories"][0]["id"] in ids


@pytest.mark.parametrize(
    "params",
    [{}, {"user_id": ""}, {"user_id": "alice", "status": "gone"}, {"user_id": "alice", "limit": 0},
     {"user_id": "alice", "limit": 100_001}, {"user_id": "alice", "offset": -1}],
)
def test_list_memories_bad_input_422(client, params):
    assert client.get("/memories", params=params).status_code == 422


def test_get_history_delete(client):
    first = first_memory_id(ingest(client, "My project deadline is October 15."))
    second = first_memory_id(ingest(client, "Actually, the deadline moved to November 2."))

    r = client.get(f"/memory/{second}", params={"user_id": "alice"})
    assert r.status_code == 200 and r.json()["id"] == second

    chain = client.get(f"/memory/{second}/history", params={"user_id": "alice"})
    assert chain.status_code == 200
    assert [m["id"] for m in chain.json()["history"]] == [first, second]
    assert client.get(f"/memory/{first}/history", params={"user_id": "alice"}).json()["history"][0]["id"] == first

    d = client.delete(f"/memory/{second}", params={"user_id": "alice"})
    assert d.status_code == 200, d.text
    assert d.json()["status"] == "deleted" and d.json()["memory"]["status"] == "deleted"
    assert client.get(f"/memory/{second}", params={"user_id": "alice"}).json()["status"] == "deleted"
    rec = client.post("/recall", json={"query": "When is the project deadline?", "user_id": "alice"}).json()
    assert second not in [h["memory"]["id"] for h in rec["hits"]]


@pytest.mark.parametrize("method, suffix", [("GET", ""), ("GET", "/history"), ("DELETE", "")])
def test_unknown_id_404(client, method, suffix):
    r = client.request(method, f"/memory/999999{suffix}", params={"user_id": "alice"})
    assert r.status_code == 404
    assert r.json()["detail"] == "Memory 999999 not found."


@pytest.mark.parametrize("path", ["/memory/0", "/memory/abc", "/memory/99999999999999999999999"])
def test_bad_id_422(client, path):
    assert client.get(path, params={"user_id": "alice"}).status_code == 422


def test_user_id_required_on_scoped_routes(client):
    mid = first_memory_id(ingest(client, "I use Arch Linux."))
    assert client.get(f"/memory/{mid}").status_code == 422
    assert client.get(f"/memory/{mid}/history").status_code == 422
    assert client.delete(f"/memory/{mid}").status_code == 422
    assert client.get("/export").status_code == 422
    assert client.get(f"/memory/{mid}", params={"user_id": "alice"}).json()["status"] == "active"


# ------------------------------------------------------------------------------------------
# Cross-user isolation
# ------------------------------------------------------------------------------------------

def test_cross_user_access_is_404_and_changes_nothing(client):
    mid = first_memory_id(ingest(client, "I use Arch Linux.", user_id="alice"))
    ingest(client, "I use Windows 11.", user_id="bob")
    missing = client.get("/memory/999999", params={"user_id": "bob"})

    for method, suffix in (("GET", ""), ("GET", "/history"), ("DELETE", "")):
        r = client.request(method, f"/memory/{mid}{suffix}", params={"user_id": "bob"})
        assert r.status_code == 404, (method, suffix, r.text)
        # Same answer as for an id that does not exist: nothing reveals that alice owns it.
        assert r.json()["detail"].replace(str(mid), "N") == missing.json()["detail"].replace("999999", "N")

    assert client.get(f"/memory/{mid}", params={"user_id": "alice"}).json()["status"] == "active"
    bob_list = client.get("/memories", params={"user_id": "bob", "status": "all"}).json()
    assert mid not in [m["id"] for m in bob_list["memories"]]
    rec = client.post("/recall", json={"query": "Does the user use Arch Linux?", "user_id": "bob",
                                       "threshold": 0.0, "top_k": 50, "include_history": True}).json()
    assert all(h["memory"]["user_id"] == "bob" for h in rec["hits"] + rec["below_threshold"])
    assert mid not in [h["memory"]["id"] for h in rec["hits"] + rec["below_threshold"]]
    export = client.get("/export", params={"user_id": "bob"}).text
    assert "Arch" not in export


def test_forget_user(client):
    a = first_memory_id(ingest(client, "I use Arch Linux.", user_id="alice"))
    b = first_memory_id(ingest(client, "I use Windows 11.", user_id="bob"))
    r = client.delete("/users/alice")
    assert r.status_code == 200, r.text
    assert r.json()["user_id"] == "alice"
    assert r.json()["deleted"]["memories"] == 1
    assert client.get(f"/memory/{a}", params={"user_id": "alice"}).status_code == 404
    assert client.get(f"/memory/{b}", params={"user_id": "bob"}).status_code == 200
    assert client.get("/memories", params={"user_id": "alice", "status": "all"}).json()["total"] == 0


# ------------------------------------------------------------------------------------------
# Export / import
# ------------------------------------------------------------------------------------------

def test_export_import_round_trip(client, embedder, tmp_path):
    ingest(client, "My project deadline is October 15.")
    ingest(client, "Actually, the deadline moved to November 2.")
    ingest(client, "I use Arch Linux.")
    ingest(client, "I use Windows 11.", user_id="bob")
    r = client.get("/export", params={"user_id": "alice"})
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in r.text.splitlines() if line.strip()]
    assert lines[0]["kind"] == "header"
    assert len(lines) > 1 and all(rec["user_id"] == "alice" for rec in lines[1:])

    other_dir = tmp_path / "second"
    with MemoryEngine(Settings(data_dir=other_dir), embedder=embedder) as eng2:
        with make_client(eng2, other_dir) as c2:
            imp = c2.post("/import", params={"user_id": "alice"}, content=r.content,
                          headers={"content-type": "application/x-ndjson"})
            assert imp.status_code == 200, imp.text
            assert imp.json()["imported"] >= 3
            act = c2.get("/memories", params={"user_id": "alice"}).json()
            assert sorted(m["text"] for m in act["memories"]) == sorted(
                m["text"] for m in client.get("/memories", params={"user_id": "alice"}).json()["memories"])
            rec = c2.post("/recall", json={"query": "When is the project deadline?", "user_id": "alice"}).json()
            assert "November 2" in rec["hits"][0]["memory"]["text"]
            # bob was not exported, so bob has nothing there
            assert c2.get("/memories", params={"user_id": "bob", "status": "all"}).json()["total"] == 0


def test_import_rejects_other_users_lines(client):
    ingest(client, "I use Arch Linux.", user_id="alice")
    alice = client.get("/export", params={"user_id": "alice"}).content
    r = client.post("/import", params={"user_id": "mallory"}, content=alice, headers=NDJSON)
    assert r.status_code == 422
    assert "belongs to user_id 'alice'" in r.json()["detail"]
    assert client.get("/memories", params={"user_id": "mallory", "status": "all"}).json()["total"] == 0


@pytest.mark.parametrize(
    "content, fragment",
    [
        (b"", "no JSONL records"),
        (b"\n\n", "no JSONL records"),
        (b"not json\n", "line 1: not valid JSON"),
        (b"[1, 2]\n", "line 1: expected a JSON object"),
        (b'{"text": "x"}\n', "has no user_id"),
        (b"\xff\xfe\n", "not UTF-8"),
    ],
)
def test_import_bad_body_422(client, content, fragment):
    r = client.post("/import", params={"user_id": "alice"}, content=content, headers=NDJSON)
    assert r.status_code == 422
    assert fragment in r.json()["detail"]


def test_import_malformed_record_is_422_from_engine(client):
    r = client.post("/import", params={"user_id": "alice"}, content=b'{"user_id": "alice", "nonsense": true}\n', headers=NDJSON)
    assert r.status_code == 422, r.text
    assert isinstance(r.json()["detail"], str)


def test_import_has_a_larger_body_limit(client):
    # 1.5 MiB: over the 1 MiB limit of the JSON routes, within the import limit. The lines belong to
    # another user, so the import is refused with 422 (proving the body was read), not 413.
    line = json.dumps({"user_id": "someone-else", "text": "x" * 1000}).encode() + b"\n"
    body = line * (1536 * 1024 // len(line))
    assert len(body) > 1024 * 1024
    r = client.post("/import", params={"user_id": "alice"}, content=body, headers=NDJSON)
    assert r.status_code == 422
    r = client.post("/memory", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 413


# ------------------------------------------------------------------------------------------
# API key
# ------------------------------------------------------------------------------------------

@pytest.fixture
def keyed(engine, tmp_path):
    with make_client(engine, tmp_path, api_key=KEY) as c:
        yield c


def test_api_key_required_everywhere_but_health(keyed):
    assert keyed.get("/health").status_code == 200
    calls = [
        ("POST", "/memory", {"json": {"message": "I use Arch Linux.", "user_id": "alice"}}),
        ("POST", "/recall", {"json": {"query": "os?", "user_id": "alice"}}),
        ("GET", "/memories", {"params": {"user_id": "alice"}}),
        ("GET", "/memory/1", {"params": {"user_id": "alice"}}),
        ("GET", "/memory/1/history", {"params": {"user_id": "alice"}}),
        ("DELETE", "/memory/1", {"params": {"user_id": "alice"}}),
        ("DELETE", "/users/alice", {}),
        ("GET", "/export", {"params": {"user_id": "alice"}}),
        ("POST", "/import", {"params": {"user_id": "alice"}, "content": b'{"user_id": "alice"}\n',
                             "headers": NDJSON}),
    ]
    for method, path, kw in calls:
        for headers in ({}, {"X-API-Key": "wrong"}, {"Authorization": "Bearer wrong"},
                        {"Authorization": f"Basic {KEY}"}, {"X-API-Key": ""}):
            r = keyed.request(method, path, **{**kw, "headers": {**kw.get("headers", {}), **headers}})
            assert r.status_code == 401, (method, path, headers, r.status_code)
            assert "API key" in r.json()["detail"]
    # the refused POSTs stored nothing
    assert keyed.get("/health", headers={"X-API-Key": KEY}).json()["counts"]["total"] == 0


def test_non_ascii_key_is_401_not_500(keyed):
    r = keyed.get("/memories", params={"user_id": "alice"}, headers={"X-API-Key": "s3cret-\u00e9".encode()})
    assert r.status_code == 401


def test_api_key_accepted_in_header_or_bearer(keyed):
    r = keyed.post("/memory", json={"message": "I use Arch Linux.", "user_id": "alice"}, headers={"X-API-Key": KEY})
    assert r.status_code == 201, r.text
    r = keyed.get("/memories", params={"user_id": "alice"}, headers={"Authorization": f"Bearer {KEY}"})
    assert r.status_code == 200 and r.json()["total"] == 1


def test_no_key_configured_means_open(client):
    assert client.get("/memories", params={"user_id": "alice"}).status_code == 200


# ------------------------------------------------------------------------------------------
# Lifespan and a real server
# ------------------------------------------------------------------------------------------

def test_lifespan_opens_and_closes_its_own_engine(tmp_path):
    settings = Settings(data_dir=tmp_path / "own")
    app = create_app(settings)
    with TestClient(app, base_url=BASE) as c:
        assert c.get("/health").status_code == 200
        assert c.post("/memory", json={"message": "I use Arch Linux."}).status_code == 201
    assert app.state.engine is None
    with MemoryEngine(settings) as again:  # the lock was released on shutdown
        assert again.count_memories(user_id="default") == 1


def test_real_uvicorn_server(engine, tmp_path, free_port):
    import uvicorn

    port = free_port()
    app = create_app(Settings(data_dir=tmp_path, api_key=KEY), engine=engine)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            assert thread.is_alive(), "uvicorn exited"
            time.sleep(0.05)
        base = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=base, headers={"X-API-Key": KEY}, timeout=30) as h:
            assert h.get("/health").json()["status"] == "ok"
            r = h.post("/memory", json={"message": "I use Arch Linux.", "user_id": "alice"})
            assert r.status_code == 201
            rec = h.post("/recall", json={"query": "What OS does the user use?", "user_id": "alice"}).json()
            assert "Arch" in rec["hits"][0]["memory"]["text"]
            assert httpx.get(f"{base}/memories", params={"user_id": "alice"}).status_code == 401
            exp = h.get("/export", params={"user_id": "alice"})
            assert exp.headers["content-type"].startswith("application/x-ndjson")
            assert "Arch" in exp.text
    finally:
        server.should_exit = True
        thread.join(timeout=20)
    assert not thread.is_alive(), "uvicorn did not stop"


# ------------------------------------------------------------------------------------------
# Browser safety: content types, Origin, Host
# ------------------------------------------------------------------------------------------

def test_a_body_needs_a_json_content_type_415(client):
    body = json.dumps({"message": "I use Arch Linux.", "user_id": "alice"}).encode()
    for ctype in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None):
        headers = {"Content-Type": ctype} if ctype else {}
        r = client.post("/memory", content=body, headers=headers)
        assert r.status_code == 415, (ctype, r.text)
        assert "application/json" in r.json()["detail"]
    assert client.post("/memory", content=body,
                       headers={"Content-Type": "application/json; charset=utf-8"}).status_code == 201
    line = json.dumps({"kind": "header", "format": "memengine-export"}).encode()
    assert client.post("/import", params={"user_id": "alice"}, content=line,
                       headers={"Content-Type": "text/plain"}).status_code == 415
    for ctype in ("application/x-ndjson", "application/jsonl", "application/json"):
        r = client.post("/import", params={"user_id": "alice"}, content=line, headers={"Content-Type": ctype})
        assert r.status_code == 422, (ctype, r.text)  # past the content-type check: the body holds no records
    assert client.get("/memories", params={"user_id": "alice"}).json()["total"] == 1


def test_foreign_origin_403_same_origin_and_configured_ones_pass(engine, tmp_path, monkeypatch):
    body = {"message": "I use Arch Linux.", "user_id": "alice"}
    with make_client(engine, tmp_path) as c:
        for origin in ("http://evil.example", "null", "http://127.0.0.1.evil.example", "http://localhost:3000"):
            r = c.post("/memory", json=body, headers={"Origin": origin})
            assert r.status_code == 403, (origin, r.text)
            assert c.get("/memories", params={"user_id": "alice"}, headers={"Origin": origin}).status_code == 403
        assert engine.count_memories(user_id="alice", status="all") == 0
        # The server's own pages (/docs) are same-origin.
        assert c.post("/memory", json=body, headers={"Origin": "http://127.0.0.1"}).status_code == 201
    monkeypatch.setenv("MEMENGINE_ALLOWED_ORIGINS", "http://localhost:3000, https://app.example")
    with make_client(engine, tmp_path) as c:
        assert c.get("/memories", params={"user_id": "alice"},
                     headers={"Origin": "http://localhost:3000"}).status_code == 200
        assert c.get("/memories", params={"user_id": "alice"},
                     headers={"Origin": "http://evil.example"}).status_code == 403


def test_only_loopback_host_names_unless_configured(engine, tmp_path, monkeypatch):
    with make_client(engine, tmp_path) as c:
        for host in ("127.0.0.1", "127.0.0.1:8000", "localhost", "localhost:1", "[::1]", "[::1]:8000", "LOCALHOST"):
            assert c.get("/health", headers={"Host": host}).status_code == 200, host
        for host in ("evil.example", "evil.example:8000", "127.0.0.1.nip.io", "10.0.0.5", "", "localhost.evil"):
            r = c.get("/memories", params={"user_id": "a"}, headers={"Host": host})
            assert r.status_code in (400, 421), (host, r.text)
    monkeypatch.setenv("MEMENGINE_ALLOWED_HOSTS", "memory.lan")
    with make_client(engine, tmp_path) as c:
        assert c.get("/health", headers={"Host": "memory.lan:8000"}).status_code == 200
        assert c.get("/health", headers={"Host": "127.0.0.1"}).status_code == 200
        assert c.get("/health", headers={"Host": "evil.example"}).status_code == 421


def test_an_empty_api_key_is_an_error_not_auth_off(engine, tmp_path):
    with pytest.raises(ValueError, match="empty"):
        create_app(Settings(data_dir=tmp_path, api_key=""), engine=engine)
    with pytest.raises(ValueError, match="empty"):
        create_app(Settings(data_dir=tmp_path, api_key="   "), engine=engine)


# ------------------------------------------------------------------------------------------
# Odd input: never 500
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("raw", [
    b'{"query": "x", "user_id": "a", "threshold": NaN}',
    b'{"query": "x", "user_id": "a", "threshold": Infinity}',
    b'{"query": "x", "user_id": "a", "threshold": -Infinity}',
    b'{"query": "x", "user_id": "a", "threshold": 1e400}',
    b'{"query": "x", "user_id": "a", "alpha": NaN}',
    b'{"query": "\\ud800", "user_id": "a"}',
    b'{"query": "x", "user_id": "\\udfff"}',
    b'{"message": "I live in \\ud83d Oslo", "user_id": "a"}',
    b'{"subject": "u", "attribute": "a", "value": "v", "importance": NaN}',
])
def test_non_finite_numbers_and_lone_surrogates_are_422(client, raw):
    route = "/recall" if b"query" in raw else "/memory"
    r = client.post(route, content=raw, headers={"Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    detail = json.dumps(r.json()["detail"])
    assert any(word in detail for word in ("finite", "surrogate", "NaN", "number")), detail


@pytest.mark.parametrize("field, value", [
    ("source_id", {"a": 1}), ("created_at", ["2026"]), ("text", {"x": 1}), ("speaker", [1]), ("timestamp", {}),
])
def test_import_record_with_a_structure_in_a_text_field_is_422(client, field, value):
    message = {"kind": "message", "id": 1, "user_id": "alice", "text": "I use Arch.", "source_id": None,
               "timestamp": None, "speaker": None, "outcome": None, "created_at": "2026-01-01T00:00:00Z"}
    message[field] = value
    r = client.post("/import", params={"user_id": "alice"}, content=json.dumps(message).encode(),
                    headers={"Content-Type": "application/x-ndjson"})
    assert r.status_code == 422, r.text
    assert field in r.json()["detail"]
    assert client.get("/memories", params={"user_id": "alice", "status": "all"}).json()["total"] == 0


# ------------------------------------------------------------------------------------------
# Forget ids with "/", docs without network, health behind the key
# ------------------------------------------------------------------------------------------

def test_forget_a_user_id_with_a_slash(client, engine):
    ingest(client, "I use Arch Linux.", user_id="team/alice")
    ingest(client, "I use Debian.", user_id="bob")
    r = client.delete("/users", params={"user_id": "team/alice"})
    assert r.status_code == 200, r.text
    assert r.json()["user_id"] == "team/alice" and r.json()["deleted"]["memories"] >= 1
    assert engine.count_memories(user_id="team/alice", status="all") == 0
    assert engine.count_memories(user_id="bob", status="all") == 1
    assert client.delete("/users").status_code == 422  # no user id: refused, nobody forgotten
    assert engine.count_memories(user_id="bob", status="all") == 1


def test_docs_pages_load_nothing_from_the_network(client):
    r = client.get("/docs")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "/recall" in r.text and "/openapi.json" in r.text
    for path in ("/docs", "/redoc", "/docs/oauth2-redirect"):
        page = client.get(path)
        assert "https://" not in page.text and "http://" not in page.text, path


def test_health_shows_counts_only_with_the_key(keyed):
    bare = keyed.get("/health")
    assert bare.status_code == 200
    assert bare.json()["status"] == "ok" and bare.json()["version"]
    assert "counts" not in bare.json()
    full = keyed.get("/health", headers={"X-API-Key": KEY}).json()
    assert full["counts"]["users"] == 0
    assert "counts" not in keyed.get("/health", headers={"X-API-Key": "wrong"}).json()



# ------------------------------------------------------------------------------------------
# Lists are newest first; the limits are the engine's
# ------------------------------------------------------------------------------------------

def test_lists_are_newest_first(client):
    ids = [first_memory_id(ingest(client, text)) for text in
           ("I use Arch Linux.", "My project deadline is October 15.", "I have a dog named Rex.")]
    listed = [m["id"] for m in client.get("/memories", params={"user_id": "alice"}).json()["memories"]]
    assert listed == sorted(ids, reverse=True)
    page = client.get("/memories", params={"user_id": "alice", "limit": 1, "offset": 1}).json()["memories"]
    assert [m["id"] for m in page] == [sorted(ids, reverse=True)[1]]


def test_enums_and_limits_come_from_the_engine(client):
    from engine import limits

    spec = client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    type_enum = next(s["enum"] for s in schemas["MemoryIn"]["properties"]["type"]["anyOf"] if "enum" in s)
    assert tuple(type_enum) == limits.MEMORY_TYPES
    threshold = next(s for s in schemas["RecallIn"]["properties"]["threshold"]["anyOf"] if s.get("type") == "number")
    assert (threshold["minimum"], threshold["maximum"]) == (limits.THRESHOLD_MIN, limits.THRESHOLD_MAX)
    params = {p["name"]: p for p in spec["paths"]["/memories"]["get"]["parameters"]}
    assert params["limit"]["schema"]["maximum"] == limits.LIST_LIMIT_MAX
    assert tuple(params["status"]["schema"]["enum"]) == limits.STATUS_FILTERS
    # a negative threshold is the engine's to allow (scores can be negative)
    assert client.post("/recall", json={"query": "x", "user_id": "alice", "threshold": -0.5}).status_code == 200


def test_export_streams_records_that_import_reads(client, engine):
    ingest(client, "I use Arch Linux.")
    r = client.get("/export", params={"user_id": "alice"})
    assert r.status_code == 200
    assert 'filename="memories-alice.jsonl"' in r.headers["content-disposition"]
    records = [json.loads(line) for line in r.text.splitlines()]
    assert records == [{**rec, "exported_at": records[0]["exported_at"]} if rec["kind"] == "header" else rec
                       for rec in engine.export_records("alice")]
    # importing into the same store names the clash instead of a raw constraint error
    again = client.post("/import", params={"user_id": "alice"}, content=r.content, headers=NDJSON)
    assert again.status_code == 422
    assert "UNIQUE constraint" not in again.text


def test_export_of_a_bad_user_id_is_422_not_a_broken_stream(client):
    r = client.get("/export", params={"user_id": " "})
    assert r.status_code == 422, r.text


# ------------------------------------------------------------------------------------------
# Chat: POST /context, GET /profile, POST /session/summary
# ------------------------------------------------------------------------------------------

def test_context_block_with_citations_and_old_facts(client):
    ingest(client, "My project deadline is October 15.")
    new = first_memory_id(ingest(client, "Actually, the deadline moved to November 2."))
    r = client.post("/context", json={"query": "When is my project deadline?", "user_id": "alice"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["abstained"] is False
    assert body["items"][0]["memory_id"] == new and body["items"][0]["status"] == "current"
    assert f"[#{new}]" in body["text"] and "November 2" in body["text"]
    assert all(item["line"] in body["text"] for item in body["items"])
    old = client.post("/context", json={"query": "When is my project deadline?", "user_id": "alice",
                                        "include_history": True}).json()
    stale = [i for i in old["items"] if i["status"] == "old"]
    assert stale and stale[0]["replaced_by_id"] == new and "October 15" in stale[0]["text"]


def test_context_abstains_and_respects_the_budget(client):
    r = client.post("/context", json={"query": "What is my favourite colour?", "user_id": "nobody"}).json()
    assert r["abstained"] is True and r["items"] == []
    assert "Nothing relevant is known" in r["text"]
    for text in ("I use Arch Linux.", "I live in Lisbon.", "My project deadline is October 15.",
                 "I have a dog named Rex.", "I work at Zalando."):
        ingest(client, text)
    small = client.post("/context", json={"query": "Tell me about me", "user_id": "alice", "budget_chars": 150,
                                          "threshold": 0.0, "top_k": 5}).json()
    assert len(small["text"]) <= 150
    assert small["omitted"] >= 1


@pytest.mark.parametrize(
    "body",
    [{}, {"query": ""}, {"query": "x", "budget_chars": 10}, {"query": "x", "budget_chars": 0},
     {"query": "x", "top_k": 0}, {"query": "x", "threshold": 9}, {"query": "x", "extra": 1}],
)
def test_context_bad_input_422(client, body):
    assert client.post("/context", json=body).status_code == 422


def test_profile_greets_with_the_most_important_facts(client):
    ingest(client, "I live in Lisbon.")
    ingest(client, "My project deadline is November 2.")
    r = client.get("/profile", params={"user_id": "alice", "limit": 1})
    assert r.status_code == 200, r.text
    body = r.json()
    assert len(body["items"]) == 1 and body["total_current"] == 2
    assert body["items"][0]["text"].rstrip(".").split()[-1] in body["greeting"]
    assert client.get("/profile", params={"user_id": "alice", "limit": 0}).status_code == 422
    assert client.get("/profile", params={"user_id": "alice", "limit": 51}).status_code == 422  # the engine's cap
    assert client.get("/profile").status_code == 422
    empty = client.get("/profile", params={"user_id": "nobody"}).json()
    assert empty["items"] == [] and empty["total_current"] == 0


def test_session_summary_by_ids_and_since(client):
    start = ingest(client, "I live in Lisbon.")
    end = ingest(client, "My project deadline is November 2.")
    r = client.post("/session/summary", json={"user_id": "alice",
                                              "message_ids": [start["message_id"], end["message_id"]]})
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["by_llm"] is False
    assert body["message_ids"] == [start["message_id"], end["message_id"]]
    assert "Lisbon" in body["text"] and "November 2" in body["text"]
    assert body["memory"]["type"] == "event"
    stored = client.get(f"/memory/{body['memory']['id']}", params={"user_id": "alice"})
    assert stored.status_code == 200
    since = client.post("/session/summary", json={"user_id": "alice", "since": "2000-01-01T00:00:00Z"})
    assert since.status_code == 201 and set(since.json()["message_ids"]) >= {start["message_id"]}
    nothing = client.post("/session/summary", json={"user_id": "alice", "since": "2999-01-01T00:00:00Z"})
    assert nothing.status_code == 200 and nothing.json()["memory"] is None


@pytest.mark.parametrize(
    "body",
    [{"user_id": "alice"}, {"user_id": "alice", "message_ids": [1], "since": "2026-01-01"},
     {"user_id": "alice", "message_ids": []}, {"user_id": "alice", "since": "yesterday"},
     {"user_id": "alice", "message_ids": [999999]}],
)
def test_session_summary_bad_input_422(client, body):
    assert client.post("/session/summary", json=body).status_code == 422


def test_session_summary_with_an_unreachable_llm_is_502_and_stores_nothing(engine, tmp_path, free_port):
    with make_client(engine, tmp_path, llm_url=f"http://127.0.0.1:{free_port()}/v1", llm_timeout_s=5) as c:
        msg = ingest(c, "I live in Lisbon.")
        before = c.get("/memories", params={"user_id": "alice", "status": "all"}).json()["total"]
        r = c.post("/session/summary", json={"user_id": "alice", "message_ids": [msg["message_id"]]})
        assert r.status_code == 502, r.text
        assert "LLM" in r.json()["detail"]
        assert c.get("/memories", params={"user_id": "alice", "status": "all"}).json()["total"] == before


def test_ingest_returns_its_trace(client):
    ingest(client, "My project deadline is October 15.")
    body = ingest(client, "Actually, the deadline moved to November 2.")
    (step,) = body["trace"]
    assert step["clause"] and step["rule"] and step["reason"]
    assert step["action"] == "superseded" and step["superseded_ids"]
    assert step["compared"][0]["memory_id"] == step["superseded_ids"][0]
    assert 0.0 < step["compared"][0]["similarity"] <= 1.0


class _SummaryLLM(BaseHTTPRequestHandler):
    """A chat-completions endpoint that always writes the same summary, and keeps what it was asked."""

    asked: list[dict] = []

    def log_message(self, *args):
        pass

    def do_POST(self):
        _SummaryLLM.asked.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        payload = json.dumps({"choices": [{"message": {"role": "assistant",
                                                       "content": "The user settled in Lisbon."}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def test_session_summary_written_by_the_configured_llm(engine, tmp_path):
    _SummaryLLM.asked = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _SummaryLLM)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        with make_client(engine, tmp_path, llm_url=url, llm_model="tiny", llm_timeout_s=10) as c:
            msg = ingest(c, "I live in Lisbon.")
            r = c.post("/session/summary", json={"user_id": "alice", "message_ids": [msg["message_id"]]})
            assert r.status_code == 201, r.text
            body = r.json()
            assert body["by_llm"] is True and "The user settled in Lisbon" in body["text"]
            assert "The user settled in Lisbon" in body["memory"]["text"]
    finally:
        httpd.shutdown()
        httpd.server_close()
    (request,) = _SummaryLLM.asked
    assert request["model"] == "tiny"
    assert any("I live in Lisbon." in m["content"] for m in request["messages"])
