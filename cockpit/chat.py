"""Helpers for the Chat page: one turn (context, reply, then ingest), slash commands, and the rows
the page shows. No Streamlit here, so each piece can be checked on its own."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

from engine import Context, EngineError, IngestResult, MemoryEngine
from engine.llm import ChatClient, LLMError, build_prompt, template_reply

COMMANDS = {
    "/memories": "every memory of this user, current and old, with its status and when it was saved",
    "/categories": "this user's current memories grouped by type (fact, preference, project_detail, event, goal)",
    "/forget": "delete ALL of this user's memories and messages, for good (asks first)",
    "/help": "this list",
}
HELP = "\n".join(["**Commands**", *(f"- `{c}`: {what}" for c, what in COMMANDS.items()),
                  "", "Anything else is a message: I answer from memory, then remember what it says."])


@dataclass
class Turn:
    """One exchange: what the user said, what was recalled and sent, the reply, what memory did."""

    text: str
    context: Context | None = None
    prompt: list[dict[str, str]] | None = None  # None when the template reply was used
    reply: str = ""
    error: str | None = None  # the LLM failed; the reply is then the template one
    ingest: IngestResult | None = None
    ingest_error: str | None = None
    command: str | None = None  # a slash command instead of a message
    data: Any = None  # what the command shows


@dataclass
class Session:
    """The page's conversation for one user."""

    user_id: str
    greeting: str
    turns: list[Turn] = field(default_factory=list)

    @property
    def message_ids(self) -> list[int]:
        return [t.ingest.message_id for t in self.turns if t.ingest is not None and t.ingest.message_id is not None]

    def history(self, limit: int = 6) -> list[dict[str, str]]:
        """Earlier message turns as chat messages for the LLM (commands left out)."""
        out: list[dict[str, str]] = []
        for t in self.turns:
            if t.command is None and t.reply:
                out += [{"role": "user", "content": t.text}, {"role": "assistant", "content": t.reply}]
        return out[-2 * limit:]


def parse_command(text: str) -> str | None:
    """The slash command a message is, or None for an ordinary message. Unknown commands give "/help"."""
    word = text.strip().split(maxsplit=1)[0].lower() if text.strip() else ""
    if not word.startswith("/"):
        return None
    return word if word in COMMANDS else "/help"


def recall(eng: MemoryEngine, user_id: str, text: str) -> Turn:
    """The first half of a turn: the context block for this message."""
    return Turn(text=text, context=eng.context(text, user_id=user_id))


def prompt_for(turn: Turn, session: Session) -> list[dict[str, str]]:
    turn.prompt = build_prompt(turn.text, turn.context, history=session.history())
    return turn.prompt


def stream_reply(turn: Turn, session: Session, client: ChatClient) -> Iterator[str]:
    """The LLM's reply in pieces; on failure the error is kept and the template reply is given instead."""
    pieces: list[str] = []
    try:
        for piece in client.stream(prompt_for(turn, session)):
            pieces.append(piece)
            yield piece
    except LLMError as exc:
        turn.error = str(exc)
        fallback = ("\n\n" if pieces else "") + template_reply(turn.context)
        pieces.append(fallback)
        yield fallback
    turn.reply = "".join(pieces)


def template(turn: Turn) -> str:
    turn.reply = template_reply(turn.context)
    return turn.reply


def answered(session: Session, turn: Turn) -> str | None:
    """What the user's message answers: the LLM's reply just before it ("Where are you based?" before
    "Berlin"). A template reply asks nothing, and quotes memories that may hold questions."""
    at = next((n for n, t in enumerate(session.turns) if t is turn), len(session.turns))
    before = [t for t in session.turns[:at] if t.command is None]
    last = before[-1] if before else None
    if last is None or last.prompt is None or last.error is not None or not last.reply.strip():
        return None
    return last.reply


def remember(eng: MemoryEngine, user_id: str, turn: Turn, in_reply_to: str | None = None) -> None:
    """The second half of a turn, after the reply is shown: ingest the message (with the question it
    answers, `answered`)."""
    try:
        turn.ingest = eng.ingest(turn.text, user_id=user_id, speaker="user", in_reply_to=in_reply_to)
    except (ValueError, EngineError) as exc:
        turn.ingest_error = str(exc)


def change_rows(result: IngestResult) -> list[dict[str, Any]]:
    """What one message did to memory, one row per fact (or one row when it was ignored)."""
    if not result.outcomes:
        return [{"action": result.status, "memory_id": None, "text": result.message, "replaced": None,
                 "replaced_ids": []}]
    return [{"action": o.action, "memory_id": o.memory.id, "text": o.memory.text,
             "replaced": "; ".join(f"#{s.id} {s.text}" for s in o.superseded) or None,
             "replaced_ids": [s.id for s in o.superseded]} for o in result.outcomes]


def recalled_rows(context: Context) -> list[dict[str, Any]]:
    return [{"id": f"#{i.memory_id}", "status": i.status, "score": i.score, "memory": i.text,
             "replaced by": f"#{i.replaced_by_id}" if i.replaced_by_id else "",
             "source": i.source_id or (f"message #{i.message_id}" if i.message_id else ""),
             "said at": (i.timestamp or "")[:19]} for i in context.items]


def memories_rows(eng: MemoryEngine, user_id: str) -> list[dict[str, Any]]:
    """/memories: every memory but deleted ones, current first, then old, newest first in each."""
    total = eng.count_memories(user_id, status="all")
    rows = [m for m in eng.list_memories(user_id, status="all", limit=min(total, 100_000)) if m.status != "deleted"]
    rows.sort(key=lambda m: (m.status != "active", -m.id))
    return [{"id": f"#{m.id}", "memory": m.text, "type": m.type,
             "status": "Current" if m.status == "active" else "Old",
             "replaced by": f"#{m.replaced_by}" if m.replaced_by else "", "saved at": m.created_at[:19]}
            for m in rows]


def categories(eng: MemoryEngine, user_id: str) -> dict[str, list[str]]:
    """/categories: current memories grouped by type."""
    total = eng.count_memories(user_id)
    groups: dict[str, list[str]] = {}
    for m in eng.list_memories(user_id, limit=min(total, 100_000)):
        groups.setdefault(m.type, []).append(f"{m.text} [#{m.id}]")
    return dict(sorted(groups.items()))


def forget_warning(eng: MemoryEngine, user_id: str) -> str:
    """What /forget will delete, said before it does."""
    memories = eng.count_memories(user_id, status="all")
    messages = len(eng.messages(user_id, limit=100_000))
    return (f"This permanently deletes ALL {memories} memories (current, old and deleted) and all {messages} "
            f"logged messages of user `{user_id}`. It cannot be undone (export from the Ledger page first "
            "if you want a copy).")
