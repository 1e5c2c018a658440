"""How records map to SQL rows: the column lists, the hot-path statements and the converters.

Kept apart from :mod:`hermes.state.store` so the store reads as behaviour, and so the write path's
statements are in one place (apsw caches them as prepared statements by their text).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

from hermes.state.models import Message, Session, StoredMessage, Usage

SESSION_COLUMNS: Final = (
    "id, title, source, user_id, chat_id, model, parent_session_id, end_reason, "
    "input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, "
    "cost_usd, message_count, started_at, updated_at, ended_at"
)
MESSAGE_COLUMNS: Final = (
    "id, session_id, role, content, content_parts, tool_calls, tool_call_id, name, reasoning, "
    "finish_reason, created_at"
)
M_MESSAGE_COLUMNS: Final = ", ".join("m." + c.strip() for c in MESSAGE_COLUMNS.split(","))
INSERT_MESSAGE: Final = (
    "INSERT INTO messages(session_id, role, content, content_parts, tool_calls, tool_call_id, "
    "name, reasoning, finish_reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
TOUCH_SESSION: Final = (
    "UPDATE sessions SET message_count = message_count + ?, updated_at = ? WHERE id = ?"
)
ADD_USAGE: Final = (
    "UPDATE sessions SET message_count = message_count + ?, updated_at = ?, "
    "input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, "
    "cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?, "
    "reasoning_tokens = reasoning_tokens + ?, cost_usd = cost_usd + ? WHERE id = ?"
)


def session_from_row(row: Sequence[Any]) -> Session:
    return Session(
        id=row[0],
        title=row[1],
        source=row[2],
        user_id=row[3],
        chat_id=row[4],
        model=row[5],
        parent_session_id=row[6],
        end_reason=row[7],
        usage=Usage(
            input_tokens=row[8],
            output_tokens=row[9],
            cache_read_tokens=row[10],
            cache_write_tokens=row[11],
            reasoning_tokens=row[12],
            cost_usd=float(row[13]),
        ),
        message_count=row[14],
        started_at=row[15],
        updated_at=row[16],
        ended_at=row[17],
    )


def message_from_row(row: Sequence[Any]) -> StoredMessage:
    content = row[3] if row[4] is None else json.loads(row[4])
    return StoredMessage(
        id=row[0],
        session_id=row[1],
        role=row[2],
        content=content,
        tool_calls=None if row[5] is None else json.loads(row[5]),
        tool_call_id=row[6],
        name=row[7],
        reasoning=row[8],
        finish_reason=row[9],
        created_at=row[10],
    )


def message_row(session_id: str, m: Message, now: float) -> tuple[Any, ...]:
    text, parts = (m.content, None) if not isinstance(m.content, list) else (None, m.content)
    return (
        session_id,
        m.role,
        text,
        None if parts is None else json.dumps(parts, ensure_ascii=False, separators=(",", ":")),
        None
        if m.tool_calls is None
        else json.dumps(m.tool_calls, ensure_ascii=False, separators=(",", ":")),
        m.tool_call_id,
        m.name,
        m.reasoning,
        m.finish_reason,
        now,
    )
