"""Slow pure-Python reference of the search index's analyzer and boolean match semantics.

Mirrors ``hermes_native/src/index/tokenizer.rs`` and ``query.rs`` rule for rule, but from Python's
own Unicode primitives (``str.lower``, ``unicodedata``), so the differential tests catch a
divergence in either. Used only by tests and benchmarks; never a fallback for the native index.

Known, deliberate gap: Rust's ``char::is_alphanumeric`` (Unicode *Alphabetic*) and Python's
``isalpha() or isnumeric()`` differ for a few marks (e.g. Indic vowel signs, circled letters); the
differential tests draw text from scripts where the two agree.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Literal

MAX_TOKEN_CHARS = 128
MAX_QUERY_BYTES = 10 * 1024
MAX_QUERY_TERMS = 1000
MAX_DEPTH = 32

Mode = Literal["index", "query"]

_CJK_RANGES = (
    (0x1100, 0x11FF),
    (0x3005, 0x3007),
    (0x3040, 0x30FF),
    (0x3130, 0x318F),
    (0x31F0, 0x31FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xA960, 0xA97F),
    (0xAC00, 0xD7AF),
    (0xD7B0, 0xD7FF),
    (0xF900, 0xFAFF),
    (0xFF66, 0xFF9F),
    (0x20000, 0x3FFFF),
)
_SPECIAL_FOLDS = {
    "ß": "ss",
    "æ": "ae",
    "œ": "oe",
    "ø": "o",
    "đ": "d",
    "ð": "d",
    "ħ": "h",
    "\u0131": "i",  # dotless i
    "ł": "l",
    "ŀ": "l",
    "ŧ": "t",
    "þ": "th",
}


# Rust's char::is_whitespace (Unicode White_Space); Python's str.isspace differs slightly.
_WHITESPACE = frozenset(
    chr(o)
    for o in (*range(0x9, 0xE), 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029)
) | frozenset("\u202f\u205f\u3000")


def is_space(c: str) -> bool:
    return c in _WHITESPACE


def _unwiden(c: str) -> str:
    o = ord(c)
    if 0xFF01 <= o <= 0xFF5E:
        return chr(o - 0xFEE0)
    if o == 0x3000:
        return " "
    return c


def _alnum(c: str) -> bool:
    return c.isalpha() or c.isnumeric()


def is_combining(c: str) -> bool:
    return 0x300 <= ord(c) <= 0x36F


def is_cjk(c: str) -> bool:
    o = ord(c)
    return any(lo <= o <= hi for lo, hi in _CJK_RANGES) and _alnum(c)


def _classify(c: str) -> str:
    c = _unwiden(c)
    if is_combining(c):
        return "joiner"
    if is_cjk(c):
        return "cjk"
    if _alnum(c):
        return "word"
    return "sep"


def _fold(c: str) -> str:
    if is_combining(c):
        return ""
    if c in _SPECIAL_FOLDS:
        return _SPECIAL_FOLDS[c]
    o = ord(c)
    if 0xC0 <= o <= 0x24F or 0x1E00 <= o <= 0x1EFF:
        base = unicodedata.normalize("NFD", c)[0]
        return _SPECIAL_FOLDS.get(base, base)
    return c


def normalize_word(word: str) -> str:
    """The indexed form of a run of word characters (lowercased, folded, truncated)."""
    out = "".join(_fold(lower) for c in word for lower in _unwiden(c).lower())
    return out[:MAX_TOKEN_CHARS]


@dataclass(frozen=True)
class Token:
    text: str
    position: int
    start: int  # code points
    end: int


def analyze(text: str, mode: Mode = "index") -> list[Token]:
    """Tokens of ``text`` in the order the native analyzer emits them."""
    tokens: list[Token] = []
    classes = [_classify(c) for c in text]
    position = 0
    i = 0
    n = len(text)
    while i < n:
        cls = classes[i]
        if cls == "word":
            start = i
            while i < n and classes[i] in ("word", "joiner"):
                i += 1
            word = "".join(
                c for c, k in zip(text[start:i], classes[start:i], strict=True) if k == "word"
            )
            tokens.append(Token(normalize_word(word), position, start, i))
            position += 1
        elif cls == "cjk":
            run: list[int] = []  # indices of the run's CJK characters
            while i < n and classes[i] in ("cjk", "joiner"):
                if classes[i] == "cjk":
                    run.append(i)
                i += 1
            base = position
            for k, at in enumerate(run):
                if k > 0:
                    prev = run[k - 1]
                    tokens.append(Token(text[prev] + text[at], base + k - 1, prev, at + 1))
                if mode == "index" or len(run) == 1:
                    tokens.append(Token(text[at], base + k, at, at + 1))
            position = base + len(run)
        else:
            i += 1
    return tokens


# --- queries -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Atom:
    tokens: tuple[tuple[int, str], ...]
    prefix: bool


@dataclass(frozen=True)
class And:
    children: tuple[Node, ...]


@dataclass(frozen=True)
class Or:
    children: tuple[Node, ...]


@dataclass(frozen=True)
class Not:
    child: Node


Node = Atom | And | Or | Not


class QueryTooLarge(ValueError):
    """The reference's counterpart of ``hermes.errors.QueryError``."""


class _Malformed(Exception):
    pass


@dataclass
class _Lex:
    kind: str  # ( ) AND OR NOT - word phrase
    text: str = ""
    prefix: bool = False


def _lex(query: str) -> list[_Lex]:
    out: list[_Lex] = []
    i, n = 0, len(query)
    while i < n:
        c = query[i]
        if is_space(c):
            i += 1
        elif c in "()":
            out.append(_Lex(c))
            i += 1
        elif c == '"':
            end = query.find('"', i + 1)
            if end < 0:
                raise _Malformed
            prefix = end + 1 < n and query[end + 1] == "*"
            out.append(_Lex("phrase", query[i + 1 : end], prefix))
            i = end + 2 if prefix else end + 1
        elif c == "-":
            if i + 1 >= n or is_space(query[i + 1]):
                raise _Malformed
            out.append(_Lex("-"))
            i += 1
        else:
            j = i
            while j < n and not (is_space(query[j]) or query[j] in '()"'):
                j += 1
            word = query[i:j]
            i = j
            if word in ("AND", "OR", "NOT"):
                out.append(_Lex(word))
                continue
            stem = word.rstrip("*")
            if not stem:
                raise _Malformed
            out.append(_Lex("word", stem, len(stem) != len(word)))
    return out


def _atom(text: str, prefix: bool) -> Atom | None:
    toks = analyze(text, "query")
    if not toks:
        return None
    first = toks[0].position
    last = next((c for c in reversed(text) if not is_space(c)), None)
    ends_in_cjk = last is not None and is_cjk(last)
    return Atom(tuple((t.position - first, t.text) for t in toks), prefix and not ends_in_cjk)


def _join(parts: list[Node], is_and: bool) -> Node | None:
    flat: list[Node] = []
    for p in parts:
        if (is_and and isinstance(p, And)) or (not is_and and isinstance(p, Or)):
            flat.extend(p.children)
        else:
            flat.append(p)
    if not flat:
        return None
    if len(flat) == 1:
        return flat[0]
    return And(tuple(flat)) if is_and else Or(tuple(flat))


class _Parser:
    def __init__(self, lexemes: list[_Lex]) -> None:
        self.lexemes = lexemes
        self.at = 0

    def peek(self) -> str | None:
        return self.lexemes[self.at].kind if self.at < len(self.lexemes) else None

    def or_expr(self, depth: int) -> Node | None:
        parts: list[Node] = []
        first = self.and_expr(depth)
        if first is not None:
            parts.append(first)
        while self.peek() == "OR":
            self.at += 1
            nxt = self.and_expr(depth)
            if nxt is not None:
                parts.append(nxt)
        return _join(parts, is_and=False)

    def and_expr(self, depth: int) -> Node | None:
        parts: list[Node] = []

        def add(node: Node | None) -> None:
            if node is not None:
                parts.append(node)

        add(self.unary(depth))
        while True:
            kind = self.peek()
            if kind == "AND":
                self.at += 1
                add(self.unary(depth))
            elif kind in ("OR", ")", None):
                break
            else:
                add(self.unary(depth))
        return _join(parts, is_and=True)

    def unary(self, depth: int) -> Node | None:
        if depth > MAX_DEPTH:
            raise _Malformed
        if self.peek() in ("NOT", "-"):
            self.at += 1
            inner = self.unary(depth + 1)
            if inner is None:
                return None
            return inner.child if isinstance(inner, Not) else Not(inner)
        return self.primary(depth)

    def primary(self, depth: int) -> Node | None:
        if self.at >= len(self.lexemes):
            raise _Malformed
        lex = self.lexemes[self.at]
        self.at += 1
        if lex.kind == "(":
            if self.peek() == ")":
                raise _Malformed
            inner = self.or_expr(depth + 1)
            if self.peek() != ")":
                raise _Malformed
            self.at += 1
            return inner
        if lex.kind in ("word", "phrase"):
            return _atom(lex.text, lex.prefix)
        raise _Malformed


def _literal(query: str) -> Node | None:
    words = "".join(" " if is_space(c) or c in '"()' else c for c in query)
    parts: list[Node] = [a for w in words.split(" ") if w and (a := _atom(w, False)) is not None]
    return _join(parts, is_and=True)


def _count_terms(node: Node) -> int:
    if isinstance(node, Atom):
        return len(node.tokens)
    if isinstance(node, Not):
        return _count_terms(node.child)
    return sum(_count_terms(c) for c in node.children)


def parse(query: str) -> Node | None:
    """The query's AST; ``None`` when it matches nothing. Raises QueryTooLarge like the native."""
    if len(query.encode("utf-8", "surrogatepass")) > MAX_QUERY_BYTES:
        raise QueryTooLarge("query too long")
    node: Node | None
    try:
        lexemes = _lex(query)
        parser = _Parser(lexemes)
        node = parser.or_expr(0) if lexemes else None
        if parser.at != len(lexemes):
            raise _Malformed
    except _Malformed:
        node = _literal(query)
    if node is not None and _count_terms(node) > MAX_QUERY_TERMS:
        raise QueryTooLarge("too many terms")
    return node


# --- evaluation ----------------------------------------------------------------------------------


@dataclass
class Document:
    """A document's terms → positions, for evaluating queries."""

    positions: dict[str, set[int]] = field(default_factory=dict)

    @classmethod
    def of(cls, text: str) -> Document:
        doc = cls()
        for t in analyze(text, "index"):
            doc.positions.setdefault(t.text, set()).add(t.position)
        return doc


def _atom_matches(atom: Atom, doc: Document) -> bool:
    *head, (last_offset, last) = atom.tokens
    if atom.prefix:
        last_positions = {
            p for term, ps in doc.positions.items() if term.startswith(last) for p in ps
        }
    else:
        last_positions = doc.positions.get(last, set())
    for p in last_positions:
        start = p - last_offset
        if all(start + off in doc.positions.get(term, ()) for off, term in head):
            return True
    return False


def evaluate(node: Node, doc: Document) -> bool:
    """Whether ``doc`` matches: AND groups subtract negated parts; bare negations match nothing."""
    if isinstance(node, Atom):
        return _atom_matches(node, doc)
    if isinstance(node, Not):
        return False
    if isinstance(node, Or):
        return any(evaluate(c, doc) for c in node.children)
    positives = [c for c in node.children if not isinstance(c, Not)]
    negatives = [c.child for c in node.children if isinstance(c, Not)]
    if not positives:
        return False
    return all(evaluate(c, doc) for c in positives) and not any(evaluate(c, doc) for c in negatives)


def matches(query: str, text: str) -> bool:
    """Whether the message ``text`` matches ``query`` (ignoring the bounded prefix expansion)."""
    node = parse(query)
    return node is not None and evaluate(node, Document.of(text))


def positive_terms(node: Node | None) -> tuple[set[str], set[str]]:
    """(exact terms, prefixes) of the non-negated atoms: what a snippet may highlight."""
    terms: set[str] = set()
    prefixes: set[str] = set()

    def walk(n: Node | None) -> None:
        if n is None or isinstance(n, Not):
            return
        if isinstance(n, Atom):
            for i, (_, t) in enumerate(n.tokens):
                (prefixes if n.prefix and i == len(n.tokens) - 1 else terms).add(t)
            return
        for c in n.children:
            walk(c)

    walk(node)
    return terms, prefixes
