"""Encoded runs in the raw view, decoded when they hold text: base64 runs (ASCII or another script),
percent-encoded runs, hex runs, ``\\uXXXX``-escaped runs, letter-spaced runs, string literals glued
with ``+``, and each line read backwards or rot13-decoded when it says it is written so."""

from __future__ import annotations

import base64
import binascii
import re

from .unicode import Payload
from .views import View

_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}", re.ASCII)
# printable ASCII other than space, quotes, angle brackets and backtick
_URL_RUN = re.compile(r"[!#-&(-;=?-_a-~]+", re.ASCII)
_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}", re.ASCII)
_JOIN = re.compile(r"' *\+ *'|\" *\+ *\"", re.ASCII)
_HEX_RUN = re.compile(r"[0-9A-Fa-f]{32,}", re.ASCII)
_UNICODE_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})", re.ASCII)
REVERSAL_MARKERS = ("backward", "revers", "right-to-left", "right to left", "flip")
"""Words with which a line says it is written backwards ("read this backwards", "reverse it")."""
ROT13_MARKERS = ("rot13", "rot-13", "rot 13")
"""Words with which a text says it is written in rot13."""
MIN_UNICODE_ESCAPES = 3
"""Fewest ``\\uXXXX`` escapes that make a run worth decoding."""
_ROT13 = str.maketrans(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "NOPQRSTUVWXYZABCDEFGHIJKLMnopqrstuvwxyzabcdefghijklm",
)

MIN_ESCAPES = 3
"""Fewest ``%XX`` escapes that make a run worth decoding."""
MIN_SPACED = 16
"""Fewest characters in a letter-spaced run worth joining."""
MIN_JOINS = 2
"""Fewest ``+`` joins that make glued string literals worth reading as one text."""
JOIN_GAP = 64
"""Most characters between two joins of one cluster (on one line)."""
JOIN_CONTEXT = 200
"""Characters of the line kept either side of a cluster when it is read again."""


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


def decode_percent_run(run: str) -> str | None:
    """Decode the ``%XX`` escapes of a run (other characters are kept), or None if it has fewer
    than MIN_ESCAPES of them or does not decode to UTF-8."""
    escapes = len(_ESCAPE.findall(run))
    if escapes < MIN_ESCAPES:
        return None
    data = bytearray()
    pos = 0
    for m in _ESCAPE.finditer(run):
        data += run[pos : m.start()].encode("ascii")
        data.append(int(m.group(0)[1:], 16))
        pos = m.end()
    data += run[pos:].encode("ascii")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def decode_hex_run(run: str) -> str | None:
    """Decode an even-length run of hex digits to text, or None if it is not printable ASCII
    (hashes and keys decode to random bytes)."""
    if len(run) % 2:
        return None
    data = bytes.fromhex(run)
    if not _printable_ascii(data):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def announced_lines(text: str, markers: tuple[str, ...]) -> list[tuple[int, int]]:
    """The lines (start, end, without the line break) that name one of ``markers``."""
    out: list[tuple[int, int]] = []
    start = 0
    for line in text.split("\n"):
        lower = line.lower()
        if line and any(m in lower for m in markers):
            out.append((start, start + len(line)))
        start += len(line) + 1
    return out


def decode_unicode_escapes(run: str) -> str | None:
    """Decode the ``\\uXXXX`` escapes of a run (other characters kept), or None with fewer than
    MIN_UNICODE_ESCAPES of them or an escape that is a surrogate or NUL."""
    escapes = _UNICODE_ESCAPE.findall(run)
    if len(escapes) < MIN_UNICODE_ESCAPES:
        return None
    if any(int(h, 16) == 0 or 0xD800 <= int(h, 16) <= 0xDFFF for h in escapes):
        return None
    return _UNICODE_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), run)


def _visible(c: str) -> bool:
    return "\x21" <= c <= "\x7e"


def _spaced_runs(text: str) -> list[tuple[int, int, str]]:
    """Runs of MIN_SPACED or more single visible characters, each separated from the next by
    exactly one space ("g l s a _ 9 e F 8 ..."): (start, end, joined text)."""
    n = len(text)

    def single(i: int) -> bool:
        return (
            i < n
            and _visible(text[i])
            and (i == 0 or not _visible(text[i - 1]))
            and (i + 1 == n or not _visible(text[i + 1]))
        )

    out: list[tuple[int, int, str]] = []
    i = 0
    while i < n:
        if not single(i):
            i += 1
            continue
        j = i
        while j + 2 < n and text[j + 1] == " " and single(j + 2):
            j += 2
        if (j - i) // 2 + 1 >= MIN_SPACED:
            out.append((i, j + 1, text[i : j + 1 : 2]))
        i = j + 1
    return out


def encoded_payloads(raw: View) -> list[Payload]:
    """Every base64 run of the raw view that decodes to text, every percent-encoded run with
    enough escapes, every hex run that decodes to text, every run with enough ``\\uXXXX``
    escapes, each line reversed or rot13-decoded when it says it is written so, every
    letter-spaced run, and each cluster of string literals glued with ``+`` (``'ht'+'tps://'``)
    joined, with some of its line around it (reported from the first join to
    the last)."""
    text = raw.text
    out: list[Payload] = []
    for m in _BASE64_RUN.finditer(text):
        decoded = decode_base64_run(m.group(0))
        if decoded is not None:
            out.append((m.start(), m.end(), "obfuscation.base64_payload", decoded))
    if "%" in text:
        for m in _URL_RUN.finditer(text):
            if "%" in m.group(0):
                decoded = decode_percent_run(m.group(0))
                if decoded is not None:
                    out.append((m.start(), m.end(), "obfuscation.percent_encoded", decoded))
    for m in _HEX_RUN.finditer(text):
        decoded = decode_hex_run(m.group(0))
        if decoded is not None:
            out.append((m.start(), m.end(), "obfuscation.hex_payload", decoded))
    for start, end in announced_lines(text, REVERSAL_MARKERS):
        out.append((start, end, "obfuscation.announced_reversed", text[start:end][::-1]))
    for start, end in announced_lines(text, ROT13_MARKERS):
        out.append((start, end, "obfuscation.announced_rot13", text[start:end].translate(_ROT13)))
    if "\\u" in text:
        for m in _URL_RUN.finditer(text):
            decoded = decode_unicode_escapes(m.group(0))
            if decoded is not None:
                out.append((m.start(), m.end(), "obfuscation.unicode_escaped", decoded))
    for start, end, joined in _spaced_runs(text):
        out.append((start, end, "obfuscation.letter_spaced", joined))
    if "+" in text:
        joins = [m.span() for m in _JOIN.finditer(text)]
        for lo, hi, cluster in _concat_regions(text, joins):
            cuts = [lo] + [i for span in cluster for i in span] + [hi]
            glued = "".join(text[cuts[i] : cuts[i + 1]] for i in range(0, len(cuts), 2))
            out.append((cluster[0][0], cluster[-1][1], "obfuscation.string_concat", glued))
    return out


def _concat_regions(
    text: str, joins: list[tuple[int, int]]
) -> list[tuple[int, int, list[tuple[int, int]]]]:
    """Clusters of MIN_JOINS or more joins, each on one line with at most JOIN_GAP characters
    between neighbours, and the region read again for each: the cluster plus JOIN_CONTEXT
    characters of its line either side. Bounded so that a long text pays only for its glued
    parts."""
    out: list[tuple[int, int, list[tuple[int, int]]]] = []
    first = 0
    for k in range(1, len(joins) + 1):
        if k < len(joins):
            prev_end, next_start = joins[k - 1][1], joins[k][0]
            if next_start - prev_end <= JOIN_GAP and "\n" not in text[prev_end:next_start]:
                continue
        if k - first >= MIN_JOINS:
            s, e = joins[first][0], joins[k - 1][1]
            line_start = text.rfind("\n", 0, s) + 1
            line_end = text.find("\n", e)
            if line_end < 0:
                line_end = len(text)
            lo, hi = max(line_start, s - JOIN_CONTEXT), min(line_end, e + JOIN_CONTEXT)
            out.append((lo, hi, joins[first:k]))
        first = k
    return out
