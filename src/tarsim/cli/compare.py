"""`tarsim compare`: policies side by side (Recall@E, WSS@95, effort to 95% recall) with paired tests."""

from __future__ import annotations

import argparse
import json
import sys

from tarsim.components import validate


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "ledgers", nargs="+", metavar="LEDGER_DIR", help="ledger directories or files (searched recursively)"
    )
    parser.add_argument("--baseline", required=True, metavar="NAME", help="the group the others are tested against")
    parser.add_argument(
        "--effort", default="judge", metavar="MODEL", help="effort model of Recall@E and effort to 95%%"
    )
    parser.add_argument(
        "--group-by",
        metavar="FIELDS",
        help="config fields that name a group, comma separated (default: those that differ)",
    )
    parser.add_argument(
        "--recall",
        choices=("presented", "found"),
        default="presented",
        help="recall counts relevant documents presented (the paper's, default) or presented and labelled relevant",
    )
    parser.add_argument("--format", choices=["table", "csv", "json"], default="table")
    parser.add_argument("--seed", type=int, default=0, help="seed of the randomisation test")
    parser.add_argument("--out", metavar="FILE", help="write here (atomically) instead of standard output")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from tarsim.data.atomic import atomic_write
    from tarsim.data.paths import check_output_path
    from tarsim.reporting.compare import compare, comparison_json, format_comparison, load_ledgers

    validate("effort", args.effort)
    out = check_output_path(args.out) if args.out is not None else None  # refused before any work
    ledgers = load_ledgers(args.ledgers)
    group_by = [f.strip() for f in args.group_by.split(",")] if args.group_by else None
    result = compare(ledgers, args.baseline, args.effort, group_by=group_by, seed=args.seed, recall=args.recall)
    if args.format == "table":
        text = format_comparison(result) + "\n"
    elif args.format == "csv":
        text = result.frame().to_csv(index=False, lineterminator="\n")
    else:
        text = json.dumps(comparison_json(result), indent=2, sort_keys=True) + "\n"
    if out is not None:
        with atomic_write(out) as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0
