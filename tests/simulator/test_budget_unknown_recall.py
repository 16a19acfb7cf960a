"""Recall@E beyond what a budget-stopped review spent is unknown in every place that reports it.

A review stopped by --max-effort says nothing about recall at a larger effort. The Recall@E grid and the per-topic
table already said so (n/a); the comparison, a sweep's results and the plot's marks used to carry the final recall
forward as if the review had gone on.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import tarsim
from tarsim.metrics.recall_effort import recall_at_effort, recall_curve
from tarsim.reporting.compare import compare, run_scores
from tarsim.sweep.plan import RunSpec
from tarsim.sweep.tables import run_rows


@pytest.fixture(scope="module")
def short_and_full():
    """The demo's T3 stopped by a budget of 50 judgments (short of full recall, seed 1), and reviewed to the end
    (seed 0)."""
    short = tarsim.simulate(topic="T3", max_effort="50", seed=1).ledgers["T3"]
    full = tarsim.simulate(topic="T3").ledgers["T3"]
    return short, full


def _beyond_and_within(ledger) -> tuple[list[str], list[str]]:
    """Grid cells (a, b) whose E lies beyond / within the 50 judgments the short review spent."""
    beyond = [f"{a}R+{b}" for a in (1, 2, 4) for b in (0, 100, 1000) if a * ledger.relevant + b > 50]
    within = [f"{a}R+{b}" for a in (1, 2, 4) for b in (0, 100, 1000) if a * ledger.relevant + b <= 50]
    return beyond, within


@pytest.mark.slow
def test_the_short_review_is_cut_short_by_its_budget(short_and_full):
    short, _ = short_and_full
    curve = recall_curve(short, "judge")
    assert len(short) == 50 and curve.recall[-1] < 1.0
    assert curve.known_until == 50.0
    assert curve.known_recall_at(50) == curve.recall_at(50)
    assert curve.known_recall_at(51) is None
    assert math.isinf(recall_curve(short_and_full[1], "judge").known_until)


@pytest.mark.slow
def test_grid_comparison_and_sweep_rows_agree_on_which_cells_are_unknown(short_and_full):
    short, _ = short_and_full
    beyond, within = _beyond_and_within(short)
    assert beyond  # the budget leaves some of the grid unknown
    grid = {f"{r['a']}R+{r['b']}": r["recall"] for r in recall_at_effort(short, "judge")}
    scores = run_scores([short], "judge")
    compared = {row.measure.removeprefix("Recall@"): row.value for row in scores.itertuples() if "R+" in row.measure}
    spec = RunSpec("demo", "T3", "bmi", "document/document", 0, 0)
    swept = {
        row["measure"].removeprefix("recall@"): row["value"]
        for row in run_rows(short, spec, ["judge"])
        if row["measure"].startswith("recall@")
    }
    for cell in beyond:
        assert grid[cell] is None and swept[cell] is None
        assert compared[cell] is None or math.isnan(compared[cell])
    for cell in within:
        assert grid[cell] is not None and grid[cell] == swept[cell] == compared[cell]


def test_comparison_means_leave_out_the_unknown_run(short_and_full):
    """A cell beyond the short run's budget is averaged over the runs that know it, and says so (n of m)."""
    short, full = short_and_full
    beyond, _ = _beyond_and_within(short)
    other = tarsim.simulate(topic="T3", seed=2, max_effort="50").ledgers["T3"]
    result = compare([short, full, other], baseline="relevance", group_by=["policy"])  # one group
    rows = {row["measure"]: row for row in result.rows}
    row = rows[f"Recall@{beyond[-1]}"]
    assert row["runs"] == 3 and row["n"] == 1  # only the full review knows it
    assert row["mean"] == recall_curve(full, "judge").recall_at(row_effort(full, beyond[-1]))


def row_effort(ledger, cell: str) -> float:
    a, b = cell.split("R+")
    return float(a) * ledger.relevant + float(b)


def test_plot_lines_end_where_a_budget_left_recall_unknown(short_and_full):
    short, full = short_and_full
    grid = np.array([0.0, 10.0, 50.0, 50.5, 200.0])
    values = recall_curve(short, "judge").known_recall_on(grid)  # what a plot line draws (plots._seed_curves)
    assert not np.isnan(values[:3]).any() and np.isnan(values[3:]).all()
    assert not np.isnan(recall_curve(full, "judge").known_recall_on(grid)).any()
