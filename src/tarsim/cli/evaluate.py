"""`tarsim evaluate`: score TREC runs against qrels, or compare runs with paired significance tests."""

from __future__ import annotations

import argparse
import csv
import json
import sys
import warnings
from pathlib import Path

from tarsim.cli.common import plain_int
from tarsim.data import read_qrels
from tarsim.data.runs import RunTable, read_run_table  # columns read at C speed (a dict where they cannot be)
from tarsim.errors import ConfigError, InputError, InputWarning
from tarsim.interop.clef_runs import read_clef_run
from tarsim.metrics import DEFAULT_MEASURES, evaluate_run, parse_measures
from tarsim.metrics.averaging import AVERAGES, average, averaged_per_query
from tarsim.metrics.clef import ClefEvaluation, clef_measure_names, evaluate_clef
from tarsim.metrics.compare_runs import compare_runs
from tarsim.metrics.ranked import MISSING, SCORE_TYPES, check_run_coverage
from tarsim.reporting.clef_tables import render

FORMATS = ("table", "json", "csv")
MAX_RESAMPLES = 10_000_000
"""More resamples than this would run for hours without changing a reported p-value's first digits."""


def register(parser: argparse.ArgumentParser) -> None:
    """Add the evaluate arguments."""
    parser.add_argument("qrels", help="TREC qrels file (topic iteration docid relevance)")
    parser.add_argument("run", nargs="?", help="TREC run file (topic Q0 docid rank score tag)")
    parser.add_argument(
        "-m",
        "--measure",
        "--measures",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help="measure in ir_measures syntax, repeatable: R@100 nDCG@20 RPrec AP@100 RR@10 Success@5 "
        f"R(rel=2)@100 ... (default: {' '.join(m.name for m in DEFAULT_MEASURES)}); or `clef`: CLEF TAR's "
        "measures as its official script computes them, on a run `topic interaction pmid rank score run` "
        "(or some of them by name, comma separated: wss_95,loss_er; docs/clef.md)",
    )
    parser.add_argument(
        "--per-query", action="store_true", help="also print the values of every topic the aggregate is over"
    )
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format (default: table)")
    parser.add_argument(
        "--compare",
        nargs="+",
        action="extend",
        metavar="RUN",
        help="compare runs: paired t-test and randomisation test of each run against the first (repeatable)",
    )
    parser.add_argument(
        "--missing",
        choices=MISSING,
        default="zero",
        help="qrels topics without a run line: score 0 as trec_eval -c (zero, default) or leave out (skip)",
    )
    parser.add_argument(
        "--average",
        choices=AVERAGES,
        default="judged",
        help="mean over the qrels topics, as trec_eval -c (judged, default; with --missing skip: those in the "
        "run, as trec_eval), or also over the run topics not in the qrels, each scoring 0 (all)",
    )
    parser.add_argument(
        "--scores",
        choices=list(SCORE_TYPES),
        default="float32",
        help="compare scores as float32, as trec_eval <= 9.0.8, pytrec_eval and ir_measures (default), or as "
        "float64, as trec_eval 10.0: scores equal in float32 tie (ordered by docid) or not",
    )
    parser.add_argument("--seed", type=plain_int, default=0, help="randomisation-test seed (default: 0)")
    parser.add_argument(
        "--resamples", type=plain_int, default=10000, help="randomisation-test resamples (default: 10000)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Evaluate one run, or compare several; print to stdout."""
    clef = clef_measure_names(args.measures) if args.measures else None
    if clef is not None:
        return evaluate_clef_run(args, clef)
    measures = parse_measures(args.measures) if args.measures else list(DEFAULT_MEASURES)
    if args.seed < 0:
        raise ConfigError(f"--seed must be an integer >= 0, got {args.seed}")
    if args.resamples < 1:
        raise ConfigError(f"--resamples must be an integer >= 1, got {args.resamples}")
    if args.resamples > MAX_RESAMPLES:
        raise ConfigError(f"--resamples must be at most {MAX_RESAMPLES:,}, got {args.resamples}")
    if (args.run is None) == (args.compare is None):
        raise InputError("tarsim evaluate", None, "give either one RUN or --compare RUN_A RUN_B ...")
    qrels = read_qrels(args.qrels)
    if not any(grade > 0 for judged in qrels.values() for grade in judged.values()):
        raise InputError(args.qrels, None, "no topic has a relevant document (relevance > 0)")
    if args.compare is not None:
        if len(args.compare) < 2:
            raise InputError("tarsim evaluate", None, "--compare needs at least two runs")
        if args.per_query:  # it would be silently ignored: the comparison prints means and tests only
            raise InputError("tarsim evaluate", None, "--per-query applies to one RUN, not to --compare")
        if args.average != "judged":  # paired tests pair the qrels topics the runs share
            raise InputError("tarsim evaluate", None, f"--average {args.average} applies to one RUN, not to --compare")
        return _compare(args, qrels, measures)
    run = read_run_table(args.run)
    _check_coverage(qrels, run, args.missing, args.run, args.average)
    per_query = evaluate_run(qrels, run, measures, missing=args.missing, scores=args.scores)
    names = [m.name for m in measures]
    run_topics = list(run.topics) if isinstance(run, RunTable) else [t for t, docs in run.items() if docs]
    covered = set(run_topics)
    topics = [t for t in dict.fromkeys([*qrels, *run_topics]) if args.missing == "zero" or t in covered]
    summary = average(per_query, names, mode=args.average, topics=topics)
    listed = averaged_per_query(per_query, names, mode=args.average, topics=topics) if args.per_query else None
    _print_evaluation(args.format, names, summary, listed)
    return 0


def _check_coverage(qrels, run, missing: str, path: str, average: str = "judged") -> None:
    """Print the coverage warnings on every call (Python shows a repeated warning only once per process)."""
    with warnings.catch_warnings():
        warnings.simplefilter("always", InputWarning)
        check_run_coverage(qrels, run, missing, path, average=average)


def _number(value: float) -> str:
    return f"{value:.4f}"


def _print_evaluation(fmt: str, names: list[str], summary: dict[str, float], per_query) -> None:
    out = sys.stdout
    if fmt == "json":
        document: dict[str, object] = {"aggregate": {n: summary[n] for n in names if n in summary}}
        if per_query is not None:
            document["per_query"] = per_query
        out.write(json.dumps(document, indent=2) + "\n")
    elif fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["topic", "measure", "value"])
        for topic, scores in (per_query or {}).items():
            writer.writerows([topic, n, repr(scores[n])] for n in names if n in scores)
        writer.writerows(["all", n, repr(summary[n])] for n in names if n in summary)
    else:
        if per_query is None:
            width = max(len(n) for n in names)
            for name in names:
                value = _number(summary[name]) if name in summary else "-"
                out.write(f"{name:<{width}}  {value}\n")
            return
        rows = [[topic, *(_number(s[n]) if n in s else "-" for n in names)] for topic, s in per_query.items()]
        rows.append(["all", *(_number(summary[n]) if n in summary else "-" for n in names)])
        _print_table(["topic", *names], rows)


def _print_table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        pairs = enumerate(zip(row, widths, strict=True))
        cells = [str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in pairs]
        sys.stdout.write("  ".join(cells).rstrip() + "\n")


def run_labels(paths: list[str]) -> dict[str, str]:
    """How `--compare` names each run: its file name, or, where file names collide, the shortest path suffix
    (`x/r.run`, `y/r.run`) that tells the colliding runs apart (the whole path when no suffix does)."""
    parts = {path: Path(path).parts or (path,) for path in paths}
    depth = dict.fromkeys(paths, 1)
    while True:
        labels = {path: "/".join(parts[path][-depth[path] :]) for path in paths}
        groups: dict[str, list[str]] = {}
        for path in dict.fromkeys(paths):
            groups.setdefault(labels[path], []).append(path)
        grow = [p for group in groups.values() if len(group) > 1 for p in group if depth[p] < len(parts[p])]
        if not grow:
            return labels
        for path in grow:
            depth[path] += 1


def _compare(args: argparse.Namespace, qrels, measures) -> int:
    runs = [(path, read_run_table(path)) for path in args.compare]
    for path, run in runs:
        _check_coverage(qrels, run, args.missing, path)
    base_path = runs[0][0]
    labels = run_labels([path for path, _ in runs])
    results = compare_runs(
        qrels,
        runs,
        measures,
        seed=args.seed,
        resamples=args.resamples,
        missing=args.missing,
        source=args.qrels,
        scores=args.scores,
    )
    if args.format == "json":
        document = {"seed": args.seed, "resamples": args.resamples, "tests": results}
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
    elif args.format == "csv":
        writer = csv.DictWriter(sys.stdout, fieldnames=list(results[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(results)
    else:
        header = ["measure", "run", "mean", "vs first", "diff", "t", "p(t-test)", "p(random)", "n"]
        rows = [
            [
                r["measure"],
                labels[str(r["run_b"])],
                _number(r["mean_b"]),
                _number(r["mean_a"]),
                f"{r['diff']:+.4f}",
                f"{r['t']:.3f}",
                f"{r['p_t']:.4g}",
                f"{r['p_rand']:.4g}",
                str(r["n"]),
            ]
            for r in results
        ]
        _print_table(header, rows)
        sys.stdout.write(
            f"first run: {base_path}; paired t-test (scipy.stats.ttest_rel) and two-sided randomisation test "
            f"(scipy.stats.permutation_test, {args.resamples} resamples, seed {args.seed})\n"
        )
    return 0


def evaluate_clef_run(args: argparse.Namespace, names: list[str]) -> int:
    """Evaluate args.run against args.qrels with the CLEF measures `names`; print to stdout, notes to stderr."""
    if args.compare is not None or args.run is None:
        raise InputError("tarsim evaluate", None, "CLEF measures evaluate one RUN (no --compare)")
    ranked_only = [
        option
        for option, value, default in (
            ("--missing", args.missing, "zero"),
            ("--average", args.average, "judged"),
            ("--scores", args.scores, "float32"),
        )
        if value != default
    ]
    if ranked_only:
        raise InputError(
            "tarsim evaluate", None, f"{', '.join(ranked_only)} apply to ranked-list measures, not to CLEF's"
        )
    qrels = read_qrels(args.qrels)
    evaluation = evaluate_clef(qrels, read_clef_run(args.run), source=args.qrels)
    _notes(evaluation)
    extra = {"skipped_topics": evaluation.skipped, "duplicates": len(evaluation.duplicates)}
    sys.stdout.write(render(evaluation.topics, evaluation.aggregate, names, args.format, extra))
    return 0


def _notes(evaluation: ClefEvaluation) -> None:
    """What the script prints beside the measures, on stderr: skipped topics and duplicate documents."""
    for topic in evaluation.skipped:
        print(f"tarsim: note: skipping topic {topic}: no relevant document in the qrels", file=sys.stderr)
    if evaluation.duplicates:
        topic, docid, line = evaluation.duplicates[0]
        print(
            f"tarsim: note: {len(evaluation.duplicates):,} repeated document(s) skipped, as the official script "
            f"does (first: topic {topic}, docid {docid}, run line {line})",
            file=sys.stderr,
        )
