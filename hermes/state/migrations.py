"""Numbered, forward-only schema migrations, recorded in the database they were applied to.

Each migration runs in the same ``BEGIN IMMEDIATE`` transaction as its row in
``schema_migrations`` and the ``user_version`` bump, so a crash leaves the schema either before or
after it, never half-way. A database recorded at a version newer than :data:`LATEST_VERSION` was
written by a newer Hermes; it is refused with :class:`MigrationError` and left untouched, because
an older schema reader could misinterpret or damage data it does not know about.

To change the schema, append a :class:`Migration` with the next number. Never edit or reorder one
that has shipped.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import apsw

from hermes.errors import MigrationError

log = logging.getLogger("hermes.state.migrations")


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


_V1_SQL: Final = """
CREATE TABLE sessions (
    id                 TEXT PRIMARY KEY NOT NULL,
    title              TEXT,
    source             TEXT NOT NULL,
    user_id            TEXT,
    chat_id            TEXT,
    model              TEXT,
    parent_session_id  TEXT REFERENCES sessions(id) ON DELETE SET NULL,
    end_reason         TEXT,
    input_tokens       INTEGER NOT NULL DEFAULT 0,
    output_tokens      INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens   INTEGER NOT NULL DEFAULT 0,
    cost_usd           REAL NOT NULL DEFAULT 0,
    message_count      INTEGER NOT NULL DEFAULT 0,
    started_at         REAL NOT NULL,
    updated_at         REAL NOT NULL,
    ended_at           REAL
);
CREATE INDEX sessions_by_recency ON sessions(started_at DESC, id DESC);
CREATE INDEX sessions_by_source ON sessions(source, started_at DESC, id DESC);
CREATE INDEX sessions_by_parent ON sessions(parent_session_id) WHERE parent_session_id IS NOT NULL;

-- AUTOINCREMENT: a rowid is never reused, even after the newest messages are deleted. The search
-- index replays "rows above the last indexed rowid", which is only correct if ids only grow.
CREATE TABLE messages (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id     TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    role           TEXT NOT NULL
                   CHECK (role IN ('system', 'developer', 'user', 'assistant', 'tool')),
    content        TEXT,
    content_parts  TEXT,   -- JSON list of content parts, when content is not plain text
    tool_calls     TEXT,   -- JSON list, OpenAI format
    tool_call_id   TEXT,
    name           TEXT,
    reasoning      TEXT,
    finish_reason  TEXT,
    created_at     REAL NOT NULL
);
CREATE INDEX messages_by_session ON messages(session_id, id);
"""

MIGRATIONS: Final[tuple[Migration, ...]] = (Migration(1, "sessions and messages", _V1_SQL),)

LATEST_VERSION: Final = MIGRATIONS[-1].version

_BOOTSTRAP: Final = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY NOT NULL,
    name       TEXT NOT NULL,
    applied_at REAL NOT NULL
)
"""


def _has_table(conn: apsw.Connection, name: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", (name,)
    ).fetchone()
    return row is not None


def current_version(conn: apsw.Connection, path: Path) -> int:
    """The schema version recorded in the database (0 for a new, empty one)."""
    if not _has_table(conn, "schema_migrations"):
        foreign = [
            row[0]
            for row in conn.execute(
                "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        if foreign:
            raise MigrationError(
                f"{path} is a SQLite database, but not a Hermes state store "
                f"(it has tables {', '.join(sorted(foreign)[:5])} and no schema_migrations)",
                hint="point HERMES_HOME at a Hermes data folder, or move this file aside",
            )
        return 0
    recorded = conn.execute("SELECT max(version) FROM schema_migrations").fetchone()
    user_version = int(conn.pragma("user_version"))
    return max(int(recorded[0] or 0) if recorded else 0, user_version)


def _refuse_newer(version: int, path: Path) -> None:
    if version > LATEST_VERSION:
        raise MigrationError(
            f"{path} has schema version {version}, but this Hermes only knows versions up to "
            f"{LATEST_VERSION}: it was written by a newer Hermes",
            hint="upgrade Hermes (pip install -U hermes); the database has not been modified",
        )


def migrate(conn: apsw.Connection, path: Path) -> int:
    """Bring the schema up to :data:`LATEST_VERSION`; return the version it is at now."""
    version = current_version(conn, path)
    _refuse_newer(version, path)
    if version == LATEST_VERSION:
        return version
    with conn:  # BEGIN IMMEDIATE: another process may be migrating at the same moment
        version = current_version(conn, path)
        _refuse_newer(version, path)
        conn.execute(_BOOTSTRAP)
        for m in MIGRATIONS:
            if m.version <= version:
                continue
            log.info("applying state.db migration %d (%s) to %s", m.version, m.name, path)
            conn.execute(m.sql)
            conn.execute(
                "INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)",
                (m.version, m.name, time.time()),
            )
        conn.pragma("user_version", LATEST_VERSION)
    return LATEST_VERSION
