"""Full-text search: Hermes (``hermes._native.SearchIndex``) vs SQLite FTS5 and tantivy-py.

The same seeded messages (``search_corpus``) are indexed by each engine at 10k, 100k and 1M messages
(``--sizes``), then the same 200 queries run top-10 with snippets: single terms, two-term ANDs,
phrases, prefixes, CJK words and code-like words. Each query runs once to warm up, then three times
timed, the engines taking turns query by query; p50/p95 are over the timed runs. Reported per
engine and size: latency, indexing throughput (adds + commit), the merge/optimize step that
follows (Hermes ``close()`` waits for background merges, FTS5 ``optimize``, tantivy-py
``wait_merging_threads``), size on disk.

Anchors, as each is normally used: FTS5 (``unicode61 remove_diacritics 2``, ``ORDER BY rank``,
``snippet()``), tantivy-py 0.27 (default tokenizer, ``conjunction_by_default``, ``SnippetGenerator``
with 160 chars). Neither finds CJK words inside a run of characters, and tantivy-py turns ``conf*``
into the word ``conf``; both are timed on the same query text anyway.

Correctness (exit 1 on a real disagreement): every Hermes hit must match its query under the
reference semantics (``hermes.reference.index``), and at the smallest size the full match sets of
term, AND, phrase and code queries must agree with FTS5 (Jaccard >= 0.99 overall).

Usage: ``python -m benchmarks search`` or ``python -m benchmarks.bench_search --sizes 10k,100k``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import apsw
import tantivy

from benchmarks.search_corpus import Doc, Query, load, make_queries
from hermes._native import SearchIndex
from hermes.reference import index as ref

RESULTS = Path(__file__).parent / "results"
BATCH = 10_000
SNIPPET_CHARS = 160
GOALS = {"p50_100k_ms": 0.5, "p50_1m_ms": 1.5, "p95_1m_ms": 5.0, "vs_fts5": 10.0}
# Query kinds every engine really runs (tantivy-py answers `conf*` as `conf`; neither anchor finds
# CJK words inside a run, so those queries cost them almost nothing).
COMPARABLE = ("term", "and", "phrase", "code")


def hermes_query(q: Query) -> str:
    if q.kind == "phrase":
        return '"' + " ".join(q.words) + '"'
    if q.kind == "prefix":
        return q.words[0] + "*"
    return " ".join(q.words)


def fts5_query(q: Query) -> str:
    if q.kind == "phrase":
        return '"' + " ".join(q.words) + '"'
    if q.kind == "prefix":
        return f'"{q.words[0]}"*'
    return " ".join(f'"{w}"' for w in q.words)


def tantivy_query(q: Query) -> str:
    return hermes_query(q)


def disk_size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size + sum(
            p.stat().st_size for p in path.parent.glob(path.name + "-*") if p.is_file()
        )
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


class Engine:
    name = ""

    def build(self, docs: list[Doc], where: Path) -> tuple[float, float]:
        """Index ``docs``; returns (index seconds, merge seconds)."""
        raise NotImplementedError

    def search(self, q: Query) -> list[tuple[int, str]]:
        """Top 10 (rowid, snippet)."""
        raise NotImplementedError

    def all_matches(self, q: Query, n: int) -> set[int]:
        raise NotImplementedError

    def close(self) -> None:
        pass


class Hermes(Engine):
    name = "hermes"

    def build(self, docs: list[Doc], where: Path) -> tuple[float, float]:
        self.path = str(where / "hermes")
        t0 = time.perf_counter()
        ix = SearchIndex(self.path)
        for i in range(0, len(docs), BATCH):
            ix.add(docs[i : i + BATCH])
        ix.commit(docs[-1][0])
        t1 = time.perf_counter()
        ix.close()  # waits for the background merges
        t2 = time.perf_counter()
        self.ix = SearchIndex(self.path)
        self.disk = where / "hermes"
        return t1 - t0, t2 - t1

    def search(self, q: Query) -> list[tuple[int, str]]:
        return [(h[0], h[6]) for h in self.ix.search(hermes_query(q), 10)]

    def all_matches(self, q: Query, n: int) -> set[int]:
        return {h[0] for h in self.ix.search(hermes_query(q), n, snippet_chars=0)}

    def close(self) -> None:
        self.ix.close()


class Fts5(Engine):
    name = "fts5"

    def build(self, docs: list[Doc], where: Path) -> tuple[float, float]:
        self.disk = where / "fts5.db"
        t0 = time.perf_counter()
        db = apsw.Connection(str(self.disk))
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(
            "CREATE VIRTUAL TABLE m USING fts5(content, session_id UNINDEXED, role UNINDEXED,"
            " source UNINDEXED, ts UNINDEXED, tokenize='unicode61 remove_diacritics 2')"
        )
        with db:
            db.executemany(
                "INSERT INTO m(rowid, session_id, role, source, ts, content) VALUES (?,?,?,?,?,?)",
                docs,
            )
        t1 = time.perf_counter()
        with db:
            db.execute("INSERT INTO m(m) VALUES('optimize')")
        t2 = time.perf_counter()
        self.db = db
        return t1 - t0, t2 - t1

    def search(self, q: Query) -> list[tuple[int, str]]:
        rows = self.db.execute(
            "SELECT rowid, session_id, role, source, ts, snippet(m, 0, '[', ']', '…', 24)"
            " FROM m WHERE m MATCH ? ORDER BY rank LIMIT 10",
            (fts5_query(q),),
        ).fetchall()
        return [(r[0], r[5]) for r in rows]

    def all_matches(self, q: Query, n: int) -> set[int]:
        sql = "SELECT rowid FROM m WHERE m MATCH ?"
        return {r[0] for r in self.db.execute(sql, (fts5_query(q),))}

    def close(self) -> None:
        self.db.close()


class TantivyPy(Engine):
    name = "tantivy-py"

    def build(self, docs: list[Doc], where: Path) -> tuple[float, float]:
        self.disk = where / "tantivy-py"
        self.disk.mkdir()
        sb = tantivy.SchemaBuilder()
        sb.add_integer_field("rowid", stored=True, indexed=True, fast=True)
        for name in ("session_id", "role", "source"):
            sb.add_text_field(name, stored=True, tokenizer_name="raw")
        sb.add_float_field("ts", stored=True, fast=True)
        sb.add_text_field("content", stored=True)
        self.schema = sb.build()
        t0 = time.perf_counter()
        index = tantivy.Index(self.schema, path=str(self.disk))
        writer = index.writer(96_000_000, 0)  # 0: one thread per core, like Hermes
        for rowid, session, role, source, ts, content in docs:
            writer.add_document(
                tantivy.Document(
                    rowid=rowid,
                    session_id=session,
                    role=role,
                    source=source,
                    ts=ts,
                    content=content,
                )
            )
        writer.commit()
        t1 = time.perf_counter()
        writer.wait_merging_threads()
        t2 = time.perf_counter()
        index.reload()
        self.index = index
        self.searcher = index.searcher()
        return t1 - t0, t2 - t1

    def _parse(self, q: Query) -> Any:
        text = tantivy_query(q)
        try:
            return self.index.parse_query(text, ["content"], conjunction_by_default=True)
        except ValueError:
            return self.index.parse_query_lenient(text, ["content"], conjunction_by_default=True)[0]

    def search(self, q: Query) -> list[tuple[int, str]]:
        query = self._parse(q)
        result = self.searcher.search(query, 10, count=False)
        gen = tantivy.SnippetGenerator.create(self.searcher, query, self.schema, "content")
        gen.set_max_num_chars(SNIPPET_CHARS)
        out = []
        for _score, address in result.hits:
            doc = self.searcher.doc(address)
            snippet = gen.snippet_from_doc(doc)
            _ = (doc["session_id"], doc["role"], doc["source"], doc["ts"], snippet.highlighted())
            out.append((doc["rowid"][0], snippet.fragment()))
        return out


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[k]


TIMED_PASSES = 3


def time_queries(engines: list[Engine], queries: list[Query]) -> dict[str, list[float]]:
    """Latency samples (ms) per engine, sample i belonging to ``queries[i % len(queries)]``.

    The engines take turns query by query (in a rotating order), so a noisy neighbour on a shared
    machine slows all of them alike instead of whichever engine happened to be running.
    """
    samples: dict[str, list[float]] = {e.name: [] for e in engines}
    for p in range(TIMED_PASSES):
        for i, q in enumerate(queries):
            k = (i + p) % len(engines)
            for engine in engines[k:] + engines[:k]:
                t0 = time.perf_counter()
                engine.search(q)
                samples[engine.name].append((time.perf_counter() - t0) * 1000)
    return samples


def check_hits(queries: list[Query], results: list[list[int]], docs: list[Doc]) -> list[str]:
    """Hermes hits that do not match their query under the reference semantics."""
    bad = []
    for q, rowids in zip(queries, results, strict=True):
        node = ref.parse(hermes_query(q))
        for rowid in rowids:
            text = docs[rowid - 1][5]
            if node is None or not ref.evaluate(node, ref.Document.of(text)):
                bad.append(f"{hermes_query(q)!r} returned rowid {rowid}")
    return bad


def compare_sets(h: Engine, f: Engine, queries: list[Query], n: int) -> dict[str, float]:
    inter = union = 0
    for q in queries:
        if q.kind not in ("term", "and", "phrase", "code"):
            continue
        a, b = h.all_matches(q, n), f.all_matches(q, n)
        inter += len(a & b)
        union += len(a | b)
    return {"jaccard": inter / union if union else 1.0, "union": union}


def run_size(n: int, docs: list[Doc], queries: list[Query], check_sets: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"size": n, "engines": {}}
    engines: list[Engine] = [Hermes(), Fts5(), TantivyPy()]
    with tempfile.TemporaryDirectory(prefix="bench-search-") as tmp:
        built: dict[str, tuple[float, float, int]] = {}
        for engine in engines:
            where = Path(tmp) / engine.name
            where.mkdir()
            gc.collect()
            index_s, merge_s = engine.build(docs, where)
            built[engine.name] = (index_s, merge_s, disk_size(engine.disk))  # type: ignore[attr-defined]
            print(f"  {n:>9,} {engine.name:<11} indexed in {index_s:6.1f}s", flush=True)
        # Warm-up pass (also the results checked below), then the timed passes.
        results_by = {e.name: [[r for r, _ in e.search(q)] for q in queries] for e in engines}
        samples_by = time_queries(engines, queries)
        for engine in engines:
            index_s, merge_s, size = built[engine.name]
            samples, results = samples_by[engine.name], results_by[engine.name]
            by_kind: dict[str, float] = {}
            for kind in sorted({q.kind for q in queries}):
                ks = [s for i, s in enumerate(samples) if queries[i % len(queries)].kind == kind]
                by_kind[kind] = statistics.median(ks)
            same_work = [
                s for i, s in enumerate(samples) if queries[i % len(queries)].kind in COMPARABLE
            ]
            out["engines"][engine.name] = {
                "p50_comparable_ms": percentile(same_work, 50),
                "p95_comparable_ms": percentile(same_work, 95),
                "index_s": index_s,
                "merge_s": merge_s,
                "msgs_per_s": n / index_s,
                "disk_mb": size / 1e6,
                "p50_ms": percentile(samples, 50),
                "p95_ms": percentile(samples, 95),
                "p50_by_kind_ms": by_kind,
                "queries_with_hits": sum(1 for r in results if r),
                "cjk_queries_with_hits": sum(
                    1 for q, r in zip(queries, results, strict=True) if q.kind == "cjk" and r
                ),
            }
        bad = check_hits(queries, results_by["hermes"], docs)
        out["hermes_hits_not_matching"] = bad[:20]
        overlaps = []
        for q, a, b in zip(queries, results_by["hermes"], results_by["fts5"], strict=True):
            if q.kind in ("term", "and", "phrase") and (a or b):
                overlaps.append(len(set(a) & set(b)) / max(len(a), len(b)))
        out["top10_overlap_with_fts5"] = statistics.mean(overlaps) if overlaps else 1.0
        if check_sets:
            out["match_sets_vs_fts5"] = compare_sets(engines[0], engines[1], queries, n)
        for engine in engines:
            engine.close()
    return out


def parse_size(text: str) -> int:
    text = text.strip().lower()
    mult = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    return int(float(text.rstrip("km")) * mult)


def fmt_table(runs: list[dict[str, Any]]) -> str:
    head = (
        f"{'size':>9} {'engine':<11} {'p50 ms':>8} {'p95 ms':>8} {'msgs/s':>9} {'index s':>8}"
        f" {'merge s':>8} {'disk MB':>8} {'p50 vs H':>9} {'p95 vs H':>9} {'CJK hits':>8}"
        f" {'same-work p50/p95 ms':>21}"
    )
    lines = [head, "-" * len(head)]
    for run in runs:
        h = run["engines"]["hermes"]
        for name, e in run["engines"].items():
            lines.append(
                f"{run['size']:>9,} {name:<11} {e['p50_ms']:>8.3f} {e['p95_ms']:>8.3f}"
                f" {e['msgs_per_s']:>9,.0f} {e['index_s']:>8.1f} {e['merge_s']:>8.1f}"
                f" {e['disk_mb']:>8.1f} {e['p50_ms'] / h['p50_ms']:>8.1f}x"
                f" {e['p95_ms'] / h['p95_ms']:>8.1f}x {e['cjk_queries_with_hits']:>5}/20"
                f" {e['p50_comparable_ms']:>10.3f}/{e['p95_comparable_ms']:<10.3f}"
            )
    return "\n".join(lines)


def goals(runs: list[dict[str, Any]]) -> list[tuple[str, bool | None]]:
    by_size = {r["size"]: r["engines"] for r in runs}
    out: list[tuple[str, bool | None]] = []

    def at(size: int, key: str) -> float | None:
        return by_size[size]["hermes"][key] if size in by_size else None

    for label, value, limit in (
        ("p50 <= 0.5 ms at 100k", at(100_000, "p50_ms"), GOALS["p50_100k_ms"]),
        ("p50 <= 1.5 ms at 1M", at(1_000_000, "p50_ms"), GOALS["p50_1m_ms"]),
        ("p95 <= 5 ms at 1M", at(1_000_000, "p95_ms"), GOALS["p95_1m_ms"]),
    ):
        got = f"{label} (got {value:.3f} ms)" if value is not None else label
        out.append((got, None if value is None else value <= limit))
    if 1_000_000 in by_size:
        h, f = by_size[1_000_000]["hermes"], by_size[1_000_000]["fts5"]
        ratio = f["p95_ms"] / h["p95_ms"]
        out.append(
            (f"1M: p95 >= 10x faster than FTS5 (got {ratio:.1f}x)", ratio >= GOALS["vs_fts5"])
        )
    for size, engines in sorted(by_size.items()):
        h, t = engines["hermes"], engines["tantivy-py"]
        ok = h["p50_ms"] <= t["p50_ms"] and h["p95_ms"] <= t["p95_ms"]
        same = h["p50_comparable_ms"] <= t["p50_comparable_ms"] and (
            h["p95_comparable_ms"] <= t["p95_comparable_ms"]
        )
        out.append((f"{size:,}: no slower than tantivy-py, all 200 queries (p50, p95)", ok))
        out.append((f"{size:,}: no slower than tantivy-py, {'/'.join(COMPARABLE)} queries", same))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_search")
    parser.add_argument("--sizes", default="10k,100k,1M", help="comma-separated, e.g. 10k,100k")
    # Under ``python -m benchmarks search`` the runner's own arguments are in sys.argv: skip them.
    args = parser.parse_known_args(sys.argv[1:] if argv is None else argv)[0]
    sizes = sorted(parse_size(s) for s in args.sizes.split(","))
    t0 = time.perf_counter()
    docs_all = load(max(sizes), RESULTS / "search-corpus")
    print(f"corpus: {len(docs_all):,} messages ({time.perf_counter() - t0:.1f}s)", flush=True)
    queries = make_queries(docs_all[:20_000])
    runs = []
    for i, n in enumerate(sizes):
        runs.append(run_size(n, docs_all[:n], queries, check_sets=i == 0))
    print()
    print(fmt_table(runs))
    status = 0
    print()
    for label, ok in goals(runs):
        print(f"  goal {label}: {'n/a' if ok is None else 'met' if ok else 'NOT met'}")
    for run in runs:
        sets = run.get("match_sets_vs_fts5")
        note = f"; full match sets vs FTS5: Jaccard {sets['jaccard']:.4f}" if sets else ""
        print(
            f"  {run['size']:,}: top-10 overlap with FTS5 {run['top10_overlap_with_fts5']:.2f}"
            f" (term/AND/phrase){note}"
        )
        if run["hermes_hits_not_matching"]:
            status = 1
            print("  DISAGREEMENT: Hermes hits that do not contain the query:")
            for line in run["hermes_hits_not_matching"]:
                print("    ", line)
        if sets and sets["jaccard"] < 0.99:
            status = 1
            print("  DISAGREEMENT: match sets differ from FTS5 beyond tokenizer differences")
    RESULTS.mkdir(parents=True, exist_ok=True)
    report = {"runs": runs, "goals": goals(runs), "cpus": os.cpu_count(), "queries": len(queries)}
    (RESULTS / "search.json").write_text(json.dumps(report, indent=2))
    print(f"\nwrote {RESULTS / 'search.json'} in {time.perf_counter() - t0:.0f}s total")
    return status


if __name__ == "__main__":
    sys.exit(main())
