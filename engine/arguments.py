"""The facade's argument checks: each turns what a caller passed into what the pipelines take, or
raises ValueError saying what is wrong with it. The limits themselves are in limits.py and settings.py."""
from __future__ import annotations

from typing import Any, Iterable, Mapping

import numpy as np

from . import extraction as extractlib
from . import text as textlib
from .limits import LIST_LIMIT_MAX, MAX_FIELD_CHARS, MEMORY_TYPES, STATUS_FILTERS
from .model import MessageIn
from .settings import Settings

_MESSAGE_KEYS = {"text", "message", "user_id", "source_id", "timestamp", "speaker", "in_reply_to"}


def user(user_id: object, settings: Settings) -> str:
    return textlib.validate_user_id(user_id, max_chars=settings.max_user_id_chars)


def optional_field(value: object, name: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string or None, not {type(value).__name__}")
    if "\x00" in value:
        raise ValueError(f"{name} contains a NUL byte")
    if len(value) > MAX_FIELD_CHARS:
        raise ValueError(f"{name} is longer than {MAX_FIELD_CHARS} characters")
    return value.strip() or None


def message(text: object, user_id: object, source_id: object, timestamp: object, speaker: object,
            settings: Settings, in_reply_to: object = None) -> MessageIn:
    return MessageIn(
        textlib.validate_text(text, max_chars=settings.max_text_chars, what="message"),
        user(user_id, settings),
        optional_field(source_id, "source_id"),
        optional_field(timestamp, "timestamp"),
        optional_field(speaker, "speaker"),
        None if in_reply_to is None else textlib.validate_text(in_reply_to, max_chars=settings.max_text_chars,
                                                               what="in_reply_to"),
    )


def messages(items: Iterable[str | Mapping[str, Any]], user_id: object, settings: Settings) -> list[MessageIn]:
    """ingest_many's messages, each a text or a mapping of ingest's arguments; an error names the message."""
    checked = []
    for n, item in enumerate(items):
        try:
            if isinstance(item, str):
                checked.append(message(item, user_id, None, None, None, settings))
            elif isinstance(item, Mapping):
                unknown = set(item) - _MESSAGE_KEYS
                if unknown:
                    raise ValueError(f"unknown keys {sorted(unknown)}")
                checked.append(message(
                    item.get("text", item.get("message")), item.get("user_id", user_id),
                    item.get("source_id"), item.get("timestamp"), item.get("speaker"), settings,
                    item.get("in_reply_to"),
                ))
            else:
                raise ValueError(f"expected a string or a mapping, not {type(item).__name__}")
        except ValueError as exc:
            raise ValueError(f"message {n + 1}: {exc}") from None
    return checked


def structured_memory(subject: object, attribute: object, value: object, type: object,
                      importance: object) -> extractlib.Candidate:
    """remember's arguments as the candidate the ingest pipeline stores."""
    for name, field in (("subject", subject), ("attribute", attribute), ("value", value)):
        textlib.validate_text(field, max_chars=MAX_FIELD_CHARS, what=name)
    if type not in MEMORY_TYPES:
        raise ValueError(f"type must be one of {', '.join(MEMORY_TYPES)}, got {type!r}")
    candidate = extractlib.structured(subject, attribute, value, type)
    if importance is not None:
        if not 0.0 <= float(importance) <= 1.0:
            raise ValueError(f"importance must be between 0 and 1, got {importance}")
        candidate = extractlib.replace(candidate, importance=float(importance))
    return candidate


def record_id(value: object, what: str) -> int:
    """A memory or message id: an int or a numpy integer, never a bool."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{what} id must be an integer, not {type(value).__name__}")
    return int(value)


def check_status(status: str) -> None:
    if status not in STATUS_FILTERS:
        raise ValueError(f"status must be one of {', '.join(STATUS_FILTERS)}, got {status!r}")


def page(limit: object, offset: object) -> tuple[int, int]:
    limit, offset = int(limit), int(offset)
    if not 0 <= limit <= LIST_LIMIT_MAX or offset < 0:
        raise ValueError(f"limit must be 0..{LIST_LIMIT_MAX} and offset >= 0")
    return limit, offset


def profile_limit(limit: object) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 50:
        raise ValueError(f"limit must be an integer between 1 and 50, got {limit!r}")
    return limit


def session_message_ids(message_ids: object, since: object) -> list[int] | None:
    """summarize_session takes either message ids or a moment; the ids as a list, or None with a moment."""
    if (message_ids is None) == (since is None):
        raise ValueError("give either message_ids or since")
    if message_ids is not None and (not isinstance(message_ids, (list, tuple)) or not message_ids or any(
            isinstance(i, bool) or not isinstance(i, int) for i in message_ids)):
        raise ValueError("message_ids must be a non-empty list of integers")
    return list(message_ids) if message_ids else None
