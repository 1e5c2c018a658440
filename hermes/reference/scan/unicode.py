"""Unicode rules over the original code points: invisible, bidi, tag and variation-selector code
points (with the contexts natural writing needs exempt) and words mixing Latin with look-alikes.
Tag-character text and right-to-left-overridden text come back as payloads to scan again."""

from __future__ import annotations

from .table import Finding, table

Payload = tuple[int, int, str, str]
"""(start, end, rule_id, decoded text): hidden text found on [start, end), to be scanned again."""


def _in(cp: int, ranges: list[tuple[int, int]]) -> bool:
    return any(lo <= cp <= hi for lo, hi in ranges)


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


# A number and its unit ("100\u2060km") is a short word; a word joiner inside a longer run of
# letters and digits (an API key, a hostname) hides something.
UNIT_WORD_MAX = 12


def _word_around(cps: list[int], i: int) -> int:
    """Letters and ASCII digits on both sides of ``cps[i]``, up to the first other code point."""
    letters = table().ranges["letters"]

    def word(cp: int) -> bool:
        return _is_ascii_digit(cp) or _in(cp, letters)

    before = 0
    while before < i and word(cps[i - 1 - before]):
        before += 1
    after = 0
    while i + 1 + after < len(cps) and word(cps[i + 1 + after]):
        after += 1
    return before + after


def _classify(cps: list[int]) -> list[str | None]:
    """The Unicode rule each code point triggers on its own, or None."""
    rng = table().ranges
    has_rtl = any(_in(cp, rng["rtl"]) for cp in cps if cp >= 0x590)
    # an Arabic letter mark in a text without a right-to-left letter (it has no use there)
    lone_alm = 0x061C in cps and not any(
        _in(cp, rng["rtl"]) for cp in cps if cp >= 0x590 and cp != 0x061C
    )
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
            unit = (
                cp == 0x2060
                and (
                    (_is_ascii_digit(prev) and _in(nxt, rng["letters"]))
                    or (_in(prev, rng["letters"]) and _is_ascii_digit(nxt))
                )
                and _word_around(cps, i) <= UNIT_WORD_MAX
            )
            if not (bom or emoji_zwj or joining or word_break or unit):
                kind = "unicode.zero_width"
        elif cp in MARKS:
            if (_is_ascii_letter(prev) and _is_ascii_letter(nxt)) or (cp == 0x061C and lone_alm):
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


def mixed_script(text: str, out: set[Finding]) -> None:
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


def unicode_findings(text: str, out: set[Finding]) -> list[Payload]:
    """Add the Unicode findings of ``text`` to ``out``; return the hidden text to scan again."""
    payloads: list[Payload] = []
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
        if kind == "unicode.tag_characters":
            hidden = "".join(chr(cp - 0xE0000) for cp in cps[i:j] if 0xE0020 <= cp <= 0xE007E)
            if hidden:
                payloads.append((i, j, "obfuscation.tag_payload", hidden))
        i = j
    if 0x202E in cps:
        payloads += _reversed_segments(text, cps)
    return payloads


def _reversed_segments(text: str, cps: list[int]) -> list[Payload]:
    """The text after each right-to-left override, up to the end of its embedding, reversed."""
    out: list[Payload] = []
    for i, cp in enumerate(cps):
        if cp != 0x202E:
            continue
        j = i + 1
        while j < len(cps) and cps[j] not in (0x202C, 0x2069, 0x202E, 0x0A):
            j += 1
        if j > i + 1:
            out.append((i, j, "obfuscation.bidi_reversed", text[i + 1 : j][::-1]))
    return out
