"""The engine's `?` SQL spoken to psycopg: the placeholder translation, and the transaction handle the
PostgreSQL ledger yields (the subset of sqlite3.Connection the engine uses).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterable, Sequence


@lru_cache(maxsize=512)
def to_psycopg(sql: str) -> str:
    """`?` placeholders -> `%s`, and a literal `%` -> `%%`, outside string literals, quoted names and comments.

    Only plain `?` is a placeholder (the engine never uses PostgreSQL's jsonb `?` operators).
    """
    out: list[str] = []
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch in ("'", '"'):
            end = i + 1
            while end < n:
                if sql[end] == ch:
                    if end + 1 < n and sql[end + 1] == ch:  # '' or "" is an escaped quote
                        end += 2
                        continue
                    break
                end += 1
            out.append(sql[i:end + 1].replace("%", "%%"))
            i = end + 1
        elif sql.startswith("--", i):
            end = sql.find("\n", i)
            end = n if end == -1 else end
            out.append(sql[i:end].replace("%", "%%"))
            i = end
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            end = n if end == -1 else end + 2
            out.append(sql[i:end].replace("%", "%%"))
            i = end
        elif ch == "?":
            out.append("%s")
            i += 1
        elif ch == "%":
            out.append("%%")
            i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


class PgConnection:
    """A psycopg connection inside one transaction, spoken to in the engine's `?` SQL."""

    def __init__(self, raw: Any):
        self.raw = raw

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """Run one statement; returns the psycopg cursor (fetchone/fetchall/rowcount as with sqlite3)."""
        return self.raw.execute(to_psycopg(sql), tuple(params))

    def executemany(self, sql: str, params_seq: Iterable[Sequence[Any]]) -> None:
        with self.raw.cursor() as cur:
            cur.executemany(to_psycopg(sql), [tuple(p) for p in params_seq])

    def insert_returning_id(self, sql: str, params: Sequence[Any] = ()) -> int:
        """An INSERT's new id (sqlite3's `cursor.lastrowid`): the statement gets `RETURNING id`."""
        row = self.execute(f"{sql.rstrip().rstrip(';')} RETURNING id", params).fetchone()
        return int(row[0])
