"""Base64 runs in the raw view, decoded when they hold text (ASCII or another script)."""

from __future__ import annotations

import base64
import binascii
import re

from .unicode import Payload
from .views import View

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


def base64_payloads(raw: View) -> list[Payload]:
    """Every base64 run of the raw view that decodes to text."""
    out: list[Payload] = []
    for m in _BASE64_RUN.finditer(raw.text):
        decoded = decode_base64_run(m.group(0))
        if decoded is not None:
            out.append((m.start(), m.end(), "obfuscation.base64_payload", decoded))
    return out
