"""Opening state.db: private file modes, durable pragmas, corruption detection, error translation.

Only ``apsw`` is used: it bundles a current SQLite, while the stdlib ``sqlite3`` here links the
system 3.40.1, which has the WAL-reset corruption bug. The settings below are what makes an
acknowledged write durable: WAL with ``synchronous=FULL`` fsyncs the WAL on every commit, so a
message whose commit returned survives a power cut or SIGKILL.

A damaged file is never "repaired" by recreating it. The header is checked with plain reads before
SQLite touches the file, and any "not a database" / "malformed" error later is raised as
:class:`StateCorruptError` with the path and what to do; Hermes then stops writing to it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import apsw

from hermes.errors import (
    HermesError,
    HermesIOError,
    InvalidInputError,
    StateCorruptError,
    StateError,
)

log = logging.getLogger("hermes.state.db")

DEFAULT_BUSY_TIMEOUT_MS: Final = 5_000
"""How long a writer waits for another process's write transaction before giving up."""

JOURNAL_SIZE_LIMIT: Final = 64 * 1024 * 1024
"""The WAL is truncated back to this size after a checkpoint, so it cannot grow without bound."""

FILE_MODE: Final = 0o600
DIR_MODE: Final = 0o700

_MAGIC: Final = b"SQLite format 3\x00"
_HEADER_SIZE: Final = 100


def recovery_hint(path: Path) -> str:
    """What a user should do with a corrupt state.db (it is left exactly as it was)."""
    return (
        f"Hermes has not modified the file. Stop Hermes, move it aside "
        f"(mv {path} {path}.corrupt) and either restore state.db from a backup or salvage what "
        f"is readable with `sqlite3 {path}.corrupt .recover | sqlite3 {path}`; "
        "then run `hermes sessions reindex` to rebuild the search index from it"
    )


def corrupt_error(path: Path, what: str) -> StateCorruptError:
    return StateCorruptError(f"{path} is corrupt: {what}", hint=recovery_hint(path))


def check_header(path: Path) -> None:
    """Refuse a file that is visibly not an intact SQLite database, using plain reads only.

    Catches garbage files, files cut short (the header says how many pages the database has) and
    files that are too short to hold a header. An empty or missing file is fine: it becomes a new
    database.
    """
    try:
        with path.open("rb") as f:
            header = f.read(_HEADER_SIZE)
            size = os.fstat(f.fileno()).st_size
    except FileNotFoundError:
        return
    except OSError as exc:
        raise HermesIOError(
            f"cannot read {path}: {exc.strerror}",
            hint="check that the file belongs to you and is readable (mode 0600)",
        ) from exc
    if size == 0:
        return
    if len(header) < _HEADER_SIZE or not header.startswith(_MAGIC):
        raise corrupt_error(path, "file is not a database (no SQLite header)")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1):
        raise corrupt_error(path, f"invalid page size {page_size} in the header")
    if size % page_size:
        raise corrupt_error(path, f"size {size} is not a multiple of the page size {page_size}")
    pages = int.from_bytes(header[28:32], "big")
    change_counter = header[24:28]
    valid_for = header[92:96]
    # A checkpoint (or rollback) cut short by a crash can leave the file shorter than its header
    # says; the WAL (or hot journal) still holds those pages and SQLite finishes the job at open.
    # So "truncated" only means something when there is nothing left to replay.
    if pending_log(path):
        return
    if pages and change_counter == valid_for and size < pages * page_size:
        raise corrupt_error(
            path, f"file is truncated ({size} bytes, header says {pages * page_size})"
        )


@contextlib.contextmanager
def translate_errors(path: Path) -> Iterator[None]:
    """Turn SQLite's operational failures into ``hermes.errors`` classes with a hint.

    Programming errors (bad SQL, misuse) are deliberately not translated: they are bugs.
    """
    try:
        yield
    except HermesError:
        raise
    except (apsw.NotADBError, apsw.CorruptError) as exc:
        raise corrupt_error(path, str(exc)) from exc
    except apsw.BusyError as exc:
        raise StateError(
            f"{path} is busy: another process kept it locked for too long ({exc})",
            hint="another Hermes process is writing; retry in a moment, or stop the other process",
        ) from exc
    except apsw.FullError as exc:
        raise StateError(
            f"cannot write {path}: the disk is full",
            hint="free some disk space and retry; the last write was rolled back, nothing is lost",
        ) from exc
    except (apsw.ReadOnlyError, apsw.PermissionsError, apsw.CantOpenError) as exc:
        raise StateError(
            f"cannot open {path} for writing: {exc}",
            hint="check that the file and its folder belong to you (files 0600, folder 0700) "
            "and that the disk is not mounted read-only",
        ) from exc
    except apsw.TooBigError as exc:
        raise InvalidInputError(
            f"value too large to store in {path.name}: {exc}",
            hint="split the content; SQLite stores at most about 1 GB per value",
        ) from exc
    except apsw.IOError as exc:
        raise HermesIOError(
            f"I/O error on {path}: {exc}",
            hint="check the disk (dmesg, free space); the last write was rolled back",
        ) from exc


def restrict_mode(path: Path, mode: int) -> None:
    """Tighten ``path`` to ``mode`` if group/others have any access; log when that fails."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return
    if stat.S_IMODE(st.st_mode) & 0o077:
        try:
            os.chmod(path, mode)
            log.info("tightened permissions of %s to %o", path, mode)
        except OSError as exc:
            log.warning("cannot restrict permissions of %s: %s", path, exc)


def _create_private(path: Path) -> None:
    """Create an empty database file with mode 0600 so SQLite's -wal/-shm inherit that mode."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
    except FileExistsError:
        return
    os.close(fd)
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)  # the new directory entry is durable before the first commit is
    finally:
        os.close(dir_fd)


def pending_log(path: Path) -> bool:
    """Whether a WAL or rollback journal with content sits next to ``path`` (to be replayed)."""
    for suffix in ("-wal", "-journal"):
        try:
            if path.with_name(path.name + suffix).stat().st_size > 0:
                return True
        except FileNotFoundError:
            continue
    return False


def sidecar_paths(path: Path) -> tuple[Path, Path]:
    """The WAL and shared-memory files SQLite keeps next to ``path``."""
    return path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")


def open_connection(
    path: Path, *, busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS
) -> apsw.Connection:
    """Open (creating if needed) the database at ``path`` with Hermes's durability settings.

    Raises :class:`StateCorruptError` before anything is written if the file is not an intact
    database.
    """
    check_header(path)
    _create_private(path)
    flags = apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_NOFOLLOW
    with translate_errors(path):
        conn = apsw.Connection(str(path), flags=flags)
        try:
            _configure(conn, path, busy_timeout_ms)
        except BaseException:
            conn.close()
            raise
    for p in (path, *sidecar_paths(path)):
        restrict_mode(p, FILE_MODE)
    return conn


def _configure(conn: apsw.Connection, path: Path, busy_timeout_ms: int) -> None:
    conn.set_busy_timeout(busy_timeout_ms)
    # Read page 1 first: a damaged file fails here, before the journal-mode switch could write.
    conn.pragma("schema_version")
    mode = conn.pragma("journal_mode", "wal")
    if str(mode).lower() != "wal":
        raise StateError(
            f"cannot switch {path} to WAL mode (SQLite reports {mode!r})",
            hint="keep HERMES_HOME on a local filesystem; network filesystems cannot share "
            "SQLite's WAL index",
        )
    conn.pragma("synchronous", "FULL")
    conn.pragma("foreign_keys", True)
    conn.pragma("trusted_schema", False)
    conn.pragma("journal_size_limit", JOURNAL_SIZE_LIMIT)
    conn.config(apsw.SQLITE_DBCONFIG_DQS_DML, 0)
    conn.config(apsw.SQLITE_DBCONFIG_DQS_DDL, 0)
    # Every `with conn:` block is then BEGIN IMMEDIATE: writers queue on busy_timeout up front
    # instead of failing with SQLITE_BUSY when a read transaction tries to upgrade.
    conn.transaction_mode = "IMMEDIATE"
    if conn.pragma("synchronous") != 2 or conn.pragma("foreign_keys") != 1:
        raise StateError(f"SQLite refused the durability settings for {path}")
