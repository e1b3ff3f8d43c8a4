"""glibc's malloc perturbation, as the engine turns it on: freed bytes do not come back in a new block."""
from __future__ import annotations

import ctypes
import sys

import pytest

from engine import heap

pytestmark = pytest.mark.unit

MARKER = b"Plokmarkerburg" * 64
SIZE = 200_000  # the size of a small user's HNSW buffer: above the first mmap threshold, so from the heap
                # only once the threshold has grown, which is how the leak was seen


def _reuse_after_free(size: int) -> bytes:
    """Fill a block with the marker, free it, and read what the next block of that size holds (without the
    perturbation it is the same block, marker and all, past the allocator's own bookkeeping at its start)."""
    assert size >= 64 + len(MARKER)
    libc = ctypes.CDLL(None)
    libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, (ctypes.c_size_t,)
    libc.free.argtypes = (ctypes.c_void_p,)
    block = libc.malloc(size)
    ctypes.memmove(block + 64, MARKER, len(MARKER))
    libc.free(block)
    again = libc.malloc(size)
    try:
        return ctypes.string_at(again, size)
    finally:
        libc.free(again)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="malloc perturbation is glibc's")
def test_a_freed_block_comes_back_without_its_old_bytes():
    assert heap.scrub_freed_memory()
    for size in (4_096, SIZE):
        assert b"Plokmarkerburg" not in _reuse_after_free(size), size
