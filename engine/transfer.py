"""Export and import over records (plain dicts), so adapters need no temp files; JSON lines on top.

An export is a header record, then every message, then every memory (any status, lineage
included), oldest first. Import validates every record before anything is written, then writes all
of it in one transaction: a malformed record or a conflict leaves the store untouched.
"""
from __future__ import annotations

import json
import os
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from . import extraction as extractlib
from . import text as textlib
from .limits import EXPORT_VERSION, INGEST_STATUSES, MAX_FIELD_CHARS, MEMORY_TYPES, STATUSES
from .model import MessageIn
from .storage import Connection, IntegrityError, Ledger, now_iso

_MESSAGE_KEYS = {"kind", "id", "user_id", "text", "source_id", "timestamp", "speaker", "outcome", "created_at"}
_MEMORY_KEYS = {"kind", "id", "user_id", "text", "type", "subject", "attribute", "value", "multi_valued",
                "importance", "status", "replaced_by", "supersedes", "created_at", "updated_at", "superseded_at",
                "message_id"}
_REQUIRED_MEMORY_KEYS = ("id", "user_id", "text", "type", "subject", "attribute", "value", "importance", "status",
                         "created_at")


def export_records(ledger: Ledger, model_id: str, user_id: str | None) -> Iterator[dict[str, Any]]:
    yield {"kind": "header", "format": "memengine-export", "version": EXPORT_VERSION, "model": model_id,
           "exported_at": now_iso()}
    for record in ledger.export_messages(user_id):
        yield {**record, "kind": "message"}
    for record in ledger.export_memories(user_id):
        yield {**record, "kind": "memory"}


def read_jsonl(path: str | os.PathLike) -> Iterator[tuple[str, object]]:
    """("line N", record) for each non-blank line; a line that is not JSON raises ValueError naming it."""
    try:
        handle = open(path, encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    with handle:
        for n, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"line {n}: not JSON ({exc.msg})") from None
            yield f"line {n}", record


def write_jsonl(path: str | os.PathLike, records: Iterable[dict[str, Any]]) -> int:
    lines = 0
    # An export holds people's messages: readable by its owner only, also when it overwrites a file.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.chmod(path, 0o600)
    with open(fd, "w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            lines += 1
    return lines


def _integer(value: object, name: str, *, optional: bool = False) -> int | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer, not {type(value).__name__}")
    return value


def _short_text(value: object, name: str) -> str | None:
    """An optional short string field, as the engine accepts it on ingest."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string or null, not {type(value).__name__}")
    if "\x00" in value:
        raise ValueError(f"{name} contains a NUL byte")
    if len(value) > MAX_FIELD_CHARS:
        raise ValueError(f"{name} is longer than {MAX_FIELD_CHARS} characters")
    return value


def validate_records(records: Iterable[tuple[str, object]], *, check_user: Callable[[object], str], max_text_chars: int
                     ) -> tuple[list[dict], list[dict]]:
    """(messages, memories) from (label, record) pairs, every field checked, memories in id order;
    a ValueError names the record by its label."""
    messages: list[dict] = []
    memories: list[dict] = []
    for label, record in records:
        try:
            if not isinstance(record, dict):
                raise ValueError("expected a JSON object")
            kind = record.get("kind")
            if kind == "header":
                if record.get("format") != "memengine-export":
                    raise ValueError("not a memengine export")
            elif kind == "message":
                unknown = set(record) - _MESSAGE_KEYS
                if unknown:
                    raise ValueError(f"unknown fields {sorted(unknown)}")
                m = {"id": _integer(record.get("id"), "message id"), "user_id": check_user(record.get("user_id")),
                     "text": textlib.validate_text(record.get("text"), max_chars=max_text_chars, what="message text")}
                for name in ("source_id", "timestamp", "speaker", "created_at"):
                    m[name] = _short_text(record.get(name), name)
                outcome = record.get("outcome")
                if outcome is not None and outcome not in INGEST_STATUSES:
                    raise ValueError(f"unknown outcome {outcome!r}")
                m["outcome"] = outcome
                messages.append(m)
            elif kind == "memory":
                memories.append(_memory(record, check_user, max_text_chars))
            else:
                raise ValueError(f"unknown kind {kind!r}")
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{label}: {exc}") from None
    memories.sort(key=lambda m: m["id"])
    ids = {m["id"] for m in memories}
    if len(ids) != len(memories):
        raise ValueError("two memories share an id")
    if len({m["id"] for m in messages}) != len(messages):
        raise ValueError("two messages share an id")
    for m in memories:
        for link in ("replaced_by", "supersedes"):
            if m[link] is not None and m[link] not in ids:
                m[link] = None  # a partial export (one user's lineage is always complete)
        if m["replaced_by"] is not None and m["replaced_by"] <= m["id"]:
            raise ValueError(f"memory {m['id']}: replaced_by must point to a newer memory")
        if m["status"] == "superseded" and m["replaced_by"] is None:
            raise ValueError(f"memory {m['id']}: superseded but replaced by nothing in this file")
    return messages, memories


def _memory(record: dict, check_user: Callable[[object], str], max_text_chars: int) -> dict:
    missing = [k for k in _REQUIRED_MEMORY_KEYS if record.get(k) is None]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}")
    unknown = set(record) - _MEMORY_KEYS
    if unknown:
        raise ValueError(f"unknown fields {sorted(unknown)}")
    m: dict[str, Any] = {"id": _integer(record["id"], "memory id"), "user_id": check_user(record["user_id"])}
    for name in ("text", "subject", "attribute", "value"):
        m[name] = textlib.validate_text(record[name], max_chars=max_text_chars, what=name)
    if not isinstance(record["type"], str) or record["type"] not in MEMORY_TYPES:
        raise ValueError(f"unknown type {record['type']!r}")
    if not isinstance(record["status"], str) or record["status"] not in STATUSES:
        raise ValueError(f"unknown status {record['status']!r}")
    m["type"], m["status"] = record["type"], record["status"]
    importance = record["importance"]
    if isinstance(importance, bool) or not isinstance(importance, (int, float)) or not 0 <= importance <= 1:
        raise ValueError("importance must be a number between 0 and 1")
    m["importance"] = float(importance)
    for name in ("replaced_by", "supersedes", "message_id"):
        m[name] = _integer(record.get(name), name, optional=True)
    m["created_at"] = _short_text(record["created_at"], "created_at")
    for name in ("updated_at", "superseded_at"):
        m[name] = _short_text(record.get(name), name)
    multi = record.get("multi_valued", False)
    if not isinstance(multi, bool):
        raise ValueError(f"multi_valued must be true or false, not {type(multi).__name__}")
    # The slot table decides what an accumulating slot is; a file cannot make one single-valued.
    slot = extractlib.SLOTS.get(m["attribute"])
    m["multi_valued"] = True if slot is not None and slot.multi else multi
    return m


def import_records(ledger: Ledger, messages: list[dict], memories: list[dict], vectors: np.ndarray,
                   conn: Connection) -> int:
    """Write validated records inside the caller's transaction; new ids keep the old order."""
    active = [(m["user_id"], m["subject"], m["attribute"], extractlib.value_key(m["value"]))
              for m in memories if m["status"] == "active"]
    clash = ledger.active_same_values(conn, active)
    if clash:
        shown = ", ".join(f"#{i}" for i in clash[:10]) + (" ..." if len(clash) > 10 else "")
        raise ValueError(f"already imported: the store's active memories {shown} hold the same values as this "
                         "file; nothing was imported")
    ledger.defer_foreign_keys(conn)
    message_ids: dict[int, int] = {}
    for m in messages:
        message = MessageIn(m["text"], m["user_id"], m["source_id"], m["timestamp"], m["speaker"])
        message_ids[m["id"]] = ledger.insert_message(conn, message, m["created_at"] or now_iso())
        if m["outcome"]:
            ledger.set_message_outcome(conn, message_ids[m["id"]], m["outcome"])
    # New ids keep the old order, so "replaced by a newer memory" still holds.
    # Ids from the ledger's allocator (a shared PostgreSQL sequence in server mode), increasing.
    new_ids = ledger.reserve_memory_ids(conn, len(memories))
    memory_ids = {m["id"]: new_id for m, new_id in zip(memories, new_ids)}
    for m, vector in zip(memories, vectors):
        ledger.insert_memory(
            conn, memory_id=memory_ids[m["id"]], user_id=m["user_id"], text=m["text"], type=m["type"],
            subject=m["subject"], attribute=m["attribute"], value=m["value"],
            value_key=extractlib.value_key(m["value"]), multi_valued=m["multi_valued"],
            importance=m["importance"], status=m["status"],
            replaced_by=memory_ids.get(m["replaced_by"]), supersedes=memory_ids.get(m["supersedes"]),
            message_id=message_ids.get(m["message_id"]), embedding=vector,
            created_at=m["created_at"], updated_at=m["updated_at"], superseded_at=m["superseded_at"],
        )
        if m["status"] == "active":
            ledger.outbox(conn, "add", m["user_id"], memory_ids[m["id"]])
    return len(memories)


def conflict_message(exc: IntegrityError) -> str:
    text = str(exc)
    if "UNIQUE" in text.upper():
        return ("import conflicts with the store: a single-valued slot or a value would be active twice "
                "(was part of this file imported already?); nothing was imported")
    return f"import conflicts with the store ({text}); nothing was imported"

