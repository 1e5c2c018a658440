"""Property tests: the native index agrees with the pure-Python reference semantics."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes._native import SearchIndex, analyze_text
from hermes.errors import QueryError
from hermes.reference import index as ref

WORDS = [
    "alpha", "alps", "beta", "bet", "gamma", "delta", "Café", "cafe", "snake_case", "file.py",
    "v1.2", "函数", "列表", "返回", "数", "関数", "함수", "config", "conf", "configure",
]  # fmt: skip
SEPARATORS = [" ", " ", " ", ", ", ". ", "\n", "", "的"]


@st.composite
def messages(draw: st.DrawFn) -> str:
    n = draw(st.integers(min_value=0, max_value=8))
    parts: list[str] = []
    for _ in range(n):
        parts.append(draw(st.sampled_from(WORDS)))
        parts.append(draw(st.sampled_from(SEPARATORS)))
    return "".join(parts)


def _word(draw: st.DrawFn) -> str:
    word = draw(st.sampled_from([*WORDS, "missing", "AND", "and", "OR", "NOT"]))
    if draw(st.booleans()) and len(word) > 1:
        word = word[: draw(st.integers(min_value=1, max_value=len(word)))] + "*"
    return word


@st.composite
def queries(draw: st.DrawFn, depth: int = 0) -> str:
    kind = draw(st.sampled_from(["word", "word", "phrase", "and", "or", "not", "group", "junk"]))
    if depth > 2:
        kind = "word"
    if kind == "word":
        return _word(draw)
    if kind == "phrase":
        n = draw(st.integers(min_value=1, max_value=3))
        star = "*" if draw(st.booleans()) else ""
        return '"' + " ".join(draw(st.sampled_from(WORDS)) for _ in range(n)) + '"' + star
    if kind == "and":
        op = draw(st.sampled_from([" ", " AND "]))
        return draw(queries(depth + 1)) + op + draw(queries(depth + 1))
    if kind == "or":
        return draw(queries(depth + 1)) + " OR " + draw(queries(depth + 1))
    if kind == "not":
        return draw(st.sampled_from(["-", "NOT "])) + draw(queries(depth + 1))
    if kind == "group":
        return "(" + draw(queries(depth + 1)) + ")"
    junk = draw(st.sampled_from(['"', "(", ")", "AND", "OR", "NOT", "-", "*", "--", "()"]))
    return draw(queries(depth + 1)) + " " + junk


FIXED_CORPUS = [
    "alpha beta gamma", "alpha, beta", "beta alpha", "Café config", "cafe configure file.py",
    "snake_case v1.2 alps", "这个函数返回一个列表", "Python的函数", "関数 함수 数",
    "bet gamma delta",
    "conf alpha.beta", "configure configure conf", "", "gamma\ndelta alpha", "列表的返回 alpha",
]  # fmt: skip


@pytest.fixture(scope="module")
def fixed_index() -> Iterator[SearchIndex]:
    with tempfile.TemporaryDirectory() as tmp:
        ix = SearchIndex(str(Path(tmp) / "ix"))
        ix.add([(i, "s", "user", "cli", 0.0, text) for i, text in enumerate(FIXED_CORPUS)])
        ix.commit(len(FIXED_CORPUS))
        yield ix
        ix.close()


def _expected(query: str, corpus: list[str]) -> set[int]:
    node = ref.parse(query)
    if node is None:
        return set()
    return {i for i, text in enumerate(corpus) if ref.evaluate(node, ref.Document.of(text))}


def _native(ix: SearchIndex, query: str) -> set[int]:
    return {h[0] for h in ix.search(query, 1000, snippet_chars=0)}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries())
def test_match_sets_equal_the_reference_on_a_fixed_corpus(
    fixed_index: SearchIndex, query: str
) -> None:
    assert _native(fixed_index, query) == _expected(query, FIXED_CORPUS)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(messages(), min_size=1, max_size=12), st.lists(queries(), min_size=1, max_size=8))
def test_match_sets_equal_the_reference_on_random_corpora(
    corpus: list[str], query_list: list[str]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ix = SearchIndex(str(Path(tmp) / "ix"))
        ix.add([(i, "s", "user", "cli", 0.0, text) for i, text in enumerate(corpus)])
        ix.commit(len(corpus))
        for query in query_list:
            assert _native(ix, query) == _expected(query, corpus), query
        ix.close()


@settings(max_examples=300, deadline=None)
@given(queries(), st.integers(min_value=1, max_value=60))
def test_snippets_are_substrings_with_valid_highlights_of_query_words(
    fixed_index: SearchIndex, query: str, snippet_chars: int
) -> None:
    terms, prefixes = ref.positive_terms(ref.parse(query))
    for hit in fixed_index.search(query, 100, snippet_chars=snippet_chars):
        snippet, spans = hit[6], hit[7]
        assert snippet in FIXED_CORPUS[hit[0]]
        assert len(snippet) <= snippet_chars
        previous_end = -1
        for start, end in spans:
            assert previous_end < start < end <= len(snippet)
            previous_end = end
            words = {t for t, *_ in analyze_text(snippet[start:end])}
            assert words & terms or any(w.startswith(p) for w in words for p in prefixes)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_queries_never_fail(fixed_index: SearchIndex, query: str) -> None:
    try:
        fixed_index.search(query)
    except QueryError:
        pytest.fail(f"a short query raised QueryError: {query!r}")
    except Exception as e:
        # Only invalid text (lone surrogates) may be refused.
        assert "surrogate" in str(e), repr(query)


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=1001, max_value=3000))
def test_only_huge_queries_raise_query_error(fixed_index: SearchIndex, n: int) -> None:
    with pytest.raises(QueryError):
        fixed_index.search("alpha " * n)
