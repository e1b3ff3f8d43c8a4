"""Replay a benchmark case in the Recall page: its messages go to fresh users of the open store.

A case's users are mapped onto new ids under one ``replay-<case>-<time>`` prefix, so a replay never
adds anything to an existing user's memories (the page says so beside the button), and two replays of
the same case never mix.
"""
from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from evaluation.checks import DEFAULT_USER, message_parts, query_user


def replay_prefix(case_id: str, now: datetime | None = None) -> str:
    stamp = (now or datetime.now()).strftime("%H%M%S%f")[:-3]
    return f"replay-{re.sub(r'[^A-Za-z0-9_-]+', '-', str(case_id)).strip('-') or 'case'}-{stamp}"


def mapped_user(prefix: str, case_user: str) -> str:
    return prefix if case_user == DEFAULT_USER else f"{prefix}-{case_user}"


def replay(eng: Any, case: dict[str, Any], prefix: str) -> str:
    """Ingest the case's messages (in order, each as its mapped user); return the user the query runs as."""
    for message in case.get("messages") or []:
        text, user = message_parts(message)
        eng.ingest(text, user_id=mapped_user(prefix, user))
    return mapped_user(prefix, query_user(case))
