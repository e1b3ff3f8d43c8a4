"""The plain data every layer passes around, and the engine's errors."""
from __future__ import annotations

from dataclasses import dataclass, field, asdict
from typing import Any, NamedTuple

from .limits import CONFIDENCE_LEVELS, INGEST_STATUSES, MEMORY_TYPES, STATUSES  # noqa: F401 (re-exported)
from .calibration import Calibration


class EngineError(Exception):
    """Base class for every error the engine raises on purpose."""


class StoreInUseError(EngineError):
    """Another process holds this data directory open."""


class ModelMismatchError(EngineError):
    """The store was built with a different embedding model."""


class NotFoundError(EngineError, KeyError):
    """No memory with that id."""

    def __str__(self) -> str:  # KeyError would wrap the message in quotes
        return str(self.args[0]) if self.args else "not found"


@dataclass
class Memory:
    """One remembered fact, in whatever state of its life it is."""

    id: int
    user_id: str
    text: str
    type: str
    subject: str
    attribute: str
    value: str
    importance: float
    status: str = "active"
    replaced_by: int | None = None
    supersedes: int | None = None
    created_at: str = ""
    updated_at: str = ""
    superseded_at: str | None = None
    source_id: str | None = None
    source_message: str | None = None
    source_timestamp: str | None = None
    speaker: str | None = None
    message_id: int | None = None
    multi_valued: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Citation:
    """Where a memory came from: the message that stated it."""

    memory_id: int
    message_id: int | None
    source_id: str | None
    source_message: str | None
    timestamp: str | None
    speaker: str | None


@dataclass
class Hit:
    """A memory returned by recall, with the parts its score is made of.

    semantic: cosine similarity of query and memory (S_sem).
    lexical: normalized BM25 of the query against the memory (S_bm25, 0..1).
    importance: the memory's importance (0..1); it adds importance_weight * (importance - 0.5).
    """

    memory: Memory
    score: float
    semantic: float
    lexical: float
    importance: float
    historical: bool = False
    replaced_by_memory: Memory | None = None
    # cosine of the memory and the statement the question asks for (questions.as_statement); = semantic when none
    statement: float = 0.0
    # share of the question's content words the memory carries (text.content_coverage)
    coverage: float = 0.0

    @property
    def citation(self) -> Citation:
        m = self.memory
        return Citation(m.id, m.message_id, m.source_id, m.source_message, m.source_timestamp, m.speaker)

    def to_dict(self) -> dict[str, Any]:
        return {
            "memory": self.memory.to_dict(),
            "score": self.score,
            "semantic": self.semantic,
            "lexical": self.lexical,
            "importance": self.importance,
            "statement": self.statement,
            "coverage": self.coverage,
            "historical": self.historical,
            "replaced_by_memory": self.replaced_by_memory.to_dict() if self.replaced_by_memory else None,
            "citation": asdict(self.citation),
        }


@dataclass
class FactOutcome:
    """What happened to one fact extracted from a message."""

    action: str  # created | superseded | confirmed
    memory: Memory
    superseded: list[Memory] = field(default_factory=list)


@dataclass
class ComparedMemory:
    """An existing memory a new fact was weighed against, as it stands after the message."""

    memory_id: int
    text: str
    status: str
    similarity: float  # cosine similarity to the new fact's vector

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class CandidateTrace:
    """Why one fact extracted from a message did what it did: for the cockpit's ingest trace."""

    clause: str  # the part of the message it came from
    rule: str  # the extraction rule that produced it ("fallback": no rule matched, kept as a note)
    text: str
    subject: str
    attribute: str
    value: str
    type: str
    importance: float
    action: str  # created | superseded | confirmed
    reason: str  # which conflict rule decided (resolve.Plan.reason)
    memory_id: int  # the memory created, or the one confirmed
    superseded_ids: list[int] = field(default_factory=list)
    compared: list[ComparedMemory] = field(default_factory=list)  # best first

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class IngestResult:
    status: str
    memories: list[Memory]
    superseded_ids: list[int]
    message: str
    message_id: int | None = None
    outcomes: list[FactOutcome] = field(default_factory=list)
    trace: list[CandidateTrace] = field(default_factory=list)  # one per extracted fact, in message order

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "message": self.message,
            "message_id": self.message_id,
            "memories": [m.to_dict() for m in self.memories],
            "superseded_ids": list(self.superseded_ids),
            "outcomes": [
                {"action": o.action, "memory": o.memory.to_dict(), "superseded": [s.to_dict() for s in o.superseded]}
                for o in self.outcomes
            ],
            "trace": [t.to_dict() for t in self.trace],
        }


@dataclass
class RecallResult:
    """Ranked hits that cleared the threshold, plus what fell below it (for tuning)."""

    query: str
    user_id: str
    hits: list[Hit]
    confidence: str
    threshold: float
    alpha: float
    importance_weight: float
    top_k: int
    include_history: bool
    history_cue: bool = False  # the question itself asks about the past ("where did I live before?")
    companion_margin: float = 0.0
    below_threshold: list[Hit] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    # Every scored candidate, so the knobs can be moved without embedding the query again.
    candidates: list[Hit] = field(default_factory=list, repr=False)
    # The calibrated-relevance model the scores came from (None: the raw blend) and whether near-threshold
    # evidence is pooled; rescore applies the same.
    calibration: Calibration | None = None
    evidence_pooling: bool = False
    lexical_support: float | None = None
    # Names the question asks about that no speaker or active memory of the user mentions; when there are
    # any, nothing is served (Settings.unknown_name_filter).
    unknown_names: list[str] = field(default_factory=list)

    @property
    def memories(self) -> list[Memory]:
        return [h.memory for h in self.hits]

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "user_id": self.user_id,
            "confidence": self.confidence,
            "threshold": self.threshold,
            "alpha": self.alpha,
            "importance_weight": self.importance_weight,
            "top_k": self.top_k,
            "include_history": self.include_history,
            "history_cue": self.history_cue,
            "hits": [h.to_dict() for h in self.hits],
            "below_threshold": [h.to_dict() for h in self.below_threshold],
            "timings_ms": dict(self.timings_ms),
            "unknown_names": list(self.unknown_names),
        }


class MessageIn(NamedTuple):
    """A validated message on its way into the ledger."""

    text: str
    user_id: str
    source_id: str | None = None
    timestamp: str | None = None
    speaker: str | None = None
    in_reply_to: str | None = None  # what the message answers when that was not ingested (a bot's turn)


class OutboxRow(NamedTuple):
    """A committed change the indexes have not applied yet (op is one of limits.OUTBOX_OPS)."""

    id: int
    op: str
    user_id: str
    memory_id: int | None
