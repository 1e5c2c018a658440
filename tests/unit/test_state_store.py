"""StateStore behaviour a user (or the agent loop) relies on: sessions, messages, counters."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes.errors import InvalidInputError, NotFoundError, StateError
from hermes.home import Home
from hermes.state import Message, StateStore, Usage
from hermes.state.store import SESSION_ID_PATTERN, new_session_id


@pytest.fixture
def store(tmp_path: Path) -> Iterator[StateStore]:
    s = StateStore.open(tmp_path / "state.db")
    yield s
    s.close()


TURN = [
    {"role": "user", "content": "list the files"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "terminal", "arguments": '{"cmd": "ls"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "name": "terminal", "content": "a.txt\nb.txt"},
    {"role": "assistant", "content": "There are two files.", "finish_reason": "stop"},
]


def test_opens_default_profile_home(hermes_home: Path) -> None:
    with StateStore.open() as s:
        assert s.path == hermes_home / "state.db"
    with StateStore.open(home=Home.for_profile("work")) as s:
        assert s.path == hermes_home / "profiles" / "work" / "state.db"


def test_session_ids_are_sortable_and_unique() -> None:
    ids = [new_session_id(1_700_000_000.0 + i) for i in range(50)]
    assert ids == sorted(ids)
    assert len(set(new_session_id(1_700_000_000.0) for _ in range(200))) == 200
    assert all(SESSION_ID_PATTERN.match(i) for i in ids)
    assert ids[0].startswith("20231114_221320_")


def test_create_and_get_session(store: StateStore) -> None:
    s = store.create_session(source="telegram", title="  Trip   planning ", model="gpt-4o")
    got = store.get_session(s.id)
    assert got == s
    assert got.title == "Trip planning"
    assert got.source == "telegram"
    assert got.message_count == 0
    assert got.ended_at is None


def test_turn_round_trips_in_openai_format(store: StateStore) -> None:
    s = store.create_session()
    ids = store.append_messages(s.id, TURN)
    assert ids == sorted(ids) and len(ids) == 4
    stored = store.get_messages(s.id)
    assert [m.id for m in stored] == ids
    assert [m.to_openai() for m in stored] == [Message.from_openai(m).to_openai() for m in TURN]
    assert stored[1].tool_calls == TURN[1]["tool_calls"]
    assert store.get_session(s.id).message_count == 4


def test_multimodal_content_parts_round_trip(store: StateStore) -> None:
    s = store.create_session()
    parts = [
        {"type": "text", "text": "what is in this picture?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
    ]
    mid = store.append_message(s.id, {"role": "user", "content": parts})
    got = store.get_message(mid)
    assert got.content == parts
    assert got.text == "what is in this picture?"


def test_ten_megabyte_message_is_stored(store: StateStore) -> None:
    s = store.create_session()
    big = ("log line with ünïcode ✓ " * 500_000)[: 10 * 1024 * 1024]
    mid = store.append_message(s.id, {"role": "tool", "tool_call_id": "c", "content": big})
    assert store.get_message(mid).content == big


def test_bad_message_in_a_turn_stores_nothing(store: StateStore) -> None:
    s = store.create_session()
    store.append_message(s.id, {"role": "user", "content": "kept"})
    with pytest.raises(InvalidInputError, match="invalid message role 'robot'"):
        store.append_messages(s.id, [TURN[0], {"role": "robot", "content": "x"}])
    assert [m.content for m in store.get_messages(s.id)] == ["kept"]
    assert store.get_session(s.id).message_count == 1


def test_missing_session_is_not_found_and_changes_nothing(store: StateStore) -> None:
    with pytest.raises(NotFoundError, match="no session with id 'nope'") as err:
        store.append_message("nope", {"role": "user", "content": "x"})
    assert "hermes sessions list" in (err.value.hint or "")
    for call in (
        lambda: store.get_session("nope"),
        lambda: store.get_messages("nope"),
        lambda: store.end_session("nope", "done"),
        lambda: store.set_title("nope", "t"),
        lambda: store.add_usage("nope", Usage(input_tokens=1)),
        lambda: store.delete_session("nope"),
        lambda: store.append_messages("../etc", TURN),
    ):
        with pytest.raises(NotFoundError):
            call()
    assert store.last_message_id() == 0
    assert store.find_session("nope") is None


def test_usage_counters_accumulate(store: StateStore) -> None:
    s = store.create_session()
    store.append_messages(
        s.id,
        TURN[:2],
        usage=Usage(input_tokens=100, output_tokens=20, cache_read_tokens=50, cost_usd=0.25),
    )
    store.add_usage(s.id, Usage(input_tokens=10, cache_write_tokens=5, reasoning_tokens=7))
    got = store.get_session(s.id)
    assert got.usage == Usage(
        input_tokens=110,
        output_tokens=20,
        cache_read_tokens=50,
        cache_write_tokens=5,
        reasoning_tokens=7,
        cost_usd=0.25,
    )
    assert got.message_count == 2


@pytest.mark.parametrize(
    "kwargs",
    [
        {"input_tokens": -1},
        {"output_tokens": 1.5},
        {"cost_usd": float("nan")},
        {"cost_usd": float("inf")},
        {"reasoning_tokens": True},
        {"cache_read_tokens": 2**70},
    ],
)
def test_bad_usage_is_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidInputError, match="usage counter"):
        Usage(**kwargs)  # type: ignore[arg-type]


def test_end_title_and_listing(store: StateStore) -> None:
    a = store.create_session(source="cli", title="first 100% done")
    b = store.create_session(source="telegram", title="second_one")
    c = store.create_session(source="cli", title="third")
    store.end_session(a.id, "user_exit")
    store.set_title(c.id, "renamed third")
    ended = store.get_session(a.id)
    assert ended.end_reason == "user_exit" and ended.ended_at is not None
    assert [s.id for s in store.list_sessions()] == [c.id, b.id, a.id]
    assert [s.id for s in store.list_sessions(source="cli")] == [c.id, a.id]
    assert [s.id for s in store.list_sessions(limit=1, offset=1)] == [b.id]
    # LIKE wildcards in the search text are literal
    assert [s.id for s in store.list_sessions(search="100%")] == [a.id]
    assert [s.id for s in store.list_sessions(search="t_1")] == []
    assert [s.id for s in store.list_sessions(search="RENAMED")] == [c.id]
    assert store.count_sessions() == 3 and store.count_sessions(source="cli") == 2


def test_delete_session_removes_its_messages_only(store: StateStore) -> None:
    parent = store.create_session()
    child = store.create_session(parent_session_id=parent.id)
    other = store.create_session()
    store.append_messages(parent.id, TURN)
    store.append_messages(other.id, TURN[:1])
    assert store.delete_session(parent.id) == 4
    with pytest.raises(NotFoundError):
        store.get_session(parent.id)
    assert store.get_session(child.id).parent_session_id is None
    assert len(store.get_messages(other.id)) == 1
    assert store.count_messages_after(0) == 1


def test_message_ids_are_never_reused(store: StateStore) -> None:
    s = store.create_session()
    last = store.append_messages(s.id, TURN)[-1]
    store.delete_session(s.id)
    s2 = store.create_session()
    assert store.append_message(s2.id, TURN[0]) > last
    assert store.last_message_id() == last + 1


def test_parent_must_exist(store: StateStore) -> None:
    with pytest.raises(NotFoundError):
        store.create_session(parent_session_id="20250101_000000_deadbeef")


def test_explicit_session_id(store: StateStore) -> None:
    s = store.create_session(session_id="gateway:telegram:42")
    assert store.get_session("gateway:telegram:42") == s
    with pytest.raises(InvalidInputError, match="already exists"):
        store.create_session(session_id="gateway:telegram:42")
    with pytest.raises(InvalidInputError, match="invalid session id"):
        store.create_session(session_id="has space")


@pytest.mark.parametrize("source", ["", "Telegram", "a b", "x" * 65])
def test_bad_source_is_refused(store: StateStore, source: str) -> None:
    with pytest.raises(InvalidInputError, match="invalid session source"):
        store.create_session(source=source)


def test_listeners_hear_commits_and_deletes_and_cannot_break_writes(store: StateStore) -> None:
    events: list[tuple[str, object]] = []

    class Listener:
        def messages_committed(self, last_id: int) -> None:
            events.append(("commit", last_id))
            raise RuntimeError("listener bug")

        def session_deleted(self, session_id: str) -> None:
            events.append(("delete", session_id))

    listener = Listener()
    store.add_listener(listener)
    s = store.create_session()
    ids = store.append_messages(s.id, TURN)
    mid = store.append_message(s.id, TURN[0])
    store.delete_session(s.id)
    assert events == [("commit", ids[-1]), ("commit", mid), ("delete", s.id)]
    store.remove_listener(listener)
    store.create_session()
    assert len(events) == 3


def test_threads_share_a_store(store: StateStore) -> None:
    sessions = [store.create_session() for _ in range(4)]

    def work(session_id: str) -> None:
        for i in range(25):
            store.append_messages(session_id, [{"role": "user", "content": f"m{i}"}] * 2)

    threads = [threading.Thread(target=work, args=(s.id,)) for s in sessions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s in sessions:
        assert store.get_session(s.id).message_count == 50
        assert [m.content for m in store.get_messages(s.id)][::2] == [f"m{i}" for i in range(25)]


def test_two_stores_on_one_file_see_each_other(tmp_path: Path) -> None:
    with StateStore.open(tmp_path / "s.db") as a, StateStore.open(tmp_path / "s.db") as b:
        s = a.create_session()
        b.append_message(s.id, TURN[0])
        assert a.get_session(s.id).message_count == 1


def test_closed_store_refuses_use(tmp_path: Path) -> None:
    s = StateStore.open(tmp_path / "s.db")
    s.close()
    s.close()
    with pytest.raises(StateError, match="closed"):
        s.list_sessions()


def test_get_messages_pages(store: StateStore) -> None:
    s = store.create_session()
    ids = store.append_messages(s.id, TURN)
    assert [m.id for m in store.get_messages(s.id, after_id=ids[1], limit=1)] == [ids[2]]
    with pytest.raises(NotFoundError):
        store.get_message(ids[-1] + 100)


def test_messages_after_bounds_batches_by_size(store: StateStore) -> None:
    s = store.create_session()
    big = "x" * 1000
    ids = store.append_messages(s.id, [{"role": "user", "content": big}] * 10)
    assert [m.id for m, _ in store.messages_after(0, 100)] == ids
    assert [m.id for m, _ in store.messages_after(0, 100, max_bytes=3500)] == ids[:3]
    assert [m.id for m, _ in store.messages_after(ids[2], 100, max_bytes=10)] == [ids[3]]
    assert [m.id for m, _ in store.messages_after(ids[-1], 100, max_bytes=10)] == []
    assert {src for _, src in store.messages_after(0, 2)} == {"cli"}
