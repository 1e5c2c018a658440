"""The context-compression digest: keep the latest turns verbatim, condense the rest into one text.

When a conversation outgrows the model's context, the agent replaces its older part with a digest:
one line per older turn (``- user: <head> | assistant: <head> | tools: a, b``), newest lines kept
first, and an explicit ``[N earlier turns omitted]`` line when even those do not all fit. The newest
messages stay verbatim, up to ``recent_share`` of the budget; the cut never lands on a tool result,
so an assistant's tool call always keeps its results. The work is done by the Rust core; see
``hermes_native/src/digest/mod.rs`` for the exact rules.

Token accounting (exact, under the chosen encoding):

* a kept message costs 3 + tokens(role) + tokens(content) + tokens of each tool name it calls. The
  content is the text ``hermes.tokens.message_fields`` gives (content parts joined by newlines);
  tool-call arguments are not counted, so leave headroom when calls carry large arguments;
* the digest costs 3 + tokens("system") + tokens(text) — the same for a ``user`` or ``assistant``
  message, which are one token each too;
* ``Digest.total_tokens`` is the digest's cost plus the kept messages' cost and never exceeds the
  budget. A budget must be at least ``MIN_BUDGET`` tokens.

Pass the conversation without the system prompt: the digest condenses whatever it is given, and
the oldest turns are the first to go.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from hermes import _native
from hermes.errors import InvalidInputError
from hermes.tokens import DEFAULT_ENCODING, Encoding, content_text, message_fields

__all__ = ["MIN_BUDGET", "Digest", "digest", "native_messages"]

log = logging.getLogger("hermes.agent.digest")

MIN_BUDGET: Final = 32
"""Smallest budget accepted: room for the digest's omitted-turns line."""


@dataclass(frozen=True)
class Digest:
    """A compressed view of a transcript: ``text`` followed by ``messages[keep_from:]``."""

    text: str
    """The condensed older turns; empty when the whole transcript fits the budget."""
    keep_from: int
    """Index of the first message kept verbatim (``len(messages)`` when none is)."""
    total_tokens: int
    """Cost of the digest plus the kept messages; never above the budget."""
    digest_tokens: int
    """Cost of the digest alone (0 when ``text`` is empty)."""
    condensed_turns: int
    """Older turns that have a line in the digest."""
    omitted_turns: int
    """Older turns dropped from the digest, as its omitted-turns line says."""

    def kept(self, messages: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
        """The messages kept verbatim."""
        return list(messages[self.keep_from :])


def _tool_names(message: Mapping[str, Any], index: int) -> list[str]:
    names = []
    calls = message.get("tool_calls") or []
    if not isinstance(calls, list):
        raise InvalidInputError(f"messages[{index}]['tool_calls'] must be a list")
    for call in calls:
        function = call.get("function") if isinstance(call, Mapping) else None
        name = function.get("name") if isinstance(function, Mapping) else None
        if isinstance(name, str):
            names.append(name)
    legacy = message.get("function_call")
    if isinstance(legacy, Mapping) and isinstance(legacy.get("name"), str):
        names.append(legacy["name"])
    return names


def native_messages(messages: Sequence[Mapping[str, Any]]) -> list[tuple[str, str, list[str]]]:
    """(role, content, tool names) of each OpenAI-format message, as the core takes them.

    The content is the text ``hermes.tokens.count_messages`` counts for the ``content`` field.
    """
    out = []
    for i, message in enumerate(messages):
        if not isinstance(message, Mapping):
            raise InvalidInputError(f"messages[{i}] must be a dict, not {type(message).__name__}")
        role = message.get("role")
        if not isinstance(role, str):
            raise InvalidInputError(
                f"messages[{i}] has no str role", hint='add e.g. "role": "user"'
            )
        content = message.get("content")
        if content is None:
            text = ""
        elif isinstance(content, str):
            text = content
        elif isinstance(content, list):
            text = content_text(content, f"messages[{i}]['content']")
        else:
            text = message_fields({"content": content}, i)["content"]
        calls = "tool_calls" in message or "function_call" in message
        out.append((role, text, _tool_names(message, i) if calls else []))
    return out


def _repair(text: str) -> str:
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def digest(
    messages: Sequence[Mapping[str, Any]],
    budget: int,
    *,
    encoding: Encoding = DEFAULT_ENCODING,
    recent_share: float = 0.5,
) -> Digest:
    """Compress ``messages`` into at most ``budget`` tokens (see the module docs)."""
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise InvalidInputError(f"budget must be an int, not {type(budget).__name__}")
    if budget < MIN_BUDGET:
        raise InvalidInputError(
            f"budget of {budget} tokens is below the minimum of {MIN_BUDGET}",
            hint="a digest needs room for at least its omitted-turns line",
        )
    share = float(recent_share)
    items = native_messages(messages)
    try:
        result = _native.digest(items, budget, encoding, share)
    except UnicodeEncodeError:
        items = [(_repair(r), _repair(c), [_repair(t) for t in ts]) for r, c, ts in items]
        result = _native.digest(items, budget, encoding, share)
    text, keep_from, total, digest_tokens, condensed, omitted = result
    log.debug(
        "digest: %d messages -> keep %d verbatim, %d turns condensed, %d omitted, %d/%d tokens",
        len(items),
        len(items) - keep_from,
        condensed,
        omitted,
        total,
        budget,
    )
    return Digest(text, keep_from, total, digest_tokens, condensed, omitted)
