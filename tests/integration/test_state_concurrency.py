"""Several processes writing one state.db at once: SQLite serialises them, nothing is lost."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hermes.state import StateStore

WRITER = """
import sys
from hermes.state import StateStore, Usage

db, shared, name = sys.argv[1], sys.argv[2], sys.argv[3]
with StateStore.open(db) as store:
    own = store.create_session(source="test", title=name).id
    for i in range(100):
        store.append_message(own, {"role": "user", "content": f"{name} {i}"})
        store.append_messages(
            shared,
            [{"role": "user", "content": f"{name} q{i}"}, {"role": "assistant", "content": "a"}],
            usage=Usage(input_tokens=3, output_tokens=1, cost_usd=0.5),
        )
"""


def test_concurrent_writer_processes(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    with StateStore.open(db) as store:
        shared = store.create_session(title="shared").id
    names = [f"w{i}" for i in range(4)]
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(db), shared, name]) for name in names
    ]
    assert [p.wait(timeout=300) for p in procs] == [0] * len(procs)

    with StateStore.open(db) as store:
        assert store.integrity_check() == []
        s = store.get_session(shared)
        assert s.message_count == 4 * 100 * 2
        assert s.usage.input_tokens == 4 * 100 * 3 and s.usage.cost_usd == 4 * 100 * 0.5
        messages = store.get_messages(shared)
        assert len(messages) == 800
        # a turn's two messages are adjacent: no other writer got in between
        for question, answer in zip(messages[::2], messages[1::2], strict=True):
            assert question.role == "user" and answer.role == "assistant"
            assert answer.id == question.id + 1
        for name in names:
            (own,) = store.list_sessions(search=name, source="test")
            texts = [m.content for m in store.get_messages(own.id)]
            assert texts == [f"{name} {i}" for i in range(100)]
