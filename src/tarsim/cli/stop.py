"""`tarsim stop`: replay stopping rules on finished ledgers: recall, effort and cost at the stop of each rule."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from tarsim.stopping import DEFAULT_STOP_EFFORT_MODELS, DEFAULT_TARGET_RECALL

if TYPE_CHECKING:
    import pandas as pd


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "ledgers", nargs="+", metavar="LEDGER", help="ledger files or directories (searched recursively)"
    )
    parser.add_argument(
        "--rule",
        action="append",
        metavar="SPEC",
        help="budget:aR+b[:MODEL], knee, knee:RHO, target:T, nonrel:N, oracle (repeatable; default: "
        "the rules recorded in each ledger's configuration)",
    )
    parser.add_argument(
        "--collection",
        action="append",
        metavar="DIR|FILE",
        help="collection directory or screening file (needed by target:T, not for ledgers of the built-in demo; "
        "repeatable: each ledger is replayed with the one it was reviewed on)",
    )
    parser.add_argument(
        "--target-recall",
        type=float,
        default=DEFAULT_TARGET_RECALL,
        metavar="R",
        help="recall a stop must reach to count as met (default: %(default)s)",
    )
    parser.add_argument(
        "--effort",
        action="append",
        metavar="MODEL",
        help=f"effort model (repeatable; default: {' '.join(DEFAULT_STOP_EFFORT_MODELS)})",
    )
    parser.add_argument("--format", choices=["table", "csv", "json"], default="table")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import pandas as pd

    from tarsim.components import validate
    from tarsim.errors import ConfigError
    from tarsim.metrics.tar import cost_at_stop
    from tarsim.reporting.compare import load_ledgers
    from tarsim.stopping import evaluate_stopping, parse_stopping_rule
    from tarsim.stopping.replay_inputs import replay_inputs

    if not 0.0 < args.target_recall <= 1.0:
        raise ConfigError(f"--target-recall must be in (0, 1], got {args.target_recall}")
    for rule in args.rule or []:
        parse_stopping_rule(rule)
    models = tuple(args.effort or DEFAULT_STOP_EFFORT_MODELS)
    for model in models:
        validate("effort", model)
    ledgers = load_ledgers(args.ledgers)
    replay = replay_inputs(args.collection, ledgers)
    rows = []
    for ledger in ledgers:
        rules = args.rule or ledger.header.get("config", {}).get("stopping", [])
        inputs = replay(ledger)  # docids and qrels of the collection this ledger was reviewed on
        for rule in rules:
            outcome = evaluate_stopping(ledger, rule, effort_models=models, target_recall=args.target_recall, **inputs)
            row = {"ledger": ledger.source, **outcome.to_row()}
            row[f"cost_{models[0]}"] = cost_at_stop(ledger, rule, args.target_recall, models[0], **inputs)
            rows.append(row)
    if not rows:
        raise ConfigError("no stopping rule to replay: give --rule, or ledgers whose configuration records some")
    frame = pd.DataFrame(rows)
    if args.format == "csv":
        sys.stdout.write(frame.to_csv(index=False, lineterminator="\n"))
    elif args.format == "json":
        records = json.loads(frame.to_json(orient="records"))
        sys.stdout.write(json.dumps(records, indent=2, sort_keys=True) + "\n")
    else:
        sys.stdout.write(_table(frame) + "\n")
    return 0


def _table(frame: pd.DataFrame) -> str:
    """The text table: the ledger's file name only when a topic has several ledgers (runs of a sweep), so that
    their rows can be told apart (as paths below the ledgers' common folder); missing values as n/a."""
    import os
    from pathlib import Path

    import numpy as np

    topic_ledgers = frame.groupby("topic")["ledger"].nunique()
    shown = frame.copy()
    if (topic_ledgers > 1).any():
        sources = [os.path.abspath(source) for source in shown["ledger"]]  # commonpath takes no mix of both
        common = Path(os.path.commonpath(sources)) if len(set(sources)) > 1 else Path(sources[0]).parent
        shown["ledger"] = [Path(source).relative_to(common).as_posix() for source in sources]
        shown = shown[["ledger", *(column for column in shown.columns if column != "ledger")]]
    else:
        shown = shown.drop(columns=["ledger"])
    shown = shown.fillna(value=np.nan).infer_objects()
    return shown.to_string(index=False, float_format=lambda v: f"{v:.3f}", na_rep="n/a")
