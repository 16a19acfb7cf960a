"""Queries per second and peak memory of `tarsim retrieve` on the Reuters doc2doc benchmark (whole stories as
queries) against bm25s used directly with its default settings.

Each measurement runs in its own process (peak RSS is per process). Usage:
    python benchmarks/retrieve_speed.py [--reuters ../shared/datasets/reuters21578] [--depth 1000]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from extras import require_extras  # same folder

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_REUTERS = ROOT.parent / "shared" / "datasets" / "reuters21578"


def timing(mode: str, queries: int, t0: float, t1: float, t2: float, base_mb: float) -> dict:
    """One measured configuration: index time (t0..t1), search time (t1..t2), queries per second, memory."""
    return {
        "mode": mode,
        "queries": queries,
        "index_seconds": t1 - t0,
        "seconds": t2 - t1,
        "qps": queries / (t2 - t1),
        "peak_mb": peak_mb(),
        "base_mb": base_mb,
    }


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(mode: str, bench_dir: Path, depth: int) -> dict:
    from tarsim.legal import load_benchmark

    if mode == "cli":
        from tarsim.cli import main

        n = sum(1 for line in (bench_dir / "splits.tsv").read_text().splitlines() if line.endswith("\ttrain"))
        base_mb = peak_mb()
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            code = main(["retrieve", str(bench_dir), "--out", f"{tmp}/run", "--split", "train", "--depth", str(depth)])
            total = time.perf_counter() - start
        assert code == 0
        return {
            "mode": "tarsim retrieve (CLI, end to end: read, tokenise, index, search, write)",
            "queries": n,
            "seconds": total,
            "qps": n / total,
            "peak_mb": peak_mb(),
            "base_mb": base_mb,
        }
    bench = load_benchmark(bench_dir)
    queries = {t: bench.topics[t] for split in ("train", "dev", "test") for t in bench.splits[split]}
    docs = bench.collection
    texts = [f"{d.title}\n{d.text}" if d.title else d.text for d in docs]
    base_mb = peak_mb()
    if mode == "tarsim":
        from tarsim.legal.presets import get_preset
        from tarsim.retrieval import PreparedCorpus, get_analyzer, search

        preset = get_preset("reuters-doc2doc")
        t0 = time.perf_counter()
        corpus = PreparedCorpus(docs.docids, texts, get_analyzer(preset.analyzer))
        model = corpus.index(preset.k1, preset.b)
        t1 = time.perf_counter()
        run = search(
            corpus,
            queries,
            k1=preset.k1,
            b=preset.b,
            depth=depth,
            model=model,
            date_filter=preset.date_filter,
            doc_dates=bench.doc_dates,
            query_dates=bench.query_dates,
        )
        t2 = time.perf_counter()
        assert len(run) == len(queries)
        return timing("tarsim search (preset english-long, date filter)", len(queries), t0, t1, t2, base_mb)
    import bm25s

    t0 = time.perf_counter()
    model = bm25s.BM25()
    model.index(bm25s.tokenize(texts, show_progress=False), show_progress=False)
    t1 = time.perf_counter()
    tokens = bm25s.tokenize(list(queries.values()), show_progress=False)
    ids, _scores = model.retrieve(tokens, k=depth, show_progress=False)
    t2 = time.perf_counter()
    assert ids.shape == (len(queries), depth)
    return timing(
        "bm25s direct (defaults: k1=1.5 b=0.75, English stop words, no filter)", len(queries), t0, t1, t2, base_mb
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reuters", type=Path, default=DEFAULT_REUTERS)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--child", choices=("cli", "tarsim", "bm25s"))
    parser.add_argument("--bench-dir", type=Path)
    args = parser.parse_args()
    require_extras(__file__, "bm25s")  # before any work
    if args.child:
        print(json.dumps(child(args.child, args.bench_dir, args.depth)))
        return
    from tarsim.datasets import load_dataset
    from tarsim.legal import build_reuters_doc2doc, save_benchmark

    with tempfile.TemporaryDirectory() as tmp:
        bench = build_reuters_doc2doc(load_dataset(args.reuters), seed=0)
        bench_dir = save_benchmark(bench, Path(tmp) / "reuters-doc2doc")
        lengths = sorted(len(bench.topics[t].split()) for t in bench.topics)
        print(
            f"Reuters doc2doc: {len(bench.collection)} documents, {len(bench.topics)} queries, "
            f"median query length {lengths[len(lengths) // 2]} words, depth {args.depth}"
        )
        for mode in ("tarsim", "bm25s", "cli"):
            out = subprocess.run(
                [sys.executable, __file__, "--child", mode, "--bench-dir", str(bench_dir), "--depth", str(args.depth)],
                capture_output=True,
                text=True,
                check=True,
            )
            r = json.loads(out.stdout.strip().splitlines()[-1])
            index = f", index {r['index_seconds']:.2f} s" if "index_seconds" in r else ""
            print(
                f"{r['mode']}: {r['queries']} queries in {r['seconds']:.2f} s = {r['qps']:.0f} queries/s{index}; "
                f"peak RSS {r['peak_mb']:.0f} MB (before the timed part: {r['base_mb']:.0f} MB)"
            )


if __name__ == "__main__":
    main()
