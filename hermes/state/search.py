"""SessionSearch: full-text search over stored messages, fed from state.db into the native index.

SQLite is the source of truth; the tantivy index in ``HERMES_HOME/index/`` is derived data
(DESIGN invariant 4). How the two stay in step:

* **Batched, off the write path.** :class:`StateStore` commits messages durably and only then tells
  this class (a :class:`~hermes.state.store.StoreListener`) the new highest rowid. A background
  thread waits ``flush_interval`` seconds to gather rows, then indexes everything above the last
  indexed rowid in one tantivy commit. A tantivy commit (fsyncs of segment files) never delays an
  acknowledged write.
* **Resumable.** Every tantivy commit stores the last indexed rowid in its payload. At open, rows
  above it are replayed. Message ids are AUTOINCREMENT (never reused) and assigned in commit order,
  so "above the payload" is exactly "not yet indexed".
* **Self-healing.** A missing index is built from state.db; an unreadable one
  (:class:`IndexCorruptError`) is moved aside and rebuilt, with progress reported through a
  callback (the CLI shows a progress bar).
* **Fresh results.** A search first indexes the unindexed tail when this process holds the index
  writer. When another process holds it (one writer per index: typically the gateway), this handle
  searches read-only and runs the same query over the unindexed tail rows in a scratch index, so
  just-written messages are still found with the same query language.
* **Never stale.** Hits are joined with state.db: a hit whose message no longer exists (deleted by
  another process) is dropped, and each hit carries its session's current title.

Deleting a session through the store removes its documents from the index (when this process
holds the writer; otherwise the join above hides them until the writer or a reindex removes them).
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from hermes._native import SearchIndex
from hermes.errors import IndexCorruptError, InvalidInputError, SearchIndexError, StateError
from hermes.state.db import DIR_MODE, restrict_mode
from hermes.state.models import ROLES, SearchHit, StoredMessage
from hermes.state.store import StateStore

log = logging.getLogger("hermes.state.search")

ProgressCallback = Callable[[int, int], None]
"""Called as ``progress(done, total)`` while rows are (re)indexed."""

Doc = tuple[int, str, str, str, float, str]
RawHit = tuple[int, str, str, str, float, float, str, list[tuple[int, int]]]

BATCH_ROWS: Final = 2_000
"""Rows read from state.db and handed to the index per call..."""

BATCH_BYTES: Final = 32 * 1024 * 1024
"""...and at most this much stored text (bounds memory when tool outputs are huge)."""

COMMIT_EVERY: Final = 50_000
"""During a long catch-up, commit this often so an interrupted rebuild resumes where it stopped."""

TAIL_LIMIT: Final = 20_000
"""Most unindexed rows a read-only search scans itself (the writer process indexes the rest)."""

WRITER_RETRY_SECONDS: Final = 5.0
"""How long a read-only handle waits before trying again to become the index writer."""


def index_text(m: StoredMessage) -> str:
    """What is searchable in a message: its text, plus the name and arguments of each tool call."""
    parts = [m.text]
    for call in m.tool_calls or []:
        function = call.get("function")
        if isinstance(function, dict):
            parts.append(str(function.get("name", "")))
            arguments = function.get("arguments")
            if isinstance(arguments, str):
                parts.append(arguments)
    return "\n".join(p for p in parts if p)


def _docs(rows: Sequence[tuple[StoredMessage, str]]) -> list[Doc]:
    out: list[Doc] = []
    for m, source in rows:
        text = index_text(m)
        if text:
            out.append((m.id, m.session_id, m.role, source, m.created_at, text))
    return out


@dataclass(frozen=True, slots=True)
class _Filters:
    role: str | None
    source: str | None
    session_id: str | None
    since: float | None
    until: float | None

    def run(self, index: SearchIndex, query: str, limit: int, snippet_chars: int) -> list[RawHit]:
        return index.search(
            query,
            limit,
            role=self.role,
            source=self.source,
            session_id=self.session_id,
            since=self.since,
            until=self.until,
            snippet_chars=snippet_chars,
        )


class SessionSearch:
    """Search over one :class:`StateStore`'s messages. Create with :meth:`open`; close when done.

    Thread-safe. Close it before closing the store: closing indexes what is still pending.
    """

    def __init__(
        self,
        store: StateStore,
        index_dir: Path,
        index: SearchIndex,
        *,
        flush_interval: float,
    ) -> None:
        """Use :meth:`open`."""
        self._store = store
        self._dir = index_dir
        self._index = index
        self._flush_interval = flush_interval
        self._lock = threading.RLock()
        self._indexed = index.last_rowid()
        self._writable: bool | None = None
        self._writer_checked_at = 0.0
        self._pending_deletes: list[str] = []
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False

    @classmethod
    def open(
        cls,
        store: StateStore,
        index_dir: Path | str | None = None,
        *,
        background: bool = True,
        flush_interval: float = 1.0,
        progress: ProgressCallback | None = None,
        replay: bool = True,
    ) -> SessionSearch:
        """Open (building or repairing as needed) the index next to ``store``'s state.db.

        Replays rows committed since the index's last commit, reporting through ``progress``. With
        ``background`` a thread indexes new messages in batches every ``flush_interval`` seconds;
        without it, indexing happens on :meth:`sync`, on search and on close. ``replay=False``
        skips the catch-up (for a caller about to :meth:`rebuild` anyway).
        """
        path = Path(index_dir) if index_dir is not None else store.path.parent / "index"
        search = cls(store, path, _open_index(path), flush_interval=flush_interval)
        try:
            if replay:
                try:
                    search.sync(progress)
                except IndexCorruptError as exc:  # damage that only shows once the index is used
                    log.warning("search index at %s is unreadable (%s); rebuilding", path, exc)
                    search._recover(progress)
            store.add_listener(search)
            if background:
                search._thread = threading.Thread(
                    target=search._run, name="hermes-indexer", daemon=True
                )
                search._thread.start()
        except BaseException:
            search.close()
            raise
        return search

    # --- StoreListener ------------------------------------------------------------------------

    def messages_committed(self, last_id: int) -> None:
        """New rows are durable in state.db; index them at the next flush (never here)."""
        self._wake.set()

    def session_deleted(self, session_id: str) -> None:
        """Drop the session's documents at the next flush."""
        with self._lock:
            self._pending_deletes.append(session_id)
        self._wake.set()

    # --- indexing -----------------------------------------------------------------------------

    @property
    def index_dir(self) -> Path:
        return self._dir

    @property
    def read_only(self) -> bool:
        """True while another process holds the index writer (this handle can only search)."""
        return not self._has_writer()

    @property
    def last_indexed(self) -> int:
        """The highest message id this handle has indexed (or found indexed)."""
        return self._indexed

    def _has_writer(self) -> bool:
        """Become the index writer if nobody else is; re-checked every few seconds when refused."""
        with self._lock:
            if self._writable:
                return True
            now = time.monotonic()
            if self._writable is False and now - self._writer_checked_at < WRITER_RETRY_SECONDS:
                return False
            self._writer_checked_at = now
            try:
                self._index.add([])  # takes the writer lock, or tells us who has it
            except IndexCorruptError:
                raise
            except SearchIndexError as exc:
                if self._writable is not False:
                    log.info("search index is read-only in this process: %s", exc.message)
                self._writable = False
                return False
            self._writable = True
            self._indexed = max(self._indexed, self._index.last_rowid())
            return True

    def sync(self, progress: ProgressCallback | None = None) -> int:
        """Index every message above the last indexed id and apply pending deletes; commit.

        Returns how many messages were indexed (0 when another process holds the writer).
        """
        with self._lock:
            self._check_open()
            if not self._has_writer():
                return 0
            return self._catch_up(self._index, progress)

    def _catch_up(self, index: SearchIndex, progress: ProgressCallback | None) -> int:
        """Add rows above ``self._indexed`` to ``index``, apply pending deletes, commit.

        On failure, ``self._indexed`` falls back to what was committed and the deletes stay
        pending, so the next attempt redoes the rest (re-adding a rowid replaces it).
        """
        committed = self._indexed
        deletes, self._pending_deletes = self._pending_deletes, []
        try:
            total = self._store.count_messages_after(self._indexed) if progress else 0
            done = uncommitted = 0
            if progress:
                progress(0, total)
            while True:
                rows = self._store.messages_after(self._indexed, BATCH_ROWS, max_bytes=BATCH_BYTES)
                if not rows:
                    break
                index.add(_docs(rows))
                self._indexed = rows[-1][0].id
                done += len(rows)
                uncommitted += len(rows)
                if progress:
                    progress(done, max(total, done))
                if uncommitted >= COMMIT_EVERY:
                    index.commit(self._indexed)
                    committed, uncommitted = self._indexed, 0
            for session_id in deletes:
                index.delete_session(session_id)
            if uncommitted or deletes:
                index.commit(self._indexed)
        except BaseException:
            self._indexed = committed
            self._pending_deletes = deletes + self._pending_deletes
            raise
        return done

    def _run(self) -> None:
        """The background indexer: wake on new rows, wait a little to batch, index, commit."""
        while not self._stop.is_set():
            # A read-only handle also wakes now and then to see whether the writer went away.
            self._wake.wait(None if self._writable else WRITER_RETRY_SECONDS)
            self._stop.wait(self._flush_interval)  # gather more rows into the same commit
            self._wake.clear()
            if self._stop.is_set():
                break
            try:
                self.sync()
            except (SearchIndexError, StateError) as exc:
                log.warning("background indexing failed, retrying at the next change: %s", exc)
            except Exception:
                log.exception("background indexing failed")

    def rebuild(self, progress: ProgressCallback | None = None) -> int:
        """Rebuild the index from state.db into a fresh folder, then swap it in.

        Refused with :class:`SearchIndexError` while another process holds the index writer.
        Returns the number of messages indexed.
        """
        with self._lock:
            self._check_open()
            if not self._has_writer():
                raise SearchIndexError(
                    f"cannot rebuild {self._dir}: another Hermes process is writing to it",
                    hint="stop the other Hermes process (e.g. the gateway), then run "
                    "`hermes sessions reindex` again",
                )
            fresh = self._dir.with_name(self._dir.name + ".rebuild")
            shutil.rmtree(fresh, ignore_errors=True)
            new = SearchIndex(str(_private_dir(fresh)))
            saved = self._indexed, self._pending_deletes
            try:
                self._indexed, self._pending_deletes = 0, []
                done = self._catch_up(new, progress)
                new.commit(self._indexed)
            except BaseException:
                self._indexed, self._pending_deletes = saved
                shutil.rmtree(fresh, ignore_errors=True)
                raise
            finally:
                new.close()
            self._index.close()
            _replace_dir(fresh, self._dir)
            self._index = SearchIndex(str(self._dir))
            self._writable = None
            self._has_writer()
            return done

    # --- searching ----------------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        limit: int = 20,
        role: str | None = None,
        source: str | None = None,
        session_id: str | None = None,
        since: float | None = None,
        until: float | None = None,
        snippet_chars: int = 160,
    ) -> list[SearchHit]:
        """Messages matching ``query``, best first.

        Query language (the native index's): words are ANDed; ``"a phrase"``, ``OR``, ``NOT`` or
        ``-word``, parentheses and ``word*`` prefixes; a malformed query runs as a literal search.

        ``since``/``until`` are unix seconds (inclusive). Raises :class:`QueryError` for a query
        that cannot run, :class:`InvalidInputError` for bad filters.
        """
        if role is not None and role not in ROLES:
            raise InvalidInputError(f"unknown role {role!r}", hint=f"use one of {', '.join(ROLES)}")
        if limit < 0:
            raise InvalidInputError(f"limit must be >= 0, got {limit}")
        filters = _Filters(role, source, session_id, since, until)
        with self._lock:
            self._check_open()
            try:
                return self._search(query, limit, filters, snippet_chars)
            except IndexCorruptError as exc:
                if self._writable:
                    log.warning("search index unreadable (%s); rebuilding it from state.db", exc)
                    self._recover()
                else:
                    # Another process writes this index; its merges may have removed files our
                    # reader still named. Open a fresh reader once; never move its folder away.
                    log.info("search index changed under us (%s); reopening it", exc)
                    self._reopen()
                return self._search(query, limit, filters, snippet_chars)

    def _search(
        self, query: str, limit: int, filters: _Filters, snippet_chars: int
    ) -> list[SearchHit]:
        if limit == 0:
            return []
        if self._has_writer():
            self._catch_up(self._index, None)
            tail: list[RawHit] = []
            fetch = limit
        else:
            indexed = self._index.last_rowid()
            self._reopen()  # a reader at least as new as `indexed` (another process commits)
            tail = self._tail_hits(indexed, query, limit, filters, snippet_chars)
            fetch = limit + len(tail)
        # Over-fetch when some hits may be stale; retry wider if too many were.
        while True:
            raw = filters.run(self._index, query, fetch, snippet_chars)
            hits = self._join(_dedupe([*tail, *raw]))
            if len(hits) >= limit or len(raw) < fetch:
                return hits[:limit]
            fetch *= 4

    def _tail_hits(
        self, indexed: int, query: str, limit: int, filters: _Filters, snippet_chars: int
    ) -> list[RawHit]:
        """Run the query over rows the writer process has not indexed yet, in a scratch index."""
        rows = self._store.messages_after(indexed, TAIL_LIMIT, max_bytes=BATCH_BYTES)
        if not rows:
            return []
        if self._store.count_messages_after(rows[-1][0].id):
            log.warning(
                "more messages than a search scans itself (%d) are not indexed yet; search "
                "sees the oldest of them until the indexing process catches up",
                len(rows),
            )
        # Next to the real index, so message text stays inside the private HERMES_HOME.
        with tempfile.TemporaryDirectory(prefix=".index-tail-", dir=self._dir.parent) as tmp:
            scratch = SearchIndex(tmp)
            try:
                scratch.add(_docs(rows))
                scratch.commit(rows[-1][0].id)
                return filters.run(scratch, query, limit, snippet_chars)
            finally:
                scratch.close()

    def _join(self, raw: Sequence[RawHit]) -> list[SearchHit]:
        context = self._store.hit_context([h[0] for h in raw])
        hits = []
        for rowid, _sid, role, _source, ts, score, snippet, highlights in raw:
            found = context.get(rowid)
            if found is None:
                continue  # the message was deleted after it was indexed
            session_id, title, source = found
            hits.append(
                SearchHit(
                    message_id=rowid,
                    session_id=session_id,
                    session_title=title,
                    source=source,
                    role=role,
                    created_at=ts,
                    score=score,
                    snippet=snippet,
                    highlights=[(a, b) for a, b in highlights],
                )
            )
        hits.sort(key=lambda h: (-h.score, -h.message_id))
        return hits

    # --- lifecycle ----------------------------------------------------------------------------

    def _reopen(self) -> None:
        self._index.close()
        self._index = SearchIndex(str(self._dir))

    def _recover(self, progress: ProgressCallback | None = None) -> None:
        """Replace an unreadable index with one rebuilt from state.db."""
        with contextlib.suppress(SearchIndexError):
            self._index.close()
        self._index = _open_index(self._dir, force_fresh=True)
        self._indexed = 0
        self._writable = None
        self.sync(progress)

    def _check_open(self) -> None:
        if self._closed:
            raise SearchIndexError(
                f"the search over {self._dir} is closed", hint="open a new SessionSearch"
            )

    def close(self) -> None:
        """Stop the indexer, index what is pending (when this process is the writer), close."""
        if self._closed:
            return
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join()
        self._store.remove_listener(self)
        with self._lock:
            if self._closed:
                return
            try:
                if self._writable:
                    self._catch_up(self._index, None)
            except (SearchIndexError, StateError) as exc:
                log.warning("could not index the last messages before closing: %s", exc)
            finally:
                self._closed = True
                self._index.close()

    def __enter__(self) -> SessionSearch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _dedupe(raw: Sequence[RawHit]) -> list[RawHit]:
    seen: set[int] = set()
    out = []
    for h in raw:
        if h[0] not in seen:
            seen.add(h[0])
            out.append(h)
    return out


def _replace_dir(new: Path, old: Path) -> None:
    """Swap ``new`` into place of ``old`` (rename, so readers see one or the other)."""
    trash = old.with_name(f"{old.name}.old-{int(time.time() * 1000)}")
    if old.exists():
        old.rename(trash)
    new.rename(old)
    shutil.rmtree(trash, ignore_errors=True)


def _private_dir(path: Path) -> Path:
    """The index holds message text: create its folder owner-only, like HERMES_HOME."""
    path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    restrict_mode(path, DIR_MODE)
    return path


def _open_index(path: Path, *, force_fresh: bool = False) -> SearchIndex:
    """Open the index at ``path``; an unreadable one is moved aside and replaced by an empty one."""
    if not force_fresh:
        _private_dir(path)
        try:
            return SearchIndex(str(path))
        except IndexCorruptError as exc:
            log.warning("search index at %s is unreadable (%s); rebuilding it", path, exc.message)
    trash = path.with_name(f"{path.name}.corrupt-{int(time.time() * 1000)}")
    if path.exists():
        path.rename(trash)
    index = SearchIndex(str(_private_dir(path)))
    shutil.rmtree(trash, ignore_errors=True)
    return index
