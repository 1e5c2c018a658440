"""``hermes sessions``: list, show, search, export, delete and reindex stored conversations.

Tables and transcripts are rendered with rich; message text is always printed literally (never
interpreted as rich markup), since it comes from users, models and tools.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO, Any, ParamSpec, TypeVar

import click
from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from hermes.cli.context import get_context
from hermes.errors import HermesError, InvalidInputError, SearchIndexError
from hermes.home import atomic_write
from hermes.state.export import FORMATS, export_session
from hermes.state.models import ROLES, Session, StoredMessage
from hermes.state.store import StateStore

P = ParamSpec("P")
R = TypeVar("R")

_ROLE_STYLES = {
    "system": "magenta",
    "developer": "magenta",
    "user": "bold cyan",
    "assistant": "bold green",
    "tool": "yellow",
}
_TOOL_PREVIEW_LINES = 20
_QUIET_REPLAY_ROWS = 2_000  # catching up fewer rows than this at open shows no progress bar


class _HermesClickError(click.ClickException):
    """Shows a HermesError like ``hermes`` does (message, then hint), exit code 1."""

    def __init__(self, exc: HermesError) -> None:
        super().__init__(exc.message)
        self.hint = exc.hint

    def show(self, file: IO[Any] | None = None) -> None:
        click.secho(f"Error: {self.message}", fg="red", err=True)
        if self.hint:
            click.echo(f"Hint: {self.hint}", err=True)


def _friendly_errors(f: Callable[P, R]) -> Callable[P, R]:
    @functools.wraps(f)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return f(*args, **kwargs)
        except HermesError as exc:
            raise _HermesClickError(exc) from exc

    return wrapper


@contextlib.contextmanager
def _store() -> Iterator[StateStore]:
    store = StateStore.open(home=get_context().home)
    try:
        yield store
    finally:
        store.close()


class _ProgressBar:
    """A progress callback that draws a rich bar on stderr once the work is big enough to watch."""

    def __init__(self, description: str, *, threshold: int = 0) -> None:
        self._description = description
        self._threshold = threshold
        self._progress: Progress | None = None
        self._task: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self._progress is None:
            if total < self._threshold or total == 0:
                return
            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=Console(stderr=True),
            )
            self._progress.start()
            self._task = self._progress.add_task(self._description, total=total)
        self._progress.update(self._task, completed=done, total=total)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()


@contextlib.contextmanager
def _search(store: StateStore, *, replay: bool = True) -> Iterator[Any]:
    from hermes.state.search import SessionSearch  # the native index is loaded only when needed

    bar = _ProgressBar("Indexing messages", threshold=_QUIET_REPLAY_ROWS)
    try:
        search = SessionSearch.open(store, background=False, progress=bar, replay=replay)
    finally:
        bar.close()
    try:
        yield search
    finally:
        search.close()


def _when(ts: float | None) -> str:
    return "-" if ts is None else datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")


_RELATIVE = re.compile(r"^(\d+)\s*([mhdw])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_time(value: str, *, end_of_day: bool = False) -> float:
    """A time bound as unix seconds: ISO date/datetime (local time) or an age like 30m, 2h, 7d."""
    text = value.strip()
    rel = _RELATIVE.match(text.lower())
    if rel:
        delta = timedelta(**{_UNITS[rel.group(2)]: int(rel.group(1))})
        return (datetime.now() - delta).timestamp()
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidInputError(
            f"cannot read {value!r} as a time",
            hint="use a date (2025-01-31), a date and time (2025-01-31T14:30) or an age "
            "(30m, 2h, 7d, 2w)",
        ) from None
    if end_of_day and len(text) == 10:  # a bare date as an upper bound means "through that day"
        parsed += timedelta(days=1, microseconds=-1)
    return parsed.timestamp()


@click.group("sessions")
def sessions_group() -> None:
    """Browse, search and manage stored sessions."""


@sessions_group.command("list")
@click.option("--source", default=None, help="Only sessions from this source (cli, telegram, ...).")
@click.option("--search", "title", default=None, help="Only sessions whose title contains TEXT.")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(min=1))
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@_friendly_errors
def list_command(source: str | None, title: str | None, limit: int, as_json: bool) -> None:
    """List sessions, newest first."""
    with _store() as store:
        sessions = store.list_sessions(source=source, search=title, limit=limit)
        total = store.count_sessions(source=source)
    if as_json:
        click.echo(json.dumps([s.to_dict() for s in sessions], ensure_ascii=False, indent=2))
        return
    console = Console()
    if not sessions:
        console.print("No sessions stored yet." if total == 0 else "No session matches.")
        return
    wide = console.width >= 110  # token and cost columns only where they fit
    table = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False)
    table.add_column("ID", no_wrap=True)
    table.add_column("Title", min_width=12, ratio=1)
    table.add_column("Source")
    table.add_column("Msgs", justify="right")
    if wide:
        table.add_column("Tokens", justify="right")
        table.add_column("Cost", justify="right")
    table.add_column("Started")
    table.add_column("Status")
    for s in sessions:
        usage = [f"{s.usage.total_tokens:,}", f"${s.usage.cost_usd:.4f}"] if wide else []
        table.add_row(
            s.id,
            Text(s.title or "-"),
            s.source,
            str(s.message_count),
            *usage,
            _when(s.started_at),
            "active" if s.ended_at is None else (s.end_reason or "ended"),
        )
    console.print(table)
    if total > len(sessions) and title is None:
        console.print(f"[dim]{len(sessions)} of {total} shown; use --limit to see more.[/dim]")


def _print_header(console: Console, s: Session) -> None:
    console.print(Text(s.title or "Untitled session", style="bold"))
    facts = [f"id {s.id}", f"source {s.source}"]
    if s.model:
        facts.append(f"model {s.model}")
    facts.append(f"started {_when(s.started_at)}")
    if s.ended_at is not None:
        facts.append(f"ended {_when(s.ended_at)} ({s.end_reason or 'no reason'})")
    facts.append(
        f"{s.message_count} messages, {s.usage.input_tokens:,} in / "
        f"{s.usage.output_tokens:,} out tokens, ${s.usage.cost_usd:.4f}"
    )
    console.print(Text(" · ".join(facts), style="dim"))


def _print_message(console: Console, m: StoredMessage, *, full: bool) -> None:
    label = m.role if m.role != "tool" else f"tool {m.name or ''}".rstrip()
    header = Text(f"\n{label}", style=_ROLE_STYLES.get(m.role, "bold"))
    header.append(f"  {_when(m.created_at)}  #{m.id}", style="dim")
    console.print(header)
    if m.reasoning and full:
        console.print(Text(m.reasoning, style="dim italic"))
    text = m.text
    if m.role == "tool" and not full:
        lines = text.splitlines()
        if len(lines) > _TOOL_PREVIEW_LINES:
            hidden = len(lines) - _TOOL_PREVIEW_LINES
            text = "\n".join(lines[:_TOOL_PREVIEW_LINES]) + f"\n… {hidden} more lines (--full)"
    if text:
        console.print(Text(text, style="dim" if m.role == "tool" else ""))
    for call in m.tool_calls or []:
        function = call.get("function")
        if not isinstance(function, dict):
            function = {}
        name = str(function.get("name", "?"))
        arguments = function.get("arguments", "")
        console.print(Text(f"→ {name}({arguments})", style="yellow"))


@sessions_group.command("show")
@click.argument("session_id")
@click.option("--full", is_flag=True, help="Show whole tool outputs and the model's reasoning.")
@_friendly_errors
def show_command(session_id: str, full: bool) -> None:
    """Print a session's transcript."""
    with _store() as store:
        session = store.get_session(session_id)
        messages = store.get_messages(session_id)
    console = Console()
    _print_header(console, session)
    for m in messages:
        _print_message(console, m, full=full)


@sessions_group.command("search")
@click.argument("query")
@click.option("--role", type=click.Choice(ROLES), default=None, help="Only messages of this role.")
@click.option("--source", default=None, help="Only sessions from this source.")
@click.option("--session", "session_id", default=None, help="Only this session.")
@click.option("--since", default=None, help="Not before: 2025-01-31, 2025-01-31T14:30, 7d, 2h.")
@click.option("--until", default=None, help="Not after (a bare date includes that whole day).")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(min=1, max=10_000))
@click.option("--json", "as_json", is_flag=True, help="Print the hits as a JSON array.")
@_friendly_errors
def search_command(
    query: str,
    role: str | None,
    source: str | None,
    session_id: str | None,
    since: str | None,
    until: str | None,
    limit: int,
    as_json: bool,
) -> None:
    """Search all stored messages for QUERY.

    Words are ANDed; use "quoted phrases", OR, NOT or -word, and word* for prefixes.
    """
    since_ts = None if since is None else parse_time(since)
    until_ts = None if until is None else parse_time(until, end_of_day=True)
    with _store() as store:
        if session_id is not None:
            store.get_session(session_id)  # an unknown id is an error, not "no hits"
        with _search(store) as search:
            hits = search.search(
                query,
                limit=limit,
                role=role,
                source=source,
                session_id=session_id,
                since=since_ts,
                until=until_ts,
            )
    if as_json:
        click.echo(json.dumps([h.to_dict() for h in hits], ensure_ascii=False, indent=2))
        return
    console = Console()
    if not hits:
        console.print("No messages match.")
        return
    table = Table(box=box.SIMPLE_HEAD, header_style="bold", show_lines=True, pad_edge=False)
    table.add_column("When")
    table.add_column("Session", max_width=32)
    table.add_column("Role", no_wrap=True)
    table.add_column("Match", ratio=2)
    for h in hits:
        snippet = Text(h.snippet)
        for start, end in h.highlights:
            snippet.stylize("bold yellow", start, end)
        session = Text(h.session_id, style="dim")
        if h.session_title:
            session = Text(h.session_title + "\n") + session
        table.add_row(_when(h.created_at), session, h.role, snippet)
    console.print(table)


@sessions_group.command("export")
@click.argument("session_id")
@click.option(
    "-f", "--format", "fmt", type=click.Choice(FORMATS), default="json", show_default=True
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    default=None,
    help="Write to FILE (atomically) instead of standard output.",
)
@_friendly_errors
def export_command(session_id: str, fmt: str, output: Path | None) -> None:
    """Export a session as JSON, JSON Lines or Markdown.

    json keeps everything stored; jsonl is one OpenAI-format message per line; markdown is a
    readable transcript.
    """
    with _store() as store:
        text = export_session(store, session_id, fmt)
    if output is None:
        click.echo(text, nl=False)
        return
    atomic_write(output, text.encode("utf-8"))
    click.echo(f"Exported session {session_id} to {output}", err=True)


@sessions_group.command("delete")
@click.argument("session_id")
@click.option("-y", "--yes", is_flag=True, help="Do not ask for confirmation.")
@_friendly_errors
def delete_command(session_id: str, yes: bool) -> None:
    """Delete a session and its messages.

    SESSION_ID and all its messages are removed from state.db and from the search index.
    """
    with _store() as store:
        session = store.get_session(session_id)
        if not yes:
            title = f" ({session.title})" if session.title else ""
            click.confirm(
                f"Delete session {session.id}{title} and its {session.message_count} messages? "
                "This cannot be undone",
                abort=True,
            )
        count = _delete_everywhere(store, session_id)
    click.echo(f"Deleted session {session_id} and its {count} messages.")


def _delete_everywhere(store: StateStore, session_id: str) -> int:
    """Delete from state.db with the index open, so the store's delete event reaches it too.

    state.db is the source of truth: an index that cannot be opened or updated only warns.
    """
    count = 0
    try:
        with contextlib.ExitStack() as stack:
            try:
                stack.enter_context(_search(store))
            except SearchIndexError as exc:
                _index_warning(exc)
            count = store.delete_session(session_id)
    except SearchIndexError as exc:  # raised while closing the index, after the delete
        _index_warning(exc)
    return count


def _index_warning(exc: SearchIndexError) -> None:
    click.echo(
        f"Warning: the search index was not updated ({exc.message}). Results never show "
        "deleted messages; `hermes sessions reindex` removes their index entries.",
        err=True,
    )


@sessions_group.command("reindex")
@_friendly_errors
def reindex_command() -> None:
    """Rebuild the search index from state.db.

    The index is derived data: rebuilding loses nothing. It is refused while another Hermes
    process (e.g. the gateway) is writing the index.
    """
    with _store() as store, _search(store, replay=False) as search:
        bar = _ProgressBar("Reindexing messages")
        try:
            count = search.rebuild(progress=bar)
        finally:
            bar.close()
        where = search.index_dir
    click.echo(f"Indexed {count} messages into {where}.")
