"""False positives of the threat scanner on real benign prose: paragraphs of the READMEs, docs and
docstrings of the installed packages and of the Python standard library (none of it written with
the scanner in mind). Not a timing benchmark: run it after rule changes to see how often ordinary
technical prose is flagged (the goal is 0.2% or less).

    .venv/bin/python -m benchmarks.scan_prose_fp [-v]
"""

from __future__ import annotations

import ast
import random
import sys
import sysconfig
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from hermes.security.scan import scan_many

SAMPLE = 40_000
MIN_CHARS, MAX_CHARS = 60, 2000


def _docstrings(path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node)
            if doc:
                yield doc


def _texts(root: Path) -> Iterator[str]:
    for path in root.rglob("*"):
        try:
            if not path.is_file():
                continue
            if path.suffix == ".py":
                yield from _docstrings(path)
            elif path.suffix in (".md", ".rst", ".txt") or path.name == "METADATA":
                yield path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue


def paragraphs() -> list[str]:
    """A fixed random sample of distinct paragraphs of 60-2000 characters."""
    roots = [Path(sysconfig.get_paths()["purelib"]), Path(sysconfig.get_paths()["stdlib"])]
    found = {
        p.strip()
        for root in roots
        for text in _texts(root)
        for p in text.split("\n\n")
        if MIN_CHARS <= len(p.strip()) <= MAX_CHARS
    }
    sample = sorted(found)
    random.Random(1).shuffle(sample)
    return sample[:SAMPLE]


def main() -> int:
    verbose = "-v" in sys.argv
    texts = paragraphs()
    flagged = [(t, r) for t, r in zip(texts, scan_many(texts), strict=True) if r.flagged]
    rate = len(flagged) / max(1, len(texts))
    print(f"paragraphs {len(texts)}, flagged {len(flagged)} ({rate:.3%}), goal <= 0.2%")
    rules = Counter(f.rule_id for _, r in flagged for f in r.findings)
    for rule_id, count in rules.most_common():
        print(f"  {count:4d}  {rule_id}")
    if verbose:
        for text, result in flagged:
            found = [(f.rule_id, f.excerpt[:60]) for f in result.findings]
            print("-", found, "|", text[:160].replace("\n", " "))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
