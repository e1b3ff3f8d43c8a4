"""The chat-completions client against a real HTTP server on 127.0.0.1, started and stopped here."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from engine import ChatClient, LLMResponseError, LLMTimeoutError, LLMUnreachableError, Settings
from engine.context import Context, ContextItem
from engine.llm import ANSWER_RULES, build_prompt, client_from_settings, template_reply

pytestmark = pytest.mark.integration


class ChatServer(BaseHTTPRequestHandler):
    """Speaks chat-completions; what it does depends on the path's first segment."""

    requests: list[dict] = []

    def log_message(self, *args):  # keep the test output clean
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        ChatServer.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
        mode = self.path.split("/")[1]
        last = body["messages"][-1]["content"]
        if mode == "fail":
            self._send(500, b'{"error": "model crashed"}')
        elif mode == "garbage":
            self._send(200, b"this is not json")
        elif mode == "slow":
            time.sleep(3)  # far past the client's 0.5 s: the client has hung up by now
            try:
                self._send(200, json.dumps({"choices": [{"message": {"content": "late"}}]}).encode())
            except (BrokenPipeError, ConnectionResetError):
                pass
        elif body.get("stream"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for word in ["You ", "said: ", last]:
                event = {"choices": [{"delta": {"content": word}}]}
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
            if mode != "nodone":
                self.wfile.write(b"data: [DONE]\n\n")
        else:
            self._send(200, json.dumps({"choices": [{"message": {"role": "assistant", "content": f"You said: {last}"}}]}).encode())

    def _send(self, code: int, payload: bytes):
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture(scope="module")
def server():
    ChatServer.requests = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), ChatServer)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


HELLO = [{"role": "user", "content": "hello"}]


def test_complete(server):
    client = ChatClient(f"{server}/ok/v1", "tiny", timeout_s=10, api_key="k3y")
    assert client.complete(HELLO) == "You said: hello"
    sent = ChatServer.requests[-1]
    assert sent["path"] == "/ok/v1/chat/completions" and sent["auth"] == "Bearer k3y"
    assert sent["body"]["model"] == "tiny" and sent["body"]["stream"] is False
    assert "k3y" not in repr(client)


def test_stream(server):
    client = ChatClient(f"{server}/ok/v1/chat/completions", "tiny", timeout_s=10)
    assert list(client.stream(HELLO)) == ["You ", "said: ", "hello"]
    assert ChatServer.requests[-1]["body"]["stream"] is True
    # a server that closes the stream without [DONE] still gave its reply
    assert "".join(ChatClient(f"{server}/nodone/v1", "tiny", timeout_s=10).stream(HELLO)) == "You said: hello"


def test_slow_server_times_out_with_a_clear_error(server):
    client = ChatClient(f"{server}/slow/v1", "tiny", timeout_s=0.5)
    with pytest.raises(LLMTimeoutError, match="did not answer within 0.5 s"):
        client.complete(HELLO)
    with pytest.raises(LLMTimeoutError):
        list(client.stream(HELLO))


def test_failing_server(server):
    with pytest.raises(LLMResponseError, match="500.*model crashed"):
        ChatClient(f"{server}/fail/v1", "tiny", timeout_s=10).complete(HELLO)
    with pytest.raises(LLMResponseError, match="not a chat completion"):
        ChatClient(f"{server}/garbage/v1", "tiny", timeout_s=10).complete(HELLO)


def test_unreachable_port(free_port):
    client = ChatClient(f"http://127.0.0.1:{free_port()}/v1", "tiny", timeout_s=5)
    with pytest.raises(LLMUnreachableError, match="cannot reach"):
        client.complete(HELLO)


def test_bad_arguments():
    with pytest.raises(ValueError):
        ChatClient("ftp://x", "m")
    with pytest.raises(ValueError):
        ChatClient("http://127.0.0.1:1", "")
    with pytest.raises(ValueError):
        ChatClient("http://127.0.0.1:1", "m", timeout_s=0)
    with pytest.raises(ValueError):
        ChatClient("http://127.0.0.1:1", "m").complete([{"role": "robot", "content": "x"}])


def test_nothing_leaves_the_machine_without_a_url(monkeypatch):
    assert client_from_settings(Settings()) is None
    monkeypatch.setenv("MEMENGINE_LLM_URL", "http://127.0.0.1:8080/v1")
    monkeypatch.setenv("MEMENGINE_LLM_MODEL", "llama")
    client = client_from_settings(Settings())
    assert client.endpoint == "http://127.0.0.1:8080/v1/chat/completions" and client.model == "llama"


def _context(items, abstained=False):
    text = "\n".join(["header"] + [i.line for i in items]) if items else "header\nNothing relevant is known about this."
    return Context("q", "u", text, items, abstained, 0, 2000, False)


def test_prompt_puts_the_context_block_in_the_system_message():
    item = ContextItem(7, "User lives in Lisbon.", 0.9, "current", line="- User lives in Lisbon. [#7]")
    ctx = _context([item])
    messages = build_prompt("Where do I live?", ctx)
    assert messages[0]["role"] == "system" and ctx.text in messages[0]["content"]
    assert ANSWER_RULES in messages[0]["content"] and "I don't know" in messages[0]["content"]
    assert messages[-1] == {"role": "user", "content": "Where do I live?"}
    with pytest.raises(ValueError):
        build_prompt("  ", ctx)


def test_template_reply_cites_or_says_it_does_not_know():
    cur = ContextItem(7, "User lives in Lisbon.", 0.9, "current")
    old = ContextItem(3, "User lives in Berlin.", 0.7, "old", replaced_by_id=7, replaced_by_text="User lives in Lisbon.")
    reply = template_reply(_context([cur, old]))
    assert "User lives in Lisbon. [#7]" in reply and "no longer true" in reply and "[#3]" in reply
    assert template_reply(_context([], abstained=True)).startswith("I don't know")
