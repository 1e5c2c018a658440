"""The rule table of the reference scanner: ``rules.toml`` and ``fold.tsv`` from the source tree
(the same files the Rust scanner compiles in), compiled once with Python's ``re``."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

SCAN_DIR = Path(__file__).resolve().parents[3] / "hermes_native" / "src" / "scan"

Finding = tuple[str, str, int, int, str]
"""(category, rule_id, start, end, excerpt), offsets in code points of the scanned text."""


@dataclass(frozen=True)
class Rule:
    """One compiled rule of the table."""

    id: str
    category: str
    severity: str
    view: str
    description: str
    literals: tuple[str, ...]
    also: tuple[tuple[str, ...], ...]
    regex: re.Pattern[str]
    secret_check: bool
    min_distinct: int


@dataclass
class Table:
    """The whole rule table: regex rules, code rules, Unicode ranges, and the fold map."""

    rules: list[Rule]
    builtins: dict[str, tuple[str, str, str]]
    ranges: dict[str, list[tuple[int, int]]]
    fold: dict[int, str]
    severity: dict[str, str] = field(default_factory=dict)


def _parse_ranges(items: Iterable[str]) -> list[tuple[int, int]]:
    out = []
    for item in items:
        lo, _, hi = item.partition("-")
        out.append((int(lo, 16), int(hi or lo, 16)))
    return out


def _load_fold(path: Path) -> dict[int, str]:
    fold: dict[int, str] = {}
    for line in path.read_text(encoding="ascii").splitlines():
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition("\t")
        out = "".join(chr(int(h, 16)) for h in value.split())
        if ".." in key:
            lo, hi = (int(h, 16) for h in key.split(".."))
            for cp in range(lo, hi + 1):
                fold[cp] = out
        else:
            fold[int(key, 16)] = out
    return fold


@cache
def table() -> Table:
    """Load and compile the rule table once."""
    data = tomllib.loads((SCAN_DIR / "rules.toml").read_text(encoding="utf-8"))
    defs: dict[str, str] = data.get("defs", {})
    rules = []
    for raw in data["rule"]:
        pattern = raw["pattern"]
        for name, value in defs.items():
            pattern = pattern.replace("{{" + name + "}}", value)
        rules.append(
            Rule(
                id=raw["id"],
                category=raw["category"],
                severity=raw["severity"],
                view=raw["view"],
                description=raw["description"],
                literals=tuple(lit.lower() for lit in raw["any"]),
                also=tuple(tuple(lit.lower() for lit in g) for g in raw.get("also", [])),
                regex=re.compile(pattern, re.ASCII),
                secret_check=raw.get("check") == "secret",
                min_distinct=raw.get("min_distinct", 10),
            )
        )
    builtins = {b["id"]: (b["category"], b["severity"], b["description"]) for b in data["builtin"]}
    ranges = {name: _parse_ranges(items) for name, items in data["unicode"].items()}
    tab = Table(rules, builtins, ranges, _load_fold(SCAN_DIR / "fold.tsv"))
    tab.severity = {r.id: r.severity for r in rules} | {k: v[1] for k, v in builtins.items()}
    return tab


def rules() -> list[tuple[str, str, str, str]]:
    """(rule_id, category, severity, description) for every rule, table rules first."""
    tab = table()
    out = [(r.id, r.category, r.severity, r.description) for r in tab.rules]
    out += [(rid, c, s, d) for rid, (c, s, d) in tab.builtins.items()]
    return out
