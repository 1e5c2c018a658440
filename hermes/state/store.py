"""StateStore: sessions and their messages in state.db, the source of truth (DESIGN invariant 4).

Durability contract: :meth:`StateStore.append_message` and :meth:`StateStore.append_messages`
return only after their ``BEGIN IMMEDIATE ... COMMIT`` has returned with ``synchronous=FULL`` in WAL
mode, i.e. after the WAL was fsynced. A returned rowid therefore survives a crash or power cut. A
turn's messages and its usage counters share one transaction: a turn is stored whole or not at all.

The write path is deliberately lean: validation happens before the transaction starts, the
transaction is one counter ``UPDATE`` plus one cached prepared ``INSERT`` per message, and nothing
else (no search indexing) runs before the commit returns. Listeners (the search index) are told
about new rows after the commit and must be quick; see :mod:`hermes.state.search`.

One connection per store, guarded by a lock, so a store may be shared by threads. Several processes
may open the same state.db; SQLite serialises their writers.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import secrets
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Protocol

import apsw

from hermes.errors import InvalidInputError, NotFoundError, StateCorruptError, StateError
from hermes.home import Home
from hermes.state.db import DEFAULT_BUSY_TIMEOUT_MS, open_connection, translate_errors
from hermes.state.migrations import migrate
from hermes.state.models import Message, Session, StoredMessage, Usage, check_text
from hermes.state.rows import (
    ADD_USAGE,
    INSERT_MESSAGE,
    M_MESSAGE_COLUMNS,
    MESSAGE_COLUMNS,
    SESSION_COLUMNS,
    TOUCH_SESSION,
    message_from_row,
    message_row,
    session_from_row,
)

log = logging.getLogger("hermes.state.store")

_MAX_ROWID: Final = 2**63 - 1
SESSION_ID_PATTERN: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")
_SOURCE_PATTERN: Final = re.compile(r"^[a-z0-9][a-z0-9_.:-]{0,63}$")

MessageInput = Message | Mapping[str, Any]
"""What the append methods accept: a :class:`Message` or an OpenAI-format dict."""


class StoreListener(Protocol):
    """Told about changes after they are committed (the search index implements this).

    Called on the writer's thread, after the commit returned: implementations must be quick and
    must not raise (errors are logged and swallowed, since the write is already durable).
    """

    def messages_committed(self, last_id: int) -> None: ...

    def session_deleted(self, session_id: str) -> None: ...


def new_session_id(now: float | None = None) -> str:
    """A new session id, ``YYYYMMDD_HHMMSS_<8 hex>`` (UTC start time, then 32 random bits).

    Ids sort by start time to the second, are readable in logs and file names, and are unique in
    practice; a collision is still caught by the primary key and retried.
    """
    stamp = datetime.fromtimestamp(time.time() if now is None else now, UTC)
    return f"{stamp:%Y%m%d_%H%M%S}_{secrets.token_hex(4)}"


def _not_found(session_id: str) -> NotFoundError:
    return NotFoundError(
        f"no session with id {session_id!r}",
        hint="run `hermes sessions list` to see the stored sessions and their ids",
    )


def _check_optional_text(value: str | None, what: str, max_len: int = 1000) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInputError(f"{what} must be a string, not {type(value).__name__}")
    check_text(value, what)
    if len(value) > max_len:
        raise InvalidInputError(
            f"{what} is {len(value)} characters long; at most {max_len} are allowed",
            hint=f"shorten the {what}",
        )
    return value


def _check_session_id(session_id: str) -> str:
    if not isinstance(session_id, str) or not SESSION_ID_PATTERN.match(session_id):
        raise InvalidInputError(
            f"invalid session id {session_id!r}",
            hint="session ids are 1-128 letters, digits, '_', '.', ':' or '-' "
            "(see `hermes sessions list`)",
        )
    return session_id


def _scalar(conn: apsw.Connection, sql: str, params: tuple[Any, ...] = ()) -> Any:
    row = conn.execute(sql, params).fetchone()
    return None if row is None else row[0]


def _known_id(session_id: str) -> str:
    """Look-ups with an id that cannot exist fail as "not found", before SQLite sees the value."""
    if not isinstance(session_id, str) or not SESSION_ID_PATTERN.match(session_id):
        raise _not_found(str(session_id))
    return session_id


class StateStore:
    """Sessions and messages in one SQLite database. Open with :meth:`open`; close when done."""

    def __init__(self, conn: apsw.Connection, path: Path) -> None:
        """Wrap an open, migrated connection; use :meth:`open` instead of calling this."""
        self._conn = conn
        self._path = path
        self._lock = threading.RLock()
        self._cursor = conn.cursor()
        self._listeners: list[StoreListener] = []
        self._closed = False
        self._corrupt: StateCorruptError | None = None

    # --- lifecycle ----------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: Path | str | None = None,
        *,
        home: Home | None = None,
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
    ) -> StateStore:
        """Open state.db (``path``, else ``home``'s, else the default profile's), migrating it.

        Raises :class:`StateCorruptError` for a damaged file (left untouched) and
        :class:`MigrationError` for a database written by a newer Hermes.
        """
        if path is None:
            path = (home or Home.for_profile(None)).ensure().state_db
        db_path = Path(path)
        conn = open_connection(db_path, busy_timeout_ms=busy_timeout_ms)
        try:
            with translate_errors(db_path):
                migrate(conn, db_path)
        except BaseException:
            conn.close()
            raise
        return cls(conn, db_path)

    @property
    def path(self) -> Path:
        return self._path

    def close(self) -> None:
        """Close the connection (idempotent). The last connection to close checkpoints the WAL."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._corrupt is None:
                with contextlib.suppress(apsw.Error):
                    self._conn.pragma("optimize")
            self._conn.close()

    def __enter__(self) -> StateStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add_listener(self, listener: StoreListener) -> None:
        with self._lock:
            self._listeners.append(listener)

    def remove_listener(self, listener: StoreListener) -> None:
        with self._lock, contextlib.suppress(ValueError):
            self._listeners.remove(listener)

    @contextlib.contextmanager
    def _guard(self) -> Iterator[None]:
        """Hold the lock and translate SQLite errors; after corruption was seen, refuse all use."""
        with self._lock:
            if self._closed:
                raise StateError(
                    f"the state store {self._path} is closed", hint="open a new StateStore"
                )
            if self._corrupt is not None:
                raise self._corrupt
            try:
                with translate_errors(self._path):
                    yield
            except StateCorruptError as exc:
                self._corrupt = exc  # stop touching a damaged file, including at close
                raise

    @contextlib.contextmanager
    def _read(self) -> Iterator[apsw.Connection]:
        with self._guard():
            yield self._conn

    @contextlib.contextmanager
    def _write(self) -> Iterator[apsw.Cursor]:
        """One ``BEGIN IMMEDIATE`` transaction; committed (durably) when the block exits cleanly."""
        with self._guard(), self._conn:
            yield self._cursor

    def _notify(self, event: str, arg: Any) -> None:
        for listener in list(self._listeners):
            try:
                getattr(listener, event)(arg)
            except Exception:
                log.exception("state store listener %r failed on %s", listener, event)

    # --- sessions -----------------------------------------------------------------------------

    def create_session(
        self,
        *,
        source: str = "cli",
        title: str | None = None,
        user_id: str | None = None,
        chat_id: str | None = None,
        model: str | None = None,
        parent_session_id: str | None = None,
        session_id: str | None = None,
    ) -> Session:
        """Create and return a new session. ``session_id`` defaults to :func:`new_session_id`."""
        if not isinstance(source, str) or not _SOURCE_PATTERN.match(source):
            raise InvalidInputError(
                f"invalid session source {source!r}",
                hint="use a short lowercase name such as 'cli', 'telegram' or 'cron'",
            )
        title = _normalise_title(title)
        for value, what in ((user_id, "user_id"), (chat_id, "chat_id"), (model, "model")):
            _check_optional_text(value, what)
        if parent_session_id is not None:
            _check_session_id(parent_session_id)
        explicit = session_id is not None
        if session_id is not None:
            _check_session_id(session_id)
        for _attempt in range(5):
            now = time.time()
            sid = session_id if session_id is not None else new_session_id(now)
            try:
                with self._write() as cur:
                    if parent_session_id is not None and not self._exists(parent_session_id):
                        raise _not_found(parent_session_id)
                    cur.execute(
                        "INSERT INTO sessions(id, title, source, user_id, chat_id, model, "
                        "parent_session_id, started_at, updated_at) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (sid, title, source, user_id, chat_id, model, parent_session_id, now, now),
                    )
            except apsw.ConstraintError:
                if explicit:
                    raise InvalidInputError(
                        f"a session with id {sid!r} already exists",
                        hint="choose another id, or omit it to get a fresh one",
                    ) from None
                continue  # random-suffix collision: draw another id
            return self.get_session(sid)
        raise StateError("could not allocate a unique session id after 5 attempts")

    def _exists(self, session_id: str) -> bool:
        row = self._conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return row is not None

    def get_session(self, session_id: str) -> Session:
        """The session with this id; :class:`NotFoundError` if there is none."""
        session = self.find_session(session_id)
        if session is None:
            raise _not_found(session_id)
        return session

    def find_session(self, session_id: str) -> Session | None:
        """The session with this id, or ``None``."""
        if not isinstance(session_id, str) or not SESSION_ID_PATTERN.match(session_id):
            return None
        with self._read() as conn:
            row = conn.execute(
                f"SELECT {SESSION_COLUMNS} FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
        return None if row is None else session_from_row(row)

    def list_sessions(
        self,
        *,
        source: str | None = None,
        search: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[Session]:
        """Sessions, newest first; optionally of one ``source``, or with ``search`` in the title."""
        if limit < 0 or offset < 0:
            raise InvalidInputError("limit and offset must not be negative")
        clauses: list[str] = []
        params: list[Any] = []
        if source is not None:
            clauses.append("source = ?")
            params.append(source)
        if search:
            check_text(search, "title search")
            escaped = search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            clauses.append("title LIKE ? ESCAPE '\\'")
            params.append(f"%{escaped}%")
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        sql = (
            f"SELECT {SESSION_COLUMNS} FROM sessions {where} "
            "ORDER BY started_at DESC, id DESC LIMIT ? OFFSET ?"
        )
        with self._read() as conn:
            rows = conn.execute(sql, (*params, limit, offset)).fetchall()
        return [session_from_row(r) for r in rows]

    def count_sessions(self, *, source: str | None = None) -> int:
        with self._read() as conn:
            if source is None:
                return int(_scalar(conn, "SELECT count(*) FROM sessions"))
            return int(_scalar(conn, "SELECT count(*) FROM sessions WHERE source = ?", (source,)))

    def set_title(self, session_id: str, title: str | None) -> None:
        """Set (or with ``None`` clear) a session's title."""
        _known_id(session_id)
        title = _normalise_title(title)
        with self._write() as cur:
            cur.execute(
                "UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?",
                (title, time.time(), session_id),
            )
            if self._conn.changes() == 0:
                raise _not_found(session_id)

    def end_session(self, session_id: str, reason: str) -> None:
        """Mark a session ended (e.g. ``"user_exit"``, ``"compressed"``, ``"error"``)."""
        _known_id(session_id)
        _check_optional_text(reason, "end reason", 200)
        now = time.time()
        with self._write() as cur:
            cur.execute(
                "UPDATE sessions SET end_reason = ?, ended_at = ?, updated_at = ? WHERE id = ?",
                (reason, now, now, session_id),
            )
            if self._conn.changes() == 0:
                raise _not_found(session_id)

    def add_usage(self, session_id: str, usage: Usage) -> None:
        """Add one model call's token and cost counts to the session's totals."""
        _known_id(session_id)
        if not isinstance(usage, Usage):
            raise InvalidInputError(f"usage must be a Usage, not {type(usage).__name__}")
        with self._write() as cur:
            self._touch(cur, session_id, 0, time.time(), usage)

    def delete_session(self, session_id: str) -> int:
        """Delete a session and all its messages; return how many messages were deleted.

        Child sessions keep existing with their parent link cleared. Listeners (the search index)
        are told so they can drop the session's documents.
        """
        _known_id(session_id)
        with self._write() as cur:
            count = _scalar(
                self._conn, "SELECT count(*) FROM messages WHERE session_id = ?", (session_id,)
            )
            cur.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
            if self._conn.changes() == 0:
                raise _not_found(session_id)
        self._notify("session_deleted", session_id)
        return int(count)

    # --- messages -----------------------------------------------------------------------------

    def _touch(
        self,
        cur: apsw.Cursor,
        session_id: str,
        added: int,
        now: float,
        usage: Usage | None,
    ) -> None:
        if usage is None:
            cur.execute(TOUCH_SESSION, (added, now, session_id))
        else:
            cur.execute(
                ADD_USAGE,
                (
                    added,
                    now,
                    usage.input_tokens,
                    usage.output_tokens,
                    usage.cache_read_tokens,
                    usage.cache_write_tokens,
                    usage.reasoning_tokens,
                    usage.cost_usd,
                    session_id,
                ),
            )
        if self._conn.changes() == 0:
            raise _not_found(session_id)

    def append_message(self, session_id: str, message: MessageInput) -> int:
        """Store one message; return its id once the commit is durable."""
        _known_id(session_id)
        row = message_row(session_id, Message.coerce(message), time.time())
        with self._write() as cur:
            self._touch(cur, session_id, 1, row[-1], None)
            cur.execute(INSERT_MESSAGE, row)
            rowid = int(self._conn.last_insert_rowid())
        self._notify("messages_committed", rowid)
        return rowid

    def append_messages(
        self,
        session_id: str,
        messages: Sequence[MessageInput],
        *,
        usage: Usage | None = None,
    ) -> list[int]:
        """Store a turn's messages (and optionally its usage) in ONE transaction; return their ids.

        Either every message is stored or, on any error, none is.
        """
        _known_id(session_id)
        if usage is not None and not isinstance(usage, Usage):
            raise InvalidInputError(f"usage must be a Usage, not {type(usage).__name__}")
        now = time.time()
        rows = [message_row(session_id, Message.coerce(m), now) for m in messages]
        ids: list[int] = []
        with self._write() as cur:
            self._touch(cur, session_id, len(rows), now, usage)
            for row in rows:
                cur.execute(INSERT_MESSAGE, row)
                ids.append(int(self._conn.last_insert_rowid()))
        if ids:
            self._notify("messages_committed", ids[-1])
        return ids

    def get_messages(
        self, session_id: str, *, after_id: int = 0, limit: int | None = None
    ) -> list[StoredMessage]:
        """A session's messages in order (those with id > ``after_id``, at most ``limit``)."""
        _known_id(session_id)
        with self._read() as conn:
            if not self._exists(session_id):
                raise _not_found(session_id)
            rows = conn.execute(
                f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ? AND id > ? "
                "ORDER BY id LIMIT ?",
                (session_id, after_id, -1 if limit is None else limit),
            ).fetchall()
        return [message_from_row(r) for r in rows]

    def get_message(self, message_id: int) -> StoredMessage:
        with self._read() as conn:
            row = conn.execute(
                f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE id = ?", (message_id,)
            ).fetchone()
        if row is None:
            raise NotFoundError(f"no message with id {message_id}")
        return message_from_row(row)

    # --- feeds for the search index -----------------------------------------------------------

    def messages_after(
        self, after_id: int, limit: int, *, max_bytes: int | None = None
    ) -> list[tuple[StoredMessage, str]]:
        """Messages with id > ``after_id`` in id order, each with its session's source.

        At most ``limit`` rows and, with ``max_bytes``, no more stored bytes than that (but always
        at least one row), so a batch of huge tool outputs cannot exhaust memory on a small host.
        """
        with self._read() as conn:
            upper = _MAX_ROWID
            if max_bytes is not None:
                # octet_length() reads record headers only, never the (possibly huge) values.
                sizes: Sequence[Sequence[Any]] = conn.execute(
                    "SELECT id, octet_length(content) + ifnull(octet_length(content_parts), 0) "
                    "+ ifnull(octet_length(tool_calls), 0) FROM messages WHERE id > ? "
                    "ORDER BY id LIMIT ?",
                    (after_id, limit),
                ).fetchall()
                total = 0
                for i, (rowid, size) in enumerate(sizes):
                    total += int(size or 0)
                    if total > max_bytes and i > 0:
                        break
                    upper = int(rowid)
            rows: Sequence[Sequence[Any]] = conn.execute(
                f"SELECT {M_MESSAGE_COLUMNS}, s.source "
                "FROM messages m JOIN sessions s ON s.id = m.session_id "
                "WHERE m.id > ? AND m.id <= ? ORDER BY m.id LIMIT ?",
                (after_id, upper, limit),
            ).fetchall()
        return [(message_from_row(r), r[11]) for r in rows]

    def count_messages_after(self, after_id: int) -> int:
        with self._read() as conn:
            return int(_scalar(conn, "SELECT count(*) FROM messages WHERE id > ?", (after_id,)))

    def last_message_id(self) -> int:
        """The highest message id ever assigned (ids are never reused), 0 if none."""
        with self._read() as conn:
            seq = _scalar(conn, "SELECT seq FROM sqlite_sequence WHERE name = 'messages'")
        return int(seq or 0)

    def hit_context(self, ids: Sequence[int]) -> dict[int, tuple[str, str | None, str]]:
        """For the given message ids that still exist: id -> (session_id, title, source)."""
        if not ids:
            return {}
        with self._read() as conn:
            rows: Sequence[Sequence[Any]] = conn.execute(
                "SELECT m.id, s.id, s.title, s.source FROM messages m "
                "JOIN sessions s ON s.id = m.session_id "
                "WHERE m.id IN (SELECT value FROM json_each(?))",
                (json.dumps(list(ids)),),
            ).fetchall()
        return {r[0]: (r[1], r[2], r[3]) for r in rows}

    # --- maintenance --------------------------------------------------------------------------

    def integrity_check(self) -> list[str]:
        """Run ``PRAGMA integrity_check``; return the problems found (empty when the file is ok)."""
        with self._read() as conn:
            rows = [str(r[0]) for r in conn.execute("PRAGMA integrity_check")]
        return [] if rows == ["ok"] else rows


def _normalise_title(title: str | None) -> str | None:
    title = _check_optional_text(title, "title", 500)
    if title is None:
        return None
    title = " ".join(title.split())
    return title or None
