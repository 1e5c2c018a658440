"""Searching the index: query language, CJK, prefixes, filters, snippets, malformed input."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes._native import SearchIndex
from hermes.errors import InvalidInputError, QueryError

MESSAGES = [
    (1, "s1", "user", "cli", 1000.0, "How do I configure the Config file for the build?"),
    (2, "s1", "assistant", "cli", 1001.0, "Edit config.yaml and set retries to 3; see file.py."),
    (3, "s2", "user", "telegram", 1002.0, "这个函数返回一个列表"),
    (4, "s2", "assistant", "telegram", 1003.0, "Python的函数 can return a list"),
    (5, "s3", "user", "discord", 1004.0, "この関数はリストを返します"),
    (6, "s3", "assistant", "discord", 1005.0, "이 함수는 목록을 반환합니다"),
    (7, "s4", "tool", "cli", 1006.0, "Traceback: snake_case_name is not defined in utils.py"),
    (8, "s4", "user", "cli", 1007.0, "The quick brown fox jumps over the lazy dog"),
    (9, "s4", "assistant", "cli", 1008.0, "A lazy afternoon; the fox was quick and brown"),
]


@pytest.fixture
def index(tmp_path: Path) -> Iterator[SearchIndex]:
    ix = SearchIndex(str(tmp_path / "index"))
    ix.add(MESSAGES)
    ix.commit(9)
    yield ix
    ix.close()


def rowids(ix: SearchIndex, query: str, **kw: object) -> set[int]:
    return {hit[0] for hit in ix.search(query, 100, **kw)}  # type: ignore[arg-type]


def highlighted(hit: tuple[object, ...]) -> list[str]:
    snippet = hit[6]
    assert isinstance(snippet, str)
    spans = hit[7]
    assert isinstance(spans, list)
    return [snippet[a:b] for a, b in spans]


def test_words_are_anded_by_default(index: SearchIndex) -> None:
    assert rowids(index, "quick fox") == {8, 9}
    assert rowids(index, "quick dog") == {8}


def test_or_and_not_and_parentheses(index: SearchIndex) -> None:
    assert rowids(index, "dog OR afternoon") == {8, 9}
    assert rowids(index, "fox -dog") == {9}
    assert rowids(index, "fox NOT dog") == {9}
    assert rowids(index, "(dog OR afternoon) AND brown") == {8, 9}
    assert rowids(index, "lazy (dog OR list)") == {8}


def test_phrases_need_adjacent_words(index: SearchIndex) -> None:
    assert rowids(index, '"quick brown"') == {8}
    assert rowids(index, '"brown quick"') == set()


def test_prefix_queries_rank_and_highlight_the_expanded_words(index: SearchIndex) -> None:
    hits = index.search("conf*")
    assert [h[0] for h in hits] == [1, 2]  # two matching words beat one
    assert highlighted(hits[0]) == ["configure", "Config"]
    assert highlighted(hits[1]) == ["config"]


def test_punctuated_words_search_as_phrases(index: SearchIndex) -> None:
    assert rowids(index, "file.py") == {2}
    assert rowids(index, "snake_case_name") == {7}
    assert rowids(index, "utils.py") == {7}
    assert rowids(index, "config.yaml") == {2}


@pytest.mark.parametrize(
    ("query", "expected", "highlight"),
    [
        ("函数", {3, 4}, "函数"),
        ("返回", {3}, "返回"),
        ("関数", {5}, "関数"),
        ("함수", {6}, "함수"),
        ("列", {3}, "列"),
        ("Python的函数", {4}, "Python的函数"),
    ],
)
def test_cjk_words_are_found_inside_runs(
    index: SearchIndex, query: str, expected: set[int], highlight: str
) -> None:
    hits = index.search(query)
    assert {h[0] for h in hits} == expected
    assert all(highlight in highlighted(h) for h in hits)


def test_filters_by_role_source_session_and_time(index: SearchIndex) -> None:
    assert rowids(index, "fox", role="user") == {8}
    assert rowids(index, "函数", source="telegram") == {3, 4}
    assert rowids(index, "函数", session_id="s2", role="assistant") == {4}
    assert rowids(index, "fox", since=1007.0) == {8, 9}  # inclusive
    assert rowids(index, "fox", until=1007.0) == {8}  # inclusive
    assert rowids(index, "fox", since=1007.5, until=1008.0) == {9}
    assert rowids(index, "fox", role="nobody") == set()


def test_hits_carry_the_stored_fields(index: SearchIndex) -> None:
    (hit,) = index.search("dog")
    rowid, session, role, source, ts, score, snippet, spans = hit
    assert (rowid, session, role, source, ts) == (8, "s4", "user", "cli", 1007.0)
    assert score > 0
    assert snippet == MESSAGES[7][5]
    assert [snippet[a:b] for a, b in spans] == ["dog"]


def test_limit_and_snippet_length(index: SearchIndex) -> None:
    assert len(index.search("fox", 1)) == 1
    assert index.search("fox", 0) == []
    for hit in index.search("fox", snippet_chars=12):
        assert len(hit[6]) <= 12
    assert all(h[6] == "" and h[7] == [] for h in index.search("fox", snippet_chars=0))


@pytest.mark.parametrize(
    "query",
    [
        '"unbalanced',
        "(open",
        "close)",
        "AND",
        "OR OR",
        "-",
        "*",
        "NOT",
        "fox AND",
        "() fox",
        "a ***",
    ],
)
def test_malformed_queries_fall_back_to_a_literal_search(index: SearchIndex, query: str) -> None:
    index.search(query)  # never raises


def test_malformed_queries_search_their_words_literally(index: SearchIndex) -> None:
    assert rowids(index, '"quick brown') == {8, 9}
    assert rowids(index, "(lazy dog") == {8}
    assert rowids(index, "fox AND") == {9}  # the dangling operator is searched as the word "and"


@pytest.mark.parametrize("query", ["", "   ", "+++", "-fox", "NOT fox"])
def test_queries_without_positive_words_find_nothing(index: SearchIndex, query: str) -> None:
    assert index.search(query) == []


def test_huge_queries_raise_query_error_with_a_hint(index: SearchIndex) -> None:
    with pytest.raises(QueryError, match="too many terms"):
        index.search("word " * 1001)
    with pytest.raises(QueryError, match="too long"):
        index.search("x" * 20_000)
    with pytest.raises(QueryError, match="distinctive words"):
        index.search("函数" * 2000)


def test_bad_arguments_raise_invalid_input(index: SearchIndex) -> None:
    with pytest.raises(InvalidInputError, match="limit"):
        index.search("fox", -1)
    with pytest.raises(InvalidInputError, match="since"):
        index.search("fox", since=float("nan"))
    with pytest.raises(InvalidInputError, match="surrogate"):
        index.search("fox \udcff")
    with pytest.raises(InvalidInputError, match="must be str"):
        index.search("fox", role=3)  # type: ignore[arg-type]


def test_prefix_queries(tmp_path: Path) -> None:
    ix = SearchIndex(str(tmp_path / "ix"))
    rare = [(i, "s", "user", "cli", 0.0, f"preface{i:04d}") for i in range(500)]
    common = [(1000 + i, "s", "user", "cli", 0.0, "prefacecommon word") for i in range(20)]
    ix.add(rare + common)
    ix.commit(1019)
    # Up to four characters, a prefix is indexed itself: every completion is found.
    assert len(ix.search("pref*", 10_000, snippet_chars=0)) == 520
    # Longer prefixes expand to a bounded set of completions, the most frequent first.
    hits = ix.search("prefac*", 10_000, snippet_chars=0)
    assert {h[0] for h in hits} >= {1000 + i for i in range(20)}
    assert len(hits) < 100
    ix.close()


def test_snippets_of_long_messages_are_windows_cut_at_word_boundaries(tmp_path: Path) -> None:
    ix = SearchIndex(str(tmp_path / "ix"))
    words = " ".join(f"filler{i}" for i in range(400))
    text = f"{words} the deployment finally succeeded after retrying {words}"
    ix.add([(1, "s", "assistant", "cli", 0.0, text)])
    ix.commit(1)
    ((*_, snippet, spans),) = ix.search("deployment succeeded", snippet_chars=80)
    assert len(snippet) <= 80
    assert snippet in text
    assert [snippet[a:b] for a, b in spans] == ["deployment", "succeeded"]
    start = text.index(snippet)
    end = start + len(snippet)
    assert text[start - 1] == " " and text[end] == " "  # whole words at both edges
    ix.close()


def test_cjk_snippets_centre_on_the_match(tmp_path: Path) -> None:
    ix = SearchIndex(str(tmp_path / "ix"))
    text = "这是一个很长的句子" * 30 + "我们的函数返回一个列表" + "后面还有很多内容" * 30
    ix.add([(1, "s", "user", "telegram", 0.0, text)])
    ix.commit(1)
    ((*_, snippet, spans),) = ix.search("函数返回", snippet_chars=20)
    assert len(snippet) == 20
    assert [snippet[a:b] for a, b in spans] == ["函数返回"]
    ix.close()


def test_filters_combine_with_prefixes_and_phrases(index: SearchIndex) -> None:
    assert rowids(index, "conf*", role="assistant") == {2}
    assert rowids(index, '"lazy dog"', source="cli", until=1007.0) == {8}
    assert rowids(index, "conf* OR fox", session_id="s4") == {8, 9}
