"""Exact token counts for OpenAI's ``o200k_base`` and ``cl100k_base`` encodings.

The counting runs in the Rust core (``hermes._native``) and gives the same numbers as tiktoken's
``encode_ordinary``: text that looks like a special token (``<|endoftext|>``) is counted as ordinary
text, because in a transcript it *is* ordinary text. The vocabularies are compiled into the
extension; nothing is downloaded.

Python strings may contain lone surrogates (for example from ``os.fsdecode`` or JSON with broken
escapes) that UTF-8 cannot represent. Like tiktoken, such text is re-read through UTF-16: a valid
surrogate pair becomes its character and each lone surrogate becomes U+FFFD, then it is counted.

``count_messages`` counts a chat transcript the way the OpenAI cookbook ("How to count tokens with
tiktoken") does for current chat models: 3 tokens of framing per message, the tokens of every field
value (``role`` included), 1 more when a ``name`` is present, and 3 tokens priming the reply. OpenAI
message dicts carry more than strings, so values are first turned into text:

* ``None`` values are dropped (the key is not counted, a ``name: None`` costs nothing);
* strings are counted as they are;
* a ``content`` list of parts becomes the parts joined by ``"\\n"``: a text part (``type`` ``text``,
  ``input_text`` or ``output_text``) by its ``text``, any other part (``image_url``,
  ``input_audio``, ``file``, ...) by its canonical JSON. Images are billed by OpenAI per tile, which
  no tokenizer can know, so their count here is only the size of their reference;
* any other value (``tool_calls``, ``function_call``, numbers, booleans, dicts, lists) is counted as
  canonical JSON: ``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``,
  so the same message always gives the same count.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, Literal, TypeVar, get_args

from hermes import _native
from hermes.errors import InvalidInputError

__all__ = [
    "DEFAULT_ENCODING",
    "ENCODINGS",
    "Encoding",
    "content_text",
    "count",
    "count_batch",
    "count_messages",
    "decode",
    "decode_bytes",
    "encode",
    "message_fields",
]

Encoding = Literal["o200k_base", "cl100k_base"]
"""The encodings Hermes ships: ``o200k_base`` (GPT-4o and later), ``cl100k_base`` (GPT-4, 3.5)."""

DEFAULT_ENCODING: Final[Encoding] = "o200k_base"
ENCODINGS: Final[tuple[Encoding, ...]] = get_args(Encoding)

_TEXT_PART_TYPES: Final = frozenset({"text", "input_text", "output_text"})

_T = TypeVar("_T")


def _repair(text: str) -> str:
    """What tiktoken does with text UTF-8 cannot encode: pair surrogates up, replace lone ones."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _check_text(text: object, what: str = "text") -> str:
    if not isinstance(text, str):
        raise InvalidInputError(
            f"{what} must be a str, not {type(text).__name__}",
            hint="decode bytes first, e.g. data.decode('utf-8')",
        )
    return text


def _with_repair(call: Callable[[], _T], retry: Callable[[], _T]) -> _T:
    # The native layer rejects lone surrogates with UnicodeEncodeError; repairing only then keeps
    # the common path free of an extra pass over the text.
    try:
        return call()
    except UnicodeEncodeError:
        return retry()


def count(text: str, encoding: Encoding = DEFAULT_ENCODING) -> int:
    """Number of tokens in ``text``."""
    _check_text(text)
    return _with_repair(
        lambda: _native.count_tokens(text, encoding),
        lambda: _native.count_tokens(_repair(text), encoding),
    )


def count_batch(texts: Iterable[str], encoding: Encoding = DEFAULT_ENCODING) -> list[int]:
    """Token counts of many texts, in order; large batches are counted on several cores."""
    items = list(texts)
    for i, text in enumerate(items):
        _check_text(text, f"texts[{i}]")
    return _with_repair(
        lambda: _native.count_tokens_batch(items, encoding),
        lambda: _native.count_tokens_batch([_repair(t) for t in items], encoding),
    )


def encode(text: str, encoding: Encoding = DEFAULT_ENCODING) -> list[int]:
    """The token ids of ``text`` (tiktoken's ``encode_ordinary``)."""
    _check_text(text)
    return _with_repair(
        lambda: _native.encode(text, encoding),
        lambda: _native.encode(_repair(text), encoding),
    )


def decode_bytes(tokens: Sequence[int], encoding: Encoding = DEFAULT_ENCODING) -> bytes:
    """The exact bytes ``tokens`` stand for; a slice of tokens may cut a character in half."""
    ids = list(tokens)
    for i, token in enumerate(ids):
        if isinstance(token, bool) or not isinstance(token, int):
            raise InvalidInputError(f"tokens[{i}] must be an int, not {type(token).__name__}")
        if not -(2**63) <= token < 2**63:
            raise InvalidInputError(f"token {token} at index {i} is not in {encoding}")
    return _native.decode_bytes(ids, encoding)


def decode(tokens: Sequence[int], encoding: Encoding = DEFAULT_ENCODING) -> str:
    """The text ``tokens`` stand for; invalid UTF-8 becomes U+FFFD, as in tiktoken's ``decode``."""
    return decode_bytes(tokens, encoding).decode("utf-8", errors="replace")


def _canonical_json(value: object, where: str) -> str:
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(
            f"{where} cannot be counted: {exc}",
            hint="message values must be str, None or JSON-serialisable data",
        ) from exc


def content_text(parts: list[Any], where: str = "content") -> str:
    """The text of a list of content parts, as ``count_messages`` counts it (see module docs)."""
    texts = []
    for i, part in enumerate(parts):
        if isinstance(part, str):
            texts.append(part)
        elif (
            isinstance(part, Mapping)
            and part.get("type") in _TEXT_PART_TYPES
            and isinstance(part.get("text"), str)
        ):
            texts.append(part["text"])
        else:
            texts.append(_canonical_json(part, f"{where}[{i}]"))
    return "\n".join(texts)


def message_fields(message: Mapping[str, Any], index: int = 0) -> dict[str, str]:
    """The text of each field of one OpenAI-format message, as ``count_messages`` counts it."""
    if not isinstance(message, Mapping):
        raise InvalidInputError(
            f"messages[{index}] must be a dict, not {type(message).__name__}",
            hint='pass OpenAI-format messages such as {"role": "user", "content": "hi"}',
        )
    fields: dict[str, str] = {}
    for key, value in message.items():
        if not isinstance(key, str):
            raise InvalidInputError(f"messages[{index}] has a non-str key {key!r}")
        where = f"messages[{index}][{key!r}]"
        if value is None:
            continue
        if isinstance(value, str):
            fields[key] = value
        elif key == "content" and isinstance(value, list):
            fields[key] = content_text(value, where)
        else:
            fields[key] = _canonical_json(value, where)
    return fields


def count_messages(
    messages: Iterable[Mapping[str, Any]], encoding: Encoding = DEFAULT_ENCODING
) -> int:
    """Tokens a chat transcript costs as a prompt, including the framing and the reply priming.

    See the module docs for how each field is turned into text.
    """
    converted = [message_fields(m, i) for i, m in enumerate(messages)]
    return _with_repair(
        lambda: _native.count_chat_tokens(converted, encoding),
        lambda: _native.count_chat_tokens(
            [{k: _repair(v) for k, v in m.items()} for m in converted], encoding
        ),
    )
