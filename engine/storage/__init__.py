"""Storage: the ledger (the source of truth) and its schema. All of the engine's SQL lives here."""
from .ledger import Ledger, blob_to_vector, now_iso, vector_to_blob

__all__ = ["Ledger", "blob_to_vector", "now_iso", "vector_to_blob"]
