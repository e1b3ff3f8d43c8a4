"""Every enum and limit of the public API in one place, so the engine, REST, CLI and cockpit agree."""
from __future__ import annotations

MEMORY_TYPES = ("fact", "preference", "project_detail", "event", "goal")
STATUSES = ("active", "superseded", "deleted")
STATUS_FILTERS = (*STATUSES, "all")
INGEST_STATUSES = ("created", "superseded", "confirmed", "ignored")
CONFIDENCE_LEVELS = ("certain", "vague", "unknown")
OUTBOX_OPS = ("add", "remove", "drop_user")

MAX_FIELD_CHARS = 512  # source_id, timestamp, speaker, and a structured memory's subject/attribute/value
LIST_LIMIT_MAX = 100_000  # list_memories / messages page size
TOP_K_MIN, TOP_K_MAX = 1, 100
THRESHOLD_MIN, THRESHOLD_MAX = -1.0, 2.0  # a recall's threshold argument (scores can exceed 1 with boosts)
INGEST_BATCH = 256  # messages embedded and committed together by ingest_many
EXPORT_VERSION = 1
REPLY_QUESTION_CHARS = 240  # the question a reply is kept with (extraction.replies), at most
