"""Loading the threat-scanner corpora in tests/corpus/scan (shared by tests and benchmark)."""

from __future__ import annotations

import json
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "scan"


def load(name: str) -> list[dict[str, str]]:
    """Entries of tests/corpus/scan/<name>.jsonl: dicts with ``text`` and ``technique`` or
    ``note``."""
    path = CORPUS / f"{name}.jsonl"
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def texts(*names: str) -> list[str]:
    return [e["text"] for name in names for e in load(name)]
