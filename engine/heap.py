"""Freed memory that is filled in, so erased text cannot resurface in files written from the heap.

The embedded Chroma writes its HNSW index (`data_level0.bin`) straight from a buffer it allocated with
`malloc` for more elements than it holds, and saves the unused part as it found it: bytes of whatever
this process freed there before. Seen in a test: a page of the ledger's SQLite cache, with the text of a
memory that had just been erased, inside the rewritten index of its user. glibc's `M_PERTURB` makes
`free` overwrite what it releases and `malloc` fill what it hands out, so no such leftovers exist.

The setting is process-wide and costs a memset per large allocation (the model's tensors, numpy arrays;
Python's small objects do not go through malloc one by one). It is glibc-only: elsewhere nothing
changes and `scrub_freed_memory()` says so by returning False.
"""
from __future__ import annotations

import ctypes
import sys

M_PERTURB = -6       # glibc's mallopt parameter number (malloc.h)
PERTURB_BYTE = 0xFF  # free() fills with 0xFF; malloc() hands out 0xFF ^ 0xFF = zeros


def scrub_freed_memory() -> bool:
    """Turn on glibc's malloc perturbation for this process; True when it took effect."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return mallopt(M_PERTURB, PERTURB_BYTE) == 1
