"""The ledger's schema as numbered migrations, and the few statements that are SQLite dialect.

Everything else in the storage package is standard SQL with `?` parameters, so a PostgreSQL ledger
only has to replace this module's dialect part (and translate AUTOINCREMENT/BLOB in the schema).
"""
from __future__ import annotations

MIGRATIONS: list[str] = [
    # 1: the initial schema
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id TEXT NOT NULL,
        text TEXT NOT NULL,
        source_id TEXT,
        timestamp TEXT,
        speaker TEXT,
        outcome TEXT,
        created_at TEXT NOT NULL
    );
    CREATE INDEX messages_user ON messages (user_id, id);
    CREATE TABLE memories (
        -- AUTOINCREMENT: an id is never reused, so a citation or a replaced_by link always means one memory
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id TEXT NOT NULL,
        text TEXT NOT NULL,
        type TEXT NOT NULL CHECK (type IN ('fact', 'preference', 'project_detail', 'event', 'goal')),
        subject TEXT NOT NULL,
        attribute TEXT NOT NULL,
        value TEXT NOT NULL,
        value_key TEXT NOT NULL,
        multi_valued INTEGER NOT NULL DEFAULT 0 CHECK (multi_valued IN (0, 1)),
        importance REAL NOT NULL CHECK (importance >= 0 AND importance <= 1),
        status TEXT NOT NULL CHECK (status IN ('active', 'superseded', 'deleted')),
        replaced_by INTEGER REFERENCES memories (id) ON DELETE SET NULL,
        supersedes INTEGER REFERENCES memories (id) ON DELETE SET NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        superseded_at TEXT,
        message_id INTEGER REFERENCES messages (id) ON DELETE SET NULL,
        embedding BLOB NOT NULL,
        CHECK (replaced_by IS NULL OR replaced_by > id),
        CHECK (supersedes IS NULL OR supersedes < id),
        CHECK (status != 'superseded' OR replaced_by IS NOT NULL)
    );
    CREATE UNIQUE INDEX one_active_per_single_slot
        ON memories (user_id, subject, attribute) WHERE status = 'active' AND multi_valued = 0;
    CREATE UNIQUE INDEX one_active_per_value
        ON memories (user_id, subject, attribute, value_key) WHERE status = 'active';
    CREATE INDEX memories_user_status ON memories (user_id, status, id);
    CREATE INDEX memories_replaced_by ON memories (replaced_by);
    CREATE INDEX memories_supersedes ON memories (supersedes);
    -- Changes the vector index has not applied yet, written in the same transaction as the change,
    -- so a crash between SQLite and Chroma is repaired on the next open.
    CREATE TABLE index_outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: the engine reads "rows after the last seen"
        op TEXT NOT NULL CHECK (op IN ('add', 'remove', 'drop_user')),
        user_id TEXT NOT NULL,
        memory_id INTEGER
    );
    """,
    # 2: slot lookups (every new fact checks its slot) and per-user speaker names without table scans
    """
    CREATE INDEX memories_slot ON memories (user_id, subject, attribute, status);
    CREATE INDEX messages_user_speaker ON messages (user_id, speaker);
    """,
]


# -- SQLite dialect -------------------------------------------------------------------------------
CONNECTION_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=FULL",  # an acknowledged write survives a crash or power cut
    "PRAGMA foreign_keys=ON",
    # Deleted rows are overwritten with zeros, not left on free pages: a forgotten user stays forgotten
    # (some SQLite builds default this on, others do not).
    "PRAGMA secure_delete=ON",
)
# Copy the WAL into the database and cut it to zero bytes: its frames still hold deleted rows.
CHECKPOINT_TRUNCATE = "PRAGMA wal_checkpoint(TRUNCATE)"
GET_SCHEMA_VERSION = "PRAGMA user_version"
SET_SCHEMA_VERSION = "PRAGMA user_version={number}"
SET_BUSY_TIMEOUT = "PRAGMA busy_timeout={millis}"
# Foreign keys checked at COMMIT: an old memory may point at its replacement before that row exists.
DEFER_FOREIGN_KEYS = "PRAGMA defer_foreign_keys = ON"
# The next id AUTOINCREMENT will hand out (ids are never reused, even after a delete).
AUTOINCREMENT_SEQUENCE = "SELECT seq FROM sqlite_sequence WHERE name = ?"
# "a contains b": instr in SQLite, strpos in PostgreSQL.
CONTAINS = "instr({haystack}, {needle}) > 0"
