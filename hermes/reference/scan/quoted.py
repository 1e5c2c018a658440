"""Quoted specimens of attacks ("the guard flags phrases like '...'", training material):
findings of instruction categories inside them are dropped."""

from __future__ import annotations

from .table import Finding
from .views import ASCII_WS

_MAX_QUOTE = 200
_CONTEXT = 40
_PAIRS = {
    "'": "'",
    '"': '"',
    "`": "`",
    "\u2018": "\u2019",
    "\u201c": "\u201d",
    "\u00ab": "\u00bb",
    "\u201e": "\u201c",
    "\u300c": "\u300d",
    "\u300e": "\u300f",
}
_CUES = (
    "like", "such as", "e.g.", "e.g", "eg", "i.e.", "for example", "for instance", "example",
    "examples", "phrase", "phrases", "string", "strings", "pattern", "patterns", "attack",
    "attacks", "payload", "payloads", "fixture", "fixtures", "sample", "samples", "quote",
    "quotes", "quoted", "flags", "flagged", "detects", "detected", "blocks", "blocked",
    "catches", "matches", "lines", "entries", "jailbreak", "jailbreaks", "injection",
    "injections", "answer key", "slide", "glossary", "definition",
)  # fmt: skip
_TEACHING = (
    "attacker", "attackers", "attacker's", "malicious", "post-mortem", "postmortem", "incident",
    "quiz", "glossary", "slide", "training", "awareness", "moderation", "phishing", "jailbreak",
    "red-team", "injection", "injections", "classic", "specimen", "specimens",
)  # fmt: skip
_DIRECTIVES = (
    "do", "run", "execute", "follow", "obey", "say", "write", "include", "add", "use",
    "remember", "always", "must", "should", "please", "tell", "reply", "respond", "answer",
    "send", "treat", "act", "apply", "insert", "append", "type", "output", "print",
)  # fmt: skip
_DROPPABLE = {"prompt_injection", "concealment", "exfiltration", "persistence"}


def _word_char(c: str) -> bool:
    return c.isascii() and c.isalnum()


def _has_word(words: str, word: str) -> bool:
    start = words.find(word)
    while start != -1:
        before = words[start - 1] if start else ""
        after = words[start + len(word) : start + len(word) + 1]
        if not (before and _word_char(before)) and not (after and _word_char(after)):
            return True
        start = words.find(word, start + 1)
    return False


def _introduces_example(ctx: str) -> bool:
    tail = ctx.rstrip(" :,\t-")
    cue = any(
        tail.endswith(c) and not (len(tail) > len(c) and _word_char(tail[-len(c) - 1]))
        for c in _CUES
    )
    teaching = any(_has_word(ctx, w) for w in _TEACHING)
    # "answer key" names a list of answers, not an order to answer
    ctx = ctx.replace("answer key", "")
    return (cue or teaching) and not any(_has_word(ctx, d) for d in _DIRECTIVES)


def _specimens(text: str) -> list[tuple[int, int]]:
    """Quotations that directly follow a word introducing an example, as (open, close)."""
    n = len(text)
    out: list[tuple[int, int]] = []
    last: tuple[int, bool] | None = None  # (close, was a specimen)
    i = 0
    while i < n:
        close = _PAIRS.get(text[i])
        if close is None or (i > 0 and _word_char(text[i - 1])):
            i += 1
            continue
        found = None
        for j in range(i + 2, min(n, i + 2 + _MAX_QUOTE)):
            if text[j - 1] == "\n":
                break
            if text[j] == close and not (j + 1 < n and _word_char(text[j + 1])):
                found = j
                break
        if found is None:
            i += 1
            continue
        between = text[last[0] + 1 : i].lower().strip(ASCII_WS) if last else None
        chained = bool(last and last[1]) and between in (
            "",
            ",",
            ";",
            "/",
            "and",
            "or",
            ", and",
            ", or",
        )
        ctx = "".join(c.lower() if c.isascii() else " " for c in text[max(0, i - _CONTEXT) : i])
        spec = chained or _introduces_example(ctx)
        if spec:
            out.append((i, found))
        last = (found, spec)
        i = found + 1
    return out


def drop_specimens(text: str, found: set[Finding]) -> set[Finding]:
    """Drop findings of instruction categories inside quoted examples of attacks."""
    if not any(f[0] in _DROPPABLE for f in found) or not any(c in _PAIRS for c in text):
        return found
    quotes = _specimens(text)
    return {
        f
        for f in found
        if not (f[0] in _DROPPABLE and any(o < f[2] and f[3] <= c for o, c in quotes))
    }
