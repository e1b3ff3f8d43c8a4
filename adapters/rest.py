"""REST API over the memory engine (FastAPI).

`create_app(settings)` builds the app; `python -m engine serve` runs it with uvicorn.

Every route that reads or changes memories is scoped to one `user_id`: a memory that belongs to
another user answers 404, exactly like one that does not exist. When `Settings.api_key`
(env MEMENGINE_API_KEY) is set, every route but /health needs it in `X-API-Key` or
`Authorization: Bearer`. The interactive docs (/docs, /redoc, /openapi.json) carry no user data
and stay reachable so the key can be entered there ("Authorize").

The engine is synchronous and thread-safe, so the endpoints are plain `def`s that FastAPI runs in
its threadpool.
"""
# No `from __future__ import annotations` here: FastAPI reads these annotations at runtime.
import hmac
import json
import logging
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Path, Query, Request, Response, Security
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from starlette.background import BackgroundTask

import engine as _engine_pkg
from engine import EngineError, MemoryEngine, NotFoundError, Settings

log = logging.getLogger("memengine.rest")

__version__ = getattr(_engine_pkg, "__version__", "0.1.0")
DEFAULT_MAX_BODY = 1024 * 1024  # 1 MiB for every JSON route
DEFAULT_MAX_IMPORT_BODY = 64 * 1024 * 1024  # 64 MiB for POST /import

MemoryType = Literal["fact", "preference", "project_detail", "event", "goal"]
StatusFilter = Literal["active", "superseded", "deleted", "all"]
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


# --------------------------------------------------------------------------------------------
# Request models
# --------------------------------------------------------------------------------------------

class MemoryIn(BaseModel):
    """A chat message to learn from, or one structured memory to store as given."""

    model_config = ConfigDict(
        extra="forbid",
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
    subject: str | None = Field(None, min_length=1, max_length=1000, description="Structured memory: subject.")
    attribute: str | None = Field(None, min_length=1, max_length=1000, description="Structured memory: attribute.")
    value: str | None = Field(None, min_length=1, max_length=10_000, description="Structured memory: value.")
    type: MemoryType | None = Field(None, description="Structured memory: kind of memory (default fact).")
    importance: float | None = Field(None, ge=0.0, le=1.0, description="Structured memory: importance 0..1.")

    @field_validator("timestamp")
    @classmethod
    def _iso_timestamp(cls, v: str | None) -> str | None:
        if v is None:
            return v
        from datetime import datetime

        try:
            datetime.fromisoformat(v.replace("Z", "+00:00") if v.endswith("Z") else v)
        except ValueError:
            raise ValueError("timestamp must be an ISO 8601 date or date-time, e.g. 2026-10-10T06:30:00Z") from None
        return v

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
        given = [k for k in ("source_id", "timestamp", "speaker") if getattr(self, k) is not None]
        if given:
            raise ValueError(f"{', '.join(map(repr, given))} only apply to a 'message'")
        return self


class RecallIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
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
    top_k: int | None = Field(None, ge=1, le=100, description="At most this many hits (default from settings).")
    threshold: float | None = Field(None, ge=0.0, le=1.5, description="Minimum score for a hit.")
    alpha: float | None = Field(None, ge=0.0, le=1.0, description="Weight of semantic vs lexical score.")
    importance_weight: float | None = Field(None, ge=0.0, le=1.0, description="Weight of memory importance.")
    include_history: bool | None = Field(None, description="Also return superseded memories, marked historical.")


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
    status: Literal["created", "superseded", "confirmed", "ignored"]
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
    confidence: Literal["certain", "vague", "unknown"]
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
    counts: dict[str, int]


class ErrorOut(BaseModel):
    detail: Any


ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorOut, "description": "Missing or wrong API key (only when an API key is configured)."},
    413: {"description": "Request body too large."},
    422: {"model": ErrorOut, "description": "Invalid input; `detail` says what was wrong."},
}
NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorOut, "description": "No such memory for this user."}}


# --------------------------------------------------------------------------------------------
# Dependencies and helpers
# --------------------------------------------------------------------------------------------

_api_key_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="API key, when one is configured.")
_bearer = HTTPBearer(auto_error=False, description="The API key as a bearer token.")


def require_api_key(
    request: Request,
    x_api_key: Annotated[str | None, Security(_api_key_header)] = None,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)] = None,
) -> None:
    expected: str | None = request.app.state.settings.api_key
    if not expected:
        return
    supplied = x_api_key if x_api_key is not None else (bearer.credentials if bearer else None)
    # compare_digest on bytes: constant time and safe for non-ASCII input.
    if supplied is None or not hmac.compare_digest(supplied.encode("utf-8"), expected.encode("utf-8")):
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
    d = res.to_dict()
    d["memories"] = [{**h["memory"], "score": h["score"]} for h in d["hits"]]
    return d


@contextmanager
def _temp_path(suffix: str) -> Iterator[str]:
    fd, path = tempfile.mkstemp(prefix="memengine-", suffix=suffix)
    os.close(fd)
    try:
        yield path
    finally:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


def _check_import_lines(body: bytes, user_id: str) -> tuple[str, int]:
    """Validate a JSONL body for a user-scoped import: every record (the export's header line aside)
    must carry `user_id`. Returns the normalized text and the number of records."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HTTPException(status_code=422, detail=f"the body is not UTF-8 text: {exc}") from None
    out: list[str] = []
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
            out.append(json.dumps(rec, ensure_ascii=False))  # the export's format line belongs to nobody
            continue
        owner = rec.get("user_id")
        if owner != user_id:
            raise HTTPException(
                status_code=422,
                detail=(f"line {n}: belongs to user_id {owner!r}, not {user_id!r}; an import may only contain "
                        "the given user's records" if owner is not None
                        else f"line {n}: has no user_id; every line must carry user_id {user_id!r}"),
            )
        out.append(json.dumps(rec, ensure_ascii=False))
        records += 1
    if not records:
        raise HTTPException(status_code=422, detail="the body holds no JSONL records")
    return "\n".join(out) + "\n", records


# --------------------------------------------------------------------------------------------
# The app
# --------------------------------------------------------------------------------------------

def create_app(
    settings: Settings,
    *,
    engine: MemoryEngine | None = None,
    max_body_size: int = DEFAULT_MAX_BODY,
    max_import_size: int = DEFAULT_MAX_IMPORT_BODY,
) -> FastAPI:
    """Build the REST app. Without `engine`, one is opened on startup and closed on shutdown;
    a given engine stays the caller's to close."""

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        owned = None
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
            "(every route but `/health`)."
        ),
        lifespan=lifespan,
        max_body_size=max_body_size,
    )
    app.state.settings = settings
    app.state.engine = engine

    @app.get("/health", response_model=HealthOut, tags=["service"])
    def health(eng: Engine) -> dict[str, Any]:
        """Liveness and a few counts. Needs no API key."""
        counts = {s: eng.count_memories(status=s) for s in ("active", "superseded", "deleted")}
        counts["total"] = sum(counts.values())
        counts["users"] = len(eng.users())
        return {"status": "ok", "version": __version__, "model": settings.model_name, "counts": counts}

    api = APIRouter(dependencies=[Depends(require_api_key)], responses=ERRORS)

    @api.post(
        "/memory", response_model=IngestOut, status_code=201, tags=["memories"],
        responses={200: {"model": IngestOut, "description": "Confirmed an existing memory, or ignored small talk."},
                   201: {"description": "Created a memory (possibly superseding older ones)."}},
    )
    def post_memory(body: MemoryIn, response: Response, eng: Engine) -> dict[str, Any]:
        """Ingest a chat message, or store one structured memory.

        201 when a memory was created or superseded an older one, 200 when an existing memory was
        confirmed or the message was ignored (small talk)."""
        if body.message is not None:
            res = _call(eng.ingest, body.message, user_id=body.user_id, source_id=body.source_id,
                        timestamp=body.timestamp, speaker=body.speaker)
        else:
            res = _call(eng.remember, body.subject, body.attribute, body.value, type=body.type or "fact",
                        user_id=body.user_id, importance=body.importance)
        response.status_code = 201 if res.status in ("created", "superseded") else 200
        return res.to_dict()

    @api.post("/recall", response_model=RecallOut, tags=["memories"])
    def post_recall(body: RecallIn, eng: Engine) -> dict[str, Any]:
        """Hybrid recall over the user's active memories (plus superseded ones with
        `include_history`). `hits` is [] and confidence `unknown` when nothing clears the threshold."""
        res = _call(eng.recall, body.query, user_id=body.user_id, top_k=body.top_k, threshold=body.threshold,
                    alpha=body.alpha, include_history=body.include_history,
                    importance_weight=body.importance_weight)
        return _recall_out(res)

    @api.get("/memories", response_model=MemoryListOut, tags=["memories"])
    def list_memories(
        eng: Engine,
        user_id: UserQuery,
        status: Annotated[StatusFilter, Query(description="Which memories.")] = "active",
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
        offset: Annotated[int, Query(ge=0, le=MAX_ID)] = 0,
    ) -> dict[str, Any]:
        """One user's memories, newest first, with lineage (`replaced_by`, `supersedes`)."""
        mems = _call(eng.list_memories, user_id=user_id, status=status, limit=limit, offset=offset)
        total = _call(eng.count_memories, user_id=user_id, status=status)
        return {"total": total, "limit": limit, "offset": offset, "status": status,
                "memories": [m.to_dict() for m in mems]}

    @api.get("/memory/{memory_id}", response_model=MemoryOut, tags=["memories"], responses=NOT_FOUND)
    def get_memory(memory_id: MemoryId, user_id: UserQuery, eng: Engine) -> dict[str, Any]:
        """One memory, in whatever state it is (active, superseded or deleted)."""
        return _call(eng.get, memory_id, user_id=user_id, not_found=_not_found(memory_id)).to_dict()

    @api.get("/memory/{memory_id}/history", response_model=HistoryOut, tags=["memories"], responses=NOT_FOUND)
    def memory_history(memory_id: MemoryId, user_id: UserQuery, eng: Engine) -> dict[str, Any]:
        """The supersede chain the memory belongs to, oldest first."""
        chain = _call(eng.history, memory_id, user_id=user_id, not_found=_not_found(memory_id))
        return {"memory_id": memory_id, "history": [m.to_dict() for m in chain]}

    @api.delete("/memory/{memory_id}", response_model=DeleteOut, tags=["memories"], responses=NOT_FOUND)
    def delete_memory(memory_id: MemoryId, user_id: UserQuery, eng: Engine) -> dict[str, Any]:
        """Soft delete: the memory leaves recall but stays in the ledger with status `deleted`."""
        mem = _call(eng.delete, memory_id, user_id=user_id, not_found=_not_found(memory_id))
        return {"status": "deleted", "id": memory_id, "message": f"Memory #{memory_id} deleted.",
                "memory": mem.to_dict()}

    @api.delete("/users/{user_id}", response_model=ForgetOut, tags=["users"])
    def forget_user(user_id: Annotated[str, Path(min_length=1, max_length=256)], eng: Engine) -> dict[str, Any]:
        """Forget a user: hard-deletes all their memories and messages."""
        deleted = _call(eng.forget_user, user_id)
        return {"user_id": user_id, "deleted": dict(deleted)}

    @api.get(
        "/export", tags=["backup"], response_class=FileResponse,
        responses={200: {"content": {"application/x-ndjson": {}}, "description": "One JSON record per line."}},
    )
    def export(user_id: UserQuery, eng: Engine) -> FileResponse:
        """One user's memories as JSON Lines (application/x-ndjson), for POST /import."""
        fd, path = tempfile.mkstemp(prefix="memengine-export-", suffix=".jsonl")
        os.close(fd)
        try:
            _call(eng.export_jsonl, path, user_id=user_id)
        except BaseException:
            os.unlink(path)
            raise
        return FileResponse(path, media_type="application/x-ndjson", filename=f"memories-{user_id}.jsonl",
                            background=BackgroundTask(os.unlink, path))

    @api.post(
        "/import", response_model=ImportOut, tags=["backup"], max_body_size=max_import_size,
        openapi_extra={"requestBody": {"required": True, "content": {"application/x-ndjson": {
            "schema": {"type": "string"},
            "example": '{"user_id": "alice", "text": "User uses Arch Linux.", "...": "..."}\n'}}}},
    )
    async def import_jsonl(request: Request, user_id: UserQuery, eng: Engine) -> dict[str, Any]:
        """Import JSON Lines as written by GET /export. Every line must belong to `user_id`
        (422 otherwise: nothing is imported)."""
        body = await request.body()
        text, lines = _check_import_lines(body, user_id)

        def run() -> int:
            with _temp_path(".jsonl") as path:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
                return _call(eng.import_jsonl, path)

        imported = await run_in_threadpool(run)
        return {"user_id": user_id, "lines": lines, "imported": imported}

    app.include_router(api)

    @app.exception_handler(EngineError)
    async def _engine_error(request: Request, exc: EngineError):  # pragma: no cover - defensive
        from fastapi.responses import JSONResponse

        log.error("engine error on %s %s: %s", request.method, request.url.path, exc)
        return JSONResponse(status_code=500, content={"detail": f"engine error: {exc}"})

    return app
