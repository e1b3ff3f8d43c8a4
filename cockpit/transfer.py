"""JSONL export/import through the engine's records API, as bytes for download/upload widgets."""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any


def export_bytes(eng: Any, user_id: str | None) -> bytes:
    """The store (or one user's memories) as JSONL bytes, one ``eng.export_records`` record per line."""
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in eng.export_records(user_id)).encode("utf-8")


def parse_records(data: bytes) -> Iterator[Any]:
    """The records of JSONL bytes; ValueError naming the line that is not UTF-8 JSON."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"the file is not UTF-8 text ({exc})") from None
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"line {n}: not valid JSON ({exc.msg})") from None


def import_bytes(eng: Any, data: bytes) -> int:
    """Import JSONL bytes via ``eng.import_records`` (all or nothing); returns how many memories were imported."""
    return eng.import_records(parse_records(data))
