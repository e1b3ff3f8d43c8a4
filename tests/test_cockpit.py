"""AppTest tests for the Streamlit cockpit: every page is driven through its widgets (by key) and checked
on what it shows. Each test gets its own store under tmp_path (MEMENGINE_DATA_DIR); the embedding model
is loaded once per process (st.cache_resource) and shared.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from streamlit.runtime.pages_manager import PagesManager  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from cockpit import batch, canonical, charts, lineage, runs, state, transfer  # noqa: E402
from engine import Memory, MemoryEngine, Settings  # noqa: E402

pytestmark = pytest.mark.integration

TIMEOUT = 120
CANONICAL = [t for t, _ in canonical.INGESTS]

TINY_CASES = [
    {"id": "t-01", "category": "direct_facts", "split": "dev", "messages": ["I use Arch Linux."],
     "query": "What OS does the user use?", "top1_contains": "Arch"},
    {"id": "t-02", "category": "updated_information", "split": "dev",
     "messages": ["My project deadline is October 15.", "Actually, the deadline moved to November 2."],
     "query": "When is the project deadline?", "top1_contains": "November 2", "forbidden": ["October 15"]},
    {"id": "t-03", "category": "unknown_answers", "split": "dev", "messages": ["I use Arch Linux."],
     "query": "What is the user's favourite food?", "expect_empty": True},
    # Deliberately impossible, so the inspector has a failure to explain.
    {"id": "t-04", "category": "direct_facts", "split": "test", "messages": ["I use Arch Linux."],
     "query": "What OS does the user use?", "top1_contains": "Gentoo"},
]


# ------------------------------------------------------------------------------------------ fixtures
@pytest.fixture
def bare_store(tmp_path, monkeypatch):
    """A fresh store per test; the cached engine is closed afterwards so its lock is released."""
    data = tmp_path / "store"
    monkeypatch.setenv("MEMENGINE_DATA_DIR", str(data))
    monkeypatch.delenv("MEMENGINE_CASES", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    yield data
    state.release_engines()


@pytest.fixture
def store(bare_store, monkeypatch):
    """bare_store, with every page run through app.py as in a running server.

    AppTest resets Streamlit's "uses a pages/ directory" flag before every run, so a switched-to page
    would start on its own (legacy multipage mode) and bounce through app.py (state.require_router) on
    every run. A running server clears that flag for good on its first st.navigation call; do the same.
    """
    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)
    return bare_store


def shared_embedder():
    return state._embedder(Settings().model_name)


def prefill(data: Path, messages: list[str], user: str = "default") -> None:
    """Write messages into a store before the app opens it (the app's engine holds the store lock)."""
    with MemoryEngine(Settings(data_dir=data), embedder=shared_embedder()) as eng:
        eng.ingest_many(messages, user_id=user)


def app_engine(data: Path) -> MemoryEngine:
    """The engine the app itself uses for this store (same cached instance)."""
    return state._engine(str(data.resolve()), Settings().model_name)


def start(page: str | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert not at.exception, [e.value for e in at.exception]
    if page:
        at.switch_page(f"pages/{page}.py").run()
        assert not at.exception, [e.value for e in at.exception]
    return at


def texts(elements) -> list[str]:
    return [e.value for e in elements]


def joined(elements) -> str:
    return "\n".join(str(e.value) for e in elements)


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


# Each table the pages draw, recognised by columns only it has (plain st.dataframe carries no key).
TABLES = {
    "message_log": ("outcome", "logged", "text"),
    "batch_summary": ("#", "message", "status"),
    "below": ("memory", "below by"),
    "ledger_table": ("memory", "replaced by"),
    "lineage_table": ("value", "superseded", "source message"),
    "bench_categories": ("category", "recall_at_5"),
    "bench_case_hits": ("text", "score", "semantic"),
    "bench_case_below": ("candidate", "score", "semantic"),
    "cmp_deltas": ("metric", "verdict"),
    "cmp_flipped": ("change", "why (B)"),
    "locomo_categories": ("category", "served nothing"),
    "locomo_recalled": ("turn", "evidence", "served", "memory"),
}


def frame(at: AppTest, table: str):
    cols = set(TABLES[table])
    found = [d.value for d in at.dataframe if cols <= set(d.value.columns)]
    assert len(found) == 1, f"expected one {table} table, found {len(found)}"
    return found[0]


def finish_job(at: AppTest, data: Path, kind: str) -> None:
    """Wait for the page's background job (benchmark or LoCoMo) to end, then rerun the page as its poll would."""
    job = state._jobs(str(data.resolve())).current(kind)
    assert job is not None, f"no {kind} job was started"
    assert job.wait(TIMEOUT), f"the {kind} job did not end"
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def ingest(at: AppTest, text: str) -> None:
    at.text_area(key="ingest_text").input(text)
    at.button(key="ingest_submit").click().run()
    assert not at.exception, [e.value for e in at.exception]


# ------------------------------------------------------------------------------------------ router + sidebar
def test_router_default_page_and_sidebar(store):
    at = start()
    assert at.title[0].value.endswith("Recall")
    assert texts(at.sidebar.code) == [str(store.resolve())]
    assert "all-MiniLM-L6-v2" in joined(at.sidebar.caption)
    assert metric(at, "Active") == "0" and metric(at, "Total") == "0"
    assert at.selectbox(key="user_select").value == "default"
    assert at.session_state["user"] == "default"
    for page, title in [("ingest", "Ingest"), ("ledger", "Ledger & lineage"), ("canonical", "Canonical test"),
                        ("benchmark", "Benchmark"), ("recall", "Recall")]:
        at.switch_page(f"pages/{page}.py").run()
        assert not at.exception, (page, [e.value for e in at.exception])
        assert at.title[0].value.endswith(title)
        # the shared sidebar is drawn around every page
        assert texts(at.sidebar.code) == [str(store.resolve())]


def test_page_started_without_router_is_sent_through_it(bare_store):
    """A deep link as a fresh server's first request runs the page file alone; it must bounce via app.py."""
    at = start()
    for page, title in [("ledger", "Ledger & lineage"), ("benchmark", "Benchmark"), ("recall", "Recall")]:
        at.switch_page(f"pages/{page}.py").run()
        assert not at.exception, [e.value for e in at.exception]
        assert at.title[0].value.endswith(title)
        assert texts(at.sidebar.code) == [str(bare_store.resolve())]   # the router's sidebar is there
        assert "_deep_link" not in at.session_state


def test_store_in_use_is_explained(store):
    with MemoryEngine(Settings(data_dir=store), embedder=shared_embedder()):   # holds the store's lock
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
        assert not at.exception
        assert "is open in another process" in at.error[0].value
        assert str(store.resolve()) in at.error[0].value
    at.run()   # once the other engine is closed the cockpit opens the store
    assert not at.error and at.title[0].value.endswith("Recall")


def test_bad_setting_is_explained(store, monkeypatch):
    monkeypatch.setenv("MEMENGINE_THRESHOLD", "lots")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert not at.exception
    assert at.error[0].value.startswith("Invalid MEMENGINE_* setting")
    assert "threshold" in at.error[0].value


def test_sidebar_counts_and_users(store):
    prefill(store, CANONICAL)
    prefill(store, ["I live in Oslo."], user="bob")
    at = start()
    assert metric(at, "Active") == "4"   # Arch, Next.js, November 2 (default) + Oslo (bob)
    assert metric(at, "Total") == "5"    # + the superseded October 15
    assert at.selectbox(key="user_select").options == ["bob", "default", "New user…"]
    at.selectbox(key="user_select").select("bob").run()
    assert at.session_state["user"] == "bob"
    assert "`bob` has **1** active memories." in joined(at.sidebar.caption)


def test_sidebar_new_user_is_used_by_every_page(store):
    at = start("ingest")
    at.selectbox(key="user_select").select("New user…").run()
    at.text_input(key="new_user").input("alice")
    at.button(key="new_user_go").click().run()
    assert at.session_state["user"] == "alice"
    assert "`alice`" in at.caption[0].value
    ingest(at, "I use Arch Linux.")
    assert app_engine(store).count_memories(user_id="alice") == 1
    assert app_engine(store).count_memories(user_id="default") == 0
    assert "`alice` has **1** active memories." in joined(at.sidebar.caption)
    assert "alice" in at.selectbox(key="user_select").options
    # an empty id is refused with a message, the user stays
    at.selectbox(key="user_select").select("New user…").run()
    at.button(key="new_user_go").click().run()
    assert at.session_state["user"] == "alice"
    assert "Type a user id first." in joined(at.sidebar.warning)
    # an id the engine refuses (too long) is explained, not used
    at.text_input(key="new_user").input("x" * 300)
    at.button(key="new_user_go").click().run()
    assert not at.exception
    assert at.session_state["user"] == "alice"
    assert "Not a valid user id: user_id is 300 characters long" in joined(at.sidebar.warning)


# ------------------------------------------------------------------------------------------ ingest
def test_ingest_single_messages_and_supersede(store):
    at = start("ingest")
    ingest(at, "I use Arch Linux.")
    assert ":green-badge[:material/add_circle: created]" in at.markdown[0].value
    triplets = at.dataframe[0].value
    assert list(triplets[["subject", "attribute", "value"]].iloc[0]) == ["user", "os", "Arch Linux"]
    stored = app_engine(store).get(1)
    assert (triplets["type"].iloc[0], triplets["importance"].iloc[0]) == (stored.type, round(stored.importance, 2))
    ingest(at, "My project deadline is October 15.")
    ingest(at, "Actually, the deadline moved to November 2.")
    md = joined(at.markdown)
    assert ":orange-badge[:material/swap_horiz: superseded]" in md
    assert "**Before: #2**" in md and "**Now: #3**" in md          # old and new side by side
    assert "Project deadline is October 15." in md and "Project deadline is November 2." in md
    assert at.dataframe[0].value["action"].iloc[0] == "superseded"
    log = frame(at, "message_log")
    assert list(log["text"]) == ["Actually, the deadline moved to November 2.", "My project deadline is October 15.",
                                 "I use Arch Linux."]
    assert metric(at, "Active") == "2" and metric(at, "Total") == "3"


def test_ingest_small_talk_is_ignored(store):
    at = start("ingest")
    ingest(at, "ok thanks")
    assert ":gray-badge[:material/block: ignored]" in at.markdown[0].value
    assert metric(at, "Total") == "0"
    assert list(frame(at, "message_log")["text"]) == ["ok thanks"]


@pytest.mark.parametrize(("text", "reason"), [("", "empty"), ("   ", "empty"), ("a\x00b", "NUL")])
def test_ingest_bad_message_shows_error_not_traceback(store, text, reason):
    at = start("ingest")
    ingest(at, text)
    assert not at.exception
    assert len(at.error) == 1
    assert at.error[0].value.startswith("Ingest failed:")
    assert reason.lower() in at.error[0].value.lower()
    assert metric(at, "Total") == "0"
    assert at.text_area(key="ingest_text").value == text   # the refused text is still there to fix


def test_ingest_batch_says_the_file_wins_over_typed_lines(store):
    at = start("ingest")
    at.text_area(key="batch_text").input("I use Arch Linux.\nMy deadline is May 1.").run()
    assert "2 messages · " in joined(at.caption)
    at.file_uploader(key="batch_file").upload("more.txt", b"I live in Oslo.\n", "text/plain").run()
    assert "the file `more.txt` is used" in joined(at.info)
    at.button(key="batch_go").click().run()
    assert not at.exception
    assert app_engine(store).count_memories(status="all") == 1


def test_ingest_batch_from_text_area(store):
    at = start("ingest")
    at.text_area(key="batch_text").input("I use Arch Linux.\n\nok thanks\nMy project deadline is October 15.\n"
                                         "Actually, the deadline moved to November 2.\n")
    at.button(key="batch_go").click().run()
    assert not at.exception
    assert metric(at, "Messages") == "4"
    assert (metric(at, "Created"), metric(at, "Superseded"), metric(at, "Confirmed"), metric(at, "Ignored")) == (
        "2", "1", "0", "1")
    summary = frame(at, "batch_summary")
    assert list(summary["status"]) == ["created", "ignored", "created", "superseded"]
    assert summary["superseded"].iloc[3] == "#2"


def test_ingest_batch_from_jsonl_upload(store):
    at = start("ingest")
    lines = [json.dumps({"text": "I use Arch Linux.", "speaker": "user", "source_id": "chat-1"}),
             json.dumps("I'm building a Next.js app.")]
    at.file_uploader(key="batch_file").upload("batch.jsonl", "\n".join(lines).encode(), "application/jsonl")
    at.button(key="batch_go").click().run()
    assert not at.exception
    assert metric(at, "Messages") == "2" and metric(at, "Created") == "2"
    log = frame(at, "message_log")
    assert set(log["text"]) == {"I use Arch Linux.", "I'm building a Next.js app."}
    assert "chat-1" in set(log["source"]) and "user" in set(log["speaker"])


def test_ingest_batch_names_the_message_the_engine_refuses(store, monkeypatch):
    monkeypatch.setenv("MEMENGINE_MAX_TEXT_CHARS", "60")
    at = start("ingest")
    at.text_area(key="batch_text").input("I use Arch Linux.\n" + "I like " + "very " * 20 + "long lines.\n"
                                         "I'm building a Next.js app.")
    at.button(key="batch_go").click().run()
    assert not at.exception
    assert metric(at, "Messages") == "2" and metric(at, "Created") == "2"   # the good ones went in
    assert len(at.error) == 1
    assert at.error[0].value.startswith("Rejected: “I like very very")
    assert "the limit is 60" in at.error[0].value


def test_ingest_batch_bad_input_shows_errors(store):
    at = start("ingest")
    at.button(key="batch_go").click().run()
    assert "The batch is empty" in at.error[0].value
    at.file_uploader(key="batch_file").upload("bad.jsonl", b'{"text": "I use Arch Linux."}\n{not json\n',
                                              "application/jsonl")
    at.button(key="batch_go").click().run()
    assert not at.exception
    assert "line 2 is not valid JSON" in at.error[0].value
    assert metric(at, "Total") == "0"


# ------------------------------------------------------------------------------------------ recall
def test_recall_ranks_with_score_parts(store):
    prefill(store, CANONICAL)
    at = start()
    at.text_input(key="recall_query").input("When is the project deadline?").run()
    assert not at.exception
    assert at.session_state["recall_mode"] == "recall"
    md = joined(at.markdown)
    assert "**Project deadline is November 2.**" in md
    assert "October 15" not in md
    assert "`project` · `deadline` → **November 2**" in md
    assert "“Actually, the deadline moved to November 2.”" in joined(at.caption)
    assert any(b in md for b in (":green-badge[:material/task_alt: certain]", ":orange-badge[:material/help: vague]"))
    assert "History: not searched · embed" in joined(at.caption)
    rules = chart_data(at)["rules"]["text"].tolist()  # the rules are labelled on the chart
    assert rules[0] == f"threshold {Settings().threshold:.2f}"
    assert rules[1:] == [f"cut-off {Settings().threshold - Settings().companion_margin:.2f}"]


def chart_data(at, index: int = 0) -> dict:
    """The named datasets of a page's ``index``-th Vega-Lite chart, as DataFrames."""
    from streamlit import dataframe_util

    proto = at.get("vega_lite_chart")[index].proto
    return {d.name: dataframe_util.convert_arrow_bytes_to_pandas_df(d.data.data) for d in proto.datasets}


def test_recall_slider_rescores_without_recalling(store, monkeypatch):
    prefill(store, CANONICAL)
    calls = {"recall": 0, "rescore": 0}
    real_recall, real_rescore = MemoryEngine.recall, MemoryEngine.rescore

    def counting_recall(self, *a, **k):
        calls["recall"] += 1
        return real_recall(self, *a, **k)

    def counting_rescore(self, *a, **k):
        calls["rescore"] += 1
        return real_rescore(self, *a, **k)

    monkeypatch.setattr(MemoryEngine, "recall", counting_recall)
    monkeypatch.setattr(MemoryEngine, "rescore", counting_rescore)
    at = start()
    at.text_input(key="recall_query").input("What OS does the user use?").run()
    assert calls == {"recall": 1, "rescore": 0}
    assert "**User uses Arch Linux.**" in joined(at.markdown)

    at.slider(key="knob_threshold").set_value(0.95).run()
    assert calls == {"recall": 1, "rescore": 1}
    assert at.session_state["recall_mode"] == "rescore"
    assert ":blue-badge[:material/bolt: re-scored, no re-embedding]" in joined(at.markdown)
    # nothing clears 0.95: the best candidates below it, and by how much
    assert at.warning[0].value.startswith("Nothing cleared the threshold 0.95")
    below = frame(at, "below")
    assert below["memory"].iloc[0] == "User uses Arch Linux."
    assert below["below by"].iloc[0] == pytest.approx(0.95 - below["score"].iloc[0], abs=1e-3)
    assert "below the threshold." in joined(at.markdown)

    at.slider(key="knob_alpha").set_value(0.5).run()
    at.slider(key="knob_top_k").set_value(1).run()
    at.slider(key="knob_importance").set_value(0.0).run()
    at.slider(key="knob_threshold").set_value(0.2).run()
    assert calls["recall"] == 1 and calls["rescore"] == 5
    assert len([m for m in at.markdown if m.value.startswith("#### ")]) == 1  # top-k 1: one card

    # a new query recalls again
    at.text_input(key="recall_query").input("When is the project deadline?").run()
    assert calls["recall"] == 2


def test_recall_unknown_query_returns_nothing(store):
    prefill(store, CANONICAL)
    at = start()
    at.text_input(key="recall_query").input("What is the user's favourite food?").run()
    assert not at.exception
    assert at.warning[0].value == f"Nothing cleared the threshold {Settings().threshold:.2f}: recall returns `[]`."
    assert ":gray-badge[:material/do_not_disturb_on: unknown]" in joined(at.markdown)
    assert not [m for m in at.markdown if m.value.startswith("#### ")]


def test_recall_says_when_the_question_names_someone_unknown(store):
    prefill(store, CANONICAL)
    at = start()
    at.text_input(key="recall_query").input("When is Priya's project deadline?").run()
    assert not at.exception
    assert at.warning[0].value.startswith("Nothing cleared the threshold")
    assert "asks about Priya, whom no memory or speaker" in joined(at.caption)


def test_recall_history_marks_replaced_memories(store):
    prefill(store, CANONICAL)
    at = start()
    at.segmented_control(key="recall_history").set_value("always")
    at.text_input(key="recall_query").input("When is the project deadline?")
    at.slider(key="knob_threshold").set_value(0.1).run()
    md = joined(at.markdown)
    assert ":orange-badge[:material/history: historical]" in md
    assert "replaced by **#4**: Project deadline is November 2." in md


def test_recall_history_auto_lets_the_engine_decide(store):
    """The default history mode passes include_history=None: a question about the past gets the old value."""
    prefill(store, CANONICAL)
    at = start()
    assert at.segmented_control(key="recall_history").value == "auto"
    at.text_input(key="recall_query").input("What was the project deadline before?")
    at.slider(key="knob_threshold").set_value(0.1).run()
    assert not at.exception
    md = joined(at.markdown)
    assert ":orange-badge[:material/history: historical]" in md and "October 15" in md
    assert "History: searched (the question asks about the past)" in joined(at.caption)
    at.segmented_control(key="recall_history").set_value("never").run()
    md = joined(at.markdown)
    assert "historical]" not in md and "History: not searched" in joined(at.caption)


def test_recall_companions_cutoff_and_top_k_cut(store):
    prefill(store, CANONICAL)
    at = start()
    at.text_input(key="recall_query").input("What OS does the user use?").run()
    res = at.session_state["recall_cache"]["base"]
    ranked = sorted(res.candidates, key=lambda h: h.score, reverse=True)
    best, second = ranked[0].score, ranked[1].score
    # threshold just above the second candidate, margin wide enough to bring it along as a companion
    threshold = round(second + 0.02, 2)
    assert threshold <= best, (best, second)
    at.slider(key="knob_threshold").set_value(threshold)
    at.slider(key="knob_margin").set_value(0.05).run()
    assert not at.exception
    md = joined(at.markdown)
    assert ":violet-badge[:material/group: companion]" in md
    assert f"cut-off **{threshold - 0.05:.2f}**" in md and "companion" in md
    spec = json.dumps(json.loads(at.get("vega_lite_chart")[0].proto.spec))
    assert '"domain": [0.0, 1.0]' in spec
    rules = chart_data(at)["rules"]
    assert rules["text"].tolist() == [f"threshold {threshold:.2f}", f"cut-off {threshold - 0.05:.2f}"]
    spec_before = at.get("vega_lite_chart")[0].proto.spec
    # margin 0: the companion is no longer served
    at.slider(key="knob_margin").set_value(0.0).run()
    assert "companion]" not in joined(at.markdown)
    # only the chart's data moved with the knob, so the browser updates the chart in place
    assert at.get("vega_lite_chart")[0].proto.spec == spec_before
    assert chart_data(at)["rules"]["text"].tolist() == [f"threshold {threshold:.2f}"]
    # top-k 1 with a low threshold: what top-k dropped is listed, not hidden
    at.slider(key="knob_threshold").set_value(0.05)
    at.slider(key="knob_top_k").set_value(1).run()
    md = joined(at.markdown)
    assert "cut by top-k]" in md
    assert len([m for m in at.markdown if m.value.startswith("#### ")]) == 1
    cut = next(e for e in at.expander if e.label.startswith("Cut by top-k"))
    assert cut.dataframe[0].value["memory"].tolist()[0] == ranked[1].memory.text


def test_recall_margin_slider_rescores_without_recalling(store, monkeypatch):
    prefill(store, CANONICAL)
    calls = {"recall": 0}
    real_recall = MemoryEngine.recall

    def counting_recall(self, *a, **k):
        calls["recall"] += 1
        return real_recall(self, *a, **k)

    monkeypatch.setattr(MemoryEngine, "recall", counting_recall)
    at = start()
    at.text_input(key="recall_query").input("What OS does the user use?").run()
    at.slider(key="knob_margin").set_value(0.2).run()
    at.slider(key="knob_margin").set_value(0.0).run()
    assert calls["recall"] == 1 and at.session_state["recall_mode"] == "rescore"


def test_recall_empty_store_points_to_ingest(store):
    at = start()
    assert "no memories yet" in at.info[0].value
    assert any(getattr(e, "proto", None) is not None and "Go to Ingest" in str(e.proto)
               for e in at.get("page_link"))


def test_recall_benchmark_button_carries_settings(store):
    prefill(store, CANONICAL)
    at = start()
    at.text_input(key="recall_query").input("What OS does the user use?")
    at.slider(key="knob_threshold").set_value(0.33)
    at.slider(key="knob_margin").set_value(0.04).run()
    at.button(key="knob_bench").click().run()
    assert not at.exception
    assert "Benchmark" in joined(at.title)
    assert "settings carried over from **Recall**" in joined(at.caption)
    assert at.number_input(key="bench_set_threshold").value == pytest.approx(0.33)
    assert at.number_input(key="bench_set_margin").value == pytest.approx(0.04)


def test_recall_sample_chip_fills_query(store):
    prefill(store, CANONICAL)
    at = start()
    assert "Type a query or pick a sample" in at.info[0].value
    at.pills(key="recall_chip").set_value("What OS does the user use?").run()
    assert at.text_input(key="recall_query").value == "What OS does the user use?"
    assert "**User uses Arch Linux.**" in joined(at.markdown)


def test_recall_bad_query_shows_error(store, monkeypatch):
    monkeypatch.setenv("MEMENGINE_MAX_TEXT_CHARS", "40")
    at = start()
    at.text_input(key="recall_query").input("x" * 60).run()
    assert not at.exception
    assert at.error[0].value.startswith("Recall failed:")
    assert "40" in at.error[0].value


def test_recall_knobs_survive_page_switch_and_reset(store):
    at = start()
    at.text_input(key="recall_query").input("What OS does the user use?")
    at.slider(key="knob_threshold").set_value(0.9).run()
    at.switch_page("pages/ingest.py").run()
    at.switch_page("pages/recall.py").run()
    assert at.slider(key="knob_threshold").value == pytest.approx(0.9)
    assert at.text_input(key="recall_query").value == "What OS does the user use?"
    at.button(key="knob_reset").click().run()
    assert at.slider(key="knob_threshold").value == pytest.approx(Settings().threshold)


# ------------------------------------------------------------------------------------------ ledger
def test_ledger_table_filters_and_lineage(store):
    prefill(store, CANONICAL)
    at = start("ledger")
    table = frame(at, "ledger_table")
    assert len(table) == 4
    by_text = table.set_index("memory")
    assert by_text.loc["Project deadline is October 15.", "status"] == "◐ superseded"
    assert by_text.loc["Project deadline is October 15.", "replaced by"] == "→ #4"
    assert by_text.loc["Project deadline is November 2.", "status"] == "● active"

    at.selectbox(key="ledger_status").select("superseded").run()
    assert list(frame(at, "ledger_table")["memory"]) == ["Project deadline is October 15."]
    at.selectbox(key="ledger_status").select("all").run()
    at.text_input(key="ledger_search").input("deadline").run()
    assert len(frame(at, "ledger_table")) == 2
    at.text_input(key="ledger_search").input("").run()
    kind = app_engine(store).get(1).type   # whatever type the engine gave "I use Arch Linux."
    expected = [m.text for m in app_engine(store).list_memories(status="all") if m.type == kind]
    at.multiselect(key="ledger_types").select(kind).run()
    shown = frame(at, "ledger_table")
    assert sorted(shown["memory"]) == sorted(expected) and set(shown["type"]) == {kind}
    assert "User uses Arch Linux." in expected
    at.multiselect(key="ledger_types").unselect(kind).run()

    at.selectbox(key="ledger_pick").select(4).run()
    dot = at.get("graphviz_chart")[0].proto.spec
    assert "m3 -> m4" in dot and "#3 · superseded" in dot and "#4 · active" in dot
    assert "Actually, the deadline moved to November 2." in dot
    chain = frame(at, "lineage_table")
    assert list(chain["id"]) == [3, 4]
    assert "2 versions in this chain, oldest first." in joined(at.caption)


def test_ledger_arrow_links_walk_the_chain_even_off_the_page(store):
    prefill(store, ["My project deadline is October 15.", "Actually, the deadline moved to November 2."])
    at = start("ledger")
    at.selectbox(key="ledger_status").set_value("superseded").run()   # only #1 is listed
    assert list(frame(at, "ledger_table")["id"]) == [1]
    at.selectbox(key="ledger_pick").select(1).run()
    assert at.button(key="ledger_goto_next").label == "→ #2"
    at.button(key="ledger_goto_next").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="ledger_pick").value == 2   # opened, though the filter hides it from the table
    assert "**Project deadline is November 2.**" in joined(at.markdown)
    assert "Actually, the deadline moved to November 2." in joined(at.caption)   # the full source message
    at.button(key="ledger_goto_prev::1").click().run()
    assert at.selectbox(key="ledger_pick").value == 1


def test_ledger_pagination(store):
    prefill(store, [f"I visited city number {n} last year." for n in range(30)])
    at = start("ledger")
    total = app_engine(store).count_memories(status="all")
    assert total > 25
    assert len(frame(at, "ledger_table")) == 25
    at.get("pagination")  # present
    at.pagination(key="ledger_page").set_value(2).run()
    assert len(frame(at, "ledger_table")) == total - 25
    assert f"{total} memories · page 2 of 2" in joined(at.caption)


def test_ledger_soft_delete_needs_confirmation(store):
    prefill(store, CANONICAL)
    at = start("ledger")
    at.selectbox(key="ledger_pick").select(1).run()
    at.button(key="ledger_delete").click().run()
    assert "Soft-delete memory #1?" in at.warning[0].value
    at.button(key="ledger_delete_cancel").click().run()
    assert app_engine(store).get(1).status == "active"
    assert not at.warning
    at.button(key="ledger_delete").click().run()
    at.button(key="ledger_delete_confirm").click().run()
    assert not at.exception
    assert at.toast[0].value.startswith("Memory #1 soft-deleted")
    assert app_engine(store).get(1).status == "deleted"
    row = frame(at, "ledger_table").set_index("id").loc[1]
    assert row["status"] == "○ deleted"
    assert metric(at, "Active") == "2"


def test_ledger_export_then_import_into_another_store(store, tmp_path, monkeypatch):
    prefill(store, CANONICAL)
    at = start("ledger")
    assert at.download_button(key="ledger_export::default").label == "Download .jsonl"
    data = transfer.export_bytes(app_engine(store), None)
    kinds = [json.loads(line)["kind"] for line in data.decode().splitlines()]
    assert kinds.count("memory") == 4 and kinds.count("message") == 4

    other = tmp_path / "other"
    monkeypatch.setenv("MEMENGINE_DATA_DIR", str(other))
    at2 = start("ledger")
    assert at2.info[0].value == "No memories match these filters."
    at2.file_uploader(key="ledger_import_file").upload("export.jsonl", data, "application/jsonl")
    at2.button(key="ledger_import_go").click().run()
    assert not at2.exception
    assert at2.toast[0].value == "Imported 4 memories from export.jsonl."
    table = frame(at2, "ledger_table")
    assert len(table) == 4 and "→ #" in "".join(table["replaced by"])

    at2.file_uploader(key="ledger_import_file").upload("broken.jsonl", b"{oops\n", "application/jsonl")
    at2.button(key="ledger_import_go").click().run()
    assert not at2.exception
    assert at2.error[0].value.startswith("Import failed:")
    assert app_engine(other).count_memories(status="all") == 4

    # the same export again: a clear refusal, not a traceback, and nothing doubled
    at2.file_uploader(key="ledger_import_file").upload("export.jsonl", data, "application/jsonl")
    at2.button(key="ledger_import_go").click().run()
    assert not at2.exception
    assert at2.error[0].value.startswith("Import failed:")
    assert app_engine(other).count_memories(status="all") == 4


def test_ledger_export_follows_the_selected_user(store):
    prefill(store, CANONICAL)
    prefill(store, ["I live in Oslo."], user="emile")
    at = start("ledger")
    assert at.selectbox(key="export_scope::default").format_func("this user") == "default's memories"
    at.selectbox(key="user_select").set_value("emile").run()
    assert not at.exception
    scope = at.selectbox(key="export_scope::emile")
    assert scope.format_func(scope.value) == "emile's memories"
    assert not [w for w in at.selectbox if w.key == "export_scope::default"]   # no stale widget left
    assert at.download_button(key="ledger_export::emile").proto.label == "Download .jsonl"
    assert "1 memories, every status" in joined(at.caption)


def test_ledger_forget_user_needs_confirmation(store):
    prefill(store, CANONICAL)
    prefill(store, ["I live in Oslo."], user="bob")
    at = start("ledger")
    at.selectbox(key="forget_pick").select("default").run()
    at.button(key="forget_go").click().run()
    assert "Erase every memory and message of `default`?" in at.warning[0].value
    assert app_engine(store).count_memories(user_id="default", status="all") == 4
    at.button(key="forget_confirm").click().run()
    assert not at.exception
    assert at.toast[0].value == "Forgot user `default`: 4 memories and 4 messages erased for good."
    assert app_engine(store).count_memories(user_id="default", status="all") == 0
    assert app_engine(store).count_memories(user_id="bob") == 1
    assert at.selectbox(key="forget_pick").options == ["bob"]


# ------------------------------------------------------------------------------------------ canonical test
def test_canonical_walkthrough_all_pass(store):
    at = start("canonical")
    assert "Press **Run canonical test**" in at.info[0].value
    at.button(key="canon_run").click().run()
    assert not at.exception
    assert at.success[0].value.startswith("All good: 9 / 9 checks passed")
    md = joined(at.markdown)
    assert md.count(":green-badge[:material/check: PASS]") == 7 + 9   # 7 step badges + 9 check badges
    assert ":red-badge" not in md
    assert "**Got** Project deadline is November 2." in md
    assert "**Got** User uses Arch Linux." in md
    assert "**Got** \\[\\]" in md or "**Got** []" in md
    assert ":orange-badge[:material/swap_horiz: superseded]" in md
    # the user's own store is untouched
    assert metric(at, "Total") == "0"


# ------------------------------------------------------------------------------------------ benchmark
@pytest.fixture
def tiny_cases(tmp_path, monkeypatch):
    path = tmp_path / "tiny_cases.json"
    path.write_text(json.dumps(TINY_CASES), encoding="utf-8")
    monkeypatch.setenv("MEMENGINE_CASES", str(path))
    return path


def test_benchmark_run_inspect_compare_and_sweep(store, tiny_cases):
    at = start("benchmark")
    assert "No saved runs yet" in at.info[0].value
    at.segmented_control(key="bench_split").set_value("all").run()
    at.button(key="bench_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    finish_job(at, store, "bench")
    assert metric(at, "Accuracy") == "75.0%"
    assert metric(at, "Unknown rejection") == "100.0%"
    assert metric(at, "Supersede integrity") == "100.0%"
    assert metric(at, "Mean recall latency").endswith(" ms")
    cats = frame(at, "bench_categories").set_index("category")
    assert cats.loc["Direct Facts", "passed"] == 1 and cats.loc["Direct Facts", "total"] == 2
    assert len(at.get("vega_lite_chart")) == 1
    saved = list((store / "runs").glob("run-*.json"))
    assert len(saved) == 1 and json.loads(saved[0].read_text())["metrics"]["total"] == 4

    # case inspector: the failing case explains itself
    at.toggle(key="bench_only_failed").set_value(True).run()
    assert at.selectbox(key="bench_case").options == ["FAIL · t-04 · direct_facts · What OS does the user use?"]
    assert "Gentoo" in joined(at.error)
    assert "“I use Arch Linux.”" in joined(at.markdown)
    assert frame(at, "bench_case_hits")["text"].iloc[0] == "User uses Arch Linux."
    at.toggle(key="bench_only_failed").set_value(False).run()
    at.selectbox(key="bench_case").set_value("t-03").run()   # got [], but its candidates are kept
    assert "`[]`" in joined(at.markdown) and "User uses Arch Linux." in list(frame(at, "bench_case_below")["candidate"])
    at.selectbox(key="bench_case").set_value("t-02").run()
    md = joined(at.markdown)
    assert "- `forbidden`: “October 15”" in md and ":orange-badge[:material/swap_horiz: superseded]" in md

    # a second run (dev split only, another threshold, no restart) is compared with the first
    at.segmented_control(key="bench_split").set_value("dev")
    at.number_input(key="bench_set_threshold").set_value(0.3).run()
    at.button(key="bench_run").click().run()
    finish_job(at, store, "bench")
    assert metric(at, "Accuracy") == "100.0%"
    newest = sorted((store / "runs").glob("run-*.json"))[-1]
    assert "-dev-t0.30-" in newest.name and json.loads(newest.read_text())["meta"]["settings"]["threshold"] == 0.3
    assert json.loads(newest.read_text())["meta"]["extractor"]
    assert "t0.30" in at.selectbox(key="bench_view").format_func(at.selectbox(key="bench_view").value)
    settings = at.table[0].value
    assert settings.loc["threshold", "B"] == "0.30" and settings.loc["threshold", "changed"] == "≠ changed"
    assert settings.loc["threshold", "A"] == f"{Settings().threshold:.2f}"
    assert settings.loc["alpha", "changed"] == ""
    deltas = frame(at, "cmp_deltas").set_index("metric")
    assert deltas.loc["Accuracy", "delta"] == "+25.0 pt" and deltas.loc["Accuracy", "verdict"] == "better"
    flipped = frame(at, "cmp_flipped")
    assert list(flipped["id"]) == ["t-04"] and flipped["change"].iloc[0] == "only in A"

    # threshold sweep, saved and charted with the current default marked
    at.button(key="sweep_run").click().run()
    assert not at.exception
    assert len(list((store / "runs").glob("sweep-*.json"))) == 1
    best = metric(at, "Best threshold")
    assert best != "n/a" and len(best.split(".")[1]) == 2   # one number format: two decimals
    assert "plateau None" not in joined(at.caption)
    sweep_spec = json.dumps(json.loads(at.get("vega_lite_chart")[-1].proto.spec))
    assert f"current default {Settings().threshold:.2f}" in sweep_spec

    # replay a case in Recall: its messages go to a fresh user, the default user's memories are untouched
    before = app_engine(store).count_memories(user_id="default", status="all")
    at.selectbox(key="bench_case").set_value("t-02").run()
    at.button(key="bench_replay").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Recall" in joined(at.title)
    assert at.session_state["user"].startswith("replay-t-02-")
    assert at.text_input(key="recall_query").value == "When is the project deadline?"
    assert "**Project deadline is November 2.**" in joined(at.markdown)
    assert app_engine(store).count_memories(user_id="default", status="all") == before


def test_benchmark_running_job_survives_leaving_the_page_and_cancels(store):
    """A job keeps running while the visitor is elsewhere; the page shows it again, with progress and a cancel."""
    checked = []

    def held(job):  # stands in for a long run: one step done, then waits for the cancel like a runner between cases
        job.update(1, 3, "t-01 ok")
        assert job._cancel.wait(TIMEOUT)
        checked.append(True)
        job.check()
        return "never saved"

    at = start("recall")
    job = state._jobs(str(store.resolve())).start("bench", "dev, 3 cases", held)
    at.switch_page("pages/benchmark.py").run()
    assert not at.exception, [e.value for e in at.exception]
    bar = at.get("progress")[0].proto
    assert "Benchmark running in the background (dev, 3 cases): 1 / 3 · t-01 ok" in bar.text
    assert bar.value == 33
    at.switch_page("pages/ledger.py").run()
    at.switch_page("pages/benchmark.py").run()
    assert job.running and "1 / 3" in at.get("progress")[0].proto.text
    at.button(key="bench_cancel").click().run()
    toasts = joined(at.toast)  # the job may end before or after this run draws the page
    assert job.wait(TIMEOUT) and job.status == "cancelled" and checked == [True]
    at.run()
    assert not at.get("progress") and "cancelled after 1 of 3" in toasts + joined(at.toast)
    assert not list(store.glob("runs/run-*.json"))


def test_benchmark_locomo_sample_in_the_background(store):
    at = start("benchmark")
    assert at.text_input(key="locomo_path").value.endswith("evaluation/data/locomo_sample.json")
    at.text_input(key="locomo_path").set_value("no/such/file.json")
    at.button(key="locomo_run").click().run()
    assert "LoCoMo not started: no file at no/such/file.json" in joined(at.error)
    at.text_input(key="locomo_path").set_value(str(ROOT / "evaluation" / "data" / "locomo_sample.json"))
    at.number_input(key="locomo_limit").set_value(2)
    at.button(key="locomo_run").click().run()
    finish_job(at, store, "locomo")
    saved = list((store / "runs").glob("locomo-*.json"))
    assert len(saved) == 1 and "locomo_sample-2conv-" in saved[0].name
    result = json.loads(saved[0].read_text())
    for label in ("Ranking R@5", "Served R@5", "Answerable refused", "Abstention (cat. 5)",
                  "Cross-conversation refusal"):
        assert metric(at, label).endswith("%"), label
    assert metric(at, "Abstention (cat. 5)") == f"{100 * result['summary']['adversarial_abstention']:.1f}%"
    assert f"{result['ingest']['superseded']} memories superseded while reading them" in " ".join(
        c.value for c in at.caption)
    cats = frame(at, "locomo_categories").set_index("category")
    assert "5 adversarial" in cats.index and "1-4 answerable" in cats.index
    assert cats.loc["5 adversarial", "served nothing"] == pytest.approx(result["summary"]["adversarial_abstention"])

    # the inspector: a question's evidence turn beside what was recalled for it
    q = next(i for i, q in enumerate(result["questions"]) if q["evidence_texts"] and q["ranked"])
    at.selectbox(key="locomo_question").set_value(q).run()
    question = result["questions"][q]
    md = joined(at.markdown)
    assert question["question"] in md
    assert f"`{question['evidence'][0]}`" in md and question["evidence_texts"][0]["text"][:30] in md
    recalled = frame(at, "locomo_recalled")
    assert list(recalled["memory"]) == [h["text"] for h in question["ranked"]]
    at.selectbox(key="locomo_cat").set_value(5).run()
    assert all("adversarial" in o for o in at.selectbox(key="locomo_question").options)


def test_benchmark_unreadable_saved_run_is_reported(store):
    (store / "runs").mkdir(parents=True)
    (store / "runs" / "run-20261010-063000.json").write_text("{truncated", encoding="utf-8")
    at = start("benchmark")
    assert not at.exception
    assert at.error[0].value.startswith("Saved file unreadable: cannot read run-20261010-063000.json")
    assert at.selectbox(key="bench_view").options == ["2026-10-10 06:30:00 · CLI"]


def test_benchmark_bad_cases_file_shows_error(store, tmp_path, monkeypatch):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"id": "x", "category": "nope", "split": "dev", "messages": [], "query": ""}]))
    monkeypatch.setenv("MEMENGINE_CASES", str(bad))
    at = start("benchmark")
    at.button(key="bench_run").click().run()
    assert not at.exception
    assert at.error[0].value.startswith("Could not load the cases: invalid cases")


# ------------------------------------------------------------------------------------------ helpers
def _memory(i: int, status: str, replaced_by=None, value="v") -> Memory:
    return Memory(id=i, user_id="u", text=f"Fact {i}", type="fact", subject="user", attribute="a", value=value,
                  importance=0.5, status=status, replaced_by=replaced_by, created_at="2026-10-10T06:30:00+00:00",
                  superseded_at="2026-10-11T07:00:00+00:00" if replaced_by else None, source_message='say "hi"')


def test_lineage_dot_links_chain_and_escapes():
    dot = lineage.lineage_dot([_memory(1, "superseded", 2), _memory(2, "active")], selected_id=2)
    assert dot.startswith("digraph lineage {") and dot.endswith("}")
    assert 'm1 -> m2 [label="superseded\\n2026-10-11 07:00:00"]' in dot
    assert 'say \\"hi\\"' in dot
    assert "penwidth=3" in dot.split("m2 [", 1)[1]


def test_decompose_parts_add_up_to_score():
    for sem, lex, imp, alpha, w in [(0.6, 0.9, 0.8, 0.5, 0.1), (0.7, 0.0, 0.3, 0.85, 0.2), (0.4, 0.2, 0.5, 1.0, 0.0)]:
        score = max(sem, alpha * sem + (1 - alpha) * lex) + w * (imp - 0.5)
        parts = charts.decompose(score, sem, lex, imp, alpha, w)
        assert sum(parts.values()) == pytest.approx(score)
        assert parts["importance"] == pytest.approx(w * (imp - 0.5))


def test_runs_compare_and_labels(tmp_path):
    a = {"metrics": {"accuracy": 0.5, "latency_mean_ms": 10.0},
         "cases": [{"id": "c1", "passed": True}, {"id": "c2", "passed": False, "failures": []}]}
    b = {"metrics": {"accuracy": 1.0, "latency_mean_ms": 12.0},
         "cases": [{"id": "c1", "passed": True}, {"id": "c2", "passed": True}, {"id": "c3", "passed": False,
                                                                                "failures": ["x"]}]}
    diff = runs.compare(a, b)
    deltas = {d["key"]: d for d in diff["deltas"]}
    assert deltas["accuracy"]["delta"] == pytest.approx(0.5) and deltas["accuracy"]["better"] is True
    assert deltas["mean_latency_ms"]["better"] is False
    assert [(f["id"], f["change"]) for f in diff["flipped"]] == [("c2", "fixed"), ("c3", "only in B")]
    p = runs.save(b, tmp_path, "run", "dev")
    assert runs.list_runs(tmp_path, "run") == [p]
    assert runs.label(p).endswith(" · dev")
    assert runs.label("run-20261010-063000.json") == "2026-10-10 06:30:00 · CLI"
    assert runs.settings_tag({"threshold": 0.4, "alpha": 0.7, "top_k": 5}) == "t0.40-a0.70-k5"
    ra = {"meta": {"settings": {"threshold": 0.4, "alpha": 0.7}, "extractor": "rules", "git_commit": "abc"}}
    rb = {"meta": {"settings": {"threshold": 0.45, "alpha": 0.7}, "extractor": "rules", "git_commit": "abd"}}
    rows = {r["setting"]: r for r in runs.settings_diff(ra, rb)}
    assert rows["threshold"]["changed"] and not rows["alpha"]["changed"] and rows["commit"]["changed"]
    assert rows["top-k"]["A"] == "n/a"   # an old run without the field


def test_batch_parsing():
    assert batch.parse_lines("a\n\n b \n") == [{"text": "a"}, {"text": "b"}]
    msgs = batch.parse_upload("x.jsonl", b'"one"\n{"message": "two", "speaker": "me", "junk": 1}\n')
    assert msgs == [{"text": "one"}, {"text": "two", "speaker": "me"}]
    with pytest.raises(ValueError, match="line 1"):
        batch.parse_jsonl("[1, 2]")
    with pytest.raises(ValueError, match="not UTF-8"):
        batch.parse_upload("x.txt", b"\xff\xfe\xfa")


def test_charts_are_valid_vega_lite():
    """The charts skip Altair's validation when Streamlit renders them; validate them here instead."""
    import altair as alt
    import pandas as pd

    parts = [{"label": "1. a", "part": p, "value": v, "part_order": i}
             for i, (p, v) in enumerate([("semantic", 0.6), ("lexical", 0.1), ("importance", -0.02)])]
    scores = [{"label": "1. a", "score": 0.68, "cleared": "hit"}]

    def validated(spec: dict) -> dict:
        inline = {name: df.to_dict("records") for name, df in spec["datasets"].items()}
        alt.LayerChart.from_dict({**spec, "datasets": inline})  # raises if it does not conform to the schema
        return spec

    plain = validated(charts.score_parts(parts, scores, 0.4))
    assert plain["datasets"]["rules"]["text"].tolist() == ["threshold 0.40"]
    with_cutoff = validated(charts.score_parts(parts, scores, 0.4, cutoff=0.32))
    assert with_cutoff["datasets"]["rules"]["text"].tolist() == ["threshold 0.40", "cut-off 0.32"]
    # the layers are the same whatever the knobs: only the data moves, so a knob never rebuilds the view
    assert {k: v for k, v in plain.items() if k != "datasets"} == {k: v for k, v in with_cutoff.items()
                                                                    if k != "datasets"}
    assert [layer["mark"]["type"] for layer in plain["layer"]] == ["bar", "tick", "rule", "text", "rule", "text"]
    assert plain["height"] == {"step": 34}
    cats = pd.DataFrame([{"category": "Direct Facts", "accuracy": 0.5, "passed": 1, "total": 2}])
    charts.category_accuracy(cats).to_dict(validate=True)
    curve = pd.DataFrame([{"threshold": t, "metric": "accuracy", "value": 0.9} for t in (0.3, 0.4)])
    sweep_spec = charts.sweep(curve, 0.4).to_dict(validate=True)
    assert sweep_spec["layer"][2]["encoding"]["text"] == {"value": "current default 0.40"}
    marked = charts.sweep(curve, 0.4, chosen=0.35, plateau=(0.3, 0.4)).to_dict(validate=True)
    assert [layer["mark"]["type"] for layer in marked["layer"]] == ["rect", "line", "rule", "text", "rule", "text"]
    assert marked["layer"][-1]["encoding"]["text"] == {"value": "chosen 0.35"}
