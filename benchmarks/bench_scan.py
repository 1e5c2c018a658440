"""Threat scanner: native (hermes._native) vs the pure-Python reference on memory-like text.

Data: ~4 MB of memory entries of one to three sentences (the benign corpus and invented notes, a
fifth of them multilingual, about 3% of entries carrying a poisoned entry from the corpus), scanned
as a batch of entries (what the prompt builder does), entry by entry, and as one large text (a big
context file). The reference runs on a slice of the same
data (it is slow) and both must produce identical findings there.

Goals: >= 100 MB/s native and >= 20x the Python reference.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

from hermes import _native
from hermes.reference import scan as ref
from tests.unit.scan_corpus import texts

RESULTS = Path(__file__).parent / "results"
GOAL_MBPS = 100.0
GOAL_RATIO = 20.0
TARGET_BYTES = 4_000_000
REF_BYTES = 250_000

NOTES = [
    "User prefers {lang} answers and {style} code reviews.",
    "Project {name} deploys to {env} with `make deploy ENV={env}`; rollback with `make rollback`.",
    "The {name} service listens on port {port}; health check at /healthz.",
    "Run `pytest -k {name} -x` before pushing changes to {name}.",
    "{person} owns the {name} repo; ask them before changing the CI config.",
    "Use `ssh deploy@{env}.{name}.internal` and `journalctl -u {name}` for logs.",
    "The API token for {name} is stored in the team vault; rotate it every {days} days.",
    "Meeting with {person} every {day} at {hour}:00 about the {name} roadmap.",
    "Ignore warnings from the {name} linter in generated files under gen/.",
    "curl https://api.github.com/repos/acme/{name}/actions/runs shows CI status.",
]
MULTILINGUAL = [
    "Der Benutzer bevorzugt kurze Antworten über {name}.",
    "Le projet {name} utilise PostgreSQL {port}.",
    "用户喜欢简洁的回答。项目 {name} 使用 Rust。",
    "ユーザーは {name} のレビューを日本語で希望しています。",
    "המשתמש מעדיף תשובות קצרות על {name}.",
    "Пользователь работает над проектом {name} 👍",
    "مستخدم يفضل الإجابات القصيرة حول {name}",
    "Family trip 👨\u200d👩\u200d👧\u200d👦 to "
    "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
]
WORDS = dict(
    lang=["German", "English", "French"],
    style=["strict", "gentle"],
    env=["staging", "prod", "dev"],
    name=["billing", "search", "auth", "gateway", "ledger", "hermes"],
    port=["5432", "8080", "6379"],
    person=["Maria", "Dan", "Aiko", "Omar"],
    days=["30", "90"],
    day=["Monday", "Thursday"],
    hour=["9", "14"],
)


def make_entries(seed: int = 42) -> list[str]:
    """Memory entries of one to three sentences (as MEMORY.md entries are), ~3% of them poisoned."""
    rnd = random.Random(seed)
    benign = texts("benign")
    poisoned = texts("poisoned")

    def sentence() -> str:
        roll = rnd.random()
        if roll < 0.3:
            return rnd.choice(benign)
        template = rnd.choice(MULTILINGUAL if roll > 0.8 else NOTES)
        return template.format(**{k: rnd.choice(v) for k, v in WORDS.items()})

    entries: list[str] = []
    size = 0
    while size < TARGET_BYTES:
        parts = [sentence() for _ in range(rnd.randint(1, 3))]
        if rnd.random() < 0.03:
            parts[rnd.randrange(len(parts))] = rnd.choice(poisoned)
        entry = " ".join(parts)
        entries.append(entry)
        size += len(entry.encode("utf-8"))
    return entries


def _time(fn, *args, repeat: int = 3) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> int:
    entries = make_entries()
    total = sum(len(e.encode("utf-8")) for e in entries)
    big = "\n".join(entries)
    # Reference slice: the first entries up to REF_BYTES.
    ref_entries: list[str] = []
    ref_size = 0
    for e in entries:
        if ref_size >= REF_BYTES:
            break
        ref_entries.append(e)
        ref_size += len(e.encode("utf-8"))

    _native.scan_batch(entries[:100])  # load tables
    ref.scan("warm up")
    agree = _native.scan_batch(ref_entries) == ref.scan_batch(ref_entries)
    flagged = sum(v != "safe" for v, _ in _native.scan_batch(entries))

    t_batch = _time(_native.scan_batch, entries)
    t_big = _time(_native.scan, big)
    t_single = _time(lambda: [_native.scan(e) for e in ref_entries], repeat=3)
    t_ref = _time(ref.scan_batch, ref_entries, repeat=1)

    mb = total / 1e6
    ref_mbps = ref_size / 1e6 / t_ref
    rows = [
        ("python reference (prefiltered), entries", ref_mbps, 1.0),
        (
            "native scan() per entry",
            ref_size / 1e6 / t_single,
            ref_size / 1e6 / t_single / ref_mbps,
        ),
        ("native scan_batch(), entries", mb / t_batch, mb / t_batch / ref_mbps),
        (
            "native scan(), one large text",
            len(big.encode()) / 1e6 / t_big,
            len(big.encode()) / 1e6 / t_big / ref_mbps,
        ),
    ]
    print(
        f"data: {len(entries)} entries (avg {total / len(entries):.0f} bytes), {mb:.1f} MB, "
        f"{flagged} flagged; "
        f"reference on {ref_size / 1e6:.2f} MB"
    )
    print(f"{'':42} {'MB/s':>9} {'x ref':>8}")
    for name, mbps, ratio in rows:
        print(f"{name:42} {mbps:9.1f} {ratio:8.1f}")
    batch_mbps = rows[2][1]
    met = batch_mbps >= GOAL_MBPS and rows[2][2] >= GOAL_RATIO
    print(
        f"goal: >= {GOAL_MBPS:.0f} MB/s and >= {GOAL_RATIO:.0f}x reference (batch): "
        f"{'met' if met else 'not met'}; identical findings: {'yes' if agree else 'NO'}"
    )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "scan.json").write_text(
        json.dumps(
            {
                "bytes": total,
                "entries": len(entries),
                "reference_bytes": ref_size,
                "rows": [{"name": n, "mb_per_s": m, "ratio": r} for n, m, r in rows],
                "goal_mb_per_s": GOAL_MBPS,
                "goal_ratio": GOAL_RATIO,
                "goal_met": met,
                "identical_findings": agree,
            },
            indent=2,
        )
    )
    return 0 if agree else 1


if __name__ == "__main__":
    raise SystemExit(main())
