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
4. Decoders: base64 runs, tag-character runs and text under a right-to-left override are decoded
   and scanned again (up to ``MAX_DEPTH`` levels); what they find is reported on the encoded span.
5. Findings are de-duplicated and sorted by (start, end, rule_id); the verdict is the worst
   severity, raised to dangerous when caution findings come from two categories or number three.
"""

from __future__ import annotations

import base64
import binascii
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

SCAN_DIR = Path(__file__).resolve().parents[2] / "hermes_native" / "src" / "scan"
SPAN = 256
MAX_DEPTH = 2
SUB = "\x1a"

Finding = tuple[str, str, int, int, str]

_SEVERITY_RANK = {"caution": 1, "dangerous": 2}


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


# --- views ----------------------------------------------------------------------------------------


@dataclass
class View:
    text: str
    origin: list[int]  # origin[i]: code-point offset in the scanned text of view position i


def _in(cp: int, ranges: list[tuple[int, int]]) -> bool:
    return any(lo <= cp <= hi for lo, hi in ranges)


def raw_view(text: str) -> View:
    return View("".join(c if c < "\x80" else SUB for c in text), list(range(len(text))))


def fold_view(text: str, fold: dict[int, str]) -> tuple[View, bool]:
    """The folded view, and whether an invisible code point or mark was dropped next to an ASCII
    letter or digit (what gluing words together looks like)."""
    chars: list[str] = []
    origin: list[int] = []
    dropped = False
    for i, c in enumerate(text):
        cp = ord(c)
        if cp < 0x80:
            chars.append(c.lower() if "A" <= c <= "Z" else c)
            origin.append(i)
            continue
        out = fold.get(cp, c)
        if not out and not dropped:
            before = text[i - 1] if i > 0 else ""
            after = text[i + 1] if i + 1 < len(text) else ""
            dropped = (before.isascii() and before.isalnum()) or (
                after.isascii() and after.isalnum()
            )
        for o in out:
            chars.append(o if o < "\x80" else SUB)
            origin.append(i)
    return View("".join(chars), origin), dropped


_TOKEN = re.compile(r"[a-z0-9]+(?:[$@]+[a-z0-9]+)*")
_ALNUM = re.compile(r"[a-z0-9]+")
_LEET = str.maketrans("01345789$@", "oieastbgsa")
_LEET_DIGITS = frozenset("01345789")


def _token_spans(text: str) -> list[tuple[int, int]]:
    """Words: runs of [a-z0-9] joined across $ and @ (leetspeak), but not across the @ of a run
    without digits (an e-mail address)."""
    spans: list[tuple[int, int]] = []
    for m in _TOKEN.finditer(text):
        word = m.group()
        if "@" in word and not any(c.isdigit() for c in word):
            base = m.start()
            spans.extend((base + n.start(), base + n.end()) for n in _ALNUM.finditer(word))
        else:
            spans.append((m.start(), m.end()))
    return spans


def _is_leet_word(word: str) -> bool:
    return (
        len(word) >= 3
        and any("a" <= c <= "z" for c in word)
        and any(c in _LEET_DIGITS for c in word)
    )


def words_view(fold: View) -> tuple[View, bool]:
    """Words of the fold view joined by single spaces, and whether letter spacing was joined."""
    spans = _token_spans(fold.text)
    joined = False
    tokens: list[list[int]] = []  # each token as a list of fold positions
    i = 0
    while i < len(spans):
        s, e = spans[i]
        if e - s == 1:
            j = i
            first = fold.text[e : spans[i + 1][0]] if i + 1 < len(spans) else ""
            while j + 1 < len(spans) and spans[j + 1][1] - spans[j + 1][0] == 1:
                sep = fold.text[spans[j][1] : spans[j + 1][0]]
                same = len(sep) == 1 and sep != "\n" and sep == first
                punct = len(sep) == 1 and sep not in _ASCII_WS and len(first) == 1
                if not (same or (punct and first not in _ASCII_WS)):
                    break
                j += 1
            # Three letters make a letter-spaced run; once one was seen, two do ("T O").
            if j - i + 1 >= (2 if joined else 3):
                tokens.append([spans[k][0] for k in range(i, j + 1)])
                joined = True
                i = j + 1
                continue
        tokens.append(list(range(s, e)))
        i += 1
    words = ["".join(fold.text[p] for p in positions) for positions in tokens]

    def leet_number(n: int) -> bool:
        # a number of one or two leetspeak digits next to a leetspeak word ("70 h3lp")
        return (
            len(words[n]) <= 2
            and all(c in _LEET_DIGITS for c in words[n])
            and (
                (n > 0 and _is_leet_word(words[n - 1]))
                or (n + 1 < len(words) and _is_leet_word(words[n + 1]))
            )
        )

    chars: list[str] = []
    origin: list[int] = []
    for n, positions in enumerate(tokens):
        if n:
            chars.append(" ")
            # a space stands for the separator that follows the previous token
            origin.append(fold.origin[tokens[n - 1][-1] + 1])
        word = words[n]
        if (not word.isdigit() and not word.isalpha()) or (word.isdigit() and leet_number(n)):
            word = word.translate(_LEET)
        chars.append(word)
        origin.extend(fold.origin[p] for p in positions)
    return View("".join(chars), origin), joined


def uni_view(text: str, fold: dict[int, str]) -> View:
    """Invisible code points dropped, ASCII and Cyrillic capitals lowercased, the rest kept."""
    chars: list[str] = []
    origin: list[int] = []
    for i, c in enumerate(text):
        cp = ord(c)
        if 0x41 <= cp <= 0x5A or 0x410 <= cp <= 0x42F:
            c = chr(cp + 0x20)
        elif 0x400 <= cp <= 0x40F:
            c = chr(cp + 0x50)
        elif cp >= 0x80 and fold.get(cp) == "":
            continue
        chars.append(c)
        origin.append(i)
    return View("".join(chars), origin)


def squeeze_view(words: View) -> View:
    keep = [i for i, c in enumerate(words.text) if c != " "]
    return View("".join(words.text[i] for i in keep), [words.origin[i] for i in keep])


# --- matching
# --------------------------------------------------------------------------------------

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


def _match_rules(text: str, views: dict[str, View], out: set[Finding]) -> None:
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


# --- Unicode rules
# ---------------------------------------------------------------------------------

ZERO_WIDTH = {0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF}
MARKS = {0x200E, 0x200F, 0x061C}
EMBEDDINGS = {0x202A, 0x202B, 0x202C, 0x2066, 0x2067, 0x2068, 0x2069}
OVERRIDES = {0x202D, 0x202E}
FILLERS = [
    (0x3164, 0x3164),
    (0xFFA0, 0xFFA0),
    (0x115F, 0x1160),
    (0x00AD, 0x00AD),
    (0x2061, 0x2064),
    (0x206A, 0x206F),
    (0xFFF9, 0xFFFB),
    (0x1D173, 0x1D17A),
    (0x1BCA0, 0x1BCA3),
]


def _is_vs(cp: int) -> bool:
    return 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF


def _is_ascii_digit(cp: int) -> bool:
    return 0x30 <= cp <= 0x39


def _is_ascii_letter(cp: int) -> bool:
    return 0x41 <= cp <= 0x5A or 0x61 <= cp <= 0x7A


def _valid_flag_tags(cps: list[int]) -> set[int]:
    """Indices of tag characters that belong to a well-formed emoji subdivision flag."""
    valid: set[int] = set()
    for j, cp in enumerate(cps):
        if cp != 0x1F3F4:
            continue
        k = j + 1
        while k < len(cps) and 0xE0020 <= cps[k] <= 0xE007E and k - j <= 16:
            k += 1
        if k > j + 1 and k < len(cps) and cps[k] == 0xE007F:
            valid.update(range(j + 1, k + 1))
    return valid


def _classify(cps: list[int]) -> list[str | None]:
    """The Unicode rule each code point triggers on its own, or None."""
    rng = table().ranges
    has_rtl = any(_in(cp, rng["rtl"]) for cp in cps if cp >= 0x590)
    flags = _valid_flag_tags(cps) if any(0xE0000 <= cp <= 0xE007F for cp in cps) else set()
    n = len(cps)
    kinds: list[str | None] = []
    for i, cp in enumerate(cps):
        prev = cps[i - 1] if i > 0 else -1
        nxt = cps[i + 1] if i + 1 < n else -1
        kind: str | None = None
        if cp in ZERO_WIDTH:
            bom = cp == 0xFEFF and i == 0
            emoji_zwj = (
                cp == 0x200D
                and (_in(prev, rng["emoji"]) or prev in (0xFE0F, 0xE007F))
                and _in(nxt, rng["emoji"])
            )
            # ZWJ/ZWNJ shape the letter on either side
            joining = cp in (0x200C, 0x200D) and (
                _in(prev, rng["joining"]) or _in(nxt, rng["joining"])
            )
            word_break = cp == 0x200B and _in(prev, rng["nospace"]) and _in(nxt, rng["nospace"])
            unit = cp == 0x2060 and (
                (_is_ascii_digit(prev) and _in(nxt, rng["letters"]))
                or (_in(prev, rng["letters"]) and _is_ascii_digit(nxt))
            )
            if not (bom or emoji_zwj or joining or word_break or unit):
                kind = "unicode.zero_width"
        elif cp in MARKS:
            if _is_ascii_letter(prev) and _is_ascii_letter(nxt):
                kind = "unicode.bidi_control"
        elif cp in EMBEDDINGS:
            if not has_rtl:
                kind = "unicode.bidi_control"
        elif cp in OVERRIDES:
            kind = "unicode.bidi_override"
        elif 0xE0000 <= cp <= 0xE007F:
            if i not in flags:
                kind = "unicode.tag_characters"
        elif 0xFE00 <= cp <= 0xFE0F:
            if _is_vs(prev) or _is_vs(nxt):
                kind = "unicode.variation_selector_smuggling"
            elif not (_in(prev, rng["emoji"]) or _in(prev, rng["vs_base"])):
                kind = "unicode.stray_variation_selector"
        elif 0xE0100 <= cp <= 0xE01EF:
            if _is_vs(prev) or _is_vs(nxt):
                kind = "unicode.variation_selector_smuggling"
            elif not _in(prev, rng["cjk"]):
                kind = "unicode.stray_variation_selector"
        elif cp == 0x00AD:
            # a soft hyphen between two letters is hyphenation
            if not (_in(prev, rng["letters"]) and _in(nxt, rng["letters"])):
                kind = "unicode.invisible_filler"
        elif _in(cp, FILLERS):
            kind = "unicode.invisible_filler"
        kinds.append(kind)
    return kinds


_INVISIBLE_KINDS = {"unicode.zero_width", "unicode.bidi_control", "unicode.invisible_filler"}


# Greek letters that pass for Latin ones; mu, pi, epsilon and the rest are ordinary notation
_GREEK_LOOKALIKES = frozenset(
    (
        *(0x391, 0x392, 0x395, 0x396, 0x397, 0x399, 0x39A, 0x39C, 0x39D, 0x39F, 0x3A1, 0x3A4),
        *(0x3A5, 0x3A7, 0x3B1, 0x3B9, 0x3BA, 0x3BD, 0x3BF, 0x3C1, 0x3C4, 0x3C5),
    )
)
_LATIN = [(0x41, 0x5A), (0x61, 0x7A), (0xC0, 0xD6), (0xD8, 0xF6), (0xF8, 0x24F), (0x1E00, 0x1EFF)]
_LOOKALIKE = [(0x400, 0x52F), (0x531, 0x556), (0x561, 0x587), (0x13A0, 0x13F5), (0xAB70, 0xABBF)]
_NEUTRAL = [(0x370, 0x3FF), (0x1F00, 0x1FFF), (0x300, 0x36F), (0x200B, 0x200D), (0x2060, 0x2060)]
_NEUTRAL += [(0xFEFF, 0xFEFF), (0xAD, 0xAD)]


def _script(cp: int) -> str | None:
    if _in(cp, _LATIN):
        return "latin"
    if _in(cp, _LOOKALIKE) or cp in _GREEK_LOOKALIKES:
        return "lookalike"
    if _in(cp, _NEUTRAL):
        return "neutral"
    return None


def _mixed_script(text: str, out: set[Finding]) -> None:
    """Words mixing Latin letters with Cyrillic, Armenian, Cherokee or Greek look-alikes."""
    category = table().builtins["obfuscation.mixed_script"][0]
    start = 0
    seen: set[str] = set()
    for i, c in enumerate([*text, "\n"]):
        kind = _script(ord(c)) if i < len(text) else None
        if kind is None:
            if {"latin", "lookalike"} <= seen:
                out.add((category, "obfuscation.mixed_script", start, i, text[start:i]))
            start = i + 1
            seen = set()
        else:
            seen.add(kind)


def _unicode_findings(text: str, depth: int, out: set[Finding]) -> None:
    cps = [ord(c) for c in text]
    kinds = _classify(cps)
    i = 0
    n = len(cps)
    while i < n:
        kind = kinds[i]
        if kind is None:
            i += 1
            continue
        group = _INVISIBLE_KINDS if kind in _INVISIBLE_KINDS else {kind}
        j = i + 1
        while j < n and kinds[j] in group:
            j += 1
        rule_id = kind
        if kind in _INVISIBLE_KINDS and j - i >= 2:
            rule_id = "unicode.zero_width_run"
        category = table().builtins[rule_id][0]
        out.add((category, rule_id, i, j, text[i:j]))
        if kind == "unicode.tag_characters" and depth < MAX_DEPTH:
            hidden = "".join(chr(cp - 0xE0000) for cp in cps[i:j] if 0xE0020 <= cp <= 0xE007E)
            if hidden:
                _decoded(text, hidden, i, j, "obfuscation.tag_payload", depth, out)
        i = j
    if depth < MAX_DEPTH and 0x202E in cps:
        _reversed_segments(text, cps, depth, out)


def _reversed_segments(text: str, cps: list[int], depth: int, out: set[Finding]) -> None:
    for i, cp in enumerate(cps):
        if cp != 0x202E:
            continue
        j = i + 1
        while j < len(cps) and cps[j] not in (0x202C, 0x2069, 0x202E, 0x0A):
            j += 1
        if j > i + 1:
            _decoded(text, text[i + 1 : j][::-1], i, j, "obfuscation.bidi_reversed", depth, out)


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


_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}", re.ASCII)


def _printable_ascii(data: bytes) -> bool:
    good = sum(1 for b in data if 0x20 <= b < 0x7F or b in (0x09, 0x0A, 0x0D))
    return len(data) >= 8 and good * 10 >= len(data) * 9


def _printable_unicode(text: str) -> bool:
    """Text in another script: at least 4 code points, no control character other than tab and
    line breaks, no replacement character (random bytes are almost never valid UTF-8)."""

    def printable(c: str) -> bool:
        cp = ord(c)
        return not (cp < 0x20 and c not in "\t\n\r") and not 0x7F <= cp <= 0x9F and cp != 0xFFFD

    return len(text) >= 4 and not text.isascii() and all(printable(c) for c in text)


def decode_base64_run(run: str) -> str | None:
    """Decode a base64 (standard or URL-safe, padded or not) run to text, or None if it is not
    text."""
    if not (any("a" <= c <= "z" for c in run) and any("A" <= c <= "Z" for c in run)):
        return None
    body = run.rstrip("=").replace("-", "+").replace("_", "/")
    if len(body) % 4 == 1:
        body = body[:-1]
    try:
        data = base64.b64decode(body + "=" * (-len(body) % 4))
    except binascii.Error:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if _printable_ascii(data):
        return text
    return text if _printable_unicode(text) else None


def _base64_findings(text: str, raw: View, depth: int, out: set[Finding]) -> None:
    for m in _BASE64_RUN.finditer(raw.text):
        decoded = decode_base64_run(m.group(0))
        if decoded is not None:
            _decoded(text, decoded, m.start(), m.end(), "obfuscation.base64_payload", depth, out)


# --- quoted specimens
# ------------------------------------------------------------------------------

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
    "red-team",
)  # fmt: skip
_DIRECTIVES = (
    "do", "run", "execute", "follow", "obey", "say", "write", "include", "add", "use",
    "remember", "always", "must", "should", "please", "tell", "reply", "respond", "answer",
    "send", "treat", "act", "apply", "insert", "append", "type", "output", "print",
)  # fmt: skip
_DROPPABLE = {"prompt_injection", "concealment", "exfiltration", "persistence"}
_ASCII_WS = " \t\n\r\x0c"


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
        between = text[last[0] + 1 : i].lower().strip(_ASCII_WS) if last else None
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


def _drop_specimens(text: str, found: set[Finding]) -> set[Finding]:
    """Drop findings of instruction categories inside quoted examples of attacks."""
    if not any(f[0] in _DROPPABLE for f in found) or not any(c in _PAIRS for c in text):
        return found
    quotes = _specimens(text)
    return {
        f
        for f in found
        if not (f[0] in _DROPPABLE and any(o < f[2] and f[3] <= c for o, c in quotes))
    }


# --- entry points
# ----------------------------------------------------------------------------------


def _scan(text: str, depth: int, out: set[Finding]) -> None:
    tab = table()
    if not text.isascii():
        _unicode_findings(text, depth, out)
        _mixed_script(text, out)
    raw = raw_view(text)
    fold, dropped = fold_view(text, tab.fold)
    words, joined = words_view(fold)
    views = {"raw": raw, "fold": fold, "words": words}
    if joined or dropped:
        views["squeeze"] = squeeze_view(words)
    if not text.isascii():
        views["uni"] = uni_view(text, tab.fold)
    _match_rules(text, views, out)
    if depth < MAX_DEPTH:
        _base64_findings(text, raw, depth, out)


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
    found = _drop_specimens(text, found)
    findings = sorted(found, key=lambda f: (f[2], f[3], f[1]))
    return verdict(findings), findings


def scan_batch(texts: list[str]) -> list[tuple[str, list[Finding]]]:
    return [scan(t) for t in texts]
