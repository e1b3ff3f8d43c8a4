"""The Chat page in AppTest on a real store and the real model: a five-turn conversation with an
update in the middle, slash commands, the session summary, and an LLM that fails."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

pytest.importorskip("streamlit")
from streamlit.runtime.pages_manager import PagesManager  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from cockpit import chat, state  # noqa: E402
from engine import MemoryEngine, Settings  # noqa: E402

pytestmark = pytest.mark.integration

TIMEOUT = 180


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A fresh store, every page run through app.py as in a running server (see tests/test_cockpit.py)."""
    data = tmp_path / "store"
    monkeypatch.setenv("MEMENGINE_DATA_DIR", str(data))
    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)
    yield data
    state.release_engines()


def start() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert not at.exception, [e.value for e in at.exception]
    at.switch_page("pages/chat.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def say(at: AppTest, text: str) -> AppTest:
    at.chat_input(key="chat_input").set_value(text).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def session(at: AppTest) -> chat.Session:
    return at.session_state["chat_session"]


def test_five_turns_with_an_update_in_the_middle(store):
    at = start()
    assert "don't know anything about you yet" in markdown(at)
    say(at, "I live in Berlin.")
    say(at, "My project deadline is October 15.")
    say(at, "Actually, the deadline moved to November 2.")
    update = session(at).turns[-1]
    assert update.ingest.status == "superseded"
    shown = markdown(at)
    assert "**superseded**" in shown and "Project deadline is November 2." in shown
    assert "replaces #" in shown and "October 15" in shown  # what it replaced, now old
    assert any(b.label.endswith("→ ledger") for b in at.button)

    say(at, "When is the project deadline?")
    ask = session(at).turns[-1]
    assert "November 2" in ask.reply and "October 15" not in ask.reply  # answered from the new fact
    assert "[#" in ask.reply and ask.context.items[0].status == "current"
    assert ask.ingest.status == "ignored"  # a question is not a memory
    assert ask.context.text in [c.value for c in at.code]  # the block exactly as sent

    say(at, "What is my favourite food?")
    assert session(at).turns[-1].reply.startswith("I don't know")

    # End session: one summary memory cited to the five messages; the next session greets with the profile
    ids = session(at).message_ids
    assert len(ids) == 5
    at.button(key="chat_end").click().run()
    assert not at.exception
    with_summary = [s.value for s in at.success]
    assert any("Session summary saved as memory" in s for s in with_summary)
    assert "Welcome back: your project deadline is November 2" in markdown(at)
    eng = state._engine(str(store.resolve()), Settings().model_name)
    summaries = [m for m in eng.list_memories("default") if m.attribute.startswith("session_")]
    assert len(summaries) == 1 and all(f"#{i}" in summaries[0].text for i in ids)


def test_slash_commands_and_forget_with_confirmation(store):
    with MemoryEngine(Settings(data_dir=store), embedder=state._embedder(Settings().model_name)) as eng:
        eng.ingest_many(["I live in Berlin.", "I moved to Lisbon.", "I love hiking."])
    at = start()
    assert "Welcome back:" in markdown(at) and "you live in Lisbon" in markdown(at)
    say(at, "/help")
    assert "/categories" in markdown(at)
    say(at, "/memories")
    table = at.dataframe[-1].value
    assert set(table["status"]) == {"Current", "Old"} and len(table) == 3
    say(at, "/categories")
    assert "User loves hiking." in markdown(at)
    say(at, "/forget")
    warning = " ".join(w.value for w in at.warning)
    assert "ALL 3 memories" in warning and "3 logged messages" in warning
    at.button(key="chat_forget_no").click().run()
    eng = state._engine(str(store.resolve()), Settings().model_name)
    assert eng.count_memories("default") == 2  # cancel deleted nothing
    say(at, "/forget")
    at.button(key="chat_forget_yes").click().run()
    assert not at.exception
    assert eng.count_memories("default", status="all") == 0
    assert any("Forgot user" in s.value for s in at.success)


def test_an_unreachable_llm_gives_a_clear_message_and_the_template_reply(store, monkeypatch, free_port):
    monkeypatch.setenv("MEMENGINE_LLM_URL", f"http://127.0.0.1:{free_port()}/v1")
    monkeypatch.setenv("MEMENGINE_LLM_MODEL", "tiny")
    at = start()
    say(at, "I use Arch Linux.")
    turn = session(at).turns[-1]
    assert "cannot reach" in turn.error
    assert any("The LLM failed" in w.value for w in at.warning)
    assert turn.ingest.status == "created"  # the message is still remembered
    at.button(key="chat_end").click().run()  # the summary falls back to the one without an LLM
    assert not at.exception
    assert any("LLM failed" in s.value and "summarised without it" in s.value for s in at.success)


@pytest.fixture
def llm(monkeypatch):
    """A real chat-completions server on 127.0.0.1 the page talks to: it streams `llm.pieces` as the reply,
    answers a non-streamed request (the session summary) with one sentence, and keeps every request in
    `llm.seen`."""
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from types import SimpleNamespace

    fake = SimpleNamespace(seen=[], pieces=[])

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            fake.seen.append(body)
            if body.get("stream"):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for piece in fake.pieces:
                    self.wfile.write(f"data: {json.dumps({'choices': [{'delta': {'content': piece}}]})}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
            else:
                out = json.dumps({"choices": [{"message": {"content": "The user set a deadline."}}]}).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("MEMENGINE_LLM_URL", f"http://127.0.0.1:{httpd.server_address[1]}/v1")
    monkeypatch.setenv("MEMENGINE_LLM_MODEL", "tiny")
    try:
        yield fake
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_replies_and_summary_from_a_local_llm(store, llm):
    """The reply streams from the LLM with the context block in its system prompt, and End session has it
    write the summary."""
    llm.pieces = ["From memory: ", "the deadline is November 2 [#2]."]
    at = start()
    say(at, "My project deadline is November 2.")
    say(at, "When is the project deadline?")
    turn = session(at).turns[-1]
    assert turn.reply == "From memory: the deadline is November 2 [#2]." and turn.error is None
    system = llm.seen[-1]["messages"][0]["content"]
    assert turn.context.text in system and "Project deadline is November 2. [#" in system
    assert llm.seen[-1]["messages"][-1] == {"role": "user", "content": "When is the project deadline?"}
    at.button(key="chat_end").click().run()
    assert not at.exception
    assert any("The user set a deadline." in s.value for s in at.success)  # the LLM wrote the summary
    assert llm.seen[-1]["stream"] is False and "deadline" in llm.seen[-1]["messages"][-1]["content"]


def test_an_answer_to_the_llms_question_is_kept_with_it(store, llm):
    llm.pieces = ["Nice to meet you! ", "Where are you based these days?"]
    at = start()
    say(at, "Hi there, I'm new here.")
    say(at, "Berlin, since last spring.")
    turn = session(at).turns[-1]
    assert [m.text for m in turn.ingest.memories] == [
        "Berlin, since last spring. (asked: Where are User based these days?)"]


def test_a_template_reply_is_no_question_answered():
    """The template reply quotes memories, which may hold a question; only an LLM's reply is asked."""
    quoted = chat.Turn(text="what did I say?", reply="Here is what I remember:\n- Ginger. (asked: What's User's cat?)")
    asked = chat.Turn(text="hi", reply="Where are you based?", prompt=[{"role": "user", "content": "hi"}])
    failed = chat.Turn(text="hi", reply="Where are you based?", prompt=[], error="timeout")
    answer = chat.Turn(text="Berlin.")
    for before, expected in ((quoted, None), (asked, "Where are you based?"), (failed, None)):
        talk = chat.Session(user_id="u", greeting="", turns=[before, answer])
        assert chat.answered(talk, answer) == expected
    command = chat.Turn(text="/profile", command="/profile")
    assert chat.answered(chat.Session(user_id="u", greeting="", turns=[asked, command, answer]), answer) == \
        "Where are you based?"
    assert chat.answered(chat.Session(user_id="u", greeting="", turns=[answer]), answer) is None
