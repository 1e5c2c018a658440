"""Pure-Python reference of the native threat scanner (``hermes._native.scan``).

Used only by differential tests and benchmarks: it must produce findings IDENTICAL to the Rust
scanner. Both read the same rule table (``hermes_native/src/scan/rules.toml``) and fold table
(``hermes_native/src/scan/fold.tsv``) from the source tree, so this module only works from a
checkout (which is where tests and benchmarks run).

The algorithm, shared with ``hermes_native/src/scan/``:

1. Unicode rules over the original code points (zero-width, bidi, tags, variation selectors,
   fillers), with the benign contexts exempted (emoji ZWJ sequences, subdivision flags, ideographic
   variation sequences, joining scripts, right-to-left text).
2. Views of the text (see the header of rules.toml): ``raw``, ``fold``, ``words``, ``squeeze``
   (when letter spacing or word-gluing invisible characters were seen) and ``uni`` (non-ASCII text
   only). Each view keeps a map from its positions back to code-point offsets in the original text.
3. For each rule whose literal groups (``any`` and each ``also``) all occur in its view: find every
   (overlapping) occurrence of its ``any`` literals, open a window of ``SPAN`` characters either
   side of each (the whole view for ``uni``), merge overlapping windows, and run the regex over each
   window (``finditer(view, start, end)``: look-behind context is the whole view, the end is cut).
4. Decoders: base64, percent-encoded, letter-spaced and ``+``-glued runs, tag-character runs and
   text under a right-to-left override are decoded and scanned again (up to ``MAX_DEPTH`` levels);
   what they find is reported on the encoded span.
5. Findings are de-duplicated and sorted by (start, end, rule_id); the verdict is the worst
   severity, raised to dangerous when caution findings come from two categories or number three.
"""

from __future__ import annotations

from collections.abc import Iterable

from .decode import encoded_payloads
from .matcher import match_rules
from .quoted import drop_specimens
from .table import Finding, rules, table
from .unicode import Payload, mixed_script, unicode_findings
from .views import View, fold_view, raw_view, squeeze_view, uni_view, words_view

__all__ = [
    "Finding",
    "fold_view",
    "raw_view",
    "rules",
    "scan",
    "scan_batch",
    "squeeze_view",
    "table",
    "uni_view",
    "verdict",
    "words_view",
]

MAX_DEPTH = 2
"""Decoded text is scanned again, up to this many levels deep."""

_SEVERITY_RANK = {"caution": 1, "dangerous": 2}


def _scan(text: str, depth: int, out: set[Finding]) -> None:
    tab = table()
    payloads: list[Payload] = []
    if not text.isascii():
        payloads += unicode_findings(text, out)
        mixed_script(text, out)
    raw = raw_view(text)
    fold, dropped = fold_view(text, tab.fold)
    words, joined = words_view(fold)
    views: dict[str, View] = {"raw": raw, "fold": fold, "words": words}
    if joined or dropped:
        views["squeeze"] = squeeze_view(words)
    if not text.isascii():
        views["uni"] = uni_view(text, tab.fold)
    match_rules(text, views, out)
    if depth < MAX_DEPTH:
        for start, end, rule_id, hidden in payloads + encoded_payloads(raw):
            _decoded(text, hidden, start, end, rule_id, depth, out)


def _decoded(
    text: str, hidden: str, start: int, end: int, rule_id: str, depth: int, out: set[Finding]
) -> None:
    """Scan decoded text; report what it triggers on the encoded span [start, end)."""
    inner: set[Finding] = set()
    _scan(hidden, depth + 1, inner)
    if not inner:
        return
    excerpt = text[start:end]
    out.add((table().builtins[rule_id][0], rule_id, start, end, excerpt))
    for category, inner_id, _, _, _ in inner:
        out.add((category, inner_id, start, end, excerpt))


def verdict(findings: Iterable[Finding]) -> str:
    """Worst severity; caution becomes dangerous across two categories or from three findings."""
    severity = table().severity
    worst = 0
    caution_categories: set[str] = set()
    cautions = 0
    for category, rule_id, *_ in findings:
        rank = _SEVERITY_RANK[severity[rule_id]]
        worst = max(worst, rank)
        if rank == 1:
            cautions += 1
            caution_categories.add(category)
    if worst == 2 or len(caution_categories) >= 2 or cautions >= 3:
        return "dangerous"
    return "caution" if worst else "safe"


def scan(text: str) -> tuple[str, list[Finding]]:
    """Scan one text: (verdict, findings sorted by start, end, rule_id)."""
    found: set[Finding] = set()
    _scan(text, 0, found)
    found = drop_specimens(text, found)
    findings = sorted(found, key=lambda f: (f[2], f[3], f[1]))
    return verdict(findings), findings


def scan_batch(texts: list[str]) -> list[tuple[str, list[Finding]]]:
    return [scan(t) for t in texts]
