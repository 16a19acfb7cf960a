"""`tarsim report OUT`: recompute the Recall@E and summary tables from the ledgers alone."""

from __future__ import annotations

import argparse
from pathlib import Path

from tarsim.effort_models import make_effort_model
from tarsim.errors import InputError
from tarsim.reporting.tables import DEFAULT_EFFORT_MODELS, format_recall_table


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", metavar="OUT", help="a `tarsim simulate` output directory")
    parser.add_argument("--effort", action="append", metavar="MODEL", help="effort model (repeatable)")
    parser.add_argument("--no-write", action="store_true", help="print only; do not rewrite the CSV and JSON files")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from tarsim.api import SimulationResult
    from tarsim.reporting.tables import write_simulation_reports

    effort = tuple(args.effort or DEFAULT_EFFORT_MODELS)
    for model in effort:
        make_effort_model(model)
    ledger_dir = Path(args.out) / "ledgers"
    if not ledger_dir.is_dir():
        raise InputError(ledger_dir, None, "no ledgers directory (is this a `tarsim simulate` output?)")
    result = SimulationResult.from_directory(args.out, effort)
    if not result.ledgers:
        raise InputError(ledger_dir, None, "no complete ledger found")
    if not args.no_write:
        write_simulation_reports(Path(args.out), list(result.ledgers.values()), effort)
    print(format_recall_table(result.recall_at_effort()))
    return 0
