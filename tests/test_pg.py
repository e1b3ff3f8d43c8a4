"""Server mode groundwork on real servers: the fixtures, and the PostgreSQL ledger layer (engine/pg.py)."""
from __future__ import annotations

import json
import urllib.request

import pytest

pytestmark = pytest.mark.servers


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
