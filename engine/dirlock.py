"""The data directory's lock: one engine per store at a time."""
from __future__ import annotations

import fcntl
import os
from pathlib import Path

from .model import StoreInUseError


class _DirLock:
    """An exclusive lock on the data directory, held for the engine's life (any process, any thread)."""

    def __init__(self, path: Path):
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(self._fd, 64, 0).decode(errors="replace").strip() or "unknown"
            os.close(self._fd)
            raise StoreInUseError(
                f"the store at {path.parent} is in use by another engine (pid {holder}); "
                "close it first, or point this one at another data_dir"
            ) from None
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, str(os.getpid()).encode(), 0)

    def release(self) -> None:
        if self._fd >= 0:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = -1
