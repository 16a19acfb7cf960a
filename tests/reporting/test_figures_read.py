"""Figures that read (issue 31): a log effort axis, the perfect-review line only as a bound, titles naming the
dataset and the effort unit, legends explaining counts, identical lines both visible, bands over replicates on the
Insights figures, "prior seeds" where only the prior seed varies, and `--per-topic` acting on every kind."""

from __future__ import annotations

import json

import numpy as np
import pytest

import ledger_factory
from tarsim.cli import main
from tarsim.data.ledger import ledger_from_lines
from tarsim.reporting.insights_plots import plot_insights
from tarsim.reporting.plots import plot_recall_effort

pytest.importorskip("matplotlib")


def make(truth, **kwargs):
    return ledger_from_lines(make_lines(truth, **kwargs))


def make_lines(truth, *, topic="A", policy="good", seed=0, sent=None, sweep=None, prior_seed=None, config=None):
    lines = ledger_factory.ledger_lines(
        truth,
        topic=topic,
        policy=policy,
        seed=seed,
        size=40,
        sent=sent,
        docids=[f"{topic}-{i}" for i in range(len(truth))],
        inputs={"collection": "c0"},
        config={**(config or {}), **({} if prior_seed is None else {"prior_seed": prior_seed})},
    )
    if sweep:
        header = json.loads(lines[0])
        header["sweep"] = {"collection": sweep, "seed": seed, "policy": policy, "strategy": "document/document"}
        lines[0] = json.dumps(header)
    return lines


def study(sweep=None, build=make):
    """2 policies x 2 topics x 2 seeds; `sentences` judges one sentence at a time, `documents` whole documents."""
    ledgers = []
    for topic in ("A", "B"):
        for seed in (0, 1):
            truth = [1] * (3 + seed) + [0] * 3 + [1]
            ledgers.append(build(truth, topic=topic, policy="sentences", seed=seed, sent=[1] * len(truth), sweep=sweep))
            ledgers.append(
                build(truth[::-1], topic=topic, policy="documents", seed=seed, sent=[12] * len(truth), sweep=sweep)
            )
    return ledgers


def gid_lines(ax, gid):
    return [line for line in ax.get_lines() if line.get_gid() == gid]


def test_the_perfect_review_line_in_sentences_is_a_bound_no_run_crosses():
    (ax,) = plot_recall_effort(study(), "sent").axes
    (perfect,) = gid_lines(ax, "perfect")
    assert "bound" in perfect.get_label()
    _, bound = perfect.get_data()
    for line in gid_lines(ax, "policy"):
        _, recall = line.get_data()
        assert np.all(recall <= np.asarray(bound) + 1e-9), line.get_label()


def test_a_log_effort_axis_starts_at_the_first_judgment():
    (ax,) = plot_recall_effort(study(), "sent", xscale="log").axes
    assert ax.get_xscale() == "log" and ax.get_xlim()[0] == 1.0
    assert "log scale" in ax.get_xlabel()


def test_titles_name_the_dataset_and_the_effort_unit_and_legends_the_runs():
    figure = plot_recall_effort(study(sweep="srd"), "sent")
    (ax,) = figure.axes
    assert ax.get_title().startswith("srd: mean recall over 2 topics by sentences read")
    assert "band: min-max over 2 seeds" in ax.get_title()
    labels = [text.get_text() for text in figure.legends[0].get_texts()]
    assert "sentences (n = 4 runs)" in labels and "documents (n = 4 runs)" in labels


def test_a_line_identical_to_another_is_dashed_and_says_so():
    truth = [1, 1, 0, 1]
    ledgers = [make(truth, policy=p, seed=s) for p in ("tarsim", "asreview") for s in (0, 1)]
    (ax,) = plot_recall_effort(ledgers).axes
    lines = {line.get_label(): line for line in gid_lines(ax, "policy")}
    later = next(label for label in lines if "identical to" in label)
    assert later.startswith("tarsim (n = 2 runs), identical to asreview") or later.startswith(
        "asreview (n = 2 runs), identical to tarsim"
    )
    assert lines[later].get_linestyle() == "--"
    (ax,) = plot_insights(ledgers, "recall", group_by=["policy"]).axes
    assert any("identical to" in text.get_text() for text in ax.get_legend().get_texts())


def test_insights_figures_have_a_band_over_seeds_and_name_prior_seeds():
    (ax,) = plot_insights(study(), "recall").axes
    assert len([c for c in ax.collections if c.get_gid() == "band"]) >= 1
    assert "band: min-max over 2 seeds" in ax.get_title()
    priors = [make([1, 0, 1, 1][: 3 + s % 2], seed=0, prior_seed=s, policy="p") for s in (0, 1, 2)]
    (ax,) = plot_insights(priors, "recall").axes
    assert "over 3 prior seeds" in ax.get_title()
    (ax,) = plot_recall_effort(priors).axes
    assert "over 3 prior seeds" in ax.get_title()


@pytest.mark.parametrize("kind", ["recall", "wss", "erf"])
def test_per_topic_draws_one_panel_per_topic_for_insights_kinds(kind):
    figure = plot_insights(study(), kind, per_topic=True)
    assert sorted(ax.get_title() for ax in figure.axes) == ["A", "B"]


def test_plot_cli_per_topic_insights_differs_from_the_average_and_effort_options_are_refused(tmp_path, capsys):
    folder = tmp_path / "ledgers"
    folder.mkdir()
    for i, lines in enumerate(study(build=make_lines)):
        (folder / f"{i}.jsonl").write_text("\n".join(lines) + "\n")
    assert main(["plot", str(folder), "--kind", "wss", "-o", str(tmp_path / "avg.png")]) == 0
    assert main(["plot", str(folder), "--kind", "wss", "--per-topic", "-o", str(tmp_path / "per.png")]) == 0
    assert (tmp_path / "avg.png").read_bytes() != (tmp_path / "per.png").read_bytes()
    capsys.readouterr()
    assert main(["plot", str(folder), "--kind", "wss", "--xscale", "log", "-o", str(tmp_path / "x.png")]) == 2
    error = capsys.readouterr().err.strip()
    assert error.count("\n") == 0 and "--xscale: only for --kind effort" in error
    assert not (tmp_path / "x.png").exists()


def test_plot_suggests_a_log_axis_when_a_line_would_sit_at_the_left_edge(tmp_path, capsys):
    folder = tmp_path / "ledgers"
    folder.mkdir()
    for seed in (0, 1):
        fast = make_lines([1, 1, 1, 0], policy="fast", seed=seed, sent=[1, 1, 1, 1])
        slow = make_lines([0] * 6 + [1, 1, 1], policy="slow", seed=seed, sent=[20] * 9)
        (folder / f"fast{seed}.jsonl").write_text("\n".join(fast) + "\n")
        (folder / f"slow{seed}.jsonl").write_text("\n".join(slow) + "\n")
    assert main(["plot", str(folder), "--effort", "sent", "-o", str(tmp_path / "a.png")]) == 0
    assert "--xscale log shows them all" in capsys.readouterr().err
    assert main(["plot", str(folder), "--effort", "sent", "--xscale", "log", "-o", str(tmp_path / "b.png")]) == 0
    assert capsys.readouterr().err == ""


# ---- issue 31, second review: legends that fit, counts that match what is drawn, dataset fields as lines ----------
def test_a_long_legend_leaves_the_axes_their_width():
    """8 long-named lines: the legend used to be wider than the figure and squeeze the axes to a tenth of it."""
    names = [f"strategy-{i}, batch=fixed:10, learner=logistic-with-a-long-name" for i in range(8)]
    ledgers = [make([0] * i + [1, 1, 0, 1], policy=name) for i, name in enumerate(names)]
    figure = plot_recall_effort(ledgers, "sent", xscale="log")
    figure.canvas.draw()
    (ax,) = figure.axes
    assert ax.get_window_extent().width >= 0.6 * figure.bbox.width
    assert figure.legends[0].get_window_extent().width <= figure.bbox.width


def test_the_band_note_counts_the_runs_a_line_holds():
    """2 seeds x 2 learners per line (learner not a line): the band is over 2 seeds, but a line holds 4 runs."""
    ledgers = [
        make([1, 0, 1, 1][: 3 + seed], policy=policy, seed=seed, config={"learner": learner})
        for policy in ("p", "q")
        for seed in (0, 1)
        for learner in ("nb", "logistic")
    ]
    (ax,) = plot_recall_effort(ledgers, group_by=["policy"]).axes
    assert "band: min-max over 2 seeds; a line holds 4 runs" in ax.get_title()
    (ax,) = plot_insights(ledgers, "wss", group_by=["policy"]).axes
    assert "a line holds 4 runs" in ax.get_title()


def test_per_topic_legends_count_the_runs_of_a_panel():
    """study(): 4 runs per line over 2 topics, 2 in each panel (the legend said n = 4)."""
    legend = plot_recall_effort(study(), per_topic=True).legends[0]
    labels = [text.get_text() for text in legend.get_texts()]
    assert "sentences (n = 2 runs per panel)" in labels and "documents (n = 2 runs per panel)" in labels
    legend = plot_insights(study(), "wss", per_topic=True, group_by=["policy"]).legends[0]
    assert "sentences (n = 2 runs per panel)" in [text.get_text() for text in legend.get_texts()]


def test_lines_of_one_topic_are_not_called_a_mean_over_topics():
    (ax,) = plot_insights(study(), "wss", group_by=["topic"]).axes
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert "topic=A (n = 4 runs)" in labels and "over 2 topics" not in ax.get_title()
    (ax,) = plot_insights(study(), "wss").axes
    assert "over 2 topics" in ax.get_title()  # each line averages both topics
    (ax,) = plot_recall_effort(study(), group_by=["topic", "policy"]).axes
    assert "over 2 topics" not in ax.get_title()


def _two_collections(tmp_path):
    folder = tmp_path / "ledgers"
    folder.mkdir()
    for name in ("cohen", "triptans"):
        for i, lines in enumerate(study(sweep=name, build=make_lines)):
            (folder / f"{name}{i}.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def test_plot_groups_by_collection_as_compare_does_and_names_unknown_fields_briefly(tmp_path, capsys):
    folder = _two_collections(tmp_path)
    out = tmp_path / "wss.png"
    assert main(["plot", str(folder), "--kind", "wss", "--group-by", "collection,policy", "-o", str(out)]) == 0
    assert out.is_file()
    figure = plot_insights(_ledgers(folder), "wss", group_by=["collection", "policy"])
    labels = [text.get_text() for text in figure.axes[0].get_legend().get_texts()]
    assert "collection=cohen, sentences (n = 4 runs)" in labels
    capsys.readouterr()
    assert main(["plot", str(folder), "--group-by", "colection", "-o", str(tmp_path / "x.png")]) == 2
    error = capsys.readouterr().err.strip()
    error = error.splitlines()[-1]  # after the warning that the sweep folder has no results table
    assert error.startswith("tarsim: error: ") and "colection unknown" in error and "collection" in error
    listed = error.split("known: ", 1)[1]
    assert len(listed.split(", ")) <= 11 and "more)" in listed  # ten fields and "... (N more)", not fifty


def _ledgers(folder):
    from tarsim.reporting.compare import load_ledgers

    return load_ledgers([folder])
