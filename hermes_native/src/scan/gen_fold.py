"""Generate ``fold.tsv``: the per-code-point fold table shared by the Rust scanner and its Python reference.

Run from the repository root with ``python hermes_native/src/scan/gen_fold.py`` and commit the result.

Why a generated table instead of calling NFKC at run time: Rust's normalisation crate and Python's
``unicodedata`` follow different Unicode versions, and the scanner must give identical findings in both
languages. Freezing the mapping into one file makes both sides agree by construction, and a per-code-point
table keeps the offset map back to the original text trivial (each input code point maps to zero or more
output code points).

Each line is ``XXXX<TAB>YYYY YYYY ...`` (hex code points; an empty right side deletes the code point) or
``XXXX..ZZZZ<TAB>`` (a range of deleted code points).
ASCII is not listed: both scanners lowercase A-Z and keep every other ASCII byte. A code point that is not
listed folds to itself, and so does a code point whose fold is non-empty but holds no ASCII at all (Hangul
syllables, CJK compatibility ideographs, ...): the scanner's rules only read ASCII, so such entries would
be dead weight. Combining marks fold to nothing, so "i\u0307gnore" reads as "ignore".
The fold of a code point is: deleted if invisible (zero-width, bidi, tag,
variation selector, other default-ignorable format characters); otherwise NFKD, lowercased, combining
marks (Mn, Me) dropped, then look-alike letters from other scripts (Cyrillic, Greek, Armenian, small
capitals, dotless i, ...) and typographic punctuation mapped to ASCII.
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

INVISIBLE_RANGES = [
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x061C, 0x061C),  # Arabic letter mark
    (0x115F, 0x1160),  # Hangul choseong/jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian variation selectors and vowel separator
    (0x200B, 0x200F),  # zero-width space/non-joiner/joiner, LRM, RLM
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x206F),  # word joiner, invisible operators, isolates, deprecated format chars
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFEFF, 0xFEFF),  # zero-width no-break space / BOM
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xFFF9, 0xFFFB),  # interlinear annotation controls
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical invisible formatting
    (0xE0000, 0xE0FFF),  # tags and variation selectors supplement
]

# Look-alikes that NFKD does not fold. Keys are single code points, values ASCII.
CONFUSABLES = {
    # Cyrillic capitals and smalls that render like Latin letters
    "А": "a", "а": "a", "В": "b", "в": "b", "Е": "e", "е": "e", "К": "k", "к": "k",
    "М": "m", "м": "m", "Н": "h", "н": "h", "О": "o", "о": "o", "Р": "p", "р": "p",
    "С": "c", "с": "c", "Т": "t", "т": "t", "У": "y", "у": "y", "Х": "x", "х": "x",
    "Ѕ": "s", "ѕ": "s", "І": "i", "і": "i", "Ј": "j", "ј": "j", "Һ": "h", "һ": "h",
    "Ԁ": "d", "ԁ": "d", "Ԛ": "q", "ԛ": "q", "Ԝ": "w", "ԝ": "w", "Ӏ": "l", "ӏ": "l",
    "Ү": "y", "ү": "y", "ь": "b", "Ь": "b", "п": "n", "г": "r", "Ѵ": "v", "ѵ": "v",
    "Ԍ": "g", "ԍ": "g", "Ɡ": "g", "Ꞵ": "b",
    # Greek
    "Α": "a", "α": "a", "Β": "b", "β": "b", "Ε": "e", "ε": "e", "Ζ": "z", "Η": "h",
    "Ι": "i", "ι": "i", "Κ": "k", "κ": "k", "Μ": "m", "Ν": "n", "ν": "v", "Ο": "o",
    "ο": "o", "Ρ": "p", "ρ": "p", "Τ": "t", "τ": "t", "Υ": "y", "υ": "u", "Χ": "x",
    "χ": "x", "ϲ": "c", "Ϲ": "c", "ϳ": "j", "Ϳ": "j", "ω": "w", "γ": "y",
    # Armenian and Cherokee shapes commonly used in homoglyph attacks
    "օ": "o", "ս": "u", "հ": "h", "ո": "n", "ց": "g", "ք": "p", "զ": "q",
    "Ꭺ": "a", "Ᏼ": "b", "Ꮯ": "c", "Ꭼ": "e", "Ꮋ": "h", "Ꮶ": "k", "Ꮇ": "m", "Ꮲ": "p",
    "Ꮪ": "s", "Ꭲ": "t", "Ꮃ": "w",
    # Latin letters outside ASCII that look like ASCII letters
    "ı": "i", "ȷ": "j", "ɑ": "a", "ɡ": "g", "ɩ": "i", "ɪ": "i", "ʟ": "l", "ɴ": "n",
    "ʀ": "r", "ʏ": "y", "ʙ": "b", "ʜ": "h", "ɢ": "g", "ᴀ": "a", "ᴄ": "c", "ᴅ": "d",
    "ᴇ": "e", "ᴊ": "j", "ᴋ": "k", "ᴍ": "m", "ᴏ": "o", "ᴘ": "p", "ᴛ": "t", "ᴜ": "u",
    "ᴠ": "v", "ᴡ": "w", "ᴢ": "z", "ꜱ": "s", "ø": "o", "đ": "d", "ħ": "h", "ł": "l",
    "ß": "ss", "æ": "ae", "œ": "oe", "ŀ": "l", "ƅ": "b", "ɓ": "b", "ɗ": "d",
    # Typographic punctuation
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "\u02bc": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-",
    "\u2212": "-", "\u2043": "-", "\u2044": "/", "\u2215": "/", "\u29f8": "/", "\u2216": "\\",
    "\u00a0": " ", "\u2028": "\n", "\u2029": "\n", "\u0085": "\n", "\u02d0": ":", "\ua789": ":",
    "\u01c3": "!", "\u2024": ".", "\u3002": ".", "\uff61": ".", "\u223c": "~", "\u02dc": "~",
}


def is_invisible(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in INVISIBLE_RANGES)


def fold(ch: str) -> str:
    cp = ord(ch)
    if is_invisible(cp):
        return ""
    if ch in CONFUSABLES:
        return CONFUSABLES[ch]
    s = unicodedata.normalize("NFKD", ch)
    s = unicodedata.normalize("NFKD", s.lower())
    out = []
    for c in s:
        if unicodedata.category(c) in ("Mn", "Me"):
            continue
        c = CONFUSABLES.get(c, c)
        out.append(c.lower() if c.isascii() else c)
    return "".join(out)


def main() -> int:
    target = Path(__file__).with_name("fold.tsv")
    lines = [
        f"# generated by gen_fold.py from Python {sys.version.split()[0]} "
        f"(Unicode {unicodedata.unidata_version}); do not edit by hand"
    ]
    for lo, hi in INVISIBLE_RANGES:
        lines.append(f"{lo:X}\t" if lo == hi else f"{lo:X}..{hi:X}\t")
    for cp in range(0x80, 0x110000):
        if 0xD800 <= cp <= 0xDFFF or is_invisible(cp):
            continue
        ch = chr(cp)
        folded = fold(ch)
        if folded != ch and (not folded or any(c.isascii() for c in folded)):
            lines.append(f"{cp:X}\t" + " ".join(f"{ord(c):X}" for c in folded))
    target.write_text("\n".join(lines) + "\n", encoding="ascii")
    print(f"wrote {len(lines) - 1} entries to {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
