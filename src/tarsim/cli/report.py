"""`tarsim report OUT`: recompute the per-topic, Recall@E and hours-to-recall tables from the ledgers alone."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

from tarsim.components import validate
from tarsim.errors import InputError
from tarsim.reporting.tables import DEFAULT_EFFORT_MODELS, format_review_tables


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", metavar="OUT", help="a `tarsim simulate` output directory")
    parser.add_argument("--effort", action="append", metavar="MODEL", help="effort model (repeatable)")
    parser.add_argument(
        "--recall",
        choices=("presented", "found"),
        default="presented",
        help="recall counts relevant documents presented (the paper's, default) or presented and labelled relevant",
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help="also rewrite OUT/recall_at_effort.csv and OUT/summary.json for these effort models",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from tarsim.api.review import SimulationResult
    from tarsim.data.output_lock import output_lock, writer_of
    from tarsim.reporting.tables import write_simulation_reports

    effort = tuple(args.effort or DEFAULT_EFFORT_MODELS)
    for model in effort:
        validate("effort", model)
    writer = None if args.write else writer_of(args.out)  # a review still running there: say so, not "resume"
    with output_lock(args.out) if args.write else contextlib.nullcontext():  # --write: one writer per output
        result = SimulationResult.from_directory(args.out, effort)
        if not result.ledgers:
            busy = f" yet: it is being written by pid {writer}" if writer else ""
            raise InputError(Path(args.out) / "ledgers", None, f"no complete ledger found{busy}")
        if args.write:
            summary = Path(args.out) / "summary.json"
            skipped = json.loads(summary.read_text()).get("skipped", {}) if summary.exists() else {}
            write_simulation_reports(Path(args.out), list(result.ledgers.values()), effort, skipped, args.recall)
    if writer is not None:
        print(
            f"tarsim: warning: {args.out} is being written by tarsim process {writer}: the reviews it has not "
            "finished are left out of these tables",
            file=sys.stderr,
        )
    else:
        for ledger in unfinished_ledgers(Path(args.out) / "ledgers"):
            print(
                f"tarsim: warning: {ledger}: a review that did not finish is left out of these tables "
                "(`tarsim simulate --resume` with the same settings finishes it)",
                file=sys.stderr,
            )
    print(format_review_tables(result.ledgers.values(), effort, args.recall))
    return 0


def unfinished_ledgers(directory: Path) -> list[Path]:
    """The partial ledgers of reviews without a complete ledger (killed, or still running) in a ledgers folder."""
    from tarsim.data.ledger import PARTIAL_FILE

    found = []
    for path in sorted(directory.glob(".*.partial")):
        match = PARTIAL_FILE.fullmatch(path.name)
        if match and not (directory / match["ledger"]).exists():
            found.append(path)
    return found
