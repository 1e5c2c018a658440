"""Compression digest latency: a 2,000-message transcript into a 4,000-token digest.

Hermes (the Rust core, through the ``hermes.agent.digest`` façade and called directly) against the
pure-Python reference, which must produce the identical digest. Goal: <= 10 ms end to end.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from pathlib import Path
from typing import Any

from benchmarks.tokens_corpus import document
from hermes import _native
from hermes.agent.digest import digest, native_messages
from hermes.reference import digest as reference

RESULTS = Path(__file__).parent / "results" / "digest.json"
MESSAGES = 2_000
BUDGET = 4_000
ENCODING = "o200k_base"
GOAL_MS = 10.0
RUNS = 20
TOOLS = ["search", "read_file", "terminal", "patch", "web_fetch", "memory"]


def transcript(seed: int = 7) -> list[dict[str, Any]]:
    """User questions, assistant answers, and every other turn a tool round (call + results)."""
    rng = random.Random(seed)
    messages: list[dict[str, Any]] = []
    turn = 0
    while len(messages) < MESSAGES:
        messages.append({"role": "user", "content": document(rng, rng.randint(80, 600))})
        if turn % 2 == 0:
            calls = [
                {
                    "id": f"call_{turn}_{k}",
                    "type": "function",
                    "function": {"name": rng.choice(TOOLS), "arguments": '{"q": "x"}'},
                }
                for k in range(rng.randint(1, 3))
            ]
            messages.append({"role": "assistant", "content": None, "tool_calls": calls})
            messages.extend(
                {
                    "role": "tool",
                    "tool_call_id": c["id"],
                    "content": document(rng, rng.randint(500, 5000)),
                }
                for c in calls
            )
        messages.append({"role": "assistant", "content": document(rng, rng.randint(200, 2500))})
        turn += 1
    return messages[:MESSAGES]


def timed_ms(fn: Any, runs: int) -> tuple[Any, float]:
    result = fn()  # warm up (vocabulary load)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        samples.append((time.perf_counter() - start) * 1000)
    return result, statistics.median(samples)


def main() -> int:
    messages = transcript()
    items = native_messages(messages)
    size_mb = sum(len(c.encode()) for _, c, _ in items) / 1e6
    print(f"transcript: {len(messages)} messages, {size_mb:.1f} MB of content; budget {BUDGET}")

    facade, facade_ms = timed_ms(lambda: digest(messages, BUDGET, encoding=ENCODING), RUNS)
    core, core_ms = timed_ms(lambda: _native.digest(items, BUDGET, ENCODING), RUNS)
    ref, ref_ms = timed_ms(lambda: reference.digest(items, BUDGET, ENCODING), 1)

    identical = core == ref and (
        facade.text,
        facade.keep_from,
        facade.total_tokens,
        facade.digest_tokens,
        facade.condensed_turns,
        facade.omitted_turns,
    ) == tuple(core)
    header = f"{'implementation':<34} {'median ms':>10} {'vs reference':>13}"
    print(header)
    print("-" * len(header))
    for name, ms in (
        ("pure-Python reference", ref_ms),
        ("hermes (_native.digest)", core_ms),
        ("hermes (hermes.agent.digest)", facade_ms),
    ):
        print(f"{name:<34} {ms:>10.2f} {ref_ms / ms:>12.1f}x")
    goal = facade_ms <= GOAL_MS
    print(
        f"kept {len(messages) - facade.keep_from} messages verbatim, {facade.condensed_turns} turns"
        f" condensed, {facade.omitted_turns} omitted; {facade.total_tokens}/{BUDGET} tokens"
    )
    print(f"identical to reference: {'yes' if identical else 'NO'}")
    print(f"goal <= {GOAL_MS:g} ms end to end: {'met' if goal else 'not met'} ({facade_ms:.2f} ms)")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "messages": len(messages),
                "budget": BUDGET,
                "reference_ms": ref_ms,
                "native_ms": core_ms,
                "facade_ms": facade_ms,
                "identical": identical,
                "goal_met": goal,
                "total_tokens": facade.total_tokens,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"results written to {RESULTS}")
    return 0 if identical else 1


if __name__ == "__main__":
    raise SystemExit(main())
