"""Running the regex rules over their views: literal prefilter, windows, secret check."""

from __future__ import annotations

from .table import Finding, table
from .views import View

SPAN = 256
"""Characters either side of a literal occurrence that a rule's regex sees."""


_PLACEHOLDERS = (
    "example",
    "xxxx",
    "your",
    "dummy",
    "placeholder",
    "redacted",
    "changeme",
    "sample",
    "fake",
    "test",
    # the signature of the sample token jwt.io shows every visitor (public documentation)
    "sflkxwrjsmekkf2qt4fwpmejf36pok6yjv_adqssw5c",
)


def looks_like_secret(value: str, min_distinct: int) -> bool:
    """A real secret has letters and digits, enough distinct characters and no placeholder word."""
    lower = value.lower()
    return (
        any(c.isascii() and c.isalpha() for c in value)
        and any(c.isascii() and c.isdigit() for c in value)
        and len(set(value)) >= min_distinct
        and not any(p in lower for p in _PLACEHOLDERS)
    )


def _windows(haystack: str, literals: tuple[str, ...], span: int) -> list[tuple[int, int]]:
    """Merged windows of ``span`` characters around every occurrence of every literal."""
    n = len(haystack)
    wins = []
    for lit in literals:
        start = haystack.find(lit)
        while start != -1:
            wins.append((max(0, start - span), min(n, start + len(lit) + span)))
            start = haystack.find(lit, start + 1)
    wins.sort()
    merged: list[tuple[int, int]] = []
    for s, e in wins:
        if merged and s <= merged[-1][1]:
            if e > merged[-1][1]:
                merged[-1] = (merged[-1][0], e)
        else:
            merged.append((s, e))
    return merged


def match_rules(text: str, views: dict[str, View], out: set[Finding]) -> None:
    lowered = {name: v.text.lower() if name == "raw" else v.text for name, v in views.items()}
    for rule in table().rules:
        view = views.get(rule.view)
        if view is None:
            continue
        hay = lowered[rule.view]
        # cheap prefilter: a literal of every group must occur
        if not any(lit in hay for lit in rule.literals):
            continue
        if not all(any(lit in hay for lit in group) for group in rule.also):
            continue
        # the uni view runs over the whole view (Rust counts it in bytes, not characters)
        span = len(hay) if rule.view == "uni" else SPAN
        for ws, we in _windows(hay, rule.literals, span):
            for m in rule.regex.finditer(view.text, ws, we):
                if m.end() == m.start():
                    continue
                if rule.secret_check:
                    value = m.group(1) if rule.regex.groups else m.group(0)
                    if not looks_like_secret(value, rule.min_distinct):
                        continue
                start = view.origin[m.start()]
                end = view.origin[m.end() - 1] + 1
                out.add((rule.category, rule.id, start, end, text[start:end]))
