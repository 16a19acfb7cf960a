"""`tarsim plot`: recall-effort curves from ledgers, averaged over topics or one panel per topic (PNG, SVG, PDF)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tarsim.cli.common import plain_float, plain_int
from tarsim.components import validate
from tarsim.errors import ConfigError


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "ledgers", nargs="+", metavar="LEDGER_DIR_OR_FILE", help="ledger files or directories (searched recursively)"
    )
    parser.add_argument(
        "--effort",
        default="judge",
        metavar="MODEL",
        help="effort model of the x axis: judge, sent, lambda:L, seconds, clock",
    )
    parser.add_argument(
        "--recall",
        choices=("presented", "found"),
        default="presented",
        help="recall counts relevant documents presented (the paper's, default) or presented and labelled relevant",
    )
    parser.add_argument("--out", "-o", required=True, metavar="FIG", help="output figure: .png, .svg or .pdf")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--average", dest="per_topic", action="store_false", help="one panel, recall averaged over topics (default)"
    )
    mode.add_argument(
        "--per-topic", dest="per_topic", action="store_true", help="a grid of small multiples, one per topic"
    )
    parser.add_argument(
        "--stopping", action="append", default=[], metavar="RULE", help="mark where a stopping rule stops (repeatable)"
    )
    parser.add_argument(
        "--collection",
        action="append",
        metavar="DIR|FILE",
        help="collection directory or screening file (needed by target:T stopping rules, not for ledgers of the "
        "built-in demo; repeatable: each ledger is replayed with the one it was reviewed on)",
    )
    parser.add_argument(
        "--group-by",
        metavar="FIELDS",
        help="config fields that name a line, comma separated (default: those that differ)",
    )
    parser.add_argument(
        "--marks",
        default="1R+100,2R+100,4R+100",
        metavar="LIST",
        help="aR+b points to mark, comma separated ('' for none)",
    )
    parser.add_argument(
        "--xmax",
        type=plain_float,
        metavar="E",
        help="right end of the effort axis (default: just past the last relevant found and every stop; a stop "
        "beyond E is drawn hollow on the right edge)",
    )
    parser.add_argument(
        "--xscale",
        choices=("linear", "log"),
        default="linear",
        help="effort axis: linear (default) or log (strategies whose effort differs by orders of magnitude both show)",
    )
    parser.add_argument("--columns", type=plain_int, metavar="N", help="panels per row with --per-topic")
    parser.add_argument("--title", help="figure title")
    parser.add_argument(
        "--kind",
        choices=("effort", "recall", "wss", "erf"),
        default="effort",
        help="effort: recall by effort (default); recall, wss, erf: ASReview Insights' figures, one line per tool "
        "(with --per-topic: one panel per topic)",
    )
    parser.add_argument(
        "--priors", choices=("exclude", "include"), default="exclude", help="priors in Insights' figures"
    )
    parser.set_defaults(handler=run, per_topic=False)


def parse_marks(text: str) -> list[tuple[float, float]]:
    """`1R+100,2R+100` -> [(1, 100), (2, 100)] (aR+b as in budgets)."""
    from tarsim.config.review import Budget

    return [(budget.a, budget.b) for budget in (Budget.parse(part) for part in text.split(",") if part.strip())]


def run(args: argparse.Namespace) -> int:
    from tarsim.data.paths import check_output_path
    from tarsim.errors import require

    require("matplotlib", "plot", "tarsim plot")  # before any work
    from tarsim.reporting.compare import load_ledgers
    from tarsim.reporting.plots import log_scale_advised, plot_recall_effort
    from tarsim.stopping import parse_stopping_rule
    from tarsim.stopping.replay_inputs import replay_inputs

    validate("effort", args.effort)
    for rule in args.stopping:
        parse_stopping_rule(rule)
    marks = parse_marks(args.marks)
    if args.xmax is not None and not args.xmax > 0:
        raise ConfigError(f"--xmax must be > 0, got {args.xmax}")
    if args.columns is not None and args.columns < 1:
        raise ConfigError(f"--columns must be >= 1, got {args.columns}")
    check_output_path(args.out, "--out")  # refused before any work
    if args.kind != "effort":
        refuse_effort_options(args)
    ledgers = load_ledgers(args.ledgers)
    if args.kind != "effort":
        from tarsim.reporting.insights_plots import plot_insights

        fields = [f.strip() for f in args.group_by.split(",")] if args.group_by else None
        figure = plot_insights(
            ledgers,
            args.kind,
            priors=args.priors,
            group_by=fields,
            title=args.title,
            recall=args.recall,
            per_topic=args.per_topic,
            columns=args.columns,
        )
        path = _save_and_close(figure, args.out)
        print(f"{len(ledgers)} review(s) plotted to {path}")
        return 0
    fields = [f.strip() for f in args.group_by.split(",")] if args.group_by else None
    figure = plot_recall_effort(
        ledgers,
        args.effort,
        per_topic=args.per_topic,
        stopping=args.stopping,
        marks=marks,
        group_by=fields,
        xmax=args.xmax,
        columns=args.columns,
        title=args.title,
        replay=replay_inputs(args.collection, ledgers),
        recall=args.recall,
        xscale=args.xscale,
    )
    path = _save_and_close(figure, args.out)
    print(f"{len(ledgers)} ledger(s) plotted to {path}")
    if args.xscale == "linear" and args.xmax is None and log_scale_advised(ledgers, args.effort, fields, args.recall):
        print(
            f"tarsim: note: in {args.effort} units some lines end 10 times sooner than others and sit at the left "
            "edge; --xscale log shows them all",
            file=sys.stderr,
        )
    return 0


def refuse_effort_options(args: argparse.Namespace) -> None:
    """Options of the recall-effort figure that an Insights figure (--kind recall|wss|erf: share screened on the x
    axis, no effort model, no stops) cannot honour: refused in one line rather than silently ignored."""
    given = [
        name
        for name, used in (
            ("--effort", args.effort != "judge"),
            ("--stopping", bool(args.stopping)),
            ("--xmax", args.xmax is not None),
            ("--xscale", args.xscale != "linear"),
            ("--marks", args.marks != "1R+100,2R+100,4R+100"),
            ("--collection", bool(args.collection)),
        )
        if used
    ]
    if given:
        raise ConfigError(
            f"{', '.join(given)}: only for --kind effort; --kind {args.kind} has no effort axis and no stops"
        )


def _save_and_close(figure, out: str) -> Path:
    """Write the figure and close it, so that a script or notebook calling `main` many times keeps none open."""
    import matplotlib.pyplot as plt

    from tarsim.reporting.plots import save_figure

    try:
        return save_figure(figure, out)
    finally:
        plt.close(figure)
