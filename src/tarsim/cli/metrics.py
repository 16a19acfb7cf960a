"""`tarsim metrics INPUT...`: ASReview Insights' measures (WSS, RRF, ERF, TD/ATD) and more of any review: tarsim
simulate outputs and ledgers, ASReview project files (.asreview) and plain order files."""

from __future__ import annotations

import argparse
import json
import sys

from tarsim.cli.common import plain_float
from tarsim.metrics.insights import PRIORS


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "inputs",
        nargs="+",
        metavar="INPUT",
        help="a `tarsim simulate` output or ledger directory, ledger files, ASReview .asreview projects, order files",
    )
    parser.add_argument(
        "--format",
        choices=("table", "json", "csv", "markdown", "latex"),
        default="table",
        help="output (default: table); markdown and latex: the per-group table (mean ± sd [95%% CI]), as --group-by "
        "gives it in every format",
    )
    parser.add_argument(
        "--group-by",
        metavar="FIELDS",
        help="a table per group instead of per review: fields comma separated, e.g. collection,tool (tool, "
        "collection, topic, any ledger config or header field; default with markdown/latex: tool)",
    )
    parser.add_argument(
        "--baseline",
        metavar="VALUE",
        help="paired tests of every group against this one (a value of the --group-by fields besides collection and "
        "topic, e.g. a preset): runs paired by collection, topic and seed as in compare; Wilcoxon signed-rank test "
        "per measure, Holm-adjusted over the groups tested (default group: tool)",
    )
    parser.add_argument(
        "--priors",
        choices=PRIORS,
        default="exclude",
        help="leave prior records out of every measure (default, as ASReview Insights) or count them (--priors there)",
    )
    parser.add_argument(
        "--recall",
        choices=("presented", "found"),
        default="presented",
        help="a relevant document counts when presented (default) or when presented and labelled relevant",
    )
    for name, what, default in (
        ("wss", "WSS at recall level L", "0.95 and 1"),
        ("rrf", "RRF (Insights' --recall) after screening share L of the records", "0.05 and 0.1"),
        ("erf", "ERF after screening share L of the records", "0.1"),
    ):
        parser.add_argument(
            f"--{name}",
            action="append",
            type=plain_float,
            metavar="L",
            help=f"{what}, a share 0-1 as `asreview metrics --{'recall' if name == 'rrf' else name}` takes it; "
            f"repeatable; replaces the default ({default})",
        )
    parser.add_argument(
        "--measures",
        metavar="clef|NAMES",
        help="CLEF TAR's measures instead (`clef`, or names comma separated: wss_95,loss_er), as its official "
        "script computes them on the run of each review (review order, every document AF; docs/clef.md)",
    )
    parser.add_argument("--qrels", metavar="FILE", help="qrels giving R, N and relevance to order files")
    parser.add_argument("--out", metavar="FILE", help="write the output to FILE instead of printing it")
    parser.set_defaults(handler=run)


def load_reviews(inputs, qrels_path: str | None = None) -> list:
    """Ledgers of every input: directories searched for ledgers, files read by their kind (tarsim.interop.order)."""
    from tarsim.data.qrels import read_qrels
    from tarsim.reporting.compare import load_ledgers

    return load_ledgers(inputs, read_qrels(qrels_path) if qrels_path else None)


def run(args: argparse.Namespace) -> int:
    from tarsim.data.atomic import atomic_write
    from tarsim.data.paths import check_output_path
    from tarsim.errors import ConfigError
    from tarsim.metrics.insights import Levels, metrics_document
    from tarsim.reporting.tables import format_metrics_table, metrics_frame
    from tarsim.version import __version__

    levels = Levels.given(wss=args.wss, rrf=args.rrf, erf=args.erf)
    out = check_output_path(args.out) if args.out is not None else None  # refused before any work
    if args.measures is not None:
        if args.baseline is not None:  # not silently ignored
            raise ConfigError("--baseline tests Insights' measures per group; it does not apply to --measures")
        return _clef(args, out)
    ledgers = load_reviews(args.inputs, args.qrels)
    document = metrics_document(ledgers, args.priors, version=__version__, recall=args.recall, levels=levels)
    if args.group_by or args.baseline is not None or args.format in ("markdown", "latex"):
        text = _grouped(document, ledgers, args)
    elif args.format == "json":
        text = json.dumps(document, indent=2, sort_keys=True) + "\n"
    elif args.format == "csv":
        text = metrics_frame(document).to_csv(index=False, lineterminator="\n")
    else:
        text = format_metrics_table(document) + "\n"
    if out is not None:
        with atomic_write(out) as handle:
            handle.write(text)
        print(f"{len(document['reviews'])} review(s) measured, written to {args.out}")
    else:
        sys.stdout.write(text)
    return 0


def _grouped(document: dict, ledgers: list, args: argparse.Namespace) -> str:
    """`--group-by` (or markdown/latex, or --baseline): one row per group, each measure's mean ± sd [95% CI]; with
    --baseline, then the paired tests against it."""
    from tarsim.reporting.study_tables import STRATA, format_grouped_metrics, grouped_metrics

    fields = [field.strip() for field in (args.group_by or "tool").split(",") if field.strip()]
    if args.baseline is not None and all(field in STRATA for field in fields):  # groups to test: named by tool
        fields.append("tool")
    rows = grouped_metrics(document, ledgers, fields, args.baseline)
    note = f"Insights' measures, priors {document['priors']}d; recall {document['recall']}"
    return format_grouped_metrics(rows, fields, args.format, note, args.baseline)


def _clef(args: argparse.Namespace, out) -> int:
    """`--measures clef`: the CLEF measures of every review, printed as the official script prints them."""
    from tarsim.data.atomic import atomic_write
    from tarsim.errors import ConfigError
    from tarsim.metrics.clef import MEASURES, clef_measure_names
    from tarsim.reporting.clef_tables import ledger_measures

    pieces = [piece.strip() for piece in args.measures.split(",") if piece.strip()]
    unknown = [p for p in pieces if p != "clef" and p.removeprefix("clef:") not in MEASURES]
    if unknown or not pieces:
        raise ConfigError(
            f"--measures takes clef or CLEF measure names ({', '.join(MEASURES)}), got {', '.join(unknown) or '-'}"
        )
    names = clef_measure_names([p if p == "clef" else f"clef:{p.removeprefix('clef:')}" for p in pieces]) or []
    ledgers = load_reviews(args.inputs, args.qrels)
    text = ledger_measures(ledgers, names, args.format, args.priors)
    if out is None:
        sys.stdout.write(text)
        return 0
    with atomic_write(out) as handle:
        handle.write(text)
    print(f"{len(ledgers)} review(s) measured, written to {args.out}")
    return 0
