"""Durable message writes: Hermes's StateStore against raw SQLite, side by side on the same disk.

Claim: acknowledging a message only after a durable commit (WAL, synchronous=FULL) costs Hermes
little over SQLite itself: >= 2,000 single-message commits/s and >= 20,000 messages/s when a turn's
8 messages share one commit, flat as the store grows from 10k to 100k messages. (For scale: upstream
Hermes Agent 0.19 manages 972 and 488 messages/s.)

Anchor: apsw with the same pragmas (WAL, synchronous=FULL, BEGIN IMMEDIATE) running a plain INSERT
into a table with the same columns and the same (session_id, id) index, one commit per message (a)
or per 8-message turn (b). Hermes does what the agent loop does: validate OpenAI-format dicts,
update the session's counters and insert, in one transaction, and returns the ids after the commit.
A third row runs Hermes with the background search indexer attached, to show that indexing stays
off the durable-write path.

Rounds of anchor and Hermes alternate so both see the same disk conditions; each rate is the
median of the rounds, each ratio the median of the per-round ratios (Hermes against the anchor
in the same round; the order within a round rotates).

Usage: ``python -m benchmarks writes``; the databases go to $HERMES_BENCH_DIR or
benchmarks/results/ (this checkout's disk); standalone, ``--dir PATH`` picks another disk.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import apsw

from hermes.state import StateStore
from hermes.state.search import SessionSearch

RESULTS = Path(__file__).parent / "results"
SIZES = (10_000, 100_000)
ROUNDS = 7
ROUND_SECONDS = 0.5
GOAL_SINGLE_COMMITS = 2_000.0
GOAL_BATCHED_MESSAGES = 20_000.0

CALL = {
    "id": "call_{n}",
    "type": "function",
    "function": {"name": "terminal", "arguments": json.dumps({"command": "ls -la /srv/app"})},
}


def turn(n: int) -> list[dict[str, Any]]:
    """A realistic agent turn: a question, three tool round trips, an answer (8 messages)."""
    out: list[dict[str, Any]] = [
        {"role": "user", "content": f"Turn {n}: why does the deploy fail? " + "context " * 20}
    ]
    for k, size in enumerate((1500, 800, 300)):
        call = json.loads(json.dumps(CALL).replace("{n}", f"{n}_{k}"))
        out.append({"role": "assistant", "content": None, "tool_calls": [call]})
        out.append(
            {
                "role": "tool",
                "tool_call_id": call["id"],
                "name": "terminal",
                "content": ("drwxr-xr-x app " * 200)[:size],
            }
        )
    answer = "The config is missing. " * 25
    out.append({"role": "assistant", "content": answer, "finish_reason": "stop"})
    return out


ANCHOR_SCHEMA = """
CREATE TABLE messages (
    id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT,
    content_parts TEXT, tool_calls TEXT, tool_call_id TEXT, name TEXT, reasoning TEXT,
    finish_reason TEXT, created_at REAL NOT NULL
);
CREATE INDEX messages_by_session ON messages(session_id, id);
"""
ANCHOR_INSERT = (
    "INSERT INTO messages(session_id, role, content, content_parts, tool_calls, tool_call_id, "
    "name, reasoning, finish_reason, created_at) VALUES (?, ?, ?, NULL, ?, ?, ?, NULL, ?, ?)"
)


def anchor_row(session_id: str, m: dict[str, Any]) -> tuple[Any, ...]:
    calls = m.get("tool_calls")
    return (
        session_id,
        m["role"],
        m.get("content"),
        None if calls is None else json.dumps(calls, separators=(",", ":")),
        m.get("tool_call_id"),
        m.get("name"),
        m.get("finish_reason"),
        time.time(),
    )


class Anchor:
    """Raw SQLite: same pragmas, a plain INSERT per message, nothing else."""

    def __init__(self, path: Path) -> None:
        self.conn = apsw.Connection(str(path))
        self.conn.pragma("journal_mode", "wal")
        self.conn.pragma("synchronous", "FULL")
        self.conn.execute(ANCHOR_SCHEMA)
        self.acked = 0

    def fill(self, count: int) -> None:
        with self.conn:
            rows = (anchor_row(f"s{i // 200}", m) for i in range(count) for m in turn(i)[:1])
            self.conn.executemany(ANCHOR_INSERT, rows)

    def write(self, messages: list[dict[str, Any]]) -> None:
        rows = [anchor_row("bench", m) for m in messages]
        self.conn.execute("BEGIN IMMEDIATE")
        for row in rows:
            self.conn.execute(ANCHOR_INSERT, row)
        self.conn.execute("COMMIT")
        self.acked += len(rows)

    def count(self) -> int:
        row = self.conn.execute("SELECT count(*) FROM messages").fetchone()
        return int(row[0]) if row else 0

    def close(self) -> None:
        self.conn.close()


class Hermes:
    def __init__(self, path: Path) -> None:
        self.store = StateStore.open(path)
        self.session = self.store.create_session(source="bench", title="benchmark").id
        self.acked = 0
        self.search: SessionSearch | None = None

    def fill(self, count: int) -> None:
        template = turn(0)
        done = 0
        while done < count:
            sid = self.store.create_session(source="bench").id
            n = min(200, count - done)
            self.store.append_messages(sid, [template[i % 8] for i in range(n)])
            done += n

    def write(self, messages: list[dict[str, Any]]) -> None:
        if len(messages) == 1:
            self.store.append_message(self.session, messages[0])
            self.acked += 1
        else:
            self.acked += len(self.store.append_messages(self.session, messages))

    def count(self) -> int:
        return self.store.count_messages_after(0)

    def close(self) -> None:
        if self.search is not None:
            self.search.close()
        self.store.close()


def rate(write: Callable[[list[dict[str, Any]]], None], batched: bool) -> tuple[float, float]:
    """Messages/s and commits/s over one round."""
    template = turn(0)
    commits = messages = 0
    start = time.perf_counter()
    deadline = start + ROUND_SECONDS
    while time.perf_counter() < deadline:
        batch = template if batched else [template[commits % 8]]
        write(batch)
        commits += 1
        messages += len(batch)
    elapsed = time.perf_counter() - start
    return messages / elapsed, commits / elapsed


def measure(contenders: dict[str, Any], batched: bool) -> dict[str, dict[str, float]]:
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in contenders}
    names = list(contenders)
    for i in range(ROUNDS):
        # Rotate who goes first, so no contender always follows another's disk writes.
        for name in names[i % len(names) :] + names[: i % len(names)]:
            samples[name].append(rate(contenders[name].write, batched))
    anchor = samples[next(iter(contenders))]
    return {
        name: {
            "msgs_per_s": statistics.median(s[0] for s in rounds),
            "commits_per_s": statistics.median(s[1] for s in rounds),
            # Each round's ratio is taken against the anchor's run in the same round, on the
            # same disk moments apart: robust to a shared machine's bursts of I/O.
            "ratio_to_anchor": statistics.median(
                h[0] / a[0] for h, a in zip(rounds, anchor, strict=True)
            ),
            "rounds_msgs_per_s": [s[0] for s in rounds],
        }
        for name, rounds in samples.items()
    }


def check(size: int, anchor: Anchor, stores: list[Hermes]) -> list[str]:
    """Every store holds exactly what it acknowledged, and Hermes returns what it was given."""
    problems = []
    if anchor.count() != size + anchor.acked:
        problems.append(f"anchor holds {anchor.count()} rows, expected {size + anchor.acked}")
    for h in stores:
        stored = h.store.get_messages(h.session)
        if len(stored) != h.acked or h.count() != size + h.acked:
            problems.append(f"hermes holds {len(stored)} bench messages, acknowledged {h.acked}")
        if h.store.get_session(h.session).message_count != h.acked:
            problems.append("hermes session counter disagrees with its rows")
        if [m.to_openai() for m in stored[-8:]] != turn(0):  # the batched turns come last
            problems.append("hermes returned different messages than it was given")
    return problems


def run_size(base: Path, size: int) -> tuple[list[dict[str, Any]], list[str]]:
    folder = Path(tempfile.mkdtemp(prefix=f"writes-{size}-", dir=base))
    anchor, hermes = Anchor(folder / "anchor.db"), Hermes(folder / "state.db")
    indexed = Hermes(folder / "indexed.db")
    try:
        anchor.fill(size)
        hermes.fill(size)
        indexed.fill(size)
        search = SessionSearch.open(indexed.store, folder / "index")  # catch-up is not timed
        indexed.search = search
        contenders = {"sqlite (anchor)": anchor, "hermes": hermes, "hermes + indexer": indexed}
        rows = []
        for batched in (False, True):
            for name, r in measure(contenders, batched).items():
                rows.append({"size": size, "batched": batched, "who": name, **r})
        # The indexer ran in the background during the timed rounds; how far had it got?
        behind = indexed.store.last_message_id() - search.last_indexed
        print(
            f"  {size:,}: background indexer was {behind:,} messages behind at the end "
            f"(it commits every second)"
        )
        return rows, check(size, anchor, [hermes, indexed])
    finally:
        anchor.close()
        hermes.close()
        indexed.close()
        shutil.rmtree(folder, ignore_errors=True)


def report(rows: list[dict[str, Any]]) -> None:
    print(
        f"{'store size':>10}  {'case':<22}  {'who':<18}  {'msgs/s':>9}  {'commits/s':>9}  "
        f"{'vs anchor':>9}  goal"
    )
    for row in rows:
        ratio = row["ratio_to_anchor"]
        if row["batched"]:
            goal, value = GOAL_BATCHED_MESSAGES, row["msgs_per_s"]
            goal_text = f">= {GOAL_BATCHED_MESSAGES:,.0f} msgs/s"
        else:
            goal, value = GOAL_SINGLE_COMMITS, row["commits_per_s"]
            goal_text = f">= {GOAL_SINGLE_COMMITS:,.0f} commits/s"
        row["goal"] = goal_text
        row["goal_met"] = value >= goal if "anchor" not in row["who"] else None
        verdict = "" if row["goal_met"] is None else ("met" if row["goal_met"] else "NOT met")
        case = "(b) 8-message turn" if row["batched"] else "(a) 1 message/commit"
        print(
            f"{row['size']:>10,}  {case:<22}  {row['who']:<18}  {row['msgs_per_s']:>9,.0f}  "
            f"{row['commits_per_s']:>9,.0f}  {ratio:>8.2f}x  {goal_text} {verdict}"
        )
    print(f"flatness, rate at {SIZES[1]:,} messages / rate at {SIZES[0]:,} (1.00 = flat):")
    for batched in (False, True):
        parts = []
        for who in ("sqlite (anchor)", "hermes", "hermes + indexer"):
            small, big = (
                next(
                    r["msgs_per_s"]
                    for r in rows
                    if r["who"] == who and r["batched"] == batched and r["size"] == s
                )
                for s in SIZES
            )
            parts.append(f"{who} {big / small:.2f}")
        print(f"  {'(b) batched' if batched else '(a) single'}: {', '.join(parts)}")


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks writes")
    default = Path(os.environ.get("HERMES_BENCH_DIR", RESULTS))
    parser.add_argument("--dir", type=Path, default=default, help="where the databases go")
    args, _ = parser.parse_known_args(sys.argv[1:] if __name__ == "__main__" else [])
    args.dir.mkdir(parents=True, exist_ok=True)
    print(
        f"durable writes (WAL, synchronous=FULL) in {args.dir.resolve()}, "
        f"SQLite {apsw.sqlite_lib_version()}, {ROUNDS} x {ROUND_SECONDS}s rounds (median; "
        "ratio = median of paired rounds)"
    )
    rows: list[dict[str, Any]] = []
    problems: list[str] = []
    for size in SIZES:
        size_rows, size_problems = run_size(args.dir, size)
        rows += size_rows
        problems += size_problems
    report(rows)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "writes.json").write_text(json.dumps({"rows": rows, "problems": problems}, indent=2))
    for p in problems:
        print(f"DISAGREEMENT: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
