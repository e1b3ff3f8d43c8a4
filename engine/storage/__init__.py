"""Storage: the ledger (the source of truth) and its schema. All of the engine's SQL lives here.

Two backends with one interface: the SQLite ledger (ledger.py, the embedded default: one process
owns ./data) and the PostgreSQL ledger (postgres.py, server mode: any number of processes share
the store), both built on the queries they share (queries.py). `open_ledger` picks one from the
settings. Other modules name the transaction handle and the constraint error through the aliases
below or the ledger's `IntegrityError` attribute.
"""
from __future__ import annotations

import sqlite3
from pathlib import Path

from .ledger import Ledger
from .queries import blob_to_vector, now_iso, vector_to_blob

Connection = sqlite3.Connection  # what Ledger.transaction() yields (PgConnection speaks the same subset)
IntegrityError = sqlite3.IntegrityError  # a schema invariant refused a write (SQLite; see Ledger.IntegrityError)

DB_NAME = "memengine.db"


def open_ledger(*, database_url: str | None, data_dir: Path, busy_timeout_s: float, pool_size: int = 4) -> Ledger:
    """The PostgreSQL ledger when a database URL is given (server mode), else SQLite under data_dir."""
    if database_url:
        from .postgres import PgLedger  # psycopg is only needed in server mode

        return PgLedger(database_url, pool_size=pool_size, lock_timeout_s=busy_timeout_s)
    return Ledger(data_dir / DB_NAME, busy_timeout_s=busy_timeout_s)


__all__ = ["Connection", "DB_NAME", "IntegrityError", "Ledger", "blob_to_vector", "now_iso", "open_ledger",
           "vector_to_blob"]
