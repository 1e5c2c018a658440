"""The ASCII views of a text (see the header of rules.toml), each with a map back to code-point
offsets of the original text."""

from __future__ import annotations

import re
from dataclasses import dataclass

SUB = "\x1a"
ASCII_WS = " \t\n\r\x0c"


@dataclass
class View:
    text: str
    origin: list[int]  # origin[i]: code-point offset in the scanned text of view position i


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
                punct = len(sep) == 1 and sep not in ASCII_WS and len(first) == 1
                if not (same or (punct and first not in ASCII_WS)):
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
