"""`tarsim compare`: policies side by side (Recall@E, WSS@95, effort to 95% recall) with paired tests."""

from __future__ import annotations

import argparse
import json
import sys

from tarsim.cli.common import plain_int
from tarsim.components import validate

WSS_NOTE = " (WSS@95 counts documents whatever the effort model)"
"""Said beside a non-judgment effort model: WSS is a share of documents not screened, not of effort."""


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "ledgers", nargs="+", metavar="LEDGER_DIR", help="ledger directories or files (searched recursively)"
    )
    parser.add_argument(
        "--baseline",
        metavar="NAME",
        help="the group the others are tested against (without it: the per-group table alone, no tests)",
    )
    parser.add_argument(
        "--effort", default="judge", metavar="MODEL", help="effort model of Recall@E and effort to 95%%"
    )
    parser.add_argument(
        "--group-by",
        metavar="FIELDS",
        help="fields that name a group, comma separated (default: the config fields that differ): any ledger "
        "config or header field, tool, and collection or topic for a table per dataset (groups compared within each)",
    )
    parser.add_argument(
        "--measure",
        action="append",
        metavar="NAME",
        help="this measure in the per-group table (repeatable; default: WSS@95, Recall@2R+100 and 'effort to 95%% "
        "recall' in text tables, every measure in csv and json); without it, --group-by collection or topic, or "
        "markdown/latex, --baseline prints every measure side by side",
    )
    parser.add_argument(
        "--recall",
        choices=("presented", "found"),
        default="presented",
        help="recall counts relevant documents presented (the paper's, default) or presented and labelled relevant",
    )
    parser.add_argument(
        "--format",
        choices=["table", "markdown", "latex", "csv", "json"],
        default="table",
        help="markdown or latex: the per-group table with 95%% CIs, then the Holm-adjusted tests; table (default): "
        "the same with --group-by collection or topic, --measure or no --baseline, else every measure side by side "
        "(measures as rows, a column per group); csv and json: the rows of whichever table",
    )
    parser.add_argument("--seed", type=plain_int, default=0, help="seed of the randomisation test")
    parser.add_argument("--out", metavar="FILE", help="write here (atomically) instead of standard output")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from tarsim.data.atomic import atomic_write
    from tarsim.data.paths import check_output_path
    from tarsim.reporting.compare import compare, load_ledgers, with_priors_line
    from tarsim.reporting.study_tables import format_grouped_comparison, grouped_comparison, split_fields

    validate("effort", args.effort)
    out = check_output_path(args.out) if args.out is not None else None  # refused before any work
    ledgers = load_ledgers(args.ledgers)
    strata, fields = split_fields(args.group_by)
    tests = args.baseline is not None
    if strata or args.measure or args.format in ("markdown", "latex") or not tests:  # the per-group table
        rows = grouped_comparison(ledgers, args.baseline or "", args.effort, strata, fields or None, args.measure,
                                  args.recall, args.seed, tests=tests)  # fmt: skip
        note = f"effort model {args.effort}{WSS_NOTE if args.effort != 'judge' else ''}; recall {args.recall}"
        note = with_priors_line(note, ledgers, rows)
        text = format_grouped_comparison(rows, strata, args.format, args.baseline or "", note, bool(args.measure))
        if not tests:
            groups = ", ".join(repr(group) for group in dict.fromkeys(row["group"] for row in rows))
            print(f"tarsim compare: paired tests need --baseline GROUP (groups: {groups})", file=sys.stderr)
    else:
        text = _plain(compare(ledgers, args.baseline, args.effort, group_by=fields or None, seed=args.seed,
                              recall=args.recall), args.format)  # fmt: skip
    if out is not None:
        with atomic_write(out) as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0


def _plain(result, fmt: str) -> str:
    """The comparison without dataset fields, as before: side by side (table), or its rows (csv, json)."""
    from tarsim.reporting.compare import comparison_json, format_comparison

    if fmt == "table":
        return format_comparison(result) + "\n"
    if fmt == "csv":
        return result.frame().to_csv(index=False, lineterminator="\n")
    return json.dumps(comparison_json(result), indent=2, sort_keys=True) + "\n"
