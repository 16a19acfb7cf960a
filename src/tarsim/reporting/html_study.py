"""The HTML report of a folder of reviews (a `simulate` or `sweep` output, or any ledger folder): read its complete
ledgers, build the page and write it atomically. `tarsim report OUT --html FILE` and `tarsim sweep --html FILE` both
call `write_study_page`, so the two pages are one."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tarsim.components import validate
from tarsim.errors import InputError


@dataclass(frozen=True)
class WrittenPage:
    """Where the page went, and what it holds."""

    path: Path
    runs: int
    figures: int


def write_study_page(
    out: str,
    html: str,
    effort: Sequence[str] = (),
    collections: Sequence[str] = (),
    stopping: Sequence[str] = (),
    group_by: str | None = None,
    recall: str = "presented",
) -> WrittenPage:
    """The page of every complete ledger under `out`, written to `html`. `effort`: effort models (default judge);
    `collections`: collection directories or screening files (sampled stopping rules need them); `stopping`: rules
    of the stopping figure (default: a sweep's stopping study's, else those the runs recorded); `group_by`: config
    fields naming a group, comma separated. The page gives the `tarsim report` command that rewrites it."""
    from tarsim.data.paths import check_output_path
    from tarsim.errors import require
    from tarsim.stopping import parse_stopping_rule

    require("altair", "report", "tarsim report --html")  # before any work
    require("vl_convert", "report", "tarsim report --html", "vl-convert-python")
    from tarsim.reporting.compare import load_ledgers
    from tarsim.reporting.html_report import build_report, write_report
    from tarsim.stopping.replay_inputs import replay_inputs

    models = tuple(effort or ("judge",))
    for model in models:
        validate("effort", model)
    for rule in stopping:
        parse_stopping_rule(rule)
    check_output_path(html, "--html")
    ledgers = [ledger for ledger in load_ledgers([out]) if ledger.complete]
    if not ledgers:
        raise InputError(Path(out), None, "no complete ledger found")
    command = ["tarsim", "report", out, "--html", html]
    command += [f"--effort={model}" for model in effort]
    command += [f"--collection={path}" for path in collections]
    command += [f"--stopping={rule}" for rule in stopping] + ([f"--group-by={group_by}"] if group_by else [])
    command += ["--recall=found"] if recall == "found" else []
    page, figures = build_report(
        ledgers,
        effort_models=models,
        recall=recall,
        stopping=list(stopping),
        found_rules=[] if stopping else sweep_rules(Path(out)),
        replay=replay_inputs(list(collections) or None, ledgers),
        group_by=[f.strip() for f in group_by.split(",")] if group_by else None,
        commands=[" ".join(shlex.quote(part) for part in command)],
    )
    return WrittenPage(write_report(html, page), len(ledgers), len(figures))


def sweep_rules(out: Path) -> list[str]:
    """The stopping rules a sweep's stopping study replayed (its ledgers do not record them): OUT/stopping's
    summary table, when there is one; else none (build_report then uses the rules the ledgers recorded)."""
    import pandas as pd

    summary = out / "stopping" / "stop_summary.csv"
    if not summary.is_file():
        return []
    column = pd.read_csv(summary, usecols=["rule_given"])["rule_given"]
    return [str(rule) for rule in dict.fromkeys(column.dropna())]
