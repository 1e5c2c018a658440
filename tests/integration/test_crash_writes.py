"""Crash safety: SIGKILL writers at random moments, hundreds of times; no acknowledged write lost.

A writer process appends messages (single and batched), with the background indexer running, and
prints each message id only AFTER the append returned (i.e. after the durable commit). The test
kills it with SIGKILL after a random delay, over and over, then reopens everything and checks:

* every acknowledged message is in state.db with its content, and session counters match the rows
  (they are updated in the same transaction);
* every acknowledged message is found through the search index after reopening (its unique token);
* ``PRAGMA integrity_check`` is ok.

To afford 200+ kills in well under a minute or two, writers are forked from a "zygote" process
that has already imported Hermes, apsw and the native module, so a writer starts in milliseconds
instead of paying interpreter start-up each time. Every kill is a real SIGKILL of a real process
with its own SQLite connection and index writer. What this does not test: power loss (the OS page
cache survives a SIGKILL); synchronous=FULL is what covers that.
"""

from __future__ import annotations

import logging
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hermes._native import SearchIndex
from hermes.state import StateStore
from hermes.state.search import SessionSearch

KILLS = int(os.environ.get("HERMES_CRASH_KILLS", "220"))

ZYGOTE = r"""
import os, random, sys, time
from pathlib import Path

from hermes.state import StateStore
from hermes.state.search import SessionSearch

db, index = Path(sys.argv[1]), Path(sys.argv[2])


def emit(line):
    os.write(1, (line + "\n").encode())


def writer(cycle, seed):
    rng = random.Random(seed)
    store = StateStore.open(db)
    search = SessionSearch.open(store, index, flush_interval=rng.choice([0.0, 0.01, 0.05]))
    emit(f"open {cycle}")
    session = store.create_session(source="crash", title=f"cycle {cycle}").id
    n = 0
    while True:
        if rng.random() < 0.02:
            session = store.create_session(source="crash", title=f"cycle {cycle}").id
        size = 1 if rng.random() < 0.5 else rng.randint(2, 8)
        tokens = [f"zq{cycle}n{n + i}" for i in range(size)]
        body = "x" * rng.choice([10, 200, 2000])
        messages = [{"role": "user", "content": f"{t} {body}"} for t in tokens]
        if size == 1:
            ids = [store.append_message(session, messages[0])]
        else:
            ids = store.append_messages(session, messages)
        n += size
        # Acknowledge only now that the commit has returned.
        emit("\n".join(f"ack {i} {t}" for i, t in zip(ids, tokens)))
        # Pace a little, like a real agent between turns, so the data stays small.
        time.sleep(rng.choice([0, 0, 0.001, 0.004]))


for line in sys.stdin:
    cycle, seed = map(int, line.split())
    pid = os.fork()
    if pid == 0:
        try:
            writer(cycle, seed)
        except BaseException:
            import traceback
            traceback.print_exc()
        os._exit(3)
    emit(f"pid {pid}")
    _, status = os.waitpid(pid, 0)
    code = os.WTERMSIG(status) if os.WIFSIGNALED(status) else -os.WEXITSTATUS(status)
    emit(f"reaped {pid} {code}")
"""


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_sigkilled_writers_lose_nothing_acknowledged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db, index = tmp_path / "state.db", tmp_path / "index"
    rng = random.Random(int(os.environ.get("HERMES_CRASH_SEED", "20240229")))
    zygote = subprocess.Popen(
        [sys.executable, "-c", ZYGOTE, str(db), str(index)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=(tmp_path / "writers.stderr").open("w"),
        text=True,
        bufsize=1,
    )
    assert zygote.stdin is not None and zygote.stdout is not None
    acked: dict[int, str] = {}
    killed_before_open = 0
    started = time.monotonic()
    try:
        for cycle in range(KILLS):
            zygote.stdin.write(f"{cycle} {rng.randrange(2**32)}\n")
            zygote.stdin.flush()
            kind, pid_text = zygote.stdout.readline().split()
            assert kind == "pid"
            pid = int(pid_text)
            # Some kills land while opening (migration, WAL recovery, index replay), most while
            # appending and indexing.
            time.sleep(rng.uniform(0, 0.03) if rng.random() < 0.25 else rng.uniform(0.03, 0.3))
            os.kill(pid, signal.SIGKILL)
            opened = False
            while True:
                line = zygote.stdout.readline()
                assert line, "the zygote died; see writers.stderr"
                parts = line.split()
                if parts[0] == "ack":
                    acked[int(parts[1])] = parts[2]
                elif parts[0] == "open":
                    opened = True
                elif parts[0] == "reaped":
                    assert parts[2] == str(int(signal.SIGKILL)), (
                        f"writer {pid} ended by itself ({line.strip()}): "
                        + (tmp_path / "writers.stderr").read_text()[-3000:]
                    )
                    break
            killed_before_open += not opened
    finally:
        zygote.stdin.close()
        zygote.wait(timeout=60)
    elapsed = time.monotonic() - started
    print(
        f"\n{KILLS} SIGKILLs in {elapsed:.1f}s ({killed_before_open} before the store was open), "
        f"{len(acked)} acknowledged messages"
    )
    assert len(acked) > KILLS  # the writers really wrote between kills

    with StateStore.open(db) as store:
        assert store.integrity_check() == []
        missing = [i for i in acked if not _has(store, i, acked[i])]
        assert missing == [], f"{len(missing)} acknowledged messages lost, e.g. {missing[:5]}"
        for session in store.list_sessions(limit=100_000):
            assert session.message_count == len(store.get_messages(session.id))

        before = SearchIndex(str(index))  # what the killed writers' indexers had committed
        print(f"index covered rows up to {before.last_rowid()} of {store.last_message_id()}")
        before.close()
        caplog.set_level(logging.WARNING, logger="hermes.state.search")
        with SessionSearch.open(store, index, background=False) as search:
            assert not search.read_only
            not_found = [
                i
                for i, token in acked.items()
                if [h.message_id for h in search.search(token)] != [i]
            ]
            assert not_found == [], f"{len(not_found)} acknowledged messages not found by search"
        rebuilt = [r.message for r in caplog.records if "unreadable" in r.message]
        assert rebuilt == [], f"the index needed a rebuild after a crash: {rebuilt}"


def _has(store: StateStore, message_id: int, token: str) -> bool:
    try:
        content = store.get_message(message_id).content
    except LookupError:
        return False
    return isinstance(content, str) and content.startswith(token + " ")
