"""REST API over the memory engine (FastAPI).

`create_app(settings)` builds the app; `memengine serve` runs it with uvicorn.

Every route that reads or changes memories is scoped to one `user_id`: a memory that belongs to
another user answers 404, exactly like one that does not exist. When `Settings.api_key`
(env MEMENGINE_API_KEY) is set, every route but /health needs it in `X-API-Key` or
`Authorization: Bearer`; an empty key is refused as a configuration error. /docs (a plain local
page, nothing loaded from the network) and /openapi.json carry no user data.

Browser safety, key or not (`BrowserGuard`): a request body must be JSON (NDJSON/JSONL for
/import), so no cross-origin "simple" request can write; a foreign `Origin` is refused; only
loopback Host names are served unless MEMENGINE_ALLOWED_HOSTS names more (DNS rebinding).

The engine is synchronous and thread-safe, so the endpoints are plain `def`s that FastAPI runs in
its threadpool.
"""
# No `from __future__ import annotations` here: FastAPI reads these annotations at runtime.
import hmac
import html
import json
import logging
from collections.abc import Callable, Iterator
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Path, Query, Request, Response, Security
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, StreamingResponse
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from adapters.serialize import context_dict, ingest_dict, memory_dict, profile_dict, recall_dict, summary_dict
from adapters.validation import check_json_value, iso_timestamp

import engine as _engine_pkg
from engine import EngineError, MemoryEngine, NotFoundError, Settings
from engine import llm as engine_llm
from engine.limits import (
    CONFIDENCE_LEVELS,
    INGEST_STATUSES,
    LIST_LIMIT_MAX,
    MEMORY_TYPES,
    STATUS_FILTERS,
    STATUSES,
    THRESHOLD_MAX,
    THRESHOLD_MIN,
    TOP_K_MAX,
    TOP_K_MIN,
)

log = logging.getLogger("memengine.rest")

__version__ = getattr(_engine_pkg, "__version__", "0.1.0")
DEFAULT_MAX_BODY = 1024 * 1024  # 1 MiB for every JSON route
DEFAULT_MAX_IMPORT_BODY = 64 * 1024 * 1024  # 64 MiB for POST /import

MemoryType = Literal[MEMORY_TYPES]  # type: ignore[valid-type]
StatusFilter = Literal[STATUS_FILTERS]  # type: ignore[valid-type]
MAX_ID = 2**63 - 1  # SQLite INTEGER; larger ids would overflow instead of answering 404

# Limits here are generous outer bounds; the engine applies its configured ones
# (max_text_chars, max_user_id_chars) and says clearly what was wrong.
UserId = Annotated[
    str,
    Field(min_length=1, max_length=256, description="Whose memories. Every route is scoped to one user.",
          examples=["default", "alice"]),
]
UserQuery = Annotated[
    str,
    Query(min_length=1, max_length=256, description="Owner of the memories; other users' memories answer 404.",
          examples=["alice"]),
]
MemoryId = Annotated[int, Path(ge=1, le=MAX_ID, description="Memory id", examples=[4])]

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]"})
JSON_TYPES = frozenset({"application/json"})
IMPORT_TYPES = frozenset({"application/json", "application/x-ndjson", "application/jsonl"})


class RestSettings(BaseSettings):
    """Knobs of the REST adapter only (the engine's `Settings` stays free of HTTP concerns)."""

    model_config = SettingsConfigDict(env_prefix="MEMENGINE_", extra="ignore")

    # Host names served besides the loopback ones, comma-separated (e.g. "memory.lan,10.0.0.5").
    allowed_hosts: str = ""
    # Browser origins allowed to call the API, comma-separated (e.g. "http://localhost:3000"); none by default.
    allowed_origins: str = ""

    def host_names(self) -> frozenset[str]:
        return LOOPBACK_HOSTS | {h.strip().lower() for h in self.allowed_hosts.split(",") if h.strip()}

    def origins(self) -> frozenset[str]:
        return frozenset(o.strip().lower().rstrip("/") for o in self.allowed_origins.split(",") if o.strip())


def _host_name(host: str) -> str:
    """The name part of a Host header value, without the port ("[::1]:80" -> "[::1]")."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class BrowserGuard:
    """ASGI middleware that stops a web page from using the API through the user's browser.

    Without it, a page on any site can POST a text/plain body (a "simple" request: no CORS preflight),
    and a DNS-rebinding page can read responses. So: refuse a Host that is not ours (421), an Origin
    that is neither ours nor configured (403), and a body whose Content-Type is not JSON (415)."""

    def __init__(self, app: Any, *, hosts: frozenset[str], origins: frozenset[str]) -> None:
        self.app, self.hosts, self.origins = app, hosts, origins

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self._refusal(scope, headers)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, detail = refusal
        await JSONResponse(status_code=status, content={"detail": detail})(scope, receive, send)

    def _refusal(self, scope: dict[str, Any], headers: dict[str, str]) -> tuple[int, str] | None:
        host = headers.get("host", "")
        if _host_name(host) not in self.hosts:
            return 421, ("this server only answers to loopback host names (127.0.0.1, localhost, [::1]); "
                         "set MEMENGINE_ALLOWED_HOSTS to serve others")
        origin = headers.get("origin")
        if origin is not None:
            origin = origin.strip().lower().rstrip("/")
            same_origin = origin == f"{scope.get('scheme', 'http')}://{host.strip().lower()}"
            if not same_origin and origin not in self.origins:
                return 403, ("cross-origin requests are refused; set MEMENGINE_ALLOWED_ORIGINS to allow "
                             "a browser origin")
        has_body = (scope["method"] in ("POST", "PUT", "PATCH")
                    or headers.get("content-length", "0") not in ("", "0") or "transfer-encoding" in headers)
        if has_body:
            ctype = headers.get("content-type", "").split(";", 1)[0].strip().lower()
            allowed = IMPORT_TYPES if scope["path"].rstrip("/") == "/import" else JSON_TYPES
            if ctype not in allowed:
                return 415, (f"the body must be sent as {' or '.join(sorted(allowed))}"
                             f" (got {ctype or 'no Content-Type'})")
        return None


# --------------------------------------------------------------------------------------------
# Request models
# --------------------------------------------------------------------------------------------

def _storable(data: Any) -> Any:
    """Before field validation: refuse what JSON allows but no store can keep (NaN, Infinity, 1e400,
    lone surrogates), with a clear reason instead of a crash further in."""
    check_json_value(data)
    return data


class MemoryIn(BaseModel):
    """A chat message to learn from, or one structured memory to store as given."""

    model_config = ConfigDict(
        extra="forbid",
        allow_inf_nan=False,
        json_schema_extra={
            "examples": [
                {"message": "Actually, the deadline moved to November 2.", "user_id": "alice",
                 "source_id": "chat-42/turn-7", "timestamp": "2026-10-10T06:30:00Z", "speaker": "user"},
                {"subject": "user", "attribute": "editor", "value": "Neovim", "type": "preference",
                 "user_id": "alice"},
                {"message": "ok thanks"},
            ]
        },
    )

    message: str | None = Field(None, min_length=1, max_length=200_000,
                                description="A chat message; facts are extracted from it.")
    user_id: UserId = "default"
    source_id: str | None = Field(None, max_length=512, description="Where the message came from (thread, turn...).")
    timestamp: str | None = Field(None, max_length=64, description="When the message was said, ISO 8601.")
    speaker: str | None = Field(None, max_length=256, description="Who said it.")
    in_reply_to: str | None = Field(
        None, min_length=1, max_length=200_000,
        description="What the message answers when that was not sent here, e.g. the bot's own last turn "
                    "('Where are you based?' before 'Berlin'): a fragment answer is kept with the question.")
    subject: str | None = Field(None, min_length=1, max_length=1000, description="Structured memory: subject.")
    attribute: str | None = Field(None, min_length=1, max_length=1000, description="Structured memory: attribute.")
    value: str | None = Field(None, min_length=1, max_length=10_000, description="Structured memory: value.")
    type: MemoryType | None = Field(None, description="Structured memory: kind of memory (default fact).")
    importance: float | None = Field(None, ge=0.0, le=1.0, description="Structured memory: importance 0..1.")

    @model_validator(mode="before")
    @classmethod
    def _storable(cls, data: Any) -> Any:
        return _storable(data)

    @field_validator("timestamp")
    @classmethod
    def _iso_timestamp(cls, v: str | None) -> str | None:
        return v if v is None else iso_timestamp(v)

    @model_validator(mode="after")
    def _one_form(self) -> "MemoryIn":
        parts = {"subject": self.subject, "attribute": self.attribute, "value": self.value}
        structured = [k for k, v in parts.items() if v is not None]
        if self.message is not None:
            extra = structured + [k for k in ("type", "importance") if getattr(self, k) is not None]
            if extra:
                raise ValueError(
                    "send either 'message' (a chat message) or 'subject'/'attribute'/'value' "
                    f"(a structured memory), not both; got 'message' and {', '.join(map(repr, extra))}")
            return self
        if not structured:
            raise ValueError("send 'message' (a chat message) or 'subject', 'attribute' and 'value' "
                             "(a structured memory)")
        missing = [k for k in parts if parts[k] is None]
        if missing:
            raise ValueError(f"a structured memory needs 'subject', 'attribute' and 'value'; "
                             f"missing {', '.join(map(repr, missing))}")
        given = [k for k in ("source_id", "timestamp", "speaker", "in_reply_to") if getattr(self, k) is not None]
        if given:
            raise ValueError(f"{', '.join(map(repr, given))} only apply to a 'message'")
        return self


class RecallIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        allow_inf_nan=False,
        json_schema_extra={
            "examples": [
                {"query": "When is the project deadline?", "user_id": "alice", "top_k": 5,
                 "threshold": 0.4, "alpha": 0.85},
                {"query": "What did the deadline use to be?", "user_id": "alice", "include_history": True},
            ]
        },
    )

    query: str = Field(min_length=1, max_length=200_000, description="A question or keywords.")
    user_id: UserId = "default"
    top_k: int | None = Field(None, ge=TOP_K_MIN, le=TOP_K_MAX,
                              description="At most this many hits (default from settings).")
    threshold: float | None = Field(None, ge=THRESHOLD_MIN, le=THRESHOLD_MAX, description="Minimum score for a hit.")
    alpha: float | None = Field(None, ge=0.0, le=1.0, description="Weight of semantic vs lexical score.")
    importance_weight: float | None = Field(None, ge=0.0, le=1.0, description="Weight of memory importance.")
    include_history: bool | None = Field(None, description="Also return superseded memories, marked historical.")

    @model_validator(mode="before")
    @classmethod
    def _storable(cls, data: Any) -> Any:
        return _storable(data)


class ContextIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        allow_inf_nan=False,
        json_schema_extra={"examples": [{"query": "When is my deadline?", "user_id": "alice", "budget_chars": 800},
                                        {"query": "Where did I live before?", "user_id": "alice",
                                         "include_history": True}]},
    )

    query: str = Field(min_length=1, max_length=200_000, description="The user's turn.")
    user_id: UserId = "default"
    budget_chars: int | None = Field(None, ge=1, le=1_000_000,
                                     description="At most this many characters (default from settings).")
    include_history: bool | None = Field(None, description="Also give superseded facts, marked as old "
                                                           "(default: when the query asks about the past).")
    top_k: int | None = Field(None, ge=TOP_K_MIN, le=TOP_K_MAX, description="At most this many memories.")
    threshold: float | None = Field(None, ge=THRESHOLD_MIN, le=THRESHOLD_MAX, description="Minimum recall score.")

    @model_validator(mode="before")
    @classmethod
    def _storable(cls, data: Any) -> Any:
        return _storable(data)


class SummaryIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        allow_inf_nan=False,
        json_schema_extra={"examples": [{"user_id": "alice", "since": "2026-10-10T06:00:00Z"},
                                        {"user_id": "alice", "message_ids": [7, 8, 9]}]},
    )

    user_id: UserId = "default"
    message_ids: list[Annotated[int, Field(ge=1, le=2**63 - 1)]] | None = Field(
        None, min_length=1, max_length=LIST_LIMIT_MAX, description="The session's messages (or give `since`).")
    since: str | None = Field(None, max_length=64, description="Every message from this moment on, ISO 8601.")

    @model_validator(mode="before")
    @classmethod
    def _storable(cls, data: Any) -> Any:
        return _storable(data)

    @field_validator("since")
    @classmethod
    def _iso_since(cls, v: str | None) -> str | None:
        return v if v is None else iso_timestamp(v)

    @model_validator(mode="after")
    def _one_of(self) -> "SummaryIn":
        if (self.message_ids is None) == (self.since is None):
            raise ValueError("give either 'message_ids' or 'since'")
        return self


# --------------------------------------------------------------------------------------------
# Response models (extra fields from the engine pass through)
# --------------------------------------------------------------------------------------------

class MemoryOut(BaseModel):
    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={"examples": [{
            "id": 4, "user_id": "alice", "text": "Project deadline is November 2.", "type": "project_detail",
            "subject": "project", "attribute": "deadline", "value": "November 2", "importance": 0.8,
            "status": "active", "replaced_by": None, "supersedes": 3, "created_at": "2026-10-10T06:30:00Z",
            "updated_at": "2026-10-10T06:30:00Z", "superseded_at": None, "source_id": "chat-42/turn-7",
            "source_message": "Actually, the deadline moved to November 2.",
            "source_timestamp": "2026-10-10T06:30:00Z", "speaker": "user", "message_id": 9,
            "multi_valued": False}]},
    )

    id: int
    user_id: str
    text: str
    type: str
    subject: str
    attribute: str
    value: str
    importance: float
    status: str
    replaced_by: int | None = None
    supersedes: int | None = None
    created_at: str | None = None
    updated_at: str | None = None
    superseded_at: str | None = None
    source_id: str | None = None
    source_message: str | None = None
    source_timestamp: str | None = None
    speaker: str | None = None
    message_id: int | None = None
    multi_valued: bool = False


class OutcomeOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    action: str
    memory: MemoryOut
    superseded: list[MemoryOut] = []


class IngestOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    status: Literal[INGEST_STATUSES]  # type: ignore[valid-type]
    message: str
    message_id: int | None = None
    memories: list[MemoryOut]
    superseded_ids: list[int]
    outcomes: list[OutcomeOut] = []


class CitationOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    memory_id: int
    message_id: int | None = None
    source_id: str | None = None
    source_message: str | None = None
    timestamp: str | None = None
    speaker: str | None = None


class HitOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    memory: MemoryOut
    score: float
    semantic: float
    lexical: float
    importance: float
    historical: bool = False
    replaced_by_memory: MemoryOut | None = None
    citation: CitationOut


class RecalledMemory(MemoryOut):
    score: float


class RecallOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    query: str
    user_id: str
    confidence: Literal[CONFIDENCE_LEVELS]  # type: ignore[valid-type]
    threshold: float
    alpha: float
    importance_weight: float
    top_k: int
    include_history: bool
    hits: list[HitOut] = Field(description="Ranked hits with score parts and citations; [] when nothing clears "
                                           "the threshold.")
    memories: list[RecalledMemory] = Field(description="The hits' memories, flat, each with its score.")
    below_threshold: list[HitOut] = []
    timings_ms: dict[str, float] = {}


class ContextItemOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    memory_id: int
    text: str
    score: float
    status: Literal["current", "old"]
    replaced_by_id: int | None = None
    replaced_by_text: str | None = None
    line: str = Field(description="The item exactly as it appears in `text`.")


class ContextOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    query: str
    user_id: str
    text: str = Field(description="The block for the prompt: current facts first, old ones marked with what "
                                  "replaced them, each with its [#id]; a 'nothing relevant' line on abstention.")
    abstained: bool
    omitted: int = Field(description="Relevant memories left out to stay within the budget.")
    budget_chars: int
    include_history: bool
    items: list[ContextItemOut]


class ProfileItemOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    memory_id: int
    text: str
    second_person: str
    type: str
    importance: float


class ProfileOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    user_id: str
    greeting: str
    total_current: int
    items: list[ProfileItemOut] = Field(description="Most important current facts first (then the newest).")


class SummaryOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    user_id: str
    message_ids: list[int]
    text: str
    by_llm: bool
    facts: list[MemoryOut] = Field(description="The session's facts and events, in the order they were said.")
    memory: MemoryOut | None = Field(description="The stored summary memory; null when the session held no "
                                                 "message.")


class MemoryListOut(BaseModel):
    total: int
    limit: int
    offset: int
    status: str
    memories: list[MemoryOut]


class HistoryOut(BaseModel):
    memory_id: int
    history: list[MemoryOut] = Field(description="The whole supersede chain, oldest first.")


class DeleteOut(BaseModel):
    status: Literal["deleted"]
    id: int
    message: str
    memory: MemoryOut


class EraseOut(BaseModel):
    erased: dict[str, int] = Field(description="Rows hard-deleted: memories and messages.")


class RebuildOut(BaseModel):
    rebuilt_users: int
    rebuilt_memories: int


class ForgetOut(BaseModel):
    user_id: str
    deleted: dict[str, int]


class ImportOut(BaseModel):
    user_id: str
    lines: int
    imported: int


class HealthOut(BaseModel):
    status: Literal["ok"]
    version: str
    model: str
    counts: dict[str, int] | None = Field(
        None, description="Memory and user counts; only with the API key when one is configured.")


class ErrorOut(BaseModel):
    detail: Any


ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorOut, "description": "Missing or wrong API key (only when an API key is configured)."},
    413: {"description": "Request body too large."},
    415: {"model": ErrorOut, "description": "The body is not JSON (NDJSON for /import)."},
    422: {"model": ErrorOut, "description": "Invalid input; `detail` says what was wrong."},
}
NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorOut, "description": "No such memory for this user."}}


# --------------------------------------------------------------------------------------------
# Dependencies and helpers
# --------------------------------------------------------------------------------------------

_api_key_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="API key, when one is configured.")
_bearer = HTTPBearer(auto_error=False, description="The API key as a bearer token.")


def _key_matches(expected: str, x_api_key: str | None, bearer: HTTPAuthorizationCredentials | None) -> bool:
    supplied = x_api_key if x_api_key is not None else (bearer.credentials if bearer else None)
    # compare_digest on bytes: constant time and safe for non-ASCII input.
    return supplied is not None and hmac.compare_digest(supplied.encode("utf-8", "surrogateescape"),
                                                        expected.encode("utf-8"))


def require_api_key(
    request: Request,
    x_api_key: Annotated[str | None, Security(_api_key_header)] = None,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)] = None,
) -> None:
    expected: str | None = request.app.state.settings.api_key
    if expected is None:
        return
    if not _key_matches(expected, x_api_key, bearer):
        raise HTTPException(
            status_code=401,
            detail="Missing or invalid API key: send it in the X-API-Key header or as 'Authorization: Bearer <key>'.",
            headers={"WWW-Authenticate": "Bearer"},
        )


def get_engine(request: Request) -> MemoryEngine:
    eng = getattr(request.app.state, "engine", None)
    if eng is None:
        raise HTTPException(status_code=503, detail="The memory engine is not running.")
    return eng


Engine = Annotated[MemoryEngine, Depends(get_engine)]
T = TypeVar("T")


def _call(fn: Callable[..., T], *args: Any, not_found: str | None = None, **kwargs: Any) -> T:
    """Run an engine call, turning its errors into HTTP answers."""
    try:
        return fn(*args, **kwargs)
    except NotFoundError:
        # Never echo the engine's wording: it must not reveal whether another user owns the id.
        raise HTTPException(status_code=404, detail=not_found or "Not found.") from None
    except ValueError as exc:
        raise HTTPException(status_code=422, detail=str(exc)) from None


def _not_found(memory_id: int) -> str:
    return f"Memory {memory_id} not found."


def _recall_out(res: Any) -> dict[str, Any]:
    d = recall_dict(res)
    d["memories"] = [{**h["memory"], "score": h["score"]} for h in d["hits"]]
    return d


# Fields of an export record that hold text; anything else there (an object, a list) is refused here
# rather than failing deep inside the engine.
TEXT_FIELDS = ("user_id", "text", "source_id", "timestamp", "speaker", "outcome", "created_at", "updated_at",
               "superseded_at", "type", "subject", "attribute", "value", "status", "kind")


def _check_import_lines(body: bytes, user_id: str) -> tuple[list[dict[str, Any]], int]:
    """Validate a JSONL body for a user-scoped import: every record (the export's header line aside)
    must carry `user_id`. Returns the records (header included) and the number of user records."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HTTPException(status_code=422, detail=f"the body is not UTF-8 text: {exc}") from None
    out: list[dict[str, Any]] = []
    records = 0
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise HTTPException(status_code=422, detail=f"line {n}: not valid JSON ({exc.msg})") from None
        if not isinstance(rec, dict):
            raise HTTPException(status_code=422, detail=f"line {n}: expected a JSON object")
        if rec.get("kind") == "header" and "user_id" not in rec:
            out.append(rec)  # the export's format line belongs to nobody
            continue
        try:
            check_json_value(rec, where=f"line {n}")
        except ValueError as exc:
            raise HTTPException(status_code=422, detail=str(exc)) from None
        wrong = [k for k in TEXT_FIELDS if rec.get(k) is not None and not isinstance(rec[k], str)]
        if wrong:
            raise HTTPException(status_code=422, detail=f"line {n}: {', '.join(wrong)} must be text (a string) "
                                                        "or null")
        owner = rec.get("user_id")
        if owner != user_id:
            raise HTTPException(
                status_code=422,
                detail=(f"line {n}: belongs to user_id {owner!r}, not {user_id!r}; an import may only contain "
                        "the given user's records" if owner is not None
                        else f"line {n}: has no user_id; every line must carry user_id {user_id!r}"),
            )
        out.append(rec)
        records += 1
    if not records:
        raise HTTPException(status_code=422, detail="the body holds no JSONL records")
    return out, records


# --------------------------------------------------------------------------------------------
# Routes, one router per area; `create_app` puts them together
# --------------------------------------------------------------------------------------------

memory_router = APIRouter(tags=["memories"])
recall_router = APIRouter(tags=["memories"])
transfer_router = APIRouter(tags=["backup"])
chat_router = APIRouter(tags=["chat"])
admin_router = APIRouter()


@memory_router.post(
    "/memory", response_model=IngestOut, status_code=201,
    responses={200: {"model": IngestOut, "description": "Confirmed an existing memory, or ignored small talk."},
               201: {"description": "Created a memory (possibly superseding older ones)."}},
)
def post_memory(body: MemoryIn, response: Response, eng: Engine) -> dict[str, Any]:
    """Ingest a chat message, or store one structured memory.

    201 when a memory was created or superseded an older one, 200 when an existing memory was
    confirmed or the message was ignored (small talk)."""
    if body.message is not None:
        res = _call(eng.ingest, body.message, user_id=body.user_id, source_id=body.source_id,
                    timestamp=body.timestamp, speaker=body.speaker, in_reply_to=body.in_reply_to)
    else:
        res = _call(eng.remember, body.subject, body.attribute, body.value, type=body.type or "fact",
                    user_id=body.user_id, importance=body.importance)
    response.status_code = 201 if res.status in ("created", "superseded") else 200
    return ingest_dict(res)


@memory_router.get("/memories", response_model=MemoryListOut)
def list_memories(
    eng: Engine,
    user_id: UserQuery,
    status: Annotated[StatusFilter, Query(description="Which memories.")] = "active",
    limit: Annotated[int, Query(ge=1, le=LIST_LIMIT_MAX)] = 100,
    offset: Annotated[int, Query(ge=0, le=MAX_ID)] = 0,
) -> dict[str, Any]:
    """One user's memories, newest first, with lineage (`replaced_by`, `supersedes`)."""
    mems = _call(eng.list_memories, user_id=user_id, status=status, limit=limit, offset=offset)
    total = _call(eng.count_memories, user_id=user_id, status=status)
    return {"total": total, "limit": limit, "offset": offset, "status": status,
            "memories": [memory_dict(m) for m in mems]}


@memory_router.get("/memory/{memory_id}", response_model=MemoryOut, responses=NOT_FOUND)
def get_memory(memory_id: MemoryId, user_id: UserQuery, eng: Engine) -> dict[str, Any]:
    """One memory, in whatever state it is (active, superseded or deleted)."""
    return memory_dict(_call(eng.get, memory_id, user_id=user_id, not_found=_not_found(memory_id)))


@memory_router.get("/memory/{memory_id}/history", response_model=HistoryOut, responses=NOT_FOUND)
def memory_history(memory_id: MemoryId, user_id: UserQuery, eng: Engine) -> dict[str, Any]:
    """The supersede chain the memory belongs to, oldest first."""
    chain = _call(eng.history, memory_id, user_id=user_id, not_found=_not_found(memory_id))
    return {"memory_id": memory_id, "history": [memory_dict(m) for m in chain]}


@memory_router.delete("/memory/{memory_id}", response_model=DeleteOut, responses=NOT_FOUND)
def delete_memory(memory_id: MemoryId, user_id: UserQuery, eng: Engine) -> dict[str, Any]:
    """Soft delete: the memory leaves recall but stays in the ledger with status `deleted`."""
    mem = _call(eng.delete, memory_id, user_id=user_id, not_found=_not_found(memory_id))
    return {"status": "deleted", "id": memory_id, "message": f"Memory #{memory_id} deleted.",
            "memory": memory_dict(mem)}


@memory_router.post("/memory/{memory_id}/restore", response_model=MemoryOut, responses=NOT_FOUND)
def restore_memory(memory_id: MemoryId, user_id: UserQuery, eng: Engine) -> dict[str, Any]:
    """Undo a soft delete. 422 when the memory is not deleted, or when a newer value now holds its
    single-valued slot (delete that one first)."""
    return memory_dict(_call(eng.restore, memory_id, user_id=user_id, not_found=_not_found(memory_id)))


@memory_router.post("/memory/{memory_id}/erase", response_model=EraseOut, responses=NOT_FOUND)
def erase_memory(memory_id: MemoryId, user_id: UserQuery, eng: Engine) -> dict[str, Any]:
    """Hard delete of one memory: no copy stays in the store's files. Its source message goes too
    when no other memory came from it. `DELETE /memory/{id}` is the soft, restorable delete."""
    return {"erased": _call(eng.erase, memory_id, user_id=user_id, not_found=_not_found(memory_id))}


@memory_router.post("/messages/{message_id}/erase", response_model=EraseOut, responses={
    404: {"model": ErrorOut, "description": "No such message for this user."}})
def erase_message(message_id: Annotated[int, Path(ge=1, le=MAX_ID, description="Message id")], user_id: UserQuery,
                  eng: Engine) -> dict[str, Any]:
    """Hard delete of one logged message and of every memory derived from it."""
    return {"erased": _call(eng.erase_message, message_id, user_id=user_id,
                            not_found=f"Message {message_id} not found.")}


@recall_router.post("/recall", response_model=RecallOut)
def post_recall(body: RecallIn, eng: Engine) -> dict[str, Any]:
    """Hybrid recall over the user's active memories (plus superseded ones with
    `include_history`). `hits` is [] and confidence `unknown` when nothing clears the threshold."""
    res = _call(eng.recall, body.query, user_id=body.user_id, top_k=body.top_k, threshold=body.threshold,
                alpha=body.alpha, include_history=body.include_history,
                importance_weight=body.importance_weight)
    return _recall_out(res)


@transfer_router.get(
    "/export", response_class=StreamingResponse,
    responses={200: {"content": {"application/x-ndjson": {}}, "description": "One JSON record per line."}},
)
def export(user_id: UserQuery, eng: Engine) -> StreamingResponse:
    """One user's memories as JSON Lines (application/x-ndjson), for POST /import."""
    records = _call(eng.export_records, user_id=user_id)  # the user id is checked here, before the 200

    def lines() -> Iterator[bytes]:
        for record in records:
            yield (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")

    # The download name is a header: keep it to safe ASCII whatever the user id holds.
    safe = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "-_.") else "_" for ch in user_id)
    return StreamingResponse(lines(), media_type="application/x-ndjson",
                             headers={"Content-Disposition": f'attachment; filename="memories-{safe}.jsonl"'})


@transfer_router.post(
    "/import", response_model=ImportOut, max_body_size=DEFAULT_MAX_IMPORT_BODY,
    openapi_extra={"requestBody": {"required": True, "content": {"application/x-ndjson": {
        "schema": {"type": "string"},
        "example": '{"user_id": "alice", "text": "User uses Arch Linux.", "...": "..."}\n'}}}},
)
async def import_jsonl(request: Request, user_id: UserQuery, eng: Engine) -> dict[str, Any]:
    """Import JSON Lines as written by GET /export (Content-Type application/x-ndjson). Every line
    must belong to `user_id` (422 otherwise: nothing is imported)."""
    body = await request.body()
    records, lines = _check_import_lines(body, user_id)
    imported = await run_in_threadpool(_call, eng.import_records, records)
    return {"user_id": user_id, "lines": lines, "imported": imported}


@chat_router.post("/context", response_model=ContextOut)
def post_context(body: ContextIn, eng: Engine) -> dict[str, Any]:
    """The memories relevant to a turn, as a block for an LLM prompt (`text`) and as data (`items`):
    current facts first, superseded ones (when history is asked for) marked old with what replaced
    them, each with its [#id] citation, within `budget_chars`; an explicit "nothing relevant is
    known" line when recall abstains."""
    ctx = _call(eng.context, body.query, user_id=body.user_id, budget_chars=body.budget_chars,
                include_history=body.include_history, top_k=body.top_k, threshold=body.threshold)
    return context_dict(ctx)


@chat_router.get("/profile", response_model=ProfileOut)
def get_profile(user_id: UserQuery, eng: Engine,
                limit: Annotated[int, Query(ge=1, description="At most this many facts.")] = 5) -> dict[str, Any]:
    """A returning user's most important current facts (importance, then recency) and a greeting
    built from them, for the start of a session."""
    return profile_dict(_call(eng.profile, user_id=user_id, limit=limit))


@chat_router.post("/session/summary", response_model=SummaryOut, status_code=201,
                  responses={200: {"model": SummaryOut, "description": "The session held no message: nothing "
                                                                        "stored."},
                             502: {"model": ErrorOut, "description": "The configured LLM failed or is "
                                                                     "unreachable; nothing was stored."}})
def post_session_summary(body: SummaryIn, request: Request, response: Response, eng: Engine) -> dict[str, Any]:
    """End a session: its messages (by id, or every one since a moment) become one `event` memory
    cited to them. Written by the LLM at MEMENGINE_LLM_URL when one is configured, otherwise the
    session's facts and events in the order they were said."""
    summarizer = engine_llm.client_from_settings(request.app.state.settings)
    try:
        summary = _call(eng.summarize_session, user_id=body.user_id, message_ids=body.message_ids,
                        since=body.since, summarizer=summarizer)
    except engine_llm.LLMError as exc:
        raise HTTPException(status_code=502, detail=f"the LLM could not write the summary: {exc}") from None
    if summary.memory is None:
        response.status_code = 200  # no message in the session: nothing stored
    return summary_dict(summary)


def _forget(eng: MemoryEngine, user_id: str) -> dict[str, Any]:
    deleted = _call(eng.forget_user, user_id)
    return {"user_id": user_id, "deleted": dict(deleted)}


@admin_router.delete("/users", response_model=ForgetOut, tags=["users"])
def forget_user_by_query(user_id: UserQuery, eng: Engine) -> dict[str, Any]:
    """Forget a user: hard-deletes all their memories and messages. Takes any user id, including
    ones with "/" (`DELETE /users?user_id=team%2Falice`)."""
    return _forget(eng, user_id)


@admin_router.delete("/users/{user_id}", response_model=ForgetOut, tags=["users"])
def forget_user(user_id: Annotated[str, Path(min_length=1, max_length=256)], eng: Engine) -> dict[str, Any]:
    """Forget a user: hard-deletes all their memories and messages. For ids with "/" use
    `DELETE /users?user_id=...`."""
    return _forget(eng, user_id)


@admin_router.post("/admin/rebuild", response_model=RebuildOut, tags=["service"])
def rebuild_index(eng: Engine) -> dict[str, Any]:
    """Drop the vector and lexical indexes and rebuild them from SQLite (no re-embedding)."""
    return _call(eng.rebuild_index)


health_router = APIRouter(tags=["service"])


@health_router.get("/health", response_model=HealthOut, response_model_exclude_none=True)
def health(
    request: Request,
    eng: Engine,
    x_api_key: Annotated[str | None, Security(_api_key_header)] = None,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)] = None,
) -> dict[str, Any]:
    """Liveness and version; needs no API key. Counts of memories and users come only with the key
    when one is configured."""
    settings = request.app.state.settings
    out: dict[str, Any] = {"status": "ok", "version": __version__, "model": settings.model_name}
    if settings.api_key is None or _key_matches(settings.api_key, x_api_key, bearer):
        counts = {s: eng.count_memories(status=s) for s in STATUSES}
        counts["total"] = sum(counts.values())
        counts["users"] = len(eng.users())
        out["counts"] = counts
    return out


docs_router = APIRouter(include_in_schema=False)


@docs_router.get("/docs", response_class=HTMLResponse)
def docs_page(request: Request) -> str:
    """A plain page listing the routes, built from the OpenAPI schema. FastAPI's Swagger UI loads its
    scripts from a CDN, which a local-first server must not depend on (nor send users to)."""
    spec = request.app.openapi()
    rows = []
    for path, ops in spec.get("paths", {}).items():
        for method, op in ops.items():
            rows.append(f"<tr><td><code>{html.escape(method.upper())}</code></td><td><code>{html.escape(path)}"
                        f"</code></td><td>{html.escape(op.get('summary', ''))}</td></tr>")
    return (
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>MemEngine API</title></head><body>"
        f"<h1>MemEngine API {html.escape(spec['info']['version'])}</h1>"
        f"<p>{html.escape(spec['info'].get('description', ''))}</p>"
        "<p>The full machine-readable description: <a href=\"/openapi.json\">/openapi.json</a>. "
        "Request bodies are JSON (<code>Content-Type: application/json</code>; NDJSON for /import).</p>"
        "<table border=\"1\" cellpadding=\"4\"><tr><th>Method</th><th>Path</th><th>What</th></tr>"
        + "".join(rows) + "</table></body></html>"
    )


async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    """422 with where and why, never the offending input: it may be NaN or hold a lone surrogate,
    which cannot be written as JSON (the default handler echoes it and fails with a 500)."""
    detail = [{"loc": list(e.get("loc", ())), "msg": str(e.get("msg", "invalid")), "type": e.get("type", "")}
              for e in exc.errors()]
    body = json.dumps({"detail": detail}, ensure_ascii=True, allow_nan=False, default=str)
    return JSONResponse(status_code=422, content=json.loads(body))


async def _engine_error(request: Request, exc: EngineError) -> JSONResponse:  # pragma: no cover - defensive
    log.error("engine error on %s %s: %s", request.method, request.url.path, exc)
    return JSONResponse(status_code=500, content={"detail": f"engine error: {exc}"})


def create_app(
    settings: Settings,
    *,
    engine: MemoryEngine | None = None,
    close_engine: bool = False,
    rest_settings: RestSettings | None = None,
    max_body_size: int = DEFAULT_MAX_BODY,
) -> FastAPI:
    """Build the REST app. Without `engine`, one is opened on startup and closed on shutdown. A given
    engine stays the caller's to close, unless `close_engine` hands it to the app: then the app's
    shutdown closes it, which also runs when uvicorn stops on SIGTERM (a `finally` around
    `uvicorn.run` does not: uvicorn re-raises the signal).

    Raises ValueError for an empty API key: "" must not silently mean "no key"."""
    if settings.api_key is not None and not settings.api_key.strip():
        raise ValueError("MEMENGINE_API_KEY is set but empty; set a real key, or unset it to run without one")
    rest = rest_settings or RestSettings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        owned = engine if close_engine else None
        if app.state.engine is None:
            owned = await run_in_threadpool(MemoryEngine, settings)
            app.state.engine = owned
        try:
            yield
        finally:
            if owned is not None:
                app.state.engine = None
                await run_in_threadpool(owned.close)

    app = FastAPI(
        title="MemEngine",
        version=__version__,
        summary="Local-first memory for chatbots: ingest messages, recall facts with citations.",
        description=(
            "Every memory route is scoped to a `user_id`; memories of another user answer 404. "
            "When an API key is configured, send it as `X-API-Key` or `Authorization: Bearer` "
            "(every route but `/health`). Bodies are JSON; browsers from other origins are refused."
        ),
        lifespan=lifespan,
        max_body_size=max_body_size,
        docs_url=None,
        redoc_url=None,
        swagger_ui_oauth2_redirect_url=None,
    )
    app.state.settings = settings
    app.state.engine = engine
    app.include_router(health_router)
    app.include_router(docs_router)
    protected = {"dependencies": [Depends(require_api_key)], "responses": ERRORS}
    for router in (memory_router, recall_router, chat_router, transfer_router, admin_router):
        app.include_router(router, **protected)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(EngineError, _engine_error)
    app.add_middleware(BrowserGuard, hosts=rest.host_names(), origins=rest.origins())
    return app
