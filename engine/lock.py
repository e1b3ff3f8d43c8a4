"""An exclusive, portable lock on a data directory, held by the operating system for a process's life.

`DirectoryLock(data_dir / "engine.lock")` either holds the lock or raises `StoreInUseError` naming
the holder's pid. What counts is the OS lock, never the file's presence: a crashed holder's lock
vanishes with its process, and deleting the lock file while an engine runs does not let a second
one in:

- POSIX (Linux, macOS): `flock` on the lock file AND on the directory that contains it. A directory
  that holds files cannot be deleted, so its lock survives when someone removes `engine.lock`; the
  lock file only carries the pid for the error message. `flock` locks belong to the open file, so a
  second lock from the same process is refused as well (two engines in one process would corrupt
  the indexes just as two processes would).
- Windows: `msvcrt.locking` on one byte of the lock file. Windows refuses to delete a file another
  process holds open, so the file cannot vanish under a running engine. The locked byte lies past
  the pid text (locking past the end of a file is allowed there) so others can still read the pid.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from .model import StoreInUseError

# Windows byte-range locks stop other processes from reading the range, so lock a byte far past the
# few bytes of pid text at the start of the file.
_WINDOWS_LOCK_OFFSET = 1 << 20

if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> bool:
        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


def _read_pid(path: Path) -> int | None:
    """The pid a holder wrote into the lock file, or None when there is none to read."""
    try:
        text = path.read_bytes()[:32].decode("ascii", errors="replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


class DirectoryLock:
    """Hold an exclusive lock on `path` (a lock file) and on the directory that contains it.

    Raises StoreInUseError (with `.pid`: the holder's pid, or None when unknown) when another holder
    has it. Call `release()` when done; it is safe to call twice. Also usable as a context manager.
    """

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        self._fds: list[int] = []
        try:
            if sys.platform != "win32":
                # The directory's lock is the one that cannot be bypassed by deleting the file.
                self._acquire(os.open(self.path.parent, os.O_RDONLY))
            self._acquire(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644))
        except BaseException:
            self.release()
            raise
        file_fd = self._fds[-1]
        os.ftruncate(file_fd, 0)
        os.lseek(file_fd, 0, os.SEEK_SET)
        os.write(file_fd, str(os.getpid()).encode("ascii"))
        os.fsync(file_fd)

    def _acquire(self, fd: int) -> None:
        if not _try_lock(fd):
            os.close(fd)
            pid = _read_pid(self.path)
            err = StoreInUseError(
                f"the store at {self.path.parent} is in use by another engine "
                f"(pid {pid if pid is not None else 'unknown'}); "
                "close it first, or point this one at another data_dir"
            )
            err.pid = pid
            raise err
        self._fds.append(fd)

    @property
    def held(self) -> bool:
        return bool(self._fds)

    def release(self) -> None:
        """Give the lock up (the lock file stays: removing it would race with the next holder)."""
        while self._fds:
            fd = self._fds.pop()
            try:
                _unlock(fd)
            finally:
                os.close(fd)

    def __enter__(self) -> DirectoryLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
