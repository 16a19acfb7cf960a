"""`tarsim bench NAME`: a legal benchmark's BM25 baseline with its preset, printed in the paper's layout."""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from dataclasses import replace
from pathlib import Path

from tarsim.cli.common import float_list, plain_int
from tarsim.data import atomic_write, read_decisions, write_run
from tarsim.data.paths import check_output_path
from tarsim.datasets.catalogue import data_dir
from tarsim.errors import ConfigError, InputWarning, require
from tarsim.legal.baseline import BaselineResult, CorpusCache, doc2doc_ablation, run_config
from tarsim.legal.benchmark import Benchmark
from tarsim.legal.convert import BENCHMARKS, load_any
from tarsim.legal.presets import BM25_VARIANTS, Preset, get_preset
from tarsim.legal.tables import benchmark_report, decisions_table, results_payload
from tarsim.metrics.averaging import AVERAGES
from tarsim.retrieval import B_GRID, K1_GRID, get_analyzer


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", choices=BENCHMARKS)
    parser.add_argument(
        "--data",
        type=Path,
        help="published files or converted directory (default: the fetch cache; "
        "reuters-doc2doc: a reuters21578 collection directory)",
    )
    parser.add_argument("--no-tune", action="store_true", help="skip the k1/b grid search (doc2doc presets)")
    parser.add_argument(
        "--no-ablation",
        action="store_true",
        help="doc2doc: only the preset's row, not the default/tuned x raw/preprocessed table",
    )
    parser.add_argument("--k1-grid", type=float_list, default=list(K1_GRID), help="k1 values for tuning")
    parser.add_argument("--b-grid", type=float_list, default=list(B_GRID), help="b values for tuning")
    parser.add_argument("--max-queries", type=plain_int, help="subsample the dev and test splits (fixed seed)")
    parser.add_argument("--seed", type=plain_int, default=0, help="seed of splits (reuters-doc2doc) and subsampling")
    parser.add_argument("--runs", help="folder to write each configuration's TREC run into")
    parser.add_argument("--json", help="write the tables' figures and per-query values as JSON")
    parser.add_argument(
        "--missing",
        choices=("zero", "skip"),
        default="zero",
        help="evaluated queries that retrieved nothing: score 0 as trec_eval -c (zero, default) or leave out (skip)",
    )
    parser.add_argument(
        "--average",
        choices=AVERAGES,
        help="mean over all queries, one with no relevant document scoring 0 (all), or over the queries in the qrels "
        "as trec_eval -c (judged); default: the benchmark's published choice (pd, bbsard: all)",
    )
    parser.add_argument(
        "--bm25",
        choices=BM25_VARIANTS,
        help="bm25s's Lucene BM25, or BSARD's official BM25 (bsard); default: the preset's (bbsard: bsard)",
    )
    parser.add_argument(
        "--all-measures", action="store_true", help="more measures than the paper's table (bbsard: every cut-off)"
    )
    parser.add_argument("--decisions", type=Path, help="pd: binary reranker decisions `topic docid label`")
    parser.set_defaults(handler=run)


def _progress(line: str) -> None:
    print(line, file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    require("bm25s", "legal", "tarsim bench")  # every baseline tokenises with bm25s: said before any work
    runs_dir = check_output_path(args.runs, "--runs", directory=True) if args.runs is not None else None
    json_path = check_output_path(args.json, "--json") if args.json is not None else None
    if args.max_queries is not None and args.max_queries < 1:
        raise ConfigError(f"--max-queries must be >= 1, got {args.max_queries}")
    source = args.data
    if source is None:
        if args.name == "reuters-doc2doc":
            raise ConfigError("reuters-doc2doc needs --data pointing at a reuters21578 collection directory")
        source = data_dir() / args.name
        if not source.exists():
            raise ConfigError(f"{source} does not exist: run `tarsim data fetch {args.name}` or pass --data DIR")
    benchmarks = load_any(args.name, source, seed=args.seed)
    options = {
        "max_queries": args.max_queries,
        "seed": args.seed,
        "k1_grid": args.k1_grid,
        "b_grid": args.b_grid,
        "progress": _progress,
        "missing": args.missing,
    }
    results: dict[str, list[BaselineResult]] = {}
    caches = {benchmark.name: CorpusCache(benchmark) for benchmark in benchmarks}
    for benchmark in benchmarks:
        preset = _preset(benchmark.preset, args)
        cache = caches[benchmark.name]
        if preset.doc2doc and not args.no_ablation:
            results[benchmark.name] = doc2doc_ablation(benchmark, preset, cache, tune=not args.no_tune, **options)
        else:
            label = f"BM25 {preset.analyzer}" + (", k1/b tuned" if preset.tune and not args.no_tune else "")
            label += ", BSARD's BM25" if preset.bm25 == "bsard" else ""
            results[benchmark.name] = [
                run_config(
                    benchmark,
                    preset,
                    cache,
                    label=label,
                    analyzer=get_analyzer(preset.analyzer),
                    tune=not args.no_tune,
                    **options,
                )
            ]
    first = benchmarks[0]
    preset = _preset(first.preset, args)
    print(benchmark_report(args.name, benchmarks, results, caches, preset))
    decision_figures = None
    if args.decisions:
        decision_figures = _decisions(first, preset, args.decisions)
        print(decisions_table(decision_figures))
    for name, rows in results.items():
        for row in rows:
            if row.tuning is not None:
                print(
                    f"{name}: {row.label}: tuned on {preset.tune_split} for {row.tuning.measure}: "
                    f"k1={row.k1:g} b={row.b:g} (dev {row.tuning.score:.4f})",
                    file=sys.stderr,
                )
    if runs_dir is not None:
        for name, rows in results.items():
            for index, row in enumerate(rows):
                write_run(runs_dir / f"{name}.{index}.run", row.run, tag=f"bm25-{index}")
    if json_path is not None:
        with atomic_write(json_path) as handle:
            json.dump(results_payload(results, decision_figures), handle, indent=1, sort_keys=True)
            handle.write("\n")
    return 0


def _decisions(benchmark: Benchmark, preset: Preset, path: Path) -> dict[str, float | int]:
    """Evaluate a decisions file on the evaluation split, leaving out (with one warning line and counts) the
    decisions on a topic outside that split or a document outside the corpus."""
    from tarsim.metrics import evaluate_decisions
    from tarsim.metrics.decisions import known_decisions

    split = preset.eval_split
    topics = list(benchmark.split(split))
    decisions, left_out = known_decisions(read_decisions(path), set(topics), benchmark.collection)
    if left_out.unknown_topic or left_out.unknown_document:
        reasons = []
        if left_out.unknown_topic:
            reasons.append(f"{left_out.unknown_topic:,} on a topic not in {benchmark.name}'s {split} split")
        if left_out.unknown_document:
            reasons.append(f"{left_out.unknown_document:,} on a document not in its corpus")
        warnings.warn(
            f"{path}: {left_out.unknown_topic + left_out.unknown_document:,} of {left_out.total:,} decisions "
            f"left out ({', '.join(reasons)})",
            InputWarning,
            stacklevel=2,
        )
    qrels = {topic: benchmark.qrels[topic] for topic in topics if topic in benchmark.qrels}
    return evaluate_decisions(qrels, decisions)


def _preset(name: str, args: argparse.Namespace) -> Preset:
    """The benchmark's preset with the command line's --average, --bm25 and --all-measures applied."""
    preset = get_preset(name)
    changes: dict[str, object] = {}
    if args.average is not None:
        changes["average"] = args.average
    if args.bm25 is not None:
        if args.bm25 == "bsard" and (preset.doc2doc or preset.date_filter is not None):
            raise ConfigError(f"--bm25 bsard: BSARD's BM25 has no date filter or doc2doc mode, which {name} needs")
        changes["bm25"] = args.bm25
    if args.all_measures and preset.all_measures:
        changes["measures"] = preset.all_measures
    return replace(preset, **changes) if changes else preset
