"""Shared fixtures: one embedding model per test session, a fresh store per test."""
from __future__ import annotations

import os
import socket

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from engine import MemoryEngine, Settings, load_embedder  # noqa: E402

pytest_plugins = ["tests.servers"]


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch):
    """Each test starts with no MEMENGINE_* settings from the outer environment."""
    for key in list(os.environ):
        if key.startswith("MEMENGINE_"):
            monkeypatch.delenv(key, raising=False)


@pytest.fixture(scope="session")
def embedder():
    """The sentence-transformers model, loaded once and shared by every engine in the session."""
    return load_embedder(Settings())


@pytest.fixture
def engine(tmp_path, embedder):
    """A MemoryEngine on an empty store under tmp_path; closed after the test."""
    eng = MemoryEngine(Settings(data_dir=tmp_path), embedder=embedder)
    try:
        yield eng
    finally:
        eng.close()


@pytest.fixture(scope="session")
def free_port():
    """A function that picks a free TCP port on 127.0.0.1 for a server a test starts."""
    def pick() -> int:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]
    return pick
