"""Print a regex for "one word that is not one of these words", for rules.toml [defs].

The rule syntax has no look-around (Rust's ``regex`` crate has none), so "any word but never/not/no"
is spelled out as a trie: at each node, either the word ends there (when that prefix is not itself an
excluded word), or continues with a letter no excluded word continues with, or follows an excluded
word's next letter. Words are ``[a-z0-9]+`` (the words view).

    python hermes_native/src/scan/gen_notword.py never not t no nor
"""

from __future__ import annotations

import sys

ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"


def _class(chars: set[str]) -> str:
    """A character class of the alphabet minus ``chars``, with ranges collapsed."""
    keep = [c for c in ALPHABET if c not in chars]
    out: list[str] = []
    i = 0
    while i < len(keep):
        j = i
        while j + 1 < len(keep) and ord(keep[j + 1]) == ord(keep[j]) + 1:
            j += 1
        out.append(keep[i] if j == i else f"{keep[i]}-{keep[j]}" if j > i + 1 else keep[i] + keep[j])
        i = j + 1
    return "[" + "".join(out) + "]"


def _node(words: set[str], prefix: str) -> str:
    nexts = sorted({w[len(prefix)] for w in words if w.startswith(prefix) and len(w) > len(prefix)})
    alts: list[str] = []
    if prefix and prefix not in words:
        alts.append("")  # the word may end here
    alts.append(_class(set(nexts)) + "[a-z0-9]*")
    for c in nexts:
        alts.append(c + _node(words, prefix + c))
    if len(alts) == 1:
        return alts[0]
    return "(?:" + "|".join(alts) + ")"


def notword(words: list[str]) -> str:
    return _node(set(words), "")


if __name__ == "__main__":
    print(notword(sys.argv[1:]))
