"""Slow pure-Python reference of ``hermes._native``'s token counting (tests and benchmarks only).

It does what tiktoken's design describes, in the most direct way: split with the encoding's regex
(the ``regex`` module, which supports the possessive quantifiers and Unicode classes of tiktoken's
patterns), look each piece up, and byte-pair-merge the rest by repeatedly merging the lowest-ranked
adjacent pair (leftmost on ties). The vocabularies are read from the ``.tiktoken.gz`` files in
``hermes_native/data`` of the source tree, the same files the extension embeds.
"""

from __future__ import annotations

import base64
import functools
import gzip
from collections.abc import Mapping, Sequence
from pathlib import Path

import regex

from hermes.errors import UnknownEncodingError

DATA_DIR = Path(__file__).resolve().parents[2] / "hermes_native" / "data"

PATTERNS: dict[str, str] = {
    "cl100k_base": (
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+"""
        r"""| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
    ),
    "o200k_base": "|".join(
        [
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]
    ),
}


def load_ranks(encoding: str) -> dict[bytes, int]:
    """The mergeable ranks of ``encoding`` from the bundled ``.tiktoken.gz`` file."""
    if encoding not in PATTERNS:
        raise UnknownEncodingError(
            f"unknown encoding {encoding!r}; valid encodings: {', '.join(sorted(PATTERNS))}"
        )
    ranks = {}
    with gzip.open(DATA_DIR / f"{encoding}.tiktoken.gz") as f:
        for line in f:
            if line.strip():
                token, rank = line.split()
                ranks[base64.b64decode(token)] = int(rank)
    return ranks


class ReferenceEncoding:
    """One encoding, implemented the obvious way."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.ranks = load_ranks(name)
        self.pattern = regex.compile(PATTERNS[name])
        self.decoder = {rank: token for token, rank in self.ranks.items()}

    def pieces(self, text: str) -> list[str]:
        """The pre-tokenizer's pieces of ``text``."""
        return [m.group() for m in self.pattern.finditer(text)]

    def merge(self, piece: bytes) -> list[int]:
        """Byte-pair merge one piece: lowest-ranked adjacent pair first, leftmost on ties."""
        if piece in self.ranks:
            return [self.ranks[piece]]
        parts = [piece[i : i + 1] for i in range(len(piece))]
        while len(parts) > 1:
            best: tuple[int, int] | None = None
            for i in range(len(parts) - 1):
                rank = self.ranks.get(parts[i] + parts[i + 1])
                if rank is not None and (best is None or rank < best[0]):
                    best = (rank, i)
            if best is None:
                break
            i = best[1]
            parts[i : i + 2] = [parts[i] + parts[i + 1]]
        return [self.ranks[p] for p in parts]

    def encode(self, text: str) -> list[int]:
        return [t for piece in self.pieces(text) for t in self.merge(piece.encode("utf-8"))]

    def count(self, text: str) -> int:
        return len(self.encode(text))

    def decode_bytes(self, tokens: Sequence[int]) -> bytes:
        return b"".join(self.decoder[t] for t in tokens)

    def count_chat(self, messages: Sequence[Mapping[str, str]]) -> int:
        """The OpenAI cookbook's per-message accounting (3 + values, +1 for a name, +3 priming)."""
        total = 3
        for message in messages:
            total += 3
            for key, value in message.items():
                total += self.count(value) + (1 if key == "name" else 0)
        return total


@functools.cache
def get_encoding(name: str) -> ReferenceEncoding:
    return ReferenceEncoding(name)


def count_tokens(text: str, encoding: str) -> int:
    return get_encoding(encoding).count(text)
