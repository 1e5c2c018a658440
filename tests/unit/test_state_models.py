"""Message validation: bad input is refused with a clear error and never damages what is stored."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes.errors import InvalidInputError
from hermes.state import Message, StateStore


@pytest.fixture
def store(tmp_path: Path) -> Iterator[StateStore]:
    s = StateStore.open(tmp_path / "state.db")
    yield s
    s.close()


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ({"role": "robot", "content": "x"}, "invalid message role 'robot'"),
        ({"content": "x"}, "invalid message role None"),
        ({"role": "user", "content": "a\ud800b"}, "lone surrogate U\\+D800 at character 1"),
        ({"role": "user", "content": 42}, "content must be a string"),
        ({"role": "user", "content": None}, "a user message needs content"),
        ({"role": "user", "content": "x", "extra": 1}, "unknown message field"),
        ({"role": "assistant", "tool_calls": {"id": "x"}}, "must be a list of objects"),
        ({"role": "assistant", "tool_calls": [{"f": object()}]}, "not JSON-serialisable"),
        ({"role": "assistant", "tool_calls": [{"f": {1, 2}}]}, "not JSON-serialisable"),
        ({"role": "assistant", "tool_calls": [{"x": float("nan")}]}, "not JSON-serialisable"),
        ({"role": "assistant", "tool_calls": [{"a": "\udfff"}]}, "lone surrogate"),
        ({"role": "user", "content": "x", "tool_calls": []}, "only assistant messages"),
        ({"role": "tool", "content": "x"}, "needs the tool_call_id"),
        ({"role": "user", "content": "x", "tool_call_id": "c"}, "only tool messages"),
        ({"role": "user", "content": "x", "name": 3}, "'name' must be a string"),
        ({"role": "user", "content": [{"type": "text", "text": "\ud83d"}]}, "lone surrogate"),
        ("just text", "must be a dict"),
    ],
)
def test_bad_messages_are_refused_clearly(store: StateStore, message: Any, error: str) -> None:
    s = store.create_session()
    store.append_message(s.id, {"role": "user", "content": "before"})
    with pytest.raises(InvalidInputError, match=error) as exc:
        store.append_message(s.id, message)
    assert exc.value.hint, "every validation error says what to do"
    assert [m.content for m in store.get_messages(s.id)] == ["before"]
    assert store.get_session(s.id).message_count == 1


def test_a_directly_built_message_is_validated_too(store: StateStore) -> None:
    s = store.create_session()
    with pytest.raises(InvalidInputError, match="invalid message role"):
        store.append_message(s.id, Message(role="bot", content="x"))


def test_to_openai_leaves_out_unset_fields() -> None:
    m = Message.from_openai({"role": "assistant", "content": "hi", "finish_reason": "stop"})
    assert m.to_openai() == {"role": "assistant", "content": "hi", "finish_reason": "stop"}


valid_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=300)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=valid_text, name=st.none() | valid_text.filter(bool))
def test_any_valid_text_round_trips_exactly(store: StateStore, content: str, name: str) -> None:
    s = store.create_session()
    mid = store.append_message(s.id, {"role": "user", "content": content, "name": name})
    got = store.get_message(mid)
    assert got.content == content
    assert got.name == name


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.text(max_size=50))
def test_any_text_is_stored_exactly_or_refused(store: StateStore, content: str) -> None:
    s = store.create_session()
    try:
        mid = store.append_message(s.id, {"role": "user", "content": content})
    except InvalidInputError:
        assert any(0xD800 <= ord(c) <= 0xDFFF for c in content)
        assert store.get_messages(s.id) == []
    else:
        assert store.get_message(mid).content == content


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | valid_text,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(valid_text, children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(arguments=json_values)
def test_tool_calls_round_trip(store: StateStore, arguments: Any) -> None:
    calls = [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}]
    s = store.create_session()
    mid = store.append_message(s.id, {"role": "assistant", "content": None, "tool_calls": calls})
    assert store.get_message(mid).tool_calls == calls
