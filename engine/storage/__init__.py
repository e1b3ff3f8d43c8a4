"""Storage: the ledger (the source of truth) and its schema. All of the engine's SQL lives here.

Other modules name the transaction handle and the constraint error through these aliases, so a
ledger for another database only has to provide its own.
"""
import sqlite3

from .ledger import Ledger, blob_to_vector, now_iso, vector_to_blob

Connection = sqlite3.Connection  # what Ledger.transaction() yields
IntegrityError = sqlite3.IntegrityError  # a schema invariant refused a write

__all__ = ["Connection", "IntegrityError", "Ledger", "blob_to_vector", "now_iso", "vector_to_blob"]
