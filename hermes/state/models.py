"""Typed records of the state store: sessions, messages, usage and search hits.

Messages are OpenAI chat format inside Hermes (DESIGN invariant 1): ``role``, ``content``,
``tool_calls``, ``tool_call_id``, ``name``, plus two optional fields the agent keeps for itself
(``reasoning``, ``finish_reason``). :meth:`Message.from_openai` is the one place that turns a plain
dict into a validated :class:`Message`; the store accepts either.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Final

from hermes.errors import InvalidInputError

ROLES: Final = ("system", "developer", "user", "assistant", "tool")
"""The OpenAI chat roles Hermes stores."""

MESSAGE_KEYS: Final = (
    "role",
    "content",
    "tool_calls",
    "tool_call_id",
    "name",
    "reasoning",
    "finish_reason",
)
"""Keys a message dict may carry; anything else is refused rather than silently dropped."""
_KEY_SET: Final = frozenset(MESSAGE_KEYS)

_COUNTER_MAX: Final = 2**62  # far beyond any real count, well inside SQLite's 64-bit integers

JSONObject = dict[str, Any]
Content = str | list[JSONObject] | None


def check_text(value: str, what: str) -> None:
    """Refuse text that cannot be stored as UTF-8 (lone surrogates), naming where it was."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(value[exc.start])
        raise InvalidInputError(
            f"{what} contains a lone surrogate U+{code:04X} at character {exc.start}; "
            "it is not valid Unicode text and cannot be stored",
            hint="decode the source bytes with errors='replace' (or fix its encoding) "
            "before passing the text to Hermes",
        ) from None


def _optional_str(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInputError(
            f"message field {key!r} must be a string or null, not {type(value).__name__}",
            hint="pass messages in OpenAI chat format",
        )
    check_text(value, f"message field {key!r}")
    return value


def _to_json(value: Any, what: str) -> str:
    """Serialise to compact JSON, refusing anything that would not round-trip."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(
            f"{what} is not JSON-serialisable: {exc}",
            hint="use only dicts, lists, strings, finite numbers, booleans and None",
        ) from None
    check_text(text, what)
    return text


def _content(data: Mapping[str, Any]) -> Content:
    value = data.get("content")
    if value is None:
        return None
    if isinstance(value, str):
        check_text(value, "message content")
        return value
    if isinstance(value, list) and all(isinstance(part, dict) for part in value):
        _to_json(value, "message content parts")
        return [dict(part) for part in value]
    raise InvalidInputError(
        f"message content must be a string, a list of content parts (dicts) or null, "
        f"not {type(value).__name__}",
        hint='for multimodal input use [{"type": "text", "text": "..."}, ...]',
    )


def _tool_calls(data: Mapping[str, Any]) -> list[JSONObject] | None:
    value = data.get("tool_calls")
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(call, dict) for call in value):
        raise InvalidInputError(
            f"message field 'tool_calls' must be a list of objects, not {type(value).__name__}",
            hint='use [{"id": "...", "type": "function", "function": {"name": ..., '
            '"arguments": "<json text>"}}]',
        )
    _to_json(value, "message field 'tool_calls'")
    return [dict(call) for call in value]


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message in OpenAI format. Build it from a dict with :meth:`from_openai`."""

    role: str
    content: Content = None
    tool_calls: list[JSONObject] | None = None
    tool_call_id: str | None = None
    name: str | None = None
    reasoning: str | None = None
    finish_reason: str | None = None

    @classmethod
    def from_openai(cls, data: Mapping[str, Any]) -> Message:
        """Validate an OpenAI-format dict; raise :class:`InvalidInputError` saying what is wrong."""
        if not isinstance(data, Mapping):
            raise InvalidInputError(
                f"a message must be a dict in OpenAI chat format, not {type(data).__name__}",
                hint='e.g. {"role": "user", "content": "hello"}',
            )
        unknown = sorted(str(k) for k in data if k not in _KEY_SET)
        if unknown:
            raise InvalidInputError(
                f"unknown message field(s): {', '.join(unknown)}",
                hint=f"allowed fields are {', '.join(MESSAGE_KEYS)}; convert provider-specific "
                "fields at the provider adapter",
            )
        role = data.get("role")
        if role not in ROLES:
            raise InvalidInputError(
                f"invalid message role {role!r}",
                hint=f"use one of {', '.join(ROLES)}",
            )
        msg = cls(
            role=role,
            content=_content(data),
            tool_calls=_tool_calls(data),
            tool_call_id=_optional_str(data, "tool_call_id"),
            name=_optional_str(data, "name"),
            reasoning=_optional_str(data, "reasoning"),
            finish_reason=_optional_str(data, "finish_reason"),
        )
        msg._check_shape()
        return msg

    @classmethod
    def coerce(cls, value: Message | Mapping[str, Any]) -> Message:
        """Accept a Message or an OpenAI dict; either way the result has been validated."""
        if isinstance(value, Message):
            return cls.from_openai(value.to_openai())
        return cls.from_openai(value)

    def _check_shape(self) -> None:
        if self.tool_calls is not None and self.role != "assistant":
            raise InvalidInputError(
                f"only assistant messages may carry tool_calls (got role {self.role!r})",
                hint="put tool calls on the assistant message that requested them",
            )
        if self.role == "tool" and not self.tool_call_id:
            raise InvalidInputError(
                "a tool message needs the tool_call_id of the call it answers",
                hint="copy the id from the assistant message's tool_calls[i]['id']",
            )
        if self.tool_call_id is not None and self.role != "tool":
            raise InvalidInputError(
                f"only tool messages carry tool_call_id (got role {self.role!r})",
                hint="drop tool_call_id or use role 'tool'",
            )
        if self.content is None and self.role in ("system", "developer", "user", "tool"):
            raise InvalidInputError(
                f"a {self.role} message needs content (got null)",
                hint="pass an empty string if there is really nothing to say",
            )

    def to_openai(self) -> JSONObject:
        """The message as an OpenAI chat dict; optional fields that are unset are left out."""
        out: JSONObject = {"role": self.role, "content": self.content}
        for f in ("tool_calls", "tool_call_id", "name", "reasoning", "finish_reason"):
            value = getattr(self, f)
            if value is not None:
                out[f] = value
        return out

    @property
    def text(self) -> str:
        """The readable text of the content (text parts joined), for search and display."""
        return content_text(self.content)


def content_text(content: Content) -> str:
    """Flatten content: a string as is, else the ``text`` of each text part, joined by newlines."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = [p["text"] for p in content if isinstance(p.get("text"), str)]
    return "\n".join(parts)


@dataclass(frozen=True, slots=True, kw_only=True)
class StoredMessage(Message):
    """A message as stored: its rowid (monotonic, never reused), session and commit time."""

    id: int
    session_id: str
    created_at: float


@dataclass(frozen=True, slots=True)
class Usage:
    """Token and cost counters added to a session after each model call."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    cost_usd: float = 0.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            is_cost = f.name == "cost_usd"
            kinds: tuple[type, ...] = (int, float) if is_cost else (int,)
            valid = isinstance(value, kinds) and not isinstance(value, bool)
            if not valid or not math.isfinite(value) or not 0 <= value < _COUNTER_MAX:
                raise InvalidInputError(
                    f"usage counter {f.name} must be a finite non-negative "
                    f"{'number' if is_cost else 'integer'}, got {value!r}",
                    hint="pass the counts the provider reported for this call",
                )

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, slots=True)
class Session:
    """One conversation: where it came from, which model, what it cost, how it ended."""

    id: str
    title: str | None
    source: str
    user_id: str | None
    chat_id: str | None
    model: str | None
    parent_session_id: str | None
    end_reason: str | None
    usage: Usage
    message_count: int
    started_at: float
    updated_at: float
    ended_at: float | None

    def to_dict(self) -> JSONObject:
        """Plain-data form for JSON export."""
        return {
            "id": self.id,
            "title": self.title,
            "source": self.source,
            "user_id": self.user_id,
            "chat_id": self.chat_id,
            "model": self.model,
            "parent_session_id": self.parent_session_id,
            "end_reason": self.end_reason,
            "input_tokens": self.usage.input_tokens,
            "output_tokens": self.usage.output_tokens,
            "cache_read_tokens": self.usage.cache_read_tokens,
            "cache_write_tokens": self.usage.cache_write_tokens,
            "reasoning_tokens": self.usage.reasoning_tokens,
            "cost_usd": self.usage.cost_usd,
            "message_count": self.message_count,
            "started_at": self.started_at,
            "updated_at": self.updated_at,
            "ended_at": self.ended_at,
        }


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result, joined with its session's current title and source.

    ``highlights`` are (start, end) code-point spans of matched terms inside ``snippet``.
    """

    message_id: int
    session_id: str
    session_title: str | None
    source: str
    role: str
    created_at: float
    score: float
    snippet: str
    highlights: list[tuple[int, int]] = field(default_factory=list)

    def to_dict(self) -> JSONObject:
        return {
            "message_id": self.message_id,
            "session_id": self.session_id,
            "session_title": self.session_title,
            "source": self.source,
            "role": self.role,
            "created_at": self.created_at,
            "score": self.score,
            "snippet": self.snippet,
            "highlights": [list(h) for h in self.highlights],
        }
