"""engine.lock.DirectoryLock between real processes: the OS lock decides, not the lock file's presence."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.lock import DirectoryLock
from engine.model import StoreInUseError

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parent.parent

# The test process itself is the second process: it tries the lock while the holder has it.
# Takes the lock, says so, waits for a line on stdin, releases, says so, then waits for stdin to close.
# Lines on pipes synchronise the test with it: no sleeps, no timing.
HOLDER = """
import sys
from engine.lock import DirectoryLock
lock = DirectoryLock(sys.argv[1])
print("locked", flush=True)
sys.stdin.readline()
lock.release()
print("released", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def holder(tmp_path):
    """A separate process holding the lock on tmp_path/engine.lock; stopped after the test."""
    lock_path = tmp_path / "engine.lock"
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock_path)], cwd=REPO, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert proc.stdout.readline().strip() == "locked"
        yield proc, lock_path
    finally:
        proc.kill()
        proc.wait()
        proc.stdin.close()
        proc.stdout.close()


def test_second_process_is_refused_with_the_holders_pid(holder):
    proc, lock_path = holder
    with pytest.raises(StoreInUseError, match=f"pid {proc.pid}") as info:
        DirectoryLock(lock_path)
    assert info.value.pid == proc.pid


def test_deleting_the_lock_file_does_not_let_a_second_process_in(holder):
    proc, lock_path = holder
    lock_path.unlink()
    with pytest.raises(StoreInUseError):
        DirectoryLock(lock_path)
    with pytest.raises(StoreInUseError):  # and again, now that the first try re-created the file
        DirectoryLock(lock_path)


def test_released_lock_lets_the_next_process_in(holder):
    proc, lock_path = holder
    proc.stdin.write("release\n")
    proc.stdin.flush()
    assert proc.stdout.readline().strip() == "released"
    with DirectoryLock(lock_path) as lock:
        assert lock.held
        assert lock_path.read_text() == str(os.getpid())
    assert not lock.held


def test_a_killed_holder_leaves_no_lock_behind(holder):
    proc, lock_path = holder
    proc.kill()
    proc.wait()
    DirectoryLock(lock_path).release()


def test_second_lock_in_the_same_process_is_refused_and_release_is_idempotent(tmp_path):
    first = DirectoryLock(tmp_path / "engine.lock")
    try:
        with pytest.raises(StoreInUseError):
            DirectoryLock(tmp_path / "engine.lock")
    finally:
        first.release()
        first.release()
    DirectoryLock(tmp_path / "engine.lock").release()
