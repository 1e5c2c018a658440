"""SessionSearch on the real tantivy index: freshness, replay, repair, filters, read-only use."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hermes._native import SearchIndex
from hermes.errors import InvalidInputError, SearchIndexError
from hermes.state import StateStore
from hermes.state.search import SessionSearch


@pytest.fixture
def store(tmp_path: Path) -> Iterator[StateStore]:
    s = StateStore.open(tmp_path / "state.db")
    yield s
    s.close()


@pytest.fixture
def search(store: StateStore) -> Iterator[SessionSearch]:
    se = SessionSearch.open(store, background=False)
    yield se
    se.close()


def wait_for(condition: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail("condition not reached")
        time.sleep(0.05)


def seed(store: StateStore) -> dict[str, str]:
    a = store.create_session(source="cli", title="Deploying the cluster")
    b = store.create_session(source="telegram", title="Dinner plans")
    store.append_messages(
        a.id,
        [
            {"role": "user", "content": "How do I deploy the kubernetes cluster?"},
            {"role": "assistant", "content": "Run helm install; kubernetes needs a kubeconfig."},
        ],
    )
    store.append_messages(
        b.id,
        [
            {"role": "user", "content": "Book a table for kubernetes fans at 8pm"},
            {"role": "assistant", "content": "Booked the ramen place. 拉面很好吃"},
        ],
    )
    return {"a": a.id, "b": b.id}


def test_hits_carry_session_info_and_highlights(store: StateStore, search: SessionSearch) -> None:
    ids = seed(store)
    hits = search.search("kubeconfig")
    assert len(hits) == 1
    hit = hits[0]
    assert (hit.session_id, hit.session_title, hit.source, hit.role) == (
        ids["a"],
        "Deploying the cluster",
        "cli",
        "assistant",
    )
    assert [hit.snippet[s:e].lower() for s, e in hit.highlights] == ["kubeconfig"]
    store.set_title(ids["a"], "Renamed")
    assert search.search("kubeconfig")[0].session_title == "Renamed"


def test_filters(store: StateStore, search: SessionSearch) -> None:
    ids = seed(store)
    assert len(search.search("kubernetes")) == 3
    assert {h.role for h in search.search("kubernetes", role="user")} == {"user"}
    assert {h.session_id for h in search.search("kubernetes", source="telegram")} == {ids["b"]}
    assert {h.session_id for h in search.search("kubernetes", session_id=ids["a"])} == {ids["a"]}
    now = time.time()
    assert search.search("kubernetes", since=now + 60) == []
    assert len(search.search("kubernetes", until=now + 60)) == 3
    assert len(search.search("kubernetes", limit=2)) == 2
    assert search.search("拉面")[0].session_id == ids["b"]
    with pytest.raises(InvalidInputError, match="unknown role"):
        search.search("x", role="robot")


def test_tool_calls_are_searchable(store: StateStore, search: SessionSearch) -> None:
    s = store.create_session()
    call = {"id": "c1", "type": "function"}
    call["function"] = {"name": "terminal", "arguments": '{"cmd": "grep -r frobnicate ."}'}
    store.append_message(s.id, {"role": "assistant", "content": None, "tool_calls": [call]})
    assert [h.role for h in search.search("frobnicate")] == ["assistant"]


def test_new_messages_are_found_at_once(store: StateStore, search: SessionSearch) -> None:
    s = store.create_session()
    for i in range(5):
        store.append_message(s.id, {"role": "user", "content": f"token{i}x"})
        assert len(search.search(f"token{i}x")) == 1


def test_background_indexer_batches_new_messages(store: StateStore) -> None:
    with SessionSearch.open(store, flush_interval=0.05) as se:
        s = store.create_session()
        ids = store.append_messages(s.id, [{"role": "user", "content": "zebra"}] * 10)
        wait_for(lambda: se.last_indexed == ids[-1])
        index = SearchIndex(str(se.index_dir))  # a second reader sees the committed batch
        wait_for(lambda: index.last_rowid() == ids[-1])
        index.close()


def test_close_indexes_what_is_pending(store: StateStore) -> None:
    se = SessionSearch.open(store, flush_interval=3600)
    s = store.create_session()
    last = store.append_messages(s.id, [{"role": "user", "content": "pending words"}])[-1]
    se.close()
    index = SearchIndex(str(se.index_dir))
    assert index.last_rowid() == last
    assert len(index.search("pending")) == 1
    index.close()


def test_reopen_replays_rows_written_without_the_index(tmp_path: Path) -> None:
    with StateStore.open(tmp_path / "state.db") as store:
        SessionSearch.open(store, background=False).close()
        seed(store)  # written while no index was open
        seen: list[tuple[int, int]] = []
        with SessionSearch.open(
            store, background=False, progress=lambda d, t: seen.append((d, t))
        ) as se:
            assert seen[-1] == (4, 4)
            assert len(se.search("kubernetes")) == 3


def test_missing_index_is_rebuilt_with_progress(tmp_path: Path) -> None:
    with StateStore.open(tmp_path / "state.db") as store:
        seed(store)
        with SessionSearch.open(store, background=False) as se:
            assert len(se.search("kubernetes")) == 3
        shutil.rmtree(tmp_path / "index")
        seen: list[tuple[int, int]] = []
        with SessionSearch.open(
            store, background=False, progress=lambda d, t: seen.append((d, t))
        ) as se:
            assert seen[0] == (0, 4) and seen[-1] == (4, 4)
            assert len(se.search("kubernetes")) == 3


def test_corrupt_index_is_rebuilt(tmp_path: Path) -> None:
    with StateStore.open(tmp_path / "state.db") as store:
        seed(store)
        SessionSearch.open(store, background=False).close()
        (tmp_path / "index" / "meta.json").write_text("{ not json")
        with SessionSearch.open(store, background=False) as se:
            assert len(se.search("kubernetes")) == 3
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("index")) == ["index"]


@pytest.mark.parametrize("suffix", [".term", ".idx", ".store", ".fast"])
def test_damaged_segment_files_are_rebuilt(tmp_path: Path, suffix: str) -> None:
    with StateStore.open(tmp_path / "state.db") as store:
        seed(store)
        SessionSearch.open(store, background=False).close()
        damaged = list((tmp_path / "index").glob(f"*{suffix}"))
        assert damaged
        for f in damaged:
            f.write_bytes(b"\xff" * 64)
        with SessionSearch.open(store, background=False) as se:
            assert len(se.search("kubernetes")) == 3
            assert len(se.search("拉面")) == 1


def test_deleted_sessions_leave_the_index(store: StateStore, search: SessionSearch) -> None:
    ids = seed(store)
    assert len(search.search("kubernetes")) == 3
    store.delete_session(ids["b"])
    assert {h.session_id for h in search.search("kubernetes")} == {ids["a"]}
    search.sync()
    index = SearchIndex(str(search.index_dir))
    assert len(index.search("kubernetes")) == 2  # gone from the index itself, not just filtered
    index.close()


def test_stale_hits_are_dropped(tmp_path: Path) -> None:
    with StateStore.open(tmp_path / "state.db") as store, SessionSearch.open(store) as se:
        ids = seed(store)
        assert len(se.search("kubernetes")) == 3
        # Another process deletes a session; this process's index never hears of it.
        with StateStore.open(tmp_path / "state.db") as other:
            other.delete_session(ids["a"])
        hits = se.search("kubernetes", limit=1)
        assert [h.session_id for h in hits] == [ids["b"]]


def test_rebuild_swaps_in_a_fresh_index(tmp_path: Path) -> None:
    with StateStore.open(tmp_path / "state.db") as store:
        seed(store)
        with SessionSearch.open(store, background=False) as se:
            seen: list[tuple[int, int]] = []
            assert se.rebuild(progress=lambda d, t: seen.append((d, t))) == 4
            assert seen[-1] == (4, 4)
            assert len(se.search("kubernetes")) == 3
            s = store.create_session()
            store.append_message(s.id, {"role": "user", "content": "after the rebuild"})
            assert len(se.search("rebuild")) == 1
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("index")) == ["index"]


HOLD_WRITER = """
import sys, time
from hermes._native import SearchIndex
index = SearchIndex(sys.argv[1])
index.add([])
print("ready", flush=True)
sys.stdin.read()
index.close()
"""


def test_read_only_when_another_process_writes(tmp_path: Path) -> None:
    with StateStore.open(tmp_path / "state.db") as store:
        ids = seed(store)
        SessionSearch.open(store, background=False).close()
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLD_WRITER, str(tmp_path / "index")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert holder.stdout is not None and holder.stdout.readline() == "ready\n"
            with SessionSearch.open(store, background=False) as se:
                assert se.read_only
                assert len(se.search("kubernetes")) == 3
                # written now, not indexed by anyone: found through the tail
                store.append_message(ids["a"], {"role": "user", "content": "kubernetes tailword"})
                hits = se.search("tailword", role="user")
                assert [h.session_title for h in hits] == ["Deploying the cluster"]
                assert len(se.search("kubernetes")) == 4
                assert se.search("tailword", role="assistant") == []
                with pytest.raises(SearchIndexError, match="another Hermes process"):
                    se.rebuild()
        finally:
            assert holder.stdin is not None
            holder.stdin.close()
            holder.wait(timeout=30)
        with SessionSearch.open(store, background=False) as se:
            assert not se.read_only
            assert len(se.search("tailword")) == 1


def test_queries_that_are_odd_still_answer(store: StateStore, search: SessionSearch) -> None:
    seed(store)
    assert search.search("") == []
    assert len(search.search('"kubernetes')) == 3  # malformed: run as a literal search
    assert search.search("kubernetes", limit=0) == []
    assert {h.role for h in search.search("kubernetes AND NOT helm")} == {"user"}


class FailingCommits:
    """Wraps the native index; its next ``fail`` commits raise like a full disk would."""

    def __init__(self, inner: SearchIndex, fail: int) -> None:
        self.inner, self.fail = inner, fail

    def commit(self, last_rowid: int) -> None:
        if self.fail:
            self.fail -= 1
            raise SearchIndexError("search index failure: No space left on device")
        self.inner.commit(last_rowid)

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)


def test_failed_index_commit_is_redone(store: StateStore, search: SessionSearch) -> None:
    ids = seed(store)
    search.sync()
    search._index = FailingCommits(search._index, fail=1)  # type: ignore[assignment]
    s = store.create_session()
    store.append_message(s.id, {"role": "user", "content": "written while the disk was full"})
    store.delete_session(ids["b"])
    with pytest.raises(SearchIndexError, match="No space left"):
        search.sync()
    assert search.sync() == 1  # redone from the last commit, deletes included
    assert len(search.search("disk")) == 1
    index = SearchIndex(str(search.index_dir))
    assert len(index.search("kubernetes")) == 2 and len(index.search("disk")) == 1
    index.close()
