"""An OpenAI-compatible chat-completions client (stdlib only), the prompt that puts a context block
in front of the model, and the template reply used when no LLM is configured.

Nothing leaves the machine unless a URL is given (MEMENGINE_LLM_URL): `client_from_settings`
returns None without one."""
from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any, Iterator

from .model import EngineError

if TYPE_CHECKING:
    from .context import Context, Profile
    from .settings import Settings

ANSWER_RULES = (
    "You are a helpful assistant with a memory of this user. Answer only from the memories below and "
    "the conversation; cite the [#id] of each memory you use. If the memories do not contain the "
    "answer, say \"I don't know\" instead of guessing. Facts marked OLD are no longer true; use them "
    "only when the user asks about the past."
)
MAX_ERROR_BODY = 300


class LLMError(EngineError):
    """The language model could not give a reply."""


class LLMUnreachableError(LLMError):
    """Nothing answers at the configured URL."""


class LLMTimeoutError(LLMError):
    """The server took longer than the timeout."""


class LLMResponseError(LLMError):
    """The server answered with an error status or something that is not a chat completion."""


class ChatClient:
    """POSTs to <url>/chat/completions (the URL may already end with it), e.g. a local llama.cpp
    (http://127.0.0.1:8080/v1) or Ollama (http://127.0.0.1:11434/v1) server."""

    def __init__(self, url: str, model: str, timeout_s: float = 60.0, api_key: str | None = None):
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError(f"url must start with http:// or https://, got {url!r}")
        if not isinstance(model, str) or not model.strip():
            raise ValueError("model must be a non-empty string")
        if not float(timeout_s) > 0:
            raise ValueError(f"timeout_s must be positive, got {timeout_s}")
        base = url.rstrip("/")
        self.endpoint = base if base.endswith("/chat/completions") else base + "/chat/completions"
        self.model = model.strip()
        self.timeout_s = float(timeout_s)
        self.api_key = api_key

    def __repr__(self) -> str:  # never show the key
        return f"ChatClient({self.endpoint!r}, model={self.model!r}, timeout_s={self.timeout_s})"

    def _open(self, messages: list[dict[str, str]], stream: bool):
        _check_messages(messages)
        body = json.dumps({"model": self.model, "messages": messages, "stream": stream}).encode()
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream" if stream else "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.endpoint, data=body, headers=headers, method="POST")
        try:
            return urllib.request.urlopen(request, timeout=self.timeout_s)
        except urllib.error.HTTPError as e:
            detail = e.read(MAX_ERROR_BODY).decode(errors="replace").strip()
            raise LLMResponseError(f"the LLM server at {self.endpoint} answered {e.code} {e.reason}: {detail}") from None
        except (socket.timeout, TimeoutError):
            raise LLMTimeoutError(f"the LLM server at {self.endpoint} did not answer within {self.timeout_s:g} s") from None
        except urllib.error.URLError as e:
            if isinstance(e.reason, (socket.timeout, TimeoutError)):
                raise LLMTimeoutError(
                    f"the LLM server at {self.endpoint} did not answer within {self.timeout_s:g} s") from None
            raise LLMUnreachableError(f"cannot reach the LLM server at {self.endpoint}: {e.reason}") from None
        except OSError as e:
            raise LLMUnreachableError(f"cannot reach the LLM server at {self.endpoint}: {e}") from None

    def complete(self, messages: list[dict[str, str]]) -> str:
        """The whole reply text."""
        with self._open(messages, stream=False) as response:
            raw = _read(response, self)
        try:
            data = json.loads(raw)
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise LLMResponseError(
                f"the LLM server at {self.endpoint} sent something that is not a chat completion: "
                f"{raw[:MAX_ERROR_BODY].decode(errors='replace')!r}") from None
        if not isinstance(content, str):
            raise LLMResponseError(f"the LLM server at {self.endpoint} sent a reply without text")
        return content

    def stream(self, messages: list[dict[str, str]]) -> Iterator[str]:
        """The reply in pieces as the server sends them (server-sent events, `data: {...}` lines)."""
        with self._open(messages, stream=True) as response:
            while True:
                try:
                    line = response.readline()
                except (socket.timeout, TimeoutError):
                    raise LLMTimeoutError(
                        f"the LLM server at {self.endpoint} stopped sending for {self.timeout_s:g} s") from None
                except OSError as e:
                    raise LLMUnreachableError(f"the connection to {self.endpoint} broke: {e}") from None
                if not line:
                    return  # the server closed the stream without [DONE]; what came is the reply
                text = line.decode(errors="replace").strip()
                if not text.startswith("data:"):
                    continue  # blank separators, comments, event: lines
                payload = text[5:].strip()
                if payload == "[DONE]":
                    return
                try:
                    piece = json.loads(payload)["choices"][0].get("delta", {}).get("content")
                except (ValueError, KeyError, IndexError, TypeError, AttributeError):
                    raise LLMResponseError(
                        f"the LLM server at {self.endpoint} sent a malformed stream event: {payload[:MAX_ERROR_BODY]!r}"
                    ) from None
                if piece:
                    yield piece


def _read(response, client: ChatClient) -> bytes:
    try:
        return response.read()
    except (socket.timeout, TimeoutError):
        raise LLMTimeoutError(f"the LLM server at {client.endpoint} did not answer within {client.timeout_s:g} s") from None
    except OSError as e:
        raise LLMUnreachableError(f"the connection to {client.endpoint} broke: {e}") from None


def _check_messages(messages: list[dict[str, str]]) -> None:
    if not isinstance(messages, list) or not messages:
        raise ValueError("messages must be a non-empty list of {'role', 'content'} dicts")
    for m in messages:
        if not isinstance(m, dict) or m.get("role") not in ("system", "user", "assistant") \
                or not isinstance(m.get("content"), str):
            raise ValueError(f"each message needs a role (system/user/assistant) and string content, got {m!r}")


def client_from_settings(settings: "Settings") -> ChatClient | None:
    """The configured client, or None when MEMENGINE_LLM_URL is not set (then nothing leaves the machine)."""
    if not settings.llm_url:
        return None
    return ChatClient(settings.llm_url, settings.llm_model, settings.llm_timeout_s, settings.llm_api_key)


def build_prompt(user_message: str, context: "Context", profile: "Profile | None" = None,
                 history: list[dict[str, str]] | None = None) -> list[dict[str, str]]:
    """Chat messages for one turn: the rules and the context block (exactly context.text) in the
    system prompt, then earlier turns, then the user's message."""
    if not isinstance(user_message, str) or not user_message.strip():
        raise ValueError("user_message must be a non-empty string")
    system = f"{ANSWER_RULES}\n\n{context.text}"
    if profile is not None and profile.items:
        system += "\n\nAt the start of this session you greeted the user with: " + profile.greeting
    return [{"role": "system", "content": system}, *(history or []), {"role": "user", "content": user_message}]


def template_reply(context: "Context") -> str:
    """The reply without an LLM: what is remembered, with citations, or that nothing is."""
    if context.abstained or not context.items:
        return "I don't know: nothing relevant is stored about that."
    current = [i for i in context.items if i.status == "current"]
    old = [i for i in context.items if i.status == "old"]
    lines = ["Here is what I remember:"] if current else []
    lines += [f"- {i.text} [#{i.memory_id}]" for i in current]
    if old:
        lines.append("Earlier (no longer true):")
        for i in old:
            now = f', replaced by "{i.replaced_by_text}" [#{i.replaced_by_id}]' if i.replaced_by_text else ""
            lines.append(f"- {i.text} [#{i.memory_id}]{now}")
    if context.omitted:
        lines.append(f"(and {context.omitted} more I left out)")
    return "\n".join(lines)


def summary_prompt(messages: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Chat messages asking an LLM for a session summary of the user's messages."""
    said = "\n".join(f"- {m['text']}" for m in messages)
    return [
        {"role": "system", "content": "Summarise what the user said in this chat session in at most three "
                                      "sentences, in the third person (\"The user ...\"), keeping every "
                                      "durable fact, date and decision. Reply with the summary only."},
        {"role": "user", "content": said},
    ]
