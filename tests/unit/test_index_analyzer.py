"""The native analyzer equals the pure-Python reference, and indexes what users expect."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes._native import analyze_text
from hermes.errors import InvalidInputError
from hermes.reference import index as ref

# Scripts where Rust's and Python's Unicode tables agree (see hermes/reference/index.py).
_RANGES = [
    (0x20, 0x7E),  # ASCII
    (0xA0, 0xFF),  # Latin-1
    (0x100, 0x17F),  # Latin Extended-A
    (0x1E00, 0x1E20),  # Latin Extended Additional (a slice)
    (0x300, 0x310),  # combining diacritics
    (0x391, 0x3C9),  # Greek
    (0x410, 0x44F),  # Cyrillic
    (0x3000, 0x3003),  # ideographic space and punctuation
    (0x3041, 0x3096),  # Hiragana
    (0x30A1, 0x30FC),  # Katakana (with ・ and ー)
    (0x4E00, 0x4E40),  # Han
    (0xAC00, 0xAC30),  # Hangul
    (0xFF01, 0xFF5E),  # fullwidth ASCII
    (0xFF66, 0xFF70),  # halfwidth Katakana
    (0x1F600, 0x1F610),  # emoji
]
ALPHABET = st.one_of(
    *(st.characters(min_codepoint=lo, max_codepoint=hi) for lo, hi in _RANGES),
    st.sampled_from("\n\t _-./:'\"()*İẞ"),
)
TEXT = st.text(alphabet=ALPHABET, max_size=80)


def _ref(text: str, *, query: bool = False) -> list[tuple[str, int, int, int]]:
    mode: ref.Mode = "query" if query else "index"
    return [(t.text, t.position, t.start, t.end) for t in ref.analyze(text, mode)]


@settings(max_examples=500, deadline=None)
@given(TEXT)
def test_index_tokens_equal_the_reference(text: str) -> None:
    assert analyze_text(text) == _ref(text)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_query_tokens_equal_the_reference(text: str) -> None:
    assert analyze_text(text, query=True) == _ref(text, query=True)


@settings(max_examples=200, deadline=None)
@given(TEXT)
def test_token_spans_point_at_the_source_text(text: str) -> None:
    for term, _, start, end in analyze_text(text):
        assert 0 <= start < end <= len(text)
        # The span's own analysis yields the term (words are whole; CJK spans are the characters).
        assert term in {t for t, *_ in analyze_text(text[start:end])}


def test_latin_words_are_lowercased_and_folded() -> None:
    terms = [t for t, *_ in analyze_text("Crème BRÛLÉE, Straße & \uff26\uff35\uff2c\uff2c width")]
    assert terms == ["creme", "brulee", "strasse", "full", "width"]


def test_code_like_words_split_into_consecutive_terms() -> None:
    tokens = analyze_text("snake_case file.py v1.2 https://example.com/a")
    assert [(t, p) for t, p, *_ in tokens] == [
        ("snake", 0),
        ("case", 1),
        ("file", 2),
        ("py", 3),
        ("v1", 4),
        ("2", 5),
        ("https", 6),
        ("example", 7),
        ("com", 8),
        ("a", 9),
    ]


def test_cjk_runs_index_single_characters_and_bigrams() -> None:
    terms = [t for t, *_ in analyze_text("这个函数")]
    assert terms == ["这", "这个", "个", "个函", "函", "函数", "数"]
    assert [t for t, *_ in analyze_text("这个函数", query=True)] == ["这个", "个函", "函数"]


def test_very_long_words_are_cut_to_a_bounded_term() -> None:
    (term, *_), *_ = analyze_text("x" * 10_000)
    assert term == "x" * ref.MAX_TOKEN_CHARS


def test_lone_surrogates_are_refused_with_a_clear_error() -> None:
    with pytest.raises(InvalidInputError, match="surrogate"):
        analyze_text("bad \ud800 text")


def test_non_str_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="must be str"):
        analyze_text(b"bytes")  # type: ignore[arg-type]
