"""Recall@E and summary tables from ledgers, and the files `tarsim simulate` and `tarsim report` write."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from tarsim import __version__
from tarsim.data.atomic import atomic_write
from tarsim.data.ledger import Ledger
from tarsim.effort_models import DEFAULT_EFFORT_MODELS  # the one definition, re-exported here
from tarsim.metrics.recall_effort import recall_at_effort, summary_row

RECALL_COLUMNS = ["topic", "strategy", "effort_model", "a", "b", "effort", "recall"]


def recall_at_effort_frame(
    ledgers: Iterable[Ledger], effort_models: Sequence[str] = DEFAULT_EFFORT_MODELS
) -> pd.DataFrame:
    """One row per topic x effort model x (a, b): the tidy Recall@E table."""
    rows = [row for ledger in ledgers for model in effort_models for row in recall_at_effort(ledger, model)]
    return pd.DataFrame(rows, columns=RECALL_COLUMNS)


def summary_frame(ledgers: Iterable[Ledger]) -> pd.DataFrame:
    """One row per topic: R, judgments, documents to 80/95/100% recall, WSS@95, final recall."""
    return pd.DataFrame([summary_row(ledger) for ledger in ledgers])


def mean_recall_table(table: pd.DataFrame) -> pd.DataFrame:
    """Mean Recall@E over topics: rows aR+b, one column per effort model (and strategy when several)."""
    if table.empty:
        return pd.DataFrame()
    frame = table.assign(budget=[f"{a:g}R+{b:g}" for a, b in zip(table["a"], table["b"], strict=True)])
    order = list(dict.fromkeys(frame["budget"]))
    columns = ["strategy", "effort_model"] if frame["strategy"].nunique() > 1 else ["effort_model"]
    # A cell is unknown (NaN, shown as n/a) when any topic's Recall@E is: averaging the others would mislead.
    pivot = frame.pivot_table(
        index="budget",
        columns=columns,
        values="recall",
        aggfunc=lambda v: v.mean(skipna=False),
        sort=False,
        dropna=False,
    )
    return pivot.reindex(order)


def format_recall_table(table: pd.DataFrame) -> str:
    """The mean Recall@E table as aligned text for a terminal."""
    pivot = mean_recall_table(table)
    if pivot.empty:
        return "no topic was reviewed"
    topics = table["topic"].nunique()
    header = f"Mean Recall@E over {topics} topic(s), E = aR+b in each effort model's units"
    text = pivot.to_string(float_format=lambda v: f"{v:.3f}", na_rep="n/a")
    if pivot.isna().to_numpy().any():
        text += "\nn/a: beyond the effort budget (--max-effort) of at least one topic"
    return header + "\n" + text


def _clean(value):
    if isinstance(value, float) and value != value:
        return None
    return value


def write_simulation_reports(
    out: Path,
    ledgers: Sequence[Ledger],
    effort_models: Sequence[str],
    skipped: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Write OUT/recall_at_effort.csv and OUT/summary.json (atomically); return the Recall@E table."""
    out = Path(out)
    table = recall_at_effort_frame(ledgers, effort_models)
    with atomic_write(out / "recall_at_effort.csv") as handle:
        table.to_csv(handle, index=False, lineterminator="\n")
    summary = summary_frame(ledgers)
    pivot = mean_recall_table(table)
    means = {
        str(column if isinstance(column, str) else "/".join(column)): {
            budget: None if value != value else round(float(value), 6) for budget, value in pivot[column].items()
        }
        for column in pivot.columns
    }
    document = {
        "tarsim": __version__,
        "effort_models": list(effort_models),
        "topics": {row["topic"]: {k: _clean(v) for k, v in row.items()} for row in summary.to_dict("records")},
        "skipped": dict(skipped or {}),
        "mean_recall_at_effort": means,
    }
    if ledgers:
        document["config"] = ledgers[0].header["config"]
    with atomic_write(out / "summary.json") as handle:
        json.dump(document, handle, indent=2, sort_keys=True)
        handle.write("\n")
    return table
