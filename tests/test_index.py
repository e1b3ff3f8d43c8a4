"""The ChromaDB index: embedded layout, and server mode through chromadb.HttpClient on loopback."""
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from engine import MemoryEngine, Settings
from engine.index import VectorIndex

pytestmark = pytest.mark.integration


def unit(seed):
    v = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
    return v / np.linalg.norm(v)


def test_one_collection_per_user_and_nothing_shared(tmp_path):
    index = VectorIndex(path=tmp_path, url=None, namespace="store1")
    index.add("alice", [1, 2], np.stack([unit(1), unit(2)]))
    index.add("bob", [3], np.stack([unit(3)]))
    assert set(index.query("alice", unit(3), 10)) == {1, 2}
    assert set(index.query("bob", unit(1), 10)) == {3}
    assert index.query("carol", unit(1), 10) == {}
    assert index.collection_name("alice") != index.collection_name("bob")
    assert "alice" not in index.collection_name("alice")  # user ids are hashed, not exposed


def test_query_returns_cosine_similarity(tmp_path):
    index = VectorIndex(path=tmp_path, url=None, namespace="s")
    index.add("u", [7], np.stack([unit(7)]))
    assert index.query("u", unit(7), 1)[7] == pytest.approx(1.0, abs=1e-4)


def test_a_query_meeting_a_half_done_write_is_asked_again(tmp_path):
    """Embedded Chroma fails a query that meets another process's write half done ("Error finding id"); the
    failure cannot be timed on purpose, so the real collection's query fails once here, then answers."""
    index = VectorIndex(path=tmp_path, url=None, namespace="s")
    index.add("u", [7], np.stack([unit(7)]))
    col = index._collection("u")
    real, calls = col.query, []

    def once_half_done(**kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("Error executing plan: Internal error: Error finding id")
        return real(**kwargs)

    object.__setattr__(col, "query", once_half_done)
    assert index.query("u", unit(7), 1) == {7: pytest.approx(1.0, abs=1e-4)}
    assert len(calls) == 2


def test_any_other_query_failure_is_raised(tmp_path):
    index = VectorIndex(path=tmp_path, url=None, namespace="s")
    index.add("u", [7], np.stack([unit(7)]))
    col = index._collection("u")

    def broken(**kwargs):
        raise RuntimeError("disk I/O error")

    object.__setattr__(col, "query", broken)
    with pytest.raises(RuntimeError, match="disk I/O"):
        index.query("u", unit(7), 1)


def test_remove_and_drop(tmp_path):
    index = VectorIndex(path=tmp_path, url=None, namespace="s")
    index.add("u", [1, 2], np.stack([unit(1), unit(2)]))
    index.remove("u", [1])
    assert index.ids("u") == {2}
    index.drop_user("u")
    assert index.ids("u") == set() and index.user_collections() == set()


@pytest.fixture
def chroma_server(tmp_path, free_port):
    chroma = Path(sys.executable).with_name("chroma")
    if not chroma.exists():
        pytest.skip("the chroma CLI is not installed in this environment")
    port = free_port()
    proc = subprocess.Popen([str(chroma), "run", "--path", str(tmp_path / "server"), "--host", "127.0.0.1",
                             "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail("chroma run exited early")
                time.sleep(0.3)
        else:
            pytest.fail("chroma server did not start")
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_engine_on_a_chroma_server(tmp_path, embedder, chroma_server):
    settings = Settings(data_dir=tmp_path / "store", chroma_url=chroma_server)
    with MemoryEngine(settings, embedder=embedder) as eng:
        eng.ingest("I use Arch Linux.")
        eng.ingest("My project deadline is October 15.")
        eng.ingest("Actually, the deadline moved to November 2.")
        assert "November 2" in eng.recall("When is the project deadline?").hits[0].memory.text
        assert eng.verify_index()["ok"]
        assert not (tmp_path / "store" / "chroma").exists()  # nothing embedded: the server holds the vectors
    with MemoryEngine(settings, embedder=embedder) as eng:  # reopen: the server kept them
        assert "Arch" in eng.recall("What OS does the user use?").hits[0].memory.text
