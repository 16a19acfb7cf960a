"""`tarsim stop`: replay stopping rules on finished ledgers: recall, effort and cost at the stop of each rule."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from tarsim.stopping import DEFAULT_STOP_EFFORT_MODELS, DEFAULT_TARGET_RECALL, SAMPLE_COST_OTHER_RELEVANCE

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd

    from tarsim.data.ledger import Ledger


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "ledgers", nargs="+", metavar="LEDGER", help="ledger files or directories (searched recursively)"
    )
    parser.add_argument(
        "--rule",
        action="append",
        metavar="SPEC",
        help="budget:aR+b[:MODEL], knee, knee:RHO, target:T, nonrel:N, oracle, 2399, reviewhalf, "
        "batchprecision:P, fixed:N, fraction:F, any(RULE,...), all(RULE,...), notbefore:N:RULE (tarsim list "
        "stopping; repeatable; default: the rules recorded in each ledger's configuration)",
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
    from tarsim.reporting.compare import load_ledgers
    from tarsim.stopping import evaluate_stopping, parse_stopping_rule, recorded_rules
    from tarsim.stopping.measures import cost_at_stop
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
        rules = args.rule or recorded_rules(ledger)
        inputs = replay(ledger)  # docids and qrels of the collection this ledger was reviewed on
        for rule in rules:
            outcome = evaluate_stopping(ledger, rule, effort_models=models, target_recall=args.target_recall, **inputs)
            row = {"ledger": ledger.source, **outcome.to_row()}
            row[f"cost_{models[0]}"] = cost_at_stop(ledger, rule, args.target_recall, models[0], **inputs)
            rows.append(row)
    if not rows:
        raise ConfigError(_no_rule_message(ledgers))
    if not args.rule:
        _warn_of_ledgers_without_rules(ledgers)
    frame = _efforts_rounded(pd.DataFrame(rows))
    if args.format == "csv":
        sys.stdout.write(_counts_as_integers(frame).to_csv(index=False, lineterminator="\n"))
    elif args.format == "json":
        records = json.loads(_counts_as_integers(frame).to_json(orient="records"))
        sys.stdout.write(json.dumps(records, indent=2, sort_keys=True) + "\n")
    else:
        sys.stdout.write(_table(frame) + "\n")
        if (frame["sample_cost"] == SAMPLE_COST_OTHER_RELEVANCE).any():
            sys.stdout.write(OTHER_RELEVANCE_NOTE + "\n")
    return 0


OTHER_RELEVANCE_NOTE = (
    f"note: sample_cost {SAMPLE_COST_OTHER_RELEVANCE!r}: sampled documents the review never presented were costed "
    "with the ledger's mean effort over judgments of the other relevance (it judged none of theirs, e.g. no "
    "non-relevant one), which may be far off; for exact costs pass sample_costs to "
    "tarsim.stopping.evaluate_stopping (docs/studies.md)"
)
"""Printed under the text table when a row's target:T sample effort was estimated from the other relevance."""

COUNT_COLUMNS = ("position", "sample_size", "effort_judge", "effort_sent", "cost_judge")
"""Columns of counts (judgments, documents, sentences): printed without decimals when every value is whole."""


EFFORT_DECIMALS = 6
"""Efforts and costs are rounded as tarsim rounds the ledger's times: their increments have 3 decimals (seconds)
or none, so the rounded sum is the exact one, where the float sum printed noise (1650.8759999999997)."""


def _efforts_rounded(frame: pd.DataFrame) -> pd.DataFrame:
    """The effort and cost columns rounded to EFFORT_DECIMALS (CSV prints every digit of a float)."""
    columns = [
        column for column in frame if column.startswith(("effort_", "cost_")) and frame[column].dtype.kind == "f"
    ]
    return frame.round(dict.fromkeys(columns, EFFORT_DECIMALS))


def _counts_as_integers(frame: pd.DataFrame) -> pd.DataFrame:
    """Count columns as integers that may be missing (pandas' Int64): CSV and JSON write 594, not 594.0, where
    another rule's row has none (the text table prints them so itself, with n/a)."""
    return frame.astype(dict.fromkeys(_whole_count_columns(frame), "Int64"))


def _whole_count_columns(frame: pd.DataFrame) -> list[str]:
    """The count columns that are floats only because a value is missing (every other value whole)."""
    return [
        column
        for column in COUNT_COLUMNS
        if column in frame and frame[column].dtype.kind == "f" and (frame[column].dropna() % 1 == 0).all()
    ]


def _warn_of_ledgers_without_rules(ledgers: Sequence[Ledger]) -> None:
    """Without --rule, ledgers that record no rule (a sweep's, among others that do) are replayed with none: say so
    once rather than leave them out of the table without a word."""
    import warnings

    from tarsim.errors import InputWarning
    from tarsim.stopping import recorded_rules

    bare = [ledger for ledger in ledgers if not recorded_rules(ledger)]
    if bare:
        why = " (sweep ledgers do not record [sweep] stopping)" if any(ledger.from_sweep for ledger in bare) else ""
        warnings.warn(
            f"{len(bare)} of {len(ledgers)} ledgers record no stopping rule and are not in the table{why}, e.g. "
            f"{bare[0].source}; give the rules with --rule to replay them",
            InputWarning,
            stacklevel=2,
        )


def _no_rule_message(ledgers: Sequence[Ledger]) -> str:
    """Why nothing was replayed: a sweep's ledgers record none of the sweep's rules, other ledgers may."""
    if any(ledger.from_sweep for ledger in ledgers):
        return (
            "no stopping rule to replay: sweep ledgers do not record the [sweep] stopping rules (they are replayed "
            "on each whole ledger, not part of a run's configuration; docs/sweeps.md); give the rules with --rule"
        )
    return "no stopping rule to replay: give --rule, or ledgers whose configuration records some"


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
    whole = dict.fromkeys(_whole_count_columns(shown), _whole)  # 594, not 594.000, beside an n/a
    spaced = {column: len(column) + 1 for column in whole}  # two blanks before the column, as before numbers
    return shown.to_string(
        index=False, float_format=lambda v: f"{v:.3f}", na_rep="n/a", formatters=whole, col_space=spaced
    )


def _whole(value: float) -> str:
    return f"{value:.0f}"
