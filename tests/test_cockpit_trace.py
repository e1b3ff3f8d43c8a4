"""AppTest: the Ingest page's per-message trace (clause -> candidate and its rule -> compared memories with
their similarity -> decision and reason). Each test gets its own store under tmp_path."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from streamlit.runtime.pages_manager import PagesManager  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from cockpit import state  # noqa: E402
from engine import MemoryEngine, NotFoundError, Settings  # noqa: E402

pytestmark = pytest.mark.integration

TIMEOUT = 120


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A fresh store per test, every page run through app.py as in a running server (see
    tests/test_cockpit.py: AppTest would otherwise start a switched-to page on its own)."""
    data = tmp_path / "store"
    monkeypatch.setenv("MEMENGINE_DATA_DIR", str(data))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)
    yield data
    state.release_engines()


def start_ingest() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page("pages/ingest.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def ingest(at: AppTest, text: str) -> None:
    at.text_area(key="ingest_text").input(text)
    at.button(key="ingest_submit").click().run()
    assert not at.exception, [e.value for e in at.exception]


def markdown(at: AppTest) -> str:
    return "\n".join(str(e.value) for e in at.markdown)


def bars(at: AppTest) -> list[tuple[int, str]]:
    """The similarity bars: (percent filled, label)."""
    return [(p.proto.value, p.proto.text) for p in at.get("progress")]


def state_engine(data: Path):
    return state._engine(str(data.resolve()), Settings().model_name)


def test_trace_shows_the_comparison_and_the_reason(store):
    at = start_ingest()
    ingest(at, "We're building it with Django")
    first = markdown(at)
    assert "Trace" in first and "Clause 1" in first and "Candidate from rule" in first
    assert "Compared with no existing memory." in [c.value for c in at.caption]

    ingest(at, "I switched from Django to FastAPI")
    eng = state_engine(store)
    django = next(m for m in eng.list_memories(status="all") if "Django" in m.value)
    md = markdown(at)
    assert "I switched from Django to FastAPI" in md  # the clause
    # the existing Django memory, with its similarity as a bar and a number
    labels = [(value, text) for value, text in bars(at) if f"#{django.id} " in text]
    assert len(labels) == 1, bars(at)
    value, text = labels[0]
    similarity = float(text.split(" ")[0])
    assert 0.0 < similarity <= 1.0 and abs(value - round(similarity * 100)) <= 1
    # the decision with the rule that made it, whatever it is today
    decision = [line for line in md.splitlines() if "because" in line]
    assert len(decision) == 1 and decision[0].split("because ", 1)[1].strip()
    if django.status == "superseded":
        assert f"#{django.id}: because" in decision[0] and "superseded" in decision[0]


def test_small_talk_has_an_empty_trace(store):
    at = start_ingest()
    ingest(at, "ok thanks")
    assert any("no candidate" in c.value for c in at.caption)
    assert bars(at) == []


# ------------------------------------------------------------------------------------------ ledger: restore, erase


def start_ledger_on(data: Path, memory_id: int) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page("pages/ledger.py").run()
    at.selectbox(key="ledger_pick").select(memory_id).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def prefill(data: Path, messages: list[str]) -> None:
    with MemoryEngine(Settings(data_dir=data), embedder=state._embedder(Settings().model_name)) as eng:
        eng.ingest_many(messages)


def button_keys(at: AppTest) -> set[str]:
    return {b.key for b in at.button}


def test_ledger_restores_a_soft_deleted_memory(store):
    prefill(store, ["I use Arch Linux."])
    at = start_ledger_on(store, 1)
    assert "ledger_restore" not in button_keys(at)  # only a deleted memory can be restored
    at.button(key="ledger_delete").click().run()
    at.button(key="ledger_delete_confirm").click().run()
    at.button(key="ledger_restore").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert state_engine(store).get(1).status == "active"
    assert at.toast[0].value.startswith("Memory #1 restored")


def test_ledger_erase_for_good_needs_confirmation(store):
    prefill(store, ["I use Arch Linux.", "I live in Lisbon."])
    at = start_ledger_on(store, 1)
    at.button(key="ledger_erase").click().run()
    assert "cannot be undone" in at.error[0].value
    at.button(key="ledger_erase_cancel").click().run()
    assert state_engine(store).get(1).status == "active"
    at.button(key="ledger_erase").click().run()
    at.button(key="ledger_erase_confirm").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.toast[0].value.startswith("Memory #1 erased for good")
    try:
        left = state_engine(store).get(1)
    except NotFoundError:
        left = None
    assert left is None or "Arch" not in left.text  # gone, or a tombstone without the text
