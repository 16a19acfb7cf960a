"""`tarsim retrieve`: BM25 (bm25s) over a collection or benchmark directory, writing a TREC run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tarsim.cli.common import float_list, plain_float, plain_int
from tarsim.data import write_run
from tarsim.data.paths import check_output_path
from tarsim.errors import ConfigError, require
from tarsim.legal.baseline import subsample
from tarsim.legal.benchmark import load_directory
from tarsim.legal.presets import PRESETS, get_preset
from tarsim.retrieval import ANALYZERS, PreparedCorpus, check_bm25_parameters, get_analyzer, search, tune_bm25


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "directory",
        type=Path,
        help="benchmark directory (tarsim data convert) or collection directory (docs.jsonl, topics.tsv)",
    )
    parser.add_argument("--out", "-o", required=True, help="TREC run to write (atomically)")
    parser.add_argument("--preset", choices=sorted(PRESETS), help="default: the benchmark's own, else 'default'")
    parser.add_argument("--analyzer", choices=sorted(ANALYZERS), help="override the preset's preprocessing")
    parser.add_argument("--k1", type=plain_float, help="override the preset's k1")
    parser.add_argument("--b", type=plain_float, help="override the preset's b")
    parser.add_argument("--depth", type=plain_int, help="documents per query (default: the preset's)")
    parser.add_argument("--split", help="queries to run (default: test if the directory has splits, else all)")
    parser.add_argument(
        "--tune", metavar="MEASURE", help="grid-search k1 and b on the dev split for MEASURE, e.g. R@100"
    )
    parser.add_argument("--tune-split", default="dev", help="split used for --tune (default dev)")
    parser.add_argument("--k1-grid", type=float_list, help="k1 values for --tune (comma-separated)")
    parser.add_argument("--b-grid", type=float_list, help="b values for --tune (comma-separated)")
    parser.add_argument("--no-date-filter", action="store_true", help="ignore the preset's date filter")
    parser.add_argument("--max-queries", type=plain_int, help="subsample each split to this many queries (fixed seed)")
    parser.add_argument("--seed", type=plain_int, default=0, help="seed of --max-queries subsampling")
    parser.add_argument("--tag", default="tarsim-bm25", help="run tag (last column)")
    parser.set_defaults(handler=run)


def check_arguments(args: argparse.Namespace) -> Path:
    """Refuse values that cannot be honoured before any work; return the run file to write."""
    out = check_output_path(args.out, "--out")
    if args.k1 is not None or args.b is not None:
        check_bm25_parameters(
            0.0 if args.k1 is None else args.k1, 0.5 if args.b is None else args.b, k1_name="--k1", b_name="--b"
        )
    if args.depth is not None and args.depth < 1:
        raise ConfigError(f"--depth must be an integer >= 1, got {args.depth}")
    if args.max_queries is not None and args.max_queries < 1:
        raise ConfigError(f"--max-queries must be an integer >= 1, got {args.max_queries}")
    if args.seed < 0:
        raise ConfigError(f"--seed must be an integer >= 0, got {args.seed}")
    if not args.tag or any(c.isspace() for c in args.tag):
        raise ConfigError(f"--tag must be one word (no spaces: it is the run's last column), got {args.tag!r}")
    return out


def run(args: argparse.Namespace) -> int:
    require("bm25s", "legal", "tarsim retrieve")  # said before any work
    out = check_arguments(args)
    benchmark = load_directory(args.directory)
    preset = get_preset(args.preset or benchmark.preset)
    analyzer = get_analyzer(args.analyzer or preset.analyzer)
    split = args.split or ("test" if "test" in benchmark.splits else next(iter(benchmark.splits)))
    queries = subsample(benchmark.split(split), args.max_queries, args.seed)
    depth = args.depth if args.depth is not None else preset.depth
    docs = benchmark.collection
    corpus = PreparedCorpus(docs.docids, [f"{d.title}\n{d.text}" if d.title else d.text for d in docs], analyzer)
    options = {
        "depth": depth,
        "date_filter": None if args.no_date_filter else preset.date_filter,
        "doc_dates": benchmark.doc_dates,
        "query_dates": benchmark.query_dates,
    }
    k1 = args.k1 if args.k1 is not None else preset.k1
    b = args.b if args.b is not None else preset.b
    if args.tune:
        if not benchmark.qrels:
            raise ConfigError("--tune needs relevance judgments (qrels.txt) in the directory")
        if args.tune_split not in benchmark.splits:
            raise ConfigError(f"--tune needs a {args.tune_split!r} split; splits are {', '.join(benchmark.splits)}")
        dev = subsample(benchmark.split(args.tune_split), args.max_queries, args.seed)
        grid = {}
        if args.k1_grid:
            grid["k1_grid"] = args.k1_grid
        if args.b_grid:
            grid["b_grid"] = args.b_grid
        result = tune_bm25(corpus, dev, benchmark.qrels, args.tune, **grid, **options)  # type: ignore[arg-type]
        k1, b = result.k1, result.b
        print(
            f"tuned on {args.tune_split} ({len(dev)} queries): k1={k1:g} b={b:g} {result.measure}={result.score:.4f}",
            file=sys.stderr,
        )
    results = search(corpus, queries, k1=k1, b=b, **options)  # type: ignore[arg-type]
    write_run(out, results, tag=args.tag)
    print(
        f"wrote {out}: {len(results)} queries, k1={k1:g} b={b:g}, analyzer {analyzer_name(analyzer)}",
        file=sys.stderr,
    )
    return 0


def analyzer_name(analyzer: object) -> str:
    """The preset name of an analyzer (or its repr when customised)."""
    return next((name for name, value in ANALYZERS.items() if value == analyzer), repr(analyzer))
