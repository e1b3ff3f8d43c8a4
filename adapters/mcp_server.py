"""MCP server over stdio (official `mcp` SDK, v2 `MCPServer`): `memengine mcp`.

Tools: remember, recall, context, profile, list_memories, history, forget (soft), restore, erase (hard).
stdout carries only the protocol; logs and anything a library prints go to stderr.
"""
from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
from collections.abc import Iterator
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

import engine as _engine_pkg
from adapters.serialize import context_dict, hit_dict, ingest_dict, memory_dict, profile_dict
from engine import MemoryEngine, NotFoundError, Settings
from engine.limits import LIST_LIMIT_MAX, TOP_K_MAX, TOP_K_MIN

log = logging.getLogger("memengine.mcp")

INSTRUCTIONS = """\
Long-term memory about the user, kept on this machine.
- Call `remember` with what the user said when it states a durable fact, preference, project detail,
  event or goal (small talk is ignored; an update such as "actually, X moved to Y" supersedes the old fact).
- At the start of a conversation, `profile` gives the user's most important facts and a greeting.
- `context` gives the memories relevant to a turn as a ready block for your prompt, each with its [#id];
  it says so explicitly when nothing relevant is known.
- Call `recall` before answering questions about the user. When it returns no hits (confidence "unknown"),
  say you do not know rather than guessing. Cite hits by their source message.
- `history` shows how a fact changed over time.
- `forget` is a SOFT delete: the memory leaves recall but stays stored and `restore` brings it back.
  When the user asks to have something really forgotten (erased), call `erase`: it removes the memory
  and its source message from the store for good.
"""

UserId = Annotated[str, Field(min_length=1, max_length=256, description="Whose memories; default \"default\".")]
MemoryId = Annotated[int, Field(ge=1, le=2**63 - 1, description="A memory id from recall or list_memories.")]


@contextlib.contextmanager
def _engine_errors(memory_id: int | None = None) -> Iterator[None]:
    try:
        yield
    except NotFoundError:
        raise ToolError(f"Memory {memory_id} not found.") from None
    except ValueError as exc:
        raise ToolError(str(exc)) from None


def build_server(engine: MemoryEngine) -> MCPServer:
    """An MCPServer whose tools call `engine` (which the caller opens and closes)."""
    server = MCPServer("memengine", instructions=INSTRUCTIONS, version=getattr(_engine_pkg, "__version__", "0.1.0"))

    @server.tool()
    def remember(
        text: Annotated[str, Field(min_length=1, description="What the user said, verbatim.")],
        user_id: UserId = "default",
        in_reply_to: Annotated[str | None, Field(
            min_length=1, description="Your own last message, when the user's text answers it "
                                      "('Where are you based?' before 'Berlin').")] = None,
    ) -> dict[str, Any]:
        """Store what the user said. Facts are extracted; small talk is ignored; a fact that updates an
        older one supersedes it (the old one stays in history); an answer that says only its value
        ("Berlin") is kept with the question in `in_reply_to`. Returns what happened."""
        with _engine_errors():
            r = engine.ingest(text, user_id=user_id, in_reply_to=in_reply_to)
        return ingest_dict(r)

    @server.tool()
    def recall(
        query: Annotated[str, Field(min_length=1, description="A question or keywords.")],
        user_id: UserId = "default",
        top_k: Annotated[int, Field(ge=TOP_K_MIN, le=TOP_K_MAX, description="At most this many hits.")] = 5,
    ) -> dict[str, Any]:
        """Find what is remembered about a question. Each hit has its score (semantic, lexical,
        importance parts) and a citation (source message, source_id, timestamp). confidence is
        certain | vague | unknown; no hits means it is not in memory: do not guess."""
        with _engine_errors():
            res = engine.recall(query, user_id=user_id, top_k=top_k)
        return {"query": query, "confidence": res.confidence, "hits": [hit_dict(h) for h in res.hits]}

    @server.tool()
    def context(
        query: Annotated[str, Field(min_length=1, description="The user's turn.")],
        user_id: UserId = "default",
        budget_chars: Annotated[int | None, Field(ge=1, description="At most this many characters "
                                                                    "(default from settings).")] = None,
    ) -> dict[str, Any]:
        """The memories relevant to this turn as a block to put in your prompt (`text`): current facts
        first, superseded ones marked OLD with what replaced them, each with its [#id] to cite. When
        `abstained` is true nothing relevant is known: say so rather than guessing."""
        with _engine_errors():
            ctx = engine.context(query, user_id=user_id, budget_chars=budget_chars)
        return context_dict(ctx)

    @server.tool()
    def profile(user_id: UserId = "default") -> dict[str, Any]:
        """The user's most important current facts (importance, then recency) and a greeting built from
        them: call it at the start of a conversation to welcome a returning user."""
        with _engine_errors():
            p = engine.profile(user_id=user_id)
        return profile_dict(p)

    @server.tool()
    def list_memories(
        include_superseded: bool = False,
        user_id: UserId = "default",
        limit: Annotated[int, Field(ge=1, le=LIST_LIMIT_MAX, description="At most this many, newest first.")] = 100,
    ) -> dict[str, Any]:
        """List the user's active memories (and the superseded ones with include_superseded)."""
        with _engine_errors():
            mems = engine.list_memories(user_id=user_id, status="active", limit=limit)
            if include_superseded:
                mems += engine.list_memories(user_id=user_id, status="superseded", limit=limit)
                mems.sort(key=lambda m: m.id, reverse=True)
                mems = mems[:limit]
        return {"count": len(mems), "memories": [memory_dict(m) for m in mems]}

    @server.tool()
    def history(memory_id: MemoryId, user_id: UserId = "default") -> dict[str, Any]:
        """How a fact changed: the whole supersede chain of a memory, oldest first."""
        with _engine_errors(memory_id):
            chain = engine.history(memory_id, user_id=user_id)
        return {"memory_id": memory_id, "history": [memory_dict(m) for m in chain]}

    @server.tool()
    def forget(memory_id: MemoryId, user_id: UserId = "default") -> dict[str, Any]:
        """Soft delete of one memory: it leaves recall, but the store keeps it (status deleted) and
        `restore` brings it back. To remove it for good, use `erase`."""
        with _engine_errors(memory_id):
            m = engine.delete(memory_id, user_id=user_id)
        return {"status": "deleted", "soft": True, "memory": memory_dict(m)}

    @server.tool()
    def restore(memory_id: MemoryId, user_id: UserId = "default") -> dict[str, Any]:
        """Undo a `forget` (soft delete). Refused when a newer value now holds the same single-valued fact."""
        with _engine_errors(memory_id):
            m = engine.restore(memory_id, user_id=user_id)
        return {"status": m.status, "memory": memory_dict(m)}

    @server.tool()
    def erase(memory_id: MemoryId, user_id: UserId = "default") -> dict[str, Any]:
        """Really forget one memory: a hard delete that leaves no copy in the store (its source message
        goes too when nothing else was derived from it). Cannot be undone."""
        with _engine_errors(memory_id):
            erased = engine.erase(memory_id, user_id=user_id)
        return {"status": "erased", "memory_id": memory_id, "erased": erased}

    return server


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Send everything written to stdout (Python or C level) to stderr for the duration."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


class _PrintsToStderr(io.TextIOBase):
    """Stands in for sys.stdout while serving: text printed by anyone goes to stderr, while
    `.buffer` still names the real stdout so the SDK can claim fd 1 for the protocol. (The SDK
    points fd 1 at stderr while serving, but text left in Python's stdout buffer would otherwise
    be flushed onto the wire at exit.)"""

    def __init__(self, real: Any) -> None:
        self._real = real

    @property
    def buffer(self) -> Any:  # type: ignore[override]
        return self._real.buffer

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return sys.stderr.encoding

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:  # type: ignore[override]
        return sys.stderr.write(s)

    def flush(self) -> None:
        sys.stderr.flush()

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return sys.stderr.fileno()


def serve_stdio(settings: Settings) -> int:
    """Open the engine (model load included) and serve MCP on stdin/stdout until the client leaves."""
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    with stdout_to_stderr():  # the model load must not write a byte to the protocol stream
        engine = MemoryEngine(settings)
    real_stdout = sys.stdout
    try:
        log.info("memengine MCP server ready (data: %s)", settings.data_dir)
        sys.stdout = _PrintsToStderr(real_stdout)
        build_server(engine).run("stdio")  # while serving, the SDK also points fd 1 at stderr
    finally:
        sys.stdout = real_stdout
        engine.close()
    return 0
