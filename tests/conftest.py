"""Shared fixtures (one embedding model per test session, a fresh store per test), the test tiers,
and the hypothesis profiles."""
from __future__ import annotations

import os
import re
import socket
import sys
from contextlib import contextmanager

import pytest
from hypothesis import settings as hypothesis_settings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from engine import MemoryEngine, Settings, load_embedder  # noqa: E402

pytest_plugins = ["tests.servers"]

TIERS = ("unit", "integration", "e2e")

# Property tests: in CI a fixed seed (derandomize), so CI cannot go red by chance; locally random, and
# a failure prints the @reproduce_failure blob that replays it. Test files that build their own
# `settings(...)` inherit this profile because it is loaded before they are imported.
# MEMENGINE_LONG_TESTS=1 still selects the long variants (tests/test_reliability.py reads it).
# Both are spelled out in full: hypothesis also auto-loads a CI profile of its own when CI is set.
hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True)
hypothesis_settings.register_profile("dev", derandomize=False, print_blob=True)


def hypothesis_profile_name(environ) -> str:
    return "ci" if environ.get("CI", "").lower() in ("1", "true", "yes") else "dev"


hypothesis_settings.load_profile(hypothesis_profile_name(os.environ))


def pytest_report_header(config) -> str:
    return f"hypothesis profile: {hypothesis_settings.get_current_profile_name()}"


_TIER_LINE = re.compile(r"^pytestmark = pytest\.mark\.(\w+)\s*$", re.MULTILINE)


def pytest_ignore_collect(collection_path, config) -> bool | None:
    """With `-m <one tier>`, files of other tiers are not even imported: the fast tier then does not
    pay for importing streamlit, fastapi and chromadb. The tier check below still sees every file
    that is collected."""
    wanted = (config.getoption("markexpr") or "").strip()
    if wanted not in TIERS or collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    declared = _TIER_LINE.findall(collection_path.read_text(encoding="utf-8"))
    return True if declared and wanted not in declared else None


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects anything, so every file is checked on every run
def pytest_collection_modifyitems(config, items) -> None:
    """Every test file must choose exactly one tier with `pytestmark = pytest.mark.<tier>` (see pyproject)."""
    wrong: dict[str, list[str]] = {}
    for item in items:
        tiers = sorted({m.name for m in item.iter_markers() if m.name in TIERS})
        if len(tiers) != 1:
            wrong.setdefault(str(item.path), tiers)
    if wrong:
        lines = [f"  {path}: {', '.join(tiers) or 'no tier'}" for path, tiers in sorted(wrong.items())]
        raise pytest.UsageError(
            "each test file needs exactly one tier marker, e.g. `pytestmark = pytest.mark.unit` "
            f"(tiers: {', '.join(TIERS)}):\n" + "\n".join(lines)
        )


def pytest_sessionfinish(session, exitstatus) -> None:
    """A child process a failed test left running would keep pytest from exiting (multiprocessing waits for its
    non-daemon children at exit) and hang the whole CI run: stop any that are left, and say so."""
    import multiprocessing

    for child in multiprocessing.active_children():
        print(f"\nstopping a child process a test left running: {child.name} (pid {child.pid})", file=sys.stderr)
        child.kill()
        child.join(10)


@pytest.fixture(autouse=True)
def _keep_main_module():
    """Streamlit's AppTest runs app.py as `__main__` and leaves it there; a process started later with the
    spawn method re-runs the parent's `__main__` file, which would then be the cockpit. Put it back."""
    main = sys.modules.get("__main__")
    yield
    sys.modules["__main__"] = main


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


@pytest.fixture(scope="session")
def stores_by(tmp_path_factory, embedder):
    """`with stores_by("kind_statements", (8, 0), messages) as made:` one store per value of a setting, each told
    the same messages by user "u", keyed by the value; all closed when the block ends."""
    @contextmanager
    def make(setting: str, values, messages=()):
        made = {}
        try:
            for value in values:
                made[value] = MemoryEngine(Settings(data_dir=tmp_path_factory.mktemp(f"{setting}-{value}"),
                                                    **{setting: value}), embedder=embedder)
                for message in messages:
                    made[value].ingest(message, user_id="u")
            yield made
        finally:
            for store in made.values():
                store.close()
    return make


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
