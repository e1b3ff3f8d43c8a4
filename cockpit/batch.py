"""Turn a batch (text area, .txt or .jsonl upload) into the messages ``ingest_many`` takes."""
from __future__ import annotations

import json
from typing import Any

MESSAGE_FIELDS = ("text", "source_id", "timestamp", "speaker", "user_id")


def parse_lines(text: str) -> list[dict[str, Any]]:
    """One message per non-blank line."""
    return [{"text": line.strip()} for line in text.splitlines() if line.strip()]


def parse_jsonl(text: str) -> list[dict[str, Any]]:
    """One JSON value per line: a string, or an object with ``text`` (or ``message``) and optional
    source_id / timestamp / speaker / user_id. Raises ValueError naming the bad line."""
    out: list[dict[str, Any]] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"line {n} is not valid JSON ({exc.msg})") from None
        if isinstance(value, str):
            out.append({"text": value})
            continue
        if not isinstance(value, dict):
            raise ValueError(f"line {n}: expected a string or an object with a 'text' field")
        body = value.get("text", value.get("message"))
        if not isinstance(body, str):
            raise ValueError(f"line {n}: missing a string 'text' field")
        msg = {k: value[k] for k in MESSAGE_FIELDS if k in value and value[k] is not None}
        msg["text"] = body
        out.append(msg)
    return out


def parse_upload(name: str, data: bytes) -> list[dict[str, Any]]:
    """Messages from an uploaded file (.jsonl: JSON lines; anything else: one message per line)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{name} is not UTF-8 text") from None
    if name.lower().endswith((".jsonl", ".ndjson")):
        return parse_jsonl(text)
    return parse_lines(text)


def chunks(items: list[Any], size: int) -> list[list[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)]
