"""What a chatbot needs around recall: the context block for a prompt, the profile that greets a
returning user, and the summary of a session. Plain functions over the engine's public API
(`recall`, `list_memories`, `messages`, `remember`); MemoryEngine.context/profile/summarize_session
validate their arguments and call these."""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable, Iterable

from .model import Memory, RecallResult

if TYPE_CHECKING:  # the engine calls in here; importing it at run time would be circular
    from .engine import MemoryEngine

ABSTAIN_LINE = "Nothing relevant is known about this."
CONTEXT_HEADER = "What you remember about the user (cite the [#id] of what you use):"
OLD_HEADER = "Old facts, no longer true (history only):"
MIN_BUDGET_CHARS = 120  # the header, the abstention line and an omission note always fit
MAX_FIELD_CHARS = 512  # what remember() accepts for a value
# A summary's attribute names its first message, so each session has its own slot: summaries of two
# sessions never replace each other, and summarising the same session again replaces the older one.
SUMMARY_ATTRIBUTE = "session_{first}_summary"
_SUMMARY_ATTRIBUTE_RE = re.compile(r"^session_\d+_summary$")
MESSAGE_PAGE = 1000


def is_session_summary(memory: Memory) -> bool:
    return bool(_SUMMARY_ATTRIBUTE_RE.match(memory.attribute))


# ------------------------------------------------------------------ context block
@dataclass
class ContextItem:
    """One memory in a context block, with where it came from."""

    memory_id: int
    text: str
    score: float
    status: str  # "current" | "old"
    replaced_by_id: int | None = None
    replaced_by_text: str | None = None
    source_id: str | None = None
    message_id: int | None = None
    timestamp: str | None = None
    line: str = ""  # exactly as it appears in Context.text

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Context:
    """The memories relevant to one turn: `.text` goes into the prompt, `.items` are what it holds."""

    query: str
    user_id: str
    text: str
    items: list[ContextItem]
    abstained: bool
    omitted: int  # relevant memories left out to stay within the budget
    budget_chars: int
    include_history: bool
    recall: RecallResult | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query, "user_id": self.user_id, "text": self.text, "abstained": self.abstained,
            "omitted": self.omitted, "budget_chars": self.budget_chars, "include_history": self.include_history,
            "items": [i.to_dict() for i in self.items],
        }


def _item(hit) -> ContextItem:
    m = hit.memory
    old = hit.historical or m.status != "active"
    repl = hit.replaced_by_memory
    item = ContextItem(
        memory_id=m.id, text=m.text, score=round(hit.score, 4), status="old" if old else "current",
        replaced_by_id=(repl.id if repl else m.replaced_by) if old else None,
        replaced_by_text=repl.text if (old and repl) else None,
        source_id=m.source_id, message_id=m.message_id, timestamp=m.source_timestamp or m.created_at,
    )
    if old:
        now = f' Replaced by: "{repl.text}" [#{repl.id}].' if repl else ""
        item.line = f"- OLD: {m.text} [#{m.id}]{now}"
    else:
        item.line = f"- {m.text} [#{m.id}]"
    return item


def build_context(engine: "MemoryEngine", query: str, user_id: str, *, budget_chars: int,
                  include_history: bool | None = None, top_k: int | None = None,
                  threshold: float | None = None) -> Context:
    """Recall, then lay the hits out for a prompt: current facts first (best first), then, when
    history was asked for (by a cue in the query or the flag), the old ones with what replaced them.
    Whole lines only; what does not fit is counted in a closing note."""
    result = engine.recall(query, user_id=user_id, top_k=top_k, threshold=threshold, include_history=include_history)
    return format_context(result, budget_chars=budget_chars)


def format_context(result: RecallResult, *, budget_chars: int) -> Context:
    """The context block of a recall result (pure: no engine needed)."""
    if budget_chars < MIN_BUDGET_CHARS:
        raise ValueError(f"budget_chars must be at least {MIN_BUDGET_CHARS}, got {budget_chars}")
    if not result.hits:
        return Context(result.query, result.user_id, f"{CONTEXT_HEADER}\n{ABSTAIN_LINE}", [], True, 0,
                       budget_chars, result.include_history, result)
    items = [_item(h) for h in result.hits]
    current = [i for i in items if i.status == "current"]
    old = [i for i in items if i.status == "old"]
    ordered = current + old  # recall already ranks best first within each group

    def render(kept: list[ContextItem], left_out: int) -> str:
        lines = [CONTEXT_HEADER]
        lines += [i.line for i in kept if i.status == "current"]
        old_kept = [i.line for i in kept if i.status == "old"]
        if old_kept:
            lines += [OLD_HEADER, *old_kept]
        if left_out:
            lines.append(f"({left_out} more relevant {'memory' if left_out == 1 else 'memories'} left out to fit the budget.)")
        return "\n".join(lines)

    kept: list[ContextItem] = []
    for item in ordered:
        # Measured with the worst-case omission note, so adding the note later never breaks the budget.
        if len(render(kept + [item], len(ordered))) <= budget_chars:
            kept.append(item)
        else:
            break  # keep the ranking: a lower-ranked short line never jumps a higher-ranked long one
    omitted = len(ordered) - len(kept)
    return Context(result.query, result.user_id, render(kept, omitted), kept, False, omitted, budget_chars,
                   result.include_history, result)


# ------------------------------------------------------------------ profile
@dataclass
class ProfileItem:
    memory_id: int
    text: str
    second_person: str  # "you live in Lisbon"
    type: str
    importance: float
    updated_at: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Profile:
    """A returning user's most important current facts, and a greeting built from them."""

    user_id: str
    items: list[ProfileItem]
    greeting: str
    total_current: int

    def to_dict(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "items": [i.to_dict() for i in self.items], "greeting": self.greeting,
                "total_current": self.total_current}


_IRREGULAR = {"is": "are", "was": "were", "has": "have", "does": "do", "doesn't": "don't", "isn't": "aren't",
              "wasn't": "weren't", "hasn't": "haven't"}


def _base_verb(verb: str) -> str:
    low = verb.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if re.search(r"[^aeiou]ies$", low):
        return verb[:-3] + "y"
    if re.search(r"(?:ss|sh|ch|x|z|o)es$", low):
        return verb[:-2]
    if low.endswith("s") and not low.endswith("ss") and len(low) > 2:
        return verb[:-1]
    return verb


def to_second_person(text: str) -> str:
    """A stored third-person memory as said to the user: "User lives in Lisbon." -> "you live in
    Lisbon"; "User's name is Ana." -> "your name is Ana"; "Project deadline is May 1." -> "your
    project deadline is May 1". Other subjects (a named friend) are left as they are."""
    s = text.strip().rstrip(".")
    m = re.match(r"^(?:the )?user's\s+(.*)$", s, re.IGNORECASE)
    if m:
        s = f"your {m.group(1)}"
    else:
        m = re.match(r"^(?:the )?user\s+(\S+)(.*)$", s, re.IGNORECASE)
        if m:
            s = f"you {_base_verb(m.group(1))}{m.group(2)}"
        elif re.match(r"^(?:the )?project\b", s, re.IGNORECASE):
            s = "your project" + re.sub(r"^(?:the )?project", "", s, flags=re.IGNORECASE)
    s = re.sub(r"\b(?:the )?user's\b", "your", s, flags=re.IGNORECASE)
    s = re.sub(r"\b(?:the )?user\b", "you", s, flags=re.IGNORECASE)
    return s


def build_profile(engine: "MemoryEngine", user_id: str, *, limit: int) -> Profile:
    """The user's current facts ranked by importance, then recency; session summaries left out."""
    total = engine.count_memories(user_id)
    active = engine.list_memories(user_id, status="active", limit=min(total, 100_000))
    facts = [m for m in active if not is_session_summary(m)]
    facts.sort(key=lambda m: (m.importance, m.updated_at or m.created_at, m.id), reverse=True)
    items = [ProfileItem(m.id, m.text, to_second_person(m.text), m.type, m.importance, m.updated_at or m.created_at)
             for m in facts[:limit]]
    if items:
        greeting = "Welcome back: " + "; ".join(i.second_person for i in items) + "."
    else:
        greeting = "Hello! I don't know anything about you yet."
    return Profile(user_id, items, greeting, len(facts))


# ------------------------------------------------------------------ session summary
@dataclass
class SessionSummary:
    """One session's messages as one `event` memory. `memory` is None when the session held no message."""

    user_id: str
    message_ids: list[int]
    text: str
    facts: list[Memory]
    memory: Memory | None
    by_llm: bool

    def to_dict(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "message_ids": list(self.message_ids), "text": self.text,
                "facts": [f.to_dict() for f in self.facts], "memory": self.memory.to_dict() if self.memory else None,
                "by_llm": self.by_llm}


Summarizer = Callable[[list[dict[str, Any]], list[Memory]], str]


def _all_messages(engine: "MemoryEngine", user_id: str) -> Iterable[dict[str, Any]]:
    offset = 0
    while True:
        page = engine.messages(user_id, limit=MESSAGE_PAGE, offset=offset)
        yield from page
        if len(page) < MESSAGE_PAGE:
            return
        offset += MESSAGE_PAGE


def _is_summary_message(message: dict[str, Any]) -> bool:
    # remember() logs the structured memory as "user: <attribute> = <value>"
    return bool(re.match(r"^user: session_\d+_summary = ", message["text"]))


def _cite(ids: list[int]) -> str:
    if len(ids) <= 8:
        return "messages " + ", ".join(f"#{i}" for i in ids)
    return f"{len(ids)} messages #{ids[0]}..#{ids[-1]}"


def _fit(parts: list[str], suffix: str, limit: int) -> str:
    """Join whole parts while they fit (with the suffix), saying how many were left out."""
    body: list[str] = []
    for n, part in enumerate(parts):
        rest = len(parts) - n - 1
        note = f"; and {rest} more" if rest else ""
        if len("; ".join(body + [part]) + note + suffix) > limit:
            return "; ".join(body) + f"; and {len(parts) - n} more" + suffix if body else (part[: limit - len(suffix) - 1] + "…" + suffix)
        body.append(part)
    return "; ".join(body) + suffix


def _llm_summary(summarizer: Any, messages: list[dict[str, Any]], facts: list[Memory]) -> str:
    if hasattr(summarizer, "complete"):  # an engine.llm.ChatClient
        from .llm import summary_prompt  # only needed with an LLM
        return summarizer.complete(summary_prompt(messages))
    if callable(summarizer):
        return summarizer(messages, facts)
    raise ValueError("summarizer must be a callable(messages, facts) -> str or an object with .complete(messages)")


def summarize(engine: "MemoryEngine", user_id: str, *, message_ids: list[int] | None = None,
              since: datetime | None = None, summarizer: Any = None) -> SessionSummary:
    """Store one `event` memory summarising the session's messages, cited to them by id.

    Without a summarizer the summary is the facts and events extracted from those messages, in the
    order they were said; with one (a callable or a ChatClient) the LLM writes it. Stored through
    remember() under its own slot, so it never replaces a fact."""
    wanted = set(message_ids) if message_ids is not None else None
    session = []
    for msg in _all_messages(engine, user_id):
        if _is_summary_message(msg):
            continue
        if wanted is not None and msg["id"] in wanted:
            session.append(msg)
        elif since is not None and _when(msg["created_at"]) >= since:
            session.append(msg)
    session.sort(key=lambda m: m["id"])
    if wanted is not None:
        missing = wanted - {m["id"] for m in session}
        if missing:
            raise ValueError(f"no message {', '.join(f'#{i}' for i in sorted(missing))} for user {user_id!r}")
    ids = [m["id"] for m in session]
    if not ids:
        return SessionSummary(user_id, [], "", [], None, False)
    in_session = set(ids)
    everything = engine.list_memories(user_id, status="all", limit=min(engine.count_memories(user_id, "all"), 100_000))
    facts = sorted((m for m in everything if m.message_id in in_session and m.status != "deleted"
                    and not is_session_summary(m)), key=lambda m: m.id)
    suffix = f" [{_cite(ids)}]"
    by_llm = summarizer is not None
    if by_llm:
        written = " ".join(str(_llm_summary(summarizer, session, facts)).split())
        if not written:
            raise ValueError("the summarizer returned an empty summary")
        parts = [written]
    else:
        parts = [f.text.rstrip(".") for f in facts] or [f"{len(ids)} message{'s' if len(ids) != 1 else ''}, no new facts"]
    # what remember() prepends: "User's session N summary is "
    value = _fit(parts, suffix, MAX_FIELD_CHARS)
    attribute = SUMMARY_ATTRIBUTE.format(first=ids[0])
    result = engine.remember("user", attribute, value, type="event", user_id=user_id, importance=0.3)
    memory = result.memories[0] if result.memories else None
    return SessionSummary(user_id, ids, value, facts, memory, by_llm)


def _when(stamp: str) -> datetime:
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def parse_since(since: object) -> datetime:
    """A timezone-aware moment from a datetime or an ISO 8601 string (naive means UTC, as the ledger stores)."""
    if isinstance(since, datetime):
        return since if since.tzinfo else since.replace(tzinfo=timezone.utc)
    if isinstance(since, str) and since.strip():
        try:
            return _when(since.strip())
        except ValueError:
            raise ValueError(f"since must be an ISO 8601 timestamp, got {since!r}") from None
    raise ValueError(f"since must be a datetime or an ISO 8601 string, got {since!r}")
