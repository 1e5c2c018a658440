"""Slow pure-Python reference of ``hermes._native.digest`` (tests and benchmarks only).

The same algorithm, written for clarity rather than speed, counting tokens with the pure-Python
reference tokenizer; its output must be identical to the native one (see
``hermes_native/src/digest/mod.rs`` for the rules).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import regex

from hermes.errors import InvalidInputError
from hermes.reference.tokens import get_encoding

MESSAGE_OVERHEAD = 3
DIGEST_ROLE = "system"
HEADER = "Earlier conversation, condensed (oldest first):"
DIGEST_RESERVE = 32
MIN_BUDGET = DIGEST_RESERVE
HEAD_CHARS = 100
MAX_TOOLS = 8

Message = tuple[str, str, list[str]]
Result = tuple[str, int, int, int, int, int]

_WHITESPACE = regex.compile(r"\s+")  # Unicode White_Space, like Rust's split_whitespace
_GRAPHEME = regex.compile(r"\X")


def omitted_line(n: int) -> str:
    return f"[{n} earlier turn{'' if n == 1 else 's'} omitted]"


def head(text: str) -> str:
    flat = " ".join(w for w in _WHITESPACE.split(text) if w)
    if len(flat) <= HEAD_CHARS:
        return flat
    out = ""
    for grapheme in _GRAPHEME.findall(flat):
        if len(out) + len(grapheme) > HEAD_CHARS - 1:
            break
        out += grapheme
    if not out:
        out = flat[: HEAD_CHARS - 1]
    return _rstrip(out) + "…"


def _rstrip(s: str) -> str:
    match = regex.search(r"\s+\Z", s)
    return s[: match.start()] if match else s


def turns(messages: Sequence[Message]) -> list[tuple[int, int]]:
    out = []
    start = 0
    for i, (role, _, _) in enumerate(messages):
        if role == "user" and i > start:
            out.append((start, i))
            start = i
    if start < len(messages):
        out.append((start, len(messages)))
    return out


def _blank(text: str) -> bool:
    return not _WHITESPACE.sub("", text)


def line(messages: Sequence[Message], turn: tuple[int, int]) -> str:
    part = messages[turn[0] : turn[1]]
    user = next((c for r, c, _ in part if r == "user" and not _blank(c)), None)
    assistant = next((c for r, c, _ in reversed(part) if r == "assistant" and not _blank(c)), None)
    tools: list[str] = []
    for role, _, names in part:
        if role == "assistant":
            tools.extend(n for n in names if n not in tools)
    parts = []
    if user is not None:
        parts.append(f"user: {head(user)}")
    if assistant is not None:
        parts.append(f"assistant: {head(assistant)}")
    if tools:
        listed = ", ".join(head(t) for t in tools[:MAX_TOOLS])
        if len(tools) > MAX_TOOLS:
            listed += f", +{len(tools) - MAX_TOOLS} more"
        parts.append(f"tools: {listed}")
    return "- " + " | ".join(parts) if parts else "- (no text)"


def digest(
    messages: Sequence[Message], budget: int, encoding: str, recent_share: float = 0.5
) -> Result:
    enc = get_encoding(encoding)
    count = enc.count
    if budget < MIN_BUDGET:
        raise InvalidInputError(f"budget of {budget} tokens is below the minimum of {MIN_BUDGET}")
    if not 0.0 <= recent_share <= 1.0:
        raise InvalidInputError(f"recent_share must be between 0 and 1, got {recent_share}")
    recent_budget = min(math.floor(budget * recent_share), budget - DIGEST_RESERVE)

    def cost(m: Message) -> int:
        role, content, tools = m
        return MESSAGE_OVERHEAD + count(role) + count(content) + sum(count(t) for t in tools)

    suffix = 0
    keep_from, verbatim = len(messages), 0
    all_fit = True
    for i in range(len(messages) - 1, -1, -1):
        c = cost(messages[i])
        if suffix + c > budget:
            all_fit = False
            break
        suffix += c
        if suffix <= recent_budget and messages[i][0] != "tool":
            keep_from, verbatim = i, suffix
    if all_fit:
        return ("", 0, suffix, 0, 0, 0)

    older = messages[:keep_from]
    older_turns = turns(older)
    framing = MESSAGE_OVERHEAD + count(DIGEST_ROLE)
    available = max(0, budget - verbatim - framing)
    text, condensed = _fit_lines(older, older_turns, available, count)
    digest_tokens = framing + count(text) if text else 0
    return (
        text,
        keep_from,
        verbatim + digest_tokens,
        digest_tokens,
        condensed,
        len(older_turns) - condensed,
    )


def _fit_lines(
    older: Sequence[Message],
    older_turns: list[tuple[int, int]],
    available: int,
    count: Callable[[str], int],
) -> tuple[str, int]:
    total = len(older_turns)

    def marker_cost(omitted: int) -> int:
        return count(omitted_line(omitted)) + 1 if omitted else 0

    estimate = count(HEADER) + 1 + marker_cost(total)
    lines: list[str] = []  # newest first
    for turn in reversed(older_turns):
        candidate = line(older, turn)
        kept = len(lines) + 1
        following = (
            estimate
            - marker_cost(total - kept + 1)
            + marker_cost(total - kept)
            + count(candidate)
            + 1
        )
        if following > available:
            break
        estimate = following
        lines.append(candidate)

    def assemble(k: int) -> str:
        out = [HEADER]
        if total - k:
            out.append(omitted_line(total - k))
        out.extend(reversed(lines[:k]))
        return "\n".join(out)

    for k in range(len(lines), -1, -1):
        text = assemble(k)
        if count(text) <= available:
            return text, k
    alone = omitted_line(total)
    return (alone, 0) if count(alone) <= available else ("", 0)
