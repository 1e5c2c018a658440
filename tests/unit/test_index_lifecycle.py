"""Index lifecycle: persistence, idempotent adds, deletes, locking, corruption, close, threads."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from hermes._native import SearchIndex
from hermes.errors import IndexCorruptError, InvalidInputError, SearchIndexError


def doc(
    rowid: int, content: str, session: str = "s1", ts: float = 0.0
) -> tuple[int, str, str, str, float, str]:
    return (rowid, session, "user", "cli", ts, content)


def test_new_index_creates_the_folder_and_starts_at_rowid_zero(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "index"
    ix = SearchIndex(str(path))
    assert path.is_dir()
    assert ix.last_rowid() == 0
    assert ix.num_docs() == 0
    assert ix.search("anything") == []


def test_commit_payload_and_docs_survive_reopening(tmp_path: Path) -> None:
    ix = SearchIndex(str(tmp_path / "ix"))
    ix.add([doc(41, "hello world"), doc(42, "hello again")])
    assert ix.num_docs() == 0  # not visible before the commit
    ix.commit(42)
    assert ix.num_docs() == 2
    ix.close()
    again = SearchIndex(str(tmp_path / "ix"))
    assert again.last_rowid() == 42
    assert {h[0] for h in again.search("hello")} == {41, 42}


def test_re_adding_a_rowid_replaces_it(tmp_path: Path) -> None:
    ix = SearchIndex(str(tmp_path / "ix"))
    ix.add([doc(1, "first version"), doc(1, "second version")])
    ix.commit(1)
    assert ix.num_docs() == 1
    ix.add([doc(1, "third version")])
    ix.commit(1)
    ix.close()
    ix = SearchIndex(str(tmp_path / "ix"))
    ix.add([doc(1, "fourth version")])  # after reopening too
    ix.commit(1)
    assert ix.num_docs() == 1
    assert [h[6] for h in ix.search("version")] == ["fourth version"]


def test_delete_session_applies_at_the_next_commit(tmp_path: Path) -> None:
    ix = SearchIndex(str(tmp_path / "ix"))
    ix.add([doc(1, "keep me", "a"), doc(2, "drop me", "b"), doc(3, "drop me too", "b")])
    ix.commit(3)
    ix.delete_session("b")
    assert ix.num_docs() == 3
    ix.commit(3)
    assert ix.num_docs() == 1
    assert {h[0] for h in ix.search("me")} == {1}


def test_use_after_close_is_a_clear_error(tmp_path: Path) -> None:
    ix = SearchIndex(str(tmp_path / "ix"))
    ix.close()
    ix.close()  # idempotent
    with pytest.raises(SearchIndexError, match="closed"):
        ix.search("x")
    with pytest.raises(SearchIndexError, match="closed"):
        ix.add([doc(1, "x")])


def test_uncommitted_changes_are_dropped_by_close(tmp_path: Path) -> None:
    ix = SearchIndex(str(tmp_path / "ix"))
    ix.add([doc(1, "kept")])
    ix.commit(1)
    ix.add([doc(2, "lost")])
    ix.close()
    assert SearchIndex(str(tmp_path / "ix")).num_docs() == 1


def test_invalid_documents_add_nothing(tmp_path: Path) -> None:
    ix = SearchIndex(str(tmp_path / "ix"))
    with pytest.raises(InvalidInputError, match="timestamp"):
        ix.add([doc(1, "fine"), doc(2, "bad", ts=float("nan"))])
    with pytest.raises(InvalidInputError, match="surrogate"):
        ix.add([doc(3, "bad \ud800")])
    with pytest.raises(InvalidInputError, match="content must be str"):
        ix.add([(4, "s", "user", "cli", 0.0, None)])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError, match="rowid"):
        ix.add([doc(-1, "negative")])
    with pytest.raises(InvalidInputError, match="tuple"):
        ix.add([("too", "short")])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError, match="last_rowid"):
        ix.commit(-5)
    ix.commit(0)
    assert ix.num_docs() == 0


def test_a_10_mb_message_is_indexed(tmp_path: Path) -> None:
    ix = SearchIndex(str(tmp_path / "ix"))
    big = "needle at the start " + "lorem ipsum dolor " * 600_000 + " tailword"
    assert len(big) > 10_000_000
    ix.add([doc(1, big)])
    ix.commit(1)
    (hit,) = ix.search("needle", snippet_chars=50)
    assert len(hit[6]) <= 50
    assert [hit[6][a:b] for a, b in hit[7]] == ["needle"]
    # Only the first MiB is indexed: state.db keeps the full message.
    assert ix.search("tailword") == []


def _corrupt_index(tmp_path: Path) -> Path:
    path = tmp_path / "ix"
    ix = SearchIndex(str(path))
    ix.add([doc(1, "some text")])
    ix.commit(1)
    ix.close()
    return path


@pytest.mark.parametrize("content", [b"", b"{not json", b'{"segments": 12}'])
def test_garbage_meta_json_is_reported_as_corrupt(tmp_path: Path, content: bytes) -> None:
    path = _corrupt_index(tmp_path)
    (path / "meta.json").write_bytes(content)
    with pytest.raises(IndexCorruptError, match="rebuild"):
        SearchIndex(str(path))
    assert (path / "meta.json").read_bytes() == content  # nothing deleted or rewritten


def test_missing_segment_files_are_reported_as_corrupt(tmp_path: Path) -> None:
    path = _corrupt_index(tmp_path)
    for f in path.glob("*.idx"):
        f.unlink()
    with pytest.raises(IndexCorruptError):
        SearchIndex(str(path))


def test_files_without_meta_json_are_reported_as_corrupt(tmp_path: Path) -> None:
    path = _corrupt_index(tmp_path)
    (path / "meta.json").unlink()
    with pytest.raises(IndexCorruptError, match=r"meta\.json"):
        SearchIndex(str(path))


_HOLDER = textwrap.dedent(
    """
    import sys
    from hermes._native import SearchIndex
    ix = SearchIndex(sys.argv[1])
    ix.add([(1, "s", "user", "cli", 0.0, "written by the other process")])
    ix.commit(1)
    print("ready", flush=True)
    sys.stdin.readline()
    ix.close()
    """
)


def test_writer_lock_held_by_another_process(tmp_path: Path) -> None:
    path = str(tmp_path / "ix")
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, path],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        reader = SearchIndex(path)  # opening and searching need no lock
        assert [h[0] for h in reader.search("other process")] == [1]
        with pytest.raises(SearchIndexError, match="locked by another Hermes process"):
            reader.add([doc(2, "mine")])
        reader.close()
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(timeout=60)
    # Once the other process has closed, writing works.
    ix = SearchIndex(path)
    ix.add([doc(2, "mine")])
    ix.commit(2)
    assert ix.num_docs() == 2


def test_one_handle_is_safe_to_share_between_threads(tmp_path: Path) -> None:
    ix = SearchIndex(str(tmp_path / "ix"))
    ix.add([doc(i, f"message number {i} about threads") for i in range(200)])
    ix.commit(199)
    errors: list[BaseException] = []

    def searcher() -> None:
        try:
            for _ in range(50):
                assert ix.search("threads", 5)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    def writer() -> None:
        try:
            for batch in range(5):
                base = 1000 + batch * 10
                ix.add([doc(base + i, f"late message {i} about threads") for i in range(10)])
                ix.commit(base + 9)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=searcher) for _ in range(4)] + [
        threading.Thread(target=writer)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert ix.num_docs() == 250


def test_re_adding_a_rowid_another_handle_committed_replaces_it(tmp_path: Path) -> None:
    path = str(tmp_path / "ix")
    late = SearchIndex(path)  # opened before the other handle writes
    early = SearchIndex(path)
    early.add([doc(5, "written by the first handle")])
    early.commit(5)
    early.close()
    late.add([doc(5, "rewritten by the second handle")])
    late.commit(5)
    assert late.num_docs() == 1
    assert [h[6] for h in late.search("handle")] == ["rewritten by the second handle"]
