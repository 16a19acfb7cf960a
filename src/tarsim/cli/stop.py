"""`tarsim stop`: replay stopping rules on finished ledgers, a stopping study in one command: every rule on every
review against every --target-recall (tarsim.stopping.study); the summary per rule and target with confidence
intervals and paired tests against a baseline (tarsim.stopping.aggregate), the per-run rows with --runs or as CSV
and JSON, and with --out the tidy table, summary, tests and figures (tarsim.reporting.stopping_plots)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from tarsim.cli.common import plain_float, plain_int
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
        "stopping; repeatable; default: the rules recorded in each ledger's configuration). A rule that takes a "
        "target recall and is given none runs once per --target-recall",
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
        type=plain_float,
        action="append",
        metavar="R",
        help=f"recall a stop must reach to count as met (repeatable: a study of several targets; default: "
        f"{DEFAULT_TARGET_RECALL})",
    )
    parser.add_argument(
        "--effort",
        action="append",
        metavar="MODEL",
        help=f"effort model (repeatable; default: {' '.join(DEFAULT_STOP_EFFORT_MODELS)})",
    )
    parser.add_argument(
        "--cost-structure",
        action="append",
        metavar="S1P,S1N,S2P,S2N",
        help="unit costs of a relevant and a non-relevant document in a first and a second review phase, for the "
        "one- and two-phase costs (repeatable; default: 1,1,1,1 10,10,1,1 25,5,5,1)",
    )
    parser.add_argument(
        "--baseline",
        metavar="RULE",
        help="the rule every other is compared with in paired Wilcoxon tests (default: the first rule that fired in "
        "some run; one that never fired reviews everything)",
    )
    parser.add_argument(
        "--group-by",
        metavar="FIELD,...",
        help="summarise per group of runs too: collection, topic, seed, run_id, or any ledger header or config field "
        "as compare and metrics take them (preset, learner, policy, ...); the per-run table gets a column per field",
    )
    parser.add_argument("--runs", action="store_true", help="text format: print the per-run rows after the summary")
    parser.add_argument(
        "--out", metavar="DIR", help="write stop_table.csv, stop_summary.csv, stop_tests.csv and three figures there"
    )
    parser.add_argument(
        "--jobs", type=plain_int, default=1, metavar="N", help="processes replaying ledgers (default 1)"
    )
    parser.add_argument(
        "--format",
        choices=["table", "markdown", "latex", "csv", "json"],
        default="table",
        help="table, markdown, latex: the summary per rule and target (table: then the paired tests, and the per-run "
        "rows with --runs); csv, json: the per-run rows",
    )
    parser.set_defaults(handler=run)


RUN_COLUMNS = ("ledger", "topic", "rule", "target", "stopped", "position", "recall", "target_met")
"""The per-run text table's first columns (then effort_*, sample_size, sample_cost, cost_*)."""


def run(args: argparse.Namespace) -> int:
    from tarsim.components import validate
    from tarsim.data.paths import check_output_path
    from tarsim.errors import ConfigError
    from tarsim.reporting.compare import load_ledgers
    from tarsim.stopping import recorded_rules
    from tarsim.stopping.aggregate import default_baseline, paired_tests, summarise
    from tarsim.stopping.measures import COST_STRUCTURES, parse_cost_structure
    from tarsim.stopping.replay_inputs import replay_inputs
    from tarsim.stopping.study import check_targets, expand_rules, study_table

    targets = check_targets(args.target_recall or [DEFAULT_TARGET_RECALL])
    for rule in args.rule or []:
        expand_rules([rule], targets)
    models = tuple(args.effort or DEFAULT_STOP_EFFORT_MODELS)
    for model in models:
        validate("effort", model)
    structures = tuple(parse_cost_structure(s) for s in args.cost_structure) if args.cost_structure else COST_STRUCTURES
    if args.jobs < 1:
        raise ConfigError(f"--jobs must be >= 1, got {args.jobs}")
    if args.out:  # refused before any work: a symlink loop was "File exists" once the study was done
        check_output_path(args.out, "--out", directory=True)
    ledgers = load_ledgers(args.ledgers)
    replay = replay_inputs(args.collection, ledgers)
    if args.rule:
        table = study_table(ledgers, args.rule, targets, replay, models, structures, jobs=args.jobs)
    else:
        import pandas as pd

        parts = [
            study_table([ledger], recorded_rules(ledger), targets, replay, models, structures)
            for ledger in ledgers
            if recorded_rules(ledger)
        ]
        table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    if table.empty:
        raise ConfigError(_no_rule_message(ledgers))
    if not args.rule:
        _warn_of_ledgers_without_rules(ledgers)
    table = _efforts_rounded(table)
    table, group_by = _grouped(table, ledgers, args.group_by)
    summary = tests = None
    if args.format in ("table", "markdown", "latex") or args.out:
        summary = summarise(table, group_by=group_by)
        baseline = args.baseline or default_baseline(table)  # never a rule that fired in no run, unless named
        tests = paired_tests(table, baseline, group_by=group_by)  # runs pair within a group
    if args.out:
        _write_study(table, summary, tests, args.out)
    if args.format == "csv":
        sys.stdout.write(_counts_as_integers(table).to_csv(index=False, lineterminator="\n"))
    elif args.format == "json":
        records = json.loads(_counts_as_integers(table).to_json(orient="records"))
        sys.stdout.write(json.dumps(records, indent=2, sort_keys=True) + "\n")
    elif args.format in ("markdown", "latex"):  # the summary, for a paper
        from tarsim.reporting.table_formats import caption, render
        from tarsim.stopping.aggregate import baseline_line, summary_caption, summary_cells

        cells = summary_cells(summary, group_by=group_by)
        numeric_from = len(group_by) + 1  # group fields and rule left-aligned, target and measures right
        sys.stdout.write(render(list(cells.columns), cells.astype(str).values.tolist(), args.format, numeric_from))
        lines = summary_caption(summary)
        if tests is not None and not tests.empty:  # the tests are in the text format and stop_tests.csv
            lines.append(baseline_line(table, baseline, bool(args.baseline), group_by))
        apart = "\n\n" if args.format == "markdown" else "\n"  # a Markdown line after a table is one of its rows
        sys.stdout.write("".join(apart + caption(line, args.format) for line in lines) + "\n")
    else:
        from tarsim.stopping.aggregate import baseline_line, paired_tests_text, summary_text

        sys.stdout.write(summary_text(summary, group_by=group_by) + "\n")
        if tests is not None and not tests.empty:
            sys.stdout.write(f"\n{baseline_line(table, baseline, bool(args.baseline), group_by)}:\n")
            sys.stdout.write(paired_tests_text(tests, group_by) + "\n")
        if args.runs:
            sys.stdout.write("\n" + _table(_run_columns(table, models)) + "\n")
            if (table["sample_cost"] == SAMPLE_COST_OTHER_RELEVANCE).any():
                sys.stdout.write(OTHER_RELEVANCE_NOTE + "\n")
    return 0


RUN_FIELDS = ("ledger", "run_id", "topic", "seed")
"""--group-by fields read from the per-run table itself (each review's own); every other field is resolved as
`compare` and `metrics` resolve it (tarsim.reporting.study_tables.field_values: collection, header and config
fields such as preset, learner, policy)."""


def _grouped(table: pd.DataFrame, ledgers: Sequence[Ledger], text: str | None) -> tuple[pd.DataFrame, list[str]]:
    """The per-run table with a column per --group-by field (after `topic`; a field it has already is kept, but
    `collection` is named as `compare` names it), and the fields in order: datasets (collection, topic) first. An
    unknown field, or `rule`/`target` (the summary's own keys), is refused in one line."""
    from tarsim.errors import ConfigError
    from tarsim.reporting.study_tables import field_values, split_fields

    strata, others = split_fields(text)
    fields = list(dict.fromkeys([*strata, *others]))
    own = [field for field in fields if field in ("rule", "target")]
    if own:
        raise ConfigError(f"--group-by {own[0]!r}: the summary is always per rule and target; group by other fields")
    resolved = [field for field in fields if field not in RUN_FIELDS]
    if not resolved:
        return table, fields
    values = dict(zip((ledger.source for ledger in ledgers), field_values(ledgers, resolved), strict=True))
    table = table.copy()
    at = list(table.columns).index("topic") + 1
    for index, field in enumerate(resolved):
        column = [values[source][index] for source in table["ledger"]]
        if field in table.columns:
            table[field] = column
        else:
            table.insert(at, field, column)
            at += 1
    return table, fields


def _run_columns(table: pd.DataFrame, models: Sequence[str]) -> pd.DataFrame:
    """The per-run text table's columns: identity, stop, effort per model, sample, cost per model."""
    from tarsim.effort_models import make_effort_model

    names = [make_effort_model(model).name for model in models]
    columns = [
        *RUN_COLUMNS,
        *(f"effort_{n}" for n in names),
        "sample_size",
        "sample_cost",
        *(f"cost_{n}" for n in names),
    ]
    return table[[column for column in columns if column in table]]


def _write_study(table: pd.DataFrame, summary: pd.DataFrame, tests: pd.DataFrame, out: str) -> None:
    """OUT/stop_table.csv (every run's measures), stop_summary.csv, stop_tests.csv and the study's figures."""
    from pathlib import Path

    from tarsim.data.atomic import atomic_write
    from tarsim.reporting.stopping_plots import write_study_figures

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    for name, frame in (("stop_table", _counts_as_integers(table)), ("stop_summary", summary), ("stop_tests", tests)):
        with atomic_write(folder / f"{name}.csv") as handle:
            frame.to_csv(handle, index=False, lineterminator="\n")
    write_study_figures(table, summary, folder)
    print(f"stop_table.csv, stop_summary.csv, stop_tests.csv and 3 figures written to {folder}", file=sys.stderr)


OTHER_RELEVANCE_NOTE = (
    f"note: sample_cost {SAMPLE_COST_OTHER_RELEVANCE!r}: sampled documents the review never presented were costed "
    "with the ledger's mean effort over judgments of the other relevance (it judged none of theirs, e.g. no "
    "non-relevant one), which may be far off; for exact costs pass sample_costs to "
    "tarsim.stopping.evaluate_stopping (docs/studies.md)"
)
"""Printed under the text table when a row's target:T sample effort was estimated from the other relevance."""

COUNT_COLUMNS = (
    "prior_seed",
    "position",
    "sample_size",
    "documents",
    "oracle_position",
    "effort_judge",
    "effort_sent",
    "cost_judge",
    "cost_sent",
    "excess_judge",
    "excess_sent",
    "collection_size",
    "relevant",
)
"""Columns of counts (judgments, documents, sentences): printed without decimals when every value is whole."""


EFFORT_DECIMALS = 6
"""Efforts and costs are rounded as tarsim rounds the ledger's times: their increments have 3 decimals (seconds)
or none, so the rounded sum is the exact one, where the float sum printed noise (1650.8759999999997)."""


def _efforts_rounded(frame: pd.DataFrame) -> pd.DataFrame:
    """The effort and cost columns rounded to EFFORT_DECIMALS (CSV prints every digit of a float)."""
    columns = [
        column
        for column in frame
        if column.startswith(("effort_", "cost_", "excess_")) and frame[column].dtype.kind == "f"
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
