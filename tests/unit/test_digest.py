"""The compression digest as the agent uses it: budgets hold, tool calls stay whole, output matches
the pure-Python reference."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes import _native, tokens
from hermes.agent.digest import MIN_BUDGET, Digest, digest, native_messages
from hermes.errors import InvalidInputError, UnknownEncodingError
from hermes.reference import digest as reference


def cost(message: dict[str, Any], encoding: tokens.Encoding = "o200k_base") -> int:
    """The documented per-message cost."""
    role, content, names = native_messages([message])[0]
    count = tokens.count
    return 3 + count(role, encoding) + count(content, encoding) + sum(count(n) for n in names)


def digest_cost(d: Digest, encoding: tokens.Encoding = "o200k_base") -> int:
    return 3 + tokens.count("system", encoding) + tokens.count(d.text, encoding) if d.text else 0


def call(name: str, i: int) -> dict[str, Any]:
    return {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": "{}"}}


def conversation(turns: int, size: int = 3) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for i in range(turns):
        messages.append({"role": "user", "content": f"Question {i}: " + "why is that so? " * size})
        if i % 3 == 0:
            messages.append(
                {"role": "assistant", "content": None, "tool_calls": [call("search", i)]}
            )
            messages.append({"role": "tool", "tool_call_id": f"call_{i}", "content": "hit " * 40})
        messages.append({"role": "assistant", "content": f"Answer {i}. " + "Because. " * size})
    return messages


def test_short_conversations_are_kept_whole() -> None:
    messages = conversation(2)
    d = digest(messages, 4000)
    assert d == Digest("", 0, sum(map(cost, messages)), 0, 0, 0)
    assert d.kept(messages) == messages
    assert digest([], 100) == Digest("", 0, 0, 0, 0, 0)


def test_long_conversations_keep_the_latest_turns_and_condense_the_rest() -> None:
    messages = conversation(200)
    d = digest(messages, 2000)
    kept = d.kept(messages)
    assert 0 < d.keep_from < len(messages)
    assert sum(map(cost, kept)) <= 1000  # recent_share 0.5
    assert d.total_tokens == sum(map(cost, kept)) + digest_cost(d) <= 2000
    lines = d.text.splitlines()
    assert lines[0] == "Earlier conversation, condensed (oldest first):"
    assert lines[1] == f"[{d.omitted_turns} earlier turns omitted]"
    assert len(lines) == 2 + d.condensed_turns
    assert all(line.startswith("- ") for line in lines[2:])
    assert "tools: search" in d.text
    # The newest condensed turn is the one right before the verbatim part.
    assert lines[-1].startswith("- user: Question ")
    assert d.condensed_turns + d.omitted_turns == sum(
        1 for m in messages[: d.keep_from] if m["role"] == "user"
    )


def test_recent_share_moves_the_cut() -> None:
    messages = conversation(100)
    small = digest(messages, 3000, recent_share=0.2)
    large = digest(messages, 3000, recent_share=0.9)
    assert large.keep_from < small.keep_from
    assert small.total_tokens <= 3000 and large.total_tokens <= 3000
    nothing = digest(messages, 3000, recent_share=0.0)
    assert nothing.keep_from == len(messages)


def test_a_tool_call_is_never_separated_from_its_results() -> None:
    messages = [
        {"role": "user", "content": "please look " * 30},
        {"role": "assistant", "content": "", "tool_calls": [call("a", 1), call("b", 2)]},
        {"role": "tool", "tool_call_id": "call_1", "content": "x " * 200},
        {"role": "tool", "tool_call_id": "call_2", "content": "y"},
        {"role": "assistant", "content": "done"},
    ]
    for budget in range(MIN_BUDGET, 700, 7):
        d = digest(messages, budget)
        assert d.keep_from == len(messages) or messages[d.keep_from]["role"] != "tool"
        assert d.total_tokens <= budget


def test_huge_and_multiline_messages_are_cut_to_one_line_heads() -> None:
    huge = "first line\n\n  second\tline " + "word " * 2_000_000
    messages = [
        {"role": "user", "content": huge},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "next"},
        {"role": "assistant", "content": "fine"},
    ]
    d = digest(messages, 100)
    assert d.keep_from in (1, 2)
    line = d.text.splitlines()[1]
    assert line.startswith("- user: first line second line word")
    assert "…" in line and len(line) < 200


def test_budget_below_one_message_still_announces_what_was_dropped() -> None:
    messages = conversation(50, size=200)
    d = digest(messages, MIN_BUDGET)
    assert d.total_tokens <= MIN_BUDGET
    assert d.text == "[50 earlier turns omitted]" or "omitted" in d.text
    assert d.keep_from == len(messages)


def test_invalid_input_is_a_clear_error() -> None:
    with pytest.raises(InvalidInputError, match="below the minimum of 32"):
        digest(conversation(1), 10)
    with pytest.raises(InvalidInputError, match="must be an int"):
        digest(conversation(1), 100.0)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="recent_share"):
        digest(conversation(1), 100, recent_share=2.0)
    with pytest.raises(InvalidInputError, match="has no str role"):
        digest([{"content": "x"}], 100)
    with pytest.raises(UnknownEncodingError):
        digest(conversation(1), 100, encoding="gpt2")  # type: ignore[arg-type]


def test_surrogates_are_repaired() -> None:
    messages = [{"role": "user", "content": "a\ud800b" * 400}, {"role": "user", "content": "x"}]
    d = digest(messages, 200)
    assert "a\ufffdb" in d.text


def test_logs_what_it_did(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="hermes.agent.digest"):
        digest(conversation(30), 500)
    assert "turns condensed" in caplog.text


# --- properties --------------------------------------------------------------------------------

_TEXT = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8", exclude_categories=("Cn", "Co", "Cs")),
        st.sampled_from([" ", "\n", "\t", "\u0301", "\u200d", "😀", "é", "中"]),
    ),
    max_size=160,
)
_MESSAGE = st.tuples(
    st.sampled_from(["user", "assistant", "tool", "system"]),
    _TEXT,
    st.lists(st.sampled_from(["search", "read_file", "terminal", "patch"]), max_size=3),
)
_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(
    messages=st.lists(_MESSAGE, max_size=25),
    budget=st.integers(MIN_BUDGET, 1500),
    share=st.floats(0.0, 1.0),
    encoding=st.sampled_from(tokens.ENCODINGS),
)
def test_native_equals_reference_and_stays_within_budget(
    messages: list[tuple[str, str, list[str]]], budget: int, share: float, encoding: str
) -> None:
    native = _native.digest(messages, budget, encoding, share)
    assert native == reference.digest(messages, budget, encoding, share)
    text, keep_from, total, digest_tokens, condensed, omitted = native
    assert total <= budget
    kept = sum(
        3 + sum(tokens.count(s, encoding) for s in (role, content, *names))  # type: ignore[arg-type]
        for role, content, names in messages[keep_from:]
    )
    assert total == kept + digest_tokens
    # The cut never lands on a tool result (a transcript that fits whole is kept as given).
    assert keep_from in (0, len(messages)) or messages[keep_from][0] != "tool"
    assert (keep_from > 0) == bool(text)  # older messages are never dropped silently
    assert "\n\n" not in text
    assert condensed + omitted == len(reference.turns(messages[:keep_from]))
