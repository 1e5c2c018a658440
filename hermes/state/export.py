"""Export a stored session as JSON, JSON Lines or Markdown.

* ``json``: one document, ``{"format": "hermes.session.v1", "session": {...}, "messages": [...]}``;
  each message is the OpenAI dict plus its ``id`` and ``created_at``, so nothing stored is lost.
* ``jsonl``: one OpenAI-format message per line and nothing else, ready for replay or fine-tuning.
* ``markdown``: a readable transcript (tool calls and results in code fences).

Timestamps in Markdown are UTC so an export reads the same wherever it is made.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Final, Literal

from hermes.errors import InvalidInputError
from hermes.state.models import Session, StoredMessage
from hermes.state.store import StateStore

ExportFormat = Literal["json", "jsonl", "markdown"]
FORMATS: Final[tuple[ExportFormat, ...]] = ("json", "jsonl", "markdown")
JSON_FORMAT_ID: Final = "hermes.session.v1"

_ROLE_TITLES: Final = {
    "system": "System",
    "developer": "Developer",
    "user": "User",
    "assistant": "Assistant",
    "tool": "Tool result",
}


def export_session(store: StateStore, session_id: str, fmt: str) -> str:
    """Render one session in ``fmt`` (see :data:`FORMATS`)."""
    if fmt not in FORMATS:
        raise InvalidInputError(
            f"unknown export format {fmt!r}", hint=f"use one of {', '.join(FORMATS)}"
        )
    session = store.get_session(session_id)
    messages = store.get_messages(session_id)
    if fmt == "json":
        return to_json(session, messages)
    if fmt == "jsonl":
        return to_jsonl(messages)
    return to_markdown(session, messages)


def to_json(session: Session, messages: Sequence[StoredMessage]) -> str:
    doc = {
        "format": JSON_FORMAT_ID,
        "session": session.to_dict(),
        "messages": [{"id": m.id, "created_at": m.created_at, **m.to_openai()} for m in messages],
    }
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def to_jsonl(messages: Sequence[StoredMessage]) -> str:
    return "".join(
        json.dumps(m.to_openai(), ensure_ascii=False, separators=(",", ":")) + "\n"
        for m in messages
    )


def _utc(ts: float | None) -> str:
    if ts is None:
        return "-"
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _fenced(text: str, lang: str = "") -> str:
    """A code block whose fence is longer than any backtick run inside ``text``."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text}\n{fence}"


def _tool_arguments(call: dict[str, object]) -> tuple[str, str]:
    function = call.get("function")
    if not isinstance(function, dict):
        return "?", json.dumps(call, ensure_ascii=False, indent=2)
    name = str(function.get("name", "?"))
    arguments = function.get("arguments", "")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return name, arguments  # a model's malformed arguments, shown as they came
    return name, json.dumps(arguments, ensure_ascii=False, indent=2)


def to_markdown(session: Session, messages: Sequence[StoredMessage]) -> str:
    u = session.usage
    out = [
        f"# {session.title or 'Untitled session'}",
        "",
        f"- Session: `{session.id}`",
        f"- Source: {session.source}" + (f" · Model: {session.model}" if session.model else ""),
        f"- Started: {_utc(session.started_at)}"
        + (
            f" · Ended: {_utc(session.ended_at)} ({session.end_reason or 'no reason'})"
            if session.ended_at
            else ""
        ),
        f"- Messages: {session.message_count} · Tokens: {u.input_tokens} in, "
        f"{u.output_tokens} out · Cost: ${u.cost_usd:.4f}",
    ]
    for m in messages:
        heading = _ROLE_TITLES.get(m.role, m.role)
        if m.role == "tool":
            heading += f" (`{m.name or 'tool'}`, {m.tool_call_id})"
        elif m.name:
            heading += f" ({m.name})"
        out += ["", f"## {heading} · {_utc(m.created_at)}", ""]
        if m.reasoning:
            out += ["<details><summary>Reasoning</summary>", "", m.reasoning, "", "</details>", ""]
        text = m.text
        if text:
            out.append(_fenced(text) if m.role == "tool" else text)
        for call in m.tool_calls or []:
            name, arguments = _tool_arguments(call)
            out += ["", f"**Tool call** `{name}` ({call.get('id', '?')}):", "", _fenced(arguments)]
    return "\n".join(out) + "\n"
