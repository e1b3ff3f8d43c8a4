"""A local-first memory engine for chatbots: keeps durable facts, supersedes outdated ones with
lineage, and recalls the relevant current facts, or nothing, so the bot can say "I don't know"."""
from .context import Context, ContextItem, Profile, ProfileItem, SessionSummary
from .engine import MemoryEngine
from .llm import ChatClient, LLMError, LLMResponseError, LLMTimeoutError, LLMUnreachableError
from .embed import Embedder, load_embedder
from .model import (
    CONFIDENCE_LEVELS, INGEST_STATUSES, MEMORY_TYPES, STATUSES, Citation, EngineError, FactOutcome, Hit,
    IngestResult, Memory, ModelMismatchError, NotFoundError, RecallResult, StoreInUseError,
)
from .settings import Settings

__version__ = "0.1.0"

__all__ = [
    "CONFIDENCE_LEVELS", "INGEST_STATUSES", "MEMORY_TYPES", "STATUSES", "Citation", "Embedder", "EngineError",
    "FactOutcome", "Hit", "IngestResult", "Memory", "MemoryEngine", "ModelMismatchError", "NotFoundError",
    "RecallResult", "Settings", "StoreInUseError", "__version__", "load_embedder",
    "ChatClient", "Context", "ContextItem", "LLMError", "LLMResponseError", "LLMTimeoutError", "LLMUnreachableError",
    "Profile", "ProfileItem", "SessionSummary",
]
