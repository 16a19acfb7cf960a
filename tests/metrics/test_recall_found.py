"""Recall `presented` (the paper's) against recall `found` (presented and labelled relevant by the reviewer)."""

from __future__ import annotations

import pytest

from ledger_factory import make_ledger
from tarsim.errors import ConfigError
from tarsim.metrics.recall_effort import recall_at_effort, recall_curve, summary_row
from tarsim.reporting.compare import compare
from tarsim.reporting.tables import format_review_tables, recall_at_effort_frame

# Four relevant documents of six presented; the reviewer misses d1 (a false negative) and calls d4 relevant.
TRUTH = [1, 1, 0, 1, 0, 1]
LABELS = [1, 0, 0, 1, 1, 1]


def test_presented_counts_every_relevant_document_shown():
    curve = recall_curve(make_ledger(TRUTH, LABELS), "judge")
    assert curve.recall.tolist() == [0.25, 0.5, 0.5, 0.75, 0.75, 1.0]


def test_found_counts_only_relevant_documents_labelled_relevant():
    curve = recall_curve(make_ledger(TRUTH, LABELS), "judge", recall="found")
    # d1 is never found; the false positive d4 does not count either.
    assert curve.recall.tolist() == [0.25, 0.25, 0.25, 0.5, 0.5, 0.75]


def test_found_counts_a_document_when_a_later_presentation_is_labelled_relevant():
    ledger = make_ledger([1, 1, 1], [0, 0, 1], docids=["a", "b", "a"], relevant=2)
    assert recall_curve(ledger, recall="found").recall.tolist() == [0.0, 0.0, 0.5]
    assert recall_curve(ledger).recall.tolist() == [0.5, 1.0, 1.0]


def test_a_perfect_reviewer_makes_the_two_equal():
    ledger = make_ledger(TRUTH)
    assert recall_curve(ledger, recall="found").recall.tolist() == recall_curve(ledger).recall.tolist()


def test_recall_at_effort_and_summary_take_the_kind():
    ledger = make_ledger(TRUTH, LABELS)
    presented = {(r["a"], r["b"]): r["recall"] for r in recall_at_effort(ledger, grid_a=[1], grid_b=[0])}
    found = {(r["a"], r["b"]): r["recall"] for r in recall_at_effort(ledger, grid_a=[1], grid_b=[0], recall="found")}
    assert presented[(1, 0)] == 0.75 and found[(1, 0)] == 0.5  # E = R = 4 judgments
    assert summary_row(ledger)["final_recall"] == 1.0
    assert summary_row(ledger, recall="found")["final_recall"] == 0.75
    assert summary_row(ledger, recall="found")["docs_to_100"] is None


def test_an_unknown_kind_is_refused():
    with pytest.raises(ConfigError, match="accepted: presented, found"):
        recall_curve(make_ledger(TRUTH), recall="seen")


def test_tables_say_which_recall_and_which_oracle():
    ledger = make_ledger(TRUTH, LABELS, config={"sentence_oracle": "classifier"})
    text = format_review_tables([ledger], ["judge", "sent"], recall="found")
    assert "recall found (relevant documents presented and labelled relevant by the reviewer)" in text
    assert "sentence oracle: classifier" in text  # sentences read depend on it
    assert "sentence oracle" not in format_review_tables([ledger], ["judge"])  # judgments do not
    assert "recall presented" in format_review_tables([ledger], ["judge"])
    frame = recall_at_effort_frame([ledger], ["judge"], recall="found")
    assert frame.loc[(frame["a"] == 1) & (frame["b"] == 0), "recall"].item() == 0.5


def test_compare_uses_the_kind():
    ledgers = [
        make_ledger(TRUTH, LABELS, topic=topic, config={"policy": policy}, policy=policy)
        for topic in ("t1", "t2")
        for policy in ("relevance", "random")
    ]
    found = compare(ledgers, "relevance", recall="found", n_resamples=10)
    row = next(r for r in found.rows if r["measure"] == "Recall@1R+0" and r["group"] == "relevance")
    assert row["mean"] == 0.5 and found.recall == "found"


def test_plot_names_the_kind_on_its_axis():
    pytest.importorskip("matplotlib")
    from tarsim.reporting.plots import plot_recall_effort

    figure = plot_recall_effort([make_ledger(TRUTH, LABELS)], recall="found", marks=())
    assert figure.axes[0].get_ylabel() == "Recall (found)"
    line = next(line for line in figure.axes[0].lines if line.get_gid() == "policy")
    assert max(line.get_ydata()) == 0.75


def test_a_fallible_simulated_reviewer_makes_found_lower(demo, tmp_path, capsys):
    import tarsim
    from tarsim.cli import main

    result = tarsim.simulate(demo, topic="T2", max_effort="R", false_negative_rate=0.3, seed=1, out=tmp_path)
    ledger = result.ledgers["T2"]
    presented = recall_curve(ledger).recall[-1]
    found = recall_curve(ledger, recall="found").recall[-1]
    missed = sum(1 for t, label in zip(ledger.truth, ledger.label, strict=True) if t > 0 and label == 0)
    assert missed > 0
    assert found == pytest.approx(presented - missed / ledger.relevant)
    assert main(["report", str(tmp_path), "--effort", "judge", "--recall", "found"]) == 0
    printed = capsys.readouterr().out
    assert "recall found" in printed and "sentence oracle" not in printed  # judgments of documents only


def test_insights_recall_figure_takes_the_kind():
    pytest.importorskip("matplotlib")
    from tarsim.reporting.insights_plots import plot_insights

    axis = plot_insights([make_ledger(TRUTH, LABELS, size=10)], "recall", recall="found").axes[0]
    assert axis.get_ylabel() == "Recall (found)"
    assert max(axis.lines[0].get_ydata()) == 0.75
