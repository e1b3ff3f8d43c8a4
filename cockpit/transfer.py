"""JSONL export/import through the engine's file-based API, as bytes for download/upload widgets."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any


def export_bytes(eng: Any, user_id: str | None) -> bytes:
    """The store (or one user's memories) as JSONL bytes, via ``eng.export_jsonl``."""
    with tempfile.TemporaryDirectory(prefix="memengine-export-") as tmp:
        path = Path(tmp) / "export.jsonl"
        eng.export_jsonl(path, user_id=user_id)
        return path.read_bytes()


def import_bytes(eng: Any, data: bytes) -> int:
    """Import JSONL bytes via ``eng.import_jsonl``; returns how many memories were imported."""
    fd, name = tempfile.mkstemp(prefix="memengine-import-", suffix=".jsonl")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        return eng.import_jsonl(name)
    finally:
        os.unlink(name)
