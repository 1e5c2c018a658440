"""Threat scanning of text before it enters a prompt: the façade over ``hermes._native``.

Every memory entry, skill, SOUL.md and context file passes :func:`scan` before it is put into a
system prompt; a flagged memory entry is shown as ``[BLOCKED: <reason>]`` with
:func:`block_reason`.

What is detected (``hermes scan --rules`` lists every rule): prompt injection and role hijack,
instructions to hide things from the user, credential exfiltration and remote code execution,
persistence (back doors, shell start-up files, cron, the agent's own config, memory and skills),
hard-coded secrets, and invisible Unicode (zero-width characters, bidi overrides, tag characters,
variation-selector smuggling). The scanner sees through NFKC forms, look-alike letters (and flags
any word that mixes Latin letters with Cyrillic, Greek, Armenian or Cherokee look-alikes),
leetspeak (digits, ``$`` and ``@`` inside words), zero-width characters inside words, letter spacing
with spaces or punctuation ("s.e-n_t"), instructions split across lines or announced as fragments to
reassemble, base64, percent-encoding, secrets written one character at a time ("g h p _ 1 2"),
string literals glued with ``+`` (``'ht'+'tps://'``), HTML and markdown comments and attributes,
and text reversed under a right-to-left override. Phrases in other languages (German, French,
Spanish, Portuguese, Italian, Dutch, Polish, Turkish, Vietnamese, Chinese, Japanese, Korean,
Russian, Arabic, Hindi) are covered for the commonest attacks. Invisible characters that natural
writing needs are not findings: word breaks in Thai, Khmer or CJK text, joiners next to letters of
joining scripts, soft hyphens inside words, a word joiner between a number and its unit. Attack
phrases quoted as examples right after "like", "such as", "e.g." and similar cues ("the guard flags
phrases like '...'"), or in training material, quizzes and post-mortems, are not findings either,
unless the words before the quotation give an order.

Offsets are code points into the text as given (Python string indices), and
``finding.excerpt == text[finding.start:finding.end]``.

Lone surrogates (a Python ``str`` can hold them, UTF-8 cannot; they come from
``errors="surrogateescape"`` decoding of bad bytes) are replaced by U+FFFD for the native scanner,
which keeps every offset valid, and each run of them is reported as a ``unicode.lone_surrogate``
finding.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache

from hermes import _native

__all__ = [
    "Category",
    "Finding",
    "RuleInfo",
    "ScanResult",
    "Verdict",
    "block_reason",
    "rules",
    "scan",
    "scan_many",
]

log = logging.getLogger("hermes.security.scan")


class Verdict(StrEnum):
    """How bad a text is: ``safe`` only when no rule fired."""

    SAFE = "safe"
    CAUTION = "caution"
    DANGEROUS = "dangerous"


class Category(StrEnum):
    """What kind of threat a finding is."""

    PROMPT_INJECTION = "prompt_injection"
    CONCEALMENT = "concealment"
    EXFILTRATION = "exfiltration"
    REMOTE_EXECUTION = "remote_execution"
    PERSISTENCE = "persistence"
    SECRETS = "secrets"
    INVISIBLE_UNICODE = "invisible_unicode"
    OBFUSCATION = "obfuscation"

    @property
    def label(self) -> str:
        """Short human name, used in block reasons."""
        return _LABELS[self]


_LABELS = {
    Category.PROMPT_INJECTION: "prompt injection",
    Category.CONCEALMENT: "hiding things from the user",
    Category.EXFILTRATION: "credential exfiltration",
    Category.REMOTE_EXECUTION: "remote code execution",
    Category.PERSISTENCE: "persistence",
    Category.SECRETS: "hard-coded secret",
    Category.INVISIBLE_UNICODE: "invisible Unicode",
    Category.OBFUSCATION: "obfuscated payload",
}


@dataclass(frozen=True, slots=True)
class Finding:
    """One rule that fired on ``text[start:end]``."""

    category: Category
    rule_id: str
    start: int
    end: int
    excerpt: str


@dataclass(frozen=True, slots=True)
class ScanResult:
    """The verdict on one text and the findings behind it, sorted by (start, end, rule_id)."""

    verdict: Verdict
    findings: tuple[Finding, ...]

    @property
    def flagged(self) -> bool:
        """True for caution and dangerous: such text must not enter a prompt unmarked."""
        return self.verdict is not Verdict.SAFE

    @property
    def categories(self) -> frozenset[Category]:
        return frozenset(f.category for f in self.findings)


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """One rule of the scanner, as ``hermes scan --rules`` lists it."""

    rule_id: str
    category: Category
    severity: Verdict
    description: str


@cache
def rules() -> tuple[RuleInfo, ...]:
    """Every rule the scanner knows (table rules first, then those implemented in code)."""
    return tuple(
        RuleInfo(rule_id, Category(category), Verdict(severity), description)
        for rule_id, category, severity, description in _native.scan_rules()
    )


@cache
def _severity() -> dict[str, Verdict]:
    return {r.rule_id: r.severity for r in rules()}


_SURROGATES = re.compile("[\ud800-\udfff]+")


def _verdict(findings: Sequence[Finding]) -> Verdict:
    """The native verdict rule (verdict.rs), for results the façade extends."""
    severity = _severity()
    cautions = [f for f in findings if severity[f.rule_id] is Verdict.CAUTION]
    if any(severity[f.rule_id] is Verdict.DANGEROUS for f in findings):
        return Verdict.DANGEROUS
    if len({f.category for f in cautions}) >= 2 or len(cautions) >= 3:
        return Verdict.DANGEROUS
    return Verdict.CAUTION if cautions else Verdict.SAFE


def _result(
    text: str,
    native: tuple[str, list[tuple[str, str, int, int, str]]],
    surrogates: list[tuple[int, int]],
) -> ScanResult:
    verdict, raw = native
    if not surrogates:
        return ScanResult(
            Verdict(verdict), tuple(Finding(Category(c), r, s, e, x) for c, r, s, e, x in raw)
        )
    # Excerpts from the native scan hold U+FFFD where the text has surrogates: take them from the
    # text.
    findings = [Finding(Category(c), r, s, e, text[s:e]) for c, r, s, e, _ in raw]
    findings += [
        Finding(Category.INVISIBLE_UNICODE, "unicode.lone_surrogate", s, e, text[s:e])
        for s, e in surrogates
    ]
    findings.sort(key=lambda f: (f.start, f.end, f.rule_id))
    return ScanResult(_verdict(findings), tuple(findings))


def _clean(text: str) -> tuple[str, list[tuple[int, int]]]:
    """Replace lone surrogates by U+FFFD (one for one, so offsets stay valid) and say where they
    were."""
    if not isinstance(text, str):
        raise TypeError(f"scan() takes str, not {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        spans = [(m.start(), m.end()) for m in _SURROGATES.finditer(text)]
        return _SURROGATES.sub(lambda m: "\ufffd" * len(m.group()), text), spans
    return text, []


def scan(text: str) -> ScanResult:
    """Scan one text (a memory entry, a skill, a context file)."""
    clean, surrogates = _clean(text)
    result = _result(text, _native.scan(clean), surrogates)
    if result.flagged:
        log.debug("scan flagged %d findings: %s", len(result.findings), result.verdict)
    return result


def scan_many(texts: Sequence[str]) -> list[ScanResult]:
    """Scan many texts at once; the native side releases the GIL for the whole batch."""
    cleaned = [_clean(t) for t in texts]
    natives = _native.scan_batch([c for c, _ in cleaned])
    return [
        _result(text, native, surrogates)
        for text, native, (_, surrogates) in zip(texts, natives, cleaned, strict=True)
    ]


def _printable(excerpt: str, limit: int) -> str:
    """Excerpt for humans: invisible and control characters as <U+XXXX>, whitespace collapsed."""
    out: list[str] = []
    for ch in excerpt:
        cat = unicodedata.category(ch)
        if ch in " \t\n\r":
            if out and out[-1] != " ":
                out.append(" ")
        elif (
            cat in ("Cc", "Cf", "Cs", "Co", "Cn")
            or 0xFE00 <= ord(ch) <= 0xFE0F
            or ch in "\u3164\uffa0"
        ):
            out.append(f"<U+{ord(ch):04X}>")
        else:
            out.append(ch)
    shown = "".join(out).strip()
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def block_reason(result: ScanResult, *, limit: int = 60) -> str:
    """A short reason for ``[BLOCKED: reason]``, e.g. ``prompt injection: 'ignore all previous
    instructions'``. Secrets are never echoed: only their first characters are shown."""
    if not result.findings:
        return "no threat found"
    severity = _severity()
    worst = sorted(
        result.findings,
        key=lambda f: (severity[f.rule_id] is not Verdict.DANGEROUS, f.start, f.rule_id),
    )[0]
    if worst.category is Category.SECRETS:
        shown = _printable(worst.excerpt, limit)[:6] + "…(redacted)"
    else:
        shown = _printable(worst.excerpt, limit)
    more = len({f.category for f in result.findings} - {worst.category})
    suffix = f" (+{more} more {'category' if more == 1 else 'categories'})" if more else ""
    return f"{worst.category.label}: '{shown}'{suffix}"
