"""``python -m benchmarks``: run every benchmark module in turn (``make bench``)."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def main() -> int:
    names = sorted(
        m.name
        for m in pkgutil.iter_modules([str(Path(__file__).parent)])
        if m.name.startswith("bench_")
    )
    only = set(sys.argv[1:])
    failed = []
    for name in names:
        if only and name not in only and name.removeprefix("bench_") not in only:
            continue
        print(f"\n=== {name} ===", flush=True)
        module = importlib.import_module(f"benchmarks.{name}")
        if module.main() != 0:
            failed.append(name)
    if failed:
        print(f"\nbenchmarks whose results disagreed with their anchor: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
