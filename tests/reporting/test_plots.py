"""Recall-effort figures: the lines drawn (inspected on the returned Figure) and valid, reproducible PNG/SVG files."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

import ledger_factory
from tarsim.cli import main
from tarsim.data.ledger import ledger_from_lines
from tarsim.errors import ConfigError
from tarsim.reporting.plots import plot_recall_effort, save_figure


def ledger_lines(topic, policy, seed, truth, size=50):
    return ledger_factory.ledger_lines(
        truth,
        topic=topic,
        policy=policy,
        seed=seed,
        size=size,
        sent=[2] * len(truth),
        seconds_per_sentence=4.0,
        docids=[f"{topic}-{i}" for i in range(len(truth))],
        inputs={"collection": "c0"},
    )


def study():
    """2 policies x 2 topics x 2 seeds; `good` finds relevant documents first, `poor` spreads them out."""
    ledgers = []
    for topic in ("A", "B"):
        for seed in (0, 1):
            good = [1] * (3 + seed) + [0] * 3 + [1]
            poor = [0, 0, 1, 0, 0, 1, 0, 0, 1] + [0] * seed + [1] * (1 + seed)
            ledgers.append(ledger_from_lines(ledger_lines(topic, "good", seed, good)))
            ledgers.append(ledger_from_lines(ledger_lines(topic, "poor", seed, poor)))
    return ledgers


def lines_by_gid(ax):
    counts = {}
    for line in ax.get_lines():
        counts[line.get_gid()] = counts.get(line.get_gid(), 0) + 1
    return counts


def test_average_figure_has_one_line_per_policy_and_the_reference_lines():
    figure = plot_recall_effort(study(), stopping=["nonrel:2"], marks=[(1, 0), (2, 0)])
    (ax,) = figure.axes
    counts = lines_by_gid(ax)
    assert counts == {"perfect": 1, "random": 1, "policy": 2, "marks": 2, "stop": 2}
    assert ax.get_xlabel() == "Effort (judgments)" and ax.get_ylabel() == "Recall (presented)"
    labels = [text.get_text() for text in figure.legends[0].get_texts()]
    assert "good (n = 4 runs)" in labels and "poor (n = 4 runs)" in labels
    assert "stop: nonrel:2 (mean where fired)" in labels
    assert len(ax.collections) == 2  # one band over seeds per policy
    perfect = next(line for line in ax.get_lines() if line.get_gid() == "perfect")
    _, y = perfect.get_data()  # min(1, E/R), averaged over the topics
    assert y[0] == 0 and y[-1] == 1.0


def test_average_curve_is_the_mean_over_topics_and_seeds():
    figure = plot_recall_effort(study(), marks=())
    ax = figure.axes[0]
    good = next(line for line in ax.get_lines() if line.get_label() == "good (n = 4 runs)")
    x, y = good.get_data()
    # after 3 judgments: seed 0 has found 3 of 4, seed 1 has found 3 of 5 (same for both topics)
    index = int(next(i for i, e in enumerate(x) if e >= 3))
    expected = ((3 / 4) + (3 / 5)) / 2
    assert x[index] >= 3 and y[index] == pytest.approx(expected)


def test_small_multiples_one_panel_per_topic():
    figure = plot_recall_effort(study(), per_topic=True, effort_model="sent")
    assert len(figure.axes) == 2
    for ax in figure.axes:
        assert lines_by_gid(ax)["policy"] == 2
        assert ax.get_title().split(chr(10))[0] in ("A", "B")
    assert figure.axes[-1].get_xlabel() == "Effort (sentences read)"


@pytest.mark.slow
def test_png_and_svg_files_are_valid_and_reproducible(tmp_path):
    figure = plot_recall_effort(study())
    png = save_figure(figure, tmp_path / "fig.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = save_figure(plot_recall_effort(study()), tmp_path / "fig.svg")
    assert ET.parse(svg).getroot().tag.endswith("svg")
    again = save_figure(plot_recall_effort(study()), tmp_path / "again.svg")
    assert svg.read_bytes() == again.read_bytes()
    with pytest.raises(ConfigError, match="accepted: png, svg, pdf"):
        save_figure(figure, tmp_path / "fig.gif")


@pytest.mark.slow
def test_plot_command(tmp_path, capsys):
    for i, ledger in enumerate(study()):
        (tmp_path / "runs").mkdir(exist_ok=True)
        (tmp_path / "runs" / f"{i:02d}.jsonl").write_text(
            "\n".join(
                ledger_lines(
                    ledger.topic, ledger.header["config"]["policy"], ledger.header["seed"], ledger.truth.tolist()
                )
            )
            + "\n"
        )
    out = tmp_path / "fig.png"
    import matplotlib.pyplot as plt

    open_before = plt.get_fignums()
    assert main(["plot", str(tmp_path / "runs"), "--out", str(out), "--per-topic", "--stopping", "knee"]) == 0
    assert out.read_bytes()[:4] == b"\x89PNG"
    assert plt.get_fignums() == open_before  # closed once written: a notebook calling main keeps no figure open
    for kind in ("recall", "wss"):
        assert main(["plot", str(tmp_path / "runs"), "--out", str(out), "--kind", kind]) == 0
        assert plt.get_fignums() == open_before
    for effort in ("seconds", "clock"):  # clock reads each judgment's time beside its effort (it failed in plot)
        out.unlink()
        assert main(["plot", str(tmp_path / "runs"), "--out", str(out), "--effort", effort]) == 0
        assert out.read_bytes()[:4] == b"\x89PNG"
    assert main(["plot", str(tmp_path / "runs"), "--out", str(out), "--stopping", "kne"]) == 2
    assert "stopping rule 'kne'" in capsys.readouterr().err
    assert main(["plot", str(tmp_path / "missing"), "--out", str(out)]) == 2


def target_study():
    """One topic of 200 documents whose 5 relevant ones the review presents first, and the collection's docids and
    qrels: the target sample (drawn from all 200) costs far more than the review took to find every relevant one."""
    ledgers = [ledger_from_lines(ledger_lines("A", "good", 0, [1] * 5 + [0] * 5, size=200))]
    docids = [f"A-{i}" for i in range(200)]
    return ledgers, {"docids": docids, "qrels": {"A": {docid: int(i < 5) for i, docid in enumerate(docids)}}}


def points(ax, gid):
    """The (x, y) of every point drawn on `ax` by lines with this gid."""
    lines = [line for line in ax.get_lines() if line.get_gid() == gid]
    return [(float(x), float(y)) for line in lines for x, y in zip(*line.get_data(), strict=True)]


def test_the_axis_covers_stops_beyond_the_last_relevant_found():
    """target:T overshoots: its stop lies far past the effort at which the review found its last relevant document
    (5 judgments: the axis used to end at 5.25 and the stop vanished); the axis now ends a little past the stop."""
    from tarsim.stopping import evaluate_stopping

    ledgers, replay = target_study()
    outcome = evaluate_stopping(ledgers[0], "target:2", effort_models=["judge"], **replay)
    assert outcome.stopped and outcome.effort["judge"] > 1.05 * 5
    for per_topic in (True, False):
        figure = plot_recall_effort(ledgers, per_topic=per_topic, stopping=["target:2"], replay=replay, marks=())
        (ax,) = figure.axes
        assert points(ax, "stop") == [(outcome.effort["judge"], outcome.recall)]
        assert ax.get_xlim() == pytest.approx((0, 1.05 * outcome.effort["judge"]))
        assert points(ax, "stop-beyond") == []


def test_a_stop_beyond_an_explicit_xmax_is_drawn_hollow_at_the_right_edge():
    from tarsim.stopping import evaluate_stopping

    ledgers, replay = target_study()
    outcome = evaluate_stopping(ledgers[0], "target:2", effort_models=["judge"], **replay)
    for per_topic in (True, False):
        figure = plot_recall_effort(ledgers, per_topic=per_topic, stopping=["target:2"], replay=replay, xmax=4)
        (ax,) = figure.axes
        assert ax.get_xlim() == (0, 4) and points(ax, "stop") == []
        assert points(ax, "stop-beyond") == [(4.0, outcome.recall)]
        legend = figure.legends[0]
        labels = [" ".join(text.get_text().split()) for text in legend.get_texts()]
        assert "stop: target:2 beyond the axis (at its right edge)" in labels
    figure = plot_recall_effort(ledgers, stopping=["target:2"], replay=replay)  # nothing beyond: no such entry
    assert not any("beyond" in text.get_text() for text in figure.legends[0].get_texts())


def legend_labels(figure, per_topic):
    legend = figure.legends[0]  # below the axes in both layouts
    return [" ".join(text.get_text().split()) for text in legend.get_texts()]


def test_the_legend_lists_only_the_marks_drawn():
    """With --xmax short of the aR+b marks and of every stop, the legend lists neither the marks nor the filled stop
    marker (only the hollow one on the edge); a mark drawn inside is listed alone; a rule that never fired is listed
    as such, with no marker."""
    ledgers, replay = target_study()  # R = 5
    for per_topic in (True, False):
        figure = plot_recall_effort(ledgers, per_topic=per_topic, stopping=["target:2"], replay=replay, xmax=4)
        labels = legend_labels(figure, per_topic)
        assert not any(label.startswith("Recall@") for label in labels)
        assert [label for label in labels if label.startswith("stop:")] == [
            "stop: target:2 beyond the axis (at its right edge)"
        ]
        marks = [(0.5, 0), (4, 100)]  # 2.5 inside the axis, 120 beyond it
        figure = plot_recall_effort(ledgers, per_topic=per_topic, marks=marks, xmax=4, stopping=["knee"])
        labels = legend_labels(figure, per_topic)
        assert [label.split(" (")[0] for label in labels if label.startswith("Recall@")] == ["Recall@0.5R+0"]
        assert [label for label in labels if label.startswith("stop:")] == [  # knee never fires on 10 judgments
            "stop: knee did not stop in any run"
        ]
    marks = [(1, 0), (2, 0)]  # everything inside the axis: all listed
    figure = plot_recall_effort(ledgers, stopping=["target:2"], replay=replay, marks=marks)
    labels = legend_labels(figure, False)
    assert "Recall@1R+0, 2R+0 (mean)" in labels and "stop: target:2 (mean where fired)" in labels


def test_the_same_run_given_twice_is_refused_and_distinct_runs_of_one_place_are_averaged(tmp_path, capsys, monkeypatch):
    """Two folders holding the same run (or one folder spelt two ways) would count it twice in every mean: plot
    refuses in one line, for recall-effort and Insights' figures alike. Distinct runs that take one place in a line
    (here two reviews of one topic and seed that differ in their order) are averaged, as before; compare, which
    pairs runs, refuses those."""
    for name, labels in (("first", [1, 0, 1, 0]), ("copy", [1, 0, 1, 0]), ("other", [0, 1, 1, 0])):
        (tmp_path / name / "ledgers").mkdir(parents=True)
        lines = "\n".join(ledger_lines("A", "good", 0, labels)) + "\n"
        (tmp_path / name / "ledgers" / "A.jsonl").write_text(lines)
    monkeypatch.chdir(tmp_path)
    out = str(tmp_path / "fig.png")
    for given in (["first", "copy"], ["first", str(tmp_path / "first")]):
        assert main(["compare", *given, "--baseline", "good"]) == 2
        assert capsys.readouterr().err.rstrip().endswith("(the same run given twice?)")
        for kind in ([], ["--kind", "recall"]):  # recall-effort, and Insights' (its group: the tool's name)
            assert main(["plot", *given, "--out", out, *kind]) == 2
            refusal = capsys.readouterr().err
            assert refusal.count("\n") == 1 and refusal.rstrip().endswith("(the same run given twice?)")
    assert main(["plot", "first", "--out", out]) == 0
    assert capsys.readouterr().out.startswith("1 ledger(s) plotted")
    assert main(["compare", "first", "other", "--baseline", "good"]) == 2  # one place twice: compare cannot pair
    capsys.readouterr()
    assert main(["plot", "first", "other", "--out", out]) == 0
    assert capsys.readouterr().out.startswith("2 ledger(s) plotted")
